/* SPDX-License-Identifier: MIT */
/*
 * tsdl-parse.c - the second stage of the TSDL parser (see tsdl-parse.h):
 * a recursive descent parser of the text, on the tokens of tsdl-lex.h,
 * into the type tree of tsdl-parse.h. Values (integers, identifiers,
 * strings) are checked where they are used; types nest at most
 * TSDL_MAX_DEPTH deep; a block's attributes are each given once. When a
 * block ends, what it declares is lowered at once (tsdl-lower.h): an
 * event's payload and a stream class's event context, and the stream
 * class itself (checked against the fixed layout).
 *
 * Invariants:
 *  - every allocation comes from the parse's arena (tsdl-arena.h);
 *  - the first error wins: once P->failed is set the parser unwinds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsdl-lex.h"
#include "tsdl-lower.h"
#include "tsdl-parse.h"

#define TSDL_MAX_DEPTH 32
#define TSDL_MAX_ARRAY (1U << 20)
#define TSDL_MAX_MEMBERS 65536U	/* fields of a struct, options of a variant */

/* ---- values ------------------------------------------------------------ */

enum tsdl_vkind { V_INT, V_IDENT, V_STR };

struct tsdl_value {
	enum tsdl_vkind kind;
	int line;
	bool neg;
	uint64_t u;
	const char *s;
};

static int tsdl_parse_value(struct tsdl_parser *P, struct tsdl_value *v)
{
	char buf[96];

	memset(v, 0, sizeof(*v));
	v->line = P->tok.line;
	if (tsdl_accept(P, '-'))
		v->neg = true;
	else
		tsdl_accept(P, '+');
	switch (P->tok.kind) {
	case T_INT:
		v->kind = V_INT;
		v->u = P->tok.ival;
		if (v->neg && v->u > (uint64_t)INT64_MAX + 1)
			return tsdl_err(P, v->line, "integer out of range");
		break;
	case T_IDENT:
	case T_STR:
		if (v->neg)
			return tsdl_err(P, v->line, "expected an integer after '-'");
		v->kind = P->tok.kind == T_IDENT ? V_IDENT : V_STR;
		v->s = P->tok.s;
		break;
	default:
		return tsdl_err(P, P->tok.line, "expected a value, got %s",
				tsdl_describe(P, buf, sizeof(buf)));
	}
	tsdl_next(P);
	return 0;
}

static int tsdl_val_u64(struct tsdl_parser *P, const struct tsdl_value *v,
			const char *key, uint64_t *out)
{
	if (v->kind != V_INT || v->neg)
		return tsdl_err(P, v->line, "'%s' must be a non-negative integer",
				key);
	*out = v->u;
	return 0;
}

static int tsdl_val_s64(struct tsdl_parser *P, const struct tsdl_value *v,
			const char *key, int64_t *out)
{
	if (v->kind != V_INT)
		return tsdl_err(P, v->line, "'%s' must be an integer", key);
	if (v->neg) {
		*out = v->u == (uint64_t)INT64_MAX + 1 ? INT64_MIN :
			-(int64_t)v->u;
		return 0;
	}
	if (v->u > INT64_MAX)
		return tsdl_err(P, v->line, "'%s' is out of range", key);
	*out = (int64_t)v->u;
	return 0;
}

static int tsdl_val_bool(struct tsdl_parser *P, const struct tsdl_value *v,
			 const char *key, bool *out)
{
	if (v->kind == V_INT && !v->neg && v->u <= 1) {
		*out = v->u;
		return 0;
	}
	if (v->kind == V_IDENT) {
		if (!strcmp(v->s, "true") || !strcmp(v->s, "TRUE")) {
			*out = true;
			return 0;
		}
		if (!strcmp(v->s, "false") || !strcmp(v->s, "FALSE")) {
			*out = false;
			return 0;
		}
	}
	return tsdl_err(P, v->line, "'%s' must be a boolean", key);
}

static int tsdl_val_str(struct tsdl_parser *P, const struct tsdl_value *v,
			const char *key, const char **out)
{
	if (v->kind != V_STR && v->kind != V_IDENT)
		return tsdl_err(P, v->line, "'%s' must be a string", key);
	*out = v->s;
	return 0;
}

static int tsdl_parse_uuid(struct tsdl_parser *P, const struct tsdl_value *v,
			   uint8_t uuid[16])
{
	const char *s = v->s;
	int i, n = 0;

	if (v->kind != V_STR || strlen(s) != 36)
		goto bad;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				goto bad;
			continue;
		}
		if (tsdl_digit(s[i]) > 15 || tsdl_digit(s[i + 1]) > 15)
			goto bad;
		uuid[n++] = tsdl_digit(s[i]) << 4 | tsdl_digit(s[i + 1]);
		i++;
	}
	return 0;
