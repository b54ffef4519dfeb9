/* SPDX-License-Identifier: MIT */
/*
 * reader-discover.c - finding and opening the traces (shmtrace_rd_open()
 * and shmtrace_rd_close() of <shmtrace/reader.h>): every directory below
 * the paths given (at most MAX_SCAN_DEPTH levels, symbolic links not
 * followed) that holds a metadata file is a trace, its other regular
 * files (but those whose name begins with '.': the consumer's
 * bookkeeping, as babeltrace2 ignores them) its stream files, in name
 * order. The metadata is read and parsed now (tsdl.h); an LZ4 stream file
 * is inflated now into a temporary file (lz4file.h). No event is read.
 *
 * A trace whose metadata cannot be read (malformed, packetized in a form
 * not read, too large) is damage, said once the other traces are read; what is not
 * damage (a missing path, a file that cannot be opened, no memory) fails
 * the open.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lz4file.h"
#include "reader-damage.h"
#include "reader-ctf.h"
#include "reader-objects.h"
#include "tsdl.h"

#define MAX_SCAN_DEPTH 8
#define MAX_METADATA (64U << 20)

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

/* The clock's offset: tsdl_parse() checked that it fits in ns. */
static void trace_init_clock(struct shmtrace_rd_trace *t)
{
	t->freq = t->meta->clock.freq;
	t->base_ns = t->meta->clock.base_ns;
}

/*
 * Packetized metadata (CTF 1.8, as LTTng writes it): packets of a 37-byte
 * header (magic, uuid, checksum, content_size and packet_size in bits,
 * compression, encryption and checksum schemes, major, minor) and text.
 * The texts of the packets are moved, in place, to the start of @buf; *@len
 * becomes their length. Every packet is checked: the same uuid, sizes
 * within the file, no compression, encryption or checksum, version 1.8.
 */
#define MD_HEADER 37

static int depacketize(const char *path, char *buf, size_t *len, char *err, size_t errlen)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t off = 0, out = 0, n = *len;
	unsigned char uuid[16];

	while (off < n) {
		uint32_t content, psize;

		if (n - off < MD_HEADER) {
			set_err(err, errlen, "%s: offset %zu: truncated metadata packet header",
				path, off);
			return -EINVAL;
		}
		if (le32(p + off) != TSDL_METADATA_MAGIC) {
			set_err(err, errlen, "%s: offset %zu: bad metadata packet magic 0x%08x",
				path, off, le32(p + off));
			return -EINVAL;
		}
		if (!off)
			memcpy(uuid, p + 4, 16);
		else if (memcmp(uuid, p + off + 4, 16)) {
			set_err(err, errlen, "%s: offset %zu: metadata packet of another uuid",
				path, off + 4);
			return -EINVAL;
		}
		content = le32(p + off + 24);
		psize = le32(p + off + 28);
		if (content % 8 || psize % 8 || content < 8 * MD_HEADER || content > psize ||
		    psize / 8 > n - off) {
			set_err(err, errlen,
				"%s: offset %zu: invalid metadata packet content_size %u / packet_size %u (bits)",
				path, off + 24, content, psize);
			return -EINVAL;
		}
		if (p[off + 32] || p[off + 33] || p[off + 34] || p[off + 35] != 1 ||
		    p[off + 36] != 8) {
			set_err(err, errlen,
				"%s: offset %zu: unsupported metadata packet (compressed, encrypted, checksummed, or not CTF 1.8)",
				path, off + 32);
			return -ENOTSUP;
		}
		/* the text moves down: out <= off always */
		memmove(buf + out, buf + off + MD_HEADER, content / 8 - MD_HEADER);
		out += content / 8 - MD_HEADER;
		off += psize / 8;
	}
	*len = out;
	return 0;
}

static int read_metadata(struct shmtrace_rd_trace *t, char *err, size_t errlen)
{
	struct stat st;
	char *text = NULL;
	size_t len;
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
	rc = rd_pread_full(fd, text, st.st_size, 0);
	if (rc) {
		set_err(err, errlen, "%s: read error: %s", t->meta_path,
			strerror(-rc));
		goto out;
	}
	len = (size_t)st.st_size;
	if (len >= 4 && le32((const unsigned char *)text) == TSDL_METADATA_MAGIC) {
		rc = depacketize(t->meta_path, text, &len, err, errlen);
		if (rc)
			goto out;
	}
	if (!tsdl_signature_ok(text, len)) {
		rc = -EINVAL;
		set_err(err, errlen,
			"%s:1: not CTF metadata (missing \"/* CTF 1.8 */\" signature)",
			t->meta_path);
		goto out;
	}
	if (memchr(text, '\0', len)) {
		rc = -EINVAL;
		set_err(err, errlen, "%s: NUL byte in metadata text",
			t->meta_path);
		goto out;
	}
	rc = tsdl_parse(text, len, t->meta_path, &t->meta, err, errlen);
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
	if (rc && rd_is_damage(rc)) {
		/* none of its streams can be read: said once the others were */
		rc = rd_add_damage(r, NULL, t->meta_path, -1, rc, msg);
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
		rd_ctf_free(s->gen);
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
