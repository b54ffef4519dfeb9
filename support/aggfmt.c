// SPDX-License-Identifier: MIT
/*
 * aggfmt.c - printing aggregations (aggfmt.h has both formats).
 *
 * Everything is printed from a view (struct agg_view): one text printer,
 * one JSON printer, whatever the source. A view of merged results reads
 * their entries in key order and gives each histogram as its non-empty
 * buckets, as the JSON form has them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "support/aggfmt.h"
#include "support/json.h"
#include "support/aggmerge.h"

static const char *const fn_names[AGG_NFN] = {
	"count", "sum", "min", "max", "avg", "quantize", "lquantize",
};

const char *agg_fn_name(unsigned int fn)
{
	return fn < AGG_NFN ? fn_names[fn] : NULL;
}

static int64_t s64_at(const char *e, uint32_t off)
{
	return (int64_t)agg_u64(e, off);
}

static int is_hist(const struct agg_func *f)
{
	return f->fn == AGG_QUANTIZE || f->fn == AGG_LQUANTIZE;
}

uint32_t agg_hist_buckets(const struct agg_def *d, const struct agg_geom *g, unsigned int i)
{
	if (d->f[i].fn == AGG_QUANTIZE)
		return AGG_QBUCKETS;
	if (d->f[i].fn == AGG_LQUANTIZE)
		return g->nbuckets[i] + 2;
	return 0;
}

int agg_fn_label(const struct agg_def *d, const struct agg_names *n, unsigned int i,
		 char **label)
{
	const struct agg_func *f = &d->f[i];
	int k;

	if (f->fn == AGG_COUNT || !n->arg[i])
		k = asprintf(label, "%s", fn_names[f->fn]);
	else
		k = asprintf(label, "%s(%s)", fn_names[f->fn], n->arg[i]);
	if (k < 0) {
		*label = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The labels of @v's functions (freed with labels_free()). */
static int labels_get(const struct agg_view *v, char *label[AGG_MAX_FUNCS])
{
	memset(label, 0, AGG_MAX_FUNCS * sizeof(*label));
	for (unsigned int i = 0; i < v->def.nfuncs; i++)
		if (agg_fn_label(&v->def, &v->names, i, &label[i]))
			return -ENOMEM;
	return 0;
}

static void labels_free(char *label[AGG_MAX_FUNCS])
{
	for (unsigned int i = 0; i < AGG_MAX_FUNCS; i++)
		free(label[i]);
}

void agg_bucket_range(const struct agg_def *d, const struct agg_geom *g, unsigned int i,
		      uint32_t b, int64_t *lo, int64_t *hi, int *open_lo, int *open_hi)
{
	const struct agg_func *f = &d->f[i];

	*open_lo = *open_hi = 0;
	if (f->fn == AGG_QUANTIZE) {
		agg_qrange(b, lo, hi);
		return;
	}
	if (b == 0) {
		*open_lo = 1;
		*lo = INT64_MIN;
		*hi = (int64_t)((uint64_t)f->lo - 1);	/* lo = INT64_MIN: never filled */
	} else if (b >= g->nbuckets[i] + 1) {
		*open_hi = 1;
		*lo = f->hi;
		*hi = INT64_MAX;
	} else {
		*lo = f->lo + (int64_t)(b - 1) * f->step;
		/* the last one may be cut short by hi; no overflow near INT64_MAX */
		*hi = f->hi - 1 - *lo < f->step - 1 ? f->hi - 1 : *lo + f->step - 1;
	}
}

int agg_vkey_cmp(const struct agg_def *d, const struct agg_ventry *a,
		 const struct agg_ventry *b)
{
	for (unsigned int k = 0; k < d->nkeys; k++) {
		int c;

		if (d->key_kind[k] == AGG_KEY_STR) {
			c = strcmp(a->key[k].s, b->key[k].s);
		} else {
			int64_t p = a->key[k].i, q = b->key[k].i;

			c = (p > q) - (p < q);
		}
		if (c)
			return c;
	}
	return 0;
}

/* ---- views of merged results ------------------------------------------------ */

/* Compare the keys of two entries of @m (qsort_r). */
static int key_cmp(const void *a, const void *b, void *arg)
{
	const struct agg_merged *m = arg;
	const char *x = agg_entry(m, *(const uint32_t *)a), *y = agg_entry(m, *(const uint32_t *)b);

	for (unsigned int k = 0; k < m->def->nkeys; k++) {
		uint32_t off = m->geom.key_off[k];
		int c;

		if (m->def->key_kind[k] == AGG_KEY_STR) {
			c = strncmp(x + off, y + off, AGG_STR_KEY - 1);
		} else {
			int64_t p = s64_at(x, off), q = s64_at(y, off);

			c = (p > q) - (p < q);
		}
		if (c)
			return c;
	}
	return 0;
}

