/* SPDX-License-Identifier: MIT */
/*
 * render.h - the replies of the session daemon as tracectl prints them:
 * text for people, or one JSON document for scripts (--format json,
 * doc/json.md). The records of a reply (ctl-client.h) are first put in a
 * tree: each session with its processes, notices, channels (each with
 * its patterns) and aggregations, each process with its events; a record
 * whose parent is not in the reply stays at the top. Both renderers walk
 * that tree; neither reads any text of the daemon.
 */
#ifndef SHMTRACE_TOOLS_RENDER_H
#define SHMTRACE_TOOLS_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "ctl-client.h"
#include "jwrite.h"
#include "common/proto.h"

/* The version of the JSON documents (doc/json.md): a change of a field's
 * meaning or type, or a field removed, makes the next one. */
#define CTL_JSON_VERSION	1

enum ctl_format { CTL_TEXT, CTL_JSON };

/* --format's argument: 0, or -EINVAL (said, naming @verb). */
int ctl_format_parse(const char *verb, const char *arg, enum ctl_format *fmt);

/* A vector of records of one kind. */
struct rvec {
	const void **v;
	size_t n, cap;
};

struct rt_channel {
	const struct rec_channel *c;
	struct rvec en;			/* rec_enabler */
	struct rvec ex;			/* rec_exclusion of those */
};

struct rt_process {
	const struct rec_process *p;
	struct rvec ev;			/* rec_event */
};

struct rt_session {
	const struct rec_session *s;
	struct rvec procs;		/* struct rt_process */
	struct rvec notices;		/* rec_notice */
	struct rvec chans;		/* struct rt_channel */
	struct rvec aggs;		/* rec_agg */
	struct rvec tracks;		/* rec_track, per kind */
};

struct rtree {
	const struct rec_daemon *daemon;
	struct rvec sessions;		/* struct rt_session */
	/* records whose parent is not in the reply */
	struct rvec chans;		/* struct rt_channel */
	struct rvec enablers, notices, aggs, events;
	struct rvec excls;		/* rec_exclusion of the enablers at the top */
	struct rvec procs;		/* struct rt_process */
	struct rvec notes;		/* rec_error */
	const struct rec_snapshot *snapshot;
	const struct rec_rotation *rotation;
	const struct rec_error *error;
	struct rvec triggers;		/* rec_trigger */
	const struct rec_firing *firing;
};

/* The tree of @rep (its records borrowed: free @rep after @t). 0, or -ENOMEM. */
int rtree_build(const struct ctl_reply *rep, struct rtree *t);
void rtree_free(struct rtree *t);
/* The session named @name in @t (NULL: the only one), or NULL. */
const struct rt_session *rtree_session(const struct rtree *t, const char *name);

/* What a session's channels counted, summed: stop's and destroy's summary. */
struct rsummary {
	uint64_t recorded, discarded, overwritten, nobuf, wlost, unconfirmed, bytes, cleared;
	unsigned int channels;		/* with their counters */
	unsigned int missing;		/* without (the consumer did not answer) */
};
void rsummary_of(const struct rt_session *s, struct rsummary *sum);

/* The JSON of the records (for record's document). */
void json_session(struct jw *w, const struct rt_session *s, bool all);
void json_notice(struct jw *w, const struct rec_notice *n);
/*
 * An aggregation's definition as members of the object open in @w: keys,
 * functions, filter, capacity; with @none, keys and functions empty (a
 * function profile's, which the session daemon makes itself).
 */
void json_agg_def(struct jw *w, const struct rec_agg *a, bool none);
void json_summary(struct jw *w, const struct rt_session *s);

/*
 * Print the reply @rep to command @name (the verb's name), whose request
 * returned @ret (ctl_request()), as @fmt on @out; a refusal is said on
 * standard error too ("tracectl: NAME: ..."). Returns the exit status:
 * @ret, or EXIT_RUNTIME when the reply cannot be shown.
 */
int render_reply(const char *name, const struct ctl_reply *rep, int ret, enum ctl_format fmt,
		 FILE *out);

/* Why no reply came (@f), as the object of a document's "error". */
void json_fail(struct jw *w, const struct ctl_fail *f);
/* No reply came to command @name (@f, said already): its document, with "error". */
void json_no_reply(FILE *out, const char *cmd, const struct ctl_fail *f);

/* The refusal in @rep said on standard error, for command @name. */
void render_refusal(const char *name, const struct ctl_reply *rep);

/*
 * One request (ctl_request()) and its reply printed (render_reply()) on
 * standard output: the exit status.
 */
int ctl_call(const char *home, const char *name, enum proto_verb verb, const char *session,
	     const void *body, unsigned int nstr, const char *const *str, enum ctl_format fmt);

#endif
