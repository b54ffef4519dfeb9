/* SPDX-License-Identifier: MIT */
/*
 * trace-read.c - command line trace reader: prints the events of shmtrace
 * CTF traces merged in time order, one per line, in a babeltrace2-like
 * text format, or per-event-name counts with --count.
 *
 * Context fields (doc/trace-format.md) come before the payload, as
 * babeltrace2 prints a stream event context:
 * "name: { ip = 0x..., cpu_id = 1 }, { payload }".
 *
 * Symbols: each process (trace) has a table of its loaded objects, fed by
 * the shmtrace_statedump:bin_info and shmtrace_proc:dlopen/dlclose events
 * as they stream by (a state dump precedes the addresses that need it).
 * Every hexadecimal 64-bit field (payload or context, such as ip) that
 * falls in a function of a known object is followed by " <name+0xoffset>"
 * (reader/symbols.h); --no-symbols turns this off. Events are classified
 * once per event class, so an event with no such field costs one array
 * look-up more, and the symbol module caches recent answers, so repeated
 * call sites cost a hash probe.
 *
 * All decoding is done by the reader core (reader/reader.h); this file only
 * formats. Output goes through one large buffer written with write(2), and
 * numbers are formatted by hand, so the per-event cost is a few hundred
 * nanoseconds and there is no per-event allocation.
 *
 * --aggregations prints a session's aggregations.json (common/aggjson.h
 * reads it, common/aggfmt.h prints it) instead of traces.
 *
 * Exit status: 0 success, 1 bad usage, 2 corrupt or unreadable trace (or an
 * output error).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aggjson.h"
#include "analysis.h"
#include "json.h"
#include <shmtrace/reader.h>
#include "reader/symbols.h"
#include "follow.h"
#include "select.h"
#include "units.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define OUT_CAP (1U << 20)
#define OUT_SLACK 256		/* room always available for small appends */

static char out_buf[OUT_CAP];
static size_t out_len;
static int out_failed;

static void out_flush(void)
{
	size_t off = 0;

	while (off < out_len && !out_failed) {
		ssize_t n = write(STDOUT_FILENO, out_buf + off, out_len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			out_failed = errno;
			break;
		}
		off += n;
	}
	out_len = 0;
}

/* Make sure at least OUT_SLACK bytes are free. */
static inline void out_room(void)
{
	if (out_len > OUT_CAP - OUT_SLACK)
		out_flush();
}

static inline void out_mem(const char *s, size_t n)
{
	while (n) {
		size_t k;

		if (out_len == OUT_CAP)
			out_flush();
		k = OUT_CAP - out_len;
		if (k > n)
			k = n;
		memcpy(out_buf + out_len, s, k);
		out_len += k;
		s += k;
		n -= k;
	}
}

static inline void out_cstr(const char *s)
{
	out_mem(s, strlen(s));
}

/* Small appends below assume out_room() was called for this element. */
static inline void out_c(char c)
{
	out_buf[out_len++] = c;
}

static inline void out_lit(const char *s)
{
	size_t n = strlen(s);

	memcpy(out_buf + out_len, s, n);
	out_len += n;
}

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

