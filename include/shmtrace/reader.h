/* SPDX-License-Identifier: MIT */
/*
 * shmtrace/reader.h - read shmtrace traces: libshmtrace-reader.
 *
 * Introduction
 * ------------
 * A session directory holds one CTF 1.8 trace per traced process
 * (<procname>-<pid>/ with a metadata file and one file per stream; stream
 * files may be LZ4 frames). The reader opens every trace found under the
 * paths given and returns all their events merged by time:
 *
 *	#include <shmtrace/reader.h>	(link with -lshmtrace-reader)
 *
 *	struct shmtrace_rd_reader *r;
 *	const struct shmtrace_rd_event *ev;
 *	char err[SHMTRACE_RD_ERRLEN];
 *	int rc;
 *
 *	if (shmtrace_rd_open(&r, paths, npaths, err, sizeof(err)) < 0)
 *		fail(err);
 *	while ((rc = shmtrace_rd_next(r, &ev)) > 0)
 *		use(ev);	(valid until the next shmtrace_rd_next())
 *	if (rc < 0)
 *		fail(shmtrace_rd_errmsg(r));
 *	shmtrace_rd_close(r);
 *
 * Fields: an event has its payload fields and, when its channel recorded
 * any, context fields (doc/trace-format.md: "ip", "cpu_id"), each with its
 * own accessors below. Names are as babeltrace2 prints them (without the
 * leading underscore of the metadata).
 *
 * Order: events of all streams of all traces come out merged by time
 * (nanoseconds since the Epoch; ties: trace order, then stream order, then
 * file order). Times come from each trace's clock description, so traces
 * of several processes merge exactly.
 *
 * Memory: one packet per stream is held at a time (packets are at most a
 * sub-buffer, 512 KiB by default) plus the metadata: memory depends on the
 * number of streams, never on the number of events. An LZ4-compressed
 * stream is inflated once, at open, into an unlinked temporary file
 * ($TMPDIR, else /tmp).
 *
 * Errors: functions return negative errno values; every offset and length
 * read from a file is checked, and messages name the file and the byte
 * offset (a corrupt or truncated trace is an error, never a crash).
 *
 * Threads and signals: a reader is not thread-safe (use one per thread);
 * nothing here is async-signal-safe.
 */
#ifndef SHMTRACE_READER_H
#define SHMTRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SHMTRACE_BUILDING_READER)
#define SHMTRACE_RD_API __attribute__((visibility("default")))
#else
#define SHMTRACE_RD_API
#endif

#define SHMTRACE_RD_ERRLEN 512

struct shmtrace_rd_reader;
struct shmtrace_rd_trace;
struct shmtrace_rd_stream;
struct shmtrace_rd_event;

enum shmtrace_rd_kind {
	SHMTRACE_RD_INT,			/* u or s, see is_signed and base */
	SHMTRACE_RD_FLOAT,		/* d */
	SHMTRACE_RD_STRING,		/* str, len */
	SHMTRACE_RD_SEQUENCE,		/* data, count; elements are integers */
	SHMTRACE_RD_ARRAY,		/* same as SHMTRACE_RD_SEQUENCE, fixed count */
};

struct shmtrace_rd_value {
	enum shmtrace_rd_kind kind;
	uint8_t bytes;		/* integer size, or element size */
	bool is_signed;		/* integer or elements */
	uint8_t base;		/* 2, 8, 10 or 16 */
	union {
		uint64_t u;
		int64_t s;
		double d;
	};
	const char *str;	/* SHMTRACE_RD_STRING: NUL-terminated, in the packet */
	size_t len;		/* SHMTRACE_RD_STRING: strlen(str) */
	const void *data;	/* SHMTRACE_RD_SEQUENCE/ARRAY: little-endian elements */
	uint32_t count;		/* SHMTRACE_RD_SEQUENCE/ARRAY: element count */
};

/* Open every trace found under the given paths (trace or session dirs). */
SHMTRACE_RD_API int shmtrace_rd_open(struct shmtrace_rd_reader **out, const char *const *paths, size_t npaths,
	    char *err, size_t errlen);
