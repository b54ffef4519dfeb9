/* SPDX-License-Identifier: MIT */
/*
 * protomsg.c - receiving and checking protocol messages (protomsg.h): the
 * daemons' and the tools' side. What the traced process sends (framing,
 * event descriptions) is common/proto.c's.
 *
 * Invariants: proto_recv() hands out a message only when its header is
 * intact, its size matches what arrived, its body holds at least the
 * type's fixed part and it carries exactly the descriptors the type needs;
 * otherwise every descriptor that came with it is closed. Decoders read
 * variable parts with explicit bounds: a command's and a reply record's
 * char arrays must be terminated inside the array, a notice's path must
 * fill its body with exactly one NUL, its last byte.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <shmtrace/shmtrace.h>
#include "common/proto.h"
#include "support/protomsg.h"

long proto_body_min(unsigned int type)
{
	switch (type) {
	case MSG_APP_REGISTER:	return sizeof(struct msg_app_register);
	case MSG_APP_EVENTS:	return sizeof(struct msg_events);
	case MSG_APP_SEGMENT:	return sizeof(struct msg_segment);
	case MSG_APP_SYNC:	return sizeof(struct msg_sync);
	case MSG_APP_NOTICE:	return sizeof(struct msg_app_notice) + 2;
	case MSG_CMD:		return sizeof(struct msg_cmd);
	case MSG_C_CHANNEL_ADD:	return sizeof(struct msg_c_channel);
	case MSG_C_CHANNEL_DEL:
	case MSG_C_FLUSH:
	case MSG_C_APP_DEL:
	case MSG_C_STATS:
	case MSG_C_RELAY_DEL:
	case MSG_C_RELAY_CHECK:	return sizeof(struct msg_c_id);
	case MSG_C_RELAY_ADD:	return sizeof(struct msg_c_relay);
	case MSG_C_SNAPSHOT:
	case MSG_C_ROTATE:	return sizeof(struct msg_c_snapshot);
	case MSG_C_APP_ADD:	return sizeof(struct msg_c_app);
	case MSG_C_EVENTS:	return sizeof(struct msg_events);
	case MSG_C_SEGMENT:	return sizeof(struct msg_segment);
	case MSG_APP_AGG_SEG:
	case MSG_C_AGG_SEG:	return sizeof(struct msg_agg_seg);
	case MSG_C_AGG_ADD:	return sizeof(struct msg_c_agg);
	case MSG_C_AGG_DEL:	return sizeof(struct msg_c_id);
	case MSG_C_AGG_SHOW:	return sizeof(struct msg_c_agg_show);
	case MSG_C_ADOPT:	return sizeof(struct msg_c_adopt);
	case MSG_C_ADOPT_APP:	return sizeof(struct msg_c_app);
	case MSG_C_ADOPT_END:	return sizeof(struct msg_c_adopt_end);
	case MSG_C_CLEAR:	return sizeof(struct msg_c_id);
	case MSG_C_CLEAR_REPLY:	return sizeof(struct msg_c_clear_reply);
	case MSG_REPLY_FD:
	case MSG_REPLY:		return 0;
	case MSG_REPLY_ITEM:	return sizeof(struct msg_item);
	case MSG_C_STATS_REPLY:	return sizeof(struct msg_c_stats);
	case MSG_APP_TRIGGER:	return 0;
	case MSG_C_AGG_EVAL:	return sizeof(struct msg_c_agg_eval);
	default:		return -1;
	}
}

int proto_nfds(unsigned int type)
{
	switch (type) {
	case MSG_APP_REGISTER:
	case MSG_C_APP_ADD:
	case MSG_C_ADOPT_APP:	return 3;
	case MSG_C_RELAY_ADD:	return 2;
	case MSG_C_CHANNEL_ADD:
	case MSG_APP_SEGMENT:
	case MSG_C_SEGMENT:
	case MSG_APP_AGG_SEG:
	case MSG_C_AGG_SEG:
	case MSG_C_AGG_SHOW:
	case MSG_C_AGG_EVAL:
	case MSG_REPLY_FD:	return 1;
	default:		return 0;
	}
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

long proto_recv(int fd, void *buf, struct proto_hdr *hdr, int *fds, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * PROTO_MAX_FDS)];
		struct cmsghdr align;
	} cm;
	struct iovec iov = { .iov_base = buf, .iov_len = PROTO_MAX_MSG };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cm.buf, .msg_controllen = sizeof(cm.buf),
	};
	struct cmsghdr *c;
	int got[PROTO_MAX_FDS], ngot = 0;
	size_t nrecv = 0;
	long min;
	ssize_t n;

	/*
	 * A peer that closed with our messages unread leaves ECONNRESET
	 * pending, reported once and ahead of the messages it had sent us:
	 * read those anyway (a process's last buffer segments are among them).
	 */
	do {
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | flags);
	} while (n < 0 && (errno == EINTR || errno == ECONNRESET));
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		nrecv += k;
		for (size_t i = 0; i < k; i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (ngot < PROTO_MAX_FDS)
				got[ngot++] = f;
			else
				close(f);
		}
	}
	if (n == 0 && ngot == 0)
		return -ECONNRESET;
	if ((msg.msg_flags & MSG_CTRUNC) && nrecv < PROTO_MAX_FDS) {
		/* room for more, yet cut: the kernel could not give us one */
		close_fds(got, ngot);
		return -EMFILE;
	}
	if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || (size_t)n < sizeof(*hdr))
		goto bad;
	memcpy(hdr, buf, sizeof(*hdr));
	min = proto_body_min(hdr->type);
	if (hdr->magic != PROTO_MAGIC || hdr->version != PROTO_VERSION || hdr->size != (size_t)n ||
	    min < 0 || (size_t)n - sizeof(*hdr) < (size_t)min || ngot != proto_nfds(hdr->type))
		goto bad;
	memmove(buf, (char *)buf + sizeof(*hdr), (size_t)n - sizeof(*hdr));
	for (int i = 0; i < ngot; i++)
		fds[i] = got[i];
	return (long)((size_t)n - sizeof(*hdr));
