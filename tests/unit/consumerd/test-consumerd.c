/* SPDX-License-Identifier: MIT */
/*
 * test-consumerd.c - unit tests of the consumer's checks of what a traced
 * process writes in its own memory: counters believed only as they can
 * move (consumerd/count.c) and ranges copied only when they are whole
 * events (consumerd/frame.c).
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <shmtrace/shmtrace.h>

#include "app.h"
#include "count.h"
#include "frame.h"
#include "common/ringbuf.h"

/* ---- count.c ------------------------------------------------------------ */

START_TEST(test_count_grows)
{
	struct cnt c;

	cnt_init(&c, 1000);
	/* 5000 ns after the process began: 5000 events at most, and some slack */
	ck_assert_int_eq(cnt_see(&c, 3000, 6000, 1), 1);
	ck_assert_uint_eq(c.val, 3000);
	ck_assert_int_eq(cnt_see(&c, 3000, 7000, 1), 1);
	ck_assert_int_eq(cnt_see(&c, 3500, 8000, 1), 1);
	ck_assert_uint_eq(c.val, 3500);
}
END_TEST

START_TEST(test_count_backwards)
{
	struct cnt c;

	cnt_init(&c, 0);
	ck_assert_int_eq(cnt_see(&c, 100, 1000000, 1), 1);
	ck_assert_int_eq(cnt_see(&c, 50, 2000000, 1), 0);
	ck_assert_uint_eq(c.val, 100);
	/* honest growth from the value seen counts again */
	ck_assert_int_eq(cnt_see(&c, 70, 3000000, 1), 1);
	ck_assert_uint_eq(c.val, 120);
}
END_TEST

START_TEST(test_count_too_fast)
{
	struct cnt c;

	cnt_init(&c, 0);
	/* 2^63 a microsecond after the start */
	ck_assert_int_eq(cnt_see(&c, 1ull << 63, 1000, 1), 0);
	ck_assert_uint_eq(c.val, 0);
	ck_assert_int_eq(cnt_see(&c, (1ull << 63) + 10, 2000, 1), 1);
	ck_assert_uint_eq(c.val, 10);
	/* a second later, 2^33 more: too fast for one thread, not for 8 CPUs */
	ck_assert_int_eq(cnt_see(&c, (1ull << 63) + 10 + (1ull << 33), 2000 + 1000000000ull, 1), 0);
	cnt_init(&c, 0);
	ck_assert_int_eq(cnt_see(&c, 1ull << 33, 1000000000ull, 8), 0);
	ck_assert_int_eq(cnt_see(&c, (1ull << 33) + 7000000000ull, 2000000000ull, 8), 1);
	ck_assert_uint_eq(c.val, 7000000000ull);
}
END_TEST

START_TEST(test_count_born)
{
	/* 250 ticks of 10 ms, or of whatever this system's tick is, in ns */
	ck_assert_uint_gt(cnt_born(250), 0);
	ck_assert_uint_eq(cnt_born(0), 0);
	ck_assert_uint_lt(cnt_born(1), cnt_born(2));
}
END_TEST

/* ---- frame.c ------------------------------------------------------------ */

static struct c_app app;
static struct proto_event evs[300];
static struct c_shape shapes[300];
static unsigned char buf[4096];
static uint32_t len;

static void frame_setup(void)
{
	memset(&app, 0, sizeof(app));
	memset(evs, 0, sizeof(evs));
	/* id 0: u64, u32, string; id 1: sequence of u16; id 299: no field */
	strcpy(evs[0].name, "t:event");
	evs[0].nfields = 3;
	evs[0].fields[0].type = SHMTRACE_TYPE_U64;
	evs[0].fields[1].type = SHMTRACE_TYPE_U32;
	evs[0].fields[2].type = SHMTRACE_TYPE_STRING;
	strcpy(evs[1].name, "t:seq");
	evs[1].nfields = 1;
	evs[1].fields[0].type = SHMTRACE_TYPE_SEQ | SHMTRACE_TYPE_U16;
	strcpy(evs[299].name, "t:far");
	memset(shapes, 0, sizeof(shapes));
	for (int i = 0; i < 300; i++)
		if (evs[i].name[0])
			frame_shape(&evs[i], &shapes[i]);
	app.ev = evs;
	app.nev = 300;
	app.shape = shapes;
	app.nshape = 300;
	len = 0;
}

