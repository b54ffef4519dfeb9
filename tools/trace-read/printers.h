// SPDX-License-Identifier: MIT
/*
 * printers.h - the formats of one event, written through output.h:
 *
 *  - text, as babeltrace2 prints it: "[time] (+delta) proc:pid:tid name:
 *    { context }, { payload }" (the context group only when the event has
 *    context fields; with the host first when the traces come from several
 *    hosts), every 64-bit hexadecimal field followed by " <function+0xoff>"
 *    when the symbol tables (shmtrace_rd_sym_*() of the reader library) name
 *    it, the fields that
 *    flagnames.h knows as names ("flags = O_WRONLY|O_CREAT", "mode = 0640");
 *  - JSON, one object per line: time_ns, time, host (several hosts only),
 *    proc, pid, tid, event, context (when there is one) and fields. Values
 *    stay numbers; what the text shows instead of or after a value is a key
 *    of its own right after the field NAME: NAME_sym ("main+0x12"),
 *    NAME_names ("O_WRONLY|O_CREAT") or NAME_octal ("0640"), unless the
 *    event has a field of that name.
 *
 * The time format (--time-format) and the host column are global: one
 * reader's traces at a time.
 */
#ifndef SHMTRACE_TOOLS_PRINTERS_H
#define SHMTRACE_TOOLS_PRINTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <shmtrace/reader.h>

/*
 * Times as "clock" (local time of day, the default), "date", "epoch"
 * (seconds) or "relative" (to the first event printed): 0, or -EINVAL.
 */
int pr_set_time_format(const char *name);

/* Print the host of each event when the traces of @r (NULL: none) name several. */
void pr_set_hosts(const struct shmtrace_rd_reader *r);

/* What the formats keep from one event to the next, and their settings. */
struct pr_state {
	struct shmtrace_rd_symbols *syms;	/* the symbol tables, or NULL: no names */
	bool raw;		/* raw clock values instead of times (-r, text) */
	bool have_last;
	int64_t last_ns;
	uint64_t last_clock;
};

void pr_text(struct pr_state *ps, const struct shmtrace_rd_event *ev);
void pr_json(const struct pr_state *ps, const struct shmtrace_rd_event *ev);

/*
 * Strings in every JSON that trace-read prints (events here, --export
 * chrome; aggregations through support/aggfmt.c, which writes them the
 * same), so that the output is valid UTF-8 whatever the trace holds:
 * valid UTF-8 stays as it is; '"' and '\' are escaped; control characters
 * and DEL are written \u00XX; a byte that is not part of valid UTF-8
 * (cut, overlong, a surrogate, beyond U+10FFFF) is written \udcXX, XX the
 * byte, as Python's surrogateescape does: nothing is lost, and
 * s.encode("utf-8", "surrogateescape") gives the bytes back.
 *
 * pr_json_run() is the length of the run at @s (@n bytes at most) that
 * stays as it is: 0 when the byte at @s must be escaped, which
 * pr_json_esc() then writes into @esc: its length (2 or 6).
 */
size_t pr_json_run(const char *s, size_t n);
size_t pr_json_esc(unsigned char c, char esc[6]);

#endif
