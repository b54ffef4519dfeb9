/* SPDX-License-Identifier: MIT */
/*
 * ctfmeta.c - TSDL metadata text and packet headers.
 *
 * Every type is byte-aligned so that events are packed with no padding;
 * the layout of the packet header and context below must match the
 * preamble's declarations byte for byte (offsets in doc/trace-format.md).
 * Names written into TSDL come from proto_event_decode(), which accepts
 * identifiers only, so no text can escape its declaration.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <shmtrace/shmtrace.h>
#include "support/ctfmeta.h"

struct sbuf {
	char *buf;
	size_t cap;
	size_t len;
	int err;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len)
		b->err = -ENOSPC;
	else
		b->len += (size_t)n;
}

const struct ctf_context ctf_contexts[CTF_NCONTEXTS] = {
	{ "ip", SHMTRACE__CTX_IP, "xint64_t", "address of the code that emitted the event" },
	{ "cpu_id", SHMTRACE__CTX_CPU, "uint32_t", "CPU the thread ran on" },
};

uint32_t ctf_context_bit(const char *name)
{
	for (unsigned int i = 0; i < CTF_NCONTEXTS; i++)
		if (!strcmp(name, ctf_contexts[i].name))
			return ctf_contexts[i].bit;
	return 0;
}

static void ctfmeta_stream_into(struct sbuf *b, uint32_t ctx)
{
	sb_printf(b,
		  "stream {\n\tid = %" PRIu32 ";\n\tpacket.context := struct {\n"
		  "\t\tuint64_clock_t timestamp_begin;\n\t\tuint64_clock_t timestamp_end;\n"
		  "\t\tuint64_t content_size;\n\t\tuint64_t packet_size;\n\t\tuint64_t packet_seq_num;\n"
		  "\t\tuint64_t events_discarded;\n\t\tuint32_t tid;\n\t};\n"
		  "\tevent.header := struct {\n"
		  "\t\tenum : uint8_t { compact = 0 ... 254, extended = 255 } id;\n"
		  "\t\tvariant <id> {\n"
		  "\t\t\tstruct { uint24_clock_t timestamp; } compact;\n"
		  "\t\t\tstruct { uint32_t id; uint64_clock_t timestamp; } extended;\n"
		  "\t\t} v;\n\t} align(8);\n", ctx);
	if (ctx) {
		sb_printf(b, "\tevent.context := struct {\n");
		for (unsigned int i = 0; i < CTF_NCONTEXTS; i++)
			if (ctx & ctf_contexts[i].bit)
				sb_printf(b, "\t\t%s _%s;\n", ctf_contexts[i].type,
					  ctf_contexts[i].name);
		sb_printf(b, "\t};\n");
	}
	sb_printf(b, "};\n\n");
}

long ctfmeta_stream(char *buf, size_t cap, uint32_t ctx)
{
	struct sbuf b = { buf, cap, 0, 0 };

	if (ctx & ~SHMTRACE__CTX_ALL)
		return -EINVAL;
	ctfmeta_stream_into(&b, ctx);
	return b.err ? b.err : (long)b.len;
}

long ctfmeta_preamble(char *buf, size_t cap, const struct ctf_trace_info *t)
{
	struct sbuf b = { buf, cap, 0, 0 };
	static const char *const ints[] = {
		"8; align = 8; signed = false; } := uint8_t",
		"16; align = 8; signed = false; } := uint16_t",
		"32; align = 8; signed = false; } := uint32_t",
		"64; align = 8; signed = false; } := uint64_t",
		"8; align = 8; signed = true; } := int8_t",
		"16; align = 8; signed = true; } := int16_t",
		"32; align = 8; signed = true; } := int32_t",
		"64; align = 8; signed = true; } := int64_t",
		"64; align = 8; signed = false; base = 16; } := xint64_t",
	};

	sb_printf(&b, "/* CTF 1.8 */\n\n");
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		sb_printf(&b, "typealias integer { size = %s;\n", ints[i]);
	sb_printf(&b, "typealias floating_point { exp_dig = 11; mant_dig = 53; align = 8; } := double;\n\n");
	sb_printf(&b,
		  "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
		  "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		  "\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n",
		  t->uuid_str);
	/* the keys LTTng-UST writes for a per-process buffer (doc/trace-format.md) */
	sb_printf(&b,
		  "env {\n\thostname = \"%s\";\n\tdomain = \"ust\";\n\ttracer_name = \"shmtrace\";\n"
		  "\ttracer_major = 0;\n\ttracer_minor = 1;\n"
		  "\ttracer_buffering_scheme = \"pid\";\n\ttracer_buffering_id = %" PRIu32 ";\n"
		  "\tarchitecture_bit_width = %u;\n\ttrace_name = \"%s\";\n",
		  t->hostname, t->pid, (unsigned int)(8 * sizeof(void *)), t->trace_name);
	if (t->created[0])
		sb_printf(&b, "\ttrace_creation_datetime = \"%s\";\n", t->created);
	sb_printf(&b, "\tvpid = %" PRIu32 ";\n\tprocname = \"%s\";\n};\n\n", t->pid, t->procname);
	sb_printf(&b,
		  "clock {\n\tname = \"%s\";\n\tuuid = \"%s\";\n"
		  "\tdescription = \"%s\";\n\tfreq = %" PRIu64 ";\n\tprecision = 1;\n"
		  "\toffset_s = %" PRId64 ";\n\toffset = %" PRIu64 ";\n\tabsolute = true;\n};\n\n",
		  t->clock_name, t->clock_uuid, t->clock_desc, t->freq, t->offset_s, t->offset);
	sb_printf(&b,
		  "typealias integer { size = 24; align = 1; signed = false; map = clock.%s.value; } := uint24_clock_t;\n"
		  "typealias integer { size = 64; align = 8; signed = false; map = clock.%s.value; } := uint64_clock_t;\n\n",
		  t->clock_name, t->clock_name);
	if (!b.err)
		ctfmeta_stream_into(&b, 0);
	return b.err ? b.err : (long)b.len;
}

