// SPDX-License-Identifier: MIT
/*
 * aggcond.c - conditions on an aggregation's values per key (aggcond.h).
 *
 * Invariants: parsing reads only the text given, bounded by its NUL, and
 * refuses anything it does not take whole; binding checks the function
 * index against the definition; evaluation reads only what the view gives
 * (the merged results of the consumer, checked before they were merged)
 * and computes a percentile's rank without overflow (128-bit product).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/aggcond.h"
#include "support/units.h"

static const char *const stat_names[AGGC_MAX_STAT] = {
	[AGGC_COUNT] = "count", [AGGC_SUM] = "sum", [AGGC_MIN] = "min",
	[AGGC_MAX] = "max", [AGGC_AVG] = "avg",
};

static const char *skip(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

#define WHY(...)	(snprintf(why, len, __VA_ARGS__), -EINVAL)

int aggcond_parse(const char *text, struct proto_agg_cond *c, char *why, size_t len)
{
	const char *p = skip(text), *q;
	char word[64], num[64];
	size_t n;
	int neg = 0, ret;
	uint64_t v;

	memset(c, 0, sizeof(*c));
	for (q = p; (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '.'; q++)
		;
	n = (size_t)(q - p);
	if (!n || n >= sizeof(word))
		return WHY("a statistic first: count, sum, min, max, avg or pNN");
	memcpy(word, p, n);
	word[n] = 0;
	for (unsigned int s = AGGC_COUNT; s < AGGC_PCT; s++)
		if (!strcmp(word, stat_names[s]))
			c->stat = s;
	if (!c->stat && word[0] == 'p') {
		/* pNN or pNN.N: per mille 1..999 */
		unsigned int whole = 0, tenth = 0, digits = 0;
		const char *d = word + 1;

		while (*d >= '0' && *d <= '9' && digits < 3)
			whole = whole * 10 + (unsigned int)(*d++ - '0'), digits++;
		if (digits && *d == '.' && d[1] >= '0' && d[1] <= '9' && !d[2]) {
			tenth = (unsigned int)(d[1] - '0');
			d += 2;
		}
		if (!digits || *d || whole * 10 + tenth == 0 || whole * 10 + tenth >= 1000)
			return WHY("'%s': a percentile is p1 to p99.9 (e.g. p99, p99.9)", word);
		c->stat = AGGC_PCT;
		c->permille = whole * 10 + tenth;
	}
	if (!c->stat)
		return WHY("'%s': not a statistic (count, sum, min, max, avg, pNN)", word);
	p = skip(q);
	if (*p == '(') {
		p = skip(p + 1);
		for (q = p; *q && *q != ')' && *q != ' '; q++)
			;
		n = (size_t)(q - p);
		if (!n || n >= sizeof(c->field))
			return WHY("a field name in parentheses, at most %zu bytes", sizeof(c->field) - 1);
		memcpy(c->field, p, n);
		p = skip(q);
		if (*p != ')')
			return WHY("')' expected after the field");
		p = skip(p + 1);
	}
	if (p[0] == '>' && p[1] == '=')
		c->op = AGGC_GE, p += 2;
	else if (p[0] == '<' && p[1] == '=')
		c->op = AGGC_LE, p += 2;
	else if (p[0] == '=' && p[1] == '=')
		c->op = AGGC_EQ, p += 2;
	else if (p[0] == '!' && p[1] == '=')
		c->op = AGGC_NE, p += 2;
	else if (p[0] == '>')
		c->op = AGGC_GT, p++;
	else if (p[0] == '<')
		c->op = AGGC_LT, p++;
	else
		return WHY("a comparison expected after '%s': > >= < <= == !=", word);
	if (c->stat == AGGC_PCT && (c->op == AGGC_EQ || c->op == AGGC_NE))
		return WHY("a percentile compares with > >= < <= only");
	p = skip(p);
	if (*p == '-') {
		neg = 1;
		p++;
	}
	for (q = p; *q && *q != ' ' && *q != '\t'; q++)
		;
	n = (size_t)(q - p);
	if (!n || n >= sizeof(num) || *skip(q))
		return WHY("one value expected at the end: a number, or a duration (5ms, 2s)");
	memcpy(num, p, n);
	num[n] = 0;
	ret = units_duration(num, &v);
	if (ret == -EDOM || (ret < 0 && num[strspn(num, "0123456789")] == 0)) {
		char *end;

		errno = 0;
		v = strtoull(num, &end, 10);
		ret = errno || *end ? -ERANGE : 0;
	}
	if (ret < 0 || v > (uint64_t)INT64_MAX)
		return WHY("'%s': a whole number, or a duration with its unit (%s)", num,
			   UNITS_DURATION_HELP);
	c->value = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* Is function @f of @d (its field @field) what @c names? */
static int fn_is(const struct proto_agg_cond *c, const struct agg_def *d, unsigned int i,
		 const char (*names)[32], unsigned int nnames)
{
	const struct agg_func *f = &d->f[i];
	int want;

	switch (c->stat) {
	case AGGC_COUNT: want = f->fn == AGG_COUNT; break;
	case AGGC_SUM: want = f->fn == AGG_SUM; break;
	case AGGC_MIN: want = f->fn == AGG_MIN; break;
	case AGGC_MAX: want = f->fn == AGG_MAX; break;
	case AGGC_AVG: want = f->fn == AGG_AVG; break;
	default: want = f->fn == AGG_QUANTIZE || f->fn == AGG_LQUANTIZE; break;
	}
	if (!want || !c->field[0])
		return want;
	return f->fn != AGG_COUNT && f->field < nnames && !strncmp(names[f->field], c->field, 32);
}

int aggcond_bind(struct proto_agg_cond *c, const struct agg_def *d,
		 const char (*names)[32], unsigned int nnames, char *why, size_t len)
{
	for (unsigned int i = 0; i < d->nfuncs && i < AGG_MAX_FUNCS; i++) {
		if (fn_is(c, d, i, names, nnames)) {
			c->func = i;
			return 0;
		}
	}
	/* count: a histogram's total will do */
	for (unsigned int i = 0; c->stat == AGGC_COUNT && !c->field[0] && i < d->nfuncs &&
	     i < AGG_MAX_FUNCS; i++) {
		if (d->f[i].fn == AGG_QUANTIZE || d->f[i].fn == AGG_LQUANTIZE) {
			c->func = i;
			return 0;
		}
	}
	snprintf(why, len, "the aggregation has no %s%s%s%s", c->stat == AGGC_PCT ?
		 "quantize or lquantize" : stat_names[c->stat], c->field[0] ? "(" : "",
		 c->field, c->field[0] ? ")" : "");
	return -ENOENT;
}
