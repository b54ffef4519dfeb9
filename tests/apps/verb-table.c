/* SPDX-License-Identifier: MIT */
/*
 * verb-table.c - print tracectl's table of verbs (tools/tracectl/verbs.h)
 * for the tests that check the usage lines (tracectl-cli.sh), the manual
 * page (man-pages.sh) and the bash completion (completion.sh) against it.
 * One line each, in the table's order:
 *
 *	verb NAME
 *	usage NAME USAGE		(its lines joined by one space)
 *	option NAME --LONG[=] [-X]	(each option it takes; '=': it needs a
 *					value; -X: its short form)
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "verbs.h"

int main(void)
{
	for (size_t i = 0; i < nverbs; i++) {
		const struct verb *v = &verbs[i];

		printf("verb %s\nusage %s ", v->name, v->name);
		for (const char *p = v->usage; *p; p++) {
			if (*p == '\n') {
				putchar(' ');
				p += strspn(p + 1, " ");
			} else {
				putchar(*p);
			}
		}
		putchar('\n');
		for (const struct option *o = v->longopts; o->name; o++) {
			bool letter = o->val > 0 && o->val < 128 && o->val != ':' && o->val != '+';
			const char *s = letter ? strchr(v->shortopts, o->val) : NULL;

			if (!verb_takes(v, o->val))
				continue;
			printf("option %s --%s%s", v->name, o->name,
			       o->has_arg == required_argument ? "=" : "");
			if (s)
				printf(" -%c", *s);
			putchar('\n');
		}
	}
	return ferror(stdout) ? 1 : 0;
}
