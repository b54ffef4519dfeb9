/* SPDX-License-Identifier: MIT */
/*
 * shmtrace/reader.h - libshmtrace-reader: read shmtrace traces (and other
 * CTF 1.8 traces, LTTng-UST's: doc/trace-format.md, "Other CTF traces").
 *
 * Introduction
 * ============
 *
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
 *	for (size_t i = 0; i < shmtrace_rd_damage_count(r); i++)
 *		warn(shmtrace_rd_damage_message(r, i));	(file and offset)
 *	if (rc < 0)
 *		fail(shmtrace_rd_errmsg(r));
 *	shmtrace_rd_close(r);
 *
 * The function an address of a traced process falls in (the "ip" context
 * field, the addresses the preload helpers record), from the state dumps
 * in the traces and the ELF files of the traced programs:
 *
 *	struct shmtrace_rd_symbols *syms;
 *	struct shmtrace_rd_symbol sym;
 *
 *	shmtrace_rd_sym_open(&syms, r, NULL, NULL, NULL);
 *	while ((rc = shmtrace_rd_next(r, &ev)) > 0) {
 *		shmtrace_rd_sym_track(syms, ev);
 *		if (shmtrace_rd_event_context(ev, 0, &v) == 0 &&	(e.g. "ip")
 *		    shmtrace_rd_sym_value(syms, ev, true, &v, &sym))
 *			use(sym.name, sym.offset);
 *	}
 *	shmtrace_rd_sym_close(syms);
 *
 * The rest of this header is the manual: the rules common to every
 * function, then each function in the order a program uses them.
 *
 * Rules common to every function
 * ==============================
 *
 * Objects: a reader (struct shmtrace_rd_reader) owns its traces (one per
 * process), their streams (one per stream file) and the current event. All
 * are opaque; their pointers stay valid until shmtrace_rd_close(), except
 * an event's, which stays valid until the next shmtrace_rd_next(). Strings
 * returned belong to the reader and live as long as the object they
 * describe; never free them.
 *
 * Fields: an event has its payload fields and, when its channel recorded
 * any, context fields (doc/trace-format.md: "ip", "cpu_id"), each with its
 * own accessors below. Names are as babeltrace2 prints them (without the
 * leading underscore of the metadata).
 *
 * Units: times are nanoseconds since the Epoch (int64_t); raw clock values
 * are ticks of the trace's clock (shmtrace_rd_trace_clock_freq() ticks per
 * second, uint64_t); offsets are bytes from the start of a file; sizes and
 * counts are plain numbers.
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
 * Damage: a corrupt or truncated stream file (a bad packet header, bad
 * sizes, an unknown event id, an event running past its packet, a cut last
 * packet, a bad LZ4 frame) ends that stream only, after the events before
 * the damage; a trace whose metadata cannot be read is not read. Every
 * other stream of every trace is read to its end, in time order; then
 * shmtrace_rd_next() returns the error of the first damage, and the damage
 * list (shmtrace_rd_damage_count() and the functions after it) names each
 * damaged file and where. Names of a trace directory beginning with '.'
 * are not stream files (as babeltrace2 ignores them).
 *
 * Threads and signals: a reader is not thread-safe (use one per thread);
 * nothing here is async-signal-safe. The library keeps no global state, so
 * threads that each use their own reader do not interfere.
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

/* Size of the message buffer shmtrace_rd_open() fills (bytes). */
#define SHMTRACE_RD_ERRLEN 512

struct shmtrace_rd_reader;
struct shmtrace_rd_trace;
struct shmtrace_rd_stream;
struct shmtrace_rd_event;

/*
 * Opening and closing
 * ===================
 */

/*
 * shmtrace_rd_open - open every trace found under @paths.
 * @out:    set to the new reader on success, to NULL on failure.
 * @paths:  @npaths directories: trace directories (holding a metadata
 *          file) or directories searched below for them (session outputs).
 * @err:    filled with a message on failure ("PATH: why", or
 *          "FILE:LINE: what" for metadata), @errlen bytes at most
 *          (SHMTRACE_RD_ERRLEN is enough).
 *
 * Reads every metadata file and opens every stream file (LZ4 frames are
 * inflated now); no event is read yet.
 *
 * A trace whose metadata cannot be read (malformed, compressed or
 * encrypted metadata packets, over 64 MiB) and the bad LZ4 frame of a stream file are damage (see Damage),
 * said by shmtrace_rd_next() once the rest is read: open succeeds.
 *
 * Returns 0, or a negative errno value: -ENOENT (a path holds no trace, or
 * does not exist), -ENOTDIR, -ENOMEM, or the error of a system call (a
 * stream file that cannot be opened, no temporary file to inflate an LZ4
 * stream into).
 *
 * Thread safety: touches nothing but the new reader. Not async-signal-safe
 * (allocates memory and opens files).
 */
SHMTRACE_RD_API int shmtrace_rd_open(struct shmtrace_rd_reader **out, const char *const *paths,
				     size_t npaths, char *err, size_t errlen);

/*
 * shmtrace_rd_close - close the files of @r and free it with everything it
 * returned (traces, streams, events, strings). @r may be NULL.
 *
 * Thread safety: no other thread may use @r meanwhile. Not
 * async-signal-safe.
 */
