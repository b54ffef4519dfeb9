// SPDX-License-Identifier: MIT
/*
 * aggcmd.c - aggregations: tracectl aggregate, disable-aggregation and
 * show-aggregations, their place in every control page, their segments,
 * and aggregations.json at stop.
 *
 * An aggregation belongs to a session and takes one of the SHM_MAX_AGG
 * slots shared by all sessions (as channels take channel slots). While
 * its session is active, every traced process's control page has its
 * definition in that slot and the slot's bit in aggen[] of the events
 * it matches; the processes update their own tables (libtrace/aggr.c) and
 * send us each segment of tables they make, which we check and hand to
 * the consumer, keeping the descriptor to hand it again to a restarted
 * consumer. The consumer merges; we only ask (MSG_C_AGG_SHOW) and pass
 * the text it wrote in a memfd on to tracectl (MSG_REPLY_FD), so that a
 * large result never goes through this loop line by line.
 *
 * A definition is made of field names: the keys' (integers or strings,
 * told by the events known when it is defined, or by a ":str"/":int"
 * suffix) and the functions' arguments, bound to each event's fields in
 * the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sessiond.h"
#include "glob.h"
#include "log.h"
#include "util.h"

#define AGG_DEFAULT_KEYS	1024u
#define AGG_DEFAULT_TABLE	(4u << 20)	/* a default table stays under this */
#define AGG_MAX_KEYS_ASKED	(1u << 20)
#define AGG_PROFILE_KEYS	4096u
#define AGG_JSON		"aggregations.json"

static const char *const fn_names[AGG_NFN] = {
	"count", "sum", "min", "max", "avg", "quantize", "lquantize",
};

/* Bytes of a thread's table of @ag (as the process computes it); 0: too large. */
static uint32_t agg_bytes(const struct aggregation *ag, uint32_t capacity)
{
	struct agg_geom g;

	return agg_geom(&ag->def, &g) < 0 ? 0 : shm_agg_table_size(&g, capacity);
}

/* Does @ag take the event @name ("provider:event")? */
static int agg_matches(const struct aggregation *ag, const char *name)
{
	char prov[PROTO_EVNAME_MAX];
	const char *colon;

	if (!(ag->flags & SHM_AGG_PROFILE))
		return glob_match(ag->ev.pattern, name);
	colon = strchr(name, ':');
	if (!colon || (size_t)(colon - name) >= sizeof(prov))
		return 0;
	memcpy(prov, name, (size_t)(colon - name));
	prov[colon - name] = 0;
	return agg_profile_role(prov, colon + 1) != AGG_ROLE_NONE;
}

/* Index of field name @n in @ag's names, added when new; -1 when full or too long. */
static int agg_name(struct aggregation *ag, const char *n)
{
	if (!n[0] || strlen(n) >= SHM_AGG_NAME)
		return -1;
	for (uint32_t i = 0; i < ag->nnames; i++)
		if (!strcmp(ag->names[i], n))
			return (int)i;
	if (ag->nnames == SHM_AGG_NAMES)
		return -1;
	strcpy(ag->names[ag->nnames], n);
	return (int)ag->nnames++;
}

/*
 * The type of field @field in the events known now that @ag takes:
 * SHMTRACE_TYPE_*, 0 when none has it.
 */
static uint32_t agg_field_type(const struct aggregation *ag, const char *field)
{
	for (const struct app *a = sd.apps; a; a = a->next) {
		for (uint32_t id = 0; id < a->nev; id++) {
			const struct proto_event *e = &a->ev[id].desc;

			if (!a->ev[id].known || !agg_matches(ag, e->name))
				continue;
			for (uint32_t k = 0; k < e->nfields; k++)
				if (!strcmp(e->fields[k].name, field))
					return e->fields[k].type;
		}
	}
	return 0;
}

static int is_ctx(const char *f)
{
	return !strncmp(f, "$ctx.", 5) || !strcmp(f, "cpu_id");
}

