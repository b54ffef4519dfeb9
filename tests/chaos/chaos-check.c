/* SPDX-License-Identifier: MIT */
/*
 * chaos-check - the invariant of the chaos test (tests/chaos/chaos.sh):
 * every event a traced program emitted is in the trace exactly once, or
 * counted as lost by the tracer.
 *
 * usage: chaos-check STATUS DIR EMITTED...
 *
 * EMITTED files hold the lines of tests/apps/chaos-app, "PID THREAD
 * EMITTED DISABLED START" ("started PID" lines are skipped): thread THREAD
 * of the process that had pid PID and started at START emitted
 * shmtrace_test:event with seq 0..EMITTED-1. A thread is known by its pid
 * and thread number (chaos-app numbers its children's threads apart, since
 * a child may have the pid of an earlier one), a process by its pid and
 * start time. DIR is the session's output, read once with
 * libshmtrace-reader; STATUS is the output of `tracectl status --format
 * json` for the session (stopped), whose per-channel counters are summed
 * by field name (doc/json.md).
 *
 * Each trace (directory) belongs to the process whose threads' events it
 * holds, or, holding none, to the one process of its pid that has no
 * other trace. Per thread the seqs on disk must be distinct and below
 * EMITTED, and no event may belong to a thread that reported nothing;
 * missing = EMITTED - distinct seqs on disk. Then:
 *   - the sum of missing equals the losses status counts (events
 *     discarded, lost without a buffer, lost to write errors; the channel
 *     is in discard mode, so none is overwritten): their difference is
 *     "unaccounted", which must be 0;
 *   - status's "events recorded" equals the events on disk, and its
 *     events discarded and lost without a buffer the events_discarded of
 *     the packets (those lost without a buffer are reported in a stream of
 *     their process too);
 *   - per process, the events missing are those its packets report
 *     discarded;
 *   - a process has one trace directory at most, a trace the events of
 *     one process; no packet is missing (a gap in packet numbers), no
 *     stream file is damaged.
 * It prints the figures per process when a check fails, and a last line
 *
 *	chaos-check: emitted E, on disk D, counted lost L, duplicates N, unaccounted U
 *
 * Exit status: 0 when every check holds, 1 when one fails, 2 on bad usage
 * or a file that cannot be read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <shmtrace/reader.h>
#include "support/json.h"

struct proc;

/* one thread of one process, as the program reported it */
struct thr {
	uint32_t pid;
	uint32_t thread;
	struct proc *proc;
	uint64_t emitted;
	uint64_t disabled;
	uint64_t distinct;
	uint64_t dups;
	uint64_t beyond;	/* seq >= emitted */
	uint64_t *seen;		/* a bit per seq */
	struct thr *next;	/* hash chain */
};

/* one process, as the program reported it, and its trace */
struct proc {
	uint32_t pid;
	unsigned long long start;
	unsigned int threads;
	uint64_t emitted, distinct, dups, beyond, disabled;
	uint64_t disk_discarded;	/* events_discarded of its streams */
	uint64_t lost_packets;
	unsigned int dirs;		/* trace directories */
	const char *dir;		/* the first */
	int bad;
	struct proc *next;		/* hash chain */
	struct proc *all;		/* every process */
};

#define NBUCKET 4096u

static struct thr *thr_tab[NBUCKET];
static struct proc *proc_tab[NBUCKET];
static struct proc *procs;
static size_t nproc;

static void die(const char *what)
{
	fprintf(stderr, "chaos-check: %s\n", what);
	exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		die("out of memory");
	return p;
}

static unsigned int hash(uint64_t a, uint64_t b)
{
	uint64_t k = (a << 32 ^ b) * 0x9e3779b97f4a7c15ull;

	return (unsigned int)(k >> 52) % NBUCKET;
}

static struct thr *thr_find(uint32_t pid, uint32_t thread)
{
	for (struct thr *t = thr_tab[hash(pid, thread)]; t; t = t->next)
		if (t->pid == pid && t->thread == thread)
			return t;
	return NULL;
}

static struct proc *proc_get(uint32_t pid, unsigned long long start)
{
	unsigned int h = hash(pid, start);
	struct proc *p;

