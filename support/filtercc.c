/* SPDX-License-Identifier: MIT */
/*
 * filtercc.c - compile filter expressions to bytecode (filtercc.h); the
 * bytecode's layout, its check and its interpreter are common/filter.c's,
 * which the traced process runs.
 *
 * The compiler is a recursive descent parser that emits instructions as it
 * goes (no tree). Precedence, loosest first: ||, &&, !, comparison.
 * && and || short-circuit with forward jumps that leave the deciding
 * value on the stack. Every sub-expression leaves exactly one value, so
 * the stack depth is bounded by the nesting, checked by flt_validate()
 * with a symbolic run over the code (jumps go forward only, so one pass
 * in order, merging depths at jump targets, covers every path).
 *
 * String literals: `\"` becomes `"`; `\\` and `\*` stay as they are so
 * that == and != match the literal as a glob (see common/glob.h).
 *
 * The parser recurses once per '(' and per '!' it is inside: at most
 * FLT_MAX_DEPTH of them at once, refused beyond with the column of the
 * first one too deep, so that the compiler's stack stays small (a few KiB,
 * whatever the expression: the session daemon compiles what any client
 * sends). A '-' or '+' is part of a number, never an operator: "---5" is a
 * bad number, not a nesting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/filter.h"
#include "support/filtercc.h"

#define FLT_TEXT_(x) #x
#define FLT_TEXT(x) FLT_TEXT_(x)

struct flt_cc {
	const char *src, *p;
	char *out;
	size_t cap;
	struct flt_hdr *h;
	struct flt_insn insn[FLT_MAX_INSN];
	char table[FLT_MAX_TABLE];
	unsigned int ninsn, ntable, nfields;
	uint32_t field_off[FLT_MAX_FIELDS];
	unsigned int depth;		/* '(' and '!' open around c->p */
	int err, col;
	char *msg;
	size_t msglen;
};

static int cc_fail(struct flt_cc *c, const char *at, const char *what)
{
	if (!c->err) {
		c->err = -EINVAL;
		c->col = (int)(at - c->src) + 1;
		snprintf(c->msg, c->msglen, "%s", what);
	}
	return -EINVAL;
}

static void cc_space(struct flt_cc *c)
{
	while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')
		c->p++;
}

static int cc_emit(struct flt_cc *c, uint8_t op, uint32_t aux, uint64_t imm)
{
	struct flt_insn *i;

	if (c->ninsn >= FLT_MAX_INSN)
		return cc_fail(c, c->p, "expression too long");
	i = &c->insn[c->ninsn++];
	memset(i, 0, sizeof(*i));
	i->op = op;
	i->aux = aux;
	i->imm = imm;
	return 0;
}

/* Add @n bytes of @s (then a NUL) to the table; its offset or < 0. */
static long cc_table(struct flt_cc *c, const char *s, size_t n)
{
	long off = c->ntable;

	if (c->ntable + n + 1 > FLT_MAX_TABLE)
		return cc_fail(c, c->p, "strings too long");
	memcpy(c->table + c->ntable, s, n);
	c->table[c->ntable + n] = 0;
	c->ntable += (unsigned int)n + 1;
	return off;
}

static int is_ident(char ch, int first)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == '$' ||
	       (!first && ((ch >= '0' && ch <= '9') || ch == '.'));
}

