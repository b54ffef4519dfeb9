// SPDX-License-Identifier: MIT
/*
 * profile.c - tracectl save and load: sessions as a JSON profile, the
 * format of doc/profile.md.
 *
 * save asks the session daemon for the status of the sessions (the typed
 * records of VERB_STATUS) and writes what makes each of them, not what it
 * counted: the session's settings, its tracking, its channels with their
 * settings and patterns (filters, log levels, exclusions), its context
 * fields, its aggregations, whether it is memory-only; and the triggers
 * (list-triggers' records) that act on a session saved or watch one of its
 * aggregations, every one when no session is named. Patterns and
 * aggregations are written oldest first (the daemon lists them newest
 * first), the order in which load makes them again.
 *
 * load reads a profile whole and checks every member before anything is
 * sent (a profile of a later version, a member it does not know, a value
 * of the wrong type or out of range: refused, naming the member), then
 * makes each session with the ordinary commands, which the daemon checks
 * as any: create, enable-channel (every setting given), enable-event (one
 * per pattern, each with its own conditions), add-context (after the
 * patterns, so that the state dump pattern of the ip context keeps its
 * place), disable-channel, aggregate, track and untrack, rotate, start;
 * then, every session made, add-trigger per trigger (with --override-name,
 * a trigger naming the profile's one session names the new one).
 * The status of the session made is the saved one's but for what time
 * and use make (doc/profile.md says which fields). A command the daemon
 * refuses ends the load: every trigger it made is removed and every
 * session it made destroyed again, so a load makes all of a profile or
 * nothing.
 *
 * State: none; a profile read is freed before the command returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/agg.h"
#include "common/shm.h"
#include "support/aggfmt.h"
#include "support/ctfmeta.h"
#include "support/json.h"
#include "support/protomsg.h"
#include "ctl-client.h"
#include "profile.h"
#include "render.h"
#include "trigctl.h"
#include "verbs.h"
#include "why.h"

#define PROFILE_MAX	(16u << 20)	/* bytes of a profile read */

