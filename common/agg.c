// SPDX-License-Identifier: MIT
/*
 * agg.c - aggregation tables: their geometry and their writer, which runs
 * in the traced thread (agg.h has the layout and the protocol). Their
 * readers are support/aggmerge.c.
 *
 * Invariants:
 * - A table has one writer, its owner thread, which updates it with plain
 *   stores inside an odd sequence number (release fences around the
 *   changes); nothing else writes it. A crash at any point leaves either a
 *   consistent table (even seq) or one with at most the update in progress
 *   half applied (odd seq): readers merge it and count it as torn.
 * - An entry's tag is written last when a key is inserted; the probe
 *   sequence is linear and never longer than the capacity; a key that
 *   finds every slot taken is dropped and counted, so that
 *   updates applied + dropped = updates asked.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "common/agg.h"

static uint32_t fn_values(const struct agg_func *f, uint32_t *nbuckets)
{
	*nbuckets = 0;
	switch (f->fn) {
	case AGG_COUNT:
	case AGG_SUM:
		return 1;
	case AGG_MIN:
	case AGG_MAX:
	case AGG_AVG:
		return 2;
	case AGG_QUANTIZE:
		*nbuckets = AGG_QBUCKETS;
		return AGG_QBUCKETS;
	case AGG_LQUANTIZE: {
		int64_t span;

		if (f->step <= 0 || f->hi <= f->lo ||
		    __builtin_sub_overflow(f->hi, f->lo, &span) ||
		    (span + f->step - 1) / f->step > AGG_MAX_LBUCKETS)
			return 0;
		*nbuckets = (uint32_t)((span + f->step - 1) / f->step);
		return *nbuckets + 2;
	}
	default:
		return 0;
	}
}

int agg_geom(const struct agg_def *d, struct agg_geom *g)
{
	uint32_t off = AGG_ENTRY_KEY;

	memset(g, 0, sizeof(*g));
	if (d->nkeys > AGG_MAX_KEYS || d->nfuncs == 0 || d->nfuncs > AGG_MAX_FUNCS)
		return -EINVAL;
	for (unsigned int i = 0; i < d->nkeys; i++) {
		if (d->key_kind[i] != AGG_KEY_INT && d->key_kind[i] != AGG_KEY_STR)
			return -EINVAL;
		g->key_off[i] = off;
		off += d->key_kind[i] == AGG_KEY_STR ? AGG_STR_KEY : 8;
	}
	g->key_bytes = off - AGG_ENTRY_KEY;
	for (unsigned int i = 0; i < d->nfuncs; i++) {
		uint32_t n = fn_values(&d->f[i], &g->nbuckets[i]);

		if (!n)
			return -EINVAL;
		g->val_off[i] = off;
		off += 8 * n;
	}
	if (off > AGG_MAX_ENTRY)
		return -EINVAL;
	g->entry_size = off;
	return 0;
}

uint32_t agg_def_hash(const struct agg_def *d)
{
	const unsigned char *p = (const unsigned char *)d;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < sizeof(*d); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

size_t agg_table_size(const struct agg_geom *g, uint32_t capacity)
{
	return AGG_HDR + (size_t)capacity * g->entry_size;
}

void agg_table_init(void *mem, const struct agg_def *d, const struct agg_geom *g,
		    uint32_t capacity)
{
	struct agg_hdr *h = mem;

	h->magic = AGG_MAGIC;
	h->version = AGG_VERSION;
	h->capacity = capacity;
	h->entry_size = g->entry_size;
	h->def_hash = agg_def_hash(d);
}

/* The plan's update (shmtrace.h) writes this table format. */
_Static_assert(SHMTRACE__AGG_OPS == AGG_MAX_FUNCS && AGG_HDR == 64 && AGG_ENTRY_KEY == 8 &&
	       AGG_QBUCKETS == 129, "plan layout");
_Static_assert(offsetof(struct agg_hdr, used) == 24, "plan used");
_Static_assert(sizeof(struct shmtrace__aggop) == 8 && sizeof(struct shmtrace__aggp) == 128,
	       "plan size");

int agg_plan(const struct agg_def *d, const struct agg_geom *g, void *table, uint32_t capacity,
	     unsigned int nfields, int key, const int8_t *asrc, struct shmtrace__aggp *out)
{
	memset(out, 0, sizeof(*out));
	if (d->nkeys != 1 || d->key_kind[0] != AGG_KEY_INT || g->key_bytes != 8 ||
	    d->nfuncs > AGG_MAX_FUNCS || !capacity || (capacity & (capacity - 1)) ||
	    nfields > UINT8_MAX || key < 0 || (unsigned int)key >= nfields)
		return -EINVAL;
	for (unsigned int k = 0; k < d->nfuncs; k++) {
		uint8_t field = (uint8_t)(asrc[k] < 0 ? nfields : (unsigned int)asrc[k]);

		if (d->f[k].fn > AGG_QUANTIZE || asrc[k] < -1 || asrc[k] >= (int)nfields ||
		    g->val_off[k] < AGG_ENTRY_KEY)
			return -EINVAL;
		if (d->f[k].fn == AGG_COUNT && !out->count_off) {
			out->count_off = g->val_off[k];
		} else if (d->f[k].fn == AGG_QUANTIZE && !out->quant_off) {
			out->quant_off = g->val_off[k];
			out->quant_field = field;
		} else {
			static const uint8_t what[AGG_LQUANTIZE] = {
				[AGG_COUNT] = 0, [AGG_SUM] = SHMTRACE__AGG_V,
				[AGG_MIN] = SHMTRACE__AGG_MIN, [AGG_MAX] = SHMTRACE__AGG_MAX,
				[AGG_AVG] = SHMTRACE__AGG_V | SHMTRACE__AGG_AVG,
				[AGG_QUANTIZE] = SHMTRACE__AGG_Q,
			};

			out->op[out->nops].what = what[d->f[k].fn];
			out->op[out->nops].field = field;
			out->op[out->nops++].off = g->val_off[k];
		}
	}
	out->key = (uint8_t)key;
	out->table = table;
	out->mask = capacity - 1;
	out->entry_size = g->entry_size;
	out->probes = capacity < AGG_MAX_PROBE ? capacity : AGG_MAX_PROBE;
	return 0;
}

