// SPDX-License-Identifier: MIT
/*
 * cmd.c - the tracectl commands: one handler per verb of MSG_CMD.
 *
 * Commands arrive as one MSG_CMD per connection, decoded and checked by
 * proto_cmd_decode() (each verb's typed body, common/proto.h). A handler
 * answers with typed records through the reply builder (client.h): the
 * records the verb makes (doc/protocol.md lists them per verb), and on
 * failure reply_fail() with the code and fields of what is wrong, its
 * -errno returned; session_command() ends the reply with that status.
 * Handlers never write to the client, and never put words in a reply:
 * tracectl makes the text. Handlers check every value again: tracectl is
 * not the only client that can connect.
 *
 * A session's output is checked at create by making it and writing a
 * probe in it, as the consumer will, then removing all that: the output
 * appears with the first trace, and a session that never traced leaves
 * nothing. Write errors the consumer meets later make stop, status (and a
 * destroy that stops) fail with the first error's path and errno, after
 * the channel records that hold every counter.
 *
 * State: none of its own; the state is saved after every verb that may
 * change it (state_save()), so that a daemon after us resumes from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "aggcmd.h"
#include "aggdef.h"
#include "allow.h"
#include "app.h"
#include "client.h"
#include "consumer.h"
#include "ctlpage.h"
#include "fdlimit.h"
#include "life.h"
#include "relayctl.h"
#include "notice.h"
#include "session.h"
#include "state.h"
#include "trigger.h"
#include "track.h"
#include "support/ctfmeta.h"
#include "common/home.h"
#include "common/glob.h"
#include "support/log.h"
#include "common/util.h"
#include "support/sysutil.h"
#include "support/protomsg.h"

static const char *cmd_home;

/* A string into a record's array: cut to fit, the rest zeroed. */
#define REC_SET(dst, src)	snprintf((dst), sizeof(dst), "%s", (src))

/* The named session, or the only one when @name is empty; NULL: failed in @r. */
static struct session *session_get(struct reply *r, const char *name)
{
	struct session *s;

	if (name[0]) {
		s = session_by_name(name);
		if (!s)
			reply_fail(r, -ENOENT, RE_NO_SESSION, .session = name);
		return s;
	}
	if (!ss.list) {
		reply_fail(r, -ENOENT, RE_NO_SESSIONS);
		return NULL;
	}
	if (ss.list->next) {
		reply_fail(r, -EINVAL, RE_SEVERAL_SESSIONS);
		return NULL;
	}
	return ss.list;
}

/* Does @s record process @a? (its uid allowed, its tracking taking it) */
static int session_traces(const struct session *s, const struct app *a)
{
	return allow_uid(s, a->uid) && track_takes(s, a->pid, a->uid, a->exe);
}

/* The record of session @s, as it is now. */
static void session_record(const struct session *s, struct rec_session *rs)
{
	long limit = 0;

	memset(rs, 0, sizeof(*rs));
	REC_SET(rs->name, s->name);
	REC_SET(rs->output, s->output);
	rs->flags = (s->active ? REC_SESSION_ACTIVE : 0) | (s->started ? REC_SESSION_STARTED : 0) |
		    (channel_find(s, "channel0") ? REC_SESSION_CHANNEL0 : 0) |
		    (s->output_default ? REC_SESSION_OUTPUT_DEFAULT : 0) |
		    (s->memory ? REC_SESSION_MEMORY : 0);
	rs->mode = s->def_mode;
	rs->pool_size = s->def_pool;
	rs->live_us = s->live_us;
	allow_record(s, rs);
	relayctl_record(s, rs);
	for (const struct app *a = apps_list(); a; a = a->next)
		rs->nprocs += (uint32_t)session_traces(s, a);
	for (const struct channel *ch = s->chans; ch; ch = ch->next)
		rs->nchannels++;
	for (const struct aggregation *ag = s->aggs; ag; ag = ag->next)
		rs->naggs++;
	rs->nnotices = s->nnotices;
	rs->nrotations = s->nrotations;
	rs->nsnapshots = s->nsnapshots;
	rs->rot_bytes = s->rot_bytes;
	rs->rot_ms = s->rot_ms;
	rs->notices_lost = s->notices_lost;
	rs->notices_refused = s->notices_refused;
	rs->fds_refused = fds_refused(&limit);
	rs->fd_limit = limit > 0 ? (uint64_t)limit : 0;
}

static void session_send(struct reply *r, const struct session *s)
{
	struct rec_session rs;

	session_record(s, &rs);
	reply_rec(r, REC_SESSION, &rs, sizeof(rs));
}

/* Which processes @s records: a record per kind of tracking. */
static void tracks_send(struct reply *r, const struct session *s)
{
	static struct rec_track rt;

	for (uint32_t k = PROTO_TRACK_PID; k <= PROTO_TRACK_EXE; k++) {
		track_record(s, k, &rt);
		reply_rec(r, REC_TRACK, &rt, sizeof(rt));
	}
}

/*
 * The record of channel @ch: its settings and, with @stats, the
 * consumer's counters (REC_CHANNEL_STATS), or why they could not be had.
 */
static void channel_record(const struct channel *ch, int stats, struct rec_channel *rc)
{
	memset(rc, 0, sizeof(*rc));
	REC_SET(rc->session, ch->session->name);
	REC_SET(rc->name, ch->name);
	rc->mode = ch->mode;
	rc->subbuf_size = ch->subbuf_size;
	rc->num_subbuf = ch->num_subbuf;
	rc->pool_size = ch->pool_size;
	rc->budget = ch->budget;
	rc->max_buffers = channel_max_buffers(ch);
	rc->flush_ms = ch->flush_ms;
	rc->compress = ch->compress;
	rc->context = ch->context;
	for (const struct enabler *e = ch->enablers; e; e = e->next)
		rc->nenablers++;
	if (ch->disabled)
		rc->flags |= REC_CHANNEL_DISABLED;
	if (ch->session->memory)
		rc->flags |= REC_CHANNEL_MEMORY;
	if (ch->unflushed) {
		rc->flags |= REC_CHANNEL_UNFLUSHED;
		rc->unflushed_events = ch->unflushed_events;
		rc->unflushed_buffers = ch->unflushed_buffers;
	}
	if (stats) {
		struct msg_c_id m = { .id = ch->id };
		int ret = consumer_call(MSG_C_STATS, &m, sizeof(m), NULL, 0, &rc->stats,
					sizeof(rc->stats));

		if (ret < 0) {
			memset(&rc->stats, 0, sizeof(rc->stats));
			rc->stats_err = -ret;
		} else {
			rc->stats.werr_path[sizeof(rc->stats.werr_path) - 1] = 0;
			rc->stats.cleared = ch->cleared;	/* ours: kept in the state */
			rc->flags |= REC_CHANNEL_STATS;
		}
	}
}

