/* SPDX-License-Identifier: MIT */
/*
 * proto.h - the wire protocol between traced processes, tracectl, the
 * session daemon and the consumer daemon. doc/protocol.md has the tables.
 *
 * All sockets are AF_UNIX SOCK_SEQPACKET, so one send is one message. A
 * message is a 16-byte header then a body whose fixed part depends on the
 * type; file descriptors travel with SCM_RIGHTS. Every integer has a fixed
 * width, native byte order (peers are on the same machine). A receiver
 * checks magic, version, that `size` equals the number of bytes received
 * and is at least the fixed body of the type, and the number of
 * descriptors, before it looks at the body.
 */
#ifndef SHMTRACE_COMMON_PROTO_H
#define SHMTRACE_COMMON_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_MAGIC		0x544d4853u	/* "SHMT" */
#define PROTO_VERSION		1
#define PROTO_MAX_MSG		65536u
#define PROTO_MAX_FDS		4
#define PROTO_NAME_MAX		64		/* session and channel names */
#define PROTO_PATH_MAX		4096
#define PROTO_PROCNAME		16
/*
 * Kept by the session daemon in a session's output directory while the
 * session is active: "PID FLUSH_MS\n" (its pid, the longest flush
 * interval of the session's channels), for readers that follow it.
 */
#define PROTO_ACTIVE_MARKER	".shmtrace-active"

enum proto_type {
	/* traced process -> session daemon, no reply */
	MSG_APP_REGISTER = 1,		/* fds: control page, process page, wake socket */
	MSG_APP_EVENTS = 2,
	MSG_APP_SEGMENT = 3,		/* fd: segment */
	MSG_APP_SYNC = 4,		/* reply MSG_REPLY, same body, once all before it is done */
	MSG_APP_NOTICE = 6,		/* a program it runs, or itself, will not be traced */
	MSG_APP_AGG_SEG = 7,		/* fd: aggregation segment */
	/* tracectl -> session daemon; replies MSG_REPLY_ITEM..., MSG_REPLY */
	MSG_CMD = 16,
	/* session daemon -> consumer daemon; reply MSG_REPLY */
	MSG_C_CHANNEL_ADD = 32,		/* fd: the output's deepest directory at create */
	MSG_C_CHANNEL_DEL = 33,
	MSG_C_FLUSH = 34,
	MSG_C_APP_ADD = 35,		/* fds: process page, wake socket, control page */
	MSG_C_APP_DEL = 36,
	MSG_C_EVENTS = 37,
	MSG_C_SEGMENT = 38,		/* fd: segment */
	MSG_C_STATS = 39,		/* reply MSG_C_STATS_REPLY */
	MSG_C_SNAPSHOT = 40,
	MSG_C_ROTATE = 41,		/* body struct msg_c_snapshot: chunk dir */
	MSG_C_RELAY_ADD = 42,		/* fds: relay control and data sockets */
	MSG_C_RELAY_DEL = 43,		/* body struct msg_c_id */
	MSG_C_RELAY_CHECK = 44,		/* body struct msg_c_id; status: streaming? */
	MSG_C_AGG_ADD = 45,		/* body struct msg_c_agg */
	MSG_C_AGG_DEL = 46,		/* body struct msg_c_id */
	MSG_C_AGG_SEG = 47,		/* body struct msg_agg_seg; fd: the segment */
	MSG_C_AGG_SHOW = 48,		/* body struct msg_c_agg_show; fd: write there */
	/*
	 * A session daemon takes over a consumer that outlived the daemon
	 * before it (on the consumer's own socket, consumerd.sock): the reply
	 * is one MSG_C_ADOPT_APP per traced process, then MSG_C_ADOPT_END.
	 */
	MSG_C_ADOPT = 49,		/* body struct msg_c_adopt */
	MSG_C_CLEAR = 50,		/* body struct msg_c_id; reply MSG_C_CLEAR_REPLY */
	/* replies */
	MSG_REPLY = 64,			/* status in the header; ends a reply */
	/* 65 was a reply of text: no longer sent, refused */
	MSG_C_STATS_REPLY = 66,
	MSG_REPLY_FD = 67,		/* fd: text to print (read from offset 0), more follows */
	MSG_C_ADOPT_APP = 68,		/* body struct msg_c_app; fds as MSG_C_APP_ADD */
	MSG_C_ADOPT_END = 69,		/* body struct msg_c_adopt_end; status */
	MSG_REPLY_ITEM = 70,		/* body struct msg_item, then a record; more follows */
	/* traced process -> session daemon, no reply, no body: look at the
	 * firings of the process page's trigger area */
	MSG_APP_TRIGGER = 71,
	/* session daemon -> consumer daemon: which keys of an aggregation
	 * meet a condition; body struct msg_c_agg_eval, fd: write them there */
	MSG_C_AGG_EVAL = 72,
	MSG_C_CLEAR_REPLY = 73,		/* body struct msg_c_clear_reply; status */
};

struct proto_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t size;			/* header + body, bytes */
	int32_t status;			/* replies: 0 or -errno */
};
_Static_assert(sizeof(struct proto_hdr) == 16, "proto hdr");

struct msg_app_register {
	uint32_t pid;
	uint32_t ppid;
	uint32_t uid;
	uint32_t signo;			/* doorbell signal, 0 = none */
	uint32_t abi;			/* SHMTRACE_ABI_VERSION */
	uint32_t max_events;
	uint32_t max_chan;
	uint32_t clock;			/* CLOCK_KIND_* of its timestamps */
	uint64_t starttime;		/* /proc/pid/stat field 22 */
	char procname[PROTO_PROCNAME];
	uint64_t instance;		/* random, per process image: the same
					 * (pid, starttime, instance) registering
					 * again continues its trace */
};
_Static_assert(sizeof(struct msg_app_register) == 64, "register");
_Static_assert(offsetof(struct msg_app_register, instance) == 56, "register instance");

/*
 * Event descriptions (MSG_APP_EVENTS, MSG_C_EVENTS): a count, then packed
 * records, each
 *   u32 id, s32 loglevel, u16 nfields, u16 namelen, name[namelen]
 *   then nfields times: u32 type, u16 namelen, name[namelen]
 * Names are not NUL-terminated on the wire; the event name is
 * "provider:event".
 */
struct msg_events {
	uint64_t app_id;		/* MSG_C_EVENTS only */
	uint32_t count;
	uint32_t reserved;
};
_Static_assert(sizeof(struct msg_events) == 16, "events");

#define PROTO_EVNAME_MAX	256
#define PROTO_FIELDNAME_MAX	64
#define PROTO_MAX_FIELDS	16

struct proto_field {
	uint32_t type;
	char name[PROTO_FIELDNAME_MAX];
};

struct proto_event {
	uint32_t id;
	int32_t loglevel;
	uint32_t nfields;
	char name[PROTO_EVNAME_MAX];
	struct proto_field fields[PROTO_MAX_FIELDS];
};

struct msg_sync {
	uint64_t seq;
};

struct msg_segment {
	uint64_t app_id;		/* MSG_C_SEGMENT only */
	uint64_t chan_id;
	uint64_t size;
	uint32_t chan_slot;
	uint32_t seg_index;
	uint32_t first_slot;
	uint32_t nslots;
	uint32_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t context;		/* SHMTRACE__CTX_* its writers add */
	uint32_t reserved;
};
_Static_assert(sizeof(struct msg_segment) == 56, "segment");

/*
 * MSG_APP_NOTICE: why a process will not be traced, from the process that
 * knows it: the exec of a program that cannot load libshmtrace or will not
 * reach the daemon, or its own change of effective uid. Sent before the
 * exec (an exec that then fails leaves its notice). The body is this
 * fixed part then @path_len bytes of path, NUL-terminated, nothing after.
 */