/* A key of --by: "F", "F:str" or "F:int". */
static int agg_key(int fd, struct aggregation *ag, const char *spec)
{
	char f[CMD_AGG_FIELD];
	char *kind;
	int k = ag->def.nkeys, idx;
	uint32_t type;

	snprintf(f, sizeof(f), "%s", spec);
	kind = strchr(f, ':');
	if (kind)
		*kind++ = 0;
	if (kind && strcmp(kind, "str") && strcmp(kind, "int"))
		return reply_end(fd, -EINVAL, "--by %s:%s: say :str or :int", f, kind);
	idx = agg_name(ag, f);
	if (idx < 0)
		return reply_end(fd, -EINVAL, "--by: bad field name '%s' (at most %d bytes)",
				 f, SHM_AGG_NAME - 1);
	type = is_ctx(f) ? SHMTRACE_TYPE_U64 : agg_field_type(ag, f);
	ag->def.key_field[k] = (uint8_t)idx;
	ag->def.key_kind[k] = kind ? (!strcmp(kind, "str") ? AGG_KEY_STR : AGG_KEY_INT) :
			      type == SHMTRACE_TYPE_STRING ? AGG_KEY_STR : AGG_KEY_INT;
	if (!kind && !type)
		reply_text(fd, "Note: no event known yet that '%s' matches has a field '%s': "
			   "it is taken as an integer key (say %s:str for a string).\n",
			   ag->ev.pattern, f, f);
	ag->def.nkeys++;
	return 0;
}

/* One function, as tracectl sent it. */
static int agg_func(int fd, struct aggregation *ag, const struct cmd_agg_func *in)
{
	struct agg_func *f = &ag->def.f[ag->def.nfuncs];
	int idx = 0;

	if (ag->def.nfuncs == AGG_MAX_FUNCS)
		return reply_end(fd, -EINVAL, "at most %d functions", AGG_MAX_FUNCS);
	if (in->fn >= AGG_NFN)
		return reply_end(fd, -EINVAL, "unknown function %u", in->fn);
	memset(f, 0, sizeof(*f));
	f->fn = (uint8_t)in->fn;
	if (in->fn == AGG_LQUANTIZE) {
		int64_t span;

		if (in->step <= 0 || in->low >= in->high ||
		    __builtin_sub_overflow(in->high, in->low, &span) ||
		    span / in->step > AGG_MAX_LBUCKETS)
			return reply_end(fd, -EINVAL, "--lquantize FIELD,LOW,HIGH,STEP: LOW < HIGH, "
					 "STEP > 0, at most %d steps", AGG_MAX_LBUCKETS);
		f->lo = in->low;
		f->hi = in->high;
		f->step = in->step;
	}
	if (in->fn != AGG_COUNT) {
		uint32_t type;

		if (!in->field[0])
			return reply_end(fd, -EINVAL, "--%s needs a field", fn_names[in->fn]);
		type = is_ctx(in->field) ? SHMTRACE_TYPE_U64 : agg_field_type(ag, in->field);
		idx = agg_name(ag, in->field);
		if (idx < 0)
			return reply_end(fd, -EINVAL, "bad field name '%s' (at most %d bytes)",
					 in->field, SHM_AGG_NAME - 1);
		if (type == SHMTRACE_TYPE_STRING || (type & SHMTRACE_TYPE_SEQ))
			reply_text(fd, "Note: '%s' is not a number in the events of '%s' known now: "
				   "%s counts it as 0.\n", in->field, ag->ev.pattern, fn_names[in->fn]);
	}
	f->field = (uint8_t)idx;
	ag->def.nfuncs++;
	return 0;
}

/* A profile: per process and function address, calls, times and allocations. */
static void agg_profile_def(struct aggregation *ag)
{
	ag->flags = SHM_AGG_PROFILE;
	snprintf(ag->ev.pattern, sizeof(ag->ev.pattern), "%s",
		 "shmtrace_func:entry,exit shmtrace_libc:*alloc*");
	ag->def.nkeys = 2;
	ag->def.key_kind[0] = ag->def.key_kind[1] = AGG_KEY_INT;
	ag->def.key_field[0] = (uint8_t)agg_name(ag, "$ctx.vpid");
	ag->def.key_field[1] = (uint8_t)agg_name(ag, "addr");
	for (size_t i = 0; i < AGG_PROFILE_NSUMS; i++) {
		struct agg_func *f = &ag->def.f[ag->def.nfuncs++];

		f->fn = AGG_SUM;
		f->field = (uint8_t)agg_name(ag, agg_profile_sums[i]);
	}
}

static struct aggregation *agg_by_name(const struct session *s, const char *name)
{
	for (struct aggregation *ag = s->aggs; ag; ag = ag->next)
		if (!strcmp(ag->name, name))
			return ag;
	return NULL;
}