/* One operand; *kind: 0 field, 1 number, 2 string. */
static int cc_operand(struct flt_cc *c, int *kind)
{
	const char *start;

	cc_space(c);
	start = c->p;
	if (is_ident(*c->p, 1)) {
		unsigned int slot;
		long off;

		while (is_ident(*c->p, 0))
			c->p++;
		for (slot = 0; slot < c->nfields; slot++)
			if (strlen(c->table + c->field_off[slot]) == (size_t)(c->p - start) &&
			    !memcmp(c->table + c->field_off[slot], start, (size_t)(c->p - start)))
				break;
		if (slot == c->nfields) {
			if (c->nfields == FLT_MAX_FIELDS)
				return cc_fail(c, start, "too many fields");
			off = cc_table(c, start, (size_t)(c->p - start));
			if (off < 0)
				return (int)off;
			c->field_off[c->nfields++] = (uint32_t)off;
		}
		*kind = 0;
		return cc_emit(c, FLT_FIELD, c->field_off[slot], slot);
	}
	if (*c->p == '"') {
		char buf[FLT_MAX_TABLE];
		size_t n = 0;
		long off;

		for (c->p++; *c->p != '"'; c->p++) {
			if (!*c->p)
				return cc_fail(c, start, "unterminated string");
			if (n + 2 >= sizeof(buf))
				return cc_fail(c, start, "string too long");
			if (*c->p == '\\') {
				c->p++;
				if (!*c->p)
					return cc_fail(c, start, "unterminated string");
				if (*c->p == '\\' || *c->p == '*')
					buf[n++] = '\\';
			}
			buf[n++] = *c->p;
		}
		c->p++;
		off = cc_table(c, buf, n);
		if (off < 0)
			return (int)off;
		*kind = 2;
		return cc_emit(c, FLT_STR, (uint32_t)off, 0);
	}
	if ((*c->p >= '0' && *c->p <= '9') || *c->p == '-' || *c->p == '+' || *c->p == '.') {
		char *end;
		int neg = *c->p == '-';
		const char *digits = c->p + (*c->p == '-' || *c->p == '+');
		int isfloat = 0;

		for (const char *q = digits; is_ident(*q, 0) || ((*q == '-' || *q == '+') &&
		     (q[-1] == 'e' || q[-1] == 'E') && strncmp(digits, "0x", 2)); q++)
			if (*q == '.' || ((*q == 'e' || *q == 'E') && strncmp(digits, "0x", 2) &&
					  strncmp(digits, "0X", 2)))
				isfloat = 1;
		*kind = 1;
		errno = 0;
		if (isfloat) {
			double d = strtod(c->p, &end);
			uint64_t bits;

			if (end == c->p || errno || is_ident(*end, 0))
				return cc_fail(c, start, "bad number");
			c->p = end;
			memcpy(&bits, &d, sizeof(bits));
			return cc_emit(c, FLT_FLOAT, 0, bits);
		}
		if (neg) {
			long long v = strtoll(c->p, &end, 0);

			if (end == c->p || errno || is_ident(*end, 0))
				return cc_fail(c, start, "bad number");
			c->p = end;
			return cc_emit(c, FLT_INT, 0, (uint64_t)v);
		} else {
			unsigned long long v = strtoull(digits, &end, 0);

			if (end == digits || errno || is_ident(*end, 0))
				return cc_fail(c, start, "bad number");
			c->p = end;
			return cc_emit(c, FLT_UINT, 0, (uint64_t)v);
		}
	}
	return cc_fail(c, start, *c->p ? "expected a field, a number or a string" :
			       "unexpected end of the expression");
}

static int cc_or(struct flt_cc *c);

static int cc_comparison(struct flt_cc *c)
{
	static const struct { const char *s; uint8_t op; } ops[] = {
		{ "==", FLT_EQ }, { "!=", FLT_NE }, { "<=", FLT_LE }, { ">=", FLT_GE },
		{ "<", FLT_LT }, { ">", FLT_GT },
	};
	int k1, k2, ret;
	const char *at, *first;

	cc_space(c);
	first = c->p;
	ret = cc_operand(c, &k1);
	if (ret < 0)
		return ret;
	cc_space(c);
	at = c->p;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strncmp(c->p, ops[i].s, strlen(ops[i].s)))
			continue;
		c->p += strlen(ops[i].s);
		ret = cc_operand(c, &k2);
		if (ret < 0)
			return ret;
		if (k1 && k2 && k1 != k2)
			return cc_fail(c, at, "compares a string with a number");
		/* aux: which side is a string literal, matched as a glob */
		return cc_emit(c, ops[i].op, (k1 == 2) | (k2 == 2) << 1, 0);
	}
	if (k1 != 0)
		return cc_fail(c, first, "a number or string alone is not a condition");
	return cc_emit(c, FLT_TRUTH, 0, 0);
}