SHMTRACE_RD_API void shmtrace_rd_close(struct shmtrace_rd_reader *r);

/* 1: *ev is the next event; 0: end of all streams; < 0: error. */
SHMTRACE_RD_API int shmtrace_rd_next(struct shmtrace_rd_reader *r, const struct shmtrace_rd_event **ev);
/* Message of the last error returned by shmtrace_rd_next(). */
SHMTRACE_RD_API const char *shmtrace_rd_errmsg(const struct shmtrace_rd_reader *r);

/* Traces and streams, in tie-breaking order. */
SHMTRACE_RD_API size_t shmtrace_rd_trace_count(const struct shmtrace_rd_reader *r);
SHMTRACE_RD_API const struct shmtrace_rd_trace *shmtrace_rd_trace_at(const struct shmtrace_rd_reader *r, size_t i);
SHMTRACE_RD_API size_t shmtrace_rd_stream_count(const struct shmtrace_rd_reader *r);
SHMTRACE_RD_API const struct shmtrace_rd_stream *shmtrace_rd_stream_at(const struct shmtrace_rd_reader *r, size_t i);

SHMTRACE_RD_API const char *shmtrace_rd_trace_path(const struct shmtrace_rd_trace *t);
SHMTRACE_RD_API size_t shmtrace_rd_trace_index(const struct shmtrace_rd_trace *t);
SHMTRACE_RD_API const char *shmtrace_rd_trace_procname(const struct shmtrace_rd_trace *t);	/* "" if none */
SHMTRACE_RD_API const char *shmtrace_rd_trace_hostname(const struct shmtrace_rd_trace *t);	/* "" if none */
SHMTRACE_RD_API int64_t shmtrace_rd_trace_vpid(const struct shmtrace_rd_trace *t);		/* -1 if none */
SHMTRACE_RD_API const char *shmtrace_rd_trace_uuid(const struct shmtrace_rd_trace *t);		/* "" if none */
/* env entry by key: 1 and *sval or *ival set, 0 if absent */
SHMTRACE_RD_API int shmtrace_rd_trace_env(const struct shmtrace_rd_trace *t, const char *key,
		 const char **sval, int64_t *ival);
SHMTRACE_RD_API const char *shmtrace_rd_trace_clock_name(const struct shmtrace_rd_trace *t);
SHMTRACE_RD_API uint64_t shmtrace_rd_trace_clock_freq(const struct shmtrace_rd_trace *t);
/*
 * Event classes: one per event and stream class (an event recorded with
 * and without context fields has two, of the same name).
 */
SHMTRACE_RD_API size_t shmtrace_rd_trace_event_class_count(const struct shmtrace_rd_trace *t);
SHMTRACE_RD_API const char *shmtrace_rd_trace_event_class_name(const struct shmtrace_rd_trace *t, size_t i);
/* Convert a raw clock value of this trace to ns since the Epoch. */
SHMTRACE_RD_API int64_t shmtrace_rd_trace_clock_to_ns(const struct shmtrace_rd_trace *t, uint64_t value);

SHMTRACE_RD_API const char *shmtrace_rd_stream_path(const struct shmtrace_rd_stream *s);
SHMTRACE_RD_API const struct shmtrace_rd_trace *shmtrace_rd_stream_trace(const struct shmtrace_rd_stream *s);
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_instance_id(const struct shmtrace_rd_stream *s);
/* Facts of the packet being read (of the last one once the stream ended). */
SHMTRACE_RD_API uint32_t shmtrace_rd_stream_tid(const struct shmtrace_rd_stream *s);
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_packet_seq(const struct shmtrace_rd_stream *s);
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_packet_offset(const struct shmtrace_rd_stream *s);
/* Running events_discarded total up to the current packet. */
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_discarded(const struct shmtrace_rd_stream *s);
/* Packets missing from packet_seq_num so far. */
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_lost_packets(const struct shmtrace_rd_stream *s);
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_event_count(const struct shmtrace_rd_stream *s);

