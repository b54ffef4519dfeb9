/* SPDX-License-Identifier: MIT */
/*
 * reader-columns.c - the columns of <shmtrace/reader.h>: the selected
 * events of a reader, many per call, written into arrays the caller owns
 * (one 64-bit slot and one type code per field and event), with strings
 * interned into one table of codes.
 *
 * Built on the public accessors of the reader and on the selection of
 * trace-read (reader-select.c), so that both keep the same events.
 *
 * Invariants:
 *  - per (trace, event class) a struct cols_class, made at the class's
 *    first selected event: which field each column reads (a reference of
 *    sel_field_ref(), a "NAME_sym" of such a reference, or none), for the
 *    columns that existed then (columns added later are none for it: a
 *    column is added at the first class that has its field), the codes of
 *    its event name and process name, and the layout answered by
 *    shmtrace_rd_cols_class_fields();
 *  - the string table holds each distinct byte run once: offs[k] ..
 *    offs[k + 1] in data is entry k, and the hash table (open addressing,
 *    at most half full) holds k + 1 for each k, 0 for an empty slot;
 *  - columns, selection and mode change only before the first read
 *    (c->started); an event read whose class brought columns the caller
 *    has no buffer for is kept in c->pending for the next call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmtrace/reader.h>
#include "reader-select.h"

#define COLS_MAX 4096
#define REF_NONE INT32_MIN
/* a "NAME_sym" column of field reference f >= 0 is stored as -1 - f */
#define REF_SYM(f) (-1 - (f))
#define STR_MAX_ENTRIES 0xfffffffeu

struct cols_class {
	bool bound;
	uint32_t id;
	uint32_t name_code, proc_code;
	int64_t pid;
	bool per_event;		/* the trace names no process (LTTng's per-user
				 * buffers): pid and proc from each event's
				 * vpid and procname context fields */
	uint32_t nref;		/* columns bound */
	int32_t *ref;		/* [nref]: REF_NONE, a reference, or REF_SYM() */
	int32_t *layout;	/* see shmtrace_rd_cols_class_fields() */
	size_t nlayout;
};

struct shmtrace_rd_columns {
	struct shmtrace_rd_reader *r;
	struct shmtrace_rd_symbols *syms;
	struct sel *sel;
	bool all, started, done, any_sym;
	int err;
	const struct shmtrace_rd_event *pending;

	char **names;		/* [ncols] */
	uint32_t *seen;		/* [ncols] */
	size_t ncols, capcols;

	struct cols_class **cls;	/* [trace][class + 1] */
	size_t *ncls, ntr;
	struct cols_class **byid;	/* [nids] */
	size_t nids, capids;

	char *data;
	size_t len, cap;
	uint64_t *offs;		/* [nstr + 1] */
	uint64_t *hashes;	/* [nstr] */
	size_t nstr, capstr;
	uint32_t *slots;	/* [nslots], a power of 2 */
	size_t nslots;
};

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h ^ n;
}

static int str_grow_slots(struct shmtrace_rd_columns *c)
{
	size_t n = c->nslots ? 2 * c->nslots : 1024;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t k = 0; k < c->nstr; k++) {
		size_t i = c->hashes[k] & (n - 1);

		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = (uint32_t)k + 1;
	}
	free(c->slots);
	c->slots = s;
	c->nslots = n;
	return 0;
}

