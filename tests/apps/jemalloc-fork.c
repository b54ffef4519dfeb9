/* SPDX-License-Identifier: MIT */
/*
 * jemalloc-fork - built against libjemalloc.so.2 by tests/integration/
 * fork-handlers.sh: jemalloc takes its locks (pthread_mutex_trylock) in
 * its atfork handlers, registered before libshmtrace's, as redis-server's
 * BGSAVE does. Creates and joins a thread, allocates, forks; the child
 * allocates and prints "child ok". Exits 0 when the child exited 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *worker(void *arg)
{
	void *p = malloc(100);

	free(p);
	return arg;
}

int main(void)
{
	pthread_t t;
	char *p;
	pid_t pid;
	int st;

	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 2;
	p = malloc(1000);
	if (!p)
		return 2;
	memset(p, 1, 1000);
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		char *q = malloc(10);

		free(q);
		printf("child ok\n");
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return 4;
	free(p);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "jemalloc-fork: the child %s %d\n",
			WIFSIGNALED(st) ? "died of signal" : "exited", WIFSIGNALED(st) ?
			WTERMSIG(st) : WEXITSTATUS(st));
		return 1;
	}
	return 0;
}
