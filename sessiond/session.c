/* SPDX-License-Identifier: MIT */
/*
 * session.c - sessions, their channel and enabled-event patterns, and the
 * tracectl commands.
 *
 * Each session owns one channel, which takes one of the SHM_MAX_CHAN
 * channel slots that every control page has; an event is recorded in a
 * slot when the slot's session is active and one of its patterns matches
 * the event's "provider:event" name. Sessions are fully independent: each
 * has its own buffers (a pool per process and channel) and output.
 *
 * Commands arrive as one MSG_CMD per connection; the reply is zero or more
 * MSG_REPLY_TEXT messages (text to print) and one MSG_REPLY with the
 * status and, on error, the message.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sessiond.h"
#include "glob.h"
#include "home.h"
#include "log.h"
#include "util.h"

#define DEFAULT_SUBBUF		(512u << 10)
#define DEFAULT_NUM_SUBBUF	16u
#define DEFAULT_POOL		10u
#define DEFAULT_FLUSH_MS	1000u

static int enabler_matches(const struct enabler *e, const char *name, int loglevel)
{
	if (e->ll_kind == LL_RANGE && loglevel > e->loglevel)
		return 0;
	if (e->ll_kind == LL_ONLY && loglevel != e->loglevel)
		return 0;
	return glob_match(e->pattern, name);
}

static int session_enables(const struct session *s, const char *name, int loglevel)
{
	for (const struct enabler *e = s->enablers; e; e = e->next)
		if (enabler_matches(e, name, loglevel))
			return 1;
	return 0;
}

unsigned int session_mask(const char *event_name, int loglevel)
{
	unsigned int m = 0;

	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
		const struct channel *ch = sd.chan[i];

		if (ch && ch->session->active && session_enables(ch->session, event_name, loglevel))
			m |= 1u << i;
	}
	return m;
}

static struct session *session_by_name(const char *name)
{
	for (struct session *s = sd.sessions; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

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
	if (!sd.sessions) {
		reply_end(fd, -ENOENT, "no session: create one first");
		return NULL;
	}
	if (sd.sessions->next) {
		reply_end(fd, -EINVAL, "several sessions exist: name one with -s NAME");
		return NULL;
	}
	return sd.sessions;
}

int channel_to_consumer(const struct channel *ch)
{
	struct msg_c_channel m;

	memset(&m, 0, sizeof(m));
	m.chan_id = ch->id;
	m.chan_slot = ch->slot;
	m.flush_ms = ch->flush_ms;
	m.mode = ch->mode;
	snprintf(m.name, sizeof(m.name), "%s", ch->name);
	snprintf(m.output, sizeof(m.output), "%s", ch->session->output);
	return consumer_call(MSG_C_CHANNEL_ADD, &m, sizeof(m), NULL, 0, NULL, 0);
}

static int name_ok(const char *n)
{
	if (!n[0] || n[0] == '.' || strlen(n) >= PROTO_NAME_MAX)
		return 0;
	for (; *n; n++)
		if (*n == '/' || (unsigned char)*n < 33)
			return 0;
	return 1;
}

static int cmd_create(int fd, const char *name, int argc, const char **argv)
{
	char gen[PROTO_NAME_MAX], stamp[32];
	struct session *s;
	struct channel *ch;
	unsigned int slot;
	time_t now = time(NULL);
	struct tm tm;
	uint32_t pool = DEFAULT_POOL;
	int ret;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (!name[0]) {
		snprintf(gen, sizeof(gen), "auto-%s", stamp);
		name = gen;
	}
	if (!name_ok(name))
		return reply_end(fd, -EINVAL, "invalid session name '%s'", name);
	if (session_by_name(name))
		return reply_end(fd, -EEXIST, "session '%s' already exists", name);
	if (argc > 2 && argv[2][0]) {
		char *end;
		unsigned long v = strtoul(argv[2], &end, 10);

		if (*end || v < 1 || v > SHM_MAX_SLOTS)
			return reply_end(fd, -EINVAL, "--pool-size must be 1 to %u", SHM_MAX_SLOTS);
		pool = (uint32_t)v;
	}
	for (slot = 0; slot < SHM_MAX_CHAN && sd.chan[slot]; slot++)
		;
	if (slot == SHM_MAX_CHAN)
		return reply_end(fd, -EBUSY, "too many sessions (at most %d)", SHM_MAX_CHAN);
	s = calloc(1, sizeof(*s));
	ch = calloc(1, sizeof(*ch));
	if (!s || !ch) {
		free(s);
		free(ch);
		return reply_end(fd, -ENOMEM, "out of memory");
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (argc > 0 && argv[0][0]) {
		if (argv[0][0] != '/' || strlen(argv[0]) >= sizeof(s->output) - 64) {
			free(s);
			free(ch);
			return reply_end(fd, -EINVAL, "output must be an absolute path");
		}
		snprintf(s->output, sizeof(s->output), "%s", argv[0]);
	} else {
		snprintf(s->output, sizeof(s->output), "%s/%s/%s-%s", sd.home, HOME_TRACES,
			 name, stamp);
	}
	ret = mkdir_p(s->output, 0750);
	if (ret < 0) {
		reply_end(fd, ret, "cannot create %s: %s", s->output, strerror(-ret));
		free(s);
		free(ch);
		return ret;
	}
	ch->id = ++sd.next_chan_id;
	ch->slot = slot;
	snprintf(ch->name, sizeof(ch->name), "channel0");
	ch->subbuf_size = DEFAULT_SUBBUF;
	ch->num_subbuf = DEFAULT_NUM_SUBBUF;
	ch->pool_size = pool;
	ch->mode = argc > 1 && !strcmp(argv[1], "overwrite") ? SHM_MODE_OVERWRITE : SHM_MODE_DISCARD;
	ch->flush_ms = DEFAULT_FLUSH_MS;
	ch->session = s;
	s->chan = ch;
	s->next = sd.sessions;
	sd.sessions = s;
	sd.chan[slot] = ch;
	channel_to_consumer(ch);
	apps_update_all();
	log_info("session %s created, output %s", s->name, s->output);
	reply_text(fd, "Session %s created.\nTraces will be written in %s\n", s->name, s->output);
	return reply_end(fd, 0, NULL);
}

static void session_flush(struct session *s)
{
	struct msg_c_id m = { .id = s->chan->id };

	consumer_call(MSG_C_FLUSH, &m, sizeof(m), NULL, 0, NULL, 0);
}

static void session_stop(struct session *s)
{
	struct timespec ts = { 0, 2000000 };

	s->active = 0;
	apps_update_all();
	nanosleep(&ts, NULL);	/* let events already being written commit */
	session_flush(s);
}

