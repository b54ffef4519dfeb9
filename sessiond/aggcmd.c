// SPDX-License-Identifier: MIT
/*
 * aggcmd.c - the verbs of aggregations: tracectl aggregate,
 * disable-aggregation and show-aggregations (aggdef.c has what an
 * aggregation is; life.c removes one).
 *
 * show-aggregations passes what the consumer wrote in a memfd (text or
 * JSON) on to tracectl (MSG_REPLY_FD), so that a large result never goes
 * through this loop. The other verbs answer with REC_AGGREGATION records
 * (the definition as the daemon holds it) and, for what the user should
 * know, REC_NOTE records.
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
#include "support/log.h"
#include "common/util.h"
#include "support/protomsg.h"

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
static int agg_key(struct reply *r, struct aggregation *ag, const char *spec)
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
		return reply_fail(r, -EINVAL, RE_AGG_KEY_KIND, .name = f, .name2 = kind);
	idx = agg_name(ag, f);
	if (idx < 0)
		return reply_fail(r, -EINVAL, RE_AGG_FIELD, .name = f, .n = { SHM_AGG_NAME - 1 });
	type = is_ctx(f) ? SHMTRACE_TYPE_U64 : agg_field_type(ag, f);
	ag->def.key_field[k] = (uint8_t)idx;
	ag->def.key_kind[k] = kind ? (!strcmp(kind, "str") ? AGG_KEY_STR : AGG_KEY_INT) :
			      type == SHMTRACE_TYPE_STRING ? AGG_KEY_STR : AGG_KEY_INT;
	if (!kind && !type)
		reply_note(r, RN_AGG_KEY_UNKNOWN, .name = ag->ev.pattern, .name2 = f);
	ag->def.nkeys++;
	return 0;
}

/* One function, as tracectl sent it. */
static int agg_func(struct reply *r, struct aggregation *ag, const struct cmd_agg_func *in)
{
	struct agg_func *f = &ag->def.f[ag->def.nfuncs];
	int idx = 0;

	if (ag->def.nfuncs == AGG_MAX_FUNCS)
		return reply_fail(r, -EINVAL, RE_RANGE, .name = "functions",
				  .n = { AGG_MAX_FUNCS + 1u, 1, AGG_MAX_FUNCS });
	if (in->fn >= AGG_NFN)
		return reply_fail(r, -EINVAL, RE_RANGE, .name = "function",
				  .n = { in->fn, 0, AGG_NFN - 1 });
	memset(f, 0, sizeof(*f));
	f->fn = (uint8_t)in->fn;
	if (in->fn == AGG_LQUANTIZE) {
		int64_t span;

		if (in->step <= 0 || in->low >= in->high ||
		    __builtin_sub_overflow(in->high, in->low, &span) ||
		    span / in->step > AGG_MAX_LBUCKETS)
			return reply_fail(r, -EINVAL, RE_LQUANTIZE, .n = { AGG_MAX_LBUCKETS });
		f->lo = in->low;
		f->hi = in->high;
		f->step = in->step;
	}
	if (in->fn != AGG_COUNT) {
		uint32_t type;

		if (!in->field[0])
			return reply_fail(r, -EINVAL, RE_AGG_NEEDS_FIELD,
					  .name = agg_fn_name(in->fn));
		type = is_ctx(in->field) ? SHMTRACE_TYPE_U64 : agg_field_type(ag, in->field);
		idx = agg_name(ag, in->field);
		if (idx < 0)
			return reply_fail(r, -EINVAL, RE_AGG_FIELD, .name = in->field,
					  .n = { SHM_AGG_NAME - 1 });
		if (type == SHMTRACE_TYPE_STRING || (type & SHMTRACE_TYPE_SEQ))
			reply_note(r, RN_AGG_NOT_NUMBER, .name = ag->ev.pattern, .name2 = in->field,
				   .n = { in->fn });
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
int cmd_aggregate(struct reply *r, struct session *s, const struct proto_cmd *c)
{
	const struct cmd_aggregate *in = &c->b.aggregate;
	const struct cmd_agg_func count = { .fn = AGG_COUNT };
	int profile = (in->flags & CMD_AGG_PROFILE) != 0;
	struct aggregation *ag;
	unsigned int slot;
	uint32_t keys = 0;
	struct rec_agg ra;
	int ret = 0;

	if (!proto_name_ok(in->name))
		return reply_fail(r, -EINVAL, RE_BAD_NAME, .name = in->name, .name2 = "aggregation",
				  .n = { PROTO_NAME_MAX - 1 });
	if (agg_by_name(s, in->name))
		return reply_fail(r, -EEXIST, RE_AGG_EXISTS, .session = s->name, .name = in->name);
	if (in->keys > AGG_MAX_KEYS_ASKED)
		return reply_fail(r, -EINVAL, RE_RANGE, .name = "--keys",
				  .n = { in->keys, 1, AGG_MAX_KEYS_ASKED });
	for (slot = 0; slot < SHM_MAX_AGG && ss.agg[slot]; slot++)
		;
	if (slot == SHM_MAX_AGG)
		return reply_fail(r, -EBUSY, RE_AGGS_FULL, .n = { SHM_MAX_AGG });
	ag = calloc(1, sizeof(*ag));
	if (!ag)
		return reply_fail(r, -ENOMEM, RE_ERRNO, .name = "aggregation");
	snprintf(ag->name, sizeof(ag->name), "%s", in->name);
	ag->session = s;
	snprintf(ag->ev.pattern, sizeof(ag->ev.pattern), "%s", profile ? "-" : in->pattern);
	if (!ag->ev.pattern[0]) {
		ret = reply_fail(r, -EINVAL, RE_BAD_PATTERN, .name = in->pattern);
		goto fail;
	}
	for (keys = 1; in->keys && keys < in->keys; keys <<= 1)
		;
	if (!in->keys)
		keys = 0;
	if (in->filter)
		ret = filter_make(r, &ag->ev, c->str[0]);
	for (uint32_t i = 0; i < in->nkeys && !ret; i++)
		ret = agg_key(r, ag, in->key[i]);
	for (uint32_t i = 0; i < in->nfuncs && !ret; i++)
		ret = agg_func(r, ag, &in->func[i]);
	if (ret < 0)
		goto fail;
	if (profile) {
		if (ag->def.nkeys || ag->def.nfuncs || ag->ev.code) {
			ret = reply_fail(r, -EINVAL, RE_PROFILE_ARGS);
			goto fail;
		}
		agg_profile_def(ag);
	}
	if (!ag->def.nfuncs)
		agg_func(r, ag, &count);
	ag->capacity = keys ? keys : profile ? AGG_PROFILE_KEYS : AGG_DEFAULT_KEYS;
	while (!keys && ag->capacity > 16 && !(agg_bytes(ag, ag->capacity) &&
					       agg_bytes(ag, ag->capacity) <= AGG_DEFAULT_TABLE))
		ag->capacity >>= 1;
	if (!agg_bytes(ag, ag->capacity)) {
		ret = reply_fail(r, -EINVAL, RE_AGG_TABLE,
				 .n = { ag->capacity, SHM_AGG_MAX_TABLE >> 20 });
		goto fail;
	}
	ag->id = ++ss.next_id;	/* unique across daemon restarts, as channels */
	ag->slot = slot;
	ret = agg_to_consumer(ag);
	if (ret < 0 && consumer_running()) {
		ret = reply_fail(r, ret, RE_CONSUMER, .name = "aggregation");
		goto fail;
	}
	ss.agg[slot] = ag;
	ag->next = s->aggs;
	s->aggs = ag;
	apps_update_all();
	agg_record(ag, &ra);
	reply_rec(r, REC_AGGREGATION, &ra, sizeof(ra));
	return 0;
fail:
	agg_free(ag);
	return ret;
}

int cmd_disable_agg(struct reply *r, struct session *s, const struct proto_cmd *c)
{
	for (uint32_t i = 0; i < c->nstr; i++) {
		struct aggregation *ag = agg_by_name(s, c->str[i]);
		struct rec_agg ra;

		if (!ag)
			return reply_fail(r, -ENOENT, RE_NO_AGG, .session = s->name,
					  .name = c->str[i]);
		agg_record(ag, &ra);
		ra.flags |= REC_AGG_REMOVED;
		agg_remove(ag);
		reply_rec(r, REC_AGGREGATION, &ra, sizeof(ra));
	}
	return 0;
}

/* show-aggregations [NAME] "format=text|json" */
int cmd_show_agg(struct reply *r, struct session *s, const struct cmd_show_agg *c)
{
	const char *name = c->name[0] ? c->name : NULL;
	uint32_t format = c->format;
	int mfd, ret;

	if (format != PROTO_AGG_TEXT && format != PROTO_AGG_JSON)
		return reply_fail(r, -EINVAL, RE_RANGE, .name = "format",
				  .n = { format, PROTO_AGG_TEXT, PROTO_AGG_JSON });
	mfd = memfd_create("shmtrace-aggregations", MFD_CLOEXEC);
	if (mfd < 0)
		return reply_fail(r, -errno, RE_ERRNO, .name = "memfd");
	apps_poll_all();	/* segments the processes sent before we were asked */
	ret = aggs_print(s, name, format, mfd);
	if (ret == -ENOENT && name)
		ret = reply_fail(r, ret, RE_NO_AGG, .session = s->name, .name = name);
	else if (ret == -ENOENT)
		ret = reply_fail(r, ret, RE_NO_AGGS, .session = s->name);
	else if (ret == -ENOTCONN)
		ret = reply_fail(r, ret, RE_NO_CONSUMER);
	else if (ret < 0)
		ret = reply_fail(r, ret, RE_CONSUMER, .name = "merge");
	else
		reply_fd(r, mfd);
	close(mfd);
	return ret;
}
