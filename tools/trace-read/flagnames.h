// SPDX-License-Identifier: MIT
/*
 * flagnames.h - names for the values of integer fields whose number says
 * little: flags as "O_WRONLY|O_CREAT|O_TRUNC" and file modes in octal.
 * Tables are keyed by "provider:event" and field name; a field is named
 * only when its event and its name both match an entry (a program's own
 * field called "flags" is left alone).
 *
 * Flags: an enumerated part first (the access mode of open(2): the value
 * of flags & O_ACCMODE), then each bit (or group of bits, such as O_SYNC)
 * set, in the table's order, then what no name covers as hexadecimal
 * ("O_RDONLY|O_CLOEXEC|0x40000000"). The values are those of the C library
 * trace-read was built with, which are those of the traced programs when
 * the trace is read on the same architecture.
 *
 * Adding a field: a table of struct fn_bit and a line in fn_fields
 * (flagnames.c).
 */
#ifndef SHMTRACE_TOOLS_FLAGNAMES_H
#define SHMTRACE_TOOLS_FLAGNAMES_H

#include <stddef.h>
#include <stdint.h>

enum fn_kind {
	FN_FLAGS,		/* names of the bits */
	FN_OCTAL,		/* a number in octal, as "0640" ("0" for 0) */
};

struct fn_bit {
	uint64_t value;
	const char *name;
};

struct fn_field {
	const char *event;		/* "provider:event" */
	const char *field;
	enum fn_kind kind;
	uint64_t enum_mask;		/* FN_FLAGS: the enumerated part, or 0 */
	const struct fn_bit *enums;	/* its values, ending with a NULL name */
	const struct fn_bit *bits;	/* the bits, ending with a NULL name */
};

/*
 * The first of the named fields of event @event ("provider:event"), or
 * NULL when it has none. Cheap enough to call for every event (a string
 * comparison per event of the tables).
 */
const struct fn_field *fn_event(const char *event);

/* Field @field of the event whose first named field fn_event() gave, or NULL. */
const struct fn_field *fn_field(const struct fn_field *fields, const char *field);

/* The same in one call. */
const struct fn_field *fn_find(const char *event, const char *field);

/*
 * The value @v of field @f as text in @buf of @len bytes (NUL-terminated,
 * cut if it does not fit): the length it needs, as snprintf() returns it.
 * Flags of a signed 32-bit field are its 32 bits: pass them as uint32_t.
 */
size_t fn_format(const struct fn_field *f, uint64_t v, char *buf, size_t len);

#endif
