/* SPDX-License-Identifier: MIT */
/*
 * test-util.c - unit tests of mkdir_p_made() and rmdir_made()
 * (common/util.c, support/sysutil.c): what is made is reported and removed again, what was
 * there before and what is not empty stay; dir_walk() and dir_base():
 * directories made and opened under a descriptor, never through a link.
 * And proc_ring_check(): what /proc says of sending a signal to a process,
 * against child processes set up each way (no handler, handled, blocked
 * in every thread or in the leader only, pending, a leader that exited).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "support/sysutil.h"

static char root[256];

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	ck_assert_uint_lt(strlen(tmp ? tmp : "/tmp"), sizeof(root) - 32);
	strcpy(root, tmp ? tmp : "/tmp");
	strcat(root, "/shmtrace-util-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[sizeof(root) + 16] = "rm -rf '";

	strcat(strcat(cmd, root), "'");
	ck_assert_int_eq(system(cmd), 0);
}

/* @rel under the test's directory, in one of two buffers */
static const char *at(const char *rel)
{
	static char buf[2][sizeof(root) + 64];
	static int i;
	char *p = buf[i++ & 1];

	ck_assert_uint_lt(strlen(rel), 62);
	strcpy(p, root);
	if (rel[0])
		strcat(strcat(p, "/"), rel);
	return p;
}

static int exists(const char *rel)
{
	struct stat sb;

	return stat(at(rel), &sb) == 0;
}

static void touch(const char *rel)
{
	FILE *f = fopen(at(rel), "w");

	ck_assert_ptr_nonnull(f);
	fclose(f);
}

START_TEST(test_made_and_undone)
{
	size_t made;

	ck_assert_int_eq(mkdir_p_made(at("a/b/c"), 0750, &made), 0);
	ck_assert_uint_eq(made, strlen(root) + 2);	/* ".../a" */
	ck_assert(exists("a/b/c"));
	rmdir_made(at("a/b/c"), made);
	ck_assert(!exists("a"));
	ck_assert(exists(""));
}
END_TEST

START_TEST(test_existing_kept)
{
	size_t made;

	ck_assert_int_eq(mkdir(at("a"), 0750), 0);
	ck_assert_int_eq(mkdir_p_made(at("a"), 0750, &made), 0);
	ck_assert_uint_eq(made, 0);			/* nothing made */
	rmdir_made(at("a"), made);
	ck_assert(exists("a"));
	ck_assert_int_eq(mkdir_p_made(at("a/b/"), 0750, &made), 0);	/* a trailing slash */
	ck_assert_uint_eq(made, strlen(root) + 4);	/* ".../a/b" */
	rmdir_made(at("a/b/"), made);
	ck_assert(!exists("a/b"));
	ck_assert(exists("a"));
}
END_TEST

START_TEST(test_not_empty_kept)
{
	size_t made;

	ck_assert_int_eq(mkdir_p_made(at("a/b/c"), 0750, &made), 0);
	touch("a/b/file");
	rmdir_made(at("a/b/c"), made);
	ck_assert(!exists("a/b/c"));
	ck_assert(exists("a/b/file"));
}
END_TEST

START_TEST(test_failure)
{
	size_t made = 1;

	touch("y");				/* a file where a directory goes */
	ck_assert_int_eq(mkdir_p_made(at("y/z"), 0750, &made), -ENOTDIR);
	ck_assert_uint_eq(made, 0);
	made = 1;
	ck_assert_int_eq(mkdir_p_made("", 0750, &made), -ENAMETOOLONG);
	ck_assert_uint_eq(made, 0);
	rmdir_made(at("y/z"), 0);		/* nothing made: nothing removed */
	ck_assert(exists("y"));
}
END_TEST

