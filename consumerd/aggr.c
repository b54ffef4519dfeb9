// SPDX-License-Identifier: MIT
/*
 * aggr.c - the consumer's side of aggregations: it maps every traced
 * process's aggregation segments read-only, merges their thread tables
 * when asked (MSG_C_AGG_SHOW: tracectl show-aggregations, and the session
 * daemon at stop for aggregations.json), and folds a process's tables into
 * the aggregation's retired results when the process is gone, so that
 * memory follows the processes alive, not all those that ever ran; and
 * evaluates a trigger's condition over the merged results, key by key
 * (MSG_C_AGG_EVAL: the keys that meet it, written into a descriptor).
 *
 * Everything in a segment is written by its process and trusted for
 * nothing: the header's sizes are checked against the definition the
 * session daemon sent (MSG_C_AGG_ADD) and the memfd's size, and each
 * table is copied (agg_snapshot(), under its sequence counter) and checked
 * before it is merged. A table whose writer died in an update is merged
 * and counted as torn; a process that dies in an update leaves at most one
 * update per table half done.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "support/aggcond.h"
#include "support/aggfmt.h"
#include "aggr.h"
#include "support/log.h"
#include "common/shm.h"
#include "common/util.h"
#include "support/sysutil.h"
#include "support/aggmerge.h"

struct c_aggseg {
	uint64_t app_id;
	const struct shm_agg_seg *hdr;	/* read-only mapping */
	size_t size;
	uint32_t ntables;		/* checked against the size */
	uint32_t seg_index;
	struct c_aggseg *next;
};

struct c_agg {
	uint64_t id;
	struct msg_c_agg m;		/* as defined, strings terminated */
	struct agg_def def;
	struct agg_geom geom;
	uint32_t table_size;
	struct agg_merged retired;	/* tables of processes that are gone */
	struct c_aggseg *segs;
	struct c_agg *next;
};

static struct c_agg *c_aggs;

static struct c_agg *cagg_find(uint64_t id)
{
	for (struct c_agg *a = c_aggs; a; a = a->next)
		if (a->id == id)
			return a;
	return NULL;
}

int cagg_add(const struct msg_c_agg *m)
{
	struct c_agg *a;

	if (!m->agg_id || cagg_find(m->agg_id))
		return -EEXIST;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->id = m->agg_id;
	a->m = *m;
	a->m.session[sizeof(a->m.session) - 1] = 0;
	a->m.name[sizeof(a->m.name) - 1] = 0;
	a->m.event[sizeof(a->m.event) - 1] = 0;
	for (unsigned int i = 0; i < SHM_AGG_NAMES; i++)
		a->m.names[i][SHM_AGG_NAME - 1] = 0;
	memcpy(&a->def, m->def, sizeof(a->def));
	if (m->nnames > SHM_AGG_NAMES || agg_geom(&a->def, &a->geom) < 0 ||
	    agg_merged_init(&a->retired, &a->def) < 0)
		goto bad;
	a->table_size = shm_agg_table_size(&a->geom, m->capacity);
	if (!a->table_size)
		goto bad;
	a->next = c_aggs;
	c_aggs = a;
	return 0;
bad:
	free(a);
	return -EINVAL;
}

static void cseg_free(struct c_aggseg *s)
{
	munmap((void *)s->hdr, s->size);
	free(s);
}

void cagg_del(uint64_t id)
{
	for (struct c_agg **pp = &c_aggs; *pp; pp = &(*pp)->next) {
		struct c_agg *a = *pp;

		if (a->id != id)
			continue;
		*pp = a->next;
		while (a->segs) {
			struct c_aggseg *s = a->segs;

			a->segs = s->next;
			cseg_free(s);
		}
		agg_merged_free(&a->retired);
		free(a);
		return;
	}
}