SHMTRACE_RD_API void shmtrace_rd_close(struct shmtrace_rd_reader *r);

/*
 * Reading events
 * ==============
 */

/*
 * shmtrace_rd_next - the next event of all streams, in time order.
 *
 * Returns 1 with *@ev set (valid until the next call or
 * shmtrace_rd_close()), 0 once every stream ended, or a negative errno
 * value:
 *  - once every stream ended, when some were damaged (see Damage), the
 *    error of the first damage: -EBADMSG (a corrupt or truncated packet or
 *    event, a stream file that copies another), -EFBIG (a packet over 256
 *    MiB, metadata over 64 MiB), -EIO (a bad LZ4 frame, a read error),
 *    -EINVAL (malformed metadata), -ENOTSUP (compressed,
 *    encrypted or checksummed metadata packets);
 *  - at once, what stops the reader before the end: -ENOMEM.
 * Errors are sticky: after one, every call returns it again.
 *
 * Thread safety: one thread at a time per reader. Not async-signal-safe
 * (reads files, allocates packet buffers).
 */
SHMTRACE_RD_API int shmtrace_rd_next(struct shmtrace_rd_reader *r,
				     const struct shmtrace_rd_event **ev);

/*
 * shmtrace_rd_errmsg - message of the error shmtrace_rd_next() returned:
 * that of the first damage (see shmtrace_rd_damage_message()), or what
 * stopped the reader ("out of memory"), or "no error". The string lives
 * until the reader is closed.
 *
 * Thread safety: as shmtrace_rd_next(). Not async-signal-safe.
 */
SHMTRACE_RD_API const char *shmtrace_rd_errmsg(const struct shmtrace_rd_reader *r);

/*
 * Damage
 * ======
 *
 * The damaged stream files and metadata found so far, in the order found
 * (damage in metadata and duplicated streams at the first
 * shmtrace_rd_next(), the rest as each stream reaches it): one entry per
 * damaged stream or trace. After shmtrace_rd_next() returned 0 or an error
 * of damage, the list is complete. Index @i runs from 0 to count - 1; out
 * of range gives NULL, -1 or 0.
 *
 * Thread safety: as the accessors of traces and streams below. Not
 * async-signal-safe.
 */

/* Number of damaged stream files and traces found so far. */
SHMTRACE_RD_API size_t shmtrace_rd_damage_count(const struct shmtrace_rd_reader *r);
/*
 * Message of damage @i: "FILE: offset N: what" (N in bytes from the start
 * of the stream file), "FILE: byte N: what" (N in an LZ4 file, before
 * inflating), "FILE:LINE: what" (metadata).
 */
SHMTRACE_RD_API const char *shmtrace_rd_damage_message(const struct shmtrace_rd_reader *r,
						       size_t i);
/* The damaged file: a stream file, or a trace's metadata file. */
SHMTRACE_RD_API const char *shmtrace_rd_damage_path(const struct shmtrace_rd_reader *r,
						    size_t i);
/* Byte offset of the damage in that file; -1 for metadata (its line is in the message). */
SHMTRACE_RD_API int64_t shmtrace_rd_damage_offset(const struct shmtrace_rd_reader *r, size_t i);
/* Its error, a negative errno value as shmtrace_rd_next() documents. */
SHMTRACE_RD_API int shmtrace_rd_damage_error(const struct shmtrace_rd_reader *r, size_t i);
/* The damaged stream; NULL for damaged metadata (that trace is not among the traces). */
SHMTRACE_RD_API const struct shmtrace_rd_stream *
shmtrace_rd_damage_stream(const struct shmtrace_rd_reader *r, size_t i);

/*
 * Traces and streams of a reader
 * ==============================
 *
 * In tie-breaking order (trace order is the order of the paths, then of
 * the directories found below each, sorted by name; stream order follows
 * trace order, then file names). Indexes run from 0 to count - 1; a
 * function given an index out of range returns NULL.
 *
 * Thread safety of this section and the next three: these functions only
 * read the reader; several threads may call them at once provided none
 * calls shmtrace_rd_next() or shmtrace_rd_close() on the same reader
 * meanwhile. None is documented as async-signal-safe.
 */

/* Number of traces (processes) opened: those whose metadata was read. */
SHMTRACE_RD_API size_t shmtrace_rd_trace_count(const struct shmtrace_rd_reader *r);
/* Trace @i, or NULL if @i >= shmtrace_rd_trace_count(). */
SHMTRACE_RD_API const struct shmtrace_rd_trace *
shmtrace_rd_trace_at(const struct shmtrace_rd_reader *r, size_t i);
/* Number of streams (stream files) of all traces. */
SHMTRACE_RD_API size_t shmtrace_rd_stream_count(const struct shmtrace_rd_reader *r);
/* Stream @i, or NULL if @i >= shmtrace_rd_stream_count(). */
SHMTRACE_RD_API const struct shmtrace_rd_stream *
shmtrace_rd_stream_at(const struct shmtrace_rd_reader *r, size_t i);

