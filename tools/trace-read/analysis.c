/* SPDX-License-Identifier: MIT */
/*
 * analysis.c - trace-read --stats and --latency (see analysis.h).
 *
 * Stats keep one counter per (trace, event class) and one per thread in an
 * open-addressing table keyed by (program image, tid), the images of a pid
 * told apart at the first event of each trace; forks seen from one side
 * are kept until the other side comes: memory follows the number of event
 * names, threads, images and forks. Latency keeps, per pairing key, a small
 * stack of open BEGIN times (nesting), and one 64-bit duration per
 * completed pair so that percentiles are exact (the nearest-rank method:
 * pN is the smallest duration with at least N% of the pairs at or below
 * it); the histogram has one bucket per power of two.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "analysis.h"
#include "glob.h"
#include "select.h"
#include "util.h"

/* ---- small helpers ------------------------------------------------------ */

static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 10000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.3f us", (double)ns / 1e3);
	else if (ns < 10000000000ULL)
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
}

/* ---- stats -------------------------------------------------------------- */

enum { ROLE_OTHER, ROLE_FORK, ROLE_EXEC };

struct an_thread {
	uint64_t key;			/* image index + 1 << 32 | tid, 0 = empty */
	uint64_t events;
};

/* One program image of a process: from its start or exec to its exit or exec. */
struct an_image {
	const struct shmtrace_rd_trace *trace;	/* its first trace */
	uint64_t host;			/* hash of the host name */
	int64_t pid;
	unsigned nth;			/* 1 for the first image of the pid seen, ... */
	bool shared;			/* the pid has other images */
};

/* A fork seen from its parent's side, its child's side or both. */
struct an_fork {
	uint64_t key;			/* host, parent and child pids; 0 = empty */
	uint8_t sides;			/* FORK_PARENT | FORK_CHILD */
};

/* The latest image of a pid. */
struct an_pidslot {
	uint64_t host;
	int64_t pid;
	size_t image;			/* index + 1, 0 = empty */
};

#define FORK_PARENT	1
#define FORK_CHILD	2

struct an_stats {
	uint64_t **per_class;		/* [trace][class] */
	uint8_t **role;			/* [trace][class]: ROLE_* */
	uint64_t *host;			/* [trace]: hash of its host name */
	size_t *image_of;		/* [trace]: image index + 1, 0 before its first event */
	size_t ntraces;
	struct an_thread *threads;
	size_t nthreads, cap;
	struct an_image *images;
	size_t nimages, icap;
	struct an_pidslot *pids;	/* open addressing, pcap slots */
	size_t pcap;
	struct an_fork *forks;
	size_t nforks, fcap;
	uint64_t fork_echoes;		/* fork events of a fork already counted */
	uint64_t total;
	int64_t first, last;
};

struct an_stats *an_stats_new(const struct shmtrace_rd_reader *r)
{
	struct an_stats *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ntraces = shmtrace_rd_trace_count(r);
	s->per_class = calloc(s->ntraces + 1, sizeof(*s->per_class));
	s->role = calloc(s->ntraces + 1, sizeof(*s->role));
	s->host = calloc(s->ntraces + 1, sizeof(*s->host));
	s->image_of = calloc(s->ntraces + 1, sizeof(*s->image_of));
	s->cap = 64;
	s->threads = calloc(s->cap, sizeof(*s->threads));
	if (!s->per_class || !s->role || !s->host || !s->image_of || !s->threads)
		goto fail;
	for (size_t i = 0; i < s->ntraces; i++) {
		const struct shmtrace_rd_trace *t = shmtrace_rd_trace_at(r, i);
		size_t n = shmtrace_rd_trace_event_class_count(t);

		s->per_class[i] = calloc(n + 1, sizeof(uint64_t));
		s->role[i] = calloc(n + 1, 1);
		if (!s->per_class[i] || !s->role[i])
			goto fail;
		for (size_t j = 0; j < n; j++) {
			const char *name = shmtrace_rd_trace_event_class_name(t, j);

			if (!name)
				continue;
			if (!strcmp(name, "shmtrace_proc:fork"))
				s->role[i][j] = ROLE_FORK;
			else if (!strcmp(name, "shmtrace_proc:exec"))
				s->role[i][j] = ROLE_EXEC;
		}
		const char *host = shmtrace_rd_trace_hostname(t);

		s->host[i] = hash_bytes(host, host ? strlen(host) : 0);
	}
	return s;
fail:
	an_stats_free(s);
	return NULL;
}

/* The signed 32-bit payload field @name of @ev, or -1. */
static int64_t field_pid(const struct shmtrace_rd_event *ev, const char *name)
{
	unsigned n = shmtrace_rd_event_field_count(ev);
	struct shmtrace_rd_value v;

	for (unsigned i = 0; i < n; i++) {
		const char *fname = shmtrace_rd_event_field_name(ev, i);

		if (fname && !strcmp(fname, name) && !shmtrace_rd_event_field(ev, i, &v) &&
		    v.kind == SHMTRACE_RD_INT)
			return v.is_signed ? v.s : (int64_t)v.u;
	}
	return -1;
}

static struct an_fork *fork_slot(struct an_fork *f, size_t cap, uint64_t key)
{
	size_t i = hash_id(key) & (cap - 1);

	while (f[i].key && f[i].key != key)
		i = (i + 1) & (cap - 1);
	return &f[i];
}

/*
 * A shmtrace_proc:fork event: the parent records one and so does the
 * child, in its own trace, with the same pids. Is this one a fork not
 * counted yet (1), the other side of one counted (0), or is there no
 * memory (-ENOMEM)? The same side seen again is a new fork (the pid
 * used again).
 */