static const char *int_name(uint32_t type)
{
	static const char *const names[] = {
		[SHMTRACE_TYPE_U8] = "uint8_t", [SHMTRACE_TYPE_U16] = "uint16_t",
		[SHMTRACE_TYPE_U32] = "uint32_t", [SHMTRACE_TYPE_U64] = "uint64_t",
		[SHMTRACE_TYPE_S8] = "int8_t", [SHMTRACE_TYPE_S16] = "int16_t",
		[SHMTRACE_TYPE_S32] = "int32_t", [SHMTRACE_TYPE_S64] = "int64_t",
		[SHMTRACE_TYPE_HEX64] = "xint64_t", [SHMTRACE_TYPE_DOUBLE] = "double",
		[SHMTRACE_TYPE_STRING] = "string",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

long ctfmeta_event(char *buf, size_t cap, const struct proto_event *ev, uint32_t ctx)
{
	struct sbuf b = { buf, cap, 0, 0 };

	sb_printf(&b, "event {\n\tname = \"%s\";\n\tid = %" PRIu32 ";\n\tstream_id = %" PRIu32
		  ";\n\tloglevel = %" PRId32 ";\n\tfields := struct {\n",
		  ev->name, ev->id, ctx, ev->loglevel);
	for (uint32_t i = 0; i < ev->nfields && i < PROTO_MAX_FIELDS; i++) {
		const struct proto_field *f = &ev->fields[i];
		const char *tn;

		if (f->type & SHMTRACE_TYPE_SEQ) {
			tn = int_name(f->type & ~(uint32_t)SHMTRACE_TYPE_SEQ);
			if (!tn)
				return -EINVAL;
			sb_printf(&b, "\t\tuint32_t _%s_length;\n\t\t%s _%s[_%s_length];\n",
				  f->name, tn, f->name, f->name);
		} else {
			tn = int_name(f->type);
			if (!tn)
				return -EINVAL;
			sb_printf(&b, "\t\t%s _%s;\n", tn, f->name);
		}
	}
	sb_printf(&b, "\t};\n};\n\n");
	return b.err ? b.err : (long)b.len;
}

void ctf_packet_header(uint8_t out[CTF_PACKET_HDR], const struct ctf_trace_info *t,
		       const struct ctf_packet *p)
{
	uint32_t magic = CTF_MAGIC;
	uint64_t bits = p->content_bytes * 8;

	memcpy(out + 0, &magic, 4);
	memcpy(out + 4, t->uuid, 16);
	memcpy(out + 20, &p->stream_id, 4);
	memcpy(out + 24, &p->stream_instance_id, 8);
	memcpy(out + 32, &p->ts_begin, 8);
	memcpy(out + 40, &p->ts_end, 8);
	memcpy(out + 48, &bits, 8);
	memcpy(out + 56, &bits, 8);
	memcpy(out + 64, &p->seq, 8);
	memcpy(out + 72, &p->discarded, 8);
	memcpy(out + 80, &p->tid, 4);
}