bad:
	close_fds(got, ngot);
	return -EPROTO;
}

int proto_name_ok(const char *n)
{
	if (!n[0] || n[0] == '.' || strlen(n) >= PROTO_NAME_MAX)
		return 0;
	for (; *n; n++)
		if (*n == '/' || (unsigned char)*n < 33 || *n == 127)
			return 0;
	return 1;
}

/* Body size and string count of each verb's MSG_CMD (proto.h's table). */
static const struct {
	uint32_t size;
	uint16_t min_str, max_str;
} cmd_shapes[VERB_MAX] = {
	[VERB_CREATE]		= { sizeof(struct cmd_create), 0, 0 },
	[VERB_DESTROY]		= { 0, 0, 0 },
	[VERB_ENABLE_EVENT]	= { sizeof(struct cmd_events), 1, PROTO_CMD_MAX_STR },
	[VERB_DISABLE_EVENT]	= { sizeof(struct cmd_events), 1, PROTO_CMD_MAX_STR - 1 },
	[VERB_START]		= { 0, 0, 0 },
	[VERB_STOP]		= { 0, 0, 0 },
	[VERB_LIST]		= { 0, 0, 0 },
	[VERB_LIST_EVENTS]	= { 0, 0, 0 },
	[VERB_STATUS]		= { 0, 0, 0 },
	[VERB_PING]		= { 0, 0, 0 },
	[VERB_ENABLE_CHANNEL]	= { sizeof(struct cmd_channel), 0, 0 },
	[VERB_SNAPSHOT]		= { sizeof(struct cmd_snapshot), 0, 0 },
	[VERB_ROTATE]		= { sizeof(struct cmd_rotate), 0, 0 },
	[VERB_ADD_CONTEXT]	= { sizeof(struct cmd_context), 0, 0 },
	[VERB_NOTICES]		= { 0, 0, 0 },
	[VERB_PROCESSES]	= { 0, 0, 0 },
	[VERB_AGGREGATE]	= { sizeof(struct cmd_aggregate), 0, 1 },
	[VERB_DISABLE_AGG]	= { 0, 1, PROTO_CMD_MAX_STR - 1 },
	[VERB_SHOW_AGG]		= { sizeof(struct cmd_show_agg), 0, 0 },
	[VERB_ADD_TRIGGER]	= { sizeof(struct cmd_trigger), 0, 1 },
	[VERB_LIST_TRIGGERS]	= { 0, 0, 0 },
	[VERB_REMOVE_TRIGGER]	= { 0, 1, PROTO_CMD_MAX_STR - 1 },
	[VERB_WAIT_TRIGGER]	= { sizeof(struct cmd_wait_trigger), 0, 0 },
	[VERB_DISABLE_CHANNEL]	= { 0, 1, PROTO_CMD_MAX_STR - 1 },
	[VERB_REGENERATE]	= { sizeof(struct cmd_regenerate), 0, 0 },
	[VERB_TRACK]		= { sizeof(struct cmd_track), 0, PROTO_TRACK_EXE_MAX },
	[VERB_UNTRACK]		= { sizeof(struct cmd_track), 0, PROTO_TRACK_EXE_MAX },
	[VERB_CLEAR]		= { 0, 0, 0 },
};

