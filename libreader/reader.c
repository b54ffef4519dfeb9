/* SPDX-License-Identifier: MIT */
/*
 * reader.c - reader core: finds traces, decodes packets and events, and
 * merges the events of all streams of all traces in time order.
 *
 * Each data stream file is read one packet at a time with pread() into a
 * buffer owned by the stream (never the whole file), so memory is bounded by
 * (number of streams) x (largest packet), independent of the trace size.
 * Streams positioned on their next event sit in a binary min-heap keyed by
 * (wall-clock ns of that event, global stream index); shmtrace_rd_next() advances the
 * stream whose event it returned last, restores the heap and returns the new
 * root.
 *
 * Each stream file holds packets of one stream class (the stream_id of its
 * packet headers), which the stream keeps from its first packet: the class
 * gives the context fields that every event carries between its header and
 * its payload, and the dense table its event ids are looked up in.
 *
 * Damage is kept per stream: a packet or an event that cannot be believed
 * (a bad header, bad sizes, an unknown event id, an event running past its
 * packet, a truncated last packet, a bad LZ4 frame, a stream that repeats
 * another's instance id) ends that stream where it lies, its events before
 * it returned; a trace whose metadata cannot be read is not read at all.
 * Either is recorded in the reader's damage list (file, byte offset,
 * message) and every other stream is read to its end, merged as usual;
 * only then does shmtrace_rd_next() return the first damage's error.
 * What does not come from the trace's bytes (no memory, a stream file
 * that cannot be opened) stops the reader at once.
 *
 * Invariants:
 *  - every offset and length read from a file is checked against the packet
 *    content (for events) or the file size (for packets) before use; the
 *    packet buffer holds exactly content_size/8 bytes of the current packet;
 *  - a stream is in the heap only while it has an event to give: s->error
 *    is 0 there; a stream whose s->error is set has ended, retired, and its
 *    damage is in r->dmg (one entry per damaged stream or trace);
 *  - r->traces holds only traces whose metadata was read: every accessor
 *    of a trace may use t->meta;
 *  - s->sc is the stream class of every packet read so far (NULL before the
 *    first); a packet of another class is an error;
 *  - s->ev describes the stream's current event; its field offsets
 *    (s->foff[0..nfields]) are absolute positions in s->buf, foff[nfields]
 *    is the end of the event, and its context is the s->sc->ctx_bytes right
 *    before foff[0]; they stay valid until the stream advances;
 *  - s->last_ts is the clock value of the previous event of the stream
 *    (timestamp_begin at a packet start); timestamps never decrease;
 *  - errors are sticky: once shmtrace_rd_next() failed (every stream ended
 *    with damage recorded, or r->fatal) it keeps returning the error;
 *  - the names of a trace directory that begin with '.' (bookkeeping of the
 *    consumer, as babeltrace2 ignores them), "metadata" and directories are
 *    not stream files.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <shmtrace/reader.h>
#include "lz4file.h"
#include "tsdl.h"

#define MAX_SCAN_DEPTH 8
#define MAX_METADATA (64U << 20)
#define MAX_PACKET (256U << 20)

struct shmtrace_rd_trace {
	char *path;
	char *meta_path;
	struct tsdl_metadata *meta;
	size_t index;
	int64_t base_ns;	/* clock offset in ns since the Epoch */
	uint64_t freq;
};

struct shmtrace_rd_event {
	struct shmtrace_rd_stream *stream;
	const struct tsdl_event_class *cls;
	uint64_t ts;		/* raw clock value */
	int64_t ns;		/* ns since the Epoch */
	size_t pos;		/* header position in the packet */
};

struct shmtrace_rd_stream {
	struct shmtrace_rd_event ev;
	struct shmtrace_rd_trace *trace;
	char *path;
	int fd;
	size_t index;
	uint64_t file_size;
	unsigned char *buf;
	size_t cap;
	size_t pos;		/* next event position in buf */
	size_t content;		/* bytes of content in buf */
	uint64_t pkt_off;	/* file offset of the current packet */
	uint64_t next_off;	/* file offset of the next packet */
	uint64_t ts_begin, ts_end, last_ts;
	uint64_t seq, discarded, instance_id, lost, nevents;
	uint32_t tid;
	bool have_packet;
	int error;		/* 0, or the damage that ended the stream */
	int tail_error;		/* damage after the file's last byte (LZ4), or 0 */
	char *tail_msg;		/* ... its message */
	uint64_t tail_off;	/* ... its offset (in the compressed file) */
	const struct tsdl_stream_class *sc;
	uint32_t *foff;
};

struct rd_damage {
	char *path;		/* the damaged file */
	char *msg;		/* "FILE: offset N: what", "FILE:LINE: what" */
	int64_t offset;		/* byte offset in FILE, -1 when none (metadata) */
	int error;
	const struct shmtrace_rd_stream *stream;	/* NULL: a trace's metadata */
};

struct shmtrace_rd_reader {
	struct shmtrace_rd_trace **traces;
	size_t ntraces, traces_cap;
	struct shmtrace_rd_stream **streams;
	size_t nstreams, streams_cap;
	struct shmtrace_rd_stream **heap;
	size_t nheap;
	struct shmtrace_rd_stream *cur;
	struct rd_damage *dmg;
	size_t ndmg, dmg_cap;
	size_t found;		/* trace directories found, damaged ones too */
	bool started;
	int fatal;		/* what stopped the reader (not damage), or 0 */
	int error;		/* what shmtrace_rd_next() returns again, or 0 */
	char err[SHMTRACE_RD_ERRLEN];
};

/* ---- helpers ----------------------------------------------------------- */

