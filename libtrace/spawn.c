/* SPDX-License-Identifier: MIT */
/*
 * spawn.c - say why a process will not be traced: the programs this
 * process runs that cannot load libshmtrace or cannot reach the session
 * daemon, and its own changes of effective uid.
 *
 * The exec family (execve, execv, execvp, execvpe, execl, execlp, execle,
 * execveat, fexecve) and posix_spawn, posix_spawnp are interposed. Before
 * calling the real function, a wrapper looks at the program
 * (exec_check(): statically linked, not an x86-64 program, or started in
 * secure mode, where the loader drops LD_PRELOAD: set-user-ID,
 * set-group-ID, file capabilities, effective ids not the real ones), at
 * the environment it gets (the process was preloaded and the new
 * environment's LD_PRELOAD lacks libshmtrace) and at the uid it will run
 * as (not the one this process registered with: it cannot reach the
 * daemon), and sends MSG_APP_NOTICE when the program will not be traced.
 * system() and popen() reach the shell through the C library's internal
 * posix_spawn, not these wrappers: the shell, traced, reports what it
 * runs. setuid, seteuid, setreuid and setresuid are interposed: after a
 * successful change of the effective uid a notice says so. (A gid change
 * does not keep a process from the daemon; a later exec with effective
 * ids that are not the real ones is reported as such.)
 *
 * Invariants:
 * - The real function is always called, with the same arguments, and
 *   returns to the program with the errno it set: a notice never changes
 *   what the program does. A process with no session daemon does no more
 *   than one load of lib.sock.fd per call.
 * - Async-signal-safe and allocation-free (execve, execle, fexecve and
 *   setuid are async-signal-safe): system calls on the stack; argument
 *   vectors of execl/execlp/execle are built on the stack, as the C
 *   library does. No lock is waited for: lib_trylock() is tried a bounded
 *   number of times, else the notice is dropped and counted. Nothing is
 *   sent while shmtrace__tls.nesting is set (the library's own work, or a
 *   signal handler that interrupted it).
 * - A child that shares our memory (vfork(), clone(CLONE_VM)) is told
 *   apart by getpid() != lib.pid: it writes nothing shared and takes no
 *   lock; it sends on its copy of the socket once spawn_sock() checked
 *   (fstat, reading only) that the number still names our socket.
 * - Every notice leaves through spawn_send(); spawn_sock() is the only
 *   read of the socket descriptor.
 * - The real functions are looked up at load time (dlsym is not
 *   async-signal-safe); a wrapper called earlier looks its function up
 *   itself.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#include "lib.h"
#include "common/execcheck.h"
#include "common/home.h"
#include "common/proto.h"

#define SPAWN_LIB	"libshmtrace.so"	/* matched with its version suffixes */
#define SPAWN_TRIES	64			/* lib_trylock() attempts for a notice */
#define SPAWN_SHORT	256			/* a path too long to send: its start */

extern char **environ;

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execv)(const char *, char *const[]);
static int (*real_execvp)(const char *, char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_execveat)(int, const char *, char *const[], char *const[], int);
static int (*real_fexecve)(int, char *const[], char *const[]);
static spawn_fn real_posix_spawn, real_posix_spawnp;
static int (*real_setuid)(uid_t);
static int (*real_seteuid)(uid_t);
static int (*real_setreuid)(uid_t, uid_t);
static int (*real_setresuid)(uid_t, uid_t, uid_t);

static int spawn_preloaded;		/* our LD_PRELOAD named libshmtrace */
static uint32_t spawn_uid;		/* the effective uid we registered with */
static unsigned long spawn_dropped;	/* notices that could not be sent */