bad:
	return tsdl_err(P, v->line, "malformed uuid");
}

/* ---- types ------------------------------------------------------------- */

static int tsdl_parse_type(struct tsdl_parser *P, struct tsdl_type **out);

static struct tsdl_type *tsdl_new_type(struct tsdl_parser *P,
				       enum tsdl_tkind kind, int line)
{
	struct tsdl_type *t = tsdl_alloc(&P->arena, sizeof(*t));

	if (!t) {
		tsdl_nomem(P);
		return NULL;
	}
	t->kind = kind;
	t->line = line;
	return t;
}

static int tsdl_parse_base(struct tsdl_parser *P, const struct tsdl_value *v,
			   unsigned *base)
{
	static const struct {
		const char *name;
		unsigned base;
	} names[] = {
		{ "decimal", 10 }, { "dec", 10 }, { "d", 10 }, { "i", 10 },
		{ "u", 10 }, { "hexadecimal", 16 }, { "hex", 16 },
		{ "x", 16 }, { "X", 16 }, { "p", 16 }, { "octal", 8 },
		{ "oct", 8 }, { "o", 8 }, { "binary", 2 }, { "b", 2 },
	};
	size_t i;

	if (v->kind == V_INT && !v->neg &&
	    (v->u == 2 || v->u == 8 || v->u == 10 || v->u == 16)) {
		*base = v->u;
		return 0;
	}
	if (v->kind == V_IDENT) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if (!strcmp(v->s, names[i].name)) {
				*base = names[i].base;
				return 0;
			}
		}
	}
	return tsdl_err(P, v->line, "invalid integer base");
}

static int tsdl_check_byte_order(struct tsdl_parser *P,
				 const struct tsdl_value *v, bool *be)
{
	if (v->kind == V_IDENT && (!strcmp(v->s, "le") ||
				   !strcmp(v->s, "native")))
		return 0;
	/* a field's byte order, in the general form (not the trace's) */
	if (be && P->general && v->kind == V_IDENT &&
	    (!strcmp(v->s, "be") || !strcmp(v->s, "network"))) {
		*be = true;
		return 0;
	}
	return tsdl_err(P, v->line,
			"unsupported byte_order (only little-endian traces are supported)");
}

/* integer { ... } and floating_point { ... } attribute lists */
/*
 * map = clock.NAME.value (or clock.NAME): NAME must be the clock declared
 * before. Other values map nothing, as babeltrace2 takes them.
 */
static int tsdl_check_map(struct tsdl_parser *P, const struct tsdl_value *v)
{
	const char *name, *dot;
	size_t n;

	if (v->kind != V_IDENT || strncmp(v->s, "clock.", 6))
		return 0;
	name = v->s + 6;
	dot = strchr(name, '.');
	if (dot && strcmp(dot, ".value"))
		return 0;
	n = dot ? (size_t)(dot - name) : strlen(name);
	if (!P->seen_clock || !P->m->clock.name ||
	    strlen(P->m->clock.name) != n || strncmp(P->m->clock.name, name, n))
		return tsdl_err(P, v->line, "map: no clock named '%.*s' declared before",
				(int)n, name);
	return 0;
}

