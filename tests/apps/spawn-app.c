/* SPDX-License-Identifier: MIT */
/*
 * spawn-app - run a program through every way of executing one, for the
 * tests of libshmtrace's exec wrappers (it is not linked with libshmtrace:
 * run it with LD_PRELOAD or tracectl record).
 *
 *	spawn-app DIR
 *
 * For each way M (execve, execv, execvp, execvpe, execl, execlp, execle,
 * execveat, fexecve, posix_spawn, posix_spawnp, vfork, system, popen) it
 * runs DIR/prog-M (the p-variants by name, along PATH=DIR) in a child and
 * checks that it exited with status 7. It then checks that failing calls
 * fail as they would untraced: an exec of a missing file sets ENOENT, of a
 * file without execute permission EACCES, a search along PATH that finds
 * nothing ENOENT, posix_spawn returns ENOENT, and setuid to our own uid
 * succeeds. Prints "ok" and exits 0, or says what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *dir;
static int failed;

static void path_of(char *out, size_t cap, const char *way)
{
	snprintf(out, cap, "%s/prog-%s", dir, way);
}

static void expect_status(const char *way, pid_t pid)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 7) {
		fprintf(stderr, "spawn-app: %s: the program did not run (status 0x%x)\n", way,
			pid < 0 ? -1 : st);
		failed = 1;
	}
}

/* Run @way in a forked child. */
static void by_exec(const char *way)
{
	char path[4096], name[64];
	char *argv[] = { name, NULL };
	pid_t pid;

	path_of(path, sizeof(path), way);
	snprintf(name, sizeof(name), "prog-%s", way);
	pid = fork();
	if (pid == 0) {
		if (!strcmp(way, "execve"))
			execve(path, argv, environ);
		else if (!strcmp(way, "execv"))
			execv(path, argv);
		else if (!strcmp(way, "execvp"))
			execvp(name, argv);
		else if (!strcmp(way, "execvpe"))
			execvpe(name, argv, environ);
		else if (!strcmp(way, "execl"))
			execl(path, name, "one", "two", (char *)NULL);
		else if (!strcmp(way, "execlp"))
			execlp(name, name, (char *)NULL);
		else if (!strcmp(way, "execle"))
			execle(path, name, "one", (char *)NULL, environ);
		else if (!strcmp(way, "execveat"))
			execveat(AT_FDCWD, path, argv, environ, 0);
		else if (!strcmp(way, "fexecve"))
			fexecve(open(path, O_RDONLY | O_CLOEXEC), argv, environ);
		_exit(99);
	}
	expect_status(way, pid);
}

static void by_spawn(const char *way)
{
	char path[4096], name[64];
	char *argv[] = { name, NULL };
	pid_t pid = -1;
	int ret;

	path_of(path, sizeof(path), way);
	snprintf(name, sizeof(name), "prog-%s", way);
	if (!strcmp(way, "posix_spawn"))
		ret = posix_spawn(&pid, path, NULL, NULL, argv, environ);
	else
		ret = posix_spawnp(&pid, name, NULL, NULL, argv, environ);
	if (ret)
		pid = -1;
	expect_status(way, pid);
}

/* vfork, then execve in the child that shares our memory. */
static void by_vfork(void)
{
	char path[4096];
	char *argv[] = { path, NULL };
	pid_t pid;

	path_of(path, sizeof(path), "vfork");
	pid = vfork();
	if (pid == 0) {
		execve(path, argv, environ);
		_exit(99);
	}
	expect_status("vfork", pid);
}

static void by_shell(void)
{
	char cmd[4200];
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "prog-system");
	st = system(cmd);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 7) {
		fprintf(stderr, "spawn-app: system: status 0x%x\n", st);
		failed = 1;
	}
	f = popen("prog-popen", "r");
	st = f ? pclose(f) : -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 7) {
		fprintf(stderr, "spawn-app: popen: status 0x%x\n", st);
		failed = 1;
	}
}

static void expect_errno(const char *what, int ret, int err, int want)
{
	if (ret != -1 || err != want) {
		fprintf(stderr, "spawn-app: %s: returned %d errno %d (%s), expected -1 errno %d\n",
			what, ret, err, strerror(err), want);
		failed = 1;
	}
}

static void failures(void)
{
	char *argv[] = { (char *)"x", NULL }, path[4096];
	pid_t pid;
	int ret;

	errno = 0;
	ret = execve("/nonexistent/shmtrace-spawn-app", argv, environ);
	expect_errno("execve of a missing file", ret, errno, ENOENT);
	snprintf(path, sizeof(path), "%s/not-executable", dir);
	errno = 0;
	ret = execv(path, argv);
	expect_errno("execv of a file without execute permission", ret, errno, EACCES);
	errno = 0;
	ret = execvp("shmtrace-no-such-program", argv);
	expect_errno("execvp of a name found nowhere", ret, errno, ENOENT);
	errno = 0;
	ret = execl("/nonexistent/x", "x", (char *)NULL);
	expect_errno("execl of a missing file", ret, errno, ENOENT);
	ret = posix_spawn(&pid, "/nonexistent/x", NULL, NULL, argv, environ);
	if (ret != ENOENT) {
		fprintf(stderr, "spawn-app: posix_spawn of a missing file returned %d\n", ret);
		failed = 1;
	}
	errno = 12345;
	if (setuid(getuid()) != 0 || errno != 12345) {
		fprintf(stderr, "spawn-app: setuid to our own uid failed or touched errno\n");
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	static const char *const execs[] = {
		"execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle", "execveat",
		"fexecve",
	};

	if (argc != 2) {
		fprintf(stderr, "usage: spawn-app DIR\n");
		return 2;
	}
	dir = argv[1];
	setenv("PATH", dir, 1);
	for (size_t i = 0; i < sizeof(execs) / sizeof(execs[0]); i++)
		by_exec(execs[i]);
	by_spawn("posix_spawn");
	by_spawn("posix_spawnp");
	by_vfork();
	by_shell();
	failures();
	if (failed)
		return 1;
	printf("ok\n");
	return 0;
}