	for (p = proc_tab[h]; p; p = p->next)
		if (p->pid == pid && p->start == start)
			return p;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->start = start;
	p->next = proc_tab[h];
	proc_tab[h] = p;
	p->all = procs;
	procs = p;
	nproc++;
	return p;
}

static void read_emitted(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned int n = 0;

	if (!f) {
		fprintf(stderr, "chaos-check: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long e, d, start;
		unsigned int pid, thread;
		struct thr *t;
		unsigned int h;

		n++;
		if (!strncmp(line, "started ", 8))
			continue;
		if (sscanf(line, "%u %u %llu %llu %llu", &pid, &thread, &e, &d, &start) != 5) {
			fprintf(stderr, "chaos-check: %s:%u: not PID THREAD EMITTED DISABLED START\n",
				path, n);
			exit(2);
		}
		if (thr_find(pid, thread)) {
			fprintf(stderr, "chaos-check: %s:%u: pid %u thread %u reported twice\n", path,
				n, pid, thread);
			exit(2);
		}
		t = xcalloc(1, sizeof(*t));
		t->pid = pid;
		t->thread = thread;
		t->emitted = e;
		t->disabled = d;
		t->seen = xcalloc(e / 64 + 1, sizeof(uint64_t));
		t->proc = proc_get(pid, start);
		t->proc->threads++;
		h = hash(pid, thread);
		t->next = thr_tab[h];
		thr_tab[h] = t;
	}
	fclose(f);
}

struct status {
	uint64_t recorded, discarded, nobuf, werr, overwritten;
	unsigned int channels;
};

/* A member of object @o that is a whole number: its value, or exit 2. */
static uint64_t js_u64(const struct js_doc *doc, const struct js_node *o, const char *name,
		       const char *path)
{
	unsigned int n = 0;
	const struct js_node *v = js_member(doc, o, name, &n);

	if (!v || n != 1 || v->type != JS_NUM || (v->num != JS_INT_U64 && v->num != JS_INT_S64) ||
	    (v->num == JS_INT_S64 && v->v.i < 0)) {
		fprintf(stderr, "chaos-check: %s: no count \"%s\" in a channel\n", path, name);
		exit(2);
	}
	return v->num == JS_INT_U64 ? v->v.u : (uint64_t)v->v.i;
}

/*
 * The counters of every channel of `tracectl status --format json`
 * (doc/json.md), summed: the document's sessions, each session's channels.
 */
static void read_status(const char *path, struct status *st)
{
	static char text[1 << 20];
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
		{ "recorded", offsetof(struct status, recorded) },
		{ "discarded", offsetof(struct status, discarded) },
		{ "lost_without_buffer", offsetof(struct status, nobuf) },
		{ "lost_to_write_errors", offsetof(struct status, werr) },
		{ "overwritten", offsetof(struct status, overwritten) },
	};
	const struct js_node *sessions, *chans;
	struct js_doc *doc = NULL;
	char err[256];
	size_t len;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "chaos-check: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	if (js_parse(&doc, text, len, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "chaos-check: %s: not a JSON document: %s\n", path, err);
		exit(2);
	}
	memset(st, 0, sizeof(*st));
	sessions = js_member(doc, js_root(doc), "sessions", NULL);
	for (const struct js_node *s = sessions && sessions->type == JS_ARR ?
	     js_child(doc, sessions) : NULL; s; s = js_next(doc, sessions, s)) {
		chans = s->type == JS_OBJ ? js_member(doc, s, "channels", NULL) : NULL;
		for (const struct js_node *c = chans && chans->type == JS_ARR ?
		     js_child(doc, chans) : NULL; c; c = js_next(doc, chans, c)) {
			if (c->type != JS_OBJ)
				continue;
			st->channels++;
			for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
				*(uint64_t *)(void *)((char *)st + fields[i].off) +=
					js_u64(doc, c, fields[i].name, path);
		}
	}
	js_free(doc);
	if (!st->channels) {
		fprintf(stderr, "chaos-check: %s: no channel with its counters\n", path);
		exit(2);
	}
}

