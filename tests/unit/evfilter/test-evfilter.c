/* SPDX-License-Identifier: MIT */
/*
 * test-evfilter.c - unit tests of libtrace/evfilter.c alone: filters on
 * event fields decided in the traced thread, against a control page that
 * the session daemon rewrites.
 *
 * A filter's number is read at one generation of the page; its code must
 * be the code that generation gave it. The cases: the code evaluated at
 * its generation; a page being written (odd generation) evaluated from
 * the thread's copy of the older generation, never from half-written
 * code; a number whose page has moved on and of which the thread has no
 * copy answered "undecided" (-EAGAIN), not evaluated with the new code
 * under that number; damaged code answered -EINVAL; the channel path
 * (shmtrace__filter_ts) keeping an event it cannot decide, and never
 * dropping an event its filter keeps while another thread renumbers the
 * filters as fast as it can.
 *
 * The rest of the library is replaced by the stubs below: no aggregation,
 * no trigger (aggen and trigen stay 0), the context of a lone thread.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib.h"
#include "support/filtercc.h"

/* ---- what evfilter.c calls in the rest of the library ------------------- */

struct lib_state lib;
__thread struct shmtrace__tls shmtrace__tls;

uint32_t shmtrace__cpu_slow(void)
{
	return 0;
}

int32_t writer_tid(void)
{
	return 1;
}

void lib_late_event(void)
{
}

void aggr_event(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
		const struct shmtrace__fval *v, uint64_t *ts, unsigned int slots)
{
	(void)ctl, (void)ev, (void)v, (void)ts, (void)slots;
	ck_abort_msg("no aggregation here");
}

int trig_event(const struct shm_ctl_page *ctl, const struct shmtrace_event *ev,
	       const struct shmtrace__fval *v)
{
	(void)ctl, (void)ev, (void)v;
	ck_abort_msg("no trigger here");
	return 0;
}

/* ---- a control page, written as the session daemon writes it ------------ */

static struct shm_ctl_page *ctl;

static const struct shmtrace_field_desc fields[] = {
	{ "seq", SHMTRACE_TYPE_U64, 0 },
	{ "thread", SHMTRACE_TYPE_U32, 0 },
};

/* An event of id @id with the two fields, filtered in channel 0. */
static struct shmtrace_event event(uint32_t id)
{
	struct shmtrace_event ev = {
		.enabled = 1, .filtered = 1, .registered = 1, .abi_version = 4, .id = id,
		.provider = "t", .name = "event", .nfields = 2, .fields = fields,
	};

	return ev;
}

static void page_begin(void)
{
	uint64_t g = __atomic_load_n(&ctl->generation, __ATOMIC_RELAXED);

	__atomic_store_n(&ctl->generation, (g + 1) | 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void page_end(void)
{
	uint64_t g = __atomic_load_n(&ctl->generation, __ATOMIC_RELAXED);

	__atomic_store_n(&ctl->generation, g + 1, __ATOMIC_RELEASE);
}

/* The page's filters, numbered from 1, as @n expressions (NULL: damaged, no code). */
static void page_filters(const char *const *exprs, unsigned int n)
{
	uint32_t used = 0;

	memset(&ctl->filters, 0, sizeof(ctl->filters));
	for (unsigned int i = 0; i < n; i++) {
		char msg[128];
		int col;
		long len = exprs[i] ? flt_compile(exprs[i], ctl->filters.code + used,
						  sizeof(ctl->filters.code) - used, &col, msg,
						  sizeof(msg)) : 0;

		ck_assert_msg(len >= 0, "%s: %s", exprs[i], msg);
		ctl->filters.f[i].off = used;
		ctl->filters.f[i].len = (uint32_t)len;
		used += (uint32_t)len;
	}
	ctl->filters.nfilters = n;
	ctl->filters.used = used;
}

/* A new generation whose filters are @exprs; channel 0 of event @id uses number @chan0. */
static uint64_t page_set(const char *const *exprs, unsigned int n, uint32_t id, uint8_t chan0)
{
	page_begin();
	page_filters(exprs, n);
	ctl->filt[0][id] = chan0;
	page_end();
	return __atomic_load_n(&ctl->generation, __ATOMIC_RELAXED);
}

static void setup(void)
{
	ctl = aligned_alloc(SHM_PAGE, SHM_CTL_SIZE);
	ck_assert_ptr_nonnull(ctl);
	memset(ctl, 0, SHM_CTL_SIZE);
	ctl->generation = 2;
	__atomic_store_n(&lib.ctl, ctl, __ATOMIC_RELEASE);
}

static void teardown(void)
{
	__atomic_store_n(&lib.ctl, NULL, __ATOMIC_RELEASE);
	free(ctl);
	evf_thread_exit();
}

static const char *const layout_a[] = { "seq == 3000", "seq == 7" };
static const char *const layout_b[] = { "seq == 7", "seq == 3000" };

#define VALS(seq) { { .u = (seq) }, { .u = 0 } }

/* ---- cases --------------------------------------------------------------- */

START_TEST(keeps_at_its_generation)
{
	struct shmtrace_event ev = event(1);
	struct shmtrace__fval hit[] = VALS(3000), miss[] = VALS(5);
	uint64_t g = page_set(layout_a, 2, ev.id, 1);

	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g, hit), 1);
	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g, miss), 0);
	ck_assert_int_eq(evf_keep(ctl, &ev, 2, g, hit), 0);
	ck_assert_int_eq(evf_keep(ctl, &ev, 0, g, miss), 1);	/* no filter */
	ck_assert_int_eq(evf_keep(ctl, &ev, SHM_MAX_FILTERS + 1, g, miss), -EINVAL);
}
END_TEST

