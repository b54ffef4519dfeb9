// SPDX-License-Identifier: MIT
/*
 * track.c - which processes a session records: tracectl track and
 * untrack, by pid, uid and executable (as lttng's process attribute
 * trackers, with the executable besides).
 *
 * Invariants:
 * - Per kind, a session records every process (the default), or those
 *   whose attribute is in the kind's set, which may be empty (then none);
 *   a process is recorded when every kind takes it (the kinds are and-ed,
 *   as lttng's trackers), on top of the uids the session allows
 *   (allow.c).
 * - It is decided by the session daemon, per process and session, when it
 *   writes the process's control page (ctlpage.c): at registration, and
 *   again for every process when the tracking changes. A process that a
 *   session does not take has none of its events enabled in the session's
 *   channels nor aggregations; nothing is decided per event.
 * - The attributes are those the process registered with: its pid and uid
 *   as the session daemon sees them (SO_PEERCRED), its executable as
 *   /proc/PID/exe said then (an exec makes a new registration).
 * - A change is all or nothing: a command that fails changes nothing.
 *
 * State: none of its own (the tracking is its session's, saved with it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "track.h"
#include "client.h"
#include "common/glob.h"
#include "support/protomsg.h"

static const char *const kind_names[] = { "", "pid", "uid", "exe" };

static int in_set(const uint32_t *v, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

int track_takes(const struct session *s, pid_t pid, uid_t uid, const char *exe)
{
	const struct tracking *t = &s->track;
	int found = 0;

	if (!exe)
		exe = "";
	if ((t->some & CMD_TRACK_BIT(PROTO_TRACK_PID)) && !in_set(t->pid, t->npid, (uint32_t)pid))
		return 0;
	if ((t->some & CMD_TRACK_BIT(PROTO_TRACK_UID)) && !in_set(t->uid, t->nuid, (uint32_t)uid))
		return 0;
	if (!(t->some & CMD_TRACK_BIT(PROTO_TRACK_EXE)))
		return 1;
	for (uint32_t i = 0; i < t->nexe && !found; i++)
		found = glob_match(t->exe[i], exe);
	return found;
}

/* @x into set @v (@n values, at most PROTO_TRACK_MAX): 0, or -ENOSPC. */
static int set_add(uint32_t *v, uint32_t *n, uint32_t x)
{
	if (in_set(v, *n, x))
		return 0;
	if (*n == PROTO_TRACK_MAX)
		return -ENOSPC;
	v[(*n)++] = x;
	return 0;
}

/* @x out of set @v: 0, or -ENOENT when it was not in it. */
static int set_del(uint32_t *v, uint32_t *n, uint32_t x)
{
	for (uint32_t i = 0; i < *n; i++) {
		if (v[i] == x) {
			v[i] = v[--(*n)];
			return 0;
		}
	}
	return -ENOENT;
}

/* Kind @kind of @t made a set (empty) when it was every process; @add: to add to it. */
static int set_of(struct reply *r, const struct session *s, struct tracking *t, uint32_t kind,
		  int add)
{
	if (t->some & CMD_TRACK_BIT(kind))
		return 0;
	if (!add)	/* nothing to take a value out of */
		return reply_fail(r, -EINVAL, RE_TRACK_ALL, .session = s->name,
				  .name = kind_names[kind]);
	t->some |= CMD_TRACK_BIT(kind);
	if (kind == PROTO_TRACK_PID)
		t->npid = 0;
	else if (kind == PROTO_TRACK_UID)
		t->nuid = 0;
	else
		t->nexe = 0;
	return 0;
}

/* A pid or uid @x of @kind added to or taken out of @t. */
static int change_id(struct reply *r, const struct session *s, struct tracking *t, uint32_t kind,
		     uint32_t x, int add)
{
	uint32_t *v = kind == PROTO_TRACK_PID ? t->pid : t->uid;
	uint32_t *n = kind == PROTO_TRACK_PID ? &t->npid : &t->nuid;
	char text[16];
	int ret;

	if (kind == PROTO_TRACK_PID && (!x || x > PROTO_PID_MAX))
		return reply_fail(r, -EINVAL, RE_RANGE, .name = "pid",
				  .n = { x, 1, PROTO_PID_MAX });
	if (kind == PROTO_TRACK_UID && x == UINT32_MAX)
		return reply_fail(r, -EINVAL, RE_RANGE, .name = "uid",
				  .n = { x, 0, UINT32_MAX - 1 });
	ret = set_of(r, s, t, kind, add);
	if (ret < 0)
		return ret;
	ret = add ? set_add(v, n, x) : set_del(v, n, x);
	snprintf(text, sizeof(text), "%u", x);
	if (ret == -ENOSPC)
		return reply_fail(r, -EINVAL, RE_RANGE, .name = kind == PROTO_TRACK_PID ?
				  "tracked pids" : "tracked uids",
				  .n = { PROTO_TRACK_MAX + 1u, 0, PROTO_TRACK_MAX });
	if (ret < 0)
		return reply_fail(r, -ENOENT, RE_NOT_TRACKED, .session = s->name, .name = text,
				  .name2 = kind_names[kind]);
	return 0;
}

