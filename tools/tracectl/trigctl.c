// SPDX-License-Identifier: MIT
/*
 * trigctl.c - tracectl add-trigger and wait-trigger, and the text and
 * JSON of the triggers' records (REC_TRIGGER) and of a firing (REC_FIRING).
 *
 * add-trigger sends a struct cmd_trigger: the condition (an event pattern
 * with its filter and rate policy, or an aggregation with its condition,
 * parsed here first so that a bad one is refused with exit status 2), and
 * the action with its session. `--action VERB SESSION` takes the word
 * after its value: it is taken out of the command line before the options
 * are read. wait-trigger waits for the trigger's next firing as long as
 * --timeout says (no limit by default): the request's own timeout is that
 * and 10 s more.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <shmtrace/shmtrace.h>
#include "common/shm.h"
#include "support/aggcond.h"
#include "support/units.h"
#include "ctl-client.h"
#include "render.h"
#include "trigctl.h"
#include "verbs.h"

const char *const trig_act_words[CMD_ACT_NOTIFY + 1] = {
	"", [CMD_ACT_SNAPSHOT] = "snapshot-session", [CMD_ACT_START] = "start-session",
	[CMD_ACT_STOP] = "stop-session", [CMD_ACT_ROTATE] = "rotate-session",
	[CMD_ACT_NOTIFY] = "notify",
};
const char *const trig_cond_words[CMD_TRIG_AGG + 1] = {
	"", [CMD_TRIG_EVENT] = "event", [CMD_TRIG_AGG] = "aggregation",
};
const char *const trig_policy_words[2] = { "every", "once-after" };

static const char *act_name(uint32_t a)
{
	return a >= CMD_ACT_SNAPSHOT && a <= CMD_ACT_NOTIFY ? trig_act_words[a] : "unknown";
}

const struct option add_trigger_opts[] = {
	{ "session", required_argument, NULL, 's' },
	{ "on-event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, 'f' },
	{ "rate-policy", required_argument, NULL, 'r' },
	{ "on-aggregation", required_argument, NULL, 'g' },
	{ "when", required_argument, NULL, 'w' },
	{ "every", required_argument, NULL, 'E' },
	{ "action", required_argument, NULL, 'a' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "format", required_argument, NULL, 'J' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

const struct option wait_trigger_opts[] = {
	{ "timeout", required_argument, NULL, 'T' },
	{ "format", required_argument, NULL, 'J' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int __attribute__((format(printf, 2, 3))) bad(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tracectl: %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see tracectl %s --help)\n", verb);
	return -EINVAL;
}

/* "every:N" or "once-after:N" into @c. */
static int rate_policy(struct cmd_trigger *c, const char *arg)
{
	const char *n = NULL;
	char *end;
	unsigned long long v;

	if (!strncmp(arg, "every:", 6)) {
		c->policy = SHM_TRIG_EVERY;
		n = arg + 6;
	} else if (!strncmp(arg, "once-after:", 11)) {
		c->policy = SHM_TRIG_ONCE_AFTER;
		n = arg + 11;
	}
	if (!n || *n < '1' || *n > '9')
		return bad("add-trigger", "--rate-policy '%s': every:N or once-after:N, N >= 1", arg);
	errno = 0;
	v = strtoull(n, &end, 10);
	if (errno || *end || v > (1ull << SHM_TRIG_COUNT_BITS) - 1)
		return bad("add-trigger", "--rate-policy '%s': N from 1 to 2^48 - 1", arg);
	c->n = v;
	return 0;
}

/* --action's value: the action; 0 or -EINVAL said. */
static int action_of(const char *arg, uint32_t *out)
{
	for (uint32_t a = CMD_ACT_SNAPSHOT; a <= CMD_ACT_NOTIFY; a++) {
		if (!strcmp(arg, trig_act_words[a])) {
			*out = a;
			return 0;
		}
	}
	return bad("add-trigger", "--action '%s': snapshot-session, start-session, stop-session, "
		   "rotate-session (each with a SESSION) or notify", arg);
}

/*
 * The session after --action's value, taken out of @argv (its *@argc
 * updated): "--action VERB SESSION" or "--action=VERB SESSION". 0, or
 * -EINVAL said.
 */