static int merged_entry(struct agg_view *v, uint32_t j, struct agg_ventry *e)
{
	const struct agg_merged *m = v->src;
	const struct agg_def *d = &v->def;
	const char *en = agg_entry(m, v->ix[j]);
	struct agg_vbucket *bk = v->bk;

	for (unsigned int k = 0; k < d->nkeys; k++) {
		if (d->key_kind[k] == AGG_KEY_STR) {
			/* at most AGG_STR_KEY - 1 bytes, NUL-terminated here */
			memcpy(v->skey[k], en + m->geom.key_off[k], AGG_STR_KEY - 1);
			v->skey[k][AGG_STR_KEY - 1] = 0;
			e->key[k].s = v->skey[k];
		} else {
			e->key[k].i = s64_at(en, m->geom.key_off[k]);
		}
	}
	for (unsigned int i = 0; i < d->nfuncs; i++) {
		const char *p = en + m->geom.val_off[i];
		struct agg_vval *val = &e->val[i];
		uint32_t nb = agg_hist_buckets(d, &m->geom, i);

		memset(val, 0, sizeof(*val));
		switch (d->f[i].fn) {
		case AGG_COUNT:
		case AGG_SUM:
			val->v = s64_at(p, 0);
			val->set = 1;
			break;
		case AGG_MIN:
		case AGG_MAX:
			val->v = s64_at(p, 0);
			val->set = agg_u64(p, 8) != 0;
			break;
		case AGG_AVG:
			val->set = agg_u64(p, 8) != 0;
			if (val->set)
				val->avg = (double)s64_at(p, 0) / (double)agg_u64(p, 8);
			break;
		default:
			val->b = bk;
			for (uint32_t b = 0; b < nb; b++) {
				uint64_t c = agg_u64(p, 8 * b);

				if (!c)
					continue;
				bk->b = b;
				bk->count = c;
				bk++;
				val->nb++;
			}
			break;
		}
	}
	return 0;
}

int agg_view_merged(struct agg_view *v, struct agg_merged *m, const struct agg_names *n)
{
	size_t nbk = 0;

	memset(v, 0, sizeof(*v));
	v->names = *n;
	v->def = *m->def;
	v->geom = m->geom;
	v->updates = m->updates;
	v->dropped = m->dropped;
	v->lost = m->lost;
	v->torn = m->torn;
	v->n = m->n;
	v->entry = merged_entry;
	v->src = m;
	for (unsigned int i = 0; i < v->def.nfuncs; i++)
		nbk += agg_hist_buckets(&v->def, &v->geom, i);
	v->ix = malloc((m->n ? m->n : 1) * sizeof(*v->ix));
	v->bk = malloc((nbk ? nbk : 1) * sizeof(*v->bk));
	if (!v->ix || !v->bk) {
		agg_view_free(v);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->n; i++)
		v->ix[i] = i;
	qsort_r(v->ix, m->n, sizeof(*v->ix), key_cmp, m);
	return 0;
}

void agg_view_free(struct agg_view *v)
{
	free(v->ix);
	free(v->bk);
	v->ix = NULL;
	v->bk = NULL;
}

int agg_view_entry(struct agg_view *v, uint32_t i, struct agg_ventry *e)
{
	return v->entry(v, i, e);
}

/* ---- text ------------------------------------------------------------------- */

static void text_hist(FILE *out, const struct agg_view *v, unsigned int i,
		      const struct agg_vval *val)
{
	uint32_t nb = agg_hist_buckets(&v->def, &v->geom, i), first, last, k = 0;
	uint64_t total = 0;

	for (uint32_t j = 0; j < val->nb; j++)
		total += val->b[j].count;
	fprintf(out, "           value  ------------- Distribution ------------- count\n");
	if (!total)
		return;
	first = val->b[0].b;
	last = val->b[val->nb - 1].b;
	first = first ? first - 1 : 0;
	last = last + 1 < nb ? last + 1 : last;
	for (uint32_t b = first; b <= last; b++) {
		uint64_t c = 0;
		unsigned int bar;
		double share;
		int64_t lo, hi;
		int ol, oh;
		char at[41];

		while (k < val->nb && val->b[k].b < b)
			k++;
		if (k < val->nb && val->b[k].b == b)
			c = val->b[k].count;
		/* counts of a damaged table may add up to less than one of them */
		share = 40.0 * (double)c / (double)total;
		bar = share >= 40 ? 40 : (unsigned int)share;
		agg_bucket_range(&v->def, &v->geom, i, b, &lo, &hi, &ol, &oh);
		memset(at, '@', bar);
		memset(at + bar, ' ', 40 - bar);
		at[40] = 0;
		if (ol)
			fprintf(out, "        < %6" PRId64 " |%s %" PRIu64 "\n", v->def.f[i].lo, at,
				c);
		else if (oh)
			fprintf(out, "       >= %6" PRId64 " |%s %" PRIu64 "\n", lo, at, c);
		else
			fprintf(out, "%16" PRId64 " |%s %" PRIu64 "\n", lo, at, c);
	}
}

