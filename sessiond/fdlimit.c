// SPDX-License-Identifier: MIT
/*
 * fdlimit.c - the descriptor limit (a handful per traced process).
 *
 * FD_RESERVE descriptors are held from the start; when accept() or a
 * message meets the limit they are let go, and until twice as many are
 * free again new processes are refused (they are not traced; the log says
 * how many), so that tracectl is still served and /proc still read. A
 * listening socket whose connection cannot be accepted even then stays
 * out of the loop for the rest of the round (ev_pause()): no busy loop on
 * it.
 *
 * State: the reserve and the counts of refused processes, this file's
 * alone; a crash leaves nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "fdlimit.h"
#include "loop.h"
#include "support/log.h"
#include "common/util.h"
#include "support/sysutil.h"

#define FD_RESERVE	16

static int fd_reserve[FD_RESERVE];
static unsigned int fd_held;		/* of fd_reserve, open */
static int fd_short;			/* the reserve was let go */
static unsigned long fd_refused;	/* processes refused since */
static unsigned long fd_refused_all;	/* ... since the start */
static uint64_t fd_tried;		/* when we last tried to take it back */
static long fd_limit;

static void close_all(const int *fds, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		close(fds[i]);
}

/* Take the reserve (back): all of it, and only with as many free again. */
void fds_take(void)
{
	int fds[2 * FD_RESERVE];
	unsigned int n = 0, want = fd_short ? 2 * FD_RESERVE : FD_RESERVE;

	fd_tried = now_ns(CLOCK_MONOTONIC);
	while (n < want && (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		n++;
	if (n < want) {
		close_all(fds, n);
		return;
	}
	close_all(fds + FD_RESERVE, n - FD_RESERVE);
	memcpy(fd_reserve, fds, sizeof(fd_reserve));
	fd_held = FD_RESERVE;
	if (fd_short)
		log_info("descriptors free again: new processes are traced again (%lu were "
			 "refused)", fd_refused);
	fd_short = 0;
}

long fds_init(void)
{
	fd_limit = nofile_raise();
	return fd_limit;
}

void fds_exhausted(void)
{
	if (fd_short)
		return;
	close_all(fd_reserve, fd_held);
	fd_held = 0;
	fd_short = 1;
	fd_refused = 0;
	log_warn("descriptor limit (%ld) reached: new processes are not traced until some "
		 "exit (start the daemon with a higher hard limit, ulimit -Hn, to trace more)",
		 fd_limit);
}

int fds_refuse(pid_t pid)
{
	if (!fd_short)
		return 0;
	fd_refused_all++;
	if (!fd_refused++)
		log_warn("pid %d not traced: the descriptor limit is reached", (int)pid);
	return 1;
}

unsigned long fds_refused(long *limit)
{
	*limit = fd_limit;
	return fd_refused_all;
}

int fds_accept(int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		fds_exhausted();
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE))
			ev_pause(lfd);
	}
	return fd;
}

void fds_round(void)
{
	ev_resume();
	if (fd_short && now_ns(CLOCK_MONOTONIC) - fd_tried >= 1000000000ull)
		fds_take();
}