static int agg_to_consumer(const struct aggregation *ag)
{
	struct msg_c_agg m;

	memset(&m, 0, sizeof(m));
	m.agg_id = ag->id;
	m.capacity = ag->capacity;
	m.nnames = ag->nnames;
	m.flags = ag->flags;
	snprintf(m.session, sizeof(m.session), "%s", ag->session->name);
	snprintf(m.name, sizeof(m.name), "%s", ag->name);
	snprintf(m.event, sizeof(m.event), "%s", ag->ev.pattern);
	_Static_assert(sizeof(m.names) == sizeof(ag->names), "names");
	_Static_assert(sizeof(m.def) == sizeof(ag->def), "def");
	memcpy(m.names, ag->names, sizeof(m.names));
	memcpy(m.def, &ag->def, sizeof(m.def));
	return consumer_call(MSG_C_AGG_ADD, &m, sizeof(m), NULL, 0, NULL, 0);
}

/* Describe @ag the way it was defined: "count, quantize(seq) by thread". */
static void agg_describe(const struct aggregation *ag, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < ag->def.nfuncs && n < len; i++) {
		const struct agg_func *f = &ag->def.f[i];

		if (f->fn == AGG_COUNT)
			n += (size_t)snprintf(buf + n, len - n, "%scount", i ? ", " : "");
		else if (f->fn == AGG_LQUANTIZE)
			n += (size_t)snprintf(buf + n, len - n, "%slquantize(%s, %" PRId64 ", %" PRId64
					      ", %d)", i ? ", " : "", ag->names[f->field], f->lo,
					      f->hi, f->step);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%s(%s)", i ? ", " : "",
					      fn_names[f->fn], ag->names[f->field]);
	}
	for (unsigned int k = 0; k < ag->def.nkeys && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s", k ? ", " : " by ",
				      ag->names[ag->def.key_field[k]],
				      ag->def.key_kind[k] == AGG_KEY_STR ? ":str" : "");
}

static void agg_free(struct aggregation *ag)
{
	free(ag->ev.filter);
	free(ag->ev.code);
	free(ag);
}

/* aggregate NAME PATTERN [settings...] */
int cmd_aggregate(int fd, struct session *s, const struct proto_cmd *c)
{
	const struct cmd_aggregate *in = &c->b.aggregate;
	const struct cmd_agg_func count = { .fn = AGG_COUNT };
	int profile = (in->flags & CMD_AGG_PROFILE) != 0;
	struct aggregation *ag;
	unsigned int slot;
	uint32_t keys = 0;
	char what[1024];
	int ret = 0;

	if (!proto_name_ok(in->name))
		return reply_end(fd, -EINVAL, "aggregate NAME PATTERN: NAME of %s", PROTO_NAME_RULES);
	if (agg_by_name(s, in->name))
		return reply_end(fd, -EEXIST, "session %s already has an aggregation named %s",
				 s->name, in->name);
	if (in->keys > AGG_MAX_KEYS_ASKED)
		return reply_end(fd, -EINVAL, "--keys N: 1 to %u", AGG_MAX_KEYS_ASKED);
	for (slot = 0; slot < SHM_MAX_AGG && sd.agg[slot]; slot++)
		;
	if (slot == SHM_MAX_AGG)
		return reply_end(fd, -EBUSY, "too many aggregations in all sessions (at most %d)",
				 SHM_MAX_AGG);
	ag = calloc(1, sizeof(*ag));
	if (!ag)
		return reply_end(fd, -ENOMEM, "out of memory");
	snprintf(ag->name, sizeof(ag->name), "%s", in->name);
	ag->session = s;
	snprintf(ag->ev.pattern, sizeof(ag->ev.pattern), "%s", profile ? "-" : in->pattern);
	if (!ag->ev.pattern[0]) {
		ret = reply_end(fd, -EINVAL, "invalid event pattern");
		goto fail;
	}
	for (keys = 1; in->keys && keys < in->keys; keys <<= 1)
		;
	if (!in->keys)
		keys = 0;
	if (in->filter) {
		char err[200];

		ret = filter_set(&ag->ev, c->str[0], err, sizeof(err));
		if (ret < 0)
			ret = reply_end(fd, ret, "%s", err);
	}
	for (uint32_t i = 0; i < in->nkeys && !ret; i++)
		ret = agg_key(fd, ag, in->key[i]);
	for (uint32_t i = 0; i < in->nfuncs && !ret; i++)
		ret = agg_func(fd, ag, &in->func[i]);
	if (ret < 0)
		goto fail;
	if (profile) {
		if (ag->def.nkeys || ag->def.nfuncs || ag->ev.code) {
			ret = reply_end(fd, -EINVAL, "--profile takes no keys, functions nor filter");
			goto fail;
		}
		agg_profile_def(ag);
	}
	if (!ag->def.nfuncs)
		agg_func(fd, ag, &count);
	ag->capacity = keys ? keys : profile ? AGG_PROFILE_KEYS : AGG_DEFAULT_KEYS;
	while (!keys && ag->capacity > 16 && !(agg_bytes(ag, ag->capacity) &&
					       agg_bytes(ag, ag->capacity) <= AGG_DEFAULT_TABLE))
		ag->capacity >>= 1;
	if (!agg_bytes(ag, ag->capacity)) {
		ret = reply_end(fd, -EINVAL, "a table of %u keys would take more than %u MiB: ask "
				"fewer keys", ag->capacity, SHM_AGG_MAX_TABLE >> 20);
		goto fail;
	}
	ag->id = ++sd.next_chan_id;	/* unique across daemon restarts, as channels */
	ag->slot = slot;
	ret = agg_to_consumer(ag);
	if (ret < 0 && sd.consumer_fd >= 0) {
		ret = reply_end(fd, ret, "the consumer daemon refused the aggregation: %s",
				strerror(-ret));
		goto fail;
	}
	sd.agg[slot] = ag;
	ag->next = s->aggs;
	s->aggs = ag;
	apps_update_all();
	agg_describe(ag, what, sizeof(what));
	reply_text(fd, "Aggregation %s of '%s' in session %s: %s%s%s%s (tables of %u keys).\n",
		   ag->name, profile ? "function calls" : ag->ev.pattern, s->name, what,
		   ag->ev.filter ? " [filter: " : "", ag->ev.filter ? ag->ev.filter : "",
		   ag->ev.filter ? "]" : "", ag->capacity);
	return reply_end(fd, 0, NULL);
fail:
	agg_free(ag);
	return ret;
}

