/* SPDX-License-Identifier: MIT */
/*
 * home.c - locating and securing SHMTRACE_HOME.
 *
 * Only the user who owns SHMTRACE_HOME may control tracing: the directory
 * is created 0700 and refused when it belongs to someone else or is open to
 * others; the daemons also check peer credentials on every connection.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "home.h"
#include "util.h"

static int cat2(char *out, size_t cap, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la + lb + 1 > cap)
		return -ENAMETOOLONG;
	memcpy(out, a, la);
	memcpy(out + la, b, lb + 1);
	return 0;
}

int home_resolve(char *out, size_t cap)
{
	const char *e = getenv("SHMTRACE_HOME");

	if (e && *e)
		return cat2(out, cap, e, "");
	e = getenv("XDG_RUNTIME_DIR");
	if (e && *e)
		return cat2(out, cap, e, "/shmtrace");
	e = getenv("HOME");
	if (e && *e)
		return cat2(out, cap, e, "/.shmtrace");
	return -ENOENT;
}

int home_path(char *out, size_t cap, const char *home, const char *name)
{
	size_t lh = strlen(home), ln = strlen(name);

	if (lh + 1 + ln + 1 > cap)
		return -ENAMETOOLONG;
	memcpy(out, home, lh);
	out[lh] = '/';
	memcpy(out + lh + 1, name, ln + 1);
	return 0;
}

int home_prepare(const char *dir)
{
	struct stat st;
	int ret = mkdir_p(dir, 0700);

	if (ret < 0)
		return ret;
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}