/* The code of the byte run @p, @n (added when new): >= 0, or -errno. */
static int64_t str_code(struct shmtrace_rd_columns *c, const void *p, size_t n)
{
	uint64_t h = hash_bytes(p, n);
	size_t i;

	if (!c->nslots)
		if (str_grow_slots(c) < 0)
			return -ENOMEM;
	for (i = h & (c->nslots - 1); c->slots[i]; i = (i + 1) & (c->nslots - 1)) {
		size_t k = c->slots[i] - 1;

		if (c->hashes[k] == h && c->offs[k + 1] - c->offs[k] == n &&
		    !memcmp(c->data + c->offs[k], p, n))
			return (int64_t)k;
	}
	if (c->nstr >= STR_MAX_ENTRIES)
		return -E2BIG;
	if (c->nstr + 1 >= c->capstr) {
		size_t cap = c->capstr ? 2 * c->capstr : 256;
		uint64_t *o = realloc(c->offs, (cap + 1) * sizeof(*o));
		uint64_t *hs = o ? realloc(c->hashes, cap * sizeof(*hs)) : NULL;

		if (o)
			c->offs = o;
		if (!hs)
			return -ENOMEM;
		c->hashes = hs;
		c->capstr = cap;
	}
	if (n > c->cap - c->len) {
		size_t cap = c->cap ? c->cap : 4096;
		char *d;

		while (cap - c->len < n) {
			if (cap > SIZE_MAX / 2)
				return -ENOMEM;
			cap *= 2;
		}
		d = realloc(c->data, cap);
		if (!d)
			return -ENOMEM;
		c->data = d;
		c->cap = cap;
	}
	if (n)
		memcpy(c->data + c->len, p, n);
	c->len += n;
	c->hashes[c->nstr] = h;
	c->offs[c->nstr + 1] = c->len;
	c->slots[i] = (uint32_t)++c->nstr;
	if (2 * c->nstr > c->nslots && str_grow_slots(c) < 0)
		return -ENOMEM;
	return (int64_t)(c->nstr - 1);
}

int shmtrace_rd_cols_open(struct shmtrace_rd_columns **out, struct shmtrace_rd_reader *r,
			  struct shmtrace_rd_symbols *syms)
{
	struct shmtrace_rd_columns *c;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!r)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->offs = calloc(1, sizeof(*c->offs));
	c->sel = sel_new();
	if (!c->offs || !c->sel) {
		shmtrace_rd_cols_close(c);
		return -ENOMEM;
	}
	c->capstr = 0;
	c->r = r;
	c->syms = syms;
	*out = c;
	return 0;
}

void shmtrace_rd_cols_close(struct shmtrace_rd_columns *c)
{
	if (!c)
		return;
	for (size_t t = 0; t < c->ntr; t++) {
		for (size_t k = 0; c->cls[t] && k <= c->ncls[t]; k++) {
			free(c->cls[t][k].ref);
			free(c->cls[t][k].layout);
		}
		free(c->cls[t]);
	}
	free(c->cls);
	free(c->ncls);
	free(c->byid);
	for (size_t i = 0; i < c->ncols; i++)
		free(c->names[i]);
	free(c->names);
	free(c->seen);
	free(c->data);
	free(c->offs);
	free(c->hashes);
	free(c->slots);
	sel_free(c->sel);
	free(c);
}

int shmtrace_rd_cols_select_event(struct shmtrace_rd_columns *c, const char *pattern)
{
	if (!c || !pattern || c->started)
		return -EINVAL;
	return sel_add_event(c->sel, pattern);
}

int shmtrace_rd_cols_select_pid(struct shmtrace_rd_columns *c, int64_t pid)
{
	if (!c || c->started)
		return -EINVAL;
	sel_add_pid(c->sel, pid);
	return 0;
}

int shmtrace_rd_cols_select_tid(struct shmtrace_rd_columns *c, uint32_t tid)
{
	if (!c || c->started)
		return -EINVAL;
	sel_add_tid(c->sel, tid);
	return 0;
}

int shmtrace_rd_cols_select_begin(struct shmtrace_rd_columns *c, const char *when)
{
	if (!c || !when || c->started)
		return -EINVAL;
	return sel_set_begin(c->sel, when) < 0 ? -EINVAL : 0;
}

int shmtrace_rd_cols_select_end(struct shmtrace_rd_columns *c, const char *when)
{
	if (!c || !when || c->started)
		return -EINVAL;
	return sel_set_end(c->sel, when) < 0 ? -EINVAL : 0;
}

int shmtrace_rd_cols_select_filter(struct shmtrace_rd_columns *c, const char *expr, char *err,
				   size_t errlen)
{
	char msg[160];

	if (!c || !expr || c->started)
		return -EINVAL;
	if (!err) {
		err = msg;
		errlen = sizeof(msg);
	}
	return sel_set_filter(c->sel, expr, err, errlen);
}

