/* SPDX-License-Identifier: MIT */
/*
 * home.h - SHMTRACE_HOME: where the daemons keep their socket, pid files,
 * logs, the registry of traced processes and default trace output.
 */
#ifndef SHMTRACE_COMMON_HOME_H
#define SHMTRACE_COMMON_HOME_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define HOME_SOCK	"sessiond.sock"
#define HOME_PID	"sessiond.pid"
#define HOME_LOG	"sessiond.log"
#define HOME_CLOG	"consumerd.log"
#define HOME_CPID	"consumerd.pid"
#define HOME_CSOCK	"consumerd.sock"	/* the consumer, for a session daemon that takes it over */
#define HOME_STATE	"state.json"	/* the sessions (sessiond/state.c) */
#define HOME_TSC	"tsc-hz"	/* the TSC's frequency: "BOOT-ID HZ\n" (consumerd/clock.c) */
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
 * ours and closed to others. Returns 0 or -errno: -ENOTDIR when it is not a
 * directory (a symbolic link included), -EPERM when it belongs to another
 * user or is open to group or others, else mkdir's error. When @found is
 * not NULL it receives what lstat(2) found (zeroed when nothing was), for
 * saying which mode or owner is wrong.
 */
int home_prepare(const char *dir, struct stat *found);

/* home_path - "<home>/<name>" into @out; 0 or -ENAMETOOLONG. */
int home_path(char *out, size_t cap, const char *home, const char *name);

/*
 * The application socket: a session daemon running as root whose sessions
 * let processes of other uids register (create --allow-uid) listens on an
 * abstract AF_UNIX address, because those processes cannot enter the home
 * directory: "\0shmtrace-app-" and 16 hex digits of a hash (FNV-1a) of
 * the home's path, trailing slashes ignored. It accepts registrations of
 * traced processes only. home_app_addr fills @sa and *@len.
 * Async-signal-safe.
 */
#define HOME_APP_PREFIX	"shmtrace-app-"
void home_app_addr(const char *home, struct sockaddr_un *sa, socklen_t *len);

/*
 * home_app_connect - connect to the application socket of @home
 * (SOCK_SEQPACKET | @sock_flags) and check that its listener runs as root:
 * anyone may bind an abstract address, and a traced process hands its
 * shared memory to whoever listens. The descriptor, or -errno (-EPERM: the
 * listener is not root). Async-signal-safe.
 */
int home_app_connect(const char *home, int sock_flags);

#endif
