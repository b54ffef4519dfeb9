/* SPDX-License-Identifier: MIT */
/* test-events.h - the events of the test programs. */
#ifndef SHMTRACE_TEST_EVENTS_H
#define SHMTRACE_TEST_EVENTS_H

#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(shmtrace_test, event, SHMTRACE_INFO,
	SHMTRACE_U64(seq),
	SHMTRACE_U32(thread),
	SHMTRACE_STRING(payload))

SHMTRACE_EVENT(shmtrace_test, types, SHMTRACE_DEBUG,
	SHMTRACE_U8(u8), SHMTRACE_U16(u16), SHMTRACE_U32(u32), SHMTRACE_U64(u64),
	SHMTRACE_S8(s8), SHMTRACE_S16(s16), SHMTRACE_S32(s32), SHMTRACE_S64(s64),
	SHMTRACE_DOUBLE(dbl), SHMTRACE_PTR(ptr), SHMTRACE_STRING(str),
	SHMTRACE_SEQ(u8, bytes), SHMTRACE_SEQ(s32, ints))

SHMTRACE_EVENT(shmtrace_test, mark, SHMTRACE_NOTICE)

#endif