/* Decimal, two digits per division. */
static void out_u64(uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	while (v >= 100) {
		unsigned r = v % 100;

		v /= 100;
		i -= 2;
		memcpy(tmp + i, digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		i -= 2;
		memcpy(tmp + i, digit_pairs + 2 * v, 2);
	} else {
		tmp[--i] = '0' + v;
	}
	memcpy(out_buf + out_len, tmp + i, sizeof(tmp) - i);
	out_len += sizeof(tmp) - i;
}

static void out_s64(int64_t v)
{
	if (v < 0) {
		out_c('-');
		out_u64(-(uint64_t)v);
	} else {
		out_u64(v);
	}
}

/* Zero-padded decimal of exactly @width digits (v < 10^width). */
static void out_u64_pad(uint64_t v, int width)
{
	int i;

	for (i = width - 1; i >= 0; i--) {
		out_buf[out_len + i] = '0' + v % 10;
		v /= 10;
	}
	out_len += width;
}

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

/* Lower-case hexadecimal digits of @v, no prefix (room must be there). */
static void out_hex_lower(uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	memcpy(out_buf + out_len, tmp + i, sizeof(tmp) - i);
	out_len += sizeof(tmp) - i;
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

/* ---- symbols ------------------------------------------------------------- */

/* What an event class means to the symbol tables. */
enum ev_kind {
	EK_UNKNOWN = 0,		/* not classified yet */
	EK_PLAIN,		/* any other event */
	EK_BIN_INFO,		/* shmtrace_statedump:bin_info */
	EK_DLOPEN,		/* shmtrace_proc:dlopen */
	EK_DLCLOSE,		/* shmtrace_proc:dlclose */
};

/* Symbol state of one process (trace). */
struct proc_syms {
	struct sym_table *tab;		/* NULL until an object is described */
	unsigned char *kind;		/* enum ev_kind by event class index */
	size_t nkind;
};

static struct sym_cache *sym_cache;	/* NULL: no symbol resolution */
static bool show_host;			/* the traces come from several hosts */

/* Do the traces of @r name more than one host? */
static bool several_hosts(const struct shmtrace_rd_reader *r)
{
	const char *first = NULL;

	for (size_t i = 0; i < shmtrace_rd_trace_count(r); i++) {
		const char *h = shmtrace_rd_trace_hostname(shmtrace_rd_trace_at(r, i));

		if (!first)
			first = h;
		else if (strcmp(first, h))
			return true;
	}
	return false;
}
static struct proc_syms *procs;		/* by trace index */
static size_t nprocs;

static void sym_warn(void *arg, const char *msg)
{
	out_flush();
	fprintf(stderr, "WARNING: %s\n", msg);
}

static int syms_init(const struct shmtrace_rd_reader *r)
{
	struct sym_cache_config cfg = { .warn = sym_warn };
	int rc;

	nprocs = shmtrace_rd_trace_count(r);
	procs = calloc(nprocs + 1, sizeof(*procs));
	if (!procs)
		return -ENOMEM;
	rc = sym_cache_new(&sym_cache, &cfg);
	if (rc < 0) {
		free(procs);
		procs = NULL;
	}
	return rc;
}

static void syms_fini(void)
{
	size_t i;

	for (i = 0; procs && i < nprocs; i++) {
		sym_table_free(procs[i].tab);
		free(procs[i].kind);
	}
	free(procs);
	procs = NULL;
	sym_cache_free(sym_cache);
	sym_cache = NULL;
}

static unsigned char classify(const char *name)
{
	if (!strcmp(name, "shmtrace_statedump:bin_info"))
		return EK_BIN_INFO;
	if (!strcmp(name, "shmtrace_proc:dlopen"))
		return EK_DLOPEN;
	if (!strcmp(name, "shmtrace_proc:dlclose"))
		return EK_DLCLOSE;
	return EK_PLAIN;
}

static unsigned char event_kind(struct proc_syms *p, const struct shmtrace_rd_event *ev)
{
	size_t i = shmtrace_rd_event_class_index(ev);

	if (i >= p->nkind) {
		size_t n = shmtrace_rd_trace_event_class_count(shmtrace_rd_event_trace(ev));
		unsigned char *k;

		if (n <= i)
			n = i + 1;
		k = realloc(p->kind, n);
		if (!k)
			return EK_PLAIN;
		memset(k + p->nkind, EK_UNKNOWN, n - p->nkind);
		p->kind = k;
		p->nkind = n;
	}
	if (p->kind[i] == EK_UNKNOWN)
		p->kind[i] = classify(shmtrace_rd_event_name(ev));
	return p->kind[i];
}

/* Apply a state dump or dlopen/dlclose event to its process's table. */
static void syms_feed(struct proc_syms *p, unsigned char kind,
		      const struct shmtrace_rd_event *ev)
{
	unsigned i, n = shmtrace_rd_event_field_count(ev), have = 0;
	uint64_t base = 0, low = 0, high = 0;
	const char *path = NULL;
	const uint8_t *id = NULL;
	size_t id_len = 0;
	int64_t result = 0;

	for (i = 0; i < n; i++) {
		const char *name = shmtrace_rd_event_field_name(ev, i);
		struct shmtrace_rd_value v;

		if (shmtrace_rd_event_field(ev, i, &v))
			continue;
		if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "base")) {
			base = v.u;
			have |= 1;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "low")) {
			low = v.u;
			have |= 2;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "high")) {
			high = v.u;
			have |= 4;
		} else if (v.kind == SHMTRACE_RD_STRING && !strcmp(name, "path")) {
			path = v.str;
			have |= 8;
		} else if (v.kind == SHMTRACE_RD_INT && !strcmp(name, "result")) {
			result = v.is_signed ? v.s : (int64_t)v.u;
		} else if ((v.kind == SHMTRACE_RD_SEQUENCE || v.kind == SHMTRACE_RD_ARRAY) &&
			   v.bytes == 1 && !strcmp(name, "build_id") &&
			   v.count <= SYM_BUILD_ID_MAX) {
			id = v.data;
			id_len = v.count;
		}
	}
	if (!p->tab && sym_table_new(&p->tab, sym_cache) < 0)
		return;
	switch (kind) {
	case EK_BIN_INFO:
		if (have == 15)
			sym_table_add(p->tab, base, low, high, path, id, id_len);
		break;
	case EK_DLOPEN:
		/* the state dump that follows a dlopen describes it better */
		if ((have & 9) == 9 && base)
			sym_table_add(p->tab, base, 0, 0, path, NULL, 0);
		break;
	case EK_DLCLOSE:
		if ((have & 1) && !result)
			sym_table_remove(p->tab, base);
		break;
	}
}

/* " <name+0xoff>" after an address that resolves, else nothing. */
static void out_symbol(struct proc_syms *p, uint64_t addr)
{
	struct sym_result res;

	if (!p->tab || !sym_table_resolve(p->tab, addr, &res))
		return;
	out_lit(" <");
	out_cstr(res.name);
	out_room();
	if (res.offset) {
		out_lit("+0x");
		out_hex_lower(res.offset);
	}
	out_c('>');
}

/* ---- event printing ------------------------------------------------------ */