const char *shmtrace_rd_cols_filter_unknown(const struct shmtrace_rd_columns *c, unsigned k,
					    const char **near)
{
	const char *dummy;

	return sel_field_missing(c->sel, k, near ? near : &dummy);
}

static int find_col(const struct shmtrace_rd_columns *c, const char *name)
{
	for (size_t i = 0; i < c->ncols; i++)
		if (!strcmp(c->names[i], name))
			return (int)i;
	return -ENOENT;
}

static bool is_sym_name(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, "_sym");
}

/* Add column @name (owned by the caller) when absent: its index, or -errno. */
static int add_col(struct shmtrace_rd_columns *c, const char *name)
{
	int i = find_col(c, name);

	if (i >= 0)
		return i;
	if (c->ncols >= COLS_MAX)
		return -E2BIG;
	if (c->ncols == c->capcols) {
		size_t cap = c->capcols ? 2 * c->capcols : 16;
		char **n = realloc(c->names, cap * sizeof(*n));
		uint32_t *s = n ? realloc(c->seen, cap * sizeof(*s)) : NULL;

		if (n)
			c->names = n;
		if (!s)
			return -ENOMEM;
		c->seen = s;
		c->capcols = cap;
	}
	c->names[c->ncols] = strdup(name);
	if (!c->names[c->ncols])
		return -ENOMEM;
	c->seen[c->ncols] = 0;
	c->any_sym |= is_sym_name(name);
	return (int)c->ncols++;
}

int shmtrace_rd_cols_add(struct shmtrace_rd_columns *c, const char *name)
{
	if (!c || !name || !*name || c->started)
		return -EINVAL;
	return add_col(c, name);
}

int shmtrace_rd_cols_add_all(struct shmtrace_rd_columns *c)
{
	if (!c || c->started)
		return -EINVAL;
	c->all = true;
	return 0;
}

size_t shmtrace_rd_cols_count(const struct shmtrace_rd_columns *c)
{
	return c->ncols;
}

const char *shmtrace_rd_cols_name(const struct shmtrace_rd_columns *c, size_t i)
{
	return i < c->ncols ? c->names[i] : NULL;
}

uint32_t shmtrace_rd_cols_seen(const struct shmtrace_rd_columns *c, size_t i)
{
	return i < c->ncols ? c->seen[i] : 0;
}

size_t shmtrace_rd_cols_string_count(const struct shmtrace_rd_columns *c)
{
	return c->nstr;
}

const uint64_t *shmtrace_rd_cols_string_offsets(const struct shmtrace_rd_columns *c)
{
	return c->offs;
}

const char *shmtrace_rd_cols_string_data(const struct shmtrace_rd_columns *c)
{
	return c->data;
}

long shmtrace_rd_cols_class_fields(const struct shmtrace_rd_columns *c, uint32_t cls,
				   int32_t *idx, size_t max)
{
	const struct cols_class *k;

	if (cls >= c->nids)
		return -EINVAL;
	k = c->byid[cls];
	for (size_t i = 0; i < k->nlayout && i < max; i++)
		idx[i] = k->layout[i];
	return (long)k->nlayout;
}

/* Is field reference @ref of @ev an address (a "NAME_sym" may name it)? */
static bool ref_is_address(const struct shmtrace_rd_event *ev, int ref)
{
	struct shmtrace_rd_value v;

	return sel_field_value(ev, ref, &v) == 0 && shmtrace_rd_value_is_address(&v);
}

/* The field @name of @ev reads: REF_NONE, a reference, or REF_SYM(). */
static int32_t bind_name(const struct shmtrace_rd_columns *c, const struct shmtrace_rd_event *ev,
			 const char *name)
{
	int ref = sel_field_ref(ev, name);
	char base[512];
	size_t n;

	if (ref >= 0)
		return ref;
	if (!c->syms || !is_sym_name(name) || (n = strlen(name) - 4) >= sizeof(base))
		return REF_NONE;
	memcpy(base, name, n);
	base[n] = 0;
	ref = sel_field_ref(ev, base);
	return ref >= 0 && ref_is_address(ev, ref) ? REF_SYM(ref) : REF_NONE;
}

/*
 * Is payload field @i of @ev the length of the sequence right after it
 * ("NAME_length" before NAME)? The length is in the sequence's value: no
 * column of its own in add_all, nor a field in the layout.
 */