START_TEST(page_being_written)
{
	struct shmtrace_event ev = event(2);
	struct shmtrace__fval miss[] = VALS(5);
	uint64_t g = page_set(layout_a, 2, ev.id, 1);

	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g, miss), 0);	/* copied at g */
	/* the daemon half way through renumbering: filter 1 is already "seq == 7" */
	page_begin();
	page_filters(layout_b, 2);
	/* read at g, decided with g's code: still refused (it was kept before) */
	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g, miss), 0);
	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g + 1, miss), -EINVAL);	/* odd: no such page */
	page_end();
}
END_TEST

START_TEST(number_of_a_page_gone)
{
	struct shmtrace_event ev = event(3);
	struct shmtrace__fval hit[] = VALS(3000), seven[] = VALS(7);
	uint64_t g = page_set(layout_a, 2, ev.id, 1), g2;

	/* renumbered before the thread ever copied filter 1 of g */
	g2 = page_set(layout_b, 2, ev.id, 2);
	ck_assert_uint_gt(g2, g);
	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g, hit), -EAGAIN);
	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g, seven), -EAGAIN);
	ck_assert_int_eq(evf_keep(ctl, &ev, 2, g2, hit), 1);
	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g2, seven), 1);
}
END_TEST

START_TEST(damaged_code)
{
	static const char *const damaged[] = { NULL, "seq == 3000" };
	struct shmtrace_event ev = event(4);
	struct shmtrace__fval hit[] = VALS(3000);
	uint64_t g = page_set(damaged, 2, ev.id, 1);

	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g, hit), -EINVAL);
	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g, hit), -EINVAL);	/* remembered */
	/* garbage that does not validate */
	page_begin();
	memset(ctl->filters.code, 0xff, 64);
	ctl->filters.f[0].off = 0;
	ctl->filters.f[0].len = 64;
	page_end();
	g = __atomic_load_n(&ctl->generation, __ATOMIC_RELAXED);
	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g, hit), -EINVAL);
	/* an offset outside the code */
	page_begin();
	ctl->filters.f[0].off = sizeof(ctl->filters.code);
	page_end();
	g = __atomic_load_n(&ctl->generation, __ATOMIC_RELAXED);
	ck_assert_int_eq(evf_keep(ctl, &ev, 1, g, hit), -EINVAL);
	/* the channel path keeps what it cannot decide */
	ck_assert_uint_eq(shmtrace__filter_ts(&ev, 1, hit, &(uint64_t){ 0 }), 1);
}
END_TEST