/* The record of pattern @e of @ch, with @flags. */
static void enabler_record(const struct channel *ch, const struct enabler *e, uint32_t flags,
			   struct rec_enabler *re)
{
	memset(re, 0, sizeof(*re));
	REC_SET(re->session, ch->session->name);
	REC_SET(re->channel, ch->name);
	REC_SET(re->pattern, e->pattern);
	re->flags = flags;
	re->ll_kind = e->ll_kind;
	re->loglevel = (uint32_t)e->loglevel;
	if (e->filter) {
		size_t len = strlen(e->filter);

		re->flags |= REC_ENABLER_FILTER | (len >= sizeof(re->filter) ? REC_ENABLER_FILTER_CUT : 0);
		re->filter_len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
		REC_SET(re->filter, e->filter);
	}
}

/* The record of pattern @e of @ch, then one per exclusion of it. */
static void enabler_send(struct reply *r, const struct channel *ch, const struct enabler *e,
			 uint32_t flags)
{
	struct rec_enabler re;

	enabler_record(ch, e, flags, &re);
	reply_rec(r, REC_ENABLER, &re, sizeof(re));
	for (uint32_t i = 0; i < e->nexcl; i++) {
		struct rec_exclusion rx;

		memset(&rx, 0, sizeof(rx));
		REC_SET(rx.session, ch->session->name);
		REC_SET(rx.channel, ch->name);
		REC_SET(rx.pattern, e->pattern);
		REC_SET(rx.exclude, e->excl[i]);
		reply_rec(r, REC_EXCLUSION, &rx, sizeof(rx));
	}
}

/*
 * Can traces be written in @dir? Every missing directory is made, then a
 * directory and a file of 4 KiB in it, as the consumer (running as we do)
 * would; then everything made is removed again. Returns 0 or -errno.
 */
static int output_probe(const char *dir)
{
	static const char block[4096];
	char probe[PROTO_PATH_MAX + 64], file[PROTO_PATH_MAX + 80];
	size_t made = 0;
	struct stat sb;
	int ret, pfd;

	ret = mkdir_p_made(dir, 0750, &made);
	if (ret == 0 && stat(dir, &sb) < 0)
		ret = -errno;
	else if (ret == 0 && !S_ISDIR(sb.st_mode))
		ret = -ENOTDIR;
	if (ret < 0)
		goto undo;
	for (int i = 0; i < 100; i++) {
		snprintf(probe, sizeof(probe), "%s/.shmtrace-probe-%d-%d", dir, (int)getpid(), i);
		ret = mkdir(probe, 0750) == 0 ? 0 : -errno;
		if (ret != -EEXIST)
			break;
	}
	if (ret < 0)
		goto undo;
	snprintf(file, sizeof(file), "%s/probe", probe);
	pfd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (pfd < 0) {
		ret = -errno;
	} else {
		ret = write_all(pfd, block, sizeof(block));
		if (close(pfd) < 0 && ret == 0)
			ret = -errno;
		unlink(file);
	}
	rmdir(probe);
undo:
	rmdir_made(dir, made);	/* what we made, deepest first */
	return ret;
}

static int cmd_create(struct reply *r, const char *name, const struct cmd_create *c)
{
	char gen[PROTO_NAME_MAX], stamp[32];
	struct session *s;
	time_t now = time(NULL);
	struct tm tm;
	uint32_t pool = c->pool_size ? c->pool_size : DEFAULT_POOL;
	int ret, net, generated = !name[0];

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (generated) {
		snprintf(gen, sizeof(gen), "auto-%s", stamp);
		name = gen;
	}
	if (!proto_name_ok(name))
		return reply_fail(r, -EINVAL, RE_BAD_NAME, .name = name, .name2 = "session",
				  .n = { PROTO_NAME_MAX - 1 });
	if (session_by_name(name))
		return reply_fail(r, -EEXIST, RE_SESSION_EXISTS, .session = name);
	if (pool > SHM_MAX_SLOTS)
		return reply_fail(r, -EINVAL, RE_RANGE, .name = "--pool-size",
				  .n = { pool, 1, SHM_MAX_SLOTS });
	if (c->mode != SHM_MODE_DISCARD && c->mode != SHM_MODE_OVERWRITE)
		return reply_fail(r, -EINVAL, RE_RANGE, .name = "buffer mode",
				  .n = { c->mode, SHM_MODE_DISCARD, SHM_MODE_OVERWRITE });
	if (c->flags & ~CMD_CREATE_MEMORY)
		return reply_fail(r, -EINVAL, RE_MALFORMED);
	if ((c->flags & CMD_CREATE_MEMORY) &&
	    (c->set_url[0] || c->ctrl_url[0] || c->data_url[0] || c->live))
		return reply_fail(r, -EINVAL, RE_MEMORY_ONLY, .session = name, .name = "relay");
	s = calloc(1, sizeof(*s));
	if (!s)
		return reply_fail(r, -ENOMEM, RE_ERRNO, .name = "session");
	s->base_fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->created_s = now > 0 ? (int64_t)now : 0;
	ret = allow_create(r, s, c);
	if (ret < 0)
		goto fail;
	if (s->allow_all || s->nallow) {
		ret = app_socket_open();
		if (ret < 0) {
			reply_fail(r, ret, RE_APP_SOCKET);
			goto fail;
		}
	}
	net = c->set_url[0] || c->ctrl_url[0] || c->data_url[0] || c->live;
	if (net) {
		ret = c->output[0] ? reply_fail(r, -EINVAL, RE_OUTPUT_AND_RELAY) :
		      relayctl_create(r, s, c, stamp);
		if (ret < 0)
			goto fail;
	} else if (c->output[0]) {
		if (c->output[0] != '/' || strlen(c->output) >= sizeof(s->output) - 64) {
			ret = reply_fail(r, -EINVAL, RE_OUTPUT_RELATIVE, .path = c->output);
			goto fail;
		}
		snprintf(s->output, sizeof(s->output), "%s", c->output);
	} else if (generated) {		/* its name has the date already */
		snprintf(s->output, sizeof(s->output), "%s/%s/%s", cmd_home, HOME_TRACES, name);
		s->output_default = 1;
	} else {
		snprintf(s->output, sizeof(s->output), "%s/%s/%s-%s", cmd_home, HOME_TRACES,
			 name, stamp);
		s->output_default = 1;
	}
	ret = net ? 0 : output_probe(s->output);
	if (ret == 0)
		ret = session_open_base(s);
	if (ret < 0) {
		reply_fail(r, ret, RE_OUTPUT_REFUSED, .path = s->output);
		goto fail;
	}
	if (!net && dir_used(s->output)) {
		/* as record: runs are never merged */
		ret = reply_fail(r, -EEXIST, RE_OUTPUT_USED, .path = s->output);
		goto fail;
	}
	s->def_pool = pool;
	s->memory = (c->flags & CMD_CREATE_MEMORY) != 0;
	s->def_mode = s->memory ? SHM_MODE_OVERWRITE : c->mode;
	s->next = ss.list;
	ss.list = s;
	log_info("session %s created, output %s", s->name, s->output);
	session_send(r, s);
	return 0;
fail:
	relayctl_close(s);
	free(s);
	app_socket_update();
	return ret;
}