static bool is_seq_length(const struct shmtrace_rd_event *ev, unsigned i)
{
	const char *f = shmtrace_rd_event_field_name(ev, i);
	const char *next = shmtrace_rd_event_field_name(ev, i + 1);
	struct shmtrace_rd_value v;
	size_t n;

	if (!f || !next || (n = strlen(f)) <= 7 || strcmp(f + n - 7, "_length") ||
	    strlen(next) != n - 7 || strncmp(f, next, n - 7))
		return false;
	return shmtrace_rd_event_field(ev, i + 1, &v) == 0 && v.kind == SHMTRACE_RD_SEQUENCE;
}

/* add_all: the columns of @ev's fields (see shmtrace_rd_cols_add_all()). */
static int add_fields(struct shmtrace_rd_columns *c, const struct shmtrace_rd_event *ev)
{
	char name[512], sym[520];
	int ret;

	for (int ctx = 1; ctx >= 0; ctx--) {
		unsigned n = sel_event_count(ev, ctx);

		for (unsigned i = 0; i < n; i++) {
			const char *f = ctx ? shmtrace_rd_event_context_name(ev, i) :
					shmtrace_rd_event_field_name(ev, i);
			int ref = 2 * (int)i + ctx;

			if (!f || (!ctx && is_seq_length(ev, i)))
				continue;
			if (ctx && shmtrace_rd_event_field_index(ev, f) >= 0)
				snprintf(name, sizeof(name), "$ctx.%s", f);
			else
				snprintf(name, sizeof(name), "%s", f);
			ret = add_col(c, name);
			if (ret < 0)
				return ret;
			/* "$ctx.ip_sym" beside "$ctx.ip"; none when a field has the name */
			if (!c->syms || !ref_is_address(ev, ref) ||
			    snprintf(sym, sizeof(sym), "%s_sym", f) >= (int)sizeof(sym) ||
			    shmtrace_rd_event_field_index(ev, sym) >= 0 ||
			    shmtrace_rd_event_context_index(ev, sym) >= 0)
				continue;
			snprintf(sym, sizeof(sym), "%s_sym", name);
			ret = add_col(c, sym);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/*
 * The layout of a bound class: for each field in the event's order
 * (context first), the first column that reads it, then the first
 * "NAME_sym" column of it; not the length of a sequence (is_seq_length()).
 */
static int make_layout(struct cols_class *k, const struct shmtrace_rd_event *ev)
{
	size_t n = 0;

	k->layout = malloc((2 * (size_t)k->nref + 1) * sizeof(*k->layout));
	if (!k->layout)
		return -ENOMEM;
	for (int ctx = 1; ctx >= 0; ctx--)
		for (unsigned i = 0; i < sel_event_count(ev, ctx); i++) {
			int32_t ref = 2 * (int32_t)i + ctx;

			if (!ctx && is_seq_length(ev, i))
				continue;
			for (uint32_t col = 0; col < k->nref; col++)
				if (k->ref[col] == ref) {
					k->layout[n++] = 2 * (int32_t)col + ctx;
					break;
				}
			for (uint32_t col = 0; col < k->nref; col++)
				if (k->ref[col] == REF_SYM(ref)) {
					k->layout[n++] = 2 * (int32_t)col + ctx;
					break;
				}
		}
	k->nlayout = n;
	return 0;
}

static int bind_class(struct shmtrace_rd_columns *c, struct cols_class *k,
		      const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	const char *s;
	int64_t code;
	int ret;

	if (c->all) {
		ret = add_fields(c, ev);
		if (ret < 0)
			return ret;
	}
	if (c->nids == c->capids) {
		size_t cap = c->capids ? 2 * c->capids : 64;
		struct cols_class **b = realloc(c->byid, cap * sizeof(*b));

		if (!b)
			return -ENOMEM;
		c->byid = b;
		c->capids = cap;
	}
	k->ref = malloc((c->ncols + 1) * sizeof(*k->ref));
	if (!k->ref)
		return -ENOMEM;
	k->nref = (uint32_t)c->ncols;
	for (size_t col = 0; col < c->ncols; col++)
		k->ref[col] = bind_name(c, ev, c->names[col]);
	ret = make_layout(k, ev);
	if (ret < 0)
		return ret;
	s = shmtrace_rd_event_name(ev);
	code = str_code(c, s, strlen(s));
	if (code < 0)
		return (int)code;
	k->name_code = (uint32_t)code;
	s = shmtrace_rd_trace_procname(t);
	code = str_code(c, s, strlen(s));
	if (code < 0)
		return (int)code;
	k->proc_code = (uint32_t)code;
	k->pid = shmtrace_rd_trace_vpid(t);
	k->per_event = k->pid < 0;
	k->id = (uint32_t)c->nids;
	c->byid[c->nids++] = k;
	k->bound = true;
	return 0;
}

/* The class of @ev, bound (NULL on error, *@err set). */
static struct cols_class *class_of(struct shmtrace_rd_columns *c,
				   const struct shmtrace_rd_event *ev, int *err)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	size_t tr = shmtrace_rd_trace_index(t), ci = shmtrace_rd_event_class_index(ev);
	struct cols_class *k;

	*err = -ENOMEM;
	if (tr >= c->ntr) {
		size_t n = tr + 8;
		struct cols_class **nc = realloc(c->cls, n * sizeof(*nc));
		size_t *nn = nc ? realloc(c->ncls, n * sizeof(*nn)) : NULL;

		if (nc)
			c->cls = nc;
		if (!nn)
			return NULL;
		c->ncls = nn;
		memset(c->cls + c->ntr, 0, (n - c->ntr) * sizeof(*nc));
		memset(c->ncls + c->ntr, 0, (n - c->ntr) * sizeof(*nn));
		c->ntr = n;
	}
	if (!c->cls[tr]) {
		c->ncls[tr] = shmtrace_rd_trace_event_class_count(t);
		c->cls[tr] = calloc(c->ncls[tr] + 1, sizeof(**c->cls));
		if (!c->cls[tr])
			return NULL;
	}
	k = &c->cls[tr][ci < c->ncls[tr] ? ci : c->ncls[tr]];
	if (!k->bound) {
		*err = bind_class(c, k, ev);
		if (*err < 0)
			return NULL;
	}
	return k;
}

static unsigned size_rank(unsigned bytes)
{
	return bytes <= 1 ? 0 : bytes <= 2 ? 1 : bytes <= 4 ? 2 : 3;
}

/* Fill one slot of a column from field reference @ref of @ev. */
static int fill(struct shmtrace_rd_columns *c, const struct shmtrace_rd_event *ev, int32_t ref,
		uint64_t *slot, uint8_t *type)
{
	struct shmtrace_rd_value v;
	struct shmtrace_rd_symbol sym;
	char text[1024];
	int64_t code;
	int n;

	*slot = 0;
	*type = SHMTRACE_RD_COL_NONE;
	if (ref == REF_NONE)
		return 0;
	if (sel_field_value(ev, ref < 0 ? -1 - ref : ref, &v) < 0)
		return 0;
	if (ref < 0) {
		if (!shmtrace_rd_sym_value(c->syms, ev, (-1 - ref) & 1, &v, &sym))
			return 0;
		if (sym.offset)
			n = snprintf(text, sizeof(text), "%s+0x%llx", sym.name,
				     (unsigned long long)sym.offset);
		else
			n = snprintf(text, sizeof(text), "%s", sym.name);
		if (n < 0)
			return 0;
		code = str_code(c, text, (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1);
		if (code < 0)
			return (int)code;
		*slot = (uint64_t)code;
		*type = SHMTRACE_RD_COL_STRING;
		return 0;
	}
	switch (v.kind) {
	case SHMTRACE_RD_INT:
	case SHMTRACE_RD_ENUM:		/* its integer (the label aside) */
		*slot = v.u;
		*type = (uint8_t)((v.is_signed ? SHMTRACE_RD_COL_S8 : SHMTRACE_RD_COL_U8) +
				  size_rank(v.bytes));
		return 0;
	case SHMTRACE_RD_FLOAT:
		memcpy(slot, &v.d, sizeof(*slot));
		*type = v.bytes == 4 ? SHMTRACE_RD_COL_F32 : SHMTRACE_RD_COL_F64;
		return 0;
	case SHMTRACE_RD_STRING:
		code = str_code(c, v.str, v.len);
		*type = SHMTRACE_RD_COL_STRING;
		break;
	case SHMTRACE_RD_SEQUENCE:
	case SHMTRACE_RD_ARRAY:
		code = str_code(c, v.data, (size_t)v.count * v.bytes);
		*type = (uint8_t)((v.is_signed ? SHMTRACE_RD_COL_SEQ_S8 : SHMTRACE_RD_COL_SEQ_U8) +
				  size_rank(v.bytes));
		break;
	default:
		return 0;
	}
	if (code < 0) {
		*type = SHMTRACE_RD_COL_NONE;
		return (int)code;
	}
	*slot = (uint64_t)code;
	return 0;
}

/* Write row @n of every column for @ev of class @k. */
static int put_row(struct shmtrace_rd_columns *c, const struct cols_class *k,
		   const struct shmtrace_rd_event *ev, size_t n,
		   const struct shmtrace_rd_col_out *out, size_t ncols,
		   uint64_t *const *values, uint8_t *const *types)
{
	int64_t code;
	int ret;

	if (out) {
		if (out->time_ns)
			out->time_ns[n] = shmtrace_rd_event_time_ns(ev);
		if (out->pid)
			out->pid[n] = k->per_event ? sel_event_pid(ev) : k->pid;
		if (out->tid)
			out->tid[n] = shmtrace_rd_event_tid(ev);
		if (out->name)
			out->name[n] = k->name_code;
		if (out->proc && k->per_event) {
			const char *p = sel_event_procname(ev);

			code = str_code(c, p, strlen(p));
			if (code < 0)
				return (int)code;
			out->proc[n] = (uint32_t)code;
		} else if (out->proc) {
			out->proc[n] = k->proc_code;
		}
		if (out->cls)
			out->cls[n] = k->id;
	}
	for (size_t col = 0; col < ncols; col++) {
		if (!values[col])
			continue;
		ret = fill(c, ev, col < k->nref ? k->ref[col] : REF_NONE, &values[col][n],
			   &types[col][n]);
		if (ret < 0)
			return ret;
		c->seen[col] |= 1u << types[col][n];
	}
	return 0;
}

long shmtrace_rd_cols_read(struct shmtrace_rd_columns *c, size_t max,
			   const struct shmtrace_rd_col_out *out, size_t ncols,
			   uint64_t *const *values, uint8_t *const *types)
{
	bool selecting;
	size_t n = 0;
	int ret;

	if (!c || ncols > c->ncols || (ncols && (!values || !types)))
		return -EINVAL;
	for (size_t col = 0; col < ncols; col++)
		if (values[col] && !types[col])
			return -EINVAL;
	if (c->err)
		return c->err;
	if (!c->started && sel_window_bad(c->sel))
		return -EINVAL;
	c->started = true;
	selecting = sel_active(c->sel);
	while (n < max && !c->done) {
		const struct shmtrace_rd_event *ev = c->pending;
		struct cols_class *k;
		size_t before = c->ncols;

		if (ev) {
			c->pending = NULL;
		} else {
			ret = shmtrace_rd_next(c->r, &ev);
			if (ret <= 0) {
				c->done = ret == 0;
				c->err = ret;
				break;
			}
			if (c->syms)
				shmtrace_rd_sym_track(c->syms, ev);
			if (selecting) {
				ret = sel_match(c->sel, ev);
				if (ret == 0)
					continue;
				if (ret == 2) {
					c->done = true;
					break;
				}
				if (ret < 0) {
					c->err = ret;
					break;
				}
			}
		}
		k = class_of(c, ev, &ret);
		if (!k) {
			c->err = ret;
			break;
		}
		if (c->ncols > ncols && c->ncols > before) {
			c->pending = ev;
			if (!n)
				return -EAGAIN;
			break;
		}
		ret = put_row(c, k, ev, n, out, ncols, values, types);
		if (ret < 0) {
			c->err = ret;
			break;
		}
		n++;
	}
	if (n)
		return (long)n;
	return c->err;
}
