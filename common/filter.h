/* SPDX-License-Identifier: MIT */
/*
 * filter.h - filter expressions on event fields, compiled to bytecode.
 *
 *	seq >= 500 && thread == 1
 *	!(path == "/tmp/x*" || size > 4096) && ratio < 0.5
 *
 * Comparisons (== != < <= > >=) between a field and a literal (integer,
 * decimal or hexadecimal; floating point; "string", where == and != match
 * a glob: '*' any characters, '\' escapes), or between two fields; a bare
 * field is true when it is not zero (or not empty); && || ! and
 * parentheses, at most FLT_MAX_DEPTH of '(' and '!' around any condition.
 * A comparison that names a field the event lacks, or compares a string
 * with a number, is false.
 *
 * The compiler (flt_compile()) is support/filtercc.h's: no traced process
 * carries it. The bytecode is position-independent and self-contained (field names and
 * strings in its own table), so it can be sent to another process, which
 * must check it with flt_validate() before it binds the field slots
 * (flt_nfields(), flt_field_name()) and calls flt_eval():
 * every jump goes forward and lands inside, every table offset is inside,
 * the stack never exceeds FLT_STACK. Evaluation takes time linear in its
 * length, allocates nothing and is async-signal-safe.
 *
 * Layout (little-endian, all fields fixed-width):
 *   struct flt_hdr (16 bytes) | ninsn x struct flt_insn (16 bytes each) |
 *   table (strings and field names, each NUL-terminated)
 */
#ifndef SHMTRACE_COMMON_FILTER_H
#define SHMTRACE_COMMON_FILTER_H

#include <stddef.h>
#include <stdint.h>

#define FLT_MAGIC	0x544c4653u	/* "SFLT" */
#define FLT_VERSION	1
#define FLT_MAX_INSN	256
#define FLT_MAX_TABLE	4096
#define FLT_STACK	32
#define FLT_MAX_FIELDS	64		/* distinct field names in one filter */
#define FLT_MAX_DEPTH	256		/* '(' and '!' around a condition */

enum flt_op {
	FLT_FIELD = 1,		/* push field named at table offset aux (slot imm) */
	FLT_INT,		/* push signed integer imm */
	FLT_UINT,		/* push unsigned integer imm */
	FLT_FLOAT,		/* push double (bits of imm) */
	FLT_STR,		/* push string at table offset aux */
	FLT_EQ, FLT_NE, FLT_LT, FLT_LE, FLT_GT, FLT_GE,	/* pop 2, push bool */
	FLT_TRUTH,		/* pop 1, push bool (non-zero / non-empty) */
	FLT_NOT,		/* pop bool, push !bool */
	FLT_AND_JMP,		/* top false: jump to aux, keeping it; else pop */
	FLT_OR_JMP,		/* top true: jump to aux, keeping it; else pop */
};

struct flt_insn {
	uint8_t op;
	uint8_t reserved[3];
	uint32_t aux;		/* table offset or jump target (instruction index) */
	uint64_t imm;
};

struct flt_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t ninsn;
	uint16_t table_size;
	uint16_t nfields;	/* distinct field names: slots 0..nfields-1 */
	uint32_t reserved;
};

_Static_assert(sizeof(struct flt_insn) == 16, "flt_insn size");
_Static_assert(sizeof(struct flt_hdr) == 16, "flt_hdr size");

/* A value, as the evaluator sees it. */
enum flt_type { FLT_T_NONE, FLT_T_S64, FLT_T_U64, FLT_T_F64, FLT_T_STR, FLT_T_BOOL };

struct flt_value {
	enum flt_type type;
	union {
		int64_t s;
		uint64_t u;
		double d;
		const char *str;	/* NUL-terminated */
	};
};

/* Check bytecode received from elsewhere. 0 or -EINVAL. */
int flt_validate(const void *code, size_t len);

/* Name of field slot @i (0..nfields-1) of validated bytecode, or NULL. */
const char *flt_field_name(const void *code, unsigned int i);
unsigned int flt_nfields(const void *code);

/*
 * Evaluate validated bytecode. @fields[i] is the value of field slot i for
 * this event (type FLT_T_NONE when the event has no such field). Returns
 * 1 (keep) or 0.
 */
int flt_eval(const void *code, const struct flt_value *fields);

/*
 * Integers @a and @b, each signed or not, compared as mathematical values:
 * -1, 0 or 1 (a negative signed value is below every unsigned one).
 */
static inline int flt_int_cmp(int a_signed, uint64_t a, int b_signed, uint64_t b)
{
	if (a_signed && b_signed)
		return (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
	if (a_signed && (int64_t)a < 0)
		return -1;
	if (b_signed && (int64_t)b < 0)
		return 1;
	return a < b ? -1 : a > b;
}

/* Whether comparison @op (FLT_EQ..FLT_GE) holds for a comparison result @r. */
static inline int flt_op_holds(uint8_t op, int r)
{
	switch (op) {
	case FLT_EQ: return r == 0;
	case FLT_NE: return r != 0;
	case FLT_LT: return r < 0;
	case FLT_LE: return r <= 0;
	case FLT_GT: return r > 0;
	default: return r >= 0;
	}
}

/*
 * Most filters are a conjunction of fields compared with integer constants
 * ("seq >= 500 && thread == 1"). flt_conjunction() recognises that form in
 * validated bytecode and lists its comparisons in @out (at most @max):
 * their number, or -1 when the filter has another form. For fields whose
 * values are integers, the filter keeps an event exactly when every term
 * holds: flt_op_holds(op, flt_int_cmp(field signed, value, c_signed, c)),
 * which is what flt_eval() computes; a missing field makes its term false.
 */
struct flt_term {
	uint32_t slot;		/* field slot */
	uint8_t op;		/* FLT_EQ..FLT_GE */
	uint8_t c_signed;	/* the constant is signed (FLT_INT) */
	uint64_t c;
};

int flt_conjunction(const void *code, struct flt_term *out, unsigned int max);

#endif