static int fork_is_new(struct an_stats *s, size_t tr, const struct shmtrace_rd_event *ev)
{
	int64_t parent = field_pid(ev, "parent_pid"), child = field_pid(ev, "child_pid");
	int64_t self = shmtrace_rd_trace_vpid(shmtrace_rd_event_trace(ev));
	uint8_t side = self == child && self != parent ? FORK_CHILD : FORK_PARENT;
	uint64_t key = hash_id(s->host[tr] ^ hash_id((uint64_t)parent << 32 ^ (uint32_t)child)) | 1;
	struct an_fork *f;

	if (2 * (s->nforks + 1) > s->fcap) {
		size_t cap = s->fcap ? 2 * s->fcap : 64;
		struct an_fork *n = calloc(cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < s->fcap; i++)
			if (s->forks[i].key)
				*fork_slot(n, cap, s->forks[i].key) = s->forks[i];
		free(s->forks);
		s->forks = n;
		s->fcap = cap;
	}
	f = fork_slot(s->forks, s->fcap, key);
	if (!f->key) {
		f->key = key;
		s->nforks++;
	} else if (!(f->sides & side)) {
		f->sides |= side;
		s->fork_echoes++;
		return 0;
	}
	f->sides = side;
	return 1;
}

/* Count @ev in its class, a fork once for both its sides. */
static int count_class(struct an_stats *s, size_t tr, const struct shmtrace_rd_event *ev)
{
	size_t ci = shmtrace_rd_event_class_index(ev);

	if (s->role[tr][ci] == ROLE_FORK) {
		int rc = fork_is_new(s, tr, ev);

		if (rc <= 0)
			return rc;
	}
	s->per_class[tr][ci]++;
	return 0;
}

int an_stats_count(struct an_stats *s, const struct shmtrace_rd_event *ev)
{
	s->total++;
	return count_class(s, shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev)), ev);
}

static struct an_thread *thread_slot(struct an_thread *t, size_t cap, uint64_t key)
{
	size_t i = hash_id(key) & (cap - 1);

	while (t[i].key && t[i].key != key)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/*
 * The image of the process of trace @tr, whose first event is @ev: the
 * latest image of its pid (on its host), continued in another trace (the
 * next chunk of a rotated session, a consumer started again), unless @ev
 * is a shmtrace_proc:exec (an image starts with it) or the process name
 * changed. Index + 1, or 0 without memory.
 */
static struct an_pidslot *pid_slot(struct an_pidslot *p, size_t cap, uint64_t host, int64_t pid)
{
	size_t i = hash_id(host ^ hash_id((uint64_t)pid)) & (cap - 1);

	while (p[i].image && (p[i].host != host || p[i].pid != pid))
		i = (i + 1) & (cap - 1);
	return &p[i];
}

static size_t image_of(struct an_stats *s, size_t tr, const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	int64_t pid = shmtrace_rd_trace_vpid(t);
	struct an_pidslot *slot;
	unsigned nth = 1;

	if (2 * (s->nimages + 1) > s->pcap) {
		size_t cap = s->pcap ? 2 * s->pcap : 64;
		struct an_pidslot *n = calloc(cap, sizeof(*n));

		if (!n)
			return 0;
		for (size_t i = 0; i < s->pcap; i++)
			if (s->pids[i].image)
				*pid_slot(n, cap, s->pids[i].host, s->pids[i].pid) = s->pids[i];
		free(s->pids);
		s->pids = n;
		s->pcap = cap;
	}
	slot = pid_slot(s->pids, s->pcap, s->host[tr], pid);
	if (slot->image) {
		struct an_image *im = &s->images[slot->image - 1];

		if (s->role[tr][shmtrace_rd_event_class_index(ev)] != ROLE_EXEC &&
		    !strcmp(shmtrace_rd_trace_procname(im->trace), shmtrace_rd_trace_procname(t)))
			return slot->image;
		nth = im->nth + 1;
		im->shared = true;
	}
	if (s->nimages == s->icap) {
		size_t cap = s->icap ? 2 * s->icap : 16;
		struct an_image *n = realloc(s->images, cap * sizeof(*n));

		if (!n)
			return 0;
		s->images = n;
		s->icap = cap;
	}
	s->images[s->nimages] = (struct an_image){ t, s->host[tr], pid, nth, nth > 1 };
	*slot = (struct an_pidslot){ s->host[tr], pid, ++s->nimages };
	return s->nimages;
}

int an_stats_event(struct an_stats *s, const struct shmtrace_rd_event *ev)
{
	size_t tr = shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev));
	struct an_thread *t;
	uint64_t key;
	int64_t ts = shmtrace_rd_event_time_ns(ev);
	int rc;

	if (!s->image_of[tr]) {
		s->image_of[tr] = image_of(s, tr, ev);
		if (!s->image_of[tr])
			return -ENOMEM;
	}
	key = (uint64_t)s->image_of[tr] << 32 | shmtrace_rd_event_tid(ev);
	rc = count_class(s, tr, ev);
	if (rc < 0)
		return rc;
	if (!s->total++)
		s->first = ts;
	s->last = ts;
	if (2 * (s->nthreads + 1) > s->cap) {
		struct an_thread *n = calloc(2 * s->cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < s->cap; i++)
			if (s->threads[i].key)
				*thread_slot(n, 2 * s->cap, s->threads[i].key) = s->threads[i];
		free(s->threads);
		s->threads = n;
		s->cap *= 2;
	}
	t = thread_slot(s->threads, s->cap, key);
	if (!t->key) {
		t->key = key;
		s->nthreads++;
	}
	t->events++;
	return 0;
}

struct an_row {
	const char *name;
	uint64_t n;
	int64_t pid;
	uint32_t tid;
	size_t image;			/* index + 1 (per thread) */
};

