/* SPDX-License-Identifier: MIT */
/*
 * session.h - sessions, their channels and enabled-event patterns, and the
 * slots every control page has (session.c).
 */
#ifndef SHMTRACE_SESSIOND_SESSION_H
#define SHMTRACE_SESSIOND_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/proto.h"
#include "common/shm.h"

#define DEFAULT_SUBBUF		(512u << 10)
#define DEFAULT_NUM_SUBBUF	16u
#define DEFAULT_POOL		10u
/*
 * Buffer memory a process may hold for a channel: 128 default buffers,
 * room for the threads alive at once and for the released buffers a
 * lagging consumer has not drained yet (10,000 short threads, 8 alive at
 * once, grew a pool to 63 under a loaded machine)
 */
#define DEFAULT_BUDGET		(1024ull << 20)
#define DEFAULT_FLUSH_MS	1000u

#define SESSION_MAX_NOTICES	64	/* distinct notices kept per session */
#define SESSION_MAX_ALLOW	16	/* uids of create --allow-uid */

struct aggregation;
struct relayctl;
struct notice;
struct reply;
struct session;

enum ll_kind { LL_ANY, LL_RANGE, LL_ONLY };

/*
 * Which processes a session records (track.c): per kind (PROTO_TRACK_*),
 * every one, or those whose pid, uid or executable is in its set.
 */
struct tracking {
	unsigned int some;		/* CMD_TRACK_* bits: kinds restricted to their set */
	uint32_t npid, nuid, nexe;
	uint32_t pid[PROTO_TRACK_MAX];
	uint32_t uid[PROTO_TRACK_MAX];
	char exe[PROTO_TRACK_EXE_MAX][PROTO_TRACK_EXE_LEN];	/* globs */
};	/* level <= L (as severe or more), == L */

struct enabler {
	char pattern[PROTO_EVNAME_MAX];
	enum ll_kind ll_kind;
	int loglevel;
	char *filter;			/* the expression, NULL = none */
	unsigned char *code;		/* its bytecode (filter.h) */
	uint32_t code_len;
	uint32_t nexcl;			/* exclusions (enable-event -x): events that */
	char (*excl)[PROTO_EVNAME_MAX];	/* ... match one are left out; NULL when none */
	struct enabler *next;
};

struct channel {
	uint64_t id;			/* unique across daemon restarts */
	unsigned int slot;		/* channel slot in every control page */
	char name[PROTO_NAME_MAX];
	uint32_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t pool_size;
	uint32_t mode;
	uint32_t flush_ms;
	uint32_t compress;		/* PROTO_COMPRESS_* */
	uint32_t context;		/* SHMTRACE__CTX_* (add-context) */
	uint64_t budget;		/* buffer memory a process may hold, bytes; 0: no limit */
	int disabled;			/* disable-channel: its patterns enable nothing */
	int unflushed;			/* the last stop could not write it out: */
	uint64_t unflushed_events;	/* ... events its buffers still held */
	uint64_t unflushed_buffers;	/* ... in so many buffers */
	uint64_t cleared;		/* events clear discarded (the consumer's counts) */
	struct enabler *enablers;	/* events recorded in this channel */
	struct enabler *combos;		/* filters of several patterns, or-ed */
	struct session *session;
	struct channel *next;		/* the session's channels */
};

