// SPDX-License-Identifier: MIT
/*
 * aggfmt.c - printing merged aggregations (aggfmt.h has both formats).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "aggfmt.h"

static const char *const fn_names[AGG_NFN] = {
	"count", "sum", "min", "max", "avg", "quantize", "lquantize",
};

static int64_t s64_at(const char *e, uint32_t off)
{
	return (int64_t)agg_u64(e, off);
}

/* Compare the keys of two entries of @m (qsort_r). */
static int key_cmp(const void *a, const void *b, void *arg)
{
	const struct agg_merged *m = arg;
	const char *x = agg_entry(m, *(const uint32_t *)a), *y = agg_entry(m, *(const uint32_t *)b);

	for (unsigned int k = 0; k < m->def->nkeys; k++) {
		uint32_t off = m->geom.key_off[k];
		int c;

		if (m->def->key_kind[k] == AGG_KEY_STR) {
			c = strncmp(x + off, y + off, AGG_STR_KEY);
		} else {
			int64_t p = s64_at(x, off), q = s64_at(y, off);

			c = (p > q) - (p < q);
		}
		if (c)
			return c;
	}
	return 0;
}

static uint32_t *sorted(struct agg_merged *m)
{
	uint32_t *ix = malloc((m->n ? m->n : 1) * sizeof(*ix));

	if (!ix)
		return NULL;
	for (uint32_t i = 0; i < m->n; i++)
		ix[i] = i;
	qsort_r(ix, m->n, sizeof(*ix), key_cmp, m);
	return ix;
}

/* A string key, at most AGG_STR_KEY - 1 bytes, NUL-terminated here. */
static void str_key(const char *e, uint32_t off, char out[AGG_STR_KEY])
{
	memcpy(out, e + off, AGG_STR_KEY - 1);
	out[AGG_STR_KEY - 1] = 0;
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 32 || c == 127)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* Label of function @i: "count", "sum(seq)". */
static void fn_label(const struct agg_merged *m, const struct agg_names *n, unsigned int i,
		     char *buf, size_t len)
{
	const struct agg_func *f = &m->def->f[i];

	if (f->fn == AGG_COUNT || !n->arg[i])
		snprintf(buf, len, "%s", fn_names[f->fn]);
	else
		snprintf(buf, len, "%s(%s)", fn_names[f->fn], n->arg[i]);
}

/* Bucket @b of function @i: its range, and whether either end is open. */
static void bucket_range(const struct agg_func *f, uint32_t nb, uint32_t b, int64_t *lo,
			 int64_t *hi, int *open_lo, int *open_hi)
{
	*open_lo = *open_hi = 0;
	if (f->fn == AGG_QUANTIZE) {
		agg_qrange(b, lo, hi);
		return;
	}
	if (b == 0) {
		*open_lo = 1;
		*hi = f->lo - 1;
		*lo = INT64_MIN;
	} else if (b == nb + 1) {
		*open_hi = 1;
		*lo = f->hi;
		*hi = INT64_MAX;
	} else {
		*lo = f->lo + (int64_t)(b - 1) * f->step;
		*hi = *lo + f->step - 1 < f->hi - 1 ? *lo + f->step - 1 : f->hi - 1;
	}
}

static void text_hist(FILE *out, const struct agg_func *f, const char *p, uint32_t nb)
{
	uint32_t first = UINT32_MAX, last = 0;
	uint64_t total = 0;

	for (uint32_t b = 0; b < nb; b++) {
		uint64_t c = agg_u64(p, 8 * b);

		total += c;
		if (c && first == UINT32_MAX)
			first = b;
		if (c)
			last = b;
	}
	fprintf(out, "           value  ------------- Distribution ------------- count\n");
	if (!total)
		return;
	first = first ? first - 1 : 0;
	last = last + 1 < nb ? last + 1 : last;
	for (uint32_t b = first; b <= last; b++) {
		uint64_t c = agg_u64(p, 8 * b);
		unsigned int bar = (unsigned int)(40.0 * (double)c / (double)total);
		int64_t lo, hi;
		int ol, oh;
		char at[41];

		bucket_range(f, f->fn == AGG_QUANTIZE ? AGG_QBUCKETS : nb - 2, b, &lo, &hi, &ol,
			     &oh);
		memset(at, '@', bar);
		memset(at + bar, ' ', 40 - bar);
		at[40] = 0;
		if (ol)
			fprintf(out, "        < %6" PRId64 " |%s %" PRIu64 "\n", hi + 1, at, c);
		else if (oh)
			fprintf(out, "       >= %6" PRId64 " |%s %" PRIu64 "\n", lo, at, c);
		else
			fprintf(out, "%16" PRId64 " |%s %" PRIu64 "\n", lo, at, c);
	}
}

