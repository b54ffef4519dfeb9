/* SPDX-License-Identifier: MIT */
/*
 * state.c - the session daemon's sessions kept in SHMTRACE_HOME, so that
 * a daemon started after a crash (kill -9, then any tracectl command)
 * resumes every session where it was.
 *
 * `$SHMTRACE_HOME/state.json` holds every session with what makes it:
 * its output or relay, mode and pool, whether it is memory-only, allowed
 * uids, whether it is active,
 * its counters of snapshots and rotations; its channels with their ids
 * and channel slots (the traced processes' control pages and buffer
 * segments name them), geometry, flush interval, compression, context and
 * enabled patterns (with their filters, as the user wrote them); its
 * aggregations with their ids, slots and compiled definitions; and the
 * triggers (trigger.c writes and reads them). The format is documented in
 * doc/state.md.
 *
 * Writing: after every command that changes a session (state_save()),
 * the whole state goes to a temporary file in the home, which is then
 * renamed over the old one: a daemon killed at any instant leaves the old
 * state or the new one, whole. A command's effect that the daemon could
 * not save before it died (it dies between its reply and the rename) is
 * not in the next daemon's state.
 *
 * Reading (state_load(), once, before anything else is served): the file
 * was written by us, but lies in a directory of the user's: every field is
 * checked as a command's would be (names, sizes, slots, ids, filters
 * compiled again, aggregation definitions checked by agg_geom()); a file
 * that fails is set aside (state.json.bad) and the daemon starts with no
 * session, saying so in its log.
 *
 * State: only the home it was given; the sessions are session.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "state.h"
#include "aggdef.h"
#include "relayctl.h"
#include "session.h"
#include "trigger.h"
#include "track.h"
#include "common/home.h"
#include "support/json.h"
#include "support/log.h"
#include "common/util.h"
#include "support/sysutil.h"
#include "support/protomsg.h"

#define STATE_FILE	HOME_STATE
#define STATE_VERSION	1
#define STATE_MAX	(16u << 20)

static const char *st_home;

/* ---- writing ------------------------------------------------------------ */

/* @s as a JSON string: UTF-8 kept, other bytes as \uDCxx (json.h) */
static void jw_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t n = js_utf8_len(p, strlen((const char *)p));

		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p);
		} else if (n == 0) {
			fprintf(f, "\\u%04x", 0xdc00 | *p);
		} else {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		p++;
	}
	fputc('"', f);
}

static void jw_key(FILE *f, const char *k)
{
	fprintf(f, "\"%s\":", k);
}

static void jw_u64(FILE *f, const char *k, uint64_t v)
{
	fprintf(f, "\"%s\":%" PRIu64 ",", k, v);
}

static void jw_hex(FILE *f, const char *k, const void *p, size_t n)
{
	const unsigned char *b = p;

	fprintf(f, "\"%s\":\"", k);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
	fputs("\",", f);
}

/* An enabler's pattern, exclusions, log level condition and filter. */
static void jw_enabler(FILE *f, const struct enabler *e)
{
	jw_key(f, "pattern");
	jw_str(f, e->pattern);
	fputs(",\"exclude\":[", f);
	for (uint32_t i = 0; i < e->nexcl; i++) {
		jw_str(f, e->excl[i]);
		if (i + 1 < e->nexcl)
			fputc(',', f);
	}
	fputs("],", f);
	jw_u64(f, "ll_kind", (uint64_t)e->ll_kind);
	fprintf(f, "\"loglevel\":%d,", e->loglevel);
	jw_key(f, "filter");
	if (e->filter)
		jw_str(f, e->filter);
	else
		fputs("null", f);
}