#define TERMINATED(a)	(memchr((a), 0, sizeof(a)) != NULL)

/* Every string of the body ends inside its array; counts within bounds. */
static int cmd_body_ok(uint32_t verb, const union cmd_body *b, uint32_t nstr)
{
	switch (verb) {
	case VERB_CREATE:
		return TERMINATED(b->create.output) && TERMINATED(b->create.set_url) &&
		       TERMINATED(b->create.ctrl_url) && TERMINATED(b->create.data_url) &&
		       b->create.nallow <= PROTO_ALLOW_MAX;
	case VERB_ENABLE_CHANNEL:
		return TERMINATED(b->channel.name);
	case VERB_ENABLE_EVENT:
		return TERMINATED(b->events.channel) && b->events.filter <= 1 &&
		       b->events.nexclude <= PROTO_EXCLUDE_MAX &&
		       nstr > b->events.filter + b->events.nexclude;
	case VERB_DISABLE_EVENT:
		return TERMINATED(b->events.channel) && !b->events.filter &&
		       !b->events.nexclude && b->events.ll_kind == CMD_LL_ANY;
	case VERB_ADD_CONTEXT:
		return TERMINATED(b->context.channel);
	case VERB_SNAPSHOT:
		return TERMINATED(b->snapshot.output);
	case VERB_AGGREGATE:
		if (!TERMINATED(b->aggregate.name) || !TERMINATED(b->aggregate.pattern) ||
		    b->aggregate.nkeys > CMD_AGG_KEYS || b->aggregate.nfuncs > CMD_AGG_FUNCS ||
		    b->aggregate.filter != nstr)
			return 0;
		for (unsigned int i = 0; i < CMD_AGG_KEYS; i++)
			if (!TERMINATED(b->aggregate.key[i]))
				return 0;
		for (unsigned int i = 0; i < CMD_AGG_FUNCS; i++)
			if (!TERMINATED(b->aggregate.func[i].field))
				return 0;
		return 1;
	case VERB_SHOW_AGG:
		return TERMINATED(b->show_agg.name);
	case VERB_ADD_TRIGGER:
		return TERMINATED(b->trigger.name) && TERMINATED(b->trigger.action_session) &&
		       TERMINATED(b->trigger.pattern) && TERMINATED(b->trigger.agg_session) &&
		       TERMINATED(b->trigger.agg) && TERMINATED(b->trigger.when) &&
		       b->trigger.filter == nstr;
	case VERB_WAIT_TRIGGER:
		return TERMINATED(b->wait_trigger.name);
	case VERB_TRACK:
	case VERB_UNTRACK:
		return !(b->track.all & ~CMD_TRACK_KINDS) && b->track.npid <= PROTO_TRACK_MAX &&
		       b->track.nuid <= PROTO_TRACK_MAX;
	default:
		return 1;
	}
}