int agg_view_text(FILE *out, struct agg_view *v)
{
	const struct agg_def *d = &v->def;
	const struct agg_names *n = &v->names;
	struct agg_ventry *e = malloc(sizeof(*e));
	char *label[AGG_MAX_FUNCS];
	int rc = labels_get(v, label);

	if (!e || rc) {
		rc = -ENOMEM;
		goto out;
	}
	fprintf(out, "%s  %s  (%" PRIu64 " updates, %" PRIu64 " keys dropped, %" PRIu64
		" lost, %" PRIu64 " tables torn)\n", n->name, n->event, v->updates, v->dropped,
		v->lost, v->torn);
	for (uint32_t j = 0; j < v->n; j++) {
		const char *sep = "  ";

		rc = agg_view_entry(v, j, e);
		if (rc)
			break;
		for (unsigned int k = 0; k < d->nkeys; k++) {
			if (d->key_kind[k] == AGG_KEY_STR) {
				fprintf(out, "%s%s = ", sep, n->key[k]);
				for (const char *c = e->key[k].s; *c; c++)
					fputc((unsigned char)*c < 32 || *c == 127 ? '?' : *c, out);
			} else {
				fprintf(out, "%s%s = %" PRId64, sep, n->key[k], e->key[k].i);
			}
			sep = ", ";
		}
		fprintf(out, "%s\n    ", d->nkeys ? "" : "  (all)");
		sep = "";
		for (unsigned int i = 0; i < d->nfuncs; i++) {
			const struct agg_vval *val = &e->val[i];

			switch (d->f[i].fn) {
			case AGG_COUNT:
			case AGG_SUM:
			case AGG_MIN:
			case AGG_MAX:
				if (val->set)
					fprintf(out, "%s%s = %" PRId64, sep, label[i], val->v);
				else
					fprintf(out, "%s%s = -", sep, label[i]);
				break;
			case AGG_AVG:
				if (val->set)
					fprintf(out, "%s%s = %.6g", sep, label[i], val->avg);
				else
					fprintf(out, "%s%s = -", sep, label[i]);
				break;
			default:
				continue;
			}
			sep = ", ";
		}
		fputc('\n', out);
		for (unsigned int i = 0; i < d->nfuncs; i++) {
			if (!is_hist(&d->f[i]))
				continue;
			fprintf(out, "    %s\n", label[i]);
			text_hist(out, v, i, &e->val[i]);
		}
	}
	if (!rc && ferror(out))
		rc = -EIO;
out:
	labels_free(label);
	free(e);
	return rc;
}

int agg_print_text(FILE *out, struct agg_merged *m, const struct agg_names *n)
{
	struct agg_view v;
	int rc = agg_view_merged(&v, m, n);

	if (rc)
		return rc;
	rc = agg_view_text(out, &v);
	agg_view_free(&v);
	return rc;
}

/* ---- JSON ------------------------------------------------------------------- */

/* A JSON string of @s: valid UTF-8 whatever its bytes (aggfmt.h). */
static void json_str(FILE *out, const char *s)
{
	js_put_str(out, s, strlen(s));
}

/* The shortest of %.15g, %.16g, %.17g that reads back as @d. */
static void json_double(FILE *out, double d)
{
	char tmp[40];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	fputs(tmp, out);
}

static void json_hist(FILE *out, const struct agg_view *v, unsigned int i,
		      const struct agg_vval *val)
{
	fputc('[', out);
	for (uint32_t j = 0; j < val->nb; j++) {
		int64_t lo, hi;
		int ol, oh;

		agg_bucket_range(&v->def, &v->geom, i, val->b[j].b, &lo, &hi, &ol, &oh);
		fputs(j ? ",{\"lo\":" : "{\"lo\":", out);
		if (ol)
			fputs("null", out);
		else
			fprintf(out, "%" PRId64, lo);
		fputs(",\"hi\":", out);
		if (oh)
			fputs("null", out);
		else
			fprintf(out, "%" PRId64, hi);
		fprintf(out, ",\"count\":%" PRIu64 "}", val->b[j].count);
	}
	fputc(']', out);
}

