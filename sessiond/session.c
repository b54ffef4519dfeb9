/* SPDX-License-Identifier: MIT */
/*
 * session.c - sessions, their channels and enabled-event patterns: what
 * the tracectl commands (cmd.c) act on.
 *
 * Each channel of a session takes one of the SHM_MAX_CHAN channel slots
 * that every control page has; an event is recorded in a slot when the
 * slot's session is active, the channel is not disabled (disable-channel:
 * it keeps its slot, its buffers and its traces, and records nothing until
 * enable-channel enables it again) and one of the channel's patterns
 * matches the event's "provider:event" name (and log level). Sessions are
 * fully independent: each channel has its own buffers (a pool per process
 * and channel), and each session its own output. enable-event without -c
 * uses the channel "channel0", created at the first use with the settings
 * of create (--overwrite, --pool-size). A memory-only session (create
 * --snapshot) has overwrite channels only, which the consumer never
 * drains: it writes nothing but its snapshots.
 *
 * State: the sessions and the slots (`ss`), owned here; what ends them
 * (stop, destroy) is life.c's. A crash leaves them in state.json, written
 * after each command (state.c).
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
#include "session.h"
#include "client.h"
#include "consumer.h"
#include "support/ctfmeta.h"
#include "common/filter.h"
#include "support/filtercc.h"
#include "common/glob.h"
#include "common/home.h"
#include "support/log.h"
#include "common/util.h"
#include "support/sysutil.h"

struct sessions ss;

void sessions_init(void)
{
	ss.next_id = now_ns(CLOCK_REALTIME);
}

int enabler_excludes(const struct enabler *e, const char *name)
{
	for (uint32_t i = 0; i < e->nexcl; i++)
		if (glob_match(e->excl[i], name))
			return 1;
	return 0;
}

int excl_set(struct enabler *e, const char *const *excl, uint32_t n)
{
	e->nexcl = 0;
	e->excl = NULL;
	if (!n)
		return 0;
	e->excl = calloc(n, sizeof(*e->excl));
	if (!e->excl)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		snprintf(e->excl[i], sizeof(e->excl[i]), "%s", excl[i]);
	e->nexcl = n;
	return 0;
}

/* Its pattern matches, no exclusion does, the log level is its own. */
static int enabler_matches(const struct enabler *e, const char *name, int loglevel)
{
	if (e->ll_kind == LL_RANGE && loglevel > e->loglevel)
		return 0;
	if (e->ll_kind == LL_ONLY && loglevel != e->loglevel)
		return 0;
	return glob_match(e->pattern, name) && !enabler_excludes(e, name);
}

/* @expr and its bytecode @code (@len bytes) as @e's filter: 0, or -ENOMEM. */
static int filter_keep(struct enabler *e, const char *expr, const unsigned char *code, long len)
{
	e->filter = strdup(expr);
	e->code = malloc((size_t)len);
	if (!e->filter || !e->code) {
		free(e->filter);
		free(e->code);
		e->filter = NULL;
		e->code = NULL;
		return -ENOMEM;
	}
	memcpy(e->code, code, (size_t)len);
	e->code_len = (uint32_t)len;
	return 0;
}

