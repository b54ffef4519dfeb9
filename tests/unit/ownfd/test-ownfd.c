/* SPDX-License-Identifier: MIT */
/*
 * test-ownfd.c - unit tests of libtrace/ownfd.c, linked alone: the
 * library's descriptors are moved above the floor (min(RLIMIT_NOFILE / 2,
 * 1024)) with close-on-exec, keep their number where there is no room up
 * there, and a number the program closed or reused is forgotten without
 * ever being closed, read or written by the library; errno is kept.
 * Each test runs in a process of its own (check forks), so the floor set
 * by ownfd_init() is the test's.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib.h"

static int dbg_calls;

/* the library's debug output: counted, not printed */
void lib_dbg(const char *msg, long val)
{
	(void)msg;
	(void)val;
	dbg_calls++;
}

static void set_limit(rlim_t n)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_uint_ge(rl.rlim_max, n);
	rl.rlim_cur = n;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	ownfd_init();
}

static int is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static void same_file(int a, int b)
{
	struct stat sa, sb;

	ck_assert_int_eq(fstat(a, &sa), 0);
	ck_assert_int_eq(fstat(b, &sb), 0);
	ck_assert(sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

START_TEST(test_moved_above_the_floor)
{
	struct lib_fd f;
	int p[2], fd;

	set_limit(64);			/* floor 32 */
	ck_assert_int_eq(pipe(p), 0);	/* low numbers */
	ck_assert_int_lt(p[0], 32);
	errno = 1234;
	fd = ownfd_take(&f, p[0]);
	ck_assert_int_eq(errno, 1234);
	ck_assert_int_eq(fd, 32);	/* the lowest free one at the floor */
	ck_assert_int_eq(f.fd, 32);
	ck_assert(!is_open(p[0]));	/* the program's numbers stay free */
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	same_file(fd, fd);
	ck_assert(ownfd_ok(&f));
	ck_assert_int_eq(ownfd_get(&f), 32);
	/* the next one takes the next number */
	ck_assert_int_eq(ownfd_take(&f, dup(p[1])), 33);
	/* one already above the floor keeps its number */
	fd = fcntl(p[1], F_DUPFD, 40);
	ck_assert_int_eq(ownfd_take(&f, fd), 40);
	close(p[1]);
}
END_TEST

START_TEST(test_floor_of_a_high_limit)
{
	struct rlimit rl;
	struct lib_fd f;
	int s;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 4096)
		return;		/* the hard limit does not allow the case */
	set_limit(4096);		/* floor: 1024, not 2048 */
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(ownfd_take(&f, s), 1024);
}
END_TEST

START_TEST(test_no_room_up_there)
{
	struct lib_fd f;
	int fd, first;

	set_limit(16);			/* floor 8 */
	first = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(first, 0);
	ck_assert_int_lt(first, 8);
	while (open("/dev/null", O_RDONLY) >= 0)
		;			/* every number taken, up to 15 */
	ck_assert_int_eq(errno, EMFILE);
	close(first);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(fd, first);
	/* nowhere above: the number it had, still checked */
	ck_assert_int_eq(ownfd_take(&f, fd), fd);
	ck_assert(ownfd_ok(&f));
	ck_assert_int_eq(ownfd_get(&f), fd);
}
END_TEST

START_TEST(test_closed_by_the_program)
{
	struct lib_fd f;
	int fd;

	set_limit(64);
	fd = ownfd_take(&f, open("/dev/null", O_RDONLY));
	ck_assert_int_ge(fd, 32);
	close(fd);			/* the program closes every descriptor */
	dbg_calls = 0;
	errno = 77;
	ck_assert(!ownfd_ok(&f));
	ck_assert_int_eq(ownfd_get(&f), -1);
	ck_assert_int_eq(errno, 77);
	ck_assert_int_eq(dbg_calls, 1);
	ck_assert_int_eq(f.fd, -1);	/* forgotten */
	ck_assert_int_eq(ownfd_get(&f), -1);
	ownfd_close(&f);		/* nothing to close */
	ck_assert_int_eq(errno, 77);
}
END_TEST

START_TEST(test_number_reused_by_the_program)
{
	struct lib_fd f;
	int fd, mine, p[2];
	char c;

	set_limit(64);
	fd = ownfd_take(&f, open("/dev/null", O_RDONLY));
	ck_assert_int_ge(fd, 32);
	/* the program puts a file of its own on the number (dup2), then the
	 * library must neither use nor close it */
	ck_assert_int_eq(pipe(p), 0);
	mine = dup2(p[1], fd);
	ck_assert_int_eq(mine, fd);
	ck_assert(!ownfd_ok(&f));
	ownfd_close(&f);
	ck_assert(is_open(fd));		/* still the program's */
	ck_assert_int_eq(f.fd, -1);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	ck_assert_int_eq(c, 'x');
	/* and a forgotten descriptor stays forgotten */
	ck_assert_int_eq(ownfd_get(&f), -1);
	ck_assert(is_open(fd));
}
END_TEST

START_TEST(test_close_own)
{
	struct lib_fd f;
	int fd;

	set_limit(64);
	fd = ownfd_take(&f, open("/dev/null", O_RDONLY));
	errno = 5;
	ownfd_close(&f);
	ck_assert_int_eq(errno, 5);
	ck_assert(!is_open(fd));
	ck_assert_int_eq(f.fd, -1);
}
END_TEST

START_TEST(test_take_nothing)
{
	struct lib_fd f = { .fd = 3 };

	set_limit(64);
	ck_assert_int_eq(ownfd_take(&f, -EMFILE), -EMFILE);
	ck_assert_int_eq(f.fd, -1);
	ck_assert(!ownfd_ok(&f));
	/* a number that is not open: refused, nothing kept */
	ck_assert_int_eq(ownfd_take(&f, 60), -EBADF);
	ck_assert_int_eq(f.fd, -1);
}
END_TEST

static Suite *ownfd_suite(void)
{
	Suite *s = suite_create("ownfd");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_moved_above_the_floor);
	tcase_add_test(tc, test_floor_of_a_high_limit);
	tcase_add_test(tc, test_no_room_up_there);
	tcase_add_test(tc, test_closed_by_the_program);
	tcase_add_test(tc, test_number_reused_by_the_program);
	tcase_add_test(tc, test_close_own);
	tcase_add_test(tc, test_take_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ownfd_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
