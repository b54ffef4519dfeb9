/* SPDX-License-Identifier: MIT */
/*
 * test-filter.c - unit tests of the filter compiler and evaluator
 * (support/filtercc.c compiles, common/filter.c checks and runs).
 *
 * Expressions evaluated against fixed field values (numbers of each kind,
 * strings with globs, missing fields, precedence, short-circuits), errors
 * reported at the right column, and bytecode checks: every valid program
 * validates, and corrupted programs (random bytes flipped, truncated,
 * backward jumps, offsets outside) are refused or, when still valid,
 * evaluate without reading outside (checked under the sanitizers in fuzz
 * builds).
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/filter.h"
#include "support/filtercc.h"

static unsigned char code[8192];

/* fields: seq (u64 600), thread (s64 1), neg (s64 -5), ratio (double 0.25),
 * path (string "/tmp/x.log"), empty (string "") */
static void bind(const void *c, struct flt_value *v)
{
	for (unsigned int i = 0; i < flt_nfields(c); i++) {
		const char *n = flt_field_name(c, i);

		memset(&v[i], 0, sizeof(v[i]));
		if (!strcmp(n, "seq")) {
			v[i].type = FLT_T_U64;
			v[i].u = 600;
		} else if (!strcmp(n, "thread")) {
			v[i].type = FLT_T_S64;
			v[i].s = 1;
		} else if (!strcmp(n, "neg")) {
			v[i].type = FLT_T_S64;
			v[i].s = -5;
		} else if (!strcmp(n, "big")) {
			v[i].type = FLT_T_U64;
			v[i].u = UINT64_MAX;
		} else if (!strcmp(n, "ratio")) {
			v[i].type = FLT_T_F64;
			v[i].d = 0.25;
		} else if (!strcmp(n, "path")) {
			v[i].type = FLT_T_STR;
			v[i].str = "/tmp/x.log";
		} else if (!strcmp(n, "empty")) {
			v[i].type = FLT_T_STR;
			v[i].str = "";
		} else {
			v[i].type = FLT_T_NONE;
		}
	}
}

static int run(const char *expr)
{
	struct flt_value v[FLT_MAX_FIELDS];
	char msg[128];
	int col = 0;
	long n = flt_compile(expr, code, sizeof(code), &col, msg, sizeof(msg));

	ck_assert_msg(n > 0, "'%s' does not compile: column %d: %s", expr, col, msg);
	ck_assert_msg(flt_validate(code, (size_t)n) == 0, "'%s' does not validate", expr);
	bind(code, v);
	return flt_eval(code, v);
}

static const struct { const char *expr; int want; } cases[] = {
	{ "seq >= 500 && thread == 1", 1 },
	{ "seq >= 500 && thread == 2", 0 },
	{ "seq < 500 || thread == 1", 1 },
	{ "seq == 600", 1 }, { "seq != 600", 0 }, { "seq > 599", 1 }, { "seq <= 599", 0 },
	{ "seq == 0x258", 1 }, { "seq > -1", 1 }, { "neg < 0", 1 }, { "neg == -5", 1 },
	{ "neg < seq", 1 }, { "big > 1", 1 }, { "big > -1", 1 }, { "neg > big", 0 },
	{ "big == 18446744073709551615", 1 },
	{ "ratio < 0.5", 1 }, { "ratio == 0.25", 1 }, { "ratio > 1e-3", 1 },
	{ "seq < 600.5", 1 }, { "seq > 599.9", 1 },
	{ "path == \"/tmp/*\"", 1 }, { "path == \"/tmp\"", 0 }, { "path != \"*.log\"", 0 },
	{ "\"*.log\" == path", 1 }, { "path == \"/tmp/x.log\"", 1 },
	{ "path == \"/tmp/\\*\"", 0 }, { "path > \"/a\"", 1 }, { "path < \"/a\"", 0 },
	{ "path == path", 1 },
	{ "path", 1 }, { "empty", 0 }, { "seq", 1 }, { "!empty", 1 }, { "!!seq", 1 },
	{ "missing == 1", 0 }, { "missing != 1", 0 }, { "!(missing == 1)", 1 }, { "missing", 0 },
	{ "path == 3", 0 }, { "seq == \"600\"", 0 },
	{ "!(seq >= 500) || thread == 1 && ratio > 1", 0 },
	{ "(seq >= 500 || thread == 2) && !(ratio > 1)", 1 },
	{ "thread == 2 && missing == 1 || seq == 600", 1 },
	{ "seq == 600 || missing", 1 },
	{ "((((((seq == 600))))))", 1 },
	{ "a == 1 || b == 2 || c == 3 || d == 4 || seq == 600", 1 },
	{ "  seq\t==\n600  ", 1 },
	{ "$ctx.cpu == 1", 0 },
	{ "1 == 1", 1 }, { "1 < 2 && 2.5 > 2", 1 },
};

