// SPDX-License-Identifier: MIT
/*
 * flagnames.c - the tables of flagnames.h and their formatting.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "flagnames.h"

#define FN_END { 0, NULL }

/* open(2): flags & O_ACCMODE */
static const struct fn_bit open_access[] = {
	{ O_RDONLY, "O_RDONLY" },
	{ O_WRONLY, "O_WRONLY" },
	{ O_RDWR, "O_RDWR" },
	FN_END,
};

/* open(2): the bits, groups before the bits they hold */
static const struct fn_bit open_bits[] = {
	{ O_CREAT, "O_CREAT" },
	{ O_EXCL, "O_EXCL" },
	{ O_NOCTTY, "O_NOCTTY" },
	{ O_TRUNC, "O_TRUNC" },
	{ O_APPEND, "O_APPEND" },
	{ O_NONBLOCK, "O_NONBLOCK" },
	{ O_SYNC, "O_SYNC" },
	{ O_DSYNC, "O_DSYNC" },
	{ O_ASYNC, "O_ASYNC" },
	{ O_DIRECT, "O_DIRECT" },
#if O_LARGEFILE
	{ O_LARGEFILE, "O_LARGEFILE" },
#endif
	{ O_TMPFILE, "O_TMPFILE" },
	{ O_DIRECTORY, "O_DIRECTORY" },
	{ O_NOFOLLOW, "O_NOFOLLOW" },
	{ O_NOATIME, "O_NOATIME" },
	{ O_CLOEXEC, "O_CLOEXEC" },
	{ O_PATH, "O_PATH" },
	FN_END,
};

/* dlopen(3): flags & (RTLD_LAZY | RTLD_NOW), then the bits */
static const struct fn_bit dlopen_binding[] = {
	{ RTLD_LAZY, "RTLD_LAZY" },
	{ RTLD_NOW, "RTLD_NOW" },
	FN_END,
};

static const struct fn_bit dlopen_bits[] = {
	{ RTLD_NOLOAD, "RTLD_NOLOAD" },
	{ RTLD_DEEPBIND, "RTLD_DEEPBIND" },
	{ RTLD_GLOBAL, "RTLD_GLOBAL" },
	{ RTLD_NODELETE, "RTLD_NODELETE" },
	FN_END,
};

#define OPEN_FLAGS(ev) \
	{ ev, "flags", FN_FLAGS, O_ACCMODE, open_access, open_bits }, \
	{ ev, "mode", FN_OCTAL, 0, NULL, NULL }

/* The fields of one event are together. */
static const struct fn_field fn_fields[] = {
	OPEN_FLAGS("shmtrace_io:open"),
	OPEN_FLAGS("shmtrace_io:openat"),
	{ "shmtrace_proc:dlopen", "flags", FN_FLAGS, RTLD_LAZY | RTLD_NOW, dlopen_binding,
	  dlopen_bits },
	{ NULL, NULL, FN_FLAGS, 0, NULL, NULL },
};

const struct fn_field *fn_event(const char *event)
{
	const char *prev = NULL;

	for (const struct fn_field *f = fn_fields; f->event; f++) {
		if (f->event == prev)
			continue;
		if (!strcmp(f->event, event))
			return f;
		prev = f->event;
	}
	return NULL;
}

const struct fn_field *fn_field(const struct fn_field *fields, const char *field)
{
	for (const struct fn_field *f = fields; f && f->event; f++) {
		if (f != fields && strcmp(f->event, fields->event))
			break;
		if (!strcmp(f->field, field))
			return f;
	}
	return NULL;
}

const struct fn_field *fn_find(const char *event, const char *field)
{
	return fn_field(fn_event(event), field);
}

/* Append @s to @buf (@len bytes) at *@pos, '|' first unless it is the first. */
static void put(char *buf, size_t len, size_t *pos, const char *s)
{
	size_t n = strlen(s) + (*pos ? 1 : 0);

	if (*pos < len)
		snprintf(buf + *pos, len - *pos, "%s%s", *pos ? "|" : "", s);
	*pos += n;
}

size_t fn_format(const struct fn_field *f, uint64_t v, char *buf, size_t len)
{
	size_t pos = 0;
	char hex[24];

	if (len)
		buf[0] = 0;
	if (f->kind == FN_OCTAL)
		return (size_t)snprintf(buf, len, v ? "0%llo" : "0", (unsigned long long)v);
	if (f->enum_mask) {
		uint64_t e = v & f->enum_mask;
		const struct fn_bit *b;

		for (b = f->enums; b && b->name && b->value != e; b++)
			;
		if (b && b->name) {
			put(buf, len, &pos, b->name);
			v &= ~f->enum_mask;
		} else if (!e) {
			v &= ~f->enum_mask;
		}
	}
	for (const struct fn_bit *b = f->bits; b && b->name; b++) {
		if (b->value && (v & b->value) == b->value) {
			put(buf, len, &pos, b->name);
			v &= ~b->value;
		}
	}
	if (v || !pos) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)v);
		put(buf, len, &pos, hex);
	}
	return pos;
}
