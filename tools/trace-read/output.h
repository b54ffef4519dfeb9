// SPDX-License-Identifier: MIT
/*
 * output.h - where trace-read writes: standard output through one large
 * buffer written with write(2), numbers formatted by hand, the check of
 * write errors at the end, the files a mode writes (--export), and the
 * warnings said on standard error in between.
 *
 * out_room() makes sure OUT_SLACK bytes are free; the small appends that
 * follow it (out_c(), out_lit() of a short literal, the numbers) write
 * without checking. out_mem() and out_cstr() take any length. Nothing is
 * allocated per event. A write error is kept and reported by out_check();
 * a closed pipe (EPIPE) is not an error.
 */
#ifndef SHMTRACE_TOOLS_OUTPUT_H
#define SHMTRACE_TOOLS_OUTPUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OUT_CAP (1U << 20)
#define OUT_SLACK 256		/* room always available for small appends */

extern char out_buf[OUT_CAP];
extern size_t out_len;
/* "00" "01" ... "99": two decimal digits at a time */
extern const char out_digit_pairs[201];

/* Write the buffer out (a write error is kept for out_check()). */
void out_flush(void);

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

/* Decimal, two digits per division. */
static inline void out_u64(uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	while (v >= 100) {
		unsigned r = v % 100;

		v /= 100;
		i -= 2;
		memcpy(tmp + i, out_digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		i -= 2;
		memcpy(tmp + i, out_digit_pairs + 2 * v, 2);
	} else {
		tmp[--i] = '0' + v;
	}
	memcpy(out_buf + out_len, tmp + i, sizeof(tmp) - i);
	out_len += sizeof(tmp) - i;
}

static inline void out_s64(int64_t v)
{
	if (v < 0) {
		out_c('-');
		out_u64(-(uint64_t)v);
	} else {
		out_u64(v);
	}
}

/* Zero-padded decimal of exactly @width digits (v < 10^width). */
static inline void out_u64_pad(uint64_t v, int width)
{
	int i;

	for (i = width - 1; i >= 0; i--) {
		out_buf[out_len + i] = '0' + v % 10;
		v /= 10;
	}
	out_len += width;
}

/* Lower-case hexadecimal digits of @v, no prefix (room must be there). */
static inline void out_hex_lower(uint64_t v)
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

/*
 * At the end: flush, then report a write error on standard output (the
 * buffer's or stdio's): 0, or 2 after a message on standard error.
 */
int out_check(void);

/*
 * "WARNING: @msg" on standard error, after what the buffer holds (flushed
 * first, so that a warning follows the events printed before it). Of the
 * type of shmtrace_rd_sym_warn_fn; @arg is not used.
 */
void out_warn(void *arg, const char *msg);

/* Open @path for writing (--export): the FILE, or NULL after a message. */
FILE *out_file_open(const char *path);

#endif