static int take_action_session(int *argc, char **argv, struct cmd_trigger *c)
{
	for (int i = 1; i < *argc; i++) {
		const char *val;
		int at;

		if (!strcmp(argv[i], "--")) {
			break;
		} else if (!strcmp(argv[i], "--action") && i + 1 < *argc) {
			val = argv[i + 1];
			at = i + 2;
		} else if (!strncmp(argv[i], "--action=", 9)) {
			val = argv[i] + 9;
			at = i + 1;
		} else {
			continue;
		}
		if (action_of(val, &c->action) < 0)
			return -EINVAL;
		if (c->action == CMD_ACT_NOTIFY)
			return 0;
		if (at >= *argc || argv[at][0] == '-')
			return bad("add-trigger", "--action %s needs the name of a session after it", val);
		if (snprintf(c->action_session, sizeof(c->action_session), "%s", argv[at]) >=
		    (int)sizeof(c->action_session))
			return bad("add-trigger", "session name too long: '%s'", argv[at]);
		memmove(&argv[at], &argv[at + 1], (size_t)(*argc - at) * sizeof(*argv));
		(*argc)--;
		return 0;
	}
	return 0;
}

int add_trigger_main(const struct verb *v, int argc, char **argv)
{
	static struct cmd_trigger c;
	struct proto_agg_cond cond;
	enum ctl_format fmt = CTL_TEXT;
	const char *session = "", *filter = NULL;
	char home[1024], why[256];
	uint64_t ns;
	int ch, ret = 0;

	c.policy = SHM_TRIG_EVERY;
	c.n = 1;
	if (take_action_session(&argc, argv, &c) < 0)
		goto bad;
	optind = 1;
	while ((ch = verb_getopt(v, argc, argv)) != -1) {
		switch (ch) {
		case 's':
			session = optarg;
			break;
		case 'e':
			c.kind = c.kind == CMD_TRIG_AGG ? 0 : CMD_TRIG_EVENT;
			if (snprintf(c.pattern, sizeof(c.pattern), "%s", optarg) >= (int)sizeof(c.pattern))
				ret = bad(v->name, "pattern too long: '%s'", optarg);
			break;
		case 'g':
			c.kind = c.kind == CMD_TRIG_EVENT ? 0 : CMD_TRIG_AGG;
			if (snprintf(c.agg, sizeof(c.agg), "%s", optarg) >= (int)sizeof(c.agg))
				ret = bad(v->name, "aggregation name too long: '%s'", optarg);
			break;
		case 'f':
			filter = optarg;
			break;
		case 'r':
			ret = rate_policy(&c, optarg);
			break;
		case 'w':
			if (snprintf(c.when, sizeof(c.when), "%s", optarg) >= (int)sizeof(c.when))
				ret = bad(v->name, "--when too long: '%s'", optarg);
			else if (aggcond_parse(c.when, &cond, why, sizeof(why)) < 0)
				ret = bad(v->name, "--when: %s", why);
			break;
		case 'E':
			ret = units_duration(optarg, &ns);
			if (ret < 0 || ns < 10000000ull || ns > 86400000000000ull) {
				fprintf(stderr, "tracectl: add-trigger: --every '%s': %s\n", optarg,
					ret < 0 ? units_why(ret, 0) : "10ms to 1 day");
				ret = -EINVAL;
			}
			c.every_ms = ns / 1000000u;
			break;
		case 'a':
			break;	/* taken before (take_action_session()) */
		case 'T':
			ret = ctl_timeout_set(optarg, "--timeout");
			break;
		case 'J':
			ret = ctl_format_parse(v->name, optarg, &fmt);
			break;
		case 'h':
			verb_help(v, stdout);
			return EXIT_OK;
		default:
			ret = -EINVAL;
			break;
		}
		if (ret < 0)
			goto bad;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "tracectl: add-trigger: name the trigger (once)\n");
		goto bad;
	}
	if (snprintf(c.name, sizeof(c.name), "%s", argv[optind]) >= (int)sizeof(c.name)) {
		fprintf(stderr, "tracectl: add-trigger: trigger name too long\n");
		goto bad;
	}
	if (!c.kind || !c.action) {
		fprintf(stderr, "tracectl: add-trigger: one condition (--on-event or "
			"--on-aggregation) and an --action\n");
		goto bad;
	}
	if (c.kind == CMD_TRIG_EVENT && (c.when[0] || c.every_ms || session[0])) {
		fprintf(stderr, "tracectl: add-trigger: --when, --every and -s go with "
			"--on-aggregation\n");
		goto bad;
	}
	if (c.kind == CMD_TRIG_AGG && (filter || c.policy != SHM_TRIG_EVERY || c.n != 1 || !c.when[0])) {
		fprintf(stderr, "tracectl: add-trigger: --on-aggregation needs --when, and takes "
			"neither --filter nor --rate-policy\n");
		goto bad;
	}
	snprintf(c.agg_session, sizeof(c.agg_session), "%s", session);
	c.filter = filter != NULL;
	if (ctl_home(home, sizeof(home)))
		return EXIT_RUNTIME;
	return ctl_call(home, v->name, VERB_ADD_TRIGGER, "", &c, c.filter, &filter, fmt);