int proto_cmd_decode(const char *body, size_t len, struct proto_cmd *c)
{
	struct msg_cmd m;
	size_t pos = sizeof(m);

	if (len < sizeof(m))
		return -EPROTO;
	memcpy(&m, body, sizeof(m));
	if (m.verb == 0 || m.verb >= VERB_MAX || m.body_size != cmd_shapes[m.verb].size ||
	    m.nstr < cmd_shapes[m.verb].min_str || m.nstr > cmd_shapes[m.verb].max_str ||
	    !TERMINATED(m.session) || len - pos < m.body_size)
		return -EPROTO;
	c->verb = m.verb;
	memcpy(c->session, m.session, sizeof(c->session));
	memset(&c->b, 0, sizeof(c->b));
	memcpy(&c->b, body + pos, m.body_size);
	pos += m.body_size;
	for (uint32_t i = 0; i < m.nstr; i++) {
		const char *e = pos < len ? memchr(body + pos, 0, len - pos) : NULL;

		if (!e)
			return -EPROTO;
		c->str[i] = body + pos;
		pos = (size_t)(e - body) + 1;
	}
	c->nstr = m.nstr;
	return pos == len && cmd_body_ok(m.verb, &c->b, m.nstr) ? 0 : -EPROTO;
}

long proto_cmd_encode(char *buf, size_t cap, uint32_t verb, const char *session,
		      const void *b, unsigned int nstr, const char *const *str)
{
	struct msg_cmd m = { .verb = verb, .nstr = nstr };
	size_t pos = sizeof(m);

	if (verb == 0 || verb >= VERB_MAX || nstr > PROTO_CMD_MAX_STR ||
	    strlen(session) >= sizeof(m.session) || cap < sizeof(m) + cmd_shapes[verb].size)
		return -EINVAL;
	m.body_size = cmd_shapes[verb].size;
	if (m.body_size && !b)
		return -EINVAL;
	memcpy(m.session, session, strlen(session));
	memcpy(buf, &m, sizeof(m));
	if (m.body_size)
		memcpy(buf + pos, b, m.body_size);
	pos += m.body_size;
	for (unsigned int i = 0; i < nstr; i++) {
		size_t n = strlen(str[i]) + 1;

		if (n > cap - pos)
			return -EMSGSIZE;
		memcpy(buf + pos, str[i], n);
		pos += n;
	}
	return (long)pos;
}

int proto_notice_decode(const char *body, size_t len, struct msg_app_notice *m,
			const char **path)
{
	const char *p = body + sizeof(*m);

	if (len < sizeof(*m))
		return -EPROTO;
	memcpy(m, body, sizeof(*m));
	if (m->version != PROTO_NOTICE_VERSION || m->kind == 0 || m->kind >= NOTICE_MAX ||
	    m->pid == 0 || m->pid > PROTO_PID_MAX || m->path_len < 2 ||
	    m->path_len > PROTO_PATH_MAX || len - sizeof(*m) != m->path_len ||
	    memchr(p, 0, m->path_len) != p + m->path_len - 1)
		return -EPROTO;
	*path = p;
	return 0;
}

size_t proto_rec_size(uint32_t kind)
{
	switch (kind) {
	case REC_SESSION:	return sizeof(struct rec_session);
	case REC_CHANNEL:	return sizeof(struct rec_channel);
	case REC_ENABLER:	return sizeof(struct rec_enabler);
	case REC_PROCESS:	return sizeof(struct rec_process);
	case REC_NOTICE:	return sizeof(struct rec_notice);
	case REC_AGGREGATION:	return sizeof(struct rec_agg);
	case REC_EVENT:		return sizeof(struct rec_event);
	case REC_SNAPSHOT:	return sizeof(struct rec_snapshot);
	case REC_ROTATION:	return sizeof(struct rec_rotation);
	case REC_NOTE:
	case REC_ERROR:		return sizeof(struct rec_error);
	case REC_DAEMON:	return sizeof(struct rec_daemon);
	case REC_TRIGGER:	return sizeof(struct rec_trigger);
	case REC_FIRING:	return sizeof(struct rec_firing);
	case REC_EXCLUSION:	return sizeof(struct rec_exclusion);
	case REC_TRACK:		return sizeof(struct rec_track);
	default:		return 0;
	}
}