/*
 * Traces
 * ======
 *
 * Facts of one trace (one traced process), read from its metadata: they
 * do not change while the reader reads.
 */

/* Directory of the trace, as found from the paths given to open. */
SHMTRACE_RD_API const char *shmtrace_rd_trace_path(const struct shmtrace_rd_trace *t);
/* Position of the trace in the reader (0 .. trace_count - 1). */
SHMTRACE_RD_API size_t shmtrace_rd_trace_index(const struct shmtrace_rd_trace *t);
/* Name of the traced program; "" if the metadata has none. */
SHMTRACE_RD_API const char *shmtrace_rd_trace_procname(const struct shmtrace_rd_trace *t);
/* Host the trace was recorded on; "" if the metadata has none. */
SHMTRACE_RD_API const char *shmtrace_rd_trace_hostname(const struct shmtrace_rd_trace *t);
/* Process id of the traced process; -1 if the metadata has none. */
SHMTRACE_RD_API int64_t shmtrace_rd_trace_vpid(const struct shmtrace_rd_trace *t);
/* Trace uuid, 36 characters (8-4-4-4-12 hexadecimal); "" if none. */
SHMTRACE_RD_API const char *shmtrace_rd_trace_uuid(const struct shmtrace_rd_trace *t);
/*
 * Entry @key of the trace's environment: 1 with *@sval set to its string
 * value (NULL for an integer entry) and *@ival to its integer value, 0 if
 * absent. @sval and @ival may be NULL.
 */
SHMTRACE_RD_API int shmtrace_rd_trace_env(const struct shmtrace_rd_trace *t, const char *key,
					  const char **sval, int64_t *ival);
/* Name of the trace's clock (every trace has one). */
SHMTRACE_RD_API const char *shmtrace_rd_trace_clock_name(const struct shmtrace_rd_trace *t);
/* Frequency of the trace's clock, in ticks per second (> 0). */
SHMTRACE_RD_API uint64_t shmtrace_rd_trace_clock_freq(const struct shmtrace_rd_trace *t);
/*
 * Convert a raw clock value @value of this trace (ticks) to nanoseconds
 * since the Epoch, saturated at INT64_MAX.
 */
SHMTRACE_RD_API int64_t shmtrace_rd_trace_clock_to_ns(const struct shmtrace_rd_trace *t,
						      uint64_t value);
/*
 * Event classes: one per event and stream class (an event recorded with
 * and without context fields has two, of the same name). Their number,
 * and the name ("provider:event") of class @i, NULL if @i is out of range.
 */
SHMTRACE_RD_API size_t shmtrace_rd_trace_event_class_count(const struct shmtrace_rd_trace *t);
SHMTRACE_RD_API const char *shmtrace_rd_trace_event_class_name(const struct shmtrace_rd_trace *t,
							       size_t i);

/*
 * Streams
 * =======
 *
 * One stream file of a trace. Packet facts are those of the packet being
 * read (of the last one once the stream ended; 0 before its first packet
 * is read, which shmtrace_rd_next() does for every stream on its first
 * call). Counts are running totals up to the current packet.
 */

/* Path of the stream file. */
SHMTRACE_RD_API const char *shmtrace_rd_stream_path(const struct shmtrace_rd_stream *s);
/* The trace the stream belongs to. */
SHMTRACE_RD_API const struct shmtrace_rd_trace *
shmtrace_rd_stream_trace(const struct shmtrace_rd_stream *s);
/* stream_instance_id of its packets (doc/trace-format.md). */
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_instance_id(const struct shmtrace_rd_stream *s);
/* Thread id that wrote the current packet. */
SHMTRACE_RD_API uint32_t shmtrace_rd_stream_tid(const struct shmtrace_rd_stream *s);
/* packet_seq_num of the current packet. */
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_packet_seq(const struct shmtrace_rd_stream *s);
/* Offset of the current packet in the stream file, in bytes. */
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_packet_offset(const struct shmtrace_rd_stream *s);
/* Events discarded by the writer (events_discarded), up to the current packet. */
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_discarded(const struct shmtrace_rd_stream *s);
/* Packets missing from the packet_seq_num sequence so far. */
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_lost_packets(const struct shmtrace_rd_stream *s);
/* Events of the stream returned so far. */
SHMTRACE_RD_API uint64_t shmtrace_rd_stream_event_count(const struct shmtrace_rd_stream *s);
/* 0, or the error of the damage that ended the stream (see Damage). */
SHMTRACE_RD_API int shmtrace_rd_stream_error(const struct shmtrace_rd_stream *s);

/*
 * Events
 * ======
 *
 * The event shmtrace_rd_next() returned; @ev and everything read from it
 * (string and array values included) stay valid until the next
 * shmtrace_rd_next() or shmtrace_rd_close().
 */

