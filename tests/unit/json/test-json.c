/* SPDX-License-Identifier: MIT */
/*
 * test-json.c - unit tests of support/json.c: every kind of value, escapes
 * and UTF-8, integers kept exact where a double is not, documents refused
 * with the offset and the reason, the limits (depth, values, bytes), and
 * nesting far past the depth limit without recursion.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/json.h"

static struct js_doc *parse_ok(const char *s)
{
	struct js_doc *d;
	char err[128];
	int rc = js_parse(&d, s, strlen(s), NULL, err, sizeof(err));

	ck_assert_msg(rc == 0, "'%s' refused: %s", s, err);
	return d;
}

/* @s is refused with @want and a message that starts with @msg. */
static void parse_bad(const char *s, size_t len, int want, const char *msg)
{
	struct js_doc *d = (struct js_doc *)1;
	char err[128];
	int rc = js_parse(&d, s, len, NULL, err, sizeof(err));

	ck_assert_msg(rc == want, "'%.*s': %d, wanted %d (%s)", (int)len, s, rc, want, err);
	ck_assert_ptr_null(d);
	ck_assert_msg(!strncmp(err, msg, strlen(msg)), "'%.*s': said '%s', wanted '%s'", (int)len,
		      s, err, msg);
}

START_TEST(test_values)
{
	struct js_doc *d = parse_ok(" {\"a\" : [1, -2, 3.5, true, false, null, \"x\", {}, []],"
				    "\n\t\"b\":{\"c\":\"d\"}, \"a\":0}\r\n");
	const struct js_node *r = js_root(d), *a, *b, *x;
	unsigned int k;
	static const uint8_t types[] = {
		JS_NUM, JS_NUM, JS_NUM, JS_TRUE, JS_FALSE, JS_NULL, JS_STR, JS_OBJ, JS_ARR,
	};
	unsigned int i = 0;

	ck_assert_int_eq(r->type, JS_OBJ);
	ck_assert_uint_eq(r->len, 3);
	ck_assert_uint_eq(r->off, 1);
	a = js_member(d, r, "a", &k);
	ck_assert_uint_eq(k, 2);		/* both kept, in order */
	ck_assert_int_eq(a->type, JS_ARR);
	ck_assert_uint_eq(a->len, 9);
	ck_assert_uint_eq(a->off, 8);
	for (x = js_child(d, a); x; x = js_next(d, a, x))
		ck_assert_int_eq(x->type, types[i++]);
	ck_assert_uint_eq(i, 9);
	x = js_child(d, a);
	ck_assert_int_eq(x->num, JS_INT_S64);
	ck_assert_int_eq(x->v.i, 1);
	ck_assert_uint_eq(x->off, 9);
	x = js_next(d, a, x);
	ck_assert_int_eq(x->v.i, -2);
	x = js_next(d, a, x);
	ck_assert_int_eq(x->num, JS_REAL);
	ck_assert(x->v.d == 3.5);
	b = js_member(d, r, "b", &k);
	ck_assert_uint_eq(k, 1);
	x = js_member(d, b, "c", NULL);
	ck_assert_str_eq(js_str(d, x), "d");
	ck_assert_str_eq(js_name(d, x), "c");
	ck_assert_ptr_null(js_member(d, b, "", &k));
	ck_assert_uint_eq(k, 0);
	/* the last member, a scalar after a nested object */
	x = js_next(d, r, b);
	ck_assert_str_eq(js_name(d, x), "a");
	ck_assert_int_eq(x->v.i, 0);
	ck_assert_ptr_null(js_next(d, r, x));
	js_free(d);

	d = parse_ok("\"top\"");
	ck_assert_int_eq(js_root(d)->type, JS_STR);
	ck_assert_ptr_null(js_child(d, js_root(d)));
	js_free(d);
	d = parse_ok("[[[]],[{}]]");
	ck_assert_uint_eq(js_root(d)->len, 2);
	ck_assert_uint_eq(js_next(d, js_root(d), js_child(d, js_root(d)))->off, 6);
	js_free(d);
}
END_TEST