static int in_range(uint32_t v, uint32_t min, uint32_t max)
{
	return v >= min && v <= max;
}

/* A setting of enable-channel within [@min, @max], else the failure. */
#define CHAN_CHECK(c, bit, field, min, max, opt)					\
	do {										\
		if (((c)->set & (bit)) && !in_range((c)->field, (min), (max)))		\
			return reply_fail(r, -EINVAL, RE_RANGE, .name = (opt),		\
					  .n = { (c)->field, (min), (max) });		\
	} while (0)

/* A new channel of @s as @want, known to the processes; NULL: failed in @r. */
static struct channel *channel_make(struct reply *r, struct session *s, const struct channel *want)
{
	int err = 0;
	struct channel *ch = channel_new(s, want, &err);

	if (!ch && err == -EBUSY)
		reply_fail(r, err, RE_CHANNELS_FULL, .n = { SHM_MAX_CHAN });
	else if (!ch)
		reply_fail(r, err, RE_ERRNO, .name = "channel");
	return ch;
}

/* A setting of enable-channel given that differs from @ch's. */
#define CHAN_DIFFERS(c, ch, bit, field)	(((c)->set & (bit)) && (c)->field != (ch)->field)

/*
 * enable-channel of channel @ch that disable-channel disabled: enabled
 * again, its settings as they were (any given must be the same).
 */
static int channel_reenable(struct reply *r, struct channel *ch, const struct cmd_channel *c)
{
	struct rec_channel rc;

	if (!ch->disabled || CHAN_DIFFERS(c, ch, CMD_CHAN_SUBBUF, subbuf_size) ||
	    CHAN_DIFFERS(c, ch, CMD_CHAN_NUM, num_subbuf) ||
	    CHAN_DIFFERS(c, ch, CMD_CHAN_FLUSH, flush_ms) ||
	    CHAN_DIFFERS(c, ch, CMD_CHAN_POOL, pool_size) ||
	    ((c->set & CMD_CHAN_BUDGET) && ((uint64_t)c->budget_kib << 10) != ch->budget) ||
	    CHAN_DIFFERS(c, ch, CMD_CHAN_MODE, mode) ||
	    CHAN_DIFFERS(c, ch, CMD_CHAN_COMPRESS, compress))
		return reply_fail(r, -EEXIST, RE_CHANNEL_EXISTS, .session = ch->session->name,
				  .name = ch->name);
	ch->disabled = 0;
	log_info("session %s: channel %s enabled again", ch->session->name, ch->name);
	apps_update_all();
	channel_record(ch, 0, &rc);
	reply_rec(r, REC_CHANNEL, &rc, sizeof(rc));
	return 0;
}

/*
 * enable-channel: the settings given, the session's defaults for the
 * rest; a channel disabled by disable-channel is enabled again.
 */
static int cmd_enable_channel(struct reply *r, struct session *s, const struct cmd_channel *c)
{
	struct channel want, *ch;
	struct rec_channel rc;

	if (!proto_name_ok(c->name) || strlen(c->name) > 32)
		return reply_fail(r, -EINVAL, RE_BAD_NAME, .name = c->name, .name2 = "channel",
				  .n = { 32 });
	ch = channel_find(s, c->name);
	if (ch)
		return channel_reenable(r, ch, c);
	CHAN_CHECK(c, CMD_CHAN_SUBBUF, subbuf_size, SHM_MIN_SUBBUF, SHM_MAX_SUBBUF,
		   "--subbuf-size");
	CHAN_CHECK(c, CMD_CHAN_NUM, num_subbuf, 2, SHM_MAX_NUM_SUBBUF, "--num-subbuf");
	CHAN_CHECK(c, CMD_CHAN_FLUSH, flush_ms, 0, 3600000, "--flush-interval (ms)");
	CHAN_CHECK(c, CMD_CHAN_POOL, pool_size, 1, SHM_MAX_SLOTS, "--pool-size");
	CHAN_CHECK(c, CMD_CHAN_MODE, mode, SHM_MODE_DISCARD, SHM_MODE_OVERWRITE, "buffer mode");
	CHAN_CHECK(c, CMD_CHAN_COMPRESS, compress, PROTO_COMPRESS_NONE, PROTO_COMPRESS_LZ4,
		   "--compress");
	channel_defaults(s, &want, c->name);
	if (c->set & CMD_CHAN_SUBBUF)
		want.subbuf_size = c->subbuf_size;
	if (c->set & CMD_CHAN_NUM)
		want.num_subbuf = c->num_subbuf;
	if (c->set & CMD_CHAN_FLUSH)
		want.flush_ms = c->flush_ms;
	if (c->set & CMD_CHAN_POOL)
		want.pool_size = c->pool_size;
	if (c->set & CMD_CHAN_BUDGET)
		want.budget = (uint64_t)c->budget_kib << 10;
	if (c->set & CMD_CHAN_MODE)
		want.mode = c->mode;
	if (s->memory && want.mode != SHM_MODE_OVERWRITE)
		return reply_fail(r, -EINVAL, RE_MEMORY_DISCARD, .session = s->name, .name = c->name);
	if (c->set & CMD_CHAN_COMPRESS)
		want.compress = c->compress;
	if (want.compress && s->relay_id)
		return reply_fail(r, -EINVAL, RE_COMPRESS_RELAY);
	if (!shm_geometry_ok(want.subbuf_size, want.num_subbuf))
		return reply_fail(r, -EINVAL, RE_GEOMETRY,
				  .n = { SHM_MIN_SUBBUF, SHM_MAX_SUBBUF, SHM_MAX_NUM_SUBBUF });
	ch = channel_make(r, s, &want);
	if (!ch)
		return -EBUSY;
	apps_update_all();
	channel_record(ch, 0, &rc);
	reply_rec(r, REC_CHANNEL, &rc, sizeof(rc));
	return 0;
}