struct print_state {
	bool raw;
	bool have_last;
	int64_t last_ns;
	uint64_t last_clock;
};

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

/*
 * "{ name = value, ... }": the context fields (@ctx) or the payload; with
 * @p, 64-bit hexadecimal values are followed by their symbol.
 */
static void print_group(const struct shmtrace_rd_event *ev, bool ctx, struct proc_syms *p)
{
	unsigned i, n = sel_event_count(ev, ctx);

	out_c('{');
	for (i = 0; i < n; i++) {
		struct shmtrace_rd_value v;
		const char *name = sel_event_value(ev, ctx, i, &v);

		out_lit(i ? ", " : " ");
		out_cstr(name);
		out_room();
		out_lit(" = ");
		print_value(&v);
		out_room();
		if (p && v.kind == SHMTRACE_RD_INT && v.base == 16 && v.bytes == 8)
			out_symbol(p, v.u);
	}
	out_lit(" }");
	out_room();
}

static void print_event(struct print_state *ps, const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	struct proc_syms *p = NULL;
	unsigned char kind = EK_PLAIN;
	int64_t vpid;

	if (sym_cache) {
		p = &procs[shmtrace_rd_trace_index(t)];
		kind = event_kind(p, ev);
	}

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
	out_cstr(shmtrace_rd_trace_procname(t));
	out_room();
	out_c(':');
	vpid = shmtrace_rd_trace_vpid(t);
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
		print_group(ev, true, p);
		out_lit(", ");
	}
	/* a state dump's addresses are objects' bounds, not code */
	print_group(ev, false, kind != EK_BIN_INFO ? p : NULL);
	out_c('\n');
}

/* A string as JSON (UTF-8 passes through; control characters escaped). */
static void out_json_str(const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	out_c('"');
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];
		char x[6] = { '\\', 'u', '0', '0', 0, 0 };

		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			continue;
		out_mem(s + run, i - run);
		run = i + 1;
		if (c == '"' || c == '\\') {
			x[1] = (char)c;
			out_mem(x, 2);
			continue;
		}
		x[4] = hex[c >> 4];
		x[5] = hex[c & 15];
		out_mem(x, 6);
	}
	out_mem(s + run, n - run);
	out_room();
	out_c('"');
}

/* {"name":value,...}: the context fields (@ctx) or the payload. */
static void json_group(const struct shmtrace_rd_event *ev, bool ctx)
{
	unsigned i, n = sel_event_count(ev, ctx);

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
	}
	out_room();
	out_c('}');
}

/*
 * One JSON object per line: time, process, thread, name, the context
 * fields when the event has some ("context") and the payload ("fields").
 */
static void print_json(const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	const char *pn = shmtrace_rd_trace_procname(t), *en = shmtrace_rd_event_name(ev);
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
	out_s64(shmtrace_rd_trace_vpid(t));
	out_lit(",\"tid\":");
	out_u64(shmtrace_rd_event_tid(ev));
	out_lit(",\"event\":");
	out_json_str(en, strlen(en));
	if (sel_event_count(ev, true)) {
		out_lit(",\"context\":");
		json_group(ev, true);
	}
	out_lit(",\"fields\":");
	json_group(ev, false);
	out_lit("}\n");
}

/* Keep the symbol tables up to date with every event read. */
static void syms_track(const struct shmtrace_rd_event *ev)
{
	struct proc_syms *p = &procs[shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev))];
	unsigned char kind = event_kind(p, ev);

	if (kind > EK_PLAIN)
		syms_feed(p, kind, ev);
}

/* For the analyses: a function's name, or NULL. */
static const char *resolve_name(void *arg, const struct shmtrace_rd_event *ev, uint64_t addr, char *buf,
				size_t len)
{
	struct proc_syms *p;
	struct sym_result res;

	(void)arg;
	if (!sym_cache)
		return NULL;
	p = &procs[shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev))];
	if (!p->tab || !sym_table_resolve(p->tab, addr, &res))
		return NULL;
	snprintf(buf, len, "%s", res.name);
	return buf;
}

/* ---- counting ------------------------------------------------------------ */

struct name_count {
	const char *name;
	uint64_t count;
};

