/* SPDX-License-Identifier: MIT */
/*
 * render.c - replies of the session daemon printed (render.h): the tree
 * of a reply's records, then its text or its JSON document.
 *
 * The text of each command keeps the words tracectl has always printed
 * (scripts should read the JSON: doc/json.md); the JSON document is one
 * line: {"version":1,"command":NAME, ...}, its members per command in
 * doc/json.md, "error" when the daemon refused. Counters are integers,
 * strings valid UTF-8 (jwrite.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <shmtrace/shmtrace.h>
#include "support/aggfmt.h"
#include "support/ctfmeta.h"
#include "support/json.h"
#include "support/noticetext.h"
#include "render.h"
#include "common/shm.h"
#include "trigctl.h"
#include "why.h"

int ctl_format_parse(const char *verb, const char *arg, enum ctl_format *fmt)
{
	if (!strcmp(arg, "text")) {
		*fmt = CTL_TEXT;
		return 0;
	}
	if (!strcmp(arg, "json")) {
		*fmt = CTL_JSON;
		return 0;
	}
	fprintf(stderr, "tracectl: %s: --format text or json, not '%s'\n", verb, arg);
	return -EINVAL;
}

/* ---- the tree ------------------------------------------------------------ */

static int rvec_add(struct rvec *v, const void *p)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 8;
		const void **nv = realloc(v->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = p;
	return 0;
}

static void rvec_free(struct rvec *v)
{
	free(v->v);
	memset(v, 0, sizeof(*v));
}

static struct rt_channel *chan_new(const struct rec_channel *c)
{
	struct rt_channel *ch = calloc(1, sizeof(*ch));

	if (ch)
		ch->c = c;
	return ch;
}

static struct rt_process *proc_new(const struct rec_process *p)
{
	struct rt_process *pr = calloc(1, sizeof(*pr));

	if (pr)
		pr->p = p;
	return pr;
}

/* The current session, when @session names it. */
static struct rt_session *parent(struct rt_session *cur, const char *session)
{
	return cur && session[0] && !strcmp(cur->s->name, session) ? cur : NULL;
}

int rtree_build(const struct ctl_reply *rep, struct rtree *t)
{
	struct rt_session *cs = NULL;
	struct rt_channel *cc = NULL;
	struct rt_process *cp = NULL;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < rep->n && !ret; i++) {
		const void *b = rep->rec[i].body;
		struct rt_session *ps;

		switch (rep->rec[i].kind) {
		case REC_DAEMON:
			t->daemon = b;
			break;
		case REC_SESSION:
			cs = calloc(1, sizeof(*cs));
			if (!cs || rvec_add(&t->sessions, cs) < 0) {
				free(cs);
				return -ENOMEM;
			}
			cs->s = b;
			cc = NULL;
			cp = NULL;
			break;
		case REC_CHANNEL: {
			const struct rec_channel *c = b;

			cc = chan_new(c);
			ps = parent(cs, c->session);
			ret = !cc ? -ENOMEM : rvec_add(ps ? &ps->chans : &t->chans, cc);
			break;
		}
		case REC_ENABLER: {
			const struct rec_enabler *e = b;

			if (cc && !strcmp(cc->c->session, e->session) && !strcmp(cc->c->name, e->channel))
				ret = rvec_add(&cc->en, e);
			else
				ret = rvec_add(&t->enablers, e);
			break;
		}
		case REC_EXCLUSION: {
			const struct rec_exclusion *x = b;

			if (cc && !strcmp(cc->c->session, x->session) &&
			    !strcmp(cc->c->name, x->channel))
				ret = rvec_add(&cc->ex, x);
			else
				ret = rvec_add(&t->excls, x);
			break;
		}
		case REC_PROCESS: {
			const struct rec_process *p = b;

			cp = proc_new(p);
			ps = parent(cs, p->session);
			ret = !cp ? -ENOMEM : rvec_add(ps ? &ps->procs : &t->procs, cp);
			break;
		}
		case REC_EVENT: {
			const struct rec_event *e = b;

			ret = rvec_add(cp && cp->p->pid == e->pid ? &cp->ev : &t->events, e);
			break;
		}
		case REC_NOTICE: {
			const struct rec_notice *n = b;

			ps = parent(cs, n->session);
			ret = rvec_add(ps ? &ps->notices : &t->notices, n);
			break;
		}
		case REC_AGGREGATION: {
			const struct rec_agg *a = b;

			ps = parent(cs, a->session);
			ret = rvec_add(ps ? &ps->aggs : &t->aggs, a);
			break;
		}
		case REC_TRACK: {
			const struct rec_track *k = b;

			ps = parent(cs, k->session);
			if (ps && k->kind >= PROTO_TRACK_PID && k->kind <= PROTO_TRACK_EXE)
				ret = rvec_add(&ps->tracks, k);
			break;
		}
		case REC_SNAPSHOT:
			t->snapshot = b;
			break;
		case REC_ROTATION:
			t->rotation = b;
			break;
		case REC_NOTE:
			ret = rvec_add(&t->notes, b);
			break;
		case REC_ERROR:
			t->error = b;
			break;
		case REC_TRIGGER:
			ret = rvec_add(&t->triggers, b);
			break;
		case REC_FIRING:
			t->firing = b;
			break;
		default:
			break;
		}
	}
	return ret;
}

static void chans_free(struct rvec *v)
{
	for (size_t i = 0; i < v->n; i++) {
		struct rt_channel *c = (struct rt_channel *)v->v[i];

		rvec_free(&c->en);
		rvec_free(&c->ex);
		free(c);
	}
	rvec_free(v);
}

static void procs_free(struct rvec *v)
{
	for (size_t i = 0; i < v->n; i++) {
		struct rt_process *p = (struct rt_process *)v->v[i];

		rvec_free(&p->ev);
		free(p);
	}
	rvec_free(v);
}

void rtree_free(struct rtree *t)
{
	for (size_t i = 0; i < t->sessions.n; i++) {
		struct rt_session *s = (struct rt_session *)t->sessions.v[i];

		procs_free(&s->procs);
		rvec_free(&s->notices);
		chans_free(&s->chans);
		rvec_free(&s->aggs);
		rvec_free(&s->tracks);
		free(s);
	}
	rvec_free(&t->sessions);
	chans_free(&t->chans);
	procs_free(&t->procs);
	rvec_free(&t->enablers);
	rvec_free(&t->excls);
	rvec_free(&t->notices);
	rvec_free(&t->aggs);
	rvec_free(&t->events);
	rvec_free(&t->notes);
	rvec_free(&t->triggers);
}

const struct rt_session *rtree_session(const struct rtree *t, const char *name)
{
	if (!name || !name[0])
		return t->sessions.n == 1 ? t->sessions.v[0] : NULL;
	for (size_t i = 0; i < t->sessions.n; i++) {
		const struct rt_session *s = t->sessions.v[i];

		if (!strcmp(s->s->name, name))
			return s;
	}
	return NULL;
}