static int tsdl_parse_attrs(struct tsdl_parser *P, struct tsdl_type *t)
{
	struct tsdl_map seen = { NULL, 0, 0 };
	bool has_size = false;
	uint64_t u = 0;
	void *old;
	int rc;

	rc = tsdl_expect(P, '{');
	if (rc)
		return rc;
	while (!tsdl_is_punct(P, '}')) {
		struct tsdl_value v;
		const char *key = NULL;

		rc = tsdl_expect_ident(P, &key);
		if (!rc)
			rc = tsdl_expect(P, '=');
		if (!rc)
			rc = tsdl_parse_value(P, &v);
		if (!rc)
			rc = tsdl_expect(P, ';');
		if (rc)
			return rc;
		if (tsdl_map_put(&P->arena, &seen, key, (void *)key, &old))
			return tsdl_nomem(P);
		if (old)
			return tsdl_err(P, v.line, "duplicate attribute '%s'", key);
		if (!strcmp(key, "align")) {
			rc = tsdl_val_u64(P, &v, key, &u);
			if (!rc && (!u || (u & (u - 1)) || u > 64))
				rc = tsdl_err(P, v.line, "invalid alignment");
			t->align = u;
		} else if (!strcmp(key, "byte_order")) {
			rc = tsdl_check_byte_order(P, &v, &t->be);
		} else if (t->kind == TK_INT_T && !strcmp(key, "size")) {
			rc = tsdl_val_u64(P, &v, key, &u);
			if (!rc && (!u || u > 64))
				rc = tsdl_err(P, v.line, "invalid integer size");
			t->size = u;
			has_size = true;
		} else if (t->kind == TK_INT_T && !strcmp(key, "signed")) {
			rc = tsdl_val_bool(P, &v, key, &t->is_signed);
		} else if (t->kind == TK_INT_T && !strcmp(key, "base")) {
			rc = tsdl_parse_base(P, &v, &t->base);
		} else if (t->kind == TK_INT_T && !strcmp(key, "encoding")) {
			t->text = v.kind == V_IDENT && (!strcmp(v.s, "UTF8") ||
							!strcmp(v.s, "ASCII") ||
							!strcmp(v.s, "utf8") ||
							!strcmp(v.s, "ascii"));
			rc = 0;
		} else if (t->kind == TK_INT_T && !strcmp(key, "map")) {
			rc = tsdl_check_map(P, &v);
			t->map = v.s;
		} else if (t->kind == TK_FLOAT_T && !strcmp(key, "exp_dig")) {
			rc = tsdl_val_u64(P, &v, key, &u);
			t->exp_dig = u;
		} else if (t->kind == TK_FLOAT_T && !strcmp(key, "mant_dig")) {
			rc = tsdl_val_u64(P, &v, key, &u);
			t->mant_dig = u;
		}
		/* other attributes are ignored, as babeltrace2 does */
		if (rc)
			return rc;
	}
	tsdl_next(P);
	if (t->kind == TK_INT_T && !has_size)
		return tsdl_err(P, t->line, "integer without size");
	if (t->kind == TK_FLOAT_T) {
		if (t->exp_dig == 11 && t->mant_dig == 53)
			t->size = 64;
		else if (t->exp_dig == 8 && t->mant_dig == 24)
			t->size = 32;
		else
			return tsdl_err(P, t->line,
					"unsupported floating point type");
	}
	return 0;
}

static int tsdl_parse_decl(struct tsdl_parser *P, struct tsdl_member ***tail,
			   unsigned *count)
{
	struct tsdl_member *m;
	struct tsdl_type *t;
	int line, rc;

	rc = tsdl_parse_type(P, &t);
	if (rc)
		return rc;
	m = tsdl_alloc(&P->arena, sizeof(*m));
	if (!m)
		return tsdl_nomem(P);
	line = P->tok.line;
	rc = tsdl_expect_ident(P, &m->name);
	if (rc)
		return rc;
	if (strchr(m->name, '.'))
		return tsdl_err(P, line, "invalid field name '%s'", m->name);
	m->line = line;
	if (tsdl_accept(P, '[')) {
		struct tsdl_type *a;

		if (P->tok.kind == T_INT) {
			a = tsdl_new_type(P, TK_ARRAY_T, line);
			if (!a)
				return -ENOMEM;
			if (P->tok.ival > TSDL_MAX_ARRAY)
				return tsdl_err(P, line, "array too long");
			a->length = P->tok.ival;
			tsdl_next(P);
		} else if (P->tok.kind == T_IDENT) {
			a = tsdl_new_type(P, TK_SEQ_T, line);
			if (!a)
				return -ENOMEM;
			a->length_name = P->tok.s;
			tsdl_next(P);
		} else {
			return tsdl_err(P, line, "expected an array length");
		}
		a->elem = t;
		t = a;
		rc = tsdl_expect(P, ']');
		if (rc)
			return rc;
		if (tsdl_is_punct(P, '['))
			return tsdl_err(P, line,
					"multi-dimensional arrays are not supported");
	}
	m->type = t;
	**tail = m;
	*tail = &m->next;
	(*count)++;
	return tsdl_expect(P, ';');
}

/* The member whose next pointer @tail is. */
static struct tsdl_member *tsdl_member_of_tail(struct tsdl_member **tail)
{
	/* through void *: the member is aligned as a struct tsdl_member */
	return (struct tsdl_member *)(void *)((char *)tail -
					      offsetof(struct tsdl_member, next));
}