/* Does the char array @a hold a NUL? */
#define TERM(a)		(memchr((a), 0, sizeof(a)) != NULL)

/* Every char array of record @r of @kind terminated? */
static int rec_terminated(uint32_t kind, const union proto_rec_body *r)
{
	switch (kind) {
	case REC_SESSION:
		return TERM(r->session.name) && TERM(r->session.output) &&
		       TERM(r->session.relay_path) && TERM(r->session.stream_why);
	case REC_CHANNEL:
		return TERM(r->channel.session) && TERM(r->channel.name) &&
		       TERM(r->channel.stats.werr_path);
	case REC_ENABLER:
		return TERM(r->enabler.session) && TERM(r->enabler.channel) &&
		       TERM(r->enabler.pattern) && TERM(r->enabler.filter);
	case REC_PROCESS:
		return TERM(r->process.session) && TERM(r->process.name);
	case REC_NOTICE:
		return TERM(r->notice.session) && TERM(r->notice.path);
	case REC_AGGREGATION:
		for (unsigned int i = 0; i < CMD_AGG_KEYS; i++)
			if (!TERM(r->agg.key[i].field))
				return 0;
		for (unsigned int i = 0; i < CMD_AGG_FUNCS; i++)
			if (!TERM(r->agg.func[i].field))
				return 0;
		return TERM(r->agg.session) && TERM(r->agg.name) && TERM(r->agg.pattern) &&
		       TERM(r->agg.filter);
	case REC_EVENT:
		for (unsigned int i = 0; i < PROTO_MAX_FIELDS; i++)
			if (!TERM(r->event.field[i].name))
				return 0;
		return TERM(r->event.name);
	case REC_SNAPSHOT:
		return TERM(r->snapshot.session) && TERM(r->snapshot.path) &&
		       TERM(r->snapshot.output);
	case REC_ROTATION:
		return TERM(r->rotation.session) && TERM(r->rotation.path);
	case REC_NOTE:
	case REC_ERROR:
		return TERM(r->error.session) && TERM(r->error.name) && TERM(r->error.name2) &&
		       TERM(r->error.detail) && TERM(r->error.path);
	case REC_DAEMON:
		return TERM(r->daemon.version) && TERM(r->daemon.home);
	case REC_TRIGGER:
		return TERM(r->trigger.name) && TERM(r->trigger.action_session) &&
		       TERM(r->trigger.pattern) && TERM(r->trigger.agg_session) &&
		       TERM(r->trigger.agg) && TERM(r->trigger.when) &&
		       TERM(r->trigger.last_path) && TERM(r->trigger.filter);
	case REC_FIRING:
		for (unsigned int i = 0; i < PROTO_MAX_FIELDS; i++)
			if (!TERM(r->firing.field[i].name) || !TERM(r->firing.field[i].str))
				return 0;
		return TERM(r->firing.trigger) && TERM(r->firing.key) && TERM(r->firing.event);
	case REC_EXCLUSION:
		return TERM(r->exclusion.session) && TERM(r->exclusion.channel) &&
		       TERM(r->exclusion.pattern) && TERM(r->exclusion.exclude);
	case REC_TRACK:
		for (unsigned int i = 0; i < PROTO_TRACK_EXE_MAX; i++)
			if (!TERM(r->track.exe[i]))
				return 0;
		return TERM(r->track.session);
	default:
		return 0;
	}
}

int proto_item_decode(const void *body, size_t len, uint32_t *kind, union proto_rec_body *rec)
{
	struct msg_item h;
	size_t size;

	if (len < sizeof(h))
		return -EPROTO;
	memcpy(&h, body, sizeof(h));
	*kind = h.kind;
	size = proto_rec_size(h.kind);
	if (!size)
		return 0;	/* a kind of a later version: skipped */
	if (h.version < PROTO_REC_VERSION || len - sizeof(h) < size)
		return -EPROTO;
	memcpy(rec, (const char *)body + sizeof(h), size);
	return rec_terminated(h.kind, rec) ? 1 : -EPROTO;
}