#define SPAWN_RESOLVE(name)							\
	do {									\
		if (!__atomic_load_n(&real_##name, __ATOMIC_ACQUIRE))		\
			__atomic_store_n(&real_##name,				\
					 (__typeof__(real_##name))dlsym(RTLD_NEXT, #name), \
					 __ATOMIC_RELEASE);			\
	} while (0)

/*
 * Our socket to the session daemon while it is still ours (ownfd.c), -1
 * otherwise. Reads only: a vfork child sharing our memory may call it.
 */
static int spawn_sock(void)
{
	return ownfd_ok(&lib.sock) ? lib.sock.fd : -1;
}

/*
 * The one way out for a notice: on the session daemon's socket, when we
 * have one and it still is the daemon's. Never waits.
 */
static void spawn_send(const struct msg_app_notice *m, const char *path)
{
	int fd;

	if ((pid_t)m->pid != lib.pid) {
		/* a child sharing our memory: no lock, nothing written */
		fd = spawn_sock();
		if (fd >= 0)
			proto_sendv(fd, MSG_APP_NOTICE, 0, m, sizeof(*m), path, m->path_len, NULL,
				    0);
		return;
	}
	if (shmtrace__tls.nesting)
		return;
	for (int i = 0; !lib_trylock(); i++) {
		if (i == SPAWN_TRIES) {
			__atomic_add_fetch(&spawn_dropped, 1, __ATOMIC_RELAXED);
			lib_dbg("notice dropped: library busy", (long)m->kind);
			return;
		}
		sched_yield();
	}
	fd = spawn_sock();
	if (fd < 0 ||
	    proto_sendv(fd, MSG_APP_NOTICE, 0, m, sizeof(*m), path, m->path_len, NULL, 0) < 0) {
		__atomic_add_fetch(&spawn_dropped, 1, __ATOMIC_RELAXED);
		lib_dbg("notice dropped: no session daemon", (long)m->kind);
	}
	lib_unlock();
}

static void spawn_notify(uint32_t kind, uint32_t uid, uint32_t old_uid, const char *path)
{
	struct msg_app_notice m = {
		.version = PROTO_NOTICE_VERSION, .kind = kind, .uid = uid, .old_uid = old_uid,
	};
	char shortened[SPAWN_SHORT];
	size_t len = strlen(path);

	m.pid = (uint32_t)syscall(SYS_getpid);
	if (len >= PROTO_PATH_MAX) {
		memcpy(shortened, path, sizeof(shortened) - 1);
		shortened[sizeof(shortened) - 1] = 0;
		path = shortened;
		len = sizeof(shortened) - 1;
	}
	m.path_len = (uint32_t)len + 1;
	spawn_send(&m, path);
}

/* Does anyone listen? A process with no session daemon stops here. */
static int spawn_active(void)
{
	return lib.pid && spawn_sock() >= 0;
}

/*
 * Before an exec of @path (relative to @dirfd, execveat() @flags) with the
 * environment @envp; @shown names the program in the notice (NULL: @path).
 */
static void spawn_check(int dirfd, const char *path, int flags, char *const envp[],
			const char *shown)
{
	uint32_t run_uid = spawn_uid;
	int kind;

	kind = exec_check(dirfd, path, flags, &run_uid);
	if (kind < 0)
		return;		/* the exec fails */
	if (!kind && spawn_preloaded && !exec_env_preloads(envp, SPAWN_LIB))
		kind = NOTICE_NO_PRELOAD;
	if (!kind && run_uid != spawn_uid)
		kind = NOTICE_EXEC_UID;
	if (kind)
		spawn_notify((uint32_t)kind, run_uid, spawn_uid, shown ? shown : path);
}

/* The same for a file searched along PATH, as execvp() and posix_spawnp() do. */
static void spawn_check_p(const char *file, char *const envp[])
{
	char path[PATH_MAX];

	if (file && exec_resolve(file, getenv("PATH"), path, sizeof(path)) == 0)
		spawn_check(AT_FDCWD, path, 0, envp, NULL);
}

static int do_execve(const char *path, char *const argv[], char *const envp[])
{
	if (spawn_active()) {
		int saved = errno;

		if (path)
			spawn_check(AT_FDCWD, path, 0, envp, NULL);
		errno = saved;
	}
	if (!real_execve)
		return (int)syscall(SYS_execve, path, argv, envp);
	return real_execve(path, argv, envp);
}

static int do_execvpe(const char *file, char *const argv[], char *const envp[], int with_env)
{
	if (spawn_active()) {
		int saved = errno;

		spawn_check_p(file, envp);
		errno = saved;
	}
	if (with_env) {
		SPAWN_RESOLVE(execvpe);
		if (real_execvpe)
			return real_execvpe(file, argv, envp);
	} else {
		SPAWN_RESOLVE(execvp);
		if (real_execvp)
			return real_execvp(file, argv);
	}
	errno = ENOSYS;
	return -1;
}

SHMTRACE_API int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_execve(path, argv, envp);
}

SHMTRACE_API int execv(const char *path, char *const argv[])
{
	if (spawn_active()) {
		int saved = errno;

		spawn_check(AT_FDCWD, path, 0, environ, NULL);
		errno = saved;
	}
	SPAWN_RESOLVE(execv);
	if (!real_execv)
		return (int)syscall(SYS_execve, path, argv, environ);
	return real_execv(path, argv);
}

SHMTRACE_API int execvp(const char *file, char *const argv[])
{
	return do_execvpe(file, argv, environ, 0);
}

SHMTRACE_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return do_execvpe(file, argv, envp, 1);
}

SHMTRACE_API int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			  int flags)
{
	if (spawn_active()) {
		int saved = errno;

		spawn_check(dirfd, path, flags, envp, NULL);
		errno = saved;
	}
	SPAWN_RESOLVE(execveat);
	if (!real_execveat)
		return (int)syscall(SYS_execveat, dirfd, path, argv, envp, flags);
	return real_execveat(dirfd, path, argv, envp, flags);
}

SHMTRACE_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	if (spawn_active() && fd >= 0) {
		int saved = errno;
		char link[32], path[PATH_MAX], digits[12];
		size_t k = 14, nd = 0;
		ssize_t n;

		/* "/proc/self/fd/N" leads to the file's name, for the notice */
		memcpy(link, "/proc/self/fd/", k);
		for (int v = fd; nd == 0 || v; v /= 10)
			digits[nd++] = (char)('0' + v % 10);
		while (nd)
			link[k++] = digits[--nd];
		link[k] = 0;
		n = readlink(link, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = 0;
		spawn_check(fd, "", AT_EMPTY_PATH, envp, n > 0 ? path : link);
		errno = saved;
	}
	SPAWN_RESOLVE(fexecve);
	if (!real_fexecve)
		return (int)syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
	return real_fexecve(fd, argv, envp);
}

/*
 * execl, execlp, execle: the argument vector on the stack (the C library
 * does the same), then as execve/execvp. @n counts the arguments after
 * @arg up to the terminating NULL.
 */
#define SPAWN_ARGS(argv, arg, last)						\
	size_t n = 1;								\
	va_list ap;								\
										\
	va_start(ap, last);							\
	while (va_arg(ap, const char *))					\
		n++;								\
	va_end(ap);								\
	if (n >= INT_MAX / sizeof(char *)) {					\
		errno = E2BIG;							\
		return -1;							\
	}									\
	argv = __builtin_alloca((n + 1) * sizeof(char *));			\
	argv[0] = (char *)(arg);						\
	va_start(ap, last);							\
	for (size_t i = 1; i <= n; i++)						\
		argv[i] = va_arg(ap, char *)

SHMTRACE_API int execl(const char *path, const char *arg, ...)
{
	char **argv;

	SPAWN_ARGS(argv, arg, arg);
	va_end(ap);
	return do_execve(path, argv, environ);
}

SHMTRACE_API int execle(const char *path, const char *arg, ...)
{
	char **argv, *const *envp;

	SPAWN_ARGS(argv, arg, arg);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return do_execve(path, argv, envp);
}

SHMTRACE_API int execlp(const char *file, const char *arg, ...)
{
	char **argv;

	SPAWN_ARGS(argv, arg, arg);
	va_end(ap);
	return do_execvpe(file, argv, environ, 0);
}

static int do_spawn(int search, pid_t *pid, const char *path,
		    const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
		    char *const argv[], char *const envp[])
{
	spawn_fn real;

	if (spawn_active()) {
		int saved = errno;

		if (search)
			spawn_check_p(path, envp);
		else if (path)
			spawn_check(AT_FDCWD, path, 0, envp, NULL);
		errno = saved;
	}
	if (search)
		SPAWN_RESOLVE(posix_spawnp);
	else
		SPAWN_RESOLVE(posix_spawn);
	real = search ? real_posix_spawnp : real_posix_spawn;
	return real ? real(pid, path, fa, attr, argv, envp) : ENOSYS;
}

SHMTRACE_API int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *attr, char *const argv[],
			     char *const envp[])
{
	return do_spawn(0, pid, path, fa, attr, argv, envp);
}