/* The stream and the trace of the event. */
SHMTRACE_RD_API const struct shmtrace_rd_stream *
shmtrace_rd_event_stream(const struct shmtrace_rd_event *ev);
SHMTRACE_RD_API const struct shmtrace_rd_trace *
shmtrace_rd_event_trace(const struct shmtrace_rd_event *ev);
/* Raw clock value of the event (ticks of its trace's clock). */
SHMTRACE_RD_API uint64_t shmtrace_rd_event_clock(const struct shmtrace_rd_event *ev);
/* Time of the event, in nanoseconds since the Epoch. */
SHMTRACE_RD_API int64_t shmtrace_rd_event_time_ns(const struct shmtrace_rd_event *ev);
/* Id of the event in its stream class, as the metadata declares it. */
SHMTRACE_RD_API uint32_t shmtrace_rd_event_id(const struct shmtrace_rd_event *ev);
/* Name of the event, "provider:event". */
SHMTRACE_RD_API const char *shmtrace_rd_event_name(const struct shmtrace_rd_event *ev);
/* Index of the event's class in its trace (0 .. event_class_count - 1). */
SHMTRACE_RD_API size_t shmtrace_rd_event_class_index(const struct shmtrace_rd_event *ev);
/* 1 with *@level set to the event's log level, 0 if it has none. */
SHMTRACE_RD_API int shmtrace_rd_event_loglevel(const struct shmtrace_rd_event *ev,
					       int64_t *level);
/* Thread id that recorded the event. */
SHMTRACE_RD_API uint32_t shmtrace_rd_event_tid(const struct shmtrace_rd_event *ev);
/* Offset of the event's header in its stream file, in bytes. */
SHMTRACE_RD_API uint64_t shmtrace_rd_event_offset(const struct shmtrace_rd_event *ev);

/*
 * Field values
 * ============
 *
 * A value is copied into a struct shmtrace_rd_value that the caller owns;
 * the strings and elements it points to are the reader's.
 */

enum shmtrace_rd_kind {
	SHMTRACE_RD_INT,		/* u or s, see is_signed and base */
	SHMTRACE_RD_FLOAT,		/* d */
	SHMTRACE_RD_STRING,		/* str, len */
	SHMTRACE_RD_SEQUENCE,		/* data, count; elements are integers */
	SHMTRACE_RD_ARRAY,		/* same as SHMTRACE_RD_SEQUENCE, fixed count */
	SHMTRACE_RD_ENUM,		/* an integer as SHMTRACE_RD_INT, and its label:
					 * str, len (str NULL when no label maps it) */
};

/*
 * Values that are not flat (traces of other tracers: LTTng's) are given
 * flattened, as fields of their own, in the order written:
 *  - a struct's members are fields named "struct.member" (a top-level
 *    field's name has no prefix);
 *  - a variant is its selected option, under the variant's name;
 *  - an array or a sequence of integers is one SHMTRACE_RD_ARRAY or
 *    SHMTRACE_RD_SEQUENCE value (its elements converted to little-endian
 *    when the trace stored them big-endian), or one SHMTRACE_RD_STRING
 *    when its integers are characters (text arrays and sequences: up to
 *    their first NUL, as babeltrace2 prints them); the length of a sequence
 *    is a field of its own, as the metadata declares it ("_x_length");
 *  - an array or a sequence of anything else (strings, floats, structs)
 *    is one field per element, named "array[i]" (and "array[i].member");
 *  - an enumeration is SHMTRACE_RD_ENUM: its integer and its label.
 * In those traces, an event's context and payload fields are decoded when
 * one of their accessors is first called for the event: the accessors of
 * this section (and the context ones below) then write into the reader, so
 * only the thread that reads it may call them.
 * shmtrace's own traces hold only SHMTRACE_RD_INT, FLOAT, STRING, SEQUENCE
 * and ARRAY values. A program written for them keeps working on other
 * traces if it takes an unknown kind as "skip": SHMTRACE_RD_ENUM carries
 * u/s, bytes, is_signed and base as SHMTRACE_RD_INT does.
 */
struct shmtrace_rd_value {
	enum shmtrace_rd_kind kind;
	uint8_t bytes;		/* integer size, or element size, in bytes */
	bool is_signed;		/* integer or elements */
	uint8_t base;		/* 2, 8, 10 or 16: how to print the integer */
	union {
		uint64_t u;
		int64_t s;
		double d;
	};
	const char *str;	/* SHMTRACE_RD_STRING: NUL-terminated, the reader's;
				 * SHMTRACE_RD_ENUM: the label, or NULL */
	size_t len;		/* SHMTRACE_RD_STRING, SHMTRACE_RD_ENUM: strlen(str) */
	const void *data;	/* SHMTRACE_RD_SEQUENCE/ARRAY: little-endian elements */
	uint32_t count;		/* SHMTRACE_RD_SEQUENCE/ARRAY: element count */
};

/*
 * Payload fields of the event, in the order written: their number, the
 * name of field @i (NULL if @i is out of range) and the index of the field
 * named @name (or -ENOENT).
 */
SHMTRACE_RD_API unsigned shmtrace_rd_event_field_count(const struct shmtrace_rd_event *ev);
SHMTRACE_RD_API const char *shmtrace_rd_event_field_name(const struct shmtrace_rd_event *ev,
							 unsigned i);
SHMTRACE_RD_API int shmtrace_rd_event_field_index(const struct shmtrace_rd_event *ev,
						  const char *name);