static int row_by_name(const void *a, const void *b)
{
	return strcmp(((const struct an_row *)a)->name, ((const struct an_row *)b)->name);
}

static int row_by_count(const void *a, const void *b)
{
	const struct an_row *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * Events per name, all processes together (an event's classes, one per
 * stream class, add up under its name): *@k rows sorted by name, in an
 * array with room for @extra more rows; NULL without memory.
 */
static struct an_row *name_rows(const struct an_stats *s, const struct shmtrace_rd_reader *r,
				size_t extra, size_t *k)
{
	struct an_row *rows;
	size_t n = 0, cap = extra;

	for (size_t i = 0; i < s->ntraces; i++)
		cap += shmtrace_rd_trace_event_class_count(shmtrace_rd_trace_at(r, i));
	rows = calloc(cap + 1, sizeof(*rows));
	if (!rows)
		return NULL;
	for (size_t i = 0; i < s->ntraces; i++) {
		const struct shmtrace_rd_trace *t = shmtrace_rd_trace_at(r, i);

		for (size_t j = 0; j < shmtrace_rd_trace_event_class_count(t); j++)
			if (s->per_class[i][j]) {
				rows[n].name = shmtrace_rd_trace_event_class_name(t, j);
				rows[n++].n = s->per_class[i][j];
			}
	}
	qsort(rows, n, sizeof(*rows), row_by_name);
	*k = 0;
	for (size_t i = 0; i < n; i++) {
		if (*k && !strcmp(rows[*k - 1].name, rows[i].name))
			rows[*k - 1].n += rows[i].n;
		else
			rows[(*k)++] = rows[i];
	}
	return rows;
}

/* Events discarded in every stream of @r. */
static uint64_t discarded_total(const struct shmtrace_rd_reader *r)
{
	uint64_t d = 0;

	for (size_t i = 0; i < shmtrace_rd_stream_count(r); i++)
		d += shmtrace_rd_stream_discarded(shmtrace_rd_stream_at(r, i));
	return d;
}

int an_stats_print_counts(struct an_stats *s, const struct shmtrace_rd_reader *r, FILE *out)
{
	size_t k;
	struct an_row *rows = name_rows(s, r, 0, &k);

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		fprintf(out, "%12" PRIu64 "  %s\n", rows[i].n, rows[i].name);
	fprintf(out, "%12" PRIu64 "  total\n", s->total);
	fprintf(out, "%12" PRIu64 "  discarded\n", discarded_total(r));
	if (shmtrace_rd_damage_count(r))
		fprintf(out, "%12zu  damaged\n", shmtrace_rd_damage_count(r));
	free(rows);
	return 0;
}

/* "name[pid]", with " (image N)" when the pid ran several programs. */
static void print_image(FILE *out, const struct an_image *im)
{
	fprintf(out, "%s[%" PRId64 "]", shmtrace_rd_trace_procname(im->trace), im->pid);
	if (im->shared)
		fprintf(out, " (image %u)", im->nth);
}

struct an_pid {
	uint64_t host;
	int64_t pid;
};

static int pid_cmp(const void *a, const void *b)
{
	const struct an_pid *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The processes (pids of a host) of @r's traces; 0 without memory. */
static size_t count_processes(const struct an_stats *s, const struct shmtrace_rd_reader *r)
{
	struct an_pid *p = calloc(s->ntraces + 1, sizeof(*p));
	size_t n = 0;

	if (!p)
		return 0;
	for (size_t i = 0; i < s->ntraces; i++)
		p[i] = (struct an_pid){ s->host[i], shmtrace_rd_trace_vpid(shmtrace_rd_trace_at(r, i)) };
	qsort(p, s->ntraces, sizeof(*p), pid_cmp);
	for (size_t i = 0; i < s->ntraces; i++)
		n += !i || pid_cmp(&p[i - 1], &p[i]);
	free(p);
	return n;
}

/* The execs seen: images after the first of their pid. */
static size_t count_execs(const struct an_stats *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nimages; i++)
		n += s->images[i].nth > 1;
	return n;
}

/*
 * Print @d discarded events of the image @img (index + 1) or, for 0, of
 * trace @tr, which has no image (no event read), then its streams'.
 */
static void print_discarded(FILE *out, const struct an_stats *s,
			    const struct shmtrace_rd_reader *r, uint64_t d, size_t img, size_t tr)
{
	fprintf(out, "  %14" PRIu64 "  ", d);
	if (img) {
		print_image(out, &s->images[img - 1]);
	} else {
		const struct shmtrace_rd_trace *t = shmtrace_rd_trace_at(r, tr);

		fprintf(out, "%s[%" PRId64 "]", shmtrace_rd_trace_procname(t),
			shmtrace_rd_trace_vpid(t));
	}
	fputc('\n', out);
	for (size_t j = 0; j < shmtrace_rd_stream_count(r); j++) {
		const struct shmtrace_rd_stream *st = shmtrace_rd_stream_at(r, j);
		size_t i = shmtrace_rd_trace_index(shmtrace_rd_stream_trace(st));

		if ((img ? s->image_of[i] == img : i == tr) && shmtrace_rd_stream_discarded(st))
			fprintf(out, "  %14" PRIu64 "    %s\n", shmtrace_rd_stream_discarded(st),
				shmtrace_rd_stream_path(st));
	}
}

/*
 * The damaged stream files (and traces) of @r, when there are any: the
 * events read of each before its damage, and where it lies.
 */
static void print_damaged(FILE *out, const struct shmtrace_rd_reader *r)
{
	size_t n = shmtrace_rd_damage_count(r);

	if (!n)
		return;
	fprintf(out, "\nDamaged (read up to the damage, the rest not read):\n");
	for (size_t i = 0; i < n; i++) {
		const struct shmtrace_rd_stream *st = shmtrace_rd_damage_stream(r, i);
		int64_t off = shmtrace_rd_damage_offset(r, i);

		fprintf(out, "  %14" PRIu64 "  %s", st ? shmtrace_rd_stream_event_count(st) : 0,
			shmtrace_rd_damage_path(r, i));
		if (off >= 0)
			fprintf(out, " at byte %" PRId64, off);
		fprintf(out, "\n");
	}
}

void an_stats_print(struct an_stats *s, const struct shmtrace_rd_reader *r, FILE *out)
{
	struct an_row *rows;
	uint64_t *per_trace, *per_image;
	size_t n = 0, k = 0, nproc = count_processes(s, r), nexec = count_execs(s);
	double span = s->total ? (double)(s->last - s->first) / 1e9 : 0;
	uint64_t discarded = 0;

	rows = name_rows(s, r, s->nthreads, &k);
	per_trace = calloc(s->ntraces + 1, sizeof(*per_trace));
	per_image = calloc(s->nimages + 1, sizeof(*per_image));
	if (!rows || !per_trace || !per_image) {
		free(rows);
		free(per_trace);
		free(per_image);
		fprintf(out, "out of memory\n");
		return;
	}
	fprintf(out, "Events: %" PRIu64 " in %.9f s (%.0f events/s), %zu process%s", s->total,
		span, span > 0 ? (double)s->total / span : 0.0, nproc, nproc == 1 ? "" : "es");
	if (nexec)
		fprintf(out, " (%zu exec%s)", nexec, nexec == 1 ? "" : "s");
	fprintf(out, ", %zu thread%s\n", s->nthreads, s->nthreads == 1 ? "" : "s");
	/* per name, all processes together */
	qsort(rows, k, sizeof(*rows), row_by_count);
	fprintf(out, "\nPer event name:\n");
	for (size_t i = 0; i < k; i++)
		fprintf(out, "  %14" PRIu64 "  %6.2f%%  %s\n", rows[i].n,
			100.0 * (double)rows[i].n / (double)(s->total ? s->total : 1), rows[i].name);
	if (s->fork_echoes)
		fprintf(out, "  (shmtrace_proc:fork counts forks: %" PRIu64 " of its events are the "
			"child's record of a fork its parent recorded too)\n", s->fork_echoes);
	/* per thread of each program image */
	n = 0;
	for (size_t i = 0; i < s->cap; i++) {
		const struct an_thread *t = &s->threads[i];
		const struct an_image *im;

		if (!t->key)
			continue;
		im = &s->images[(size_t)(t->key >> 32) - 1];
		rows[n].name = shmtrace_rd_trace_procname(im->trace);
		rows[n].pid = im->pid;
		rows[n].image = (size_t)(t->key >> 32);
		rows[n].tid = (uint32_t)t->key;
		rows[n++].n = t->events;
	}
	qsort(rows, n, sizeof(*rows), row_by_count);
	fprintf(out, "\nPer thread:\n");
	for (size_t i = 0; i < n; i++) {
		const struct an_image *im = &s->images[rows[i].image - 1];

		fprintf(out, "  %14" PRIu64 "  %s[%" PRId64 "] tid %" PRIu32, rows[i].n,
			rows[i].name, rows[i].pid, rows[i].tid);
		if (im->shared)
			fprintf(out, " (image %u)", im->nth);
		fputc('\n', out);
	}
	/* per process image (the traces of a rotated session's chunks together) */
	fprintf(out, "\nDiscarded events:\n");
	for (size_t j = 0; j < shmtrace_rd_stream_count(r); j++) {
		const struct shmtrace_rd_stream *st = shmtrace_rd_stream_at(r, j);

		per_trace[shmtrace_rd_trace_index(shmtrace_rd_stream_trace(st))] +=
			shmtrace_rd_stream_discarded(st);
	}
	for (size_t i = 0; i < s->ntraces; i++)
		if (s->image_of[i])
			per_image[s->image_of[i] - 1] += per_trace[i];
	for (size_t i = 0; i < s->nimages; i++) {
		discarded += per_image[i];
		if (per_image[i])
			print_discarded(out, s, r, per_image[i], i + 1, 0);
	}
	for (size_t i = 0; i < s->ntraces; i++) {
		if (s->image_of[i] || !per_trace[i])
			continue;
		discarded += per_trace[i];
		print_discarded(out, s, r, per_trace[i], 0, i);
	}
	fprintf(out, "  %14" PRIu64 "  total\n", discarded);
	print_damaged(out, r);
	free(per_image);
	free(per_trace);
	free(rows);
}

void an_stats_free(struct an_stats *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ntraces; i++) {
		if (s->per_class)
			free(s->per_class[i]);
		if (s->role)
			free(s->role[i]);
	}
	free(s->per_class);
	free(s->role);
	free(s->host);
	free(s->image_of);
	free(s->images);
	free(s->pids);
	free(s->forks);
	free(s->threads);
	free(s);
}

