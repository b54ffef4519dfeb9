// SPDX-License-Identifier: MIT
/*
 * aggjson.c - aggregations.json read back into views (aggjson.h).
 *
 * The whole document is checked when read: every aggregation's definition,
 * then every entry, decoded as it will be printed. Printing decodes the
 * entries again, one at a time, from the parsed document (in order: a
 * cursor keeps the last one found), so that a view costs no memory per
 * entry beyond the parser's nodes.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/aggjson.h"
#include "support/json.h"

/* One aggregation read. */
struct jagg {
	struct agg_view v;			/* what agg_json_view() hands out */
	const struct js_doc *js;
	const struct js_node *entries;		/* the array */
	const struct js_node *cur;		/* entry cur_i, NULL before the first */
	uint32_t cur_i;
	char *label[AGG_MAX_FUNCS];		/* member names of the values */
	unsigned int occ[AGG_MAX_FUNCS];	/* ... and which of the same name */
	uint32_t bkoff[AGG_MAX_FUNCS];		/* each histogram's room in v.bk */
};

struct agg_json_doc {
	struct js_doc *js;
	struct jagg *a;
	uint32_t n;
};

/* Where errors go (errlen 0: nowhere). */
struct ctx {
	const struct js_doc *js;
	char *err;
	size_t errlen;
};

