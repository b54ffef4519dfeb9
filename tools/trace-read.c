/* SPDX-License-Identifier: MIT */
/*
 * trace-read.c - command line trace reader: prints the events of shmtrace
 * CTF traces merged in time order, one per line, in a babeltrace2-like
 * text format, or per-event-name counts with --count.
 *
 * All decoding is done by the reader core (reader/reader.h); this file only
 * formats. Output goes through one large buffer written with write(2), and
 * numbers are formatted by hand, so the per-event cost is a few hundred
 * nanoseconds and there is no per-event allocation.
 *
 * Exit status: 0 success, 1 bad usage, 2 corrupt or unreadable trace (or an
 * output error).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "reader/reader.h"

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

static void out_int(const struct rd_value *v, uint64_t u)
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
static char cached_hms[16];

static void out_time(int64_t ns)
{
	int64_t sec = ns / 1000000000, frac = ns % 1000000000;

	if (frac < 0) {
		frac += 1000000000;
		sec--;
	}
	if (sec != cached_sec) {
		time_t t = (time_t)sec;
		struct tm tm;

		if (localtime_r(&t, &tm))
			snprintf(cached_hms, sizeof(cached_hms), "%02d:%02d:%02d",
				 tm.tm_hour, tm.tm_min, tm.tm_sec);
		else
			snprintf(cached_hms, sizeof(cached_hms), "??:??:??");
		cached_sec = sec;
	}
	out_c('[');
	out_lit(cached_hms);
	out_c('.');
	out_u64_pad(frac, 9);
	out_c(']');
}

/* ---- event printing ------------------------------------------------------ */

struct print_state {
	bool raw;
	bool have_last;
	int64_t last_ns;
	uint64_t last_clock;
};

static void print_value(const struct rd_value *v)
{
	uint32_t i;

	switch (v->kind) {
	case RD_INT:
		out_int(v, v->u);
		break;
	case RD_FLOAT:
		out_double(v->d);
		break;
	case RD_STRING:
		out_escaped(v->str, v->len);
		break;
	case RD_SEQUENCE:
	case RD_ARRAY:
		out_c('[');
		for (i = 0; i < v->count; i++) {
			out_room();
			out_lit(i ? ", [" : " [");
			out_u64(i);
			out_lit("] = ");
			out_int(v, rd_value_elem_u(v, i));
		}
		out_room();
		out_lit(" ]");
		break;
	}
}