/* Fill *@v with payload field @i: 0, or -EINVAL if @i is out of range. */
SHMTRACE_RD_API int shmtrace_rd_event_field(const struct shmtrace_rd_event *ev, unsigned i,
					    struct shmtrace_rd_value *v);

/*
 * Context fields of the event, in the order written (0 when it has none);
 * in shmtrace's traces integers only (SHMTRACE_RD_INT), e.g. "ip" (base 16)
 * and "cpu_id"; in other traces (LTTng's) first the fields of the packet
 * context that are not its sizes, times, count and sequence number
 * ("cpu_id"), then the stream's event context ("vpid", "vtid",
 * "procname", "ip", perf counters), then the event's own, of any kind: their
 * number, the name of context field @i ("ip"; NULL if @i is out of range)
 * and the index of the context field named @name (or -ENOENT).
 */
SHMTRACE_RD_API unsigned shmtrace_rd_event_context_count(const struct shmtrace_rd_event *ev);
SHMTRACE_RD_API const char *shmtrace_rd_event_context_name(const struct shmtrace_rd_event *ev,
							   unsigned i);
SHMTRACE_RD_API int shmtrace_rd_event_context_index(const struct shmtrace_rd_event *ev,
						    const char *name);
/* Fill *@v with context field @i: 0, or -EINVAL if @i is out of range. */
SHMTRACE_RD_API int shmtrace_rd_event_context(const struct shmtrace_rd_event *ev, unsigned i,
					      struct shmtrace_rd_value *v);

/*
 * Element @i (< v->count) of an SHMTRACE_RD_SEQUENCE or SHMTRACE_RD_ARRAY
 * value, unsigned or sign-extended. Pure computations on @v: thread-safe
 * and async-signal-safe.
 */
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

/*
 * Function names
 * ==============
 *
 * The function a code address of a traced process falls in, named as
 * trace-read names it ("ip_sym": "main+0x1c"). The objects each process
 * had mapped are described by its own events: its state dump
 * (shmtrace_statedump:bin_info: path, load bias, bounds and build id of
 * each object) and shmtrace_proc:dlopen and dlclose; in LTTng-UST's
 * traces, lttng_ust_statedump:bin_info and lttng_ust_dl:dlopen and
 * dlclose. A symbol table
 * (struct shmtrace_rd_symbols) follows them for every trace of one reader,
 * as the events come: give it each event shmtrace_rd_next() returns, in
 * order, with shmtrace_rd_sym_track(), then ask for the names of that
 * event's addresses. An address is named by the objects described by the
 * events tracked before it (a state dump is written before the events
 * that need it).
 *
 * Names come from each object's separate debug file when one is found (by
 * the recorded build id under DEBUG_DIR/.build-id/, else by
 * .gnu_debuglink in the object's directory, its .debug/ subdirectory and
 * DEBUG_DIR/ followed by the object's directory), else from its .symtab,
 * else its .dynsym. An object file whose build id is not the one recorded
 * (rebuilt since) gives no names of its own. ELF files are untrusted
 * input: a damaged, truncated or foreign file gives no names, never a
 * crash; files are read with pread(), never mapped.
 *
 * Memory: each object file is read once for all traces of the reader and
 * kept until shmtrace_rd_sym_close(): memory follows the number of
 * distinct object files named in the traces (at most 16384), never the
 * number of events. Recent answers are cached.
 *
 * Thread safety: a symbol table is not thread-safe: one thread at a time
 * uses it (looking up names updates its cache), the thread that reads its
 * reader. None of these functions is async-signal-safe (they read files
 * and allocate memory).
 */
struct shmtrace_rd_symbols;

/* A function found for an address. The strings live as long as the table. */
struct shmtrace_rd_symbol {
	const char *name;	/* the function */
	uint64_t offset;	/* bytes from the function's start to the address */
	const char *path;	/* the object's file, as the trace named it */
};

/* Told once about each object file that gives no names: @msg says why. */
typedef void (*shmtrace_rd_sym_warn_fn)(void *arg, const char *msg);

/*
 * shmtrace_rd_sym_open - a symbol table for every trace of @r, empty.
 * @out:       set to the new table on success, to NULL on failure.
 * @r:         the reader whose events will be tracked; it must outlive
 *             the table.
 * @debug_dir: the root of separate debug files; NULL for /usr/lib/debug,
 *             "" for none (the objects' own directories are still searched
 *             for .gnu_debuglink files).
 * @warn:      called with @arg and a message ("FILE: no function names:
 *             why", "FILE: not the file that was traced (build id ...)")
 *             once per object file that gives no names; NULL: nothing said.
 *
 * Returns 0, or -EINVAL (@out or @r NULL), -ENOMEM.
 */
SHMTRACE_RD_API int shmtrace_rd_sym_open(struct shmtrace_rd_symbols **out,
					 const struct shmtrace_rd_reader *r, const char *debug_dir,
					 shmtrace_rd_sym_warn_fn warn, void *arg);

/* Free @s with everything it returned. @s may be NULL. */
SHMTRACE_RD_API void shmtrace_rd_sym_close(struct shmtrace_rd_symbols *s);

