/* SPDX-License-Identifier: MIT */
/*
 * harsh-app - a traced program that does to its descriptors and signals
 * what daemons, shells and servers do, one step at a time:
 *
 *   ready          print "ready", wait for a line on standard input
 *   emit:N         emit N shmtrace_test:event (seq goes on from step to step)
 *   mark:N         emit N shmtrace_test:mark
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
 *   blockall       block every signal (sigprocmask), as daemons with a
 *                  signal thread or a signalfd do
 *   unblockall     unblock every signal (sigprocmask)
 *   rawblockall    block every signal with the raw system call
 *   workerblock    a thread that blocks every signal (pthread_sigmask) and
 *                  waits until the program exits
 *   waiter         a dedicated signal thread: it blocks every signal and
 *                  takes them with sigtimedwait until "stopwait" (the step
 *                  ends once it called sigtimedwait)
 *   waiterfd       the same, reading them from a signalfd (made before the
 *                  step ends)
 *   stopwait       stop the signal thread
 *   suspend        wait in sigsuspend for SIGUSR1, every other signal
 *                  blocked meanwhile
 *   forkemit:N     fork; the child emits N shmtrace_test:event and exits
 *   pending        print "pending N": the instances of SIGRTMIN+3 pending
 *                  for the process (taken with the raw system calls)
 *   vforkhold      a thread that unblocks SIGRTMIN+3 (raw system call) and
 *                  stays in vfork() until "vforkrelease": it cannot take a
 *                  signal meanwhile, nor can any other thread that blocks it
 *   vforkrelease   let the vfork child exit and the thread end
 *   fdfork:PATH    close fds 3-63, open PATH (it must get 3), fork; the
 *                  child writes "child" to fd 3, the parent then "parent"
 *   fds            print the lowest and highest descriptor numbers open
 *   sleep:MS       sleep MS milliseconds, signals or not
 *   done           print "done", wait for a line on standard input
 *   quit           _exit(0) at once (no atexit handler runs)
 *
 * It prints "emitted N" at exit, then "consumed N doorbell M" (signals
 * its signal thread took, M of them SIGRTMIN+3, each also said on
 * standard error), and exits 3 when its own handler of SIGRTMIN+3 (ownsig)
 * or its signal thread received SIGRTMIN+3: a tracer must never send it
 * to a program that takes it.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "test-events.h"

static uint64_t seq;
static volatile sig_atomic_t own_hits;
static volatile sig_atomic_t usr1_hits;
static pthread_t waiter_thread;
static int waiter_on, waiter_stop, waiter_ready;
static unsigned long consumed, consumed_bell;
static pthread_t hold_thread;
static int hold_ready[2], hold_go[2];

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

static void usr1_handler(int sig)
{
	usr1_hits++;
}

/* The raw rt_sigprocmask and rt_sigtimedwait: a kernel mask of 64 signals. */
static void raw_mask(int how, uint64_t set, uint64_t *old)
{
	if (syscall(SYS_rt_sigprocmask, how, &set, old, sizeof(set)) < 0)
		exit(11);
}

static uint64_t sigbit(int sig)
{
	return 1ull << (sig - 1);
}

static void took(int sig, int pid)
{
	consumed++;
	if (sig == SIGRTMIN + 3)
		consumed_bell++;
	fprintf(stderr, "harsh-app: consumed signal %d from pid %d\n", sig, pid);
}

/* The dedicated signal thread: takes every signal, with sigtimedwait or a signalfd. */
static void *waiter(void *arg)
{
	int use_fd = *(int *)arg, fd = -1;
	struct timespec tick = { 0, 20000000 };
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (use_fd && (fd = signalfd(-1, &all, SFD_CLOEXEC | SFD_NONBLOCK)) < 0)
		exit(12);
	if (!use_fd) {
		struct timespec zero = { 0, 0 };
		siginfo_t si;
		int sig = sigtimedwait(&all, &si, &zero);

		if (sig > 0)
			took(sig, si.si_pid);
	}
	__atomic_store_n(&waiter_ready, 1, __ATOMIC_RELEASE);	/* it waits from now on */
	while (!__atomic_load_n(&waiter_stop, __ATOMIC_ACQUIRE)) {
		siginfo_t si;
		int sig;

		if (use_fd) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			struct signalfd_siginfo ssi;

			if (poll(&pfd, 1, 20) == 1 && read(fd, &ssi, sizeof(ssi)) == sizeof(ssi))
				took((int)ssi.ssi_signo, (int)ssi.ssi_pid);
			continue;
		}
		sig = sigtimedwait(&all, &si, &tick);
		if (sig > 0)
			took(sig, si.si_pid);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void *blocker(void *arg)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;)
		pause();
	return NULL;
}