static int cmp_name_count(const void *a, const void *b)
{
	const struct name_count *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int print_counts(const struct shmtrace_rd_reader *r, uint64_t **counts,
			uint64_t total, uint64_t discarded)
{
	struct name_count *nc;
	size_t i, j, n = 0, cap = 0;
	char line[64];

	for (i = 0; i < shmtrace_rd_trace_count(r); i++)
		cap += shmtrace_rd_trace_event_class_count(shmtrace_rd_trace_at(r, i));
	nc = calloc(cap + 1, sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	for (i = 0; i < shmtrace_rd_trace_count(r); i++) {
		const struct shmtrace_rd_trace *t = shmtrace_rd_trace_at(r, i);

		for (j = 0; j < shmtrace_rd_trace_event_class_count(t); j++) {
			if (!counts[i][j])
				continue;
			nc[n].name = shmtrace_rd_trace_event_class_name(t, j);
			nc[n++].count = counts[i][j];
		}
	}
	qsort(nc, n, sizeof(*nc), cmp_name_count);
	for (i = 0; i < n; i = j) {
		uint64_t c = 0;

		for (j = i; j < n && !strcmp(nc[j].name, nc[i].name); j++)
			c += nc[j].count;
		snprintf(line, sizeof(line), "%12" PRIu64 "  ", c);
		out_cstr(line);
		out_cstr(nc[i].name);
		out_room();
		out_c('\n');
	}
	snprintf(line, sizeof(line), "%12" PRIu64 "  total\n", total);
	out_cstr(line);
	snprintf(line, sizeof(line), "%12" PRIu64 "  discarded\n", discarded);
	out_cstr(line);
	free(nc);
	return 0;
}

/* ---- main ---------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: trace-read [OPTION]... PATH...\n"
		"  or:  trace-read --aggregations DIR [--format FMT] [--name NAME]\n"
		"Print the events of the shmtrace CTF traces found under each PATH\n"
		"(a trace directory or a session directory), merged in time order,\n"
		"or analyse them; or print the aggregations of a session.\n"
		"\n"
		"Output:\n"
		"      --format FMT      text (default: [time] (+delta) proc:pid:tid\n"
		"                        provider:event: { field = value, ... }) or json\n"
		"                        (one object per line)\n"
		"      --time-format TF  clock (default, local time of day), date,\n"
		"                        epoch (seconds) or relative (to the first event)\n"
		"  -r, --clock-raw       raw clock values instead of times\n"
		"      --no-symbols      addresses without the function names found from\n"
		"                        the traced processes' state dumps\n"
		"      --follow          print events as the consumer writes them into\n"
		"                        PATH (a session's output), in time order, held\n"
		"                        back by the session's flush interval, until the\n"
		"                        session is stopped or destroyed (like tail -f)\n"
		"Selection (combined with and):\n"
		"  -e, --event PATTERN   events whose provider:event matches (repeatable)\n"
		"  -f, --filter EXPR     events whose fields satisfy EXPR, e.g.\n"
		"                        'seq >= 500 && (path == \"/tmp/*\" || !ok)';\n"
		"                        a name is a payload field, else a context field\n"
		"                        (cpu_id); $ctx.NAME a context field only; also\n"
		"                        $ctx.pid, $ctx.tid, $ctx.procname\n"
		"      --pid PID, --tid TID   (repeatable)\n"
		"      --begin T, --end T     T: seconds since the Epoch, a time of day\n"
		"                        (HH:MM:SS.frac) or +DURATION from the first event\n"
		"Analyses (instead of printing events):\n"
		"  -c, --count           events per name, total, discarded\n"
		"  -s, --stats           events per name and thread, discarded events per\n"
		"                        process and stream, time span and rate\n"
		"  -l, --latency BEGIN,END   pair BEGIN and END events (name patterns) per\n"
		"                        thread: count, min, p50, p90, p99, p99.9, max and\n"
		"                        a power-of-two histogram\n"
		"      --by FIELD        pair by the value of FIELD (as in --filter)\n"
		"                        instead of the thread\n"
		"      --slower-than D   list the pairs longer than D (e.g. 1ms, 250us)\n"
		"  -p, --profile         calls, total and self time per function from\n"
		"                        function entry/exit events, bytes allocated\n"
		"      --export chrome FILE   Chrome trace event JSON (Perfetto UI,\n"
		"                        chrome://tracing)\n"
		"Aggregations (instead of traces):\n"
		"      --aggregations DIR   the aggregations that the consumer wrote\n"
		"                        into DIR/aggregations.json when the session\n"
		"                        stopped (DIR: the session's output, or the\n"
		"                        file itself), as DTrace-style text, or with\n"
		"                        --format json as one JSON document: an array\n"
		"                        of one object per aggregation, with its\n"
		"                        definition (doc/trace-format.md); function\n"
		"                        profiles (record --aggregate) as --profile\n"
		"                        prints them, named from the traces in DIR\n"
		"      --name NAME       only the aggregation(s) named NAME\n"
		"  -h, --help, -V, --version\n"
		"\n"
		"Exit status: 0 on success, 1 on bad usage (or no aggregation NAME),\n"
		"2 on a corrupt or unreadable trace or aggregations.json.\n");
}

enum {
	OPT_NO_SYMBOLS = 256, OPT_FORMAT, OPT_TIME_FORMAT, OPT_PID, OPT_TID, OPT_BEGIN, OPT_END,
	OPT_BY, OPT_SLOWER, OPT_EXPORT, OPT_FOLLOW, OPT_AGGREGATIONS, OPT_NAME,
};

struct follow_arg {
	struct print_state *ps;
	struct sel *sel;
	bool json;
};

static int follow_event(const struct shmtrace_rd_event *ev, void *arg)
{
	struct follow_arg *fa = arg;

	if (sel_active(fa->sel)) {
		int m = sel_match(fa->sel, ev);

		if (m == 2)
			return -ECANCELED;	/* past --end */
		if (!m)
			return 0;
	}
	if (fa->json)
		print_json(ev);
	else
		print_event(fa->ps, ev);
	return 0;
}

static void follow_round(void *arg)
{
	out_flush();
}

