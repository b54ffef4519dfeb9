/* SPDX-License-Identifier: MIT */
/*
 * aggjson.h - reading an aggregations.json document (aggfmt.h has its
 * format) back into views (struct agg_view) that print as the merged
 * results it was written from did: agg_view_text() of a view read back is
 * agg_print_text() of those results, byte for byte.
 *
 * The document is untrusted: it must be what agg_json_begin() ...
 * agg_json_end() write (members of an object in any order; members that
 * are not known are ignored), else agg_json_read() says where and why.
 * Besides JSON itself (json.h), it checks: the definition is one that
 * agg_geom() accepts; names and string keys hold no NUL, string keys at
 * most AGG_STR_KEY - 1 bytes; every key and value has its type and an
 * integer its range; every bucket is one of its histogram's, with its
 * exact range, a count above 0 and in ascending order; entries are in
 * ascending key order, no key twice.
 */
#ifndef SHMTRACE_COMMON_AGGJSON_H
#define SHMTRACE_COMMON_AGGJSON_H

#include <stddef.h>
#include <stdint.h>
#include "support/aggfmt.h"

struct agg_json_doc;

/*
 * Read the document of @len bytes at @text. 0 and *@doc, or -EINVAL (and
 * "offset N: why" in @err, N the byte offset in @text), -E2BIG past the
 * parser's limits (said in @err), -ENOMEM.
 */
int agg_json_read(struct agg_json_doc **doc, const char *text, size_t len, char *err,
		  size_t errlen);
/* Aggregations in @doc, and view @i of them (valid until agg_json_free()). */
uint32_t agg_json_count(const struct agg_json_doc *doc);
struct agg_view *agg_json_view(struct agg_json_doc *doc, uint32_t i);
void agg_json_free(struct agg_json_doc *doc);

#endif
