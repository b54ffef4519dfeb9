/* SPDX-License-Identifier: MIT */
/*
 * sites.c - call sites of events of several shapes, compiled by
 * disabled-path.sh at several optimization levels to check what a disabled
 * event costs in the instrumented function.
 */
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(sites, ints, SHMTRACE_INFO, SHMTRACE_U64(a), SHMTRACE_U32(b))
SHMTRACE_EVENT(sites, strings, SHMTRACE_INFO, SHMTRACE_STRING(s), SHMTRACE_SEQ(u8, bytes),
	       SHMTRACE_DOUBLE(d))
SHMTRACE_EVENT(sites, none, SHMTRACE_NOTICE)

void site_ints(uint64_t a, uint32_t b);
void site_strings(const char *s, const uint8_t *p, uint32_t n);
void site_none(void);

void site_ints(uint64_t a, uint32_t b)
{
	shmtrace(sites, ints, a, b);
}

void site_strings(const char *s, const uint8_t *p, uint32_t n)
{
	shmtrace(sites, strings, s, p, n, 0.5);
}

void site_none(void)
{
	shmtrace(sites, none);
}