START_TEST(channels)
{
	struct shmtrace_event ev = event(5);
	struct shmtrace__fval hit[] = VALS(3000), miss[] = VALS(5);
	uint64_t ts = 0;

	page_set(layout_a, 2, ev.id, 1);
	ck_assert_uint_eq(shmtrace__filter_ts(&ev, 1, hit, &ts), 1);
	ck_assert_uint_eq(shmtrace__filter_ts(&ev, 1, miss, &ts), 0);
	/* channel 1 records it unfiltered: kept there whatever channel 0 says */
	ck_assert_uint_eq(shmtrace__filter_ts(&ev, 3, miss, &ts), 2);
	/* a page being written at every look: kept (a filter in doubt loses nothing) */
	page_begin();
	ck_assert_uint_eq(shmtrace__filter_ts(&ev, 1, miss, &ts), 1);
	page_end();
	ck_assert_uint_eq(shmtrace__filter_ts(&ev, 1, miss, &ts), 0);
	ck_assert_uint_eq(ts, 0);
}
END_TEST

/* The daemon: the two layouts in turn, as fast as it can, until told to stop. */
static int stop;

static void *renumber(void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg;

	for (unsigned long i = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++) {
		page_begin();
		page_filters(i & 1 ? layout_b : layout_a, 2);
		ctl->filt[0][id] = i & 1 ? 2 : 1;
		page_end();
		for (unsigned int k = i % 512; k; k--)
			__builtin_ia32_pause();	/* stable for a while, sometimes */
	}
	return NULL;
}

/* Channel 0's filter number and its generation, read as a trigger's slot is. */
static unsigned int chan0_num(uint32_t id, uint64_t *gen)
{
	for (;;) {
		uint64_t g = __atomic_load_n(&ctl->generation, __ATOMIC_ACQUIRE);
		unsigned int num = __atomic_load_n(&ctl->filt[0][id], __ATOMIC_RELAXED);

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(g & 1) && __atomic_load_n(&ctl->generation, __ATOMIC_RELAXED) == g) {
			*gen = g;
			return num;
		}
	}
}

START_TEST(renumbered_meanwhile)
{
	struct shmtrace_event ev = event(6);
	struct shmtrace__fval hit[] = VALS(3000), miss[] = VALS(5);
	unsigned long kept = 0, refused = 0, n = 0, unsure = 0;
	struct timespec t0, t;
	pthread_t th;
	uint64_t ts = 0;

	page_set(layout_a, 2, ev.id, 1);
	ck_assert_int_eq(pthread_create(&th, NULL, renumber, (void *)(uintptr_t)ev.id), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		/* channel 0's filter is "seq == 3000" in both layouts: the event
		 * of seq 3000 is kept every time; one of seq 5 is refused, or kept
		 * when the page changed at every look */
		for (int i = 0; i < 1000; i++, n++) {
			uint64_t g;
			unsigned int num;
			int r;

			ck_assert_uint_eq(shmtrace__filter_ts(&ev, 1, hit, &ts), 1);
			if (shmtrace__filter_ts(&ev, 1, miss, &ts))
				kept++;
			else
				refused++;
			/* a number read at g, decided at g or not at all */
			num = chan0_num(ev.id, &g);
			r = evf_keep(ctl, &ev, num, g, hit);
			ck_assert_msg(r == 1 || r == -EAGAIN, "seq 3000 at %" PRIu64 ": %d", g, r);
			r = evf_keep(ctl, &ev, num, g, miss);
			ck_assert_msg(r == 0 || r == -EAGAIN, "seq 5 at %" PRIu64 ": %d", g, r);
			unsure += r < 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 300000000L);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	ck_assert_uint_gt(refused, 0);
	fprintf(stderr, "renumbered meanwhile: %lu events of each kind; of seq 5, %lu refused, "
		"%lu kept in doubt; %lu undecided by number\n", n, refused, kept, unsure);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("evfilter");
	TCase *tc = tcase_create("generations");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, keeps_at_its_generation);
	tcase_add_test(tc, page_being_written);
	tcase_add_test(tc, number_of_a_page_gone);
	tcase_add_test(tc, damaged_code);
	tcase_add_test(tc, channels);
	tcase_add_test(tc, renumbered_meanwhile);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
