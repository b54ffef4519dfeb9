/* SPDX-License-Identifier: MIT */
/*
 * sessiond.h - the session daemon's state.
 *
 * The daemon is single-threaded: one epoll loop serves the listening
 * socket, the traced processes' sockets, tracectl connections and signals.
 * It talks to the consumer daemon synchronously (request, then reply), so
 * that an event's description is in the consumer's metadata before any
 * control page enables the event.
 *
 * Traced processes (struct app) are found by key in liburcu's lock-free
 * hash tables (memb flavour), so that a message, an exit or a registration
 * costs the same with ten processes or thousands: by socket (every
 * message), by pidfd (a detached process's exit) and by pid (its image at
 * registration, its marker in the sweep). The main thread, the only one that reads or changes
 * them, is a registered RCU reader and holds the read lock for each
 * lookup's walk; an app it finds stays valid after, since only that
 * thread removes apps. A removed app's memory is freed by call_rcu after
 * a grace period, as the tables require (its descriptors and mappings are
 * closed at once); a node taken out of a table goes back in only after a
 * grace period. Every app is also on the plain list sd.apps, newest
 * first, for what visits them all (updates, replay, status): those walks
 * call the consumer and remove apps as they go, which must not happen
 * inside a read-side critical section.
 */
#ifndef SHMTRACE_SESSIOND_H
#define SHMTRACE_SESSIOND_H

#include <stdint.h>
#include <sys/types.h>
#include <urcu/urcu-memb.h>
#include <urcu/rculfhash.h>
#include "proto.h"
#include "shm.h"

struct session;

enum ll_kind { LL_ANY, LL_RANGE, LL_ONLY };	/* level <= L (as severe or more), == L */

struct enabler {
	char pattern[PROTO_EVNAME_MAX];
	enum ll_kind ll_kind;
	int loglevel;
	char *filter;			/* the expression, NULL = none */
	unsigned char *code;		/* its bytecode (filter.h) */
	uint32_t code_len;
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
	struct enabler *enablers;	/* events recorded in this channel */
	struct enabler *combos;		/* filters of several patterns, or-ed */
	struct session *session;
	struct channel *next;		/* the session's channels */
};

/* A notice of a traced process (MSG_APP_NOTICE), kept by every active session. */
struct notice {
	uint32_t kind;			/* enum proto_notice */
	uint32_t pid;			/* the first process it was about */
	uint32_t uid;
	uint32_t old_uid;
	uint64_t count;			/* the same kind, uid and path again */
	char *path;			/* control characters replaced */
	struct notice *next;
};

#define SESSION_MAX_NOTICES	64	/* distinct notices kept per session */
#define SESSION_MAX_ALLOW	16	/* uids of create --allow-uid */

struct netout;

/* An aggregation (aggcmd.c): in slot `slot` of every control page while its session is active. */
struct aggregation {
	uint64_t id;			/* unique across daemon restarts */
	unsigned int slot;
	char name[PROTO_NAME_MAX];
	struct enabler ev;		/* its event pattern and filter */
	uint32_t capacity;		/* keys of a thread's table, a power of two */
	uint32_t flags;			/* SHM_AGG_* */
	uint32_t nnames;
	struct agg_def def;		/* fields index names[] */
	char names[SHM_AGG_NAMES][SHM_AGG_NAME];
	struct session *session;
	struct aggregation *next;	/* the session's, newest first */
};

struct session {
	char name[PROTO_NAME_MAX];
	char output[PROTO_PATH_MAX];
	int active;
	int started;			/* was active once: stream layouts are fixed */
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
	uint64_t relay_id;		/* streamed to a relay (netout.c), 0: files */
	struct netout *net;		/* its address and state (netout.c) */
	uint32_t live_us;		/* live timer, 0: not live */
	size_t made_output;		/* start made the output directory from
					 * this prefix on (mkdir_p_made()) */
	int base_fd;			/* files: output[0, base_len), the part that
					 * existed at create, opened then: the rest is
					 * made under it without following a link */
	size_t base_len;
	struct aggregation *aggs;
	int flush_err;			/* -EIO: the last stop could not write everything out */
	char flush_msg[512];		/* which channels, how many events */
	int agg_werr;			/* aggregations.json not written at the last stop */
	char agg_msg[PROTO_PATH_MAX + 128];	/* why */
	struct session *next;
};

struct app_event {
	struct proto_event desc;
	int known;
};

struct app_seg {
	struct msg_segment msg;
	int fd;
};