/* Has @pattern a '*' (not escaped)? */
static int pattern_wild(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '*')
			return 1;
	}
	return 0;
}

/*
 * @e for @pattern with the conditions of @ev, @filter (NULL: none) and
 * the ev->nexclude exclusions @excl; 0, or the failure in @r (@e holds
 * nothing then).
 */
static int enabler_make(struct reply *r, struct enabler *e, const char *pattern,
			const struct cmd_events *ev, const char *filter, const char *const *excl)
{
	int ret;

	_Static_assert(LL_RANGE == CMD_LL_RANGE && LL_ONLY == CMD_LL_ONLY, "log level kinds");
	memset(e, 0, sizeof(*e));
	if (!pattern[0] || strlen(pattern) >= PROTO_EVNAME_MAX)
		return reply_fail(r, -EINVAL, RE_BAD_PATTERN, .name = pattern);
	if (ev->ll_kind > CMD_LL_ONLY || ev->loglevel > 7)
		return reply_fail(r, -EINVAL, RE_BAD_LOGLEVEL);
	/* as lttng's --exclude: exclusions take a part of what a wildcard matches */
	if (ev->nexclude && !pattern_wild(pattern))
		return reply_fail(r, -EINVAL, RE_EXCLUDE_WILD, .name = pattern);
	for (uint32_t i = 0; i < ev->nexclude; i++)
		if (!excl[i][0] || strlen(excl[i]) >= PROTO_EVNAME_MAX)
			return reply_fail(r, -EINVAL, RE_BAD_PATTERN, .name = excl[i]);
	snprintf(e->pattern, sizeof(e->pattern), "%s", pattern);
	e->ll_kind = (enum ll_kind)ev->ll_kind;
	e->loglevel = (int)ev->loglevel;
	if (excl_set(e, excl, ev->nexclude) < 0)
		return reply_fail(r, -ENOMEM, RE_ERRNO, .name = "exclusions");
	ret = filter ? filter_make(r, e, filter) : 0;
	if (ret < 0)
		enabler_free_parts(e);
	return ret;
}

/*
 * The channel named @name, else ("") the default channel (created at its
 * first use when @create); NULL: failed in @r.
 */
static struct channel *enable_channel(struct reply *r, struct session *s, const char *name,
				      int create)
{
	struct channel *ch, want;
	int given = name[0] != 0;

	if (!given)
		name = "channel0";
	ch = channel_find(s, name);
	if (ch || given || !create) {
		if (!ch)
			reply_fail(r, -ENOENT, RE_NO_CHANNEL, .session = s->name, .name = name);
		return ch;
	}
	channel_defaults(s, &want, name);
	return channel_make(r, s, &want);
}

/*
 * @want (its parts taken) in @ch's patterns: enabling a pattern again
 * replaces its conditions. The enabler, or NULL (no memory: @want freed).
 */
static struct enabler *channel_enable(struct channel *ch, struct enabler *want)
{
	struct enabler *e;

	for (e = ch->enablers; e; e = e->next)
		if (!strcmp(e->pattern, want->pattern))
			break;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			enabler_free_parts(want);
			return NULL;
		}
		e->next = ch->enablers;
		ch->enablers = e;
	}
	enabler_free_parts(e);
	want->next = e->next;
	*e = *want;
	return e;
}

/*
 * Does @pattern take an event some registered process has described? 1 if
 * so, 0 if not while others are known (a likely typo: the reply notes it),
 * -1 when no event is known at all (nothing registered yet, the usual order).
 */
static int pattern_known(const char *pattern)
{
	int any = 0;

	for (const struct app *a = apps_list(); a; a = a->next)
		for (uint32_t id = 0; id < a->nev; id++) {
			if (!a->ev[id].known)
				continue;
			if (glob_match(pattern, a->ev[id].desc.name))
				return 1;
			any = 1;
		}
	return any ? 0 : -1;
}

/* enable-event: [filter] [exclusions] then patterns (proto.h) */
static int cmd_enable(struct reply *r, struct session *s, const struct proto_cmd *c)
{
	const struct cmd_events *ev = &c->b.events;
	const char *filter = ev->filter ? c->str[0] : NULL;
	const char *const *excl = &c->str[ev->filter];
	struct channel *ch = enable_channel(r, s, ev->channel, 1);

	if (!ch)
		return -ENOENT;
	enablers_free(ch->combos);	/* the patterns change: made again */
	ch->combos = NULL;
	for (uint32_t i = ev->filter + ev->nexclude; i < c->nstr; i++) {
		struct enabler *e, want;
		int ret = enabler_make(r, &want, c->str[i], ev, filter, excl);

		if (ret < 0) {
			apps_update_all();
			return ret;
		}
		e = channel_enable(ch, &want);
		if (!e)
			return reply_fail(r, -ENOMEM, RE_ERRNO, .name = "pattern");
		enabler_send(r, ch, e, 0);
		if (!pattern_known(e->pattern))
			reply_note(r, RN_PATTERN_UNKNOWN, .name = e->pattern);
	}
	apps_update_all();
	return 0;
}

static int cmd_disable(struct reply *r, struct session *s, const struct proto_cmd *c)
{
	struct channel *ch = enable_channel(r, s, c->b.events.channel, 0);

	if (!ch)
		return -ENOENT;
	enablers_free(ch->combos);	/* the patterns change: made again */
	ch->combos = NULL;
	for (uint32_t i = 0; i < c->nstr; i++) {
		struct enabler **pp = &ch->enablers, *e;

		while (*pp && strcmp((*pp)->pattern, c->str[i]))
			pp = &(*pp)->next;
		if (!*pp) {
			apps_update_all();
			return reply_fail(r, -ENOENT, RE_NOT_ENABLED, .session = s->name,
					  .name = c->str[i]);
		}
		e = *pp;
		*pp = e->next;
		enabler_send(r, ch, e, REC_ENABLER_REMOVED);
		enabler_free(e);
	}
	apps_update_all();
	return 0;
}