#define PROTO_NOTICE_VERSION	1
enum proto_notice {
	NOTICE_STATIC = 1,		/* statically linked: no loader, no LD_PRELOAD */
	NOTICE_FOREIGN,			/* not an x86-64 ELF program: libshmtrace cannot load */
	NOTICE_SETUID,			/* secure mode (the loader drops LD_PRELOAD): set-user-ID */
	NOTICE_SETGID,			/* ... set-group-ID */
	NOTICE_CAPS,			/* ... file capabilities */
	NOTICE_IDS,			/* ... effective ids that are not the real ones */
	NOTICE_NO_PRELOAD,		/* its environment has no libshmtrace in LD_PRELOAD */
	NOTICE_EXEC_UID,		/* it runs as another uid than the process started with */
	NOTICE_UID_CHANGE,		/* the process changed its effective uid */
	NOTICE_MAX
};

struct msg_app_notice {
	uint32_t version;		/* PROTO_NOTICE_VERSION */
	uint32_t kind;			/* enum proto_notice */
	uint32_t pid;			/* the process: the sender, or its vfork child */
	uint32_t uid;			/* effective uid the program runs with (UID_CHANGE: new) */
	uint32_t old_uid;		/* the effective uid the process started with (before) */
	uint32_t path_len;		/* bytes of path that follow, NUL included */
};
_Static_assert(sizeof(struct msg_app_notice) == 24, "notice");

enum proto_verb {
	VERB_CREATE = 1, VERB_DESTROY, VERB_ENABLE_EVENT, VERB_DISABLE_EVENT,
	VERB_START, VERB_STOP, VERB_LIST, VERB_LIST_EVENTS, VERB_STATUS,
	VERB_PING, VERB_ENABLE_CHANNEL, VERB_SNAPSHOT, VERB_ROTATE, VERB_ADD_CONTEXT,
	VERB_NOTICES,			/* 15: the session and its notices (REC_NOTICE) */
	VERB_PROCESSES,			/* 16: every registered process (REC_PROCESS) */
	VERB_AGGREGATE,			/* 17: struct cmd_aggregate [, its filter] */
	VERB_DISABLE_AGG,		/* 18: NAME... */
	VERB_SHOW_AGG,			/* 19: struct cmd_show_agg */
	VERB_ADD_TRIGGER,		/* 20: struct cmd_trigger [, its filter] */
	VERB_LIST_TRIGGERS,		/* 21: - */
	VERB_REMOVE_TRIGGER,		/* 22: NAME... */
	VERB_WAIT_TRIGGER,		/* 23: struct cmd_wait_trigger */
	VERB_DISABLE_CHANNEL,		/* 24: CHANNEL... */
	VERB_REGENERATE,		/* 25: struct cmd_regenerate */
	VERB_TRACK,			/* 26: struct cmd_track, exe globs */
	VERB_UNTRACK,			/* 27: struct cmd_track, exe globs */
	VERB_CLEAR,			/* 28: what the session recorded, discarded */
	VERB_MAX
};

/*
 * MSG_CMD (tracectl -> session daemon): struct msg_cmd, then the verb's
 * own body (the struct cmd_* the verb names below, exactly body_size =
 * sizeof it bytes; none for the verbs without one), then nstr
 * NUL-terminated strings, packed, nothing after the last. Every char
 * array of a body holds a NUL; proto_cmd_decode() checks it all.
 *
 *   verb                  body                 strings
 *   create                cmd_create           -
 *   destroy start stop    -                    -
 *   list list-events      -                    -
 *   status ping notices   -                    -
 *   processes             -                    -
 *   enable-channel        cmd_channel          -
 *   enable-event          cmd_events           [filter] [exclusion...] pattern...
 *                                              (1 to 255 patterns; a filter's text
 *                                              < PROTO_FILTER_MAX; nexclude exclusions)
 *   disable-event         cmd_events           pattern...           (no condition)
 *   add-context           cmd_context          -
 *   rotate                cmd_rotate           -
 *   snapshot              cmd_snapshot         -
 *   clear                 -                    -
 *   aggregate             cmd_aggregate        [filter]
 *   disable-aggregation   -                    name...              (1 to 255)
 *   show-aggregations     cmd_show_agg         -
 *   add-trigger           cmd_trigger          [filter]
 *   list-triggers         -                    -
 *   remove-trigger        -                    name...              (1 to 255)
 *   wait-trigger          cmd_wait_trigger     -
 *   disable-channel       -                    channel...           (1 to 255)
 *   regenerate            cmd_regenerate       -
 *   track untrack         cmd_track            exe glob...          (0 to 16)
 */
#define PROTO_CMD_MAX_STR	256

struct msg_cmd {
	uint32_t verb;			/* enum proto_verb */
	uint32_t body_size;		/* bytes of the verb's body */
	uint32_t nstr;			/* strings after it */
	uint32_t reserved;
	char session[PROTO_NAME_MAX];	/* "" = the default session */
};
_Static_assert(sizeof(struct msg_cmd) == 80, "cmd");

#define PROTO_URL_MAX		256
#define PROTO_ALLOW_MAX		16

/* cmd_create.flags */
#define CMD_CREATE_MEMORY	(1u << 0)	/* memory-only: written by snapshots only */

struct cmd_create {
	char output[PROTO_PATH_MAX];	/* absolute, "" = under the home */
	uint32_t mode;			/* SHM_MODE_* of its channels */
	uint32_t pool_size;		/* buffers per process at first, 0 = default */
	uint32_t allow_all;		/* processes of every uid too */
	uint32_t nallow;		/* ... or of these uids */
	uint32_t allow[PROTO_ALLOW_MAX];
	uint32_t live;			/* a live session (streamed) */
	uint32_t live_us;		/* its period, 0 = the default */
	char set_url[PROTO_URL_MAX];	/* "net://HOST[:C[:D]]", "" = none */
	char ctrl_url[PROTO_URL_MAX];	/* "tcp://HOST:PORT" */
	char data_url[PROTO_URL_MAX];
	uint32_t flags;			/* CMD_CREATE_* */
	uint32_t reserved;
};
_Static_assert(sizeof(struct cmd_create) == PROTO_PATH_MAX + 96 + 3 * PROTO_URL_MAX,
	       "cmd create");
_Static_assert(offsetof(struct cmd_create, flags) == PROTO_PATH_MAX + 88 + 3 * PROTO_URL_MAX,
	       "cmd create flags");

/* cmd_channel.set: the settings given (the others keep their defaults) */
#define CMD_CHAN_SUBBUF		(1u << 0)
#define CMD_CHAN_NUM		(1u << 1)
#define CMD_CHAN_MODE		(1u << 2)
#define CMD_CHAN_FLUSH		(1u << 3)
#define CMD_CHAN_POOL		(1u << 4)
#define CMD_CHAN_COMPRESS	(1u << 5)
#define CMD_CHAN_BUDGET		(1u << 6)

struct cmd_channel {
	char name[PROTO_NAME_MAX];
	uint32_t set;			/* CMD_CHAN_* */
	uint32_t subbuf_size;		/* bytes */
	uint32_t num_subbuf;
	uint32_t mode;			/* SHM_MODE_* */
	uint32_t flush_ms;		/* 0 = never */
	uint32_t pool_size;
	uint32_t compress;		/* PROTO_COMPRESS_* */
	uint32_t budget_kib;		/* buffer memory a process may hold, KiB; 0: no limit */
};
_Static_assert(sizeof(struct cmd_channel) == PROTO_NAME_MAX + 32, "cmd channel");

/* cmd_events.ll_kind */
#define CMD_LL_ANY		0
#define CMD_LL_RANGE		1	/* loglevel or more severe */
#define CMD_LL_ONLY		2	/* exactly loglevel */

