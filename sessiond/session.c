/* SPDX-License-Identifier: MIT */
/*
 * session.c - sessions, their channels and enabled-event patterns, and the
 * tracectl commands.
 *
 * Each channel of a session takes one of the SHM_MAX_CHAN channel slots
 * that every control page has; an event is recorded in a slot when the
 * slot's session is active and one of the channel's patterns matches the
 * event's "provider:event" name (and log level). Sessions are fully
 * independent: each channel has its own buffers (a pool per process and
 * channel), and each session its own output. enable-event without -c uses
 * the channel "channel0", created at the first use with the settings of
 * create (--overwrite, --pool-size).
 *
 * Commands arrive as one MSG_CMD per connection; the reply is zero or more
 * MSG_REPLY_TEXT messages (text to print) and one MSG_REPLY with the
 * status and, on error, the message.
 *
 * A session's output is checked at create by making it and writing a
 * probe in it, as the consumer will, then removing all that: the output
 * appears with the first trace, and a session that never traced leaves
 * nothing. Write errors the consumer meets later make stop, status (and a
 * destroy that stops) fail with the first error's path and errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "sessiond.h"
#include "ctfmeta.h"
#include "filter.h"
#include "glob.h"
#include "home.h"
#include "log.h"
#include "util.h"

#define DEFAULT_SUBBUF		(512u << 10)
#define DEFAULT_NUM_SUBBUF	16u
#define DEFAULT_POOL		10u
#define DEFAULT_FLUSH_MS	1000u

static int enabler_matches(const struct enabler *e, const char *name, int loglevel)
{
	if (e->ll_kind == LL_RANGE && loglevel > e->loglevel)
		return 0;
	if (e->ll_kind == LL_ONLY && loglevel != e->loglevel)
		return 0;
	return glob_match(e->pattern, name);
}

/* Compile @expr into @e's filter; on error, @err says what and where. */
int filter_set(struct enabler *e, const char *expr, char *err, size_t errlen)
{
	unsigned char code[SHM_FILTER_MAX_CODE];
	char msg[128];
	int col = 0;
	long len = flt_compile(expr, code, sizeof(code), &col, msg, sizeof(msg));

	if (len < 0) {
		if (len == -EINVAL)
			snprintf(err, errlen, "bad filter at column %d: %s", col, msg);
		else
			snprintf(err, errlen, "filter too long (at most %u bytes of bytecode)",
				 SHM_FILTER_MAX_CODE);
		return -EINVAL;
	}
	e->filter = strdup(expr);
	e->code = malloc((size_t)len);
	if (!e->filter || !e->code) {
		free(e->filter);
		free(e->code);
		e->filter = NULL;
		e->code = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(e->code, code, (size_t)len);
	e->code_len = (uint32_t)len;
	return 0;
}

/*
 * The filter that decides when the filtered patterns @parts all match one
 * event: their filters or-ed, compiled once and kept until the channel's
 * patterns change. NULL when that is too long: the event is then recorded
 * whatever its fields (more than asked for, never less).
 */
static const struct enabler *channel_combo(struct channel *ch, const struct enabler **parts,
					   unsigned int n)
{
	char expr[8192], err[200];
	size_t len = 0;
	struct enabler *e;

	for (unsigned int i = 0; i < n; i++) {
		int k = snprintf(expr + len, sizeof(expr) - len, "%s(%s)", i ? " || " : "",
				 parts[i]->filter);

		if (k < 0 || (size_t)k >= sizeof(expr) - len)
			return NULL;
		len += (size_t)k;
	}
	for (e = ch->combos; e; e = e->next)
		if (!strcmp(e->filter, expr))
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	if (filter_set(e, expr, err, sizeof(err)) < 0) {
		log_warn("channel %s: filters of several patterns cannot be combined (%s): "
			 "the events they share are recorded unfiltered", ch->name, err);
		free(e);
		return NULL;
	}
	e->next = ch->combos;
	ch->combos = e;
	return e;
}

/*
 * Does @ch record the event? 1, and *filter set to the enabler whose
 * filter decides: NULL when a matching pattern has no filter (the event is
 * then recorded whatever its fields), the pattern's when one matches, and
 * their filters or-ed when several do.
 */
static int channel_enables(struct channel *ch, const char *name, int loglevel,
			   const struct enabler **filter)
{
	const struct enabler *parts[16];
	unsigned int n = 0;

	*filter = NULL;
	for (const struct enabler *e = ch->enablers; e; e = e->next) {
		if (!enabler_matches(e, name, loglevel))
			continue;
		if (!e->code)
			return 1;
		if (n < sizeof(parts) / sizeof(parts[0]))
			parts[n] = e;
		n++;
	}
	if (n > sizeof(parts) / sizeof(parts[0]))
		return 1;	/* too many to combine: unfiltered */
	*filter = n > 1 ? channel_combo(ch, parts, n) : n ? parts[0] : NULL;
	return n > 0;
}

/* The channel slots that record the event, and the filter of each. */
unsigned int session_mask(const char *event_name, int loglevel,
			  const struct enabler *filter[SHM_MAX_CHAN])
{
	unsigned int m = 0;

	for (unsigned int i = 0; i < SHM_MAX_CHAN; i++) {
		struct channel *ch = sd.chan[i];

		filter[i] = NULL;
		if (ch && ch->session->active &&
		    channel_enables(ch, event_name, loglevel, &filter[i]))
			m |= 1u << i;
	}
	return m;
}

static struct session *session_by_name(const char *name)
{
	for (struct session *s = sd.sessions; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

/* The named session, or the only one when @name is empty. */
static struct session *session_get(int fd, const char *name)
{
	struct session *s;

	if (name[0]) {
		s = session_by_name(name);
		if (!s)
			reply_end(fd, -ENOENT, "no session named '%s'", name);
		return s;
	}
	if (!sd.sessions) {
		reply_end(fd, -ENOENT, "no session: create one first");
		return NULL;
	}
	if (sd.sessions->next) {
		reply_end(fd, -EINVAL, "several sessions exist: name one with -s NAME");
		return NULL;
	}
	return sd.sessions;
}

int channel_to_consumer(const struct channel *ch)
{
	struct msg_c_channel m;

	memset(&m, 0, sizeof(m));
	m.chan_id = ch->id;
	m.chan_slot = ch->slot;
	m.flush_ms = ch->flush_ms;
	m.mode = ch->mode;
	m.compress = ch->compress;
	m.relay_id = ch->session->relay_id;
	snprintf(m.name, sizeof(m.name), "%s", ch->name);
	snprintf(m.output, sizeof(m.output), "%s", ch->session->output);
	return consumer_call(MSG_C_CHANNEL_ADD, &m, sizeof(m), NULL, 0, NULL, 0);
}

int session_name_ok(const char *n)
{
	if (!n[0] || n[0] == '.' || strlen(n) >= PROTO_NAME_MAX)
		return 0;
	for (; *n; n++)
		if (*n == '/' || (unsigned char)*n < 33)
			return 0;
	return 1;
}

static int parse_u32(const char *arg, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || v < min || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static struct channel *channel_find(const struct session *s, const char *name)
{
	for (struct channel *ch = s->chans; ch; ch = ch->next)
		if (!strcmp(ch->name, name))
			return ch;
	return NULL;
}

/* A new channel of @s in a free slot, known to the consumer. */
static struct channel *channel_new(int fd, struct session *s, const struct channel *want)
{
	struct channel *ch;
	unsigned int slot;

	for (slot = 0; slot < SHM_MAX_CHAN && sd.chan[slot]; slot++)
		;
	if (slot == SHM_MAX_CHAN) {
		reply_end(fd, -EBUSY, "too many channels in all sessions (at most %d)",
			  SHM_MAX_CHAN);
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		reply_end(fd, -ENOMEM, "out of memory");
		return NULL;
	}
	*ch = *want;
	ch->id = ++sd.next_chan_id;
	ch->slot = slot;
	ch->session = s;
	ch->enablers = NULL;
	ch->next = NULL;
	/* the session's channels in creation order */
	for (struct channel **pp = &s->chans;; pp = &(*pp)->next) {
		if (!*pp) {
			*pp = ch;
			break;
		}
	}
	sd.chan[slot] = ch;
	channel_to_consumer(ch);
	return ch;
}

static void channel_defaults(const struct session *s, struct channel *ch, const char *name)
{
	memset(ch, 0, sizeof(*ch));
	snprintf(ch->name, sizeof(ch->name), "%s", name);
	ch->subbuf_size = DEFAULT_SUBBUF;
	ch->num_subbuf = DEFAULT_NUM_SUBBUF;
	ch->pool_size = s->def_pool;
	ch->mode = s->def_mode;
	ch->flush_ms = DEFAULT_FLUSH_MS;
	if (s->live_us)		/* live: open packets go out every period */
		ch->flush_ms = s->live_us >= 2000 ? s->live_us / 1000 : 1;
}

/*
 * Can traces be written in @dir? Every missing directory is made, then a
 * directory and a file of 4 KiB in it, as the consumer (running as we do)
 * would; then everything made is removed again. Returns 0, or -errno with
 * the path that failed in @what.
 */
static int output_probe(const char *dir, char *what, size_t len)
{
	static const char block[4096];
	char path[PROTO_PATH_MAX], probe[PROTO_PATH_MAX + 64], file[PROTO_PATH_MAX + 80];
	size_t n = strlen(dir), made = 0;
	struct stat sb;
	int ret = 0, pfd;

	if (n == 0 || n >= sizeof(path))
		return -ENAMETOOLONG;
	snprintf(what, len, "%s", dir);
	for (size_t i = 1; i <= n && ret == 0; i++) {
		if (dir[i] != '/' && dir[i] != 0)
			continue;
		memcpy(path, dir, i);
		path[i] = 0;
		if (mkdir(path, 0750) == 0) {
			if (!made)
				made = i;
		} else if (errno != EEXIST) {
			ret = -errno;
			snprintf(what, len, "%s", path);
		}
	}
	if (ret == 0 && stat(dir, &sb) < 0)
		ret = -errno;
	else if (ret == 0 && !S_ISDIR(sb.st_mode))
		ret = -ENOTDIR;
	if (ret < 0)
		goto undo;
	for (int i = 0; i < 100; i++) {
		snprintf(probe, sizeof(probe), "%s/.shmtrace-probe-%d-%d", dir, (int)getpid(), i);
		ret = mkdir(probe, 0750) == 0 ? 0 : -errno;
		if (ret != -EEXIST)
			break;
	}
	if (ret < 0)
		goto undo;
	snprintf(file, sizeof(file), "%s/probe", probe);
	pfd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (pfd < 0) {
		ret = -errno;
	} else {
		ret = write_all(pfd, block, sizeof(block));
		if (close(pfd) < 0 && ret == 0)
			ret = -errno;
		unlink(file);
	}
	rmdir(probe);
undo:
	/* what we made, deepest first */
	for (size_t i = n; made && i >= made; i--) {
		if (dir[i] != '/' && dir[i] != 0)
			continue;
		memcpy(path, dir, i);
		path[i] = 0;
		rmdir(path);
	}
	return ret;
}

static int cmd_create(int fd, const char *name, int argc, const char **argv)
{
	char what[PROTO_PATH_MAX];
	char gen[PROTO_NAME_MAX], stamp[32];
	struct session *s;
	time_t now = time(NULL);
	struct tm tm;
	uint32_t pool = DEFAULT_POOL;
	int ret, net;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (!name[0]) {
		snprintf(gen, sizeof(gen), "auto-%s", stamp);
		name = gen;
	}
	if (!session_name_ok(name))
		return reply_end(fd, -EINVAL, "invalid session name '%s'", name);
	if (session_by_name(name))
		return reply_end(fd, -EEXIST, "session '%s' already exists", name);
	if (argc > 2 && argv[2][0] && parse_u32(argv[2], 1, SHM_MAX_SLOTS, &pool) < 0)
		return reply_end(fd, -EINVAL, "--pool-size must be 1 to %u", SHM_MAX_SLOTS);
	s = calloc(1, sizeof(*s));
	if (!s)
		return reply_end(fd, -ENOMEM, "out of memory");
	snprintf(s->name, sizeof(s->name), "%s", name);
	ret = allow_create(fd, s, argc > 3 ? argv[3] : "");
	if (ret < 0) {
		free(s);
		allow_update();
		return ret;
	}
	net = argc > 7 && (argv[4][0] || argv[5][0] || argv[6][0] || argv[7][0]);
	if (net) {
		ret = argv[0][0] ? reply_end(fd, -EINVAL, "--output and a relay address exclude "
					     "each other") :
		      netout_create(fd, s, argv[4], argv[5], argv[6], argv[7], stamp);
		if (ret < 0) {
			free(s);
			allow_update();
			return ret;
		}
	} else if (argc > 0 && argv[0][0]) {
		if (argv[0][0] != '/' || strlen(argv[0]) >= sizeof(s->output) - 64) {
			free(s);
			allow_update();
			return reply_end(fd, -EINVAL, "output must be an absolute path");
		}
		snprintf(s->output, sizeof(s->output), "%s", argv[0]);
	} else {
		snprintf(s->output, sizeof(s->output), "%s/%s/%s-%s", sd.home, HOME_TRACES,
			 name, stamp);
	}
	ret = net ? 0 : output_probe(s->output, what, sizeof(what));
	if (ret < 0) {
		if (strcmp(what, s->output))
			reply_end(fd, ret, "cannot write traces in %s: %s: %s", s->output, what,
				  strerror(-ret));
		else
			reply_end(fd, ret, "cannot write traces in %s: %s", s->output, strerror(-ret));
		free(s);
		allow_update();
		return ret;
	}
	s->def_pool = pool;
	s->def_mode = argc > 1 && !strcmp(argv[1], "overwrite") ? SHM_MODE_OVERWRITE :
		      SHM_MODE_DISCARD;
	s->next = sd.sessions;
	sd.sessions = s;
	log_info("session %s created, output %s", s->name, s->output);
	reply_text(fd, "Session %s created.\nTraces will be written in %s\n", s->name, s->output);
	return reply_end(fd, 0, NULL);
}

/*
 * enable-channel NAME [key=value...]: subbuf (bytes, a power of two),
 * num (sub-buffers), mode (discard|overwrite), flush (ms, 0 = never),
 * pool (buffers), compress (none|lz4).
 */
static int cmd_enable_channel(int fd, struct session *s, int argc, const char **argv)
{
	struct channel want, *ch;

	if (argc < 1 || !session_name_ok(argv[0]) || strlen(argv[0]) > 32)
		return reply_end(fd, -EINVAL, "invalid channel name");
	if (channel_find(s, argv[0]))
		return reply_end(fd, -EEXIST, "channel %s exists in session %s (settings are "
				 "fixed once created)", argv[0], s->name);
	channel_defaults(s, &want, argv[0]);
	for (int i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		const char *v = eq ? eq + 1 : "";
		size_t klen = eq ? (size_t)(eq - argv[i]) : 0;
		int bad = 0;

		if (klen == 6 && !strncmp(argv[i], "subbuf", 6))
			bad = parse_u32(v, 4096, 64u << 20, &want.subbuf_size);
		else if (klen == 3 && !strncmp(argv[i], "num", 3))
			bad = parse_u32(v, 2, 1024, &want.num_subbuf);
		else if (klen == 5 && !strncmp(argv[i], "flush", 5))
			bad = parse_u32(v, 0, 3600000, &want.flush_ms);
		else if (klen == 4 && !strncmp(argv[i], "pool", 4))
			bad = parse_u32(v, 1, SHM_MAX_SLOTS, &want.pool_size);
		else if (klen == 4 && !strncmp(argv[i], "mode", 4) && !strcmp(v, "discard"))
			want.mode = SHM_MODE_DISCARD;
		else if (klen == 4 && !strncmp(argv[i], "mode", 4) && !strcmp(v, "overwrite"))
			want.mode = SHM_MODE_OVERWRITE;
		else if (klen == 8 && !strncmp(argv[i], "compress", 8) && !strcmp(v, "lz4"))
			want.compress = PROTO_COMPRESS_LZ4;
		else if (klen == 8 && !strncmp(argv[i], "compress", 8) && !strcmp(v, "none"))
			want.compress = PROTO_COMPRESS_NONE;
		else
			bad = -EINVAL;
		if (bad)
			return reply_end(fd, -EINVAL, "bad channel setting '%s'", argv[i]);
	}
	if (want.compress && s->relay_id)
		return reply_end(fd, -EINVAL, "--compress: not for a session streamed to a relay "
				 "(the relay stores plain CTF)");
	if (!shm_geometry_ok(want.subbuf_size, want.num_subbuf))
		return reply_end(fd, -EINVAL, "sub-buffers: %u to %u bytes (whole pages), "
				 "2 to %u of them", SHM_MIN_SUBBUF, SHM_MAX_SUBBUF,
				 SHM_MAX_NUM_SUBBUF);
	ch = channel_new(fd, s, &want);
	if (!ch)
		return -EBUSY;
	apps_update_all();
	reply_text(fd, "Channel %s enabled in session %s.\n", ch->name, s->name);
	return reply_end(fd, 0, NULL);
}

static void session_flush(struct session *s)
{
	for (const struct channel *ch = s->chans; ch; ch = ch->next) {
		struct msg_c_id m = { .id = ch->id };

		consumer_call(MSG_C_FLUSH, &m, sizeof(m), NULL, 0, NULL, 0);
	}
}

/*
 * The output's marker (PROTO_ACTIVE_MARKER) says to readers following the
 * session that more may come: made at start, removed once stop wrote
 * everything out (with the directory, when start made it and it stayed
 * empty).
 */
static void marker_path(const struct session *s, char *buf, size_t len)
{
	snprintf(buf, len, "%.4000s/%s", s->output, PROTO_ACTIVE_MARKER);
}

static void marker_make(struct session *s)
{
	char path[PROTO_PATH_MAX + 64], text[64];
	uint32_t ms = DEFAULT_FLUSH_MS;
	struct stat sb;
	int fd;

	if (s->relay_id)
		return;
	for (const struct channel *ch = s->chans; ch; ch = ch->next)
		if (ch->flush_ms > ms)
			ms = ch->flush_ms;
	s->made_output = stat(s->output, &sb) < 0 && mkdir_p(s->output, 0750) == 0;
	marker_path(s, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0)
		return;		/* (only followers miss it) */
	write_all(fd, text, (size_t)snprintf(text, sizeof(text), "%d %u\n", (int)getpid(), ms));
	close(fd);
}

static void marker_remove(struct session *s)
{
	char path[PROTO_PATH_MAX + 64];

	if (s->relay_id)
		return;
	marker_path(s, path, sizeof(path));
	unlink(path);
	if (s->made_output)
		rmdir(s->output);	/* only when empty */
	s->made_output = 0;
}

static void session_stop(struct session *s)
{
	struct timespec ts = { 0, 2000000 };

	s->active = 0;
	apps_update_all();
	nanosleep(&ts, NULL);	/* let events already being written commit */
	session_flush(s);
	s->agg_werr = aggs_write(s, s->agg_msg, sizeof(s->agg_msg));
	if (s->agg_werr)
		log_warn("session %s: %s", s->name, s->agg_msg);
	marker_remove(s);
}

static void enabler_free(struct enabler *e)
{
	free(e->filter);
	free(e->code);
	free(e);
}

static void enablers_free(struct enabler *e)
{
	while (e) {
		struct enabler *next = e->next;

		enabler_free(e);
		e = next;
	}
}

static int session_rotate(struct session *s);

static void session_destroy(struct session *s)
{
	if (s->active)
		session_stop(s);
	if (s->nrotations)
		session_rotate(s);	/* the last chunk too: each chunk on its own */
	for (struct session **pp = &sd.sessions; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	while (s->chans) {
		struct channel *ch = s->chans;
		struct msg_c_id m = { .id = ch->id };

		s->chans = ch->next;
		consumer_call(MSG_C_CHANNEL_DEL, &m, sizeof(m), NULL, 0, NULL, 0);
		sd.chan[ch->slot] = NULL;
		apps_update_all();
		apps_forget_channel(ch->id);
		enablers_free(ch->enablers);
		enablers_free(ch->combos);
		free(ch);
	}
	aggs_free(s);
	netout_close(s);
	log_info("session %s destroyed", s->name);
	notices_free(s);
	free(s);
	allow_update();
}

static const char *const ll_names[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

/*
 * PATTERN, then conditions each after a PROTO_ARG_SEP: "r6" or "o7" (log
 * level), "fEXPR" (filter, compiled here). On a bad filter, @err says
 * what and where.
 */
static int enabler_parse(struct enabler *e, const char *arg, char *err, size_t errlen)
{
	const char *sep = strchr(arg, PROTO_ARG_SEP);
	size_t n = sep ? (size_t)(sep - arg) : strlen(arg);

	memset(e, 0, sizeof(*e));
	snprintf(err, errlen, "invalid event pattern");
	if (n == 0 || n >= PROTO_EVNAME_MAX)
		return -EINVAL;
	memcpy(e->pattern, arg, n);
	e->pattern[n] = 0;
	e->ll_kind = LL_ANY;
	while (sep) {
		const char *c = sep + 1, *next = strchr(c, PROTO_ARG_SEP);

		if ((*c == 'r' || *c == 'o') && c[1] >= '0' && c[1] <= '7' &&
		    (c[2] == 0 || c[2] == PROTO_ARG_SEP)) {
			e->ll_kind = *c == 'r' ? LL_RANGE : LL_ONLY;
			e->loglevel = c[1] - '0';
		} else if (*c == 'f' && !next && !e->code) {
			int ret = filter_set(e, c + 1, err, errlen);

			if (ret < 0)
				return ret;
		} else {
			return -EINVAL;
		}
		sep = next;
	}
	return 0;
}

static void enabler_describe(const struct enabler *e, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", e->pattern);

	if (e->ll_kind != LL_ANY && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " (loglevel %s %s)",
			      e->ll_kind == LL_RANGE ? "<=" : "==", ll_names[e->loglevel]);
	if (e->filter && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " [filter: %s]", e->filter);
}

/*
 * The channel named by a first argument "SEP channel=NAME", else the
 * default channel (created at its first use when @create).
 */
static struct channel *enable_channel(int fd, struct session *s, int *argc, const char ***argv,
				      int create)
{
	const char *name = "channel0";
	struct channel *ch, want;

	if (*argc > 0 && (*argv)[0][0] == PROTO_ARG_SEP) {
		if (strncmp((*argv)[0] + 1, "channel=", 8)) {
			reply_end(fd, -EINVAL, "bad argument");
			return NULL;
		}
		name = (*argv)[0] + 9;
		(*argc)--;
		(*argv)++;
		ch = channel_find(s, name);
		if (!ch)
			reply_end(fd, -ENOENT, "no channel %s in session %s", name, s->name);
		return ch;
	}
	ch = channel_find(s, name);
	if (ch || !create) {
		if (!ch)
			reply_end(fd, -ENOENT, "no channel %s in session %s", name, s->name);
		return ch;
	}
	channel_defaults(s, &want, name);
	return channel_new(fd, s, &want);
}

static int cmd_enable(int fd, struct session *s, int argc, const char **argv)
{
	struct channel *ch = enable_channel(fd, s, &argc, &argv, 1);

	if (!ch)
		return -ENOENT;
	enablers_free(ch->combos);	/* the patterns change: made again */
	ch->combos = NULL;
	for (int i = 0; i < argc; i++) {
		struct enabler *e, want;
		char what[PROTO_EVNAME_MAX + 1200], err[200];
		int ret = enabler_parse(&want, argv[i], err, sizeof(err));

		if (ret < 0) {
			apps_update_all();
			return reply_end(fd, ret, "%s", err);
		}
		for (e = ch->enablers; e; e = e->next)
			if (!strcmp(e->pattern, want.pattern))
				break;
		if (!e) {
			e = calloc(1, sizeof(*e));
			if (!e)
				return reply_end(fd, -ENOMEM, "out of memory");
			e->next = ch->enablers;
			ch->enablers = e;
		}
		/* enabling a pattern again replaces its conditions */
		free(e->filter);
		free(e->code);
		want.next = e->next;
		*e = want;
		enabler_describe(e, what, sizeof(what));
		reply_text(fd, "Event pattern '%s' enabled in channel %s of session %s.\n", what,
			   ch->name, s->name);
	}
	apps_update_all();
	return reply_end(fd, 0, NULL);
}

static int cmd_disable(int fd, struct session *s, int argc, const char **argv)
{
	struct channel *ch = enable_channel(fd, s, &argc, &argv, 0);

	if (!ch)
		return -ENOENT;
	enablers_free(ch->combos);	/* the patterns change: made again */
	ch->combos = NULL;
	for (int i = 0; i < argc; i++) {
		struct enabler **pp = &ch->enablers;

		while (*pp && strcmp((*pp)->pattern, argv[i]))
			pp = &(*pp)->next;
		if (!*pp) {
			apps_update_all();
			return reply_end(fd, -ENOENT, "pattern '%s' is not enabled in session %s",
					 argv[i], s->name);
		}
		struct enabler *e = *pp;

		*pp = e->next;
		enabler_free(e);
		reply_text(fd, "Event pattern '%s' disabled in session %s.\n", argv[i], s->name);
	}
	apps_update_all();
	return reply_end(fd, 0, NULL);
}

/* Names of the context fields in @ctx, comma-separated, or "none". */
static void context_names(uint32_t ctx, char *buf, size_t len)
{
	size_t n = 0;

	snprintf(buf, len, "none");
	for (unsigned int i = 0; i < CTF_NCONTEXTS; i++)
		if (ctx & ctf_contexts[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      ctf_contexts[i].name);
}

/*
 * add-context [SEP channel=NAME] FIELD...: the channel's events carry these
 * context fields; without a channel, every channel of the session (the
 * default one is made when there is none). Only before the session first
 * starts: a stream's layout never changes.
 */
static int cmd_add_context(int fd, struct session *s, int argc, const char **argv)
{
	int all = !(argc > 0 && argv[0][0] == PROTO_ARG_SEP);
	struct channel *ch;
	uint32_t ctx = 0;
	char names[128];

	if (s->started)
		return reply_end(fd, -EBUSY, "session %s has been started: context fields can "
				 "only be added before the first start", s->name);
	ch = enable_channel(fd, s, &argc, &argv, 1);
	if (!ch)
		return -ENOENT;
	if (argc == 0)
		return reply_end(fd, -EINVAL, "no context field named");
	for (int i = 0; i < argc; i++) {
		uint32_t bit = ctf_context_bit(argv[i]);

		if (!bit) {
			context_names(SHMTRACE__CTX_ALL, names, sizeof(names));
			return reply_end(fd, -EINVAL, "unknown context field '%s' (known: %s)",
					 argv[i], names);
		}
		ctx |= bit;
	}
	for (ch = all ? s->chans : ch; ch; ch = all ? ch->next : NULL) {
		ch->context |= ctx;
		context_names(ch->context, names, sizeof(names));
		reply_text(fd, "Context of channel %s in session %s: %s.\n", ch->name, s->name,
			   names);
	}
	apps_update_all();
	return reply_end(fd, 0, NULL);
}

static int cmd_list(int fd)
{
	if (!sd.sessions)
		reply_text(fd, "No session.\n");
	for (const struct session *s = sd.sessions; s; s = s->next)
		reply_text(fd, "%s [%s] %s\n", s->name, s->active ? "active" : "inactive", s->output);
	return reply_end(fd, 0, NULL);
}

static const char *type_name(uint32_t t)
{
	static const char *const n[] = { "?", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
					 "s64", "hex64", "double", "string" };
	static char seq[32];

	if (t & SHMTRACE_TYPE_SEQ) {
		snprintf(seq, sizeof(seq), "sequence<%s>", type_name(t & ~(uint32_t)SHMTRACE_TYPE_SEQ));
		return seq;
	}
	return t < ARRAY_SIZE(n) ? n[t] : "?";
}

static int cmd_list_events(int fd)
{
	if (!sd.apps)
		reply_text(fd, "No traced process.\n");
	for (const struct app *a = sd.apps; a; a = a->next) {
		reply_text(fd, "%s[%d]\n", a->procname, (int)a->pid);
		for (uint32_t id = 0; id < a->nev; id++) {
			const struct proto_event *e = &a->ev[id].desc;
			char fields[2048];
			size_t pos = 0;

			if (!a->ev[id].known)
				continue;
			fields[0] = 0;
			for (uint32_t k = 0; k < e->nfields && pos < sizeof(fields) - 100; k++)
				pos += (size_t)snprintf(fields + pos, sizeof(fields) - pos, "%s%s %s",
							k ? ", " : "", type_name(e->fields[k].type),
							e->fields[k].name);
			reply_text(fd, "    %s (loglevel %d) { %s }\n", e->name, (int)e->loglevel, fields);
		}
	}
	return reply_end(fd, 0, NULL);
}

/*
 * The write errors of @ch, as @st says: 0, or a line of text, the first
 * error as -errno and, in @msg when it is the session's first, what it was.
 */
static int werror_report(int fd, const struct channel *ch, const struct msg_c_stats *st,
			 char *msg, size_t len)
{
	char path[PROTO_PATH_MAX];

	if (st->werr <= 0)
		return 0;
	memcpy(path, st->werr_path, sizeof(path));
	path[sizeof(path) - 1] = 0;
	/* (tracectl record adds up the "N events lost to write errors") */
	reply_text(fd, "Channel %s of session %s: %" PRIu64 " events lost to write errors in %u "
		   "trace%s; first error: %s: %s (errno %d)\n", ch->name, ch->session->name,
		   st->wlost, st->werr_traces, st->werr_traces == 1 ? "" : "s", path,
		   strerror(st->werr), (int)st->werr);
	if (st->unconfirmed)
		reply_text(fd, "Channel %s of session %s: of the events sent, %" PRIu64 " were not "
			   "confirmed stored when the relay went away (some of them may be in "
			   "its output)\n", ch->name, ch->session->name, st->unconfirmed);
	if (msg[0] == 0)
		snprintf(msg, len, "session %s: cannot write %s: %s (%" PRIu64 " events lost)",
			 ch->session->name, path, strerror(st->werr), st->wlost);
	return -st->werr;
}

/* Report the write errors of @s's channels; the first as -errno and @msg. */
static int session_werrors(int fd, const struct session *s, char *msg, size_t len)
{
	int ret = 0, err;

	msg[0] = 0;
	for (const struct channel *ch = s->chans; ch; ch = ch->next) {
		struct msg_c_id m = { .id = ch->id };
		struct msg_c_stats st;

		memset(&st, 0, sizeof(st));
		if (consumer_call(MSG_C_STATS, &m, sizeof(m), NULL, 0, &st, sizeof(st)) < 0)
			continue;
		err = werror_report(fd, ch, &st, msg, len);
		if (!ret)
			ret = err;
	}
	err = netout_error(fd, s, msg, len);
	if (!ret && !err && s->agg_werr) {	/* aggregations.json at the last stop */
		snprintf(msg, len, "%s", s->agg_msg);
		err = s->agg_werr;
	}
	return ret ? ret : err;
}

/* Returns the channel's first write error as -errno (@msg set), or 0. */
static int status_channel(int fd, const struct channel *ch, char *msg, size_t len)
{
	struct msg_c_id m = { .id = ch->id };
	struct msg_c_stats st;
	char names[128];
	int ret;

	memset(&st, 0, sizeof(st));
	ret = consumer_call(MSG_C_STATS, &m, sizeof(m), NULL, 0, &st, sizeof(st));
	reply_text(fd, "  channel %s: %s, %u sub-buffers of %u KiB, pool of %u buffers, "
		   "flush every %u ms%s\n", ch->name,
		   ch->mode == SHM_MODE_DISCARD ? "discard" : "overwrite", ch->num_subbuf,
		   ch->subbuf_size >> 10, ch->pool_size, ch->flush_ms,
		   ch->compress == PROTO_COMPRESS_LZ4 ? ", lz4" : "");
	if (ch->context) {
		context_names(ch->context, names, sizeof(names));
		reply_text(fd, "    context: %s\n", names);
	}
	reply_text(fd, "    enabled events:%s\n", ch->enablers ? "" : " none");
	for (const struct enabler *e = ch->enablers; e; e = e->next) {
		char what[PROTO_EVNAME_MAX + 1200];

		enabler_describe(e, what, sizeof(what));
		reply_text(fd, "      %s\n", what);
	}
	if (ret < 0)
		reply_text(fd, "    consumer: not available (%s)\n", strerror(-ret));
	else
		reply_text(fd, "    events recorded: %" PRIu64 "\n    events discarded: %" PRIu64
			   "\n    events overwritten: %" PRIu64 "\n    bytes written: %" PRIu64
			   "\n    streams: %" PRIu64 "\n    buffers: %" PRIu64
			   "\n    events lost without a buffer: %" PRIu64
			   "\n    events lost to write errors: %" PRIu64 "\n",
			   st.events, st.discarded, st.overwritten, st.bytes, st.streams,
			   st.buffers, st.nobuf, st.wlost);
	if (ret >= 0 && ch->session->relay_id)
		reply_text(fd, "    events sent but not confirmed stored by a relay that went away: "
			   "%" PRIu64 "\n", st.unconfirmed);
	return ret < 0 ? 0 : werror_report(fd, ch, &st, msg, len);
}

/* A traced process, and what it did to our means of reaching it. */
static void status_app(int fd, const struct app *a)
{
	reply_text(fd, "    %s[%d]%s\n", a->procname, (int)a->pid,
		   a->detached ? ": closed its connection to the session daemon; its buffers "
				 "are still written out, it registers again at its next event" : "");
	if (a->reattached)
		reply_text(fd, "      registered again %u times after closing shmtrace's "
			   "descriptors\n", a->reattached);
	if (!a->signo || a->bell_lost)
		reply_text(fd, "      no doorbell signal: control changes are seen at its next "
			   "event\n");
}

static int cmd_status(int fd, const char *name)
{
	char msg[PROTO_PATH_MAX + 256] = "";
	int shown = 0, werr = 0;

	for (struct session *s = sd.sessions; s; s = s->next) {
		int nproc = 0, err;

		if (name[0] && strcmp(name, s->name))
			continue;
		shown++;
		reply_text(fd, "Session %s: %s\n  output: %s\n", s->name,
			   s->active ? "active" : "inactive", s->output);
		for (const struct app *a = sd.apps; a; a = a->next)
			nproc++;
		reply_text(fd, "  traced processes: %d\n", nproc);
		fds_status(fd);
		for (const struct app *a = sd.apps; a; a = a->next)
			status_app(fd, a);
		allow_status(fd, s);
		notices_status(fd, s);
		if (!channel_find(s, "channel0"))
			reply_text(fd, "  channel0 (made by enable-event without -c): %s, pool of %u "
				   "buffers\n", s->def_mode == SHM_MODE_DISCARD ? "discard" : "overwrite",
				   s->def_pool);
		for (const struct channel *ch = s->chans; ch; ch = ch->next) {
			err = status_channel(fd, ch, msg, sizeof(msg));
			if (!werr)
				werr = err;
		}
		aggs_status(fd, s);
		err = netout_error(fd, s, msg, sizeof(msg));
		if (!werr)
			werr = err;
	}
	if (name[0] && !shown)
		return reply_end(fd, -ENOENT, "no session named '%s'", name);
	if (werr)
		return reply_end(fd, werr, "%s", msg);
	if (!shown)
		reply_text(fd, "No session. Session daemon pid %d, home %s\n", (int)getpid(), sd.home);
	return reply_end(fd, 0, NULL);
}

/* Close the current chunk of @s into OUTPUT/chunk-N; the next one begins. */
static int session_rotate(struct session *s)
{
	struct msg_c_snapshot m;
	int ret;

	if (!s->chans)
		return -ENOENT;
	memset(&m, 0, sizeof(m));
	if (snprintf(m.output, sizeof(m.output), "%.4000s/chunk-%u", s->output, s->nrotations) >=
	    (int)sizeof(m.output))
		return -ENAMETOOLONG;
	m.chan_id = s->chans->id;	/* the consumer rotates the session's output */
	ret = consumer_call(MSG_C_ROTATE, &m, sizeof(m), NULL, 0, NULL, 0);
	if (ret < 0)
		return ret;
	s->nrotations++;
	s->rot_last_ns = now_ns(CLOCK_MONOTONIC);
	log_info("session %s: chunk %u closed", s->name, s->nrotations - 1);
	return 0;
}

static uint64_t session_bytes(const struct session *s)
{
	uint64_t b = 0;

	for (const struct channel *ch = s->chans; ch; ch = ch->next) {
		struct msg_c_id m = { .id = ch->id };
		struct msg_c_stats st;

		memset(&st, 0, sizeof(st));
		if (consumer_call(MSG_C_STATS, &m, sizeof(m), NULL, 0, &st, sizeof(st)) == 0)
			b += st.bytes;
	}
	return b;
}

/* Automatic rotations due (called from the main loop). */
void sessions_tick(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	for (struct session *s = sd.sessions; s; s = s->next) {
		if (!s->active || (!s->rot_ms && !s->rot_bytes))
			continue;
		if ((s->rot_ms && now - s->rot_last_ns >= s->rot_ms * 1000000u) ||
		    (s->rot_bytes && session_bytes(s) >= s->rot_bytes * (s->nrotations + 1)))
			session_rotate(s);
	}
}

/* How often the main loop must call sessions_tick(), in ms. */
int sessions_tick_ms(void)
{
	for (const struct session *s = sd.sessions; s; s = s->next)
		if (s->rot_ms || s->rot_bytes)
			return 100;
	return 1000;
}

/* rotate [size=BYTES] [every=MS]: now, or automatically from now on. */
static int cmd_rotate(int fd, struct session *s, int argc, const char **argv)
{
	int ret;

	if (s->relay_id)
		return reply_end(fd, -EOPNOTSUPP, "session %s streams to a relay: no chunks",
				 s->name);
	if (argc > 0) {
		for (int i = 0; i < argc; i++) {
			uint32_t v;

			if (!strncmp(argv[i], "size=", 5) && !parse_u32(argv[i] + 5, 0, UINT32_MAX, &v))
				s->rot_bytes = (uint64_t)v << 10;	/* KiB */
			else if (!strncmp(argv[i], "every=", 6) &&
				 !parse_u32(argv[i] + 6, 0, UINT32_MAX, &v))
				s->rot_ms = v;
			else
				return reply_end(fd, -EINVAL, "bad rotation setting '%s'", argv[i]);
		}
		s->rot_last_ns = now_ns(CLOCK_MONOTONIC);
		reply_text(fd, "Session %s rotates every %" PRIu64 " ms, every %" PRIu64
			   " KiB (0: not)\n", s->name, s->rot_ms, s->rot_bytes >> 10);
		return reply_end(fd, 0, NULL);
	}
	ret = session_rotate(s);
	if (ret < 0)
		return reply_end(fd, ret, "rotation failed: %s", strerror(-ret));
	reply_text(fd, "Session %s: chunk %u written to %s/chunk-%u\n", s->name, s->nrotations - 1,
		   s->output, s->nrotations - 1);
	return reply_end(fd, 0, NULL);
}

/*
 * Where snapshot @n of @s goes by default: next to the session's output,
 * never in it (OUTPUT-snapshot-N-DATE), so that reading the output reads
 * each event once.
 */
static int snapshot_default(const struct session *s, unsigned int n, const char *stamp,
			    char *out, size_t len)
{
	char real[PATH_MAX];
	const char *base = realpath(s->output, real) ? real : s->output;
	size_t blen = strlen(base);

	while (blen > 1 && base[blen - 1] == '/')
		blen--;
	if (blen <= 1)
		return -EINVAL;		/* the root: there is no "next to" */
	if (snprintf(out, len, "%.*s-snapshot-%u-%s", (int)blen, base, n, stamp) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* Is @dir inside @top (both existing)? */
static int path_inside(const char *dir, const char *top)
{
	char d[PATH_MAX], t[PATH_MAX];
	size_t n;

	if (!realpath(dir, d) || !realpath(top, t))
		return 0;
	n = strlen(t);
	return !strncmp(d, t, n) && (d[n] == '/' || (n == 1 && d[0] == '/'));
}

/*
 * snapshot [OUTPUT]: what the buffers of every channel hold now, as traces
 * of their own (the consumer copies the session's channels at once).
 */
static int cmd_snapshot(int fd, struct session *s, int argc, const char **argv)
{
	struct msg_c_snapshot m;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int ret = 0, given = argc > 0 && argv[0][0];

	if (s->relay_id)
		return reply_end(fd, -EOPNOTSUPP, "session %s streams to a relay: no snapshots",
				 s->name);
	memset(&m, 0, sizeof(m));
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (given) {
		if (argv[0][0] != '/' || strlen(argv[0]) >= sizeof(m.output) - 64)
			return reply_end(fd, -EINVAL, "output must be an absolute path");
		snprintf(m.output, sizeof(m.output), "%s", argv[0]);
	} else {
		ret = snapshot_default(s, s->nsnapshots + 1, stamp, m.output, sizeof(m.output));
		if (ret < 0)
			return reply_end(fd, ret, "no default place for a snapshot of output %s: "
					 "give --output", s->output);
	}
	if (!s->chans)
		return reply_end(fd, -ENOENT, "session %s has no channel", s->name);
	m.chan_id = s->chans->id;	/* the consumer copies the session's output */
	ret = consumer_call(MSG_C_SNAPSHOT, &m, sizeof(m), NULL, 0, NULL, 0);
	if (ret == -ENOENT)
		return reply_end(fd, ret, "nothing to snapshot: no process traced by session %s has "
				 "buffers (none alive, or none emitted an enabled event)", s->name);
	if (ret < 0)
		return reply_end(fd, ret, "snapshot into %s failed: %s", m.output, strerror(-ret));
	if (!given)
		s->nsnapshots++;	/* N of the default places */
	reply_text(fd, "Snapshot of session %s written to %s\n", s->name, m.output);
	if (path_inside(m.output, s->output))
		reply_text(fd, "Note: it is inside the session's output: reading %s reads its "
			   "events twice.\n", s->output);
	return reply_end(fd, 0, NULL);
}

/* stop: everything recorded is on disk, or the write errors are said. */
static int cmd_stop(int fd, struct session *s)
{
	char msg[PROTO_PATH_MAX + 256];
	int ret;

	if (!s->active)
		return reply_end(fd, -EALREADY, "session %s is not active", s->name);
	session_stop(s);
	reply_text(fd, "Tracing stopped for session %s.\n", s->name);
	ret = session_werrors(fd, s, msg, sizeof(msg));
	return ret ? reply_end(fd, ret, "%s", msg) : reply_end(fd, 0, NULL);
}

/* destroy: an active session is stopped first, its write errors said. */
static int cmd_destroy(int fd, struct session *s)
{
	char msg[PROTO_PATH_MAX + 256];
	int ret = 0;

	if (s->active) {
		session_stop(s);
		ret = session_werrors(fd, s, msg, sizeof(msg));
	}
	reply_text(fd, "Session %s destroyed.\n", s->name);
	session_destroy(s);
	return ret ? reply_end(fd, ret, "%s", msg) : reply_end(fd, 0, NULL);
}

int session_command(int fd, const char *body, size_t len)
{
	const struct msg_cmd *c = (const void *)body;
	const char *argv[256];
	int argc = proto_cmd_args(body, len, argv, 256);
	struct session *s;
	char name[PROTO_NAME_MAX];

	if (argc < 0) {
		log_warn("malformed command refused");
		return reply_end(fd, -EPROTO, "malformed command");
	}
	memcpy(name, c->session, sizeof(name));
	switch (c->verb) {
	case VERB_PING:
		return reply_end(fd, 0, NULL);
	case VERB_CREATE:
		return cmd_create(fd, name, argc, argv);
	case VERB_LIST:
		return cmd_list(fd);
	case VERB_LIST_EVENTS:
		return cmd_list_events(fd);
	case VERB_STATUS:
		return cmd_status(fd, name);
	case VERB_PROCESSES:
		return cmd_processes(fd);
	default:
		break;
	}
	if (c->verb >= VERB_MAX)
		return reply_end(fd, -EINVAL, "unknown command %u", c->verb);
	s = session_get(fd, name);
	if (!s)
		return -ENOENT;
	switch (c->verb) {
	case VERB_DESTROY:
		return cmd_destroy(fd, s);
	case VERB_ENABLE_EVENT:
		return cmd_enable(fd, s, argc, argv);
	case VERB_ENABLE_CHANNEL:
		return cmd_enable_channel(fd, s, argc, argv);
	case VERB_SNAPSHOT:
		return cmd_snapshot(fd, s, argc, argv);
	case VERB_ROTATE:
		return cmd_rotate(fd, s, argc, argv);
	case VERB_DISABLE_EVENT:
		return cmd_disable(fd, s, argc, argv);
	case VERB_ADD_CONTEXT:
		return cmd_add_context(fd, s, argc, argv);
	case VERB_NOTICES:
		return cmd_notices(fd, s);
	case VERB_AGGREGATE:
		return cmd_aggregate(fd, s, argc, argv);
	case VERB_DISABLE_AGG:
		return cmd_disable_agg(fd, s, argc, argv);
	case VERB_SHOW_AGG:
		return cmd_show_agg(fd, s, argc, argv);
	case VERB_START:
		if (s->active)
			return reply_end(fd, -EALREADY, "session %s is already active", s->name);
		if (netout_check(fd, s) < 0)
			return -EPIPE;
		marker_make(s);
		s->active = 1;
		s->started = 1;
		apps_update_all();
		reply_text(fd, "Tracing started for session %s.\n", s->name);
		return reply_end(fd, 0, NULL);
	case VERB_STOP:
		return cmd_stop(fd, s);
	default:
		return reply_end(fd, -EINVAL, "unknown command %u", c->verb);
	}
}

void sessions_shutdown(void)
{
	while (sd.sessions)
		session_destroy(sd.sessions);
}
