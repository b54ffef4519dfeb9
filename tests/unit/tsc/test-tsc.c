/* SPDX-License-Identifier: MIT */
/*
 * test-tsc.c - unit tests of tsc_verdict() (common/tsc.c): when the TSC is
 * the trace clock, from what the kernel and the CPU say of it.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "common/tsc.h"

#define GOOD " fpu tsc msr constant_tsc rep_good nopl nonstop_tsc cpuid tsc_known_freq pni"

START_TEST(tsc_is_the_clocksource)
{
	ck_assert_int_eq(tsc_verdict("tsc\n", "tsc hpet acpi_pm \n", GOOD), CLOCK_KIND_TSC);
	/* an older sysfs without the list */
	ck_assert_int_eq(tsc_verdict("tsc\n", "", GOOD), CLOCK_KIND_TSC);
}
END_TEST

START_TEST(kvm_clock_with_a_valid_tsc)
{
	ck_assert_int_eq(tsc_verdict("kvm-clock\n", "kvm-clock tsc acpi_pm \n", GOOD),
			 CLOCK_KIND_TSC);
	ck_assert_int_eq(tsc_verdict("hyperv_clocksource_tsc_page\n",
				     "hyperv_clocksource_tsc_page tsc \n", GOOD), CLOCK_KIND_TSC);
}
END_TEST

START_TEST(kvm_clock_with_the_tsc_marked_unstable)
{
	/* the watchdog took it off the list */
	ck_assert_int_eq(tsc_verdict("kvm-clock\n", "kvm-clock acpi_pm \n", GOOD),
			 CLOCK_KIND_MONOTONIC);
	/* names that only contain "tsc" are not the TSC */
	ck_assert_int_eq(tsc_verdict("hyperv_clocksource_tsc_page\n",
				     "hyperv_clocksource_tsc_page acpi_pm \n", GOOD),
			 CLOCK_KIND_MONOTONIC);
}
END_TEST

START_TEST(tsc_not_invariant)
{
	ck_assert_int_eq(tsc_verdict("tsc\n", "tsc \n", " fpu tsc constant_tsc pni"),
			 CLOCK_KIND_MONOTONIC);
	ck_assert_int_eq(tsc_verdict("tsc\n", "tsc \n", " fpu tsc nonstop_tsc pni"),
			 CLOCK_KIND_MONOTONIC);
	/* a flag that only starts with the name */
	ck_assert_int_eq(tsc_verdict("tsc\n", "tsc \n", " constant_tsc_x nonstop_tsc"),
			 CLOCK_KIND_MONOTONIC);
	ck_assert_int_eq(tsc_verdict("tsc\n", "tsc \n", ""), CLOCK_KIND_MONOTONIC);
}
END_TEST

START_TEST(other_clocksources)
{
	ck_assert_int_eq(tsc_verdict("hpet\n", "hpet acpi_pm \n", GOOD), CLOCK_KIND_MONOTONIC);
	ck_assert_int_eq(tsc_verdict("", "", GOOD), CLOCK_KIND_MONOTONIC);
}
END_TEST

/* A frequency measured earlier: believed only when plausible, and anchored now. */
START_TEST(anchor)
{
	struct tsc_calib c = { 0, 0, 0 };

	ck_assert_int_eq(tsc_anchor(&c, 0), -EINVAL);
	ck_assert_int_eq(tsc_anchor(&c, TSC_HZ_MIN - 1), -EINVAL);
	ck_assert_int_eq(tsc_anchor(&c, TSC_HZ_MAX + 1), -EINVAL);
	ck_assert_int_eq(tsc_anchor(&c, 2500000000ull), 0);
	ck_assert_uint_eq(c.hz, 2500000000ull);
	ck_assert_uint_gt(c.real0_ns, 1000000000ull * 1000000000ull);	/* after 2001 */
}
END_TEST

static Suite *tsc_suite(void)
{
	Suite *s = suite_create("tsc");
	TCase *tc = tcase_create("verdict");

	tcase_add_test(tc, anchor);
	tcase_add_test(tc, tsc_is_the_clocksource);
	tcase_add_test(tc, kvm_clock_with_a_valid_tsc);
	tcase_add_test(tc, kvm_clock_with_the_tsc_marked_unstable);
	tcase_add_test(tc, tsc_not_invariant);
	tcase_add_test(tc, other_clocksources);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tsc_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