/* { decl; decl; ... } for struct and variant: names unique */
static int tsdl_parse_members(struct tsdl_parser *P, struct tsdl_type *t)
{
	struct tsdl_member **tail = &t->members, *m;
	struct tsdl_map names = { NULL, 0, 0 };
	void *old;
	int rc;

	rc = tsdl_expect(P, '{');
	if (rc)
		return rc;
	while (!tsdl_is_punct(P, '}')) {
		if (P->tok.kind == T_EOF)
			return tsdl_err(P, P->tok.line,
					"unexpected end of file in struct");
		if (t->nmembers == TSDL_MAX_MEMBERS)
			return tsdl_err(P, P->tok.line,
					"more than %u fields in a struct",
					TSDL_MAX_MEMBERS);
		rc = tsdl_parse_decl(P, &tail, &t->nmembers);
		if (rc)
			return rc;
		m = tsdl_member_of_tail(tail);
		if (tsdl_map_put(&P->arena, &names, m->name, m, &old))
			return tsdl_nomem(P);
		if (old)
			return tsdl_err(P, m->line, "duplicate field '%s'",
					m->name);
	}
	tsdl_next(P);
	return 0;
}

/* An enumerator value as the container's (signed or bit pattern). */
static int tsdl_enum_value(struct tsdl_parser *P, const struct tsdl_type *t,
			   const struct tsdl_value *v, int64_t *out)
{
	if (v->kind != V_INT)
		return tsdl_err(P, v->line, "expected an integer");
	if (!t->elem->is_signed) {
		if (v->neg)
			return tsdl_err(P, v->line,
					"negative value in an enum of unsigned integers");
		*out = (int64_t)v->u;
		return 0;
	}
	return tsdl_val_s64(P, v, "enum value", out);
}

static bool tsdl_enum_le(const struct tsdl_type *t, int64_t a, int64_t b)
{
	return t->elem->is_signed ? a <= b : (uint64_t)a <= (uint64_t)b;
}

static int tsdl_parse_enum(struct tsdl_parser *P, struct tsdl_type *t)
{
	struct tsdl_enum_map **tail = &t->maps, *em;
	struct tsdl_value v;
	int64_t next = 0;
	int rc;

	if (P->tok.kind == T_IDENT && !tsdl_is_punct(P, ':'))
		tsdl_next(P);	/* optional enum name */
	rc = tsdl_expect(P, ':');
	if (!rc)
		rc = tsdl_parse_type(P, &t->elem);
	if (rc)
		return rc;
	if (t->elem->kind != TK_INT_T)
		return tsdl_err(P, t->line, "enum container must be an integer");
	rc = tsdl_expect(P, '{');
	if (rc)
		return rc;
	while (!tsdl_is_punct(P, '}')) {
		int line = P->tok.line;

		if (P->tok.kind != T_IDENT && P->tok.kind != T_STR)
			return tsdl_err(P, P->tok.line,
					"expected an enumerator label");
		em = tsdl_alloc(&P->arena, sizeof(*em));
		if (!em)
			return tsdl_nomem(P);
		em->label = P->tok.s;
		em->lo = em->hi = next;
		tsdl_next(P);
		if (tsdl_accept(P, '=')) {
			rc = tsdl_parse_value(P, &v);
			if (!rc)
				rc = tsdl_enum_value(P, t, &v, &em->lo);
			em->hi = em->lo;
			if (!rc && tsdl_accept(P, P_ELLIPSIS)) {
				rc = tsdl_parse_value(P, &v);
				if (!rc)
					rc = tsdl_enum_value(P, t, &v, &em->hi);
			}
			if (rc)
				return rc;
		}
		if (!tsdl_enum_le(t, em->lo, em->hi))
			return tsdl_err(P, line, "enum range of '%s' ends before it begins",
					em->label);
		next = (int64_t)((uint64_t)em->hi + 1);
		*tail = em;
		tail = &em->next;
		if (!tsdl_accept(P, ',') && !tsdl_is_punct(P, '}'))
			return tsdl_expect(P, '}');
	}
	if (!t->maps)
		return tsdl_err(P, t->line, "enum without enumerators");
	tsdl_next(P);
	return 0;
}

/*
 * A type named by an alias: one identifier, or several ("unsigned long"),
 * the longest run of identifiers that names an alias.
 */