/*
 * shmtrace_rd_sym_track - apply @ev, an event of @s's reader, to its
 * process's table when it describes objects (a state dump's bin_info, a
 * dlopen, a dlclose that succeeded); any other event costs one table
 * look-up. Call it for every event, in the order shmtrace_rd_next()
 * returns them, before naming the addresses of that event. The object
 * files are read here, at their first description (@warn may be called).
 * An object that cannot be added (no memory, limits) is left out: its
 * addresses have no name.
 */
SHMTRACE_RD_API void shmtrace_rd_sym_track(struct shmtrace_rd_symbols *s,
					   const struct shmtrace_rd_event *ev);

/*
 * shmtrace_rd_sym_lookup - the function holding the run-time address
 * @addr in the process of trace @t (a trace of @s's reader), as the events
 * tracked so far describe its objects.
 *
 * Returns 1 with *@sym filled, or 0 (*@sym untouched) when @addr is in no
 * executable segment of a known object or no function covers it, or when
 * @t holds several processes (LTTng-UST's per-user buffers, env
 * tracer_buffering_scheme "uid"): shmtrace_rd_sym_event_lookup() tells
 * them apart.
 */
SHMTRACE_RD_API int shmtrace_rd_sym_lookup(struct shmtrace_rd_symbols *s,
					   const struct shmtrace_rd_trace *t, uint64_t addr,
					   struct shmtrace_rd_symbol *sym);

/*
 * shmtrace_rd_sym_event_lookup - as shmtrace_rd_sym_lookup(), in the
 * process of @ev: in a trace of several processes, the one its vpid
 * context field names (none without one: 0).
 */
SHMTRACE_RD_API int shmtrace_rd_sym_event_lookup(struct shmtrace_rd_symbols *s,
						 const struct shmtrace_rd_event *ev, uint64_t addr,
						 struct shmtrace_rd_symbol *sym);

/*
 * Is @v a value that may be a code address: a 64-bit integer printed in
 * hexadecimal (the "ip" context field, the addresses the preload helpers
 * record)? Pure computation: thread-safe and async-signal-safe.
 */
static inline bool shmtrace_rd_value_is_address(const struct shmtrace_rd_value *v)
{
	return v->kind == SHMTRACE_RD_INT && v->base == 16 && v->bytes == 8;
}

/*
 * shmtrace_rd_sym_value - the function that @v names, the value of a
 * context field (@context true) or of a payload field of @ev (tracked),
 * as trace-read names it: @v must be an address
 * (shmtrace_rd_value_is_address()) that shmtrace_rd_sym_lookup() finds in
 * @ev's process (shmtrace_rd_sym_event_lookup()). The payload of a state
 * dump's description of an object (shmtrace_statedump:bin_info,
 * lttng_ust_statedump:bin_info) names none: its addresses are the
 * object's bounds, not code.
 *
 * Returns 1 with *@sym filled, or 0.
 */
SHMTRACE_RD_API int shmtrace_rd_sym_value(struct shmtrace_rd_symbols *s,
					  const struct shmtrace_rd_event *ev, bool context,
					  const struct shmtrace_rd_value *v,
					  struct shmtrace_rd_symbol *sym);

/*
 * Columns
 * =======
 *
 * The selected events of a reader, many per call, as columns: arrays the
 * caller owns, one element per event, filled for up to @max events at a
 * time (shmtrace_rd_cols_read()). This is the fast way to read a trace
 * from a language that calls C at a cost per call (Python's ctypes with
 * numpy arrays): the selection and the filter run here, in C, and strings
 * come as codes into a table.
 *
 *	struct shmtrace_rd_columns *c;
 *	int64_t t[4096], pid[4096];
 *	uint32_t tid[4096], name[4096], proc[4096], cls[4096];
 *	uint64_t lat[4096];
 *	uint8_t lat_type[4096];
 *	struct shmtrace_rd_col_out out = { t, pid, tid, name, proc, cls };
 *	uint64_t *vals[1] = { lat };
 *	uint8_t *types[1] = { lat_type };
 *	long n;
 *
 *	shmtrace_rd_cols_open(&c, r, NULL);
 *	shmtrace_rd_cols_select_event(c, "app:request_*");
 *	shmtrace_rd_cols_select_filter(c, "latency_ns > 1000", err, sizeof(err));
 *	shmtrace_rd_cols_add(c, "latency_ns");		(column 0)
 *	while ((n = shmtrace_rd_cols_read(c, 4096, &out, 1, vals, types)) > 0)
 *		use(n, t, lat, lat_type);
 *	shmtrace_rd_cols_close(c);
 *
 * Selection: the same as trace-read's (--event, --pid, --tid, --begin,
 * --end, --filter; see trace-read(1)); with none, every event.
 *
 * Columns: a column is named as trace-read's filter names fields: the
 * payload field NAME, else the context field NAME; "$ctx.NAME" is the
 * context field only. "NAME_sym" names, when the event has no field of
 * that name, the function its address field NAME falls in, as trace-read
 * names it ("main+0x1c", a string; see Function names); this needs the
 * table of @syms given to shmtrace_rd_cols_open(). Which field a column
 * reads is decided once per event class, at its first event.
 *
 * Values: each row of a column is a 64-bit slot and a type code (enum
 * shmtrace_rd_col_type) saying what the slot holds: the integer (zero- or
 * sign-extended to 64 bits, as its type in the metadata declares), the
 * bits of a double, or a code into the string table (strings; sequences
 * and arrays of integers, as their raw little-endian elements). A row
 * whose event has no such field has type SHMTRACE_RD_COL_NONE and slot 0.
 * shmtrace_rd_cols_seen() tells which types a column has held, so that a
 * caller picks one exact type for the whole column.
 *
 * Strings: the string table holds each distinct string (and each distinct
 * run of elements) once, codes from 0 up in order of first use; it grows
 * as rows are read and keeps everything until close: its memory follows
 * the number of distinct strings read, never the number of events (the
 * event names and process names are in it too).
 *
 * Thread safety: a columns object is used by one thread at a time, the
 * one that uses its reader; it reads the reader's events itself (call
 * shmtrace_rd_next() no more), and shmtrace_rd_sym_track()s them when
 * given a symbol table.
 */
