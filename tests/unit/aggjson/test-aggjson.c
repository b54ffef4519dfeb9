/* SPDX-License-Identifier: MIT */
/*
 * test-aggjson.c - unit tests of aggregations.json (support/aggfmt.c writes
 * it, support/aggjson.c reads it back): merged results -> JSON -> read ->
 * text is merged results -> text, byte for byte, and the JSON written again
 * from what was read is the same document; string keys with quotes,
 * control characters and bytes that are not UTF-8, negative and extreme
 * values, lquantize's outer buckets, empty aggregations, several in one
 * document, repeated labels; documents that are not what is written are
 * refused with the offset and the reason, unknown members ignored.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agg.h"
#include "support/aggmerge.h"
#include "support/aggfmt.h"
#include "support/aggjson.h"

/* Merged results of @nev events of @nv values each, through one table. */
static void merged_from(struct agg_merged *m, const struct agg_def *d, const struct flt_value *ev,
			unsigned int nv, unsigned int nev)
{
	struct agg_geom g;
	size_t len;
	void *t, *copy;

	ck_assert_int_eq(agg_geom(d, &g), 0);
	len = agg_table_size(&g, 64);
	t = calloc(1, len);
	copy = malloc(len);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(copy);
	agg_table_init(t, d, &g, 64);
	for (unsigned int i = 0; i < nev; i++)
		ck_assert_int_eq(agg_update(t, d, &g, ev + (size_t)i * nv, nv), 0);
	ck_assert_int_eq(agg_merged_init(m, d), 0);
	ck_assert_int_eq(agg_snapshot(t, len, d, &g, copy), 1);
	ck_assert_int_eq(agg_merge(m, copy, 0), 0);
	free(copy);
	free(t);
}

/* The merged entry whose first (integer) key is @k, to be changed. */
static char *entry_int(struct agg_merged *m, int64_t k)
{
	for (uint32_t i = 0; i < m->n; i++) {
		int64_t v;

		memcpy(&v, agg_entry(m, i) + m->geom.key_off[0], 8);
		if (v == k)
			return (char *)agg_entry(m, i);
	}
	ck_abort_msg("no entry %lld", (long long)k);
	return NULL;
}

static void put64(char *e, uint32_t off, uint64_t v)
{
	memcpy(e + off, &v, 8);
}

static void expect_str(const char *got, const char *want)
{
	if (strcmp(got, want))
		fprintf(stderr, "got:\n%s\nwanted:\n%s\n", got, want);
	ck_assert_msg(!strcmp(got, want), "printed text differs (see above)");
}

static char *doc_of(struct agg_merged **m, const struct agg_names **n, unsigned int k)
{
	struct agg_json_writer w;
	char *s;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	ck_assert_ptr_nonnull(f);
	agg_json_begin(&w, f);
	for (unsigned int i = 0; i < k; i++)
		ck_assert_int_eq(agg_json_add(&w, m[i], n[i]), 0);
	ck_assert_int_eq(agg_json_end(&w), 0);
	fclose(f);
	return s;
}

static char *text_of(struct agg_merged **m, const struct agg_names **n, unsigned int k)
{
	char *s;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	ck_assert_ptr_nonnull(f);
	for (unsigned int i = 0; i < k; i++)
		ck_assert_int_eq(agg_print_text(f, m[i], n[i]), 0);
	fclose(f);
	return s;
}

static struct agg_json_doc *read_ok(const char *doc)
{
	struct agg_json_doc *jd;
	char err[256];
	int rc = agg_json_read(&jd, doc, strlen(doc), err, sizeof(err));

	ck_assert_msg(rc == 0, "refused (%d): %s\n%s", rc, err, doc);
	return jd;
}

static char *text_back(struct agg_json_doc *jd)
{
	char *s;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	ck_assert_ptr_nonnull(f);
	for (uint32_t i = 0; i < agg_json_count(jd); i++)
		ck_assert_int_eq(agg_view_text(f, agg_json_view(jd, i)), 0);
	fclose(f);
	return s;
}

static char *json_back(struct agg_json_doc *jd)
{
	struct agg_json_writer w;
	char *s;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	ck_assert_ptr_nonnull(f);
	agg_json_begin(&w, f);
	for (uint32_t i = 0; i < agg_json_count(jd); i++)
		ck_assert_int_eq(agg_json_add_view(&w, agg_json_view(jd, i)), 0);
	ck_assert_int_eq(agg_json_end(&w), 0);
	fclose(f);
	return s;
}

/*
 * The round trip: the document of @m read back prints the text of @m, and
 * written again is the same document; each object is agg_print_json()'s
 * line. Returns the document (freed by the caller).
 */
