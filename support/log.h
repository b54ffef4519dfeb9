/* SPDX-License-Identifier: MIT */
/* log.h - diagnostics of the daemons and tools. */
#ifndef SHMTRACE_COMMON_LOG_H
#define SHMTRACE_COMMON_LOG_H

#include <stdarg.h>

extern int log_debug;		/* SHMTRACE_DEBUG is set */

/* Set the program name and optionally a log file (NULL: stderr). */
void log_init(const char *prog, const char *file);
void log_msg(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg("error", __VA_ARGS__)
#define log_warn(...) log_msg("warning", __VA_ARGS__)
#define log_info(...) log_msg("info", __VA_ARGS__)
#define log_dbg(...) do { if (log_debug) log_msg("debug", __VA_ARGS__); } while (0)

#endif