static inline uint32_t le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline uint64_t read_uint(const unsigned char *p, unsigned bytes)
{
	uint16_t v16;

	switch (bytes) {
	case 1:
		return p[0];
	case 2:
		memcpy(&v16, p, 2);
		return le16toh(v16);
	case 4:
		return le32(p);
	default:
		return le64(p);
	}
}

static inline int64_t sext(uint64_t v, unsigned bytes)
{
	unsigned sh = 64 - 8 * bytes;

	if (!sh)
		return (int64_t)v;
	return (int64_t)(v << sh) >> sh;
}

__attribute__((format(printf, 3, 4)))
static int set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return 0;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return 0;
}

/* Is @rc what a trace's own bytes cause (damage), rather than its surroundings? */
static bool is_damage(int rc)
{
	switch (rc) {
	case -EINVAL:		/* malformed metadata */
	case -ENOTSUP:		/* metadata in a form not read */
	case -EFBIG:		/* metadata or a packet past the limits */
	case -EIO:		/* a bad LZ4 frame, a read error */
	case -EBADMSG:		/* a corrupt or truncated packet or event */
	case -ENODATA:		/* a file that shrank */
		return true;
	default:
		return false;
	}
}

/* Stop the reader: @rc (not damage) with @msg. */
static int fatal(struct shmtrace_rd_reader *r, int rc, const char *msg)
{
	if (!r->fatal) {
		r->fatal = rc;
		snprintf(r->err, sizeof(r->err), "%s", msg);
	}
	return rc;
}

/*
 * Add damage to the list: @path at byte @off (-1: none), error @rc, @msg;
 * of stream @s, or of a trace's metadata (@s NULL). Returns @rc, or
 * -ENOMEM (fatal) when it cannot be kept.
 */
static int add_damage(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s,
		      const char *path, int64_t off, int rc, const char *msg)
{
	struct rd_damage *d;

	if (r->ndmg == r->dmg_cap) {
		size_t cap = r->dmg_cap ? r->dmg_cap * 2 : 8;
		struct rd_damage *n = realloc(r->dmg, cap * sizeof(*n));

		if (!n)
			return fatal(r, -ENOMEM, "out of memory");
		r->dmg = n;
		r->dmg_cap = cap;
	}
	d = &r->dmg[r->ndmg];
	d->path = strdup(path);
	d->msg = strdup(msg);
	if (!d->path || !d->msg) {
		free(d->path);
		free(d->msg);
		return fatal(r, -ENOMEM, "out of memory");
	}
	d->offset = off;
	d->error = rc;
	d->stream = s;
	r->ndmg++;
	if (s)
		s->error = rc;
	return rc;
}

/*
 * Stream @s ends at byte @off of its file: "file: offset N: what" joins
 * the damage list (error @rc), or, for what is not damage (no memory),
 * stops the reader. Returns @rc.
 */
__attribute__((format(printf, 5, 6)))
static int fail_at(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s,
		   uint64_t off, int rc, const char *fmt, ...)
{
	char msg[SHMTRACE_RD_ERRLEN];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "%s: offset %" PRIu64 ": ", s->path, off);
	if (n >= 0 && (size_t)n < sizeof(msg)) {
		va_start(ap, fmt);
		vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
		va_end(ap);
	}
	if (!is_damage(rc))
		return fatal(r, rc, msg);
	return add_damage(r, s, s->path, (int64_t)off, rc, msg);
}

static char *path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + 1, name, b + 1);
	return p;
}

static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENODATA;	/* file shrank */
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* ---- clock ------------------------------------------------------------- */

/* The clock's offset: tsdl_parse() checked that it fits in ns. */
static void trace_init_clock(struct shmtrace_rd_trace *t)
{
	t->freq = t->meta->clock.freq;
	t->base_ns = t->meta->clock.base_ns;
}

/*
 * Does clock value @v convert to ns since the Epoch (an int64_t)? The
 * reader refuses a packet whose timestamp_begin or timestamp_end does not,
 * as babeltrace2 does; its events' timestamps lie between the two.
 */
static bool ns_ok(const struct shmtrace_rd_trace *t, uint64_t v)
{
	uint64_t ns = tsdl_cycles_to_ns(t->freq, v);
	int64_t r;

	return ns < INT64_MAX && !__builtin_add_overflow(t->base_ns, (int64_t)ns, &r);
}

/* Clock value to ns since the Epoch, saturated at INT64_MAX. */
static inline int64_t clock_ns(const struct shmtrace_rd_trace *t, uint64_t v)
{
	uint64_t ns = tsdl_cycles_to_ns(t->freq, v);
	int64_t r;

	/* base_ns + ns, saturated at INT64_MAX (it cannot go below INT64_MIN) */
	if (ns <= INT64_MAX)
		return __builtin_add_overflow(t->base_ns, (int64_t)ns, &r) ? INT64_MAX : r;
	if (t->base_ns >= 0)
		return INT64_MAX;
	ns += (uint64_t)t->base_ns;	/* ns - |base_ns|, which does not wrap */
	return ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
}

/* ---- opening ----------------------------------------------------------- */

