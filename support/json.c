// SPDX-License-Identifier: MIT
/*
 * json.c - a strict JSON parser (json.h has what it accepts), and the
 * writer of a JSON string that every JSON output of shmtrace shares.
 *
 * Invariants:
 * - Nodes are made in document order (pre-order): the first member of an
 *   array or object is the node right after it, and a value's descendants
 *   are the nodes up to its "end", so that walking never needs a pointer
 *   and never recurses.
 * - Strings are decoded in the copy of the input, where they were: a
 *   decoded string is never longer than its JSON form, and the closing
 *   quote leaves room for a NUL.
 * - The input is read once, left to right; every read is bounded by its
 *   length; the stack of open arrays and objects has max_depth entries.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "support/json.h"

#define JS_MAX_NUMBER	1024	/* characters of a number literal */
#define NO_NAME		UINT32_MAX

struct js_doc {
	char *buf;			/* the input, copied, NUL-terminated; strings decoded */
	struct js_node *nodes;
	uint32_t n, cap;
};

struct parser {
	struct js_doc *d;
	char *s;			/* d->buf */
	size_t len, pos;
	struct js_limits lim;
	uint32_t *stack, depth;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, int rc, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct parser *p, int rc, size_t off, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (!p->errlen)
		return rc;
	k = snprintf(p->err, p->errlen, "offset %zu: ", off);
	if (k >= 0 && (size_t)k < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len) {
		char c = p->s[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

/* A new node at the current offset, member of the open array or object. */
static int new_node(struct parser *p, enum js_type type, uint32_t name, uint32_t name_len,
		    struct js_node **out)
{
	struct js_doc *d = p->d;
	struct js_node *n;

	if (d->n == p->lim.max_nodes)
		return fail(p, -E2BIG, p->pos, "more than %u values", p->lim.max_nodes);
	if (d->n == d->cap) {
		uint32_t cap = d->cap ? 2 * d->cap : 64;
		struct js_node *nn;

		if (cap > p->lim.max_nodes || cap < d->cap)
			cap = p->lim.max_nodes;
		nn = realloc(d->nodes, (size_t)cap * sizeof(*nn));
		if (!nn)
			return fail(p, -ENOMEM, p->pos, "out of memory");
		d->nodes = nn;
		d->cap = cap;
	}
	if (p->depth)
		d->nodes[p->stack[p->depth - 1]].len++;
	n = &d->nodes[d->n];
	memset(n, 0, sizeof(*n));
	n->type = (uint8_t)type;
	n->off = (uint32_t)p->pos;
	n->name = name;
	n->name_len = name_len;
	d->n++;
	n->end = d->n;
	*out = n;
	return 0;
}

static int hex4(const char *s, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

size_t js_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t k;
	uint32_t cp, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		k = 2;
		cp = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		k = 3;
		cp = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		k = 4;
		cp = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

static size_t put_utf8(char *w, uint32_t cp)
{
	if (cp < 0x80) {
		w[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		w[0] = (char)(0xc0 | cp >> 6);
		w[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		w[0] = (char)(0xe0 | cp >> 12);
		w[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		w[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	w[0] = (char)(0xf0 | cp >> 18);
	w[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	w[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	w[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * The string whose opening quote is at p->pos, decoded in place: its bytes
 * start at *@start, *@len of them. p->pos ends after the closing quote.
 */
static int string(struct parser *p, uint32_t *start, uint32_t *len)
{
	size_t q = p->pos, r = q + 1, w = q + 1;
	char *s = p->s;

	for (;;) {
		unsigned char c;

		if (r >= p->len)
			return fail(p, -EINVAL, q, "string not terminated");
		c = (unsigned char)s[r];
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(p, -EINVAL, r, "control character in a string");
		if (c >= 0x80) {
			size_t k = js_utf8_len((const unsigned char *)s + r, p->len - r);

			if (!k)
				return fail(p, -EINVAL, r, "not UTF-8");
			memmove(s + w, s + r, k);
			w += k;
			r += k;
			continue;
		}
		if (c != '\\') {
			s[w++] = (char)c;
			r++;
			continue;
		}
		if (r + 1 >= p->len)
			return fail(p, -EINVAL, q, "string not terminated");
		switch (s[r + 1]) {
		case '"':  s[w++] = '"';  break;
		case '\\': s[w++] = '\\'; break;
		case '/':  s[w++] = '/';  break;
		case 'b':  s[w++] = '\b'; break;
		case 'f':  s[w++] = '\f'; break;
		case 'n':  s[w++] = '\n'; break;
		case 'r':  s[w++] = '\r'; break;
		case 't':  s[w++] = '\t'; break;
		case 'u': {
			uint32_t cp, lo;

			if (p->len - r < 6 || hex4(s + r + 2, &cp))
				return fail(p, -EINVAL, r, "bad \\u escape");
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (p->len - r < 12 || s[r + 6] != '\\' || s[r + 7] != 'u' ||
				    hex4(s + r + 8, &lo) || lo < 0xdc00 || lo > 0xdfff)
					return fail(p, -EINVAL, r, "lone surrogate \\u%04x", cp);
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				r += 6;
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				if (cp < 0xdc80 || cp > 0xdcff)
					return fail(p, -EINVAL, r, "lone surrogate \\u%04x", cp);
				s[w++] = (char)(cp & 0xff);	/* a byte that is not UTF-8 */
				r += 6;
				continue;
			}
			w += put_utf8(s + w, cp);
			r += 6;
			continue;
		}
		default:
			return fail(p, -EINVAL, r, "bad escape");
		}
		r += 2;
	}
	s[w] = 0;
	*start = (uint32_t)(q + 1);
	*len = (uint32_t)(w - q - 1);
	p->pos = r + 1;
	return 0;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static int number(struct parser *p, struct js_node *n)
{
	size_t start = p->pos, i = start;
	const char *s = p->s;
	bool neg = false, integer = true, over = false;
	uint64_t mag = 0;

	if (s[i] == '-') {
		neg = true;
		i++;
	}
	if (i >= p->len || !digit(s[i]))
		return fail(p, -EINVAL, start, "bad number");
	if (s[i] == '0') {
		i++;
		if (i < p->len && digit(s[i]))
			return fail(p, -EINVAL, start, "number with a leading zero");
	} else {
		for (; i < p->len && digit(s[i]); i++) {
			unsigned int dg = (unsigned int)(s[i] - '0');

			if (mag > (UINT64_MAX - dg) / 10)
				over = true;
			else
				mag = mag * 10 + dg;
		}
	}
	if (i < p->len && s[i] == '.') {
		integer = false;
		if (++i >= p->len || !digit(s[i]))
			return fail(p, -EINVAL, start, "bad number");
		while (i < p->len && digit(s[i]))
			i++;
	}
	if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
		integer = false;
		if (++i < p->len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= p->len || !digit(s[i]))
			return fail(p, -EINVAL, start, "bad number");
		while (i < p->len && digit(s[i]))
			i++;
	}
	if (i - start > JS_MAX_NUMBER)
		return fail(p, -E2BIG, start, "number longer than %d characters", JS_MAX_NUMBER);
	p->pos = i;
	if (integer && !over && (!neg || mag <= (uint64_t)INT64_MAX + 1)) {
		if (neg) {
			n->num = JS_INT_S64;
			n->v.i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
		} else if (mag <= INT64_MAX) {
			n->num = JS_INT_S64;
			n->v.i = (int64_t)mag;
		} else {
			n->num = JS_INT_U64;
			n->v.u = mag;
		}
	} else {
		char save = p->s[i];

		/* the copy has a byte past the input: room for this NUL */
		p->s[i] = 0;
		n->num = JS_REAL;
		n->v.d = strtod(p->s + start, NULL);
		p->s[i] = save;
	}
	return 0;
}

static int literal(struct parser *p, const char *word, enum js_type type, uint32_t name,
		   uint32_t name_len)
{
	size_t k = strlen(word);
	struct js_node *n;
	int rc;

	if (p->len - p->pos < k || memcmp(p->s + p->pos, word, k))
		return fail(p, -EINVAL, p->pos, "unexpected character");
	rc = new_node(p, type, name, name_len, &n);
	if (rc)
		return rc;
	p->pos += k;
	return 0;
}

/* An object member's name and its colon. */
static int member_name(struct parser *p, uint32_t *name, uint32_t *name_len)
{
	int rc;

	if (p->pos >= p->len)
		return fail(p, -EINVAL, p->pos, "unexpected end of input");
	if (p->s[p->pos] != '"')
		return fail(p, -EINVAL, p->pos, "expected a member name");
	rc = string(p, name, name_len);
	if (rc)
		return rc;
	skip_ws(p);
	if (p->pos >= p->len || p->s[p->pos] != ':')
		return fail(p, -EINVAL, p->pos, "expected ':'");
	p->pos++;
	skip_ws(p);
	return 0;
}

static int parse(struct parser *p)
{
	struct js_doc *d = p->d;
	uint32_t name = NO_NAME, name_len = 0;
	struct js_node *n;
	int rc;

	skip_ws(p);
	if (p->len == 0)
		return fail(p, -EINVAL, 0, "empty document");
value:
	if (p->pos >= p->len)
		return fail(p, -EINVAL, p->pos, "unexpected end of input");
	switch (p->s[p->pos]) {
	case '{':
	case '[': {
		bool obj = p->s[p->pos] == '{';

		if (p->depth == p->lim.max_depth)
			return fail(p, -E2BIG, p->pos, "nested deeper than %u", p->lim.max_depth);
		rc = new_node(p, obj ? JS_OBJ : JS_ARR, name, name_len, &n);
		if (rc)
			return rc;
		p->stack[p->depth++] = d->n - 1;
		p->pos++;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']'))
			goto close;
		name = NO_NAME;
		name_len = 0;
		if (obj) {
			rc = member_name(p, &name, &name_len);
			if (rc)
				return rc;
		}
		goto value;
	}
	case '"': {
		uint32_t start, len;

		rc = new_node(p, JS_STR, name, name_len, &n);
		if (rc)
			return rc;
		rc = string(p, &start, &len);
		if (rc)
			return rc;
		n->v.s = start;
		n->len = len;
		break;
	}
	case 't':
		rc = literal(p, "true", JS_TRUE, name, name_len);
		if (rc)
			return rc;
		break;
	case 'f':
		rc = literal(p, "false", JS_FALSE, name, name_len);
		if (rc)
			return rc;
		break;
	case 'n':
		rc = literal(p, "null", JS_NULL, name, name_len);
		if (rc)
			return rc;
		break;
	default:
		if (p->s[p->pos] != '-' && !digit(p->s[p->pos]))
			return fail(p, -EINVAL, p->pos, "unexpected character");
		rc = new_node(p, JS_NUM, name, name_len, &n);
		if (rc)
			return rc;
		rc = number(p, n);
		if (rc)
			return rc;
		break;
	}
next:
	/* after a value: the end, or a comma, or the end of its array or object */
	skip_ws(p);
	if (!p->depth) {
		if (p->pos != p->len)
			return fail(p, -EINVAL, p->pos, "more after the document");
		return 0;
	}
	n = &d->nodes[p->stack[p->depth - 1]];
	if (p->pos >= p->len)
		return fail(p, -EINVAL, p->pos, "unexpected end of input");
	if (p->s[p->pos] == ',') {
		p->pos++;
		skip_ws(p);
		name = NO_NAME;
		name_len = 0;
		if (n->type == JS_OBJ) {
			rc = member_name(p, &name, &name_len);
			if (rc)
				return rc;
		}
		goto value;
	}
	if (p->s[p->pos] != (n->type == JS_OBJ ? '}' : ']'))
		return fail(p, -EINVAL, p->pos, n->type == JS_OBJ ? "expected ',' or '}'" :
			    "expected ',' or ']'");
close:
	d->nodes[p->stack[--p->depth]].end = d->n;
	p->pos++;
	goto next;
}

int js_parse(struct js_doc **doc, const char *text, size_t len, const struct js_limits *lim,
	     char *err, size_t errlen)
{
	struct parser p = {
		.len = len, .err = err, .errlen = errlen,
		.lim = { JS_MAX_BYTES, JS_MAX_DEPTH, JS_MAX_NODES },
	};
	struct js_doc *d;
	int rc;

	*doc = NULL;
	if (errlen)
		err[0] = 0;
	if (lim)
		p.lim = *lim;
	if (p.lim.max_bytes > UINT32_MAX - 1)
		p.lim.max_bytes = UINT32_MAX - 1;
	if (p.lim.max_nodes > UINT32_MAX - 1)
		p.lim.max_nodes = UINT32_MAX - 1;
	if (!p.lim.max_depth || !p.lim.max_nodes)
		return fail(&p, -EINVAL, 0, "bad limits");
	if (len > p.lim.max_bytes)
		return fail(&p, -E2BIG, 0, "larger than %zu bytes", p.lim.max_bytes);
	d = calloc(1, sizeof(*d));
	p.stack = calloc(p.lim.max_depth, sizeof(*p.stack));
	if (!d || !p.stack) {
		rc = fail(&p, -ENOMEM, 0, "out of memory");
		goto err;
	}
	d->buf = malloc(len + 1);
	if (!d->buf) {
		rc = fail(&p, -ENOMEM, 0, "out of memory");
		goto err;
	}
	memcpy(d->buf, text, len);
	d->buf[len] = 0;
	p.d = d;
	p.s = d->buf;
	rc = parse(&p);
	if (rc)
		goto err;
	free(p.stack);
	*doc = d;
	return 0;
err:
	free(p.stack);
	js_free(d);
	return rc;
}

void js_free(struct js_doc *doc)
{
	if (!doc)
		return;
	free(doc->buf);
	free(doc->nodes);
	free(doc);
}

const struct js_node *js_root(const struct js_doc *doc)
{
	return doc->nodes;
}

const struct js_node *js_child(const struct js_doc *doc, const struct js_node *n)
{
	if ((n->type != JS_ARR && n->type != JS_OBJ) || !n->len)
		return NULL;
	return n + 1;
}

const struct js_node *js_next(const struct js_doc *doc, const struct js_node *parent,
			      const struct js_node *c)
{
	if (c->end >= parent->end)
		return NULL;
	return doc->nodes + c->end;
}

const char *js_str(const struct js_doc *doc, const struct js_node *n)
{
	return doc->buf + n->v.s;
}

const char *js_name(const struct js_doc *doc, const struct js_node *n)
{
	return n->name == NO_NAME ? NULL : doc->buf + n->name;
}

const struct js_node *js_member(const struct js_doc *doc, const struct js_node *obj,
				const char *name, unsigned int *count)
{
	const struct js_node *first = NULL;
	size_t k = strlen(name);
	unsigned int c = 0;

	if (obj->type == JS_OBJ) {
		for (const struct js_node *m = js_child(doc, obj); m; m = js_next(doc, obj, m)) {
			if (m->name_len != k || memcmp(doc->buf + m->name, name, k))
				continue;
			if (!c++)
				first = m;
		}
	}
	if (count)
		*count = c;
	return first;
}

double js_double(const struct js_node *n)
{
	if (n->num == JS_INT_S64)
		return (double)n->v.i;
	if (n->num == JS_INT_U64)
		return (double)n->v.u;
	return n->v.d;
}

void js_put_str(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	fputc('"', out);
	while (p < end) {
		unsigned char c = *p;

		if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
		} else if (c < 32 || c == 127) {
			fprintf(out, "\\u%04x", c);
		} else if (c < 128) {
			fputc(c, out);
		} else {
			size_t k = js_utf8_len(p, (size_t)(end - p) < 4 ? (size_t)(end - p) : 4);

			if (k) {
				fwrite(p, 1, k, out);
				p += k;
				continue;
			}
			fprintf(out, "\\udc%02x", c);	/* a byte of no character */
		}
		p++;
	}
	fputc('"', out);
}

/* ---- the checked reader ---------------------------------------------------- */

static void rd_wrong(struct js_rd *r, const char *name)
{
	if (!r->why)
		r->why = name;
}

const struct js_node *js_rd_get(struct js_rd *r, const struct js_node *obj, const char *name,
				int type)
{
	unsigned int count = 0;
	const struct js_node *n = obj && obj->type == JS_OBJ ?
				  js_member(r->doc, obj, name, &count) : NULL;

	if (!n || count != 1 || n->type != type) {
		rd_wrong(r, name);
		return NULL;
	}
	return n;
}

uint64_t js_rd_u64(struct js_rd *r, const struct js_node *obj, const char *name, uint64_t max)
{
	const struct js_node *n = js_rd_get(r, obj, name, JS_NUM);
	uint64_t v;

	if (!n)
		return 0;
	if (n->num == JS_INT_U64)
		v = n->v.u;
	else if (n->num == JS_INT_S64 && n->v.i >= 0)
		v = (uint64_t)n->v.i;
	else
		v = max + 1;
	if (v > max) {
		rd_wrong(r, name);
		return 0;
	}
	return v;
}

uint64_t js_rd_u64_opt(struct js_rd *r, const struct js_node *obj, const char *name,
		       uint64_t max, uint64_t def)
{
	unsigned int count = 0;

	if (obj && obj->type == JS_OBJ && !js_member(r->doc, obj, name, &count) && !count)
		return def;
	return js_rd_u64(r, obj, name, max);
}

int64_t js_rd_s32(struct js_rd *r, const struct js_node *obj, const char *name)
{
	const struct js_node *n = js_rd_get(r, obj, name, JS_NUM);

	if (!n)
		return 0;
	if (n->num != JS_INT_S64 || n->v.i < INT32_MIN || n->v.i > INT32_MAX) {
		rd_wrong(r, name);
		return 0;
	}
	return n->v.i;
}

void js_rd_str(struct js_rd *r, const struct js_node *obj, const char *name, char *buf,
	       size_t cap)
{
	const struct js_node *n = js_rd_get(r, obj, name, JS_STR);

	buf[0] = 0;
	if (!n)
		return;
	if (n->len >= cap || memchr(js_str(r->doc, n), 0, n->len)) {
		rd_wrong(r, name);
		return;
	}
	memcpy(buf, js_str(r->doc, n), n->len + 1);
}
