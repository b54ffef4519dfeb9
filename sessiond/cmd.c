// SPDX-License-Identifier: MIT
/*
 * cmd.c - the tracectl commands: one handler per verb of MSG_CMD.
 *
 * Commands arrive as one MSG_CMD per connection, decoded and checked by
 * proto_cmd_decode() (each verb's typed body, common/proto.h); the reply
 * is zero or more MSG_REPLY_TEXT messages (text to print) and one
 * MSG_REPLY with the status and, on error, the message. Handlers check
 * every value again: tracectl is not the only client that can connect.
 *
 * A session's output is checked at create by making it and writing a
 * probe in it, as the consumer will, then removing all that: the output
 * appears with the first trace, and a session that never traced leaves
 * nothing. Write errors the consumer meets later make stop, status (and a
 * destroy that stops) fail with the first error's path and errno.
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
#include "fdlimit.h"
#include "life.h"
#include "netout.h"
#include "notice.h"
#include "session.h"
#include "state.h"
#include "ctfmeta.h"
#include "home.h"
#include "glob.h"
#include "log.h"
#include "util.h"

static const char *cmd_home;

static const char *const ll_names[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

/* The named session, or the only one when @name is empty. */
static struct session *session_get(int fd, const char *name)
{
	struct session *s;

	if (name[0]) {
		s = session_by_name(name);
		if (!s)
			reply_end(fd, -ENOENT, "no session named '%s'", name);
		return s;
	}
	if (!ss.list) {
		reply_end(fd, -ENOENT, "no session: create one first");
		return NULL;
	}
	if (ss.list->next) {
		reply_end(fd, -EINVAL, "several sessions exist: name one with -s NAME");
		return NULL;
	}
	return ss.list;
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

static int cmd_create(int fd, const char *name, const struct cmd_create *c)
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
		return reply_end(fd, -EINVAL, "invalid session name '%s': %s", name,
				 PROTO_NAME_RULES);
	if (session_by_name(name))
		return reply_end(fd, -EEXIST, "session '%s' already exists", name);
	if (pool > SHM_MAX_SLOTS)
		return reply_end(fd, -EINVAL, "--pool-size must be 1 to %u", SHM_MAX_SLOTS);
	if (c->mode != SHM_MODE_DISCARD && c->mode != SHM_MODE_OVERWRITE)
		return reply_end(fd, -EINVAL, "unknown buffer mode %u", c->mode);
	s = calloc(1, sizeof(*s));
	if (!s)
		return reply_end(fd, -ENOMEM, "out of memory");
	s->base_fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", name);
	ret = allow_create(fd, s, c);
	if (ret < 0)
		goto fail;
	if (s->allow_all || s->nallow) {
		ret = app_socket_open();
		if (ret < 0) {
			reply_end(fd, ret, "cannot open the application socket for other uids: %s",
				  ret == -EADDRINUSE ? "its address is taken by another process" :
				  strerror(-ret));
			goto fail;
		}
	}
	net = c->set_url[0] || c->ctrl_url[0] || c->data_url[0] || c->live;
	if (net) {
		ret = c->output[0] ? reply_end(fd, -EINVAL, "--output and a relay address exclude "
					       "each other") :
		      netout_create(fd, s, c, stamp);
		if (ret < 0)
			goto fail;
	} else if (c->output[0]) {
		if (c->output[0] != '/' || strlen(c->output) >= sizeof(s->output) - 64) {
			ret = reply_end(fd, -EINVAL, "output must be an absolute path");
			goto fail;
		}
		snprintf(s->output, sizeof(s->output), "%s", c->output);
	} else if (generated) {		/* its name has the date already */
		snprintf(s->output, sizeof(s->output), "%s/%s/%s", cmd_home, HOME_TRACES, name);
	} else {
		snprintf(s->output, sizeof(s->output), "%s/%s/%s-%s", cmd_home, HOME_TRACES,
			 name, stamp);
	}
	ret = net ? 0 : output_probe(s->output);
	if (ret == 0)
		ret = session_open_base(s);
	if (ret < 0) {
		reply_end(fd, ret, "cannot write traces in %s: %s", s->output, strerror(-ret));
		goto fail;
	}
	if (!net && dir_used(s->output)) {
		/* as record: runs are never merged */
		ret = reply_end(fd, -EEXIST, "%s is not empty (an earlier run?): runs are never "
				"merged; remove it or choose another --output", s->output);
		goto fail;
	}
	s->def_pool = pool;
	s->def_mode = c->mode;
	s->next = ss.list;
	ss.list = s;
	log_info("session %s created, output %s", s->name, s->output);
	reply_text(fd, "Session %s created.\nTraces will be written in %s\n", s->name, s->output);
	return reply_end(fd, 0, NULL);
fail:
	free(s);
	app_socket_update();
	return ret;
}