START_TEST(test_walk)
{
	size_t made, len;
	int base, fd;

	base = open(root, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(base, 0);
	/* made, one component at a time, and said from where */
	fd = dir_walk(base, "x/y/z", 0750, &made);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert(exists("x/y/z"));
	ck_assert_uint_eq(made, 1);
	fd = dir_walk(base, "/x//y/./z/", 0, &made);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_uint_eq(made, 0);
	/* not made when asked only to open */
	ck_assert_int_eq(dir_walk(base, "x/q", 0, NULL), -ENOENT);
	ck_assert(!exists("x/q"));
	/* a link, where a directory should be: refused, nothing made beyond */
	ck_assert_int_eq(symlink(at("x"), at("x/y/l")), 0);
	fd = dir_walk(base, "x/y/l/w", 0750, NULL);
	ck_assert(fd == -ELOOP || fd == -ENOTDIR);
	ck_assert(!exists("x/w"));
	ck_assert_int_eq(dir_walk(base, "x/..", 0, NULL), -EINVAL);
	/* "" is @base itself, in a description of its own: reading it twice
	 * (two consumers given one descriptor) finds the entries twice */
	for (int pass = 0; pass < 2; pass++) {
		DIR *d;
		int n = 0;

		fd = dir_walk(base, "", 0, NULL);
		ck_assert_int_ge(fd, 0);
		d = fdopendir(fd);
		ck_assert_ptr_nonnull(d);
		while (readdir(d))
			n++;
		closedir(d);
		ck_assert_int_ge(n, 3);	/* ".", "..", "x" */
	}
	/* the part of a path that exists */
	fd = dir_base(at("x/y/nope/deeper"), &len);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_uint_eq(len, strlen(at("x/y")));
	fd = dir_base(at("x/y/z"), &len);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_uint_eq(len, strlen(at("x/y/z")));
	ck_assert_int_eq(dir_base("relative", &len), -EINVAL);
	close(base);
}
END_TEST

/* ---- proc_ring_check() ---- */

#define RING_SIG	(SIGRTMIN + 3)

enum ring_child {
	RC_DEFAULT,		/* no handler */
	RC_HANDLED,		/* handled, unblocked */
	RC_BLOCKED,		/* handled, blocked in its only thread */
	RC_PENDING,		/* handled, blocked, one instance pending */
	RC_LEADER_BLOCKS,	/* handled; the leader blocks it, a thread does not */
	RC_GONE_LEADER_BLOCKED,	/* the leader, not blocking it, exited; the thread
				 * left blocks it */
	RC_GONE_LEADER_TAKES,	/* the leader exited, the thread left takes it */
};

static int ring_ready[2];

static void ring_handler(int sig)
{
}

static void *ring_thread(void *arg)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, RING_SIG);
	pthread_sigmask(*(int *)arg ? SIG_UNBLOCK : SIG_BLOCK, &set, NULL);
	if (write(ring_ready[1], "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
	return NULL;
}

/* A child set up as @how, ready when this returns; its pid. */
static pid_t ring_child(enum ring_child how)
{
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(ring_ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		static int takes;
		struct sigaction sa;
		sigset_t set;
		pthread_t t;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = ring_handler;
		if (how != RC_DEFAULT)
			sigaction(RING_SIG, &sa, NULL);
		sigemptyset(&set);
		sigaddset(&set, RING_SIG);
		if (how != RC_DEFAULT && how != RC_HANDLED && how < RC_GONE_LEADER_BLOCKED)
			pthread_sigmask(SIG_BLOCK, &set, NULL);
		if (how == RC_PENDING)
			kill(getpid(), RING_SIG);
		if (how >= RC_LEADER_BLOCKS) {
			takes = how != RC_GONE_LEADER_BLOCKED;
			if (pthread_create(&t, NULL, ring_thread, &takes))
				_exit(1);
			if (how != RC_LEADER_BLOCKS)
				pthread_exit(NULL);	/* the thread writes the byte */
			for (;;)
				pause();
		}
		if (write(ring_ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	ck_assert_int_eq(read(ring_ready[0], &c, 1), 1);
	close(ring_ready[0]);
	close(ring_ready[1]);
	return pid;
}

/* Is the leader of @pid a zombie (it exited, a thread of it runs)? */
static int ring_leader_gone(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return 0;
	return p[1] == ' ' && p[2] == 'Z';
}

static int ring_check(enum ring_child how)
{
	pid_t pid = ring_child(how);
	int ret;

	/* a leader that exited is a zombie a moment after its thread ran */
	for (int i = 0; how >= RC_GONE_LEADER_BLOCKED && !ring_leader_gone(pid) && i < 500; i++)
		usleep(10000);
	ret = proc_ring_check(pid, RING_SIG);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return ret;
}

START_TEST(test_ring_check)
{
	ck_assert_int_eq(ring_check(RC_DEFAULT), PROC_RING_UNCAUGHT);
	ck_assert_int_eq(ring_check(RC_HANDLED), PROC_RING_SEND);
	ck_assert_int_eq(ring_check(RC_BLOCKED), PROC_RING_BLOCKED);
	ck_assert_int_eq(ring_check(RC_PENDING), PROC_RING_PENDING);
	ck_assert_int_eq(ring_check(RC_LEADER_BLOCKS), PROC_RING_SEND);
	ck_assert_int_eq(ring_check(RC_GONE_LEADER_BLOCKED), PROC_RING_BLOCKED);
	ck_assert_int_eq(ring_check(RC_GONE_LEADER_TAKES), PROC_RING_SEND);
	ck_assert_int_eq(proc_ring_check(getpid(), 0), -EINVAL);
	ck_assert_int_eq(proc_ring_check(getpid(), 65), -EINVAL);
}
END_TEST

START_TEST(test_ring_check_gone)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(proc_ring_check(pid, RING_SIG), -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("mkdir");
	TCase *tr = tcase_create("ring");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_made_and_undone);
	tcase_add_test(tc, test_existing_kept);
	tcase_add_test(tc, test_not_empty_kept);
	tcase_add_test(tc, test_failure);
	tcase_add_test(tc, test_walk);
	suite_add_tcase(s, tc);
	tcase_add_test(tr, test_ring_check);
	tcase_add_test(tr, test_ring_check_gone);
	suite_add_tcase(s, tr);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