static void jw_channel(FILE *f, const struct channel *ch)
{
	fputc('{', f);
	jw_u64(f, "id", ch->id);
	jw_u64(f, "slot", ch->slot);
	jw_key(f, "name");
	jw_str(f, ch->name);
	fputc(',', f);
	jw_u64(f, "subbuf_size", ch->subbuf_size);
	jw_u64(f, "num_subbuf", ch->num_subbuf);
	jw_u64(f, "pool_size", ch->pool_size);
	jw_u64(f, "budget", ch->budget);
	jw_u64(f, "mode", ch->mode);
	jw_u64(f, "flush_ms", ch->flush_ms);
	jw_u64(f, "compress", ch->compress);
	jw_u64(f, "context", ch->context);
	jw_u64(f, "enabled", (uint64_t)!ch->disabled);
	jw_u64(f, "cleared", ch->cleared);
	fputs("\"enablers\":[", f);
	for (const struct enabler *e = ch->enablers; e; e = e->next) {
		fputc('{', f);
		jw_enabler(f, e);
		fputs(e->next ? "}," : "}", f);
	}
	fputs("]}", f);
}

static void jw_agg(FILE *f, const struct aggregation *ag)
{
	fputc('{', f);
	jw_u64(f, "id", ag->id);
	jw_u64(f, "slot", ag->slot);
	jw_key(f, "name");
	jw_str(f, ag->name);
	fputc(',', f);
	jw_u64(f, "capacity", ag->capacity);
	jw_u64(f, "flags", ag->flags);
	jw_hex(f, "def", &ag->def, sizeof(ag->def));
	fputs("\"names\":[", f);
	for (uint32_t i = 0; i < ag->nnames; i++) {
		jw_str(f, ag->names[i]);
		if (i + 1 < ag->nnames)
			fputc(',', f);
	}
	fputs("],", f);
	jw_enabler(f, &ag->ev);
	fputc('}', f);
}

/* Which processes @s records: per kind null (every one) or its set. */
static void jw_tracking(FILE *f, const struct session *s)
{
	const struct tracking *t = &s->track;
	const uint32_t *ids[2] = { t->pid, t->uid };
	const uint32_t nids[2] = { t->npid, t->nuid };
	static const char *const names[] = { "pid", "uid", "exe" };

	fputs("\"tracking\":{", f);
	for (uint32_t k = PROTO_TRACK_PID; k <= PROTO_TRACK_EXE; k++) {
		fprintf(f, "%s\"%s\":", k > PROTO_TRACK_PID ? "," : "", names[k - 1]);
		if (!(t->some & CMD_TRACK_BIT(k))) {
			fputs("null", f);
			continue;
		}
		fputc('[', f);
		for (uint32_t i = 0; k != PROTO_TRACK_EXE && i < nids[k - 1]; i++)
			fprintf(f, "%s%u", i ? "," : "", ids[k - 1][i]);
		for (uint32_t i = 0; k == PROTO_TRACK_EXE && i < t->nexe; i++) {
			if (i)
				fputc(',', f);
			jw_str(f, t->exe[i]);
		}
		fputc(']', f);
	}
	fputs("},", f);
}

static void jw_session(FILE *f, const struct session *s)
{
	const struct relayctl *n = s->net;

	fputc('{', f);
	jw_key(f, "name");
	jw_str(f, s->name);
	fputc(',', f);
	jw_key(f, "output");
	jw_str(f, s->output);
	fputc(',', f);
	jw_u64(f, "output_default", (uint64_t)s->output_default);
	jw_u64(f, "created_s", (uint64_t)s->created_s);
	jw_u64(f, "active", (uint64_t)s->active);
	jw_u64(f, "started", (uint64_t)s->started);
	jw_u64(f, "memory_only", (uint64_t)s->memory);
	jw_u64(f, "mode", s->def_mode);
	jw_u64(f, "pool_size", s->def_pool);
	jw_u64(f, "snapshots", s->nsnapshots);
	jw_u64(f, "rotations", s->nrotations);
	jw_u64(f, "rotate_bytes", s->rot_bytes);
	jw_u64(f, "rotate_ms", s->rot_ms);
	jw_u64(f, "made_output", s->made_output);
	jw_u64(f, "allow_all", (uint64_t)s->allow_all);
	fputs("\"allow\":[", f);
	for (unsigned int i = 0; i < s->nallow; i++)
		fprintf(f, "%s%u", i ? "," : "", (unsigned int)s->allow[i]);
	fputs("],", f);
	jw_u64(f, "live_us", s->live_us);
	jw_tracking(f, s);
	if (n) {
		fputs("\"relay\":{", f);
		jw_u64(f, "id", s->relay_id);
		jw_key(f, "ctrl_host");
		jw_str(f, n->c.host);
		fputc(',', f);
		jw_u64(f, "ctrl_port", n->c.ctrl);
		jw_key(f, "data_host");
		jw_str(f, n->d.host);
		fputc(',', f);
		jw_u64(f, "data_port", n->d.data);
		jw_key(f, "host");
		jw_str(f, n->host);
		fputc(',', f);
		jw_key(f, "stamp");
		jw_str(f, n->stamp);
		fputc(',', f);
		jw_u64(f, "opened", n->opened);
		fprintf(f, "\"err\":%d,", n->err);
		jw_key(f, "why");
		jw_str(f, n->why);
		fputs("},", f);
	}
	fputs("\"channels\":[", f);
	for (const struct channel *ch = s->chans; ch; ch = ch->next) {
		jw_channel(f, ch);
		if (ch->next)
			fputc(',', f);
	}
	fputs("],\"aggregations\":[", f);
	for (const struct aggregation *ag = s->aggs; ag; ag = ag->next) {
		jw_agg(f, ag);
		if (ag->next)
			fputc(',', f);
	}
	fputs("]}", f);
}