/* ---- latency ------------------------------------------------------------ */

#define LAT_NEST 16			/* open BEGINs per key */

struct lat_open {
	uint64_t key;			/* 0 = empty */
	uint32_t depth;
	int64_t ts[LAT_NEST];
	int64_t pid;
	uint32_t tid;
};

struct lat_class {			/* per (trace, class) */
	int8_t role;			/* 0 unknown, 1 begin, 2 end, 3 neither */
	int16_t by_ref;			/* sel_field_ref() of @by, -1 none */
};

struct an_latency {
	char *begin, *end, *by;
	uint64_t slower_ns;
	struct lat_class **cls;		/* [trace] lazily, by class index */
	size_t *ncls, ntr;
	struct lat_open *open;
	size_t nopen, cap;
	uint64_t *dur;
	size_t ndur, dcap;
	uint64_t unmatched_end, nested_drop;
};

struct an_latency *an_latency_new(const char *begin, const char *end, const char *by,
				  uint64_t slower_ns)
{
	struct an_latency *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->begin = strdup(begin);
	l->end = strdup(end);
	l->by = by ? strdup(by) : NULL;
	l->slower_ns = slower_ns;
	l->cap = 64;
	l->open = calloc(l->cap, sizeof(*l->open));
	if (!l->begin || !l->end || (by && !l->by) || !l->open) {
		an_latency_free(l);
		return NULL;
	}
	return l;
}