struct cmd_events {
	char channel[PROTO_NAME_MAX];	/* "" = channel0 (made at its first use) */
	uint32_t ll_kind;		/* CMD_LL_* */
	uint32_t loglevel;		/* 0 (emerg) to 7 (debug) */
	uint32_t filter;		/* 1: the first string is a filter */
	uint32_t nexclude;		/* enable-event: exclusions after the filter (-x), at
					 * most PROTO_EXCLUDE_MAX; disable-event: 0 */
};
_Static_assert(sizeof(struct cmd_events) == PROTO_NAME_MAX + 16, "cmd events");
_Static_assert(offsetof(struct cmd_events, nexclude) == PROTO_NAME_MAX + 12, "cmd events excl");

/* Exclusions of one pattern (enable-event -x): patterns of the events it leaves out. */
#define PROTO_EXCLUDE_MAX	16

struct cmd_context {
	char channel[PROTO_NAME_MAX];	/* "" = every channel of the session */
	uint32_t context;		/* SHMTRACE__CTX_* to add, not 0 */
	uint32_t reserved;
};
_Static_assert(sizeof(struct cmd_context) == PROTO_NAME_MAX + 8, "cmd context");

/* cmd_rotate.set: none = rotate now; else set these from now on */
#define CMD_ROT_SIZE		(1u << 0)
#define CMD_ROT_EVERY		(1u << 1)

struct cmd_rotate {
	uint32_t set;			/* CMD_ROT_* */
	uint32_t reserved;
	uint64_t size;			/* bytes, 0 = off */
	uint64_t every_ms;		/* 0 = off */
};
_Static_assert(sizeof(struct cmd_rotate) == 24, "cmd rotate");

struct cmd_snapshot {
	char output[PROTO_PATH_MAX];	/* absolute, "" = next to the session's */
	uint64_t max_size;		/* bytes written at most, 0 = no bound */
};
_Static_assert(sizeof(struct cmd_snapshot) == PROTO_PATH_MAX + 8, "cmd snapshot");

#define CMD_AGG_FUNCS		8
#define CMD_AGG_KEYS		4
#define CMD_AGG_FIELD		64
#define CMD_AGG_PROFILE		(1u << 0)

struct cmd_agg_func {
	uint32_t fn;			/* enum agg_fn: count, sum, ..., lquantize */
	int32_t step;			/* lquantize */
	int64_t low, high;		/* lquantize */
	char field[CMD_AGG_FIELD];	/* "" for count */
};
_Static_assert(sizeof(struct cmd_agg_func) == 24 + CMD_AGG_FIELD, "cmd agg func");

struct cmd_aggregate {
	char name[PROTO_NAME_MAX];
	char pattern[PROTO_EVNAME_MAX];	/* "" with CMD_AGG_PROFILE */
	uint32_t flags;			/* CMD_AGG_* */
	uint32_t keys;			/* entries a thread's table holds, 0 = default */
	uint32_t filter;		/* 1: the string is a filter */
	uint32_t nkeys;
	uint32_t nfuncs;		/* 0: count */
	uint32_t reserved;
	char key[CMD_AGG_KEYS][CMD_AGG_FIELD];	/* "FIELD", "FIELD:str", "FIELD:int" */
	struct cmd_agg_func func[CMD_AGG_FUNCS];	/* in the order they print */
};
_Static_assert(sizeof(struct cmd_aggregate) == PROTO_NAME_MAX + PROTO_EVNAME_MAX + 24 +
	       CMD_AGG_KEYS * CMD_AGG_FIELD + CMD_AGG_FUNCS * sizeof(struct cmd_agg_func),
	       "cmd aggregate");

struct cmd_show_agg {
	char name[PROTO_NAME_MAX];	/* "" = all */
	uint32_t format;		/* PROTO_AGG_TEXT or PROTO_AGG_JSON */
	uint32_t reserved;
};
_Static_assert(sizeof(struct cmd_show_agg) == PROTO_NAME_MAX + 8, "cmd show agg");

/*
 * A condition on an aggregation's values (add-trigger --when), per key:
 * STAT OP VALUE. Parsed by tracectl and the session daemon
 * (support/aggcond.h), evaluated by the consumer over merged results.
 */
enum proto_agg_stat {
	AGGC_COUNT = 1,			/* the count function, or a histogram's total */
	AGGC_SUM, AGGC_MIN, AGGC_MAX, AGGC_AVG,
	AGGC_PCT,			/* a percentile of a quantize or lquantize */
	AGGC_MAX_STAT
};
enum proto_agg_op { AGGC_GT = 1, AGGC_GE, AGGC_LT, AGGC_LE, AGGC_EQ, AGGC_NE, AGGC_MAX_OP };

struct proto_agg_cond {
	uint32_t stat;			/* enum proto_agg_stat */
	uint32_t op;			/* enum proto_agg_op */
	uint32_t permille;		/* AGGC_PCT: 1..999 (p99 = 990, p99.9 = 999) */
	uint32_t func;			/* the aggregation's function it reads */
	int64_t value;			/* integers (durations in ns) */
	char field[32];			/* "" or the function's field: sum(F) */
};
_Static_assert(sizeof(struct proto_agg_cond) == 56, "agg cond");

/* cmd_trigger.kind */
#define CMD_TRIG_EVENT		1	/* --on-event PATTERN [--filter EXPR] */
#define CMD_TRIG_AGG		2	/* --on-aggregation AGG --when EXPR */

/* cmd_trigger.action */
#define CMD_ACT_SNAPSHOT	1	/* snapshot-session SESSION */
#define CMD_ACT_START		2	/* start-session SESSION */
#define CMD_ACT_STOP		3	/* stop-session SESSION */
#define CMD_ACT_ROTATE		4	/* rotate-session SESSION */
#define CMD_ACT_NOTIFY		5	/* notify: wait-trigger and the log */

#define PROTO_WHEN_MAX		128	/* --when's text, NUL included */

struct cmd_trigger {
	char name[PROTO_NAME_MAX];
	uint32_t kind;			/* CMD_TRIG_* */
	uint32_t action;		/* CMD_ACT_* */
	char action_session[PROTO_NAME_MAX];	/* "" for notify */
	char pattern[PROTO_EVNAME_MAX];	/* CMD_TRIG_EVENT */
	uint32_t filter;		/* 1: the string is a filter */
	uint32_t policy;		/* SHM_TRIG_EVERY, SHM_TRIG_ONCE_AFTER */
	uint64_t n;			/* its N, >= 1 */
	char agg_session[PROTO_NAME_MAX];	/* CMD_TRIG_AGG: the aggregation's session */
	char agg[PROTO_NAME_MAX];	/* ... and name */
	char when[PROTO_WHEN_MAX];	/* ... the condition as written */
	uint64_t every_ms;		/* ... evaluated this often, 0: 1 s */
};
_Static_assert(sizeof(struct cmd_trigger) == 4 * PROTO_NAME_MAX + PROTO_EVNAME_MAX + 24 +
	       PROTO_WHEN_MAX + 8, "cmd trigger");

struct cmd_wait_trigger {
	char name[PROTO_NAME_MAX];
	uint64_t timeout_ms;		/* 0: none */
};
_Static_assert(sizeof(struct cmd_wait_trigger) == PROTO_NAME_MAX + 8, "cmd wait trigger");

/* What regenerate makes again (cmd_regenerate.what). */
#define PROTO_REGEN_STATEDUMP	1	/* every process's state dump */

struct cmd_regenerate {
	uint32_t what;			/* PROTO_REGEN_* */
	uint32_t reserved;
};
_Static_assert(sizeof(struct cmd_regenerate) == 8, "cmd regenerate");

/*
 * Which processes a session records (track, untrack): per kind (pid, uid,
 * executable), every process, or those of a set. PROTO_TRACK_* number the
 * kinds; CMD_TRACK_* are their bits.
 */
