/* SPDX-License-Identifier: MIT */
/*
 * shm.h - the shared-memory layout between a traced process, the session
 * daemon and the consumer daemon.
 *
 * Every object is a memfd created by the traced process, sized once with
 * ftruncate and sealed (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) before
 * its descriptor leaves the process, so that no peer can shrink it under a
 * mapping and raise SIGBUS in another. The daemons check the seals and the
 * size with fstat before mapping. Nothing in shared memory is a pointer:
 * positions are offsets and indexes, and every one read by a process other
 * than its writer is bounds-checked before use, because the other side may
 * be buggy, malicious or dead half-way through an update.
 *
 * Four kinds of object exist per traced process:
 *
 * 1. The control page (struct shm_ctl_page, SHM_CTL_SIZE bytes). Mapped
 *    read-only by the process, read-write by the session daemon, which is
 *    its only writer. It says which channel slots exist and, per event id,
 *    the mask of channel slots that record that event. Updates follow a
 *    sequence counter: the daemon makes `generation` odd, writes, then makes
 *    it even again (release); a reader that sees an odd value, or a
 *    different value after reading, retries a bounded number of times.
 *    A daemon killed mid-update leaves an odd generation: readers give up
 *    and keep the state they had.
 *
 *      offset  size  field
 *      0       4     magic SHM_CTL_MAGIC
 *      4       2     version SHM_VERSION
 *      6       2     header size (SHM_CTL_HDR)
 *      8       4     total size (SHM_CTL_SIZE)
 *      12      4     max_events (SHM_MAX_EVENTS)
 *      16      8     generation (odd while being written)
 *      24      4     ringing: 1 while the daemon sends the doorbell signal
 *      28      4     dump_req: the daemon adds 1 to ask for a state dump
 *                    again (regenerate statedump); the process writes one
 *                    at its next enabled event after it sees it change
 *      32      8     trig_read: firings the daemon has read from the process
 *                    page's ring (written by the daemon outside the
 *                    generation; read by the process with acquire)
 *      40      24    reserved
 *      64      512   chan[8], 64 bytes each (struct shm_ctl_chan)
 *      1024    1024  trig[16], 64 bytes each (struct shm_ctl_trig): an event
 *                    trigger (tracectl add-trigger --on-event): its id (0:
 *                    slot unused), its filter number (0: none), its rate
 *                    policy and N
 *      4096    8192  enabled[event id]: mask of channel slots
 *      12288   65536 filt[channel slot][event id]: 0, or the number (1..255)
 *                    of the filter that decides the event in that channel
 *      77824   16384 filters (struct shm_ctl_filters): nfilters, then
 *                    per filter its offset and length in `code`, then the
 *                    bytecode (see filter.h); each filter is checked with
 *                    flt_validate() by the process before use
 *      94208   8192  aggen[event id]: mask of aggregation slots the event
 *                    updates
 *      102400  8192  agg[8], 1024 bytes each (struct shm_ctl_agg): an
 *                    aggregation (agg.h): its id (0: slot unused), the
 *                    capacity of a thread's table, its filter number (0:
 *                    none), its definition, whose key and function fields
 *                    index `names` (field names of the event, or context:
 *                    $ctx.vtid, $ctx.vpid, $ctx.cpu_id); the process copies
 *                    it under the generation and checks it with agg_geom()
 *      110592  16384 trigen[event id]: u16 mask of trigger slots whose
 *                    pattern takes the event
 *
 * 2. The process page (struct shm_proc_page, 4096 bytes). Shared
 *    read-write by the process and the consumer daemon, mapped read-only
 *    by the session daemon. The consumer sets `consumer_sleeping` before
 *    it stops polling this process's streams; a writer that publishes a sub-buffer reads it after a full
 *    barrier and, when set, sends a datagram on the process's wake socket
 *    (Dekker: either the writer sees the flag or the consumer sees the data
 *    on its last check before sleeping). The process counts in
 *    `lost_nobuf` the events it dropped because no buffer could be had at
 *    all.
 *
 *    The doorbell (Dekker again, so that a program that takes the signal
 *    for itself never receives it from us): the session daemon stores
 *    ctl.ringing = 1, issues a full barrier, sends the signal only if
 *    proc.doorbell_off is 0 (and /proc says the process catches it), then
 *    stores ringing = 0. A program that changes the signal's action goes
 *    through libshmtrace's sigaction() (doorbell.c), which stores
 *    doorbell_off = 1, issues a full barrier, waits while ringing is 1 (at
 *    most 100 ms), takes any instance still pending, and only then lets
 *    the action change.
 *
 *      offset  size  field
 *      0       4     magic SHM_PROC_MAGIC
 *      4       2     version SHM_VERSION
 *      6       2     header size
 *      8       4     total size (SHM_PROC_SIZE)
 *      12      4     pid
 *      16      4     doorbell_off (written by the process)
 *      20      4     nobuf_fresh: lost_nobuf counts from 0 (set by the
 *                    process on a new process image's page, cleared by the
 *                    consumer that takes the page)
 *      64      4     consumer_sleeping (written by the consumer)
 *      128     64    lost_nobuf[channel slot] (atomic adds by the process)
 *      4096    12288 the trigger area (struct shm_trig_area): the firings of
 *                    event triggers, written by the traced threads, read by
 *                    the session daemon:
 *        4096  8     head: records claimed so far (compare-and-swap)
 *        4104  8     lost: firings dropped, the ring full (atomic add)
 *        4160  128   count[trigger slot]: matches of the slot's trigger, the
 *                    low 16 bits of its id in bits 48-63 and the count in
 *                    bits 0-47 (compare-and-swap: exact across threads)
 *        4288  128   lost_slot[trigger slot]: its firings dropped (the ring
 *                    full), tagged and counted the same way
 *        8192  8192  ring[16], 512 bytes each (struct shm_trig_rec): record
 *                    n in ring[n % 16], complete once its seq is n + 1
 *                    (release); claimed only while n - ctl.trig_read < 16
 *
 * 3. Buffer segments (struct shm_seg_hdr then slots), one table of segments
 *    per process and channel; a segment never moves nor shrinks. A slot is
 *    one thread's buffer: a header page (struct shm_slot) then num_subbuf
 *    sub-buffers of subbuf_size bytes. See ringbuf.h for the protocol on the
 *    slot's fields.
 *
 * 4. Aggregation segments (struct shm_agg_seg, a page, then ntables thread
 *    tables of table_size bytes each, agg.h's layout), one run of segments
 *    per process and aggregation. Written by the process only; the
 *    consumer maps them read-only and merges the tables when asked, and
 *    when the process is gone. owner[i] is the thread that writes table i
 *    (0: none): a thread takes a free table with a compare-and-swap, once
 *    per aggregation, and gives it back at exit (release store); the next
 *    thread adds to what it holds, so a table's counts belong to the
 *    process, not to a thread. `lost` (first segment; atomic adds) counts
 *    updates never made: nested in a signal handler, no table to be had.
 *
 *      offset  size  field
 *      0       4     magic SHM_AGG_MAGIC
 *      4       2     version SHM_VERSION
 *      6       2     header size (SHM_AGG_SEG_HDR)
 *      8       4     seg_index
 *      12      4     ntables in this segment
 *      16      8     agg_id
 *      24      8     size of the segment, bytes
 *      32      4     first_table: number of its first table in the run
 *      36      4     table_size
 *      40      4     capacity: entries per table
 *      44      4     def_hash: agg_def_hash() of the definition
 *      48      8     lost
 *      128     4*n   owner[ntables]: tid, 0 = none
 *      4096          the tables
 */