int agg_print_text(FILE *out, struct agg_merged *m, const struct agg_names *n)
{
	const struct agg_def *d = m->def;
	const struct agg_geom *g = &m->geom;
	uint32_t *ix = sorted(m);

	if (!ix)
		return -ENOMEM;
	fprintf(out, "%s  %s  (%" PRIu64 " updates, %" PRIu64 " keys dropped, %" PRIu64
		" lost, %" PRIu64 " tables torn)\n", n->name, n->event, m->updates, m->dropped,
		m->lost, m->torn);
	for (uint32_t j = 0; j < m->n; j++) {
		const char *e = agg_entry(m, ix[j]);
		const char *sep = "  ";

		for (unsigned int k = 0; k < d->nkeys; k++) {
			char s[AGG_STR_KEY];

			if (d->key_kind[k] == AGG_KEY_STR) {
				str_key(e, g->key_off[k], s);
				for (char *c = s; *c; c++)
					if ((unsigned char)*c < 32 || *c == 127)
						*c = '?';
				fprintf(out, "%s%s = %s", sep, n->key[k], s);
			} else {
				fprintf(out, "%s%s = %" PRId64, sep, n->key[k], s64_at(e, g->key_off[k]));
			}
			sep = ", ";
		}
		fprintf(out, "%s\n    ", d->nkeys ? "" : "  (all)");
		sep = "";
		for (unsigned int i = 0; i < d->nfuncs; i++) {
			const char *p = e + g->val_off[i];
			char label[96];

			fn_label(m, n, i, label, sizeof(label));
			switch (d->f[i].fn) {
			case AGG_COUNT:
			case AGG_SUM:
				fprintf(out, "%s%s = %" PRId64, sep, label, s64_at(p, 0));
				break;
			case AGG_MIN:
			case AGG_MAX:
				if (agg_u64(p, 8))
					fprintf(out, "%s%s = %" PRId64, sep, label, s64_at(p, 0));
				else
					fprintf(out, "%s%s = -", sep, label);
				break;
			case AGG_AVG:
				if (agg_u64(p, 8))
					fprintf(out, "%s%s = %.6g", sep, label,
						(double)s64_at(p, 0) / (double)agg_u64(p, 8));
				else
					fprintf(out, "%s%s = -", sep, label);
				break;
			default:
				continue;
			}
			sep = ", ";
		}
		fputc('\n', out);
		for (unsigned int i = 0; i < d->nfuncs; i++) {
			char label[96];

			if (d->f[i].fn != AGG_QUANTIZE && d->f[i].fn != AGG_LQUANTIZE)
				continue;
			fn_label(m, n, i, label, sizeof(label));
			fprintf(out, "    %s\n", label);
			text_hist(out, &d->f[i], e + g->val_off[i],
				  d->f[i].fn == AGG_QUANTIZE ? AGG_QBUCKETS : g->nbuckets[i] + 2);
		}
	}
	free(ix);
	return ferror(out) ? -EIO : 0;
}

static void json_hist(FILE *out, const struct agg_func *f, const char *p, uint32_t nb)
{
	const char *sep = "";

	fputc('[', out);
	for (uint32_t b = 0; b < nb; b++) {
		uint64_t c = agg_u64(p, 8 * b);
		int64_t lo, hi;
		int ol, oh;

		if (!c)
			continue;
		bucket_range(f, f->fn == AGG_QUANTIZE ? AGG_QBUCKETS : nb - 2, b, &lo, &hi, &ol, &oh);
		fprintf(out, "%s{\"lo\":", sep);
		if (ol)
			fputs("null", out);
		else
			fprintf(out, "%" PRId64, lo);
		fputs(",\"hi\":", out);
		if (oh)
			fputs("null", out);
		else
			fprintf(out, "%" PRId64, hi);
		fprintf(out, ",\"count\":%" PRIu64 "}", c);
		sep = ",";
	}
	fputc(']', out);
}

int agg_print_json(FILE *out, struct agg_merged *m, const struct agg_names *n)
{
	const struct agg_def *d = m->def;
	const struct agg_geom *g = &m->geom;
	uint32_t *ix = sorted(m);

	if (!ix)
		return -ENOMEM;
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
	fprintf(out, "],\"updates\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"torn\":%" PRIu64 ",\"entries\":[", m->updates, m->dropped, m->lost, m->torn);
	for (uint32_t j = 0; j < m->n; j++) {
		const char *e = agg_entry(m, ix[j]);

		fputs(j ? ",{\"key\":[" : "{\"key\":[", out);
		for (unsigned int k = 0; k < d->nkeys; k++) {
			char s[AGG_STR_KEY];

			if (k)
				fputc(',', out);
			if (d->key_kind[k] == AGG_KEY_STR) {
				str_key(e, g->key_off[k], s);
				json_str(out, s);
			} else {
				fprintf(out, "%" PRId64, s64_at(e, g->key_off[k]));
			}
		}
		fputc(']', out);
		for (unsigned int i = 0; i < d->nfuncs; i++) {
			const char *p = e + g->val_off[i];
			char label[96];

			fn_label(m, n, i, label, sizeof(label));
			fputc(',', out);
			json_str(out, label);
			fputc(':', out);
			switch (d->f[i].fn) {
			case AGG_COUNT:
			case AGG_SUM:
				fprintf(out, "%" PRId64, s64_at(p, 0));
				break;
			case AGG_MIN:
			case AGG_MAX:
				if (agg_u64(p, 8))
					fprintf(out, "%" PRId64, s64_at(p, 0));
				else
					fputs("null", out);
				break;
			case AGG_AVG:
				if (agg_u64(p, 8))
					fprintf(out, "%.17g", (double)s64_at(p, 0) / (double)agg_u64(p, 8));
				else
					fputs("null", out);
				break;
			default:
				json_hist(out, &d->f[i], p, d->f[i].fn == AGG_QUANTIZE ?
					  AGG_QBUCKETS : g->nbuckets[i] + 2);
				break;
			}
		}
		fputc('}', out);
	}
	fputs("]}\n", out);
	free(ix);
	return ferror(out) ? -EIO : 0;
}