static int tsdl_type_name(struct tsdl_parser *P, struct tsdl_type **out)
{
	char name[256];
	int line = P->tok.line;
	struct tsdl_type *t;
	size_t n;

	n = (size_t)snprintf(name, sizeof(name), "%s", P->tok.s);
	if (n >= sizeof(name))
		return tsdl_err(P, line, "type name too long");
	t = tsdl_map_get(&P->aliases, name);
	tsdl_next(P);
	while (P->tok.kind == T_IDENT && n + 1 + strlen(P->tok.s) < sizeof(name)) {
		struct tsdl_type *longer;

		name[n] = ' ';
		snprintf(name + n + 1, sizeof(name) - n - 1, "%s", P->tok.s);
		longer = tsdl_map_get(&P->aliases, name);
		if (!longer) {
			name[n] = '\0';
			break;
		}
		t = longer;
		n = strlen(name);
		tsdl_next(P);
	}
	if (!t)
		return tsdl_err(P, line, "unknown type '%s'", name);
	*out = t;
	return 0;
}

static int tsdl_parse_type_inner(struct tsdl_parser *P, struct tsdl_type **out)
{
	int line = P->tok.line;
	struct tsdl_type *t = NULL;
	char buf[96];
	int rc = 0;

	if (tsdl_is_kw(P, "integer") || tsdl_is_kw(P, "floating_point")) {
		t = tsdl_new_type(P, tsdl_is_kw(P, "integer") ? TK_INT_T :
				  TK_FLOAT_T, line);
		if (!t)
			return -ENOMEM;
		t->align = 8;
		t->base = 10;
		tsdl_next(P);
		rc = tsdl_parse_attrs(P, t);
	} else if (tsdl_is_kw(P, "string")) {
		t = tsdl_new_type(P, TK_STRING_T, line);
		if (!t)
			return -ENOMEM;
		t->align = 8;
		tsdl_next(P);
		if (tsdl_accept(P, '{')) {
			while (!rc && !tsdl_accept(P, '}')) {
				struct tsdl_value v;
				const char *key = NULL;

				rc = tsdl_expect_ident(P, &key);
				if (!rc)
					rc = tsdl_expect(P, '=');
				if (!rc)
					rc = tsdl_parse_value(P, &v);
				if (!rc)
					rc = tsdl_expect(P, ';');
			}
		}
	} else if (tsdl_is_kw(P, "struct")) {
		t = tsdl_new_type(P, TK_STRUCT_T, line);
		if (!t)
			return -ENOMEM;
		t->align = 1;
		tsdl_next(P);
		if (P->tok.kind == T_IDENT) {
			const char *sname = P->tok.s;
			struct tsdl_type *named;
			void *old;

			tsdl_next(P);
			if (!tsdl_is_punct(P, '{')) {
				/* struct NAME: one declared before */
				named = tsdl_map_get(&P->structs, sname);
				if (!named)
					return tsdl_err(P, line, "unknown struct '%s'", sname);
				*out = named;
				return 0;
			}
			if (tsdl_map_put(&P->arena, &P->structs, sname, t, &old))
				return tsdl_nomem(P);
			if (old)
				return tsdl_err(P, line, "duplicate struct '%s'", sname);
		}
		rc = tsdl_parse_members(P, t);
		if (!rc && tsdl_is_kw(P, "align")) {
			struct tsdl_value v;
			uint64_t u = 0;

			tsdl_next(P);
			rc = tsdl_expect(P, '(');
			if (!rc)
				rc = tsdl_parse_value(P, &v);
			if (!rc)
				rc = tsdl_val_u64(P, &v, "align", &u);
			if (!rc)
				rc = tsdl_expect(P, ')');
			/*
			 * A minimum, as babeltrace2 takes it (0: none): the
			 * members of the structures read here are byte
			 * aligned, so up to 8 bits it changes nothing, and
			 * more is refused where the layout is checked.
			 */
			if (u > 1)
				t->align = u > 4096 ? 4096 : u;
		}
	} else if (tsdl_is_kw(P, "enum")) {
		t = tsdl_new_type(P, TK_ENUM_T, line);
		if (!t)
			return -ENOMEM;
		tsdl_next(P);
		rc = tsdl_parse_enum(P, t);
	} else if (tsdl_is_kw(P, "variant")) {
		t = tsdl_new_type(P, TK_VARIANT_T, line);
		if (!t)
			return -ENOMEM;
		tsdl_next(P);
		if (P->tok.kind == T_IDENT)
			tsdl_next(P);	/* optional variant name */
		rc = tsdl_expect(P, '<');
		if (!rc)
			rc = tsdl_expect_ident(P, &t->tag);
		if (!rc)
			rc = tsdl_expect(P, '>');
		if (!rc)
			rc = tsdl_parse_members(P, t);
	} else if (P->tok.kind == T_IDENT) {
		rc = tsdl_type_name(P, &t);
		if (rc)
			return rc;
	} else {
		return tsdl_err(P, line, "expected a type, got %s",
				tsdl_describe(P, buf, sizeof(buf)));
	}
	*out = t;
	return rc;
}

