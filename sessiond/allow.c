/* SPDX-License-Identifier: MIT */
/*
 * allow.c - processes of other uids, for a session daemon running as root
 * whose sessions allow them (tracectl create --allow-uid UID,...|all).
 *
 * Such processes cannot enter SHMTRACE_HOME (0700) and the main socket
 * refuses their uid; they register on the application socket instead, an
 * abstract AF_UNIX address derived from the home (home.h), open only while
 * a session allows another uid. Invariants:
 * - Nothing of another uid is accepted unless a session allows that uid:
 *   a connection's SO_PEERCRED uid is checked against the sessions' allowed
 *   sets before anything is read, and the socket does not exist while no
 *   session allows another uid.
 * - The application socket serves traced processes only: a connection's
 *   first message must be MSG_APP_REGISTER, handled as on the main socket
 *   (app_accept); a command is refused and the connection closed. Later
 *   messages are traced processes' (app_message). The home, the control
 *   socket, the pid files and the traces stay private.
 * - A process of another uid is traced only by the channels of sessions
 *   that allow its uid (allow_chan_mask(), applied to its control page),
 *   and only those sessions keep its notices.
 * - Only root may allow: the library trusts an application socket only
 *   when its listener is root (home_app_connect()).
 * This file is the policy (who may register, which channels record whom);
 * the application socket itself, open exactly while allow_others(), is
 * app.c's. State: none of its own (the allowed uids are the sessions').
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "allow.h"
#include "client.h"
#include "session.h"

/* Does @s trace processes of @uid? Ours always. */
int allow_uid(const struct session *s, uid_t uid)
{
	if (uid == geteuid() || s->allow_all)
		return 1;
	for (unsigned int i = 0; i < s->nallow; i++)
		if (s->allow[i] == uid)
			return 1;
	return 0;
}

int allow_any(uid_t uid)
{
	for (const struct session *s = ss.list; s; s = s->next)
		if (allow_uid(s, uid))
			return 1;
	return 0;
}

/* The channel slots that may record events of a process of @uid. */
unsigned int allow_chan_mask(uid_t uid)
{
	unsigned int m = 0;

	if (uid == geteuid())
		return ~0u;
	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++)
		if (ss.chan[i] && allow_uid(ss.chan[i]->session, uid))
			m |= 1u << i;
	return m;
}

/* Does a session allow processes of another uid than ours? */
int allow_others(void)
{
	for (const struct session *s = ss.list; s; s = s->next)
		if (s->allow_all || s->nallow)
			return 1;
	return 0;
}

/*
 * create's allowed uids (tracectl turns names into numbers). Returns < 0
 * when refused, the failure in @r; the caller opens the application socket.
 */
int allow_create(struct reply *r, struct session *s, const struct cmd_create *c)
{
	if (!c->allow_all && !c->nallow)
		return 0;
	if (geteuid() != 0)
		return reply_fail(r, -EPERM, RE_ALLOW_ROOT, .n = { geteuid() });
	_Static_assert(PROTO_ALLOW_MAX <= SESSION_MAX_ALLOW, "allowed uids");
	s->allow_all = c->allow_all != 0;
	for (uint32_t i = 0; i < c->nallow; i++) {
		if (c->allow[i] == UINT32_MAX)
			return reply_fail(r, -EINVAL, RE_ALLOW_UID, .n = { c->allow[i] });
		s->allow[s->nallow++] = (uid_t)c->allow[i];
	}
	return 0;
}

/* For a session's record: the uids it allows besides ours. */
void allow_record(const struct session *s, struct rec_session *rs)
{
	_Static_assert(SESSION_MAX_ALLOW <= PROTO_ALLOW_MAX, "allowed uids in a record");
	if (s->allow_all)
		rs->flags |= REC_SESSION_ALLOW_ALL;
	rs->nallow = s->nallow;
	for (unsigned int i = 0; i < s->nallow; i++)
		rs->allow[i] = (uint32_t)s->allow[i];
}
