/* SPDX-License-Identifier: MIT */
/*
 * func.c - libshmtrace-func.so: the hooks that code compiled with
 * -finstrument-functions calls at every function entry and exit, provider
 * shmtrace_func.
 *
 *	entry { addr, call_site }    addr: the function entered
 *	exit  { addr, call_site }    call_site: where it was called from
 *
 * glibc defines both hooks as empty functions, so an instrumented program
 * links and runs without this library; preloaded, these definitions come
 * first. The hooks themselves must not be instrumented (they would call
 * themselves), and neither may anything they call: this file is built
 * with -fno-instrument-functions and the event writer is libshmtrace's.
 *
 * Calls made while the tracer is busy on the thread (an instrumented
 * function called from a signal handler that interrupted an event, say)
 * are not recorded, entry and exit alike, so that each thread's events
 * stay balanced: every exit matches the latest entry not yet exited.
 * errno is preserved: an instrumented function's exit hook runs after it
 * may have set errno for its caller.
 */
#include "helper.h"

SHMTRACE_EVENT(shmtrace_func, entry, SHMTRACE_DEBUG,
	SHMTRACE_PTR(addr),
	SHMTRACE_PTR(call_site))
SHMTRACE_EVENT(shmtrace_func, exit, SHMTRACE_DEBUG,
	SHMTRACE_PTR(addr),
	SHMTRACE_PTR(call_site))

#define NO_INSTR __attribute__((no_instrument_function))

HELPER_API NO_INSTR void __cyg_profile_func_enter(void *addr, void *call_site);
HELPER_API NO_INSTR void __cyg_profile_func_exit(void *addr, void *call_site);

HELPER_API NO_INSTR void __cyg_profile_func_enter(void *addr, void *call_site)
{
	if (helper_tracing(shmtrace_func, entry))
		helper_emit(shmtrace_func, entry, addr, call_site);
}

HELPER_API NO_INSTR void __cyg_profile_func_exit(void *addr, void *call_site)
{
	if (helper_tracing(shmtrace_func, exit))
		helper_emit(shmtrace_func, exit, addr, call_site);
}
