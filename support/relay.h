/* SPDX-License-Identifier: MIT */
/*
 * relay.h - the network protocol of lttng-relayd, as shmtrace speaks it.
 *
 * shmtrace streams traces to lttng-relayd (lttng-tools) rather than to a
 * collector of its own. It speaks the relay protocol in version 2.10, the
 * last before trace chunks, which every relay daemon since 2.10 accepts:
 * the stream paths are chosen by the sender ("HOST/SESSION-DATE/PROC-PID"
 * under the relay's output directory), and packets carry index entries
 * version 1.1 (stream instance id and packet sequence number), which live
 * viewers need.
 *
 * Two TCP connections per session, both opened by the sender (nothing of
 * shmtrace listens): control (commands, each answered in order, except
 * SEND_METADATA) and data (packets, never answered). Every integer is big
 * endian; structures are packed. doc/protocol.md has the tables.
 *
 * Control message: a 24-byte header, then the body.
 *    0  u64 circuit_id       0
 *    8  u64 data_size        bytes of body
 *   16  u32 cmd              RLY_*
 *   20  u32 cmd_version      0
 * Data message: a 32-byte header, then data_size bytes of one CTF packet.
 *    0  u64 circuit_id       0
 *    8  u64 stream_id        the relay's stream handle
 *   16  u64 net_seq_num      per stream, from 0, one per packet
 *   24  u32 data_size
 *   28  u32 padding_size     zeros the relay appends
 *
 * Everything received from the relay is checked for size and status
 * before it is used.
 */
#ifndef SHMTRACE_COMMON_RELAY_H
#define SHMTRACE_COMMON_RELAY_H

#include <stddef.h>
#include <stdint.h>

#define RLY_CTRL_PORT		5342
#define RLY_DATA_PORT		5343
#define RLY_LIVE_PORT		5344
#define RLY_MAJOR		2
#define RLY_MINOR		10
#define RLY_OK			10	/* the relay's success code */

enum rly_cmd {
	RLY_ADD_STREAM = 1,
	RLY_CREATE_SESSION = 2,
	RLY_VERSION = 5,
	RLY_SEND_METADATA = 6,
	RLY_CLOSE_STREAM = 7,
	RLY_DATA_PENDING = 8,
	RLY_SEND_INDEX = 13,
	RLY_STREAMS_SENT = 16,
};

#define RLY_HDR			24
#define RLY_DATA_HDR		32
/* CREATE_SESSION body: name[255], hostname[64], u32 live_timer (us), u32 snapshot */
#define RLY_SESSION_NAME	255
#define RLY_HOST_NAME		64
#define RLY_CREATE_BODY		(RLY_SESSION_NAME + RLY_HOST_NAME + 8)
/* ADD_STREAM body: channel_name[264], pathname[4096], u64 tracefile_size, u64 count */
#define RLY_CHAN_NAME		264
#define RLY_PATH		4096
#define RLY_PATH_USE		255	/* the relay refuses longer paths */
#define RLY_ADD_STREAM_BODY	(RLY_CHAN_NAME + RLY_PATH + 16)
/* SEND_INDEX body: ten u64, see rly_index() */
#define RLY_INDEX_BODY		80
/* CLOSE_STREAM, DATA_PENDING body: u64 stream handle, u64 last net_seq_num */
#define RLY_PAIR_BODY		16
/* SEND_METADATA body: u64 stream handle, u32 padding, then the text */
#define RLY_META_HDR		12
/* replies */
#define RLY_VERSION_REPLY	8	/* u32 major, u32 minor */
#define RLY_SESSION_REPLY	12	/* u64 session id, u32 status */
#define RLY_STREAM_REPLY	12	/* u64 stream handle, u32 status */
#define RLY_GENERIC_REPLY	4	/* u32 status */

static inline void rly_put32(uint8_t *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static inline void rly_put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static inline uint32_t rly_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t rly_get64(const uint8_t *p)
{
	return (uint64_t)rly_get32(p) << 32 | rly_get32(p + 4);
}

/* A control header for a body of @size bytes, in @b (RLY_HDR bytes). */
void rly_hdr(uint8_t *b, uint32_t cmd, uint64_t size);
/* A data header, in @b (RLY_DATA_HDR bytes). */
void rly_data_hdr(uint8_t *b, uint64_t handle, uint64_t net_seq, uint32_t size);

/* One packet's index entry (sizes in bytes here, bits on the wire). */
struct rly_index {
	uint64_t handle, net_seq;
	uint64_t packet_bytes, content_bytes;
	uint64_t ts_begin, ts_end;
	uint64_t discarded;
	uint64_t stream_id, instance_id, packet_seq;
};
/* A whole SEND_INDEX message in @b (RLY_HDR + RLY_INDEX_BODY bytes). */
void rly_index(uint8_t *b, const struct rly_index *ix);
/* A whole CLOSE_STREAM or DATA_PENDING message (RLY_HDR + RLY_PAIR_BODY). */
void rly_pair(uint8_t *b, uint32_t cmd, uint64_t handle, uint64_t seq);
/* A whole ADD_STREAM message (RLY_HDR + RLY_ADD_STREAM_BODY); -ENAMETOOLONG. */
int rly_add_stream(uint8_t *b, const char *name, const char *path);

/*
 * A relay address: net://HOST[:CTRL[:DATA]] (also net6://, and tcp://HOST:PORT
 * or tcp6:// for one of the two), IPv6 addresses in brackets. Ports default
 * to 5342 and 5343. 0, or -EINVAL.
 */
struct rly_url {
	char host[256];
	uint16_t ctrl, data;
};
int rly_url_parse(const char *url, struct rly_url *u);
/* tcp://HOST:PORT (or tcp6://, net://); the one port in *@port. */
int rly_url_one(const char *url, char *host, size_t len, uint16_t *port);

/*
 * Blocking helpers, each bounded by @timeout_ms, for the session daemon
 * (which connects, then hands the sockets to the consumer).
 * rly_connect: a TCP connection, close-on-exec; fd or -errno.
 * rly_handshake: VERSION; 0, -EPROTONOSUPPORT (another major), -errno.
 * rly_create_session: CREATE_SESSION; 0 with *@id set, or -errno.
 */
int rly_connect(const char *host, uint16_t port, int timeout_ms);
int rly_handshake(int fd, int timeout_ms);
int rly_create_session(int fd, const char *name, const char *hostname, uint32_t live_us,
		       uint64_t *id, int timeout_ms);

#endif
