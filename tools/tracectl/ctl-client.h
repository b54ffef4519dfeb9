/* SPDX-License-Identifier: MIT */
/*
 * ctl-client.h - the client side of the command protocol (MSG_CMD,
 * common/proto.h): one request to the session daemon of a home, started
 * when none runs, its replies printed. Used by every tracectl command.
 */
#ifndef SHMTRACE_TOOLS_CTL_CLIENT_H
#define SHMTRACE_TOOLS_CTL_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "exit-status.h"
#include "common/proto.h"
#include "support/protomsg.h"


/* A record of a reply, checked (proto_item_decode()): its kind and a copy of it. */
struct ctl_rec {
	uint32_t kind;			/* enum proto_rec */
	const void *body;		/* struct rec_* of that kind */
};

/* Why a request got no reply (the daemon unreachable, silent...), said already. */
struct ctl_fail {
	char code[32];			/* for scripts: "no-answer", "unreachable"... ("": none) */
	char message[512];		/* what was said */
	int err;			/* errno, 0: none */
	pid_t daemon_pid;		/* no-answer: the daemon, 0 when unknown */
	char daemon_state[48];		/* ... its state (/proc) */
	char doing[32];			/* ... what it did not do */
	uint64_t waited_ms;		/* ... for so long */
};

/* What the daemon answered to a request. */
struct ctl_reply {
	int answered;			/* its final reply came */
	int status;			/* ... with this status: 0 or -errno */
	size_t n, cap;
	struct ctl_rec *rec;		/* the records, in the order they came */
	const struct rec_error *error;	/* the REC_ERROR (status < 0), or NULL */
	int has_file;			/* MSG_REPLY_FD came: */
	char *file;			/* ... what it held (NUL-terminated) */
	size_t file_len;
	struct ctl_fail fail;		/* no reply (answered 0): why */
};

/*
 * Send @verb for @session with the verb's body @body (its struct cmd_*,
 * or NULL for verbs without one) and @nstr strings to the daemon of
 * @home, and collect its reply into @rep (ctl_reply_free() it). Returns
 * EXIT_OK; EXIT_RUNTIME when the daemon refused (rep->answered set, its
 * REC_ERROR in rep->error: not said, the caller renders it), or when it
 * could not be reached, said nothing for the request's timeout or sent a
 * malformed reply (said on standard error, naming the command @name, with
 * the daemon's pid and state for a timeout); EXIT_USAGE when the request
 * is too long (said).
 */
int ctl_request(const char *home, const char *name, enum proto_verb verb, const char *session,
		const void *body, unsigned int nstr, const char *const *str, struct ctl_reply *rep);
void ctl_reply_free(struct ctl_reply *rep);

/*
 * Timeouts: how long a request waits for the daemon to say something (to
 * take the connection, the command, to send each reply). By default
 * CTL_TIMEOUT_NS, and CTL_TIMEOUT_LONG_NS for the verbs that wait for the
 * consumer to write traces out or for a relay (create, stop, destroy,
 * rotate, snapshot, show-aggregations), which also give up after
 * CTL_TIMEOUT_NS when the daemon is stopped, a zombie or gone.
 * SHMTRACE_CTL_TIMEOUT, then --timeout, set one for every request of the
 * process, kept to the letter: a duration (units.h), 0 for no limit, at
 * most 24 hours.
 */
#define CTL_TIMEOUT_NS		(UINT64_C(10) * 1000000000)
#define CTL_TIMEOUT_LONG_NS	(UINT64_C(600) * 1000000000)
#define CTL_TIMEOUT_MAX_NS	(UINT64_C(86400) * 1000000000)

/* The default timeout of @verb (ns). */
uint64_t ctl_verb_timeout(enum proto_verb verb);

/* --timeout @arg (@from names it in messages): 0, or -EINVAL said. */
int ctl_timeout_set(const char *arg, const char *from);

/* SHMTRACE_CTL_TIMEOUT, when set: 0, or -EINVAL said. Before the options. */
int ctl_timeout_env(void);

/*
 * --allow-uid's argument: "all", or uids and user names separated by
 * commas, into @c. 0, or -EINVAL (said on standard error: an unknown
 * user, more than PROTO_ALLOW_MAX uids).
 */
int ctl_parse_uids(const char *arg, struct cmd_create *c);

/*
 * The options of a session streamed to a relay, shared by create and
 * record: their long options, and ctl_net_option() putting the argument
 * of option @c into @cr. 0, or -EINVAL (said: too long, a bad period).
 */
#define CTL_NET_LONGOPTS \
	{ "set-url", required_argument, NULL, 'S' }, \
	{ "ctrl-url", required_argument, NULL, 'K' }, \
	{ "data-url", required_argument, NULL, 'A' }, \
	{ "live", optional_argument, NULL, 'I' }
int ctl_net_option(int c, const char *arg, struct cmd_create *cr);

/* @arg as an absolute path in @out (relative to the working directory). */
int ctl_abspath(const char *arg, char *out, size_t cap);

/* The directory of the running program (for its daemons and helpers). */
int ctl_exe_dir(char *out, size_t cap);

/* The home to talk to, resolved and checked; 0, or EXIT_RUNTIME said. */
int ctl_home(char *home, size_t cap);

#endif
