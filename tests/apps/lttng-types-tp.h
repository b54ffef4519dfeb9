/* SPDX-License-Identifier: MIT */
/*
 * lttng-types-tp.h - an LTTng-UST tracepoint provider with every field
 * type LTTng-UST 2.13 offers, for the reader's tests on LTTng's traces.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER shmtrace_lt

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng-types-tp.h"

#if !defined(LTTNG_TYPES_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LTTNG_TYPES_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

#ifndef LTTNG_TYPES_TP_DATA
#define LTTNG_TYPES_TP_DATA
static const int lt_arr_int[3] = { 1, -2, 3 };
static const uint16_t lt_arr_u16[2] = { 1, 2 };
static const uint8_t lt_arr_u8[2] = { 0x10, 0xff };
static const int16_t lt_seq_s16[5] = { -1, 2, -3, 4, -5 };
static const uint32_t lt_seq_hex[5] = { 0xa, 0xb, 0xc, 0xd, 0xe };
static const uint32_t lt_seq_net[5] = { 7, 8, 9, 10, 11 };
#endif

LTTNG_UST_TRACEPOINT_ENUM(shmtrace_lt, color,
	LTTNG_UST_TP_ENUM_VALUES(
		lttng_ust_field_enum_value("RED", 0)
		lttng_ust_field_enum_range("GREEN", 1, 9)
		lttng_ust_field_enum_auto("BLUE")
		lttng_ust_field_enum_value("NEG", -5)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(shmtrace_lt, types,
	LTTNG_UST_TP_ARGS(int, i, const char *, text, const double *, dbl, unsigned, n),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int8_t, s8, -i)
		lttng_ust_field_integer(int16_t, s16, -1000 * i)
		lttng_ust_field_integer(int32_t, s32, -100000 * i)
		lttng_ust_field_integer(int64_t, s64, INT64_MIN + i)
		lttng_ust_field_integer(uint8_t, u8, 250 + i % 5)
		lttng_ust_field_integer(uint16_t, u16, 65530 + i % 5)
		lttng_ust_field_integer(uint32_t, u32, 4294967290U + i % 5)
		lttng_ust_field_integer(uint64_t, u64, UINT64_MAX - i)
		lttng_ust_field_integer_hex(uint32_t, hex32, 0xdeadbeef)
		lttng_ust_field_integer_hex(uint64_t, hex64, 0xfeedface00000000ULL + i)
		lttng_ust_field_integer_hex(uint8_t, hex8, 0xab)
		lttng_ust_field_integer_network(uint32_t, net32, 0x01020304)
		lttng_ust_field_integer_network_hex(uint16_t, nethex16, 0x0a0b)
		lttng_ust_field_float(float, flt, 1.5f * i)
		lttng_ust_field_float(double, dbl, dbl[0])
		lttng_ust_field_float(double, dbl_neg, -dbl[1])
		lttng_ust_field_string(str, text)
		lttng_ust_field_array(int, arr, lt_arr_int, 3)
		lttng_ust_field_array_network(uint16_t, arrnet, lt_arr_u16, 2)
		lttng_ust_field_array_text(char, arrtext, "abcdef", 4)
		lttng_ust_field_array_hex(uint8_t, arrhex, lt_arr_u8, 2)
		lttng_ust_field_sequence(int16_t, seq, lt_seq_s16, unsigned, n)
		lttng_ust_field_sequence_hex(uint32_t, seqhex, lt_seq_hex, size_t, n)
		lttng_ust_field_sequence_network(uint32_t, seqnet, lt_seq_net, uint8_t, n)
		lttng_ust_field_sequence_text(char, seqtext, text, unsigned, n)
		lttng_ust_field_enum(shmtrace_lt, color, int, enumfield, i % 12)
		lttng_ust_field_enum(shmtrace_lt, color, int, enumneg, -5)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(shmtrace_lt, event,
	LTTNG_UST_TP_ARGS(int, thread, uint64_t, seq),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, thread, thread)
		lttng_ust_field_integer(uint64_t, seq, seq)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(shmtrace_lt, empty,
	LTTNG_UST_TP_ARGS(),
	LTTNG_UST_TP_FIELDS()
)

#endif

#include <lttng/tracepoint-event.h>
