/* SPDX-License-Identifier: MIT */
/*
 * why.h - what a REC_ERROR or REC_NOTE says (common/proto.h, enum
 * proto_why), made by tracectl from the record's code and fields: the
 * sentence for people, and for scripts a JSON object with the code's
 * name, the errno and the fields the code uses, each under its name
 * (doc/json.md, "error").
 */
#ifndef SHMTRACE_TOOLS_WHY_H
#define SHMTRACE_TOOLS_WHY_H

#include <stddef.h>
#include "jwrite.h"
#include "common/proto.h"

/* The sentence of @e into @buf (@len bytes). */
void why_text(const struct rec_error *e, char *buf, size_t len);
/* The code's name for scripts ("no-session"...), "unknown" for a code we do not know. */
const char *why_code(uint32_t code);
/* @e as a JSON object: "code", "errno", "message", then its fields. */
void why_json(struct jw *w, const struct rec_error *e);

#endif
