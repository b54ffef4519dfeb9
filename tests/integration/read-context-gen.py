#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a small shmtrace CTF trace whose streams use several stream
classes (doc/trace-format.md, "Context fields: one stream class per context
set"): class 0 (no context), class 3 (ip, cpu_id) and class 2 (cpu_id), in
the metadata order a writer produces them, with compact and extended event
headers, a compact timestamp that wraps its low 24 bits, an event id above
254, several packets per stream and an empty stream file.

Usage: read-context-gen.py DIR [--corrupt KIND]

DIR is created (it must not exist) and holds the trace: metadata, ch_0 ...
ch_4. On stdout, one line per event in time order:

    TIME_NS NAME TID CPU CTX_CPU CTX_IP

CPU is the value a filter on `cpu_id` sees (the payload field cpu_id if the
event has one, else the context field, else "-"), CTX_CPU and CTX_IP (in
lower-case hexadecimal) the context fields alone ("-" when the event's
stream class has no such field).

--corrupt KIND damages the trace:
    packet-class    a packet of ch_1 says stream class 5, never declared
    class-change    the second packet of ch_1 says stream class 2 (declared;
                    ch_1's first packet is of class 3)
    event-class     the metadata declares an event of stream class 7
    dup-class       the metadata declares stream class 3 twice
"""

import os
import struct
import sys
import uuid

TRACE_UUID = uuid.UUID("6a1b3c4d-5e6f-4a0b-8c1d-2e3f4a5b6c7d")
CLOCK_UUID = uuid.UUID("0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0")
OFFSET_S = 1700000000
MAGIC = 0xC1FC1FC1

PREAMBLE = """/* CTF 1.8 */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 8; align = 8; signed = true; } := int8_t;
typealias integer { size = 16; align = 8; signed = true; } := int16_t;
typealias integer { size = 32; align = 8; signed = true; } := int32_t;
typealias integer { size = 64; align = 8; signed = true; } := int64_t;
typealias integer { size = 64; align = 8; signed = false; base = 16; } := xint64_t;
typealias floating_point { exp_dig = 11; mant_dig = 53; align = 8; } := double;

trace {
	major = 1;
	minor = 8;
	uuid = "%(uuid)s";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t uuid[16];
		uint32_t stream_id;
		uint64_t stream_instance_id;
	};
};

env {
	hostname = "genhost";
	domain = "ust";
	tracer_name = "shmtrace";
	tracer_major = 0;
	tracer_minor = 1;
	vpid = 4321;
	procname = "ctx-gen";
};

clock {
	name = "monotonic";
	uuid = "%(clock_uuid)s";
	description = "CLOCK_MONOTONIC";
	freq = 1000000000;
	precision = 1;
	offset_s = %(offset_s)d;
	offset = 0;
	absolute = false;
};

typealias integer { size = 24; align = 1; signed = false; map = clock.monotonic.value; } := uint24_clock_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;

"""

STREAM = """stream {
	id = %d;
	packet.context := struct {
		uint64_clock_t timestamp_begin;
		uint64_clock_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint64_t packet_seq_num;
		uint64_t events_discarded;
		uint32_t tid;
	};
	event.header := struct {
		enum : uint8_t { compact = 0 ... 254, extended = 255 } id;
		variant <id> {
			struct { uint24_clock_t timestamp; } compact;
			struct { uint32_t id; uint64_clock_t timestamp; } extended;
		} v;
	} align(8);
%s};