static char *roundtrip(struct agg_merged **m, const struct agg_names **n, unsigned int k)
{
	char *doc = doc_of(m, n, k), *text = text_of(m, n, k), *back, *again;
	struct agg_json_doc *jd = read_ok(doc);
	const char *line = doc + 2;

	ck_assert_uint_eq(agg_json_count(jd), k);
	back = text_back(jd);
	expect_str(back, text);
	free(back);
	back = text_back(jd);			/* views print again, from the start */
	expect_str(back, text);
	again = json_back(jd);
	expect_str(again, doc);
	ck_assert(!strncmp(doc, "[\n", 2));
	for (unsigned int i = 0; i < k; i++) {
		char *one;
		size_t len;
		FILE *f = open_memstream(&one, &len);
		const char *sep = i + 1 < k ? ",\n" : "\n]\n";

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(agg_print_json(f, m[i], n[i]), 0);
		fclose(f);
		ck_assert(!strncmp(line, one, len - 1));	/* without its '\n' */
		line += len - 1;
		ck_assert(!strncmp(line, sep, strlen(sep)));
		line += strlen(sep);
		free(one);
	}
	if (k)
		ck_assert_str_eq(line, "");
	else
		ck_assert_str_eq(doc, "[\n]\n");
	agg_json_free(jd);
	free(again);
	free(back);
	free(text);
	return doc;
}