START_TEST(test_eval)
{
	ck_assert_msg(run(cases[_i].expr) == cases[_i].want, "'%s' should be %d", cases[_i].expr,
		      cases[_i].want);
}
END_TEST

static const struct { const char *expr; int col; } bad[] = {
	{ "", 1 }, { "seq >", 6 }, { "seq >= 500 &&", 14 }, { "(seq == 1", 1 },
	{ "seq == 1)", 9 }, { "seq === 1", 7 }, { "\"abc", 1 }, { "seq == 12abc", 8 },
	{ "path == \"x\" && 3", 16 }, { "\"a\" == 1", 5 }, { "seq & 1", 5 },
	{ "seq == 1 thread == 2", 10 }, { "@", 1 }, { "seq == 99999999999999999999", 8 },
};

START_TEST(test_errors)
{
	char msg[128];
	int col = 0;
	long n = flt_compile(bad[_i].expr, code, sizeof(code), &col, msg, sizeof(msg));

	ck_assert_msg(n == -EINVAL, "'%s' compiled (%ld)", bad[_i].expr, n);
	ck_assert_msg(col == bad[_i].col, "'%s': error at column %d (%s), expected %d",
		      bad[_i].expr, col, msg, bad[_i].col);
	ck_assert(msg[0] != 0);
}
END_TEST

START_TEST(test_limits)
{
	static char expr[20000];
	char msg[128];
	int col = 0;
	size_t n = 0;

	/* deep parentheses beyond the stack, or too many instructions: refused */
	for (int i = 0; i < 1000; i++)
		n += (size_t)sprintf(expr + n, "seq == %d || ", i);
	strcpy(expr + n, "seq == 1");
	ck_assert_int_eq(flt_compile(expr, code, sizeof(code), &col, msg, sizeof(msg)), -EINVAL);
	/* small output buffer */
	ck_assert_int_eq(flt_compile("seq == 1", code, 20, &col, msg, sizeof(msg)), -E2BIG);
}
END_TEST

/*
 * Nesting: FLT_MAX_DEPTH levels of '(' or '!' compile, one more is refused
 * at its column; 60000 of them, or of '-', are refused without recursing
 * that deep: the compiler runs here on a thread of a 64 KiB stack, where
 * it would overflow otherwise.
 */
struct deep {
	const char *expr;
	long ret;
	int col;
	char msg[128];
};

static void *compile_deep(void *arg)
{
	struct deep *d = arg;
	static unsigned char out[8192];

	d->ret = flt_compile(d->expr, out, sizeof(out), &d->col, d->msg, sizeof(d->msg));
	return NULL;
}

static struct deep *on_small_stack(const char *expr)
{
	static struct deep d;
	pthread_attr_t a;
	pthread_t t;