int filter_set(struct enabler *e, const char *expr, char *err, size_t errlen)
{
	unsigned char code[SHM_FILTER_MAX_CODE];
	char msg[128];
	int col = 0;
	long len = flt_compile(expr, code, sizeof(code), &col, msg, sizeof(msg));

	if (len < 0) {
		if (len == -EINVAL)
			snprintf(err, errlen, "bad filter at column %d: %s", col, msg);
		else
			snprintf(err, errlen, "filter too long (at most %u bytes of bytecode)",
				 SHM_FILTER_MAX_CODE);
		return -EINVAL;
	}
	if (filter_keep(e, expr, code, len) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int filter_make(struct reply *r, struct enabler *e, const char *expr)
{
	unsigned char code[SHM_FILTER_MAX_CODE];
	char msg[128];
	int col = 0;
	long len = flt_compile(expr, code, sizeof(code), &col, msg, sizeof(msg));

	if (len == -EINVAL)
		return reply_fail(r, -EINVAL, RE_FILTER, .detail = msg, .n = { (uint64_t)col });
	if (len < 0)
		return reply_fail(r, -EINVAL, RE_FILTER_LONG, .n = { SHM_FILTER_MAX_CODE, 0 });
	if (strlen(expr) >= PROTO_FILTER_MAX)	/* a reply shows it whole */
		return reply_fail(r, -EINVAL, RE_FILTER_LONG, .n = { PROTO_FILTER_MAX - 1, 1 });
	if (filter_keep(e, expr, code, len) < 0)
		return reply_fail(r, -ENOMEM, RE_ERRNO, .name = "filter");
	return 0;
}

/*
 * The filter that decides when the filtered patterns @parts all match one
 * event: their filters or-ed, compiled once and kept until the channel's
 * patterns change. NULL when that is too long: the event is then recorded
 * whatever its fields (more than asked for, never less).
 */
static const struct enabler *channel_combo(struct channel *ch, const struct enabler **parts,
					   unsigned int n)
{
	char expr[8192], err[200];
	size_t len = 0;
	struct enabler *e;

	for (unsigned int i = 0; i < n; i++) {
		int k = snprintf(expr + len, sizeof(expr) - len, "%s(%s)", i ? " || " : "",
				 parts[i]->filter);

		if (k < 0 || (size_t)k >= sizeof(expr) - len)
			return NULL;
		len += (size_t)k;
	}
	for (e = ch->combos; e; e = e->next)
		if (!strcmp(e->filter, expr))
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	if (filter_set(e, expr, err, sizeof(err)) < 0) {
		log_warn("channel %s: filters of several patterns cannot be combined (%s): "
			 "the events they share are recorded unfiltered", ch->name, err);
		free(e);
		return NULL;
	}
	e->next = ch->combos;
	ch->combos = e;
	return e;
}

/*
 * Does @ch record the event? 1, and *filter set to the enabler whose
 * filter decides: NULL when a matching pattern has no filter (the event is
 * then recorded whatever its fields), the pattern's when one matches, and
 * their filters or-ed when several do.
 */
static int channel_enables(struct channel *ch, const char *name, int loglevel,
			   const struct enabler **filter)
{
	const struct enabler *parts[16];
	unsigned int n = 0;

	*filter = NULL;
	for (const struct enabler *e = ch->enablers; e; e = e->next) {
		if (!enabler_matches(e, name, loglevel))
			continue;
		if (!e->code)
			return 1;
		if (n < sizeof(parts) / sizeof(parts[0]))
			parts[n] = e;
		n++;
	}
	if (n > sizeof(parts) / sizeof(parts[0]))
		return 1;	/* too many to combine: unfiltered */
	*filter = n > 1 ? channel_combo(ch, parts, n) : n ? parts[0] : NULL;
	return n > 0;
}

/* The channel slots that record the event, and the filter of each. */
unsigned int session_mask(const char *event_name, int loglevel,
			  const struct enabler *filter[SHM_MAX_CHAN])
{
	unsigned int m = 0;

	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
		struct channel *ch = ss.chan[i];

		filter[i] = NULL;
		if (ch && ch->session->active && !ch->disabled &&
		    channel_enables(ch, event_name, loglevel, &filter[i]))
			m |= 1u << i;
	}
	return m;
}

int session_records(const struct session *s, const char *name, int loglevel)
{
	for (const struct channel *ch = s->chans; ch; ch = ch->next)
		for (const struct enabler *e = ch->enablers; e && !ch->disabled; e = e->next)
			if (enabler_matches(e, name, loglevel))
				return 1;
	return 0;
}

struct session *session_by_name(const char *name)
{
	for (struct session *s = ss.list; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

int channel_to_consumer(const struct channel *ch)
{
	struct msg_c_channel m;

	memset(&m, 0, sizeof(m));
	m.chan_id = ch->id;
	m.chan_slot = ch->slot;
	m.flush_ms = ch->flush_ms;
	m.mode = ch->mode;
	m.compress = ch->compress;
	m.relay_id = ch->session->relay_id;
	m.flags = ch->session->memory ? PROTO_CHAN_MEMORY : 0;
	snprintf(m.name, sizeof(m.name), "%s", ch->name);
	snprintf(m.output, sizeof(m.output), "%s", ch->session->output);
	snprintf(m.session, sizeof(m.session), "%s", ch->session->name);
	m.created_s = ch->session->created_s;
	m.base_len = (uint32_t)ch->session->base_len;
	/* (a streamed session sends the root, unused) */
	return consumer_call(MSG_C_CHANNEL_ADD, &m, sizeof(m), &ch->session->base_fd, 1, NULL, 0);
}

struct channel *channel_find(const struct session *s, const char *name)
{
	for (struct channel *ch = s->chans; ch; ch = ch->next)
		if (!strcmp(ch->name, name))
			return ch;
	return NULL;
}

/* A new channel of @s in a free slot, known to the consumer. */
struct channel *channel_new(struct session *s, const struct channel *want, int *err)
{
	struct channel *ch;
	unsigned int slot;

	for (slot = 0; slot < SHM_MAX_CHAN && ss.chan[slot]; slot++)
		;
	if (slot == SHM_MAX_CHAN) {
		*err = -EBUSY;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		*err = -ENOMEM;
		return NULL;
	}
	*ch = *want;
	ch->id = ++ss.next_id;
	ch->slot = slot;
	ch->session = s;
	ch->enablers = NULL;
	ch->next = NULL;
	/* the session's channels in creation order */
	for (struct channel **pp = &s->chans;; pp = &(*pp)->next) {
		if (!*pp) {
			*pp = ch;
			break;
		}
	}
	ss.chan[slot] = ch;
	channel_to_consumer(ch);
	return ch;
}

void channel_defaults(const struct session *s, struct channel *ch, const char *name)
{
	memset(ch, 0, sizeof(*ch));
	snprintf(ch->name, sizeof(ch->name), "%s", name);
	ch->subbuf_size = DEFAULT_SUBBUF;
	ch->num_subbuf = DEFAULT_NUM_SUBBUF;
	ch->pool_size = s->def_pool;
	ch->mode = s->def_mode;
	ch->flush_ms = DEFAULT_FLUSH_MS;
	ch->budget = DEFAULT_BUDGET;
	if (s->live_us)		/* live: open packets go out every period */
		ch->flush_ms = s->live_us >= 2000 ? s->live_us / 1000 : 1;
}

uint32_t channel_max_buffers(const struct channel *ch)
{
	/* a buffer counts its sub-buffers (its header page aside) */
	uint64_t n = ch->budget / ((uint64_t)ch->subbuf_size * ch->num_subbuf);

	if (!ch->budget)
		return 0;
	return n < 1 ? 1 : n > SHM_MAX_SLOTS ? SHM_MAX_SLOTS : (uint32_t)n;
}

/*
 * The output's marker (PROTO_ACTIVE_MARKER) says to readers following the
 * session that more may come: made at start (whole, by a rename), removed
 * once stop wrote everything out (with the directory, when start made it
 * and it stayed empty).
 */
/*
 * The descriptor of what exists of @s's output now (at create, or when a
 * daemon after us resumes it): traces are made under it without following
 * a link, so that a link planted later in the output's path leads nowhere.
 * 0 or -errno.
 */
int session_open_base(struct session *s)
{
	int fd;

	if (s->relay_id) {
		fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		s->base_len = 0;
	} else {
		fd = dir_base(s->output, &s->base_len);
	}
	if (fd < 0)
		return fd;
	s->base_fd = fd;
	return 0;
}

#define MARKER_TMP	PROTO_ACTIVE_MARKER ".new"

void marker_make(struct session *s)
{
	char text[64];
	uint32_t ms = s->chans ? 0 : DEFAULT_FLUSH_MS;
	size_t made = 0;
	int dfd, fd;

	if (s->relay_id || s->memory)
		return;		/* (a memory-only session writes nothing but snapshots) */
	/* how late an event may reach the disk: the longest flush interval
	 * (a channel never flushed, the default's) */
	for (const struct channel *ch = s->chans; ch; ch = ch->next)
		if ((ch->flush_ms ? ch->flush_ms : DEFAULT_FLUSH_MS) > ms)
			ms = ch->flush_ms ? ch->flush_ms : DEFAULT_FLUSH_MS;
	s->made_output = 0;
	dfd = dir_walk(s->base_fd, s->output + s->base_len, 0750, &made);
	if (made)
		s->made_output = s->base_len + made;
	if (dfd < 0) {
		log_warn("session %s: cannot make %s: %s", s->name, s->output, strerror(-dfd));
		return;		/* (the consumer says why at its first trace) */
	}
	/* written aside, then renamed: a follower never reads it half made */
	fd = openat(dfd, MARKER_TMP, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd >= 0) {
		int ret = write_all(fd, text, (size_t)snprintf(text, sizeof(text), "%d %u\n",
							       (int)getpid(), ms));

		close(fd);
		if (ret < 0 || renameat(dfd, MARKER_TMP, dfd, PROTO_ACTIVE_MARKER) < 0)
			unlinkat(dfd, MARKER_TMP, 0);	/* (only followers miss it) */
	}
	close(dfd);
}

void marker_remove(struct session *s)
{
	int dfd;

	if (s->relay_id)
		return;
	dfd = dir_walk(s->base_fd, s->output + s->base_len, 0, NULL);
	if (dfd >= 0) {
		unlinkat(dfd, PROTO_ACTIVE_MARKER, 0);
		close(dfd);
	}
	rmdir_made(s->output, s->made_output);	/* only what is empty */
	s->made_output = 0;
}

/* What @e holds besides itself: its filter's text and code, its exclusions. */
void enabler_free_parts(struct enabler *e)
{
	free(e->filter);
	free(e->code);
	free(e->excl);
	e->excl = NULL;
	e->nexcl = 0;
}

void enabler_free(struct enabler *e)
{
	enabler_free_parts(e);
	free(e);
}

void enablers_free(struct enabler *e)
{
	while (e) {
		struct enabler *next = e->next;

		enabler_free(e);
		e = next;
	}
}

