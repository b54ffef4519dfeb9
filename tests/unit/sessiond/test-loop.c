/* SPDX-License-Identifier: MIT */
/*
 * test-loop.c - unit tests of sessiond/loop.c and sessiond/htab.c, linked
 * alone: a descriptor's events reach the handler it was registered with,
 * with its data; an event still queued in a batch for a descriptor that a
 * handler of the same batch closed never reaches the new owner of its
 * number; a paused descriptor is read again after ev_resume(), one closed
 * meanwhile is not; the hash table finds every node by hash after growing
 * and after removals.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "htab.h"
#include "common/util.h"
#include "loop.h"

static int calls_a, calls_b, calls_new, swap;
static int fd_a = -1, fd_b, fd_new = -1, pipe_a[2], pipe_b[2];
static void *seen_data;

static void on_new(int fd, void *data)
{
	(void)fd;
	(void)data;
	calls_new++;
}

static void on_a(int fd, void *data)
{
	char c;

	(void)data;
	(void)!read(fd, &c, 1);
	calls_a++;
}

/* The first handler of the batch closes a's descriptor and gives its
 * number to a new registration, as a process's socket closed and a new
 * connection accepted within one batch would. */
static void on_b(int fd, void *data)
{
	char c;

	(void)!read(fd, &c, 1);
	seen_data = data;
	calls_b++;
	if (swap && fd_a >= 0) {
		ev_del(fd_a);
		close(fd_a);
		fd_new = eventfd(1, EFD_CLOEXEC);	/* readable */
		ck_assert_int_eq(fd_new, fd_a);	/* the lowest number free: a's */
		fd_a = -1;
		ck_assert_int_eq(ev_add(fd_new, on_new, NULL), 0);
	}
}

static void setup(void)
{
	ck_assert_int_eq(ev_init(), 0);
	ck_assert_int_eq(pipe2(pipe_b, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(pipe_a, O_CLOEXEC), 0);
	fd_a = pipe_a[0];
	fd_b = pipe_b[0];
	calls_a = calls_b = calls_new = swap = 0;
	seen_data = NULL;
}

static void teardown(void)
{
	ev_fini();
}

START_TEST(test_dispatch)
{
	int data;

	ck_assert_int_eq(ev_add(fd_b, on_b, &data), 0);
	ck_assert_int_eq(write(pipe_b[1], "x", 1), 1);
	ck_assert_int_eq(ev_run_once(1000), 1);
	ck_assert_int_eq(calls_b, 1);
	ck_assert_ptr_eq(seen_data, &data);
	ck_assert_int_eq(ev_run_once(0), 0);
	ev_del(fd_b);
	ck_assert(!ev_watched(fd_b));
	ck_assert_int_eq(write(pipe_b[1], "x", 1), 1);
	ck_assert_int_eq(ev_run_once(0), 0);
	ck_assert_int_eq(calls_b, 1);
}
END_TEST

START_TEST(test_stale_event_not_dispatched)
{
	int a = fd_a;

	swap = 1;
	/* b readable first, then a: one batch, b's handler runs first */
	ck_assert_int_eq(ev_add(fd_b, on_b, NULL), 0);
	ck_assert_int_eq(ev_add(fd_a, on_a, NULL), 0);
	ck_assert_int_eq(write(pipe_b[1], "x", 1), 1);
	ck_assert_int_eq(write(pipe_a[1], "x", 1), 1);
	ck_assert_int_eq(ev_run_once(1000), 2);
	ck_assert_int_eq(calls_b, 1);
	ck_assert_int_eq(calls_a, 0);
	/* the batch's event of a was not the new descriptor's */
	ck_assert_int_eq(calls_new, 0);
	ck_assert(ev_watched(a));
	ev_del(fd_new);
	close(fd_new);
}
END_TEST

START_TEST(test_pause)
{
	ck_assert_int_eq(ev_add(fd_a, on_a, NULL), 0);
	ck_assert_int_eq(write(pipe_a[1], "xx", 2), 2);
	ev_pause(fd_a);
	ck_assert_int_eq(ev_run_once(0), 0);
	ev_resume();
	ck_assert_int_eq(ev_run_once(0), 1);
	ck_assert_int_eq(calls_a, 1);
	/* paused, then closed and its number taken: the new one is not touched */
	ev_pause(fd_a);
	ev_del(fd_a);
	close(fd_a);
	fd_new = eventfd(1, EFD_CLOEXEC);	/* readable */
	ck_assert_int_eq(ev_add(fd_new, on_new, NULL), 0);
	ev_resume();
	ck_assert_int_eq(ev_run_once(0), 1);
	ck_assert_int_eq(calls_new, 1);
	fd_a = -1;
}
END_TEST

START_TEST(test_quit)
{
	ck_assert(!ev_quitting());
	ev_quit();
	ck_assert(ev_quitting());
}
END_TEST

struct obj {
	uint64_t key;
	struct hnode node;
};

START_TEST(test_htab)
{
	enum { N = 5000 };
	struct obj *o = calloc(N, sizeof(*o));
	struct htab t;

	ck_assert_int_eq(htab_init(&t, 4), 0);
	for (int i = 0; i < N; i++) {
		o[i].key = (uint64_t)i % 1000;	/* 5 objects per key */
		htab_add(&t, &o[i].node, hash_id(o[i].key));
	}
	ck_assert_uint_eq(t.n, N);
	ck_assert_uint_ge(t.nb, N / 2);	/* it grew */
	for (uint64_t k = 0; k < 1000; k++) {
		int n = 0;

		for (struct hnode *h = htab_first(&t, hash_id(k)); h; h = htab_next(h)) {
			ck_assert_uint_eq(htab_entry(h, struct obj, node)->key, k);
			n++;
		}
		ck_assert_int_eq(n, 5);
	}
	for (int i = 0; i < N; i += 2)
		htab_del(&t, &o[i].node);
	for (uint64_t k = 0; k < 1000; k++) {
		int n = 0;

		for (struct hnode *h = htab_first(&t, hash_id(k)); h; h = htab_next(h))
			n++;
		ck_assert_int_eq(n, (k % 2) ? 5 : 0);
	}
	ck_assert_int_eq(htab_fini(&t), -EBUSY);
	free(o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sessiond loop");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_dispatch);
	tcase_add_test(tc, test_stale_event_not_dispatched);
	tcase_add_test(tc, test_pause);
	tcase_add_test(tc, test_quit);
	tcase_add_test(tc, test_htab);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
