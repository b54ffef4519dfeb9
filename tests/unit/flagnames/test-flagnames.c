/* SPDX-License-Identifier: MIT */
/*
 * test-flagnames.c - unit tests of tools/trace-read/flagnames.c: which fields have
 * names, open(2) flags (access mode first, groups such as O_SYNC and
 * O_TMPFILE whole, unknown bits as hexadecimal), modes in octal, dlopen(3)
 * flags, and a buffer too small.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include "flagnames.h"

START_TEST(test_lookup)
{
	const struct fn_field *f = fn_event("shmtrace_io:openat");

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fn_field(f, "flags"));
	ck_assert_int_eq(fn_field(f, "flags")->kind, FN_FLAGS);
	ck_assert_int_eq(fn_field(f, "mode")->kind, FN_OCTAL);
	ck_assert_ptr_null(fn_field(f, "fd"));
	ck_assert_ptr_null(fn_field(f, "path"));
	ck_assert_ptr_nonnull(fn_find("shmtrace_io:open", "flags"));
	ck_assert_ptr_nonnull(fn_find("shmtrace_io:open", "mode"));
	ck_assert_ptr_nonnull(fn_find("shmtrace_proc:dlopen", "flags"));
	/* the fields of another event are not this one's */
	ck_assert_ptr_null(fn_find("shmtrace_proc:dlopen", "mode"));
	ck_assert_ptr_null(fn_find("shmtrace_io:read", "flags"));
	ck_assert_ptr_null(fn_find("myapp:open", "flags"));
	ck_assert_ptr_null(fn_find("shmtrace_io:ope", "flags"));
	ck_assert_ptr_null(fn_find("shmtrace_io:openatx", "flags"));
	ck_assert_ptr_null(fn_event(""));
	ck_assert_ptr_null(fn_field(NULL, "flags"));
}
END_TEST

struct fcase {
	const char *event, *field;
	uint64_t v;
	const char *want;
};

static const struct fcase cases[] = {
	{ "shmtrace_io:open", "flags", O_RDONLY, "O_RDONLY" },
	{ "shmtrace_io:open", "flags", O_WRONLY | O_CREAT | O_TRUNC, "O_WRONLY|O_CREAT|O_TRUNC" },
	{ "shmtrace_io:open", "flags", O_RDWR | O_CREAT | O_TRUNC, "O_RDWR|O_CREAT|O_TRUNC" },
	{ "shmtrace_io:open", "flags", O_WRONLY | O_APPEND, "O_WRONLY|O_APPEND" },
	{ "shmtrace_io:openat", "flags", O_RDONLY | O_DIRECTORY | O_CLOEXEC,
	  "O_RDONLY|O_DIRECTORY|O_CLOEXEC" },
	/* the order is the table's, not the caller's */
	{ "shmtrace_io:open", "flags", O_CLOEXEC | O_EXCL | O_CREAT | O_WRONLY,
	  "O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC" },
	/* groups of bits: whole, not as their parts */
	{ "shmtrace_io:open", "flags", O_RDWR | O_TMPFILE, "O_RDWR|O_TMPFILE" },
	{ "shmtrace_io:open", "flags", O_WRONLY | O_SYNC, "O_WRONLY|O_SYNC" },
	{ "shmtrace_io:open", "flags", O_WRONLY | O_DSYNC, "O_WRONLY|O_DSYNC" },
	{ "shmtrace_io:open", "flags", O_PATH | O_NOFOLLOW, "O_RDONLY|O_NOFOLLOW|O_PATH" },
	/* bits no name covers, after the names */
	{ "shmtrace_io:open", "flags", O_WRONLY | 0x40000000, "O_WRONLY|0x40000000" },
	{ "shmtrace_io:open", "flags", 0xc0000000, "O_RDONLY|0xc0000000" },
	/* an access mode that is none, as a number with the rest */
	{ "shmtrace_io:open", "flags", O_ACCMODE | O_CREAT, "O_CREAT|0x3" },
	/* modes */
	{ "shmtrace_io:open", "mode", 0640, "0640" },
	{ "shmtrace_io:open", "mode", 0666, "0666" },
	{ "shmtrace_io:openat", "mode", 04755, "04755" },
	{ "shmtrace_io:open", "mode", 0, "0" },
	/* dlopen */
	{ "shmtrace_proc:dlopen", "flags", RTLD_NOW, "RTLD_NOW" },
	{ "shmtrace_proc:dlopen", "flags", RTLD_LAZY | RTLD_GLOBAL, "RTLD_LAZY|RTLD_GLOBAL" },
	{ "shmtrace_proc:dlopen", "flags", RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE,
	  "RTLD_NOW|RTLD_NOLOAD|RTLD_NODELETE" },
	{ "shmtrace_proc:dlopen", "flags", RTLD_NOLOAD, "RTLD_NOLOAD" },
	{ "shmtrace_proc:dlopen", "flags", 0, "0x0" },
	{ "shmtrace_proc:dlopen", "flags", RTLD_LAZY | 0x80000, "RTLD_LAZY|0x80000" },
};

START_TEST(test_format)
{
	const struct fcase *c = &cases[_i];
	const struct fn_field *f = fn_find(c->event, c->field);
	char buf[256];
	size_t n;

	ck_assert_ptr_nonnull(f);
	memset(buf, 'x', sizeof(buf));
	n = fn_format(f, c->v, buf, sizeof(buf));
	ck_assert_str_eq(buf, c->want);
	ck_assert_uint_eq(n, strlen(c->want));
}
END_TEST

/* A buffer too small: cut, terminated, and the length it needed. */
START_TEST(test_small)
{
	const struct fn_field *f = fn_find("shmtrace_io:open", "flags");
	const char *want = "O_WRONLY|O_CREAT|O_TRUNC";
	char buf[8];

	memset(buf, 'x', sizeof(buf));
	ck_assert_uint_eq(fn_format(f, O_WRONLY | O_CREAT | O_TRUNC, buf, sizeof(buf)),
			  strlen(want));
	ck_assert_str_eq(buf, "O_WRONL");
	memset(buf, 'x', sizeof(buf));
	ck_assert_uint_eq(fn_format(f, O_WRONLY | O_CREAT | O_TRUNC, buf, 1), strlen(want));
	ck_assert_int_eq(buf[0], 0);
	ck_assert_int_eq(buf[1], 'x');
	ck_assert_uint_eq(fn_format(f, O_WRONLY | O_CREAT | O_TRUNC, NULL, 0), strlen(want));
	f = fn_find("shmtrace_io:open", "mode");
	ck_assert_uint_eq(fn_format(f, 0640, buf, 3), 4);
	ck_assert_str_eq(buf, "06");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("flagnames");
	TCase *tc = tcase_create("flagnames");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_lookup);
	tcase_add_loop_test(tc, test_format, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_small);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
