// SPDX-License-Identifier: MIT
/*
 * follow.c - trace-read --follow.
 *
 * Every FOLLOW_PERIOD_NS the traces under the directory are opened and
 * read again (new processes, new streams and new events of the metadata
 * come with it), and the events not handed over yet are: a stream's
 * events come in its order, so a count per stream (by file path) says
 * which are new. Only events older than the hold-back (the session's
 * flush interval, plus a margin) are handed over, and the round stops at
 * the first younger one: the consumer writes each stream's events at most
 * a flush interval late, so that what is handed over is in time order
 * across streams. An event the consumer wrote later than that still comes
 * out (late, never lost).
 *
 * A packet being written when the files are read looks truncated: the
 * round ends at the first damage the reader finds (none of the events
 * after it is handed over, whatever its stream) and the next one reads it
 * whole. When the marker the session daemon keeps while the session is
 * active goes (or its daemon died), a last round hands over everything,
 * every stream to its end or to its damage, then names each damaged file.
 * Before the session first starts, a directory that holds no trace yet
 * (or does not exist) is waited for; one that holds a trace and no
 * marker is a finished session: it is read once, whole.
 *
 * Each round reads every trace from its beginning: the cost of a round
 * grows with the size of the traces, which suits watching a session, not
 * following one for days (rotate it, and follow the current chunk).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "exit-status.h"
#include "follow.h"
#include "common/proto.h"

#define FOLLOW_PERIOD_NS	100000000
#define FOLLOW_MARGIN_NS	50000000
#define FOLLOW_DEFAULT_HOLD_MS	1000

struct seen {
	char *path;
	uint64_t handed;		/* events of the stream handed over */
};

struct follow {
	struct seen *s;
	size_t n, cap;
};

static uint64_t *seen_slot(struct follow *f, const char *path)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->s[i].path, path))
			return &f->s[i].handed;
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		struct seen *ns = realloc(f->s, cap * sizeof(*ns));

		if (!ns)
			return NULL;
		f->s = ns;
		f->cap = cap;
	}
	f->s[f->n].path = strdup(path);
	if (!f->s[f->n].path)
		return NULL;
	f->s[f->n].handed = 0;
	return &f->s[f->n++].handed;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Is the session writing into @dir active? 1 (and *@hold_ns set), 0 when
 * the marker is gone or its daemon is.
 */
static int active(const char *dir, int64_t *hold_ns)
{
	char path[PATH_MAX], buf[64];
	long pid = 0, ms = FOLLOW_DEFAULT_HOLD_MS;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, PROTO_ACTIVE_MARKER);
	f = fopen(path, "re");
	if (!f)
		return 0;
	ok = fgets(buf, sizeof(buf), f) && sscanf(buf, "%ld %ld", &pid, &ms) >= 1;
	fclose(f);
	if (!ok || pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
		return 0;
	if (ms < 0 || ms > 3600000)
		ms = FOLLOW_DEFAULT_HOLD_MS;
	*hold_ns = (int64_t)ms * 1000000 + FOLLOW_MARGIN_NS;
	return 1;
}

/*
 * Is there a trace under @dir, which no active session writes? A
 * directory that holds none (not made yet, or made by a start whose
 * marker is not there yet) is waited for.
 */
static int holds_trace(const char *dir)
{
	const char *paths[1] = { dir };
	struct shmtrace_rd_reader *r;
	char err[SHMTRACE_RD_ERRLEN];
	int rc;

	if (access(dir, F_OK) < 0)
		return 0;
	rc = shmtrace_rd_open(&r, paths, 1, err, sizeof(err));
	if (rc == -ENOENT)
		return 0;
	if (rc >= 0)
		shmtrace_rd_close(r);
	return 1;	/* a trace, or one that cannot be read: the last round says */
}

/*
 * One round: hand over the new events up to @horizon, or, in the @final
 * round, all of them; call @round; then, in the final round, say each
 * damaged file. Returns 0, the exit status when the traces could not be
 * read whole (*@err set when the traces could not be opened), or the
 * callback's < 0.
 */
