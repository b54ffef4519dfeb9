/* SPDX-License-Identifier: MIT */
/*
 * tsdl-lex.c - the tokens of TSDL text and the errors of a parse (see
 * tsdl-lex.h).
 *
 * Invariants:
 *  - the lexer never reads past P->end (the text need not be
 *    NUL-terminated);
 *  - the first error wins: once P->failed is set, later messages are
 *    dropped, and a lexing error ends the text (P->tok is T_EOF).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tsdl-lex.h"

int tsdl_err(struct tsdl_parser *P, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (P->failed)
		return -EINVAL;
	P->failed = true;
	if (!P->err || !P->errlen)
		return -EINVAL;
	n = snprintf(P->err, P->errlen, "%s:%d: ", P->path, line);
	if (n < 0 || (size_t)n >= P->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(P->err + n, P->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int tsdl_nomem(struct tsdl_parser *P)
{
	tsdl_err(P, P->line, "out of memory");
	return -ENOMEM;
}

static char *tsdl_strndup(struct tsdl_parser *P, const char *s, size_t n)
{
	char *d = tsdl_alloc(&P->arena, n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static bool tsdl_is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool tsdl_is_ident(int c)
{
	return tsdl_is_ident_start(c) || (c >= '0' && c <= '9');
}

int tsdl_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

static void tsdl_lex_fail(struct tsdl_parser *P, const char *what)
{
	tsdl_err(P, P->line, "%s", what);
	P->tok.kind = T_EOF;
	P->p = P->end;
}

/*
 * Skip blanks and comments. Blanks are what babeltrace2 takes as such:
 * space, tab, carriage return and newline; a vertical tab or a form feed
 * (C's other white space) is an unexpected character there, and here.
 */
static void tsdl_skip_space(struct tsdl_parser *P)
{
	while (P->p < P->end) {
		char c = *P->p;

		if (c == '\n') {
			P->line++;
			P->p++;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			P->p++;
		} else if (c == '/' && P->end - P->p >= 2 && P->p[1] == '*') {
			P->p += 2;
			for (;;) {
				/*
				 * A comment left open at the end of the text
				 * ends there, as babeltrace2 reads it.
				 */
				if (P->end - P->p < 2) {
					P->p = P->end;
					return;
				}
				if (P->p[0] == '*' && P->p[1] == '/') {
					P->p += 2;
					break;
				}
				if (*P->p == '\n')
					P->line++;
				P->p++;
			}
		} else if (c == '/' && P->end - P->p >= 2 && P->p[1] == '/') {
			while (P->p < P->end && *P->p != '\n')
				P->p++;
		} else {
			break;
		}
	}
}

static void tsdl_lex_string(struct tsdl_parser *P)
{
	const char *start = ++P->p;	/* after the opening quote */
	char *out, *o;

	while (P->p < P->end && *P->p != '"') {
		if (*P->p == '\\' && P->end - P->p >= 2)
			P->p++;
		if (*P->p == '\n')
			P->line++;
		P->p++;
	}
	if (P->p >= P->end) {
		tsdl_lex_fail(P, "unterminated string literal");
		return;
	}
	out = tsdl_alloc(&P->arena, P->p - start + 1);
	if (!out) {
		tsdl_lex_fail(P, "out of memory");
		return;
	}
	for (o = out; start < P->p; start++) {
		char c = *start;

		if (c == '\\') {
			c = *++start;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'v': c = '\v'; break;
			case '0': c = '\0'; break;
			default: break;	/* \" \\ \' and unknown: literal */
			}
			/* \0: the string ends there (a C string) */
		}
		*o++ = c;
	}
	*o = '\0';
	P->p++;			/* closing quote */
	P->tok.kind = T_STR;
	P->tok.s = out;
}

static void tsdl_lex_number(struct tsdl_parser *P)
{
	unsigned base = 10;
	uint64_t v = 0;
	int ndig = 0;

	if (P->p[0] == '0' && P->end - P->p >= 2 &&
	    (P->p[1] == 'x' || P->p[1] == 'X')) {
		base = 16;
		P->p += 2;
	} else if (P->p[0] == '0' && P->end - P->p >= 2 &&
		   P->p[1] >= '0' && P->p[1] <= '9') {
		base = 8;
		P->p++;
	}
	while (P->p < P->end) {
		unsigned d = tsdl_digit(*P->p);

		if (d >= base)
			break;
		if (v > (UINT64_MAX - d) / base) {
			tsdl_lex_fail(P, "integer literal out of range");
			return;
		}
		v = v * base + d;
		ndig++;
		P->p++;
	}
	if (!ndig) {
		tsdl_lex_fail(P, "malformed integer literal");
		return;
	}
	while (P->p < P->end && (*P->p == 'u' || *P->p == 'U' ||
				 *P->p == 'l' || *P->p == 'L'))
		P->p++;
	if (P->p < P->end && tsdl_is_ident(*P->p)) {
		tsdl_lex_fail(P, "malformed integer literal");
		return;
	}
	P->tok.kind = T_INT;
	P->tok.ival = v;
}

