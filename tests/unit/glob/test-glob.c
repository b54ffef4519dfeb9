/* SPDX-License-Identifier: MIT */
/*
 * test-glob.c - unit tests of glob_match() (common/glob.c).
 *
 * Fixed cases (literals, stars anywhere, escapes, empty strings), a
 * differential test against a simple dynamic-programming matcher on random
 * short patterns and strings, and pathological patterns that must finish
 * fast.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/glob.h"

struct gcase {
	const char *pattern;
	const char *s;
	int match;
};

static const struct gcase cases[] = {
	/* literals */
	{ "", "", 1 },
	{ "", "a", 0 },
	{ "a", "", 0 },
	{ "a", "a", 1 },
	{ "a", "b", 0 },
	{ "abc", "abc", 1 },
	{ "abc", "abd", 0 },
	{ "abc", "ab", 0 },
	{ "ab", "abc", 0 },
	{ "abc", "xabc", 0 },
	{ "myapp:request_begin", "myapp:request_begin", 1 },
	{ "myapp:request_begin", "myapp:request_end", 0 },
	{ "ABC", "abc", 0 },
	/* one star */
	{ "*", "", 1 },
	{ "*", "anything", 1 },
	{ "*", "*", 1 },
	{ "a*", "a", 1 },
	{ "a*", "abc", 1 },
	{ "a*", "ba", 0 },
	{ "*a", "a", 1 },
	{ "*a", "bca", 1 },
	{ "*a", "ab", 0 },
	{ "*a", "", 0 },
	{ "a*c", "ac", 1 },
	{ "a*c", "abbbc", 1 },
	{ "a*c", "abbbcd", 0 },
	{ "a*c", "abcbc", 1 },
	{ "myapp:*", "myapp:request_begin", 1 },
	{ "myapp:*", "myap:request_begin", 0 },
	{ "*:request_*", "myapp:request_begin", 1 },
	{ "*:request_*", "myapp:reply_begin", 0 },
	/* several stars */
	{ "**", "", 1 },
	{ "***", "abc", 1 },
	{ "a**b", "ab", 1 },
	{ "a**b", "axxb", 1 },
	{ "*a*", "a", 1 },
	{ "*a*", "bab", 1 },
	{ "*a*", "bbb", 0 },
	{ "*a*b*c*", "xaybzc", 1 },
	{ "*a*b*c*", "abc", 1 },
	{ "*a*b*c*", "cba", 0 },
	{ "*a*b*c*", "acb", 0 },
	{ "a*b*c", "abcbc", 1 },
	{ "a*b*c", "abcb", 0 },
	{ "*ab*ab", "abab", 1 },
	{ "*ab*ab", "aabbab", 1 },
	{ "*ab*ab", "abba", 0 },
	{ "*aab", "aaab", 1 },
	{ "*aab", "aaaab", 1 },
	{ "*aab", "aaba", 0 },
	{ "*mississippi", "mississimississippi", 1 },
	/* escapes */
	{ "\\*", "*", 1 },
	{ "\\*", "a", 0 },
	{ "\\*", "", 0 },
	{ "\\*", "**", 0 },
	{ "a\\*b", "a*b", 1 },
	{ "a\\*b", "axb", 0 },
	{ "a\\*b", "ab", 0 },
	{ "*\\*", "abc*", 1 },
	{ "*\\*", "abc", 0 },
	{ "\\**", "*abc", 1 },
	{ "\\**", "abc", 0 },
	{ "*\\**", "ab*cd", 1 },
	{ "*\\**", "abcd", 0 },
	{ "\\a", "a", 1 },
	{ "\\a", "\\a", 0 },
	{ "\\\\", "\\", 1 },
	{ "\\\\", "\\\\", 0 },
	{ "a\\\\*", "a\\bc", 1 },
	{ "a\\\\*", "abc", 0 },
	/* a lone trailing backslash matches itself */
	{ "\\", "\\", 1 },
	{ "a\\", "a\\", 1 },
	{ "a\\", "a", 0 },
	{ "*\\", "xyz\\", 1 },
	/* backtracking over an escaped star */
	{ "*\\*x", "a*b*x", 1 },
	{ "*\\*x", "a*bx", 0 },
};

START_TEST(test_table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct gcase *c = &cases[i];

		ck_assert_msg(glob_match(c->pattern, c->s) == c->match,
			      "glob_match(\"%s\", \"%s\") != %d", c->pattern, c->s, c->match);
	}
}
END_TEST

/*
 * Reference matcher: tokens (star, or one literal character, '\' escaping
 * the next one, a trailing '\' being literal) matched by dynamic
 * programming over (token, character) pairs.
 */
