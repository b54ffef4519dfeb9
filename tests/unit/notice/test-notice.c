/* SPDX-License-Identifier: MIT */
/*
 * test-notice.c - unit tests of sessiond/notice.c, linked alone: the
 * notices a traced process sends (MSG_APP_NOTICE) are checked whole before
 * anything is kept, kept by the sessions that are active and trace the
 * sender (not when the uid they are about reaches the daemon anyway),
 * counted when repeated, at most SESSION_MAX_NOTICES distinct ones per
 * session (the others counted), their control characters replaced, and
 * their records (REC_NOTICE) said one line each, exactly, in the words
 * tracectl and the log share (support/noticetext.c).
 *
 * The rest of the session daemon is the test's: the sessions (ss) and
 * allow_uid() (as allow.c has it).
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/log.h"
#include "allow.h"
#include "app.h"
#include "notice.h"
#include "support/noticetext.h"
#include "session.h"

struct sessions ss;

int allow_uid(const struct session *s, uid_t uid)
{
	if (uid == geteuid() || s->allow_all)
		return 1;
	for (unsigned int i = 0; i < s->nallow; i++)
		if (s->allow[i] == uid)
			return 1;
	return 0;
}

static char reply[1 << 16];

/*
 * The session's notices as tracectl status prints them: its records
 * (notice_record()) in the shared words (support/noticetext.c).
 */
static const char *status_of(const struct session *s)
{
	char text[PROTO_PATH_MAX + 512];
	size_t len = 0;

	reply[0] = 0;
	if (s->notices || s->notices_lost)
		len += (size_t)snprintf(reply + len, sizeof(reply) - len, "  not traced:\n");
	for (const struct notice *n = s->notices; n; n = n->next) {
		struct rec_notice rn;

		notice_record(s, n, &rn);
		ck_assert_str_eq(rn.session, s->name);
		ck_assert_uint_eq(rn.daemon_uid, geteuid());
		notice_words(&rn, text, sizeof(text));
		len += (size_t)snprintf(reply + len, sizeof(reply) - len, "    %s\n", text);
		ck_assert_uint_lt(len, sizeof(reply));
	}
	if (s->notices_lost)
		snprintf(reply + len, sizeof(reply) - len, "    (%" PRIu64 " more notices not kept)\n",
			 s->notices_lost);
	return reply;
}

/* A notice's body: the fixed part, then @path (@plen bytes, NUL included). */
static size_t body(char *buf, uint32_t kind, uint32_t pid, uint32_t uid, uint32_t old_uid,
		   const char *path, size_t plen)
{
	struct msg_app_notice m = {
		.version = PROTO_NOTICE_VERSION, .kind = kind, .pid = pid, .uid = uid,
		.old_uid = old_uid, .path_len = (uint32_t)plen,
	};

	memcpy(buf, &m, sizeof(m));
	memcpy(buf + sizeof(m), path, plen);
	return sizeof(m) + plen;
}

static int send_notice(struct app *a, uint32_t kind, uint32_t pid, uint32_t uid,
		       uint32_t old_uid, const char *path)
{
	char buf[sizeof(struct msg_app_notice) + PROTO_PATH_MAX + 16];

	return app_notice(a, buf, body(buf, kind, pid, uid, old_uid, path, strlen(path) + 1));
}

/*
 * The processes the notices are about do not exist (a notice about a
 * process that is neither its sender nor its child is refused): their
 * pids are above the pid_max of the machines this runs on (32768, or the
 * 4194304 of the largest, which only a machine that made four million
 * processes since it started reaches).
 */
static struct session s1, s2;
static struct app app;

static void setup(void)
{
	memset(&ss, 0, sizeof(ss));
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	memset(&app, 0, sizeof(app));
	strcpy(s1.name, "one");
	strcpy(s2.name, "two");
	s1.active = s2.active = 1;
	s1.next = &s2;
	ss.list = &s1;
	strcpy(app.procname, "prog");
	app.pid = 100;
	app.uid = geteuid();
}

static void teardown(void)
{
	notices_free(&s1);
	notices_free(&s2);
}

/* The hint of a daemon running as root, and its uid */
static char hint[128];
static unsigned int me;

static void set_hint(unsigned int uid)
{
	me = (unsigned int)geteuid();
	hint[0] = 0;
	if (me == 0)
		snprintf(hint, sizeof(hint), "; a session created with --allow-uid %u traces them", uid);
}

