/* SPDX-License-Identifier: MIT */
/* glob.h - '*' wildcard matching for event names and filter strings. */
#ifndef SHMTRACE_COMMON_GLOB_H
#define SHMTRACE_COMMON_GLOB_H

/*
 * glob_match - does @s match @pattern? '*' matches any run of characters
 * (including none), '\' makes the next character literal; every other
 * character matches itself. Linear in time for patterns without nested
 * backtracking worst cases (single backtrack point). Returns 1 or 0.
 */
int glob_match(const char *pattern, const char *s);

#endif