const struct option save_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "format", required_argument, NULL, 'J' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct option load_opts[] = {
	{ "override-name", required_argument, NULL, 'n' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "format", required_argument, NULL, 'J' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *const ll_words[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};
static const char *const mode_words[] = { "discard", "overwrite" };
static const char *const compress_words[] = { "none", "lz4" };
static const char *const match_words[] = { "any", "at-least", "only" };
static const char *const track_words[] = { "", "pid", "uid", "exe" };

/* ---- save ----------------------------------------------------------------- */

/*
 * The control and data addresses of a streamed session, from its output
 * as the daemon says it: "net://HOST:C:D", or "tcp://HOST:C+tcp://HOST:D".
 */
static int relay_urls(const char *out, char *ctrl, size_t clen, char *data, size_t dlen)
{
	const char *plus = strchr(out, '+'), *d, *c;

	if (!strncmp(out, "tcp://", 6) && plus) {
		snprintf(ctrl, clen, "%.*s", (int)(plus - out), out);
		snprintf(data, dlen, "%s", plus + 1);
		return 0;
	}
	d = strrchr(out, ':');
	if (strncmp(out, "net://", 6) || !d || d <= out + 6)
		return -EINVAL;
	for (c = d - 1; c > out + 6 && *c != ':'; c--)
		;
	if (*c != ':')
		return -EINVAL;
	snprintf(ctrl, clen, "tcp://%.*s", (int)(d - out - 6), out + 6);
	snprintf(data, dlen, "tcp://%.*s%s", (int)(c - out - 6), out + 6, d);
	return 0;
}

static bool excl_of(const struct rec_exclusion *x, const struct rec_enabler *e)
{
	return !strcmp(x->session, e->session) && !strcmp(x->channel, e->channel) &&
	       !strcmp(x->pattern, e->pattern);
}

/* One pattern of a channel: 0, or -E2BIG when its filter was cut (not whole). */
static int save_event(struct jw *w, const struct rec_enabler *e, const struct rvec *ex)
{
	if (e->flags & REC_ENABLER_FILTER_CUT)
		return -E2BIG;
	jw_obj(w);
	jw_kstr(w, "pattern", e->pattern);
	jw_karr(w, "exclusions");
	for (size_t i = 0; i < ex->n; i++)
		if (excl_of(ex->v[i], e))
			jw_str(w, ((const struct rec_exclusion *)ex->v[i])->exclude);
	jw_end_arr(w);
	if (e->ll_kind == CMD_LL_ANY || e->ll_kind > CMD_LL_ONLY || e->loglevel > 7) {
		jw_knull(w, "loglevel");
	} else {
		jw_kobj(w, "loglevel");
		jw_kstr(w, "match", match_words[e->ll_kind]);
		jw_kstr(w, "level", ll_words[e->loglevel]);
		jw_end(w);
	}
	if (e->flags & REC_ENABLER_FILTER)
		jw_kstr(w, "filter", e->filter);
	else
		jw_knull(w, "filter");
	jw_end(w);
	return 0;
}

static int save_channel(struct jw *w, const struct rt_channel *rc)
{
	const struct rec_channel *c = rc->c;
	int ret = 0;

	jw_obj(w);
	jw_kstr(w, "name", c->name);
	jw_kbool(w, "enabled", !(c->flags & REC_CHANNEL_DISABLED));
	jw_kstr(w, "mode", mode_words[c->mode == SHM_MODE_OVERWRITE]);
	jw_ku64(w, "subbuf_size", c->subbuf_size);
	jw_ku64(w, "num_subbuf", c->num_subbuf);
	jw_ku64(w, "pool_size", c->pool_size);
	jw_ku64(w, "budget", c->budget);
	jw_ku64(w, "flush_interval_ms", c->flush_ms);
	jw_kstr(w, "compress", compress_words[c->compress == PROTO_COMPRESS_LZ4]);
	jw_karr(w, "context");
	for (unsigned int i = 0; i < CTF_NCONTEXTS; i++)
		if (c->context & ctf_contexts[i].bit)
			jw_str(w, ctf_contexts[i].name);
	jw_end_arr(w);
	jw_karr(w, "events");
	for (size_t i = rc->en.n; i-- > 0 && !ret;)	/* oldest first */
		ret = save_event(w, rc->en.v[i], &rc->ex);
	jw_end_arr(w);
	jw_end(w);
	return ret;
}

static int save_agg(struct jw *w, const struct rec_agg *a)
{
	bool profile = (a->flags & REC_AGG_PROFILE) != 0;

	if (a->flags & REC_AGG_FILTER_CUT)
		return -E2BIG;
	jw_obj(w);
	jw_kstr(w, "name", a->name);
	jw_kbool(w, "profile", profile);
	if (profile)
		jw_knull(w, "pattern");
	else
		jw_kstr(w, "pattern", a->pattern);
	/* a profile's keys and functions are the daemon's own: none given */
	json_agg_def(w, a, profile);
	jw_end(w);
	return 0;
}

/* One kind of @rs's tracking; every process when the daemon sent none. */
static void save_tracked(struct jw *w, const struct rt_session *rs, uint32_t kind)
{
	const struct rec_track *k = NULL;

	for (size_t i = 0; i < rs->tracks.n; i++)
		if (((const struct rec_track *)rs->tracks.v[i])->kind == kind)
			k = rs->tracks.v[i];
	jw_kobj(w, track_words[kind]);
	jw_kbool(w, "all", !k || (k->flags & REC_TRACK_ALL));
	jw_karr(w, "values");
	for (uint32_t j = 0; k && !(k->flags & REC_TRACK_ALL) && j < k->n; j++) {
		if (kind == PROTO_TRACK_EXE && j < PROTO_TRACK_EXE_MAX)
			jw_str(w, k->exe[j]);
		else if (kind != PROTO_TRACK_EXE && j < PROTO_TRACK_MAX)
			jw_u64(w, k->value[j]);
	}
	jw_end_arr(w);
	jw_end(w);
}

/* Session @rs in the profile: 0, or -errno and @why says what could not be saved. */
static int save_session(struct jw *w, const struct rt_session *rs, char *why, size_t wlen)
{
	const struct rec_session *s = rs->s;
	char ctrl[PROTO_URL_MAX], data[PROTO_URL_MAX];
	int ret = 0;

	jw_obj(w);
	jw_kstr(w, "name", s->name);
	if (s->flags & (REC_SESSION_STREAMED | REC_SESSION_OUTPUT_DEFAULT))
		jw_knull(w, "output");
	else
		jw_kstr(w, "output", s->output);
	if (s->flags & REC_SESSION_STREAMED) {
		if (relay_urls(s->output, ctrl, sizeof(ctrl), data, sizeof(data)) < 0) {
			snprintf(why, wlen, "session %s: its relay's address '%s' is not "
				 "understood", s->name, s->output);
			return -EINVAL;
		}
		jw_kobj(w, "relay");
		jw_kstr(w, "control", ctrl);
		jw_kstr(w, "data", data);
		jw_ku64(w, "live_period_us", s->live_us);
		jw_end(w);
	} else {
		jw_knull(w, "relay");
	}
	jw_kbool(w, "memory_only", (s->flags & REC_SESSION_MEMORY) != 0);
	jw_kstr(w, "mode", mode_words[s->mode == SHM_MODE_OVERWRITE]);
	jw_ku64(w, "pool_size", s->pool_size);
	jw_kobj(w, "allowed_uids");
	jw_kbool(w, "all", (s->flags & REC_SESSION_ALLOW_ALL) != 0);
	jw_karr(w, "uids");
	for (unsigned int i = 0; i < s->nallow && i < PROTO_ALLOW_MAX; i++)
		jw_u64(w, s->allow[i]);
	jw_end_arr(w);
	jw_end(w);
	jw_kobj(w, "rotation");
	jw_ku64(w, "every_ms", s->rot_ms);
	jw_ku64(w, "size", s->rot_bytes);
	jw_end(w);
	jw_kobj(w, "tracking");
	for (uint32_t k = PROTO_TRACK_PID; k <= PROTO_TRACK_EXE; k++)
		save_tracked(w, rs, k);
	jw_end(w);
	jw_kbool(w, "active", (s->flags & REC_SESSION_ACTIVE) != 0);
	jw_karr(w, "channels");
	for (size_t i = 0; i < rs->chans.n && !ret; i++)
		ret = save_channel(w, rs->chans.v[i]);
	jw_end_arr(w);
	jw_karr(w, "aggregations");
	for (size_t i = rs->aggs.n; i-- > 0 && !ret;)	/* oldest first */
		ret = save_agg(w, rs->aggs.v[i]);
	jw_end_arr(w);
	jw_end(w);
	if (ret < 0)
		snprintf(why, wlen, "session %s: a filter is too long to be saved whole", s->name);
	return ret;
}

/*
 * Trigger @t in the profile: its name, condition and action, as
 * list-triggers says them (not what it counted). 0, or -E2BIG when its
 * filter was cut.
 */
static int save_trigger(struct jw *w, const struct rec_trigger *t)
{
	if (t->flags & REC_TRIGGER_FILTER_CUT || t->kind < CMD_TRIG_EVENT ||
	    t->kind > CMD_TRIG_AGG || t->action < CMD_ACT_SNAPSHOT || t->action > CMD_ACT_NOTIFY)
		return -E2BIG;
	jw_obj(w);
	jw_kstr(w, "name", t->name);
	json_trigger_def(w, t);
	jw_end(w);
	return 0;
}

/* Whether trigger @t goes with the sessions @sel (@nsel): it acts on one, or watches one. */
static bool trigger_of(const struct rec_trigger *t, const struct rt_session **sel, size_t nsel)
{
	for (size_t i = 0; i < nsel; i++) {
		const char *name = sel[i]->s->name;

		if ((t->action != CMD_ACT_NOTIFY && !strcmp(t->action_session, name)) ||
		    (t->kind == CMD_TRIG_AGG && !strcmp(t->agg_session, name)))
			return true;
	}
	return false;
}

static void indent(FILE *out, int depth)
{
	fputc('\n', out);
	for (int i = 0; i < depth; i++)
		fputs("  ", out);
}

/* The compact JSON @s (@n bytes) on @out, a member a line, indented. */
static void pretty(FILE *out, const char *s, size_t n)
{
	int depth = 0;
	bool str = false;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (str) {
			fputc(c, out);
			if (c == '\\' && i + 1 < n)
				fputc(s[++i], out);
			else if (c == '"')
				str = false;
			continue;
		}
		switch (c) {
		case '"':
			str = true;
			fputc(c, out);
			break;
		case '{':
		case '[':
			fputc(c, out);
			if (i + 1 < n && (s[i + 1] == '}' || s[i + 1] == ']')) {
				fputc(s[++i], out);
				break;
			}
			indent(out, ++depth);
			break;
		case '}':
		case ']':
			indent(out, --depth);
			fputc(c, out);
			break;
		case ',':
			fputc(c, out);
			indent(out, depth);
			break;
		case ':':
			fputs(": ", out);
			break;
		default:
			fputc(c, out);
			break;
		}
	}
	fputc('\n', out);
}

/* @text (@n bytes) into @path, whole or not at all (a file beside it renamed). */
static int write_file(const char *path, const char *text, size_t n)
{
	char tmp[PROTO_PATH_MAX + 32];
	FILE *f;
	int ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "wxe");
	if (!f)
		return -errno;
	pretty(f, text, n);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		ret = -errno;
	if (fclose(f) != 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/* save refused (@e says why): on standard error, and as the document with --format json. */
static void save_refused(const struct rec_error *e, enum ctl_format fmt)
{
	char text[PROTO_PATH_MAX + 256];
	struct jw w;

	why_text(e, text, sizeof(text));
	fprintf(stderr, "tracectl: save: %s\n", text);
	if (fmt != CTL_JSON)
		return;
	jw_init(&w, stdout);
	jw_obj(&w);
	jw_ku64(&w, "version", CTL_JSON_VERSION);
	jw_kstr(&w, "command", "save");
	jw_key(&w, "error");
	why_json(&w, e);
	jw_end(&w);
	fputc('\n', stdout);
}

/*
 * The sessions of @t named in @names (@n of them), in that order, into
 * @sel; none named: every one, oldest first (the daemon lists the newest
 * first), so that a load makes them again in the same order. 0, or
 * -ENOENT with @e saying why.
 */
static int save_pick(const struct rtree *t, char **names, int n, const struct rt_session **sel,
		     size_t *nsel, struct rec_error *e)
{
	memset(e, 0, sizeof(*e));
	*nsel = 0;
	for (size_t i = t->sessions.n; !n && i-- > 0;)
		sel[(*nsel)++] = t->sessions.v[i];
	for (int i = 0; i < n; i++) {
		const struct rt_session *rs = rtree_session(t, names[i]);

		if (!rs) {
			e->code = RE_NO_SESSION;
			e->err = ENOENT;
			snprintf(e->session, sizeof(e->session), "%s", names[i]);
			return -ENOENT;
		}
		sel[(*nsel)++] = rs;
	}
	if (*nsel)
		return 0;
	e->code = RE_NO_SESSIONS;
	e->err = ENOENT;
	return -ENOENT;
}

int save_main(const struct verb *v, int argc, char **argv)
{
	enum ctl_format fmt = CTL_TEXT;
	const struct rt_session **sel = NULL;
	struct rec_error e;
	const char *out = NULL;
	char home[1024], why[PROTO_PATH_MAX + 128] = "";
	struct ctl_reply rep, trep = { 0 };
	struct rtree t, tt = { 0 };
	size_t nsel = 0, ntrig = 0, len = 0;
	char *text = NULL;
	struct jw w;
	FILE *f;
	int c, ret;

	optind = 1;
	while ((c = verb_getopt(v, argc, argv)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'T':
			if (ctl_timeout_set(optarg, "--timeout") < 0)
				return EXIT_USAGE;
			break;
		case 'J':
			if (ctl_format_parse("save", optarg, &fmt) < 0)
				return EXIT_USAGE;
			break;
		case 'h':
			verb_help(v, stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc; i++) {
		if (!proto_name_ok(argv[i])) {
			fprintf(stderr, "tracectl: save: bad session name '%s': %s\n", argv[i],
				PROTO_NAME_RULES);
			return EXIT_USAGE;
		}
	}
	if (out && !out[0]) {
		fprintf(stderr, "tracectl: save: -o: name a file\n");
		return EXIT_USAGE;
	}
	if (ctl_home(home, sizeof(home)))
		return EXIT_RUNTIME;
	/* every session: status of one that is not there would fail */
	ret = ctl_request(home, "save", VERB_STATUS, "", NULL, 0, NULL, &rep);
	if (!rep.answered) {
		ret = render_reply("save", &rep, ret ? ret : EXIT_RUNTIME, fmt, stdout);
		ctl_reply_free(&rep);
		return ret;
	}
	/* (a session whose traces met write errors is saved all the same) */
	ret = EXIT_RUNTIME;
	if (rtree_build(&rep, &t) < 0 || !(sel = calloc(t.sessions.n + 1, sizeof(*sel)))) {
		fprintf(stderr, "tracectl: save: out of memory\n");
		goto out;
	}
	if (save_pick(&t, argv + optind, argc - optind, sel, &nsel, &e) < 0) {
		save_refused(&e, fmt);
		goto out;
	}
	/* the triggers: every one, or those of the sessions named */
	c = ctl_request(home, "save", VERB_LIST_TRIGGERS, "", NULL, 0, NULL, &trep);
	if (!trep.answered || c != EXIT_OK) {
		ret = render_reply("save", &trep, c ? c : EXIT_RUNTIME, fmt, stdout);
		goto out;
	}
	ret = EXIT_RUNTIME;
	if (rtree_build(&trep, &tt) < 0) {
		fprintf(stderr, "tracectl: save: out of memory\n");
		goto out;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		fprintf(stderr, "tracectl: save: out of memory\n");
		goto out;
	}
	jw_init(&w, f);
	jw_obj(&w);
	jw_ku64(&w, "shmtrace_profile", PROFILE_VERSION);
	jw_karr(&w, "sessions");
	for (size_t i = 0; i < nsel && !why[0]; i++)
		save_session(&w, sel[i], why, sizeof(why));
	jw_end_arr(&w);
	jw_karr(&w, "triggers");
	for (size_t i = 0; i < tt.triggers.n && !why[0]; i++) {
		const struct rec_trigger *tr = tt.triggers.v[i];

		if (argc > optind && !trigger_of(tr, sel, nsel))
			continue;
		if (save_trigger(&w, tr) < 0)
			snprintf(why, sizeof(why), "trigger %s: its filter is too long to be "
				 "saved whole", tr->name);
		ntrig++;
	}
	jw_end_arr(&w);
	jw_end(&w);
	if (fclose(f) != 0 || !text) {
		fprintf(stderr, "tracectl: save: out of memory\n");
		goto out;
	}
	if (why[0]) {
		fprintf(stderr, "tracectl: save: %s\n", why);
		goto out;
	}
	if (!out || !strcmp(out, "-")) {
		pretty(stdout, text, len);
		ret = fflush(stdout) ? EXIT_RUNTIME : EXIT_OK;
		goto out;
	}
	c = write_file(out, text, len);
	if (c < 0) {
		fprintf(stderr, "tracectl: save: cannot write %s: %s\n", out, strerror(-c));
		goto out;
	}
	ret = EXIT_OK;
	if (fmt == CTL_JSON) {
		jw_init(&w, stdout);
		jw_obj(&w);
		jw_ku64(&w, "version", CTL_JSON_VERSION);
		jw_kstr(&w, "command", "save");
		jw_kobj(&w, "saved");
		jw_kstr(&w, "path", out);
		jw_karr(&w, "sessions");
		for (size_t i = 0; i < nsel; i++)
			jw_str(&w, sel[i]->s->name);
		jw_end_arr(&w);
		jw_karr(&w, "triggers");
		for (size_t i = 0; i < tt.triggers.n; i++)
			if (argc == optind || trigger_of(tt.triggers.v[i], sel, nsel))
				jw_str(&w, ((const struct rec_trigger *)tt.triggers.v[i])->name);
		jw_end_arr(&w);
		jw_end(&w);
		jw_end(&w);
		fputc('\n', stdout);
	} else {
		for (size_t i = 0; i < nsel; i++)
			printf("Session %s saved to %s\n", sel[i]->s->name, out);
		if (ntrig)
			printf("%zu trigger%s saved to %s\n", ntrig, ntrig == 1 ? "" : "s", out);
	}
out:
	free(text);
	free(sel);
	rtree_free(&t);
	rtree_free(&tt);
	ctl_reply_free(&rep);
	ctl_reply_free(&trep);
	return ret;
}

/* ---- load: reading -------------------------------------------------------- */

struct pl_event {
	struct cmd_events ev;
	const char *pattern;
	const char *filter;		/* NULL: none */
	const char *excl[PROTO_EXCLUDE_MAX];
};

struct pl_channel {
	struct cmd_channel c;
	bool enabled;
	uint32_t context;		/* SHMTRACE__CTX_* */
	uint32_t nev;
	struct pl_event *ev;
};

struct pl_agg {
	struct cmd_aggregate a;
	const char *filter;
};

struct pl_session {
	char name[PROTO_NAME_MAX];
	struct cmd_create create;
	bool active;
	struct cmd_rotate rotate;
	struct cmd_track track;		/* the values tracked */
	uint32_t nexe;
	const char *exe[PROTO_TRACK_EXE_MAX];
	uint32_t none;			/* CMD_TRACK_* of kinds that track none */
	uint32_t nch;
	struct pl_channel *ch;
	uint32_t nagg;
	struct pl_agg *agg;
};

struct pl_trigger {
	struct cmd_trigger c;
	const char *filter;		/* NULL: none */
};

/* A profile being read: where, and the first thing wrong. */
struct pl {
	const struct js_doc *doc;
	int64_t version;		/* its "shmtrace_profile" */
	char path[256];			/* the member being read */
	char why[512];
};

static int __attribute__((format(printf, 2, 3))) pl_fail(struct pl *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->why[0])
		return -EINVAL;
	n = snprintf(p->why, sizeof(p->why), "%s: ", p->path[0] ? p->path : "the profile");
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(p->why))
		vsnprintf(p->why + n, sizeof(p->why) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Go into member @fmt of the current path: the length to come back to. */
static size_t __attribute__((format(printf, 2, 3))) pl_in(struct pl *p, const char *fmt, ...)
{
	size_t mark = strlen(p->path);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->path + mark, sizeof(p->path) - mark, fmt, ap);
	va_end(ap);
	return mark;
}

static void pl_out(struct pl *p, size_t mark)
{
	p->path[mark] = 0;
}

/* @o is an object whose members are among @names (NULL-ended), each once. */
static int pl_object(struct pl *p, const struct js_node *o, const char *const *names)
{
	if (!o || o->type != JS_OBJ)
		return pl_fail(p, "not an object");
	for (const struct js_node *m = js_child(p->doc, o); m; m = js_next(p->doc, o, m)) {
		const char *n = js_name(p->doc, m);
		unsigned int count = 0;
		size_t i;

		for (i = 0; names[i] && strcmp(names[i], n); i++)
			;
		if (!names[i])
			return pl_fail(p, "unknown member \"%s\" (doc/profile.md has those of "
				       "version %d)", n,
				       p->version ? (int)p->version : PROFILE_VERSION);
		js_member(p->doc, o, n, &count);
		if (count != 1)
			return pl_fail(p, "member \"%s\" given %u times", n, count);
	}
	return 0;
}

/* Member @name of object @o, of type @type (JS_*); NULL (failed) when it is not. */
static const struct js_node *pl_get(struct pl *p, const struct js_node *o, const char *name,
				    int type)
{
	unsigned int count = 0;
	const struct js_node *n = js_member(p->doc, o, name, &count);
	static const char *const types[] = { "null", "false", "true", "a number", "a string",
					     "an array", "an object" };

	if (!n) {
		pl_fail(p, "no member \"%s\"", name);
		return NULL;
	}
	if (n->type != type && !(type == JS_TRUE && n->type == JS_FALSE)) {
		pl_fail(p, "\"%s\" is not %s", name,
			type == JS_TRUE ? "true or false" : types[type]);
		return NULL;
	}
	return n;
}

static int pl_int(struct pl *p, const struct js_node *o, const char *name, int64_t min,
		  int64_t max, int64_t *out)
{
	const struct js_node *n = pl_get(p, o, name, JS_NUM);

	if (!n)
		return -EINVAL;
	if (n->num == JS_INT_S64 && n->v.i >= min && n->v.i <= max) {
		*out = n->v.i;
		return 0;
	}
	return pl_fail(p, "\"%s\": a whole number from %lld to %lld", name, (long long)min,
		       (long long)max);
}

static int pl_u32(struct pl *p, const struct js_node *o, const char *name, uint32_t min,
		  uint32_t max, uint32_t *out)
{
	int64_t v = 0;
	int ret = pl_int(p, o, name, min, max, &v);

	*out = (uint32_t)v;
	return ret;
}

static int pl_bool(struct pl *p, const struct js_node *o, const char *name, bool *out)
{
	const struct js_node *n = pl_get(p, o, name, JS_TRUE);

	if (!n)
		return -EINVAL;
	*out = n->type == JS_TRUE;
	return 0;
}

/* A string of @n (1 to @cap - 1 bytes, no NUL): its bytes, NULL (failed) when not. */
static const char *pl_text(struct pl *p, const struct js_node *n, const char *name, size_t cap)
{
	if (n->type != JS_STR)
		return pl_fail(p, "\"%s\": not a string", name), NULL;
	if (!n->len || n->len >= cap || memchr(js_str(p->doc, n), 0, n->len))
		return pl_fail(p, "\"%s\": 1 to %zu bytes", name, cap - 1), NULL;
	return js_str(p->doc, n);
}

/* Member @name: a string as pl_text(), or with @nullable null (NULL, *@null set). */
static const char *pl_str(struct pl *p, const struct js_node *o, const char *name, size_t cap,
			  bool nullable, bool *null)
{
	unsigned int count = 0;
	const struct js_node *n = js_member(p->doc, o, name, &count);

	*null = false;
	if (!n)
		return pl_fail(p, "no member \"%s\"", name), NULL;
	if (nullable && n->type == JS_NULL) {
		*null = true;
		return NULL;
	}
	return pl_text(p, n, name, cap);
}

/* Member @name: one of @words (@n of them), its index in *@out. */
static int pl_word(struct pl *p, const struct js_node *o, const char *name,
		   const char *const *words, unsigned int n, uint32_t *out)
{
	bool null;
	const char *s = pl_str(p, o, name, 64, false, &null);

	if (!s)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++) {
		if (!strcmp(s, words[i])) {
			*out = i;
			return 0;
		}
	}
	return pl_fail(p, "\"%s\": '%s' is not one of the words doc/profile.md lists", name, s);
}

/* Member @name, an array of at most @max members: it, NULL when failed. */
static const struct js_node *pl_array(struct pl *p, const struct js_node *o, const char *name,
				      uint32_t max)
{
	const struct js_node *a = pl_get(p, o, name, JS_ARR);

	if (a && a->len > max)
		return pl_fail(p, "\"%s\": at most %u", name, max), NULL;
	return a;
}

static int pl_event(struct pl *p, const struct js_node *o, const char *channel,
		    struct pl_event *e)
{
	static const char *const names[] = { "pattern", "exclusions", "loglevel", "filter", NULL };
	const struct js_node *a, *x, *ll;
	bool null;

	if (pl_object(p, o, names) < 0)
		return -EINVAL;
	snprintf(e->ev.channel, sizeof(e->ev.channel), "%s", channel);
	e->pattern = pl_str(p, o, "pattern", PROTO_EVNAME_MAX, false, &null);
	a = pl_array(p, o, "exclusions", PROTO_EXCLUDE_MAX);
	if (!e->pattern || !a)
		return -EINVAL;
	for (x = js_child(p->doc, a); x; x = js_next(p->doc, a, x)) {
		e->excl[e->ev.nexclude] = pl_text(p, x, "exclusions", PROTO_EVNAME_MAX);
		if (!e->excl[e->ev.nexclude++])
			return -EINVAL;
	}
	e->filter = pl_str(p, o, "filter", PROTO_FILTER_MAX, true, &null);
	if (!e->filter && !null)
		return -EINVAL;
	e->ev.filter = !null;
	ll = js_member(p->doc, o, "loglevel", &(unsigned int){ 0 });
	if (!ll)
		return pl_fail(p, "no member \"loglevel\"");
	if (ll->type != JS_NULL) {
		static const char *const llnames[] = { "match", "level", NULL };
		size_t mark = pl_in(p, ".loglevel");
		int ret = pl_object(p, ll, llnames);

		if (!ret)
			ret = pl_word(p, ll, "match", match_words, 3, &e->ev.ll_kind);
		if (!ret)
			ret = pl_word(p, ll, "level", ll_words, 8, &e->ev.loglevel);
		if (!ret && e->ev.ll_kind == CMD_LL_ANY)
			ret = pl_fail(p, "\"match\": at-least or only (null: any level)");
		pl_out(p, mark);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int pl_channel(struct pl *p, const struct js_node *o, struct pl_channel *ch)
{
	/* "budget" since version 3 */
	static const char *const names[] = {
		"name", "enabled", "mode", "subbuf_size", "num_subbuf", "pool_size",
		"flush_interval_ms", "compress", "context", "events", "budget", NULL,
	}, *const names2[] = {
		"name", "enabled", "mode", "subbuf_size", "num_subbuf", "pool_size",
		"flush_interval_ms", "compress", "context", "events", NULL,
	};
	struct cmd_channel *c = &ch->c;
	const struct js_node *ctx, *evs, *e;
	const char *name;
	bool null;
	uint32_t i = 0;
	int ret;

	if (pl_object(p, o, p->version < 3 ? names2 : names) < 0)
		return -EINVAL;
	name = pl_str(p, o, "name", 33, false, &null);
	if (!name)
		return -EINVAL;
	if (!proto_name_ok(name))
		return pl_fail(p, "\"name\": '%s': %s", name, PROTO_NAME_RULES);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->set = CMD_CHAN_SUBBUF | CMD_CHAN_NUM | CMD_CHAN_MODE | CMD_CHAN_FLUSH | CMD_CHAN_POOL |
		 CMD_CHAN_COMPRESS;
	ret = pl_bool(p, o, "enabled", &ch->enabled);
	if (!ret)
		ret = pl_word(p, o, "mode", mode_words, 2, &c->mode);
	if (!ret)
		ret = pl_u32(p, o, "subbuf_size", SHM_MIN_SUBBUF, SHM_MAX_SUBBUF, &c->subbuf_size);
	if (!ret)
		ret = pl_u32(p, o, "num_subbuf", 2, SHM_MAX_NUM_SUBBUF, &c->num_subbuf);
	if (!ret)
		ret = pl_u32(p, o, "pool_size", 1, SHM_MAX_SLOTS, &c->pool_size);
	if (!ret)
		ret = pl_u32(p, o, "flush_interval_ms", 0, 3600000, &c->flush_ms);
	if (!ret)
		ret = pl_word(p, o, "compress", compress_words, 2, &c->compress);
	/* before version 3, no budget: its channels had none */
	c->budget_kib = 0;
	c->set |= CMD_CHAN_BUDGET;
	if (!ret && p->version >= 3) {
		int64_t budget = 0;

		ret = pl_int(p, o, "budget", 0, (int64_t)UINT32_MAX << 10, &budget);
		if (!ret && budget % 1024)
			ret = pl_fail(p, "\"budget\": %lld: a whole number of KiB", (long long)budget);
		c->budget_kib = (uint32_t)(budget >> 10);
	}
	ctx = ret ? NULL : pl_array(p, o, "context", CTF_NCONTEXTS);
	evs = ctx ? pl_array(p, o, "events", PROTO_CMD_MAX_STR * 16) : NULL;
	if (!evs)
		return -EINVAL;
	for (e = js_child(p->doc, ctx); e; e = js_next(p->doc, ctx, e)) {
		const char *f = pl_text(p, e, "context", 32);
		uint32_t bit = f ? ctf_context_bit(f) : 0;

		if (!f)
			return -EINVAL;
		if (!bit)
			return pl_fail(p, "\"context\": no context field '%s'", f);
		ch->context |= bit;
	}
	ch->ev = calloc(evs->len ? evs->len : 1, sizeof(*ch->ev));
	if (!ch->ev)
		return pl_fail(p, "out of memory");
	for (e = js_child(p->doc, evs); e; e = js_next(p->doc, evs, e), i++) {
		size_t mark = pl_in(p, ".events[%u]", i);

		ret = pl_event(p, e, c->name, &ch->ev[i]);
		pl_out(p, mark);
		if (ret < 0)
			return ret;
		ch->nev++;
	}
	return 0;
}

static int pl_agg(struct pl *p, const struct js_node *o, struct pl_agg *ag)
{
	static const char *const names[] = {
		"name", "profile", "pattern", "keys", "functions", "filter", "capacity", NULL,
	};
	static const char *const knames[] = { "field", "type", NULL };
	static const char *const fnames[] = { "fn", "field", "low", "high", "step", NULL };
	static const char *const types[] = { "int", "str" };
	struct cmd_aggregate *a = &ag->a;
	const struct js_node *keys, *funcs, *e;
	const char *s;
	bool profile = false, null;
	int ret;

	if (pl_object(p, o, names) < 0)
		return -EINVAL;
	s = pl_str(p, o, "name", PROTO_NAME_MAX, false, &null);
	if (!s || pl_bool(p, o, "profile", &profile) < 0)
		return -EINVAL;
	snprintf(a->name, sizeof(a->name), "%s", s);
	a->flags = profile ? CMD_AGG_PROFILE : 0;
	s = pl_str(p, o, "pattern", PROTO_EVNAME_MAX, profile, &null);
	if (!s && !null)
		return -EINVAL;
	if (s)
		snprintf(a->pattern, sizeof(a->pattern), "%s", s);
	if (s && profile)
		return pl_fail(p, "\"pattern\": null for a profile");
	ag->filter = pl_str(p, o, "filter", PROTO_FILTER_MAX, true, &null);
	if (!ag->filter && !null)
		return -EINVAL;
	a->filter = !null;
	if (pl_u32(p, o, "capacity", 1, 1u << 20, &a->keys) < 0)
		return -EINVAL;
	keys = pl_array(p, o, "keys", CMD_AGG_KEYS);
	funcs = keys ? pl_array(p, o, "functions", CMD_AGG_FUNCS) : NULL;
	if (!funcs)
		return -EINVAL;
	if (profile && (keys->len || funcs->len))
		return pl_fail(p, "a profile has no keys nor functions of its own");
	for (e = js_child(p->doc, keys); e; e = js_next(p->doc, keys, e)) {
		size_t mark = pl_in(p, ".keys[%u]", a->nkeys);
		uint32_t t = 0;

		ret = pl_object(p, e, knames);
		s = ret ? NULL : pl_str(p, e, "field", REC_AGG_FIELD, false, &null);
		if (!s || pl_word(p, e, "type", types, 2, &t) < 0)
			ret = -EINVAL;
		else
			snprintf(a->key[a->nkeys++], CMD_AGG_FIELD, "%s:%s", s, types[t]);
		pl_out(p, mark);
		if (ret < 0)
			return -EINVAL;
	}
	for (e = js_child(p->doc, funcs); e; e = js_next(p->doc, funcs, e)) {
		struct cmd_agg_func *f = &a->func[a->nfuncs];
		size_t mark = pl_in(p, ".functions[%u]", a->nfuncs);
		const char *fns[AGG_NFN];
		int64_t v = 0;

		for (unsigned int k = 0; k < AGG_NFN; k++)
			fns[k] = agg_fn_name(k);
		ret = pl_object(p, e, fnames);
		if (!ret)
			ret = pl_word(p, e, "fn", fns, AGG_NFN, &f->fn);
		s = ret ? NULL : pl_str(p, e, "field", REC_AGG_FIELD, true, &null);
		if (!ret && !s && !null)
			ret = -EINVAL;
		if (!ret && (f->fn == AGG_COUNT) != null)
			ret = pl_fail(p, "\"field\": null for count only");
		if (!ret && s)
			snprintf(f->field, sizeof(f->field), "%s", s);
		if (!ret && f->fn == AGG_LQUANTIZE) {
			ret = pl_int(p, e, "low", INT64_MIN, INT64_MAX, &f->low);
			if (!ret)
				ret = pl_int(p, e, "high", INT64_MIN, INT64_MAX, &f->high);
			if (!ret)
				ret = pl_int(p, e, "step", 1, INT32_MAX, &v);
			f->step = (int32_t)v;
		} else if (!ret && (js_member(p->doc, e, "low", &(unsigned int){ 0 }) ||
				    js_member(p->doc, e, "high", &(unsigned int){ 0 }) ||
				    js_member(p->doc, e, "step", &(unsigned int){ 0 }))) {
			ret = pl_fail(p, "low, high and step are lquantize's");
		}
		pl_out(p, mark);
		if (ret < 0)
			return -EINVAL;
		a->nfuncs++;
	}
	return 0;
}

/* One kind of tracking: every process, or the set @o says. */
static int pl_tracked(struct pl *p, const struct js_node *o, uint32_t kind, struct pl_session *s)
{
	static const char *const names[] = { "all", "values", NULL };
	const struct js_node *vals, *e;
	bool all = true;

	if (pl_object(p, o, names) < 0 || pl_bool(p, o, "all", &all) < 0)
		return -EINVAL;
	vals = pl_array(p, o, "values", kind == PROTO_TRACK_EXE ? PROTO_TRACK_EXE_MAX :
			PROTO_TRACK_MAX);
	if (!vals)
		return -EINVAL;
	if (all && vals->len)
		return pl_fail(p, "\"values\": none with all");
	if (all)
		return 0;
	if (!vals->len)
		s->none |= CMD_TRACK_BIT(kind);
	for (e = js_child(p->doc, vals); e; e = js_next(p->doc, vals, e)) {
		if (kind == PROTO_TRACK_EXE) {
			s->exe[s->nexe] = pl_text(p, e, "values", PROTO_TRACK_EXE_LEN);
			if (!s->exe[s->nexe++])
				return -EINVAL;
			continue;
		}
		if (e->type != JS_NUM || e->num != JS_INT_S64 ||
		    e->v.i < (kind == PROTO_TRACK_PID) ||
		    e->v.i > (kind == PROTO_TRACK_PID ? PROTO_PID_MAX : UINT32_MAX - 1))
			return pl_fail(p, "\"values\": %s", kind == PROTO_TRACK_PID ?
				       "process ids" : "uids");
		if (kind == PROTO_TRACK_PID)
			s->track.pid[s->track.npid++] = (uint32_t)e->v.i;
		else
			s->track.uid[s->track.nuid++] = (uint32_t)e->v.i;
	}
	return 0;
}

static int pl_session(struct pl *p, const struct js_node *o, struct pl_session *s)
{
	static const char *const names[] = {
		"name", "output", "relay", "mode", "pool_size", "allowed_uids", "rotation",
		"tracking", "active", "channels", "aggregations", "memory_only", NULL,
	};
	static const char *const anames[] = { "all", "uids", NULL };
	static const char *const rnames[] = { "every_ms", "size", NULL };
	static const char *const tnames[] = { "pid", "uid", "exe", NULL };
	static const char *const lnames[] = { "control", "data", "live_period_us", NULL };
	const char *names2[sizeof(names) / sizeof(names[0])];
	struct cmd_create *c = &s->create;
	const struct js_node *n, *e;
	const char *str;
	bool null, all, memory = false;
	size_t mark;
	uint32_t i;
	int64_t v;

	/* version 1 knows no memory-only session: its names end before */
	if (p->version < 2)
		memcpy(&names2, names, sizeof(names2)), names2[11] = NULL;
	if (pl_object(p, o, p->version < 2 ? names2 : names) < 0)
		return -EINVAL;
	str = pl_str(p, o, "name", PROTO_NAME_MAX, false, &null);
	if (!str)
		return -EINVAL;
	if (!proto_name_ok(str))
		return pl_fail(p, "\"name\": '%s': %s", str, PROTO_NAME_RULES);
	snprintf(s->name, sizeof(s->name), "%s", str);
	if (p->version >= 2 && pl_bool(p, o, "memory_only", &memory) < 0)
		return -EINVAL;
	if (memory)
		c->flags |= CMD_CREATE_MEMORY;
	str = pl_str(p, o, "output", PROTO_PATH_MAX - 64, true, &null);
	if (!str && !null)
		return -EINVAL;
	if (str && str[0] != '/')
		return pl_fail(p, "\"output\": an absolute path, or null");
	if (str)
		snprintf(c->output, sizeof(c->output), "%s", str);
	n = js_member(p->doc, o, "relay", &(unsigned int){ 0 });
	if (!n)
		return pl_fail(p, "no member \"relay\"");
	if (n->type != JS_NULL) {
		mark = pl_in(p, ".relay");
		if (pl_object(p, n, lnames) < 0)
			return -EINVAL;
		str = pl_str(p, n, "control", PROTO_URL_MAX, false, &null);
		if (!str)
			return -EINVAL;
		snprintf(c->ctrl_url, sizeof(c->ctrl_url), "%s", str);
		str = pl_str(p, n, "data", PROTO_URL_MAX, false, &null);
		if (!str || pl_u32(p, n, "live_period_us", 0, UINT32_MAX, &c->live_us) < 0)
			return -EINVAL;
		snprintf(c->data_url, sizeof(c->data_url), "%s", str);
		c->live = c->live_us != 0;
		pl_out(p, mark);
		if (c->output[0])
			return pl_fail(p, "\"output\": null for a session streamed to a relay");
		if (memory)
			return pl_fail(p, "\"relay\": null for a memory-only session");
	}
	if (pl_word(p, o, "mode", mode_words, 2, &c->mode) < 0 ||
	    pl_u32(p, o, "pool_size", 1, SHM_MAX_SLOTS, &c->pool_size) < 0 ||
	    pl_bool(p, o, "active", &s->active) < 0)
		return -EINVAL;
	if (memory && c->mode != SHM_MODE_OVERWRITE)
		return pl_fail(p, "\"mode\": overwrite, for a memory-only session");
	n = pl_get(p, o, "allowed_uids", JS_OBJ);
	if (!n)
		return -EINVAL;
	mark = pl_in(p, ".allowed_uids");
	if (pl_object(p, n, anames) < 0 || pl_bool(p, n, "all", &all) < 0 ||
	    !(n = pl_array(p, n, "uids", PROTO_ALLOW_MAX)))
		return -EINVAL;
	c->allow_all = all;
	for (e = js_child(p->doc, n); e; e = js_next(p->doc, n, e)) {
		if (e->type != JS_NUM || e->num != JS_INT_S64 || e->v.i < 0 || e->v.i >= UINT32_MAX)
			return pl_fail(p, "\"uids\": uids");
		c->allow[c->nallow++] = (uint32_t)e->v.i;
	}
	pl_out(p, mark);
	n = pl_get(p, o, "rotation", JS_OBJ);
	if (!n)
		return -EINVAL;
	mark = pl_in(p, ".rotation");
	if (pl_object(p, n, rnames) < 0 || pl_int(p, n, "every_ms", 0, INT64_MAX, &v) < 0)
		return -EINVAL;
	s->rotate.every_ms = (uint64_t)v;
	if (pl_int(p, n, "size", 0, INT64_MAX, &v) < 0)
		return -EINVAL;
	s->rotate.size = (uint64_t)v;
	s->rotate.set = (s->rotate.every_ms || s->rotate.size) ? CMD_ROT_SIZE | CMD_ROT_EVERY : 0;
	pl_out(p, mark);
	n = pl_get(p, o, "tracking", JS_OBJ);
	if (!n)
		return -EINVAL;
	mark = pl_in(p, ".tracking");
	if (pl_object(p, n, tnames) < 0)
		return -EINVAL;
	for (uint32_t k = PROTO_TRACK_PID; k <= PROTO_TRACK_EXE; k++) {
		size_t m2 = pl_in(p, ".%s", track_words[k]);
		const struct js_node *t = pl_get(p, n, track_words[k], JS_OBJ);

		if (!t || pl_tracked(p, t, k, s) < 0)
			return -EINVAL;
		pl_out(p, m2);
	}
	pl_out(p, mark);
	n = pl_array(p, o, "channels", SHM_MAX_CHAN);
	if (!n)
		return -EINVAL;
	s->ch = calloc(n->len ? n->len : 1, sizeof(*s->ch));
	if (!s->ch)
		return pl_fail(p, "out of memory");
	for (e = js_child(p->doc, n), i = 0; e; e = js_next(p->doc, n, e), i++) {
		mark = pl_in(p, ".channels[%u]", i);
		if (pl_channel(p, e, &s->ch[i]) < 0)
			return -EINVAL;
		s->nch++;
		pl_out(p, mark);
	}
	n = pl_array(p, o, "aggregations", SHM_MAX_AGG);
	if (!n)
		return -EINVAL;
	s->agg = calloc(n->len ? n->len : 1, sizeof(*s->agg));
	if (!s->agg)
		return pl_fail(p, "out of memory");
	for (e = js_child(p->doc, n), i = 0; e; e = js_next(p->doc, n, e), i++) {
		mark = pl_in(p, ".aggregations[%u]", i);
		if (pl_agg(p, e, &s->agg[i]) < 0)
			return -EINVAL;
		s->nagg++;
		pl_out(p, mark);
	}
	return 0;
}

/* A trigger's condition @o into @t: 0, or -EINVAL and p->why. */
static int pl_condition(struct pl *p, const struct js_node *o, struct pl_trigger *t)
{
	static const char *const enames[] = { "kind", "pattern", "filter", "rate_policy", NULL };
	static const char *const gnames[] = { "kind", "session", "aggregation", "when", "every_ms",
					      NULL };
	static const char *const rnames[] = { "kind", "n", NULL };
	struct cmd_trigger *c = &t->c;
	const struct js_node *r;
	const char *str;
	size_t mark;
	bool null;
	int64_t v;

	if (!o || o->type != JS_OBJ)
		return pl_fail(p, "not an object");
	if (pl_word(p, o, "kind", trig_cond_words, CMD_TRIG_AGG + 1, &c->kind) < 0)
		return -EINVAL;
	if (!c->kind)
		return pl_fail(p, "\"kind\": event or aggregation");
	if (pl_object(p, o, c->kind == CMD_TRIG_EVENT ? enames : gnames) < 0)
		return -EINVAL;
	if (c->kind == CMD_TRIG_AGG) {
		str = pl_str(p, o, "session", PROTO_NAME_MAX, false, &null);
		if (!str)
			return -EINVAL;
		snprintf(c->agg_session, sizeof(c->agg_session), "%s", str);
		str = pl_str(p, o, "aggregation", PROTO_NAME_MAX, false, &null);
		if (!str)
			return -EINVAL;
		snprintf(c->agg, sizeof(c->agg), "%s", str);
		str = pl_str(p, o, "when", PROTO_WHEN_MAX, false, &null);
		if (!str)
			return -EINVAL;
		snprintf(c->when, sizeof(c->when), "%s", str);
		if (pl_int(p, o, "every_ms", 10, 86400000, &v) < 0)
			return -EINVAL;
		c->every_ms = (uint64_t)v;
		c->policy = SHM_TRIG_EVERY;
		c->n = 1;
		return 0;
	}
	str = pl_str(p, o, "pattern", PROTO_EVNAME_MAX, false, &null);
	if (!str)
		return -EINVAL;
	snprintf(c->pattern, sizeof(c->pattern), "%s", str);
	t->filter = pl_str(p, o, "filter", PROTO_FILTER_MAX, true, &null);
	if (!t->filter && !null)
		return -EINVAL;
	c->filter = t->filter != NULL;
	r = pl_get(p, o, "rate_policy", JS_OBJ);
	if (!r)
		return -EINVAL;
	mark = pl_in(p, ".rate_policy");
	if (pl_object(p, r, rnames) < 0 || pl_word(p, r, "kind", trig_policy_words, 2, &c->policy) < 0 ||
	    pl_int(p, r, "n", 1, (int64_t)((1ull << SHM_TRIG_COUNT_BITS) - 1), &v) < 0)
		return -EINVAL;
	c->policy = c->policy ? SHM_TRIG_ONCE_AFTER : SHM_TRIG_EVERY;
	c->n = (uint64_t)v;
	pl_out(p, mark);
	return 0;
}

static int pl_trigger(struct pl *p, const struct js_node *o, struct pl_trigger *t)
{
	static const char *const names[] = { "name", "condition", "action", NULL };
	static const char *const anames[] = { "kind", "session", NULL };
	const struct js_node *n;
	const char *str;
	size_t mark;
	bool null;

	if (pl_object(p, o, names) < 0)
		return -EINVAL;
	str = pl_str(p, o, "name", PROTO_NAME_MAX, false, &null);
	if (!str)
		return -EINVAL;
	if (!proto_name_ok(str))
		return pl_fail(p, "\"name\": '%s': %s", str, PROTO_NAME_RULES);
	snprintf(t->c.name, sizeof(t->c.name), "%s", str);
	n = pl_get(p, o, "condition", JS_OBJ);
	if (!n)
		return -EINVAL;
	mark = pl_in(p, ".condition");
	if (pl_condition(p, n, t) < 0)
		return -EINVAL;
	pl_out(p, mark);
	n = pl_get(p, o, "action", JS_OBJ);
	if (!n)
		return -EINVAL;
	mark = pl_in(p, ".action");
	if (pl_object(p, n, anames) < 0 ||
	    pl_word(p, n, "kind", trig_act_words, CMD_ACT_NOTIFY + 1, &t->c.action) < 0)
		return -EINVAL;
	if (!t->c.action)
		return pl_fail(p, "\"kind\": '' is not one of the words doc/profile.md lists");
	str = pl_str(p, n, "session", PROTO_NAME_MAX, true, &null);
	if (!str && !null)
		return -EINVAL;
	if ((t->c.action == CMD_ACT_NOTIFY) != null)
		return pl_fail(p, "\"session\": %s", null ? "a session's name, for this action" :
			       "null, for notify");
	if (str)
		snprintf(t->c.action_session, sizeof(t->c.action_session), "%s", str);
	pl_out(p, mark);
	return 0;
}

/*
 * The sessions of the profile @root into *@out (*@n of them), its
 * triggers into *@tout (*@nt): 0, or -EINVAL and p->why.
 */
static int pl_profile(struct pl *p, const struct js_node *root, struct pl_session **out,
		      uint32_t *n, struct pl_trigger **tout, uint32_t *nt)
{
	static const char *const names[] = { "shmtrace_profile", "sessions", "triggers", NULL };
	static const char *const names1[] = { "shmtrace_profile", "sessions", NULL };
	const struct js_node *v, *arr, *e;
	uint32_t i = 0;

	if (!root || root->type != JS_OBJ)
		return pl_fail(p, "not a JSON object");
	/* the version first: a later one may have members this one does not know */
	v = pl_get(p, root, "shmtrace_profile", JS_NUM);
	if (!v)
		return -EINVAL;
	if (v->num != JS_INT_S64 || v->v.i < 1)
		return pl_fail(p, "\"shmtrace_profile\": a version, 1 or more");
	if (v->v.i > PROFILE_VERSION)
		return pl_fail(p, "version %lld, of a later shmtrace: this one reads version %d "
			       "and before", (long long)v->v.i, PROFILE_VERSION);
	p->version = v->v.i;
	if (pl_object(p, root, p->version < 2 ? names1 : names) < 0)
		return -EINVAL;
	arr = pl_array(p, root, "sessions", 1024);
	if (!arr)
		return -EINVAL;
	if (!arr->len)
		return pl_fail(p, "\"sessions\": none");
	*out = calloc(arr->len, sizeof(**out));
	if (!*out)
		return pl_fail(p, "out of memory");
	for (e = js_child(p->doc, arr); e; e = js_next(p->doc, arr, e), i++) {
		size_t mark = pl_in(p, "sessions[%u]", i);

		(*n)++;
		if (pl_session(p, e, &(*out)[i]) < 0)
			return -EINVAL;
		pl_out(p, mark);
	}
	for (uint32_t a = 0; a < *n; a++)
		for (uint32_t b = a + 1; b < *n; b++)
			if (!strcmp((*out)[a].name, (*out)[b].name))
				return pl_fail(p, "session %s is there twice", (*out)[a].name);
	if (p->version < 2)
		return 0;	/* version 1: no trigger */
	arr = pl_array(p, root, "triggers", 1024);
	if (!arr)
		return -EINVAL;
	*tout = calloc(arr->len ? arr->len : 1, sizeof(**tout));
	if (!*tout)
		return pl_fail(p, "out of memory");
	i = 0;
	for (e = js_child(p->doc, arr); e; e = js_next(p->doc, arr, e), i++) {
		size_t mark = pl_in(p, "triggers[%u]", i);

		(*nt)++;
		if (pl_trigger(p, e, &(*tout)[i]) < 0)
			return -EINVAL;
		pl_out(p, mark);
	}
	for (uint32_t a = 0; a < *nt; a++)
		for (uint32_t b = a + 1; b < *nt; b++)
			if (!strcmp((*tout)[a].c.name, (*tout)[b].c.name))
				return pl_fail(p, "trigger %s is there twice", (*tout)[a].c.name);
	return 0;
}

static void pl_free(struct pl_session *s, uint32_t n)
{
	for (uint32_t i = 0; s && i < n; i++) {
		for (uint32_t c = 0; c < s[i].nch; c++)
			free(s[i].ch[c].ev);
		free(s[i].ch);
		free(s[i].agg);
	}
	free(s);
}

/* ---- load: the commands --------------------------------------------------- */

/* A load under way: the daemon's home, and why it failed. */
struct ld {
	const char *home;
	enum ctl_format fmt;
	bool failed;
	bool refused;			/* the daemon said why: err */
	struct rec_error err;
	bool no_reply;			/* no reply came: fail */
	struct ctl_fail fail;
};

/* One command of a load: 0, or -1 (said, kept in @l). */
static int ld_cmd(struct ld *l, enum proto_verb verb, const char *session, const void *body,
		  unsigned int nstr, const char *const *str)
{
	struct ctl_reply rep;
	int ret = ctl_request(l->home, "load", verb, session, body, nstr, str, &rep);

	if (ret != EXIT_OK && !l->failed) {
		l->failed = true;
		if (rep.answered && rep.error) {
			l->refused = true;
			l->err = *rep.error;
			render_refusal("load", &rep);
		} else if (!rep.answered) {
			l->no_reply = true;
			l->fail = rep.fail;
		}
	}
	ctl_reply_free(&rep);
	return ret == EXIT_OK ? 0 : -1;
}

/*
 * Session @s made (named @name) with the commands that give it back: 0,
 * or -1 and *@created says whether the session was made before it failed.
 */
static int ld_session(struct ld *l, const struct pl_session *s, const char *name, bool *created)
{
	const char *str[PROTO_CMD_MAX_STR];
	struct cmd_context ctx;
	struct cmd_track none;
	unsigned int n = 0;

	*created = false;
	if (ld_cmd(l, VERB_CREATE, name, &s->create, 0, NULL) < 0)
		return -1;
	*created = true;
	for (uint32_t c = 0; c < s->nch; c++)
		if (ld_cmd(l, VERB_ENABLE_CHANNEL, name, &s->ch[c].c, 0, NULL) < 0)
			return -1;
	for (uint32_t c = 0; c < s->nch; c++) {
		for (uint32_t i = 0; i < s->ch[c].nev; i++) {
			const struct pl_event *e = &s->ch[c].ev[i];

			n = 0;
			if (e->filter)
				str[n++] = e->filter;
			for (uint32_t x = 0; x < e->ev.nexclude; x++)
				str[n++] = e->excl[x];
			str[n++] = e->pattern;
			if (ld_cmd(l, VERB_ENABLE_EVENT, name, &e->ev, n, str) < 0)
				return -1;
		}
	}
	for (uint32_t c = 0; c < s->nch; c++) {
		if (!s->ch[c].context)
			continue;
		memset(&ctx, 0, sizeof(ctx));
		memcpy(ctx.channel, s->ch[c].c.name, sizeof(ctx.channel));
		ctx.context = s->ch[c].context;
		if (ld_cmd(l, VERB_ADD_CONTEXT, name, &ctx, 0, NULL) < 0)
			return -1;
	}
	n = 0;
	for (uint32_t c = 0; c < s->nch; c++)
		if (!s->ch[c].enabled)
			str[n++] = s->ch[c].c.name;
	if (n && ld_cmd(l, VERB_DISABLE_CHANNEL, name, NULL, n, str) < 0)
		return -1;
	for (uint32_t a = 0; a < s->nagg; a++)
		if (ld_cmd(l, VERB_AGGREGATE, name, &s->agg[a].a, s->agg[a].a.filter,
			   &s->agg[a].filter) < 0)
			return -1;
	if ((s->track.npid || s->track.nuid || s->nexe) &&
	    ld_cmd(l, VERB_TRACK, name, &s->track, s->nexe, s->exe) < 0)
		return -1;
	memset(&none, 0, sizeof(none));
	none.all = s->none;
	if (none.all && ld_cmd(l, VERB_UNTRACK, name, &none, 0, NULL) < 0)
		return -1;
	if (s->rotate.set && ld_cmd(l, VERB_ROTATE, name, &s->rotate, 0, NULL) < 0)
		return -1;
	if (s->active && ld_cmd(l, VERB_START, name, NULL, 0, NULL) < 0)
		return -1;
	return 0;
}

/*
 * Trigger @t made, after the sessions: the session it acts on or watches
 * is @override when it is the profile's one session @from (load
 * --override-name). 0, or -1.
 */
static int ld_trigger(struct ld *l, const struct pl_trigger *t, const char *from,
		      const char *override)
{
	struct cmd_trigger c = t->c;

	if (override && !strcmp(c.action_session, from))
		snprintf(c.action_session, sizeof(c.action_session), "%s", override);
	if (override && c.kind == CMD_TRIG_AGG && !strcmp(c.agg_session, from))
		snprintf(c.agg_session, sizeof(c.agg_session), "%s", override);
	return ld_cmd(l, VERB_ADD_TRIGGER, "", &c, c.filter, &t->filter);
}

/* The profile at @path ("-": standard input) read whole into *@text (*@len bytes). */
static int read_profile(const char *path, char **text, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	size_t cap = 65536;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	*len = 0;
	while (buf) {
		if (*len == cap) {
			char *nb = cap >= PROFILE_MAX ? NULL : realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				errno = cap >= PROFILE_MAX ? EFBIG : ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0) {
				free(buf);
				buf = NULL;
			}
			break;
		}
		*len += (size_t)n;
	}
	if (fd)
		close(fd);
	*text = buf;
	return buf ? 0 : -errno;
}

/* The JSON document of a load that made nothing: its error. */
static void ld_json_error(const struct ld *l, const char *code, const char *message,
			  const char *path)
{
	struct jw w;

	if (l->no_reply) {
		json_no_reply(stdout, "load", &l->fail);
		return;
	}
	jw_init(&w, stdout);
	jw_obj(&w);
	jw_ku64(&w, "version", CTL_JSON_VERSION);
	jw_kstr(&w, "command", "load");
	jw_karr(&w, "sessions");
	jw_end_arr(&w);
	jw_key(&w, "error");
	if (l->refused) {
		why_json(&w, &l->err);
	} else {
		jw_obj(&w);
		jw_kstr(&w, "code", code);
		jw_ku64(&w, "errno", EINVAL);
		jw_kstr(&w, "message", message);
		jw_kstr(&w, "path", path);
		jw_end(&w);
	}
	jw_end(&w);
	fputc('\n', stdout);
}

/* What was loaded, as status says it: the document, or a line per session. */
static int ld_report(struct ld *l, const struct pl_session *s, uint32_t n, const char *override,
		     const struct pl_trigger *tr, uint32_t nt, const char *path)
{
	struct ctl_reply *rep = calloc(n, sizeof(*rep)), trep = { 0 };
	struct rtree *t = calloc(n, sizeof(*t)), tt = { 0 };
	int ret = EXIT_OK;
	struct jw w;

	if (!rep || !t) {
		free(rep);
		free(t);
		fprintf(stderr, "tracectl: load: out of memory\n");
		return EXIT_RUNTIME;
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *name = override ? override : s[i].name;

		if (l->fmt == CTL_TEXT) {
			printf("Session %s loaded from %s\n", name, path);
			continue;
		}
		/* (its traces' errors are status's to say: the session is made) */
		ctl_request(l->home, "load", VERB_STATUS, name, NULL, 0, NULL, &rep[i]);
		if (!rep[i].answered || rtree_build(&rep[i], &t[i]) < 0 ||
		    !rtree_session(&t[i], name))
			ret = EXIT_RUNTIME;
	}
	for (uint32_t i = 0; i < nt && l->fmt == CTL_TEXT; i++)
		printf("Trigger %s loaded from %s\n", tr[i].c.name, path);
	if (l->fmt == CTL_JSON && ret == EXIT_OK && nt) {
		ctl_request(l->home, "load", VERB_LIST_TRIGGERS, "", NULL, 0, NULL, &trep);
		if (!trep.answered || rtree_build(&trep, &tt) < 0)
			ret = EXIT_RUNTIME;
	}
	if (l->fmt == CTL_JSON && ret == EXIT_OK) {
		jw_init(&w, stdout);
		jw_obj(&w);
		jw_ku64(&w, "version", CTL_JSON_VERSION);
		jw_kstr(&w, "command", "load");
		jw_karr(&w, "sessions");
		for (uint32_t i = 0; i < n; i++)
			json_session(&w, rtree_session(&t[i], override ? override : s[i].name),
				     true);
		jw_end_arr(&w);
		/* the triggers made, as list-triggers says them */
		jw_karr(&w, "triggers");
		for (size_t i = 0; i < tt.triggers.n; i++) {
			const struct rec_trigger *x = tt.triggers.v[i];

			for (uint32_t j = 0; j < nt; j++)
				if (!strcmp(x->name, tr[j].c.name))
					json_trigger(&w, x);
		}
		jw_end_arr(&w);
		jw_end(&w);
		fputc('\n', stdout);
	} else if (ret != EXIT_OK) {
		fprintf(stderr, "tracectl: load: the sessions were loaded, but their status "
			"could not be had\n");
	}
	for (uint32_t i = 0; i < n; i++) {
		if (l->fmt == CTL_JSON)
			rtree_free(&t[i]);
		ctl_reply_free(&rep[i]);
	}
	rtree_free(&tt);
	ctl_reply_free(&trep);
	free(rep);
	free(t);
	return ret;
}

int load_main(const struct verb *v, int argc, char **argv)
{
	struct ld l = { .fmt = CTL_TEXT };
	struct pl p = { 0 };
	struct pl_session *s = NULL;
	struct pl_trigger *tr = NULL;
	struct js_doc *doc = NULL;
	const char *override = NULL, *path;
	char home[1024], err[256];
	uint32_t n = 0, made = 0, nt = 0, tmade = 0;
	bool created = false;
	char *text = NULL;
	size_t len = 0;
	int c, ret;

	optind = 1;
	while ((c = verb_getopt(v, argc, argv)) != -1) {
		switch (c) {
		case 'n':
			override = optarg;
			break;
		case 'T':
			if (ctl_timeout_set(optarg, "--timeout") < 0)
				return EXIT_USAGE;
			break;
		case 'J':
			if (ctl_format_parse("load", optarg, &l.fmt) < 0)
				return EXIT_USAGE;
			break;
		case 'h':
			verb_help(v, stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "tracectl: load: name one profile (see tracectl load --help)\n");
		return EXIT_USAGE;
	}
	path = argv[optind];
	if (override && !proto_name_ok(override)) {
		fprintf(stderr, "tracectl: load: bad session name '%s': %s\n", override,
			PROTO_NAME_RULES);
		return EXIT_USAGE;
	}
	ret = read_profile(path, &text, &len);
	if (ret < 0) {
		snprintf(err, sizeof(err), "cannot read it: %s", strerror(-ret));
		fprintf(stderr, "tracectl: load: %s: %s\n", path, err);
		if (l.fmt == CTL_JSON)
			ld_json_error(&l, "bad-profile", err, path);
		return EXIT_RUNTIME;
	}
	ret = js_parse(&doc, text, len, NULL, err, sizeof(err));
	if (ret < 0) {
		snprintf(p.why, sizeof(p.why), "not JSON: %s", err);
	} else {
		p.doc = doc;
		pl_profile(&p, js_root(doc), &s, &n, &tr, &nt);
	}
	if (!p.why[0] && override && n != 1)
		snprintf(p.why, sizeof(p.why), "--override-name: the profile has %u sessions, not "
			 "one", n);
	if (p.why[0]) {
		fprintf(stderr, "tracectl: load: %s: %s\n", path, p.why);
		if (l.fmt == CTL_JSON)
			ld_json_error(&l, "bad-profile", p.why, path);
		ret = EXIT_RUNTIME;
		goto out;
	}
	ret = EXIT_RUNTIME;
	if (ctl_home(home, sizeof(home)))
		goto out;
	l.home = home;
	for (made = 0; made < n; made++)
		if (ld_session(&l, &s[made], override ? override : s[made].name, &created) < 0)
			break;
	/* the triggers after every session: an action may name any of them */
	for (tmade = 0; made == n && tmade < nt; tmade++)
		if (ld_trigger(&l, &tr[tmade], s[0].name, override) < 0)
			break;
	if (made < n || tmade < nt) {
		/* all or nothing: what this load made goes again (the session
		 * that failed too, when its create had made it), the triggers
		 * first, before the sessions they name */
		for (uint32_t i = 0; i < tmade; i++) {
			struct ctl_reply rep;
			const char *name = tr[i].c.name;

			ctl_request(home, "load", VERB_REMOVE_TRIGGER, "", NULL, 1, &name, &rep);
			ctl_reply_free(&rep);
		}
		created = created && made < n;
		for (uint32_t i = 0; i < made + created; i++) {
			struct ctl_reply rep;

			ctl_request(home, "load", VERB_DESTROY, override ? override : s[i].name,
				    NULL, 0, NULL, &rep);
			ctl_reply_free(&rep);
		}
		if (l.fmt == CTL_JSON)
			ld_json_error(&l, "", "", path);
		goto out;
	}
	ret = ld_report(&l, s, n, override, tr, nt, path);
out:
	pl_free(s, n);
	free(tr);
	js_free(doc);
	free(text);
	return ret;
}
