/* SPDX-License-Identifier: MIT */
/*
 * home.c - locating and securing SHMTRACE_HOME.
 *
 * Only the user who owns SHMTRACE_HOME may control tracing: the directory
 * is created 0700 and refused when it belongs to someone else or is open to
 * others; the daemons also check peer credentials on every connection.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "common/home.h"
#include "common/util.h"

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

int home_prepare(const char *dir, struct stat *found)
{
	struct stat st;
	int ret = mkdir_p(dir, 0700);

	memset(&st, 0, sizeof(st));
	if (ret >= 0 && lstat(dir, &st) < 0)
		ret = -errno;
	if (found)
		*found = st;
	if (ret < 0)
		return ret;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

void home_app_addr(const char *home, struct sockaddr_un *sa, socklen_t *len)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(home), k = sizeof(HOME_APP_PREFIX) - 1;
	uint64_t h = 0xcbf29ce484222325ull;

	while (n > 1 && home[n - 1] == '/')
		n--;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)home[i];
		h *= 0x100000001b3ull;
	}
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path + 1, HOME_APP_PREFIX, k);
	for (int i = 15; i >= 0; i--, h >>= 4)
		sa->sun_path[1 + k + (size_t)i] = hex[h & 15];
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + k + 16);
}

int home_app_connect(const char *home, int sock_flags)
{
	struct sockaddr_un sa;
	struct ucred cr;
	socklen_t len, crlen = sizeof(cr);
	int fd, ret;

	home_app_addr(home, &sa, &len);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | sock_flags, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, len) < 0) {
		ret = -errno;
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0) {
		ret = -errno;
		goto fail;
	}
	if (cr.uid != 0) {
		ret = -EPERM;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return ret;
}