bad:
	fprintf(stderr, "usage: tracectl %s\n", v->usage);
	return EXIT_USAGE;
}

int wait_trigger_main(const struct verb *v, int argc, char **argv)
{
	struct cmd_wait_trigger c;
	enum ctl_format fmt = CTL_TEXT;
	char home[1024], limit[64];
	uint64_t ns = 0;
	int ch, ret;

	memset(&c, 0, sizeof(c));
	optind = 1;
	while ((ch = verb_getopt(v, argc, argv)) != -1) {
		switch (ch) {
		case 'T':
			ret = units_duration(optarg, &ns);
			if (ret < 0 || ns > 86400000000000ull) {
				fprintf(stderr, "tracectl: wait-trigger: --timeout '%s': %s\n", optarg,
					ret < 0 ? units_why(ret, 0) : "at most 24h (0: no limit)");
				goto bad;
			}
			break;
		case 'J':
			if (ctl_format_parse(v->name, optarg, &fmt) < 0)
				goto bad;
			break;
		case 'h':
			verb_help(v, stdout);
			return EXIT_OK;
		default:
			goto bad;
		}
	}
	if (optind + 1 != argc ||
	    snprintf(c.name, sizeof(c.name), "%s", argv[optind]) >= (int)sizeof(c.name)) {
		fprintf(stderr, "tracectl: wait-trigger: name one trigger\n");
		goto bad;
	}
	c.timeout_ms = (ns + 999999) / 1000000;
	/* the request waits as long as the wait, and a little more */
	snprintf(limit, sizeof(limit), "%" PRIu64 "ms", ns ? c.timeout_ms + 10000 : 0);
	if (ctl_timeout_set(ns ? limit : "0", "--timeout") < 0 || ctl_home(home, sizeof(home)))
		return EXIT_RUNTIME;
	return ctl_call(home, v->name, VERB_WAIT_TRIGGER, "", &c, 0, NULL, fmt);
bad:
	fprintf(stderr, "usage: tracectl %s\n", v->usage);
	return EXIT_USAGE;
}

/* ---- printing ------------------------------------------------------------ */

/* The value of field @i of @f as text into @buf; its JSON with @w. */
static void field_value(const struct rec_firing *f, uint32_t i, char *buf, size_t len,
			struct jw *w)
{
	uint32_t type = f->field[i].type;
	uint64_t u = f->field[i].value;
	int64_t s;
	double d;

	switch (type) {
	case SHMTRACE_TYPE_U8: u &= 0xff; goto unsig;
	case SHMTRACE_TYPE_U16: u &= 0xffff; goto unsig;
	case SHMTRACE_TYPE_U32: u &= 0xffffffffu; goto unsig;
	case SHMTRACE_TYPE_U64:
unsig:
		snprintf(buf, len, "%" PRIu64, u);
		if (w)
			jw_u64(w, u);
		return;
	case SHMTRACE_TYPE_S8: s = (int8_t)u; goto sig;
	case SHMTRACE_TYPE_S16: s = (int16_t)u; goto sig;
	case SHMTRACE_TYPE_S32: s = (int32_t)u; goto sig;
	case SHMTRACE_TYPE_S64:
		s = (int64_t)u;
sig:
		snprintf(buf, len, "%" PRId64, s);
		if (w)
			jw_s64(w, s);
		return;
	case SHMTRACE_TYPE_HEX64:
		snprintf(buf, len, "0x%" PRIx64, u);
		if (w)
			jw_str(w, buf);
		return;
	case SHMTRACE_TYPE_DOUBLE:
		memcpy(&d, &u, sizeof(d));
		snprintf(buf, len, "%.17g", d);
		if (w && d == d && d - d == 0)
			jw_raw(w, buf, strlen(buf));
		else if (w)
			jw_null(w);
		return;
	case SHMTRACE_TYPE_STRING:
		snprintf(buf, len, "\"%s\"", f->field[i].str);
		if (w)
			jw_str(w, f->field[i].str);
		return;
	default:	/* a sequence: its length */
		snprintf(buf, len, "[%" PRIu64 " elements]", u);
		if (w) {
			jw_obj(w);
			jw_ku64(w, "length", u);
			jw_end(w);
		}
		return;
	}
}

