// SPDX-License-Identifier: MIT
/*
 * aggcmd.c - the verbs of aggregations: tracectl aggregate,
 * disable-aggregation and show-aggregations (aggdef.c has what an
 * aggregation is; life.c removes one).
 *
 * show-aggregations passes the text the consumer wrote in a memfd on to
 * tracectl (MSG_REPLY_FD), so that a large result never goes through this
 * loop line by line.
 *
 * A definition is made of field names: the keys' (integers or strings,
 * told by the events known when it is defined, or by a ":str"/":int"
 * suffix) and the functions' arguments, bound to each event's fields in
 * the process.
 *
 * State: none of its own (the aggregations are their sessions').
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
#include "aggcmd.h"
#include "aggdef.h"
#include "app.h"
#include "client.h"
#include "consumer.h"
#include "life.h"
#include "session.h"
#include "log.h"
#include "util.h"

#define AGG_DEFAULT_KEYS	1024u
#define AGG_DEFAULT_TABLE	(4u << 20)	/* a default table stays under this */
#define AGG_MAX_KEYS_ASKED	(1u << 20)
#define AGG_PROFILE_KEYS	4096u

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
	for (const struct app *a = apps_list(); a; a = a->next) {
		for (uint32_t id = 0; id < a->nev; id++) {
			const struct proto_event *e = &a->ev[id].desc;

			if (!a->ev[id].known || !agg_takes(ag, e->name))
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
			return reply_end(fd, -EINVAL, "--%s needs a field", agg_fn_name(in->fn));
		type = is_ctx(in->field) ? SHMTRACE_TYPE_U64 : agg_field_type(ag, in->field);
		idx = agg_name(ag, in->field);
		if (idx < 0)
			return reply_end(fd, -EINVAL, "bad field name '%s' (at most %d bytes)",
					 in->field, SHM_AGG_NAME - 1);
		if (type == SHMTRACE_TYPE_STRING || (type & SHMTRACE_TYPE_SEQ))
			reply_text(fd, "Note: '%s' is not a number in the events of '%s' known now: "
				   "%s counts it as 0.\n", in->field, ag->ev.pattern, agg_fn_name(in->fn));
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
	for (slot = 0; slot < SHM_MAX_AGG && ss.agg[slot]; slot++)
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
	ag->id = ++ss.next_id;	/* unique across daemon restarts, as channels */
	ag->slot = slot;
	ret = agg_to_consumer(ag);
	if (ret < 0 && consumer_running()) {
		ret = reply_end(fd, ret, "the consumer daemon refused the aggregation: %s",
				strerror(-ret));
		goto fail;
	}
	ss.agg[slot] = ag;
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
	apps_poll_all();	/* segments the processes sent before we were asked */
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