void state_save(void)
{
	char path[1200], tmp[1200];
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int fd, ret;

	if (home_path(path, sizeof(path), st_home, STATE_FILE) < 0 ||
	    snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp))
		return;
	f = open_memstream(&text, &len);
	if (!f)
		goto fail;
	fprintf(f, "{\"version\":%d,", STATE_VERSION);
	jw_u64(f, "next_id", ss.next_id);
	jw_u64(f, "next_relay_id", relayctl_last_id());
	trig_state_save(f);
	fputs("\"sessions\":[", f);
	for (const struct session *s = ss.list; s; s = s->next) {
		jw_session(f, s);
		if (s->next)
			fputc(',', f);
	}
	fputs("]}\n", f);
	if (fclose(f) != 0)
		goto fail;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto fail;
	ret = write_all(fd, text, len);
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (ret < 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		goto fail;
	}
	free(text);
	return;
fail:
	free(text);
	log_err("cannot save the sessions in %s: %s: a daemon started after this one "
		"would not have the last changes", path, strerror(errno));
}

/* ---- reading ------------------------------------------------------------ */

static int rd_hex(struct js_rd *r, const struct js_node *obj, const char *name, void *out,
		  size_t n)
{
	const struct js_node *s = js_rd_get(r, obj, name, JS_STR);
	unsigned char *b = out;

	if (!s)
		return -EINVAL;
	if (s->len != 2 * n)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		unsigned int v;

		if (sscanf(js_str(r->doc, s) + 2 * i, "%2x", &v) != 1)
			goto bad;
		b[i] = (unsigned char)v;
	}
	return 0;
bad:
	if (!r->why)
		r->why = name;
	return -EINVAL;
}

/* Exclusions of @e (later: none when absent), as enable-event checks them. */
static int rd_excl(struct js_rd *r, const struct js_node *o, struct enabler *e)
{
	const char *excl[PROTO_EXCLUDE_MAX];
	const struct js_node *arr, *el;
	unsigned int count = 0;
	uint32_t n = 0;

	arr = js_member(r->doc, o, "exclude", &count);
	if (!arr)
		return 0;
	if (count != 1 || arr->type != JS_ARR)
		goto bad;
	for (el = js_child(r->doc, arr); el; el = js_next(r->doc, arr, el)) {
		if (n == PROTO_EXCLUDE_MAX || el->type != JS_STR || !el->len ||
		    el->len >= PROTO_EVNAME_MAX || memchr(js_str(r->doc, el), 0, el->len))
			goto bad;
		excl[n++] = js_str(r->doc, el);
	}
	if (n && !strchr(e->pattern, '*'))
		goto bad;
	if (excl_set(e, excl, n) == 0)
		return 0;
bad:
	r->why = "exclude";
	return -EINVAL;
}

