/* SPDX-License-Identifier: MIT */
/*
 * execcheck.c - will a program that is executed load libshmtrace?
 *
 * Invariants: everything here is async-signal-safe and allocates nothing
 * (libshmtrace calls it from its execve() wrapper, which may run in a
 * signal handler or in a vfork child): system calls on stack buffers, no
 * stdio, no locale. It only looks: a file is opened for reading (never a
 * FIFO or a device: only regular files, non-blocking) and closed before
 * returning, with system calls that no wrapper of open, pread or close
 * sees. Every length read from a file is bounds-checked before use.
 *
 * What the kernel does, and what we mirror:
 *  - "#!" scripts run their interpreter, whose file then decides the
 *    credentials (the script's set-user-ID bit is ignored); four levels.
 *  - An ELF program without PT_INTERP is started without the loader
 *    (statically linked, static-pie): no LD_PRELOAD. The loader itself,
 *    run directly, has no PT_INTERP either but has a DT_SONAME.
 *  - Secure mode (AT_SECURE, in which the loader ignores LD_PRELOAD
 *    paths) when the new effective uid differs from the real uid, the new
 *    effective gid from the real gid, or file capabilities grow a non-root
 *    process's privileges. Set-user-ID and set-group-ID bits do nothing on
 *    a nosuid mount or under PR_SET_NO_NEW_PRIVS; the set-group-ID bit
 *    only counts with group execute permission.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "common/execcheck.h"
#include "common/proto.h"

/*
 * open, pread and close as system calls, not through the C library's
 * functions: an LD_PRELOAD helper (or the program) that wraps them must not
 * see the tracer looking at a program as the program's own I/O.
 */
static int x_openat(int dirfd, const char *path, int flags)
{
	return (int)syscall(SYS_openat, dirfd, path, flags, 0);
}

static ssize_t x_pread(int fd, void *buf, size_t len, off_t off)
{
	return (ssize_t)syscall(SYS_pread64, fd, buf, len, off);
}

static void x_close(int fd)
{
	syscall(SYS_close, fd);
}

#define EXEC_HDR	256	/* what the kernel reads first (BINPRM_BUF_SIZE) */
#define EXEC_LEVELS	5	/* the program and four interpreters */
#define EXEC_MAX_PHDR	4096
#define EXEC_MAX_DYN	4096

/* "/proc/self/fd/N" into @out (at least 32 bytes). */
static void fd_path(int fd, char *out)
{
	static const char pre[] = "/proc/self/fd/";
	char digits[16];
	size_t n = 0, k = sizeof(pre) - 1;

	memcpy(out, pre, k);
	do {
		digits[n++] = (char)('0' + fd % 10);
		fd /= 10;
	} while (fd > 0 && n < sizeof(digits));
	while (n)
		out[k++] = digits[--n];
	out[k] = 0;
}

