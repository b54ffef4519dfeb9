/* SPDX-License-Identifier: MIT */
/*
 * why.c - errors and notes of the session daemon, in words and as JSON
 * (why.h). One table: per code, its name for scripts, its sentence (a
 * template of the record's fields) and the names its fields take in
 * JSON; a field without a name is not part of that code. A code the
 * table does not know (a later daemon's) still says its errno.
 *
 * Template: %s session, %n name, %m name2, %d detail, %p path, %e the
 * errno's text, %0 to %3 the numbers, %f the aggregating function named
 * by n0, %% a '%'.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "support/aggfmt.h"
#include "support/ctfmeta.h"
#include "why.h"

struct why_entry {
	uint32_t code;
	const char *name;		/* for scripts */
	const char *text;		/* the template */
	const char *f_session, *f_name, *f_name2, *f_detail, *f_path;
	const char *f_n[4];
};

#define NAME_RULES "no '/', space nor control character, not beginning with '.'"

static const struct why_entry table[] = {
	{ .code = RE_ERRNO, .name = "error", .text = "%n: %e", .f_name = "what" },
	{ .code = RE_MALFORMED, .name = "malformed",
	  .text = "malformed command (a tracectl of another version?)" },
	{ .code = RE_SHUTDOWN, .name = "shutdown", .text = "the session daemon is stopping" },
	{ .code = RE_REGISTER_ONLY, .name = "register-only",
	  .text = "only traced processes register on this socket" },
	{ .code = RE_NO_SESSION, .name = "no-session", .text = "no session named '%s'",
	  .f_session = "session" },
	{ .code = RE_NO_SESSIONS, .name = "no-sessions", .text = "no session: create one first" },
	{ .code = RE_SEVERAL_SESSIONS, .name = "several-sessions",
	  .text = "several sessions exist: name one with -s NAME" },
	{ .code = RE_BAD_NAME, .name = "bad-name",
	  .text = "invalid %m name '%n': 1 to %0 bytes, " NAME_RULES,
	  .f_name = "name", .f_name2 = "what", .f_n = { "max_bytes" } },
	{ .code = RE_SESSION_EXISTS, .name = "session-exists",
	  .text = "session '%s' already exists", .f_session = "session" },
	{ .code = RE_RANGE, .name = "range", .text = "%n: %1 to %2, not %0",
	  .f_name = "setting", .f_n = { "value", "min", "max" } },
	{ .code = RE_APP_SOCKET, .name = "app-socket",
	  .text = "cannot open the application socket for other uids: %e" },
	{ .code = RE_OUTPUT_AND_RELAY, .name = "output-and-relay",
	  .text = "--output and a relay address exclude each other" },
	{ .code = RE_OUTPUT_RELATIVE, .name = "output-relative",
	  .text = "output must be an absolute path, not '%p'", .f_path = "path" },
	{ .code = RE_OUTPUT_REFUSED, .name = "output-refused",
	  .text = "cannot write traces in %p: %e", .f_path = "path" },
	{ .code = RE_OUTPUT_USED, .name = "output-used",
	  .text = "%p is not empty (an earlier run?): runs are never merged; remove it or "
		  "choose another --output", .f_path = "path" },
	{ .code = RE_CHANNEL_EXISTS, .name = "channel-exists",
	  .text = "channel %n exists in session %s (settings are fixed once created)",
	  .f_session = "session", .f_name = "channel" },
	{ .code = RE_COMPRESS_RELAY, .name = "compress-relay",
	  .text = "--compress: not for a session streamed to a relay (the relay stores plain "
		  "CTF)" },
	{ .code = RE_GEOMETRY, .name = "geometry",
	  .text = "sub-buffers: %0 to %1 bytes (whole pages), 2 to %2 of them",
	  .f_n = { "min_subbuf_size", "max_subbuf_size", "max_num_subbuf" } },
	{ .code = RE_CHANNELS_FULL, .name = "channels-full",
	  .text = "too many channels in all sessions (at most %0)", .f_n = { "max" } },
	{ .code = RE_BAD_PATTERN, .name = "bad-pattern", .text = "invalid event pattern '%n'",
	  .f_name = "pattern" },
	{ .code = RE_BAD_LOGLEVEL, .name = "bad-loglevel", .text = "bad log level condition" },
	{ .code = RE_FILTER, .name = "bad-filter", .text = "bad filter at column %0: %d",
	  .f_detail = "why", .f_n = { "column" } },
	{ .code = RE_FILTER_LONG, .name = "filter-too-long",
	  .text = "filter too long (at most %0 bytes)", .f_n = { "max_bytes", "of_text" } },
	{ .code = RE_NO_CHANNEL, .name = "no-channel", .text = "no channel %n in session %s",
	  .f_session = "session", .f_name = "channel" },
	{ .code = RE_NOT_ENABLED, .name = "not-enabled",
	  .text = "pattern '%n' is not enabled in session %s",
	  .f_session = "session", .f_name = "pattern" },
	{ .code = RE_STARTED, .name = "started",
	  .text = "session %s has been started: context fields can only be added before the "
		  "first start", .f_session = "session" },
	{ .code = RE_BAD_CONTEXT, .name = "bad-context", .text = "unknown context fields",
	  .f_n = { "bits" } },
	{ .code = RE_RELAY_NO, .name = "streamed", .text = "session %s streams to a relay: no %n",
	  .f_session = "session", .f_name = "what" },
	{ .code = RE_ROTATE, .name = "rotation-failed",
	  .text = "rotation of session %s failed: %e", .f_session = "session" },
	{ .code = RE_SNAPSHOT_PLACE, .name = "snapshot-place",
	  .text = "no default place for a snapshot of output %p: give --output",
	  .f_session = "session", .f_path = "output" },
	{ .code = RE_NO_CHANNELS, .name = "no-channels", .text = "session %s has no channel",
	  .f_session = "session" },
	{ .code = RE_SNAPSHOT_EMPTY, .name = "snapshot-empty",
	  .text = "nothing to snapshot: the buffers of session %s hold no event (no process "
		  "alive, none emitted an enabled event, or a clear since)",
	  .f_session = "session" },
	{ .code = RE_SNAPSHOT, .name = "snapshot-failed", .text = "snapshot into %p failed: %e",
	  .f_session = "session", .f_path = "path" },
	{ .code = RE_ACTIVE, .name = "active", .text = "session %s is already active",
	  .f_session = "session" },
	{ .code = RE_INACTIVE, .name = "inactive", .text = "session %s is not active",
	  .f_session = "session" },
	{ .code = RE_WRITE, .name = "write-error",
	  .text = "session %s: cannot write %p: %e (%0 events lost)",
	  .f_session = "session", .f_name = "channel", .f_path = "path",
	  .f_n = { "events_lost", "traces" } },
	{ .code = RE_NOT_WRITTEN, .name = "not-written",
	  .text = "session %s: channel %n: %0 events in %1 buffers not written out (no "
		  "consumer)", .f_session = "session", .f_name = "channel",
	  .f_n = { "events", "buffers" } },
	{ .code = RE_AGG_WRITE, .name = "aggregations-not-written",
	  .text = "aggregations not written to %p: %e", .f_session = "session", .f_path = "path" },
	{ .code = RE_STREAMING, .name = "streaming-stopped",
	  .text = "session %s: streaming stopped: %d", .f_session = "session", .f_detail = "why" },
	{ .code = RE_STREAM_CHECK, .name = "not-streaming",
	  .text = "session %s no longer streams to the relay (%e); see status, and create a "
		  "new session", .f_session = "session" },
	{ .code = RE_AGG_KEY_KIND, .name = "key-kind", .text = "--by %n:%m: say :str or :int",
	  .f_name = "field", .f_name2 = "suffix" },
	{ .code = RE_AGG_FIELD, .name = "bad-field",
	  .text = "bad field name '%n' (at most %0 bytes)",
	  .f_name = "field", .f_n = { "max_bytes" } },
	{ .code = RE_AGG_NEEDS_FIELD, .name = "needs-field", .text = "--%n needs a field",
	  .f_name = "function" },
	{ .code = RE_LQUANTIZE, .name = "lquantize",
	  .text = "--lquantize FIELD,LOW,HIGH,STEP: LOW < HIGH, STEP > 0, at most %0 steps",
	  .f_n = { "max_steps" } },
	{ .code = RE_AGG_EXISTS, .name = "aggregation-exists",
	  .text = "session %s already has an aggregation named %n",
	  .f_session = "session", .f_name = "aggregation" },
	{ .code = RE_AGGS_FULL, .name = "aggregations-full",
	  .text = "too many aggregations in all sessions (at most %0)", .f_n = { "max" } },
	{ .code = RE_PROFILE_ARGS, .name = "profile-args",
	  .text = "--profile takes no keys, functions nor filter" },
	{ .code = RE_AGG_TABLE, .name = "table-too-large",
	  .text = "a table of %0 keys would take more than %1 MiB: ask fewer keys",
	  .f_n = { "keys", "max_mib" } },
	{ .code = RE_CONSUMER, .name = "consumer-failed",
	  .text = "the consumer daemon refused the %n: %e", .f_name = "what" },
	{ .code = RE_NO_AGG, .name = "no-aggregation", .text = "no aggregation %n in session %s",
	  .f_session = "session", .f_name = "aggregation" },
	{ .code = RE_NO_AGGS, .name = "no-aggregations", .text = "session %s has no aggregation",
	  .f_session = "session" },
	{ .code = RE_NO_CONSUMER, .name = "no-consumer",
	  .text = "the consumer daemon is not running (it restarts within a second)" },
	{ .code = RE_ALLOW_ROOT, .name = "allow-needs-root",
	  .text = "--allow-uid needs a session daemon running as root (this one runs as uid %0)",
	  .f_n = { "daemon_uid" } },
	{ .code = RE_ALLOW_UID, .name = "bad-uid", .text = "--allow-uid: %0 is not a uid",
	  .f_n = { "uid" } },
	{ .code = RE_RELAY_URL, .name = "bad-address", .text = "bad %m address '%n'",
	  .f_name = "address", .f_name2 = "which" },
	{ .code = RE_URL_PAIR, .name = "url-pair",
	  .text = "--ctrl-url and --data-url go together" },
	{ .code = RE_RELAY_CONNECT, .name = "relay-unreachable",
	  .text = "%d (is lttng-relayd running there?)", .f_name = "address", .f_detail = "why" },
	{ .code = RE_TRIGGER_EXISTS, .name = "trigger-exists", .text = "trigger '%n' already exists",
	  .f_name = "trigger" },
	{ .code = RE_NO_TRIGGER, .name = "no-trigger", .text = "no trigger named '%n'",
	  .f_name = "trigger" },
	{ .code = RE_TRIGGERS_FULL, .name = "triggers-full",
	  .text = "%0 event triggers at most: remove one first", .f_n = { "max" } },
	{ .code = RE_TRIGGER_ARGS, .name = "trigger-args", .text = "bad trigger: its %n",
	  .f_name = "what" },
	{ .code = RE_AGG_COND, .name = "bad-condition", .text = "condition '%n': %d",
	  .f_name = "condition", .f_detail = "why" },
	{ .code = RE_WAIT_TIMEOUT, .name = "wait-timeout",
	  .text = "trigger '%n' did not fire within %0 ms", .f_name = "trigger",
	  .f_n = { "waited_ms" } },
	{ .code = RE_TRIGGER_GONE, .name = "trigger-removed",
	  .text = "trigger '%n' was removed while waited for", .f_name = "trigger" },
	{ .code = RE_EXCLUDE_WILD, .name = "exclude-needs-wildcard",
	  .text = "pattern '%n' has no '*': there is nothing to exclude from it",
	  .f_name = "pattern" },
	{ .code = RE_MEMORY_DISCARD, .name = "memory-only-discard",
	  .text = "session %s keeps its events in memory only: its channels overwrite their "
		  "oldest data, no --discard (channel %n)",
	  .f_session = "session", .f_name = "channel" },
	{ .code = RE_MEMORY_ONLY, .name = "memory-only",
	  .text = "session %s keeps its events in memory only (create --snapshot): no %n",
	  .f_session = "session", .f_name = "what" },
	{ .code = RE_SNAPSHOT_SIZE, .name = "snapshot-too-small",
	  .text = "snapshot of session %s: %0 bytes hold no stream's newest packet with its "
		  "trace's metadata: give a larger --max-size",
	  .f_session = "session", .f_n = { "max_size" } },
	{ .code = RE_CLEAR, .name = "clear-failed", .text = "clear of session %s failed: %e",
	  .f_session = "session" },
	{ .code = RN_AGG_KEY_UNKNOWN, .name = "key-unknown",
	  .text = "Note: no event known yet that '%n' matches has a field '%m': it is taken as "
		  "an integer key (say %m:str for a string).",
	  .f_name = "pattern", .f_name2 = "field" },
	{ .code = RN_AGG_NOT_NUMBER, .name = "not-a-number",
	  .text = "Note: '%m' is not a number in the events of '%n' known now: %f counts it as 0.",
	  .f_name = "pattern", .f_name2 = "field", .f_n = { "function" } },
	{ .code = RE_TRACK_ALL, .name = "tracking-all",
	  .text = "session %s records every %n: there is none to untrack (untrack --%n all "
		  "records none)", .f_session = "session", .f_name = "kind" },
	{ .code = RE_NOT_TRACKED, .name = "not-tracked",
	  .text = "session %s does not track %m %n", .f_session = "session",
	  .f_name = "value", .f_name2 = "kind" },
	{ .code = RN_STATEDUMP_OFF, .name = "statedump-not-recorded",
	  .text = "Note: no channel of session %s records %n: the dumps asked for are not "
		  "recorded (enable shmtrace_statedump:*).",
	  .f_session = "session", .f_name = "event" },
	{ .code = RN_PATTERN_UNKNOWN, .name = "pattern-unknown",
	  .text = "Note: no event of the traced processes matches '%n' (tracectl list-events "
		  "shows their events); it is enabled for those still to come.",
	  .f_name = "pattern" },
};