static int tsdl_parse_type(struct tsdl_parser *P, struct tsdl_type **out)
{
	int rc;

	if (++P->depth > TSDL_MAX_DEPTH)
		return tsdl_err(P, P->tok.line, "types nested too deeply");
	rc = tsdl_parse_type_inner(P, out);
	P->depth--;
	return rc;
}

static int tsdl_parse_typealias(struct tsdl_parser *P, bool is_typedef)
{
	struct tsdl_type *t;
	const char *name = NULL;
	int line, rc;
	void *old;

	rc = tsdl_parse_type(P, &t);
	line = P->tok.line;
	if (!rc && !is_typedef)
		rc = tsdl_expect(P, P_TYPEASSIGN);
	if (!rc)
		rc = tsdl_expect_ident(P, &name);
	/* a name of several words: "unsigned long" */
	while (!rc && P->tok.kind == T_IDENT) {
		size_t a = strlen(name), b = strlen(P->tok.s);
		char *w;

		if (a + b + 2 > 256)
			return tsdl_err(P, line, "type name too long");
		w = tsdl_alloc(&P->arena, a + b + 2);
		if (!w)
			return tsdl_nomem(P);
		memcpy(w, name, a);
		w[a] = ' ';
		memcpy(w + a + 1, P->tok.s, b + 1);
		name = w;
		tsdl_next(P);
	}
	if (!rc)
		rc = tsdl_expect(P, ';');
	if (rc)
		return rc;
	if (tsdl_map_put(&P->arena, &P->aliases, name, t, &old))
		return tsdl_nomem(P);
	if (old)
		return tsdl_err(P, line, "duplicate type alias '%s'", name);
	return 0;
}

/* ---- blocks ------------------------------------------------------------ */

enum tsdl_block { B_TRACE, B_ENV, B_CLOCK, B_STREAM, B_EVENT, B_CALLSITE };

static int tsdl_env_add(struct tsdl_parser *P, const char *key,
			const struct tsdl_value *v)
{
	struct tsdl_env_entry *e;
	int rc;

	if (tsdl_map_get(&P->env_keys, key))
		return tsdl_err(P, v->line, "duplicate env key '%s'", key);
	/* the value is not a pointer into env_list, which moves as it grows */
	if (tsdl_map_put(&P->arena, &P->env_keys, key, (void *)key, NULL))
		return tsdl_nomem(P);
	if (P->m->nenv == P->env_cap) {
		uint32_t cap = P->env_cap ? P->env_cap * 2 : 16;

		e = tsdl_alloc(&P->arena, cap * sizeof(*e));
		if (!e)
			return tsdl_nomem(P);
		if (P->m->nenv)
			memcpy(e, P->env_list, P->m->nenv * sizeof(*e));
		P->env_list = e;
		P->env_cap = cap;
	}
	e = &P->env_list[P->m->nenv];
	e->key = key;
	if (v->kind == V_INT) {
		e->is_int = true;
		rc = tsdl_val_s64(P, v, key, &e->ival);
		if (rc)
			return rc;
	} else {
		e->sval = v->s;
	}
	P->m->nenv++;
	P->m->env = P->env_list;
	if (!strcmp(key, "procname") && !e->is_int)
		P->m->procname = e->sval;
	else if (!strcmp(key, "hostname") && !e->is_int)
		P->m->hostname = e->sval;
	else if (!strcmp(key, "vpid") && e->is_int) {
		P->m->has_vpid = true;
		P->m->vpid = e->ival;
	}
	return 0;
}

