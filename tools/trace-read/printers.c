// SPDX-License-Identifier: MIT
/*
 * printers.c - the text and JSON formats of an event (see printers.h).
 *
 * Context fields (doc/trace-format.md) come before the payload, as
 * babeltrace2 prints a stream event context:
 * "name: { ip = 0x..., cpu_id = 1 }, { payload }".
 *
 * Numbers are formatted by hand into the output buffer, so the per-event
 * cost is a few hundred nanoseconds and there is no per-event allocation.
 * JSON strings are valid UTF-8 whatever the bytes (pr_json_run(),
 * pr_json_esc(): a byte of no character is \udcXX).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flagnames.h"
#include "support/json.h"
#include "output.h"
#include "printers.h"
#include "reader-select.h"

static bool show_host;			/* the traces come from several hosts */

void pr_set_hosts(const struct shmtrace_rd_reader *r)
{
	const char *first = NULL;

	show_host = false;
	for (size_t i = 0; r && i < shmtrace_rd_trace_count(r); i++) {
		const char *h = shmtrace_rd_trace_hostname(shmtrace_rd_trace_at(r, i));

		if (!first) {
			first = h;
		} else if (strcmp(first, h)) {
			show_host = true;
			return;
		}
	}
}

/* ---- values ---------------------------------------------------------------- */

static void out_int_base(uint64_t v, unsigned base, unsigned bytes)
{
	static const char digits[] = "0123456789ABCDEF";
	char tmp[72];
	int i = sizeof(tmp);

	if (bytes < 8)
		v &= (UINT64_C(1) << (8 * bytes)) - 1;
	do {
		tmp[--i] = digits[v % base];
		v /= base;
	} while (v);
	if (base == 16)
		out_lit("0x");
	else if (base == 8)
		out_c('0');
	else if (base == 2)
		out_lit("0b");
	out_mem(tmp + i, sizeof(tmp) - i);
}

static void out_int(const struct shmtrace_rd_value *v, uint64_t u)
{
	if (v->base == 10 || !v->base) {
		if (v->is_signed) {
			unsigned sh = 64 - 8 * v->bytes;

			out_s64(sh ? (int64_t)(u << sh) >> sh : (int64_t)u);
		} else {
			out_u64(u);
		}
	} else {
		out_int_base(u, v->base, v->bytes);
	}
}

static void out_double(double d)
{
	char tmp[40];
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	out_cstr(tmp);
}

static void out_escaped(const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	out_c('"');
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];
		const char *e;
		char x[4];

		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			continue;
		out_mem(s + run, i - run);
		run = i + 1;
		switch (c) {
		case '\a': e = "\\a"; break;
		case '\b': e = "\\b"; break;
		case '\f': e = "\\f"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '\v': e = "\\v"; break;
		case 0x1b: e = "\\e"; break;
		case '\\': e = "\\\\"; break;
		case '"': e = "\\\""; break;
		default:
			x[0] = '\\';
			x[1] = 'x';
			x[2] = hex[c >> 4];
			x[3] = hex[c & 15];
			out_mem(x, 4);
			continue;
		}
		out_mem(e, 2);
	}
	out_mem(s + run, n - run);
	out_room();
	out_c('"');
}

/* ---- time --------------------------------------------------------------- */

static int64_t cached_sec = INT64_MIN;

enum time_format { TF_CLOCK, TF_DATE, TF_EPOCH, TF_RELATIVE };

static enum time_format time_format;
static int64_t time_origin = INT64_MIN;	/* TF_RELATIVE: the first event */
static char cached_hms[32];

int pr_set_time_format(const char *name)
{
	if (!strcmp(name, "clock"))
		time_format = TF_CLOCK;
	else if (!strcmp(name, "date"))
		time_format = TF_DATE;
	else if (!strcmp(name, "epoch"))
		time_format = TF_EPOCH;
	else if (!strcmp(name, "relative"))
		time_format = TF_RELATIVE;
	else
		return -EINVAL;
	return 0;
}

