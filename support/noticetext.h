/* SPDX-License-Identifier: MIT */
/*
 * noticetext.h - a notice (why a program was not traced) in words: what
 * the session daemon logs when it keeps one and what tracectl prints for
 * a REC_NOTICE, the same sentence from the same fields.
 */
#ifndef SHMTRACE_COMMON_NOTICETEXT_H
#define SHMTRACE_COMMON_NOTICETEXT_H

#include <stddef.h>
#include "common/proto.h"

/*
 * "pid 1234 exec /usr/bin/passwd: not traced: set-user-ID program (runs as
 * uid 0), the loader drops LD_PRELOAD" into @buf (@len bytes), with " (N
 * times)" when repeated; a daemon running as root adds how to trace them.
 */
void notice_words(const struct rec_notice *n, char *buf, size_t len);

/* The notice's kind as a word for scripts ("static", "setuid"...), "unknown" else. */
const char *notice_kind_name(uint32_t kind);

#endif
