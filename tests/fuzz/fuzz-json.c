/* SPDX-License-Identifier: MIT */
/*
 * fuzz-json.c - fuzz target for the JSON parser (common/json.c) and the
 * reader of aggregations.json (common/aggjson.c): files anyone may have
 * damaged.
 *
 * Each input is a document, read from an exact-size copy (no NUL after
 * it, so that sanitizers see any read past the end):
 *  1. js_parse(), with the default limits and with small ones, either
 *     fails with -EINVAL or -E2BIG and an "offset N: why" message, N within
 *     the input, or gives a tree whose every array and object has as many
 *     members as it says and whose nodes lie within the input.
 *  2. agg_json_read() either fails the same way or gives views that print
 *     (text and JSON); the JSON printed reads back, and prints the same
 *     text and the same JSON again: what is read is what is written.
 *
 * A broken invariant aborts, which both libFuzzer and driver.c report.
 * Under `make check` the target is linked with driver.c, whose seed corpus
 * is tests/fuzz/corpus-json; fuzz_tokens below are spliced in by its
 * mutations (and tell it that inputs are text without a message header).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/aggjson.h"
#include "support/json.h"
#include "fuzz.h"

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "fuzz-json: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		abort();							\
	}									\
} while (0)

const char *const fuzz_tokens[] = {
	"{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud83d\\ude00", "\\udc80", "\\u0000",
	"null", "true", "-", "0", "1e400", "9223372036854775808", "-9223372036854775809",
	"18446744073709551616", "\"lo\":null", "\"hi\":null", "\"count\":0", "\"key\":[]",
	"\"fn\":\"lquantize\"", "\"step\":1", "\"str\"", "\"int\"", "\xc3", "\xed\xa0\x80",
	"[[[[[[[[[[[[[[[[", NULL,
};

/* Whether @err is "offset N: ..." with N <= @size. */
static int says_where(const char *err, size_t size)
{
	unsigned long long off;
	int used = 0;

	if (sscanf(err, "offset %llu: %n", &off, &used) != 1 || !used || !err[used])
		return 0;
	return off <= size;
}

/* Every container has the members it counts (depth bounded by the parser). */
static void walk(const struct js_doc *d, const struct js_node *n, size_t size)
{
	uint32_t count = 0;

	CHECK(n->off < size);
	if (n->type == JS_STR)
		CHECK(js_str(d, n)[n->len] == 0);
	if (n->type != JS_ARR && n->type != JS_OBJ)
		return;
	for (const struct js_node *c = js_child(d, n); c; c = js_next(d, n, c)) {
		CHECK(c->off > n->off && c->off < size);
		CHECK((js_name(d, c) != NULL) == (n->type == JS_OBJ));
		walk(d, c, size);
		count++;
	}
	CHECK(count == n->len);
}

static void parse(const char *text, size_t size, const struct js_limits *lim)
{
	struct js_doc *d;
	char err[256];
	int rc = js_parse(&d, text, size, lim, err, sizeof(err));

	if (rc) {
		CHECK(rc == -EINVAL || rc == -E2BIG || rc == -ENOMEM);
		CHECK(!d);
		CHECK(rc == -ENOMEM || says_where(err, size));
		return;
	}
	walk(d, js_root(d), size);
	js_free(d);
}

/* The text and the JSON of every view of @doc, in memory. */
static void print(struct agg_json_doc *doc, char **text, size_t *tlen, char **json,
		  size_t *jlen)
{
	FILE *t = open_memstream(text, tlen), *j = open_memstream(json, jlen);
	struct agg_json_writer w;

	CHECK(t && j);
	agg_json_begin(&w, j);
	for (uint32_t i = 0; i < agg_json_count(doc); i++) {
		CHECK(agg_view_text(t, agg_json_view(doc, i)) == 0);
		CHECK(agg_json_add_view(&w, agg_json_view(doc, i)) == 0);
	}
	CHECK(agg_json_end(&w) == 0);
	fclose(t);
	fclose(j);
}

static void aggregations(const char *text, size_t size)
{
	struct agg_json_doc *doc, *again;
	char err[256], *t1, *j1, *t2, *j2;
	size_t tl1, jl1, tl2, jl2;
	int rc = agg_json_read(&doc, text, size, err, sizeof(err));

	if (rc) {
		CHECK(rc == -EINVAL || rc == -E2BIG || rc == -ENOMEM);
		CHECK(!doc);
		CHECK(rc == -ENOMEM || says_where(err, size));
		return;
	}
	print(doc, &t1, &tl1, &j1, &jl1);
	rc = agg_json_read(&again, j1, jl1, err, sizeof(err));
	if (rc)
		fprintf(stderr, "fuzz-json: written, not read back: %s\n%s\n", err, j1);
	CHECK(rc == 0);
	CHECK(agg_json_count(again) == agg_json_count(doc));
	print(again, &t2, &tl2, &j2, &jl2);
	CHECK(tl1 == tl2 && !memcmp(t1, t2, tl1));
	CHECK(jl1 == jl2 && !memcmp(j1, j2, jl1));
	agg_json_free(again);
	agg_json_free(doc);
	free(t1);
	free(j1);
	free(t2);
	free(j2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct js_limits small = { .max_bytes = 4096, .max_depth = 8,
						.max_nodes = 256 };
	char *text = malloc(size ? size : 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	parse(text, size, NULL);
	parse(text, size, &small);
	aggregations(text, size);
	free(text);
	return 0;
}