static void time_words(uint64_t ns, char *buf, size_t len)
{
	time_t sec = (time_t)(ns / 1000000000u);
	struct tm tm;
	char day[64];

	localtime_r(&sec, &tm);
	strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06u", day, (unsigned int)(ns % 1000000000u / 1000u));
}

static void text_firing(FILE *out, const struct rec_firing *f)
{
	char when[96], v[PROTO_WHY_MAX];

	time_words(f->time_ns, when, sizeof(when));
	if (f->kind == CMD_TRIG_AGG) {
		fprintf(out, "Trigger %s fired at %s: key %s (value %" PRId64 ")\n", f->trigger,
			when, f->key, f->value);
		return;
	}
	fprintf(out, "Trigger %s fired at %s by pid %u tid %u (match %" PRIu64 "): %s {", f->trigger,
		when, f->pid, f->tid, f->count, f->event);
	for (uint32_t i = 0; i < f->nfields && i < PROTO_MAX_FIELDS; i++) {
		field_value(f, i, v, sizeof(v), NULL);
		fprintf(out, "%s %s = %s", i ? "," : "", f->field[i].name, v);
	}
	fprintf(out, " }%s\n", (f->flags & REC_FIRING_CUT) ? " (strings cut)" : "");
}

static void text_trigger(FILE *out, const char *cmd, const struct rec_trigger *t)
{
	char cond[PROTO_EVNAME_MAX + PROTO_FILTER_MAX + 256], act[PROTO_NAME_MAX + 32];

	if (t->flags & REC_TRIGGER_REMOVED) {
		fprintf(out, "Trigger %s removed.\n", t->name);
		return;
	}
	if (t->kind == CMD_TRIG_AGG)
		snprintf(cond, sizeof(cond), "when %s of aggregation %s of session %s, every %" PRIu64
			 " ms", t->when, t->agg, t->agg_session, t->every_ms);
	else
		snprintf(cond, sizeof(cond), "on event '%s'%s%s%s, %s %" PRIu64, t->pattern,
			 (t->flags & REC_TRIGGER_FILTER) ? " [filter: " : "",
			 (t->flags & REC_TRIGGER_FILTER) ? t->filter : "",
			 (t->flags & REC_TRIGGER_FILTER) ? "]" : "",
			 t->policy == SHM_TRIG_ONCE_AFTER ? "once after" : "every", t->n);
	snprintf(act, sizeof(act), "%s%s%s", act_name(t->action), t->action_session[0] ? " " : "",
		 t->action_session);
	if (!strcmp(cmd, "add-trigger")) {
		fprintf(out, "Trigger %s added: %s: %s.\n", t->name, cond, act);
		return;
	}
	fprintf(out, "%s: %s: %s; fired %" PRIu64 ", failed %" PRIu64 ", matches %" PRIu64
		", lost %" PRIu64 "%s\n", t->name, cond, act, t->fired, t->failed, t->matches,
		t->lost, (t->flags & REC_TRIGGER_SPENT) ? " (done)" : "");
}

void trig_text(FILE *out, const char *cmd, const struct rtree *t)
{
	if (!strcmp(cmd, "list-triggers") && !t->triggers.n && !t->error)
		fprintf(out, "No trigger.\n");
	for (size_t i = 0; i < t->triggers.n; i++)
		text_trigger(out, cmd, t->triggers.v[i]);
	if (t->firing)
		text_firing(out, t->firing);
}