/* Forget @ag: its slot, the consumer's results, the segments we keep. */
static void agg_remove(struct aggregation *ag)
{
	struct msg_c_id m = { .id = ag->id };
	struct session *s = ag->session;

	for (struct aggregation **pp = &s->aggs; *pp; pp = &(*pp)->next) {
		if (*pp == ag) {
			*pp = ag->next;
			break;
		}
	}
	sd.agg[ag->slot] = NULL;
	apps_update_all();
	apps_forget_agg(ag->id);
	consumer_call(MSG_C_AGG_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
	agg_free(ag);
}

int cmd_disable_agg(int fd, struct session *s, const struct proto_cmd *c)
{
	for (uint32_t i = 0; i < c->nstr; i++) {
		struct aggregation *ag = agg_by_name(s, c->str[i]);

		if (!ag)
			return reply_end(fd, -ENOENT, "no aggregation %s in session %s", c->str[i],
					 s->name);
		agg_remove(ag);
		reply_text(fd, "Aggregation %s removed from session %s.\n", c->str[i], s->name);
	}
	return reply_end(fd, 0, NULL);
}

void aggs_free(struct session *s)
{
	while (s->aggs)
		agg_remove(s->aggs);
}

/*
 * Have the consumer print @s's aggregations (only @name when not NULL) in
 * @format into @out. 0, -ENOENT (no such aggregation), or -errno.
 */
static int aggs_print(const struct session *s, const char *name, uint32_t format, int out)
{
	struct msg_c_agg_show m;
	const struct aggregation *order[SHM_MAX_AGG];
	unsigned int n = 0;

	memset(&m, 0, sizeof(m));
	for (const struct aggregation *ag = s->aggs; ag; ag = ag->next)
		if (!name || !strcmp(ag->name, name))
			order[n++] = ag;
	if (!n)
		return -ENOENT;
	/* in the order they were defined (the list is newest first) */
	for (unsigned int i = 0; i < n; i++)
		m.ids[i] = order[n - 1 - i]->id;
	m.n = n;
	m.format = format;
	if (sd.consumer_fd < 0)
		return -ENOTCONN;
	apps_poll_all();	/* segments the processes sent before we were asked */
	return consumer_call(MSG_C_AGG_SHOW, &m, sizeof(m), &out, 1, NULL, 0);
}

/* show-aggregations [NAME] "format=text|json" */
int cmd_show_agg(int fd, struct session *s, const struct cmd_show_agg *c)
{
	const char *name = c->name[0] ? c->name : NULL;
	uint32_t format = c->format;
	int mfd, ret;

	if (format != PROTO_AGG_TEXT && format != PROTO_AGG_JSON)
		return reply_end(fd, -EINVAL, "unknown format %u", format);
	mfd = memfd_create("shmtrace-aggregations", MFD_CLOEXEC);
	if (mfd < 0)
		return reply_end(fd, -errno, "cannot make room for the results: %s", strerror(errno));
	ret = aggs_print(s, name, format, mfd);
	if (ret == -ENOENT)
		ret = reply_end(fd, ret, name ? "no aggregation %s in session %s" :
				"session %s%s has no aggregation", name ? name : "", s->name);
	else if (ret == -ENOTCONN)
		ret = reply_end(fd, ret, "the consumer daemon is not running (it restarts within "
				"a second)");
	else if (ret < 0)
		ret = reply_end(fd, ret, "the consumer daemon could not merge the tables: %s",
				strerror(-ret));
	else if (proto_send(fd, MSG_REPLY_FD, 0, NULL, 0, &mfd, 1) < 0)
		ret = -EPIPE;
	else
		ret = reply_end(fd, 0, NULL);
	close(mfd);
	return ret;
}

/*
 * At stop: the session's aggregations as OUTPUT/aggregations.json, made
 * in a temporary file then renamed, so a reader never sees half of it.
 * Nothing for a session streamed to a relay (its output is not here).
 */
int aggs_write(const struct session *s, char *msg, size_t len)
{
	char path[PROTO_PATH_MAX + 64], tmp[PROTO_PATH_MAX + 64];
	struct stat sb;
	int fd, ret;

	if (!s->aggs || s->relay_id)
		return 0;
	if (stat(s->output, &sb) < 0 && mkdir_p(s->output, 0750) < 0) {
		ret = -errno;
		goto fail;
	}
	snprintf(path, sizeof(path), "%.4000s/%s", s->output, AGG_JSON);
	snprintf(tmp, sizeof(tmp), "%.4000s/.%s.tmp", s->output, AGG_JSON);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0) {
		ret = -errno;
		goto fail;
	}
	ret = aggs_print(s, NULL, PROTO_AGG_JSON, fd);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret < 0) {
		unlink(tmp);
		goto fail;
	}
	return 0;