/* A descriptor to read the target through: a new one (*@own set), or -1. */
static int target_open(int dirfd, const char *path, int flags, int *own)
{
	int oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	char proc[32];
	int fd;

	*own = 0;
	if ((flags & AT_EMPTY_PATH) && !path[0]) {
		/* fexecve: the descriptor may be O_PATH; read through /proc */
		fd_path(dirfd, proc);
		fd = x_openat(AT_FDCWD, proc, oflags);
		if (fd >= 0) {
			*own = 1;
			return fd;
		}
		return dirfd;
	}
	if (flags & AT_SYMLINK_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = x_openat(dirfd, path, oflags);
	*own = fd >= 0;
	return fd;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	if (off > (uint64_t)INT64_MAX - len)
		return -1;
	do {
		n = x_pread(fd, buf, len, (off_t)off);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

/* Has the object a DT_SONAME (a shared object, the loader itself)? */
static int elf_has_soname(int fd, const Elf64_Phdr *dyn)
{
	Elf64_Dyn d[16];
	uint64_t n = dyn->p_filesz / sizeof(d[0]);

	if (n > EXEC_MAX_DYN)
		n = EXEC_MAX_DYN;
	for (uint64_t i = 0; i < n; i += 16) {
		uint64_t k = n - i < 16 ? n - i : 16;

		if (read_at(fd, d, k * sizeof(d[0]), dyn->p_offset + i * sizeof(d[0])) < 0)
			return 0;
		for (uint64_t j = 0; j < k; j++) {
			if (d[j].d_tag == DT_NULL)
				return 0;
			if (d[j].d_tag == DT_SONAME)
				return 1;
		}
	}
	return 0;
}

/* From an ELF header (@n bytes of it in @hdr): NOTICE_STATIC, NOTICE_FOREIGN or 0. */
static int elf_kind(int fd, const char *hdr, size_t n)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[8], dyn;
	int has_dyn = 0;

	if (n < SELFMAG || memcmp(hdr, ELFMAG, SELFMAG))
		return 0;	/* not ELF: binfmt_misc or a failing exec */
	if (n < sizeof(eh))
		return 0;
	memcpy(&eh, hdr, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return NOTICE_FOREIGN;
	if ((eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_phentsize != sizeof(ph[0]) ||
	    eh.e_phnum == 0 || eh.e_phnum > EXEC_MAX_PHDR)
		return 0;
	for (unsigned int i = 0; i < eh.e_phnum; i += 8) {
		unsigned int k = eh.e_phnum - i < 8 ? eh.e_phnum - i : 8;

		uint64_t off = eh.e_phoff + (uint64_t)i * sizeof(ph[0]);

		if (read_at(fd, ph, k * sizeof(ph[0]), off) < 0)
			return 0;
		for (unsigned int j = 0; j < k; j++) {
			if (ph[j].p_type == PT_INTERP)
				return 0;
			if (ph[j].p_type == PT_DYNAMIC) {
				dyn = ph[j];
				has_dyn = 1;
			}
		}
	}
	if (eh.e_type == ET_DYN && has_dyn && elf_has_soname(fd, &dyn))
		return 0;	/* the loader (or a library) run directly */
	return NOTICE_STATIC;
}

/* Does the kernel start the file in secure mode for this process? */
static int secure_kind(int fd, int dirfd, const char *path, const struct stat *st,
		       uint32_t *run_uid)
{
	uid_t ruid, euid, suid, nuid;
	gid_t rgid, egid, sgid, ngid;
	struct statfs sfs;
	int nosuid = 0, nnp;
	char proc[32];

	if (getresuid(&ruid, &euid, &suid) < 0 || getresgid(&rgid, &egid, &sgid) < 0)
		return 0;
	nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
	if (fd >= 0 ? fstatfs(fd, &sfs) == 0 :
	    (dirfd == AT_FDCWD || path[0] == '/') && statfs(path, &sfs) == 0)
		nosuid = (sfs.f_flags & ST_NOSUID) != 0;
	nuid = euid;
	ngid = egid;
	if (!nosuid && !nnp) {
		if (st->st_mode & S_ISUID)
			nuid = st->st_uid;
		if ((st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
			ngid = st->st_gid;
	}
	*run_uid = nuid;
	if (nuid != ruid)
		return nuid != euid ? NOTICE_SETUID : NOTICE_IDS;
	if (ngid != rgid)
		return ngid != egid ? NOTICE_SETGID : NOTICE_IDS;
	if (ruid == 0 || nosuid || nnp)
		return 0;
	if (fd >= 0) {
		if (fgetxattr(fd, "security.capability", NULL, 0) > 0)
			return NOTICE_CAPS;
		fd_path(fd, proc);	/* an O_PATH descriptor */
		if (getxattr(proc, "security.capability", NULL, 0) > 0)
			return NOTICE_CAPS;
	} else if ((dirfd == AT_FDCWD || path[0] == '/') &&
		   getxattr(path, "security.capability", NULL, 0) > 0) {
		return NOTICE_CAPS;
	}
	return 0;
}

/* The interpreter of a "#!" line into @out (EXEC_HDR bytes); "" when none. */
static void shebang(const char *hdr, size_t n, char *out)
{
	size_t i = 2, k = 0;

	while (i < n && (hdr[i] == ' ' || hdr[i] == '\t'))
		i++;
	while (i < n && hdr[i] != ' ' && hdr[i] != '\t' && hdr[i] != '\n' && hdr[i] &&
	       k < EXEC_HDR - 1)
		out[k++] = hdr[i++];
	out[k] = 0;
}

int exec_check(int dirfd, const char *path, int flags, uint32_t *run_uid)
{
	char interp[EXEC_HDR];
	uid_t ruid, euid, suid;

	if (getresuid(&ruid, &euid, &suid) == 0)
		*run_uid = euid;
	for (int level = 0; level < EXEC_LEVELS; level++) {
		int stflags = flags & (AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
		char hdr[EXEC_HDR];
		struct stat st;
		ssize_t n = -1;
		int fd, own, kind, elf = 0;

		if (!path || fstatat(dirfd, path, &st, stflags) < 0 || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & 0111))
			return -ENOEXEC;
		if (path[0] && faccessat(dirfd, path, X_OK, AT_EACCESS) < 0 && errno == EACCES)
			return -EACCES;
		fd = target_open(dirfd, path, flags, &own);
		if (fd >= 0) {
			do {
				n = x_pread(fd, hdr, sizeof(hdr), 0);
			} while (n < 0 && errno == EINTR);
		}
		if (n >= 2 && hdr[0] == '#' && hdr[1] == '!') {
			if (own)
				x_close(fd);
			shebang(hdr, (size_t)n, interp);	/* path is done with */
			path = interp;
			dirfd = AT_FDCWD;
			flags = 0;
			if (!interp[0])
				return -ENOEXEC;
			continue;
		}
		kind = secure_kind(fd, dirfd, path, &st, run_uid);
		if (n > 0)
			elf = elf_kind(fd, hdr, (size_t)n);
		if (own)
			x_close(fd);
		return elf ? elf : kind;
	}
	return -ELOOP;
}

int exec_resolve(const char *file, const char *pathenv, char *out, size_t cap)
{
	size_t flen = strlen(file);
	const char *p, *end;

	if (!flen)
		return -ENOENT;
	if (strchr(file, '/')) {
		if (flen >= cap)
			return -ENAMETOOLONG;
		memcpy(out, file, flen + 1);
		return 0;
	}
	if (!pathenv)
		pathenv = "/bin:/usr/bin";
	for (p = pathenv;; p = end + 1) {
		size_t dlen, n = 0;
		struct stat st;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		dlen = (size_t)(end - p);
		if (dlen + 1 + flen + 1 <= cap) {
			if (dlen) {
				memcpy(out, p, dlen);
				n = dlen;
				out[n++] = '/';
			}
			memcpy(out + n, file, flen + 1);
			if (stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
			    faccessat(AT_FDCWD, out, X_OK, AT_EACCESS) == 0)
				return 0;
		}
		if (!*end)
			break;
	}
	return -ENOENT;
}

int exec_preload_has(const char *list, const char *lib)
{
	size_t llen = strlen(lib);

	while (list && *list) {
		const char *end = list, *base = list;

		while (*end && *end != ':' && *end != ' ')
			end++;
		for (const char *c = list; c < end; c++)
			if (*c == '/')
				base = c + 1;
		if ((size_t)(end - base) >= llen && !memcmp(base, lib, llen) &&
		    (base + llen == end || base[llen] == '.'))
			return 1;
		list = *end ? end + 1 : end;
	}
	return 0;
}

/* The loader takes the last LD_PRELOAD of the environment. */
int exec_env_preloads(char *const envp[], const char *lib)
{
	const char *v = NULL;

	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], "LD_PRELOAD=", 11))
			v = envp[i] + 11;
	return v && exec_preload_has(v, lib);
}