#ifndef SHMTRACE_COMMON_SHM_H
#define SHMTRACE_COMMON_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <shmtrace/shmtrace.h>
#include "common/agg.h"

#define SHM_VERSION		7	/* 7: slot state RECLAIMING */
#define SHM_MAX_CHAN		SHMTRACE__MAX_CHAN
#define SHM_MAX_EVENTS		8192
#define SHM_PAGE		4096u
#define SHM_CACHELINE		64

#define SHM_CTL_MAGIC		0x4c544353u	/* "SCTL" */
#define SHM_PROC_MAGIC		0x434f5253u	/* "SROC" */
#define SHM_SEG_MAGIC		0x47455353u	/* "SSEG" */
#define SHM_AGG_MAGIC		0x53474741u	/* "AGGS" */

/* Channel modes. */
#define SHM_MODE_DISCARD	0
#define SHM_MODE_OVERWRITE	1

/*
 * Channel flags (shm_ctl_chan.flags). SHM_CHAN_NOWAKE: the consumer never
 * drains this channel (a memory-only session: its rings are copied only
 * by snapshots), so its writers never wake the consumer when they publish
 * a packet. A process that does not know the flag wakes it needlessly.
 */
#define SHM_CHAN_NOWAKE		1u

/* Limits on channel geometry, checked by everyone who reads it. */
#define SHM_MIN_SUBBUF		4096u
#define SHM_MAX_SUBBUF		(64u << 20)
#define SHM_MAX_NUM_SUBBUF	64u
#define SHM_MAX_SLOTS		4096u
#define SHM_MAX_SEGMENTS	64u