/*
 * disable-channel: the channels named record nothing from now on (their
 * patterns enable nothing: the processes see it at their next event, as
 * for disable-event); their slots, buffers and traces stay, and
 * enable-channel enables them again. A channel disabled already stays so.
 */
static int cmd_disable_channel(struct reply *r, struct session *s, const struct proto_cmd *c)
{
	for (uint32_t i = 0; i < c->nstr; i++) {
		if (!channel_find(s, c->str[i]))
			return reply_fail(r, -ENOENT, RE_NO_CHANNEL, .session = s->name,
					  .name = c->str[i]);
	}
	for (uint32_t i = 0; i < c->nstr; i++) {
		struct channel *ch = channel_find(s, c->str[i]);
		struct rec_channel rc;

		if (!ch->disabled)
			log_info("session %s: channel %s disabled", s->name, ch->name);
		ch->disabled = 1;
		channel_record(ch, 0, &rc);
		reply_rec(r, REC_CHANNEL, &rc, sizeof(rc));
	}
	apps_update_all();
	return 0;
}

/* The state dump that names the addresses of the ip context (libtrace/procev.c). */
#define STATEDUMP_PATTERN	"shmtrace_statedump:*"
#define STATEDUMP_EVENT		"shmtrace_statedump:bin_info"

/* Does a pattern of @ch, whatever its conditions, take event @name? */
static int channel_records(const struct channel *ch, const char *name)
{
	for (const struct enabler *e = ch->enablers; e; e = e->next)
		if (glob_match(e->pattern, name) && e->ll_kind == LL_ANY && !e->filter &&
		    !enabler_excludes(e, name))
			return 1;
	return 0;
}

/*
 * add-context: the channel's events carry these context fields; without a
 * channel, every channel of the session (the default one is made when
 * there is none). Only before the session first starts: a stream's layout
 * never changes.
 */
static int cmd_add_context(struct reply *r, struct session *s, const struct cmd_context *c)
{
	int all = !c->channel[0];
	struct channel *ch;

	if (s->started)
		return reply_fail(r, -EBUSY, RE_STARTED, .session = s->name);
	if (!c->context || (c->context & ~SHMTRACE__CTX_ALL))
		return reply_fail(r, -EINVAL, RE_BAD_CONTEXT, .n = { c->context });
	ch = enable_channel(r, s, c->channel, 1);
	if (!ch)
		return -ENOENT;
	for (ch = all ? s->chans : ch; ch; ch = all ? ch->next : NULL) {
		struct rec_channel rc;

		ch->context |= c->context;
		channel_record(ch, 0, &rc);
		reply_rec(r, REC_CHANNEL, &rc, sizeof(rc));
		/* the addresses are named from the processes' state dumps */
		if ((ch->context & SHMTRACE__CTX_IP) && !channel_records(ch, STATEDUMP_EVENT)) {
			struct enabler want = { .ll_kind = LL_ANY }, *e;

			snprintf(want.pattern, sizeof(want.pattern), "%s", STATEDUMP_PATTERN);
			e = channel_enable(ch, &want);
			if (!e)
				return reply_fail(r, -ENOMEM, RE_ERRNO, .name = "pattern");
			enablers_free(ch->combos);
			ch->combos = NULL;
			enabler_send(r, ch, e, REC_ENABLER_FOR_IP);
		}
	}
	apps_update_all();
	return 0;
}

static int cmd_list(struct reply *r)
{
	for (const struct session *s = ss.list; s; s = s->next)
		session_send(r, s);
	return 0;
}

static void process_record(const struct app *a, const char *session, struct rec_process *rp)
{
	memset(rp, 0, sizeof(*rp));
	REC_SET(rp->session, session);
	REC_SET(rp->name, a->procname);
	rp->pid = (uint32_t)a->pid;
	rp->uid = (uint32_t)a->uid;
	rp->starttime = a->starttime;
	rp->flags = (a->detached ? REC_PROCESS_DETACHED : 0) |
		    (!a->signo || (a->bell_lost & APP_BELL_LOST) ||
		     __atomic_load_n(&a->proc->doorbell_off, __ATOMIC_RELAXED) ?
		     REC_PROCESS_NO_BELL : 0);
	rp->reattached = a->reattached;
	for (uint32_t id = 0; id < a->nev; id++)
		rp->nevents += (uint32_t)(a->ev[id].known != 0);
}

static void process_send(struct reply *r, const struct app *a, const char *session)
{
	struct rec_process rp;

	process_record(a, session, &rp);
	reply_rec(r, REC_PROCESS, &rp, sizeof(rp));
}

/* list-events: per process, its record then one per event it described. */
static int cmd_list_events(struct reply *r)
{
	for (const struct app *a = apps_list(); a; a = a->next) {
		process_send(r, a, "");
		for (uint32_t id = 0; id < a->nev; id++) {
			const struct proto_event *e = &a->ev[id].desc;
			struct rec_event re;

			if (!a->ev[id].known)
				continue;
			memset(&re, 0, sizeof(re));
			re.pid = (uint32_t)a->pid;
			re.id = e->id;
			re.loglevel = e->loglevel;
			re.nfields = e->nfields < PROTO_MAX_FIELDS ? e->nfields : PROTO_MAX_FIELDS;
			REC_SET(re.name, e->name);
			for (uint32_t k = 0; k < re.nfields; k++) {
				re.field[k].type = e->fields[k].type;
				REC_SET(re.field[k].name, e->fields[k].name);
			}
			reply_rec(r, REC_EVENT, &re, sizeof(re));
		}
	}
	return 0;
}

/* processes: a record per registered process. */
static int cmd_processes(struct reply *r)
{
	for (const struct app *a = apps_list(); a; a = a->next)
		process_send(r, a, "");
	return 0;
}

