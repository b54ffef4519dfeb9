/* SPDX-License-Identifier: MIT */
/*
 * early-atfork LIB - a program whose atfork child handler was registered
 * before libshmtrace's, so that it runs first in a forked child, and
 * emits events there: the program registers its handler, then loads LIB
 * (tests/apps/libdlevents.so, which links libshmtrace) with dlopen.
 *
 * The parent emits 10 shmtrace_dl:hello, forks, and emits 10 more; the
 * child's handler emits 5 (before libshmtrace's handler ran: dropped and
 * counted), then the child emits 7. Exits 0 when the child exited 0.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void (*emit)(unsigned int n);

static void child_handler(void)
{
	if (emit)
		emit(5);
}

int main(int argc, char **argv)
{
	void *h;
	pid_t pid;
	int st;

	if (argc != 2 || pthread_atfork(NULL, NULL, child_handler) != 0)
		return 2;
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "early-atfork: %s\n", dlerror());
		return 2;
	}
	*(void **)&emit = dlsym(h, "dl_emit");
	if (!emit)
		return 2;
	emit(10);
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		emit(7);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return 4;
	emit(10);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "early-atfork: the child %s %d\n",
			WIFSIGNALED(st) ? "died of signal" : "exited", WIFSIGNALED(st) ?
			WTERMSIG(st) : WEXITSTATUS(st));
		return 1;
	}
	return 0;
}