struct shm_ctl_chan {
	uint64_t chan_id;		/* 0: slot unused */
	uint32_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t pool_size;		/* buffers in the first segment */
	uint32_t mode;			/* SHM_MODE_* */
	uint32_t context;		/* SHMTRACE__CTX_* fields of every event */
	uint32_t flags;			/* SHM_CHAN_* */
	uint32_t max_buffers;		/* buffers a process may hold, 0: no limit */
	uint8_t reserved[28];
};

#define SHM_CTL_HDR		4096u
#define SHM_MAX_FILTERS		255u
#define SHM_FILTER_MAX_CODE	1024u	/* bytes of one filter's bytecode */
#define SHM_FILTERS_SIZE	16384u
#define SHM_MAX_AGG		8	/* aggregation slots of a process */
#define SHM_AGG_NAMES		(AGG_MAX_KEYS + AGG_MAX_FUNCS)
#define SHM_AGG_NAME		32	/* bytes of a field name, NUL included */
#define SHM_CTL_AGG_SIZE	1024u
#define SHM_MAX_TRIG		16	/* event trigger slots of a process */
#define SHM_CTL_TRIG_OFF	1024u
#define SHM_CTL_SIZE		(SHM_CTL_HDR + SHM_MAX_EVENTS + SHM_MAX_CHAN * SHM_MAX_EVENTS + \
				 SHM_FILTERS_SIZE + SHM_MAX_EVENTS + SHM_MAX_AGG * SHM_CTL_AGG_SIZE + \
				 2 * SHM_MAX_EVENTS)

/* Rate policies of event triggers (shm_ctl_trig.policy). */
#define SHM_TRIG_EVERY		0	/* at every N-th match (N = 1: each) */
#define SHM_TRIG_ONCE_AFTER	1	/* once, at the N-th match */

/* An event trigger's slot of the control page (tracectl add-trigger --on-event). */
struct shm_ctl_trig {
	uint64_t trig_id;		/* 0: slot unused */
	uint32_t filter;		/* 0, or its filter's number in `filters` */
	uint32_t policy;		/* SHM_TRIG_* */
	uint64_t n;			/* N of the policy, >= 1 */
	uint8_t reserved[40];
};
_Static_assert(sizeof(struct shm_ctl_trig) == 64, "ctl trig size");

/* Aggregation flags. */
#define SHM_AGG_PROFILE		1u	/* values from function entry and exit (aggr.c) */

/* An aggregation slot of the control page. */
struct shm_ctl_agg {
	uint64_t agg_id;		/* 0: slot unused */
	uint32_t capacity;		/* entries of a thread's table, a power of two */
	uint32_t filter;		/* 0, or its filter's number in `filters` */
	uint32_t nnames;		/* entries of names[] in use */
	uint32_t flags;			/* SHM_AGG_* */
	uint8_t reserved[40];
	struct agg_def def;
	char names[SHM_AGG_NAMES][SHM_AGG_NAME];
	uint8_t pad[SHM_CTL_AGG_SIZE - 64 - sizeof(struct agg_def) -
		    SHM_AGG_NAMES * SHM_AGG_NAME];
};
_Static_assert(sizeof(struct shm_ctl_agg) == SHM_CTL_AGG_SIZE, "ctl agg size");
_Static_assert(offsetof(struct shm_ctl_agg, def) == 64, "ctl agg def");
_Static_assert(offsetof(struct shm_ctl_agg, names) == 272, "ctl agg names");

struct shm_ctl_page {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_size;
	uint32_t size;
	uint32_t max_events;
	uint64_t generation;
	uint32_t ringing;		/* the daemon is sending the doorbell */
	uint32_t dump_req;		/* changed: write the state dump again */
	uint64_t trig_read;		/* firings the daemon read (outside the generation) */
	uint8_t reserved[24];
	struct shm_ctl_chan chan[SHM_MAX_CHAN];
	uint8_t pad[SHM_CTL_TRIG_OFF - 64 - SHM_MAX_CHAN * sizeof(struct shm_ctl_chan)];
	struct shm_ctl_trig trig[SHM_MAX_TRIG];
	uint8_t pad2[SHM_CTL_HDR - SHM_CTL_TRIG_OFF - SHM_MAX_TRIG * sizeof(struct shm_ctl_trig)];
	uint8_t enabled[SHM_MAX_EVENTS];
	uint8_t filt[SHM_MAX_CHAN][SHM_MAX_EVENTS];
	struct shm_ctl_filters {
		uint32_t nfilters;
		uint32_t used;			/* bytes of code in use */
		struct {
			uint32_t off;		/* in code[] */
			uint32_t len;
		} f[SHM_MAX_FILTERS];
		uint8_t code[SHM_FILTERS_SIZE - 8 - 8 * SHM_MAX_FILTERS];
	} filters;
	uint8_t aggen[SHM_MAX_EVENTS];
	struct shm_ctl_agg agg[SHM_MAX_AGG];
	uint16_t trigen[SHM_MAX_EVENTS];
};