/* Advance to the next token. On a lexical error the token becomes T_EOF. */
void tsdl_next(struct tsdl_parser *P)
{
	const char *s;
	char c;

	if (P->failed) {
		P->tok.kind = T_EOF;
		return;
	}
	tsdl_skip_space(P);
	P->tok.line = P->line;
	if (P->p >= P->end) {
		P->tok.kind = T_EOF;
		return;
	}
	c = *P->p;
	if (tsdl_is_ident_start(c)) {
		/* identifiers may be dotted: packet.header, clock.x.value */
		s = P->p;
		for (;;) {
			while (P->p < P->end && tsdl_is_ident(*P->p))
				P->p++;
			if (P->end - P->p >= 2 && P->p[0] == '.' &&
			    tsdl_is_ident_start(P->p[1]))
				P->p++;
			else
				break;
		}
		P->tok.kind = T_IDENT;
		P->tok.s = tsdl_strndup(P, s, P->p - s);
		if (!P->tok.s)
			tsdl_lex_fail(P, "out of memory");
		return;
	}
	if (c >= '0' && c <= '9') {
		tsdl_lex_number(P);
		return;
	}
	if (c == '"') {
		tsdl_lex_string(P);
		return;
	}
	P->tok.kind = T_PUNCT;
	if (c == ':' && P->end - P->p >= 2 && P->p[1] == '=') {
		P->tok.punct = P_TYPEASSIGN;
		P->p += 2;
		return;
	}
	if (c == '.' && P->end - P->p >= 3 && P->p[1] == '.' && P->p[2] == '.') {
		P->tok.punct = P_ELLIPSIS;
		P->p += 3;
		return;
	}
	if (c && strchr("{}[]()<>;=:,-+", c)) {
		P->tok.punct = c;
		P->p++;
		return;
	}
	if (c >= 0x20 && c < 0x7f)
		tsdl_err(P, P->line, "unexpected character '%c'", c);
	else
		tsdl_err(P, P->line, "unexpected byte 0x%02x",
			 (unsigned char)c);
	P->tok.kind = T_EOF;
	P->p = P->end;
}

bool tsdl_is_punct(struct tsdl_parser *P, int c)
{
	return P->tok.kind == T_PUNCT && P->tok.punct == c;
}

bool tsdl_accept(struct tsdl_parser *P, int c)
{
	if (!tsdl_is_punct(P, c))
		return false;
	tsdl_next(P);
	return true;
}

bool tsdl_is_kw(struct tsdl_parser *P, const char *kw)
{
	return P->tok.kind == T_IDENT && !strcmp(P->tok.s, kw);
}

const char *tsdl_describe(struct tsdl_parser *P, char *buf, size_t n)
{
	switch (P->tok.kind) {
	case T_EOF:
		return "end of file";
	case T_IDENT:
		snprintf(buf, n, "'%s'", P->tok.s);
		return buf;
	case T_INT:
		snprintf(buf, n, "integer %" PRIu64, P->tok.ival);
		return buf;
	case T_STR:
		return "string literal";
	case T_PUNCT:
		if (P->tok.punct == P_TYPEASSIGN)
			return "':='";
		if (P->tok.punct == P_ELLIPSIS)
			return "'...'";
		snprintf(buf, n, "'%c'", P->tok.punct);
		return buf;
	}
	return "?";
}

int tsdl_expect(struct tsdl_parser *P, int c)
{
	char buf[96];

	if (tsdl_accept(P, c))
		return 0;
	if (c == P_TYPEASSIGN)
		return tsdl_err(P, P->tok.line, "expected ':=' before %s",
				tsdl_describe(P, buf, sizeof(buf)));
	return tsdl_err(P, P->tok.line, "expected '%c' before %s", c,
			tsdl_describe(P, buf, sizeof(buf)));
}

int tsdl_expect_ident(struct tsdl_parser *P, const char **out)
{
	char buf[96];

	if (P->tok.kind != T_IDENT)
		return tsdl_err(P, P->tok.line, "expected an identifier, got %s",
				tsdl_describe(P, buf, sizeof(buf)));
	*out = P->tok.s;
	tsdl_next(P);
	return 0;
}
