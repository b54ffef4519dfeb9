/* SPDX-License-Identifier: MIT */
/*
 * filter.c - compile filter expressions to bytecode, check and run it.
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
 * that == and != match the literal as a glob (see glob.h).
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
#include "filter.h"
#include "glob.h"

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

static const struct flt_insn *code_insn(const void *code)
{
	return (const struct flt_insn *)(const void *)((const char *)code + sizeof(struct flt_hdr));
}

static const char *code_table(const void *code)
{
	const struct flt_hdr *h = code;

	return (const char *)code + sizeof(*h) + h->ninsn * sizeof(struct flt_insn);
}

int flt_validate(const void *code, size_t len)
{
	const struct flt_hdr *h = code;
	const struct flt_insn *in;
	const char *table;
	int depth[FLT_MAX_INSN + 1];
	int d = 0;

	if (len < sizeof(*h) || h->magic != FLT_MAGIC || h->version != FLT_VERSION ||
	    h->ninsn == 0 || h->ninsn > FLT_MAX_INSN || h->table_size > FLT_MAX_TABLE ||
	    h->nfields > FLT_MAX_FIELDS ||
	    len != sizeof(*h) + h->ninsn * sizeof(struct flt_insn) + h->table_size)
		return -EINVAL;
	in = code_insn(code);
	table = code_table(code);
	if (h->table_size && table[h->table_size - 1] != 0)
		return -EINVAL;		/* every string ends inside */
	for (unsigned int i = 0; i <= h->ninsn; i++)
		depth[i] = -1;
	for (unsigned int i = 0; i < h->ninsn; i++) {
		const struct flt_insn *x = &in[i];

		if (depth[i] >= 0 && depth[i] != d)
			return -EINVAL;	/* the paths that meet here disagree */
		switch (x->op) {
		case FLT_FIELD:
			if (x->imm >= h->nfields || x->aux >= h->table_size)
				return -EINVAL;
			d++;
			break;
		case FLT_STR:
			if (x->aux >= h->table_size)
				return -EINVAL;
			d++;
			break;
		case FLT_INT: case FLT_UINT: case FLT_FLOAT:
			d++;
			break;
		case FLT_EQ: case FLT_NE: case FLT_LT: case FLT_LE: case FLT_GT: case FLT_GE:
			if (d < 2)
				return -EINVAL;
			d--;
			break;
		case FLT_TRUTH: case FLT_NOT:
			if (d < 1)
				return -EINVAL;
			break;
		case FLT_AND_JMP: case FLT_OR_JMP:
			if (d < 1 || x->aux <= i || x->aux > h->ninsn)
				return -EINVAL;
			if (depth[x->aux] >= 0 && depth[x->aux] != d)
				return -EINVAL;
			depth[x->aux] = d;	/* jumping keeps the top */
			d--;
			break;
		default:
			return -EINVAL;
		}
		if (d > FLT_STACK)
			return -EINVAL;
	}
	if (d != 1 || (depth[h->ninsn] >= 0 && depth[h->ninsn] != 1))
		return -EINVAL;
	/* every field slot is named */
	for (unsigned int s = 0; s < h->nfields; s++)
		if (!flt_field_name(code, s))
			return -EINVAL;
	return 0;
}

unsigned int flt_nfields(const void *code)
{
	return ((const struct flt_hdr *)code)->nfields;
}

const char *flt_field_name(const void *code, unsigned int slot)
{
	const struct flt_hdr *h = code;
	const struct flt_insn *in = code_insn(code);

	for (unsigned int i = 0; i < h->ninsn; i++)
		if (in[i].op == FLT_FIELD && in[i].imm == slot)
			return code_table(code) + in[i].aux;
	return NULL;
}

static inline int is_num(enum flt_type t)
{
	return t == FLT_T_S64 || t == FLT_T_U64 || t == FLT_T_F64;
}

/* -1, 0, 1; 2 when not comparable */
static int num_cmp(const struct flt_value *a, const struct flt_value *b)
{
	if (a->type == FLT_T_F64 || b->type == FLT_T_F64) {
		double x = a->type == FLT_T_F64 ? a->d : a->type == FLT_T_S64 ? (double)a->s :
			   (double)a->u;
		double y = b->type == FLT_T_F64 ? b->d : b->type == FLT_T_S64 ? (double)b->s :
			   (double)b->u;

		if (x != x || y != y)
			return 2;	/* NaN */
		return x < y ? -1 : x > y;
	}
	return flt_int_cmp(a->type == FLT_T_S64, a->u, b->type == FLT_T_S64, b->u);
}