struct shmtrace_rd_columns;

/* Type codes of a column's rows: what its 64-bit slot holds. */
enum shmtrace_rd_col_type {
	SHMTRACE_RD_COL_NONE = 0,	/* the event has no such field; slot 0 */
	SHMTRACE_RD_COL_U8,		/* unsigned integers of 1, 2, 4, 8 bytes */
	SHMTRACE_RD_COL_U16,
	SHMTRACE_RD_COL_U32,
	SHMTRACE_RD_COL_U64,
	SHMTRACE_RD_COL_S8,		/* signed integers, sign-extended */
	SHMTRACE_RD_COL_S16,
	SHMTRACE_RD_COL_S32,
	SHMTRACE_RD_COL_S64,
	SHMTRACE_RD_COL_F32,		/* the bits of a double (a float widened) */
	SHMTRACE_RD_COL_F64,
	SHMTRACE_RD_COL_STRING,		/* a string table code */
	SHMTRACE_RD_COL_SEQ_U8,		/* a string table code: the elements, */
	SHMTRACE_RD_COL_SEQ_U16,	/* unsigned, little-endian */
	SHMTRACE_RD_COL_SEQ_U32,
	SHMTRACE_RD_COL_SEQ_U64,
	SHMTRACE_RD_COL_SEQ_S8,		/* the same, signed */
	SHMTRACE_RD_COL_SEQ_S16,
	SHMTRACE_RD_COL_SEQ_S32,
	SHMTRACE_RD_COL_SEQ_S64,
};

/*
 * The columns every selected event has, one array of @max elements each
 * (any may be NULL: not filled): the time in nanoseconds since the Epoch,
 * the process id (-1 when unknown), the thread id, the event name and the
 * process name as string codes, and the class: a number for the event's
 * class in its trace, the same for every event of it, from 0 up in order
 * of first use (see shmtrace_rd_cols_class_fields()).
 */
struct shmtrace_rd_col_out {
	int64_t *time_ns;
	int64_t *pid;
	uint32_t *tid;
	uint32_t *name;
	uint32_t *proc;
	uint32_t *cls;
};

/*
 * shmtrace_rd_cols_open - columns over @r (not read yet: a reader given to
 * columns before its first shmtrace_rd_next()), selecting every event and
 * with no field column.
 * @syms: NULL, or a symbol table of @r for the "NAME_sym" columns (it and
 *        @r must outlive the columns).
 * Returns 0 with *@out set, or -EINVAL, -ENOMEM (*@out NULL).
 */
SHMTRACE_RD_API int shmtrace_rd_cols_open(struct shmtrace_rd_columns **out,
					  struct shmtrace_rd_reader *r,
					  struct shmtrace_rd_symbols *syms);
/* Free @c and its string table. @c may be NULL. */
SHMTRACE_RD_API void shmtrace_rd_cols_close(struct shmtrace_rd_columns *c);

/*
 * Selection, before the first shmtrace_rd_cols_read(): keep events whose
 * name matches @pattern ('*' wildcards; any of the patterns given), of
 * process @pid, of thread @tid (any of those given, at most 64 each),
 * from @when on and up to @when (as trace-read's --begin and --end:
 * "1795322544.25", "04:30:41.669", "+1.5s"), for which @expr holds (as
 * trace-read's --filter; @err tells what and at which column is wrong).
 * Return 0, or -EINVAL (unreadable; called after reading), -ENOMEM.
 */
SHMTRACE_RD_API int shmtrace_rd_cols_select_event(struct shmtrace_rd_columns *c,
						  const char *pattern);
SHMTRACE_RD_API int shmtrace_rd_cols_select_pid(struct shmtrace_rd_columns *c, int64_t pid);
SHMTRACE_RD_API int shmtrace_rd_cols_select_tid(struct shmtrace_rd_columns *c, uint32_t tid);
SHMTRACE_RD_API int shmtrace_rd_cols_select_begin(struct shmtrace_rd_columns *c,
						  const char *when);