int cagg_seg(const struct msg_agg_seg *m, int fd)
{
	struct c_agg *a = cagg_find(m->agg_id);
	struct c_aggseg *s;
	void *p;

	if (!a)
		return -ENOENT;
	/* the session daemon checked these; a restarted consumer trusts no one */
	if (m->table_size != a->table_size || m->capacity != a->m.capacity ||
	    m->def_hash != agg_def_hash(&a->def) || !m->ntables ||
	    m->ntables > SHM_AGG_MAX_TABLES ||
	    m->size != SHM_AGG_SEG_HDR + (uint64_t)m->ntables * m->table_size ||
	    memfd_check(fd, m->size) < 0)
		return -EINVAL;
	for (s = a->segs; s; s = s->next)
		if (s->app_id == m->app_id && s->seg_index == m->seg_index)
			return 0;	/* described again */
	p = mmap(NULL, m->size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	s = calloc(1, sizeof(*s));
	if (!s) {
		munmap(p, m->size);
		return -ENOMEM;
	}
	s->app_id = m->app_id;
	s->hdr = p;
	s->size = m->size;
	s->ntables = m->ntables;
	s->seg_index = m->seg_index;
	s->next = a->segs;
	a->segs = s;
	return 0;
}

/* Merge the tables of segment @s into @out. 0 or -ENOMEM. */
static int cseg_merge(const struct c_agg *a, const struct c_aggseg *s, struct agg_merged *out,
		      void *copy)
{
	for (uint32_t i = 0; i < s->ntables; i++) {
		const char *t = (const char *)s->hdr + SHM_AGG_SEG_HDR + (size_t)i * a->table_size;
		int ret = agg_snapshot(t, a->table_size, &a->def, &a->geom, copy);

		if (ret < 0)
			continue;	/* never used, or not ours: nothing to merge */
		if (agg_merge(out, copy, !ret) < 0)
			return -ENOMEM;
	}
	/* only the first segment counts updates never made */
	if (s->seg_index == 0)
		out->lost += __atomic_load_n(&s->hdr->lost, __ATOMIC_RELAXED);
	return 0;
}

/* Merge everything of @a (retired results, then the live tables) into @out. */
static int cagg_merge(const struct c_agg *a, struct agg_merged *out)
{
	void *copy;
	int ret = -ENOMEM;

	if (agg_merged_init(out, &a->def) < 0)
		return -EINVAL;
	copy = malloc(a->table_size);
	if (!copy || agg_merged_add(out, &a->retired) < 0)
		goto out;
	for (const struct c_aggseg *s = a->segs; s; s = s->next)
		if (cseg_merge(a, s, out, copy) < 0)
			goto out;
	ret = 0;
out:
	free(copy);
	return ret;
}

void cagg_app_gone(uint64_t app_id)
{
	for (struct c_agg *a = c_aggs; a; a = a->next) {
		void *copy = NULL;

		for (struct c_aggseg **pp = &a->segs; *pp;) {
			struct c_aggseg *s = *pp;

			if (s->app_id != app_id) {
				pp = &s->next;
				continue;
			}
			if (!copy)
				copy = malloc(a->table_size);
			if (!copy || cseg_merge(a, s, &a->retired, copy) < 0)
				log_warn("aggregation %s: out of memory: the tables of a process "
					 "that exited are not merged", a->m.name);
			*pp = s->next;
			cseg_free(s);
		}
		free(copy);
	}
}

unsigned int cagg_held(void)
{
	unsigned int n = 0;

	for (const struct c_agg *a = c_aggs; a; a = a->next)
		n += a->retired.n != 0 || a->retired.lost != 0 || a->retired.dropped != 0;
	return n;
}

/* The names @a was defined with, for the printers. */
static void cagg_names(const struct c_agg *a, struct agg_names *n)
{
	memset(n, 0, sizeof(*n));
	n->name = a->m.name;
	n->event = a->m.event;
	for (unsigned int k = 0; k < a->def.nkeys; k++)
		n->key[k] = a->def.key_field[k] < a->m.nnames ? a->m.names[a->def.key_field[k]] : "?";
	for (unsigned int i = 0; i < a->def.nfuncs; i++)
		n->arg[i] = a->def.f[i].fn == AGG_COUNT ? NULL :
			    a->def.f[i].field < a->m.nnames ? a->m.names[a->def.f[i].field] : "?";
}

int cagg_show(const struct msg_c_agg_show *m, int fd)
{
	struct agg_json_writer w;
	FILE *out;
	int ret = 0, dup_fd;

	if (m->n > sizeof(m->ids) / sizeof(m->ids[0]) || m->format > PROTO_AGG_JSON)
		return -EINVAL;
	dup_fd = dup(fd);
	if (dup_fd < 0)
		return -errno;
	out = fdopen(dup_fd, "w");
	if (!out) {
		close(dup_fd);
		return -ENOMEM;
	}
	if (m->format == PROTO_AGG_JSON)
		agg_json_begin(&w, out);
	for (uint32_t i = 0; i < m->n && !ret; i++) {
		const struct c_agg *a = cagg_find(m->ids[i]);
		struct agg_merged mg;
		struct agg_names names;

		if (!a) {
			ret = -ENOENT;
			break;
		}
		ret = cagg_merge(a, &mg);
		if (!ret) {
			cagg_names(a, &names);
			ret = m->format == PROTO_AGG_JSON ? agg_json_add(&w, &mg, &names) :
			      agg_print_text(out, &mg, &names);
		}
		agg_merged_free(&mg);
	}
	if (m->format == PROTO_AGG_JSON && agg_json_end(&w) < 0 && !ret)
		ret = -EIO;
	if (fclose(out) != 0 && !ret)
		ret = -EIO;
	return ret;
}

/*
 * Conditions of triggers (support/aggcond.h), key by key: a statistic of
 * an entry compared with a value. A percentile is read from the
 * histogram's buckets (nearest rank) and holds only when every value of
 * its bucket makes it hold: the bucket's lowest value for > and >=, its
 * highest for < and <=; an open bucket (lquantize's outer ones) never.
 */
static int cond_cmp(const struct proto_agg_cond *c, int64_t v)
{
	switch (c->op) {
	case AGGC_GT: return v > c->value;
	case AGGC_GE: return v >= c->value;
	case AGGC_LT: return v < c->value;
	case AGGC_LE: return v <= c->value;
	case AGGC_EQ: return v == c->value;
	case AGGC_NE: return v != c->value;
	default: return 0;
	}
}

static int cond_eval(const struct proto_agg_cond *c, const struct agg_view *v,
		 const struct agg_ventry *e, struct msg_c_agg_hit *hit)
{
	const struct agg_vval *val;
	const struct agg_func *f;
	uint64_t total = 0, rank, seen = 0;
	int64_t lo, hi;
	int open_lo, open_hi;

	if (c->func >= v->def.nfuncs || c->func >= AGG_MAX_FUNCS)
		return 0;
	val = &e->val[c->func];
	f = &v->def.f[c->func];
	memset(hit, 0, sizeof(*hit));
	if (f->fn == AGG_QUANTIZE || f->fn == AGG_LQUANTIZE) {
		for (uint32_t i = 0; i < val->nb; i++)
			total += val->b[i].count;
		if (!total)
			return 0;
		if (c->stat == AGGC_COUNT) {
			hit->value = total > INT64_MAX ? INT64_MAX : (int64_t)total;
			return cond_cmp(c, hit->value);
		}
		if (c->stat != AGGC_PCT)
			return 0;
		/* nearest rank: the smallest value with permille/1000 of them at or below */
		rank = (uint64_t)(((unsigned __int128)total * c->permille + 999) / 1000);
		for (uint32_t i = 0; i < val->nb; i++) {
			seen += val->b[i].count;
			if (seen < rank)
				continue;
			agg_bucket_range(&v->def, &v->geom, c->func, val->b[i].b, &lo, &hi,
					 &open_lo, &open_hi);
			hit->lo = lo;
			hit->hi = hi;
			if (c->op == AGGC_GT || c->op == AGGC_GE) {
				hit->value = lo;
				return !open_lo && cond_cmp(c, lo);
			}
			hit->value = hi;
			return !open_hi && cond_cmp(c, hi);
		}
		return 0;
	}
	if (!val->set)
		return 0;
	hit->value = f->fn == AGG_AVG ? (int64_t)val->avg : val->v;
	if (f->fn == AGG_AVG) {
		/* compared exactly: avg > X when the mean is above X */
		double x = (double)c->value;

		switch (c->op) {
		case AGGC_GT: return val->avg > x;
		case AGGC_GE: return val->avg >= x;
		case AGGC_LT: return val->avg < x;
		case AGGC_LE: return val->avg <= x;
		case AGGC_EQ: return val->avg == x;
		default: return val->avg != x;
		}
	}
	return cond_cmp(c, hit->value);
}

static void cond_key(const struct agg_view *v, const struct agg_ventry *e, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = 0;
	if (!v->def.nkeys) {
		snprintf(buf, len, "(all)");
		return;
	}
	for (unsigned int k = 0; k < v->def.nkeys && k < AGG_MAX_KEYS && pos < len; k++) {
		const char *name = v->names.key[k] ? v->names.key[k] : "?";
		int n;

		if (v->def.key_kind[k] == AGG_KEY_STR) {
			n = snprintf(buf + pos, len - pos, "%s%s = ", k ? ", " : "", name);
			pos += n > 0 ? (size_t)n : 0;
			for (const char *s = e->key[k].s; *s && pos + 1 < len; s++)
				buf[pos++] = (unsigned char)*s < 32 || *s == 127 ? '?' : *s;
			if (pos < len)
				buf[pos] = 0;
		} else {
			n = snprintf(buf + pos, len - pos, "%s%s = %lld", k ? ", " : "", name,
				     (long long)e->key[k].i);
			pos += n > 0 ? (size_t)n : 0;
		}
	}
	buf[len - 1] = 0;
}

int cagg_eval(const struct msg_c_agg_eval *m, int fd)
{
	const struct c_agg *a = cagg_find(m->agg_id);
	struct msg_c_agg_hit hit;
	struct agg_merged mg;
	struct agg_names names;
	struct agg_view v;
	uint32_t n = 0;
	int ret, viewed;

	if (!a)
		return -ENOENT;
	if (m->cond.func >= a->def.nfuncs || m->cond.stat == 0 || m->cond.stat >= AGGC_MAX_STAT ||
	    m->cond.op == 0 || m->cond.op >= AGGC_MAX_OP || m->cond.permille >= 1000)
		return -EINVAL;
	ret = cagg_merge(a, &mg);
	if (ret < 0)
		return ret;
	cagg_names(a, &names);
	ret = agg_view_merged(&v, &mg, &names);
	viewed = ret == 0;
	for (uint32_t i = 0; !ret && i < v.n && n < m->max; i++) {
		struct agg_ventry e;

		if (agg_view_entry(&v, i, &e) < 0 || !cond_eval(&m->cond, &v, &e, &hit))
			continue;
		cond_key(&v, &e, hit.key, sizeof(hit.key));
		if (write_all(fd, &hit, sizeof(hit)) < 0)
			ret = -EIO;
		n++;
	}
	if (viewed)
		agg_view_free(&v);
	agg_merged_free(&mg);
	return ret;
}

uint32_t cagg_ids(uint64_t *ids, uint32_t max)
{
	uint32_t n = 0;

	for (const struct c_agg *a = c_aggs; a && n < max; a = a->next)
		ids[n++] = a->id;
	return n;
}
