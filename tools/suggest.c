/* SPDX-License-Identifier: MIT */
/*
 * suggest.c - "did you mean": the closest of known words to a typo, by
 * edit distance (insertions, deletions, substitutions, swaps of
 * neighbours), for the verbs of
 * tracectl and the options of both commands. Pure functions.
 */
#include <string.h>
#include "suggest.h"

/*
 * Edit distance of @a and @b, a swap of two neighbours counting as one edit
 * (optimal string alignment); short words only: 99 beyond 31 characters.
 */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int d[32][32];
	size_t m = strlen(a), n = strlen(b);

	if (m >= 32 || n >= 32)
		return 99;
	for (size_t i = 0; i <= m; i++)
		d[i][0] = (unsigned int)i;
	for (size_t j = 0; j <= n; j++)
		d[0][j] = (unsigned int)j;
	for (size_t i = 1; i <= m; i++)
		for (size_t j = 1; j <= n; j++) {
			unsigned int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[m][n];
}

const char *suggest_word(const char *word, const char *const *known, size_t n)
{
	const char *best = NULL;
	unsigned int bestd = 3;		/* only close words, or a beginning */
	size_t len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		unsigned int d = distance(word, known[i]);

		if (!d)
			return NULL;	/* a known word: nothing to suggest */
		if (len >= 3 && !strncmp(known[i], word, len))
			d = 1;
		if (d < bestd) {
			bestd = d;
			best = known[i];
		}
	}
	return best;
}

const char *suggest_option(const char *arg, const struct option *opts)
{
	const char *names[256];
	char word[64];
	size_t n = 0, len;

	if (strncmp(arg, "--", 2))
		return NULL;
	arg += 2;
	len = strcspn(arg, "=");
	if (len >= sizeof(word))
		return NULL;
	memcpy(word, arg, len);
	word[len] = 0;
	for (; opts->name && n < sizeof(names) / sizeof(names[0]); opts++)
		names[n++] = opts->name;
	return suggest_word(word, names, n);
}