static int rd_enabler(struct js_rd *r, const struct js_node *o, struct enabler *e)
{
	const struct js_node *flt;
	unsigned int count = 0;
	char err[200];

	js_rd_str(r, o, "pattern", e->pattern, sizeof(e->pattern));
	e->ll_kind = (enum ll_kind)js_rd_u64(r, o, "ll_kind", LL_ONLY);
	e->loglevel = (int)js_rd_s32(r, o, "loglevel");
	if (r->why || !e->pattern[0] || rd_excl(r, o, e) < 0)
		return -EINVAL;
	flt = js_member(r->doc, o, "filter", &count);
	if (count != 1 || !flt) {
		r->why = "filter";
		return -EINVAL;
	}
	if (flt->type == JS_NULL)
		return 0;
	if (flt->type != JS_STR || memchr(js_str(r->doc, flt), 0, flt->len) ||
	    filter_set(e, js_str(r->doc, flt), err, sizeof(err)) < 0) {
		r->why = "filter";
		return -EINVAL;
	}
	return 0;
}

static struct channel *rd_channel(struct js_rd *r, const struct js_node *o, struct session *s)
{
	const struct js_node *ens, *en;
	struct channel *ch = calloc(1, sizeof(*ch));
	struct enabler **tail;

	if (!ch)
		return NULL;
	ch->session = s;
	ch->id = js_rd_u64(r, o, "id", UINT64_MAX);
	ch->slot = (unsigned int)js_rd_u64(r, o, "slot", SHM_MAX_CHAN - 1);
	js_rd_str(r, o, "name", ch->name, sizeof(ch->name));
	ch->subbuf_size = (uint32_t)js_rd_u64(r, o, "subbuf_size", SHM_MAX_SUBBUF);
	ch->num_subbuf = (uint32_t)js_rd_u64(r, o, "num_subbuf", SHM_MAX_NUM_SUBBUF);
	ch->pool_size = (uint32_t)js_rd_u64(r, o, "pool_size", SHM_MAX_SLOTS);
	ch->budget = js_rd_u64_opt(r, o, "budget", UINT64_MAX, 0);	/* (older: none) */
	ch->mode = (uint32_t)js_rd_u64(r, o, "mode", SHM_MODE_OVERWRITE);
	ch->flush_ms = (uint32_t)js_rd_u64(r, o, "flush_ms", UINT32_MAX);
	ch->compress = (uint32_t)js_rd_u64(r, o, "compress", PROTO_COMPRESS_LZ4);
	ch->context = (uint32_t)js_rd_u64(r, o, "context", SHMTRACE__CTX_ALL);
	ch->disabled = !js_rd_u64_opt(r, o, "enabled", 1, 1);
	ch->cleared = js_rd_u64_opt(r, o, "cleared", UINT64_MAX, 0);
	if (!r->why && (!proto_name_ok(ch->name) || !ch->id || ss.chan[ch->slot] ||
			!shm_geometry_ok(ch->subbuf_size, ch->num_subbuf) || !ch->pool_size ||
			(s->memory && ch->mode != SHM_MODE_OVERWRITE)))
		r->why = "channel";
	ens = js_rd_get(r, o, "enablers", JS_ARR);
	tail = &ch->enablers;
	for (en = ens ? js_child(r->doc, ens) : NULL; en && !r->why;
	     en = js_next(r->doc, ens, en)) {
		struct enabler *e = calloc(1, sizeof(*e));

		if (!e) {
			r->why = "memory";
			break;
		}
		*tail = e;
		tail = &e->next;
		rd_enabler(r, en, e);
	}
	if (r->why) {
		enablers_free(ch->enablers);
		free(ch);
		return NULL;
	}
	ss.chan[ch->slot] = ch;
	return ch;
}

static struct aggregation *rd_agg(struct js_rd *r, const struct js_node *o, struct session *s)
{
	struct aggregation *ag = calloc(1, sizeof(*ag));
	const struct js_node *names, *nm;
	struct agg_geom g;

