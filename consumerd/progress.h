// SPDX-License-Identifier: MIT
/*
 * progress.h - what the consumer wrote of each trace, kept on disk beside
 * it so that a consumer started after a crash resumes exactly (progress.c).
 */
#ifndef SHMTRACE_CONSUMERD_PROGRESS_H
#define SHMTRACE_CONSUMERD_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include "common/proto.h"

struct c_chan;
struct c_trace;
struct c_seg;
struct c_stream;

#define PROG_FILE		".shmtrace-progress"
#define PROG_MAGIC		0x47525053u	/* "SPRG" */
#define PROG_REC_MAGIC		0x43455253u	/* "SREC" */
#define PROG_VERSION		1
#define PROG_HDR_SIZE		512u
#define PROG_REC_SIZE		256u
#define PROG_MAX_RECS		(8u * 4096u)	/* channel slots x buffer slots */
#define PROG_NAME_MAX		(PROTO_NAME_MAX + 16)

/*
 * The file's first PROG_HDR_SIZE bytes: which process image the trace is
 * of, and what its metadata declares. Written when the trace starts, and
 * again when a stream class is added (before any packet of that class).
 */
struct prog_hdr {
	uint32_t magic;			/* PROG_MAGIC */
	uint16_t version;		/* PROG_VERSION */
	uint16_t hdr_size;		/* PROG_HDR_SIZE */
	uint32_t rec_size;		/* PROG_REC_SIZE */
	uint32_t pid;
	uint64_t starttime;		/* the process image: pid, start time, */
	uint64_t instance;		/* ... and its random instance */
	uint8_t uuid[16];		/* the trace's */
	uint64_t freq;			/* its clock as the metadata says */
	int64_t offset_s;
	uint64_t offset;
	uint32_t clock;			/* CLOCK_KIND_* */
	uint32_t classes;		/* stream classes declared: bit 1 << context */
	uint64_t meta_size;		/* the metadata's bytes when it declared... */
	uint32_t nev;			/* ...event ids [0, nev) in every class (0: unknown) */
	uint8_t reserved[412];
	uint64_t check;			/* hash_bytes() of the bytes before */
};

_Static_assert(sizeof(struct prog_hdr) == PROG_HDR_SIZE, "progress header size");
_Static_assert(offsetof(struct prog_hdr, uuid) == 32, "progress header uuid");
_Static_assert(offsetof(struct prog_hdr, classes) == 76, "progress header classes");
_Static_assert(offsetof(struct prog_hdr, meta_size) == 80, "progress header meta_size");
_Static_assert(offsetof(struct prog_hdr, nev) == 88, "progress header nev");

/*
 * One stream (buffer slot) of the trace: record k at PROG_HDR_SIZE + k *
 * PROG_REC_SIZE, made when the stream's file is first opened. Written
 * after each range the stream writes out and before the slot's `consumed`
 * moves past it (drain.c), so that the file's first `fsize` bytes are
 * exactly the packets of the ring's first `rseq` packets and `flushed`
 * bytes of packet `rseq`.
 */
struct prog_rec {
	uint32_t magic;			/* PROG_REC_MAGIC */
	uint32_t number;		/* the buffer slot's number */
	uint64_t chan_id;
	char name[PROG_NAME_MAX];	/* its file: CHANNEL_NUMBER */
	uint64_t fsize;			/* bytes of whole packets in the file */
	uint64_t rseq;			/* ring packet being read */
	uint32_t flushed;		/* bytes of it written out */
	uint32_t nev_flushed;		/* events of it written out */
	uint64_t last_end;		/* timestamp_end of the last range */
	uint64_t seq;			/* next packet_seq_num */
	uint64_t fd_packets;		/* packets in the file */
	uint64_t discarded;		/* last events_discarded written */
	uint64_t disc_base;		/* discards before the file's chunk */
	uint64_t lost_seen;		/* overwritten packets already in seq */
	uint64_t lost_packets;		/* packets overwritten before they were read */
	uint64_t events;		/* events written out (and lost to write errors) */
	uint64_t wlost;			/* events lost to write errors */
	uint64_t bytes;			/* bytes written out */
	uint64_t nobuf_base;		/* its process's lost_nobuf when the channel began */
	uint64_t slot_disc;		/* the slot's discards (full, nested) so far */
	uint64_t overrun;		/* the slot's overwritten events so far */
	uint64_t nobuf;			/* its process's events lost without a buffer */
	uint64_t ev_base;		/* events - wlost when the record began: those of
					 * earlier traces (chunks, cleared ones) */
	uint8_t reserved[8];
	uint64_t check;			/* hash_bytes() of the bytes before */
};

_Static_assert(sizeof(struct prog_rec) == PROG_REC_SIZE, "progress record size");
_Static_assert(offsetof(struct prog_rec, fsize) == 96, "progress record fsize");
_Static_assert(offsetof(struct prog_rec, ev_base) == 232, "progress record ev_base");
_Static_assert(offsetof(struct prog_rec, check) == PROG_REC_SIZE - 8, "progress record check");

/*
 * A new trace in directory @dirfd: its progress file made, with its
 * header. 0 or -errno (nothing left behind).
 */
int prog_start(struct c_trace *t, int dirfd);
/*
 * Trace directory @dirfd, left by an earlier consumer: is it @t's process
 * image? Then its header and stream records are @t's (uuid, clock,
 * classes); 0. -ESRCH: another image's; -ENOENT: no progress file;
 * -EBADMSG: a damaged one (it is left alone); other -errno.
 */
int prog_adopt(struct c_trace *t, int dirfd);
/* The header again (after a stream class was added); 0 or -errno. */
int prog_save_header(struct c_trace *t);
/*
 * Stream @st of @s resumes from its record in its adopted trace, if it
 * has one: its file opened and cut back to the packets the record
 * counts, its reader and counters as they were, the slot's `consumed`
 * set to match. Returns 1 when resumed, 0 when there is no record, -errno
 * when the file cannot be opened (recorded; the stream starts afresh).
 * Main thread, before the stream is handed to a draining thread.
 */
int prog_resume(struct c_seg *s, struct c_stream *st);
/*
 * A record for @st, whose file was just made or opened in its trace:
 * 0 or -errno. Any draining thread (takes the trace's lock).
 */
int prog_stream_new(struct c_seg *s, struct c_stream *st);
/* @st's record as the stream stands now; 0 or -errno. Its draining thread. */
int prog_save(const struct c_seg *s, const struct c_stream *st);
/* @t's progress file closed and its loaded records freed. */
void prog_close(struct c_trace *t);

/*
 * Channel @ch is given to this consumer with traces already in its
 * output (a consumer before us stopped): what their records count is
 * added to the channel's statistics of streams gone (c_chan.gone), so
 * that they still count what is on disk. Main thread, at the channel's
 * definition. 0 or -ENOMEM (the counts then start from here).
 */
int prog_scan(struct c_chan *ch);
/*
 * Stream @st of @s is alive again: the counts of its record found by
 * prog_scan() leave the channel's `gone`, since the stream counts them
 * from now on (its slot's counters, and, when prog_resume() restored them
 * (@resumed), its own). Main thread.
 */
void prog_take(struct c_seg *s, struct c_stream *st, int resumed);
/* The channel's scan results freed. */
void prog_scan_free(struct c_chan *ch);
/*
 * The events trace directory @dirfd holds, from its progress file: per
 * channel (@ids, @n of them), added to @events. 0, or -errno (no progress
 * file: nothing counted).
 */
int prog_count(int dirfd, const uint64_t *ids, unsigned int n, uint64_t *events);

#endif
