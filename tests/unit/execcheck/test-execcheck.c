/* SPDX-License-Identifier: MIT */
/*
 * test-execcheck.c - unit tests of common/execcheck.c and of
 * proto_notice_decode(): what keeps an executed program from loading
 * libshmtrace, on ELF files and scripts made here; the PATH search; the
 * LD_PRELOAD lists; the notice message's checks.
 *
 * Set-user-ID and set-group-ID cases need root (to give a file to another
 * user) and are skipped otherwise.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/execcheck.h"
#include "common/proto.h"
#include "support/protomsg.h"

static char dir[256];
static char pathbuf[8][512];

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/test-execcheck-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Write @len bytes as DIR/@name with @mode; its path (one of 8 buffers). */
static const char *put(int slot, const char *name, const void *data, size_t len, mode_t mode)
{
	char *p = pathbuf[slot];
	int fd;

	snprintf(p, sizeof(pathbuf[0]), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	ck_assert_int_eq(chmod(p, mode), 0);
	return p;
}

enum { F_INTERP = 1, F_SONAME = 2, F_DYNAMIC = 4 };

/* A small ELF image: header, program headers, interpreter path, dynamic section. */
static size_t make_elf(unsigned char *out, int cls, int machine, int type, int flags)
{
	static const char interp[] = "/lib64/ld-linux-x86-64.so.2";
	Elf64_Ehdr eh;
	Elf64_Phdr ph[3];
	Elf64_Dyn dyn[3];
	int n = 0;
	size_t off;

	memset(&eh, 0, sizeof(eh));
	memset(ph, 0, sizeof(ph));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = (unsigned char)cls;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = (Elf64_Half)type;
	eh.e_machine = (Elf64_Half)machine;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph[0]);
	ph[n].p_type = PT_LOAD;
	ph[n].p_filesz = ph[n].p_memsz = 4096;
	n++;
	off = sizeof(eh) + 3 * sizeof(ph[0]);
	if (flags & F_INTERP) {
		ph[n].p_type = PT_INTERP;
		ph[n].p_offset = off;
		ph[n].p_filesz = sizeof(interp);
		n++;
	}
	if (flags & (F_DYNAMIC | F_SONAME)) {
		ph[n].p_type = PT_DYNAMIC;
		ph[n].p_offset = off + sizeof(interp);
		ph[n].p_filesz = sizeof(dyn);
		n++;
	}
	eh.e_phnum = (Elf64_Half)n;
	memset(dyn, 0, sizeof(dyn));
	dyn[0].d_tag = DT_STRTAB;
	dyn[1].d_tag = flags & F_SONAME ? DT_SONAME : DT_NULL;
	dyn[2].d_tag = DT_NULL;
	memset(out, 0, off);
	memcpy(out, &eh, sizeof(eh));
	memcpy(out + sizeof(eh), ph, sizeof(ph));
	memcpy(out + off, interp, sizeof(interp));
	memcpy(out + off + sizeof(interp), dyn, sizeof(dyn));
	return off + sizeof(interp) + sizeof(dyn);
}

static int check_path(const char *path)
{
	uint32_t uid = 12345;
	int ret = exec_check(AT_FDCWD, path, 0, &uid);

	if (ret >= 0 && ret != NOTICE_SETUID)
		ck_assert_uint_eq(uid, geteuid());
	return ret;
}

START_TEST(test_elf_kinds)
{
	unsigned char img[1024];
	size_t n;

	n = make_elf(img, ELFCLASS64, EM_X86_64, ET_EXEC, 0);
	ck_assert_int_eq(check_path(put(0, "static", img, n, 0755)), NOTICE_STATIC);
	n = make_elf(img, ELFCLASS64, EM_X86_64, ET_DYN, F_DYNAMIC);
	ck_assert_int_eq(check_path(put(0, "static-pie", img, n, 0755)), NOTICE_STATIC);
	n = make_elf(img, ELFCLASS64, EM_X86_64, ET_DYN, F_INTERP | F_DYNAMIC);
	ck_assert_int_eq(check_path(put(0, "dynamic", img, n, 0755)), 0);
	n = make_elf(img, ELFCLASS64, EM_X86_64, ET_EXEC, F_INTERP);
	ck_assert_int_eq(check_path(put(0, "dynamic-exec", img, n, 0755)), 0);
	/* the loader itself run directly: no PT_INTERP, a DT_SONAME */
	n = make_elf(img, ELFCLASS64, EM_X86_64, ET_DYN, F_SONAME);
	ck_assert_int_eq(check_path(put(0, "ld.so", img, n, 0755)), 0);
	n = make_elf(img, ELFCLASS32, EM_386, ET_EXEC, F_INTERP);
	ck_assert_int_eq(check_path(put(0, "i386", img, n, 0755)), NOTICE_FOREIGN);
	n = make_elf(img, ELFCLASS64, EM_AARCH64, ET_EXEC, F_INTERP);
	ck_assert_int_eq(check_path(put(0, "arm64", img, n, 0755)), NOTICE_FOREIGN);
	/* truncated: program headers past the end, nothing known */
	n = make_elf(img, ELFCLASS64, EM_X86_64, ET_EXEC, 0);
	ck_assert_int_eq(check_path(put(0, "truncated", img, sizeof(Elf64_Ehdr) + 8, 0755)), 0);
	/* not ELF, no "#!": the shell runs it (execvp): nothing known */
	ck_assert_int_eq(check_path(put(0, "text", "echo hi\n", 8, 0755)), 0);
	/* this very program */
	ck_assert_int_eq(check_path("/proc/self/exe"), 0);
	(void)n;
}
END_TEST

