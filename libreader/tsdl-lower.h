/* SPDX-License-Identifier: MIT */
/*
 * tsdl-lower.h - the third stage of the TSDL parser (tsdl.h): the type
 * tree of tsdl-parse.h checked and lowered to the flat classes of the
 * result (struct tsdl_metadata). The parser calls the first three as the
 * blocks end; tsdl_finish() completes the result after the whole text.
 * Each returns 0, or the error said (tsdl_err(): -EINVAL, -ENOMEM).
 */
#ifndef SHMTRACE_READER_TSDL_LOWER_H
#define SHMTRACE_READER_TSDL_LOWER_H

#include "tsdl-lex.h"
#include "tsdl-parse.h"

/* A stream block's event.context: @t, a struct of integers, into sc->cls.ctx. */
int tsdl_lower_context(struct tsdl_parser *P, struct tsdl_sc *sc, const struct tsdl_type *t);

/* An event block's fields: @t, the payload struct, into ev->cls.fields. */
int tsdl_lower_event(struct tsdl_parser *P, struct tsdl_ev *ev, struct tsdl_type *t);

/* A stream block that ended: its layout checked, added to P->scs. */
int tsdl_add_stream(struct tsdl_parser *P, struct tsdl_sc *sc);

/*
 * After the text: the trace and clock blocks checked, the clock's offset
 * in ns, the packet header's layout, the stream classes sorted by id and
 * each event class given to its stream class, with the dense id tables.
 */
int tsdl_finish(struct tsdl_parser *P);

#endif
