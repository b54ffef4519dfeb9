/* SPDX-License-Identifier: MIT */
/*
 * jwrite.c - the JSON writer of tracectl (jwrite.h): compact, one
 * document; strings made valid JSON and valid UTF-8 whatever they hold.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "support/json.h"
#include "jwrite.h"

void jw_init(struct jw *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

/* Before a value: the comma that separates it from the one before. */
static void jw_value(struct jw *w)
{
	if (w->keyed)
		w->keyed = false;
	else if (w->more[w->depth])
		fputc(',', w->out);
	w->more[w->depth] = true;
}

static void jw_open(struct jw *w, char c)
{
	jw_value(w);
	fputc(c, w->out);
	if (++w->depth >= JW_DEPTH)
		abort();
	w->more[w->depth] = false;
}

static void jw_close(struct jw *w, char c)
{
	fputc(c, w->out);
	w->depth--;
}

void jw_obj(struct jw *w)
{
	jw_open(w, '{');
}

void jw_end(struct jw *w)
{
	jw_close(w, '}');
}

void jw_arr(struct jw *w)
{
	jw_open(w, '[');
}

void jw_end_arr(struct jw *w)
{
	jw_close(w, ']');
}

void jw_key(struct jw *w, const char *k)
{
	jw_value(w);
	js_put_str(w->out, k, strlen(k));
	fputc(':', w->out);
	w->keyed = true;
}

void jw_strn(struct jw *w, const char *s, size_t n)
{
	jw_value(w);
	js_put_str(w->out, s, n);
}

void jw_str(struct jw *w, const char *s)
{
	jw_strn(w, s, strlen(s));
}

void jw_u64(struct jw *w, uint64_t v)
{
	jw_value(w);
	fprintf(w->out, "%" PRIu64, v);
}

void jw_s64(struct jw *w, int64_t v)
{
	jw_value(w);
	fprintf(w->out, "%" PRId64, v);
}

void jw_bool(struct jw *w, bool v)
{
	jw_value(w);
	fputs(v ? "true" : "false", w->out);
}

void jw_null(struct jw *w)
{
	jw_value(w);
	fputs("null", w->out);
}

void jw_raw(struct jw *w, const char *json, size_t len)
{
	jw_value(w);
	/* a line break is white space between tokens: a string holds none raw */
	for (size_t i = 0; i < len; i++)
		if (json[i] != '\n' && json[i] != '\r')
			fputc(json[i], w->out);
}

void jw_kstr(struct jw *w, const char *k, const char *s)
{
	jw_key(w, k);
	jw_str(w, s);
}

void jw_kstr_or_null(struct jw *w, const char *k, const char *s)
{
	jw_key(w, k);
	if (s && s[0])
		jw_str(w, s);
	else
		jw_null(w);
}

void jw_ku64(struct jw *w, const char *k, uint64_t v)
{
	jw_key(w, k);
	jw_u64(w, v);
}

void jw_ks64(struct jw *w, const char *k, int64_t v)
{
	jw_key(w, k);
	jw_s64(w, v);
}

void jw_kbool(struct jw *w, const char *k, bool v)
{
	jw_key(w, k);
	jw_bool(w, v);
}

void jw_knull(struct jw *w, const char *k)
{
	jw_key(w, k);
	jw_null(w);
}

void jw_kobj(struct jw *w, const char *k)
{
	jw_key(w, k);
	jw_obj(w);
}

void jw_karr(struct jw *w, const char *k)
{
	jw_key(w, k);
	jw_arr(w);
}
