/* SPDX-License-Identifier: MIT */
/*
 * log.c - one line per message, prefixed with the time and program name.
 * Daemons log to a file in SHMTRACE_HOME; tools to stderr. Debug lines
 * appear only when SHMTRACE_DEBUG is set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "support/log.h"

int log_debug;
static const char *log_prog = "shmtrace";
static FILE *log_out;

void log_init(const char *prog, const char *file)
{
	log_prog = prog;
	log_debug = getenv("SHMTRACE_DEBUG") != NULL;
	if (file) {
		FILE *f = fopen(file, "ae");

		if (f) {
			setvbuf(f, NULL, _IOLBF, 0);
			log_out = f;
		}
	}
}

void log_msg(const char *level, const char *fmt, ...)
{
	FILE *out = log_out ? log_out : stderr;
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	flockfile(out);		/* one line, whole, from any thread */
	if (log_out)
		fprintf(out, "%lld.%06ld %s[%d] %s: ", (long long)ts.tv_sec,
			ts.tv_nsec / 1000, log_prog, (int)getpid(), level);
	else
		fprintf(out, "%s: %s%s", log_prog, strcmp(level, "info") ? level : "",
			strcmp(level, "info") ? ": " : "");
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	funlockfile(out);
}
