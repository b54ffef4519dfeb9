/* SPDX-License-Identifier: MIT */
/*
 * notice-client - speaks to the session daemon of $SHMTRACE_HOME as a
 * traced process would, for the tests of notices and of the application
 * socket.
 *
 *	notice-client notices	register on the main socket, send a valid
 *				notice (pid 4242, static program
 *				/shmtrace/valid-notice), then malformed ones
 *				each on a new registration: every malformed
 *				one must close its connection (exit 0), else
 *				exit 1
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "home.h"
#include "proto.h"
#include "shm.h"

static char home[1024];

static int memfd(size_t size)
{
	int fd = memfd_create("t", MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		exit(1);
	return fd;
}

static int register_on(int fd)
{
	struct msg_app_register r;
	int fds[3] = { memfd(SHM_CTL_SIZE), memfd(SHM_PROC_SIZE), memfd(8) }, ret;

	memset(&r, 0, sizeof(r));
	r.pid = (uint32_t)getpid();
	r.uid = (uint32_t)getuid();
	r.abi = SHMTRACE_ABI_VERSION;
	r.max_events = SHM_MAX_EVENTS;
	r.max_chan = SHM_MAX_CHAN;
	strcpy(r.procname, "notice-client");
	ret = proto_send(fd, MSG_APP_REGISTER, 0, &r, sizeof(r), fds, 3);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	return ret;
}

static int main_conn(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	if (home_path(sa.sun_path, sizeof(sa.sun_path), home, HOME_SOCK) < 0 || fd < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || register_on(fd) < 0) {
		perror("notice-client: register");
		exit(1);
	}
	return fd;
}

/* Does the daemon close @fd within 3 s (1), or keep it open (0)? */
static int closed(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[256];

	if (poll(&pfd, 1, 3000) <= 0)
		return 0;
	return recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0;
}

static int send_notice(int fd, uint32_t version, uint32_t kind, uint32_t pid, uint32_t path_len,
		       const char *path, size_t sent)
{
	struct msg_app_notice m = {
		.version = version, .kind = kind, .pid = pid, .path_len = path_len,
	};

	return proto_sendv(fd, MSG_APP_NOTICE, 0, &m, sizeof(m), path, sent, NULL, 0);
}

static int notices(void)
{
	static const char good[] = "/shmtrace/valid-notice";
	static const char nonul[] = "/shmtrace/no-nul-here";
	static const char twonul[] = "/shmtrace\0/two-nuls";
	int fd = main_conn(), bad = 0;

	if (send_notice(fd, PROTO_NOTICE_VERSION, NOTICE_STATIC, 4242, sizeof(good), good,
			sizeof(good)) < 0 || closed(fd)) {
		fprintf(stderr, "notice-client: a valid notice was refused\n");
		return 1;
	}
	/* each malformed notice on a registration of its own */
#define BAD(...) do {								\
		int c = main_conn();						\
										\
		if (send_notice(c, __VA_ARGS__) < 0 || !closed(c)) {		\
			fprintf(stderr, "notice-client: not refused: %s\n", #__VA_ARGS__); \
			bad++;							\
		}								\
		close(c);							\
	} while (0)
	BAD(9, NOTICE_STATIC, 4242, sizeof(good), good, sizeof(good));
	BAD(PROTO_NOTICE_VERSION, 0, 4242, sizeof(good), good, sizeof(good));
	BAD(PROTO_NOTICE_VERSION, NOTICE_MAX, 4242, sizeof(good), good, sizeof(good));
	BAD(PROTO_NOTICE_VERSION, NOTICE_STATIC, 0, sizeof(good), good, sizeof(good));
	BAD(PROTO_NOTICE_VERSION, NOTICE_STATIC, 99999999, sizeof(good), good, sizeof(good));
	BAD(PROTO_NOTICE_VERSION, NOTICE_STATIC, 4242, sizeof(good) + 5, good, sizeof(good));
	BAD(PROTO_NOTICE_VERSION, NOTICE_STATIC, 4242, sizeof(good) - 3, good, sizeof(good));
	BAD(PROTO_NOTICE_VERSION, NOTICE_STATIC, 4242, sizeof(nonul) - 1, nonul,
	    sizeof(nonul) - 1);
	BAD(PROTO_NOTICE_VERSION, NOTICE_STATIC, 4242, sizeof(twonul), twonul, sizeof(twonul));
	BAD(PROTO_NOTICE_VERSION, NOTICE_STATIC, 4242, 0x80000000u, good, sizeof(good));
	close(fd);
	if (bad)
		return 1;
	printf("notice-client: 10 malformed notices refused\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2 || home_resolve(home, sizeof(home)) < 0) {
		fprintf(stderr, "usage: notice-client notices\n");
		return 2;
	}
	if (!strcmp(argv[1], "notices"))
		return notices();
	fprintf(stderr, "usage: notice-client notices\n");
	return 2;
}