#define PROTO_TRACK_PID		1
#define PROTO_TRACK_UID		2
#define PROTO_TRACK_EXE		3
#define CMD_TRACK_BIT(kind)	(1u << ((kind) - 1))
#define CMD_TRACK_KINDS		7u	/* every kind's bit */
#define PROTO_TRACK_MAX		64	/* pids, uids of a set */
#define PROTO_TRACK_EXE_MAX	16	/* executable globs of a set */
#define PROTO_TRACK_EXE_LEN	256	/* bytes of a glob, NUL included */

struct cmd_track {
	uint32_t all;			/* CMD_TRACK_* bits: track: every process again
					 * (the default); untrack: none (an empty set) */
	uint32_t npid;			/* then these added (track) or removed (untrack) */
	uint32_t nuid;
	uint32_t reserved;		/* the globs are the strings */
	uint32_t pid[PROTO_TRACK_MAX];
	uint32_t uid[PROTO_TRACK_MAX];
};
_Static_assert(sizeof(struct cmd_track) == 16 + 8 * PROTO_TRACK_MAX, "cmd track");

union cmd_body {
	struct cmd_create create;
	struct cmd_channel channel;
	struct cmd_events events;
	struct cmd_context context;
	struct cmd_rotate rotate;
	struct cmd_snapshot snapshot;
	struct cmd_aggregate aggregate;
	struct cmd_show_agg show_agg;
	struct cmd_trigger trigger;
	struct cmd_wait_trigger wait_trigger;
	struct cmd_regenerate regenerate;
	struct cmd_track track;
};

/* A MSG_CMD as proto_cmd_decode() found it. */
struct proto_cmd {
	uint32_t verb;
	char session[PROTO_NAME_MAX];
	union cmd_body b;		/* the verb's body (copied: aligned) */
	uint32_t nstr;
	const char *str[PROTO_CMD_MAX_STR];	/* in the message */
};

#define PROTO_COMPRESS_NONE	0
#define PROTO_COMPRESS_LZ4	1

/* msg_c_channel.flags */
#define PROTO_CHAN_MEMORY	(1u << 0)	/* memory-only: never drained, only snapshots */

struct msg_c_channel {
	uint64_t chan_id;
	uint32_t chan_slot;
	uint32_t flush_ms;		/* flush idle buffers this often, 0 = never */
	uint32_t mode;
	uint32_t compress;		/* PROTO_COMPRESS_*: stream files as LZ4 frames */
	uint64_t relay_id;		/* 0: files under output; else streamed there */
	uint32_t base_len;		/* the descriptor sent is output[0, base_len): the
					 * rest is made and opened under it, no link followed */
	uint32_t flags;			/* PROTO_CHAN_* */
	char name[PROTO_NAME_MAX];
	char output[PROTO_PATH_MAX];	/* session output directory */
	int64_t created_s;		/* the session's create, s since the Epoch; 0: unknown */
	char session[PROTO_NAME_MAX];	/* the session's name (the traces' trace_name) */
};
_Static_assert(sizeof(struct msg_c_channel) == 48 + 2 * PROTO_NAME_MAX + PROTO_PATH_MAX, "chan");
_Static_assert(offsetof(struct msg_c_channel, flags) == 36, "chan flags");
_Static_assert(offsetof(struct msg_c_channel, created_s) == 40 + PROTO_NAME_MAX + PROTO_PATH_MAX,
	       "chan created");

/*
 * A session streamed to a relay (MSG_C_RELAY_ADD, with the two connected
 * sockets, the relay session created on the control one): the consumer
 * adds streams under @base ("HOST/SESSION-DATE"), relative to the relay's
 * output directory. @live_us: the live timer, 0 when not live.
 */
struct msg_c_relay {
	uint64_t relay_id;
	uint32_t live_us;
	uint32_t reserved;
	char url[256];			/* for messages */
	char base[192];
};
_Static_assert(sizeof(struct msg_c_relay) == 464, "relay");

struct msg_c_app {
	uint64_t app_id;
	uint32_t pid;
	uint32_t clock;			/* CLOCK_KIND_* */
	char procname[PROTO_PROCNAME];
	uint64_t starttime;		/* its process image: start time (ticks since boot) */
	uint64_t instance;		/* ... and the random instance it registered with */
	uint32_t uid;			/* its credentials when it registered */
	uint32_t signo;			/* its doorbell signal, 0: none */
};
_Static_assert(sizeof(struct msg_c_app) == 56, "app");

#define PROTO_ADOPT_VERSION	1

struct msg_c_adopt {
	uint32_t version;		/* PROTO_ADOPT_VERSION */
	uint32_t reserved;
};
_Static_assert(sizeof(struct msg_c_adopt) == 8, "adopt");

/* What a consumer taken over holds besides its processes. */
struct msg_c_adopt_end {
	uint32_t napps;			/* MSG_C_ADOPT_APP sent before */
	uint32_t nchans;
	uint64_t chan_id[8];		/* its channels (SHM_MAX_CHAN at most) */
	uint32_t naggs;
	uint32_t reserved;
	uint64_t agg_id[8];		/* its aggregations (SHM_MAX_AGG at most) */
	uint64_t max_app_id;		/* the largest process id it was given */
};
_Static_assert(sizeof(struct msg_c_adopt_end) == 152, "adopt end");

struct msg_c_id {
	uint64_t id;			/* channel or app id */
};

/*
 * Write what a channel's buffers hold now into traces under @output, at
 * most @max_size bytes (0: no bound; MSG_C_ROTATE: 0).
 */
struct msg_c_snapshot {
	uint64_t chan_id;
	char output[PROTO_PATH_MAX];
	uint64_t max_size;
};
_Static_assert(sizeof(struct msg_c_snapshot) == 16 + PROTO_PATH_MAX, "snapshot");
_Static_assert(offsetof(struct msg_c_snapshot, max_size) == 8 + PROTO_PATH_MAX, "snapshot max");

/*
 * MSG_C_CLEAR's reply: per channel of the session cleared, the events it
 * discarded (written and removed, or dropped from memory-only buffers).
 */
struct msg_c_clear_reply {
	uint32_t nchans;
	uint32_t reserved;
	struct {
		uint64_t chan_id;
		uint64_t events;
	} chan[8];			/* SHM_MAX_CHAN at most */
};
_Static_assert(sizeof(struct msg_c_clear_reply) == 136, "clear reply");

struct msg_c_stats {
	uint64_t events;		/* events written to disk */
	uint64_t overwritten;		/* lost to overwrite mode */
	uint64_t discarded;
	uint64_t bytes;
	uint64_t streams;		/* stream files */
	uint64_t buffers;		/* buffer slots in the processes' pools */
	uint64_t nobuf;			/* events lost for want of any buffer */
	uint64_t wlost;			/* events lost to write errors */
	uint64_t unconfirmed;		/* of events sent, those the relay had not
					 * confirmed storing when it went away */
	uint32_t liars;			/* processes whose counters were not believed */
	uint32_t liar_pid;		/* ... the first of them */
	uint64_t damaged;		/* events of ranges that were not whole events */
	uint32_t damaged_streams;	/* streams closed for it (or for corrupt counters) */
	uint32_t damaged_pid;		/* ... the first one's process */
	uint32_t werr_traces;		/* traces that met a write error */
	int32_t werr;			/* the channel's first write error: errno, 0 none */
	char werr_path[PROTO_PATH_MAX];	/* the file or directory it concerned */
	/* memory-only channels: what the buffers hold now (0 otherwise) */
	uint64_t mem_bytes;		/* resident bytes of the buffers that hold events */
	uint64_t held_bytes;		/* bytes of the events held (past a clear) */
	uint64_t held_events;		/* ... events */
	uint64_t window_begin;		/* the oldest one's time: ns since the Epoch, 0: none */
	uint64_t window_end;		/* the newest one's */
	uint32_t kept;			/* processes gone whose buffers are kept */
	uint32_t reserved;
	uint64_t cleared;		/* events discarded by clear (the session daemon's count) */
};
_Static_assert(offsetof(struct msg_c_stats, werr_path) == 104, "stats path");
_Static_assert(offsetof(struct msg_c_stats, mem_bytes) == 104 + PROTO_PATH_MAX, "stats memory");
_Static_assert(offsetof(struct msg_c_stats, kept) == 144 + PROTO_PATH_MAX, "stats kept");
_Static_assert(offsetof(struct msg_c_stats, cleared) == 152 + PROTO_PATH_MAX, "stats cleared");
_Static_assert(sizeof(struct msg_c_stats) == 160 + PROTO_PATH_MAX, "stats");