/* The time of an event, without brackets, in the chosen format. */
static void out_time_bare(int64_t ns)
{
	int64_t sec, frac;

	if (time_format == TF_RELATIVE) {
		if (time_origin == INT64_MIN)
			time_origin = ns;
		ns -= time_origin;
	}
	sec = ns / 1000000000;
	frac = ns % 1000000000;
	if (frac < 0) {
		frac += 1000000000;
		sec--;
	}
	if (time_format == TF_EPOCH || time_format == TF_RELATIVE) {
		if (sec < 0) {
			out_c('-');
			sec = -sec - 1;
			frac = 1000000000 - frac;
		}
		out_u64((uint64_t)sec);
	} else {
		if (sec != cached_sec) {
			time_t t = (time_t)sec;
			struct tm tm;

			if (!localtime_r(&t, &tm))
				snprintf(cached_hms, sizeof(cached_hms), "??:??:??");
			else if (time_format == TF_DATE)
				strftime(cached_hms, sizeof(cached_hms), "%Y-%m-%d %H:%M:%S", &tm);
			else
				strftime(cached_hms, sizeof(cached_hms), "%H:%M:%S", &tm);
			cached_sec = sec;
		}
		out_lit(cached_hms);
	}
	out_c('.');
	out_u64_pad((uint64_t)frac, 9);
}

static void out_time(int64_t ns)
{
	out_c('[');
	out_time_bare(ns);
	out_c(']');
}

/* ---- text ------------------------------------------------------------------ */

/* " <name+0xoff>" after an address that names a function. */
static void out_symbol(const struct shmtrace_rd_symbol *sym)
{
	out_lit(" <");
	out_cstr(sym->name);
	out_room();
	if (sym->offset) {
		out_lit("+0x");
		out_hex_lower(sym->offset);
	}
	out_c('>');
}

static void print_value(const struct shmtrace_rd_value *v)
{
	uint32_t i;

	switch (v->kind) {
	case SHMTRACE_RD_INT:
		out_int(v, v->u);
		break;
	case SHMTRACE_RD_FLOAT:
		out_double(v->d);
		break;
	case SHMTRACE_RD_STRING:
		out_escaped(v->str, v->len);
		break;
	case SHMTRACE_RD_ENUM:
		/* as babeltrace2 prints an enumeration */
		out_lit("( ");
		if (v->str)
			out_escaped(v->str, v->len);
		else
			out_lit("<unknown>");
		out_room();
		out_lit(" : container = ");
		out_int(v, v->u);
		out_lit(" )");
		break;
	case SHMTRACE_RD_SEQUENCE:
	case SHMTRACE_RD_ARRAY:
		out_c('[');
		for (i = 0; i < v->count; i++) {
			out_room();
			out_lit(i ? ", [" : " [");
			out_u64(i);
			out_lit("] = ");
			out_int(v, shmtrace_rd_value_elem_u(v, i));
		}
		out_room();
		out_lit(" ]");
		break;
	}
}

/* The bits of an integer value, without the sign extension of its type. */
static uint64_t int_bits(const struct shmtrace_rd_value *v)
{
	return v->bytes < 8 ? v->u & ((UINT64_C(1) << (8 * v->bytes)) - 1) : v->u;
}

