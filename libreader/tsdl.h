/* SPDX-License-Identifier: MIT */
/*
 * tsdl.h - parser for the TSDL (CTF 1.8 metadata) dialect shmtrace writes.
 *
 * tsdl_parse() turns the metadata text into a read-only description of the
 * trace: clock, environment, uuid, stream classes (each with its event
 * context fields) and event classes with flat field lists. An event class
 * belongs to one stream class: the same event declared in two stream
 * classes is two event classes.
 *
 * Metadata of shmtrace's own fixed layout (doc/trace-format.md) is lowered
 * to flat field lists; any other (LTTng's) is parsed again in the general
 * form, whose classes keep their type trees (tsdl-parse.h) for the
 * general decoder (reader-ctf.h). Everything returned lives in one
 * allocation arena released by tsdl_free().
 */
#ifndef SHMTRACE_TSDL_H
#define SHMTRACE_TSDL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Size of the fixed packet header + packet context (doc/trace-format.md). */
#define TSDL_PACKET_HEADER_SIZE 84
#define TSDL_PACKET_MAGIC 0xC1FC1FC1U
/* Magic of a packet of packetized metadata. */
#define TSDL_METADATA_MAGIC 0x75D11D57U
/* Stream classes one trace may declare. */
#define TSDL_MAX_STREAMS 256

enum tsdl_field_kind {
	TSDL_F_INT,		/* integer of 1, 2, 4 or 8 bytes */
	TSDL_F_FLOAT,		/* IEEE 754 float (4 bytes) or double (8) */
	TSDL_F_STRING,		/* NUL-terminated string */
	TSDL_F_SEQUENCE,	/* integers, count taken from another field */
	TSDL_F_ARRAY,		/* integers, fixed count */
};

struct tsdl_field {
	const char *name;	/* leading underscore stripped */
	const char *decl_name;	/* as declared in the metadata */
	enum tsdl_field_kind kind;
	uint8_t bytes;		/* size of the value or of one element */
	bool is_signed;		/* integers and elements */
	uint8_t base;		/* 2, 8, 10 or 16 */
	uint32_t length;	/* TSDL_F_ARRAY: element count */
	uint32_t len_field;	/* TSDL_F_SEQUENCE: index of the length field */
	uint32_t offset;	/* context fields: byte offset in the context */
};

struct tsdl_stream_class;
struct tsdl_type;	/* the type tree of tsdl-parse.h (general traces) */

struct tsdl_event_class {
	uint32_t id;
	uint32_t index;		/* position in tsdl_metadata.events */
	const char *name;
	bool has_loglevel;
	int64_t loglevel;
	uint32_t nfields;
	const struct tsdl_field *fields;
	const struct tsdl_stream_class *stream;	/* the class it belongs to */
	/* general traces: the payload struct and the event's own context */
	const struct tsdl_type *payload, *context;
	/*
	 * general traces: the bits of the contexts (the stream's and the
	 * event's) and of the payload when they are fixed wherever they start
	 * on a byte (tsdl-parse.h, sbits); -1 when they are not
	 */
	int64_t fixed_ctx_bits, fixed_payload_bits;
	/*
	 * general traces: a payload of variable size whose members are of
	 * fixed size (as sbits) or strings, as runs to skip from a byte:
	 * skip[i] >= 0 bits, TSDL_SKIP_STRING a string; nskip 0 otherwise
	 */
	uint32_t nskip;
	const int64_t *skip;
};
#define TSDL_SKIP_STRING (-1)

/*
 * A stream class: the packets whose header says stream_id = id. Its events
 * carry the context fields (integers only, TSDL_F_INT) between the event
 * header and the payload, ctx_bytes in all.
 */
struct tsdl_stream_class {
	uint32_t id;
	uint32_t nctx;
	const struct tsdl_field *ctx;
	uint32_t ctx_bytes;

	uint32_t nevents;
	const struct tsdl_event_class *events;	/* sorted by id, in m->events */
	uint32_t max_fields;			/* max nfields of its events */