/* Event accessors; ev stays valid until the next shmtrace_rd_next(). */
SHMTRACE_RD_API const struct shmtrace_rd_stream *shmtrace_rd_event_stream(const struct shmtrace_rd_event *ev);
SHMTRACE_RD_API const struct shmtrace_rd_trace *shmtrace_rd_event_trace(const struct shmtrace_rd_event *ev);
SHMTRACE_RD_API uint64_t shmtrace_rd_event_clock(const struct shmtrace_rd_event *ev);	/* raw value */
SHMTRACE_RD_API int64_t shmtrace_rd_event_time_ns(const struct shmtrace_rd_event *ev);	/* since Epoch */
SHMTRACE_RD_API uint32_t shmtrace_rd_event_id(const struct shmtrace_rd_event *ev);
SHMTRACE_RD_API const char *shmtrace_rd_event_name(const struct shmtrace_rd_event *ev);
/* index of the event's class in its trace (0..event_class_count-1) */
SHMTRACE_RD_API size_t shmtrace_rd_event_class_index(const struct shmtrace_rd_event *ev);
SHMTRACE_RD_API int shmtrace_rd_event_loglevel(const struct shmtrace_rd_event *ev, int64_t *level);
SHMTRACE_RD_API uint32_t shmtrace_rd_event_tid(const struct shmtrace_rd_event *ev);
SHMTRACE_RD_API uint64_t shmtrace_rd_event_offset(const struct shmtrace_rd_event *ev);	/* in its file */
SHMTRACE_RD_API unsigned shmtrace_rd_event_field_count(const struct shmtrace_rd_event *ev);
SHMTRACE_RD_API const char *shmtrace_rd_event_field_name(const struct shmtrace_rd_event *ev, unsigned i);
/* Index of the field named @name, or -ENOENT. */
SHMTRACE_RD_API int shmtrace_rd_event_field_index(const struct shmtrace_rd_event *ev,
						  const char *name);
/* Fill *v with field i; -EINVAL if i is out of range. */
SHMTRACE_RD_API int shmtrace_rd_event_field(const struct shmtrace_rd_event *ev, unsigned i, struct shmtrace_rd_value *v);

/*
 * Context fields of the event, in the order written (0 when it has none);
 * integers only (SHMTRACE_RD_INT), e.g. "ip" (base 16) and "cpu_id".
 */
SHMTRACE_RD_API unsigned shmtrace_rd_event_context_count(const struct shmtrace_rd_event *ev);
/* Name of context field i ("ip"), NULL if i is out of range. */
SHMTRACE_RD_API const char *shmtrace_rd_event_context_name(const struct shmtrace_rd_event *ev,
							   unsigned i);
/* Index of the context field named @name, or -ENOENT. */
SHMTRACE_RD_API int shmtrace_rd_event_context_index(const struct shmtrace_rd_event *ev,
						    const char *name);
/* Fill *v with context field i; -EINVAL if i is out of range. */
SHMTRACE_RD_API int shmtrace_rd_event_context(const struct shmtrace_rd_event *ev, unsigned i,
					      struct shmtrace_rd_value *v);

/* Element i (< v->count) of an SHMTRACE_RD_SEQUENCE or SHMTRACE_RD_ARRAY value. */
static inline uint64_t shmtrace_rd_value_elem_u(const struct shmtrace_rd_value *v, uint32_t i)
{
	const unsigned char *p = (const unsigned char *)v->data +
		(size_t)i * v->bytes;
	uint64_t x = 0;
	unsigned b;

	for (b = v->bytes; b; b--)
		x = x << 8 | p[b - 1];
	return x;
}

static inline int64_t shmtrace_rd_value_elem_s(const struct shmtrace_rd_value *v, uint32_t i)
{
	uint64_t x = shmtrace_rd_value_elem_u(v, i);
	unsigned sh = 64 - 8 * v->bytes;

	if (!sh)
		return (int64_t)x;
	return (int64_t)(x << sh) >> sh;
}

#ifdef __cplusplus
}
#endif

#endif /* SHMTRACE_READER_H */
