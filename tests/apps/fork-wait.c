/* SPDX-License-Identifier: MIT */
/*
 * fork-wait - a traced program that forks when told to, and whose child
 * emits and exits when told to: for tests of what a session daemon killed
 * around a fork does to the child's trace.
 *
 * It emits one shmtrace_test:mark (so that it is registered, with a
 * buffer), prints "ready" and reads a line from standard input; then it
 * forks. The child prints "child PID", reads a line, emits EACH
 * shmtrace_test:event (seq 0..EACH-1, thread 7), prints "done", reads a
 * line and exits with status 0. The parent waits for it and exits with
 * its status. A test talks to both through the same pipes.
 *
 * usage: fork-wait EACH
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test-events.h"

static void line_in(void)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		exit(2);
}

int main(int argc, char **argv)
{
	unsigned long each;
	int status;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: fork-wait EACH\n");
		return 2;
	}
	each = strtoul(argv[1], NULL, 0);
	setvbuf(stdin, NULL, _IONBF, 0);	/* the child reads the next line, not a copy */
	shmtrace(shmtrace_test, mark);
	printf("ready\n");
	fflush(stdout);
	line_in();
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		printf("child %d\n", (int)getpid());
		fflush(stdout);
		line_in();
		for (uint64_t i = 0; i < each; i++)
			shmtrace(shmtrace_test, event, i, 7, "child");
		printf("done\n");
		fflush(stdout);
		line_in();
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