/* notices: the session's record, then one per notice it kept. */
static int cmd_notices(struct reply *r, const struct session *s)
{
	session_send(r, s);
	for (const struct notice *n = s->notices; n; n = n->next) {
		struct rec_notice rn;

		notice_record(s, n, &rn);
		reply_rec(r, REC_NOTICE, &rn, sizeof(rn));
	}
	return 0;
}

/*
 * What went wrong with @s's traces, said in @r as its first failure: a
 * channel's write error (@rc, its records, in order), a stop that could
 * not write everything out, streaming stopped, aggregations.json not
 * written. Its -errno, or 0.
 */
static int session_failure(struct reply *r, const struct session *s,
			   const struct rec_channel *rc, unsigned int n)
{
	char path[PROTO_PATH_MAX + 64];

	for (unsigned int i = 0; i < n; i++)
		if ((rc[i].flags & REC_CHANNEL_STATS) && rc[i].stats.werr > 0)
			return reply_fail(r, -rc[i].stats.werr, RE_WRITE, .session = s->name,
					  .name = rc[i].name, .path = rc[i].stats.werr_path,
					  .n = { rc[i].stats.wlost, rc[i].stats.werr_traces });
	if (s->flush_err) {	/* the last stop could not write everything out */
		for (unsigned int i = 0; i < n; i++)
			if (rc[i].flags & REC_CHANNEL_UNFLUSHED)
				return reply_fail(r, s->flush_err, RE_NOT_WRITTEN,
						  .session = s->name, .name = rc[i].name,
						  .n = { rc[i].unflushed_events,
							 rc[i].unflushed_buffers });
		return reply_fail(r, s->flush_err, RE_NOT_WRITTEN, .session = s->name);
	}
	if (!relayctl_ok(s))
		return relayctl_fail(r, s);
	if (s->agg_werr) {	/* aggregations.json at the last stop */
		aggs_json_path(s, path, sizeof(path));
		return reply_fail(r, s->agg_werr, RE_AGG_WRITE, .session = s->name, .path = path);
	}
	return 0;
}

/*
 * The records of @s's channels with their counters (at most SHM_MAX_CHAN),
 * with their patterns when @enablers; their number, in @rc.
 */
static unsigned int channels_send(struct reply *r, const struct session *s, int enablers,
				  struct rec_channel *rc)
{
	unsigned int n = 0;

	for (const struct channel *ch = s->chans; ch && n < SHM_MAX_CHAN; ch = ch->next, n++) {
		channel_record(ch, 1, &rc[n]);
		reply_rec(r, REC_CHANNEL, &rc[n], sizeof(rc[n]));
		for (const struct enabler *e = ch->enablers; enablers && e; e = e->next)
			enabler_send(r, ch, e, 0);
	}
	return n;
}

static int cmd_status(struct reply *r, const char *name)
{
	static struct rec_channel rc[SHM_MAX_CHAN];
	struct rec_daemon rd;
	int shown = 0, werr = 0;

	memset(&rd, 0, sizeof(rd));
	rd.pid = (uint32_t)getpid();
	rd.uid = (uint32_t)geteuid();
	REC_SET(rd.version, PACKAGE_VERSION);
	REC_SET(rd.home, cmd_home);
	reply_rec(r, REC_DAEMON, &rd, sizeof(rd));
	if (name[0] && !session_by_name(name))
		return reply_fail(r, -ENOENT, RE_NO_SESSION, .session = name);
	for (struct session *s = ss.list; s; s = s->next) {
		unsigned int n;
		int err;

		if (name[0] && strcmp(name, s->name))
			continue;
		shown++;
		session_send(r, s);
		tracks_send(r, s);
		/* the processes this session records: ours, and those of the
		 * uids it allows, that its tracking takes */
		for (const struct app *a = apps_list(); a; a = a->next)
			if (session_traces(s, a))
				process_send(r, a, s->name);
		for (const struct notice *nt = s->notices; nt; nt = nt->next) {
			struct rec_notice rn;

			notice_record(s, nt, &rn);
			reply_rec(r, REC_NOTICE, &rn, sizeof(rn));
		}
		n = channels_send(r, s, 1, rc);
		for (const struct aggregation *ag = s->aggs; ag; ag = ag->next) {
			struct rec_agg ra;

			agg_record(ag, &ra);
			reply_rec(r, REC_AGGREGATION, &ra, sizeof(ra));
		}
		err = session_failure(r, s, rc, n);
		if (!werr)
			werr = err;
	}
	return werr;
}

/* rotate [size=BYTES] [every=MS]: now, or automatically from now on. */
static int cmd_rotate(struct reply *r, struct session *s, const struct cmd_rotate *c)
{
	struct rec_rotation rr;
	int ret;

	if (s->relay_id)
		return reply_fail(r, -EOPNOTSUPP, RE_RELAY_NO, .session = s->name,
				  .name = "chunks");
	if (s->memory)
		return reply_fail(r, -EOPNOTSUPP, RE_MEMORY_ONLY, .session = s->name,
				  .name = "chunks");
	memset(&rr, 0, sizeof(rr));
	REC_SET(rr.session, s->name);
	if (c->set) {
		if (c->set & CMD_ROT_SIZE)
			s->rot_bytes = c->size;
		if (c->set & CMD_ROT_EVERY)
			s->rot_ms = c->every_ms;
		s->rot_last_ns = now_ns(CLOCK_MONOTONIC);
		rr.flags = REC_ROTATION_SET;
	} else {
		ret = session_rotate(s);
		if (ret < 0)
			return reply_fail(r, ret, RE_ROTATE, .session = s->name);
		rr.chunk = s->nrotations - 1;
		snprintf(rr.path, sizeof(rr.path), "%.4000s/chunk-%u", s->output, rr.chunk);
	}
	rr.every_ms = s->rot_ms;
	rr.size = s->rot_bytes;
	reply_rec(r, REC_ROTATION, &rr, sizeof(rr));
	return 0;
}

/*
 * Where snapshot @n of @s goes by default: next to the session's output,
 * never in it (OUTPUT-snapshot-N-DATE), so that reading the output reads
 * each event once; for a memory-only session, whose output holds nothing
 * else, in it (OUTPUT/snapshot-N-DATE).
 */
