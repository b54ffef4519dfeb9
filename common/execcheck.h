/* SPDX-License-Identifier: MIT */
/*
 * execcheck.h - will a program that is executed load libshmtrace?
 *
 * Used by libshmtrace before every exec of the traced program (so every
 * function here is async-signal-safe: system calls and stack buffers only,
 * no allocation, no lock) and by tracectl record for the command it runs.
 */
#ifndef SHMTRACE_COMMON_EXECCHECK_H
#define SHMTRACE_COMMON_EXECCHECK_H

#include <stddef.h>
#include <stdint.h>

/*
 * exec_check - what keeps the program at @path (relative to @dirfd, with
 * execveat()'s AT_EMPTY_PATH and AT_SYMLINK_NOFOLLOW @flags) from loading
 * an LD_PRELOAD library when this process executes it: 0 when nothing
 * does, or a NOTICE_* kind of proto.h: NOTICE_STATIC (no PT_INTERP),
 * NOTICE_FOREIGN (not an x86-64 ELF program), NOTICE_SETUID,
 * NOTICE_SETGID, NOTICE_CAPS or NOTICE_IDS (the kernel starts it in
 * secure mode, AT_SECURE, and the loader ignores LD_PRELOAD). "#!"
 * scripts are followed to their interpreter, four levels deep as the
 * kernel does. *@run_uid: the effective uid the program will run with.
 * A negative errno when the exec will fail: no such file, not an
 * executable regular file, no permission to execute it.
 */
int exec_check(int dirfd, const char *path, int flags, uint32_t *run_uid);

/*
 * exec_resolve - the file that execvp() runs for @file: @file when it has
 * a '/', else the first executable regular file along @pathenv (NULL: the
 * C library's default, "/bin:/usr/bin"; an empty entry is the current
 * directory). 0 with the path in @out, or -ENOENT / -ENAMETOOLONG.
 */
int exec_resolve(const char *file, const char *pathenv, char *out, size_t cap);

/*
 * exec_preload_has - does the LD_PRELOAD value @list (entries separated by
 * ':' or spaces) name a file whose last component is @lib?
 */
int exec_preload_has(const char *list, const char *lib);

/* exec_env_preloads - the same for the LD_PRELOAD of environment @envp. */
int exec_env_preloads(char *const envp[], const char *lib);

#endif
