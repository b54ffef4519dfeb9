/* SPDX-License-Identifier: MIT */
/*
 * memcpy-bw - the machine's memory copy bandwidth in blocks of a
 * sub-buffer (512 KiB by default) from a 64 MiB source to a 64 MiB
 * destination (beyond the caches), for about a second: the most a
 * consumer that copies could move (bench/drain-rate.sh).
 *
 * usage: memcpy-bw [BLOCK_BYTES]
 * Prints: memcpy_mb_per_s=X
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AREA	(64u << 20)

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t block = argc > 1 ? strtoul(argv[1], NULL, 0) : 512u << 10;
	char *src = malloc(AREA), *dst = malloc(AREA);
	uint64_t t0, t1, bytes = 0;

	if (!src || !dst || !block || block > AREA)
		return 1;
	memset(src, 1, AREA);	/* touched: no first-touch faults in the loop */
	memset(dst, 2, AREA);
	t0 = now();
	do {
		for (size_t off = 0; off + block <= AREA; off += block) {
			memcpy(dst + off, src + off, block);
			bytes += block;
		}
		__asm__ volatile("" : : "r"(dst) : "memory");
		t1 = now();
	} while (t1 - t0 < 1000000000u);
	printf("memcpy_mb_per_s=%.0f\n", (double)bytes / 1e6 / ((double)(t1 - t0) / 1e9));
	free(src);
	free(dst);
	return 0;
}