void json_trigger_def(struct jw *w, const struct rec_trigger *t)
{
	jw_kobj(w, "condition");
	if (t->kind == CMD_TRIG_AGG) {
		jw_kstr(w, "kind", trig_cond_words[CMD_TRIG_AGG]);
		jw_kstr(w, "session", t->agg_session);
		jw_kstr(w, "aggregation", t->agg);
		jw_kstr(w, "when", t->when);
		jw_ku64(w, "every_ms", t->every_ms);
	} else {
		jw_kstr(w, "kind", trig_cond_words[CMD_TRIG_EVENT]);
		jw_kstr(w, "pattern", t->pattern);
		if (t->flags & REC_TRIGGER_FILTER)
			jw_kstr(w, "filter", t->filter);
		else
			jw_knull(w, "filter");
		jw_kobj(w, "rate_policy");
		jw_kstr(w, "kind", trig_policy_words[t->policy == SHM_TRIG_ONCE_AFTER]);
		jw_ku64(w, "n", t->n);
		jw_end(w);
	}
	jw_end(w);
	jw_kobj(w, "action");
	jw_kstr(w, "kind", act_name(t->action));
	jw_kstr_or_null(w, "session", t->action_session);
	jw_end(w);
}

void json_trigger(struct jw *w, const struct rec_trigger *t)
{
	jw_obj(w);
	jw_kstr(w, "name", t->name);
	jw_ku64(w, "id", t->id);
	json_trigger_def(w, t);
	jw_ku64(w, "matches", t->matches);
	jw_ku64(w, "fired", t->fired);
	jw_ku64(w, "failed", t->failed);
	jw_ku64(w, "lost", t->lost);
	jw_ku64(w, "ignored", t->ignored);
	jw_ku64(w, "waiters", t->waiters);
	jw_kbool(w, "done", (t->flags & REC_TRIGGER_SPENT) != 0);
	jw_kbool(w, "removed", (t->flags & REC_TRIGGER_REMOVED) != 0);
	if (t->flags & REC_TRIGGER_FIRED) {
		jw_kobj(w, "last_firing");
		jw_ku64(w, "time_ns", t->last_time_ns);
		jw_ku64(w, "pid", t->last_pid);
		jw_ku64(w, "tid", t->last_tid);
		jw_ku64(w, "errno", t->last_err > 0 ? (uint64_t)t->last_err : 0);
		jw_kstr_or_null(w, "path", t->last_path);
		jw_end(w);
	} else {
		jw_knull(w, "last_firing");
	}
	jw_end(w);
}

static void json_firing(struct jw *w, const struct rec_firing *f)
{
	char v[PROTO_WHY_MAX];

	jw_obj(w);
	jw_kstr(w, "trigger", f->trigger);
	jw_kstr(w, "kind", f->kind == CMD_TRIG_AGG ? "aggregation" : "event");
	jw_ku64(w, "time_ns", f->time_ns);
	if (f->kind == CMD_TRIG_AGG) {
		jw_kstr(w, "key", f->key);
		jw_ks64(w, "value", f->value);
		jw_end(w);
		return;
	}
	jw_ku64(w, "pid", f->pid);
	jw_ku64(w, "tid", f->tid);
	jw_ku64(w, "timestamp", f->ts);
	jw_ku64(w, "match", f->count);
	jw_kstr(w, "event", f->event);
	jw_kobj(w, "fields");
	for (uint32_t i = 0; i < f->nfields && i < PROTO_MAX_FIELDS; i++) {
		jw_key(w, f->field[i].name);
		field_value(f, i, v, sizeof(v), w);
	}
	jw_end(w);
	jw_kbool(w, "strings_cut", (f->flags & REC_FIRING_CUT) != 0);
	jw_kbool(w, "before_commit", (f->flags & REC_FIRING_EARLY) != 0);
	jw_end(w);
}

void trig_json(struct jw *w, const char *cmd, const struct rtree *t)
{
	if (t->triggers.n || !strcmp(cmd, "list-triggers") || !strcmp(cmd, "add-trigger") ||
	    !strcmp(cmd, "remove-trigger")) {
		jw_karr(w, "triggers");
		for (size_t i = 0; i < t->triggers.n; i++)
			json_trigger(w, t->triggers.v[i]);
		jw_end_arr(w);
	}
	if (t->firing) {
		jw_key(w, "firing");
		json_firing(w, t->firing);
	}
}