START_TEST(test_strings)
{
	struct js_doc *d = parse_ok("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u0041\\u00e9\\u20ac\","
				    "\"\\ud83d\\ude00\", \"\\udc80\\udcff\", \"a\\u0000b\","
				    "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", \"\\u007f\"]");
	const struct js_node *r = js_root(d), *s = js_child(d, r);

	ck_assert_str_eq(js_str(d, s), "\"\\/\b\f\n\r\t");
	s = js_next(d, r, s);
	ck_assert_str_eq(js_str(d, s), "A\xc3\xa9\xe2\x82\xac");
	s = js_next(d, r, s);
	ck_assert_str_eq(js_str(d, s), "\xf0\x9f\x98\x80");
	s = js_next(d, r, s);
	ck_assert_str_eq(js_str(d, s), "\x80\xff");	/* bytes that are not UTF-8 */
	s = js_next(d, r, s);
	ck_assert_uint_eq(s->len, 3);
	ck_assert(!memcmp(js_str(d, s), "a\0b", 4));
	s = js_next(d, r, s);
	ck_assert_str_eq(js_str(d, s), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	s = js_next(d, r, s);
	ck_assert_str_eq(js_str(d, s), "\x7f");
	js_free(d);
}
END_TEST

START_TEST(test_numbers)
{
	struct js_doc *d = parse_ok("[0, -0, 9223372036854775807, -9223372036854775808,"
				    "9223372036854775808, 18446744073709551615,"
				    "18446744073709551616, -9223372036854775809,"
				    "9007199254740993, 1e2, 1E+2, -1.25e-1, 0.5, 1e400]");
	const struct js_node *r = js_root(d), *n = js_child(d, r);

	ck_assert_int_eq(n->num, JS_INT_S64);
	ck_assert_int_eq(n->v.i, 0);
	n = js_next(d, r, n);
	ck_assert_int_eq(n->num, JS_INT_S64);
	ck_assert_int_eq(n->v.i, 0);
	n = js_next(d, r, n);
	ck_assert_int_eq(n->num, JS_INT_S64);
	ck_assert_int_eq(n->v.i, INT64_MAX);
	n = js_next(d, r, n);
	ck_assert_int_eq(n->num, JS_INT_S64);
	ck_assert_int_eq(n->v.i, INT64_MIN);
	n = js_next(d, r, n);
	ck_assert_int_eq(n->num, JS_INT_U64);
	ck_assert_uint_eq(n->v.u, (uint64_t)INT64_MAX + 1);
	n = js_next(d, r, n);
	ck_assert_int_eq(n->num, JS_INT_U64);
	ck_assert_uint_eq(n->v.u, UINT64_MAX);
	n = js_next(d, r, n);
	ck_assert_int_eq(n->num, JS_REAL);
	ck_assert(n->v.d == 18446744073709551616.0);
	n = js_next(d, r, n);
	ck_assert_int_eq(n->num, JS_REAL);
	ck_assert(js_double(n) == -9223372036854775808.0);
	n = js_next(d, r, n);
	ck_assert_int_eq(n->num, JS_INT_S64);
	ck_assert_int_eq(n->v.i, 9007199254740993);	/* no double has it */
	n = js_next(d, r, n);
	ck_assert_int_eq(n->num, JS_REAL);
	ck_assert(n->v.d == 100);
	n = js_next(d, r, n);
	ck_assert(n->v.d == 100);
	n = js_next(d, r, n);
	ck_assert(n->v.d == -0.125);
	n = js_next(d, r, n);
	ck_assert(n->v.d == 0.5);
	n = js_next(d, r, n);
	ck_assert(n->v.d > 1e308);	/* grammatical; out of a double's range */
	js_free(d);
}
END_TEST

START_TEST(test_refused)
{
	static const struct { const char *s; const char *msg; } bad[] = {
		{ "", "offset 0: empty document" },
		{ "  ", "offset 2: unexpected end of input" },
		{ "[", "offset 1: unexpected end of input" },
		{ "[1,]", "offset 3: unexpected character" },
		{ "[1 2]", "offset 3: expected ',' or ']'" },
		{ "{\"a\":1 \"b\":2}", "offset 7: expected ',' or '}'" },
		{ "{\"a\"}", "offset 4: expected ':'" },
		{ "{\"a\":}", "offset 5: unexpected character" },
		{ "{a:1}", "offset 1: expected a member name" },
		{ "{\"a\":1,}", "offset 7: expected a member name" },
		{ "{,}", "offset 1: expected a member name" },
		{ "[1]]", "offset 3: more after the document" },
		{ "[1] x", "offset 4: more after the document" },
		{ "[01]", "offset 1: number with a leading zero" },
		{ "[-01]", "offset 1: number with a leading zero" },
		{ "[1.]", "offset 1: bad number" },
		{ "[.5]", "offset 1: unexpected character" },
		{ "[+1]", "offset 1: unexpected character" },
		{ "[1e]", "offset 1: bad number" },
		{ "[1e+]", "offset 1: bad number" },
		{ "[-]", "offset 1: bad number" },
		{ "[- 1]", "offset 1: bad number" },
		{ "NaN", "offset 0: unexpected character" },
		{ "[Infinity]", "offset 1: unexpected character" },
		{ "[-Infinity]", "offset 1: bad number" },
		{ "tru", "offset 0: unexpected character" },
		{ "nul", "offset 0: unexpected character" },
		{ "truex", "offset 4: more after the document" },
		{ "[True]", "offset 1: unexpected character" },
		{ "\"abc", "offset 0: string not terminated" },
		{ "[\"abc\\", "offset 1: string not terminated" },
		{ "\"\\x\"", "offset 1: bad escape" },
		{ "\"\\'\"", "offset 1: bad escape" },
		{ "\"\\u12\"", "offset 1: bad \\u escape" },
		{ "\"\\u12g4\"", "offset 1: bad \\u escape" },
		{ "\"\\ud800\"", "offset 1: lone surrogate \\ud800" },
		{ "\"\\ud800\\u0041\"", "offset 1: lone surrogate \\ud800" },
		{ "\"\\udc00\"", "offset 1: lone surrogate \\udc00" },
		{ "\"\\udd00\"", "offset 1: lone surrogate \\udd00" },
		{ "\"a\nb\"", "offset 2: control character in a string" },
		{ "\"\t\"", "offset 1: control character in a string" },
		{ "\"\xc3\"", "offset 1: not UTF-8" },
		{ "\"\xc3(\"", "offset 1: not UTF-8" },
		{ "\"\xc0\x80\"", "offset 1: not UTF-8" },		/* overlong */
		{ "\"\xe0\x80\xaf\"", "offset 1: not UTF-8" },	/* overlong */
		{ "\"\xed\xa0\x80\"", "offset 1: not UTF-8" },	/* a surrogate */
		{ "\"\xf4\x90\x80\x80\"", "offset 1: not UTF-8" },	/* past U+10FFFF */
		{ "\"\xff\"", "offset 1: not UTF-8" },
		{ "\xef\xbb\xbf[]", "offset 0: unexpected character" },	/* a BOM */
		{ "{\"\xc3\":1}", "offset 2: not UTF-8" },
	};

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		parse_bad(bad[i].s, strlen(bad[i].s), -EINVAL, bad[i].msg);
	parse_bad("[1,\0]", 5, -EINVAL, "offset 3: unexpected character");
	parse_bad("\"a\0\"", 4, -EINVAL, "offset 2: control character in a string");
}
END_TEST

/* @n arrays nested, with @tail after the innermost opening. */
static char *nested(unsigned int n, const char *tail)
{
	size_t t = strlen(tail);
	char *s = malloc(2 * (size_t)n + t + 1);

	ck_assert_ptr_nonnull(s);
	memset(s, '[', n);
	memcpy(s + n, tail, t);
	memset(s + n + t, ']', n);
	s[2 * n + t] = 0;
	return s;
}

START_TEST(test_limits)
{
	struct js_limits lim = { .max_bytes = 64, .max_depth = 3, .max_nodes = 5 };
	struct js_doc *d;
	char err[128], *s;
	int rc;

	s = nested(JS_MAX_DEPTH, "1");
	js_free(parse_ok(s));
	free(s);
	s = nested(JS_MAX_DEPTH + 1, "");
	parse_bad(s, strlen(s), -E2BIG, "offset 64: nested deeper than 64");
	free(s);
	/* far deeper than the limit: refused as soon as it is passed, no recursion */
	s = nested(10u << 20, "");
	parse_bad(s, strlen(s), -E2BIG, "offset 64: nested deeper than 64");
	free(s);

	ck_assert_int_eq(js_parse(&d, "[[[1]]]", 7, &lim, err, sizeof(err)), 0);
	js_free(d);
	ck_assert_int_eq(js_parse(&d, "[[[[1]]]]", 9, &lim, err, sizeof(err)), -E2BIG);
	ck_assert_str_eq(err, "offset 3: nested deeper than 3");
	ck_assert_int_eq(js_parse(&d, "[1,2,3,4]", 9, &lim, err, sizeof(err)), 0);
	js_free(d);
	ck_assert_int_eq(js_parse(&d, "[1,2,3,4,5]", 11, &lim, err, sizeof(err)), -E2BIG);
	ck_assert_str_eq(err, "offset 9: more than 5 values");
	s = calloc(1, 70);
	ck_assert_ptr_nonnull(s);
	memset(s, ' ', 65);
	s[0] = '1';
	ck_assert_int_eq(js_parse(&d, s, 64, &lim, err, sizeof(err)), 0);
	js_free(d);
	ck_assert_int_eq(js_parse(&d, s, 65, &lim, err, sizeof(err)), -E2BIG);
	ck_assert_str_eq(err, "offset 0: larger than 64 bytes");
	free(s);

	/* a number literal of more than 1024 characters */
	s = malloc(2000);
	ck_assert_ptr_nonnull(s);
	memset(s, '1', 1025);
	ck_assert_int_eq(js_parse(&d, s, 1024, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(js_root(d)->num, JS_REAL);
	js_free(d);
	rc = js_parse(&d, s, 1025, NULL, err, sizeof(err));
	ck_assert_int_eq(rc, -E2BIG);
	ck_assert_str_eq(err, "offset 0: number longer than 1024 characters");
	free(s);
	/* no room for a message: still refused */
	ck_assert_int_eq(js_parse(&d, "[", 1, NULL, NULL, 0), -EINVAL);
}
END_TEST

START_TEST(test_many_values)
{
	/* 1M values: nodes grow, walking is linear */
	size_t n = 1u << 20, len = 2 * n + 1;
	char *s = malloc(len + 1);
	struct js_doc *d;
	const struct js_node *r, *x;
	char err[128];
	size_t count = 0;

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < n; i++) {
		s[2 * i] = i ? ',' : '[';
		s[2 * i + 1] = (char)('0' + i % 10);
	}
	s[len - 1] = ']';
	s[len] = 0;
	ck_assert_int_eq(js_parse(&d, s, len, NULL, err, sizeof(err)), 0);
	r = js_root(d);
	ck_assert_uint_eq(r->len, n);
	for (x = js_child(d, r); x; x = js_next(d, r, x))
		ck_assert_int_eq(x->v.i, (int64_t)(count++ % 10));
	ck_assert_uint_eq(count, n);
	js_free(d);
	free(s);
}
END_TEST

/* js_put_str(): escapes, UTF-8 kept, a byte of no character as \udcXX;
 * what it writes parses back to the same bytes where they were UTF-8 */
START_TEST(test_put_str)
{
	static const struct {
		const char *in;
		size_t n;
		const char *out;
	} cases[] = {
		{ "plain", 5, "\"plain\"" },
		{ "q\"b\\", 4, "\"q\\\"b\\\\\"" },
		{ "\x01\t\x7f", 3, "\"\\u0001\\u0009\\u007f\"" },
		{ "\xc3\xa9t\xc3\xa9", 5, "\"\xc3\xa9t\xc3\xa9\"" },
		{ "a\xff" "b", 3, "\"a\\udcffb\"" },
		{ "\xc3", 1, "\"\\udcc3\"" },		/* cut at the end */
		{ "x\0y", 3, "\"x\\u0000y\"" },		/* n bytes, NUL included */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		ck_assert_ptr_nonnull(f);
		js_put_str(f, cases[i].in, cases[i].n);
		fclose(f);
		ck_assert_msg(!strcmp(buf, cases[i].out), "case %zu: %s", i, buf);
		free(buf);
	}
}
END_TEST

/* The checked reader: each wrong member is refused, the first one kept. */
START_TEST(test_checked_reader)
{
	static const char text[] = "{\"a\":7,\"b\":-1,\"c\":\"xy\",\"d\":1,\"d\":2,"
				   "\"e\":\"x\\u0000y\",\"f\":2147483648,\"g\":-5}";
	struct js_doc *doc = NULL;
	char err[128], buf[8];
	struct js_rd r = { 0 };
	const struct js_node *o;

	ck_assert_int_eq(js_parse(&doc, text, strlen(text), NULL, err, sizeof(err)), 0);
	o = js_root(doc);
	r.doc = doc;
	ck_assert_uint_eq(js_rd_u64(&r, o, "a", 10), 7);
	ck_assert_ptr_null(r.why);
	ck_assert_uint_eq(js_rd_u64(&r, o, "a", 6), 0);		/* beyond max */
	ck_assert_str_eq(r.why, "a");
	ck_assert_uint_eq(js_rd_u64(&r, o, "b", 10), 0);		/* negative */
	ck_assert_str_eq(r.why, "a");				/* the first kept */
	r.why = NULL;
	js_rd_str(&r, o, "c", buf, sizeof(buf));
	ck_assert_str_eq(buf, "xy");
	js_rd_str(&r, o, "c", buf, 2);				/* no room for it */
	ck_assert_str_eq(buf, "");
	ck_assert_str_eq(r.why, "c");
	r.why = NULL;
	ck_assert_uint_eq(js_rd_u64(&r, o, "d", 10), 0);		/* repeated */
	ck_assert_str_eq(r.why, "d");
	r.why = NULL;
	js_rd_str(&r, o, "e", buf, sizeof(buf));		/* a NUL inside */
	ck_assert_str_eq(r.why, "e");
	r.why = NULL;
	ck_assert_int_eq(js_rd_s32(&r, o, "g"), -5);
	ck_assert_int_eq(js_rd_s32(&r, o, "f"), 0);
	ck_assert_str_eq(r.why, "f");
	r.why = NULL;
	ck_assert_uint_eq(js_rd_u64_opt(&r, o, "absent", 10, 3), 3);	/* a later member */
	ck_assert_uint_eq(js_rd_u64_opt(&r, o, "a", 10, 3), 7);
	ck_assert_ptr_null(r.why);
	ck_assert_ptr_null(js_rd_get(&r, o, "c", JS_NUM));		/* another type */
	ck_assert_str_eq(r.why, "c");
	r.why = NULL;
	ck_assert_ptr_null(js_rd_get(&r, js_child(doc, o), "a", JS_NUM));	/* not an object */
	ck_assert_str_eq(r.why, "a");
	js_free(doc);
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_many_values);
	tcase_add_test(tc, test_put_str);
	tcase_add_test(tc, test_checked_reader);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(json_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