	/*
	 * Dense id -> class table for ids < ndense (NULL slots: unknown): at
	 * most 1024 slots plus 64 per event class, and 65536, so that its size
	 * follows the metadata's.
	 */
	uint32_t ndense;
	const struct tsdl_event_class *const *dense;

	/* general traces: packet.context, event.header, event.context */
	const struct tsdl_type *packet_context, *event_header, *event_context;
};

struct tsdl_clock {
	const char *name;
	const char *description;	/* NULL if absent */
	uint64_t freq;			/* ticks per second, > 0 */
	uint64_t precision;
	int64_t offset_s;
	uint64_t offset;		/* ticks */
	int64_t base_ns;		/* the offset in ns since the Epoch */
	bool absolute;
	bool has_uuid;
	uint8_t uuid[16];
};

struct tsdl_env_entry {
	const char *key;
	bool is_int;
	int64_t ival;
	const char *sval;		/* string value, NULL if is_int */
};

struct tsdl_metadata {
	uint32_t major, minor;
	bool has_uuid;
	uint8_t uuid[16];
	char uuid_str[37];

	bool has_clock;
	struct tsdl_clock clock;

	uint32_t nenv;
	const struct tsdl_env_entry *env;
	const char *procname;		/* env shortcuts, NULL if absent */
	const char *hostname;
	bool has_vpid;
	int64_t vpid;

	uint32_t nstreams;		/* 1 .. TSDL_MAX_STREAMS */
	const struct tsdl_stream_class *streams;	/* sorted by id */

	uint32_t nevents;
	/* sorted by (stream class id, id) */
	const struct tsdl_event_class *events;
	uint32_t max_fields;		/* max nfields over all events */

	/*
	 * The general form (any CTF 1.8 a type tree describes, as LTTng
	 * writes it), read by reader-ctf.c: the classes keep their type
	 * trees and have no flat fields (nfields 0, nctx 0).
	 */
	bool general;
	const struct tsdl_type *packet_header;

	void *arena;
};

/*
 * Ticks of a clock of @freq ticks per second to ns, as babeltrace2 converts
 * them (so that times agree): UINT64_MAX when out of range.
 */
static inline uint64_t tsdl_cycles_to_ns(uint64_t freq, uint64_t v)
{
	double d;

	if (freq == 1000000000)
		return v;
	d = 1e9 * (double)v / (double)freq;
	if (d >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)d;
}

/*
 * Does the text start with the signature of CTF 1.8 metadata, as
 * babeltrace2 reads it: "/" "* CTF 1.8" (blanks allowed before the numbers)?
 */
bool tsdl_signature_ok(const char *text, size_t len);

/*
 * Parse @len bytes of metadata text. @path is only used in error messages,
 * which have the form "PATH:LINE: what" and are written to @err.
 * Returns 0 and sets *@out, or -EINVAL (malformed or unsupported) /
 * -ENOMEM.
 */
int tsdl_parse(const char *text, size_t len, const char *path,
	       struct tsdl_metadata **out, char *err, size_t errlen);

void tsdl_free(struct tsdl_metadata *m);

/* The stream class @id, or NULL. */
const struct tsdl_stream_class *
tsdl_find_stream(const struct tsdl_metadata *m, uint32_t id);

const struct tsdl_event_class *
tsdl_stream_find_event_slow(const struct tsdl_stream_class *sc, uint32_t id);

/* Event class @id of stream class @sc, or NULL. */
static inline const struct tsdl_event_class *
tsdl_stream_find_event(const struct tsdl_stream_class *sc, uint32_t id)
{
	if (id < sc->ndense)
		return sc->dense[id];
	return tsdl_stream_find_event_slow(sc, id);
}

/*
 * Event class @id of the first stream class (the lowest id: the only one
 * of a trace without context fields), or NULL.
 */
static inline const struct tsdl_event_class *
tsdl_find_event(const struct tsdl_metadata *m, uint32_t id)
{
	return tsdl_stream_find_event(&m->streams[0], id);
}

#endif /* SHMTRACE_TSDL_H */