START_TEST(test_scripts)
{
	unsigned char img[1024];
	char text[600];
	const char *st, *dyn, *s1;
	size_t n;

	n = make_elf(img, ELFCLASS64, EM_X86_64, ET_EXEC, 0);
	st = put(0, "static", img, n, 0755);
	n = make_elf(img, ELFCLASS64, EM_X86_64, ET_EXEC, F_INTERP);
	dyn = put(1, "dynamic", img, n, 0755);
	snprintf(text, sizeof(text), "#!%s -x\necho\n", st);
	s1 = put(2, "on-static", text, strlen(text), 0755);
	ck_assert_int_eq(check_path(s1), NOTICE_STATIC);
	snprintf(text, sizeof(text), "#! \t%s\n", dyn);
	ck_assert_int_eq(check_path(put(3, "on-dynamic", text, strlen(text), 0755)), 0);
	/* a script of a script of the static program */
	snprintf(text, sizeof(text), "#!%s\n", s1);
	ck_assert_int_eq(check_path(put(4, "on-script", text, strlen(text), 0755)), NOTICE_STATIC);
	/* no interpreter, or one that loops: the exec fails */
	ck_assert_int_lt(check_path(put(5, "empty", "#!\n", 3, 0755)), 0);
	snprintf(text, sizeof(text), "#!%s/loop\n", dir);
	ck_assert_int_lt(check_path(put(6, "loop", text, strlen(text), 0755)), 0);
	/* the script's own set-user-ID bit does not count: its interpreter's does */
	snprintf(text, sizeof(text), "#!%s\n", dyn);
	ck_assert_int_eq(check_path(put(7, "suid-script", text, strlen(text), 04755)), 0);
}
END_TEST

static void alarm_fail(int sig)
{
	(void)sig;
	_exit(3);
}

START_TEST(test_not_executable)
{
	unsigned char img[1024];
	size_t n = make_elf(img, ELFCLASS64, EM_X86_64, ET_EXEC, 0);
	char fifo[600];

	ck_assert_int_lt(check_path("/nonexistent/shmtrace"), 0);
	ck_assert_int_lt(check_path(put(0, "no-x", img, n, 0644)), 0);
	ck_assert_int_lt(check_path(dir), 0);
	ck_assert_int_lt(check_path(""), 0);
	/* a FIFO with execute permission: never opened (it would block) */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0755), 0);
	signal(SIGALRM, alarm_fail);
	alarm(5);
	ck_assert_int_lt(check_path(fifo), 0);
	alarm(0);
}
END_TEST

