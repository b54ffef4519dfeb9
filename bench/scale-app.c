/* SPDX-License-Identifier: MIT */
/*
 * scale-app - starts COUNT traced processes, at most PARALLEL of them
 * registering (or, with HOLD 0, alive) at once, for bench/scale.sh.
 *
 * The launcher is not traced: it never loads libshmtrace. Each child,
 * forked from it, times dlopen(PROBE) with CLOCK_MONOTONIC. PROBE
 * (scale-probe.c) is linked with libshmtrace, so the call runs
 * libshmtrace's constructor, which registers with the session daemon and
 * waits for its reply (lib_sync_locked(), at most SHMTRACE_REGISTER_TIMEOUT
 * ms), and the probe's own constructor, which sends its events and waits
 * for the daemon again: the time is the registration a program pays when
 * it starts, the daemon's replies included. The child then looks whether
 * its event is enabled (it is once the daemon applied the control page
 * within the wait), starts 2 threads that emit EVENTS events each, and
 * reports to the launcher through a pipe. With HOLD 1 its threads stay
 * alive until the launcher lets every child go; with HOLD 0 it exits.
 *
 * usage: scale-app PROBE COUNT PARALLEL EVENTS HOLD
 * Output (standard output, one line each):
 *   reg IDX PID LAT_NS ENABLED     a child registered (IDX: order started)
 *   fail PID STATUS                 a child that failed: its wait status, or
 *                                   "error E" (1 dlopen, 2 dlsym, 3 thread)
 *   ready N FAILED F MS T           HOLD 1: all reported, T ms since the start
 *   done N FAILED F MS T            every child ended
 * With HOLD 1, after "ready", the launcher waits for a line (or the end) of
 * its standard input, then lets every child go and waits for them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCALE_THREADS 2
#define SCALE_STACK (64 * 1024)

struct scale_rec {
	int32_t idx;
	int32_t pid;
	int64_t lat_ns;
	int32_t enabled;
	int32_t err;
};

static int (*probe_enabled)(void);
static void (*probe_emit)(unsigned int thread, unsigned int n);
static unsigned int events;

static pthread_barrier_t emitted;
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;
static int hold_released;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *emitter(void *arg)
{
	probe_emit((unsigned int)(uintptr_t)arg, events);
	return NULL;
}

/* HOLD 1: emit, say so, then stay alive until the process is let go */
static void *holder(void *arg)
{
	probe_emit((unsigned int)(uintptr_t)arg, events);
	pthread_barrier_wait(&emitted);
	pthread_mutex_lock(&hold_lock);
	while (!hold_released)
		pthread_cond_wait(&hold_cond, &hold_lock);
	pthread_mutex_unlock(&hold_lock);
	return NULL;
}

static int write_rec(int fd, const struct scale_rec *r)
{
	ssize_t n;

	do
		n = write(fd, r, sizeof(*r));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*r) ? 0 : -EIO;
}

/* The child: register, emit, report, and with @hold wait for the end of
 * @release_fd. Returns its exit status. */
static int child(const char *probe, int idx, int res_fd, int release_fd, int hold)
{
	struct scale_rec r = { .idx = idx, .pid = (int32_t)getpid() };
	pthread_t th[SCALE_THREADS];
	pthread_attr_t attr;
	int64_t t0;
	void *h;
	char c;
	int i;

	t0 = now_ns();
	h = dlopen(probe, RTLD_NOW | RTLD_LOCAL);
	r.lat_ns = now_ns() - t0;
	if (!h) {
		fprintf(stderr, "scale-app: %s\n", dlerror());
		r.err = 1;
		goto report;
	}
	*(void **)&probe_enabled = dlsym(h, "scale_probe_enabled");
	*(void **)&probe_emit = dlsym(h, "scale_probe_emit");
	if (!probe_enabled || !probe_emit) {
		r.err = 2;
		goto report;
	}
	r.enabled = probe_enabled();
	pthread_barrier_init(&emitted, NULL, SCALE_THREADS + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, SCALE_STACK);
	for (i = 0; i < SCALE_THREADS; i++) {
		if (pthread_create(&th[i], &attr, hold ? holder : emitter,
				   (void *)(uintptr_t)i)) {
			r.err = 3;
			goto report;	/* exit() ends the threads started */
		}
	}
	if (!hold) {
		for (i = 0; i < SCALE_THREADS; i++)
			pthread_join(th[i], NULL);
		return write_rec(res_fd, &r) ? 1 : 0;
	}
	pthread_barrier_wait(&emitted);
	if (write_rec(res_fd, &r))
		return 1;
	while (read(release_fd, &c, 1) < 0 && errno == EINTR)
		;	/* until the launcher closes its end */
	pthread_mutex_lock(&hold_lock);
	hold_released = 1;
	pthread_cond_broadcast(&hold_cond);
	pthread_mutex_unlock(&hold_lock);
	for (i = 0; i < SCALE_THREADS; i++)
		pthread_join(th[i], NULL);
	return 0;
report:
	write_rec(res_fd, &r);
	return 1;
}

