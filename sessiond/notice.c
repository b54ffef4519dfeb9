/* SPDX-License-Identifier: MIT */
/*
 * notice.c - why processes were not traced, as traced processes tell
 * (MSG_APP_NOTICE), kept by the sessions, and their records for the
 * replies (tracectl and the log say them in the words of
 * support/noticetext.c).
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
 *    cannot be checked, and is kept (one being reaped at that very moment
 *    shows no parent in /proc for a few microseconds: it is read again
 *    until it is gone); a process that exists and is neither the sender
 *    nor its child cannot be named.
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
#include <time.h>
#include <unistd.h>
#include "notice.h"
#include "allow.h"
#include "app.h"
#include "session.h"
#include "support/log.h"
#include "support/noticetext.h"
#include "support/protomsg.h"

static uint64_t notices_refused;	/* by this daemon: how often to log */

/* @n as kept by @s, for a reply (and, in words, for the log). */
void notice_record(const struct session *s, const struct notice *n, struct rec_notice *rn)
{
	memset(rn, 0, sizeof(*rn));
	snprintf(rn->session, sizeof(rn->session), "%s", s ? s->name : "");
	rn->kind = n->kind;
	rn->pid = n->pid;
	rn->uid = n->uid;
	rn->old_uid = n->old_uid;
	rn->daemon_uid = (uint32_t)geteuid();
	rn->count = n->count;
	snprintf(rn->path, sizeof(rn->path), "%s", n->path);
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
 * The parent of process @pid, from /proc/PID/stat, read once; -ESRCH when
 * there is no such process (any more), 0 when it cannot be read or has no
 * parent to show.
 */
static pid_t proc_ppid_once(pid_t pid)
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

/*
 * proc_ppid_once(), read again a few times (50 us apart, 150 us at most)
 * while it shows no parent: a process being reaped shows parent 0 in the
 * moment between its release and its /proc entry's removal, and is gone
 * right after. Processes that have no parent (1, the kernel's threads)
 * keep showing 0.
 */
static pid_t proc_ppid(pid_t pid)
{
	struct timespec ts = { 0, 50000 };
	pid_t ppid = proc_ppid_once(pid);

	for (int i = 0; i < 3 && ppid == 0; i++) {
		nanosleep(&ts, NULL);
		ppid = proc_ppid_once(pid);
	}
	return ppid;
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
	struct rec_notice rn;
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
		shown.count = 1;
		shown.path = path;
		notice_record(NULL, &shown, &rn);
		notice_words(&rn, text, sizeof(text));
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