static struct lat_class *lat_class(struct an_latency *l, const struct shmtrace_rd_event *ev)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	size_t tr = shmtrace_rd_trace_index(t), ci = shmtrace_rd_event_class_index(ev);
	struct lat_class *c;

	if (tr >= l->ntr) {
		size_t n = tr + 8;
		struct lat_class **nc = realloc(l->cls, n * sizeof(*nc));
		size_t *nn = realloc(l->ncls, n * sizeof(*nn));

		if (nc)
			l->cls = nc;
		if (nn)
			l->ncls = nn;
		if (!nc || !nn)
			return NULL;
		memset(l->cls + l->ntr, 0, (n - l->ntr) * sizeof(*nc));
		memset(l->ncls + l->ntr, 0, (n - l->ntr) * sizeof(*nn));
		l->ntr = n;
	}
	if (!l->cls[tr]) {
		l->ncls[tr] = shmtrace_rd_trace_event_class_count(t);
		l->cls[tr] = calloc(l->ncls[tr] + 1, sizeof(**l->cls));
		if (!l->cls[tr])
			return NULL;
	}
	c = &l->cls[tr][ci < l->ncls[tr] ? ci : l->ncls[tr]];
	if (!c->role) {
		const char *name = shmtrace_rd_event_name(ev);
		int ref = l->by ? sel_field_ref(ev, l->by) : -1;

		c->role = glob_match(l->begin, name) ? 1 : glob_match(l->end, name) ? 2 : 3;
		c->by_ref = ref >= 0 && ref <= INT16_MAX ? (int16_t)ref : -1;
		if (l->by && c->by_ref < 0 && c->role != 3)
			c->role = 3;	/* no key: cannot pair it */
	}
	return c;
}

static struct lat_open *lat_slot(struct lat_open *o, size_t cap, uint64_t key)
{
	size_t i = hash_id(key) & (cap - 1);

	while (o[i].key && o[i].key != key)
		i = (i + 1) & (cap - 1);
	return &o[i];
}

/* The pairing key: the process, and the thread or the @by field's value. */
static uint64_t lat_key(const struct shmtrace_rd_event *ev, int by_ref)
{
	uint64_t k = (uint64_t)shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev)) * 0x9e3779b97f4a7c15ULL;
	struct shmtrace_rd_value v;

	if (by_ref < 0)
		return hash_id(k ^ shmtrace_rd_event_tid(ev)) | 1;
	if (sel_field_value(ev, by_ref, &v) < 0)
		return 1;
	if (v.kind == SHMTRACE_RD_STRING)
		return hash_id(k ^ hash_bytes(v.str, v.len)) | 1;
	return hash_id(k ^ hash_id(v.u)) | 1;
}

