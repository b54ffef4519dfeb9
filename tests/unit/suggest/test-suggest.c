/* SPDX-License-Identifier: MIT */
/*
 * test-suggest.c - unit tests of tools/suggest.c: the closest known word
 * (insertions, deletions, substitutions and swaps each one edit, at most
 * two), a beginning of three characters or more, no suggestion for a known
 * word or a far one, the earlier of two equally close words, and long
 * options with and without "=VALUE".
 */
#include <check.h>
#include <getopt.h>
#include <stddef.h>

#include "suggest.h"

static const char *const verbs[] = {
	"create", "destroy", "start", "stop", "status", "enable-event", "enable-channel",
};
#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

START_TEST(test_word)
{
	ck_assert_str_eq(suggest_word("stauts", verbs, NVERBS), "status");	/* a swap */
	ck_assert_str_eq(suggest_word("crate", verbs, NVERBS), "create");	/* a deletion */
	ck_assert_str_eq(suggest_word("destroyy", verbs, NVERBS), "destroy");	/* an insertion */
	ck_assert_str_eq(suggest_word("stxp", verbs, NVERBS), "stop");		/* a change */
	ck_assert_str_eq(suggest_word("enable-ev", verbs, NVERBS), "enable-event");
	/* equally close: the first known */
	ck_assert_str_eq(suggest_word("stat", verbs, NVERBS), "start");
	ck_assert_ptr_null(suggest_word("status", verbs, NVERBS));		/* known */
	ck_assert_ptr_null(suggest_word("frobnicate", verbs, NVERBS));
	ck_assert_ptr_null(suggest_word("", verbs, NVERBS));
	ck_assert_ptr_null(suggest_word("en", verbs, NVERBS));			/* too short */
	ck_assert_ptr_null(suggest_word("stop", verbs, 0));
	ck_assert_ptr_null(suggest_word("a-word-longer-than-thirty-two-letters", verbs, NVERBS));
}
END_TEST

START_TEST(test_option)
{
	static const struct option opts[] = {
		{ "follow", no_argument, NULL, 1 },
		{ "format", required_argument, NULL, 2 },
		{ "filter", required_argument, NULL, 3 },
		{ NULL, 0, NULL, 0 },
	};

	ck_assert_str_eq(suggest_option("--folow", opts), "follow");
	ck_assert_str_eq(suggest_option("--fromat=json", opts), "format");
	ck_assert_str_eq(suggest_option("--filtre", opts), "filter");
	ck_assert_ptr_null(suggest_option("--format", opts));		/* known: no argument */
	ck_assert_ptr_null(suggest_option("-f", opts));			/* short options */
	ck_assert_ptr_null(suggest_option("--nothing-like-it", opts));
	ck_assert_ptr_null(suggest_option("--", opts));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("suggest");
	TCase *tc = tcase_create("suggest");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_word);
	tcase_add_test(tc, test_option);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
