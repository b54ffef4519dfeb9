/* SPDX-License-Identifier: MIT */
/*
 * tsdl-parse.h - the second stage of the TSDL parser (tsdl.h): the text,
 * read as tokens (tsdl-lex.h), into a small generic type tree (integer,
 * floating point, string, struct, enum, variant, array, sequence), the
 * trace, env and clock blocks into the result, and the stream and event
 * blocks into the lists of the parse's state, which lowering
 * (tsdl-lower.h) turns into the result's classes.
 */
#ifndef SHMTRACE_READER_TSDL_PARSE_H
#define SHMTRACE_READER_TSDL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "tsdl.h"
#include "tsdl-lex.h"

/* ---- the type tree (everything in the parse's arena) -------------------- */

enum tsdl_tkind {
	TK_INT_T,
	TK_FLOAT_T,
	TK_STRING_T,
	TK_STRUCT_T,
	TK_ENUM_T,
	TK_VARIANT_T,
	TK_ARRAY_T,
	TK_SEQ_T,
};

struct tsdl_member;

/* A mapping of an enumeration: label = lo ... hi (container's signedness). */
struct tsdl_enum_map {
	const char *label;
	int64_t lo, hi;		/* unsigned containers: uint64 bit patterns */
	struct tsdl_enum_map *next;
};

struct tsdl_type {
	enum tsdl_tkind kind;
	int line;
	unsigned size, align, base;
	bool is_signed;
	const char *map;		/* integer mapped to a clock */
	unsigned exp_dig, mant_dig;
	struct tsdl_type *elem;		/* array, sequence, enum container */
	uint32_t length;		/* array */
	const char *length_name;	/* sequence */
	const char *tag;		/* variant */
	struct tsdl_member *members;	/* struct, variant */
	unsigned nmembers;
	struct tsdl_enum_map *maps;	/* enum, in declaration order */
	bool be;			/* integer, float: big-endian */
	bool text;			/* integer: encoding UTF8 or ASCII */
	unsigned falign;		/* general traces: alignment in bits of the
					 * first bit (0: depends on a variant's option) */
	unsigned depth;			/* general traces: nesting, 0 before known */
	int64_t sbits;			/* general traces: its size in bits when it is
					 * the same wherever it starts on a byte (only
					 * byte-sized members aligned on at most a byte:
					 * no string, sequence or variant); else -1 */
};

struct tsdl_member {
	const char *name;
	int line;
	struct tsdl_type *type;
	struct tsdl_member *next;
};

/* A stream block being parsed. */
struct tsdl_sc {
	struct tsdl_stream_class cls;
	int line;
	uint32_t index;		/* in tsdl_metadata.streams, set at the end */
	struct tsdl_type *packet_context, *event_header;
	struct tsdl_type *event_context;	/* general traces */
	struct tsdl_sc *next;
};

struct tsdl_ev {
	struct tsdl_event_class cls;
	int line;
	bool has_id, has_name, has_stream_id;
	uint64_t stream_id;
	struct tsdl_sc *sc;	/* NULL: no stream_id given */
	struct tsdl_ev *next;
};

/*
 * Parse the whole text (P->p to P->end) into P: 0, or the error said
 * (-EINVAL, -ENOMEM). What remains to be done then is tsdl_finish().
 */
int tsdl_parse_top(struct tsdl_parser *P);

#endif
