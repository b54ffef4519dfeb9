/* SPDX-License-Identifier: MIT */
/*
 * liar - a traced program that writes impossible counters into the memory
 * it shares with the consumer: after N events, the discard, nested and
 * overwrite counters of each of its buffers and its events lost without a
 * buffer jump to huge values (and then one of them back down); it emits
 * N more events, prints "done" and waits for a line on standard input.
 * What the consumer believes of them must stay bounded, and the process
 * be named in the session's status. With "events", it writes over the
 * events it just emitted instead (event id 100, unknown), before the
 * consumer wrote them out: they must not reach the trace.
 *
 * usage: liar N [events]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/shm.h"
#include "test-events.h"

/* the first writable mapping named @name: its address and size */
static void *find_map(const char *name, size_t *len)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	void *p = NULL;

	while (f && !p && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];

		if (strstr(line, name) && sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
		    perms[1] == 'w') {
			p = (void *)lo;
			*len = hi - lo;
		}
	}
	if (f)
		fclose(f);
	return p;
}

static void emit(unsigned long n)
{
	static uint64_t seq;

	for (unsigned long i = 0; i < n; i++, seq++)
		shmtrace(shmtrace_test, event, seq, 0, "lies");
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	struct shm_seg_hdr *seg;
	struct shm_proc_page *proc;
	char line[16];
	size_t len = 0;

	emit(n);
	seg = find_map("shmtrace-buf", &len);
	proc = find_map("shmtrace-proc", &len);
	if (!seg || !proc) {
		fprintf(stderr, "liar: no buffer or process page mapped\n");
		return 1;
	}
	if (argc > 2 && !strcmp(argv[2], "events")) {
		/* the first sub-buffer of the first slot: our events, not yet written out */
		memset((char *)seg + SHM_PAGE + shm_slot_hdr_size(seg->num_subbuf), 100, 64);
		emit(n);
		goto out;
	}
	for (uint32_t i = 0; i < seg->nslots && i < 64; i++) {
		struct shm_slot *s = (void *)((char *)seg + SHM_PAGE + (size_t)i * seg->slot_size);

		s->discarded = 8589963002ull;
		s->lost_nested = 1ull << 63;
		s->overrun = 4294967295ull;
	}
	proc->lost_nobuf[0] = 145135534866434ull;
	emit(n);
	/* and back down: counters never move backwards */
	proc->lost_nobuf[0] = 5;
	emit(n);
out:
	printf("done\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return 0;
}
