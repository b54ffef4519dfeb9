/* SPDX-License-Identifier: MIT */
/*
 * harsh-app - a traced program that does to its descriptors and signals
 * what daemons, shells and servers do, one step at a time:
 *
 *   ready          print "ready", wait for a line on standard input
 *   emit:N         emit N shmtrace_test:event (seq goes on from step to step)
 *   closefrom      close every descriptor from 3 up (close_range)
 *   closeloop      close(fd) for every fd from 3 to the descriptor limit
 *   resetsig       signal(SIGRTMIN+3, SIG_DFL), as daemons reset signals
 *   ignoresig      sigaction(SIGRTMIN+3, SIG_IGN)
 *   ownsig         sigaction(SIGRTMIN+3, handler): counts what it receives
 *   rawreset       SIGRTMIN+3 to SIG_DFL with the raw system call
 *   wrap:FN:HOW    SIGRTMIN+3 to SIG_DFL (HOW dfl) or to the handler of
 *                  ownsig (HOW own) by FN: sigset, bsd_signal or
 *                  sysv_signal, the symbol the program's calls resolve to
 *   toggle:MS      for MS milliseconds: SIGRTMIN+3 to SIG_DFL, then its
 *                  action back (saved by that call), an event between
 *   fdfork:PATH    close fds 3-63, open PATH (it must get 3), fork; the
 *                  child writes "child" to fd 3, the parent then "parent"
 *   fds            print the lowest and highest descriptor numbers open
 *   sleep:MS       sleep MS milliseconds, signals or not
 *   done           print "done", wait for a line on standard input
 *   quit           _exit(0) at once (no atexit handler runs)
 *
 * It prints "emitted N" at exit, and exits 3 when its own handler of
 * SIGRTMIN+3 (ownsig) received anything: a tracer must never send it.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "test-events.h"

static uint64_t seq;
static volatile sig_atomic_t own_hits;

static void wait_line(const char *say)
{
	char buf[64];

	printf("%s\n", say);
	fflush(stdout);
	if (!fgets(buf, sizeof(buf), stdin))
		exit(4);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void own_handler(int sig)
{
	own_hits++;
}

/* struct kernel_sigaction of x86-64 */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

/* wrap:FN:HOW (the old functions are looked up: sigset is deprecated) */
static void set_by(const char *spec)
{
	typedef void (*handler_t)(int);
	const char *how = strchr(spec, ':');
	handler_t (*fn)(int, handler_t);
	char name[32];
	void *sym;

	if (!how || (size_t)(how - spec) >= sizeof(name))
		exit(11);
	memcpy(name, spec, (size_t)(how - spec));
	name[how - spec] = 0;
	how++;
	sym = dlsym(RTLD_DEFAULT, name);
	if (!sym || (strcmp(how, "dfl") && strcmp(how, "own")))
		exit(11);
	memcpy(&fn, &sym, sizeof(fn));
	if (fn(SIGRTMIN + 3, how[0] == 'o' ? own_handler : SIG_DFL) == SIG_ERR)
		exit(12);
}

static void fds_range(void)
{
	int lo = -1, hi = -1;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		exit(5);
	while ((de = readdir(d)) != NULL) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] == '.' || fd == dirfd(d) || fd < 3)
			continue;
		if (lo < 0 || fd < lo)
			lo = fd;
		if (fd > hi)
			hi = fd;
	}
	closedir(d);
	printf("fds %d %d\n", lo, hi);
	fflush(stdout);
}

static void fdfork(const char *path)
{
	pid_t pid;
	int fd, st;

	for (int i = 3; i < 64; i++)
		close(i);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd != 3) {
		fprintf(stderr, "harsh-app: open gave %d\n", fd);
		exit(6);
	}
	pid = fork();
	if (pid < 0)
		exit(7);
	if (pid == 0) {
		if (write(3, "child\n", 6) != 6)
			_exit(8);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		exit(9);
	if (write(3, "parent\n", 7) != 7)
		exit(10);
	close(3);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "ready")) {
			wait_line("ready");
		} else if (!strncmp(a, "emit:", 5)) {
			unsigned long n = strtoul(a + 5, NULL, 10);

			for (unsigned long k = 0; k < n; k++, seq++)
				shmtrace(shmtrace_test, event, seq, 0, "harsh");
		} else if (!strcmp(a, "closefrom")) {
			if (syscall(SYS_close_range, 3u, ~0u, 0u) < 0)
				for (int fd = 3; fd < 65536; fd++)
					close(fd);
		} else if (!strcmp(a, "closeloop")) {
			struct rlimit rl;

			getrlimit(RLIMIT_NOFILE, &rl);
			for (rlim_t fd = 3; fd < rl.rlim_cur; fd++)
				close((int)fd);
		} else if (!strcmp(a, "resetsig")) {
			signal(SIGRTMIN + 3, SIG_DFL);
		} else if (!strcmp(a, "ignoresig") || !strcmp(a, "ownsig")) {
			struct sigaction sa;

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = a[0] == 'i' ? SIG_IGN : own_handler;
			sigaction(SIGRTMIN + 3, &sa, NULL);
		} else if (!strncmp(a, "wrap:", 5)) {
			set_by(a + 5);
		} else if (!strcmp(a, "rawreset")) {
			struct ksigaction k;

			memset(&k, 0, sizeof(k));
			k.handler = SIG_DFL;
			syscall(SYS_rt_sigaction, SIGRTMIN + 3, &k, NULL, 8);
		} else if (!strncmp(a, "toggle:", 7)) {
			uint64_t end = now_ms() + strtoull(a + 7, NULL, 10);
			struct sigaction dfl, old;

			memset(&dfl, 0, sizeof(dfl));
			dfl.sa_handler = SIG_DFL;
			while (now_ms() < end) {
				sigaction(SIGRTMIN + 3, &dfl, &old);
				shmtrace(shmtrace_test, event, seq++, 0, "toggle");
				sigaction(SIGRTMIN + 3, &old, NULL);
			}
		} else if (!strncmp(a, "fdfork:", 7)) {
			fdfork(a + 7);
		} else if (!strcmp(a, "fds")) {
			fds_range();
		} else if (!strncmp(a, "sleep:", 6)) {
			struct timespec ts = { 0, 0 };
			long ms = atol(a + 6);

			ts.tv_sec = ms / 1000;
			ts.tv_nsec = (ms % 1000) * 1000000;
			/* the whole time: the doorbell interrupts nanosleep */
			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
		} else if (!strcmp(a, "done")) {
			wait_line("done");
		} else if (!strcmp(a, "quit")) {
			_exit(0);
		} else {
			fprintf(stderr, "harsh-app: unknown step %s\n", a);
			return 2;
		}
	}
	printf("emitted %llu\n", (unsigned long long)seq);
	return own_hits ? 3 : 0;
}
