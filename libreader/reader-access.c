/* SPDX-License-Identifier: MIT */
/*
 * reader-access.c - the accessors of <shmtrace/reader.h>: the traces and
 * streams of a reader, the facts of a trace (from its metadata) and of a
 * stream (from its current packet), and the current event, its fields and
 * their values, read in place from the stream's packet buffer at the
 * offsets decoding found (reader-objects.h). They only read.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "reader-ctf.h"
#include "reader-objects.h"
#include "tsdl.h"

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

/* General traces (reader-ctf.h): the values decoded, @from .. @to. */
static int gen_index(const struct rd_gen *g, uint32_t from, uint32_t to, const char *name)
{
	for (uint32_t i = from; i < to; i++)
		if (!strcmp(g->vals[i].name, name))
			return (int)(i - from);
	return -ENOENT;
}

unsigned shmtrace_rd_event_field_count(const struct shmtrace_rd_event *ev)
{
	const struct rd_gen *g = ev->stream->gen;

	if (g && g->lazy)
		rd_ctf_payload(ev->stream);
	if (g)
		return g->nvals - g->nctx;
	return ev->cls->nfields;
}

const char *shmtrace_rd_event_field_name(const struct shmtrace_rd_event *ev, unsigned i)
{
	const struct rd_gen *g = ev->stream->gen;

	if (g && g->lazy)
		rd_ctf_payload(ev->stream);
	if (g)
		return i < g->nvals - g->nctx ? g->vals[g->nctx + i].name : NULL;
	return i < ev->cls->nfields ? ev->cls->fields[i].name : NULL;
}

int shmtrace_rd_event_field_index(const struct shmtrace_rd_event *ev, const char *name)
{
	const struct rd_gen *g = ev->stream->gen;

	if (g && g->lazy)
		rd_ctf_payload(ev->stream);
	if (g)
		return gen_index(g, g->nctx, g->nvals, name);
	return find_field(ev->cls->fields, ev->cls->nfields, name);
}

int shmtrace_rd_event_field(const struct shmtrace_rd_event *ev, unsigned i, struct shmtrace_rd_value *v)
{
	const uint32_t *foff = ev->stream->foff;
	const struct rd_gen *g = ev->stream->gen;

	if (g && g->lazy)
		rd_ctf_payload(ev->stream);
	if (g) {
		if (i >= g->nvals - g->nctx)
			return -EINVAL;
		*v = g->vals[g->nctx + i].v;
		return 0;
	}
	if (i >= ev->cls->nfields)
		return -EINVAL;
	fill_value(&ev->cls->fields[i], ev->stream->buf + foff[i],
		   foff[i + 1] - foff[i], v);
	return 0;
}

unsigned shmtrace_rd_event_context_count(const struct shmtrace_rd_event *ev)
{
	const struct rd_gen *g = ev->stream->gen;

	if (g && g->lazy)
		rd_ctf_payload(ev->stream);
	if (g)
		return g->nctx;
	return ev->cls->stream->nctx;
}

const char *shmtrace_rd_event_context_name(const struct shmtrace_rd_event *ev, unsigned i)
{
	const struct tsdl_stream_class *sc = ev->cls->stream;
	const struct rd_gen *g = ev->stream->gen;

	if (g && g->lazy)
		rd_ctf_payload(ev->stream);
	if (g)
		return i < g->nctx ? g->vals[i].name : NULL;
	return i < sc->nctx ? sc->ctx[i].name : NULL;
}

int shmtrace_rd_event_context_index(const struct shmtrace_rd_event *ev, const char *name)
{
	const struct tsdl_stream_class *sc = ev->cls->stream;
	const struct rd_gen *g = ev->stream->gen;

	if (g && g->lazy)
		rd_ctf_payload(ev->stream);
	if (g)
		return gen_index(g, 0, g->nctx, name);
	return find_field(sc->ctx, sc->nctx, name);
}

int shmtrace_rd_event_context(const struct shmtrace_rd_event *ev, unsigned i,
			      struct shmtrace_rd_value *v)
{
	const struct shmtrace_rd_stream *s = ev->stream;
	const struct tsdl_stream_class *sc = ev->cls->stream;
	const struct tsdl_field *f;

	if (s->gen && s->gen->lazy)
		rd_ctf_payload(ev->stream);
	if (s->gen) {
		if (i >= s->gen->nctx)
			return -EINVAL;
		*v = s->gen->vals[i].v;
		return 0;
	}
	if (i >= sc->nctx)
		return -EINVAL;
	f = &sc->ctx[i];
	fill_value(f, s->buf + s->foff[0] - sc->ctx_bytes + f->offset,
		   f->bytes, v);
	return 0;
}