/*
 * An aggregation segment (MSG_APP_AGG_SEG from the process, forwarded as
 * MSG_C_AGG_SEG with app_id set): what its header says, checked by the
 * session daemon against the aggregation's definition and the memfd's
 * size before it goes on.
 */
struct msg_agg_seg {
	uint64_t app_id;		/* MSG_C_AGG_SEG only */
	uint64_t agg_id;
	uint64_t size;
	uint32_t agg_slot;
	uint32_t seg_index;
	uint32_t first_table;
	uint32_t ntables;
	uint32_t table_size;
	uint32_t capacity;
	uint32_t def_hash;
	uint32_t reserved;
};
_Static_assert(sizeof(struct msg_agg_seg) == 56, "agg seg");

/* An aggregation, for the consumer (MSG_C_AGG_ADD). Strings NUL-terminated. */
struct msg_c_agg {
	uint64_t agg_id;
	uint32_t capacity;
	uint32_t nnames;
	uint32_t flags;			/* SHM_AGG_* */
	uint32_t reserved;
	char session[PROTO_NAME_MAX];
	char name[PROTO_NAME_MAX];
	char event[PROTO_EVNAME_MAX];	/* the pattern */
	char names[12][32];		/* shm_ctl_agg's names */
	uint8_t def[208];		/* struct agg_def */
};
_Static_assert(sizeof(struct msg_c_agg) == 24 + 2 * PROTO_NAME_MAX + PROTO_EVNAME_MAX + 384 + 208,
	       "c agg");

/* Print aggregations (MSG_C_AGG_SHOW) into the descriptor sent with it. */
#define PROTO_AGG_TEXT		0
#define PROTO_AGG_JSON		1
struct msg_c_agg_show {
	uint64_t ids[8];		/* the aggregations, in this order */
	uint32_t n;
	uint32_t format;		/* PROTO_AGG_* */
};
_Static_assert(sizeof(struct msg_c_agg_show) == 72, "c agg show");

/*
 * Which keys of aggregation @agg_id meet @cond (MSG_C_AGG_EVAL): the
 * consumer merges it and writes into the descriptor sent with it one
 * struct msg_c_agg_hit per key that does, at most @max.
 */
struct msg_c_agg_eval {
	uint64_t agg_id;
	uint32_t max;
	uint32_t reserved;
	struct proto_agg_cond cond;
};
_Static_assert(sizeof(struct msg_c_agg_eval) == 16 + sizeof(struct proto_agg_cond), "c agg eval");

#define PROTO_AGG_KEY_TEXT	256	/* a key as printed: "K1 = V1, K2 = V2" */

struct msg_c_agg_hit {
	int64_t value;			/* the statistic (avg: rounded down) */
	int64_t lo, hi;			/* AGGC_PCT: its bucket [lo, hi] */
	char key[PROTO_AGG_KEY_TEXT];
};
_Static_assert(sizeof(struct msg_c_agg_hit) == 24 + PROTO_AGG_KEY_TEXT, "c agg hit");

/*
 * Replies to MSG_CMD (doc/protocol.md, "Replies"): any number of
 * MSG_REPLY_ITEM, each one typed record, then one MSG_REPLY whose status
 * is the result (0 or -errno) and whose body is empty; on failure the
 * record before it is a REC_ERROR saying what is wrong. A command whose
 * result is a file (show-aggregations) sends it as MSG_REPLY_FD. There is
 * no text in a reply: tracectl makes the text (and the JSON) from the
 * records.
 *
 * MSG_REPLY_ITEM's body: struct msg_item, then the record. Each kind of
 * record has a fixed size and a version (PROTO_REC_VERSION_*): a newer
 * version only appends fields, so a reader takes a record of its version
 * or a later one whose size is at least the one it knows (and reads that
 * prefix), refuses an earlier or shorter one, and skips a kind it does
 * not know. Every char array holds a NUL within it (proto_item_decode()
 * checks); the rest of the array after the NUL is zero.
 */
enum proto_rec {
	REC_SESSION = 1,		/* struct rec_session */
	REC_CHANNEL = 2,		/* struct rec_channel */
	REC_ENABLER = 3,		/* struct rec_enabler */
	REC_PROCESS = 4,		/* struct rec_process */
	REC_NOTICE = 5,			/* struct rec_notice */
	REC_AGGREGATION = 6,		/* struct rec_agg */
	REC_EVENT = 7,			/* struct rec_event */
	REC_SNAPSHOT = 8,		/* struct rec_snapshot */
	REC_ROTATION = 9,		/* struct rec_rotation */
	REC_NOTE = 10,			/* struct rec_error: something to know, not an error */
	REC_ERROR = 11,			/* struct rec_error: why the command failed */
	REC_DAEMON = 12,		/* struct rec_daemon */
	REC_TRIGGER = 13,		/* struct rec_trigger */
	REC_FIRING = 14,		/* struct rec_firing */
	REC_EXCLUSION = 15,		/* struct rec_exclusion, after its enabler */
	REC_TRACK = 16,			/* struct rec_track, after its session */
	REC_MAX
};

#define PROTO_REC_VERSION	1	/* of every kind, for now */

struct msg_item {
	uint32_t kind;			/* enum proto_rec */
	uint32_t version;		/* of the record that follows */
};
_Static_assert(sizeof(struct msg_item) == 8, "item");

#define PROTO_WHY_MAX		512	/* a reason in words (a relay's) */
#define PROTO_FILTER_MAX	4096	/* a filter's text, NUL included */

/* rec_session.flags */
#define REC_SESSION_ACTIVE	(1u << 0)
#define REC_SESSION_STARTED	(1u << 1)	/* was active once: no more add-context */
#define REC_SESSION_STREAMED	(1u << 2)	/* to a relay: output is its address */
#define REC_SESSION_ALLOW_ALL	(1u << 3)	/* processes of every uid */
#define REC_SESSION_CHANNEL0	(1u << 4)	/* channel0 exists (else: its defaults) */
#define REC_SESSION_OUTPUT_DEFAULT (1u << 5)	/* output chosen by the daemon (none given) */
#define REC_SESSION_MEMORY	(1u << 6)	/* memory-only: written by snapshots only */

/* A session (create, start, stop, destroy, list, status, notices). */
struct rec_session {
	char name[PROTO_NAME_MAX];
	char output[PROTO_PATH_MAX];	/* files: the directory; streamed: the relay's address */
	char relay_path[256];		/* streamed: HOST/SESSION-DATE[-N] on the relay, else "" */
	char stream_why[PROTO_WHY_MAX];	/* streaming stopped: the address, the step, the reason */
	uint32_t flags;			/* REC_SESSION_* */
	uint32_t mode;			/* SHM_MODE_* of a channel made without settings */
	uint32_t pool_size;		/* ... its pool */
	uint32_t live_us;		/* live period, 0: not live */
	uint32_t nallow;		/* uids it traces besides the daemon's */
	uint32_t allow[PROTO_ALLOW_MAX];
	uint32_t nprocs;		/* registered processes it may trace */
	uint32_t nchannels;
	uint32_t naggs;
	uint32_t nnotices;		/* distinct notices kept */
	uint32_t nrotations;		/* chunks closed */
	uint32_t nsnapshots;		/* taken to the default place */
	int32_t stream_err;		/* streaming stopped: errno (positive); 0: not */
	uint32_t reserved[2];
	uint64_t rot_bytes;		/* automatic rotation: bytes per chunk, 0: off */
	uint64_t rot_ms;		/* ... every so many ms, 0: off */
	uint64_t notices_lost;		/* notices beyond the ones kept */
	uint64_t notices_refused;	/* about another process than their sender's */
	uint64_t fds_refused;		/* processes refused at the descriptor limit (the daemon's) */
	uint64_t fd_limit;		/* ... that limit */
};
_Static_assert(sizeof(struct rec_session) == PROTO_NAME_MAX + PROTO_PATH_MAX + 256 +
	       PROTO_WHY_MAX + 56 + 4 * PROTO_ALLOW_MAX + 48, "rec session");
