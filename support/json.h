/* SPDX-License-Identifier: MIT */
/*
 * json.h - a strict JSON parser (RFC 8259) for documents that anyone may
 * have damaged: a whole text in, a tree of nodes out, or an error that
 * says where (the byte offset) and why; and js_put_str(), the one writer
 * of a JSON string of the daemons and the tools.
 *
 * What it accepts: one value, surrounded by optional white space (space,
 * tab, CR, LF); objects, arrays, strings, numbers, true, false, null.
 * Strings must be valid UTF-8 (no overlong forms, no surrogates, nothing
 * above U+10FFFF) without raw control characters; escapes are \" \\ \/ \b
 * \f \n \r \t and \uXXXX (a surrogate pair makes one character). One
 * extension: a lone low surrogate \uDC80 ... \uDCFF stands for the single
 * byte 0x80 ... 0xFF, as writers of bytes that are not UTF-8 put it
 * (Python's "surrogateescape"); any other lone surrogate is an error.
 * Decoded strings may hold NUL bytes: their length is what counts.
 *
 * Numbers follow JSON's grammar (no '+', no leading zero, no NaN or
 * Infinity). An integer literal that fits in int64_t or uint64_t is kept
 * exact (JS_INT_S64, JS_INT_U64) besides its double; anything else has its
 * double only (strtod(), in the C locale). Object members keep their
 * order, duplicate names included.
 *
 * Limits (struct js_limits): input bytes, nesting depth, nodes. The parser
 * does not recurse: its stack is an array of max_depth entries. Memory
 * stays proportional to the input: a copy of it (strings are decoded in
 * that copy) and 32 bytes per value.
 */
#ifndef SHMTRACE_COMMON_JSON_H
#define SHMTRACE_COMMON_JSON_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

enum js_type { JS_NULL, JS_FALSE, JS_TRUE, JS_NUM, JS_STR, JS_ARR, JS_OBJ };

/* What a number holds besides its double (struct js_node.num). */
enum js_num { JS_REAL, JS_INT_S64, JS_INT_U64 };

struct js_node {
	uint8_t type;			/* enum js_type */
	uint8_t num;			/* JS_NUM: enum js_num */
	uint16_t reserved;
	uint32_t off;			/* byte offset of the value in the input */
	uint32_t len;			/* string: bytes; array, object: members */
	uint32_t end;			/* index of the node after this value's last one */
	uint32_t name, name_len;	/* member of an object: its name (js_name()) */
	union {
		int64_t i;		/* JS_INT_S64 */
		uint64_t u;		/* JS_INT_U64 */
		double d;		/* JS_REAL */
		uint32_t s;		/* string: its bytes (js_str()) */
	} v;
};

struct js_limits {
	size_t max_bytes;		/* input */
	uint32_t max_depth;		/* arrays and objects nested */
	uint32_t max_nodes;		/* values */
};

#define JS_MAX_BYTES	(256u << 20)
#define JS_MAX_DEPTH	64
#define JS_MAX_NODES	(1u << 24)

struct js_doc;

/*
 * The length of the valid UTF-8 sequence at @s (@n bytes at most; a NUL
 * ends it), 1 for ASCII, or 0 when it is not valid UTF-8 (overlong,
 * surrogate, beyond U+10FFFF, cut).
 */
size_t js_utf8_len(const unsigned char *s, size_t n);

/*
 * Write the @n bytes at @s to @out as a JSON string, quotes included:
 * '"' and '\\' escaped, control characters as \u00XX, valid UTF-8 as it
 * is, and each byte of no character as \udcXX (XX the byte), the way
 * Python's surrogateescape reads it back.
 */
void js_put_str(FILE *out, const char *s, size_t n);

/*
 * Parse @len bytes at @text (need not be NUL-terminated) with @lim (NULL:
 * the defaults above). 0 and *@doc, or -EINVAL (with "offset N: why" in
 * @err), -E2BIG past a limit (also said in @err), -ENOMEM.
 */
int js_parse(struct js_doc **doc, const char *text, size_t len, const struct js_limits *lim,
	     char *err, size_t errlen);
void js_free(struct js_doc *doc);

const struct js_node *js_root(const struct js_doc *doc);
/* The first member of array or object @n, or NULL. */
const struct js_node *js_child(const struct js_doc *doc, const struct js_node *n);
/* The member after @c in @parent, or NULL. */
const struct js_node *js_next(const struct js_doc *doc, const struct js_node *parent,
			      const struct js_node *c);
/* A string's bytes (n->len of them, NUL-terminated after), a member's name. */
const char *js_str(const struct js_doc *doc, const struct js_node *n);
const char *js_name(const struct js_doc *doc, const struct js_node *n);
/* The members of object @obj named @name: the first, and how many (@count). */
const struct js_node *js_member(const struct js_doc *doc, const struct js_node *obj,
				const char *name, unsigned int *count);
/* The double of a number (integers converted). */
double js_double(const struct js_node *n);

/*
 * A checked reader of a document that shmtrace wrote and anyone may have
 * damaged since (the session daemon's saved state): each call reads one
 * member of an object and checks it; the first member found missing,
 * repeated, of another type or out of range is kept in @why, and what a
 * failed call returns is 0 or "". Read the whole object, then look at why.
 */
struct js_rd {
	const struct js_doc *doc;
	const char *why;		/* the first member found wrong, or NULL */
};

/* Member @name of @obj (an object; anything else: missing), once, of @type. */
const struct js_node *js_rd_get(struct js_rd *r, const struct js_node *obj, const char *name,
				int type);
/* An integer member from 0 to @max. */
uint64_t js_rd_u64(struct js_rd *r, const struct js_node *obj, const char *name, uint64_t max);
/* ... a member added by later versions: @def when absent. */
uint64_t js_rd_u64_opt(struct js_rd *r, const struct js_node *obj, const char *name,
		       uint64_t max, uint64_t def);
/* An integer member that fits an int32_t. */
int64_t js_rd_s32(struct js_rd *r, const struct js_node *obj, const char *name);
/* A string member into @buf (@cap bytes, NUL included, no NUL inside). */
void js_rd_str(struct js_rd *r, const struct js_node *obj, const char *name, char *buf,
	       size_t cap);

#endif