static int round_once(struct follow *f, const char *dir, int64_t horizon, int final,
		      follow_fn fn, follow_round_fn round, void *arg, char *err, size_t errlen)
{
	const char *paths[1] = { dir };
	struct shmtrace_rd_reader *r;
	const struct shmtrace_rd_event *ev;
	const struct shmtrace_rd_stream *last = NULL;
	uint64_t *count = NULL, **slot = NULL;
	size_t ns, i = 0;
	int rc, ret = 0;

	err[0] = 0;
	rc = shmtrace_rd_open(&r, paths, 1, err, errlen);
	if (rc < 0) {
		round(arg);
		return exit_of_read_error(rc);
	}
	ns = shmtrace_rd_stream_count(r);
	count = calloc(ns + 1, sizeof(*count));
	slot = calloc(ns + 1, sizeof(*slot));
	if (!count || !slot) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ns; i++) {
		slot[i] = seen_slot(f, shmtrace_rd_stream_path(shmtrace_rd_stream_at(r, i)));
		if (!slot[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	while ((rc = shmtrace_rd_next(r, &ev)) > 0) {
		const struct shmtrace_rd_stream *s = shmtrace_rd_event_stream(ev);

		if (shmtrace_rd_event_time_ns(ev) > horizon)
			break;
		if (!final && shmtrace_rd_damage_count(r))
			break;	/* perhaps being written: the next round reads it */
		if (s != last) {	/* events come in runs of one stream */
			for (i = 0; i < ns && shmtrace_rd_stream_at(r, i) != s; i++)
				;
			last = s;
		}
		if (i == ns || ++count[i] <= *slot[i])
			continue;
		(*slot[i])++;
		ret = fn(ev, arg);
		if (ret < 0)
			goto out;
	}
	if (rc < 0 || shmtrace_rd_damage_count(r))
		ret = rc < 0 ? exit_of_read_error(rc) : EXIT_DAMAGED;
	round(arg);
	if (final)
		follow_say_damage(r, rc);
	goto done;
out:
	round(arg);
done:
	free(count);
	free(slot);
	shmtrace_rd_close(r);
	return ret;
}

void follow_say_damage(const struct shmtrace_rd_reader *r, int rc)
{
	size_t n = shmtrace_rd_damage_count(r);

	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "trace-read: %s\n", shmtrace_rd_damage_message(r, i));
	/* a stop before the end is not the first damage's error */
	if (rc < 0 && (!n || strcmp(shmtrace_rd_errmsg(r), shmtrace_rd_damage_message(r, 0))))
		fprintf(stderr, "trace-read: %s\n", shmtrace_rd_errmsg(r));
}

int follow_run(const char *dir, follow_fn fn, follow_round_fn round, void *arg)
{
	struct follow f = { 0 };
	char err[SHMTRACE_RD_ERRLEN];
	int64_t hold = (int64_t)FOLLOW_DEFAULT_HOLD_MS * 1000000 + FOLLOW_MARGIN_NS;
	int ret, was_active = 0, last = 0;

	do {
		struct timespec ts = { 0, FOLLOW_PERIOD_NS };
		int act = active(dir, &hold);

		if (act)
			was_active = 1;
		else if (was_active || holds_trace(dir))
			last = 1;	/* stopped, destroyed, or never to start again */
		if (!act && !last) {
			nanosleep(&ts, NULL);	/* not started yet */
			continue;
		}
		ret = round_once(&f, dir, last ? INT64_MAX : realtime_ns() - hold, last, fn, round,
				 arg, err, sizeof(err));
		if (ret < 0)
			break;
		if (last && ret && err[0])
			fprintf(stderr, "trace-read: %s\n", err);
		if (!last)
			nanosleep(&ts, NULL);
	} while (!last);
	for (size_t i = 0; i < f.n; i++)
		free(f.s[i].path);
	free(f.s);
	return ret;
}