void rsummary_of(const struct rt_session *s, struct rsummary *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < s->chans.n; i++) {
		const struct rec_channel *c = ((const struct rt_channel *)s->chans.v[i])->c;
		const struct msg_c_stats *st = &c->stats;

		if (!(c->flags & REC_CHANNEL_STATS)) {
			sum->missing++;
			continue;
		}
		sum->channels++;
		sum->recorded += st->events;
		sum->discarded += st->discarded;
		sum->overwritten += st->overwritten;
		sum->nobuf += st->nobuf;
		sum->wlost += st->wlost;
		sum->unconfirmed += st->unconfirmed;
		sum->bytes += st->bytes;
		sum->cleared += st->cleared;
	}
}

/* ---- words shared by text and JSON ----------------------------------------- */

static const char *const ll_names[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

static const char *ll_name(uint32_t l)
{
	return l < 8 ? ll_names[l] : "?";
}

static const char *mode_name(uint32_t mode)
{
	return mode == SHM_MODE_OVERWRITE ? "overwrite" : "discard";
}

/* "ip, cpu_id", or "none". */
static void context_names(uint32_t ctx, char *buf, size_t len)
{
	size_t n = 0;

	snprintf(buf, len, "none");
	for (unsigned int i = 0; i < CTF_NCONTEXTS && n < len; i++)
		if (ctx & ctf_contexts[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      ctf_contexts[i].name);
}

static const char *type_name(uint32_t t, char *buf, size_t len)
{
	static const char *const n[] = { "?", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
					 "s64", "hex64", "double", "string" };
	uint32_t base = t & ~(uint32_t)SHMTRACE_TYPE_SEQ;

	snprintf(buf, len, (t & SHMTRACE_TYPE_SEQ) ? "sequence<%s>" : "%s",
		 base < sizeof(n) / sizeof(n[0]) ? n[base] : "?");
	return buf;
}

/* A log level as <shmtrace/shmtrace.h> names it, or NULL when it has no name. */
static const char *loglevel_macro(int32_t level)
{
	static const char *const n[] = {
		"SHMTRACE_EMERG", "SHMTRACE_ALERT", "SHMTRACE_CRIT", "SHMTRACE_ERR",
		"SHMTRACE_WARNING", "SHMTRACE_NOTICE", "SHMTRACE_INFO", "SHMTRACE_DEBUG",
	};

	return level >= 0 && level < 8 ? n[level] : NULL;
}

/* Is exclusion @x of enabler @e? */
static bool excl_of(const struct rec_exclusion *x, const struct rec_enabler *e)
{
	return !strcmp(x->session, e->session) && !strcmp(x->channel, e->channel) &&
	       !strcmp(x->pattern, e->pattern);
}

/* "pattern (loglevel <= info) [filter: ...]", then " excluding a, b" from @ex */
static void enabler_words(const struct rec_enabler *e, const struct rvec *ex, char *buf,
			  size_t len)
{
	int n = snprintf(buf, len, "%s", e->pattern);
	bool first = true;

	for (size_t i = 0; i < ex->n && n >= 0 && (size_t)n < len; i++) {
		if (!excl_of(ex->v[i], e))
			continue;
		n += snprintf(buf + n, len - (size_t)n, "%s%s", first ? " excluding " : ", ",
			      ((const struct rec_exclusion *)ex->v[i])->exclude);
		first = false;
	}

	if (e->ll_kind != CMD_LL_ANY && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " (loglevel %s %s)",
			      e->ll_kind == CMD_LL_RANGE ? "<=" : "==", ll_name(e->loglevel));
	if ((e->flags & REC_ENABLER_FILTER) && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " [filter: %s%s]", e->filter,
			 (e->flags & REC_ENABLER_FILTER_CUT) ? "..." : "");
}

/* "count, quantize(seq) by thread" */
static void agg_words(const struct rec_agg *a, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < a->nfuncs && i < CMD_AGG_FUNCS && n < len; i++) {
		const typeof(a->func[0]) *f = &a->func[i];

		if (f->fn == AGG_COUNT)
			n += (size_t)snprintf(buf + n, len - n, "%scount", i ? ", " : "");
		else if (f->fn == AGG_LQUANTIZE)
			n += (size_t)snprintf(buf + n, len - n, "%slquantize(%s, %" PRId64 ", %" PRId64
					      ", %d)", i ? ", " : "", f->field, f->low, f->high,
					      f->step);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%s(%s)", i ? ", " : "",
					      agg_fn_name(f->fn), f->field);
	}
	for (unsigned int k = 0; k < a->nkeys && k < CMD_AGG_KEYS && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s", k ? ", " : " by ",
				      a->key[k].field, a->key[k].kind == AGG_KEY_STR ? ":str" : "");
}

static const char *const track_kinds[] = { "", "pid", "uid", "exe" };

/* "pid 12, 34; exe /usr/bin/ls": the kinds restricted to a set ("no uid": empty). */
static void tracking_words(const struct rt_session *rs, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < rs->tracks.n && n < len; i++) {
		const struct rec_track *k = rs->tracks.v[i];

		if (k->flags & REC_TRACK_ALL)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s", n ? "; " : "", k->n ? "" : "no ",
				      track_kinds[k->kind]);
		for (uint32_t j = 0; j < k->n && n < len; j++) {
			if (k->kind == PROTO_TRACK_EXE && j < PROTO_TRACK_EXE_MAX)
				n += (size_t)snprintf(buf + n, len - n, "%s%s", j ? ", " : " ",
						      k->exe[j]);
			else if (k->kind != PROTO_TRACK_EXE && j < PROTO_TRACK_MAX)
				n += (size_t)snprintf(buf + n, len - n, "%s%u", j ? ", " : " ",
						      k->value[j]);
		}
	}
}

/* The session's output, as people read it. */
static void output_words(const struct rec_session *s, char *buf, size_t len)
{
	if (s->flags & REC_SESSION_STREAMED)
		snprintf(buf, len, "%s (on the relay: %s)", s->output, s->relay_path);
	else
		snprintf(buf, len, "%s", s->output);
}

/* ---- text ----------------------------------------------------------------- */

static void text_process(FILE *out, const struct rec_process *p)
{
	fprintf(out, "    %s[%u]%s\n", p->name, p->pid,
		(p->flags & REC_PROCESS_DETACHED) ? ": closed its connection to the session daemon; "
		"its buffers are still written out, it registers again at its next event" : "");
	if (p->reattached)
		fprintf(out, "      registered again %u times after closing shmtrace's descriptors\n",
			p->reattached);
	if (p->flags & REC_PROCESS_NO_BELL)
		fprintf(out, "      no doorbell signal: control changes are seen at its next event\n");
}

/* "2026-11-26 10:31:02.123456789" (local time) of @ns since the Epoch. */
static void time_words(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000u);
	struct tm tm;
	size_t n;

	if (!localtime_r(&t, &tm) || !(n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))) {
		snprintf(buf, len, "%" PRIu64 " ns", ns);
		return;
	}
	snprintf(buf + n, len - n, ".%09" PRIu64, ns % 1000000000u);
}

