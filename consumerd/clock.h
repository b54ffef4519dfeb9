// SPDX-License-Identifier: MIT
/*
 * clock.h - the trace clocks as this consumer describes them (clock.c).
 */
#ifndef SHMTRACE_CONSUMERD_CLOCK_H
#define SHMTRACE_CONSUMERD_CLOCK_H

#include <stdint.h>
#include "support/ctfmeta.h"

/*
 * Describe both clocks, once, before the first trace (main thread); the
 * TSC's frequency measured by an earlier consumer of @home since boot is
 * taken from there ("" : measured).
 */
void clock_init(const char *home);
/* Now, in clock @kind (CLOCK_KIND_*): for the packets the consumer closes itself. */
uint64_t clock_now(uint32_t kind);
/* The clock fields of @info (name, description, uuid, frequency, offset) for @kind. */
void clock_describe(uint32_t kind, struct ctf_trace_info *info);
/* A time of clock @kind in ns since the Epoch, as the traces describe it (any thread). */
uint64_t clock_epoch_ns(uint32_t kind, uint64_t ticks);

#endif
