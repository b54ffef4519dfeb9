/* SPDX-License-Identifier: MIT */
/*
 * scale-probe.c - the events of bench/scale-app.c, in a shared object
 * linked with libshmtrace that the program loads with dlopen(): loading it
 * runs libshmtrace's constructor (registration with the session daemon,
 * then the wait for its reply, SHMTRACE_REGISTER_TIMEOUT) and this
 * module's constructor (its events sent, then another wait), so the time
 * of the dlopen() call is what registration costs a program that starts.
 */
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(bench_scale, ev, SHMTRACE_INFO, SHMTRACE_U32(thread), SHMTRACE_U32(seq))

int scale_probe_enabled(void);
void scale_probe_emit(unsigned int thread, unsigned int n);

__attribute__((visibility("default"))) int scale_probe_enabled(void)
{
	return shmtrace_enabled(bench_scale, ev);
}

__attribute__((visibility("default"))) void scale_probe_emit(unsigned int thread, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		shmtrace(bench_scale, ev, thread, i);
}