struct app_aggseg {
	struct msg_agg_seg msg;
	int fd;
};

/* app.bell_lost: why app_ring() did not send the doorbell, each said once */
#define APP_BELL_LOST		1	/* the handler is gone (changed behind our back) */
#define APP_BELL_BLOCKED	2	/* every thread blocked it, once at least */

struct app {
	uint64_t id;
	pid_t pid;
	uid_t uid;
	int sock;
	int signo;
	uint32_t clock;
	uint64_t starttime;
	char procname[PROTO_PROCNAME];
	uint64_t instance;		/* its process image (registration) */
	dev_t ctl_dev;			/* its control page's memfd */
	ino_t ctl_ino;
	int ctl_fd;
	int proc_fd;
	int efd;			/* its wake socket, for the consumer */
	int pidfd;			/* -1, or watched while detached */
	int detached;			/* its connection closed while it runs */
	unsigned int reattached;	/* times it registered again */
	int bell_lost;			/* APP_BELL_*: what app_ring() found and logged */
	int blind;			/* taken over, its events not known yet: its
					 * control page is left as it is (app_update()) */
	struct shm_ctl_page *ctl;	/* read-write mapping */
	const struct shm_proc_page *proc; /* read-only mapping */
	struct app_event *ev;		/* indexed by event id */
	uint32_t nev;
	struct app_seg *segs;
	uint32_t nsegs;
	struct app_aggseg *aggsegs;	/* its aggregation segments */
	uint32_t naggsegs;
	struct cds_lfht_node by_sock;	/* in sd.by_sock while sock >= 0 */
	int sock_gp;			/* by_sock left its table: a grace period first */
	struct cds_lfht_node by_pidfd;	/* in sd.by_pidfd while pidfd >= 0 */
	struct cds_lfht_node by_pid;	/* in sd.by_pid, always */
	struct rcu_head rcu;		/* freed after a grace period */
	struct app *next, **pprev;	/* sd.apps */
};

struct sessiond {
	char home[1024];
	int epfd;
	int listen_fd;
	int app_listen_fd;		/* the application socket (allow.c), -1 when closed */
	int sig_fd;
	int consumer_fd;		/* -1 when the consumer is down */
	pid_t consumer_pid;
	int consumer_pidfd;		/* one we took over (not our child), else -1 */
	uint64_t next_app_id;
	uint64_t next_chan_id;
	struct session *sessions;
	struct channel *chan[SHM_MAX_CHAN];
	struct aggregation *agg[SHM_MAX_AGG];
	struct app *apps;		/* every app, newest first */
	struct app *gone;		/* gone while no consumer ran (app_remove()) */
	struct cds_lfht *by_sock;	/* apps by socket, */
	struct cds_lfht *by_pidfd;	/* ... by pidfd, */
	struct cds_lfht *by_pid;	/* ... by pid (and image) */
	int quit;
};

extern struct sessiond sd;

/* consumer.c */
/* Find the consumer's program and start it. */
void consumer_init(void);
/* A request, and its reply's status; -EPIPE when there is no consumer (any more). */
int consumer_callv(unsigned int type, const void *b1, size_t l1, const void *b2, size_t l2,
		   const int *fds, int nfds, void *reply, size_t reply_len);
int consumer_call(unsigned int type, const void *body, size_t len, const int *fds, int nfds,
		  void *reply, size_t reply_len);
/* A consumer now (a new one, given everything, if need be); 0 or -EPIPE. */
int consumer_revive(void);
/* Reap a consumer that exited; start another when none runs (once a second at most). */
void consumer_check(void);
/* Milliseconds until consumer_check() may start one, at most @max; @max while one runs. */
int consumer_wait_ms(int max);
/* Is @fd the pidfd of the consumer we took over? Then it exited: 1, handled. */
int consumer_event(int fd);
/* The consumer told we leave, and waited for. */
void consumer_fini(void);

/* sessiond.c */
/* The descriptor limit was met (EMFILE): from now on new processes are refused. */
void fds_exhausted(void);
/* Is process @pid, new, to be refused for want of descriptors? 1: yes, said in the log. */
int fds_refuse(pid_t pid);
/* For tracectl status: the processes refused so far, when any. */
void fds_status(int fd);
/* accept() a connection on listening socket @lfd (@which: 1 main, 2 application), or -1. */
int accept_conn(int lfd, int which);