SHMTRACE_RD_API int shmtrace_rd_cols_select_end(struct shmtrace_rd_columns *c, const char *when);
SHMTRACE_RD_API int shmtrace_rd_cols_select_filter(struct shmtrace_rd_columns *c,
						   const char *expr, char *err, size_t errlen);

/*
 * Field @k (from 0) of the filter that no event class read had (a typo,
 * most likely: trace-read warns of it), with *@near set to the closest
 * field name they had, or NULL; NULL when every field was found, when
 * nothing was read, or past the filter's last field (at most 64). Valid
 * until close.
 */
SHMTRACE_RD_API const char *shmtrace_rd_cols_filter_unknown(const struct shmtrace_rd_columns *c,
							   unsigned k, const char **near);

/*
 * shmtrace_rd_cols_add - add the column @name (see Columns), before the
 * first read. Returns its index (from 0, in the order added; a name added
 * twice gives its first index), or -EINVAL (after reading, empty name),
 * -E2BIG (more than 4096 columns), -ENOMEM.
 */
SHMTRACE_RD_API int shmtrace_rd_cols_add(struct shmtrace_rd_columns *c, const char *name);
/*
 * shmtrace_rd_cols_add_all - besides the columns added, a column for
 * every field of the selected events, added as reading finds them: each
 * payload field NAME, each context field NAME ("$ctx.NAME" when a payload
 * field of that event class is named NAME too; not the length of a
 * sequence, "NAME_length" right before the sequence NAME, whose value
 * holds it) and, with a symbol table, "COLUMN_sym" after the column of
 * each address field NAME (shmtrace_rd_value_is_address()) unless the
 * class has a field NAME_sym. shmtrace_rd_cols_read() then
 * returns early, before the first event of a class that brings new
 * columns: the caller gives buffers for shmtrace_rd_cols_count() columns
 * on the next call (the rows already read had none of those fields).
 * Returns 0, or -EINVAL after reading.
 */
SHMTRACE_RD_API int shmtrace_rd_cols_add_all(struct shmtrace_rd_columns *c);
/* Number of columns, and the name of column @i (NULL if out of range). */
SHMTRACE_RD_API size_t shmtrace_rd_cols_count(const struct shmtrace_rd_columns *c);
SHMTRACE_RD_API const char *shmtrace_rd_cols_name(const struct shmtrace_rd_columns *c, size_t i);
/*
 * The types column @i has held in the rows read so far: bit T set for
 * each enum shmtrace_rd_col_type T seen (bit 0: a row without the field).
 */
SHMTRACE_RD_API uint32_t shmtrace_rd_cols_seen(const struct shmtrace_rd_columns *c, size_t i);

/*
 * shmtrace_rd_cols_read - read up to @max selected events into row 0 on
 * of the arrays: @out's common columns, and for each column i < @ncols
 * the slots @values[i] and types @types[i], each an array of @max
 * elements (@values and @types may be NULL when @ncols is 0; @values[i]
 * NULL: column i not filled). @ncols is the number of columns the caller
 * has buffers for: shmtrace_rd_cols_count() when it last asked.
 *
 * Returns the number of rows filled, 0 at the end of the traces (every
 * event read), or -errno: -EAGAIN (shmtrace_rd_cols_add_all() found new
 * columns before any row was filled: call again with buffers for all of
 * them), -EINVAL (arguments; the time window selects nothing), -ENOMEM,
 * -E2BIG (the string table is full: 2^32 - 1 entries), or the error of
 * shmtrace_rd_next() (its message in shmtrace_rd_errmsg() of the reader;
 * after the rows read before it, which one call returns first). Fewer
 * than @max rows are not the end: call again until 0.
 */
SHMTRACE_RD_API long shmtrace_rd_cols_read(struct shmtrace_rd_columns *c, size_t max,
					   const struct shmtrace_rd_col_out *out, size_t ncols,
					   uint64_t *const *values, uint8_t *const *types);

/*
 * The string table: its number of entries, the offsets of entry k in the
 * data (bytes offsets[k] .. offsets[k + 1] - 1 of data; a string has no
 * NUL there) for k < count, and the data. The pointers are valid until
 * the next shmtrace_rd_cols_read() or close.
 */
SHMTRACE_RD_API size_t shmtrace_rd_cols_string_count(const struct shmtrace_rd_columns *c);
SHMTRACE_RD_API const uint64_t *
shmtrace_rd_cols_string_offsets(const struct shmtrace_rd_columns *c);
SHMTRACE_RD_API const char *shmtrace_rd_cols_string_data(const struct shmtrace_rd_columns *c);

/*
 * The fields of the events of class @cls (a value of the cls column), as
 * columns in the order the event has them: at most @max entries of @idx,
 * each 2 * column + 1 for a context field, 2 * column for a payload field
 * and the "NAME_sym" columns (these right after their field); the length
 * of a sequence is not one of them. The context fields come first.
 * Returns the number of entries (which may exceed @max: only @max are
 * written), or -EINVAL (no such class).
 */
SHMTRACE_RD_API long shmtrace_rd_cols_class_fields(const struct shmtrace_rd_columns *c,
						   uint32_t cls, int32_t *idx, size_t max);

#ifdef __cplusplus
}
#endif

#endif /* SHMTRACE_READER_H */
