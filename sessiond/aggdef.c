// SPDX-License-Identifier: MIT
/*
 * aggdef.c - aggregations as defined: their slots, the events they take,
 * how they are described, and what the consumer is told of them (defined,
 * deleted, given again to a new consumer, merged and printed).
 *
 * An aggregation belongs to a session and takes one of the SHM_MAX_AGG
 * slots shared by all sessions (ss.agg, as channels take channel slots).
 * While its session is active, every traced process's control page has
 * its definition in that slot (ctlpage.c) and the processes update their
 * own tables (libtrace/aggr.c); they send us each segment of tables they
 * make (seg.c), which the consumer maps and merges. We only ask
 * (MSG_C_AGG_SHOW): the consumer prints into a descriptor we give it.
 *
 * State: none of its own; the aggregations are their sessions' (the
 * verbs that make and remove them: aggcmd.c, life.c). Saved with the
 * sessions (state.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "aggdef.h"
#include "consumer.h"
#include "session.h"
#include "common/glob.h"
#include "support/log.h"
#include "common/util.h"

#define AGG_JSON		"aggregations.json"

static const char *const fn_names[AGG_NFN] = {
	"count", "sum", "min", "max", "avg", "quantize", "lquantize",
};

const char *agg_fn_name(unsigned int fn)
{
	return fn < AGG_NFN ? fn_names[fn] : "?";
}

/* Bytes of a thread's table of @ag (as the process computes it); 0: too large. */
uint32_t agg_bytes(const struct aggregation *ag, uint32_t capacity)
{
	struct agg_geom g;

	return agg_geom(&ag->def, &g) < 0 ? 0 : shm_agg_table_size(&g, capacity);
}

int agg_takes(const struct aggregation *ag, const char *name)
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

struct aggregation *agg_by_name(const struct session *s, const char *name)
{
	for (struct aggregation *ag = s->aggs; ag; ag = ag->next)
		if (!strcmp(ag->name, name))
			return ag;
	return NULL;
}

int agg_to_consumer(const struct aggregation *ag)
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

void agg_free(struct aggregation *ag)
{
	free(ag->ev.filter);
	free(ag->ev.code);
	free(ag);
}

/*
 * Have the consumer print @s's aggregations (only @name when not NULL) in
 * @format into @out. 0, -ENOENT (no such aggregation), or -errno.
 */
int aggs_print(const struct session *s, const char *name, uint32_t format, int out)
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
	if (!consumer_running())
		return -ENOTCONN;
	return consumer_call(MSG_C_AGG_SHOW, &m, sizeof(m), &out, 1, NULL, 0);
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

	if (!s->aggs || s->relay_id || s->memory)
		return 0;	/* (a memory-only session writes nothing but snapshots) */
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

void aggs_json_path(const struct session *s, char *buf, size_t len)
{
	snprintf(buf, len, "%.4000s/%s", s->output, AGG_JSON);
}

void agg_record(const struct aggregation *ag, struct rec_agg *ra)
{
	_Static_assert(REC_AGG_FIELD == SHM_AGG_NAME, "aggregation field names");
	_Static_assert(AGG_MAX_KEYS <= CMD_AGG_KEYS && AGG_MAX_FUNCS <= CMD_AGG_FUNCS,
		       "aggregation keys and functions");
	memset(ra, 0, sizeof(*ra));
	snprintf(ra->session, sizeof(ra->session), "%s", ag->session->name);
	snprintf(ra->name, sizeof(ra->name), "%s", ag->name);
	if (ag->flags & SHM_AGG_PROFILE)
		ra->flags |= REC_AGG_PROFILE;
	else
		snprintf(ra->pattern, sizeof(ra->pattern), "%s", ag->ev.pattern);
	ra->capacity = ag->capacity;
	ra->nkeys = ag->def.nkeys;
	for (unsigned int k = 0; k < ag->def.nkeys && k < AGG_MAX_KEYS; k++) {
		snprintf(ra->key[k].field, sizeof(ra->key[k].field), "%s",
			 ag->names[ag->def.key_field[k] % SHM_AGG_NAMES]);
		ra->key[k].kind = ag->def.key_kind[k];
	}
	ra->nfuncs = ag->def.nfuncs;
	for (unsigned int i = 0; i < ag->def.nfuncs && i < AGG_MAX_FUNCS; i++) {
		const struct agg_func *f = &ag->def.f[i];

		ra->func[i].fn = f->fn;
		if (f->fn != AGG_COUNT)
			snprintf(ra->func[i].field, sizeof(ra->func[i].field), "%s",
				 ag->names[f->field % SHM_AGG_NAMES]);
		if (f->fn == AGG_LQUANTIZE) {
			ra->func[i].low = f->lo;
			ra->func[i].high = f->hi;
			ra->func[i].step = f->step;
		}
	}
	if (ag->ev.filter) {
		size_t len = strlen(ag->ev.filter);

		ra->flags |= REC_AGG_FILTER | (len >= sizeof(ra->filter) ? REC_AGG_FILTER_CUT : 0);
		ra->filter_len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
		snprintf(ra->filter, sizeof(ra->filter), "%s", ag->ev.filter);
	}
}

void aggs_reconcile(const uint64_t *ids, uint32_t n)
{
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++) {
		uint32_t k = 0;

		if (!ss.agg[i])
			continue;
		while (k < n && ids[k] != ss.agg[i]->id)
			k++;
		if (k == n)
			agg_to_consumer(ss.agg[i]);
	}
	for (uint32_t k = 0; k < n; k++) {
		struct msg_c_id m = { .id = ids[k] };
		unsigned int i = 0;

		while (i < SHM_MAX_AGG && !(ss.agg[i] && ss.agg[i]->id == m.id))
			i++;
		if (i == SHM_MAX_AGG)
			consumer_call(MSG_C_AGG_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
	}
}

/* A new consumer: the aggregations (before any process's segment). */
void aggs_replay(void)
{
	for (unsigned int i = 0; i < SHM_MAX_AGG; i++)
		if (ss.agg[i])
			agg_to_consumer(ss.agg[i]);
}