enum mode { M_PRINT, M_JSON, M_COUNT, M_STATS, M_LATENCY, M_PROFILE, M_CHROME };

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* On a terminal, a line on stderr now and then while a long read runs. */
static void progress(uint64_t n, int64_t t0, int *shown)
{
	struct timespec ts;
	int64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (now - t0 < 1000000000)
		return;
	fprintf(stderr, "\rtrace-read: %" PRIu64 " events, %.1f M/s   ", n,
		(double)n * 1e3 / (double)(now - t0));
	*shown = 1;
}

/* Free the selection, return @status: for the exits before the trace is open. */
static int sel_done(struct sel *sel, int status)
{
	sel_free(sel);
	return status;
}

static int bad_usage(const char *what, const char *arg)
{
	fprintf(stderr, "trace-read: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
	return 1;
}

/* ---- aggregations ---------------------------------------------------------- */

#define AGG_FILE "aggregations.json"

/* The whole of @path into *@buf (malloc'd), at most JS_MAX_BYTES. 0 or -errno. */
static int read_file(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 16, n = 0;
	char *b = NULL;
	int rc = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t k;

		if (n == cap || !b) {
			char *nb;

			if (b)
				cap *= 2;
			if (cap > (size_t)JS_MAX_BYTES + 1)
				cap = (size_t)JS_MAX_BYTES + 1;
			nb = realloc(b, cap);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			b = nb;
		}
		if (n == cap) {
			rc = -EFBIG;
			break;
		}
		k = read(fd, b + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			break;
		}
		if (!k)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (rc) {
		free(b);
		return rc;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* A function profile (tracectl aggregate --profile, record --aggregate)? */
static bool agg_is_profile(const struct agg_view *v)
{
	if (v->def.nkeys != 2 || strcmp(v->names.key[0], "$ctx.vpid") ||
	    strcmp(v->names.key[1], "addr") ||
	    v->def.nfuncs != AGG_PROFILE_NSUMS)
		return false;
	for (unsigned int i = 0; i < v->def.nfuncs; i++)
		if (v->def.f[i].fn != AGG_SUM || !v->names.arg[i] ||
		    strcmp(v->names.arg[i], agg_profile_sums[i]))
			return false;
	return true;
}

/*
 * Symbol tables of the processes of the traces in @dir (their state
 * dumps), for the profiles' addresses; nothing when there is no trace.
 */
static void agg_syms(const char *dir, struct shmtrace_rd_reader **r)
{
	const struct shmtrace_rd_event *ev;
	char err[SHMTRACE_RD_ERRLEN];

	*r = NULL;
	if (shmtrace_rd_open(r, &dir, 1, err, sizeof(err)) < 0) {
		*r = NULL;
		return;
	}
	if (syms_init(*r) < 0) {
		shmtrace_rd_close(*r);
		*r = NULL;
		return;
	}
	while (shmtrace_rd_next(*r, &ev) > 0)
		syms_track(ev);
}

/* The name of @addr in process @pid: from the last trace of that pid. */
static const char *agg_sym(const struct shmtrace_rd_reader *r, int64_t pid, uint64_t addr,
			   char *buf, size_t len)
{
	struct sym_result res;

	if (!addr)
		return "(outside the functions followed)";
	for (size_t i = r ? shmtrace_rd_trace_count(r) : 0; i-- > 0;) {
		const struct proc_syms *p = &procs[i];

		if (shmtrace_rd_trace_vpid(shmtrace_rd_trace_at(r, i)) != pid)
			continue;
		if (p->tab && sym_table_resolve(p->tab, addr, &res)) {
			snprintf(buf, len, "%s", res.name);
			return buf;
		}
		break;
	}
	snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}

/* Print profile @v as --profile prints one, names from the traces in @dir. */
static int print_profile(struct agg_view *v, const char *dir)
{
	struct an_prof_row *rows = calloc(v->n + 1, sizeof(*rows));
	struct shmtrace_rd_reader *r = NULL;
	bool alloc = false;
	uint32_t n = 0;
	int rc = 0;

	if (!rows)
		return -ENOMEM;
	agg_syms(dir, &r);
	for (uint32_t i = 0; i < v->n && !rc; i++) {
		struct agg_ventry e;
		char buf[512];

		rc = agg_view_entry(v, i, &e);
		if (rc || !e.val[0].v)
			continue;	/* allocations outside every function: no call */
		rows[n].name = strdup(agg_sym(r, e.key[0].i, (uint64_t)e.key[1].i, buf, sizeof(buf)));
		if (!rows[n].name) {
			rc = -ENOMEM;
			break;
		}
		rows[n].calls = (uint64_t)e.val[0].v;
		rows[n].total = (uint64_t)e.val[1].v;
		rows[n].self = (uint64_t)e.val[2].v;
		rows[n].bytes_self = (uint64_t)e.val[3].v;
		rows[n].bytes_total = (uint64_t)e.val[5].v;
		alloc |= e.val[4].v || e.val[6].v;
		n++;
	}
	if (!rc) {
		printf("%s: function profile (%" PRIu64 " updates, %" PRIu64 " keys dropped, %"
		       PRIu64 " lost, %" PRIu64 " tables torn)\n", v->names.name, v->updates,
		       v->dropped, v->lost, v->torn);
		an_profile_rows_print(stdout, rows, n, alloc);
	}
	for (uint32_t i = 0; i < n; i++)
		free((char *)rows[i].name);
	free(rows);
	if (r) {
		syms_fini();
		shmtrace_rd_close(r);
	}
	return rc;
}

/*
 * --aggregations PATH: print its aggregations.json; function profiles with
 * the names the traces there give (unless @symbols is false). Returns the
 * exit status.
 */
static int print_aggregations(const char *path, bool json, const char *name, bool symbols)
{
	struct agg_json_doc *doc = NULL;
	struct agg_json_writer w;
	char *file = NULL, *text = NULL, *dir = NULL, err[256];
	struct stat st;
	size_t len = 0;
	uint32_t shown = 0;
	int rc, status = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "trace-read: %s: %s\n", path, strerror(errno));
		return 2;
	}
	if (S_ISDIR(st.st_mode)) {
		if (asprintf(&file, "%s/%s", path, AGG_FILE) < 0)
			goto nomem;
		if (stat(file, &st) < 0 && errno == ENOENT) {
			fprintf(stderr, "trace-read: %s has no " AGG_FILE " (the consumer writes "
				"it when the session stops)\n", path);
			free(file);
			return 2;
		}
	} else {
		file = strdup(path);
		if (!file)
			goto nomem;
	}
	rc = read_file(file, &text, &len);
	if (rc == -EFBIG) {
		fprintf(stderr, "trace-read: %s: larger than %u MiB\n", file, JS_MAX_BYTES >> 20);
		status = 2;
		goto out;
	}
	if (rc < 0) {
		fprintf(stderr, "trace-read: %s: %s\n", file, strerror(-rc));
		status = 2;
		goto out;
	}
	rc = agg_json_read(&doc, text, len, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "trace-read: %s: %s\n", file, err);
		status = 2;
		goto out;
	}
	for (uint32_t i = 0; i < agg_json_count(doc); i++)
		shown += !name || !strcmp(agg_json_view(doc, i)->names.name, name);
	if (name && !shown) {
		fprintf(stderr, "trace-read: %s: no aggregation named %s\n", file, name);
		status = 1;
		goto out;
	}
	if (json)
		agg_json_begin(&w, stdout);
	else if (!shown)
		fprintf(stderr, "trace-read: %s: no aggregations\n", file);
	for (uint32_t i = 0; i < agg_json_count(doc) && !rc; i++) {
		struct agg_view *v = agg_json_view(doc, i);

		if (name && strcmp(v->names.name, name))
			continue;
		if (json)
			rc = agg_json_add_view(&w, v);
		else if (agg_is_profile(v) && symbols && (dir || (dir = strdup(file)) != NULL))
			rc = print_profile(v, dirname(dir));
		else
			rc = agg_view_text(stdout, v);
	}
	if (json && !rc)
		rc = agg_json_end(&w);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc || fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "trace-read: write error: %s\n",
			strerror(rc && rc != -EIO ? -rc : errno ? errno : EIO));
		status = 2;
	}