/* The names of the value of field @f (flagnames.h) into the output. */
static void out_named(const struct fn_field *f, const struct shmtrace_rd_value *v)
{
	char buf[512];
	size_t n = fn_format(f, int_bits(v), buf, sizeof(buf));

	out_mem(buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
}

/*
 * "{ name = value, ... }": the context fields (@ctx) or the payload; with
 * @syms, code addresses are followed by their function; payload fields
 * that flagnames.h knows are printed as names.
 */
static void print_group(const struct shmtrace_rd_event *ev, bool ctx,
			struct shmtrace_rd_symbols *syms)
{
	unsigned i, n = sel_event_count(ev, ctx);
	const struct fn_field *named = ctx ? NULL : fn_event(shmtrace_rd_event_name(ev));

	out_c('{');
	for (i = 0; i < n; i++) {
		struct shmtrace_rd_value v;
		struct shmtrace_rd_symbol sym;
		const char *name = sel_event_value(ev, ctx, i, &v);
		const struct fn_field *f = named && v.kind == SHMTRACE_RD_INT ?
			fn_field(named, name) : NULL;

		out_lit(i ? ", " : " ");
		out_cstr(name);
		out_room();
		out_lit(" = ");
		if (f)
			out_named(f, &v);
		else
			print_value(&v);
		out_room();
		if (syms && shmtrace_rd_value_is_address(&v) &&
		    shmtrace_rd_sym_value(syms, ev, ctx, &v, &sym))
			out_symbol(&sym);
	}
	out_lit(" }");
	out_room();
}

void pr_text(struct pr_state *ps, const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	int64_t vpid;

	out_room();
	if (ps->raw) {
		uint64_t c = shmtrace_rd_event_clock(ev);

		out_c('[');
		out_u64_pad(c, 20);
		out_lit("] (");
		if (!ps->have_last) {
			out_lit("+????????????");
		} else {
			/* unsigned like babeltrace2, even across clocks */
			uint64_t d = c - ps->last_clock;

			out_c('+');
			if (d < 1000000000000ULL)
				out_u64_pad(d, 12);
			else
				out_u64(d);
		}
		out_lit(") ");
		ps->last_clock = c;
	} else {
		int64_t ns = shmtrace_rd_event_time_ns(ev);

		out_time(ns);
		out_lit(" (");
		if (!ps->have_last) {
			out_lit("+?.?????????");
		} else {
			int64_t d = ns - ps->last_ns;

			if (d < 0) {
				out_c('-');
				d = -d;
			} else {
				out_c('+');
			}
			out_u64(d / 1000000000);
			out_c('.');
			out_u64_pad(d % 1000000000, 9);
		}
		out_lit(") ");
		ps->last_ns = ns;
	}
	ps->have_last = true;

	if (show_host) {
		out_cstr(shmtrace_rd_trace_hostname(t));
		out_room();
		out_c(':');
	}
	out_cstr(sel_event_procname(ev));
	out_room();
	out_c(':');
	vpid = sel_event_pid(ev);
	if (vpid >= 0)
		out_s64(vpid);
	else
		out_c('?');
	out_c(':');
	out_u64(shmtrace_rd_event_tid(ev));
	out_c(' ');
	out_cstr(shmtrace_rd_event_name(ev));
	out_room();
	out_lit(": ");
	if (sel_event_count(ev, true)) {
		print_group(ev, true, ps->syms);
		out_lit(", ");
	}
	print_group(ev, false, ps->syms);
	out_c('\n');
}

/* ---- JSON ------------------------------------------------------------------ */

/* The characters of a JSON string (UTF-8 passes through; control characters escaped). */
size_t pr_json_run(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned char c = p[i];
		size_t k;

		if (c < 0x80) {
			if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f)
				break;
			i++;
			continue;
		}
		k = js_utf8_len(p + i, n - i);
		if (!k)
			break;	/* not UTF-8 */
		i += k;
	}
	return i;
}

size_t pr_json_esc(unsigned char c, char esc[6])
{
	static const char hex[] = "0123456789abcdef";

	esc[0] = '\\';
	if (c == '"' || c == '\\') {
		esc[1] = (char)c;
		return 2;
	}
	esc[1] = 'u';
	esc[2] = c < 0x80 ? '0' : 'd';	/* a byte of no character: \udcXX */
	esc[3] = c < 0x80 ? '0' : 'c';
	esc[4] = hex[c >> 4];
	esc[5] = hex[c & 15];
	return 6;
}

static void out_json_chars(const char *s, size_t n)
{
	while (n) {
		size_t k = pr_json_run(s, n);
		char x[6];

		if (!k) {
			out_mem(x, pr_json_esc((unsigned char)*s, x));
			k = 1;
		} else {
			out_mem(s, k);
		}
		s += k;
		n -= k;
	}
	out_room();
}

/* A string as JSON. */
static void out_json_str(const char *s, size_t n)
{
	out_c('"');
	out_json_chars(s, n);
	out_c('"');
}

/*
 * Has @ev's group (@ctx: the context) a field named @base followed by
 * @suffix? Then trace-read adds no key of that name of its own.
 */
static bool group_has(const struct shmtrace_rd_event *ev, bool ctx, const char *base,
		      const char *suffix)
{
	size_t bl = strlen(base);
	unsigned n = sel_event_count(ev, ctx);

	for (unsigned i = 0; i < n; i++) {
		const char *name = ctx ? shmtrace_rd_event_context_name(ev, i) :
			shmtrace_rd_event_field_name(ev, i);

		if (name && !strncmp(name, base, bl) && !strcmp(name + bl, suffix))
			return true;
	}
	return false;
}

/*
 * ,"NAME_SUFFIX": the key of a value trace-read adds beside field NAME;
 * false (nothing written) when the group has a field of that name, or the
 * name is too long to bother.
 */
static bool json_sibling(const struct shmtrace_rd_event *ev, bool ctx, const char *name,
			 const char *suffix)
{
	size_t n = strlen(name), sl = strlen(suffix);
	char key[256];

	if (n + sl >= sizeof(key) || group_has(ev, ctx, name, suffix))
		return false;
	memcpy(key, name, n);
	memcpy(key + n, suffix, sl);
	out_c(',');
	out_json_str(key, n + sl);
	out_c(':');
	out_room();
	return true;
}

/*
 * The keys trace-read adds after field @name of value @v (printers.h):
 * NAME_sym, NAME_names, NAME_octal.
 */