_Static_assert(offsetof(struct rec_session, flags) == 4928, "rec session flags");
_Static_assert(offsetof(struct rec_session, rot_bytes) == 5048, "rec session rot");

/* rec_channel.flags */
#define REC_CHANNEL_STATS	(1u << 0)	/* stats holds the consumer's counters */
#define REC_CHANNEL_UNFLUSHED	(1u << 1)	/* stop could not write it out: unflushed_* */
#define REC_CHANNEL_DISABLED	(1u << 2)	/* disable-channel: it records nothing */
#define REC_CHANNEL_MEMORY	(1u << 3)	/* of a memory-only session: stats.mem_* say
						 * what its buffers hold */

/* A channel: its settings and, when REC_CHANNEL_STATS, its counters. */
struct rec_channel {
	char session[PROTO_NAME_MAX];
	char name[PROTO_NAME_MAX];
	uint32_t flags;			/* REC_CHANNEL_* */
	int32_t stats_err;		/* the consumer could not be asked: errno, else 0 */
	uint32_t mode;			/* SHM_MODE_* */
	uint32_t subbuf_size;		/* bytes */
	uint32_t num_subbuf;
	uint32_t pool_size;
	uint32_t flush_ms;		/* 0: never */
	uint32_t compress;		/* PROTO_COMPRESS_* */
	uint32_t context;		/* SHMTRACE__CTX_* */
	uint32_t nenablers;
	uint64_t unflushed_events;	/* REC_CHANNEL_UNFLUSHED: still in the buffers */
	uint64_t unflushed_buffers;	/* ... of so many buffers */
	struct msg_c_stats stats;	/* every counter, the first write error */
	uint64_t budget;		/* buffer memory a process may hold, bytes; 0: no limit */
	uint32_t max_buffers;		/* ... so many of its buffers (0: no limit) */
	uint32_t reserved;
};
_Static_assert(sizeof(struct rec_channel) == 2 * PROTO_NAME_MAX + 72 + sizeof(struct msg_c_stats),
	       "rec channel");
_Static_assert(offsetof(struct rec_channel, stats) == 184, "rec channel stats");
_Static_assert(sizeof(struct rec_channel) == 360 + PROTO_PATH_MAX, "rec channel size");

/* rec_enabler.flags */
#define REC_ENABLER_FILTER	(1u << 0)	/* filter holds its filter */
#define REC_ENABLER_FILTER_CUT	(1u << 1)	/* ... cut: filter_len is the whole */
#define REC_ENABLER_FOR_IP	(1u << 2)	/* enabled by add-context: names ip's addresses */
#define REC_ENABLER_REMOVED	(1u << 3)	/* disable-event removed it */

/* An enabled pattern of a channel (enable-event, disable-event, status). */
struct rec_enabler {
	char session[PROTO_NAME_MAX];
	char channel[PROTO_NAME_MAX];
	char pattern[PROTO_EVNAME_MAX];
	uint32_t flags;			/* REC_ENABLER_* */
	uint32_t ll_kind;		/* CMD_LL_* */
	uint32_t loglevel;		/* 0 (emerg) to 7 (debug) */
	uint32_t filter_len;		/* bytes of the filter, NUL excluded */
	char filter[PROTO_FILTER_MAX];
};
_Static_assert(sizeof(struct rec_enabler) == 2 * PROTO_NAME_MAX + PROTO_EVNAME_MAX + 16 +
	       PROTO_FILTER_MAX, "rec enabler");

/*
 * An exclusion of an enabled pattern (enable-event -x): sent after the
 * REC_ENABLER it belongs to, one per exclusion, in the order given.
 */
struct rec_exclusion {
	char session[PROTO_NAME_MAX];
	char channel[PROTO_NAME_MAX];
	char pattern[PROTO_EVNAME_MAX];	/* the enabler's */
	char exclude[PROTO_EVNAME_MAX];	/* events matching it are left out */
};
_Static_assert(sizeof(struct rec_exclusion) == 2 * PROTO_NAME_MAX + 2 * PROTO_EVNAME_MAX,
	       "rec exclusion");

#define REC_TRACK_ALL		(1u << 0)	/* every process: no set */

/*
 * Which processes of a kind a session records (status, track, untrack):
 * one record per kind (PROTO_TRACK_*) after the session's.
 */
struct rec_track {
	char session[PROTO_NAME_MAX];
	uint32_t kind;			/* PROTO_TRACK_* */
	uint32_t flags;			/* REC_TRACK_* */
	uint32_t n;			/* values of the set (pids, uids or globs) */
	uint32_t reserved;
	uint32_t value[PROTO_TRACK_MAX];	/* pids or uids */
	char exe[PROTO_TRACK_EXE_MAX][PROTO_TRACK_EXE_LEN];	/* globs */
};
_Static_assert(sizeof(struct rec_track) == PROTO_NAME_MAX + 16 + 4 * PROTO_TRACK_MAX +
	       PROTO_TRACK_EXE_MAX * PROTO_TRACK_EXE_LEN, "rec track");

/* rec_process.flags */
#define REC_PROCESS_DETACHED	(1u << 0)	/* closed its connection, still traced */
#define REC_PROCESS_NO_BELL	(1u << 1)	/* no doorbell: changes seen at its next event */

/* A traced process (status, processes, list-events). */
struct rec_process {
	char session[PROTO_NAME_MAX];	/* status: the session that may trace it; else "" */
	char name[PROTO_PROCNAME];
	uint32_t pid;
	uint32_t uid;
	uint64_t starttime;		/* /proc/PID/stat field 22 */
	uint32_t flags;			/* REC_PROCESS_* */
	uint32_t reattached;		/* registered again after closing our descriptors */
	uint32_t nevents;		/* events it described */
	uint32_t reserved;
};
_Static_assert(sizeof(struct rec_process) == PROTO_NAME_MAX + PROTO_PROCNAME + 32, "rec process");

/* What a session was told would not be traced (MSG_APP_NOTICE), kept. */
struct rec_notice {
	char session[PROTO_NAME_MAX];
	uint32_t kind;			/* enum proto_notice */
	uint32_t pid;			/* the first process it was about */
	uint32_t uid;			/* as in MSG_APP_NOTICE */
	uint32_t old_uid;
	uint32_t daemon_uid;		/* the session daemon's */
	uint32_t reserved;
	uint64_t count;			/* the same kind, uid and path again */
	char path[PROTO_PATH_MAX];	/* control characters replaced by '?' */
};
_Static_assert(sizeof(struct rec_notice) == PROTO_NAME_MAX + 32 + PROTO_PATH_MAX, "rec notice");

#define REC_AGG_FIELD		32	/* field names of aggregations (SHM_AGG_NAME) */
#define REC_AGG_PROFILE		(1u << 0)
#define REC_AGG_FILTER		(1u << 1)
#define REC_AGG_FILTER_CUT	(1u << 2)
#define REC_AGG_REMOVED		(1u << 3)	/* disable-aggregation removed it */