	if (!ag)
		return NULL;
	ag->session = s;
	ag->id = js_rd_u64(r, o, "id", UINT64_MAX);
	ag->slot = (unsigned int)js_rd_u64(r, o, "slot", SHM_MAX_AGG - 1);
	js_rd_str(r, o, "name", ag->name, sizeof(ag->name));
	ag->capacity = (uint32_t)js_rd_u64(r, o, "capacity", UINT32_MAX);
	ag->flags = (uint32_t)js_rd_u64(r, o, "flags", SHM_AGG_PROFILE);
	rd_hex(r, o, "def", &ag->def, sizeof(ag->def));
	names = js_rd_get(r, o, "names", JS_ARR);
	for (nm = names ? js_child(r->doc, names) : NULL; nm && !r->why;
	     nm = js_next(r->doc, names, nm)) {
		if (ag->nnames == SHM_AGG_NAMES || nm->type != JS_STR ||
		    nm->len >= SHM_AGG_NAME || memchr(js_str(r->doc, nm), 0, nm->len)) {
			r->why = "names";
			break;
		}
		memcpy(ag->names[ag->nnames++], js_str(r->doc, nm), nm->len + 1);
	}
	if (!r->why)
		rd_enabler(r, o, &ag->ev);
	if (!r->why && (!proto_name_ok(ag->name) || !ag->id || ss.agg[ag->slot] ||
			agg_geom(&ag->def, &g) < 0 || !shm_agg_table_size(&g, ag->capacity)))
		r->why = "aggregation";
	if (r->why) {
		enabler_free_parts(&ag->ev);
		free(ag);
		return NULL;
	}
	ss.agg[ag->slot] = ag;
	return ag;
}

static int rd_relay(struct js_rd *r, const struct js_node *o, struct session *s)
{
	struct relayctl *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	s->relay_id = js_rd_u64(r, o, "id", UINT64_MAX);
	js_rd_str(r, o, "ctrl_host", n->c.host, sizeof(n->c.host));
	n->c.ctrl = (uint16_t)js_rd_u64(r, o, "ctrl_port", UINT16_MAX);
	js_rd_str(r, o, "data_host", n->d.host, sizeof(n->d.host));
	n->d.data = (uint16_t)js_rd_u64(r, o, "data_port", UINT16_MAX);
	js_rd_str(r, o, "host", n->host, sizeof(n->host));
	js_rd_str(r, o, "stamp", n->stamp, sizeof(n->stamp));
	n->opened = (unsigned int)js_rd_u64(r, o, "opened", UINT32_MAX);
	n->err = (int)js_rd_s32(r, o, "err");
	js_rd_str(r, o, "why", n->why, sizeof(n->why));
	if (r->why || !s->relay_id) {
		if (!r->why)
			r->why = "relay";
		free(n);
		return -EINVAL;
	}
	s->net = n;
	relayctl_seen_id(s->relay_id);
	return 0;
}

/* One kind of a session's tracking: null, or its set. */
static void rd_track_kind(struct js_rd *r, const struct js_node *v, uint32_t kind,
			  struct tracking *t)
{
	uint32_t *ids = kind == PROTO_TRACK_PID ? t->pid : t->uid;
	uint32_t *n = kind == PROTO_TRACK_PID ? &t->npid : kind == PROTO_TRACK_UID ? &t->nuid :
		      &t->nexe;

	if (v->type == JS_NULL)
		return;
	if (v->type != JS_ARR)
		goto bad;
	t->some |= CMD_TRACK_BIT(kind);
	for (const struct js_node *el = js_child(r->doc, v); el; el = js_next(r->doc, v, el)) {
		if (kind == PROTO_TRACK_EXE) {
			if (*n == PROTO_TRACK_EXE_MAX || el->type != JS_STR ||
			    el->len >= PROTO_TRACK_EXE_LEN ||
			    memchr(js_str(r->doc, el), 0, el->len))
				goto bad;
			memcpy(t->exe[*n], js_str(r->doc, el), el->len + 1);
		} else {
			if (*n == PROTO_TRACK_MAX || el->type != JS_NUM || el->num == JS_REAL ||
			    js_double(el) < 0 || js_double(el) > UINT32_MAX)
				goto bad;
			ids[*n] = (uint32_t)js_double(el);
		}
		(*n)++;
	}
	return;
bad:
	if (!r->why)
		r->why = "tracking";
}