static int cc_unary(struct flt_cc *c)
{
	int ret;

	cc_space(c);
	if ((*c->p == '!' && c->p[1] != '=') || *c->p == '(') {
		if (c->depth == FLT_MAX_DEPTH)
			return cc_fail(c, c->p, "nested too deep (at most " FLT_TEXT(FLT_MAX_DEPTH)
				       " parentheses and '!' around a condition)");
		c->depth++;
	}
	if (*c->p == '!' && c->p[1] != '=') {
		c->p++;
		ret = cc_unary(c);
		c->depth--;
		return ret < 0 ? ret : cc_emit(c, FLT_NOT, 0, 0);
	}
	if (*c->p == '(') {
		const char *open = c->p++;

		ret = cc_or(c);
		c->depth--;
		if (ret < 0)
			return ret;
		cc_space(c);
		if (*c->p != ')')
			return cc_fail(c, *c->p ? c->p : open, "missing ')'");
		c->p++;
		return 0;
	}
	return cc_comparison(c);
}

/* left (op right)*, short-circuit: @op is FLT_AND_JMP or FLT_OR_JMP */
static int cc_chain(struct flt_cc *c, int (*sub)(struct flt_cc *), const char *tok, uint8_t op)
{
	int ret = sub(c);

	for (;;) {
		unsigned int jmp;

		if (ret < 0)
			return ret;
		cc_space(c);
		if (strncmp(c->p, tok, 2))
			return 0;
		c->p += 2;
		jmp = c->ninsn;
		ret = cc_emit(c, op, 0, 0);
		if (ret < 0)
			return ret;
		ret = sub(c);
		c->insn[jmp].aux = c->ninsn;	/* past the right operand */
	}
}

static int cc_and(struct flt_cc *c)
{
	return cc_chain(c, cc_unary, "&&", FLT_AND_JMP);
}

static int cc_or(struct flt_cc *c)
{
	return cc_chain(c, cc_and, "||", FLT_OR_JMP);
}

long flt_compile(const char *expr, void *out, size_t cap, int *col, char *msg, size_t msglen)
{
	struct flt_cc *c = calloc(1, sizeof(*c));
	struct flt_hdr h;
	size_t size;
	long ret;

	if (!c)
		return -ENOMEM;
	c->src = c->p = expr;
	c->msg = msg;
	c->msglen = msglen;
	if (msglen)
		msg[0] = 0;
	ret = cc_or(c);
	cc_space(c);
	if (ret == 0 && *c->p)
		ret = cc_fail(c, c->p, "unexpected text after the expression");
	if (ret < 0) {
		*col = c->col;
		goto out;
	}
	size = sizeof(h) + c->ninsn * sizeof(struct flt_insn) + c->ntable;
	if (size > cap) {
		ret = -E2BIG;
		goto out;
	}
	memset(&h, 0, sizeof(h));
	h.magic = FLT_MAGIC;
	h.version = FLT_VERSION;
	h.ninsn = (uint16_t)c->ninsn;
	h.table_size = (uint16_t)c->ntable;
	h.nfields = (uint16_t)c->nfields;
	memcpy(out, &h, sizeof(h));
	memcpy((char *)out + sizeof(h), c->insn, c->ninsn * sizeof(struct flt_insn));
	memcpy((char *)out + sizeof(h) + c->ninsn * sizeof(struct flt_insn), c->table, c->ntable);
	ret = (long)size;
out:
	free(c);
	return ret;
}