	memset(&d, 0, sizeof(d));
	d.expr = expr;
	ck_assert_int_eq(pthread_attr_init(&a), 0);
	ck_assert_int_eq(pthread_attr_setstacksize(&a, 64 * 1024), 0);
	ck_assert_int_eq(pthread_create(&t, &a, compile_deep, &d), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	pthread_attr_destroy(&a);
	return &d;
}

/* @n times @open, then "seq == 1", then @n times @close */
static char *nested(size_t n, const char *open, const char *close)
{
	size_t lo = strlen(open), lc = strlen(close);
	char *e = malloc(n * (lo + lc) + 16), *p = e;

	ck_assert_ptr_nonnull(e);
	for (size_t i = 0; i < n; i++, p += lo)
		memcpy(p, open, lo);
	p += sprintf(p, "seq == 1");
	for (size_t i = 0; i < n; i++, p += lc)
		memcpy(p, close, lc);
	*p = 0;
	return e;
}

START_TEST(test_depth)
{
	static const char *const opens[] = { "(", "!", "!(", "( ", " ! (" };
	struct deep *d;
	char *e;

	for (size_t k = 0; k < sizeof(opens) / sizeof(opens[0]); k++) {
		const char *open = opens[k], *close = strchr(open, '(') ? ")" : "";
		size_t per = 0, levels;

		for (const char *q = open; *q; q++)
			per += *q == '(' || *q == '!';
		levels = FLT_MAX_DEPTH / per;
		e = nested(levels, open, close);
		d = on_small_stack(e);
		/* (256 '!' are 256 instructions: more than a filter has room for) */
		if (strchr(open, '!'))
			ck_assert_msg(d->ret > 0 || !strstr(d->msg, "nested"), "%zu x '%s': %s",
				      levels, open, d->msg);
		else
			ck_assert_msg(d->ret > 0, "%zu x '%s': %ld, column %d: %s", levels, open,
				      d->ret, d->col, d->msg);
		free(e);
		for (size_t n = levels + 1; n <= 60000; n = n < levels + 8 ? n + 1 : 60000 + (n == 60000)) {
			int want = 0, seen = 0;

			e = nested(n, open, close);
			/* the column of the first '(' or '!' beyond the limit */
			for (int i = 0; e[i] && !want; i++)
				if ((e[i] == '(' || e[i] == '!') && ++seen > FLT_MAX_DEPTH)
					want = i + 1;
			d = on_small_stack(e);
			ck_assert_msg(d->ret == -EINVAL, "%zu x '%s' compiled", n, open);
			ck_assert_msg(d->col == want, "%zu x '%s': column %d, expected %d (%s)", n,
				      open, d->col, want, d->msg);
			ck_assert_ptr_nonnull(strstr(d->msg, "nested too deep"));
			free(e);
		}
	}
	/* '-' is no operator: a bad number, at once */
	e = nested(60000, "-", "");
	d = on_small_stack(e);
	ck_assert_int_eq(d->ret, -EINVAL);
	ck_assert_int_eq(d->col, 1);
	free(e);
	/* the limit is on levels open at once, not on the whole expression */
	e = malloc(60 * 24);
	ck_assert_ptr_nonnull(e);
	e[0] = 0;
	for (int i = 0; i < 60; i++)	/* 239 instructions */
		strcat(e, i ? " || ((((seq == 1))))" : "((((seq == 1))))");
	d = on_small_stack(e);
	ck_assert_msg(d->ret > 0, "%s", d->msg);
	free(e);
}
END_TEST

START_TEST(test_validate_rejects)
{
	char msg[128];
	int col = 0;
	long n = flt_compile("seq >= 500 && (path == \"/t*\" || ratio < 1)", code,
			     sizeof(code), &col, msg, sizeof(msg));
	struct flt_hdr *h = (struct flt_hdr *)(void *)code;
	struct flt_insn *in = (struct flt_insn *)(void *)(code + sizeof(*h));
	unsigned char copy[8192];

	ck_assert_int_gt(n, 0);
	memcpy(copy, code, (size_t)n);
	ck_assert_int_eq(flt_validate(code, (size_t)n - 1), -EINVAL);
	ck_assert_int_eq(flt_validate(code, (size_t)n + 1), -EINVAL);
	h->magic++;
	ck_assert_int_eq(flt_validate(code, (size_t)n), -EINVAL);
	memcpy(code, copy, (size_t)n);
	for (unsigned int i = 0; i < h->ninsn; i++) {
		if (in[i].op == FLT_AND_JMP || in[i].op == FLT_OR_JMP) {
			in[i].aux = i;	/* not forward */
			ck_assert_int_eq(flt_validate(code, (size_t)n), -EINVAL);
			in[i].aux = h->ninsn + 1;
			ck_assert_int_eq(flt_validate(code, (size_t)n), -EINVAL);
		}
		if (in[i].op == FLT_STR || in[i].op == FLT_FIELD) {
			in[i].aux = h->table_size;
			ck_assert_int_eq(flt_validate(code, (size_t)n), -EINVAL);
		}
		if (in[i].op == FLT_FIELD) {
			in[i].imm = h->nfields;
			ck_assert_int_eq(flt_validate(code, (size_t)n), -EINVAL);
		}
		in[i].op = 200;
		ck_assert_int_eq(flt_validate(code, (size_t)n), -EINVAL);
		memcpy(code, copy, (size_t)n);
	}
	/* the table's last string must end inside */
	code[n - 1] = 'x';
	ck_assert_int_eq(flt_validate(code, (size_t)n), -EINVAL);
	/* random corruption: refused, or still safe to run */
	srand(1);
	for (int round = 0; round < 20000; round++) {
		struct flt_value v[FLT_MAX_FIELDS];

		memcpy(code, copy, (size_t)n);
		for (int k = 0; k < 1 + rand() % 4; k++)
			code[rand() % n] ^= (unsigned char)(1 + rand() % 255);
		if (flt_validate(code, (size_t)n) == 0) {
			for (unsigned int i = 0; i < flt_nfields(code); i++)
				ck_assert_ptr_nonnull(flt_field_name(code, i));
			bind(code, v);
			flt_eval(code, v);
		}
	}
}
END_TEST

/*
 * A conjunction of integer comparisons, decided from the terms that
 * flt_conjunction() lists, gives what flt_eval() gives: random field values
 * (signed and unsigned, around the constants and at the extremes) and
 * constants of both signs, missing fields included.
 */
static const struct { const char *expr; int nterms; } conjs[] = {
	{ "a > 5", 1 },
	{ "a >= -3 && b == 7", 2 },
	{ "(a < 0 && b != 18446744073709551615) && c <= 9223372036854775807", 3 },
	{ "a == -1 && (b > 2 && c < -9223372036854775807)", 3 },
	{ "a != 0 && nosuch == 1", 2 },
	{ "a > 5 || b == 1", -1 },
	{ "!(a > 5)", -1 },
	{ "a > 1.5", -1 },
	{ "a == b", -1 },
	{ "a", -1 },
};

START_TEST(test_conjunction)
{
	static const uint64_t picks[] = { 0, 1, 2, 5, 6, 7, 9, 18, UINT64_MAX, INT64_MAX,
					  (uint64_t)INT64_MIN, (uint64_t)-1 - 1, (uint64_t)-3,
					  (uint64_t)-4 };
	struct flt_term t[8];
	struct flt_value v[FLT_MAX_FIELDS];
	char msg[128];
	int col = 0, n;
	long len = flt_compile(conjs[_i].expr, code, sizeof(code), &col, msg, sizeof(msg));

	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(flt_validate(code, (size_t)len), 0);
	n = flt_conjunction(code, t, 8);
	ck_assert_int_eq(n, conjs[_i].nterms);
	ck_assert_int_eq(flt_conjunction(code, t, 0), -1);	/* no room: not this form */
	srand(7 + (unsigned int)_i);
	for (int round = 0; n > 0 && round < 20000; round++) {
		int want, got = 1;

		for (unsigned int k = 0; k < flt_nfields(code); k++) {
			int r = rand();

			v[k].type = !strcmp(flt_field_name(code, k), "nosuch") ? FLT_T_NONE :
				    (r & 1) ? FLT_T_S64 : FLT_T_U64;
			v[k].u = (r & 2) ? picks[(r >> 2) % (sizeof(picks) / sizeof(picks[0]))] :
				 ((uint64_t)rand() << 33) ^ (uint64_t)rand();
		}
		want = flt_eval(code, v);
		for (int i = 0; i < n && got; i++) {
			const struct flt_value *f = &v[t[i].slot];

			got = f->type != FLT_T_NONE &&
			      flt_op_holds(t[i].op, flt_int_cmp(f->type == FLT_T_S64, f->u,
								 t[i].c_signed, t[i].c));
		}
		ck_assert_msg(got == want, "'%s' round %d: terms say %d, flt_eval %d",
			      conjs[_i].expr, round, got, want);
	}
}
END_TEST

static Suite *filter_suite(void)
{
	Suite *s = suite_create("filter");
	TCase *tc = tcase_create("filter");

	tcase_add_loop_test(tc, test_eval, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_loop_test(tc, test_errors, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_validate_rejects);
	tcase_add_loop_test(tc, test_conjunction, 0, (int)(sizeof(conjs) / sizeof(conjs[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(filter_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