/* A session's tracking (later: every process when absent), as track checks it. */
static void rd_tracking(struct js_rd *r, const struct js_node *o, struct session *s)
{
	static const char *const names[] = { "pid", "uid", "exe" };
	unsigned int count = 0;
	const struct js_node *tr = js_member(r->doc, o, "tracking", &count);

	if (!tr)
		return;
	if (count != 1 || tr->type != JS_OBJ) {
		r->why = "tracking";
		return;
	}
	for (uint32_t k = PROTO_TRACK_PID; k <= PROTO_TRACK_EXE && !r->why; k++) {
		const struct js_node *v = js_member(r->doc, tr, names[k - 1], &count);

		if (!v || count != 1)
			r->why = "tracking";
		else
			rd_track_kind(r, v, k, &s->track);
	}
	if (!r->why && !track_valid(&s->track))
		r->why = "tracking";
}

static struct session *rd_session(struct js_rd *r, const struct js_node *o)
{
	const struct js_node *arr, *el, *relay;
	struct session *s = calloc(1, sizeof(*s));
	struct channel **ctail;
	struct aggregation **atail;
	unsigned int count = 0;

	if (!s)
		return NULL;
	s->base_fd = -1;
	js_rd_str(r, o, "name", s->name, sizeof(s->name));
	js_rd_str(r, o, "output", s->output, sizeof(s->output));
	s->output_default = (int)js_rd_u64_opt(r, o, "output_default", 1, 0);
	s->created_s = (int64_t)js_rd_u64_opt(r, o, "created_s", INT64_MAX, 0);
	s->active = (int)js_rd_u64(r, o, "active", 1);
	s->started = (int)js_rd_u64(r, o, "started", 1);
	s->memory = (int)js_rd_u64_opt(r, o, "memory_only", 1, 0);
	s->def_mode = (uint32_t)js_rd_u64(r, o, "mode", SHM_MODE_OVERWRITE);
	s->def_pool = (uint32_t)js_rd_u64(r, o, "pool_size", SHM_MAX_SLOTS);
	s->nsnapshots = (unsigned int)js_rd_u64(r, o, "snapshots", UINT32_MAX);
	s->nrotations = (unsigned int)js_rd_u64(r, o, "rotations", UINT32_MAX);
	s->rot_bytes = js_rd_u64(r, o, "rotate_bytes", UINT64_MAX);
	s->rot_ms = js_rd_u64(r, o, "rotate_ms", UINT64_MAX);
	s->made_output = (size_t)js_rd_u64(r, o, "made_output", PROTO_PATH_MAX);
	s->allow_all = (int)js_rd_u64(r, o, "allow_all", 1);
	s->live_us = (uint32_t)js_rd_u64(r, o, "live_us", UINT32_MAX);
	s->rot_last_ns = now_ns(CLOCK_MONOTONIC);
	if (!r->why)
		rd_tracking(r, o, s);
	arr = js_rd_get(r, o, "allow", JS_ARR);
	for (el = arr ? js_child(r->doc, arr) : NULL; el && !r->why; el = js_next(r->doc, arr, el)) {
		if (s->nallow == SESSION_MAX_ALLOW || el->type != JS_NUM ||
		    el->num == JS_REAL || js_double(el) < 0 || js_double(el) > UINT32_MAX) {
			r->why = "allow";
			break;
		}
		s->allow[s->nallow++] = (uid_t)js_double(el);
	}
	if (!r->why && (!proto_name_ok(s->name) || session_by_name(s->name) ||
			(s->output[0] && s->output[0] != '/') || !s->def_pool ||
			(s->memory && s->def_mode != SHM_MODE_OVERWRITE)))
		r->why = "session";
	relay = js_member(r->doc, o, "relay", &count);
	if (!r->why && relay)
		rd_relay(r, relay, s);
	if (!r->why && relay && s->memory)
		r->why = "memory_only";	/* a memory-only session is never streamed */
	if (!r->why && !s->net && !s->output[0])
		r->why = "output";
	if (!r->why && session_open_base(s) < 0)
		r->why = "output";	/* (nothing of it reachable any more) */
	ctail = &s->chans;
	arr = js_rd_get(r, o, "channels", JS_ARR);
	for (el = arr ? js_child(r->doc, arr) : NULL; el && !r->why; el = js_next(r->doc, arr, el)) {
		struct channel *ch = rd_channel(r, el, s);

		if (ch) {
			*ctail = ch;
			ctail = &ch->next;
		}
	}
	atail = &s->aggs;
	arr = js_rd_get(r, o, "aggregations", JS_ARR);
	for (el = arr ? js_child(r->doc, arr) : NULL; el && !r->why; el = js_next(r->doc, arr, el)) {
		struct aggregation *ag = rd_agg(r, el, s);

		if (ag) {
			*atail = ag;
			atail = &ag->next;
		}
	}
	return s;	/* on error too: the caller frees it as any session */
}