_Static_assert(sizeof(struct shm_ctl_chan) == 64, "ctl chan size");
_Static_assert(offsetof(struct shm_ctl_chan, context) == 24, "ctl chan context");
_Static_assert(offsetof(struct shm_ctl_chan, flags) == 28, "ctl chan flags");
_Static_assert(offsetof(struct shm_ctl_page, generation) == 16, "ctl generation");
_Static_assert(offsetof(struct shm_ctl_page, ringing) == 24, "ctl ringing");
_Static_assert(offsetof(struct shm_ctl_page, dump_req) == 28, "ctl dump_req");
_Static_assert(offsetof(struct shm_ctl_page, trig_read) == 32, "ctl trig read");
_Static_assert(offsetof(struct shm_ctl_page, trig) == SHM_CTL_TRIG_OFF, "ctl trig");
_Static_assert(offsetof(struct shm_ctl_page, chan) == 64, "ctl chan offset");
_Static_assert(offsetof(struct shm_ctl_page, enabled) == SHM_CTL_HDR, "ctl enabled");
_Static_assert(offsetof(struct shm_ctl_page, filt) == SHM_CTL_HDR + SHM_MAX_EVENTS, "ctl filt");
_Static_assert(offsetof(struct shm_ctl_page, filters) == 77824, "ctl filters");
_Static_assert(sizeof(struct shm_ctl_filters) == SHM_FILTERS_SIZE, "ctl filters size");
_Static_assert(offsetof(struct shm_ctl_page, aggen) == 94208, "ctl aggen");
_Static_assert(offsetof(struct shm_ctl_page, agg) == 102400, "ctl agg");
_Static_assert(offsetof(struct shm_ctl_page, trigen) == 110592, "ctl trigen");
_Static_assert(sizeof(struct shm_ctl_page) == SHM_CTL_SIZE, "ctl size");

#define SHM_PROC_SIZE		(4 * SHM_PAGE)

/* The firings of event triggers: the trigger area of the process page. */
#define SHM_TRIG_RING		16u	/* records */
#define SHM_TRIG_REC		512u	/* bytes of one */
#define SHM_TRIG_FIELDS		16	/* field values a record holds */
#define SHM_TRIG_STR		320u	/* bytes of its strings */
#define SHM_TRIG_COUNT_BITS	48	/* count[]: the count; the id's low 16 bits above */

/* shm_trig_rec.flags */
#define SHM_TRIG_CUT		1u	/* a string was cut to fit */
#define SHM_TRIG_EARLY		2u	/* told before the event was written (an
					 * instrumented module of ABI 2) */

/*
 * One firing: written by the thread whose event fired the trigger, whole
 * before its seq is stored (release), after the event itself was committed.
 */
struct shm_trig_rec {
	uint64_t seq;			/* its number + 1 once complete */
	uint64_t trig_id;
	uint64_t ts;			/* the event's time (trace clock) */
	uint64_t count;			/* the match of the process that fired */
	uint64_t mono_ns;		/* CLOCK_MONOTONIC when told */
	uint32_t slot;			/* trigger slot */
	int32_t tid;
	uint32_t event_id;
	uint16_t nfields;		/* values in val[] (the event's fields, in order) */
	uint16_t flags;			/* SHM_TRIG_CUT, SHM_TRIG_EARLY */
	uint32_t str_used;		/* bytes of str[] */
	uint32_t reserved;
	uint64_t val[SHM_TRIG_FIELDS];	/* integers, doubles (bits), addresses; a
					 * sequence: its length */
	char str[SHM_TRIG_STR];		/* string fields, in order, NUL-terminated */
};
_Static_assert(sizeof(struct shm_trig_rec) == SHM_TRIG_REC, "trig rec size");
_Static_assert(offsetof(struct shm_trig_rec, val) == 64, "trig rec val");
_Static_assert(offsetof(struct shm_trig_rec, str) == 192, "trig rec str");