/* app.c */
int apps_init(void);
void apps_fini(void);
int app_accept(int fd, const void *body, size_t len, const int *fds);
int app_message(struct app *a);
void app_messages(struct app *a);
void app_remove(struct app *a);
void app_closed(struct app *a);
struct app *app_by_pidfd(int fd);
void app_update(struct app *a, int ring);
void apps_update_all(void);
void apps_poll_all(void);
void apps_replay(void);
void apps_gone_fini(void);
/* A process the consumer we took over drains (MSG_C_ADOPT_APP): 0, or -errno (fds closed). */
int app_adopt(const struct msg_c_app *m, const int *fds);
/* The processes taken over: asked to register (a new control generation, the doorbell). */
void apps_adopted(void);
/* Events committed in channel @chan_id's buffers not yet consumed (at most), in *@bufs buffers. */
uint64_t apps_pending(uint64_t chan_id, uint64_t *bufs);
/* stale markers of processes that are gone are looked for this often */
#define MARKER_SWEEP_MS	2000
void apps_markers(int ring);
void apps_forget_channel(uint64_t chan_id);
struct app *app_by_sock(int fd);
/* Append @e's filter code to @fl: its number (1..255), or 0 when it does not fit. */
unsigned int ctl_filter_add(struct shm_ctl_filters *fl, const struct enabler *e);

/* session.c */
#define DEFAULT_SUBBUF		(512u << 10)
#define DEFAULT_NUM_SUBBUF	16u
#define DEFAULT_POOL		10u
#define DEFAULT_FLUSH_MS	1000u
void sessions_tick(void);
int sessions_tick_ms(void);
unsigned int session_mask(const char *event_name, int loglevel,
			  const struct enabler *filter[SHM_MAX_CHAN]);
void sessions_shutdown(void);
int channel_to_consumer(const struct channel *ch);
int filter_set(struct enabler *e, const char *expr, char *err, size_t errlen);
struct session *session_by_name(const char *name);
struct channel *channel_find(const struct session *s, const char *name);
/* A new channel of @s in a free slot, known to the consumer; NULL replied. */
struct channel *channel_new(int fd, struct session *s, const struct channel *want);
void channel_defaults(const struct session *s, struct channel *ch, const char *name);
void marker_make(struct session *s);
int session_open_base(struct session *s);
void session_stop(struct session *s);
void session_destroy(struct session *s);
int session_rotate(struct session *s);
void enabler_free_parts(struct enabler *e);
void enabler_free(struct enabler *e);
void enablers_free(struct enabler *e);

/* state.c */
/* The sessions saved in the home, after a change. */
void state_save(void);
/* The sessions a daemon before us saved: their number, or -errno (none taken). */
int state_load(void);

/* cmd.c */
int session_command(int fd, const char *body, size_t len);

/* aggcmd.c */
int cmd_aggregate(int fd, struct session *s, const struct proto_cmd *c);
int cmd_disable_agg(int fd, struct session *s, const struct proto_cmd *c);
int cmd_show_agg(int fd, struct session *s, const struct cmd_show_agg *c);
void aggs_status(int fd, const struct session *s);
int aggs_write(const struct session *s, char *msg, size_t len);
void aggs_free(struct session *s);
void aggs_masks(const struct app *a, struct shm_ctl_agg *slots, uint8_t *aggen,
		struct shm_ctl_filters *fl);
int app_agg_seg(struct app *a, const struct msg_agg_seg *m, int fd);
void apps_forget_agg(uint64_t id);
void aggs_replay(void);
/* The consumer taken over has aggregations @ids: ours it lacks given, the others deleted. */
void aggs_reconcile(const uint64_t *ids, uint32_t n);
void app_aggs_replay(const struct app *a);

/* notice.c */
int app_notice(struct app *a, const char *body, size_t len);
void notices_free(struct session *s);
void notices_status(int fd, const struct session *s);
int cmd_notices(int fd, const struct session *s);
int cmd_processes(int fd);

/* allow.c */
int allow_create(int fd, struct session *s, const struct cmd_create *c);
int allow_uid(const struct session *s, uid_t uid);
unsigned int allow_chan_mask(uid_t uid);
void allow_update(void);
int allow_accept(void);
void allow_first(int fd);
void allow_status(int fd, const struct session *s);

/* netout.c */
int netout_create(int fd, struct session *s, const struct cmd_create *cr, const char *stamp);
int netout_check(int fd, const struct session *s);
void netout_close(struct session *s);
void netout_replay(void);
int netout_ok(const struct session *s);
int netout_error(int fd, const struct session *s, char *msg, size_t len);

/* reply helpers */
int reply_text(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int reply_end(int fd, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
