/* SPDX-License-Identifier: MIT */
/*
 * notice-client - speaks to the session daemon of $SHMTRACE_HOME as a
 * traced process would, for the tests of notices and of the application
 * socket.
 *
 *	notice-client notices	register on the main socket, send a valid
 *				notice (its own pid, static program
 *				/shmtrace/valid-notice), then malformed ones
 *				each on a new registration: every malformed
 *				one must close its connection (exit 0), else
 *				exit 1
 *	notice-client forge	register, fork a child that waits, and send
 *				well-formed notices about: pid 1
 *				(/shmtrace/forged-1), its parent
 *				(/shmtrace/forged-parent), the child as a uid
 *				change (/shmtrace/forged-uid), then the child
 *				as a static program (/shmtrace/child) and
 *				itself (/shmtrace/own); print "own PID child
 *				CPID", wait for a line on standard input (the
 *				child alive meanwhile), and exit 0 when the
 *				daemon kept the connection open (a notice
 *				refused is not malformed), 1 when it closed it
 *	notice-client app-cmd	connect to the application socket and send
 *				a command (status): exit 0 when it is refused
 *				(an error record and reply, or the connection
 *				closed), 1 when answered (any other record), 2
 *				when the socket cannot be
 *				reached (errno on standard error)
 *	notice-client app-register  register on the application socket:
 *				exit 0 when the daemon keeps the connection, 1
 *				when it closes it, 2 when unreachable
 *	notice-client app-inject  register on the application socket, print
 *				"visible N", the channels its control page
 *				shows, then offer buffer segments for every
 *				other channel slot under ids near the visible
 *				one's (channels of sessions that do not allow
 *				us): none may reach a trace
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common/home.h"
#include "common/proto.h"
#include "common/shm.h"

static char home[1024];

static int memfd(size_t size)
{
	int fd = memfd_create("t", MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		exit(1);
	return fd;
}

static int ctl_fd = -1;		/* the control page of the last registration */

static int register_on(int fd)
{
	static uint64_t instance;
	struct msg_app_register r;
	int fds[3] = { memfd(SHM_CTL_SIZE), memfd(SHM_PROC_SIZE), -1 }, ret, sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)	/* the wake socket */
		exit(1);
	close(sv[0]);
	fds[2] = sv[1];
	memset(&r, 0, sizeof(r));
	r.instance = ++instance;	/* each one a process image of its own */
	r.pid = (uint32_t)getpid();
	r.uid = (uint32_t)getuid();
	r.abi = SHMTRACE_ABI_VERSION;
	r.max_events = SHM_MAX_EVENTS;
	r.max_chan = SHM_MAX_CHAN;
	strcpy(r.procname, "notice-client");
	ret = proto_send(fd, MSG_APP_REGISTER, 0, &r, sizeof(r), fds, 3);
	if (ctl_fd >= 0)
		close(ctl_fd);
	ctl_fd = fds[0];
	for (int i = 1; i < 3; i++)
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

	if (send_notice(fd, PROTO_NOTICE_VERSION, NOTICE_STATIC, (uint32_t)getpid(), sizeof(good),
			good, sizeof(good)) < 0 || closed(fd)) {
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

/* Notices about other processes than ours: refused, the connection kept. */
static int forge(void)
{
	static const char *const what[] = {
		"/shmtrace/forged-1", "/shmtrace/forged-parent", "/shmtrace/forged-uid",
		"/shmtrace/child", "/shmtrace/own",
	};
	uint32_t kind[] = { NOTICE_STATIC, NOTICE_STATIC, NOTICE_UID_CHANGE, NOTICE_STATIC,
			    NOTICE_STATIC };
	uint32_t pid[5];
	int fd = main_conn(), ret = 0;
	pid_t child = fork();
	char line[16];

	if (child < 0)
		return 1;
	if (child == 0) {
		close(fd);
		pause();	/* until killed */
		_exit(0);
	}
	pid[0] = 1;
	pid[1] = (uint32_t)getppid();
	pid[2] = (uint32_t)child;
	pid[3] = (uint32_t)child;
	pid[4] = (uint32_t)getpid();
	for (int i = 0; i < 5; i++)
		if (send_notice(fd, PROTO_NOTICE_VERSION, kind[i], pid[i],
				(uint32_t)strlen(what[i]) + 1, what[i], strlen(what[i]) + 1) < 0)
			ret = 1;
	printf("own %d child %d\n", (int)getpid(), (int)child);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	if (ret || closed(fd)) {
		fprintf(stderr, "notice-client: the daemon closed the connection\n");
		ret = 1;
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fd);
	return ret;
}

static int app_conn(void)
{
	int fd = home_app_connect(home, SOCK_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "notice-client: application socket: %s\n", strerror(-fd));
		exit(2);
	}
	return fd;
}