/* An executable glob @g added to or taken out of @t. */
static int change_exe(struct reply *r, const struct session *s, struct tracking *t,
		      const char *g, int add)
{
	uint32_t i;
	int ret;

	if (!g[0] || strlen(g) >= PROTO_TRACK_EXE_LEN)
		return reply_fail(r, -EINVAL, RE_BAD_PATTERN, .name = g);
	ret = set_of(r, s, t, PROTO_TRACK_EXE, add);
	if (ret < 0)
		return ret;
	for (i = 0; i < t->nexe && strcmp(t->exe[i], g); i++)
		;
	if (add && i == t->nexe) {
		if (t->nexe == PROTO_TRACK_EXE_MAX)
			return reply_fail(r, -EINVAL, RE_RANGE, .name = "tracked executables",
					  .n = { PROTO_TRACK_EXE_MAX + 1u, 0,
						 PROTO_TRACK_EXE_MAX });
		snprintf(t->exe[t->nexe++], PROTO_TRACK_EXE_LEN, "%s", g);
	} else if (!add && i == t->nexe) {
		return reply_fail(r, -ENOENT, RE_NOT_TRACKED, .session = s->name, .name = g,
				  .name2 = "exe");
	} else if (!add && i != --t->nexe) {
		memcpy(t->exe[i], t->exe[t->nexe], PROTO_TRACK_EXE_LEN);
	}
	return 0;
}

int track_change(struct reply *r, struct session *s, const struct cmd_track *c,
		 const char *const *exe, uint32_t nexe, int add)
{
	struct tracking t = s->track;
	int ret = 0;

	/* "all" first: track: every process of the kind; untrack: none */
	for (uint32_t k = PROTO_TRACK_PID; k <= PROTO_TRACK_EXE; k++) {
		if (!(c->all & CMD_TRACK_BIT(k)))
			continue;
		t.some &= ~CMD_TRACK_BIT(k);
		if (!add)
			set_of(r, s, &t, k, 1);		/* an empty set */
	}
	for (uint32_t i = 0; i < c->npid && !ret; i++)
		ret = change_id(r, s, &t, PROTO_TRACK_PID, c->pid[i], add);
	for (uint32_t i = 0; i < c->nuid && !ret; i++)
		ret = change_id(r, s, &t, PROTO_TRACK_UID, c->uid[i], add);
	for (uint32_t i = 0; i < nexe && !ret; i++)
		ret = change_exe(r, s, &t, exe[i], add);
	if (ret < 0)
		return ret;
	/* a kind back to every process forgets its set */
	if (!(t.some & CMD_TRACK_BIT(PROTO_TRACK_PID)))
		t.npid = 0;
	if (!(t.some & CMD_TRACK_BIT(PROTO_TRACK_UID)))
		t.nuid = 0;
	if (!(t.some & CMD_TRACK_BIT(PROTO_TRACK_EXE)))
		t.nexe = 0;
	s->track = t;
	return 0;
}

void track_record(const struct session *s, uint32_t kind, struct rec_track *rt)
{
	const struct tracking *t = &s->track;

	memset(rt, 0, sizeof(*rt));
	snprintf(rt->session, sizeof(rt->session), "%s", s->name);
	rt->kind = kind;
	if (!(t->some & CMD_TRACK_BIT(kind))) {
		rt->flags = REC_TRACK_ALL;
		return;
	}
	if (kind == PROTO_TRACK_PID) {
		rt->n = t->npid;
		memcpy(rt->value, t->pid, t->npid * sizeof(t->pid[0]));
	} else if (kind == PROTO_TRACK_UID) {
		rt->n = t->nuid;
		memcpy(rt->value, t->uid, t->nuid * sizeof(t->uid[0]));
	} else {
		rt->n = t->nexe;
		for (uint32_t i = 0; i < t->nexe; i++)
			snprintf(rt->exe[i], sizeof(rt->exe[i]), "%s", t->exe[i]);
	}
}

int track_valid(const struct tracking *t)
{
	if ((t->some & ~CMD_TRACK_KINDS) || t->npid > PROTO_TRACK_MAX ||
	    t->nuid > PROTO_TRACK_MAX || t->nexe > PROTO_TRACK_EXE_MAX)
		return 0;
	for (uint32_t i = 0; i < t->npid; i++)
		if (!t->pid[i] || t->pid[i] > PROTO_PID_MAX)
			return 0;
	for (uint32_t i = 0; i < t->nuid; i++)
		if (t->uid[i] == UINT32_MAX)
			return 0;
	for (uint32_t i = 0; i < t->nexe; i++)
		if (!t->exe[i][0] || !memchr(t->exe[i], 0, PROTO_TRACK_EXE_LEN))
			return 0;
	return 1;
}