fail:
	snprintf(msg, len, "aggregations not written to %.4000s/%s: %s", s->output, AGG_JSON,
		 strerror(-ret));
	return ret;
}

void aggs_status(int fd, const struct session *s)
{
	char what[1024];

	for (const struct aggregation *ag = s->aggs; ag; ag = ag->next) {
		agg_describe(ag, what, sizeof(what));
		reply_text(fd, "  aggregation %s of '%s': %s%s%s%s\n", ag->name,
			   ag->flags & SHM_AGG_PROFILE ? "function calls" : ag->ev.pattern, what,
			   ag->ev.filter ? " [filter: " : "", ag->ev.filter ? ag->ev.filter : "",
			   ag->ev.filter ? "]" : "");
	}
}

/* ---- control pages --------------------------------------------------------- */

/*
 * The aggregation part of @a's control page: the slots into @slots, the
 * slots each event updates into @aggen (a->nev entries), the filters
 * appended to @fl (an aggregation whose filter does not fit takes every
 * event: more than asked, said in the log).
 */
void aggs_masks(const struct app *a, struct shm_ctl_agg *slots, uint8_t *aggen,
		struct shm_ctl_filters *fl)
{
	memset(aggen, 0, a->nev);
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++) {
		const struct aggregation *ag = sd.agg[i];
		struct shm_ctl_agg *c = &slots[i];

		memset(c, 0, sizeof(*c));
		if (!ag || !ag->session->active || !allow_uid(ag->session, a->uid))
			continue;
		c->agg_id = ag->id;
		c->capacity = ag->capacity;
		c->nnames = ag->nnames;
		c->flags = ag->flags;
		c->def = ag->def;
		memcpy(c->names, ag->names, sizeof(c->names));
		if (ag->ev.code) {
			c->filter = ctl_filter_add(fl, &ag->ev);
			if (!c->filter)
				log_warn("aggregation %s: no room for its filter in the control page: "
					 "it takes every event", ag->name);
		}
		for (uint32_t id = 0; id < a->nev; id++)
			if (a->ev[id].known && agg_matches(ag, a->ev[id].desc.name))
				aggen[id] |= (uint8_t)(1u << i);
	}
}