static void json_annotate(const struct shmtrace_rd_event *ev, bool ctx, const char *name,
			  const struct shmtrace_rd_value *v, const struct fn_field *named,
			  struct shmtrace_rd_symbols *syms)
{
	const struct fn_field *f;
	struct shmtrace_rd_symbol sym;

	if (v->kind != SHMTRACE_RD_INT)
		return;
	out_room();
	if (syms && shmtrace_rd_value_is_address(v) &&
	    shmtrace_rd_sym_value(syms, ev, ctx, v, &sym) && json_sibling(ev, ctx, name, "_sym")) {
		out_c('"');
		out_json_chars(sym.name, strlen(sym.name));
		if (sym.offset) {
			out_lit("+0x");
			out_hex_lower(sym.offset);
		}
		out_c('"');
	}
	f = named ? fn_field(named, name) : NULL;
	if (f) {
		char buf[512];
		size_t n;

		if (!json_sibling(ev, ctx, name, f->kind == FN_OCTAL ? "_octal" : "_names"))
			return;
		n = fn_format(f, int_bits(v), buf, sizeof(buf));
		out_json_str(buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
	}
}

/*
 * {"name":value,...}: the context fields (@ctx) or the payload, each
 * followed by what json_annotate() adds (@syms: the symbol tables, or NULL).
 */
static void json_group(const struct shmtrace_rd_event *ev, bool ctx,
		       struct shmtrace_rd_symbols *syms)
{
	unsigned i, n = sel_event_count(ev, ctx);
	const struct fn_field *named = ctx ? NULL : fn_event(shmtrace_rd_event_name(ev));

	out_c('{');
	for (i = 0; i < n; i++) {
		struct shmtrace_rd_value v;
		const char *fname = sel_event_value(ev, ctx, i, &v);

		if (i)
			out_c(',');
		out_json_str(fname, strlen(fname));
		out_c(':');
		out_room();
		switch (v.kind) {
		case SHMTRACE_RD_INT:
			if (v.base == 16) {
				out_lit("\"0x");
				out_hex_lower(v.u);
				out_c('"');
			} else if (v.is_signed) {
				out_s64(v.s);
			} else {
				out_u64(v.u);
			}
			break;
		case SHMTRACE_RD_FLOAT:
			if (v.d != v.d || v.d - v.d != 0)
				out_lit("null");
			else
				out_double(v.d);
			break;
		case SHMTRACE_RD_STRING:
			out_json_str(v.str, v.len);
			break;
		case SHMTRACE_RD_ENUM:
			/* {"label":"L","value":N}; label null when none maps N */
			out_lit("{\"label\":");
			if (v.str)
				out_json_str(v.str, v.len);
			else
				out_lit("null");
			out_lit(",\"value\":");
			if (v.is_signed)
				out_s64(v.s);
			else
				out_u64(v.u);
			out_c('}');
			break;
		case SHMTRACE_RD_SEQUENCE:
		case SHMTRACE_RD_ARRAY:
			out_c('[');
			for (uint32_t j = 0; j < v.count; j++) {
				out_room();
				if (j)
					out_c(',');
				if (v.is_signed)
					out_s64(shmtrace_rd_value_elem_s(&v, j));
				else
					out_u64(shmtrace_rd_value_elem_u(&v, j));
			}
			out_c(']');
			break;
		}
		if (syms || named)
			json_annotate(ev, ctx, fname, &v, named, syms);
	}
	out_room();
	out_c('}');
}

void pr_json(const struct pr_state *ps, const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	const char *pn = sel_event_procname(ev), *en = shmtrace_rd_event_name(ev);
	int64_t ns = shmtrace_rd_event_time_ns(ev);

	out_room();
	out_lit("{\"time_ns\":");
	out_s64(ns);
	out_lit(",\"time\":\"");
	out_time_bare(ns);
	if (show_host) {
		const char *h = shmtrace_rd_trace_hostname(t);

		out_lit("\",\"host\":");
		out_json_str(h, strlen(h));
		out_lit(",\"proc\":");
	} else {
		out_lit("\",\"proc\":");
	}
	out_json_str(pn, strlen(pn));
	out_lit(",\"pid\":");
	out_s64(sel_event_pid(ev));
	out_lit(",\"tid\":");
	out_u64(shmtrace_rd_event_tid(ev));
	out_lit(",\"event\":");
	out_json_str(en, strlen(en));
	if (sel_event_count(ev, true)) {
		out_lit(",\"context\":");
		json_group(ev, true, ps->syms);
	}
	out_lit(",\"fields\":");
	json_group(ev, false, ps->syms);
	out_lit("}\n");
}
