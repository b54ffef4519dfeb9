// SPDX-License-Identifier: MIT
/*
 * output.c - trace-read's output (see output.h): the standard output
 * buffer, its write error, the files a mode opens, and warnings.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "output.h"

char out_buf[OUT_CAP];
size_t out_len;
static int out_failed;		/* errno of the first failed write */

const char out_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

void out_flush(void)
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

int out_check(void)
{
	out_flush();
	if ((out_failed && out_failed != EPIPE) || fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "trace-read: write error: %s\n",
			strerror(out_failed ? out_failed : errno));
		return 2;
	}
	return 0;
}

void out_warn(void *arg, const char *msg)
{
	out_flush();
	fprintf(stderr, "WARNING: %s\n", msg);
}

FILE *out_file_open(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "trace-read: %s: %s\n", path, strerror(errno));
	return f;
}