int an_latency_event(struct an_latency *l, const struct shmtrace_rd_event *ev)
{
	struct lat_class *c = lat_class(l, ev);
	struct lat_open *o;
	uint64_t key;
	int64_t ts = shmtrace_rd_event_time_ns(ev);

	if (!c)
		return -ENOMEM;
	if (c->role == 3)
		return 0;
	key = lat_key(ev, c->by_ref);
	if (c->role == 1 && 2 * (l->nopen + 1) > l->cap) {
		struct lat_open *n = calloc(2 * l->cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < l->cap; i++)
			if (l->open[i].key)
				*lat_slot(n, 2 * l->cap, l->open[i].key) = l->open[i];
		free(l->open);
		l->open = n;
		l->cap *= 2;
	}
	o = lat_slot(l->open, l->cap, key);
	if (c->role == 1) {
		if (!o->key) {
			o->key = key;
			l->nopen++;
		}
		if (o->depth == LAT_NEST) {
			l->nested_drop++;
			return 0;
		}
		o->ts[o->depth++] = ts;
		o->pid = shmtrace_rd_trace_vpid(shmtrace_rd_event_trace(ev));
		o->tid = shmtrace_rd_event_tid(ev);
		return 0;
	}
	if (!o->key || !o->depth) {
		l->unmatched_end++;
		return 0;
	}
	{
		int64_t b = o->ts[--o->depth];
		uint64_t d = ts > b ? (uint64_t)(ts - b) : 0;

		if (l->ndur == l->dcap) {
			size_t n = l->dcap ? 2 * l->dcap : 4096;
			uint64_t *nd = realloc(l->dur, n * sizeof(*nd));

			if (!nd)
				return -ENOMEM;
			l->dur = nd;
			l->dcap = n;
		}
		l->dur[l->ndur++] = d;
		if (l->slower_ns && d > l->slower_ns) {
			char when[32], len[32];
			time_t sec = (time_t)(b / 1000000000);
			struct tm tm;

			localtime_r(&sec, &tm);
			strftime(when, sizeof(when), "%H:%M:%S", &tm);
			fmt_ns(len, sizeof(len), d);
			printf("slow: [%s.%09" PRId64 "] %s[%" PRId64 "] tid %" PRIu32 ": %s\n", when,
			       b % 1000000000, shmtrace_rd_trace_procname(shmtrace_rd_event_trace(ev)), o->pid, o->tid,
			       len);
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest rank: the smallest value with at least @permille of them at or below */
static uint64_t percentile(const uint64_t *v, size_t n, unsigned int permille)
{
	size_t rank = ((size_t)permille * n + 999) / 1000;

	if (rank < 1)
		rank = 1;
	return v[(rank > n ? n : rank) - 1];
}

void an_latency_print(struct an_latency *l, FILE *out)
{
	static const struct { const char *name; unsigned int permille; } ps[] = {
		{ "p50", 500 }, { "p90", 900 }, { "p99", 990 }, { "p99.9", 999 },
	};
	uint64_t buckets[65] = { 0 }, maxb = 0;
	char a[32];
	int lo = 64, hi = 0;

	fprintf(out, "Latency %s -> %s%s%s: %zu pairs", l->begin, l->end, l->by ? " by " : "",
		l->by ? l->by : "", l->ndur);
	if (l->unmatched_end || l->nested_drop)
		fprintf(out, " (%" PRIu64 " ends without a begin, %" PRIu64 " begins nested too deep)",
			l->unmatched_end, l->nested_drop);
	fprintf(out, "\n");
	if (!l->ndur)
		return;
	qsort(l->dur, l->ndur, sizeof(*l->dur), cmp_u64);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]) + 2; i++) {
		uint64_t v = i == 0 ? l->dur[0] : i <= sizeof(ps) / sizeof(ps[0]) ?
			     percentile(l->dur, l->ndur, ps[i - 1].permille) : l->dur[l->ndur - 1];

		fmt_ns(a, sizeof(a), v);
		fprintf(out, "  %-6s %14" PRIu64 " ns  %s\n",
			i == 0 ? "min" : i <= sizeof(ps) / sizeof(ps[0]) ? ps[i - 1].name : "max",
			v, a);
	}
	fprintf(out, "\n");
	/* bucket b holds [2^(b-1), 2^b) ns; bucket 0 holds 0 */
	for (size_t i = 0; i < l->ndur; i++) {
		int b = l->dur[i] ? 64 - __builtin_clzll(l->dur[i]) : 0;

		buckets[b]++;
		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	for (int b = lo; b <= hi; b++)
		maxb = buckets[b] > maxb ? buckets[b] : maxb;
	fprintf(out, "  %14s  %-40s %s\n", "ns", "------------- Distribution -------------",
		"count");
	for (int b = lo; b <= hi + 1 && b <= 64; b++) {
		uint64_t start = b ? 1ULL << (b - 1) : 0;
		int bar = maxb ? (int)((buckets[b] * 40 + maxb - 1) / maxb) : 0;
		char bars[41];

		memset(bars, '@', (size_t)bar);
		bars[bar] = 0;
		fprintf(out, "  %14" PRIu64 " |%-40s %" PRIu64 "\n", start, bars,
			b <= 64 ? buckets[b] : 0);
	}
}

void an_latency_free(struct an_latency *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->ntr; i++)
		free(l->cls[i]);
	free(l->cls);
	free(l->ncls);
	free(l->open);
	free(l->dur);
	free(l->begin);
	free(l->end);
	free(l->by);
	free(l);
}

/* ---- profile ------------------------------------------------------------ */

enum { PK_UNKNOWN, PK_ENTRY, PK_EXIT, PK_ALLOC, PK_OTHER };

struct prof_func {
	uint64_t key;			/* trace << 48 ^ addr, mixed; 0 = empty */
	uint64_t addr;
	size_t trace;
	char *name;
	uint64_t calls, total, self, bytes_self, bytes_total;
};

struct prof_frame {
	struct prof_func *f;
	int64_t start;
	uint64_t child, bytes, child_bytes;
	int outer;			/* not inside another activation of f */
};

struct prof_thread {
	uint64_t key;			/* trace + 1 << 32 | tid; 0 = empty */
	struct prof_frame *stack;
	uint32_t depth, cap;
};

struct an_profile {
	struct shmtrace_rd_symbols *syms;	/* names the functions, or NULL */
	uint8_t **kind;			/* [trace][class] PK_* */
	int8_t **size_field, **nmemb_field;
	size_t ntr;
	struct prof_func *funcs;
	size_t nfuncs, fcap;
	struct prof_thread *threads;
	size_t nthreads, tcap;
	int have_alloc;
	uint64_t unmatched;
};

const char *an_function_name(struct shmtrace_rd_symbols *syms, const struct shmtrace_rd_event *ev,
			     uint64_t addr, char *buf, size_t len)
{
	struct shmtrace_rd_symbol sym;

	if (syms && shmtrace_rd_sym_lookup(syms, shmtrace_rd_event_trace(ev), addr, &sym))
		snprintf(buf, len, "%s", sym.name);
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}

struct an_profile *an_profile_new(struct shmtrace_rd_symbols *syms)
{
	struct an_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->syms = syms;
	p->fcap = 256;
	p->tcap = 64;
	p->funcs = calloc(p->fcap, sizeof(*p->funcs));
	p->threads = calloc(p->tcap, sizeof(*p->threads));
	if (!p->funcs || !p->threads) {
		an_profile_free(p);
		return NULL;
	}
	return p;
}

static int field_index(const struct shmtrace_rd_event *ev, const char *name)
{
	for (unsigned i = 0; i < shmtrace_rd_event_field_count(ev); i++)
		if (!strcmp(shmtrace_rd_event_field_name(ev, i), name))
			return (int)i;
	return -1;
}

