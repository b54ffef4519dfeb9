/* SPDX-License-Identifier: MIT */
/*
 * reader-damage.c - the reader's damage list (see reader-damage.h), and
 * the accessors of <shmtrace/reader.h> that read it
 * (shmtrace_rd_damage_*()).
 *
 * Invariants: one entry per damaged stream or trace, in the order found;
 * a damaged stream's s->error is its entry's error; what is not damage
 * (no memory) stops the reader (r->fatal, the first one kept, with its
 * message in r->err).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader-damage.h"
#include "reader-objects.h"

/* Is @rc what a trace's own bytes cause (damage), rather than its surroundings? */
bool rd_is_damage(int rc)
{
	switch (rc) {
	case -EINVAL:		/* malformed metadata */
	case -ENOTSUP:		/* metadata in a form not read */
	case -EFBIG:		/* metadata or a packet past the limits */
	case -EIO:		/* a bad LZ4 frame, a read error */
	case -EBADMSG:		/* a corrupt or truncated packet or event */
	case -ENODATA:		/* a file that shrank */
		return true;
	default:
		return false;
	}
}

/* Stop the reader: @rc (not damage) with @msg. */
int rd_fatal(struct shmtrace_rd_reader *r, int rc, const char *msg)
{
	if (!r->fatal) {
		r->fatal = rc;
		snprintf(r->err, sizeof(r->err), "%s", msg);
	}
	return rc;
}

/*
 * Add damage to the list: @path at byte @off (-1: none), error @rc, @msg;
 * of stream @s, or of a trace's metadata (@s NULL). Returns @rc, or
 * -ENOMEM (fatal) when it cannot be kept.
 */
int rd_add_damage(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s,
		  const char *path, int64_t off, int rc, const char *msg)
{
	struct rd_damage *d;

	if (r->ndmg == r->dmg_cap) {
		size_t cap = r->dmg_cap ? r->dmg_cap * 2 : 8;
		struct rd_damage *n = realloc(r->dmg, cap * sizeof(*n));

		if (!n)
			return rd_fatal(r, -ENOMEM, "out of memory");
		r->dmg = n;
		r->dmg_cap = cap;
	}
	d = &r->dmg[r->ndmg];
	d->path = strdup(path);
	d->msg = strdup(msg);
	if (!d->path || !d->msg) {
		free(d->path);
		free(d->msg);
		return rd_fatal(r, -ENOMEM, "out of memory");
	}
	d->offset = off;
	d->error = rc;
	d->stream = s;
	r->ndmg++;
	if (s)
		s->error = rc;
	return rc;
}

/*
 * Stream @s ends at byte @off of its file: "file: offset N: what" joins
 * the damage list (error @rc), or, for what is not damage (no memory),
 * stops the reader. Returns @rc.
 */
__attribute__((format(printf, 5, 6)))
int rd_fail_at(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s,
	       uint64_t off, int rc, const char *fmt, ...)
{
	char msg[SHMTRACE_RD_ERRLEN];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "%s: offset %" PRIu64 ": ", s->path, off);
	if (n >= 0 && (size_t)n < sizeof(msg)) {
		va_start(ap, fmt);
		vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
		va_end(ap);
	}
	if (!rd_is_damage(rc))
		return rd_fatal(r, rc, msg);
	return rd_add_damage(r, s, s->path, (int64_t)off, rc, msg);
}

/* ---- the accessors ---------------------------------------------------- */

size_t shmtrace_rd_damage_count(const struct shmtrace_rd_reader *r)
{
	return r->ndmg;
}

const char *shmtrace_rd_damage_message(const struct shmtrace_rd_reader *r, size_t i)
{
	return i < r->ndmg ? r->dmg[i].msg : NULL;
}

const char *shmtrace_rd_damage_path(const struct shmtrace_rd_reader *r, size_t i)
{
	return i < r->ndmg ? r->dmg[i].path : NULL;
}

int64_t shmtrace_rd_damage_offset(const struct shmtrace_rd_reader *r, size_t i)
{
	return i < r->ndmg ? r->dmg[i].offset : -1;
}

int shmtrace_rd_damage_error(const struct shmtrace_rd_reader *r, size_t i)
{
	return i < r->ndmg ? r->dmg[i].error : 0;
}

const struct shmtrace_rd_stream *shmtrace_rd_damage_stream(const struct shmtrace_rd_reader *r,
							   size_t i)
{
	return i < r->ndmg ? r->dmg[i].stream : NULL;
}