struct shm_trig_area {
	uint64_t head;			/* records claimed (compare-and-swap) */
	uint64_t lost;			/* firings dropped: the ring full (atomic add) */
	uint8_t reserved0[48];
	uint64_t count[SHM_MAX_TRIG];	/* matches per slot (compare-and-swap) */
	uint64_t lost_slot[SHM_MAX_TRIG];	/* ... firings of the slot dropped (the same) */
	uint8_t pad[SHM_PAGE - 64 - 16 * SHM_MAX_TRIG];
	struct shm_trig_rec ring[SHM_TRIG_RING];
};
_Static_assert(offsetof(struct shm_trig_area, count) == 64, "trig count");
_Static_assert(offsetof(struct shm_trig_area, lost_slot) == 192, "trig lost slot");
_Static_assert(offsetof(struct shm_trig_area, ring) == SHM_PAGE, "trig ring");
_Static_assert(sizeof(struct shm_trig_area) == 3 * SHM_PAGE, "trig area size");

struct shm_proc_page {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_size;
	uint32_t size;
	uint32_t pid;
	uint32_t doorbell_off;		/* the program took the signal: never send it */
	uint32_t nobuf_fresh;		/* lost_nobuf counts from 0: set by the
					 * process on a new image's page, cleared
					 * by the consumer that takes it */
	uint8_t reserved0[40];
	/* cache line 1: written by the consumer */
	uint32_t consumer_sleeping;
	uint8_t reserved1[60];
	/* cache line 2: written by the process (atomic adds) */
	uint64_t lost_nobuf[SHM_MAX_CHAN];
	uint8_t pad[SHM_PAGE - 192];
	/* pages 1 to 3: written by the process, read by the session daemon */
	struct shm_trig_area trig;
};

_Static_assert(offsetof(struct shm_proc_page, doorbell_off) == 16, "proc doorbell");
_Static_assert(offsetof(struct shm_proc_page, nobuf_fresh) == 20, "proc nobuf fresh");
_Static_assert(offsetof(struct shm_proc_page, consumer_sleeping) == 64, "proc sleeping");
_Static_assert(offsetof(struct shm_proc_page, lost_nobuf) == 128, "proc lost");
_Static_assert(offsetof(struct shm_proc_page, trig) == SHM_PAGE, "proc trig");
_Static_assert(sizeof(struct shm_proc_page) == SHM_PROC_SIZE, "proc size");

/*
 * Buffer slot states (struct shm_slot.state). Only OWNED matters for
 * safety: it gives one thread the right to write. A released slot may be
 * taken again before the consumer drained it: its new owner appends
 * packets to the same ring, which the consumer writes out in order.
 */
#define SHM_SLOT_FREE		0	/* no owner, nothing left to drain */
#define SHM_SLOT_OWNED		1	/* a thread writes into it */
#define SHM_SLOT_RELEASED	2	/* no owner; the consumer may still drain it */
#define SHM_SLOT_RECLAIMING	3	/* free, its pages being given back by the consumer
					 * (consumerd/reclaim.c): not to be taken (version 7) */

/* One sub-buffer's descriptor; the first 16 bytes are the writer's commit. */
struct shm_sbmeta {
	struct shmtrace__commit commit;	/* events << 32 | bytes; last timestamp */
	uint64_t pseq;			/* packet number it holds (release) */
	uint64_t begin_ts;		/* timestamp when the packet was opened */
	uint64_t disc_open;		/* the slot's discards when it was opened */
	int32_t tid;			/* writing thread */
	uint8_t reserved[20];
};

struct shm_slot {
	/* cache line 0: ownership */
	uint32_t state;			/* SHM_SLOT_* */
	int32_t owner_tid;
	uint64_t released;		/* process-wide release order (LRU) */
	uint8_t reserved0[48];
	/* cache line 1: written by the owning thread only */
	uint64_t closed;		/* packets closed so far (release) */
	uint64_t discarded;		/* events dropped: full, too big */
	uint64_t lost_nested;		/* events dropped: nested in a signal (atomic) */
	uint64_t overrun;		/* events overwritten (overwrite mode) */
	uint8_t reserved1[32];
	/* cache line 2: written by the consumer only */
	uint64_t consumed;		/* packets consumed so far (release) */
	uint64_t cleared;		/* memory-only: events << 32 | bytes of packet
					 * `consumed` that a clear discarded */
	uint64_t cleared_ts;		/* ... the time of its last one */
	uint8_t reserved2[40];
	struct shm_sbmeta sb[];		/* num_subbuf entries */
};

