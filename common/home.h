/* SPDX-License-Identifier: MIT */
/*
 * home.h - SHMTRACE_HOME: where the daemons keep their socket, pid files,
 * logs, the registry of traced processes and default trace output.
 */
#ifndef SHMTRACE_COMMON_HOME_H
#define SHMTRACE_COMMON_HOME_H

#include <stddef.h>

#define HOME_SOCK	"sessiond.sock"
#define HOME_PID	"sessiond.pid"
#define HOME_LOG	"sessiond.log"
#define HOME_CLOG	"consumerd.log"
#define HOME_CPID	"consumerd.pid"
#define HOME_APPS	"apps"
#define HOME_TRACES	"traces"

/*
 * home_resolve - the directory: $SHMTRACE_HOME, else
 * $XDG_RUNTIME_DIR/shmtrace, else $HOME/.shmtrace. Async-signal-safe (only
 * getenv and string copies). Returns 0 or -ENAMETOOLONG / -ENOENT.
 */
int home_resolve(char *out, size_t cap);

/*
 * home_prepare - create the directory (mode 0700) and check that it is
 * ours and closed to others. Returns 0 or -errno (-EPERM when it belongs to
 * another user or is open to group or others).
 */
int home_prepare(const char *dir);

/* home_path - "<home>/<name>" into @out; 0 or -ENAMETOOLONG. */
int home_path(char *out, size_t cap, const char *home, const char *name);

#endif