static int app_cmd(void)
{
	char body[sizeof(struct msg_cmd)], buf[PROTO_MAX_MSG];
	struct msg_cmd c;
	struct pollfd pfd;
	struct proto_hdr h;
	int fd = app_conn();
	ssize_t n;

	memset(&c, 0, sizeof(c));
	c.verb = VERB_STATUS;
	memcpy(body, &c, sizeof(c));
	if (proto_send(fd, MSG_CMD, 0, body, sizeof(body), NULL, 0) < 0)
		return 0;	/* closed already */
	for (;;) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 3000) <= 0)
			return 1;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return 0;
		if ((size_t)n < sizeof(h))
			return 1;
		memcpy(&h, buf, sizeof(h));
		if (h.type == MSG_REPLY_ITEM && (size_t)n >= sizeof(h) + sizeof(struct msg_item)) {
			struct msg_item it;

			memcpy(&it, buf + sizeof(h), sizeof(it));
			if (it.kind == REC_ERROR)
				continue;	/* why it is refused: the final reply follows */
			fprintf(stderr, "notice-client: the command was answered: a record of "
				"kind %u\n", it.kind);
			return 1;
		}
		return !(h.type == MSG_REPLY && h.status < 0);
	}
}

static int app_register(void)
{
	int fd = app_conn();

	if (register_on(fd) < 0)
		return 1;
	return closed(fd);
}

static int app_inject(void)
{
	const struct shm_ctl_page *c;
	struct msg_segment m;
	uint64_t id = 0;
	int fd = app_conn(), visible = 0;
	unsigned int seen = SHM_MAX_CHAN;

	if (register_on(fd) < 0)
		return 1;
	c = mmap(NULL, SHM_CTL_SIZE, PROT_READ, MAP_SHARED, ctl_fd, 0);
	if (c == MAP_FAILED)
		return 1;
	for (int tries = 0; tries < 200 && !visible; tries++) {
		usleep(10000);
		for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
			uint64_t cid = __atomic_load_n(&c->chan[i].chan_id, __ATOMIC_ACQUIRE);

			if (cid) {
				visible++;
				id = cid;
				seen = i;
			}
		}
	}
	printf("visible %d\n", visible);
	fflush(stdout);
	for (unsigned int k = 0; id && k < SHM_MAX_CHAN; k++) {
		if (k == seen)
			continue;
		for (uint64_t cid = id > 16 ? id - 16 : 1; cid <= id + 16; cid++) {
			size_t size = SHM_PAGE + shm_slot_hdr_size(2) + 2 * 4096;
			int seg = memfd(size);

			memset(&m, 0, sizeof(m));
			m.chan_id = cid;
			m.size = size;
			m.chan_slot = k;
			m.nslots = 1;
			m.subbuf_size = 4096;
			m.num_subbuf = 2;
			if (proto_send(fd, MSG_APP_SEGMENT, 0, &m, sizeof(m), &seg, 1) < 0)
				return 1;
			close(seg);
		}
	}
	/* the daemon read them all when it answers a sync */
	{
		struct msg_sync sync = { .seq = 77 };
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char buf[64];

		if (proto_send(fd, MSG_APP_SYNC, 0, &sync, sizeof(sync), NULL, 0) < 0 ||
		    poll(&pfd, 1, 5000) <= 0 || recv(fd, buf, sizeof(buf), 0) <= 0)
			return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2 || home_resolve(home, sizeof(home)) < 0) {
		fprintf(stderr, "usage: notice-client notices|forge|app-cmd|app-register|app-inject\n");
		return 2;
	}
	if (!strcmp(argv[1], "notices"))
		return notices();
	if (!strcmp(argv[1], "forge"))
		return forge();
	if (!strcmp(argv[1], "app-cmd"))
		return app_cmd();
	if (!strcmp(argv[1], "app-register"))
		return app_register();
	if (!strcmp(argv[1], "app-inject"))
		return app_inject();
	fprintf(stderr, "usage: notice-client notices|forge|app-cmd|app-register|app-inject\n");
	return 2;
}
