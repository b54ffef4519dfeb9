/* SPDX-License-Identifier: MIT */
/*
 * test-units.c - unit tests of units_duration() and units_size()
 * (support/units.c): every unit, exact fractions, a missing unit, junk,
 * and the limits of 64 bits.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "support/units.h"

struct ucase {
	const char *s;
	int ret;
	uint64_t v;
};

static const struct ucase durations[] = {
	{ "0", 0, 0 },
	{ "0.0", 0, 0 },
	{ "1ns", 0, 1 },
	{ "250us", 0, 250000 },
	{ "200ms", 0, 200000000 },
	{ "2s", 0, 2000000000 },
	{ "1.5s", 0, 1500000000 },
	{ "1.5ms", 0, 1500000 },
	{ "0.000000001s", 0, 1 },
	{ "0.0000000019s", 0, 1 },		/* the tenth digit is cut */
	{ "1m", 0, 60000000000ull },
	{ "1min", 0, 60000000000ull },
	{ "2h", 0, 7200000000000ull },
	{ "18446744073709551615ns", 0, UINT64_MAX },
	{ "18446744073709551616ns", -ERANGE, 0 },
	{ "18446744073709551615us", -ERANGE, 0 },
	{ "5124095h", 0, 5124095ull * 3600000000000ull },
	{ "5124095.5h", 0, 5124095ull * 3600000000000ull + 1800000000000ull },
	{ "5124095.6h", -ERANGE, 0 },
	{ "5124096h", -ERANGE, 0 },
	{ "10", -EDOM, 0 },
	{ "0.5", -EDOM, 0 },
	{ "", -EINVAL, 0 },
	{ "s", -EINVAL, 0 },
	{ "-1s", -EINVAL, 0 },
	{ "+1s", -EINVAL, 0 },
	{ " 1s", -EINVAL, 0 },
	{ "1 s", -EINVAL, 0 },
	{ "1.s", -EINVAL, 0 },
	{ ".5s", -EINVAL, 0 },
	{ "1sec", -EINVAL, 0 },
	{ "0x10ms", -EINVAL, 0 },
	{ "1e3ms", -EINVAL, 0 },
	{ "1S", -EINVAL, 0 },
};

static const struct ucase sizes[] = {
	{ "0", 0, 0 },
	{ "4096", 0, 4096 },
	{ "4096B", 0, 4096 },
	{ "512k", 0, 512 << 10 },
	{ "512K", 0, 512 << 10 },
	{ "512KiB", 0, 512 << 10 },
	{ "2M", 0, 2 << 20 },
	{ "2m", 0, 2 << 20 },
	{ "2MiB", 0, 2 << 20 },
	{ "1.5M", 0, 3 << 19 },
	{ "1G", 0, 1ull << 30 },
	{ "16GiB", 0, 16ull << 30 },
	{ "0.5k", 0, 512 },
	{ "18446744073709551615", 0, UINT64_MAX },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "17179869184G", -ERANGE, 0 },
	{ "17179869183G", 0, 17179869183ull << 30 },
	{ "", -EINVAL, 0 },
	{ "k", -EINVAL, 0 },
	{ "-1k", -EINVAL, 0 },
	{ "12q", -EINVAL, 0 },
	{ "1kb", -EINVAL, 0 },
	{ "1T", -EINVAL, 0 },
	{ "1.k", -EINVAL, 0 },
};

/* @c through @parse: its return, and its value or the output untouched */
static void check_case(int (*parse)(const char *, uint64_t *), const struct ucase *c)
{
	uint64_t v = 12345;
	int ret = parse(c->s, &v);

	ck_assert_msg(ret == c->ret, "'%s': %d, expected %d", c->s, ret, c->ret);
	if (ret == 0)
		ck_assert_msg(v == c->v, "'%s': %llu, expected %llu", c->s,
			      (unsigned long long)v, (unsigned long long)c->v);
	else
		ck_assert_msg(v == 12345, "'%s': output written on error", c->s);
}

START_TEST(test_durations)
{
	check_case(units_duration, &durations[_i]);
}
END_TEST

START_TEST(test_sizes)
{
	check_case(units_size, &sizes[_i]);
}
END_TEST

START_TEST(test_why)
{
	ck_assert_str_eq(units_why(-ERANGE, 0), "too large");
	ck_assert_ptr_nonnull(strstr(units_why(-EDOM, 0), "unit"));
	ck_assert_ptr_nonnull(strstr(units_why(-EINVAL, 1), "KiB"));
	ck_assert_ptr_nonnull(strstr(units_why(-EINVAL, 0), "ms"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("units");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_durations, 0, sizeof(durations) / sizeof(durations[0]));
	tcase_add_loop_test(tc, test_sizes, 0, sizeof(sizes) / sizeof(sizes[0]));
	tcase_add_test(tc, test_why);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
