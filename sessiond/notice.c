/* SPDX-License-Identifier: MIT */
/*
 * notice.c - why processes were not traced, as traced processes tell
 * (MSG_APP_NOTICE), and the list of traced processes tracectl record asks
 * for.
 *
 * A notice is checked whole before anything is kept
 * (proto_notice_decode(): version, kind, pid range, the path's length
 * against the message's and its single NUL at the end); a malformed one
 * closes the process's connection, as any malformed message does.
 * Control characters of the path are replaced before it is kept, logged
 * or shown.
 *
 * A notice is kept only when it is about the sender's own process
 * (notice_own()), so that no client can make status name another process:
 *  - a uid change is the process's own: the pid it names is the sender's
 *    (the pid of its connection, checked at registration);
 *  - a program about to be run is run by the sender (the exec family;
 *    posix_spawn, whose notice names the caller, the child's pid not known
 *    yet), or by a child of the sender that shares its memory and socket
 *    (vfork): /proc shows the sender as its parent. Such a child often
 *    runs its program to the end and is reaped before the notice is read
 *    (a static program that exits at once): a pid that no longer exists
 *    cannot be checked, and is kept; a process that exists and is neither
 *    the sender nor its child cannot be named.
 * Any other is refused: logged (the first ones, then every power of two),
 * counted in every session that would have kept it (status shows the
 * count), and the connection stays open (it is not malformed).
 *
 * Every session active when the notice arrives and tracing the sender's
 * uid keeps it, unless it is about a uid that reaches this daemon anyway
 * (its own, or one the session allows). A session keeps at most
 * SESSION_MAX_NOTICES distinct notices (kind, uid, path), counting
 * repeats, and counts the ones beyond.
 *
 * State: the notices are their sessions'; this file keeps only how many
 * it refused (for its log). They are not saved: a resumed session has
 * lost them (the processes send each once).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "notice.h"
#include "allow.h"
#include "app.h"
#include "client.h"
#include "session.h"
#include "log.h"

static uint64_t notices_refused;	/* by this daemon: how often to log */

#define DROPS "the loader drops LD_PRELOAD"

static void notice_text(const struct notice *n, char *buf, size_t len)
{
	char times[48] = "", hint[96] = "", why[256];
	unsigned int me = (unsigned int)geteuid();

	if (n->count > 1)
		snprintf(times, sizeof(times), " (%" PRIu64 " times)", n->count);
	if (me == 0)
		snprintf(hint, sizeof(hint), "; a session created with --allow-uid %u traces them",
			 n->uid);
	if (n->kind == NOTICE_UID_CHANGE) {
		snprintf(buf, len, "pid %u (%s) changed its uid from %u to %u: the processes it "
			 "starts and the programs it runs cannot reach this session daemon "
			 "(uid %u) and are not traced%s%s", n->pid, n->path, n->old_uid, n->uid,
			 me, hint, times);
		return;
	}
	switch (n->kind) {
	case NOTICE_STATIC:
		snprintf(why, sizeof(why), "statically linked, it cannot load libshmtrace");
		break;
	case NOTICE_FOREIGN:
		snprintf(why, sizeof(why), "not an x86-64 program, libshmtrace cannot load in it");
		break;
	case NOTICE_SETUID:
		snprintf(why, sizeof(why), "set-user-ID program (runs as uid %u), " DROPS, n->uid);
		break;
	case NOTICE_SETGID:
		snprintf(why, sizeof(why), "set-group-ID program, " DROPS);
		break;
	case NOTICE_CAPS:
		snprintf(why, sizeof(why), "program with file capabilities, " DROPS);
		break;
	case NOTICE_IDS:
		snprintf(why, sizeof(why), "the process's effective uid or gid is not its "
			 "real one, " DROPS);
		break;
	case NOTICE_NO_PRELOAD:
		snprintf(why, sizeof(why), "its environment has no libshmtrace in LD_PRELOAD");
		break;
	case NOTICE_EXEC_UID:
		snprintf(why, sizeof(why), "it runs as uid %u, which cannot reach this session "
			 "daemon (uid %u)%s", n->uid, me, hint);
		break;
	default:
		snprintf(why, sizeof(why), "notice of kind %u", n->kind);
		break;
	}
	snprintf(buf, len, "pid %u exec %s: not traced: %s%s", n->pid, n->path, why, times);
}

static void notice_add(struct session *s, const struct msg_app_notice *m, const char *path)
{
	struct notice **pp, *n;

	for (pp = &s->notices; *pp; pp = &(*pp)->next) {
		n = *pp;
		if (n->kind == m->kind && n->uid == m->uid && !strcmp(n->path, path)) {
			n->count++;
			return;
		}
	}
	n = s->nnotices < SESSION_MAX_NOTICES ? calloc(1, sizeof(*n)) : NULL;
	if (n)
		n->path = strdup(path);
	if (!n || !n->path) {
		free(n);
		s->notices_lost++;
		return;
	}
	n->kind = m->kind;
	n->pid = m->pid;
	n->uid = m->uid;
	n->old_uid = m->old_uid;
	n->count = 1;
	*pp = n;		/* in the order they came */
	s->nnotices++;
}