START_TEST(test_descriptor)
{
	unsigned char img[1024];
	size_t n = make_elf(img, ELFCLASS64, EM_X86_64, ET_EXEC, 0);
	const char *p = put(0, "static", img, n, 0755);
	uint32_t uid;
	int fd;

	/* fexecve: an O_PATH descriptor, read through /proc */
	fd = open(p, O_PATH | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(exec_check(fd, "", AT_EMPTY_PATH, &uid), NOTICE_STATIC);
	close(fd);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(exec_check(fd, "", AT_EMPTY_PATH, &uid), NOTICE_STATIC);
	close(fd);
	/* relative to a directory */
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_eq(exec_check(fd, "static", 0, &uid), NOTICE_STATIC);
	close(fd);
}
END_TEST

START_TEST(test_set_ids)
{
	unsigned char img[1024];
	size_t n = make_elf(img, ELFCLASS64, EM_X86_64, ET_EXEC, F_INTERP);
	const char *p = put(0, "suid", img, n, 04755);
	uint32_t uid = 0;
	pid_t pid;
	int st;

	/* our own set-user-ID file: the effective uid stays the real one */
	ck_assert_int_eq(check_path(p), 0);
	if (geteuid() != 0)
		return;
	ck_assert_int_eq(chown(p, 65534, (gid_t)-1), 0);
	ck_assert_int_eq(chmod(p, 04755), 0);
	ck_assert_int_eq(exec_check(AT_FDCWD, p, 0, &uid), NOTICE_SETUID);
	ck_assert_uint_eq(uid, 65534);
	/* a static set-user-ID program: static says more */
	n = make_elf(img, ELFCLASS64, EM_X86_64, ET_EXEC, 0);
	p = put(1, "suid-static", img, n, 0755);
	ck_assert_int_eq(chown(p, 65534, (gid_t)-1), 0);
	ck_assert_int_eq(chmod(p, 04755), 0);
	ck_assert_int_eq(exec_check(AT_FDCWD, p, 0, &uid), NOTICE_STATIC);
	/* set-group-ID counts only with group execute permission */
	n = make_elf(img, ELFCLASS64, EM_X86_64, ET_EXEC, F_INTERP);
	p = put(2, "sgid", img, n, 0755);
	ck_assert_int_eq(chown(p, 0, 65534), 0);
	ck_assert_int_eq(chmod(p, 02755), 0);
	ck_assert_int_eq(check_path(p), getgid() == 65534 ? 0 : NOTICE_SETGID);
	ck_assert_int_eq(chmod(p, 02745), 0);
	ck_assert_int_eq(check_path(p), 0);
	/* under PR_SET_NO_NEW_PRIVS the bits do nothing */
	p = pathbuf[0];
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		_exit(exec_check(AT_FDCWD, p, 0, &uid) == 0 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_int_eq(st, 0);
	/* a process whose effective uid is not its real one */
	p = pathbuf[2];
	ck_assert_int_eq(chmod(p, 0755), 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);	/* for uid 65534 to look */
	pid = fork();
	if (pid == 0) {
		if (setresuid(0, 65534, 0) < 0)
			_exit(2);
		_exit(exec_check(AT_FDCWD, p, 0, &uid) == NOTICE_IDS && uid == 65534 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_int_eq(st, 0);
}
END_TEST

START_TEST(test_resolve)
{
	char out[600], pathenv[1300], cwd[600];
	const char *x;

	ck_assert_int_eq(mkdir(strcat(strcpy(out, dir), "/a"), 0755), 0);
	ck_assert_int_eq(mkdir(strcat(strcpy(out, dir), "/b"), 0755), 0);
	ck_assert_int_eq(mkdir(strcat(strcpy(out, dir), "/b/sub"), 0755), 0);
	put(0, "a/prog", "x", 1, 0644);			/* not executable: skipped */
	x = put(1, "b/prog", "x", 1, 0755);
	snprintf(pathenv, sizeof(pathenv), "%s/a:%s/b/sub:%s/b", dir, dir, dir);
	ck_assert_int_eq(exec_resolve("prog", pathenv, out, sizeof(out)), 0);
	ck_assert_str_eq(out, x);
	/* a directory is no program */
	ck_assert_int_eq(exec_resolve("sub", pathenv, out, sizeof(out)), -ENOENT);
	ck_assert_int_eq(exec_resolve("none", pathenv, out, sizeof(out)), -ENOENT);
	ck_assert_int_eq(exec_resolve("", pathenv, out, sizeof(out)), -ENOENT);
	ck_assert_int_eq(exec_resolve("./rel/x", pathenv, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "./rel/x");
	ck_assert_int_eq(exec_resolve("prog", pathenv, out, 8), -ENOENT);	/* too long */
	/* an empty entry is the current directory */
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(out, sizeof(out), "%s/b", dir);
	ck_assert_int_eq(chdir(out), 0);
	snprintf(pathenv, sizeof(pathenv), "%s/a::/nonexistent", dir);
	ck_assert_int_eq(exec_resolve("prog", pathenv, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "prog");
	ck_assert_int_eq(chdir(cwd), 0);
	/* no PATH: the C library's default */
	ck_assert_int_eq(exec_resolve("sh", NULL, out, sizeof(out)), 0);
	ck_assert(!strcmp(out, "/bin/sh") || !strcmp(out, "/usr/bin/sh"));
}
END_TEST

START_TEST(test_preload)
{
	static const struct {
		const char *list;
		int has;
	} c[] = {
		{ "/a/b/libshmtrace.so", 1 },
		{ "libshmtrace.so", 1 },
		{ "libshmtrace.so.0", 1 },
		{ "/x/libshmtrace.so.0.0.0", 1 },
		{ "/x/libshmtrace-io.so", 0 },
		{ "/x/libshmtrace.sox", 0 },
		{ "/libshmtrace.so/other.so", 0 },
		{ "foo.so:/y/libshmtrace.so", 1 },
		{ "foo.so /y/libshmtrace.so bar.so", 1 },
		{ "/y/libshmtrace.so:", 1 },
		{ ":::", 0 },
		{ "", 0 },
	};
	char *env_yes[] = { (char *)"A=1", (char *)"LD_PRELOAD=/l/libshmtrace.so", NULL };
	char *env_last[] = { (char *)"LD_PRELOAD=/l/libshmtrace.so", (char *)"LD_PRELOAD=x.so",
			     NULL };
	char *env_none[] = { (char *)"LD_PRELOADX=/l/libshmtrace.so", NULL };

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		ck_assert_msg(exec_preload_has(c[i].list, "libshmtrace.so") == c[i].has, "'%s'",
			      c[i].list);
	ck_assert_int_eq(exec_env_preloads(env_yes, "libshmtrace.so"), 1);
	/* the last one counts, as for the loader */
	ck_assert_int_eq(exec_env_preloads(env_last, "libshmtrace.so"), 0);
	ck_assert_int_eq(exec_env_preloads(env_none, "libshmtrace.so"), 0);
	ck_assert_int_eq(exec_env_preloads(NULL, "libshmtrace.so"), 0);
}
END_TEST

static size_t notice(char *buf, uint32_t version, uint32_t kind, uint32_t pid, uint32_t path_len,
		     const char *path, size_t plen)
{
	struct msg_app_notice m = {
		.version = version, .kind = kind, .pid = pid, .path_len = path_len,
	};

	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), path, plen);
	return sizeof(m) + plen;
}

START_TEST(test_notice_decode)
{
	static const char good[] = "/usr/bin/passwd";
	char buf[PROTO_PATH_MAX + 64], big[PROTO_PATH_MAX + 1];
	struct msg_app_notice m;
	const char *path;
	size_t n;

	n = notice(buf, 1, NOTICE_SETUID, 42, sizeof(good), good, sizeof(good));
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), 0);
	ck_assert_str_eq(path, good);
	ck_assert_uint_eq(m.kind, NOTICE_SETUID);
	ck_assert_uint_eq(m.pid, 42);
	ck_assert_int_eq(proto_notice_decode(buf, n - 1, &m, &path), -EPROTO);
	ck_assert_int_eq(proto_notice_decode(buf, 10, &m, &path), -EPROTO);
	n = notice(buf, 2, NOTICE_SETUID, 42, sizeof(good), good, sizeof(good));
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);
	n = notice(buf, 1, 0, 42, sizeof(good), good, sizeof(good));
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);
	n = notice(buf, 1, NOTICE_MAX, 42, sizeof(good), good, sizeof(good));
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);
	n = notice(buf, 1, NOTICE_STATIC, 0, sizeof(good), good, sizeof(good));
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);
	n = notice(buf, 1, NOTICE_STATIC, PROTO_PID_MAX + 1, sizeof(good), good, sizeof(good));
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);
	n = notice(buf, 1, NOTICE_STATIC, 1, sizeof(good) - 1, good, sizeof(good) - 1);
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);	/* no NUL */
	n = notice(buf, 1, NOTICE_STATIC, 1, 6, "ab\0cd", 6);
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);	/* two */
	n = notice(buf, 1, NOTICE_STATIC, 1, 1, "", 1);
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);	/* empty */
	n = notice(buf, 1, NOTICE_STATIC, 1, sizeof(good) + 4, good, sizeof(good));
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);
	n = notice(buf, 1, NOTICE_STATIC, 1, 0xffffffffu, good, sizeof(good));
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);
	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = 0;
	n = notice(buf, 1, NOTICE_STATIC, 1, sizeof(big), big, sizeof(big));
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), -EPROTO);	/* too long */
	n = notice(buf, 1, NOTICE_STATIC, 1, sizeof(big) - 1, big + 1, sizeof(big) - 1);
	ck_assert_int_eq(proto_notice_decode(buf, n, &m, &path), 0);		/* the longest */
}
END_TEST

static Suite *execcheck_suite(void)
{
	Suite *s = suite_create("execcheck");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_elf_kinds);
	tcase_add_test(tc, test_scripts);
	tcase_add_test(tc, test_not_executable);
	tcase_add_test(tc, test_descriptor);
	tcase_add_test(tc, test_set_ids);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_preload);
	tcase_add_test(tc, test_notice_decode);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(execcheck_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