static void print_event(struct print_state *ps, const struct rd_event *ev)
{
	const struct rd_trace *t = rd_event_trace(ev);
	unsigned i, n = rd_event_field_count(ev);
	int64_t vpid;

	out_room();
	if (ps->raw) {
		uint64_t c = rd_event_clock(ev);

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
		int64_t ns = rd_event_time_ns(ev);

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

	out_cstr(rd_trace_procname(t));
	out_room();
	out_c(':');
	vpid = rd_trace_vpid(t);
	if (vpid >= 0)
		out_s64(vpid);
	else
		out_c('?');
	out_c(':');
	out_u64(rd_event_tid(ev));
	out_c(' ');
	out_cstr(rd_event_name(ev));
	out_room();
	out_lit(": {");
	for (i = 0; i < n; i++) {
		struct rd_value v;

		rd_event_field(ev, i, &v);
		out_lit(i ? ", " : " ");
		out_cstr(rd_event_field_name(ev, i));
		out_room();
		out_lit(" = ");
		print_value(&v);
		out_room();
	}
	out_lit(" }\n");
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

static int print_counts(const struct rd_reader *r, uint64_t **counts,
			uint64_t total, uint64_t discarded)
{
	struct name_count *nc;
	size_t i, j, n = 0, cap = 0;
	char line[64];

	for (i = 0; i < rd_trace_count(r); i++)
		cap += rd_trace_event_class_count(rd_trace_at(r, i));
	nc = calloc(cap + 1, sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	for (i = 0; i < rd_trace_count(r); i++) {
		const struct rd_trace *t = rd_trace_at(r, i);

		for (j = 0; j < rd_trace_event_class_count(t); j++) {
			if (!counts[i][j])
				continue;
			nc[n].name = rd_trace_event_class_name(t, j);
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
		"Print the events of the shmtrace CTF traces found under each PATH\n"
		"(a trace directory or a session directory), merged in time order.\n"
		"\n"
		"  -c, --count       print the number of events per event name, the\n"
		"                    total and the number of discarded events\n"
		"  -r, --clock-raw   print raw clock values instead of wall-clock time\n"
		"  -h, --help        display this help and exit\n"
		"  -V, --version     output version information and exit\n"
		"\n"
		"Exit status: 0 on success, 1 on bad usage, 2 on a corrupt or\n"
		"unreadable trace.\n");
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "clock-raw", no_argument, NULL, 'r' },
		{ "count", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct print_state ps = { 0 };
	const struct rd_event *ev;
	struct rd_reader *r = NULL;
	uint64_t **counts = NULL;
	uint64_t total = 0, discarded = 0;
	char err[RD_ERRLEN];
	bool count = false;
	int c, rc, status = 0;
	size_t i;

	while ((c = getopt_long(argc, argv, "hVrc", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("trace-read (shmtrace) %s\n", PACKAGE_VERSION);
			return 0;
		case 'r':
			ps.raw = true;
			break;
		case 'c':
			count = true;
			break;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "trace-read: missing PATH\n");
		usage(stderr);
		return 1;
	}
	tzset();
	raise_fd_limit();

	rc = rd_open(&r, (const char *const *)argv + optind, argc - optind,
		     err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "trace-read: %s\n", err);
		return 2;
	}
	if (count) {
		counts = calloc(rd_trace_count(r) + 1, sizeof(*counts));
		if (!counts)
			goto nomem;
		for (i = 0; i < rd_trace_count(r); i++) {
			size_t n = rd_trace_event_class_count(rd_trace_at(r, i));

			counts[i] = calloc(n + 1, sizeof(**counts));
			if (!counts[i])
				goto nomem;
		}
	}

	while ((rc = rd_next(r, &ev)) > 0) {
		if (count) {
			counts[rd_trace_index(rd_event_trace(ev))]
				[rd_event_class_index(ev)]++;
			total++;
		} else {
			print_event(&ps, ev);
		}
	}
	if (rc < 0) {
		out_flush();
		fprintf(stderr, "trace-read: %s\n", rd_errmsg(r));
		status = 2;
	}
	for (i = 0; i < rd_stream_count(r); i++) {
		const struct rd_stream *s = rd_stream_at(r, i);

		discarded += rd_stream_discarded(s);
	}
	if (count && !status && print_counts(r, counts, total, discarded))
		goto nomem;
	out_flush();
	for (i = 0; i < rd_stream_count(r); i++) {
		const struct rd_stream *s = rd_stream_at(r, i);

		if (rd_stream_discarded(s))
			fprintf(stderr, "WARNING: %" PRIu64 " events discarded in %s\n",
				rd_stream_discarded(s), rd_stream_path(s));
		if (rd_stream_lost_packets(s))
			fprintf(stderr, "WARNING: %" PRIu64 " packets lost in %s\n",
				rd_stream_lost_packets(s), rd_stream_path(s));
	}
	if (out_failed && out_failed != EPIPE) {
		fprintf(stderr, "trace-read: write error: %s\n",
			strerror(out_failed));
		status = 2;
	}
out:
	if (counts) {
		for (i = 0; i < rd_trace_count(r); i++)
			free(counts[i]);
		free(counts);
	}
	rd_close(r);
	return status;
nomem:
	out_flush();
	fprintf(stderr, "trace-read: out of memory\n");
	status = 2;
	goto out;
}
