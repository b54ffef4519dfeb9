/* SPDX-License-Identifier: MIT */
/*
 * filtercc.h - the compiler of filter expressions (filtercc.c), for the
 * session daemon and the reader; the language and the bytecode are
 * described in common/filter.h.
 */
#ifndef SHMTRACE_SUPPORT_FILTERCC_H
#define SHMTRACE_SUPPORT_FILTERCC_H

#include <stddef.h>
#include "common/filter.h"

/*
 * Compile @expr into @out (at most @cap bytes). Returns the bytecode size,
 * or -EINVAL with *col set to the 1-based column of the error and @msg
 * (@msglen bytes) saying what is wrong, -E2BIG when too long.
 */
long flt_compile(const char *expr, void *out, size_t cap, int *col, char *msg, size_t msglen);

#endif