static int bad(const struct ctx *c, const struct js_node *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(const struct ctx *c, const struct js_node *at, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (!c->errlen)
		return -EINVAL;
	k = snprintf(c->err, c->errlen, "offset %u: ", at->off);
	if (k >= 0 && (size_t)k < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + k, c->errlen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const char *const type_names[] = {
	"null", "false", "true", "a number", "a string", "an array", "an object",
};

/* The one member @name of object @obj, of type @type. */
static int member(const struct ctx *c, const struct js_node *obj, const char *what,
		  const char *name, enum js_type type, const struct js_node **out)
{
	unsigned int k;
	const struct js_node *m = js_member(c->js, obj, name, &k);

	if (!k)
		return bad(c, obj, "%s: no \"%s\"", what, name);
	if (k > 1) {
		const struct js_node *again = js_next(c->js, obj, m);

		while (again->name_len != m->name_len ||
		       memcmp(js_name(c->js, again), name, m->name_len))
			again = js_next(c->js, obj, again);
		return bad(c, again, "%s: \"%s\" more than once", what, name);
	}
	if (m->type != type)
		return bad(c, m, "%s: \"%s\" is %s, not %s", what, name, type_names[m->type],
			   type_names[type]);
	*out = m;
	return 0;
}

static int get_s64(const struct ctx *c, const struct js_node *n, const char *what, int64_t *v)
{
	if (n->type != JS_NUM || n->num != JS_INT_S64)
		return bad(c, n, "%s: not an integer of 64 bits", what);
	*v = n->v.i;
	return 0;
}

static int get_u64(const struct ctx *c, const struct js_node *n, const char *what, uint64_t *v)
{
	if (n->type == JS_NUM && n->num == JS_INT_U64)
		*v = n->v.u;
	else if (n->type == JS_NUM && n->num == JS_INT_S64 && n->v.i >= 0)
		*v = (uint64_t)n->v.i;
	else
		return bad(c, n, "%s: not an unsigned integer of 64 bits", what);
	return 0;
}

/* A string that C can print: no NUL in it. */
static int get_cstr(const struct ctx *c, const struct js_node *n, const char *what,
		    const char **s)
{
	if (n->type != JS_STR)
		return bad(c, n, "%s: not a string", what);
	*s = js_str(c->js, n);
	if (strlen(*s) != n->len)
		return bad(c, n, "%s: a NUL in a string", what);
	return 0;
}

static int member_s64(const struct ctx *c, const struct js_node *obj, const char *what,
		      const char *name, int64_t *v)
{
	const struct js_node *m;
	int rc = member(c, obj, what, name, JS_NUM, &m);

	return rc ? rc : get_s64(c, m, name, v);
}

static int member_u64(const struct ctx *c, const struct js_node *obj, const char *what,
		      const char *name, uint64_t *v)
{
	const struct js_node *m;
	int rc = member(c, obj, what, name, JS_NUM, &m);

	return rc ? rc : get_u64(c, m, name, v);
}

static int member_cstr(const struct ctx *c, const struct js_node *obj, const char *what,
		       const char *name, const char **s)
{
	const struct js_node *m;
	int rc = member(c, obj, what, name, JS_STR, &m);

	return rc ? rc : get_cstr(c, m, name, s);
}

/* ---- entries ----------------------------------------------------------------- */

/* An integer bound of a bucket, or null (*@open). */
static int bound(const struct ctx *c, const struct js_node *bk, const char *name, int64_t *v,
		 int *open)
{
	unsigned int k;
	const struct js_node *m = js_member(c->js, bk, name, &k);

	if (!k)
		return bad(c, bk, "bucket: no \"%s\"", name);
	if (k > 1)
		return member(c, bk, "bucket", name, JS_NULL, &m);	/* says where */
	*open = m->type == JS_NULL;
	*v = 0;
	return *open ? 0 : get_s64(c, m, name, v);
}

/* Histogram @i of @a from array @arr into @val (buckets in a->v.bk). */
static int hist(const struct ctx *c, struct jagg *a, unsigned int i, const struct js_node *arr,
		struct agg_vval *val)
{
	const struct agg_view *v = &a->v;
	const struct agg_func *f = &v->def.f[i];
	uint32_t nb = agg_hist_buckets(&v->def, &v->geom, i);
	struct agg_vbucket *out = v->bk + a->bkoff[i];

	val->b = out;
	for (const struct js_node *bk = js_child(c->js, arr); bk; bk = js_next(c->js, arr, bk)) {
		int64_t lo, hi, rlo, rhi;
		int lo_open, hi_open, ol, oh, rc;
		uint64_t count;
		uint32_t b;

		if (bk->type != JS_OBJ)
			return bad(c, bk, "bucket: not an object");
		rc = bound(c, bk, "lo", &lo, &lo_open);
		if (!rc)
			rc = bound(c, bk, "hi", &hi, &hi_open);
		if (!rc)
			rc = member_u64(c, bk, "bucket", "count", &count);
		if (rc)
			return rc;
		if (f->fn == AGG_QUANTIZE)
			b = lo_open ? nb : agg_qbucket(lo);
		else
			b = lo_open ? 0 : agg_lbucket(f, lo);
		if (b < nb)
			agg_bucket_range(&v->def, &v->geom, i, b, &rlo, &rhi, &ol, &oh);
		if (b >= nb || lo_open != ol || hi_open != oh || (!ol && lo != rlo) ||
		    (!oh && hi != rhi))
			return bad(c, bk, "bucket: not one of the histogram's");
		if (!count)
			return bad(c, bk, "bucket: empty (only non-empty buckets are listed)");
		if (val->nb && b <= out[val->nb - 1].b)
			return bad(c, bk, "bucket: not after the one before");
		out[val->nb].b = b;
		out[val->nb].count = count;
		val->nb++;
	}
	return 0;
}

/* The value of function @i: the occ[i]-th member named label[i]. */
static const struct js_node *value_of(const struct ctx *c, const struct jagg *a,
				      const struct js_node *en, unsigned int i)
{
	size_t k = strlen(a->label[i]);
	unsigned int seen = 0;

	for (const struct js_node *m = js_child(c->js, en); m; m = js_next(c->js, en, m)) {
		const char *name = js_name(c->js, m);

		if (m->name_len == k && !memcmp(name, a->label[i], k) && seen++ == a->occ[i])
			return m;
	}
	return NULL;
}

/* Entry object @en into @e, checked. */
static int entry(const struct ctx *c, struct jagg *a, const struct js_node *en,
		 struct agg_ventry *e)
{
	const struct agg_def *d = &a->v.def;
	const struct js_node *key, *k;
	int rc;

	if (en->type != JS_OBJ)
		return bad(c, en, "entry: not an object");
	rc = member(c, en, "entry", "key", JS_ARR, &key);
	if (rc)
		return rc;
	if (key->len != d->nkeys)
		return bad(c, key, "entry: %u key values for %u keys", key->len, d->nkeys);
	k = js_child(c->js, key);
	for (unsigned int j = 0; j < d->nkeys; j++, k = js_next(c->js, key, k)) {
		if (d->key_kind[j] == AGG_KEY_INT) {
			rc = get_s64(c, k, "key", &e->key[j].i);
		} else {
			rc = get_cstr(c, k, "key", &e->key[j].s);
			if (!rc && k->len > AGG_STR_KEY - 1)
				rc = bad(c, k, "key: longer than %d bytes", AGG_STR_KEY - 1);
		}
		if (rc)
			return rc;
	}
	for (unsigned int i = 0; i < d->nfuncs; i++) {
		const struct js_node *m = value_of(c, a, en, i);
		struct agg_vval *val = &e->val[i];
		const char *fn = agg_fn_name(d->f[i].fn);

		memset(val, 0, sizeof(*val));
		if (!m)
			return bad(c, en, "entry: no value of function %u (%s)", i + 1, fn);
		switch (d->f[i].fn) {
		case AGG_COUNT:
		case AGG_SUM:
			val->set = 1;
			rc = get_s64(c, m, fn, &val->v);
			break;
		case AGG_MIN:
		case AGG_MAX:
			val->set = m->type != JS_NULL;
			rc = val->set ? get_s64(c, m, fn, &val->v) : 0;
			break;
		case AGG_AVG:
			val->set = m->type != JS_NULL;
			if (!val->set)
				break;
			if (m->type != JS_NUM)
				return bad(c, m, "avg: not a number");
			val->avg = js_double(m);
			if (!isfinite(val->avg))
				return bad(c, m, "avg: out of range");
			break;
		default:
			if (m->type != JS_ARR)
				return bad(c, m, "%s: not an array", fn);
			rc = hist(c, a, i, m, val);
			break;
		}
		if (rc)
			return rc;
	}
	return 0;
}

#define JAGG(view) ((struct jagg *)(void *)((char *)(view) - offsetof(struct jagg, v)))

static int json_entry(struct agg_view *v, uint32_t i, struct agg_ventry *e)
{
	struct jagg *a = JAGG(v);
	const struct ctx c = { .js = a->js };
	const struct js_node *en;

	if (i >= v->n)
		return -EINVAL;
	if (a->cur && a->cur_i == i) {
		en = a->cur;
	} else if (a->cur && a->cur_i + 1 == i) {
		en = js_next(a->js, a->entries, a->cur);
	} else {
		en = js_child(a->js, a->entries);
		for (uint32_t j = 0; j < i; j++)
			en = js_next(a->js, a->entries, en);
	}
	a->cur = en;
	a->cur_i = i;
	return entry(&c, a, en, e);
}

/* ---- aggregations -------------------------------------------------------------- */

static int functions(const struct ctx *c, struct jagg *a, const struct js_node *obj)
{
	struct agg_def *d = &a->v.def;
	const struct js_node *fns, *f;
	int rc = member(c, obj, "aggregation", "functions", JS_ARR, &fns);

	if (rc)
		return rc;
	if (!fns->len || fns->len > AGG_MAX_FUNCS)
		return bad(c, fns, "functions: %u of them (1 to %d)", fns->len, AGG_MAX_FUNCS);
	d->nfuncs = (uint8_t)fns->len;
	f = js_child(c->js, fns);
	for (unsigned int i = 0; i < d->nfuncs; i++, f = js_next(c->js, fns, f)) {
		struct agg_func *af = &d->f[i];
		const char *fn;
		unsigned int k, j;
		const struct js_node *field;
		int64_t step;

		if (f->type != JS_OBJ)
			return bad(c, f, "function: not an object");
		rc = member_cstr(c, f, "function", "fn", &fn);
		if (rc)
			return rc;
		for (j = 0; j < AGG_NFN && strcmp(fn, agg_fn_name(j)); j++)
			;
		if (j == AGG_NFN)
			return bad(c, f, "function: unknown \"fn\"");
		af->fn = (uint8_t)j;
		field = js_member(c->js, f, "field", &k);
		if (k > 1)
			return bad(c, field, "function: \"field\" more than once");
		if (k && af->fn != AGG_COUNT) {
			rc = get_cstr(c, field, "field", &a->v.names.arg[i]);
			if (rc)
				return rc;
		}
		if (af->fn != AGG_LQUANTIZE)
			continue;
		rc = member_s64(c, f, "lquantize", "lo", &af->lo);
		if (!rc)
			rc = member_s64(c, f, "lquantize", "hi", &af->hi);
		if (!rc)
			rc = member_s64(c, f, "lquantize", "step", &step);
		if (rc)
			return rc;
		if (step <= 0 || step > INT32_MAX)
			return bad(c, f, "lquantize: step out of range");
		af->step = (int32_t)step;
	}
	if (agg_geom(d, &a->v.geom))
		return bad(c, fns, "functions: not accepted (an lquantize range or step, or too "
			   "many buckets)");
	return 0;
}

static int keys(const struct ctx *c, struct jagg *a, const struct js_node *obj)
{
	struct agg_def *d = &a->v.def;
	const struct js_node *names, *types, *n, *t;
	int rc = member(c, obj, "aggregation", "keys", JS_ARR, &names);

	if (!rc)
		rc = member(c, obj, "aggregation", "key_types", JS_ARR, &types);
	if (rc)
		return rc;
	if (names->len > AGG_MAX_KEYS)
		return bad(c, names, "keys: more than %d", AGG_MAX_KEYS);
	if (types->len != names->len)
		return bad(c, types, "key_types: %u of them for %u keys", types->len, names->len);
	d->nkeys = (uint8_t)names->len;
	n = js_child(c->js, names);
	t = js_child(c->js, types);
	for (unsigned int k = 0; k < d->nkeys; k++) {
		const char *kind;

		rc = get_cstr(c, n, "keys", &a->v.names.key[k]);
		if (!rc)
			rc = get_cstr(c, t, "key_types", &kind);
		if (rc)
			return rc;
		if (!strcmp(kind, "int"))
			d->key_kind[k] = AGG_KEY_INT;
		else if (!strcmp(kind, "str"))
			d->key_kind[k] = AGG_KEY_STR;
		else
			return bad(c, t, "key_types: neither \"int\" nor \"str\"");
		n = js_next(c->js, names, n);
		t = js_next(c->js, types, t);
	}
	return 0;
}

/* Aggregation object @obj into @a, every entry checked. */
static int aggregation(const struct ctx *c, struct jagg *a, const struct js_node *obj)
{
	struct agg_view *v = &a->v;
	struct agg_ventry *e = NULL, *prev = NULL;
	const struct js_node *en;
	size_t nbk = 0;
	uint32_t i;
	int rc;

	if (obj->type != JS_OBJ)
		return bad(c, obj, "aggregation: not an object");
	a->js = c->js;
	v->entry = json_entry;
	v->src = a;
	rc = member_cstr(c, obj, "aggregation", "name", &v->names.name);
	if (!rc)
		rc = member_cstr(c, obj, "aggregation", "event", &v->names.event);
	if (!rc)
		rc = keys(c, a, obj);
	if (!rc)
		rc = functions(c, a, obj);
	if (!rc)
		rc = member_u64(c, obj, "aggregation", "updates", &v->updates);
	if (!rc)
		rc = member_u64(c, obj, "aggregation", "dropped", &v->dropped);
	if (!rc)
		rc = member_u64(c, obj, "aggregation", "lost", &v->lost);
	if (!rc)
		rc = member_u64(c, obj, "aggregation", "torn", &v->torn);
	if (!rc)
		rc = member(c, obj, "aggregation", "entries", JS_ARR, &a->entries);
	if (rc)
		return rc;
	v->n = a->entries->len;
	for (i = 0; i < v->def.nfuncs; i++) {
		unsigned int j;

		if (agg_fn_label(&v->def, &v->names, i, &a->label[i]))
			return -ENOMEM;
		for (j = 0; j < i; j++)
			a->occ[i] += !strcmp(a->label[j], a->label[i]);
		a->bkoff[i] = (uint32_t)nbk;
		nbk += agg_hist_buckets(&v->def, &v->geom, i);
	}
	v->bk = malloc((nbk ? nbk : 1) * sizeof(*v->bk));
	e = malloc(2 * sizeof(*e));
	if (!v->bk || !e) {
		free(e);
		return -ENOMEM;
	}
	en = js_child(c->js, a->entries);
	for (i = 0; en; en = js_next(c->js, a->entries, en), i++) {
		struct agg_ventry *cur = &e[i & 1];

		rc = entry(c, a, en, cur);
		if (rc)
			break;
		if (prev && agg_vkey_cmp(&v->def, prev, cur) >= 0) {
			rc = bad(c, en, "entry: key not after the one before (entries are in "
				 "ascending key order, each key once)");
			break;
		}
		prev = cur;
	}
	free(e);
	return rc;
}

static void jagg_free(struct jagg *a)
{
	agg_view_free(&a->v);
	for (unsigned int i = 0; i < AGG_MAX_FUNCS; i++)
		free(a->label[i]);
}

int agg_json_read(struct agg_json_doc **doc, const char *text, size_t len, char *err,
		  size_t errlen)
{
	struct agg_json_doc *d = calloc(1, sizeof(*d));
	const struct js_node *root, *obj;
	struct ctx c = { .err = err, .errlen = errlen };
	uint32_t i = 0;
	int rc;

	*doc = NULL;
	if (!d) {
		if (errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = js_parse(&d->js, text, len, NULL, err, errlen);
	if (rc)
		goto fail;
	c.js = d->js;
	root = js_root(d->js);
	if (root->type != JS_ARR) {
		rc = bad(&c, root, "not an array of aggregations");
		goto fail;
	}
	d->a = calloc(root->len ? root->len : 1, sizeof(*d->a));
	if (!d->a) {
		rc = -ENOMEM;
		goto fail;
	}
	for (obj = js_child(d->js, root); obj; obj = js_next(d->js, root, obj), i++) {
		d->n = i + 1;		/* freed from here on */
		rc = aggregation(&c, &d->a[i], obj);
		if (rc)
			goto fail;
	}
	*doc = d;
	return 0;
fail:
	if (rc == -ENOMEM && errlen)
		snprintf(err, errlen, "out of memory");
	agg_json_free(d);
	return rc;
}

uint32_t agg_json_count(const struct agg_json_doc *doc)
{
	return doc->n;
}

struct agg_view *agg_json_view(struct agg_json_doc *doc, uint32_t i)
{
	return i < doc->n ? &doc->a[i].v : NULL;
}

void agg_json_free(struct agg_json_doc *doc)
{
	if (!doc)
		return;
	for (uint32_t i = 0; i < doc->n; i++)
		jagg_free(&doc->a[i]);
	free(doc->a);
	js_free(doc->js);
	free(doc);
}