#define REF_MAX 32

static int ref_match(const char *p, const char *s)
{
	int tok[REF_MAX];	/* -1: star, else a character */
	int ntok = 0;
	size_t ls = strlen(s);
	unsigned char dp[REF_MAX + 1][REF_MAX + 1];

	while (*p) {
		ck_assert_int_lt(ntok, REF_MAX);
		if (*p == '*') {
			tok[ntok++] = -1;
			p++;
		} else if (*p == '\\' && p[1]) {
			tok[ntok++] = (unsigned char)p[1];
			p += 2;
		} else {
			tok[ntok++] = (unsigned char)*p++;
		}
	}
	ck_assert_uint_le(ls, REF_MAX);
	/* dp[i][j]: tokens i.. match s + j */
	for (int i = ntok; i >= 0; i--) {
		for (int j = (int)ls; j >= 0; j--) {
			if (i == ntok)
				dp[i][j] = j == (int)ls;
			else if (tok[i] == -1)
				dp[i][j] = dp[i + 1][j] || (j < (int)ls && dp[i][j + 1]);
			else
				dp[i][j] = j < (int)ls && (unsigned char)s[j] == tok[i] &&
					   dp[i + 1][j + 1];
		}
	}
	return dp[0][0];
}

static unsigned int rnd_state = 12345;

static unsigned int rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

START_TEST(test_random_vs_reference)
{
	static const char palp[] = "ab*\\";
	static const char pals[] = "ab*\\";
	char p[16], s[16];
	int matches = 0;

	for (int iter = 0; iter < 200000; iter++) {
		size_t lp = rnd() % 9, ls = rnd() % 11, i;

		for (i = 0; i < lp; i++)
			p[i] = palp[rnd() % 4];
		p[lp] = 0;
		/* strings mostly of a and b so that patterns match often */
		for (i = 0; i < ls; i++)
			s[i] = pals[rnd() % 16 < 14 ? rnd() % 2 : 2 + rnd() % 2];
		s[ls] = 0;
		int want = ref_match(p, s);

		ck_assert_msg(glob_match(p, s) == want, "glob_match(\"%s\", \"%s\") != %d",
			      p, s, want);
		matches += want;
	}
	/* the generator must exercise both outcomes */
	ck_assert_int_gt(matches, 10000);
	ck_assert_int_lt(matches, 190000);
}
END_TEST

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *repeat(char c, size_t n, const char *tail)
{
	size_t lt = strlen(tail);
	char *s = malloc(n + lt + 1);

	ck_assert_ptr_nonnull(s);
	memset(s, c, n);
	memcpy(s + n, tail, lt + 1);
	return s;
}

START_TEST(test_pathological)
{
	const size_t n = 100000;
	char *as = repeat('a', n, "");
	char *asb = repeat('a', n, "b");
	char *longpat = repeat('a', 30, "b");
	char *starpat = malloc(2 * 30 + 3);
	double t0 = now();

	ck_assert_ptr_nonnull(starpat);
	/* "*a*a*...*a*b" with 30 a's */
	for (int i = 0; i < 30; i++)
		memcpy(starpat + 2 * i, "*a", 2);
	memcpy(starpat + 60, "*b", 3);

	ck_assert_int_eq(glob_match("*a*a*a*a*b", as), 0);
	ck_assert_int_eq(glob_match("*a*a*a*a*b", asb), 1);
	ck_assert_int_eq(glob_match(starpat, as), 0);
	ck_assert_int_eq(glob_match(starpat, asb), 1);
	/* "*aaa...ab": one star, a long literal tail */
	longpat[0] = '*';
	ck_assert_int_eq(glob_match(longpat, as), 0);
	ck_assert_int_eq(glob_match(longpat, asb), 1);
	ck_assert_int_eq(glob_match("*************************b", as), 0);
	ck_assert_int_eq(glob_match("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", as), 0);
	ck_assert_int_eq(glob_match(as, as), 1);
	ck_assert_int_eq(glob_match(as, asb), 0);
	ck_assert_int_eq(glob_match(asb, as), 0);
	/* an exponential backtracking matcher would not finish */
	ck_assert_msg(now() - t0 < 2.0, "pathological patterns took %.2f s", now() - t0);
	free(as);
	free(asb);
	free(longpat);
	free(starpat);
}
END_TEST

static Suite *glob_suite(void)
{
	Suite *s = suite_create("glob");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_random_vs_reference);
	tcase_add_test(tc, test_pathological);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(glob_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
