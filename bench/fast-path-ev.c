/* SPDX-License-Identifier: MIT */
/*
 * fast-path-ev.c - events A (an int64_t) and B (an int64_t and a string)
 * and the loops that emit them, for fast-path.c. Built twice by
 * fast-path.sh, with FP=this (this tree's header) and FP=other (the header
 * of -H DIR, or this tree's again), so that one process runs both.
 */
#include <shmtrace/shmtrace.h>

#define FP_CAT_(a, b) a##b
#define FP_CAT(a, b) FP_CAT_(a, b)
#define FP_PROV FP_CAT(fp_, FP)
#define FP_FN(n) FP_CAT(FP_CAT(fp_, FP), _##n)

/* through a macro of its own, so that FP_PROV is expanded before it is named */
#define FP_EVENT(...) SHMTRACE_EVENT(__VA_ARGS__)
FP_EVENT(FP_PROV, a, SHMTRACE_INFO, SHMTRACE_S64(v))
FP_EVENT(FP_PROV, b, SHMTRACE_INFO, SHMTRACE_S64(v), SHMTRACE_STRING(s))

int FP_FN(enabled)(void);
void FP_FN(loop_a)(long n);
void FP_FN(loop_b)(long n, const char *s);

int FP_FN(enabled)(void)
{
	return shmtrace_enabled(FP_PROV, a) && shmtrace_enabled(FP_PROV, b);
}

void FP_FN(loop_a)(long n)
{
	for (long i = 0; i < n; i++)
		shmtrace(FP_PROV, a, i);
}

void FP_FN(loop_b)(long n, const char *s)
{
	for (long i = 0; i < n; i++)
		shmtrace(FP_PROV, b, i, s);
}