static int snapshot_default(const struct session *s, unsigned int n, const char *stamp,
			    char *out, size_t len)
{
	char real[PATH_MAX];
	const char *base = realpath(s->output, real) ? real : s->output;
	size_t blen = strlen(base);

	if (s->memory) {
		if (snprintf(out, len, "%s/snapshot-%u-%s", s->output, n, stamp) >= (int)len)
			return -ENAMETOOLONG;
		return 0;
	}

	while (blen > 1 && base[blen - 1] == '/')
		blen--;
	if (blen <= 1)
		return -EINVAL;		/* the root: there is no "next to" */
	if (snprintf(out, len, "%.*s-snapshot-%u-%s", (int)blen, base, n, stamp) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* Is @dir inside @top (both existing)? */
static int path_inside(const char *dir, const char *top)
{
	char d[PATH_MAX], t[PATH_MAX];
	size_t n;

	if (!realpath(dir, d) || !realpath(top, t))
		return 0;
	n = strlen(t);
	return !strncmp(d, t, n) && (d[n] == '/' || (n == 1 && d[0] == '/'));
}

/*
 * snapshot: what the buffers of every channel hold now, as traces of
 * their own (the consumer copies the session's channels at once).
 */
static struct rec_snapshot snap_rec;	/* the last snapshot's record (cmd_action()) */

static int cmd_snapshot(struct reply *r, struct session *s, const struct cmd_snapshot *c)
{
	struct msg_c_snapshot m;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int ret = 0, given = c->output[0] != 0;

	if (s->relay_id)
		return reply_fail(r, -EOPNOTSUPP, RE_RELAY_NO, .session = s->name,
				  .name = "snapshots");
	memset(&m, 0, sizeof(m));
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (given) {
		if (c->output[0] != '/' || strlen(c->output) >= sizeof(m.output) - 64)
			return reply_fail(r, -EINVAL, RE_OUTPUT_RELATIVE, .path = c->output);
		snprintf(m.output, sizeof(m.output), "%s", c->output);
	} else {
		ret = snapshot_default(s, s->nsnapshots + 1, stamp, m.output, sizeof(m.output));
		if (ret < 0)
			return reply_fail(r, ret, RE_SNAPSHOT_PLACE, .session = s->name,
					  .path = s->output);
	}
	if (!s->chans)
		return reply_fail(r, -ENOENT, RE_NO_CHANNELS, .session = s->name);
	m.chan_id = s->chans->id;	/* the consumer copies the session's output */
	m.max_size = c->max_size;
	ret = consumer_call(MSG_C_SNAPSHOT, &m, sizeof(m), NULL, 0, NULL, 0);
	if (ret == -ENOENT)
		return reply_fail(r, ret, RE_SNAPSHOT_EMPTY, .session = s->name);
	if (ret == -ENOSPC && c->max_size)
		return reply_fail(r, ret, RE_SNAPSHOT_SIZE, .session = s->name,
				  .n = { c->max_size });
	if (ret < 0)
		return reply_fail(r, ret, RE_SNAPSHOT, .session = s->name, .path = m.output);
	if (!given)
		s->nsnapshots++;	/* N of the default places */
	memset(&snap_rec, 0, sizeof(snap_rec));
	REC_SET(snap_rec.session, s->name);
	REC_SET(snap_rec.path, m.output);
	REC_SET(snap_rec.output, s->output);
	/* (a memory-only session's output holds nothing else: read once there) */
	snap_rec.flags = !s->memory && path_inside(m.output, s->output) ? REC_SNAPSHOT_INSIDE : 0;
	reply_rec(r, REC_SNAPSHOT, &snap_rec, sizeof(snap_rec));
	return 0;
}

/*
 * regenerate statedump: every process the active session traces writes
 * its state dump again (shmtrace_statedump:*), at its next enabled event,
 * asked through its control page (ctl_dump()): the session, then each
 * process asked; a note when no channel of the session records the dump.
 */
static int cmd_regenerate(struct reply *r, struct session *s, const struct cmd_regenerate *c)
{
	if (c->what != PROTO_REGEN_STATEDUMP)
		return reply_fail(r, -EINVAL, RE_RANGE, .name = "regenerate",
				  .n = { c->what, PROTO_REGEN_STATEDUMP, PROTO_REGEN_STATEDUMP });
	if (!s->active)
		return reply_fail(r, -EINVAL, RE_INACTIVE, .session = s->name);
	session_send(r, s);
	for (struct app *a = apps_list(); a; a = a->next) {
		if (!session_traces(s, a))
			continue;
		ctl_dump(a);
		process_send(r, a, s->name);
	}
	if (!session_records(s, STATEDUMP_EVENT, SHMTRACE_DEBUG))
		reply_note(r, RN_STATEDUMP_OFF, .session = s->name, .name = STATEDUMP_EVENT);
	return 0;
}

/*
 * track, untrack: which processes the session records, changed for the
 * processes registered now (their control pages written again) and those
 * to come; the session, then its tracking.
 */
static int cmd_track(struct reply *r, struct session *s, const struct proto_cmd *c, int add)
{
	int ret = track_change(r, s, &c->b.track, c->str, c->nstr, add);

	if (ret < 0)
		return ret;
	log_info("session %s: tracking changed (%s)", s->name, add ? "track" : "untrack");
	apps_update_all();
	session_send(r, s);
	tracks_send(r, s);
	return 0;
}

/*
 * clear: what the session recorded so far, discarded, and tracing goes
 * on (the consumer: its current chunk written out, closed and removed; a
 * memory-only session's buffers marked). The session, then its channels
 * with their counters (`cleared`: what this and earlier clears
 * discarded).
 */
static int cmd_clear(struct reply *r, struct session *s)
{
	static struct rec_channel rc[SHM_MAX_CHAN];
	struct msg_c_clear_reply rep;
	struct msg_c_id m;
	int ret;

	if (s->relay_id)
		return reply_fail(r, -EOPNOTSUPP, RE_RELAY_NO, .session = s->name,
				  .name = "clear");
	if (s->chans) {
		memset(&rep, 0, sizeof(rep));
		m.id = s->chans->id;	/* the consumer clears the session's output */
		ret = consumer_call(MSG_C_CLEAR, &m, sizeof(m), NULL, 0, &rep, sizeof(rep));
		/* what it discarded, even when something failed */
		for (uint32_t i = 0; ret != -EPIPE && i < rep.nchans && i < 8; i++)
			for (struct channel *ch = s->chans; ch; ch = ch->next)
				if (ch->id == rep.chan[i].chan_id)
					ch->cleared += rep.chan[i].events;
		if (ret < 0)
			return reply_fail(r, ret, RE_CLEAR, .session = s->name);
	}
	log_info("session %s cleared", s->name);
	session_send(r, s);
	channels_send(r, s, 0, rc);
	return 0;
}

static int cmd_start(struct reply *r, struct session *s)
{
	int ret;

	if (s->active)
		return reply_fail(r, -EALREADY, RE_ACTIVE, .session = s->name);
	ret = relayctl_check(r, s);
	if (ret < 0)
		return ret;
	marker_make(s);
	s->active = 1;
	s->started = 1;
	apps_update_all();
	session_send(r, s);
	return 0;
}

/*
 * stop: everything recorded is on disk, or the write errors are said:
 * the session, then its channels with every counter (the summary).
 */
static int cmd_stop(struct reply *r, struct session *s)
{
	static struct rec_channel rc[SHM_MAX_CHAN];
	unsigned int n;

	if (!s->active)
		return reply_fail(r, -EALREADY, RE_INACTIVE, .session = s->name);
	session_stop(s);
	session_send(r, s);
	n = channels_send(r, s, 0, rc);
	return session_failure(r, s, rc, n);
}

/*
 * destroy: an active session is stopped first, its write errors said; the
 * session and its channels' counters as they end (the summary).
 */
static int cmd_destroy(struct reply *r, struct session *s)
{
	static struct rec_channel rc[SHM_MAX_CHAN];
	int ret = 0, stopped = s->active;
	unsigned int n;

	if (stopped)
		session_stop(s);
	session_send(r, s);
	n = channels_send(r, s, 0, rc);
	if (stopped)
		ret = session_failure(r, s, rc, n);
	session_destroy(s);
	return ret;
}

static int session_dispatch(struct reply *r, const struct proto_cmd *c)
{
	struct session *s;

	switch (c->verb) {
	case VERB_PING:
		return 0;
	case VERB_CREATE:
		return cmd_create(r, c->session, &c->b.create);
	case VERB_LIST:
		return cmd_list(r);
	case VERB_LIST_EVENTS:
		return cmd_list_events(r);
	case VERB_STATUS:
		return cmd_status(r, c->session);
	case VERB_PROCESSES:
		return cmd_processes(r);
	case VERB_ADD_TRIGGER:
		return cmd_add_trigger(r, c);
	case VERB_LIST_TRIGGERS:
		return cmd_list_triggers(r);
	case VERB_REMOVE_TRIGGER:
		return cmd_remove_trigger(r, c);
	case VERB_WAIT_TRIGGER:
		return cmd_wait_trigger(r, &c->b.wait_trigger);
	default:
		break;
	}
	s = session_get(r, c->session);
	if (!s)
		return -ENOENT;
	switch (c->verb) {
	case VERB_DESTROY:
		return cmd_destroy(r, s);
	case VERB_ENABLE_EVENT:
		return cmd_enable(r, s, c);
	case VERB_ENABLE_CHANNEL:
		return cmd_enable_channel(r, s, &c->b.channel);
	case VERB_SNAPSHOT:
		return cmd_snapshot(r, s, &c->b.snapshot);
	case VERB_ROTATE:
		return cmd_rotate(r, s, &c->b.rotate);
	case VERB_DISABLE_EVENT:
		return cmd_disable(r, s, c);
	case VERB_ADD_CONTEXT:
		return cmd_add_context(r, s, &c->b.context);
	case VERB_NOTICES:
		return cmd_notices(r, s);
	case VERB_AGGREGATE:
		return cmd_aggregate(r, s, c);
	case VERB_DISABLE_AGG:
		return cmd_disable_agg(r, s, c);
	case VERB_SHOW_AGG:
		return cmd_show_agg(r, s, &c->b.show_agg);
	case VERB_START:
		return cmd_start(r, s);
	case VERB_STOP:
		return cmd_stop(r, s);
	case VERB_DISABLE_CHANNEL:
		return cmd_disable_channel(r, s, c);
	case VERB_REGENERATE:
		return cmd_regenerate(r, s, &c->b.regenerate);
	case VERB_TRACK:
	case VERB_UNTRACK:
		return cmd_track(r, s, c, c->verb == VERB_TRACK);
	case VERB_CLEAR:
		return cmd_clear(r, s);
	default:
		return reply_fail(r, -EINVAL, RE_MALFORMED);
	}
}

/* Verbs that only read: nothing to save after them. */
static int verb_reads(unsigned int verb)
{
	return verb == VERB_PING || verb == VERB_LIST || verb == VERB_LIST_EVENTS ||
	       verb == VERB_STATUS || verb == VERB_PROCESSES || verb == VERB_NOTICES ||
	       verb == VERB_SHOW_AGG || verb == VERB_LIST_TRIGGERS || verb == VERB_WAIT_TRIGGER ||
	       verb == VERB_REGENERATE;
}

int cmd_action(unsigned int verb, struct session *s, char *path, size_t len)
{
	static const union cmd_body none;	/* snapshot and rotate: the defaults */
	struct reply *r = reply_open_aside(-1);	/* answered to nobody */
	int ret;

	path[0] = 0;
	switch (verb) {
	case VERB_SNAPSHOT:
		ret = cmd_snapshot(r, s, &none.snapshot);
		if (!ret)
			snprintf(path, len, "%s", snap_rec.path);
		break;
	case VERB_START:
		ret = cmd_start(r, s);
		break;
	case VERB_STOP:
		ret = cmd_stop(r, s);
		break;
	case VERB_ROTATE:
		ret = cmd_rotate(r, s, &none.rotate);
		if (!ret)
			snprintf(path, len, "%.4000s/chunk-%u", s->output, s->nrotations - 1);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	return reply_finish(r, ret);
}

void cmd_init(const char *home)
{
	cmd_home = home;
}

int session_command(int fd, const char *body, size_t len)
{
	static struct proto_cmd c;
	struct reply *r = reply_open(fd);
	int ret;

	if (proto_cmd_decode(body, len, &c) < 0) {
		log_warn("malformed command refused");
		return reply_finish(r, reply_fail(r, -EPROTO, RE_MALFORMED));
	}
	ret = session_dispatch(r, &c);
	if (ret == CMD_KEPT)
		return CMD_KEPT;	/* a wait-trigger: answered when it fires */
	if (!verb_reads(c.verb) || trig_unsaved())
		state_save();	/* a daemon after us resumes from there */
	return reply_finish(r, ret);
}
