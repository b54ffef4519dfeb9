/* SPDX-License-Identifier: MIT */
/*
 * reader.h - reader core for shmtrace CTF 1.8 traces.
 *
 * Usage:
 *	struct rd_reader *r;
 *	const struct rd_event *ev;
 *	char err[RD_ERRLEN];
 *
 *	if (rd_open(&r, paths, npaths, err, sizeof(err)) < 0)
 *		fail(err);
 *	while ((rc = rd_next(r, &ev)) > 0)
 *		use ev (valid until the next rd_next() or rd_close());
 *	if (rc < 0)
 *		fail(rd_errmsg(r));
 *	rd_close(r);
 *
 * Events of all streams of all traces come out merged by wall-clock time
 * (ties: trace order, then stream order, then file order). Errors are
 * negative errno values; the message names the file and byte offset.
 */
#ifndef SHMTRACE_READER_H
#define SHMTRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RD_ERRLEN 512

struct rd_reader;
struct rd_trace;
struct rd_stream;
struct rd_event;

enum rd_kind {
	RD_INT,			/* u or s, see is_signed and base */
	RD_FLOAT,		/* d */
	RD_STRING,		/* str, len */
	RD_SEQUENCE,		/* data, count; elements are integers */
	RD_ARRAY,		/* same as RD_SEQUENCE, fixed count */
};

struct rd_value {
	enum rd_kind kind;
	uint8_t bytes;		/* integer size, or element size */
	bool is_signed;		/* integer or elements */
	uint8_t base;		/* 2, 8, 10 or 16 */
	union {
		uint64_t u;
		int64_t s;
		double d;
	};
	const char *str;	/* RD_STRING: NUL-terminated, in the packet */
	size_t len;		/* RD_STRING: strlen(str) */
	const void *data;	/* RD_SEQUENCE/ARRAY: little-endian elements */
	uint32_t count;		/* RD_SEQUENCE/ARRAY: element count */
};

/* Open every trace found under the given paths (trace or session dirs). */
int rd_open(struct rd_reader **out, const char *const *paths, size_t npaths,
	    char *err, size_t errlen);
void rd_close(struct rd_reader *r);

/* 1: *ev is the next event; 0: end of all streams; < 0: error. */
int rd_next(struct rd_reader *r, const struct rd_event **ev);
/* Message of the last error returned by rd_next(). */
const char *rd_errmsg(const struct rd_reader *r);

/* Traces and streams, in tie-breaking order. */
size_t rd_trace_count(const struct rd_reader *r);
const struct rd_trace *rd_trace_at(const struct rd_reader *r, size_t i);
size_t rd_stream_count(const struct rd_reader *r);
const struct rd_stream *rd_stream_at(const struct rd_reader *r, size_t i);

const char *rd_trace_path(const struct rd_trace *t);
size_t rd_trace_index(const struct rd_trace *t);
const char *rd_trace_procname(const struct rd_trace *t);	/* "" if none */
const char *rd_trace_hostname(const struct rd_trace *t);	/* "" if none */
int64_t rd_trace_vpid(const struct rd_trace *t);		/* -1 if none */
const char *rd_trace_uuid(const struct rd_trace *t);		/* "" if none */
/* env entry by key: 1 and *sval or *ival set, 0 if absent */
int rd_trace_env(const struct rd_trace *t, const char *key,
		 const char **sval, int64_t *ival);
const char *rd_trace_clock_name(const struct rd_trace *t);
uint64_t rd_trace_clock_freq(const struct rd_trace *t);
size_t rd_trace_event_class_count(const struct rd_trace *t);
const char *rd_trace_event_class_name(const struct rd_trace *t, size_t i);
/* Convert a raw clock value of this trace to ns since the Epoch. */
int64_t rd_trace_clock_to_ns(const struct rd_trace *t, uint64_t value);

const char *rd_stream_path(const struct rd_stream *s);
const struct rd_trace *rd_stream_trace(const struct rd_stream *s);
uint64_t rd_stream_instance_id(const struct rd_stream *s);
/* Facts of the packet being read (of the last one once the stream ended). */
uint32_t rd_stream_tid(const struct rd_stream *s);
uint64_t rd_stream_packet_seq(const struct rd_stream *s);
uint64_t rd_stream_packet_offset(const struct rd_stream *s);
/* Running events_discarded total up to the current packet. */
uint64_t rd_stream_discarded(const struct rd_stream *s);
/* Packets missing from packet_seq_num so far. */
uint64_t rd_stream_lost_packets(const struct rd_stream *s);
uint64_t rd_stream_event_count(const struct rd_stream *s);

/* Event accessors; ev stays valid until the next rd_next(). */
const struct rd_stream *rd_event_stream(const struct rd_event *ev);
const struct rd_trace *rd_event_trace(const struct rd_event *ev);
uint64_t rd_event_clock(const struct rd_event *ev);	/* raw value */
int64_t rd_event_time_ns(const struct rd_event *ev);	/* since Epoch */
uint32_t rd_event_id(const struct rd_event *ev);
const char *rd_event_name(const struct rd_event *ev);
/* index of the event's class in its trace (0..event_class_count-1) */
size_t rd_event_class_index(const struct rd_event *ev);
int rd_event_loglevel(const struct rd_event *ev, int64_t *level);
uint32_t rd_event_tid(const struct rd_event *ev);
uint64_t rd_event_offset(const struct rd_event *ev);	/* in its file */
unsigned rd_event_field_count(const struct rd_event *ev);
const char *rd_event_field_name(const struct rd_event *ev, unsigned i);
/* Fill *v with field i; -EINVAL if i is out of range. */
int rd_event_field(const struct rd_event *ev, unsigned i, struct rd_value *v);

/* Element i (< v->count) of an RD_SEQUENCE or RD_ARRAY value. */
static inline uint64_t rd_value_elem_u(const struct rd_value *v, uint32_t i)
{
	const unsigned char *p = (const unsigned char *)v->data +
		(size_t)i * v->bytes;
	uint64_t x = 0;
	unsigned b;

	for (b = v->bytes; b; b--)
		x = x << 8 | p[b - 1];
	return x;
}

static inline int64_t rd_value_elem_s(const struct rd_value *v, uint32_t i)
{
	uint64_t x = rd_value_elem_u(v, i);
	unsigned sh = 64 - 8 * v->bytes;

	if (!sh)
		return (int64_t)x;
	return (int64_t)(x << sh) >> sh;
}

#endif /* SHMTRACE_READER_H */