/* What a memory-only channel's buffers hold: memory, events, the window. */
static void text_memory(FILE *out, const struct rec_channel *c)
{
	const struct msg_c_stats *st = &c->stats;
	char b[64], e[64];

	fprintf(out, "    memory held: %" PRIu64 " KiB (events: %" PRIu64 ", %" PRIu64 " bytes)\n",
		st->mem_bytes >> 10, st->held_events, st->held_bytes);
	if (st->window_begin && st->window_end >= st->window_begin) {
		time_words(st->window_begin, b, sizeof(b));
		time_words(st->window_end, e, sizeof(e));
		fprintf(out, "    window: %s to %s (%" PRIu64 ".%03" PRIu64 " s)\n", b, e,
			(st->window_end - st->window_begin) / 1000000000u,
			(st->window_end - st->window_begin) / 1000000u % 1000u);
	} else {
		fprintf(out, "    window: none (no event held)\n");
	}
	if (st->kept)
		fprintf(out, "    processes gone whose buffers are kept: %u\n", st->kept);
}

static void text_counters(FILE *out, const struct rec_channel *c)
{
	const struct msg_c_stats *st = &c->stats;

	if (!(c->flags & REC_CHANNEL_STATS)) {
		if (c->stats_err)
			fprintf(out, "    consumer: not available (%s)\n", strerror(c->stats_err));
		return;
	}
	if (c->flags & REC_CHANNEL_MEMORY)
		text_memory(out, c);
	if (st->cleared)
		fprintf(out, "    events discarded by clear: %" PRIu64 "\n", st->cleared);
	fprintf(out, "    events recorded: %" PRIu64 "\n    events discarded: %" PRIu64
		"\n    events overwritten: %" PRIu64 "\n    bytes written: %" PRIu64
		"\n    streams: %" PRIu64 "\n    buffers: %" PRIu64
		"\n    events lost without a buffer: %" PRIu64
		"\n    events lost to write errors: %" PRIu64 "\n",
		st->events, st->discarded, st->overwritten, st->bytes, st->streams, st->buffers,
		st->nobuf, st->wlost);
}

/* What went wrong with a channel's traces, one line each, after @indent. */
static void text_channel_trouble(FILE *out, const struct rec_channel *c, bool streamed,
				 const char *indent)
{
	const struct msg_c_stats *st = &c->stats;

	if (c->flags & REC_CHANNEL_STATS) {
		if (streamed)
			fprintf(out, "%sevents sent but not confirmed stored by a relay that went "
				"away: %" PRIu64 "\n", indent, st->unconfirmed);
		if (st->damaged_streams)
			fprintf(out, "%sstreams closed, their process having written over its "
				"buffers: %u (the first: pid %u), events lost there: %" PRIu64 "\n",
				indent, st->damaged_streams, st->damaged_pid, st->damaged);
		if (st->liars)
			fprintf(out, "%sprocesses whose counters are not believed: %u (the first: "
				"pid %u): they write impossible values into the memory they share\n",
				indent, st->liars, st->liar_pid);
		if (st->werr > 0)
			fprintf(out, "%sevents lost to write errors in %u trace%s: %" PRIu64
				"; first error: %s: %s (errno %d)\n", indent, st->werr_traces,
				st->werr_traces == 1 ? "" : "s", st->wlost, st->werr_path,
				strerror(st->werr), (int)st->werr);
	}
	if (c->flags & REC_CHANNEL_UNFLUSHED)
		fprintf(out, "%s%" PRIu64 " events in %" PRIu64 " buffers not written out (no "
			"consumer)\n", indent, c->unflushed_events, c->unflushed_buffers);
}

static void text_channel(FILE *out, const struct rt_channel *rc, bool streamed)
{
	const struct rec_channel *c = rc->c;
	char names[128], what[PROTO_EVNAME_MAX + PROTO_FILTER_MAX + 64];

	fprintf(out, "  channel %s%s: %s, %u sub-buffers of %u KiB, pool of %u buffers, "
		"flush every %u ms%s\n", c->name,
		(c->flags & REC_CHANNEL_DISABLED) ? " (disabled: records nothing)" : "",
		mode_name(c->mode), c->num_subbuf,
		c->subbuf_size >> 10, c->pool_size, c->flush_ms,
		c->compress == PROTO_COMPRESS_LZ4 ? ", lz4" : "");
	if (c->budget)
		fprintf(out, "    budget: %" PRIu64 " KiB of buffers per process (%u buffers)\n",
			c->budget >> 10, c->max_buffers);
	else
		fprintf(out, "    budget: none (a process's buffers grow with its threads)\n");
	if (c->context) {
		context_names(c->context, names, sizeof(names));
		fprintf(out, "    context: %s\n", names);
	}
	fprintf(out, "    enabled events:%s\n", rc->en.n ? "" : " none");
	for (size_t i = 0; i < rc->en.n; i++) {
		enabler_words(rc->en.v[i], &rc->ex, what, sizeof(what));
		fprintf(out, "      %s\n", what);
	}
	text_counters(out, c);
	text_channel_trouble(out, c, streamed, "    ");
}

static void text_status_session(FILE *out, const struct rt_session *rs)
{
	const struct rec_session *s = rs->s;
	char text[PROTO_PATH_MAX + 1024];

	output_words(s, text, sizeof(text));
	fprintf(out, "Session %s: %s%s\n  output: %s\n", s->name,
		(s->flags & REC_SESSION_ACTIVE) ? "active" : "inactive",
		(s->flags & REC_SESSION_MEMORY) ? ", memory only (written by snapshots)" : "", text);
	fprintf(out, "  traced processes: %u\n", s->nprocs);
	if (s->fds_refused)
		fprintf(out, "  processes not traced, refused at the descriptor limit (%" PRIu64
			"): %" PRIu64 "\n", s->fd_limit, s->fds_refused);
	for (size_t i = 0; i < rs->procs.n; i++)
		text_process(out, ((const struct rt_process *)rs->procs.v[i])->p);
	tracking_words(rs, text, sizeof(text));
	if (text[0])
		fprintf(out, "  records only the processes of: %s\n", text);
	if (s->flags & REC_SESSION_ALLOW_ALL) {
		fprintf(out, "  processes of every uid allowed\n");
	} else if (s->nallow) {
		fprintf(out, "  processes of uid ");
		for (unsigned int i = 0; i < s->nallow && i < PROTO_ALLOW_MAX; i++)
			fprintf(out, "%s%u", i ? "," : "", s->allow[i]);
		fprintf(out, " allowed\n");
	}
	if (rs->notices.n || s->notices_lost)
		fprintf(out, "  not traced:\n");
	for (size_t i = 0; i < rs->notices.n; i++) {
		notice_words(rs->notices.v[i], text, sizeof(text));
		fprintf(out, "    %s\n", text);
	}
	if (s->notices_lost)
		fprintf(out, "    (%" PRIu64 " more notices not kept)\n", s->notices_lost);
	if (s->notices_refused)
		fprintf(out, "  notices refused: %" PRIu64 " (about another process than their "
			"sender's)\n", s->notices_refused);
	if (!(s->flags & REC_SESSION_CHANNEL0))
		fprintf(out, "  channel0 (made by enable-event without -c): %s, pool of %u buffers\n",
			mode_name(s->mode), s->pool_size);
	for (size_t i = 0; i < rs->chans.n; i++)
		text_channel(out, rs->chans.v[i], (s->flags & REC_SESSION_STREAMED) != 0);
	for (size_t i = 0; i < rs->aggs.n; i++) {
		const struct rec_agg *a = rs->aggs.v[i];

		agg_words(a, text, sizeof(text));
		fprintf(out, "  aggregation %s of '%s': %s%s%s%s\n", a->name,
			(a->flags & REC_AGG_PROFILE) ? "function calls" : a->pattern, text,
			(a->flags & REC_AGG_FILTER) ? " [filter: " : "",
			(a->flags & REC_AGG_FILTER) ? a->filter : "",
			(a->flags & REC_AGG_FILTER) ? "]" : "");
	}
	if (s->stream_err)
		fprintf(out, "Session %s stopped streaming when the consumer daemon restarted: %s\n",
			s->name, s->stream_why);
}

