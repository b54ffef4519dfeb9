/* SPDX-License-Identifier: MIT */
/*
 * tsdl-lex.h - the first stage of the TSDL parser (tsdl.h): the state of
 * one parse, which every stage shares (struct tsdl_parser), its errors,
 * and the tokens of the text, one of look-ahead (P->tok), read lazily.
 * Tokens are identifiers and keywords (copied into the arena), integers
 * (decimal, octal, hexadecimal, with C suffixes), string literals and
 * punctuation, ":=" and "..." included; blanks and comments are skipped.
 */
#ifndef SHMTRACE_READER_TSDL_LEX_H
#define SHMTRACE_READER_TSDL_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tsdl.h"
#include "tsdl-arena.h"

struct tsdl_ev;
struct tsdl_sc;
struct tsdl_type;

enum tsdl_tok {
	T_EOF,
	T_IDENT,
	T_INT,
	T_STR,
	T_PUNCT,
};

#define P_TYPEASSIGN 'A'	/* ":=" */
#define P_ELLIPSIS 'E'		/* "..." */

struct tsdl_token {
	enum tsdl_tok kind;
	int line;
	const char *s;		/* identifier (arena copy, NUL-terminated) */
	uint64_t ival;
	int punct;
};

/*
 * The state of one parse, which the three stages share: the text, where
 * the lexer is in it and its current token; the first error; the arena;
 * then what the parser collects (tsdl-parse.h) and lowering turns into
 * the result (tsdl-lower.h).
 */
struct tsdl_parser {
	const char *path;		/* for messages */
	const char *p, *end;		/* the text not read yet */
	int line;			/* of P->p */
	int depth;			/* nesting of the type being parsed */
	bool failed;			/* an error was said: the parse unwinds */
	char *err;
	size_t errlen;
	struct tsdl_chunk *arena;
	struct tsdl_token tok;		/* the token of look-ahead */
	struct tsdl_map aliases;	/* name -> struct tsdl_type */
	struct tsdl_map env_keys;	/* the env keys (a set: key -> key) */
	struct tsdl_metadata *m;
	struct tsdl_env_entry *env_list;	/* grown by copy */
	uint32_t env_cap;
	struct tsdl_ev *evs;
	uint32_t nevs;
	struct tsdl_sc *scs;		/* stream classes, last declared first */
	uint32_t nscs;
	struct tsdl_stream_class *streams;	/* the result's, by id */
	bool seen_trace, seen_clock;
	int trace_line;
	struct tsdl_type *packet_header;
	bool general;			/* the general CTF form (tsdl.h) */
	struct tsdl_map structs;	/* struct NAME -> struct tsdl_type */
};

/*
 * Say "PATH:LINE: what" into P->err, unless an error was said already
 * (the first error wins: the parser then unwinds, and the message names
 * the first bad line). Returns -EINVAL.
 */
__attribute__((format(printf, 3, 4)))
int tsdl_err(struct tsdl_parser *P, int line, const char *fmt, ...);
/* "out of memory" at the current line; returns -ENOMEM. */
int tsdl_nomem(struct tsdl_parser *P);

/* The value of hexadecimal digit @c, 99 when it is none. */
int tsdl_digit(int c);

/* Read the next token into P->tok (T_EOF at the end, or after an error). */
void tsdl_next(struct tsdl_parser *P);
/* Is the token punctuation @c? */
bool tsdl_is_punct(struct tsdl_parser *P, int c);
/* When the token is punctuation @c, take it: true. */
bool tsdl_accept(struct tsdl_parser *P, int c);
/* Is the token the identifier @kw? */
bool tsdl_is_kw(struct tsdl_parser *P, const char *kw);
/* The token, for messages ("'x'", "integer 3", "end of file"), in @buf or static. */
const char *tsdl_describe(struct tsdl_parser *P, char *buf, size_t n);
/* Take punctuation @c: 0, or the error said. */
int tsdl_expect(struct tsdl_parser *P, int c);
/* Take an identifier into *@out: 0, or the error said. */
int tsdl_expect_ident(struct tsdl_parser *P, const char **out);

#endif
