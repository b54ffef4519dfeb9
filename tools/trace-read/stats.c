/* SPDX-License-Identifier: MIT */
/*
 * stats.c - trace-read --stats and --stats=count (see stats.h).
 *
 * Stats keep one counter per (trace, event class) and one per thread in an
 * open-addressing table keyed by (program image, tid), the images of a pid
 * told apart at the first event of each trace (of each thread, in a trace
 * that names no process: LTTng's per-UID buffers, where the process is
 * the thread's vpid and procname context fields); forks seen from one side
 * are kept until the other side comes: memory follows the number of event
 * names, threads, images and forks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "reader-select.h"
#include "stats.h"
#include "common/util.h"

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
	char *name;			/* its program, when its trace names none; else NULL */
};

/* Traces that name no process: the image of each of their threads. */
struct an_tidimg {
	uint64_t key;			/* trace + 1 << 32 | tid, 0 = empty */
	size_t image;			/* index + 1 */
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
	struct an_tidimg *tids;		/* open addressing, tcap slots */
	size_t ntids, tcap;
	struct an_tidimg recent[64];	/* those found lately, by tid % 64 */
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

static const char *image_name(const struct an_image *im)
{
	return im->name ? im->name : shmtrace_rd_trace_procname(im->trace);
}

/* @pid and @name: the trace's (@name NULL), or the thread's when it names none. */
static size_t image_of(struct an_stats *s, size_t tr, const struct shmtrace_rd_event *ev,
		       int64_t pid, const char *name)
{
	const struct shmtrace_rd_trace *t = shmtrace_rd_event_trace(ev);
	struct an_pidslot *slot;
	unsigned nth = 1;
	char *copy = NULL;

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
		    !strcmp(image_name(im), name ? name : shmtrace_rd_trace_procname(t)))
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
	if (name && !(copy = strdup(name)))
		return 0;
	s->images[s->nimages] = (struct an_image){ t, s->host[tr], pid, nth, nth > 1, copy };
	*slot = (struct an_pidslot){ s->host[tr], pid, ++s->nimages };
	return s->nimages;
}

/*
 * The image of @ev's thread in trace @tr, which names no process: found
 * at the thread's first event, from its context fields. Index + 1, or 0
 * without memory.
 */
static size_t thread_image(struct an_stats *s, size_t tr, const struct shmtrace_rd_event *ev)
{
	uint64_t key = (uint64_t)(tr + 1) << 32 | shmtrace_rd_event_tid(ev);
	size_t i;

	if (key == s->recent[key & 63].key)
		return s->recent[key & 63].image;
	if (2 * (s->ntids + 1) > s->tcap) {
		size_t cap = s->tcap ? 2 * s->tcap : 64;
		struct an_tidimg *n = calloc(cap, sizeof(*n));

		if (!n)
			return 0;
		for (size_t j = 0; j < s->tcap; j++) {
			if (!s->tids[j].key)
				continue;
			i = hash_id(s->tids[j].key) & (cap - 1);
			while (n[i].key)
				i = (i + 1) & (cap - 1);
			n[i] = s->tids[j];
		}
		free(s->tids);
		s->tids = n;
		s->tcap = cap;
	}
	i = hash_id(key) & (s->tcap - 1);
	while (s->tids[i].key && s->tids[i].key != key)
		i = (i + 1) & (s->tcap - 1);
	if (!s->tids[i].key) {
		size_t img = image_of(s, tr, ev, sel_event_pid(ev), sel_event_procname(ev));

		if (!img)
			return 0;
		s->tids[i] = (struct an_tidimg){ key, img };
		s->ntids++;
	}
	s->recent[key & 63] = s->tids[i];
	return s->tids[i].image;
}

int an_stats_event(struct an_stats *s, const struct shmtrace_rd_event *ev)
{
	size_t tr = shmtrace_rd_trace_index(shmtrace_rd_event_trace(ev));
	struct an_thread *t;
	uint64_t key;
	int64_t ts = shmtrace_rd_event_time_ns(ev);
	int rc;

	if (!s->image_of[tr]) {
		int64_t tpid = shmtrace_rd_trace_vpid(shmtrace_rd_event_trace(ev));

		/* a trace that names no process but whose events do: per thread */
		if (tpid < 0 && sel_event_pid(ev) >= 0)
			s->image_of[tr] = SIZE_MAX;
		else
			s->image_of[tr] = image_of(s, tr, ev, tpid, NULL);
		if (!s->image_of[tr])
			return -ENOMEM;
	}
	if (s->image_of[tr] == SIZE_MAX) {
		size_t img = thread_image(s, tr, ev);

		if (!img)
			return -ENOMEM;
		key = (uint64_t)img << 32 | shmtrace_rd_event_tid(ev);
	} else {
		key = (uint64_t)s->image_of[tr] << 32 | shmtrace_rd_event_tid(ev);
	}
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
	fprintf(out, "%s[%" PRId64 "]", image_name(im), im->pid);
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

/*
 * The processes (pids of a host): of the images seen, and of the traces
 * with no image (no event read); 0 without memory.
 */
static size_t count_processes(const struct an_stats *s, const struct shmtrace_rd_reader *r)
{
	struct an_pid *p = calloc(s->ntraces + s->nimages + 1, sizeof(*p));
	size_t n = 0, k = 0;

	if (!p)
		return 0;
	for (size_t i = 0; i < s->nimages; i++)
		p[k++] = (struct an_pid){ s->images[i].host, s->images[i].pid };
	for (size_t i = 0; i < s->ntraces; i++)
		if (!s->image_of[i])
			p[k++] = (struct an_pid){ s->host[i],
						  shmtrace_rd_trace_vpid(shmtrace_rd_trace_at(r, i)) };
	qsort(p, k, sizeof(*p), pid_cmp);
	for (size_t i = 0; i < k; i++)
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
	} else if (shmtrace_rd_trace_vpid(shmtrace_rd_trace_at(r, tr)) >= 0) {
		const struct shmtrace_rd_trace *t = shmtrace_rd_trace_at(r, tr);

		fprintf(out, "%s[%" PRId64 "]", shmtrace_rd_trace_procname(t),
			shmtrace_rd_trace_vpid(t));
	} else {
		/* several processes' (LTTng's per-user buffers): a stream holds
		 * their events together, and its losses are no one's */
		fprintf(out, "%s (several processes)",
			shmtrace_rd_trace_path(shmtrace_rd_trace_at(r, tr)));
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
		rows[n].name = image_name(im);
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
		if (s->image_of[i] && s->image_of[i] != SIZE_MAX)
			per_image[s->image_of[i] - 1] += per_trace[i];
	for (size_t i = 0; i < s->nimages; i++) {
		discarded += per_image[i];
		if (per_image[i])
			print_discarded(out, s, r, per_image[i], i + 1, 0);
	}
	for (size_t i = 0; i < s->ntraces; i++) {
		if ((s->image_of[i] && s->image_of[i] != SIZE_MAX) || !per_trace[i])
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
	for (size_t i = 0; i < s->nimages; i++)
		free(s->images[i].name);
	free(s->images);
	free(s->tids);
	free(s->pids);
	free(s->forks);
	free(s->threads);
	free(s);
}