static int read_metadata(struct shmtrace_rd_trace *t, char *err, size_t errlen)
{
	struct stat st;
	char *text = NULL;
	int fd, rc;

	fd = open(t->meta_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		set_err(err, errlen, "%s: %s", t->meta_path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		set_err(err, errlen, "%s: %s", t->meta_path, strerror(-rc));
		goto out;
	}
	if (st.st_size > MAX_METADATA) {
		rc = -EFBIG;
		set_err(err, errlen, "%s: metadata too large", t->meta_path);
		goto out;
	}
	text = malloc(st.st_size + 1);
	if (!text) {
		rc = -ENOMEM;
		set_err(err, errlen, "%s: out of memory", t->meta_path);
		goto out;
	}
	rc = pread_full(fd, text, st.st_size, 0);
	if (rc) {
		set_err(err, errlen, "%s: read error: %s", t->meta_path,
			strerror(-rc));
		goto out;
	}
	if (st.st_size >= 4 && le32((const unsigned char *)text) ==
	    0x75D11D57U) {
		rc = -ENOTSUP;
		set_err(err, errlen,
			"%s:1: packetized metadata is not supported",
			t->meta_path);
		goto out;
	}
	if (!tsdl_signature_ok(text, st.st_size)) {
		rc = -EINVAL;
		set_err(err, errlen,
			"%s:1: not CTF metadata (missing \"/* CTF 1.8 */\" signature)",
			t->meta_path);
		goto out;
	}
	if (memchr(text, '\0', st.st_size)) {
		rc = -EINVAL;
		set_err(err, errlen, "%s: NUL byte in metadata text",
			t->meta_path);
		goto out;
	}
	rc = tsdl_parse(text, st.st_size, t->meta_path, &t->meta, err, errlen);
	if (!rc)
		trace_init_clock(t);
out:
	free(text);
	close(fd);
	return rc;
}

static int add_stream(struct shmtrace_rd_reader *r, struct shmtrace_rd_trace *t,
		      const char *name, char *err, size_t errlen)
{
	struct shmtrace_rd_stream *s;
	struct stat st;
	int rc;

	if (r->nstreams == r->streams_cap) {
		size_t cap = r->streams_cap ? r->streams_cap * 2 : 16;
		struct shmtrace_rd_stream **n = realloc(r->streams, cap * sizeof(*n));

		if (!n)
			goto nomem;
		r->streams = n;
		r->streams_cap = cap;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->fd = -1;
	s->trace = t;
	s->ev.stream = s;
	s->path = path_join(t->path, name);
	if (!s->path) {
		free(s);
		goto nomem;
	}
	s->index = r->nstreams;
	r->streams[r->nstreams++] = s;	/* freed by shmtrace_rd_close from now on */
	s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0 || fstat(s->fd, &st) < 0) {
		rc = -errno;
		set_err(err, errlen, "%s: %s", s->path, strerror(-rc));
		return rc;
	}
	if (lz4file_is_frame(s->fd)) {
		char msg[SHMTRACE_RD_ERRLEN];
		int plain;

		rc = lz4file_inflate(s->fd, s->path, &plain, &s->tail_off, msg, sizeof(msg));
		if (plain < 0) {
			set_err(err, errlen, "%s", msg);
			return rc;
		}
		close(s->fd);
		s->fd = plain;
		if (rc < 0) {
			/* damaged: its whole frames are read, then the damage said */
			s->tail_error = rc;
			s->tail_msg = strdup(msg);
			if (!s->tail_msg)
				goto nomem;
		}
		if (fstat(s->fd, &st) < 0) {
			rc = -errno;
			set_err(err, errlen, "%s: %s", s->path, strerror(-rc));
			return rc;
		}
	}
	s->file_size = st.st_size;
	return 0;
nomem:
	set_err(err, errlen, "out of memory");
	return -ENOMEM;
}

/* Stream files: not hidden (the consumer's bookkeeping), not the metadata. */
static int filter_streams(const struct dirent *d)
{
	return d->d_name[0] != '.' && strcmp(d->d_name, "metadata");
}

/* The trace of directory @dir; a trace whose metadata is damaged is kept as damage. */
static int add_trace(struct shmtrace_rd_reader *r, const char *dir, char *err,
		     size_t errlen)
{
	struct dirent **names = NULL;
	struct shmtrace_rd_trace *t;
	char msg[SHMTRACE_RD_ERRLEN];
	int i, n, rc = 0;

	r->found++;
	if (r->ntraces == r->traces_cap) {
		size_t cap = r->traces_cap ? r->traces_cap * 2 : 8;
		struct shmtrace_rd_trace **nt = realloc(r->traces, cap * sizeof(*nt));

		if (!nt)
			goto nomem;
		r->traces = nt;
		r->traces_cap = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto nomem;
	t->path = strdup(dir);
	t->meta_path = path_join(dir, "metadata");
	if (!t->path || !t->meta_path)
		goto free_nomem;
	msg[0] = 0;
	rc = read_metadata(t, msg, sizeof(msg));
	if (rc && is_damage(rc)) {
		/* none of its streams can be read: said once the others were */
		rc = add_damage(r, NULL, t->meta_path, -1, rc, msg);
		tsdl_free(t->meta);
		free(t->path);
		free(t->meta_path);
		free(t);
		if (rc == -ENOMEM)
			goto nomem;
		return 0;
	}
	if (rc) {
		set_err(err, errlen, "%s", msg);
		tsdl_free(t->meta);
		free(t->path);
		free(t->meta_path);
		free(t);
		return rc;
	}
	t->index = r->ntraces;
	r->traces[r->ntraces++] = t;	/* freed by shmtrace_rd_close from now on */

	n = scandir(dir, &names, filter_streams, alphasort);
	if (n < 0) {
		rc = -errno;
		set_err(err, errlen, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	for (i = 0; i < n; i++) {
		struct stat st;
		char *p = path_join(dir, names[i]->d_name);

		if (!p) {
			rc = -ENOMEM;
			set_err(err, errlen, "out of memory");
			break;
		}
		if (stat(p, &st) < 0) {
			rc = -errno;
			set_err(err, errlen, "%s: %s", p, strerror(-rc));
			free(p);
			break;
		}
		free(p);
		if (!S_ISREG(st.st_mode))
			continue;	/* index/ and other directories */
		rc = add_stream(r, t, names[i]->d_name, err, errlen);
		if (rc)
			break;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
free_nomem:
	free(t->path);
	free(t->meta_path);
	free(t);
nomem:
	set_err(err, errlen, "out of memory");
	return -ENOMEM;
}

static int scan_dir(struct shmtrace_rd_reader *r, const char *dir, int depth, char *err,
		    size_t errlen)
{
	struct dirent **names = NULL;
	struct stat st;
	char *meta;
	int i, n, rc = 0;

	meta = path_join(dir, "metadata");
	if (!meta) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = stat(meta, &st);
	free(meta);
	if (!rc && S_ISREG(st.st_mode))
		return add_trace(r, dir, err, errlen);
	if (depth >= MAX_SCAN_DEPTH)
		return 0;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		rc = -errno;
		set_err(err, errlen, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	rc = 0;
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *p;

		if (rc || !strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		p = path_join(dir, name);
		if (!p) {
			rc = -ENOMEM;
			set_err(err, errlen, "out of memory");
			continue;
		}
		/* lstat: do not follow symlinks, so no loops */
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			rc = scan_dir(r, p, depth + 1, err, errlen);
		free(p);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int shmtrace_rd_open(struct shmtrace_rd_reader **out, const char *const *paths, size_t npaths,
	    char *err, size_t errlen)
{
	struct shmtrace_rd_reader *r;
	struct stat st;
	size_t i;
	int rc;

	*out = NULL;
	set_err(err, errlen, "no error");
	r = calloc(1, sizeof(*r));
	if (!r) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < npaths; i++) {
		size_t before = r->found;

		if (stat(paths[i], &st) < 0) {
			rc = -errno;
			set_err(err, errlen, "%s: %s", paths[i], strerror(-rc));
			goto fail;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc = -ENOTDIR;
			set_err(err, errlen, "%s: not a directory", paths[i]);
			goto fail;
		}
		rc = scan_dir(r, paths[i], 0, err, errlen);
		if (rc)
			goto fail;
		if (r->found == before) {
			rc = -ENOENT;
			set_err(err, errlen, "%s: no CTF trace found (no metadata file)",
				paths[i]);
			goto fail;
		}
	}
	r->heap = calloc(r->nstreams + 1, sizeof(*r->heap));
	if (!r->heap) {
		rc = -ENOMEM;
		set_err(err, errlen, "out of memory");
		goto fail;
	}
	*out = r;
	return 0;
fail:
	shmtrace_rd_close(r);
	return rc;
}

void shmtrace_rd_close(struct shmtrace_rd_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nstreams; i++) {
		struct shmtrace_rd_stream *s = r->streams[i];

		if (s->fd >= 0)
			close(s->fd);
		free(s->buf);
		free(s->foff);
		free(s->path);
		free(s->tail_msg);
		free(s);
	}
	for (i = 0; i < r->ndmg; i++) {
		free(r->dmg[i].path);
		free(r->dmg[i].msg);
	}
	free(r->dmg);
	for (i = 0; i < r->ntraces; i++) {
		struct shmtrace_rd_trace *t = r->traces[i];

		tsdl_free(t->meta);
		free(t->path);
		free(t->meta_path);
		free(t);
	}
	free(r->streams);
	free(r->traces);
	free(r->heap);
	free(r);
}

/* ---- packets and events ------------------------------------------------- */

static int load_packet(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s)
{
	const struct tsdl_metadata *m = s->trace->meta;
	unsigned char h[TSDL_PACKET_HEADER_SIZE];
	uint64_t off = s->next_off, left = s->file_size - off;
	uint64_t content, psize, tsb, tse, seq, disc;
	const struct tsdl_stream_class *sc = s->sc;
	uint32_t magic, sid;
	int rc;

	if (left < TSDL_PACKET_HEADER_SIZE)
		return fail_at(r, s, off, -EBADMSG,
			       "truncated packet header (%" PRIu64 " bytes left)",
			       left);
	rc = pread_full(s->fd, h, sizeof(h), off);
	if (rc)
		return fail_at(r, s, off, rc == -ENODATA ? -EBADMSG : rc,
			       "read error: %s", strerror(-rc));
	magic = le32(h);
	if (magic != TSDL_PACKET_MAGIC)
		return fail_at(r, s, off, -EBADMSG,
			       "bad packet magic 0x%08" PRIx32, magic);
	if (m->has_uuid && memcmp(h + 4, m->uuid, 16))
		return fail_at(r, s, off + 4, -EBADMSG,
			       "packet uuid does not match the metadata uuid");
	sid = le32(h + 20);
	if (!sc || sc->id != sid) {
		sc = tsdl_find_stream(m, sid);
		if (!sc)
			return fail_at(r, s, off + 20, -EBADMSG,
				       "unknown stream id %" PRIu32, sid);
		if (s->sc)
			return fail_at(r, s, off + 20, -EBADMSG,
				       "stream id %" PRIu32 " after packets of stream id %" PRIu32,
				       sid, s->sc->id);
	}
	tsb = le64(h + 32);
	tse = le64(h + 40);
	content = le64(h + 48);
	psize = le64(h + 56);
	seq = le64(h + 64);
	disc = le64(h + 72);
	if (content % 8 || psize % 8 || content < 8 * TSDL_PACKET_HEADER_SIZE ||
	    content > psize)
		return fail_at(r, s, off + 48, -EBADMSG,
			       "invalid content_size %" PRIu64 " / packet_size %" PRIu64 " (bits)",
			       content, psize);
	if (psize / 8 > left)
		return fail_at(r, s, off + 56, -EBADMSG,
			       "packet_size %" PRIu64 " bytes runs past the end of the file (%" PRIu64 " bytes left)",
			       psize / 8, left);
	if (psize / 8 > MAX_PACKET)
		return fail_at(r, s, off + 56, -EFBIG,
			       "packet too large (%" PRIu64 " bytes)", psize / 8);
	if (tsb > tse)
		return fail_at(r, s, off + 32, -EBADMSG,
			       "timestamp_begin %" PRIu64 " > timestamp_end %" PRIu64,
			       tsb, tse);
	if (!ns_ok(s->trace, tse))
		return fail_at(r, s, off + 40, -EBADMSG,
			       "timestamp_end %" PRIu64 " is out of the clock's range",
			       tse);
	if (s->have_packet) {
		/* (the previous packet's events are in its time range) */
		if (tsb < s->ts_end)
			return fail_at(r, s, off + 32, -EBADMSG,
				       "timestamp_begin %" PRIu64 " goes back before the previous packet's timestamp_end (%" PRIu64 ")",
				       tsb, s->ts_end);
		if (seq <= s->seq)
			return fail_at(r, s, off + 64, -EBADMSG,
				       "packet_seq_num %" PRIu64 " does not follow %" PRIu64,
				       seq, s->seq);
		s->lost += seq - s->seq - 1;
		if (disc < s->discarded)
			return fail_at(r, s, off + 72, -EBADMSG,
				       "events_discarded decreases (%" PRIu64 " < %" PRIu64 ")",
				       disc, s->discarded);
	}
	content /= 8;
	if (content > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		unsigned char *nb;

		while (cap < content)
			cap *= 2;
		nb = malloc(cap);
		if (!nb)
			return fail_at(r, s, off, -ENOMEM, "out of memory");
		free(s->buf);
		s->buf = nb;
		s->cap = cap;
	}
	rc = pread_full(s->fd, s->buf, content, off);
	if (rc)
		return fail_at(r, s, off, rc == -ENODATA ? -EBADMSG : rc,
			       "read error: %s", strerror(-rc));
	if (!s->foff) {
		/* field offsets for the largest event of the stream class */
		s->foff = calloc(sc->max_fields + 1, sizeof(*s->foff));
		if (!s->foff)
			return fail_at(r, s, off, -ENOMEM, "out of memory");
	}
	s->have_packet = true;
	s->sc = sc;
	s->pkt_off = off;
	s->next_off = off + psize / 8;
	s->pos = TSDL_PACKET_HEADER_SIZE;
	s->content = content;
	s->ts_begin = tsb;
	s->ts_end = tse;
	s->last_ts = tsb;
	s->seq = seq;
	s->discarded = disc;
	s->instance_id = le64(h + 24);
	s->tid = le32(h + 80);
	return 0;
}

static int decode_event(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s)
{
	const unsigned char *buf = s->buf;
	const struct tsdl_stream_class *sc = s->sc;
	const struct tsdl_event_class *cls;
	size_t start = s->pos, pos = start, end = s->content;
	uint32_t id, i, *foff = s->foff;
	uint64_t ts;

	if (buf[pos] != 255) {
		uint32_t w, low, prev_low;

		if (end - pos < 4)
			return fail_at(r, s, s->pkt_off + pos, -EBADMSG,
				       "truncated event header");
		w = le32(buf + pos);
		id = w & 0xff;
		low = w >> 8;
		prev_low = s->last_ts & 0xffffff;
		ts = (s->last_ts & ~(uint64_t)0xffffff) | low;
		if (low < prev_low)
			ts += 1 << 24;
		pos += 4;
	} else {
		if (end - pos < 13)
			return fail_at(r, s, s->pkt_off + pos, -EBADMSG,
				       "truncated extended event header");
		id = le32(buf + pos + 1);
		ts = le64(buf + pos + 5);
		pos += 13;
	}
	/* extended: any value; compact: its wrap may pass 2^64 and start over */
	if (ts < s->last_ts)
		return fail_at(r, s, s->pkt_off + start, -EBADMSG,
			       "event timestamp %" PRIu64 " goes back (previous %" PRIu64 ")",
			       ts, s->last_ts);
	if (ts > s->ts_end)
		return fail_at(r, s, s->pkt_off + start, -EBADMSG,
			       "event timestamp %" PRIu64 " is after the packet's timestamp_end %" PRIu64,
			       ts, s->ts_end);
	cls = tsdl_stream_find_event(sc, id);
	if (!cls)
		return fail_at(r, s, s->pkt_off + start, -EBADMSG,
			       "unknown event id %" PRIu32, id);
	if (end - pos < sc->ctx_bytes)
		return fail_at(r, s, s->pkt_off + pos, -EBADMSG,
			       "event %s: context runs past the end of the packet content",
			       cls->name);
	pos += sc->ctx_bytes;

	for (i = 0; i < cls->nfields; i++) {
		const struct tsdl_field *f = &cls->fields[i];
		const unsigned char *z;
		uint64_t n;

		foff[i] = pos;
		switch (f->kind) {
		case TSDL_F_INT:
		case TSDL_F_FLOAT:
			if (end - pos < f->bytes)
				goto past_end;
			pos += f->bytes;
			break;
		case TSDL_F_STRING:
			z = memchr(buf + pos, 0, end - pos);
			if (!z)
				return fail_at(r, s, s->pkt_off + pos, -EBADMSG,
					       "event %s: unterminated string in field %s",
					       cls->name, f->name);
			pos = z - buf + 1;
			break;
		case TSDL_F_SEQUENCE:
		case TSDL_F_ARRAY:
			if (f->kind == TSDL_F_ARRAY) {
				n = f->length;
			} else {
				const struct tsdl_field *lf =
					&cls->fields[f->len_field];

				n = read_uint(buf + foff[f->len_field],
					      lf->bytes);
				if (lf->is_signed && sext(n, lf->bytes) < 0)
					return fail_at(r, s, s->pkt_off + foff[f->len_field],
						       -EBADMSG,
						       "event %s: negative length for field %s",
						       cls->name, f->name);
				if (n > UINT32_MAX)
					goto past_end;
			}
			if (n * f->bytes > end - pos)
				goto past_end;
			pos += n * f->bytes;
			break;
		}
	}
	foff[i] = pos;
	s->ev.cls = cls;
	s->ev.ts = ts;
	s->ev.ns = clock_ns(s->trace, ts);
	s->ev.pos = start;
	s->last_ts = ts;
	s->pos = pos;
	s->nevents++;
	return 1;
past_end:
	return fail_at(r, s, s->pkt_off + start, -EBADMSG,
		       "event %s: field %s runs past the end of the packet content",
		       cls->name, cls->fields[i].name);
}

/*
 * Position s on its next event: 1 if there is one, 0 at its end, < 0 when
 * it ends damaged (recorded) or the reader stops (r->fatal).
 */
static int advance(struct shmtrace_rd_reader *r, struct shmtrace_rd_stream *s)
{
	int rc;

	while (s->pos >= s->content) {
		if (s->next_off >= s->file_size) {
			if (s->tail_error)	/* what follows could not be inflated */
				return add_damage(r, s, s->path, (int64_t)s->tail_off,
						  s->tail_error, s->tail_msg);
			return 0;
		}
		rc = load_packet(r, s);
		if (rc)
			return rc;
	}
	return decode_event(r, s);
}

/* ---- merge -------------------------------------------------------------- */

static inline bool comes_before(const struct shmtrace_rd_stream *a,
				const struct shmtrace_rd_stream *b)
{
	if (a->ev.ns != b->ev.ns)
		return a->ev.ns < b->ev.ns;
	return a->index < b->index;
}

static void sift_down(struct shmtrace_rd_reader *r, size_t i)
{
	struct shmtrace_rd_stream **h = r->heap, *x = h[i];
	size_t n = r->nheap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && comes_before(h[c + 1], h[c]))
			c++;
		if (!comes_before(h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static void sift_up(struct shmtrace_rd_reader *r, size_t i)
{
	struct shmtrace_rd_stream **h = r->heap, *x = h[i];

	while (i) {
		size_t p = (i - 1) / 2;

		if (!comes_before(x, h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

/* A stream that ended needs neither its packet buffer nor its file. */
static void retire(struct shmtrace_rd_stream *s)
{
	free(s->buf);
	s->buf = NULL;
	s->cap = 0;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static int cmp_instance(const void *a, const void *b)
{
	const struct shmtrace_rd_stream *x = *(const struct shmtrace_rd_stream *const *)a;
	const struct shmtrace_rd_stream *y = *(const struct shmtrace_rd_stream *const *)b;

	if (x->trace != y->trace)
		return x->trace->index < y->trace->index ? -1 : 1;
	if (x->sc->id != y->sc->id)
		return x->sc->id < y->sc->id ? -1 : 1;
	if (x->instance_id != y->instance_id)
		return x->instance_id < y->instance_id ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * Every stream file of a trace is a stream of its own: two that give the
 * same stream class and stream_instance_id in their first packets are one
 * stream copied (doc/trace-format.md), whose events would be read twice:
 * the later file is damage, not read.
 */
static int check_instances(struct shmtrace_rd_reader *r)
{
	struct shmtrace_rd_stream **v, *a, *b;
	size_t i, n = 0;

	v = malloc((r->nstreams + 1) * sizeof(*v));
	if (!v)
		return fatal(r, -ENOMEM, "out of memory");
	for (i = 0; i < r->nstreams; i++) {
		if (r->streams[i]->have_packet && !r->streams[i]->error)
			v[n++] = r->streams[i];
	}
	qsort(v, n, sizeof(*v), cmp_instance);
	for (i = 1, a = n ? v[0] : NULL; i < n; i++) {
		b = v[i];
		if (a->trace == b->trace && a->sc->id == b->sc->id &&
		    a->instance_id == b->instance_id) {
			fail_at(r, b, b->pkt_off + 24, -EBADMSG,
				"stream instance id %" PRIu64 " of stream id %" PRIu32 " also in %s",
				b->instance_id, b->sc->id, a->path);
			if (r->fatal)
				break;
			continue;	/* @a stays the one read */
		}
		a = b;
	}
	free(v);
	return r->fatal;
}

/* Every stream on its first event, in the heap; damaged ones left out. */
static int start(struct shmtrace_rd_reader *r)
{
	size_t i, n = 0;
	int rc;

	for (i = 0; i < r->nstreams; i++) {
		rc = advance(r, r->streams[i]);
		if (r->fatal)
			return r->fatal;
		if (rc > 0)
			r->heap[n++] = r->streams[i];
		else
			retire(r->streams[i]);
	}
	if (r->nstreams && check_instances(r))
		return r->fatal;
	for (i = 0; i < n; i++) {
		struct shmtrace_rd_stream *s = r->heap[i];

		if (s->error) {
			retire(s);
			continue;
		}
		r->heap[r->nheap] = s;
		sift_up(r, r->nheap++);
	}
	return 0;
}

int shmtrace_rd_next(struct shmtrace_rd_reader *r, const struct shmtrace_rd_event **ev)
{
	int rc;

	if (r->error)
		return r->error;
	if (!r->started) {
		r->started = true;
		if (start(r))
			return r->error = r->fatal;
	} else if (r->cur) {
		rc = advance(r, r->cur);
		if (r->fatal)
			return r->error = r->fatal;
		if (rc <= 0) {		/* ended, or damaged: the others go on */
			retire(r->cur);
			r->heap[0] = r->heap[--r->nheap];
			r->cur = NULL;
		}
		if (r->nheap)
			sift_down(r, 0);
	}
	if (!r->nheap) {
		r->cur = NULL;
		if (!r->ndmg)
			return 0;
		/* every stream read: now the damage */
		snprintf(r->err, sizeof(r->err), "%s", r->dmg[0].msg);
		return r->error = r->dmg[0].error;
	}
	r->cur = r->heap[0];
	*ev = &r->cur->ev;
	return 1;
}

const char *shmtrace_rd_errmsg(const struct shmtrace_rd_reader *r)
{
	return r->error ? r->err : "no error";
}

/* ---- damage ------------------------------------------------------------- */

size_t shmtrace_rd_damage_count(const struct shmtrace_rd_reader *r)
{
	return r->ndmg;
}

const char *shmtrace_rd_damage_message(const struct shmtrace_rd_reader *r, size_t i)
{
	return i < r->ndmg ? r->dmg[i].msg : NULL;
}

const char *shmtrace_rd_damage_path(const struct shmtrace_rd_reader *r, size_t i)
{
	return i < r->ndmg ? r->dmg[i].path : NULL;
}

int64_t shmtrace_rd_damage_offset(const struct shmtrace_rd_reader *r, size_t i)
{
	return i < r->ndmg ? r->dmg[i].offset : -1;
}

int shmtrace_rd_damage_error(const struct shmtrace_rd_reader *r, size_t i)
{
	return i < r->ndmg ? r->dmg[i].error : 0;
}

const struct shmtrace_rd_stream *shmtrace_rd_damage_stream(const struct shmtrace_rd_reader *r,
							   size_t i)
{
	return i < r->ndmg ? r->dmg[i].stream : NULL;
}

/* ---- accessors ---------------------------------------------------------- */

size_t shmtrace_rd_trace_count(const struct shmtrace_rd_reader *r)
{
	return r->ntraces;
}

const struct shmtrace_rd_trace *shmtrace_rd_trace_at(const struct shmtrace_rd_reader *r, size_t i)
{
	return i < r->ntraces ? r->traces[i] : NULL;
}

size_t shmtrace_rd_stream_count(const struct shmtrace_rd_reader *r)
{
	return r->nstreams;
}

const struct shmtrace_rd_stream *shmtrace_rd_stream_at(const struct shmtrace_rd_reader *r, size_t i)
{
	return i < r->nstreams ? r->streams[i] : NULL;
}

const char *shmtrace_rd_trace_path(const struct shmtrace_rd_trace *t)
{
	return t->path;
}

size_t shmtrace_rd_trace_index(const struct shmtrace_rd_trace *t)
{
	return t->index;
}

const char *shmtrace_rd_trace_procname(const struct shmtrace_rd_trace *t)
{
	return t->meta->procname ? t->meta->procname : "";
}

const char *shmtrace_rd_trace_hostname(const struct shmtrace_rd_trace *t)
{
	return t->meta->hostname ? t->meta->hostname : "";
}

int64_t shmtrace_rd_trace_vpid(const struct shmtrace_rd_trace *t)
{
	return t->meta->has_vpid ? t->meta->vpid : -1;
}

const char *shmtrace_rd_trace_uuid(const struct shmtrace_rd_trace *t)
{
	return t->meta->has_uuid ? t->meta->uuid_str : "";
}

int shmtrace_rd_trace_env(const struct shmtrace_rd_trace *t, const char *key,
		 const char **sval, int64_t *ival)
{
	uint32_t i;

	for (i = 0; i < t->meta->nenv; i++) {
		const struct tsdl_env_entry *e = &t->meta->env[i];

		if (strcmp(e->key, key))
			continue;
		if (sval)
			*sval = e->sval;
		if (ival)
			*ival = e->ival;
		return 1;
	}
	return 0;
}

const char *shmtrace_rd_trace_clock_name(const struct shmtrace_rd_trace *t)
{
	return t->meta->clock.name;
}

uint64_t shmtrace_rd_trace_clock_freq(const struct shmtrace_rd_trace *t)
{
	return t->freq;
}

size_t shmtrace_rd_trace_event_class_count(const struct shmtrace_rd_trace *t)
{
	return t->meta->nevents;
}

const char *shmtrace_rd_trace_event_class_name(const struct shmtrace_rd_trace *t, size_t i)
{
	return i < t->meta->nevents ? t->meta->events[i].name : NULL;
}

int64_t shmtrace_rd_trace_clock_to_ns(const struct shmtrace_rd_trace *t, uint64_t value)
{
	return clock_ns(t, value);
}

const char *shmtrace_rd_stream_path(const struct shmtrace_rd_stream *s)
{
	return s->path;
}

const struct shmtrace_rd_trace *shmtrace_rd_stream_trace(const struct shmtrace_rd_stream *s)
{
	return s->trace;
}

uint64_t shmtrace_rd_stream_instance_id(const struct shmtrace_rd_stream *s)
{
	return s->instance_id;
}

uint32_t shmtrace_rd_stream_tid(const struct shmtrace_rd_stream *s)
{
	return s->tid;
}

uint64_t shmtrace_rd_stream_packet_seq(const struct shmtrace_rd_stream *s)
{
	return s->seq;
}

uint64_t shmtrace_rd_stream_packet_offset(const struct shmtrace_rd_stream *s)
{
	return s->pkt_off;
}

uint64_t shmtrace_rd_stream_discarded(const struct shmtrace_rd_stream *s)
{
	return s->discarded;
}

uint64_t shmtrace_rd_stream_lost_packets(const struct shmtrace_rd_stream *s)
{
	return s->lost;
}

uint64_t shmtrace_rd_stream_event_count(const struct shmtrace_rd_stream *s)
{
	return s->nevents;
}

int shmtrace_rd_stream_error(const struct shmtrace_rd_stream *s)
{
	return s->error;
}

const struct shmtrace_rd_stream *shmtrace_rd_event_stream(const struct shmtrace_rd_event *ev)
{
	return ev->stream;
}

const struct shmtrace_rd_trace *shmtrace_rd_event_trace(const struct shmtrace_rd_event *ev)
{
	return ev->stream->trace;
}

uint64_t shmtrace_rd_event_clock(const struct shmtrace_rd_event *ev)
{
	return ev->ts;
}

int64_t shmtrace_rd_event_time_ns(const struct shmtrace_rd_event *ev)
{
	return ev->ns;
}

uint32_t shmtrace_rd_event_id(const struct shmtrace_rd_event *ev)
{
	return ev->cls->id;
}

const char *shmtrace_rd_event_name(const struct shmtrace_rd_event *ev)
{
	return ev->cls->name;
}

size_t shmtrace_rd_event_class_index(const struct shmtrace_rd_event *ev)
{
	return ev->cls->index;
}

int shmtrace_rd_event_loglevel(const struct shmtrace_rd_event *ev, int64_t *level)
{
	if (!ev->cls->has_loglevel)
		return 0;
	*level = ev->cls->loglevel;
	return 1;
}

uint32_t shmtrace_rd_event_tid(const struct shmtrace_rd_event *ev)
{
	return ev->stream->tid;
}

uint64_t shmtrace_rd_event_offset(const struct shmtrace_rd_event *ev)
{
	return ev->stream->pkt_off + ev->pos;
}

/* Index of the field named @name among @n, or -ENOENT. */
static int find_field(const struct tsdl_field *f, unsigned n,
		      const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return (int)i;
	return -ENOENT;
}

/* Fill *v with the value of field @f, the @n bytes at @p. */
static inline void fill_value(const struct tsdl_field *f, const unsigned char *p,
			      size_t n, struct shmtrace_rd_value *v)
{
	v->bytes = f->bytes;
	v->is_signed = f->is_signed;
	v->base = f->base;
	switch (f->kind) {
	case TSDL_F_INT:
		v->kind = SHMTRACE_RD_INT;
		v->u = read_uint(p, f->bytes);
		if (f->is_signed)
			v->s = sext(v->u, f->bytes);
		break;
	case TSDL_F_FLOAT:
		v->kind = SHMTRACE_RD_FLOAT;
		if (f->bytes == 8) {
			uint64_t x = le64(p);

			memcpy(&v->d, &x, sizeof(x));
		} else {
			uint32_t x = le32(p);
			float fl;

			memcpy(&fl, &x, sizeof(x));
			v->d = fl;
		}
		break;
	case TSDL_F_STRING:
		v->kind = SHMTRACE_RD_STRING;
		v->str = (const char *)p;
		v->len = n - 1;
		break;
	case TSDL_F_SEQUENCE:
	case TSDL_F_ARRAY:
		v->kind = f->kind == TSDL_F_ARRAY ? SHMTRACE_RD_ARRAY : SHMTRACE_RD_SEQUENCE;
		v->data = p;
		v->count = n / f->bytes;
		break;
	}
}

unsigned shmtrace_rd_event_field_count(const struct shmtrace_rd_event *ev)
{
	return ev->cls->nfields;
}

const char *shmtrace_rd_event_field_name(const struct shmtrace_rd_event *ev, unsigned i)
{
	return i < ev->cls->nfields ? ev->cls->fields[i].name : NULL;
}

int shmtrace_rd_event_field_index(const struct shmtrace_rd_event *ev, const char *name)
{
	return find_field(ev->cls->fields, ev->cls->nfields, name);
}

int shmtrace_rd_event_field(const struct shmtrace_rd_event *ev, unsigned i, struct shmtrace_rd_value *v)
{
	const uint32_t *foff = ev->stream->foff;

	if (i >= ev->cls->nfields)
		return -EINVAL;
	fill_value(&ev->cls->fields[i], ev->stream->buf + foff[i],
		   foff[i + 1] - foff[i], v);
	return 0;
}

unsigned shmtrace_rd_event_context_count(const struct shmtrace_rd_event *ev)
{
	return ev->cls->stream->nctx;
}

const char *shmtrace_rd_event_context_name(const struct shmtrace_rd_event *ev, unsigned i)
{
	const struct tsdl_stream_class *sc = ev->cls->stream;

	return i < sc->nctx ? sc->ctx[i].name : NULL;
}

int shmtrace_rd_event_context_index(const struct shmtrace_rd_event *ev, const char *name)
{
	const struct tsdl_stream_class *sc = ev->cls->stream;

	return find_field(sc->ctx, sc->nctx, name);
}

int shmtrace_rd_event_context(const struct shmtrace_rd_event *ev, unsigned i,
			      struct shmtrace_rd_value *v)
{
	const struct shmtrace_rd_stream *s = ev->stream;
	const struct tsdl_stream_class *sc = ev->cls->stream;
	const struct tsdl_field *f;

	if (i >= sc->nctx)
		return -EINVAL;
	f = &sc->ctx[i];
	fill_value(f, s->buf + s->foff[0] - sc->ctx_bytes + f->offset,
		   f->bytes, v);
	return 0;
}