static int in_range(uint32_t v, uint32_t min, uint32_t max)
{
	return v >= min && v <= max;
}

/* A setting of enable-channel within [@min, @max], else said. */
#define CHAN_CHECK(c, bit, field, min, max, opt)					\
	do {										\
		if (((c)->set & (bit)) && !in_range((c)->field, (min), (max)))		\
			return reply_end(fd, -EINVAL, opt ": %u to %u, not %u",		\
					 (unsigned int)(min), (unsigned int)(max),	\
					 (c)->field);					\
	} while (0)

/* enable-channel: the settings given, the session's defaults for the rest. */
static int cmd_enable_channel(int fd, struct session *s, const struct cmd_channel *c)
{
	struct channel want, *ch;

	if (!proto_name_ok(c->name) || strlen(c->name) > 32)
		return reply_end(fd, -EINVAL, "invalid channel name '%s': %s, at most 32 bytes",
				 c->name, PROTO_NAME_RULES);
	if (channel_find(s, c->name))
		return reply_end(fd, -EEXIST, "channel %s exists in session %s (settings are "
				 "fixed once created)", c->name, s->name);
	CHAN_CHECK(c, CMD_CHAN_SUBBUF, subbuf_size, SHM_MIN_SUBBUF, SHM_MAX_SUBBUF,
		   "--subbuf-size");
	CHAN_CHECK(c, CMD_CHAN_NUM, num_subbuf, 2, SHM_MAX_NUM_SUBBUF, "--num-subbuf");
	CHAN_CHECK(c, CMD_CHAN_FLUSH, flush_ms, 0, 3600000, "--flush-interval (ms)");
	CHAN_CHECK(c, CMD_CHAN_POOL, pool_size, 1, SHM_MAX_SLOTS, "--pool-size");
	CHAN_CHECK(c, CMD_CHAN_MODE, mode, SHM_MODE_DISCARD, SHM_MODE_OVERWRITE, "mode");
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
	if (c->set & CMD_CHAN_MODE)
		want.mode = c->mode;
	if (c->set & CMD_CHAN_COMPRESS)
		want.compress = c->compress;
	if (want.compress && s->relay_id)
		return reply_end(fd, -EINVAL, "--compress: not for a session streamed to a relay "
				 "(the relay stores plain CTF)");
	if (!shm_geometry_ok(want.subbuf_size, want.num_subbuf))
		return reply_end(fd, -EINVAL, "sub-buffers: %u to %u bytes (whole pages), "
				 "2 to %u of them", SHM_MIN_SUBBUF, SHM_MAX_SUBBUF,
				 SHM_MAX_NUM_SUBBUF);
	ch = channel_new(fd, s, &want);
	if (!ch)
		return -EBUSY;
	apps_update_all();
	reply_text(fd, "Channel %s enabled in session %s.\n", ch->name, s->name);
	return reply_end(fd, 0, NULL);
}

/*
 * @e for @pattern with the conditions of @ev and @filter (NULL: none). On
 * a bad filter, @err says what and where.
 */
static int enabler_make(struct enabler *e, const char *pattern, const struct cmd_events *ev,
			const char *filter, char *err, size_t errlen)
{
	_Static_assert(LL_RANGE == CMD_LL_RANGE && LL_ONLY == CMD_LL_ONLY, "log level kinds");
	memset(e, 0, sizeof(*e));
	snprintf(err, errlen, "invalid event pattern '%s'", pattern);
	if (!pattern[0] || strlen(pattern) >= PROTO_EVNAME_MAX)
		return -EINVAL;
	snprintf(err, errlen, "bad log level condition");
	if (ev->ll_kind > CMD_LL_ONLY || ev->loglevel > 7)
		return -EINVAL;
	snprintf(e->pattern, sizeof(e->pattern), "%s", pattern);
	e->ll_kind = (enum ll_kind)ev->ll_kind;
	e->loglevel = (int)ev->loglevel;
	return filter ? filter_set(e, filter, err, errlen) : 0;
}