struct session {
	char name[PROTO_NAME_MAX];
	int64_t created_s;		/* when created, s since the Epoch (0: unknown) */
	char output[PROTO_PATH_MAX];
	int output_default;		/* the daemon chose output (create gave none) */
	int active;
	int started;			/* was active once: stream layouts are fixed */
	int memory;			/* memory-only (create --snapshot): its channels
					 * overwrite and are written by snapshots only */
	uint32_t def_mode;		/* the default channel's, from create */
	unsigned int nsnapshots;
	unsigned int nrotations;	/* chunks closed so far */
	uint64_t rot_bytes;		/* automatic rotation: bytes per chunk, 0 = off */
	uint64_t rot_ms;		/* automatic rotation: chunk duration, 0 = off */
	uint64_t rot_last_ns;		/* when the current chunk began (monotonic) */
	uint32_t def_pool;
	struct channel *chans;
	struct notice *notices;		/* why processes were not traced (notice.c) */
	unsigned int nnotices;
	uint64_t notices_lost;		/* beyond SESSION_MAX_NOTICES */
	uint64_t notices_refused;	/* about another process than their sender's */
	int allow_all;			/* processes of any uid may register (allow.c) */
	unsigned int nallow;
	uid_t allow[SESSION_MAX_ALLOW];	/* ... or of these uids */
	struct tracking track;		/* ... of them, those it records (track.c) */
	uint64_t relay_id;		/* streamed to a relay (relayctl.c), 0: files */
	struct relayctl *net;		/* its address and state (relayctl.c) */
	uint32_t live_us;		/* live timer, 0: not live */
	size_t made_output;		/* start made the output directory from
					 * this prefix on (mkdir_p_made()) */
	int base_fd;			/* files: output[0, base_len), the part that
					 * existed at create, opened then: the rest is
					 * made under it without following a link */
	size_t base_len;
	struct aggregation *aggs;
	int flush_err;			/* -EIO: the last stop could not write everything out */
	char flush_msg[512];		/* which channels, how many events (logged) */
	int agg_werr;			/* aggregations.json not written at the last stop */
	char agg_msg[PROTO_PATH_MAX + 128];	/* why */
	struct session *next;
};

/* The sessions, and the slots of every control page their channels and aggregations hold. */
struct sessions {
	struct session *list;		/* newest first */
	struct channel *chan[SHM_MAX_CHAN];
	struct aggregation *agg[SHM_MAX_AGG];
	uint64_t next_id;		/* the last channel or aggregation id given */
};

extern struct sessions ss;

/* The daemon's first ids: after every id a daemon before us may have given. */
void sessions_init(void);
/* The channel slots that record the event, and the filter of each. */
unsigned int session_mask(const char *event_name, int loglevel,
			  const struct enabler *filter[SHM_MAX_CHAN]);
struct session *session_by_name(const char *name);
/* Does an enabled channel of @s record event @name of @loglevel (filters aside)? */
int session_records(const struct session *s, const char *name, int loglevel);
int session_open_base(struct session *s);
/* The output's marker of an active session (PROTO_ACTIVE_MARKER), made and removed. */
void marker_make(struct session *s);
void marker_remove(struct session *s);
/* Tell the consumer of @ch: the -errno of its reply. */
int channel_to_consumer(const struct channel *ch);
struct channel *channel_find(const struct session *s, const char *name);
/* A new channel of @s in a free slot, known to the consumer; NULL and *@err (-EBUSY: no slot). */
struct channel *channel_new(struct session *s, const struct channel *want, int *err);
void channel_defaults(const struct session *s, struct channel *ch, const char *name);
/* The buffers a process may hold for @ch: its budget over the bytes of a
 * buffer's sub-buffers (header aside), at least 1; 0: no limit. */
uint32_t channel_max_buffers(const struct channel *ch);
/* Does an exclusion of @e take event @name? (it then does not enable it) */
int enabler_excludes(const struct enabler *e, const char *name);
/* @n exclusions @excl as @e's: 0, or -ENOMEM. */
int excl_set(struct enabler *e, const char *const *excl, uint32_t n);
/* Compile @expr into @e's filter; on error, @err says what and where. */
int filter_set(struct enabler *e, const char *expr, char *err, size_t errlen);
/* The same for a command: 0, or the failure (RE_FILTER...) in @r. */
int filter_make(struct reply *r, struct enabler *e, const char *expr);
void enabler_free_parts(struct enabler *e);
void enabler_free(struct enabler *e);
void enablers_free(struct enabler *e);

#endif