START_TEST(test_malformed_refused)
{
	char buf[sizeof(struct msg_app_notice) + PROTO_PATH_MAX + 16];
	char big[PROTO_PATH_MAX + 2];
	size_t n;

	n = body(buf, NOTICE_STATIC, 200, 0, 0, "/bin/x", 7);
	ck_assert_int_eq(app_notice(&app, buf, n - 1), -EPROTO);	/* cut */
	ck_assert_int_eq(app_notice(&app, buf, sizeof(struct msg_app_notice) - 1), -EPROTO);
	n = body(buf, NOTICE_STATIC, 200, 0, 0, "/bin/x\0junk", 12);
	ck_assert_int_eq(app_notice(&app, buf, n), -EPROTO);		/* NUL inside */
	n = body(buf, NOTICE_STATIC, 200, 0, 0, "/bin/xy", 7);	/* no NUL at the end */
	ck_assert_int_eq(app_notice(&app, buf, n), -EPROTO);
	n = body(buf, NOTICE_MAX, 200, 0, 0, "/bin/x", 7);
	ck_assert_int_eq(app_notice(&app, buf, n), -EPROTO);
	n = body(buf, 0, 200, 0, 0, "/bin/x", 7);
	ck_assert_int_eq(app_notice(&app, buf, n), -EPROTO);
	n = body(buf, NOTICE_STATIC, 0, 0, 0, "/bin/x", 7);		/* pid 0 */
	ck_assert_int_eq(app_notice(&app, buf, n), -EPROTO);
	n = body(buf, NOTICE_STATIC, 200, 0, 0, "/bin/x", 7);
	((struct msg_app_notice *)(void *)buf)->version = 2;
	ck_assert_int_eq(app_notice(&app, buf, n), -EPROTO);
	/* a path longer than any kept: refused before it is copied */
	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = 0;
	n = body(buf, NOTICE_STATIC, 200, 0, 0, big, sizeof(big));
	ck_assert_int_eq(app_notice(&app, buf, n), -EPROTO);
	/* the longest: kept whole */
	big[PROTO_PATH_MAX - 1] = 0;
	n = body(buf, NOTICE_STATIC, 200, 0, 0, big, PROTO_PATH_MAX);
	ck_assert_int_eq(app_notice(&app, buf, n), 0);
	ck_assert_uint_eq(s1.nnotices, 1);
	ck_assert_uint_eq(strlen(s1.notices->path), PROTO_PATH_MAX - 1);
	notices_free(&s1);
	notices_free(&s2);
	ck_assert_str_eq(status_of(&s1), "");
}
END_TEST

START_TEST(test_kinds_printed)
{
	char want[4096];

	set_hint(65534);
	ck_assert_int_eq(send_notice(&app, NOTICE_STATIC, 4000201, me, me, "/bin/st"), 0);
	ck_assert_int_eq(send_notice(&app, NOTICE_FOREIGN, 4000202, me, me, "/bin/arm"), 0);
	ck_assert_int_eq(send_notice(&app, NOTICE_SETUID, 4000203, 0, me, "/bin/su"), 0);
	ck_assert_int_eq(send_notice(&app, NOTICE_SETGID, 4000204, me, me, "/bin/sg"), 0);
	ck_assert_int_eq(send_notice(&app, NOTICE_CAPS, 4000205, me, me, "/bin/cap"), 0);
	ck_assert_int_eq(send_notice(&app, NOTICE_IDS, 4000206, me, me, "/bin/ids"), 0);
	ck_assert_int_eq(send_notice(&app, NOTICE_NO_PRELOAD, 4000207, me, me, "/bin/env"), 0);
	ck_assert_int_eq(send_notice(&app, NOTICE_EXEC_UID, 4000208, 65534, me, "/bin/as"), 0);
	ck_assert_int_eq(send_notice(&app, NOTICE_UID_CHANGE, 100, 65534, me, "/bin/drop"), 0);
	snprintf(want, sizeof(want),
		 "  not traced:\n"
		 "    pid 4000201 exec /bin/st: not traced: statically linked, it cannot load libshmtrace\n"
		 "    pid 4000202 exec /bin/arm: not traced: not an x86-64 program, libshmtrace cannot load in it\n"
		 "    pid 4000203 exec /bin/su: not traced: set-user-ID program (runs as uid 0), the loader drops LD_PRELOAD\n"
		 "    pid 4000204 exec /bin/sg: not traced: set-group-ID program, the loader drops LD_PRELOAD\n"
		 "    pid 4000205 exec /bin/cap: not traced: program with file capabilities, the loader drops LD_PRELOAD\n"
		 "    pid 4000206 exec /bin/ids: not traced: the process's effective uid or gid is not its real one, the loader drops LD_PRELOAD\n"
		 "    pid 4000207 exec /bin/env: not traced: its environment has no libshmtrace in LD_PRELOAD\n"
		 "    pid 4000208 exec /bin/as: not traced: it runs as uid 65534, which cannot reach this session daemon (uid %u)%s\n"
		 "    pid 100 (/bin/drop) changed its uid from %u to 65534: the processes it starts and the programs it runs cannot reach this session daemon (uid %u) and are not traced%s\n",
		 me, hint, me, me, hint);
	ck_assert_str_eq(status_of(&s1), want);
	ck_assert_str_eq(status_of(&s2), want);	/* both sessions are active */
}
END_TEST