static void enabler_describe(const struct enabler *e, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", e->pattern);

	if (e->ll_kind != LL_ANY && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " (loglevel %s %s)",
			      e->ll_kind == LL_RANGE ? "<=" : "==", ll_names[e->loglevel]);
	if (e->filter && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " [filter: %s]", e->filter);
}

/*
 * The channel named @name, else ("") the default channel (created at its
 * first use when @create).
 */
static struct channel *enable_channel(int fd, struct session *s, const char *name, int create)
{
	struct channel *ch, want;
	int given = name[0] != 0;

	if (!given)
		name = "channel0";
	ch = channel_find(s, name);
	if (ch || given || !create) {
		if (!ch)
			reply_end(fd, -ENOENT, "no channel %s in session %s", name, s->name);
		return ch;
	}
	channel_defaults(s, &want, name);
	return channel_new(fd, s, &want);
}

/* enable-event: [filter] then patterns (proto.h) */
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

static int cmd_enable(int fd, struct session *s, const struct proto_cmd *c)
{
	const struct cmd_events *ev = &c->b.events;
	const char *filter = ev->filter ? c->str[0] : NULL;
	struct channel *ch = enable_channel(fd, s, ev->channel, 1);

	if (!ch)
		return -ENOENT;
	enablers_free(ch->combos);	/* the patterns change: made again */
	ch->combos = NULL;
	for (uint32_t i = ev->filter; i < c->nstr; i++) {
		struct enabler *e, want;
		char what[PROTO_EVNAME_MAX + 1200], err[200];
		int ret = enabler_make(&want, c->str[i], ev, filter, err, sizeof(err));

		if (ret < 0) {
			apps_update_all();
			return reply_end(fd, ret, "%s", err);
		}
		e = channel_enable(ch, &want);
		if (!e)
			return reply_end(fd, -ENOMEM, "out of memory");
		enabler_describe(e, what, sizeof(what));
		reply_text(fd, "Event pattern '%s' enabled in channel %s of session %s.\n", what,
			   ch->name, s->name);
	}
	apps_update_all();
	return reply_end(fd, 0, NULL);
}

static int cmd_disable(int fd, struct session *s, const struct proto_cmd *c)
{
	struct channel *ch = enable_channel(fd, s, c->b.events.channel, 0);

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
			return reply_end(fd, -ENOENT, "pattern '%s' is not enabled in session %s",
					 c->str[i], s->name);
		}
		e = *pp;
		*pp = e->next;
		enabler_free(e);
		reply_text(fd, "Event pattern '%s' disabled in session %s.\n", c->str[i], s->name);
	}
	apps_update_all();
	return reply_end(fd, 0, NULL);
}

/* The state dump that names the addresses of the ip context (libtrace/procev.c). */
#define STATEDUMP_PATTERN	"shmtrace_statedump:*"
#define STATEDUMP_EVENT		"shmtrace_statedump:bin_info"

/* Does a pattern of @ch, whatever its conditions, take event @name? */
static int channel_records(const struct channel *ch, const char *name)
{
	for (const struct enabler *e = ch->enablers; e; e = e->next)
		if (glob_match(e->pattern, name) && e->ll_kind == LL_ANY && !e->filter)
			return 1;
	return 0;
}