out:
	agg_json_free(doc);
	free(dir);
	free(text);
	free(file);
	return status;
nomem:
	fprintf(stderr, "trace-read: out of memory\n");
	status = 2;
	goto out;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "clock-raw", no_argument, NULL, 'r' },
		{ "count", no_argument, NULL, 'c' },
		{ "stats", no_argument, NULL, 's' },
		{ "latency", required_argument, NULL, 'l' },
		{ "profile", no_argument, NULL, 'p' },
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "time-format", required_argument, NULL, OPT_TIME_FORMAT },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "begin", required_argument, NULL, OPT_BEGIN },
		{ "end", required_argument, NULL, OPT_END },
		{ "by", required_argument, NULL, OPT_BY },
		{ "slower-than", required_argument, NULL, OPT_SLOWER },
		{ "export", required_argument, NULL, OPT_EXPORT },
		{ "follow", no_argument, NULL, OPT_FOLLOW },
		{ "aggregations", required_argument, NULL, OPT_AGGREGATIONS },
		{ "name", required_argument, NULL, OPT_NAME },
		{ NULL, 0, NULL, 0 },
	};
	struct print_state ps = { 0 };
	const struct shmtrace_rd_event *ev;
	struct shmtrace_rd_reader *r = NULL;
	struct sel *sel = sel_new();
	struct an_stats *stats = NULL;
	struct an_latency *lat = NULL;
	struct an_profile *prof = NULL;
	struct an_chrome *chrome = NULL;
	FILE *chrome_out = NULL;
	uint64_t **counts = NULL;
	uint64_t total = 0, discarded = 0, nread = 0;
	char err[SHMTRACE_RD_ERRLEN], *latency = NULL, *by = NULL, *export_file = NULL;
	const char *aggregations = NULL, *agg_name = NULL;
	enum mode mode = M_PRINT;
	bool symbols = true, follow = false;
	int c, rc, status = 0, tty = isatty(2), shown = 0, ret = 0;
	int64_t slower = 0, t0 = 0;
	size_t i;

	if (!sel)
		return 2;
	while ((c = getopt_long(argc, argv, "hVrcsl:pe:f:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return sel_done(sel, 0);
		case 'V':
			printf("trace-read (shmtrace) %s\n", PACKAGE_VERSION);
			return sel_done(sel, 0);
		case 'r':
			ps.raw = true;
			break;
		case 'c':
			mode = M_COUNT;
			break;
		case 's':
			mode = M_STATS;
			break;
		case 'l':
			mode = M_LATENCY;
			latency = optarg;
			break;
		case 'p':
			mode = M_PROFILE;
			break;
		case 'e':
			if (sel_add_event(sel, optarg) < 0)
				return sel_done(sel, 2);
			break;
		case 'f':
			if (sel_set_filter(sel, optarg, err, sizeof(err)) < 0)
				return sel_done(sel, bad_usage("bad filter", err));
			break;
		case OPT_NO_SYMBOLS:
			symbols = false;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "json"))
				mode = M_JSON;
			else if (strcmp(optarg, "text"))
				return sel_done(sel, bad_usage("unknown format", optarg));
			break;
		case OPT_TIME_FORMAT:
			if (!strcmp(optarg, "clock"))
				time_format = TF_CLOCK;
			else if (!strcmp(optarg, "date"))
				time_format = TF_DATE;
			else if (!strcmp(optarg, "epoch"))
				time_format = TF_EPOCH;
			else if (!strcmp(optarg, "relative"))
				time_format = TF_RELATIVE;
			else
				return sel_done(sel, bad_usage("unknown time format", optarg));
			break;
		case OPT_PID:
			sel_add_pid(sel, strtoll(optarg, NULL, 10));
			break;
		case OPT_TID:
			sel_add_tid(sel, (uint32_t)strtoul(optarg, NULL, 10));
			break;
		case OPT_BEGIN:
		case OPT_END: {
			int why = (c == OPT_BEGIN ? sel_set_begin : sel_set_end)(sel, optarg);

			if (why < 0) {
				fprintf(stderr, "trace-read: --%s '%s': %s\n",
					c == OPT_BEGIN ? "begin" : "end", optarg, optarg[0] == '+' ?
					units_why(why, 0) : "seconds since the Epoch, a time of "
					"day (HH:MM:SS.frac) or +DURATION");
				return sel_done(sel, 1);
			}
			break;
		}
		case OPT_BY:
			by = optarg;
			break;
		case OPT_SLOWER: {
			uint64_t ns = 0;
			int why = units_duration(optarg, &ns);

			if (why < 0 || !ns || ns > INT64_MAX) {
				fprintf(stderr, "trace-read: --slower-than '%s': %s\n", optarg,
					why < 0 ? units_why(why, 0) : "more than 0");
				return sel_done(sel, 1);
			}
			slower = (int64_t)ns;
			break;
		}
		case OPT_FOLLOW:
			follow = true;
			break;
		case OPT_AGGREGATIONS:
			aggregations = optarg;
			break;
		case OPT_NAME:
			agg_name = optarg;
			break;
		case OPT_EXPORT:
			if (strcmp(optarg, "chrome") || optind >= argc)
				return sel_done(sel, bad_usage("usage: --export chrome FILE", NULL));
			mode = M_CHROME;
			export_file = argv[optind++];
			break;
		default:
			usage(stderr);
			return sel_done(sel, 1);
		}
	}
	if (agg_name && !aggregations)
		return sel_done(sel, bad_usage("--name goes with --aggregations", NULL));
	if (aggregations) {
		if (optind < argc)
			return sel_done(sel, bad_usage("--aggregations reads DIR, not PATH",
						       argv[optind]));
		if ((mode != M_PRINT && mode != M_JSON) || follow || sel_active(sel))
			return sel_done(sel, bad_usage("--aggregations goes with --format and "
						       "--name only", NULL));
		return sel_done(sel, print_aggregations(aggregations, mode == M_JSON, agg_name,
							symbols));
	}
	if (optind >= argc) {
		fprintf(stderr, "trace-read: missing PATH\n");
		usage(stderr);
		return sel_done(sel, 1);
	}
	if ((by || slower) && mode != M_LATENCY)
		return sel_done(sel, bad_usage("--by and --slower-than go with --latency", NULL));
	tzset();
	if (follow) {
		struct follow_arg fa = { .ps = &ps, .sel = sel, .json = mode == M_JSON };

		if ((mode != M_PRINT && mode != M_JSON) || argc - optind != 1)
			return sel_done(sel, bad_usage("--follow prints the events of one PATH",
						       NULL));
		raise_fd_limit();
		status = follow_run(argv[optind], follow_event, follow_round, &fa);
		out_flush();
		if (status == -ECANCELED)
			status = 0;
		else if (status < 0)
			status = 2;
		return sel_done(sel, status);
	}
	raise_fd_limit();

	rc = shmtrace_rd_open(&r, (const char *const *)argv + optind, argc - optind,
		     err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "trace-read: %s\n", err);
		return sel_done(sel, 2);
	}
	show_host = several_hosts(r);
	if (mode != M_COUNT && mode != M_STATS && mode != M_LATENCY && symbols &&
	    syms_init(r) < 0)
		goto nomem;
	switch (mode) {
	case M_COUNT:
		counts = calloc(shmtrace_rd_trace_count(r) + 1, sizeof(*counts));
		if (!counts)
			goto nomem;
		for (i = 0; i < shmtrace_rd_trace_count(r); i++) {
			size_t n = shmtrace_rd_trace_event_class_count(shmtrace_rd_trace_at(r, i));

			counts[i] = calloc(n + 1, sizeof(**counts));
			if (!counts[i])
				goto nomem;
		}
		break;
	case M_STATS:
		stats = an_stats_new(r);
		if (!stats)
			goto nomem;
		break;
	case M_LATENCY: {
		char *comma = strchr(latency, ',');

		if (!comma || comma == latency || !comma[1]) {
			status = bad_usage("usage: --latency BEGIN,END", NULL);
			goto out;
		}
		*comma = 0;
		lat = an_latency_new(latency, comma + 1, by, (uint64_t)slower);
		if (!lat)
			goto nomem;
		break;
	}
	case M_PROFILE:
		prof = an_profile_new(resolve_name, NULL);
		if (!prof)
			goto nomem;
		break;
	case M_CHROME:
		chrome_out = fopen(export_file, "w");
		if (!chrome_out) {
			fprintf(stderr, "trace-read: %s: %s\n", export_file, strerror(errno));
			status = 2;
			goto out;
		}
		chrome = an_chrome_new(chrome_out, resolve_name, NULL);
		if (!chrome)
			goto nomem;
		break;
	default:
		break;
	}
	if (tty) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		t0 = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}

	while ((rc = shmtrace_rd_next(r, &ev)) > 0) {
		if (tty && !(++nread & 0xfffff))
			progress(nread, t0, &shown);
		if (sym_cache)
			syms_track(ev);
		if (sel_active(sel)) {
			int m = sel_match(sel, ev);

			if (m == 2)
				break;
			if (!m)
				continue;
		}
		switch (mode) {
		case M_PRINT:
			print_event(&ps, ev);
			break;
		case M_JSON:
			print_json(ev);
			break;
		case M_COUNT:
			counts[shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev))][shmtrace_rd_event_class_index(ev)]++;
			total++;
			break;
		case M_STATS:
			ret = an_stats_event(stats, ev);
			break;
		case M_LATENCY:
			ret = an_latency_event(lat, ev);
			break;
		case M_PROFILE:
			ret = an_profile_event(prof, ev);
			break;
		case M_CHROME:
			ret = an_chrome_event(chrome, ev);
			break;
		}
		if (ret < 0)
			break;
	}
	if (shown)
		fprintf(stderr, "\r%60s\r", "");
	if (ret == -ENOMEM)
		goto nomem;
	if (rc < 0) {
		out_flush();
		fprintf(stderr, "trace-read: %s\n", shmtrace_rd_errmsg(r));
		status = 2;
	}
	for (i = 0; i < shmtrace_rd_stream_count(r); i++) {
		const struct shmtrace_rd_stream *s = shmtrace_rd_stream_at(r, i);

		discarded += shmtrace_rd_stream_discarded(s);
	}
	if (mode == M_COUNT && !status && print_counts(r, counts, total, discarded))
		goto nomem;
	out_flush();
	if (stats)
		an_stats_print(stats, r, stdout);
	if (lat)
		an_latency_print(lat, stdout);
	if (prof)
		an_profile_print(prof, stdout);
	if (chrome) {
		if (an_chrome_finish(chrome) < 0 || ret < 0) {
			fprintf(stderr, "trace-read: cannot write %s\n", export_file);
			status = 2;
		}
		chrome = NULL;
	}
	if (mode != M_STATS) {
		for (i = 0; i < shmtrace_rd_stream_count(r); i++) {
			const struct shmtrace_rd_stream *s = shmtrace_rd_stream_at(r, i);

			if (shmtrace_rd_stream_discarded(s))
				fprintf(stderr, "WARNING: %" PRIu64 " events discarded in %s\n",
					shmtrace_rd_stream_discarded(s), shmtrace_rd_stream_path(s));
			if (shmtrace_rd_stream_lost_packets(s))
				fprintf(stderr, "WARNING: %" PRIu64 " packets lost in %s\n",
					shmtrace_rd_stream_lost_packets(s), shmtrace_rd_stream_path(s));
		}
	}
	if ((out_failed && out_failed != EPIPE) || fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "trace-read: write error: %s\n",
			strerror(out_failed ? out_failed : errno));
		status = 2;
	}
out:
	if (counts) {
		for (i = 0; i < shmtrace_rd_trace_count(r); i++)
			free(counts[i]);
		free(counts);
	}
	an_stats_free(stats);
	an_latency_free(lat);
	an_profile_free(prof);
	if (chrome)
		an_chrome_finish(chrome);
	if (chrome_out)
		fclose(chrome_out);
	sel_free(sel);
	syms_fini();
	shmtrace_rd_close(r);
	return status;
nomem:
	out_flush();
	fprintf(stderr, "trace-read: out of memory\n");
	status = 2;
	goto out;
}