/* the children by pid: 0 none, 1 running, 2 reported, 3 reported a failure */
static unsigned char *state;
static long pid_max;
static int count, parallel, hold, inflight, started, reported, failed, ended;
static int64_t t_start;

static long read_pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long v = 0;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v > 0 ? v : 4194304;
}

static void on_rec(const struct scale_rec *r)
{
	if (r->pid <= 0 || r->pid >= pid_max)
		return;
	state[r->pid] = r->err ? 3 : 2;
	reported++;
	if (r->err) {
		printf("fail %d error %d\n", r->pid, r->err);
		failed++;
	} else {
		printf("reg %d %d %lld %d\n", r->idx, r->pid, (long long)r->lat_ns, r->enabled);
	}
	if (hold)
		inflight--;
}

static int chld_pipe[2];

static void on_chld(int sig)
{
	int e = errno;

	(void)!write(chld_pipe[1], "", 1);
	errno = e;
}

/* the records in the pipe, at most one read */
static int read_recs(int fd)
{
	struct scale_rec r[64];
	ssize_t n;

	n = read(fd, r, sizeof(r));
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (ssize_t i = 0; i < n / (ssize_t)sizeof(r[0]); i++)
		on_rec(&r[i]);
	return 0;
}

/* every record already in the pipe */
static void drain(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN))
		if (read_recs(fd) < 0)
			break;
}

/* reap what ended; @block: wait for one */
static void reap(int res_fd, int block)
{
	int st;
	pid_t p;

	while ((p = waitpid(-1, &st, block ? 0 : WNOHANG)) > 0) {
		block = 0;
		ended++;
		if (p < pid_max && state[p] == 1)
			drain(res_fd);	/* its record may be in the pipe still */
		if (p < pid_max && state[p] == 1) {	/* never reported */
			printf("fail %d %d\n", (int)p, st);
			failed++;
			reported++;
			if (hold)
				inflight--;
		} else if (p < pid_max && state[p] == 2 && (!WIFEXITED(st) || WEXITSTATUS(st))) {
			printf("fail %d %d\n", (int)p, st);
			failed++;
		}
		if (p < pid_max)
			state[p] = 0;
		if (!hold)
			inflight--;
	}
}

static double ms_since_start(void)
{
	return (double)(now_ns() - t_start) / 1e6;
}

/* fork the next child; returns -errno when fork fails */
static int start_child(const char *probe, int res[2], int release[2])
{
	pid_t p;

	fflush(stdout);
	p = fork();
	if (p < 0)
		return -errno;
	if (p == 0) {
		int null = open("/dev/null", O_RDWR);

		signal(SIGCHLD, SIG_DFL);
		close(chld_pipe[0]);
		close(chld_pipe[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		dup2(null, 0);
		dup2(null, 1);
		close(res[0]);
		close(release[1]);
		exit(child(probe, started, res[1], release[0], hold));
	}
	if (p < pid_max)
		state[p] = 1;
	started++;
	inflight++;
	return 0;
}

/* wait for a record or a child's end (SIGCHLD), then take them */
static void wait_children(int res_fd)
{
	struct pollfd pfd[2] = { { .fd = res_fd, .events = POLLIN },
				 { .fd = chld_pipe[0], .events = POLLIN } };
	char buf[256];

	if (poll(pfd, 2, 1000) > 0) {
		if (pfd[0].revents & POLLIN)
			read_recs(res_fd);
		if (pfd[1].revents & POLLIN)
			while (read(chld_pipe[0], buf, sizeof(buf)) > 0)
				;
	}
	reap(res_fd, 0);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { 0 };
	int res[2], release[2], ret;
	char line[64];

	if (argc != 6) {
		fprintf(stderr, "usage: scale-app PROBE COUNT PARALLEL EVENTS HOLD\n");
		return 2;
	}
	count = atoi(argv[2]);
	parallel = atoi(argv[3]);
	events = (unsigned int)atoi(argv[4]);
	hold = atoi(argv[5]);
	if (count < 1 || parallel < 1) {
		fprintf(stderr, "scale-app: COUNT and PARALLEL must be positive\n");
		return 2;
	}
	pid_max = read_pid_max();
	state = calloc((size_t)pid_max, 1);
	if (!state || pipe2(res, O_CLOEXEC) < 0 || pipe2(release, O_CLOEXEC) < 0 ||
	    pipe2(chld_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		perror("scale-app");
		return 1;
	}
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	t_start = now_ns();
	while (reported < count) {
		while (started < count && inflight < parallel) {
			ret = start_child(argv[1], res, release);
			if (ret < 0) {
				fprintf(stderr, "scale-app: fork: %s\n", strerror(-ret));
				if (!inflight)
					return 1;
				break;
			}
		}
		wait_children(res[0]);
	}
	if (hold) {
		printf("ready %d FAILED %d MS %.1f\n", count - failed, failed, ms_since_start());
		if (!fgets(line, sizeof(line), stdin))
			line[0] = 0;
		t_start = now_ns();
	}
	close(release[1]);
	while (ended < started)
		reap(res[0], 1);
	printf("done %d FAILED %d MS %.1f\n", count - failed, failed, ms_since_start());
	return failed ? 1 : 0;
}