/* Names of the context fields in @ctx, comma-separated, or "none". */
static void context_names(uint32_t ctx, char *buf, size_t len)
{
	size_t n = 0;

	snprintf(buf, len, "none");
	for (unsigned int i = 0; i < CTF_NCONTEXTS; i++)
		if (ctx & ctf_contexts[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      ctf_contexts[i].name);
}

/*
 * add-context: the channel's events carry these context fields; without a
 * channel, every channel of the session (the default one is made when
 * there is none). Only before the session first starts: a stream's layout
 * never changes.
 */
static int cmd_add_context(int fd, struct session *s, const struct cmd_context *c)
{
	int all = !c->channel[0];
	struct channel *ch;
	char names[128];

	if (s->started)
		return reply_end(fd, -EBUSY, "session %s has been started: context fields can "
				 "only be added before the first start", s->name);
	if (!c->context || (c->context & ~SHMTRACE__CTX_ALL)) {
		context_names(SHMTRACE__CTX_ALL, names, sizeof(names));
		return reply_end(fd, -EINVAL, "unknown context fields (known: %s)", names);
	}
	ch = enable_channel(fd, s, c->channel, 1);
	if (!ch)
		return -ENOENT;
	for (ch = all ? s->chans : ch; ch; ch = all ? ch->next : NULL) {
		ch->context |= c->context;
		context_names(ch->context, names, sizeof(names));
		reply_text(fd, "Context of channel %s in session %s: %s.\n", ch->name, s->name,
			   names);
		/* the addresses are named from the processes' state dumps */
		if ((ch->context & SHMTRACE__CTX_IP) && !channel_records(ch, STATEDUMP_EVENT)) {
			struct enabler want = { .ll_kind = LL_ANY };

			snprintf(want.pattern, sizeof(want.pattern), "%s", STATEDUMP_PATTERN);
			if (!channel_enable(ch, &want))
				return reply_end(fd, -ENOMEM, "out of memory");
			enablers_free(ch->combos);
			ch->combos = NULL;
			reply_text(fd, "Event pattern '%s' enabled in channel %s of session %s: "
				   "the addresses of ip are named from it.\n", STATEDUMP_PATTERN,
				   ch->name, s->name);
		}
	}
	apps_update_all();
	return reply_end(fd, 0, NULL);
}

static int cmd_list(int fd)
{
	if (!ss.list)
		reply_text(fd, "No session.\n");
	for (const struct session *s = ss.list; s; s = s->next)
		reply_text(fd, "%s [%s] %s\n", s->name, s->active ? "active" : "inactive", s->output);
	return reply_end(fd, 0, NULL);
}

static const char *type_name(uint32_t t)
{
	static const char *const n[] = { "?", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
					 "s64", "hex64", "double", "string" };
	static char seq[32];

	if (t & SHMTRACE_TYPE_SEQ) {
		snprintf(seq, sizeof(seq), "sequence<%s>", type_name(t & ~(uint32_t)SHMTRACE_TYPE_SEQ));
		return seq;
	}
	return t < ARRAY_SIZE(n) ? n[t] : "?";
}

/* A log level as <shmtrace/shmtrace.h> names it, or NULL when it has no name. */
static const char *loglevel_name(int32_t level)
{
	static const char *const n[] = {
		"SHMTRACE_EMERG", "SHMTRACE_ALERT", "SHMTRACE_CRIT", "SHMTRACE_ERR",
		"SHMTRACE_WARNING", "SHMTRACE_NOTICE", "SHMTRACE_INFO", "SHMTRACE_DEBUG",
	};

	return level >= 0 && level < (int32_t)ARRAY_SIZE(n) ? n[level] : NULL;
}

/*
 * "PROCNAME[PID]", then per event "    provider:event (loglevel
 * SHMTRACE_INFO = 6) { type name, ... }" ("(loglevel N)" for a level with
 * no name).
 */
static int cmd_list_events(int fd)
{
	if (!apps_list())
		reply_text(fd, "No traced process.\n");
	for (const struct app *a = apps_list(); a; a = a->next) {
		reply_text(fd, "%s[%d]\n", a->procname, (int)a->pid);
		for (uint32_t id = 0; id < a->nev; id++) {
			const struct proto_event *e = &a->ev[id].desc;
			char fields[2048];
			size_t pos = 0;

			if (!a->ev[id].known)
				continue;
			fields[0] = 0;
			for (uint32_t k = 0; k < e->nfields && pos < sizeof(fields) - 100; k++)
				pos += (size_t)snprintf(fields + pos, sizeof(fields) - pos, "%s%s %s",
							k ? ", " : "", type_name(e->fields[k].type),
							e->fields[k].name);
			if (loglevel_name(e->loglevel))
				reply_text(fd, "    %s (loglevel %s = %d) { %s }\n", e->name,
					   loglevel_name(e->loglevel), (int)e->loglevel, fields);
			else
				reply_text(fd, "    %s (loglevel %d) { %s }\n", e->name,
					   (int)e->loglevel, fields);
		}
	}
	return reply_end(fd, 0, NULL);
}

/*
 * The write errors of @ch, as @st says: 0, or a line of text, the first
 * error as -errno and, in @msg when it is the session's first, what it was.
 */
static int werror_report(int fd, const struct channel *ch, const struct msg_c_stats *st,
			 char *msg, size_t len)
{
	char path[PROTO_PATH_MAX];

	if (st->werr <= 0)
		return 0;
	memcpy(path, st->werr_path, sizeof(path));
	path[sizeof(path) - 1] = 0;
	/* (tracectl record adds up the "N events lost to write errors") */
	reply_text(fd, "Channel %s of session %s: %" PRIu64 " events lost to write errors in %u "
		   "trace%s; first error: %s: %s (errno %d)\n", ch->name, ch->session->name,
		   st->wlost, st->werr_traces, st->werr_traces == 1 ? "" : "s", path,
		   strerror(st->werr), (int)st->werr);
	if (st->unconfirmed)
		reply_text(fd, "Channel %s of session %s: of the events sent, %" PRIu64 " were not "
			   "confirmed stored when the relay went away (some of them may be in "
			   "its output)\n", ch->name, ch->session->name, st->unconfirmed);
	if (msg[0] == 0)
		snprintf(msg, len, "session %s: cannot write %s: %s (%" PRIu64 " events lost)",
			 ch->session->name, path, strerror(st->werr), st->wlost);
	return -st->werr;
}

/* Report the write errors of @s's channels; the first as -errno and @msg. */
static int session_werrors(int fd, const struct session *s, char *msg, size_t len)
{
	int ret = 0, err;

	msg[0] = 0;
	for (const struct channel *ch = s->chans; ch; ch = ch->next) {
		struct msg_c_id m = { .id = ch->id };
		struct msg_c_stats st;

		memset(&st, 0, sizeof(st));
		if (consumer_call(MSG_C_STATS, &m, sizeof(m), NULL, 0, &st, sizeof(st)) < 0)
			continue;
		err = werror_report(fd, ch, &st, msg, len);
		if (!ret)
			ret = err;
	}
	if (s->flush_err) {	/* the last stop could not write everything out */
		if (!ret)
			snprintf(msg, len, "%s", s->flush_msg);
		ret = s->flush_err;
	}
	err = netout_error(fd, s, msg, len);
	if (!ret && !err && s->agg_werr) {	/* aggregations.json at the last stop */
		snprintf(msg, len, "%s", s->agg_msg);
		err = s->agg_werr;
	}
	return ret ? ret : err;
}

/* Returns the channel's first write error as -errno (@msg set), or 0. */
static int status_channel(int fd, const struct channel *ch, char *msg, size_t len)
{
	struct msg_c_id m = { .id = ch->id };
	struct msg_c_stats st;
	char names[128];
	int ret;

	memset(&st, 0, sizeof(st));
	ret = consumer_call(MSG_C_STATS, &m, sizeof(m), NULL, 0, &st, sizeof(st));
	reply_text(fd, "  channel %s: %s, %u sub-buffers of %u KiB, pool of %u buffers, "
		   "flush every %u ms%s\n", ch->name,
		   ch->mode == SHM_MODE_DISCARD ? "discard" : "overwrite", ch->num_subbuf,
		   ch->subbuf_size >> 10, ch->pool_size, ch->flush_ms,
		   ch->compress == PROTO_COMPRESS_LZ4 ? ", lz4" : "");
	if (ch->context) {
		context_names(ch->context, names, sizeof(names));
		reply_text(fd, "    context: %s\n", names);
	}
	reply_text(fd, "    enabled events:%s\n", ch->enablers ? "" : " none");
	for (const struct enabler *e = ch->enablers; e; e = e->next) {
		char what[PROTO_EVNAME_MAX + 1200];

		enabler_describe(e, what, sizeof(what));
		reply_text(fd, "      %s\n", what);
	}
	if (ret < 0)
		reply_text(fd, "    consumer: not available (%s)\n", strerror(-ret));
	else
		reply_text(fd, "    events recorded: %" PRIu64 "\n    events discarded: %" PRIu64
			   "\n    events overwritten: %" PRIu64 "\n    bytes written: %" PRIu64
			   "\n    streams: %" PRIu64 "\n    buffers: %" PRIu64
			   "\n    events lost without a buffer: %" PRIu64
			   "\n    events lost to write errors: %" PRIu64 "\n",
			   st.events, st.discarded, st.overwritten, st.bytes, st.streams,
			   st.buffers, st.nobuf, st.wlost);
	if (ret >= 0 && ch->session->relay_id)
		reply_text(fd, "    events sent but not confirmed stored by a relay that went away: "
			   "%" PRIu64 "\n", st.unconfirmed);
	if (ret >= 0 && st.damaged_streams)
		reply_text(fd, "    streams closed, their process having written over its buffers: "
			   "%u (the first: pid %u), events lost there: %" PRIu64 "\n",
			   st.damaged_streams, st.damaged_pid, st.damaged);
	if (ret >= 0 && st.liars)
		reply_text(fd, "    processes whose counters are not believed: %u (the first: pid "
			   "%u): they write impossible values into the memory they share\n",
			   st.liars, st.liar_pid);
	return ret < 0 ? 0 : werror_report(fd, ch, &st, msg, len);
}

/* The processes refused at the descriptor limit, when any. */
static void fds_status(int fd)
{
	long limit;
	unsigned long n = fds_refused(&limit);

	if (n)
		reply_text(fd, "  processes not traced, refused at the descriptor limit (%ld): %lu\n",
			   limit, n);
}

/* processes: "PID STARTTIME UID PROCNAME" per registered process. */
static int cmd_processes(int fd)
{
	for (const struct app *a = apps_list(); a; a = a->next)
		reply_text(fd, "%d %" PRIu64 " %u %s\n", (int)a->pid, a->starttime,
			   (unsigned int)a->uid, a->procname);
	return reply_end(fd, 0, NULL);
}

/* A traced process, and what it did to our means of reaching it. */
static void status_app(int fd, const struct app *a)
{
	reply_text(fd, "    %s[%d]%s\n", a->procname, (int)a->pid,
		   a->detached ? ": closed its connection to the session daemon; its buffers "
				 "are still written out, it registers again at its next event" : "");
	if (a->reattached)
		reply_text(fd, "      registered again %u times after closing shmtrace's "
			   "descriptors\n", a->reattached);
	if (!a->signo || (a->bell_lost & APP_BELL_LOST) || __atomic_load_n(&a->proc->doorbell_off,
								__ATOMIC_RELAXED))
		reply_text(fd, "      no doorbell signal: control changes are seen at its next "
			   "event\n");
}

static int cmd_status(int fd, const char *name)
{
	char msg[PROTO_PATH_MAX + 256] = "";
	int shown = 0, werr = 0;

	for (struct session *s = ss.list; s; s = s->next) {
		int nproc = 0, err;

		if (name[0] && strcmp(name, s->name))
			continue;
		shown++;
		reply_text(fd, "Session %s: %s\n  output: %s\n", s->name,
			   s->active ? "active" : "inactive", s->output);
		/* the processes this session may trace: ours, and those of
		 * the uids it allows */
		for (const struct app *a = apps_list(); a; a = a->next)
			nproc += allow_uid(s, a->uid);
		reply_text(fd, "  traced processes: %d\n", nproc);
		fds_status(fd);
		for (const struct app *a = apps_list(); a; a = a->next)
			if (allow_uid(s, a->uid))
				status_app(fd, a);
		allow_status(fd, s);
		notices_status(fd, s);
		if (!channel_find(s, "channel0"))
			reply_text(fd, "  channel0 (made by enable-event without -c): %s, pool of %u "
				   "buffers\n", s->def_mode == SHM_MODE_DISCARD ? "discard" : "overwrite",
				   s->def_pool);
		for (const struct channel *ch = s->chans; ch; ch = ch->next) {
			err = status_channel(fd, ch, msg, sizeof(msg));
			if (!werr)
				werr = err;
		}
		aggs_status(fd, s);
		err = netout_error(fd, s, msg, sizeof(msg));
		if (!werr)
			werr = err;
	}
	if (name[0] && !shown)
		return reply_end(fd, -ENOENT, "no session named '%s'", name);
	if (werr)
		return reply_end(fd, werr, "%s", msg);
	if (!shown)
		reply_text(fd, "No session. Session daemon pid %d, home %s\n", (int)getpid(), cmd_home);
	return reply_end(fd, 0, NULL);
}

/* rotate [size=BYTES] [every=MS]: now, or automatically from now on. */
static int cmd_rotate(int fd, struct session *s, const struct cmd_rotate *r)
{
	int ret;

	if (s->relay_id)
		return reply_end(fd, -EOPNOTSUPP, "session %s streams to a relay: no chunks",
				 s->name);
	if (r->set) {
		if (r->set & CMD_ROT_SIZE)
			s->rot_bytes = r->size;
		if (r->set & CMD_ROT_EVERY)
			s->rot_ms = r->every_ms;
		s->rot_last_ns = now_ns(CLOCK_MONOTONIC);
		reply_text(fd, "Session %s rotates every %" PRIu64 " ms, every %" PRIu64
			   " KiB (0: not)\\n", s->name, s->rot_ms, s->rot_bytes >> 10);
		return reply_end(fd, 0, NULL);
	}
	ret = session_rotate(s);
	if (ret < 0)
		return reply_end(fd, ret, "rotation failed: %s", strerror(-ret));
	reply_text(fd, "Session %s: chunk %u written to %s/chunk-%u\\n", s->name, s->nrotations - 1,
		   s->output, s->nrotations - 1);
	return reply_end(fd, 0, NULL);
}

/*
 * Where snapshot @n of @s goes by default: next to the session's output,
 * never in it (OUTPUT-snapshot-N-DATE), so that reading the output reads
 * each event once.
 */
static int snapshot_default(const struct session *s, unsigned int n, const char *stamp,
			    char *out, size_t len)
{
	char real[PATH_MAX];
	const char *base = realpath(s->output, real) ? real : s->output;
	size_t blen = strlen(base);

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
static int cmd_snapshot(int fd, struct session *s, const struct cmd_snapshot *c)
{
	struct msg_c_snapshot m;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int ret = 0, given = c->output[0] != 0;

	if (s->relay_id)
		return reply_end(fd, -EOPNOTSUPP, "session %s streams to a relay: no snapshots",
				 s->name);
	memset(&m, 0, sizeof(m));
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (given) {
		if (c->output[0] != '/' || strlen(c->output) >= sizeof(m.output) - 64)
			return reply_end(fd, -EINVAL, "output must be an absolute path");
		snprintf(m.output, sizeof(m.output), "%s", c->output);
	} else {
		ret = snapshot_default(s, s->nsnapshots + 1, stamp, m.output, sizeof(m.output));
		if (ret < 0)
			return reply_end(fd, ret, "no default place for a snapshot of output %s: "
					 "give --output", s->output);
	}
	if (!s->chans)
		return reply_end(fd, -ENOENT, "session %s has no channel", s->name);
	m.chan_id = s->chans->id;	/* the consumer copies the session's output */
	ret = consumer_call(MSG_C_SNAPSHOT, &m, sizeof(m), NULL, 0, NULL, 0);
	if (ret == -ENOENT)
		return reply_end(fd, ret, "nothing to snapshot: no process traced by session %s has "
				 "buffers (none alive, or none emitted an enabled event)", s->name);
	if (ret < 0)
		return reply_end(fd, ret, "snapshot into %s failed: %s", m.output, strerror(-ret));
	if (!given)
		s->nsnapshots++;	/* N of the default places */
	reply_text(fd, "Snapshot of session %s written to %s\n", s->name, m.output);
	if (path_inside(m.output, s->output))
		reply_text(fd, "Note: it is inside the session's output: reading %s reads its "
			   "events twice.\n", s->output);
	return reply_end(fd, 0, NULL);
}

static int cmd_start(int fd, struct session *s)
{
	if (s->active)
		return reply_end(fd, -EALREADY, "session %s is already active", s->name);
	if (netout_check(fd, s) < 0)
		return -EPIPE;
	marker_make(s);
	s->active = 1;
	s->started = 1;
	apps_update_all();
	reply_text(fd, "Tracing started for session %s.\n", s->name);
	return reply_end(fd, 0, NULL);
}

/* stop: everything recorded is on disk, or the write errors are said. */
static int cmd_stop(int fd, struct session *s)
{
	char msg[PROTO_PATH_MAX + 256];
	int ret;

	if (!s->active)
		return reply_end(fd, -EALREADY, "session %s is not active", s->name);
	session_stop(s);
	reply_text(fd, "Tracing stopped for session %s.\n", s->name);
	ret = session_werrors(fd, s, msg, sizeof(msg));
	return ret ? reply_end(fd, ret, "%s", msg) : reply_end(fd, 0, NULL);
}

/* destroy: an active session is stopped first, its write errors said. */
static int cmd_destroy(int fd, struct session *s)
{
	char msg[PROTO_PATH_MAX + 256];
	int ret = 0;

	if (s->active) {
		session_stop(s);
		ret = session_werrors(fd, s, msg, sizeof(msg));
	}
	reply_text(fd, "Session %s destroyed.\n", s->name);
	session_destroy(s);
	return ret ? reply_end(fd, ret, "%s", msg) : reply_end(fd, 0, NULL);
}

static int session_dispatch(int fd, const struct proto_cmd *c)
{
	struct session *s;

	switch (c->verb) {
	case VERB_PING:
		return reply_end(fd, 0, NULL);
	case VERB_CREATE:
		return cmd_create(fd, c->session, &c->b.create);
	case VERB_LIST:
		return cmd_list(fd);
	case VERB_LIST_EVENTS:
		return cmd_list_events(fd);
	case VERB_STATUS:
		return cmd_status(fd, c->session);
	case VERB_PROCESSES:
		return cmd_processes(fd);
	default:
		break;
	}
	s = session_get(fd, c->session);
	if (!s)
		return -ENOENT;
	switch (c->verb) {
	case VERB_DESTROY:
		return cmd_destroy(fd, s);
	case VERB_ENABLE_EVENT:
		return cmd_enable(fd, s, c);
	case VERB_ENABLE_CHANNEL:
		return cmd_enable_channel(fd, s, &c->b.channel);
	case VERB_SNAPSHOT:
		return cmd_snapshot(fd, s, &c->b.snapshot);
	case VERB_ROTATE:
		return cmd_rotate(fd, s, &c->b.rotate);
	case VERB_DISABLE_EVENT:
		return cmd_disable(fd, s, c);
	case VERB_ADD_CONTEXT:
		return cmd_add_context(fd, s, &c->b.context);
	case VERB_NOTICES:
		return cmd_notices(fd, s);
	case VERB_AGGREGATE:
		return cmd_aggregate(fd, s, c);
	case VERB_DISABLE_AGG:
		return cmd_disable_agg(fd, s, c);
	case VERB_SHOW_AGG:
		return cmd_show_agg(fd, s, &c->b.show_agg);
	case VERB_START:
		return cmd_start(fd, s);
	case VERB_STOP:
		return cmd_stop(fd, s);
	default:
		return reply_end(fd, -EINVAL, "unknown command %u", c->verb);
	}
}

/* Verbs that only read: nothing to save after them. */
static int verb_reads(unsigned int verb)
{
	return verb == VERB_PING || verb == VERB_LIST || verb == VERB_LIST_EVENTS ||
	       verb == VERB_STATUS || verb == VERB_PROCESSES || verb == VERB_NOTICES ||
	       verb == VERB_SHOW_AGG;
}

void cmd_init(const char *home)
{
	cmd_home = home;
}

int session_command(int fd, const char *body, size_t len)
{
	static struct proto_cmd c;
	int ret;

	if (proto_cmd_decode(body, len, &c) < 0) {
		log_warn("malformed command refused");
		return reply_end(fd, -EPROTO, "malformed command (a tracectl of another version?)");
	}
	ret = session_dispatch(fd, &c);
	if (!verb_reads(c.verb))
		state_save();	/* a daemon after us resumes from there */
	return ret;
}