START_TEST(test_string_keys)
{
	static const struct agg_def d = {
		.nkeys = 2, .nfuncs = 2, .key_kind = { AGG_KEY_STR, AGG_KEY_INT },
		.key_field = { 0, 1 },
		.f = { { .fn = AGG_COUNT }, { .fn = AGG_SUM, .field = 1 } },
	};
	static const struct agg_names n = {
		.name = "by \"path\"", .event = "app:*\\x", .key = { "pa\tth", "code" },
		.arg = { NULL, "co\"de" },
	};
	static const char *const keys[] = {
		"plain", "quote\"back\\slash", "tab\tnl\nesc\x1b""del\x7f", "", "\x01",
		"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",	/* UTF-8 */
		"bad \xff\xfe \xc3( \xed\xa0\x80 \xc0\x80",		/* not UTF-8 */
		"cut in a character: 123456789\xe2\x82\xac",		/* 29 + 3 bytes: cut */
		"/a", "/a\"x", "/b",
	};
	struct flt_value ev[11][2];
	struct agg_merged m, *mp = &m;
	const struct agg_names *np = &n;
	struct agg_json_doc *jd;
	char *doc, *text;

	for (unsigned int i = 0; i < 11; i++) {
		ev[i][0] = (struct flt_value){ .type = FLT_T_STR, .str = keys[i] };
		ev[i][1] = (struct flt_value){ .type = FLT_T_S64, .s = -(int64_t)i * 1000 };
	}
	merged_from(&m, &d, &ev[0][0], 2, 11);
	ck_assert_uint_eq(m.n, 11);
	doc = roundtrip(&mp, &np, 1);
	/* what JSON cannot hold as it is comes escaped, the rest as it is */
	ck_assert_ptr_nonnull(strstr(doc, "\"quote\\\"back\\\\slash\""));
	ck_assert_ptr_nonnull(strstr(doc, "\"tab\\u0009nl\\u000aesc\\u001bdel\\u007f\""));
	ck_assert_ptr_nonnull(strstr(doc, "\"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""));
	ck_assert_ptr_nonnull(strstr(doc, "\"bad \\udcff\\udcfe \\udcc3( \\udced\\udca0\\udc80 "
				     "\\udcc0\\udc80\""));
	ck_assert_ptr_nonnull(strstr(doc, "\"cut in a character: 123456789\\udce2\\udc82\""));
	ck_assert_ptr_nonnull(strstr(doc, "{\"fn\":\"sum\",\"field\":\"co\\\"de\"}"));
	ck_assert_ptr_nonnull(strstr(doc, "\"sum(co\\\"de)\":-5000"));
	/* in the text: keys with control characters as '?', bytes as they are */
	text = text_of(&mp, &np, 1);
	ck_assert_ptr_nonnull(strstr(text, "pa\tth = tab?nl?esc?del?, code = -2000\n"));
	ck_assert_ptr_nonnull(strstr(text, "pa\tth = bad \xff\xfe \xc3( \xed\xa0\x80 \xc0\x80, "));
	/* the document is valid UTF-8 throughout */
	jd = read_ok(doc);
	agg_json_free(jd);
	free(text);
	free(doc);
	agg_merged_free(&m);
}
END_TEST

START_TEST(test_values)
{
	static const struct agg_def d = {
		.nkeys = 1, .nfuncs = 7, .key_kind = { AGG_KEY_INT }, .key_field = { 0 },
		.f = {
			{ .fn = AGG_COUNT },
			{ .fn = AGG_SUM, .field = 1 },
			{ .fn = AGG_MIN, .field = 1 },
			{ .fn = AGG_MAX, .field = 1 },
			{ .fn = AGG_AVG, .field = 1 },
			{ .fn = AGG_QUANTIZE, .field = 1 },
			{ .fn = AGG_LQUANTIZE, .field = 1, .lo = -5, .hi = 6, .step = 4 },
		},
	};
	static const struct agg_names n = {
		.name = "v", .event = "a:b", .key = { "k" },
		.arg = { NULL, "x", "x", "x", "x", "x", "x" },
	};
	static const int64_t vals[][2] = {
		{ INT64_MIN, INT64_MIN }, { INT64_MIN, -1 }, { INT64_MAX, INT64_MAX },
		{ INT64_MAX, 0 }, { INT64_MAX, 1 }, { -3, -5 }, { -3, -6 }, { -3, 5 }, { -3, 6 },
		{ -3, -2 }, { -3, 2 }, { 0, 1 }, { 0, 1 }, { 0, 2 }, { 7, 3 },
	};
	unsigned int nev = sizeof(vals) / sizeof(vals[0]);
	struct flt_value ev[sizeof(vals) / sizeof(vals[0])][2];
	struct agg_merged m, *mp = &m;
	const struct agg_names *np = &n;
	char *doc, *e;

	for (unsigned int i = 0; i < nev; i++) {
		ev[i][0] = (struct flt_value){ .type = FLT_T_S64, .s = vals[i][0] };
		ev[i][1] = (struct flt_value){ .type = FLT_T_S64, .s = vals[i][1] };
	}
	merged_from(&m, &d, &ev[0][0], 2, nev);
	/* extremes no event gives: no min, max, avg seen; counts past INT64_MAX */
	e = entry_int(&m, 7);
	put64(e, m.geom.val_off[2] + 8, 0);
	put64(e, m.geom.val_off[3] + 8, 0);
	put64(e, m.geom.val_off[4] + 8, 0);
	put64(e, m.geom.val_off[5] + 8 * 66, UINT64_MAX);
	put64(e, m.geom.val_off[6] + 8 * 4, (uint64_t)INT64_MAX + 2);
	e = entry_int(&m, 0);		/* avg 4/3: a double of 17 digits */
	ck_assert_uint_eq(agg_u64(e, m.geom.val_off[4] + 8), 3);
	m.updates = UINT64_MAX;
	m.dropped = (uint64_t)INT64_MAX + 1;
	m.lost = 1;
	m.torn = 2;
	doc = roundtrip(&mp, &np, 1);
	ck_assert_ptr_nonnull(strstr(doc, "\"updates\":18446744073709551615,"
				     "\"dropped\":9223372036854775808,\"lost\":1,\"torn\":2"));
	ck_assert_ptr_nonnull(strstr(doc, "{\"key\":[-9223372036854775808],\"count\":2,"
				     "\"sum(x)\":9223372036854775807,"	/* wrapped */
				     "\"min(x)\":-9223372036854775808,\"max(x)\":-1,"));
	ck_assert_ptr_nonnull(strstr(doc, "\"avg(x)\":1.3333333333333333,"));
	ck_assert_ptr_nonnull(strstr(doc, "\"min(x)\":null,\"max(x)\":null,\"avg(x)\":null,"));
	ck_assert_ptr_nonnull(strstr(doc, "{\"lo\":2,\"hi\":3,\"count\":18446744073709551615}"));
	ck_assert_ptr_nonnull(strstr(doc, "{\"lo\":-5,\"hi\":-2,\"count\":2},"
				     "{\"lo\":-1,\"hi\":2,\"count\":1},"
				     "{\"lo\":3,\"hi\":5,\"count\":1},"
				     "{\"lo\":6,\"hi\":null,\"count\":1}]"));
	ck_assert_ptr_nonnull(strstr(doc, "\"lquantize(x)\":[{\"lo\":null,\"hi\":-6,\"count\":1}"));
	ck_assert_ptr_nonnull(strstr(doc, "{\"lo\":-9223372036854775808,\"hi\":-9223372036854775808,"
				     "\"count\":1},{\"lo\":-1,\"hi\":-1,\"count\":1}"));
	ck_assert_ptr_nonnull(strstr(doc, "{\"lo\":4611686018427387904,\"hi\":9223372036854775807,"
				     "\"count\":1}"));
	free(doc);
	agg_merged_free(&m);
}
END_TEST

START_TEST(test_lquantize_edges)
{
	/* ranges at both ends of int64: no overflow, buckets cut short by hi */
	static const struct agg_def d = {
		.nkeys = 1, .nfuncs = 2, .key_kind = { AGG_KEY_INT },
		.f = {
			{ .fn = AGG_LQUANTIZE, .field = 0, .lo = INT64_MAX - 100, .hi = INT64_MAX,
			  .step = 30 },
			{ .fn = AGG_LQUANTIZE, .field = 0, .lo = INT64_MIN, .hi = INT64_MIN + 100,
			  .step = 7 },
		},
	};
	static const struct agg_names n = { .name = "edges", .event = "e", .key = { "v" },
					    .arg = { "v", "v" } };
	static const int64_t vals[] = {
		INT64_MAX, INT64_MAX - 1, INT64_MAX - 100, INT64_MAX - 11, 0, INT64_MIN,
		INT64_MIN + 99, INT64_MIN + 100,
	};
	struct flt_value ev[8];
	struct agg_merged m, *mp = &m;
	const struct agg_names *np = &n;
	char *doc, *text;

	for (unsigned int i = 0; i < 8; i++)
		ev[i] = (struct flt_value){ .type = FLT_T_S64, .s = vals[i] };
	merged_from(&m, &d, ev, 1, 8);
	doc = roundtrip(&mp, &np, 1);
	ck_assert_ptr_nonnull(strstr(doc, "{\"lo\":9223372036854775797,\"hi\":9223372036854775806,"
				     "\"count\":1}"));
	text = text_of(&mp, &np, 1);
	ck_assert_ptr_nonnull(strstr(text, "        < -9223372036854775808 |"));
	free(text);
	free(doc);
	agg_merged_free(&m);
}
END_TEST

START_TEST(test_several)
{
	static const struct agg_def d0 = {
		.nkeys = 0, .nfuncs = 3,
		.f = { { .fn = AGG_COUNT }, { .fn = AGG_SUM }, { .fn = AGG_AVG } },
	};
	static const struct agg_def d1 = {	/* sum(x) twice: one label, two values */
		.nkeys = 1, .nfuncs = 3, .key_kind = { AGG_KEY_INT },
		.f = {
			{ .fn = AGG_SUM, .field = 1 }, { .fn = AGG_COUNT },
			{ .fn = AGG_SUM, .field = 0 },
		},
	};
	static const struct agg_def d2 = {
		.nkeys = 4, .nfuncs = 1,
		.key_kind = { AGG_KEY_STR, AGG_KEY_INT, AGG_KEY_STR, AGG_KEY_INT },
		.key_field = { 0, 1, 0, 1 }, .f = { { .fn = AGG_QUANTIZE, .field = 1 } },
	};
	static const struct agg_names n0 = { .name = "all", .event = "*", .arg = { NULL } };
	static const struct agg_names n1 = { .name = "dup", .event = "x:y", .key = { "k" },
					     .arg = { "x", NULL, "x" } };
	static const struct agg_names n2 = { .name = "four", .event = "x:y",
					     .key = { "s", "i", "t", "j" }, .arg = { "i" } };
	static const struct agg_names ne = { .name = "empty", .event = "none:*", .key = { "k" },
					     .arg = { "x", NULL, "x" } };
	struct flt_value ev[6][2];
	struct agg_merged m[4];
	struct agg_merged *mp[4] = { &m[0], &m[1], &m[2], &m[3] };
	const struct agg_names *np[4] = { &n0, &n1, &ne, &n2 };
	char *doc;

	for (unsigned int i = 0; i < 6; i++) {
		ev[i][0] = (struct flt_value){ .type = FLT_T_S64, .s = (int64_t)i % 3 - 1 };
		ev[i][1] = (struct flt_value){ .type = FLT_T_S64, .s = (int64_t)i * 1000 };
	}
	merged_from(&m[0], &d0, &ev[0][0], 2, 6);
	merged_from(&m[1], &d1, &ev[0][0], 2, 6);
	merged_from(&m[2], &d1, &ev[0][0], 2, 0);	/* no entry at all */
	for (unsigned int i = 0; i < 6; i++)
		ev[i][0] = (struct flt_value){ .type = FLT_T_STR, .str = i & 1 ? "odd" : "even" };
	merged_from(&m[3], &d2, &ev[0][0], 2, 6);
	ck_assert_uint_eq(m[2].n, 0);
	doc = roundtrip(mp, np, 4);
	ck_assert_ptr_nonnull(strstr(doc, "\"sum(x)\":3000,\"count\":2,\"sum(x)\":-2}"));
	ck_assert_ptr_nonnull(strstr(doc, ",\n{\"name\":\"empty\""));
	ck_assert_ptr_nonnull(strstr(doc, "\"entries\":[]}"));
	ck_assert_ptr_nonnull(strstr(doc, "\"functions\":[{\"fn\":\"count\"},{\"fn\":\"sum\"},"
				     "{\"fn\":\"avg\"}]"));
	free(doc);
	/* nothing, then one of them */
	free(roundtrip(mp, np, 0));
	free(roundtrip(&mp[2], &np[2], 1));
	for (unsigned int i = 0; i < 4; i++)
		agg_merged_free(&m[i]);
}
END_TEST

START_TEST(test_damaged_table_keys)
{
	/* keys a damaged table holds after their NUL merge with the key they print as */
	static const struct agg_def d = {
		.nkeys = 1, .nfuncs = 1, .key_kind = { AGG_KEY_STR }, .f = { { .fn = AGG_COUNT } },
	};
	static const struct agg_names n = { .name = "k", .event = "e", .key = { "s" } };
	struct flt_value v = { .type = FLT_T_STR, .str = "ab" };
	struct agg_geom g;
	struct agg_merged m, *mp = &m;
	const struct agg_names *np = &n;
	size_t len;
	char *t, *copy;

	ck_assert_int_eq(agg_geom(&d, &g), 0);
	len = agg_table_size(&g, 4);
	t = calloc(1, len);
	copy = malloc(len);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(copy);
	agg_table_init(t, &d, &g, 4);
	ck_assert_int_eq(agg_update(t, &d, &g, &v, 1), 0);
	ck_assert_int_eq(agg_merged_init(&m, &d), 0);
	for (int i = 0; i < 3; i++) {
		char *key = t + AGG_HDR + 8;	/* the first entry in use */

		for (uint32_t s = 0; s < 4; s++)
			if (*(uint32_t *)(void *)(t + AGG_HDR + s * g.entry_size))
				key = t + AGG_HDR + s * g.entry_size + 8;
		if (i == 1)
			key[5] = 'x';			/* "ab\0\0\0x" */
		if (i == 2)
			memset(key + 2, 'y', AGG_STR_KEY - 2);	/* no NUL at all */
		ck_assert_int_ge(agg_snapshot(t, len, &d, &g, copy), 0);
		ck_assert_int_eq(agg_merge(&m, copy, 0), 0);
	}
	ck_assert_uint_eq(m.n, 2);	/* "ab" twice, "abyyy...y" (31 bytes) */
	free(roundtrip(&mp, &np, 1));
	agg_merged_free(&m);
	free(copy);
	free(t);
}
END_TEST

/* ---- documents read that were not written here ------------------------------- */

static const char base_doc[] =
	"[{\"name\":\"a\",\"event\":\"p:e\",\"keys\":[\"k\",\"s\"],\"key_types\":[\"int\",\"str\"],"
	"\"functions\":[{\"fn\":\"count\"},{\"fn\":\"avg\",\"field\":\"v\"},"
	"{\"fn\":\"quantize\",\"field\":\"v\"},"
	"{\"fn\":\"lquantize\",\"field\":\"v\",\"lo\":0,\"hi\":10,\"step\":5}],"
	"\"updates\":3,\"dropped\":0,\"lost\":0,\"torn\":0,"
	"\"entries\":[{\"key\":[1,\"x\"],\"count\":2,\"avg(v)\":1.5,"
	"\"quantize(v)\":[{\"lo\":1,\"hi\":1,\"count\":1},{\"lo\":2,\"hi\":3,\"count\":1}],"
	"\"lquantize(v)\":[{\"lo\":0,\"hi\":4,\"count\":2}]},"
	"{\"key\":[2,\"y\"],\"count\":1,\"avg(v)\":-7,"
	"\"quantize(v)\":[{\"lo\":-7,\"hi\":-4,\"count\":1}],"
	"\"lquantize(v)\":[{\"lo\":null,\"hi\":-1,\"count\":1}]}]}]";

static const char base_text[] =
	"a  p:e  (3 updates, 0 keys dropped, 0 lost, 0 tables torn)\n"
	"  k = 1, s = x\n"
	"    count = 2, avg(v) = 1.5\n"
	"    quantize(v)\n"
	"           value  ------------- Distribution ------------- count\n"
	"               0 |                                         0\n"
	"               1 |@@@@@@@@@@@@@@@@@@@@                     1\n"
	"               2 |@@@@@@@@@@@@@@@@@@@@                     1\n"
	"               4 |                                         0\n"
	"    lquantize(v)\n"
	"           value  ------------- Distribution ------------- count\n"
	"        <      0 |                                         0\n"
	"               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 2\n"
	"               5 |                                         0\n"
	"  k = 2, s = y\n"
	"    count = 1, avg(v) = -7\n"
	"    quantize(v)\n"
	"           value  ------------- Distribution ------------- count\n"
	"             -15 |                                         0\n"
	"              -7 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1\n"
	"              -3 |                                         0\n"
	"    lquantize(v)\n"
	"           value  ------------- Distribution ------------- count\n"
	"        <      0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1\n"
	"               0 |                                         0\n";

/* base_doc with @old (found once) replaced by @new. */
static char *edit(const char *old, const char *new)
{
	const char *at = strstr(base_doc, old);
	size_t a, o = strlen(old), n = strlen(new);
	char *s;

	ck_assert_msg(at && !strstr(at + 1, old), "'%s' not once in the document", old);
	a = (size_t)(at - base_doc);
	s = malloc(sizeof(base_doc) + n);
	ck_assert_ptr_nonnull(s);
	memcpy(s, base_doc, a);
	memcpy(s + a, new, n);
	strcpy(s + a + n, at + o);
	return s;
}

/* @doc is refused: "offset N: @msg", N where @mark first is in @doc. */
static void refused(const char *doc, size_t len, const char *mark, const char *msg)
{
	struct agg_json_doc *jd = (struct agg_json_doc *)1;
	char err[256], want[256];
	const char *at = mark ? strstr(doc, mark) : doc;
	int rc = agg_json_read(&jd, doc, len, err, sizeof(err));

	ck_assert_ptr_nonnull(at);
	snprintf(want, sizeof(want), "offset %zu: %s", (size_t)(at - doc), msg);
	ck_assert_msg(rc == -EINVAL, "accepted (%d): %s", rc, doc);
	ck_assert_ptr_null(jd);
	ck_assert_msg(!strcmp(err, want), "said '%s', wanted '%s'", err, want);
}

static void edit_refused(const char *old, const char *new, const char *mark, const char *msg)
{
	char *s = edit(old, new);

	refused(s, strlen(s), mark, msg);
	free(s);
}

START_TEST(test_read_base)
{
	struct agg_json_doc *jd = read_ok(base_doc);
	struct agg_view *v = agg_json_view(jd, 0);
	struct agg_ventry e;
	char *text = text_back(jd);

	expect_str(text, base_text);
	free(text);
	/* entries in any order of asking */
	ck_assert_int_eq(agg_view_entry(v, 1, &e), 0);
	ck_assert_int_eq(e.key[0].i, 2);
	ck_assert_int_eq(agg_view_entry(v, 0, &e), 0);
	ck_assert_str_eq(e.key[1].s, "x");
	ck_assert_int_eq(agg_view_entry(v, 1, &e), 0);
	ck_assert_int_eq(agg_view_entry(v, 1, &e), 0);
	ck_assert_uint_eq(e.val[2].nb, 1);
	ck_assert_uint_eq(e.val[2].b[0].b, 64 - 3);
	ck_assert_ptr_null(agg_json_view(jd, 1));
	agg_json_free(jd);
}
END_TEST

START_TEST(test_read_lenient)
{
	/* unknown members anywhere, members in another order, white space */
	static const char *const edits[][2] = {
		{ "[{\"name\":\"a\",", "[{\"future\":{\"x\":[1,{\"y\":null}]},\"name\":\"a\"," },
		{ "{\"fn\":\"count\"}", "{\"unit\":\"ns\",\"fn\":\"count\",\"field\":\"ignored\"}" },
		{ "{\"fn\":\"avg\",\"field\":\"v\"}", "{\"field\":\"v\",\"fn\":\"avg\",\"lo\":1}" },
		{ "{\"key\":[2,\"y\"],", "{\"note\":\"n\",\"key\":[2,\"y\"],\"sum(v)\":1," },
		{ "{\"lo\":0,\"hi\":4,\"count\":2}", "{\"count\":2,\"hi\":4,\"lo\":0,\"share\":1.0}" },
		{ "\"updates\":3,\"dropped\":0,", "\n\t\"dropped\" : 0 ,\r\n \"updates\":\t3 ," },
		{ "\"avg(v)\":1.5", "\"avg(v)\":15e-1" },
	};

	for (unsigned int i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		char *s = edit(edits[i][0], edits[i][1]), *text;
		struct agg_json_doc *jd = read_ok(s), *again;
		char *json = json_back(jd);

		text = text_back(jd);
		expect_str(text, base_text);
		/* written again: the document as written here, that reads back */
		again = read_ok(json);
		free(text);
		text = text_back(again);
		expect_str(text, base_text);
		ck_assert_ptr_null(strstr(json, "future"));
		agg_json_free(again);
		agg_json_free(jd);
		free(json);
		free(text);
		free(s);
	}
}
END_TEST

START_TEST(test_read_refused)
{
	static const struct { const char *old, *new, *mark, *msg; } bad[] = {
		{ "[{\"name\":\"a\",", "[{\"name\":1,", "1,",
		  "aggregation: \"name\" is a number, not a string" },
		{ "[{\"name\":\"a\",", "[{\"name\":\"a\\u0000b\",", "\"a\\u",
		  "name: a NUL in a string" },
		{ "[{\"name\":\"a\",", "[{\"name\":\"a\",\"name\":\"b\",", "\"b\"",
		  "aggregation: \"name\" more than once" },
		{ "[{\"name\":\"a\",", "[{", "{", "aggregation: no \"name\"" },
		{ "\"event\":\"p:e\",", "", "{", "aggregation: no \"event\"" },
		{ "\"key_types\":[\"int\",\"str\"]", "\"key_types\":[\"int\"]", "[\"int\"]",
		  "key_types: 1 of them for 2 keys" },
		{ "\"key_types\":[\"int\",\"str\"]", "\"key_types\":[\"int\",\"string\"]",
		  "\"string\"", "key_types: neither \"int\" nor \"str\"" },
		{ "\"keys\":[\"k\",\"s\"]", "\"keys\":[\"k\",\"s\",\"t\",\"u\",\"v\"]", "[\"k\"",
		  "keys: more than 4" },
		{ "\"keys\":[\"k\",\"s\"]", "\"keys\":[\"k\",5]", "5]", "keys: not a string" },
		{ "{\"fn\":\"count\"}", "{\"fn\":\"median\"}", "{\"fn\":\"median",
		  "function: unknown \"fn\"" },
		{ "{\"fn\":\"count\"}", "\"count\"", "\"count\"", "function: not an object" },
		{ "\"step\":5", "\"step\":0", "{\"fn\":\"lq", "lquantize: step out of range" },
		{ "\"step\":5", "\"step\":2147483648", "{\"fn\":\"lq",
		  "lquantize: step out of range" },
		{ "\"step\":5", "\"step\":5.0", "5.0", "step: not an integer of 64 bits" },
		{ "\"hi\":10,", "\"hi\":0,", "[{\"fn\":\"count\"",
		  "functions: not accepted (an lquantize range or step, or too many buckets)" },
		{ "\"hi\":10,\"step\":5", "\"hi\":5001,\"step\":5", "[{\"fn\":\"count\"",
		  "functions: not accepted (an lquantize range or step, or too many buckets)" },
		{ "\"updates\":3", "\"updates\":-3", "-3",
		  "updates: not an unsigned integer of 64 bits" },
		{ "\"updates\":3", "\"updates\":18446744073709551616", "184",
		  "updates: not an unsigned integer of 64 bits" },
		{ "\"torn\":0,", "", "{\"name\"", "aggregation: no \"torn\"" },
		{ "{\"key\":[1,\"x\"]", "{\"key\":[1]", "[1]", "entry: 1 key values for 2 keys" },
		{ "{\"key\":[1,\"x\"]", "{\"key\":[\"1\",\"x\"]", "\"1\"",
		  "key: not an integer of 64 bits" },
		{ "{\"key\":[1,\"x\"]", "{\"key\":[1,\"0123456789012345678901234567890x\"]",
		  "\"0123", "key: longer than 31 bytes" },
		{ "{\"key\":[1,\"x\"]", "{\"key\":[1,\"x\\u0000\"]", "\"x\\u",
		  "key: a NUL in a string" },
		{ "{\"key\":[1,\"x\"],\"count\":2,", "{\"key\":[1,\"x\"],", "{\"key\":[1,",
		  "entry: no value of function 1 (count)" },
		{ "\"count\":2,", "\"count\":2.5,", "2.5", "count: not an integer of 64 bits" },
		{ "\"count\":2,", "\"count\":9223372036854775808,", "92",
		  "count: not an integer of 64 bits" },
		{ "\"avg(v)\":1.5", "\"avg(v)\":\"1.5\"", "\"1.5\"", "avg: not a number" },
		{ "\"avg(v)\":1.5", "\"avg(v)\":1e999", "1e999", "avg: out of range" },
		{ "{\"key\":[2,\"y\"],", "{\"key\":[2,\"y\"],\"key\":[3,\"y\"],", "[3,",
		  "entry: \"key\" more than once" },
		{ "{\"lo\":1,\"hi\":1,\"count\":1}", "{\"lo\":1,\"hi\":2,\"count\":1}", "{\"lo\":1,",
		  "bucket: not one of the histogram's" },
		{ "{\"lo\":1,\"hi\":1,\"count\":1}", "{\"lo\":null,\"hi\":1,\"count\":1}",
		  "{\"lo\":null,\"hi\":1", "bucket: not one of the histogram's" },
		{ "{\"lo\":1,\"hi\":1,\"count\":1}", "{\"lo\":1,\"hi\":1,\"count\":0}", "{\"lo\":1,",
		  "bucket: empty (only non-empty buckets are listed)" },
		{ "{\"lo\":1,\"hi\":1,\"count\":1}", "{\"lo\":1,\"hi\":1}", "{\"lo\":1,",
		  "bucket: no \"count\"" },
		{ "{\"lo\":1,\"hi\":1,\"count\":1},{\"lo\":2,\"hi\":3,\"count\":1}",
		  "{\"lo\":2,\"hi\":3,\"count\":1},{\"lo\":1,\"hi\":1,\"count\":1}",
		  "{\"lo\":1,", "bucket: not after the one before" },
		{ "{\"lo\":1,\"hi\":1,\"count\":1},{\"lo\":2,\"hi\":3,\"count\":1}",
		  "{\"lo\":1,\"hi\":1,\"count\":1},{\"lo\":1,\"hi\":1,\"count\":1}",
		  "{\"lo\":1,\"hi\":1,\"count\":1}]", "bucket: not after the one before" },
		{ "{\"lo\":0,\"hi\":4,\"count\":2}", "{\"lo\":10,\"hi\":null,\"count\":2},"
		  "{\"lo\":0,\"hi\":4,\"count\":2}", "{\"lo\":0,", "bucket: not after the one before" },
		{ "{\"lo\":0,\"hi\":4,\"count\":2}", "{\"lo\":5,\"hi\":10,\"count\":2}", "{\"lo\":5",
		  "bucket: not one of the histogram's" },
		{ "{\"lo\":0,\"hi\":4,\"count\":2}", "{\"lo\":10,\"hi\":19,\"count\":2}", "{\"lo\":10",
		  "bucket: not one of the histogram's" },
		{ "{\"lo\":null,\"hi\":-1,\"count\":1}", "{\"lo\":null,\"hi\":null,\"count\":1}",
		  "{\"lo\":null", "bucket: not one of the histogram's" },
		{ "{\"lo\":0,\"hi\":4,\"count\":2}", "[0,4,2]", "[0,4", "bucket: not an object" },
		{ "\"quantize(v)\":[{\"lo\":-7", "\"quantize(v)\":{},\"x\":[{\"lo\":-7", "{},",
		  "quantize: not an array" },
		{ "{\"key\":[2,\"y\"]", "{\"key\":[1,\"x\"]", "{\"key\":[1,\"x\"],\"count\":1",
		  "entry: key not after the one before (entries are in ascending key order, "
		  "each key once)" },
		{ "{\"key\":[1,\"x\"]", "{\"key\":[2,\"z\"]", "{\"key\":[2,\"y\"]",
		  "entry: key not after the one before (entries are in ascending key order, "
		  "each key once)" },
		{ "\"entries\":[{", "\"entries\":[7,{", "7,", "entry: not an object" },
		{ "\"entries\":[", "\"entries\":{},\"x\":[", "{},",
		  "aggregation: \"entries\" is an object, not an array" },
	};

	char want_cut[64];

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		edit_refused(bad[i].old, bad[i].new, bad[i].mark, bad[i].msg);
	refused("{}", 2, NULL, "not an array of aggregations");
	refused("[1]", 3, "1", "aggregation: not an object");
	refused("", 0, NULL, "empty document");
	{	/* cut short */
		struct agg_json_doc *jd;
		char err[256];

		ck_assert_int_eq(agg_json_read(&jd, base_doc, sizeof(base_doc) - 2, err,
					       sizeof(err)), -EINVAL);
		snprintf(want_cut, sizeof(want_cut), "offset %zu: unexpected end of input",
			 sizeof(base_doc) - 2);
		ck_assert_str_eq(err, want_cut);
	}
	{	/* a second aggregation, damaged: the first one is not kept */
		char *s = malloc(2 * sizeof(base_doc));

		ck_assert_ptr_nonnull(s);
		strcpy(s, base_doc);
		strcpy(s + sizeof(base_doc) - 2, ",{\"name\":\"b\"}]");
		refused(s, strlen(s), "{\"name\":\"b\"", "aggregation: no \"event\"");
		free(s);
	}
}
END_TEST

static Suite *aggjson_suite(void)
{
	Suite *s = suite_create("aggjson");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_string_keys);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_lquantize_edges);
	tcase_add_test(tc, test_several);
	tcase_add_test(tc, test_damaged_table_keys);
	tcase_add_test(tc, test_read_base);
	tcase_add_test(tc, test_read_lenient);
	tcase_add_test(tc, test_read_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(aggjson_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