static int tsdl_block_value(struct tsdl_parser *P, enum tsdl_block b,
			    struct tsdl_ev *ev, struct tsdl_sc *sc,
			    const char *key, const struct tsdl_value *v)
{
	struct tsdl_metadata *m = P->m;
	struct tsdl_clock *c = &m->clock;
	uint64_t u = 0;
	int rc = 0;

	switch (b) {
	case B_TRACE:
		if (!strcmp(key, "major")) {
			rc = tsdl_val_u64(P, v, key, &u);
			m->major = u > UINT32_MAX ? UINT32_MAX : u;
		} else if (!strcmp(key, "minor")) {
			rc = tsdl_val_u64(P, v, key, &u);
			m->minor = u > UINT32_MAX ? UINT32_MAX : u;
		} else if (!strcmp(key, "uuid")) {
			rc = tsdl_parse_uuid(P, v, m->uuid);
			if (!rc) {
				m->has_uuid = true;
				snprintf(m->uuid_str, sizeof(m->uuid_str), "%s",
					 v->s);
			}
		} else if (!strcmp(key, "byte_order")) {
			rc = tsdl_check_byte_order(P, v, NULL);
		}
		break;
	case B_ENV:
		rc = tsdl_env_add(P, key, v);
		break;
	case B_CLOCK:
		if (!strcmp(key, "name"))
			rc = tsdl_val_str(P, v, key, &c->name);
		else if (!strcmp(key, "description"))
			rc = tsdl_val_str(P, v, key, &c->description);
		else if (!strcmp(key, "uuid")) {
			rc = tsdl_parse_uuid(P, v, c->uuid);
			c->has_uuid = !rc;
		} else if (!strcmp(key, "freq")) {
			rc = tsdl_val_u64(P, v, key, &c->freq);
			if (!rc && (!c->freq || c->freq == UINT64_MAX))
				rc = tsdl_err(P, v->line, "invalid clock freq %" PRIu64,
					      c->freq);
		} else if (!strcmp(key, "precision"))
			rc = tsdl_val_u64(P, v, key, &c->precision);
		else if (!strcmp(key, "offset_s"))
			rc = tsdl_val_s64(P, v, key, &c->offset_s);
		else if (!strcmp(key, "offset"))
			rc = tsdl_val_u64(P, v, key, &c->offset);
		else if (!strcmp(key, "absolute"))
			rc = tsdl_val_bool(P, v, key, &c->absolute);
		break;
	case B_STREAM:
		if (!strcmp(key, "id")) {
			rc = tsdl_val_u64(P, v, key, &u);
			if (!rc && u > UINT32_MAX)
				rc = tsdl_err(P, v->line, "stream id out of range");
			sc->cls.id = u;
		}
		break;
	case B_CALLSITE:
		break;		/* callsite blocks describe nothing read here */
	case B_EVENT:
		if (!strcmp(key, "name")) {
			rc = tsdl_val_str(P, v, key, &ev->cls.name);
			ev->has_name = true;
		} else if (!strcmp(key, "id")) {
			rc = tsdl_val_u64(P, v, key, &u);
			if (!rc && u > UINT32_MAX)
				rc = tsdl_err(P, v->line, "event id out of range");
			ev->cls.id = u;
			ev->has_id = true;
		} else if (!strcmp(key, "stream_id")) {
			rc = tsdl_val_u64(P, v, key, &ev->stream_id);
			ev->has_stream_id = true;
		} else if (!strcmp(key, "loglevel")) {
			/* unsigned, as babeltrace2 reads it */
			rc = tsdl_val_u64(P, v, key, &u);
			if (!rc && u > INT64_MAX)
				rc = tsdl_err(P, v->line, "'%s' is out of range", key);
			ev->cls.loglevel = (int64_t)u;
			ev->cls.has_loglevel = true;
		}
		break;
	}
	return rc;
}

static int tsdl_block_type(struct tsdl_parser *P, enum tsdl_block b,
			   struct tsdl_ev *ev, struct tsdl_sc *sc,
			   const char *key, struct tsdl_type *t, int line)
{
	if (b == B_TRACE && !strcmp(key, "packet.header")) {
		P->packet_header = t;
		return 0;
	}
	if (b == B_STREAM && !strcmp(key, "packet.context")) {
		sc->packet_context = t;
		return 0;
	}
	if (b == B_STREAM && !strcmp(key, "event.header")) {
		sc->event_header = t;
		return 0;
	}
	if (b == B_STREAM && !strcmp(key, "event.context")) {
		if (P->general) {
			sc->event_context = t;
			return 0;
		}
		return tsdl_lower_context(P, sc, t);
	}
	if (b == B_EVENT && !strcmp(key, "fields"))
		return tsdl_lower_event(P, ev, t);
	if (b == B_EVENT && !strcmp(key, "context") && P->general) {
		ev->cls.context = t;
		return 0;
	}
	return tsdl_err(P, line, "unsupported type assignment '%s'", key);
}