/* stop's and destroy's summary: what the session's channels counted, and where. */
static void text_summary(FILE *out, const struct rt_session *rs)
{
	const struct rec_session *s = rs->s;
	struct rsummary sum;
	char where[PROTO_PATH_MAX + 300], name[PROTO_NAME_MAX + 16];

	rsummary_of(rs, &sum);
	output_words(s, where, sizeof(where));
	if (sum.channels) {
		fprintf(out, "  %" PRIu64 " events recorded, %" PRIu64 " discarded, %" PRIu64
			" lost, %" PRIu64 " bytes", sum.recorded, sum.discarded, sum.nobuf + sum.wlost,
			sum.bytes);
		if (sum.overwritten)
			fprintf(out, ", %" PRIu64 " overwritten", sum.overwritten);
		if (sum.cleared)
			fprintf(out, ", %" PRIu64 " cleared", sum.cleared);
		fprintf(out, ", %s %s\n", (s->flags & REC_SESSION_STREAMED) ? "sent to" : "in",
			where);
	}
	for (size_t i = 0; i < rs->chans.n; i++) {
		const struct rec_channel *c = ((const struct rt_channel *)rs->chans.v[i])->c;

		snprintf(name, sizeof(name), "  channel %s: ", c->name);
		if (!(c->flags & REC_CHANNEL_STATS) && c->stats_err)
			fprintf(out, "%scounters not available (%s)\n", name, strerror(c->stats_err));
		text_channel_trouble(out, c, (s->flags & REC_SESSION_STREAMED) &&
				     c->stats.unconfirmed, name);
	}
}

/* clear's reply: the session, and what clear discarded of each channel so far. */
static void text_cleared(FILE *out, const struct rt_session *rs)
{
	fprintf(out, "Session %s cleared: what it recorded so far is discarded%s.\n", rs->s->name,
		(rs->s->flags & REC_SESSION_ACTIVE) ? ", recording goes on" : "");
	for (size_t i = 0; i < rs->chans.n; i++) {
		const struct rec_channel *c = ((const struct rt_channel *)rs->chans.v[i])->c;

		if (c->flags & REC_CHANNEL_STATS)
			fprintf(out, "  channel %s: %" PRIu64 " events discarded by clear so far\n",
				c->name, c->stats.cleared);
		else if (c->stats_err)
			fprintf(out, "  channel %s: counters not available (%s)\n", c->name,
				strerror(c->stats_err));
	}
}

static void text_event(FILE *out, const struct rec_event *e)
{
	char fields[2048], t[32];
	size_t pos = 0;

	fields[0] = 0;
	for (uint32_t k = 0; k < e->nfields && k < PROTO_MAX_FIELDS && pos < sizeof(fields) - 100; k++)
		pos += (size_t)snprintf(fields + pos, sizeof(fields) - pos, "%s%s %s", k ? ", " : "",
					type_name(e->field[k].type, t, sizeof(t)),
					e->field[k].name);
	if (loglevel_macro(e->loglevel))
		fprintf(out, "    %s (loglevel %s = %d) { %s }\n", e->name,
			loglevel_macro(e->loglevel), (int)e->loglevel, fields);
	else
		fprintf(out, "    %s (loglevel %d) { %s }\n", e->name, (int)e->loglevel, fields);
}