static inline int compare(uint8_t op, uint32_t glob, const struct flt_value *a,
		   const struct flt_value *b)
{
	int r;

	if (a->type == FLT_T_STR && b->type == FLT_T_STR) {
		if (op == FLT_EQ || op == FLT_NE) {
			int m = (glob & 2) ? glob_match(b->str, a->str) :
				(glob & 1) ? glob_match(a->str, b->str) : !strcmp(a->str, b->str);

			return op == FLT_EQ ? m : !m;
		}
		r = strcmp(a->str, b->str);
		r = r < 0 ? -1 : r > 0;
	} else if (is_num(a->type) && is_num(b->type)) {
		r = num_cmp(a, b);
		if (r == 2)
			return op == FLT_NE;
	} else {
		return 0;	/* missing field, or string against number */
	}
	return flt_op_holds(op, r);
}

static inline int truth(const struct flt_value *v)
{
	switch (v->type) {
	case FLT_T_S64: return v->s != 0;
	case FLT_T_U64: return v->u != 0;
	case FLT_T_F64: return v->d != 0;
	case FLT_T_STR: return v->str[0] != 0;
	case FLT_T_BOOL: return v->u != 0;
	default: return 0;
	}
}

int flt_eval(const void *code, const struct flt_value *fields)
{
	const struct flt_hdr *h = code;
	const struct flt_insn *in = code_insn(code);
	const char *table = code_table(code);
	struct flt_value st[FLT_STACK + 1];
	int sp = 0;

	for (unsigned int i = 0; i < h->ninsn; i++) {
		const struct flt_insn *x = &in[i];

		switch (x->op) {
		case FLT_FIELD:
			/* field against an integer constant, the common case: no push */
			if (i + 2 < h->ninsn && (x[1].op == FLT_UINT || x[1].op == FLT_INT) &&
			    x[2].op >= FLT_EQ && x[2].op <= FLT_GE) {
				struct flt_value c;

				c.type = x[1].op == FLT_UINT ? FLT_T_U64 : FLT_T_S64;
				c.u = x[1].imm;
				st[sp].u = (uint64_t)compare(x[2].op, x[2].aux, &fields[x->imm], &c);
				st[sp++].type = FLT_T_BOOL;
				i += 2;
				break;
			}
			st[sp++] = fields[x->imm];
			break;
		case FLT_INT:
			st[sp].type = FLT_T_S64;
			st[sp++].s = (int64_t)x->imm;
			break;
		case FLT_UINT:
			st[sp].type = FLT_T_U64;
			st[sp++].u = x->imm;
			break;
		case FLT_FLOAT:
			st[sp].type = FLT_T_F64;
			memcpy(&st[sp++].d, &x->imm, sizeof(double));
			break;
		case FLT_STR:
			st[sp].type = FLT_T_STR;
			st[sp++].str = table + x->aux;
			break;
		case FLT_TRUTH:
		case FLT_NOT:
			st[sp - 1].u = x->op == FLT_TRUTH ? (uint64_t)truth(&st[sp - 1]) :
				       (uint64_t)!truth(&st[sp - 1]);
			st[sp - 1].type = FLT_T_BOOL;
			break;
		case FLT_AND_JMP:
		case FLT_OR_JMP:
			if (truth(&st[sp - 1]) == (x->op == FLT_OR_JMP)) {
				i = x->aux - 1;
				break;
			}
			sp--;
			break;
		default:
			sp--;
			st[sp - 1].u = (uint64_t)compare(x->op, x->aux, &st[sp - 1], &st[sp]);
			st[sp - 1].type = FLT_T_BOOL;
			break;
		}
	}
	return truth(&st[0]);
}

int flt_conjunction(const void *code, struct flt_term *out, unsigned int max)
{
	const struct flt_hdr *h = code;
	const struct flt_insn *in = code_insn(code);
	unsigned int n = 0, i = 0;

	/* term (AND_JMP term)*: any nesting of && alone is the and of its leaves */
	for (;;) {
		if (i + 3 > h->ninsn || n == max || in[i].op != FLT_FIELD ||
		    (in[i + 1].op != FLT_INT && in[i + 1].op != FLT_UINT) ||
		    in[i + 2].op < FLT_EQ || in[i + 2].op > FLT_GE)
			return -1;
		out[n].slot = (uint32_t)in[i].imm;
		out[n].op = in[i + 2].op;
		out[n].c_signed = in[i + 1].op == FLT_INT;
		out[n].c = in[i + 1].imm;
		n++;
		i += 3;
		if (i == h->ninsn)
			return (int)n;
		if (in[i].op != FLT_AND_JMP)
			return -1;
		i++;
	}
}