/* A session of a damaged file: whatever of it was made, undone. */
static void state_drop(struct session *s)
{
	while (s->chans) {
		struct channel *ch = s->chans;

		s->chans = ch->next;
		if (ss.chan[ch->slot] == ch)
			ss.chan[ch->slot] = NULL;
		enablers_free(ch->enablers);
		free(ch);
	}
	while (s->aggs) {
		struct aggregation *ag = s->aggs;

		s->aggs = ag->next;
		if (ss.agg[ag->slot] == ag)
			ss.agg[ag->slot] = NULL;
		enabler_free_parts(&ag->ev);
		free(ag);
	}
	free(s->net);
	if (s->base_fd >= 0)
		close(s->base_fd);
	free(s);
}

int state_load(const char *home)
{
	char path[1200], bad[1300], err[160];
	struct js_rd r = { 0 };
	struct session **tail = &ss.list;
	const struct js_node *root, *arr, *el;
	struct js_doc *doc = NULL;
	struct stat sb;
	char *text = NULL;
	uint64_t next;
	int fd, ret, n = 0;

	st_home = home;
	if (home_path(path, sizeof(path), st_home, STATE_FILE) < 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	ret = -EINVAL;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size > STATE_MAX ||
	    !(text = malloc((size_t)sb.st_size + 1)) ||
	    read(fd, text, (size_t)sb.st_size) != sb.st_size) {
		snprintf(err, sizeof(err), "cannot be read");
		goto bad;
	}
	ret = js_parse(&doc, text, (size_t)sb.st_size, NULL, err, sizeof(err));
	if (ret < 0)
		goto bad;
	r.doc = doc;
	root = js_root(doc);
	if (js_rd_u64(&r, root, "version", 1000) != STATE_VERSION) {
		snprintf(err, sizeof(err), "version %s", r.why ? "missing" : "unknown");
		ret = -EINVAL;
		goto bad;
	}
	next = js_rd_u64(&r, root, "next_id", UINT64_MAX);
	if (next > ss.next_id)
		ss.next_id = next;	/* ids stay unique across daemons */
	relayctl_seen_id(js_rd_u64(&r, root, "next_relay_id", UINT64_MAX));
	arr = js_rd_get(&r, root, "sessions", JS_ARR);
	for (el = arr ? js_child(doc, arr) : NULL; el && !r.why; el = js_next(doc, arr, el)) {
		struct session *s = rd_session(&r, el);

		if (!s) {
			r.why = "memory";
			break;
		}
		if (r.why) {
			state_drop(s);
			break;
		}
		*tail = s;
		tail = &s->next;
		n++;
	}
	if (!r.why)
		r.why = trig_state_load(doc, root);	/* after the sessions they name */
	if (r.why) {
		snprintf(err, sizeof(err), "bad or missing \"%s\"", r.why);
		ret = -EINVAL;
		goto bad;
	}
	js_free(doc);
	free(text);
	close(fd);
	log_info("%d sessions taken over from %s", n, path);
	return n;
bad:
	while (ss.list) {
		struct session *s = ss.list;

		ss.list = s->next;
		state_drop(s);
	}
	js_free(doc);
	free(text);
	close(fd);
	snprintf(bad, sizeof(bad), "%s.bad", path);
	rename(path, bad);
	log_err("%s: %s: set aside as %s; no session taken over", path, err, bad);
	return ret;
}
