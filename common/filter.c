/* SPDX-License-Identifier: MIT */
/*
 * filter.c - check and run filter bytecode (filter.h): what the traced
 * process runs for a filtered event, and the daemons and the reader too.
 * The compiler is support/filtercc.c, which no traced process carries.
 *
 * flt_validate() makes a symbolic run over the code (jumps go forward
 * only, so one pass in order, merging depths at jump targets, covers
 * every path): the stack depth stays within FLT_STACK, every jump lands
 * inside, every table offset is inside and its string terminated. Only
 * then does flt_eval() run it, with no check of its own: linear time, no
 * allocation, async-signal-safe.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/filter.h"
#include "common/glob.h"

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