/* ---- segments ---------------------------------------------------------------- */

/* A process's segment of tables (MSG_APP_AGG_SEG): 0, or -EPROTO (malformed). */
int app_agg_seg(struct app *a, const struct msg_agg_seg *m, int fd)
{
	const struct aggregation *ag = m->agg_slot < SHM_MAX_AGG ? sd.agg[m->agg_slot] : NULL;
	struct msg_agg_seg fwd = *m;
	struct app_aggseg *ns;

	if (!ag || ag->id != m->agg_id || !allow_uid(ag->session, a->uid)) {
		close(fd);	/* an aggregation that is gone: nothing to merge */
		return 0;
	}
	if (m->capacity != ag->capacity || m->table_size != agg_bytes(ag, ag->capacity) ||
	    m->def_hash != agg_def_hash(&ag->def) || !m->ntables ||
	    m->ntables > SHM_AGG_MAX_TABLES || m->seg_index >= SHM_AGG_MAX_SEGMENTS ||
	    m->size != SHM_AGG_SEG_HDR + (uint64_t)m->ntables * m->table_size ||
	    memfd_check(fd, m->size) < 0) {
		log_warn("%s[%d]: malformed aggregation segment refused", a->procname, (int)a->pid);
		close(fd);
		return -EPROTO;
	}
	for (uint32_t i = 0; i < a->naggsegs; i++) {
		if (a->aggsegs[i].msg.agg_id == m->agg_id &&
		    a->aggsegs[i].msg.seg_index == m->seg_index) {
			close(fd);	/* described again after a new registration */
			return 0;
		}
	}
	ns = realloc(a->aggsegs, (a->naggsegs + 1) * sizeof(*ns));
	if (!ns) {
		close(fd);
		return -ENOMEM;
	}
	a->aggsegs = ns;
	fwd.app_id = a->id;
	ns[a->naggsegs].msg = fwd;
	ns[a->naggsegs].fd = fd;
	a->naggsegs++;
	consumer_call(MSG_C_AGG_SEG, &fwd, sizeof(fwd), &fd, 1, NULL, 0);
	return 0;
}

/* Close what @a sent of aggregation @id. */
static void app_forget_agg(struct app *a, uint64_t id)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < a->naggsegs; i++) {
		if (a->aggsegs[i].msg.agg_id == id)
			close(a->aggsegs[i].fd);
		else
			a->aggsegs[n++] = a->aggsegs[i];
	}
	a->naggsegs = n;
}

/* Forget every process's segments of aggregation @id, those gone too. */
void apps_forget_agg(uint64_t id)
{
	for (struct app *a = sd.apps; a; a = a->next)
		app_forget_agg(a, id);
	for (struct app *a = sd.gone; a; a = a->next)
		app_forget_agg(a, id);
}

void aggs_reconcile(const uint64_t *ids, uint32_t n)
{
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++) {
		uint32_t k = 0;

		if (!sd.agg[i])
			continue;
		while (k < n && ids[k] != sd.agg[i]->id)
			k++;
		if (k == n)
			agg_to_consumer(sd.agg[i]);
	}
	for (uint32_t k = 0; k < n; k++) {
		struct msg_c_id m = { .id = ids[k] };
		unsigned int i = 0;

		while (i < SHM_MAX_AGG && !(sd.agg[i] && sd.agg[i]->id == m.id))
			i++;
		if (i == SHM_MAX_AGG)
			consumer_call(MSG_C_AGG_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
	}
}

/* A new consumer: the aggregations (before any process's segment). */
void aggs_replay(void)
{
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++)
		if (sd.agg[i])
			agg_to_consumer(sd.agg[i]);
}

/* ... and, after the process @a, its segments. */
void app_aggs_replay(const struct app *a)
{
	for (uint32_t i = 0; i < a->naggsegs; i++)
		consumer_call(MSG_C_AGG_SEG, &a->aggsegs[i].msg, sizeof(a->aggsegs[i].msg),
			      &a->aggsegs[i].fd, 1, NULL, 0);
}