static void put(const void *p, uint32_t n)
{
	memcpy(buf + len, p, n);
	len += n;
}

static void put_le(uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		buf[len++] = (unsigned char)(v >> (8 * i));
}

static void compact(uint32_t id, uint64_t ts)
{
	put_le(id | (ts & 0xffffff) << 8, 4);
}

static void extended(uint32_t id, uint64_t ts)
{
	buf[len++] = 255;
	put_le(id, 4);
	put_le(ts, 8);
}

static void event0(uint64_t ts, const char *s)
{
	compact(0, ts);
	put_le(7, 8);
	put_le(9, 4);
	put(s, (uint32_t)strlen(s) + 1);
}

static int check(uint32_t nev, uint64_t begin, uint64_t end, uint32_t ctx, uint32_t *bad)
{
	struct rb_range rg = { .data = (const char *)buf, .len = len, .nev = nev,
			       .begin_ts = begin, .end_ts = end };

	return frame_check(&app, ctx, &rg, bad);
}

START_TEST(test_frame_good)
{
	uint32_t bad = 0;

	event0(0x1000010, "abc");
	compact(1, 0x1000020);
	put_le(3, 4);
	put_le(1, 2);
	put_le(2, 2);
	put_le(3, 2);
	extended(299, 0x5000000);
	/* compact after a wrap of the low 24 bits */
	event0(0x5000000 + 0x10, "");
	ck_assert_int_eq(check(4, 0x1000000, 0x5000010, 0, &bad), 0);
	ck_assert_uint_eq(bad, len);
}
END_TEST

START_TEST(test_frame_context)
{
	uint32_t bad = 0;

	extended(299, 5);
	put_le(0x401000, 8);	/* ip */
	put_le(1, 4);		/* cpu_id */
	ck_assert_int_eq(check(1, 0, 10, SHMTRACE__CTX_IP | SHMTRACE__CTX_CPU, &bad), 0);
	/* the same bytes read without context: an event and garbage */
	ck_assert_int_eq(check(1, 0, 10, 0, &bad), -EBADMSG);
}
END_TEST

START_TEST(test_frame_bad)
{
	uint32_t bad = 0;

	/* an id nobody described */
	compact(100, 5);
	ck_assert_int_eq(check(1, 0, 10, 0, &bad), -EBADMSG);
	ck_assert_uint_eq(bad, 0);
	/* a string running past the range */
	len = 0;
	event0(5, "abc");
	len--;
	ck_assert_int_eq(check(1, 0, 10, 0, &bad), -EBADMSG);
	/* a sequence longer than the range */
	len = 0;
	compact(1, 5);
	put_le(1000, 4);
	put_le(1, 2);
	ck_assert_int_eq(check(1, 0, 10, 0, &bad), -EBADMSG);
	/* more or fewer events than the commit says */
	len = 0;
	event0(5, "x");
	event0(6, "y");
	ck_assert_int_eq(check(1, 0, 10, 0, &bad), -EBADMSG);
	ck_assert_int_eq(check(3, 0, 10, 0, &bad), -EBADMSG);
	ck_assert_int_eq(check(2, 0, 10, 0, &bad), 0);
	/* a time going back, or past the range's end */
	len = 0;
	extended(299, 50);
	extended(299, 40);
	ck_assert_int_eq(check(2, 0, 100, 0, &bad), -EBADMSG);
	ck_assert_uint_eq(bad, 13);
	len = 0;
	extended(299, 150);
	ck_assert_int_eq(check(1, 0, 100, 0, &bad), -EBADMSG);
	/* a header cut short */
	len = 0;
	event0(5, "x");
	buf[len++] = 255;
	put_le(299, 4);
	ck_assert_int_eq(check(2, 0, 10, 0, &bad), -EBADMSG);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("consumerd");
	TCase *tc = tcase_create("count");
	TCase *tf = tcase_create("frame");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_count_grows);
	tcase_add_test(tc, test_count_backwards);
	tcase_add_test(tc, test_count_too_fast);
	tcase_add_test(tc, test_count_born);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tf, frame_setup, NULL);
	tcase_add_test(tf, test_frame_good);
	tcase_add_test(tf, test_frame_context);
	tcase_add_test(tf, test_frame_bad);
	suite_add_tcase(s, tf);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