_Static_assert(sizeof(struct shm_sbmeta) == 64, "sbmeta size");
_Static_assert(offsetof(struct shm_sbmeta, commit) == 0, "sbmeta commit");
_Static_assert(offsetof(struct shm_slot, closed) == 64, "slot writer line");
_Static_assert(offsetof(struct shm_slot, overrun) == 88, "slot overrun");
_Static_assert(offsetof(struct shm_slot, consumed) == 128, "slot consumer line");
_Static_assert(offsetof(struct shm_slot, cleared) == 136, "slot cleared");
_Static_assert(offsetof(struct shm_slot, cleared_ts) == 144, "slot cleared time");
_Static_assert(offsetof(struct shm_slot, sb) == 192, "slot sb");

struct shm_seg_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_size;
	uint32_t seg_index;
	uint32_t chan_slot;
	uint64_t size;			/* bytes of the whole segment */
	uint64_t chan_id;
	uint32_t first_slot;		/* number of this segment's first slot */
	uint32_t nslots;
	uint32_t subbuf_size;
	uint32_t num_subbuf;
	uint32_t slot_size;		/* bytes per slot, header included */
	uint32_t slot_hdr;		/* bytes of the slot header */
	uint32_t context;		/* SHMTRACE__CTX_* its writers add */
	uint8_t reserved[4];
};

_Static_assert(sizeof(struct shm_seg_hdr) == 64, "seg hdr size");
_Static_assert(offsetof(struct shm_seg_hdr, context) == 56, "seg hdr context");

#define SHM_AGG_SEG_HDR		SHM_PAGE
#define SHM_AGG_MAX_TABLES	((SHM_AGG_SEG_HDR - 128) / 4)	/* in one segment */
#define SHM_AGG_MAX_SEGMENTS	12u
#define SHM_AGG_MAX_TABLE	(64u << 20)	/* bytes of one table */

struct shm_agg_seg {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_size;
	uint32_t seg_index;
	uint32_t ntables;
	uint64_t agg_id;
	uint64_t size;
	uint32_t first_table;
	uint32_t table_size;
	uint32_t capacity;
	uint32_t def_hash;
	uint64_t lost;			/* first segment: updates never made (atomic) */
	uint8_t reserved[72];
	uint32_t owner[SHM_AGG_MAX_TABLES];	/* tid of the writer, 0 = none */
};
_Static_assert(offsetof(struct shm_agg_seg, lost) == 48, "agg seg lost");
_Static_assert(offsetof(struct shm_agg_seg, owner) == 128, "agg seg owner");
_Static_assert(sizeof(struct shm_agg_seg) == SHM_AGG_SEG_HDR, "agg seg size");

/*
 * Bytes of one thread's table in an aggregation segment: agg.h's table of
 * @capacity entries rounded up to a cache line (no two threads' tables
 * share one); 0 when @capacity is not a power of two or the table would
 * exceed SHM_AGG_MAX_TABLE. The process, the session daemon and the
 * consumer all size tables with it.
 */
static inline uint32_t shm_agg_table_size(const struct agg_geom *g, uint32_t capacity)
{
	size_t n;

	if (!capacity || (capacity & (capacity - 1)))
		return 0;
	n = (agg_table_size(g, capacity) + SHM_CACHELINE - 1) & ~(size_t)(SHM_CACHELINE - 1);
	return n > SHM_AGG_MAX_TABLE ? 0 : (uint32_t)n;
}

/* Bytes of a slot header for a geometry: page-aligned so data is too. */
static inline uint32_t shm_slot_hdr_size(uint32_t num_subbuf)
{
	uint32_t n = (uint32_t)sizeof(struct shm_slot) + num_subbuf * (uint32_t)sizeof(struct shm_sbmeta);

	return (n + SHM_PAGE - 1) & ~(SHM_PAGE - 1);
}

static inline int shm_geometry_ok(uint32_t subbuf_size, uint32_t num_subbuf)
{
	return subbuf_size >= SHM_MIN_SUBBUF && subbuf_size <= SHM_MAX_SUBBUF &&
	       (subbuf_size & (SHM_PAGE - 1)) == 0 &&
	       num_subbuf >= 2 && num_subbuf <= SHM_MAX_NUM_SUBBUF;
}

#endif /* SHMTRACE_COMMON_SHM_H */