/* Every session of @t, processes at the top (list-events, processes) included. */
static void text_reply(FILE *out, const char *cmd, const struct ctl_reply *rep,
		       const struct rtree *t)
{
	char text[PROTO_PATH_MAX + PROTO_FILTER_MAX + 1024];

	for (size_t i = 0; i < t->notes.n; i++) {
		why_text(t->notes.v[i], text, sizeof(text));
		fprintf(out, "%s\n", text);
	}
	if (!strcmp(cmd, "status")) {
		for (size_t i = 0; i < t->sessions.n; i++)
			text_status_session(out, t->sessions.v[i]);
		if (!t->sessions.n && t->daemon && !t->error)
			fprintf(out, "No session. Session daemon pid %u, home %s\n", t->daemon->pid,
				t->daemon->home);
		return;
	}
	if (!strcmp(cmd, "list") && !t->sessions.n && !t->error)
		fprintf(out, "No session.\n");
	if (!strcmp(cmd, "list-events") && !t->procs.n && !t->error)
		fprintf(out, "No traced process.\n");
	for (size_t i = 0; i < t->sessions.n; i++) {
		const struct rt_session *rs = t->sessions.v[i];
		const struct rec_session *s = rs->s;

		output_words(s, text, sizeof(text));
		if (!strcmp(cmd, "create") && (s->flags & REC_SESSION_MEMORY))
			fprintf(out, "Session %s created, memory only.\nSnapshots will be written "
				"in %s\n", s->name, text);
		else if (!strcmp(cmd, "create"))
			fprintf(out, "Session %s created.\nTraces will be %s %s\n", s->name,
				(s->flags & REC_SESSION_STREAMED) ? "streamed to" : "written in", text);
		else if (!strcmp(cmd, "clear"))
			text_cleared(out, rs);
		else if (!strcmp(cmd, "start"))
			fprintf(out, "Tracing started for session %s.\n", s->name);
		else if (!strcmp(cmd, "track") || !strcmp(cmd, "untrack")) {
			tracking_words(rs, text, sizeof(text));
			if (text[0])
				fprintf(out, "Session %s records only the processes of: %s\n", s->name,
					text);
			else
				fprintf(out, "Session %s records every process.\n", s->name);
		} else if (!strcmp(cmd, "regenerate"))
			fprintf(out, "State dump asked of %zu process%s of session %s (written at "
				"their next event).\n", rs->procs.n, rs->procs.n == 1 ? "" : "es",
				s->name);
		else if (!strcmp(cmd, "list"))
			fprintf(out, "%s [%s] %s\n", s->name,
				(s->flags & REC_SESSION_ACTIVE) ? "active" : "inactive", text);
		else if (!strcmp(cmd, "stop") || !strcmp(cmd, "destroy")) {
			if (!strcmp(cmd, "stop"))
				fprintf(out, "Tracing stopped for session %s.\n", s->name);
			else
				fprintf(out, "Session %s destroyed.\n", s->name);
			text_summary(out, rs);
		}
		for (size_t k = 0; !strcmp(cmd, "notices") && k < rs->notices.n; k++) {
			notice_words(rs->notices.v[k], text, sizeof(text));
			fprintf(out, "%s\n", text);
		}
		if (!strcmp(cmd, "notices") && s->notices_lost)
			fprintf(out, "(%" PRIu64 " more notices not kept)\n", s->notices_lost);
	}
	for (size_t i = 0; i < t->procs.n; i++) {
		const struct rt_process *rp = t->procs.v[i];

		if (!strcmp(cmd, "processes")) {
			fprintf(out, "%u %" PRIu64 " %u %s\n", rp->p->pid, rp->p->starttime,
				rp->p->uid, rp->p->name);
			continue;
		}
		fprintf(out, "%s[%u]\n", rp->p->name, rp->p->pid);
		for (size_t k = 0; k < rp->ev.n; k++)
			text_event(out, rp->ev.v[k]);
	}
	for (size_t i = 0; i < t->chans.n; i++) {
		const struct rec_channel *c = ((const struct rt_channel *)t->chans.v[i])->c;

		if (!strcmp(cmd, "add-context")) {
			context_names(c->context, text, sizeof(text));
			fprintf(out, "Context of channel %s in session %s: %s.\n", c->name, c->session,
				text);
		} else {
			fprintf(out, "Channel %s %s in session %s.\n", c->name,
				(c->flags & REC_CHANNEL_DISABLED) ? "disabled" : "enabled", c->session);
		}
		for (size_t k = 0; k < ((const struct rt_channel *)t->chans.v[i])->en.n; k++) {
			const struct rec_enabler *e = ((const struct rt_channel *)t->chans.v[i])->en.v[k];

			fprintf(out, "Event pattern '%s' enabled in channel %s of session %s: the "
				"addresses of ip are named from it.\n", e->pattern, e->channel,
				e->session);
		}
	}
	for (size_t i = 0; i < t->enablers.n; i++) {
		const struct rec_enabler *e = t->enablers.v[i];

		enabler_words(e, &t->excls, text, sizeof(text));
		if (e->flags & REC_ENABLER_REMOVED)
			fprintf(out, "Event pattern '%s' disabled in channel %s of session %s.\n",
				e->pattern, e->channel, e->session);
		else
			fprintf(out, "Event pattern '%s' enabled in channel %s of session %s%s.\n",
				text, e->channel, e->session, (e->flags & REC_ENABLER_FOR_IP) ?
				": the addresses of ip are named from it" : "");
	}
	for (size_t i = 0; i < t->aggs.n; i++) {
		const struct rec_agg *a = t->aggs.v[i];

		if (a->flags & REC_AGG_REMOVED) {
			fprintf(out, "Aggregation %s removed from session %s.\n", a->name, a->session);
			continue;
		}
		agg_words(a, text, sizeof(text));
		fprintf(out, "Aggregation %s of '%s' in session %s: %s%s%s%s (tables of %u keys).\n",
			a->name, (a->flags & REC_AGG_PROFILE) ? "function calls" : a->pattern,
			a->session, text, (a->flags & REC_AGG_FILTER) ? " [filter: " : "",
			(a->flags & REC_AGG_FILTER) ? a->filter : "",
			(a->flags & REC_AGG_FILTER) ? "]" : "", a->capacity);
	}
	if (t->snapshot) {
		fprintf(out, "Snapshot of session %s written to %s\n", t->snapshot->session,
			t->snapshot->path);
		if (t->snapshot->flags & REC_SNAPSHOT_INSIDE)
			fprintf(out, "Note: it is inside the session's output: reading %s reads its "
				"events twice.\n", t->snapshot->output);
	}
	if (t->rotation && (t->rotation->flags & REC_ROTATION_SET))
		fprintf(out, "Session %s rotates every %" PRIu64 " ms, every %" PRIu64
			" KiB (0: not).\n", t->rotation->session, t->rotation->every_ms,
			t->rotation->size >> 10);
	else if (t->rotation)
		fprintf(out, "Session %s: chunk %u written to %s\n", t->rotation->session,
			t->rotation->chunk, t->rotation->path);
	trig_text(out, cmd, t);
	if (rep->has_file)
		fwrite(rep->file, 1, rep->file_len, out);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_why_errno(struct jw *w, const char *key, int err)
{
	jw_kobj(w, key);
	jw_ku64(w, "errno", err > 0 ? (uint64_t)err : 0);
	jw_kstr(w, "message", strerror(err));
	jw_end(w);
}

static void json_enabler(struct jw *w, const struct rec_enabler *e, const struct rvec *ex)
{
	jw_obj(w);
	jw_kstr(w, "session", e->session);
	jw_kstr(w, "channel", e->channel);
	jw_kstr(w, "pattern", e->pattern);
	jw_karr(w, "exclusions");
	for (size_t i = 0; i < ex->n; i++)
		if (excl_of(ex->v[i], e))
			jw_str(w, ((const struct rec_exclusion *)ex->v[i])->exclude);
	jw_end_arr(w);
	if (e->ll_kind == CMD_LL_ANY) {
		jw_knull(w, "loglevel");
	} else {
		jw_kobj(w, "loglevel");
		jw_kstr(w, "match", e->ll_kind == CMD_LL_RANGE ? "at-least" : "only");
		jw_kstr(w, "level", ll_name(e->loglevel));
		jw_ku64(w, "value", e->loglevel);
		jw_end(w);
	}
	if (e->flags & REC_ENABLER_FILTER)
		jw_kstr(w, "filter", e->filter);
	else
		jw_knull(w, "filter");
	jw_kbool(w, "filter_cut", (e->flags & REC_ENABLER_FILTER_CUT) != 0);
	jw_kbool(w, "for_ip_context", (e->flags & REC_ENABLER_FOR_IP) != 0);
	jw_kbool(w, "removed", (e->flags & REC_ENABLER_REMOVED) != 0);
	jw_end(w);
}

static void json_channel(struct jw *w, const struct rt_channel *rc, bool all)
{
	const struct rec_channel *c = rc->c;
	const struct msg_c_stats *st = &c->stats;

	jw_obj(w);
	jw_kstr(w, "session", c->session);
	jw_kstr(w, "name", c->name);
	jw_kstr(w, "mode", mode_name(c->mode));
	jw_ku64(w, "subbuf_size", c->subbuf_size);
	jw_ku64(w, "num_subbuf", c->num_subbuf);
	jw_ku64(w, "pool_size", c->pool_size);
	jw_ku64(w, "budget", c->budget);
	jw_ku64(w, "budget_buffers", c->max_buffers);
	jw_ku64(w, "flush_interval_ms", c->flush_ms);
	jw_kstr(w, "compress", c->compress == PROTO_COMPRESS_LZ4 ? "lz4" : "none");
	jw_karr(w, "context");
	for (unsigned int i = 0; i < CTF_NCONTEXTS; i++)
		if (c->context & ctf_contexts[i].bit)
			jw_str(w, ctf_contexts[i].name);
	jw_end_arr(w);
	jw_kbool(w, "enabled", !(c->flags & REC_CHANNEL_DISABLED));
	if (c->flags & REC_CHANNEL_STATS) {
		jw_ku64(w, "recorded", st->events);
		jw_ku64(w, "discarded", st->discarded);
		jw_ku64(w, "overwritten", st->overwritten);
		jw_ku64(w, "bytes", st->bytes);
		jw_ku64(w, "streams", st->streams);
		jw_ku64(w, "buffers", st->buffers);
		jw_ku64(w, "lost_without_buffer", st->nobuf);
		jw_ku64(w, "lost_to_write_errors", st->wlost);
		jw_ku64(w, "unconfirmed", st->unconfirmed);
		jw_ku64(w, "liar_processes", st->liars);
		jw_ku64(w, "liar_pid", st->liar_pid);
		jw_ku64(w, "damaged_events", st->damaged);
		jw_ku64(w, "damaged_streams", st->damaged_streams);
		jw_ku64(w, "damaged_pid", st->damaged_pid);
		jw_ku64(w, "cleared", st->cleared);
		if (c->flags & REC_CHANNEL_MEMORY) {
			jw_kobj(w, "memory");
			jw_ku64(w, "resident_bytes", st->mem_bytes);
			jw_ku64(w, "held_bytes", st->held_bytes);
			jw_ku64(w, "held_events", st->held_events);
			if (st->window_begin && st->window_end >= st->window_begin) {
				jw_ku64(w, "window_begin_ns", st->window_begin);
				jw_ku64(w, "window_end_ns", st->window_end);
				jw_ku64(w, "window_ns", st->window_end - st->window_begin);
			} else {
				jw_knull(w, "window_begin_ns");
				jw_knull(w, "window_end_ns");
				jw_knull(w, "window_ns");
			}
			jw_ku64(w, "processes_gone_kept", st->kept);
			jw_end(w);
		}
		if (st->werr > 0) {
			jw_kobj(w, "write_error");
			jw_ku64(w, "errno", (uint64_t)st->werr);
			jw_kstr(w, "message", strerror(st->werr));
			jw_kstr(w, "path", st->werr_path);
			jw_ku64(w, "traces", st->werr_traces);
			jw_end(w);
		} else {
			jw_knull(w, "write_error");
		}
	} else if (c->stats_err) {
		json_why_errno(w, "counters_error", c->stats_err);
	}
	if (c->flags & REC_CHANNEL_UNFLUSHED) {
		jw_kobj(w, "not_written");
		jw_ku64(w, "events", c->unflushed_events);
		jw_ku64(w, "buffers", c->unflushed_buffers);
		jw_end(w);
	}
	if (all || rc->en.n) {
		jw_karr(w, "enablers");
		for (size_t i = 0; i < rc->en.n; i++)
			json_enabler(w, rc->en.v[i], &rc->ex);
		jw_end_arr(w);
	}
	jw_end(w);
}

static void json_process(struct jw *w, const struct rt_process *rp, bool events)
{
	const struct rec_process *p = rp->p;
	char t[32];

	jw_obj(w);
	if (p->session[0])
		jw_kstr(w, "session", p->session);
	jw_ku64(w, "pid", p->pid);
	jw_kstr(w, "name", p->name);
	jw_ku64(w, "uid", p->uid);
	jw_ku64(w, "start_time", p->starttime);
	jw_kbool(w, "detached", (p->flags & REC_PROCESS_DETACHED) != 0);
	jw_ku64(w, "registered_again", p->reattached);
	jw_kbool(w, "doorbell", !(p->flags & REC_PROCESS_NO_BELL));
	jw_ku64(w, "events_described", p->nevents);
	if (events) {
		jw_karr(w, "events");
		for (size_t i = 0; i < rp->ev.n; i++) {
			const struct rec_event *e = rp->ev.v[i];

			jw_obj(w);
			jw_ku64(w, "id", e->id);
			jw_kstr(w, "name", e->name);
			jw_ks64(w, "loglevel", e->loglevel);
			jw_kstr_or_null(w, "loglevel_name", loglevel_macro(e->loglevel));
			jw_karr(w, "fields");
			for (uint32_t k = 0; k < e->nfields && k < PROTO_MAX_FIELDS; k++) {
				jw_obj(w);
				jw_kstr(w, "name", e->field[k].name);
				jw_kstr(w, "type", type_name(e->field[k].type, t, sizeof(t)));
				jw_end(w);
			}
			jw_end_arr(w);
			jw_end(w);
		}
		jw_end_arr(w);
	}
	jw_end(w);
}

void json_notice(struct jw *w, const struct rec_notice *n)
{
	char text[PROTO_PATH_MAX + 512];

	notice_words(n, text, sizeof(text));
	jw_obj(w);
	jw_kstr(w, "session", n->session);
	jw_kstr(w, "kind", notice_kind_name(n->kind));
	jw_ku64(w, "pid", n->pid);
	jw_ku64(w, "uid", n->uid);
	jw_ku64(w, "old_uid", n->old_uid);
	jw_ku64(w, "count", n->count);
	jw_kstr(w, "path", n->path);
	jw_kstr(w, "message", text);
	jw_end(w);
}

void json_agg_def(struct jw *w, const struct rec_agg *a, bool none)
{
	jw_karr(w, "keys");
	for (unsigned int k = 0; !none && k < a->nkeys && k < CMD_AGG_KEYS; k++) {
		jw_obj(w);
		jw_kstr(w, "field", a->key[k].field);
		jw_kstr(w, "type", a->key[k].kind == AGG_KEY_STR ? "str" : "int");
		jw_end(w);
	}
	jw_end_arr(w);
	jw_karr(w, "functions");
	for (unsigned int i = 0; !none && i < a->nfuncs && i < CMD_AGG_FUNCS; i++) {
		jw_obj(w);
		jw_kstr(w, "fn", agg_fn_name(a->func[i].fn));
		jw_kstr_or_null(w, "field", a->func[i].field);
		if (a->func[i].fn == AGG_LQUANTIZE) {
			jw_ks64(w, "low", a->func[i].low);
			jw_ks64(w, "high", a->func[i].high);
			jw_ks64(w, "step", a->func[i].step);
		}
		jw_end(w);
	}
	jw_end_arr(w);
	if (a->flags & REC_AGG_FILTER)
		jw_kstr(w, "filter", a->filter);
	else
		jw_knull(w, "filter");
	jw_ku64(w, "capacity", a->capacity);
}

static void json_agg(struct jw *w, const struct rec_agg *a)
{
	jw_obj(w);
	jw_kstr(w, "session", a->session);
	jw_kstr(w, "name", a->name);
	jw_kbool(w, "profile", (a->flags & REC_AGG_PROFILE) != 0);
	jw_kstr_or_null(w, "pattern", a->pattern);
	json_agg_def(w, a, false);
	jw_kbool(w, "removed", (a->flags & REC_AGG_REMOVED) != 0);
	jw_end(w);
}

void json_summary(struct jw *w, const struct rt_session *rs)
{
	const struct rec_session *s = rs->s;
	struct rsummary sum;

	rsummary_of(rs, &sum);
	jw_obj(w);
	jw_kstr(w, "session", s->name);
	jw_ku64(w, "recorded", sum.recorded);
	jw_ku64(w, "discarded", sum.discarded);
	jw_ku64(w, "overwritten", sum.overwritten);
	jw_ku64(w, "lost", sum.nobuf + sum.wlost);
	jw_ku64(w, "lost_without_buffer", sum.nobuf);
	jw_ku64(w, "lost_to_write_errors", sum.wlost);
	jw_ku64(w, "unconfirmed", sum.unconfirmed);
	jw_ku64(w, "bytes", sum.bytes);
	jw_ku64(w, "cleared", sum.cleared);
	if (s->flags & REC_SESSION_STREAMED) {
		jw_knull(w, "path");
		jw_kstr(w, "relay", s->output);
		jw_kstr(w, "relay_path", s->relay_path);
	} else {
		jw_kstr(w, "path", s->output);
		jw_knull(w, "relay");
		jw_knull(w, "relay_path");
	}
	jw_kbool(w, "complete", sum.missing == 0);
	jw_end(w);
}

/* Session @rs; with @all (status), every array of what it holds, empty or not. */
void json_session(struct jw *w, const struct rt_session *rs, bool all)
{
	const struct rec_session *s = rs->s;

	jw_obj(w);
	jw_kstr(w, "name", s->name);
	jw_kbool(w, "active", (s->flags & REC_SESSION_ACTIVE) != 0);
	jw_kbool(w, "started", (s->flags & REC_SESSION_STARTED) != 0);
	jw_kbool(w, "memory_only", (s->flags & REC_SESSION_MEMORY) != 0);
	if (s->flags & REC_SESSION_STREAMED) {
		jw_knull(w, "output");
		jw_kobj(w, "relay");
		jw_kstr(w, "address", s->output);
		jw_kstr(w, "path", s->relay_path);
		jw_ku64(w, "live_period_us", s->live_us);
		if (s->stream_err) {
			jw_kobj(w, "stopped");
			jw_ku64(w, "errno", (uint64_t)s->stream_err);
			jw_kstr(w, "message", strerror(s->stream_err));
			jw_kstr(w, "why", s->stream_why);
			jw_end(w);
		} else {
			jw_knull(w, "stopped");
		}
		jw_end(w);
	} else {
		jw_kstr(w, "output", s->output);
		jw_knull(w, "relay");
	}
	jw_kobj(w, "defaults");
	jw_kstr(w, "mode", mode_name(s->mode));
	jw_ku64(w, "pool_size", s->pool_size);
	jw_end(w);
	jw_kbool(w, "channel0_made", (s->flags & REC_SESSION_CHANNEL0) != 0);
	jw_kbool(w, "allow_all_uids", (s->flags & REC_SESSION_ALLOW_ALL) != 0);
	jw_karr(w, "allowed_uids");
	for (unsigned int i = 0; i < s->nallow && i < PROTO_ALLOW_MAX; i++)
		jw_u64(w, s->allow[i]);
	jw_end_arr(w);
	jw_ku64(w, "processes_traced", s->nprocs);
	jw_ku64(w, "processes_refused_at_fd_limit", s->fds_refused);
	jw_ku64(w, "fd_limit", s->fd_limit);
	jw_ku64(w, "channels_count", s->nchannels);
	jw_ku64(w, "aggregations_count", s->naggs);
	jw_ku64(w, "notices_kept", s->nnotices);
	jw_ku64(w, "notices_lost", s->notices_lost);
	jw_ku64(w, "notices_refused", s->notices_refused);
	jw_kobj(w, "rotation");
	jw_ku64(w, "chunks", s->nrotations);
	jw_ku64(w, "every_ms", s->rot_ms);
	jw_ku64(w, "size", s->rot_bytes);
	jw_end(w);
	jw_ku64(w, "snapshots", s->nsnapshots);
	if (rs->tracks.n) {
		jw_kobj(w, "tracking");
		for (size_t i = 0; i < rs->tracks.n; i++) {
			const struct rec_track *k = rs->tracks.v[i];

			jw_kobj(w, track_kinds[k->kind]);
			jw_kbool(w, "all", (k->flags & REC_TRACK_ALL) != 0);
			jw_karr(w, "values");
			for (uint32_t j = 0; j < k->n; j++) {
				if (k->kind == PROTO_TRACK_EXE && j < PROTO_TRACK_EXE_MAX)
					jw_str(w, k->exe[j]);
				else if (k->kind != PROTO_TRACK_EXE && j < PROTO_TRACK_MAX)
					jw_u64(w, k->value[j]);
			}
			jw_end_arr(w);
			jw_end(w);
		}
		jw_end(w);
	}
	if (all || rs->procs.n) {
		jw_karr(w, "processes");
		for (size_t i = 0; i < rs->procs.n; i++)
			json_process(w, rs->procs.v[i], false);
		jw_end_arr(w);
	}
	if (all || rs->notices.n) {
		jw_karr(w, "notices");
		for (size_t i = 0; i < rs->notices.n; i++)
			json_notice(w, rs->notices.v[i]);
		jw_end_arr(w);
	}
	if (all || rs->chans.n) {
		jw_karr(w, "channels");
		for (size_t i = 0; i < rs->chans.n; i++)
			json_channel(w, rs->chans.v[i], all);
		jw_end_arr(w);
	}
	if (all || rs->aggs.n) {
		jw_karr(w, "aggregations");
		for (size_t i = 0; i < rs->aggs.n; i++)
			json_agg(w, rs->aggs.v[i]);
		jw_end_arr(w);
	}
	jw_end(w);
}

/* Does @cmd always have member @what (an empty array when it has none)? */
static bool json_always(const char *cmd, const char *what)
{
	static const struct { const char *cmd, *what; } always[] = {
		{ "status", "sessions" }, { "list", "sessions" }, { "create", "sessions" },
		{ "start", "sessions" }, { "stop", "sessions" }, { "destroy", "sessions" },
		{ "notices", "sessions" }, { "regenerate", "sessions" },
		{ "track", "sessions" }, { "untrack", "sessions" },
		{ "processes", "processes" },
		{ "list-events", "processes" }, { "enable-event", "enablers" },
		{ "disable-event", "enablers" }, { "enable-channel", "channels" },
		{ "add-context", "channels" }, { "disable-channel", "channels" },
		{ "aggregate", "aggregations" },
		{ "disable-aggregation", "aggregations" }, { "clear", "sessions" },
	};

	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (!strcmp(always[i].cmd, cmd) && !strcmp(always[i].what, what))
			return true;
	return false;
}

static int json_reply(FILE *out, const char *cmd, const struct ctl_reply *rep,
		      const struct rtree *t)
{
	bool status = !strcmp(cmd, "status"), summary = !strcmp(cmd, "stop") ||
		      !strcmp(cmd, "destroy");
	struct jw w;

	jw_init(&w, out);
	jw_obj(&w);
	jw_ku64(&w, "version", CTL_JSON_VERSION);
	jw_kstr(&w, "command", cmd);
	if (t->daemon) {
		jw_kobj(&w, "daemon");
		jw_ku64(&w, "pid", t->daemon->pid);
		jw_ku64(&w, "uid", t->daemon->uid);
		jw_kstr(&w, "version", t->daemon->version);
		jw_kstr(&w, "home", t->daemon->home);
		jw_end(&w);
	}
	if (t->sessions.n || json_always(cmd, "sessions")) {
		jw_karr(&w, "sessions");
		for (size_t i = 0; i < t->sessions.n; i++)
			json_session(&w, t->sessions.v[i], status);
		jw_end_arr(&w);
	}
	if (summary && t->sessions.n) {
		jw_key(&w, "summary");
		json_summary(&w, t->sessions.v[0]);
	}
	if (t->procs.n || json_always(cmd, "processes")) {
		jw_karr(&w, "processes");
		for (size_t i = 0; i < t->procs.n; i++)
			json_process(&w, t->procs.v[i], !strcmp(cmd, "list-events"));
		jw_end_arr(&w);
	}
	if (t->chans.n || json_always(cmd, "channels")) {
		jw_karr(&w, "channels");
		for (size_t i = 0; i < t->chans.n; i++)
			json_channel(&w, t->chans.v[i], false);
		jw_end_arr(&w);
	}
	if (t->enablers.n || json_always(cmd, "enablers")) {
		jw_karr(&w, "enablers");
		for (size_t i = 0; i < t->enablers.n; i++)
			json_enabler(&w, t->enablers.v[i], &t->excls);
		jw_end_arr(&w);
	}
	if (t->notices.n) {
		jw_karr(&w, "notices");
		for (size_t i = 0; i < t->notices.n; i++)
			json_notice(&w, t->notices.v[i]);
		jw_end_arr(&w);
	}
	if (t->aggs.n || json_always(cmd, "aggregations")) {
		jw_karr(&w, "aggregations");
		for (size_t i = 0; i < t->aggs.n; i++)
			json_agg(&w, t->aggs.v[i]);
		jw_end_arr(&w);
	}
	if (t->snapshot) {
		jw_kobj(&w, "snapshot");
		jw_kstr(&w, "session", t->snapshot->session);
		jw_kstr(&w, "path", t->snapshot->path);
		jw_kstr(&w, "output", t->snapshot->output);
		jw_kbool(&w, "inside_output", (t->snapshot->flags & REC_SNAPSHOT_INSIDE) != 0);
		jw_end(&w);
	}
	if (t->rotation) {
		bool set = (t->rotation->flags & REC_ROTATION_SET) != 0;

		jw_kobj(&w, "rotation");
		jw_kstr(&w, "session", t->rotation->session);
		if (set) {
			jw_knull(&w, "chunk");
			jw_knull(&w, "path");
		} else {
			jw_ku64(&w, "chunk", t->rotation->chunk);
			jw_kstr(&w, "path", t->rotation->path);
		}
		jw_ku64(&w, "every_ms", t->rotation->every_ms);
		jw_ku64(&w, "size", t->rotation->size);
		jw_end(&w);
	}
	if (rep->has_file) {
		char err[256];
		struct js_doc *doc = NULL;

		/* the consumer's document, checked before it is part of ours */
		if (js_parse(&doc, rep->file, rep->file_len, NULL, err, sizeof(err)) < 0) {
			fprintf(stderr, "tracectl: %s: the results are not JSON: %s\n", cmd, err);
			return -EPROTO;
		}
		js_free(doc);
		jw_key(&w, "results");
		jw_raw(&w, rep->file, rep->file_len);
	}
	trig_json(&w, cmd, t);
	if (t->notes.n) {
		jw_karr(&w, "notes");
		for (size_t i = 0; i < t->notes.n; i++)
			why_json(&w, t->notes.v[i]);
		jw_end_arr(&w);
	}
	if (rep->status < 0) {
		jw_key(&w, "error");
		if (t->error) {
			why_json(&w, t->error);
		} else {
			struct rec_error e = { .code = RE_ERRNO, .err = -rep->status };

			why_json(&w, &e);
		}
	}
	jw_end(&w);
	fputc('\n', out);
	return 0;
}

/* ---- replies ---------------------------------------------------------------- */

void json_fail(struct jw *w, const struct ctl_fail *f)
{
	jw_obj(w);
	jw_kstr(w, "code", f->code);
	jw_ku64(w, "errno", f->err > 0 ? (uint64_t)f->err : 0);
	jw_kstr(w, "message", f->message);
	if (!strcmp(f->code, "no-answer")) {
		if (f->daemon_pid > 0)
			jw_ku64(w, "daemon_pid", (uint64_t)f->daemon_pid);
		else
			jw_knull(w, "daemon_pid");
		jw_kstr(w, "daemon_state", f->daemon_state);
		jw_kstr(w, "waiting_for", f->doing);
		jw_ku64(w, "waited_ms", f->waited_ms);
	}
	jw_end(w);
}

void json_no_reply(FILE *out, const char *cmd, const struct ctl_fail *f)
{
	struct jw w;

	jw_init(&w, out);
	jw_obj(&w);
	jw_ku64(&w, "version", CTL_JSON_VERSION);
	jw_kstr(&w, "command", cmd);
	jw_key(&w, "error");
	json_fail(&w, f);
	jw_end(&w);
	fputc('\n', out);
	fflush(out);
}

void render_refusal(const char *name, const struct ctl_reply *rep)
{
	char text[PROTO_PATH_MAX + 1024];

	if (rep->error) {
		why_text(rep->error, text, sizeof(text));
	} else {
		snprintf(text, sizeof(text), "%s", strerror(rep->status < 0 ? -rep->status : EIO));
	}
	fprintf(stderr, "tracectl: %s: %s\n", name, text);
}

int render_reply(const char *name, const struct ctl_reply *rep, int ret, enum ctl_format fmt,
		 FILE *out)
{
	struct rtree t;

	if (!rep->answered && fmt == CTL_JSON && rep->fail.code[0]) {
		/* said already; the document says it too */
		json_no_reply(out, name, &rep->fail);
		return ret;
	}
	if (!rep->answered)
		return ret;	/* said already */
	if (rtree_build(rep, &t) < 0) {
		rtree_free(&t);
		fprintf(stderr, "tracectl: %s: out of memory\n", name);
		return EXIT_RUNTIME;
	}
	if (fmt == CTL_JSON) {
		if (json_reply(out, name, rep, &t) < 0)
			ret = EXIT_RUNTIME;
	} else {
		text_reply(out, name, rep, &t);
	}
	fflush(out);
	rtree_free(&t);
	if (rep->status < 0)
		render_refusal(name, rep);
	return ret;
}

int ctl_call(const char *home, const char *name, enum proto_verb verb, const char *session,
	     const void *body, unsigned int nstr, const char *const *str, enum ctl_format fmt)
{
	struct ctl_reply rep;
	int ret = ctl_request(home, name, verb, session, body, nstr, str, &rep);

	ret = render_reply(name, &rep, ret, fmt, stdout);
	ctl_reply_free(&rep);
	return ret;
}
