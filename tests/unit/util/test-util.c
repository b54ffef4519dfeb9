/* SPDX-License-Identifier: MIT */
/*
 * test-util.c - unit tests of mkdir_p_made() and rmdir_made()
 * (common/util.c): what is made is reported and removed again, what was
 * there before and what is not empty stay; dir_walk() and dir_base():
 * directories made and opened under a descriptor, never through a link.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

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

int main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("mkdir");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_made_and_undone);
	tcase_add_test(tc, test_existing_kept);
	tcase_add_test(tc, test_not_empty_kept);
	tcase_add_test(tc, test_failure);
	tcase_add_test(tc, test_walk);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