static void session_destroy(struct session *s)
{
	struct msg_c_id m = { .id = s->chan->id };

	if (s->active)
		session_stop(s);
	for (struct session **pp = &sd.sessions; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	consumer_call(MSG_C_CHANNEL_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
	sd.chan[s->chan->slot] = NULL;
	apps_update_all();
	apps_forget_channel(s->chan->id);
	log_info("session %s destroyed", s->name);
	while (s->enablers) {
		struct enabler *e = s->enablers;

		s->enablers = e->next;
		free(e);
	}
	free(s->chan);
	free(s);
}

static const char *const ll_names[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

/* "r6" or "o7" after the pattern's PROTO_ARG_SEP: a log level condition */
static int enabler_parse(struct enabler *e, const char *arg)
{
	const char *sep = strchr(arg, PROTO_ARG_SEP);
	size_t n = sep ? (size_t)(sep - arg) : strlen(arg);

	if (n == 0 || n >= PROTO_EVNAME_MAX)
		return -EINVAL;
	memcpy(e->pattern, arg, n);
	e->pattern[n] = 0;
	e->ll_kind = LL_ANY;
	if (!sep)
		return 0;
	if ((sep[1] != 'r' && sep[1] != 'o') || sep[2] < '0' || sep[2] > '7' || sep[3])
		return -EINVAL;
	e->ll_kind = sep[1] == 'r' ? LL_RANGE : LL_ONLY;
	e->loglevel = sep[2] - '0';
	return 0;
}

static void enabler_describe(const struct enabler *e, char *buf, size_t len)
{
	if (e->ll_kind == LL_ANY)
		snprintf(buf, len, "%s", e->pattern);
	else
		snprintf(buf, len, "%s (loglevel %s %s)", e->pattern,
			 e->ll_kind == LL_RANGE ? "<=" : "==", ll_names[e->loglevel]);
}

static int cmd_enable(int fd, struct session *s, int argc, const char **argv)
{
	for (int i = 0; i < argc; i++) {
		struct enabler *e, want;
		char what[PROTO_EVNAME_MAX + 64];

		if (enabler_parse(&want, argv[i]) < 0)
			return reply_end(fd, -EINVAL, "invalid event pattern '%s'", argv[i]);
		for (e = s->enablers; e; e = e->next)
			if (!strcmp(e->pattern, want.pattern))
				break;
		if (!e) {
			e = calloc(1, sizeof(*e));
			if (!e)
				return reply_end(fd, -ENOMEM, "out of memory");
			e->next = s->enablers;
			s->enablers = e;
		}
		/* enabling a pattern again replaces its conditions */
		memcpy(e->pattern, want.pattern, sizeof(e->pattern));
		e->ll_kind = want.ll_kind;
		e->loglevel = want.loglevel;
		enabler_describe(e, what, sizeof(what));
		reply_text(fd, "Event pattern '%s' enabled in session %s.\n", what, s->name);
	}
	apps_update_all();
	return reply_end(fd, 0, NULL);
}

static int cmd_disable(int fd, struct session *s, int argc, const char **argv)
{
	for (int i = 0; i < argc; i++) {
		struct enabler **pp = &s->enablers;

		while (*pp && strcmp((*pp)->pattern, argv[i]))
			pp = &(*pp)->next;
		if (!*pp) {
			apps_update_all();
			return reply_end(fd, -ENOENT, "pattern '%s' is not enabled in session %s",
					 argv[i], s->name);
		}
		struct enabler *e = *pp;

		*pp = e->next;
		free(e);
		reply_text(fd, "Event pattern '%s' disabled in session %s.\n", argv[i], s->name);
	}
	apps_update_all();
	return reply_end(fd, 0, NULL);
}

static int cmd_list(int fd)
{
	if (!sd.sessions)
		reply_text(fd, "No session.\n");
	for (const struct session *s = sd.sessions; s; s = s->next)
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

static int cmd_list_events(int fd)
{
	if (!sd.apps)
		reply_text(fd, "No traced process.\n");
	for (const struct app *a = sd.apps; a; a = a->next) {
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
			reply_text(fd, "    %s (loglevel %d) { %s }\n", e->name, (int)e->loglevel, fields);
		}
	}
	return reply_end(fd, 0, NULL);
}

static int cmd_status(int fd, const char *name)
{
	int shown = 0;

	for (struct session *s = sd.sessions; s; s = s->next) {
		const struct channel *ch = s->chan;
		struct msg_c_id m = { .id = ch->id };
		struct msg_c_stats st;
		int nproc = 0, ret;

		if (name[0] && strcmp(name, s->name))
			continue;
		shown++;
		memset(&st, 0, sizeof(st));
		ret = consumer_call(MSG_C_STATS, &m, sizeof(m), NULL, 0, &st, sizeof(st));
		reply_text(fd, "Session %s: %s\n  output: %s\n", s->name,
			   s->active ? "active" : "inactive", s->output);
		reply_text(fd, "  channel %s: %s, %u sub-buffers of %u KiB, pool of %u buffers, flush every %u ms\n",
			   ch->name, ch->mode == SHM_MODE_DISCARD ? "discard" : "overwrite",
			   ch->num_subbuf, ch->subbuf_size >> 10, ch->pool_size, ch->flush_ms);
		reply_text(fd, "  enabled events:%s\n", s->enablers ? "" : " none");
		for (const struct enabler *e = s->enablers; e; e = e->next) {
			char what[PROTO_EVNAME_MAX + 64];

			enabler_describe(e, what, sizeof(what));
			reply_text(fd, "    %s\n", what);
		}
		for (const struct app *a = sd.apps; a; a = a->next)
			nproc++;
		reply_text(fd, "  traced processes: %d\n", nproc);
		for (const struct app *a = sd.apps; a; a = a->next)
			reply_text(fd, "    %s[%d]\n", a->procname, (int)a->pid);
		if (ret < 0)
			reply_text(fd, "  consumer: not available (%s)\n", strerror(-ret));
		else
			reply_text(fd, "  events recorded: %" PRIu64 "\n  events discarded: %" PRIu64
				   "\n  events overwritten: %" PRIu64 "\n  bytes written: %" PRIu64
				   "\n  streams: %" PRIu64 "\n  buffers: %" PRIu64
				   "\n  events lost without a buffer: %" PRIu64 "\n",
				   st.events, st.discarded, st.overwritten, st.bytes, st.streams,
				   st.buffers, st.nobuf);
	}
	if (name[0] && !shown)
		return reply_end(fd, -ENOENT, "no session named '%s'", name);
	if (!shown)
		reply_text(fd, "No session. Session daemon pid %d, home %s\n", (int)getpid(), sd.home);
	return reply_end(fd, 0, NULL);
}

int session_command(int fd, const char *body, size_t len)
{
	const struct msg_cmd *c = (const void *)body;
	const char *argv[256];
	int argc = proto_cmd_args(body, len, argv, 256);
	struct session *s;
	char name[PROTO_NAME_MAX];

	if (argc < 0) {
		log_warn("malformed command refused");
		return reply_end(fd, -EPROTO, "malformed command");
	}
	memcpy(name, c->session, sizeof(name));
	switch (c->verb) {
	case VERB_PING:
		return reply_end(fd, 0, NULL);
	case VERB_CREATE:
		return cmd_create(fd, name, argc, argv);
	case VERB_LIST:
		return cmd_list(fd);
	case VERB_LIST_EVENTS:
		return cmd_list_events(fd);
	case VERB_STATUS:
		return cmd_status(fd, name);
	default:
		break;
	}
	if (c->verb >= VERB_MAX)
		return reply_end(fd, -EINVAL, "unknown command %u", c->verb);
	s = session_get(fd, name);
	if (!s)
		return -ENOENT;
	switch (c->verb) {
	case VERB_DESTROY:
		reply_text(fd, "Session %s destroyed.\n", s->name);
		session_destroy(s);
		return reply_end(fd, 0, NULL);
	case VERB_ENABLE_EVENT:
		return cmd_enable(fd, s, argc, argv);
	case VERB_DISABLE_EVENT:
		return cmd_disable(fd, s, argc, argv);
	case VERB_START:
		if (s->active)
			return reply_end(fd, -EALREADY, "session %s is already active", s->name);
		s->active = 1;
		apps_update_all();
		reply_text(fd, "Tracing started for session %s.\n", s->name);
		return reply_end(fd, 0, NULL);
	case VERB_STOP:
		if (!s->active)
			return reply_end(fd, -EALREADY, "session %s is not active", s->name);
		session_stop(s);
		reply_text(fd, "Tracing stopped for session %s.\n", s->name);
		return reply_end(fd, 0, NULL);
	default:
		return reply_end(fd, -EINVAL, "unknown command %u", c->verb);
	}
}

void sessions_shutdown(void)
{
	while (sd.sessions)
		session_destroy(sd.sessions);
}