/* An aggregation as defined (aggregate, disable-aggregation, status). */
struct rec_agg {
	char session[PROTO_NAME_MAX];
	char name[PROTO_NAME_MAX];
	char pattern[PROTO_EVNAME_MAX];	/* "" for a profile */
	uint32_t flags;			/* REC_AGG_* */
	uint32_t capacity;		/* keys of a thread's table */
	uint32_t nkeys;
	uint32_t nfuncs;
	struct {
		char field[REC_AGG_FIELD];
		uint32_t kind;		/* enum agg_key_kind: 0 integer, 1 string */
		uint32_t reserved;
	} key[CMD_AGG_KEYS];
	struct {
		uint32_t fn;		/* enum agg_fn */
		int32_t step;		/* lquantize */
		int64_t low, high;	/* lquantize */
		char field[REC_AGG_FIELD];	/* "" for count */
	} func[CMD_AGG_FUNCS];
	uint32_t filter_len;
	uint32_t reserved;
	char filter[PROTO_FILTER_MAX];
};
_Static_assert(sizeof(struct rec_agg) == 2 * PROTO_NAME_MAX + PROTO_EVNAME_MAX + 16 +
	       CMD_AGG_KEYS * (REC_AGG_FIELD + 8) + CMD_AGG_FUNCS * (24 + REC_AGG_FIELD) + 8 +
	       PROTO_FILTER_MAX, "rec agg");

/* An event a process described (list-events). */
struct rec_event {
	uint32_t pid;			/* of the REC_PROCESS before */
	uint32_t id;
	int32_t loglevel;
	uint32_t nfields;
	char name[PROTO_EVNAME_MAX];	/* provider:event */
	struct {
		uint32_t type;		/* SHMTRACE_TYPE_* (| SHMTRACE_TYPE_SEQ) */
		uint32_t reserved;
		char name[PROTO_FIELDNAME_MAX];
	} field[PROTO_MAX_FIELDS];
};
_Static_assert(sizeof(struct rec_event) == 16 + PROTO_EVNAME_MAX +
	       PROTO_MAX_FIELDS * (8 + PROTO_FIELDNAME_MAX), "rec event");

#define REC_SNAPSHOT_INSIDE	(1u << 0)	/* it lies inside the session's output */

struct rec_snapshot {
	char session[PROTO_NAME_MAX];
	uint32_t flags;			/* REC_SNAPSHOT_* */
	uint32_t reserved;
	char path[PROTO_PATH_MAX];	/* where it was written */
	char output[PROTO_PATH_MAX];	/* the session's output */
};
_Static_assert(sizeof(struct rec_snapshot) == PROTO_NAME_MAX + 8 + 2 * PROTO_PATH_MAX,
	       "rec snapshot");

#define REC_ROTATION_SET	(1u << 0)	/* settings changed, no chunk closed */

struct rec_rotation {
	char session[PROTO_NAME_MAX];
	uint32_t flags;			/* REC_ROTATION_* */
	uint32_t chunk;			/* the chunk closed (not with REC_ROTATION_SET) */
	uint64_t every_ms;		/* automatic rotation, now: 0 off */
	uint64_t size;			/* ... bytes, 0 off */
	char path[PROTO_PATH_MAX];	/* the chunk's directory */
};
_Static_assert(sizeof(struct rec_rotation) == PROTO_NAME_MAX + 24 + PROTO_PATH_MAX,
	       "rec rotation");

/* The session daemon (status). */
struct rec_daemon {
	uint32_t pid;
	uint32_t uid;
	char version[32];		/* PACKAGE_VERSION */
	char home[PROTO_PATH_MAX];
};
_Static_assert(sizeof(struct rec_daemon) == 40 + PROTO_PATH_MAX, "rec daemon");

/* rec_trigger.flags */
#define REC_TRIGGER_FILTER	(1u << 0)	/* filter holds its filter */
#define REC_TRIGGER_FILTER_CUT	(1u << 1)
#define REC_TRIGGER_REMOVED	(1u << 2)	/* remove-trigger removed it */
#define REC_TRIGGER_SPENT	(1u << 3)	/* once-after: it fired, it will not again */
#define REC_TRIGGER_FIRED	(1u << 4)	/* last_* hold its last firing */

/* A trigger (add-trigger, list-triggers, remove-trigger). */
struct rec_trigger {
	char name[PROTO_NAME_MAX];
	uint64_t id;
	uint32_t kind;			/* CMD_TRIG_* */
	uint32_t action;		/* CMD_ACT_* */
	char action_session[PROTO_NAME_MAX];
	uint32_t flags;			/* REC_TRIGGER_* */
	uint32_t policy;		/* SHM_TRIG_* */
	uint64_t n;
	char pattern[PROTO_EVNAME_MAX];	/* CMD_TRIG_EVENT */
	char agg_session[PROTO_NAME_MAX];	/* CMD_TRIG_AGG */
	char agg[PROTO_NAME_MAX];
	char when[PROTO_WHEN_MAX];
	uint64_t every_ms;
	uint64_t matches;		/* events that met the condition (live processes) */
	uint64_t fired;			/* firings acted on */
	uint64_t lost;			/* firings lost: a process's ring was full */
	uint64_t failed;		/* actions that failed */
	uint64_t ignored;		/* firings after a once-after fired, or damaged */
	uint32_t waiters;		/* wait-trigger waiting now */
	uint32_t last_pid;		/* REC_TRIGGER_FIRED: its last firing's process */
	uint32_t last_tid;
	int32_t last_err;		/* its action's errno (positive), 0: done */
	uint64_t last_time_ns;		/* ... its time (CLOCK_REALTIME, ns) */
	char last_path[PROTO_PATH_MAX];	/* ... a snapshot's or chunk's directory */
	uint32_t filter_len;
	uint32_t reserved;
	char filter[PROTO_FILTER_MAX];
};
_Static_assert(sizeof(struct rec_trigger) == 4 * PROTO_NAME_MAX + PROTO_EVNAME_MAX + PROTO_WHEN_MAX +
	       PROTO_PATH_MAX + PROTO_FILTER_MAX + 112, "rec trigger");
_Static_assert(offsetof(struct rec_trigger, last_path) == 744, "rec trigger path");

#define REC_FIRING_STR		320	/* bytes of a string field (SHM_TRIG_STR) */
#define REC_FIRING_CUT		(1u << 0)	/* a string was cut */
#define REC_FIRING_EARLY	(1u << 1)	/* told before its event was written */
#define REC_FIRING_EVENT	(1u << 2)	/* of an event: pid, tid, event, fields */

/* A firing (wait-trigger): what fired, when. */
struct rec_firing {
	char trigger[PROTO_NAME_MAX];
	uint32_t kind;			/* CMD_TRIG_* */
	uint32_t flags;			/* REC_FIRING_* */
	uint64_t time_ns;		/* CLOCK_REALTIME, ns */
	uint64_t ts;			/* the event's timestamp (trace clock) */
	uint64_t count;			/* the match that fired (its process's) */
	uint32_t pid;
	uint32_t tid;
	int64_t value;			/* CMD_TRIG_AGG: the statistic */
	int64_t lo, hi;			/* ... a percentile's bucket */
	char key[PROTO_AGG_KEY_TEXT];	/* ... the key */
	char event[PROTO_EVNAME_MAX];	/* CMD_TRIG_EVENT: provider:event */
	uint32_t nfields;
	uint32_t reserved;
	struct {
		char name[PROTO_FIELDNAME_MAX];
		uint32_t type;		/* SHMTRACE_TYPE_* (| SHMTRACE_TYPE_SEQ: its length) */
		uint32_t reserved;
		uint64_t value;		/* integers, doubles (bits), addresses */
		char str[REC_FIRING_STR];	/* strings */
	} field[PROTO_MAX_FIELDS];
};
_Static_assert(sizeof(struct rec_firing) == PROTO_NAME_MAX + 64 + PROTO_AGG_KEY_TEXT +
	       PROTO_EVNAME_MAX + 8 + PROTO_MAX_FIELDS * (PROTO_FIELDNAME_MAX + 16 + REC_FIRING_STR),
	       "rec firing");