static int prof_kind(struct an_profile *p, const struct shmtrace_rd_event *ev, int *sz, int *nm)
{
	size_t tr = shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev)), ci = shmtrace_rd_event_class_index(ev);
	size_t ncls = shmtrace_rd_trace_event_class_count(shmtrace_rd_event_trace(ev));

	if (tr >= p->ntr) {
		size_t n = tr + 8;
		uint8_t **k = realloc(p->kind, n * sizeof(*k));
		int8_t **s = k ? realloc(p->size_field, n * sizeof(*s)) : NULL;
		int8_t **m = s ? realloc(p->nmemb_field, n * sizeof(*m)) : NULL;

		if (k)
			p->kind = k;
		if (s)
			p->size_field = s;
		if (m)
			p->nmemb_field = m;
		if (!m)
			return -ENOMEM;
		for (size_t i = p->ntr; i < n; i++)
			p->kind[i] = NULL, p->size_field[i] = NULL, p->nmemb_field[i] = NULL;
		p->ntr = n;
	}
	if (!p->kind[tr]) {
		p->kind[tr] = calloc(ncls + 1, 1);
		p->size_field[tr] = calloc(ncls + 1, 1);
		p->nmemb_field[tr] = calloc(ncls + 1, 1);
		if (!p->kind[tr] || !p->size_field[tr] || !p->nmemb_field[tr])
			return -ENOMEM;
	}
	if (ci > ncls)
		ci = ncls;
	if (!p->kind[tr][ci]) {
		const char *n = shmtrace_rd_event_name(ev);
		int k = PK_OTHER;

		if (!strcmp(n, "shmtrace_func:entry") && field_index(ev, "addr") >= 0)
			k = PK_ENTRY;
		else if (!strcmp(n, "shmtrace_func:exit") && field_index(ev, "addr") >= 0)
			k = PK_EXIT;
		else if (!strncmp(n, "shmtrace_libc:", 14) && strcmp(n + 14, "free") &&
			 field_index(ev, "size") >= 0)
			k = PK_ALLOC;
		p->kind[tr][ci] = (uint8_t)k;
		p->size_field[tr][ci] = (int8_t)field_index(ev, "size");
		p->nmemb_field[tr][ci] = (int8_t)field_index(ev, "nmemb");
	}
	*sz = p->size_field[tr][ci];
	*nm = p->nmemb_field[tr][ci];
	return p->kind[tr][ci];
}

static uint64_t field_u64(const struct shmtrace_rd_event *ev, int i)
{
	struct shmtrace_rd_value v;

	if (i < 0 || shmtrace_rd_event_field(ev, (unsigned)i, &v) < 0 || v.kind != SHMTRACE_RD_INT)
		return 0;
	return v.u;
}

static struct prof_thread *prof_thread(struct an_profile *p, uint64_t key)
{
	size_t i;

	if (2 * (p->nthreads + 1) > p->tcap) {
		struct prof_thread *n = calloc(2 * p->tcap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < p->tcap; j++) {
			if (!p->threads[j].key)
				continue;
			i = hash_id(p->threads[j].key) & (2 * p->tcap - 1);
			while (n[i].key)
				i = (i + 1) & (2 * p->tcap - 1);
			n[i] = p->threads[j];
		}
		free(p->threads);
		p->threads = n;
		p->tcap *= 2;
	}
	i = hash_id(key) & (p->tcap - 1);
	while (p->threads[i].key && p->threads[i].key != key)
		i = (i + 1) & (p->tcap - 1);
	if (!p->threads[i].key) {
		p->threads[i].key = key;
		p->nthreads++;
	}
	return &p->threads[i];
}

static struct prof_func *prof_func(struct an_profile *p, const struct shmtrace_rd_event *ev,
				   uint64_t addr)
{
	size_t tr = shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev)), i;
	uint64_t key = hash_id(addr ^ ((uint64_t)(tr + 1) << 48)) | 1;
	char buf[512];
	const char *name;

	if (2 * (p->nfuncs + 1) > p->fcap) {
		/* rehash; frames point into the table, so move them too */
		struct prof_func *n = calloc(2 * p->fcap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < p->fcap; j++) {
			struct prof_func *old = &p->funcs[j];

			if (!old->key)
				continue;
			i = old->key & (2 * p->fcap - 1);
			while (n[i].key)
				i = (i + 1) & (2 * p->fcap - 1);
			n[i] = *old;
			for (size_t t = 0; t < p->tcap; t++)
				for (uint32_t d = 0; d < p->threads[t].depth; d++)
					if (p->threads[t].stack[d].f == old)
						p->threads[t].stack[d].f = &n[i];
		}
		free(p->funcs);
		p->funcs = n;
		p->fcap *= 2;
	}
	i = key & (p->fcap - 1);
	while (p->funcs[i].key && (p->funcs[i].key != key || p->funcs[i].addr != addr ||
				   p->funcs[i].trace != tr))
		i = (i + 1) & (p->fcap - 1);
	if (p->funcs[i].key)
		return &p->funcs[i];
	name = an_function_name(p->syms, ev, addr, buf, sizeof(buf));
	p->funcs[i].name = strdup(name);
	if (!p->funcs[i].name)
		return NULL;
	p->funcs[i].key = key;
	p->funcs[i].addr = addr;
	p->funcs[i].trace = tr;
	p->nfuncs++;
	return &p->funcs[i];
}