/* Count (and take) the instances of SIGRTMIN+3 pending for the process. */
static void count_pending(void)
{
	struct timespec zero = { 0, 0 };
	uint64_t set = sigbit(SIGRTMIN + 3), old;
	unsigned long n = 0;

	raw_mask(SIG_BLOCK, set, &old);
	while (syscall(SYS_rt_sigtimedwait, &set, NULL, &zero, sizeof(set)) == SIGRTMIN + 3)
		n++;
	raw_mask(SIG_SETMASK, old, NULL);
	printf("pending %lu\n", n);
	fflush(stdout);
}

/* A thread that leaves SIGRTMIN+3 unblocked and sits in vfork(). */
static void *holder(void *arg)
{
	char c;
	pid_t pid;

	raw_mask(SIG_UNBLOCK, sigbit(SIGRTMIN + 3), NULL);
	pid = vfork();
	if (pid == 0) {
		if (write(hold_ready[1], "r", 1) != 1 || read(hold_go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	if (pid < 0)
		exit(13);
	waitpid(pid, NULL, 0);
	return NULL;
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
		} else if (!strncmp(a, "mark:", 5)) {
			unsigned long n = strtoul(a + 5, NULL, 10);

			for (unsigned long k = 0; k < n; k++)
				shmtrace(shmtrace_test, mark);
		} else if (!strcmp(a, "blockall") || !strcmp(a, "unblockall")) {
			sigset_t set;

			if (a[0] == 'b')
				sigfillset(&set);
			else
				sigemptyset(&set);
			sigprocmask(a[0] == 'b' ? SIG_BLOCK : SIG_SETMASK, &set, NULL);
		} else if (!strcmp(a, "rawblockall")) {
			raw_mask(SIG_BLOCK, ~0ull, NULL);
		} else if (!strcmp(a, "workerblock")) {
			pthread_t t;

			if (pthread_create(&t, NULL, blocker, NULL))
				exit(14);
		} else if (!strcmp(a, "waiter") || !strcmp(a, "waiterfd")) {
			static int use_fd;

			use_fd = a[6] == 'f';
			if (pthread_create(&waiter_thread, NULL, waiter, &use_fd))
				exit(14);
			while (!__atomic_load_n(&waiter_ready, __ATOMIC_ACQUIRE))
				sched_yield();
			waiter_on = 1;
		} else if (!strcmp(a, "stopwait")) {
			__atomic_store_n(&waiter_stop, 1, __ATOMIC_RELEASE);
			pthread_join(waiter_thread, NULL);
			waiter_on = 0;
		} else if (!strcmp(a, "suspend")) {
			struct sigaction sa;
			sigset_t wait;

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = usr1_handler;
			sigaction(SIGUSR1, &sa, NULL);
			sigfillset(&wait);
			sigdelset(&wait, SIGUSR1);
			printf("suspended\n");
			fflush(stdout);
			while (!usr1_hits)
				sigsuspend(&wait);
		} else if (!strncmp(a, "forkemit:", 9)) {
			unsigned long n = strtoul(a + 9, NULL, 10);
			pid_t pid = fork();
			int st;

			if (pid < 0)
				exit(7);
			if (pid == 0) {
				for (unsigned long k = 0; k < n; k++)
					shmtrace(shmtrace_test, event, k, 1, "child");
				exit(0);
			}
			if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
				exit(9);
		} else if (!strcmp(a, "pending")) {
			count_pending();
		} else if (!strcmp(a, "vforkhold")) {
			char c;

			if (pipe(hold_ready) < 0 || pipe(hold_go) < 0 ||
			    pthread_create(&hold_thread, NULL, holder, NULL) ||
			    read(hold_ready[0], &c, 1) != 1)
				exit(13);
		} else if (!strcmp(a, "vforkrelease")) {
			if (write(hold_go[1], "g", 1) != 1)
				exit(13);
			pthread_join(hold_thread, NULL);
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
	if (waiter_on) {
		__atomic_store_n(&waiter_stop, 1, __ATOMIC_RELEASE);
		pthread_join(waiter_thread, NULL);
	}
	printf("emitted %llu\n", (unsigned long long)seq);
	printf("consumed %lu doorbell %lu\n", consumed, consumed_bell);
	return own_hits || consumed_bell ? 3 : 0;
}