/*
 * Why a command failed (REC_ERROR), or what it had to say besides
 * (REC_NOTE): a code, the errno, and the code's fields (which of them
 * it uses and what they mean: doc/protocol.md, "Errors and notes").
 */
enum proto_why {
	RE_ERRNO = 1,		/* err; name: what failed */
	RE_MALFORMED,		/* n0: the message type when not MSG_CMD, 0: a bad command */
	RE_SHUTDOWN,		/* the daemon is stopping: ask the next one */
	RE_REGISTER_ONLY,	/* the application socket takes registrations only */
	RE_NO_SESSION,		/* session */
	RE_NO_SESSIONS,		/* none at all */
	RE_SEVERAL_SESSIONS,	/* name one */
	RE_BAD_NAME,		/* name; name2: what it names; n0: at most so many bytes */
	RE_SESSION_EXISTS,	/* session */
	RE_RANGE,		/* name: the setting; n0: value, n1: min, n2: max */
	RE_APP_SOCKET,		/* err */
	RE_OUTPUT_AND_RELAY,	/* --output and a relay address */
	RE_OUTPUT_RELATIVE,	/* path */
	RE_OUTPUT_REFUSED,	/* path, err */
	RE_OUTPUT_USED,		/* path: not empty */
	RE_CHANNEL_EXISTS,	/* session, name */
	RE_COMPRESS_RELAY,	/* no compression for a relay */
	RE_GEOMETRY,		/* n0: least sub-buffer size, n1: largest, n2: most sub-buffers */
	RE_CHANNELS_FULL,	/* n0: channels at most, all sessions */
	RE_BAD_PATTERN,		/* name: the pattern */
	RE_BAD_LOGLEVEL,
	RE_FILTER,		/* detail: what and where (the compiler's words); n0: column */
	RE_FILTER_LONG,		/* n0: bytes at most (n1: 1 of its text, 0 of bytecode) */
	RE_NO_CHANNEL,		/* session, name */
	RE_NOT_ENABLED,		/* session, name: the pattern */
	RE_STARTED,		/* session: context fields only before the first start */
	RE_BAD_CONTEXT,		/* n0: the bits asked */
	RE_RELAY_NO,		/* session, name: what a streamed session has not ("chunks") */
	RE_ROTATE,		/* session, err */
	RE_SNAPSHOT_PLACE,	/* session, path: its output */
	RE_NO_CHANNELS,		/* session */
	RE_SNAPSHOT_EMPTY,	/* session */
	RE_SNAPSHOT,		/* session, path, err */
	RE_ACTIVE,		/* session */
	RE_INACTIVE,		/* session */
	RE_WRITE,		/* session, name: channel, path, err, n0: events lost, n1: traces */
	RE_NOT_WRITTEN,		/* session, name: channel, n0: events, n1: buffers */
	RE_AGG_WRITE,		/* session, path, err */
	RE_STREAMING,		/* session, err, detail: why */
	RE_STREAM_CHECK,	/* session, err */
	RE_AGG_KEY_KIND,	/* name: field, name2: the suffix */
	RE_AGG_FIELD,		/* name: field, n0: bytes at most */
	RE_AGG_NEEDS_FIELD,	/* name: function */
	RE_LQUANTIZE,		/* n0: steps at most */
	RE_AGG_EXISTS,		/* session, name */
	RE_AGGS_FULL,		/* n0: aggregations at most, all sessions */
	RE_PROFILE_ARGS,
	RE_AGG_TABLE,		/* n0: keys, n1: MiB at most */
	RE_CONSUMER,		/* err, name: what it refused */
	RE_NO_AGG,		/* session, name */
	RE_NO_AGGS,		/* session */
	RE_NO_CONSUMER,
	RE_ALLOW_ROOT,		/* n0: the daemon's uid */
	RE_ALLOW_UID,		/* n0: the value */
	RE_RELAY_URL,		/* name: the address, name2: which ("relay", "control", "data") */
	RE_URL_PAIR,
	RE_RELAY_CONNECT,	/* err, name: the address, detail: the step */
	RE_TRIGGER_EXISTS,	/* name */
	RE_NO_TRIGGER,		/* name */
	RE_TRIGGERS_FULL,	/* n0: event triggers at most */
	RE_TRIGGER_ARGS,	/* name: what is wrong ("kind", "action", "policy", "every") */
	RE_AGG_COND,		/* name: the condition, detail: why */
	RE_WAIT_TIMEOUT,	/* name: the trigger, n0: ms waited */
	RE_TRIGGER_GONE,	/* name: the trigger, removed while waited for */
	RE_EXCLUDE_WILD,	/* name: a pattern with exclusions but no '*' */
	RE_TRACK_ALL,		/* session, name: the kind (untrack of one that tracks all) */
	RE_NOT_TRACKED,		/* session, name: the value, name2: the kind */
	RE_MEMORY_DISCARD,	/* session, name: channel: a memory-only session overwrites */
	RE_MEMORY_ONLY,		/* session, name: what a memory-only session has not */
	RE_SNAPSHOT_SIZE,	/* session, n0: --max-size (holds no stream's newest packet) */
	RE_CLEAR,		/* session, err */
	RE_MAX_ERROR,
	/* notes */
	RN_AGG_KEY_UNKNOWN = 100,	/* name: pattern, name2: field */
	RN_AGG_NOT_NUMBER,		/* name: pattern, name2: field, n0: function */
	RN_PATTERN_UNKNOWN,		/* name: pattern none of the known events matches */
	RN_STATEDUMP_OFF,		/* session, name: the dump's event, recorded nowhere */
	RN_MAX
};

struct rec_error {
	uint32_t code;			/* enum proto_why */
	int32_t err;			/* errno (positive), 0: none */
	uint64_t n[4];			/* numbers, as the code says */
	char session[PROTO_NAME_MAX];
	char name[PROTO_EVNAME_MAX];	/* a channel, pattern, field, option... */
	char name2[PROTO_NAME_MAX];
	char detail[PROTO_WHY_MAX];	/* words of a parser or of a relay */
	char path[PROTO_PATH_MAX];
};
_Static_assert(sizeof(struct rec_error) == 40 + 2 * PROTO_NAME_MAX + PROTO_EVNAME_MAX +
	       PROTO_WHY_MAX + PROTO_PATH_MAX, "rec error");
_Static_assert(offsetof(struct rec_error, path) == 936, "rec error path");

/* A record as proto_item_decode() found it: aligned, checked. */
union proto_rec_body {
	struct rec_session session;
	struct rec_channel channel;
	struct rec_enabler enabler;
	struct rec_process process;
	struct rec_notice notice;
	struct rec_agg agg;
	struct rec_event event;
	struct rec_snapshot snapshot;
	struct rec_rotation rotation;
	struct rec_error error;
	struct rec_daemon daemon;
	struct rec_trigger trigger;
	struct rec_firing firing;
	struct rec_exclusion exclusion;
	struct rec_track track;
};

int proto_send(int fd, unsigned int type, int status, const void *body, size_t len,
	       const int *fds, int nfds);
int proto_sendv(int fd, unsigned int type, int status, const void *b1, size_t l1,
		const void *b2, size_t l2, const int *fds, int nfds);
/* Event description encoding; returns bytes written or -ENOSPC. */
long proto_event_encode(char *buf, size_t cap, uint32_t id, int32_t loglevel,
			const char *provider, const char *name, uint32_t nfields,
			const uint32_t *types, const char *const *fnames);
/* Decode the record at *pos; returns 1 and advances, 0 at end, -EPROTO. */
int proto_event_decode(const char *buf, size_t len, size_t *pos, struct proto_event *ev);
int proto_type_valid(uint32_t type);

#endif /* SHMTRACE_COMMON_PROTO_H */
