/* SPDX-License-Identifier: MIT */
/*
 * test-relay.c - unit tests of support/relay.c: relay addresses, the
 * encoding of every message at its documented offsets (big endian), and
 * the bounded exchanges against a peer that answers, answers wrong, or
 * says nothing.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/relay.h"

START_TEST(test_url)
{
	struct rly_url u;
	char host[64];
	uint16_t port;

	ck_assert_int_eq(rly_url_parse("net://relay.example", &u), 0);
	ck_assert_str_eq(u.host, "relay.example");
	ck_assert_uint_eq(u.ctrl, 5342);
	ck_assert_uint_eq(u.data, 5343);
	ck_assert_int_eq(rly_url_parse("net://10.0.0.1:6000", &u), 0);
	ck_assert_uint_eq(u.ctrl, 6000);
	ck_assert_uint_eq(u.data, 5343);
	ck_assert_int_eq(rly_url_parse("net://h:1:2/", &u), 0);
	ck_assert_uint_eq(u.ctrl, 1);
	ck_assert_uint_eq(u.data, 2);
	ck_assert_int_eq(rly_url_parse("net6://[::1]:7:8", &u), 0);
	ck_assert_str_eq(u.host, "::1");
	ck_assert_uint_eq(u.data, 8);
	/* refused */
	ck_assert_int_eq(rly_url_parse("tcp://h:1", &u), -EINVAL);	/* one port only */
	ck_assert_int_eq(rly_url_parse("net://", &u), -EINVAL);
	ck_assert_int_eq(rly_url_parse("net://h:0", &u), -EINVAL);
	ck_assert_int_eq(rly_url_parse("net://h:65536", &u), -EINVAL);
	ck_assert_int_eq(rly_url_parse("net://h:1:2:3", &u), -EINVAL);
	ck_assert_int_eq(rly_url_parse("net://h/path", &u), -EINVAL);
	ck_assert_int_eq(rly_url_parse("net://[::1", &u), -EINVAL);
	ck_assert_int_eq(rly_url_parse("file:///tmp", &u), -EINVAL);

	ck_assert_int_eq(rly_url_one("tcp://h:99", host, sizeof(host), &port), 0);
	ck_assert_str_eq(host, "h");
	ck_assert_uint_eq(port, 99);
	ck_assert_int_eq(rly_url_one("tcp://h", host, sizeof(host), &port), -EINVAL);
	ck_assert_int_eq(rly_url_one("tcp://h:1:2", host, sizeof(host), &port), -EINVAL);
}
END_TEST

START_TEST(test_encoding)
{
	static uint8_t b[RLY_HDR + RLY_ADD_STREAM_BODY];
	struct rly_index ix = {
		.handle = 7, .net_seq = 8, .packet_bytes = 100, .content_bytes = 90,
		.ts_begin = 1, .ts_end = 2, .discarded = 3, .stream_id = 4, .instance_id = 5,
		.packet_seq = 6,
	};
	char longpath[300];

	rly_hdr(b, RLY_CLOSE_STREAM, 0x0102030405060708ull);
	ck_assert_uint_eq(rly_get64(b), 0);
	ck_assert_uint_eq(b[8], 1);
	ck_assert_uint_eq(b[15], 8);
	ck_assert_uint_eq(rly_get32(b + 16), RLY_CLOSE_STREAM);
	ck_assert_uint_eq(rly_get32(b + 20), 0);

	rly_data_hdr(b, 9, 10, 11);
	ck_assert_uint_eq(rly_get64(b + 8), 9);
	ck_assert_uint_eq(rly_get64(b + 16), 10);
	ck_assert_uint_eq(rly_get32(b + 24), 11);
	ck_assert_uint_eq(rly_get32(b + 28), 0);

	rly_index(b, &ix);
	ck_assert_uint_eq(rly_get64(b + 8), RLY_INDEX_BODY);
	ck_assert_uint_eq(rly_get32(b + 16), RLY_SEND_INDEX);
	ck_assert_uint_eq(rly_get64(b + RLY_HDR), 7);
	ck_assert_uint_eq(rly_get64(b + RLY_HDR + 16), 800);	/* bits */
	ck_assert_uint_eq(rly_get64(b + RLY_HDR + 24), 720);
	ck_assert_uint_eq(rly_get64(b + RLY_HDR + 72), 6);

	rly_pair(b, RLY_DATA_PENDING, 12, UINT64_MAX);
	ck_assert_uint_eq(rly_get64(b + 8), RLY_PAIR_BODY);
	ck_assert_uint_eq(rly_get64(b + RLY_HDR), 12);
	ck_assert_uint_eq(rly_get64(b + RLY_HDR + 8), UINT64_MAX);

	ck_assert_int_eq(rly_add_stream(b, "channel0_3", "host/s-1/app-12"), 0);
	ck_assert_uint_eq(rly_get64(b + 8), RLY_ADD_STREAM_BODY);
	ck_assert_str_eq((char *)b + RLY_HDR, "channel0_3");
	ck_assert_str_eq((char *)b + RLY_HDR + RLY_CHAN_NAME, "host/s-1/app-12");
	ck_assert_uint_eq(rly_get64(b + RLY_HDR + RLY_CHAN_NAME + RLY_PATH), 0);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = 0;
	ck_assert_int_eq(rly_add_stream(b, "c", longpath), -ENAMETOOLONG);
}
END_TEST