START_TEST(test_which_sessions_keep_it)
{
	app.uid = 4242;			/* a process of another uid */
	s1.nallow = 1;
	s1.allow[0] = 4242;		/* s1 traces it, s2 does not */
	ck_assert_int_eq(send_notice(&app, NOTICE_STATIC, 4000300, 4242, 4242, "/bin/a"), 0);
	ck_assert_uint_eq(s1.nnotices, 1);
	ck_assert_uint_eq(s2.nnotices, 0);
	/* a change to a uid that s1 allows reaches the daemon: nothing to say */
	ck_assert_int_eq(send_notice(&app, NOTICE_UID_CHANGE, 4000300, 4242, 4242, "/bin/a"), 0);
	ck_assert_int_eq(send_notice(&app, NOTICE_EXEC_UID, 4000300, 4242, 4242, "/bin/a"), 0);
	ck_assert_uint_eq(s1.nnotices, 1);
	/* an inactive session keeps nothing */
	s1.active = 0;
	ck_assert_int_eq(send_notice(&app, NOTICE_STATIC, 4000301, 4242, 4242, "/bin/b"), 0);
	ck_assert_uint_eq(s1.nnotices, 1);
	ck_assert_uint_eq(s2.nnotices, 0);
	/* a session that allows every uid */
	s2.allow_all = 1;
	ck_assert_int_eq(send_notice(&app, NOTICE_STATIC, 4000302, 4242, 4242, "/bin/c"), 0);
	ck_assert_uint_eq(s2.nnotices, 1);
	ck_assert_str_eq(s2.notices->path, "/bin/c");
}
END_TEST

START_TEST(test_repeats_and_limit)
{
	char path[64], want[256];
	const char *st;

	for (int i = 0; i < 3; i++)	/* the same kind, uid and path: counted */
		ck_assert_int_eq(send_notice(&app, NOTICE_STATIC, 4000400 + (uint32_t)i, 0, 0, "/bin/r"), 0);
	ck_assert_uint_eq(s1.nnotices, 1);
	ck_assert_uint_eq(s1.notices->count, 3);
	ck_assert_uint_eq(s1.notices->pid, 4000400);	/* the first one it was about */
	/* another kind or path is another notice */
	ck_assert_int_eq(send_notice(&app, NOTICE_CAPS, 4000403, 0, 0, "/bin/r"), 0);
	ck_assert_uint_eq(s1.nnotices, 2);
	for (int i = 2; i < SESSION_MAX_NOTICES + 5; i++) {
		snprintf(path, sizeof(path), "/bin/p%d", i);
		ck_assert_int_eq(send_notice(&app, NOTICE_STATIC, 4000500, 0, 0, path), 0);
	}
	ck_assert_uint_eq(s1.nnotices, SESSION_MAX_NOTICES);
	ck_assert_uint_eq(s1.notices_lost, 5);
	/* a repeat of one kept is still counted at the limit */
	ck_assert_int_eq(send_notice(&app, NOTICE_STATIC, 4000401, 0, 0, "/bin/r"), 0);
	ck_assert_uint_eq(s1.notices->count, 4);
	ck_assert_uint_eq(s1.notices_lost, 5);
	st = status_of(&s1);
	ck_assert_ptr_nonnull(strstr(st, "    pid 4000400 exec /bin/r: not traced: statically linked, "
				     "it cannot load libshmtrace (4 times)\n"));
	snprintf(want, sizeof(want), "    pid 4000500 exec /bin/p%d: not traced", SESSION_MAX_NOTICES - 1);
	ck_assert_ptr_nonnull(strstr(st, want));
	snprintf(want, sizeof(want), "/bin/p%d:", SESSION_MAX_NOTICES);
	ck_assert_ptr_null(strstr(st, want));
	ck_assert_ptr_nonnull(strstr(st, "    (5 more notices not kept)\n"));
	/* in the order they came */
	ck_assert(strstr(st, "/bin/r: not traced: statically") < strstr(st, "/bin/r: not traced: program"));
	ck_assert(strstr(st, "/bin/p2:") < strstr(st, "/bin/p3:"));
}
END_TEST

START_TEST(test_control_characters)
{
	ck_assert_int_eq(send_notice(&app, NOTICE_STATIC, 4000600, 0, 0, "/bin/a\nb\tc\x1b[31m\x7f"), 0);
	ck_assert_str_eq(s1.notices->path, "/bin/a?b?c?[31m?");
	ck_assert_str_eq(status_of(&s1), "  not traced:\n"
			 "    pid 4000600 exec /bin/a?b?c?[31m?: not traced: statically linked, "
			 "it cannot load libshmtrace\n");
}
END_TEST

static Suite *notice_suite(void)
{
	Suite *s = suite_create("notice");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_malformed_refused);
	tcase_add_test(tc, test_kinds_printed);
	tcase_add_test(tc, test_which_sessions_keep_it);
	tcase_add_test(tc, test_repeats_and_limit);
	tcase_add_test(tc, test_control_characters);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(notice_suite());
	int failed;

	log_init("test-notice", "/dev/null");	/* what notice.c logs is not checked */
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