/*
 * The parent of process @pid, from /proc/PID/stat; -ESRCH when there is no
 * such process (any more), 0 when it cannot be read.
 */
static pid_t proc_ppid(pid_t pid)
{
	char path[64], buf[512], *p;
	long ppid;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0 && errno == ESRCH)
		return -ESRCH;	/* it went meanwhile */
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');	/* the name may hold anything, ')' too */
	if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1 || ppid <= 0 || ppid > INT32_MAX)
		return 0;
	return (pid_t)ppid;
}

/* Is notice @m about the own process of its sender @a? (see the top) */
static bool notice_own(const struct app *a, const struct msg_app_notice *m)
{
	pid_t ppid;

	if ((pid_t)m->pid == a->pid)
		return true;
	if (m->kind == NOTICE_UID_CHANGE)
		return false;	/* a process changes its own uid */
	/* a program run by a vfork child of the sender, on its socket */
	ppid = proc_ppid((pid_t)m->pid);
	return ppid == a->pid || ppid == -ESRCH;
}

/* MSG_APP_NOTICE from @a: 0, or -EPROTO (malformed: the connection closes). */
int app_notice(struct app *a, const char *body, size_t len)
{
	struct msg_app_notice m;
	const char *raw;
	char path[PROTO_PATH_MAX], text[PROTO_PATH_MAX + 512];
	struct notice shown;
	int kept = 0;

	if (proto_notice_decode(body, len, &m, &raw) < 0) {
		log_warn("%s[%d]: malformed notice, closing", a->procname, (int)a->pid);
		return -EPROTO;
	}
	for (uint32_t i = 0; i < m.path_len; i++)
		path[i] = (unsigned char)raw[i] < 32 && raw[i] ? '?' : raw[i] == 127 ? '?' : raw[i];
	if (!notice_own(a, &m)) {
		for (struct session *s = ss.list; s; s = s->next)
			if (s->active && allow_uid(s, a->uid))
				s->notices_refused++;
		notices_refused++;
		if (notices_refused <= 8 || !(notices_refused & (notices_refused - 1)))
			log_warn("%s[%d]: notice about pid %u refused: not its own process "
				 "(%s; %" PRIu64 " refused so far)", a->procname, (int)a->pid,
				 m.pid, path, notices_refused);
		return 0;
	}
	for (struct session *s = ss.list; s; s = s->next) {
		if (!s->active || !allow_uid(s, a->uid))
			continue;	/* it does not trace the sender */
		if ((m.kind == NOTICE_UID_CHANGE || m.kind == NOTICE_EXEC_UID) &&
		    allow_uid(s, (uid_t)m.uid))
			continue;	/* that uid reaches us */
		notice_add(s, &m, path);
		kept = 1;
	}
	if (kept) {
		memset(&shown, 0, sizeof(shown));
		shown.kind = m.kind;
		shown.pid = m.pid;
		shown.uid = m.uid;
		shown.old_uid = m.old_uid;
		shown.path = path;
		notice_text(&shown, text, sizeof(text));
		log_info("%s[%d]: %s", a->procname, (int)a->pid, text);
	}
	return 0;
}

void notices_free(struct session *s)
{
	while (s->notices) {
		struct notice *n = s->notices;

		s->notices = n->next;
		free(n->path);
		free(n);
	}
	s->nnotices = 0;
}

/* One line per notice, each after @indent. */
static void notices_reply(int fd, const struct session *s, const char *indent)
{
	char text[PROTO_PATH_MAX + 512];

	for (const struct notice *n = s->notices; n; n = n->next) {
		notice_text(n, text, sizeof(text));
		reply_text(fd, "%s%s\n", indent, text);
	}
	if (s->notices_lost)
		reply_text(fd, "%s(%" PRIu64 " more notices not kept)\n", indent, s->notices_lost);
}

/* For tracectl status: the session's notices, when it has any. */
void notices_status(int fd, const struct session *s)
{
	if (s->notices || s->notices_lost) {
		reply_text(fd, "  not traced:\n");
		notices_reply(fd, s, "    ");
	}
	if (s->notices_refused)
		reply_text(fd, "  notices refused: %" PRIu64 " (about another process than "
			   "their sender's)\n", s->notices_refused);
}

/* notices: one line per notice of the session, nothing when none. */
int cmd_notices(int fd, const struct session *s)
{
	notices_reply(fd, s, "");
	return reply_end(fd, 0, NULL);
}