static void prof_pop(struct prof_thread *t, int64_t ts)
{
	struct prof_frame *fr = &t->stack[--t->depth];
	uint64_t d = ts > fr->start ? (uint64_t)(ts - fr->start) : 0;
	uint64_t self = d > fr->child ? d - fr->child : 0;

	fr->f->calls++;
	fr->f->self += self;
	fr->f->bytes_self += fr->bytes;
	if (fr->outer) {
		fr->f->total += d;
		fr->f->bytes_total += fr->bytes + fr->child_bytes;
	}
	if (t->depth) {
		t->stack[t->depth - 1].child += d;
		t->stack[t->depth - 1].child_bytes += fr->bytes + fr->child_bytes;
	}
}

int an_profile_event(struct an_profile *p, const struct shmtrace_rd_event *ev)
{
	int sz, nm, k = prof_kind(p, ev, &sz, &nm);
	uint64_t key = (uint64_t)(shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev)) + 1) << 32 | shmtrace_rd_event_tid(ev);
	int64_t ts = shmtrace_rd_event_time_ns(ev);
	struct prof_thread *t;
	struct prof_func *f;
	uint64_t addr;

	if (k < 0)
		return k;
	if (k == PK_OTHER)
		return 0;
	t = prof_thread(p, key);
	if (!t)
		return -ENOMEM;
	if (k == PK_ALLOC) {
		uint64_t bytes = field_u64(ev, sz) * (nm >= 0 ? field_u64(ev, nm) : 1);

		p->have_alloc = 1;
		if (t->depth)
			t->stack[t->depth - 1].bytes += bytes;
		return 0;
	}
	addr = field_u64(ev, field_index(ev, "addr"));
	if (k == PK_ENTRY) {
		struct prof_frame *fr;

		if (t->depth == t->cap) {
			uint32_t n = t->cap ? 2 * t->cap : 64;
			struct prof_frame *s = realloc(t->stack, n * sizeof(*s));

			if (!s)
				return -ENOMEM;
			t->stack = s;
			t->cap = n;
		}
		f = prof_func(p, ev, addr);
		if (!f)
			return -ENOMEM;
		fr = &t->stack[t->depth++];
		memset(fr, 0, sizeof(*fr));
		fr->f = f;
		fr->start = ts;
		fr->outer = 1;
		for (uint32_t d = 0; d + 1 < t->depth; d++)
			if (t->stack[d].f == f)
				fr->outer = 0;
		return 0;
	}
	/* exit: close up to the matching entry (frames whose exit was lost too) */
	for (uint32_t d = t->depth; d > 0; d--) {
		if (t->stack[d - 1].f->addr == addr) {
			while (t->depth >= d)
				prof_pop(t, ts);
			return 0;
		}
	}
	p->unmatched++;
	return 0;
}

static int prof_by_name(const void *a, const void *b)
{
	return strcmp(((const struct an_prof_row *)a)->name, ((const struct an_prof_row *)b)->name);
}

static int prof_by_total(const void *a, const void *b)
{
	const struct an_prof_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

void an_profile_rows_print(FILE *out, struct an_prof_row *rows, size_t n, int have_alloc)
{
	size_t k = 0;

	/* the same function in several processes: one line */
	qsort(rows, n, sizeof(*rows), prof_by_name);
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(rows[k - 1].name, rows[i].name)) {
			rows[k - 1].calls += rows[i].calls;
			rows[k - 1].total += rows[i].total;
			rows[k - 1].self += rows[i].self;
			rows[k - 1].bytes_self += rows[i].bytes_self;
			rows[k - 1].bytes_total += rows[i].bytes_total;
		} else {
			rows[k++] = rows[i];
		}
	}
	qsort(rows, k, sizeof(*rows), prof_by_total);
	fprintf(out, "%12s %16s %16s %14s", "calls", "total ns", "self ns", "avg ns");
	if (have_alloc)
		fprintf(out, " %14s %14s", "bytes self", "bytes total");
	fprintf(out, "  function\n");
	for (size_t i = 0; i < k; i++) {
		fprintf(out, "%12" PRIu64 " %16" PRIu64 " %16" PRIu64 " %14" PRIu64, rows[i].calls,
			rows[i].total, rows[i].self, rows[i].calls ? rows[i].total / rows[i].calls : 0);
		if (have_alloc)
			fprintf(out, " %14" PRIu64 " %14" PRIu64, rows[i].bytes_self,
				rows[i].bytes_total);
		fprintf(out, "  %s\n", rows[i].name);
	}
}

void an_profile_print(struct an_profile *p, FILE *out)
{
	struct an_prof_row *rows = calloc(p->nfuncs + 1, sizeof(*rows));
	size_t n = 0;
	uint64_t open = 0;

	if (!rows) {
		fprintf(out, "out of memory\n");
		return;
	}
	for (size_t i = 0; i < p->tcap; i++)
		open += p->threads[i].depth;
	for (size_t i = 0; i < p->fcap; i++) {
		const struct prof_func *f = &p->funcs[i];

		if (!f->key || !f->calls)
			continue;
		rows[n++] = (struct an_prof_row){ f->name, f->calls, f->total, f->self,
						  f->bytes_self, f->bytes_total };
	}
	an_profile_rows_print(out, rows, n, p->have_alloc);
	if (open || p->unmatched)
		fprintf(out, "(%" PRIu64 " calls still open at the end, %" PRIu64
			" exits without an entry)\n", open, p->unmatched);
	free(rows);
}

void an_profile_free(struct an_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->ntr; i++) {
		free(p->kind[i]);
		free(p->size_field[i]);
		free(p->nmemb_field[i]);
	}
	free(p->kind);
	free(p->size_field);
	free(p->nmemb_field);
	for (size_t i = 0; p->funcs && i < p->fcap; i++)
		free(p->funcs[i].name);
	free(p->funcs);
	for (size_t i = 0; p->threads && i < p->tcap; i++)
		free(p->threads[i].stack);
	free(p->threads);
	free(p);
}