static int field_u64(const struct shmtrace_rd_event *ev, int idx, uint64_t *out)
{
	struct shmtrace_rd_value v;

	if (idx < 0 || shmtrace_rd_event_field(ev, (unsigned)idx, &v) < 0 ||
	    v.kind != SHMTRACE_RD_INT)
		return -1;
	*out = v.u;
	return 0;
}

/* the process of each trace (by index), and whether it holds another's events */
static struct proc **trace_proc;
static unsigned char *trace_mixed;

/*
 * A trace without events of ours: the one process of its pid that has no
 * trace yet, else the one process of its pid (a second directory); NULL
 * when that is not one process.
 */
static struct proc *owner_by_pid(uint32_t pid)
{
	struct proc *free_one = NULL, *any = NULL;
	unsigned int nfree = 0, nany = 0;

	for (struct proc *p = procs; p; p = p->all) {
		if (p->pid != pid)
			continue;
		any = p;
		nany++;
		if (!p->dirs) {
			free_one = p;
			nfree++;
		}
	}
	if (nfree == 1)
		return free_one;
	return nfree == 0 && nany == 1 ? any : NULL;
}

int main(int argc, char **argv)
{
	struct shmtrace_rd_reader *r;
	const struct shmtrace_rd_event *ev;
	char err[SHMTRACE_RD_ERRLEN];
	const char *dir;
	struct status st;
	uint64_t total = 0, other = 0, stray = 0, emitted = 0, distinct = 0, dups = 0, beyond = 0;
	uint64_t missing = 0, counted, disk_discarded = 0, lost_packets = 0, disabled = 0;
	uint64_t orphan_discarded = 0;
	int64_t unaccounted;
	int rc, failed = 0, seq_idx = -1, thread_idx = -1;
	unsigned int badproc = 0, mixed = 0;
	size_t last_class = SIZE_MAX, ntraces;
	const struct shmtrace_rd_trace *last_trace = NULL;

	if (argc < 4) {
		fprintf(stderr, "usage: chaos-check STATUS DIR EMITTED...\n");
		return 2;
	}
	read_status(argv[1], &st);
	dir = argv[2];
	for (int i = 3; i < argc; i++)
		read_emitted(argv[i]);

	if (shmtrace_rd_open(&r, &dir, 1, err, sizeof(err)) < 0) {
		fprintf(stderr, "chaos-check: %s\n", err);
		return 2;
	}
	ntraces = shmtrace_rd_trace_count(r);
	trace_proc = xcalloc(ntraces + 1, sizeof(*trace_proc));
	trace_mixed = xcalloc(ntraces + 1, 1);
	while ((rc = shmtrace_rd_next(r, &ev)) > 0) {
		const struct shmtrace_rd_trace *tr = shmtrace_rd_event_trace(ev);
		size_t cls = shmtrace_rd_event_class_index(ev), ti = shmtrace_rd_trace_index(tr);
		uint32_t pid = (uint32_t)shmtrace_rd_trace_vpid(tr);
		uint64_t seq, thread;
		struct thr *t;

		total++;
		if (tr != last_trace || cls != last_class) {
			last_trace = tr;
			last_class = cls;
			if (strcmp(shmtrace_rd_event_name(ev), "shmtrace_test:event")) {
				seq_idx = thread_idx = -1;
			} else {
				seq_idx = shmtrace_rd_event_field_index(ev, "seq");
				thread_idx = shmtrace_rd_event_field_index(ev, "thread");
			}
		}
		if (seq_idx < 0 || field_u64(ev, seq_idx, &seq) < 0 ||
		    field_u64(ev, thread_idx, &thread) < 0) {
			if (other++ < 5)
				fprintf(stderr, "chaos-check: pid %u: event %s\n", pid,
					shmtrace_rd_event_name(ev));
			continue;
		}
		t = thr_find(pid, (uint32_t)thread);
		if (!t) {
			if (stray++ < 5)
				fprintf(stderr, "chaos-check: pid %u thread %" PRIu64 " seq %" PRIu64
					": no such thread reported\n", pid, thread, seq);
			continue;
		}
		if (ti < ntraces && trace_proc[ti] != t->proc) {
			if (!trace_proc[ti]) {
				trace_proc[ti] = t->proc;
				if (!t->proc->dirs++)
					t->proc->dir = shmtrace_rd_trace_path(tr);
			} else if (!trace_mixed[ti]++) {
				fprintf(stderr, "chaos-check: %s holds events of pid %u thread %u too\n",
					shmtrace_rd_trace_path(tr), pid, t->thread);
			}
		}
		if (seq >= t->emitted) {
			if (t->beyond++ < 3)
				fprintf(stderr, "chaos-check: pid %u thread %u: seq %" PRIu64
					" on disk, %" PRIu64 " emitted\n", pid, t->thread, seq,
					t->emitted);
			continue;
		}
		if (t->seen[seq / 64] & (1ull << (seq % 64))) {
			if (t->dups++ < 3)
				fprintf(stderr, "chaos-check: pid %u thread %u: seq %" PRIu64
					" on disk twice (%s, offset %" PRIu64 ")\n", pid, t->thread,
					seq, shmtrace_rd_stream_path(shmtrace_rd_event_stream(ev)),
					shmtrace_rd_event_offset(ev));
			continue;
		}
		t->seen[seq / 64] |= 1ull << (seq % 64);
		t->distinct++;
	}
	if (rc < 0) {
		failed = 1;
		printf("FAIL: the reader: %s\n", shmtrace_rd_errmsg(r));
		for (size_t i = 0; i < shmtrace_rd_damage_count(r); i++)
			printf("  damage: %s\n", shmtrace_rd_damage_message(r, i));
	}

	/* the traces that hold none of our events: by pid */
	for (size_t i = 0; i < ntraces; i++) {
		const struct shmtrace_rd_trace *tr = shmtrace_rd_trace_at(r, i);
		struct proc *p;

		mixed += trace_mixed[i] != 0;
		if (trace_proc[i])
			continue;
		p = owner_by_pid((uint32_t)shmtrace_rd_trace_vpid(tr));
		if (!p) {
			printf("FAIL: %s: no event, and not one process of pid %u without a trace\n",
			       shmtrace_rd_trace_path(tr), (unsigned)shmtrace_rd_trace_vpid(tr));
			failed = 1;
			continue;
		}
		trace_proc[i] = p;
		if (!p->dirs++)
			p->dir = shmtrace_rd_trace_path(tr);
	}
	for (size_t i = 0; i < shmtrace_rd_stream_count(r); i++) {
		const struct shmtrace_rd_stream *s = shmtrace_rd_stream_at(r, i);
		size_t ti = shmtrace_rd_trace_index(shmtrace_rd_stream_trace(s));
		struct proc *p = ti < ntraces ? trace_proc[ti] : NULL;

		if (!p) {
			orphan_discarded += shmtrace_rd_stream_discarded(s);
			lost_packets += shmtrace_rd_stream_lost_packets(s);
			continue;
		}
		p->disk_discarded += shmtrace_rd_stream_discarded(s);
		p->lost_packets += shmtrace_rd_stream_lost_packets(s);
	}
	for (unsigned int h = 0; h < NBUCKET; h++)
		for (struct thr *t = thr_tab[h]; t; t = t->next) {
			struct proc *p = t->proc;

			p->emitted += t->emitted;
			p->distinct += t->distinct;
			p->dups += t->dups;
			p->beyond += t->beyond;
			p->disabled += t->disabled;
		}
	disk_discarded = orphan_discarded;
	for (struct proc *p = procs; p; p = p->all) {
		emitted += p->emitted;
		distinct += p->distinct;
		dups += p->dups;
		beyond += p->beyond;
		disabled += p->disabled;
		disk_discarded += p->disk_discarded;
		lost_packets += p->lost_packets;
		p->bad = p->dups || p->beyond || p->dirs > 1 ||
			 p->emitted - p->distinct != p->disk_discarded;
		badproc += p->emitted - p->distinct != p->disk_discarded;
	}
	missing = emitted - distinct;
	counted = st.discarded + st.nobuf + st.werr;
	unaccounted = (int64_t)(missing - counted);

	if (dups) {
		failed = 1;
		printf("FAIL: %" PRIu64 " events on disk twice\n", dups);
	}
	if (beyond) {
		failed = 1;
		printf("FAIL: %" PRIu64 " events on disk with a seq never emitted\n", beyond);
	}
	if (stray || other) {
		failed = 1;
		printf("FAIL: %" PRIu64 " events of threads no program reported, %" PRIu64
		       " other events\n", stray, other);
	}
	if (unaccounted) {
		failed = 1;
		printf("FAIL: %" PRIu64 " events missing from the trace, %" PRIu64
		       " counted lost (discarded %" PRIu64 ", lost without a buffer %" PRIu64
		       ", lost to write errors %" PRIu64 "): %" PRId64 " unaccounted\n",
		       missing, counted, st.discarded, st.nobuf, st.werr, unaccounted);
	}
	if (st.overwritten) {
		failed = 1;
		printf("FAIL: %" PRIu64 " events overwritten in a discard-mode channel\n",
		       st.overwritten);
	}
	if (st.recorded != total) {
		failed = 1;
		printf("FAIL: status says %" PRIu64 " events recorded, %" PRIu64 " are on disk\n",
		       st.recorded, total);
	}
	if (disk_discarded != st.discarded + st.nobuf) {
		failed = 1;
		printf("FAIL: the packets report %" PRIu64 " events discarded, status %" PRIu64
		       " (discarded %" PRIu64 " + lost without a buffer %" PRIu64 ")\n",
		       disk_discarded, st.discarded + st.nobuf, st.discarded, st.nobuf);
	}
	if (lost_packets) {
		failed = 1;
		printf("FAIL: %" PRIu64 " packets lost (gaps in packet numbers)\n", lost_packets);
	}
	if (mixed) {
		failed = 1;
		printf("FAIL: %u traces hold the events of several processes\n", mixed);
	}
	if (badproc) {
		failed = 1;
		printf("FAIL: %u processes miss other events than their packets report discarded\n",
		       badproc);
	}
	for (struct proc *p = procs; p; p = p->all)
		if (p->dirs > 1) {
			failed = 1;
			printf("FAIL: pid %u (started at %llu) has %u trace directories (%s, ...)\n",
			       p->pid, p->start, p->dirs, p->dir);
		}
	if (disabled)
		printf("note: %" PRIu64 " events emitted while the event read as disabled\n",
		       disabled);
	printf("%zu processes, %zu traces, %" PRIu64 " events discarded according to the packets"
	       " (status: %" PRIu64 " discarded + %" PRIu64 " without a buffer), %" PRIu64
	       " packets lost\n", nproc, ntraces, disk_discarded, st.discarded, st.nobuf,
	       lost_packets);
	if (failed) {
		unsigned int shown = 0;

		printf("per process (the packets' discards include those without a buffer):\n");
		printf("%8s %7s %12s %12s %12s %12s %12s %5s %5s %9s\n", "pid", "threads", "emitted",
		       "on disk", "missing", "discarded", "duplicates", "dirs", "lostp",
		       "disabled");
		for (struct proc *p = procs; p; p = p->all) {
			if (!p->bad && nproc > 40)
				continue;
			if (shown++ >= 200)
				continue;
			printf("%8u %7u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
			       " %12" PRIu64 " %5u %5" PRIu64 " %9" PRIu64 "%s\n", p->pid,
			       p->threads, p->emitted, p->distinct, p->emitted - p->distinct,
			       p->disk_discarded, p->dups, p->dirs, p->lost_packets, p->disabled,
			       p->bad ? "  <--" : "");
		}
		if (shown > 200)
			printf("(%u more)\n", shown - 200);
	}
	printf("chaos-check: emitted %" PRIu64 ", on disk %" PRIu64 ", counted lost %" PRIu64
	       ", duplicates %" PRIu64 ", unaccounted %" PRId64 "\n", emitted, total, counted, dups,
	       unaccounted);
	shmtrace_rd_close(r);
	return failed ? 1 : 0;
}
