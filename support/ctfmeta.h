/* SPDX-License-Identifier: MIT */
/*
 * ctfmeta.h - the CTF 1.8 writer's pieces: TSDL metadata text and packet
 * headers, exactly as doc/trace-format.md describes them.
 */
#ifndef SHMTRACE_COMMON_CTFMETA_H
#define SHMTRACE_COMMON_CTFMETA_H

#include <stddef.h>
#include <stdint.h>
#include "common/proto.h"

#define CTF_MAGIC		0xC1FC1FC1u
#define CTF_PACKET_HDR		84	/* packet header + context, bytes */

struct ctf_trace_info {
	uint8_t uuid[16];
	char uuid_str[37];
	char clock_name[16];		/* "monotonic" or "tsc" */
	char clock_desc[64];
	char clock_uuid[37];		/* same for every trace of a boot and clock */
	char hostname[64];
	char trace_name[PROTO_NAME_MAX];	/* the session's name */
	char created[32];		/* the session's create, "20261129T011137+0000"; "": unknown */
	char procname[PROTO_PROCNAME];
	uint32_t pid;
	uint64_t freq;			/* clock ticks per second */
	int64_t offset_s;		/* Epoch offset of clock value 0 */
	uint64_t offset;		/* ... plus this many ticks */
};

/*
 * Context fields (tracectl add-context): each set is a stream class whose
 * id is its mask of SHMTRACE__CTX_* bits; fields are written in table order.
 */
struct ctf_context {
	const char *name;
	uint32_t bit;			/* SHMTRACE__CTX_* */
	const char *type;		/* TSDL type */
	const char *help;
};
#define CTF_NCONTEXTS 2
extern const struct ctf_context ctf_contexts[CTF_NCONTEXTS];
/* The bit of context @name, or 0. */
uint32_t ctf_context_bit(const char *name);

struct ctf_packet {
	uint32_t stream_id;		/* stream class: the context mask */
	uint64_t stream_instance_id;
	uint64_t ts_begin;
	uint64_t ts_end;
	uint64_t content_bytes;		/* header included */
	uint64_t seq;
	uint64_t discarded;
	uint32_t tid;
};

/* Metadata preamble (types, trace, env, clock, stream 0). Bytes or -ENOSPC. */
long ctfmeta_preamble(char *buf, size_t cap, const struct ctf_trace_info *t);
/* Stream class @ctx (a mask of SHMTRACE__CTX_*). Bytes or -ENOSPC / -EINVAL. */
long ctfmeta_stream(char *buf, size_t cap, uint32_t ctx);
/* One event block, in stream class @ctx. Bytes or -ENOSPC / -EINVAL. */
long ctfmeta_event(char *buf, size_t cap, const struct proto_event *ev, uint32_t ctx);
/* Serialise a packet header and context into CTF_PACKET_HDR bytes. */
void ctf_packet_header(uint8_t out[CTF_PACKET_HDR], const struct ctf_trace_info *t,
		       const struct ctf_packet *p);

#endif