"""

# context fields by bit, in bit order: (bit, name, type, struct format)
CONTEXTS = [(1, "ip", "xint64_t", "<Q"), (2, "cpu_id", "uint32_t", "<I")]

# event classes: id, name, loglevel, [(name, type)]; a "seq" type is a
# uint32_t NAME_length then uint8_t NAME[NAME_length]
EVENTS = [
    (0, "ctx:start", 13, []),
    (1, "ctx:value", 13, [("seq", "uint32_t"), ("delta", "int64_t"),
                          ("addr", "xint64_t"), ("msg", "string")]),
    (2, "ctx:bytes", 14, [("data", "seq"), ("ratio", "double")]),
]
# learnt later: appended once per declared class
LATE_EVENTS = [
    (3, "ctx:cpu", 13, [("cpu_id", "uint32_t"), ("small", "uint16_t")]),
    (300, "ctx:late", 13, [("n", "uint16_t"), ("s", "int8_t")]),
]


def context_block(mask):
    if not mask:
        return ""
    s = "\tevent.context := struct {\n"
    for bit, name, typ, _ in CONTEXTS:
        if mask & bit:
            s += "\t\t%s _%s;\n" % (typ, name)
    return s + "\t};\n"


def event_block(ev, stream_id):
    eid, name, level, fields = ev
    s = "event {\n\tname = \"%s\";\n\tid = %d;\n\tstream_id = %d;\n" \
        "\tloglevel = %d;\n\tfields := struct {\n" % (name, eid, stream_id, level)
    for fname, typ in fields:
        if typ == "seq":
            s += "\t\tuint32_t _%s_length;\n" % fname
            s += "\t\tuint8_t _%s[_%s_length];\n" % (fname, fname)
        else:
            s += "\t\t%s _%s;\n" % (typ, fname)
    return s + "\t};\n};\n\n"


def metadata(corrupt):
    text = PREAMBLE % {"uuid": TRACE_UUID, "clock_uuid": CLOCK_UUID,
                       "offset_s": OFFSET_S}
    declared = []
    for mask in (0, 3, 2):
        text += STREAM % (mask, context_block(mask))
        declared.append(mask)
        if corrupt == "dup-class" and mask == 2:
            text += STREAM % (3, context_block(3))
        for ev in EVENTS:
            text += event_block(ev, mask)
    for ev in LATE_EVENTS:
        for mask in sorted(declared):
            text += event_block(ev, mask)
    if corrupt == "event-class":
        text += event_block((4, "ctx:orphan", 13, []), 7)
    return text


def payload(ev, k):
    """The payload bytes of the k-th event of class ev."""
    eid, name, _, fields = ev
    out = b""
    for fname, typ in fields:
        if typ == "uint32_t":
            out += struct.pack("<I", (k % 3) if fname == "cpu_id" else k * 7)
        elif typ == "uint16_t":
            out += struct.pack("<H", (k * 1111) & 0xffff)
        elif typ == "int8_t":
            out += struct.pack("<b", -(k % 100))
        elif typ == "int64_t":
            out += struct.pack("<q", -k * 1000003)
        elif typ == "xint64_t":
            out += struct.pack("<Q", 0xdead0000beef + k)
        elif typ == "double":
            out += struct.pack("<d", k / 4.0)
        elif typ == "string":
            out += ("m%d" % k).encode() + b"\0"
        elif typ == "seq":
            data = bytes((k + i) & 0xff for i in range(k % 4))
            out += struct.pack("<I", len(data)) + data
        else:
            raise ValueError(typ)
    return out


def context(mask, k):
    """The context bytes, and the cpu_id and ip in it (None without)."""
    out, cpu, ip = b"", None, None
    for bit, name, _, fmt in CONTEXTS:
        if not mask & bit:
            continue
        if name == "ip":
            ip = 0x55d0c0de1000 + 16 * k
            out += struct.pack(fmt, ip)
        else:
            cpu = (7 * k + k // 3) % 4
            out += struct.pack(fmt, cpu)
    return out, cpu, ip


def packet(stream_id, instance, tid, seq, events, ts_begin, ts_end):
    body = b"".join(events)
    size = (84 + len(body)) * 8
    head = struct.pack("<I16sIQQQQQQQI", MAGIC, TRACE_UUID.bytes, stream_id,
                       instance, ts_begin, ts_end, size, size, seq, 0, tid)
    return head + body


def main():
    args = sys.argv[1:]
    corrupt = None
    if len(args) == 3 and args[1] == "--corrupt":
        corrupt = args[2]
        args = args[:1]
    if len(args) != 1 or corrupt not in (None, "packet-class", "class-change",
                                         "event-class", "dup-class"):
        sys.stderr.write(__doc__)
        return 1
    out = args[0]
    os.mkdir(out)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(metadata(corrupt))

    # streams: file, class, tid, events per packet
    streams = [("ch_0", 0, 100, [5, 4]), ("ch_1", 3, 101, [6, 5]),
               ("ch_2", 3, 102, [7]), ("ch_3", 2, 103, [4, 3]),
               ("ch_4", 3, 104, [])]
    all_events = EVENTS + LATE_EVENTS
    ts = 1000
    k = 0
    lines = []
    nstreams = len(streams)
    pending = {s[0]: [] for s in streams}   # per stream: (ts, id, bytes)
    # events take turns over the streams that still need some, in time order
    todo = [(s[0], s[1], s[2], list(s[3])) for s in streams]
    turn = 0
    while any(sum(t[3]) for t in todo):
        fname, mask, tid, counts = todo[turn % nstreams]
        turn += 1
        if not sum(counts):
            continue
        ev = all_events[k % len(all_events)]
        # now and then a gap too large for a compact header, or a wrap of
        # the low 24 bits
        if k % 11 == 10:
            ts += 0x2000000
        elif k % 7 == 6:
            ts = (ts | 0xffffff) + 3
        else:
            ts += 1000 + 37 * k
        ctx, cpu, ip = context(mask, k)
        pl = payload(ev, k)
        eff = cpu
        if any(f[0] == "cpu_id" for f in ev[3]):
            eff = k % 3
        pending[fname].append((ts, ev[0], ctx + pl))
        lines.append("%d %s %d %s %s %s" % (OFFSET_S * 1000000000 + ts, ev[1], tid,
                                            "-" if eff is None else eff,
                                            "-" if cpu is None else cpu,
                                            "-" if ip is None else hex(ip)))
        k += 1
        for i, c in enumerate(counts):
            if c:
                counts[i] -= 1
                break

    for fname, mask, tid, counts in streams:
        data = b""
        evs = pending[fname]
        instance = int(fname[3:])
        for seq, n in enumerate(counts):
            chunk, evs = evs[:n], evs[n:]
            begin = chunk[0][0] - 500
            prev = begin
            body = []
            for j, (t, eid, rest) in enumerate(chunk):
                if eid <= 254 and t - prev < (1 << 24) and (j + seq) % 3:
                    head = struct.pack("<I", eid | (t & 0xffffff) << 8)
                else:
                    head = struct.pack("<BIQ", 255, eid, t)
                body.append(head + rest)
                prev = t
            sid = mask
            if fname == "ch_1" and seq == 1 and corrupt == "packet-class":
                sid = 5
            if fname == "ch_1" and seq == 1 and corrupt == "class-change":
                sid = 2
            data += packet(sid, instance, tid, seq, body, begin, prev + 100)
        with open(os.path.join(out, fname), "wb") as f:
            f.write(data)
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