static int tsdl_parse_block(struct tsdl_parser *P, enum tsdl_block b)
{
	struct tsdl_map keys = { NULL, 0, 0 };
	struct tsdl_ev *ev = NULL;
	struct tsdl_sc *sc = NULL;
	int line = P->tok.line;
	void *old;
	int rc;

	tsdl_next(P);		/* block keyword */
	if (b == B_EVENT) {
		ev = tsdl_alloc(&P->arena, sizeof(*ev));
		if (!ev)
			return tsdl_nomem(P);
		ev->line = line;
	} else if (b == B_STREAM) {
		sc = tsdl_alloc(&P->arena, sizeof(*sc));
		if (!sc)
			return tsdl_nomem(P);
		sc->line = line;
	}
	rc = tsdl_expect(P, '{');
	if (rc)
		return rc;
	while (!tsdl_is_punct(P, '}')) {
		const char *key = NULL;
		int kline = P->tok.line;

		if (P->tok.kind == T_EOF)
			return tsdl_err(P, kline, "unexpected end of file in block");
		rc = tsdl_expect_ident(P, &key);
		if (rc)
			return rc;
		/* each attribute once (env keys: tsdl_env_add) */
		if (b != B_ENV) {
			if (tsdl_map_put(&P->arena, &keys, key, (void *)key, &old))
				return tsdl_nomem(P);
			if (old)
				return tsdl_err(P, kline, "duplicate attribute '%s'", key);
		}
		if (tsdl_accept(P, P_TYPEASSIGN)) {
			struct tsdl_type *t;

			rc = tsdl_parse_type(P, &t);
			if (!rc)
				rc = tsdl_block_type(P, b, ev, sc, key, t, kline);
		} else if (tsdl_accept(P, '=')) {
			struct tsdl_value v;

			rc = tsdl_parse_value(P, &v);
			if (!rc)
				rc = tsdl_block_value(P, b, ev, sc, key, &v);
		} else {
			rc = tsdl_expect(P, '=');
		}
		if (!rc)
			rc = tsdl_expect(P, ';');
		if (rc)
			return rc;
	}
	tsdl_next(P);
	rc = tsdl_expect(P, ';');
	if (rc)
		return rc;
	if (b == B_EVENT) {
		if (!ev->has_name || !ev->has_id)
			return tsdl_err(P, line, "event without name or id");
		ev->next = P->evs;
		P->evs = ev;
		P->nevs++;
	}
	if (b == B_STREAM)
		return tsdl_add_stream(P, sc);
	if (b == B_CLOCK && !P->m->clock.name)
		return tsdl_err(P, line, "clock without name");
	if (b == B_TRACE) {
		static const char *const need[] = { "major", "minor", "byte_order" };
		size_t i;

		for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
			if (!tsdl_map_get(&keys, need[i]))
				return tsdl_err(P, line, "trace block without %s",
						need[i]);
		}
	}
	return 0;
}

/* ---- the text -------------------------------------------------------- */

int tsdl_parse_top(struct tsdl_parser *P)
{
	char buf[96];
	int rc = 0;

	tsdl_next(P);
	while (!rc && P->tok.kind != T_EOF) {
		int line = P->tok.line;

		if (tsdl_is_kw(P, "typealias") || tsdl_is_kw(P, "typedef")) {
			bool td = tsdl_is_kw(P, "typedef");

			tsdl_next(P);
			rc = tsdl_parse_typealias(P, td);
		} else if (tsdl_is_kw(P, "trace")) {
			if (P->seen_trace)
				return tsdl_err(P, line, "duplicate trace block");
			P->seen_trace = true;
			P->trace_line = line;
			rc = tsdl_parse_block(P, B_TRACE);
		} else if (tsdl_is_kw(P, "env")) {
			rc = tsdl_parse_block(P, B_ENV);
		} else if (tsdl_is_kw(P, "clock")) {
			if (P->seen_clock)
				return tsdl_err(P, line,
						"multiple clocks are not supported");
			P->seen_clock = true;
			rc = tsdl_parse_block(P, B_CLOCK);
		} else if (tsdl_is_kw(P, "stream")) {
			rc = tsdl_parse_block(P, B_STREAM);
		} else if (tsdl_is_kw(P, "event")) {
			rc = tsdl_parse_block(P, B_EVENT);
		} else if (tsdl_is_kw(P, "callsite")) {
			rc = tsdl_parse_block(P, B_CALLSITE);
		} else if (tsdl_is_kw(P, "struct") || tsdl_is_kw(P, "enum") ||
			   tsdl_is_kw(P, "variant")) {
			/* a named type declared at the top level: struct NAME { ... }; */
			struct tsdl_type *t;

			rc = tsdl_parse_type(P, &t);
			if (!rc)
				rc = tsdl_expect(P, ';');
		} else {
			return tsdl_err(P, line, "unexpected %s at top level",
					tsdl_describe(P, buf, sizeof(buf)));
		}
	}
	if (!rc && P->failed)
		rc = -EINVAL;
	return rc;
}