static const struct why_entry *entry(uint32_t code)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].code == code)
			return &table[i];
	return NULL;
}

const char *why_code(uint32_t code)
{
	const struct why_entry *t = entry(code);

	return t ? t->name : "unknown";
}

/* Append to @buf (@len bytes, @pos used) what printf makes, cut to fit. */
static size_t add(char *buf, size_t len, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static size_t add(char *buf, size_t len, size_t pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (pos >= len)
		return pos;
	va_start(ap, fmt);
	n = vsnprintf(buf + pos, len - pos, fmt, ap);
	va_end(ap);
	if (n < 0)
		return pos;
	return pos + (size_t)n < len ? pos + (size_t)n : len - 1;
}

/* The sentences that the template alone does not make. */
static int special(const struct rec_error *e, char *buf, size_t len)
{
	size_t pos = 0;

	switch (e->code) {
	case RE_ERRNO:
		if (e->name[0])
			return 0;
		snprintf(buf, len, "%s", strerror(e->err ? e->err : EIO));
		return 1;
	case RE_APP_SOCKET:
		if (e->err != EADDRINUSE)
			return 0;
		snprintf(buf, len, "cannot open the application socket for other uids: its "
			 "address is taken by another process");
		return 1;
	case RE_FILTER_LONG:
		if (e->n[1])
			return 0;
		snprintf(buf, len, "filter too long (at most %" PRIu64 " bytes of bytecode)",
			 e->n[0]);
		return 1;
	case RE_BAD_CONTEXT:
		pos = add(buf, len, pos, "unknown context fields (known:");
		for (unsigned int i = 0; i < CTF_NCONTEXTS; i++)
			pos = add(buf, len, pos, "%s %s", i ? "," : "", ctf_contexts[i].name);
		add(buf, len, pos, ")");
		return 1;
	case RE_CONSUMER:
		if (strcmp(e->name, "merge"))
			return 0;
		snprintf(buf, len, "the consumer daemon could not merge the tables: %s",
			 strerror(e->err ? e->err : EIO));
		return 1;
	case RE_RELAY_URL:
		snprintf(buf, len, "bad %s address '%s': %s", e->name2, e->name,
			 strcmp(e->name2, "relay") ? "tcp://HOST:PORT" :
			 "net://HOST[:CTRL_PORT[:DATA_PORT]]");
		return 1;
	case RE_NOT_WRITTEN:
		if (e->name[0])
			return 0;
		snprintf(buf, len, "session %s: not everything recorded was written out (no "
			 "consumer)", e->session);
		return 1;
	default:
		return 0;
	}
}

void why_text(const struct rec_error *e, char *buf, size_t len)
{
	const struct why_entry *t = entry(e->code);
	size_t pos = 0;

	buf[0] = 0;
	if (special(e, buf, len))
		return;
	if (!t) {
		snprintf(buf, len, "%s (error %u of a later session daemon)",
			 e->err ? strerror(e->err) : "failed", e->code);
		return;
	}
	for (const char *p = t->text; *p && pos < len - 1; p++) {
		if (*p != '%' || !p[1]) {
			buf[pos++] = *p;
			buf[pos] = 0;
			continue;
		}
		switch (*++p) {
		case 's': pos = add(buf, len, pos, "%s", e->session); break;
		case 'n': pos = add(buf, len, pos, "%s", e->name); break;
		case 'm': pos = add(buf, len, pos, "%s", e->name2); break;
		case 'd': pos = add(buf, len, pos, "%s", e->detail); break;
		case 'p': pos = add(buf, len, pos, "%s", e->path); break;
		case 'e': pos = add(buf, len, pos, "%s", strerror(e->err ? e->err : EIO)); break;
		case 'f': pos = add(buf, len, pos, "%s", agg_fn_name((unsigned int)e->n[0])); break;
		case '0': case '1': case '2': case '3':
			pos = add(buf, len, pos, "%" PRIu64, e->n[*p - '0']);
			break;
		default: pos = add(buf, len, pos, "%c", *p); break;
		}
	}
}

void why_json(struct jw *w, const struct rec_error *e)
{
	const struct why_entry *t = entry(e->code);
	char text[PROTO_PATH_MAX + 1024];

	why_text(e, text, sizeof(text));
	jw_obj(w);
	jw_kstr(w, "code", t ? t->name : "unknown");
	jw_ku64(w, "errno", e->err > 0 ? (uint64_t)e->err : 0);
	jw_kstr(w, "message", text);
	if (!t) {
		jw_end(w);
		return;
	}
	if (t->f_session)
		jw_kstr(w, t->f_session, e->session);
	if (t->f_name)
		jw_kstr(w, t->f_name, e->name);
	if (t->f_name2)
		jw_kstr(w, t->f_name2, e->name2);
	if (t->f_detail)
		jw_kstr(w, t->f_detail, e->detail);
	if (t->f_path)
		jw_kstr(w, t->f_path, e->path);
	for (int i = 0; i < 4; i++) {
		if (!t->f_n[i])
			continue;
		if (e->code == RN_AGG_NOT_NUMBER && i == 0)
			jw_kstr(w, t->f_n[i], agg_fn_name((unsigned int)e->n[0]));
		else if (e->code == RE_FILTER_LONG && i == 1)
			jw_kbool(w, t->f_n[i], e->n[1] != 0);
		else
			jw_ku64(w, t->f_n[i], e->n[i]);
	}
	jw_end(w);
}
