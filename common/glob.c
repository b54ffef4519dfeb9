/* SPDX-License-Identifier: MIT */
/*
 * glob.c - '*' wildcard matching.
 *
 * The classic greedy algorithm with one backtrack point: on a mismatch
 * after a star, retry from the star with one more character consumed.
 * O(len(pattern) * len(s)) at worst, no recursion, no allocation.
 */
#include "common/glob.h"

int glob_match(const char *p, const char *s)
{
	const char *star_p = 0, *star_s = 0;

	for (;;) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (*s == 0) {
			if (*p == 0)
				return 1;
			return 0;
		}
		if (*p == '\\' && p[1]) {
			if (p[1] == *s) {
				p += 2;
				s++;
				continue;
			}
		} else if (*p && *p == *s) {
			p++;
			s++;
			continue;
		}
		if (!star_p)
			return 0;
		p = star_p;
		s = ++star_s;
	}
}
