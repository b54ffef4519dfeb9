/* SPDX-License-Identifier: MIT */
/*
 * dur-app - durations the test chooses, as events.
 *
 * Reads lines "COUNT VALUE [KEY]" on standard input and emits COUNT
 * shmtrace_dur:req { u64 dur = VALUE, u32 key = KEY (0) }, then prints
 * "done" (so that a test knows they were emitted); exits at the end of
 * its input. It prints "ready" first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(shmtrace_dur, req, SHMTRACE_INFO,
	SHMTRACE_U64(dur),
	SHMTRACE_U32(key))

int main(void)
{
	char line[128];

	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long n = 0, v = 0;
		unsigned int key = 0;

		if (sscanf(line, "%llu %llu %u", &n, &v, &key) < 2)
			return 2;
		for (unsigned long long i = 0; i < n; i++)
			shmtrace(shmtrace_dur, req, v, key);
		printf("done\n");
		fflush(stdout);
	}
	return 0;
}