/* "key_types" and "functions": the definition. */
static void json_def(FILE *out, const struct agg_view *v)
{
	const struct agg_def *d = &v->def;

	fputs(",\"key_types\":[", out);
	for (unsigned int k = 0; k < d->nkeys; k++)
		fprintf(out, "%s\"%s\"", k ? "," : "",
			d->key_kind[k] == AGG_KEY_STR ? "str" : "int");
	fputs("],\"functions\":[", out);
	for (unsigned int i = 0; i < d->nfuncs; i++) {
		const struct agg_func *f = &d->f[i];

		fprintf(out, "%s{\"fn\":\"%s\"", i ? "," : "", fn_names[f->fn]);
		if (f->fn != AGG_COUNT && v->names.arg[i]) {
			fputs(",\"field\":", out);
			json_str(out, v->names.arg[i]);
		}
		if (f->fn == AGG_LQUANTIZE)
			fprintf(out, ",\"lo\":%" PRId64 ",\"hi\":%" PRId64 ",\"step\":%" PRId32,
				f->lo, f->hi, f->step);
		fputc('}', out);
	}
	fputc(']', out);
}

int agg_view_json(FILE *out, struct agg_view *v)
{
	const struct agg_def *d = &v->def;
	const struct agg_names *n = &v->names;
	struct agg_ventry *e = malloc(sizeof(*e));
	char *label[AGG_MAX_FUNCS];
	int rc = labels_get(v, label);

	if (!e || rc) {
		rc = -ENOMEM;
		goto out;
	}
	fputs("{\"name\":", out);
	json_str(out, n->name);
	fputs(",\"event\":", out);
	json_str(out, n->event);
	fputs(",\"keys\":[", out);
	for (unsigned int k = 0; k < d->nkeys; k++) {
		if (k)
			fputc(',', out);
		json_str(out, n->key[k]);
	}
	fputc(']', out);
	json_def(out, v);
	fprintf(out, ",\"updates\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"torn\":%" PRIu64 ",\"entries\":[", v->updates, v->dropped, v->lost, v->torn);
	for (uint32_t j = 0; j < v->n; j++) {
		rc = agg_view_entry(v, j, e);
		if (rc)
			break;
		fputs(j ? ",{\"key\":[" : "{\"key\":[", out);
		for (unsigned int k = 0; k < d->nkeys; k++) {
			if (k)
				fputc(',', out);
			if (d->key_kind[k] == AGG_KEY_STR)
				json_str(out, e->key[k].s);
			else
				fprintf(out, "%" PRId64, e->key[k].i);
		}
		fputc(']', out);
		for (unsigned int i = 0; i < d->nfuncs; i++) {
			const struct agg_vval *val = &e->val[i];

			fputc(',', out);
			json_str(out, label[i]);
			fputc(':', out);
			switch (d->f[i].fn) {
			case AGG_COUNT:
			case AGG_SUM:
			case AGG_MIN:
			case AGG_MAX:
				if (val->set)
					fprintf(out, "%" PRId64, val->v);
				else
					fputs("null", out);
				break;
			case AGG_AVG:
				if (val->set)
					json_double(out, val->avg);
				else
					fputs("null", out);
				break;
			default:
				json_hist(out, v, i, val);
				break;
			}
		}
		fputc('}', out);
	}
	fputs("]}", out);
	if (!rc && ferror(out))
		rc = -EIO;
out:
	labels_free(label);
	free(e);
	return rc;
}

int agg_print_json(FILE *out, struct agg_merged *m, const struct agg_names *n)
{
	struct agg_view v;
	int rc = agg_view_merged(&v, m, n);

	if (rc)
		return rc;
	rc = agg_view_json(out, &v);
	agg_view_free(&v);
	if (!rc) {
		fputc('\n', out);
		rc = ferror(out) ? -EIO : 0;
	}
	return rc;
}

/* ---- aggregations.json ---------------------------------------------------------- */

void agg_json_begin(struct agg_json_writer *w, FILE *out)
{
	w->out = out;
	w->n = 0;
	fputs("[\n", out);
}

int agg_json_add_view(struct agg_json_writer *w, struct agg_view *v)
{
	if (w->n++)
		fputs(",\n", w->out);
	return agg_view_json(w->out, v);
}

int agg_json_add(struct agg_json_writer *w, struct agg_merged *m, const struct agg_names *n)
{
	struct agg_view v;
	int rc = agg_view_merged(&v, m, n);

	if (rc)
		return rc;
	rc = agg_json_add_view(w, &v);
	agg_view_free(&v);
	return rc;
}

int agg_json_end(struct agg_json_writer *w)
{
	fputs(w->n ? "\n]\n" : "]\n", w->out);
	return ferror(w->out) ? -EIO : 0;
}