SHMTRACE_API int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[],
			      char *const envp[])
{
	return do_spawn(1, pid, file, fa, attr, argv, envp);
}

/* ---- uid changes ---------------------------------------------------------- */

/* After a successful set*uid(): tell when the effective uid changed. */
static void spawn_uid_after(uid_t before)
{
	int saved = errno;
	uid_t now = geteuid();
	char exe[PATH_MAX];
	ssize_t n;

	if (now != before && spawn_active()) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = 0;
		spawn_notify(NOTICE_UID_CHANGE, (uint32_t)now, (uint32_t)before, n > 0 ? exe : "?");
	}
	errno = saved;
}

#define SPAWN_SETID(name, call)							\
	do {									\
		uid_t before = geteuid();					\
		int ret;							\
										\
		SPAWN_RESOLVE(name);						\
		if (!real_##name) {						\
			errno = ENOSYS;						\
			return -1;						\
		}								\
		ret = real_##name call;						\
		if (ret == 0)							\
			spawn_uid_after(before);				\
		return ret;							\
	} while (0)

SHMTRACE_API int setuid(uid_t uid)
{
	SPAWN_SETID(setuid, (uid));
}

SHMTRACE_API int seteuid(uid_t euid)
{
	SPAWN_SETID(seteuid, (euid));
}

SHMTRACE_API int setreuid(uid_t ruid, uid_t euid)
{
	SPAWN_SETID(setreuid, (ruid, euid));
}

SHMTRACE_API int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	SPAWN_SETID(setresuid, (ruid, euid, suid));
}

/* After the library's start-up (control.c, procev.c): look everything up. */
static void __attribute__((constructor(103))) spawn_init(void)
{
	const char *pre = getenv("LD_PRELOAD");

	shmtrace__tls.nesting++;
	spawn_preloaded = pre && exec_preload_has(pre, SPAWN_LIB);
	spawn_uid = (uint32_t)geteuid();
	SPAWN_RESOLVE(execve);
	SPAWN_RESOLVE(execv);
	SPAWN_RESOLVE(execvp);
	SPAWN_RESOLVE(execvpe);
	SPAWN_RESOLVE(execveat);
	SPAWN_RESOLVE(fexecve);
	SPAWN_RESOLVE(posix_spawn);
	SPAWN_RESOLVE(posix_spawnp);
	SPAWN_RESOLVE(setuid);
	SPAWN_RESOLVE(seteuid);
	SPAWN_RESOLVE(setreuid);
	SPAWN_RESOLVE(setresuid);
	shmtrace__tls.nesting--;
}
