/* SPDX-License-Identifier: MIT */
/*
 * tsdl.h - parser for the TSDL (CTF 1.8 metadata) dialect shmtrace writes.
 *
 * tsdl_parse() turns the metadata text into a read-only description of the
 * trace: clock, environment, uuid and event classes with flat field lists.
 * Everything returned lives in one allocation arena released by tsdl_free().
 */
#ifndef SHMTRACE_TSDL_H
#define SHMTRACE_TSDL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Size of the fixed packet header + packet context (doc/trace-format.md). */
#define TSDL_PACKET_HEADER_SIZE 84
#define TSDL_PACKET_MAGIC 0xC1FC1FC1U

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
};

struct tsdl_event_class {
	uint32_t id;
	uint32_t index;		/* position in tsdl_metadata.events */
	const char *name;
	bool has_loglevel;
	int64_t loglevel;
	uint32_t nfields;
	const struct tsdl_field *fields;
};

struct tsdl_clock {
	const char *name;
	const char *description;	/* NULL if absent */
	uint64_t freq;			/* ticks per second, > 0 */
	uint64_t precision;
	int64_t offset_s;
	int64_t offset;			/* ticks */
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

	uint64_t stream_id;		/* the only stream class */

	uint32_t nevents;
	const struct tsdl_event_class *events;	/* sorted by id */
	uint32_t max_fields;		/* max nfields over all events */

	/* Dense id -> class table for ids < ndense (NULL slots: unknown). */
	uint32_t ndense;
	const struct tsdl_event_class *const *dense;

	void *arena;
};

/*
 * Parse @len bytes of metadata text. @path is only used in error messages,
 * which have the form "PATH:LINE: what" and are written to @err.
 * Returns 0 and sets *@out, or -EINVAL (malformed or unsupported) /
 * -ENOMEM.
 */
int tsdl_parse(const char *text, size_t len, const char *path,
	       struct tsdl_metadata **out, char *err, size_t errlen);

void tsdl_free(struct tsdl_metadata *m);

const struct tsdl_event_class *
tsdl_find_event_slow(const struct tsdl_metadata *m, uint32_t id);

static inline const struct tsdl_event_class *
tsdl_find_event(const struct tsdl_metadata *m, uint32_t id)
{
	if (id < m->ndense)
		return m->dense[id];
	return tsdl_find_event_slow(m, id);
}

#endif /* SHMTRACE_TSDL_H */
