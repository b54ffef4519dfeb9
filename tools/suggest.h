/* SPDX-License-Identifier: MIT */
/*
 * suggest.h - "did you mean": the closest of known words to a typo
 * (suggest.c), for the commands' messages.
 */
#ifndef SHMTRACE_TOOLS_SUGGEST_H
#define SHMTRACE_TOOLS_SUGGEST_H

#include <getopt.h>
#include <stddef.h>

/*
 * Of @n words @known, the one closest to @word: at most 2 edits away, or
 * beginning with @word (3 characters at least); NULL when none is, or when
 * @word is itself known.
 */
const char *suggest_word(const char *word, const char *const *known, size_t n);
/*
 * The long option of @opts (ended by a zeroed entry) closest to the
 * command-line argument @arg ("--folow", "--folow=x"); NULL when none is.
 */
const char *suggest_option(const char *arg, const struct option *opts);

#endif