/* A peer on a socket pair: reads @in bytes, then writes @out (or nothing). */
static pid_t peer(int fd, size_t in, const uint8_t *out, size_t outlen)
{
	pid_t pid = fork();

	if (pid == 0) {
		static uint8_t buf[4096];
		size_t got = 0;
		ssize_t n;

		while (got < in && (n = read(fd, buf, sizeof(buf))) > 0)
			got += (size_t)n;
		if (outlen)
			(void)!write(fd, out, outlen);
		pause();
		_exit(0);
	}
	return pid;
}

static void peer_end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

START_TEST(test_exchanges)
{
	uint8_t ok[12], bad[12], version[8];
	uint64_t id = 0;
	int sv[2];
	pid_t p;

	rly_put32(version, 2);
	rly_put32(version + 4, 13);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	p = peer(sv[1], RLY_HDR + 8, version, sizeof(version));
	ck_assert_int_eq(rly_handshake(sv[0], 2000), 0);
	peer_end(p);

	rly_put32(version, 3);
	p = peer(sv[1], RLY_HDR + 8, version, sizeof(version));
	ck_assert_int_eq(rly_handshake(sv[0], 2000), -EPROTONOSUPPORT);
	peer_end(p);

	rly_put64(ok, 42);
	rly_put32(ok + 8, RLY_OK);
	p = peer(sv[1], RLY_HDR + RLY_CREATE_BODY, ok, sizeof(ok));
	ck_assert_int_eq(rly_create_session(sv[0], "s", "host", 0, &id, 2000), 0);
	ck_assert_uint_eq(id, 42);
	peer_end(p);

	rly_put64(bad, 1);
	rly_put32(bad + 8, 1);
	p = peer(sv[1], RLY_HDR + RLY_CREATE_BODY, bad, sizeof(bad));
	ck_assert_int_eq(rly_create_session(sv[0], "s", "host", 0, &id, 2000), -EREMOTEIO);
	peer_end(p);

	/* a peer that never answers: the deadline holds */
	p = peer(sv[1], RLY_HDR + 8, NULL, 0);
	ck_assert_int_eq(rly_handshake(sv[0], 200), -ETIMEDOUT);
	peer_end(p);
	close(sv[1]);
	/* the peer gone */
	ck_assert_int_lt(rly_handshake(sv[0], 200), 0);
	close(sv[0]);

	/* nothing listening */
	{
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct sockaddr_in sin = { .sin_family = AF_INET };
		uint16_t port;

		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
		ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&ss, &sl), 0);
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		close(fd);	/* bound, never listening, then released */
		ck_assert_int_eq(rly_connect("127.0.0.1", port, 1000), -ECONNREFUSED);
	}
}
END_TEST

static Suite *relay_suite(void)
{
	Suite *s = suite_create("relay");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_url);
	tcase_add_test(tc, test_encoding);
	tcase_add_test(tc, test_exchanges);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(relay_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