const char *const agg_profile_sums[AGG_PROFILE_NSUMS] = {
	"$calls", "$total_ns", "$self_ns", "$bytes", "$allocs", "$bytes_total", "$allocs_total",
};

enum agg_role agg_profile_role(const char *provider, const char *name)
{
	static const char *const allocs[] = {
		"malloc", "calloc", "realloc", "memalign", "posix_memalign", "aligned_alloc",
		"valloc", "pvalloc",
	};

	if (!strcmp(provider, "shmtrace_func"))
		return !strcmp(name, "entry") ? AGG_ROLE_ENTRY :
		       !strcmp(name, "exit") ? AGG_ROLE_EXIT : AGG_ROLE_NONE;
	if (strcmp(provider, "shmtrace_libc"))
		return AGG_ROLE_NONE;
	for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++)
		if (!strcmp(name, allocs[i]))
			return AGG_ROLE_ALLOC;
	return AGG_ROLE_NONE;
}

void agg_qrange(unsigned int b, int64_t *lo, int64_t *hi)
{
	const unsigned int z = AGG_QBUCKETS / 2;

	if (b == z) {
		*lo = *hi = 0;
	} else if (b > z) {
		unsigned int lg = b - z - 1;

		*lo = (int64_t)(1ull << lg);
		*hi = lg == 63 ? INT64_MAX : (int64_t)((1ull << (lg + 1)) - 1);
	} else {
		unsigned int lg = z - 1 - b;

		*hi = lg == 63 ? INT64_MIN : -(int64_t)(1ull << lg);
		*lo = lg == 63 ? INT64_MIN : -(int64_t)((1ull << (lg + 1)) - 1);
	}
}

unsigned int agg_lbucket(const struct agg_func *f, int64_t v)
{
	uint32_t n;

	fn_values(f, &n);
	if (v < f->lo)
		return 0;
	if (v >= f->hi)
		return n + 1;
	return 1 + (unsigned int)(((uint64_t)v - (uint64_t)f->lo) / (uint64_t)f->step);
}

static inline int64_t arg_int(const struct flt_value *vals, unsigned int nvals, unsigned int i)
{
	if (i >= nvals)
		return 0;
	switch (vals[i].type) {
	case FLT_T_S64:
		return vals[i].s;
	case FLT_T_U64:
	case FLT_T_BOOL:
		return (int64_t)vals[i].u;
	case FLT_T_F64:
		return vals[i].d >= 9.2e18 ? INT64_MAX : vals[i].d <= -9.2e18 ? INT64_MIN :
		       (int64_t)vals[i].d;
	default:
		return 0;
	}
}

/* The key bytes of this event into @key (g->key_bytes). */
static void make_key(const struct agg_def *d, const struct agg_geom *g,
		     const struct flt_value *vals, unsigned int nvals, char *key)
{
	for (unsigned int i = 0; i < d->nkeys; i++) {
		char *k = key + g->key_off[i] - AGG_ENTRY_KEY;
		unsigned int f = d->key_field[i];

		if (d->key_kind[i] == AGG_KEY_STR) {
			const char *s = f < nvals && vals[f].type == FLT_T_STR && vals[f].str ?
					vals[f].str : "";

			memset(k, 0, AGG_STR_KEY);
			for (unsigned int j = 0; j < AGG_STR_KEY - 1 && s[j]; j++)
				k[j] = s[j];
		} else {
			uint64_t v = (uint64_t)arg_int(vals, nvals, f);

			memcpy(k, &v, 8);
		}
	}
}

_Static_assert(AGG_STR_KEY % 8 == 0, "keys are whole words");

int agg_update(void *table, const struct agg_def *d, const struct agg_geom *g,
	       const struct flt_value *vals, unsigned int nvals)
{
	char key[AGG_MAX_KEYS * AGG_STR_KEY];
	int64_t args[AGG_MAX_FUNCS];

	make_key(d, g, vals, nvals, key);
	for (unsigned int k = 0; k < d->nfuncs && k < AGG_MAX_FUNCS; k++)
		args[k] = arg_int(vals, nvals, d->f[k].field);
	return agg_update_key(table, d, g, key, args) ? -ENOSPC : 0;
}
