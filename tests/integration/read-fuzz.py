#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace-read against babeltrace2 on a corpus of damaged copies of real
traces (read-fuzz.sh records them).

Usage: read-fuzz.py WORK TRACE_READ BABELTRACE2 PLAIN_TRACE [LZ4_TRACE]
       [--random N] [--seed S] [--jobs J] [--only SUBSTRING]

PLAIN_TRACE is a trace directory (metadata and plain stream files, with
packets of more than one stream class); LZ4_TRACE the same trace with
LZ4-framed stream files, or "-". Every case is a copy of one of them
under WORK, damaged in one way: directed cases (stream files cut at packet
header, packet context and event boundaries and inside events; packets
swapped, duplicated, dropped or moved to another file; packet sizes and
content sizes that do not add up; bad magic, uuid, stream id; event ids,
timestamps, sequence lengths and strings that do not fit; metadata with a
brace removed, unknown types, sizes and alignments out of range, enums
without mappings, variant tags that name nothing, typedef chains, huge
arrays, duplicate names, big metadata that a quadratic parser would not
finish, packetized metadata with damaged packet headers, truncated
metadata), then N seeded random ones (bit flips, byte overwrites and
truncations of stream files and of the metadata, metadata lines deleted,
repeated or swapped, numbers replaced).

Each case is read by trace-read (in a process with at most 256 MiB of
address space, killed after 10 s) and by babeltrace2 (for an LZ4 copy:
each stream file inflated by `lz4 -d` first; a file that does not
inflate counts as rejected). A case fails when trace-read
  - is killed by a signal, times out, or runs out of memory;
  - exits with a status other than 0 and 3 (damaged), or with 3 and no
    "trace-read: " line that says why on its standard error;
  - exits with 0 where babeltrace2 rejects the input (exits non-zero);
  - exits with 0 where babeltrace2 exits with 0 too but prints another
    number of events.
trace-read exiting with 3 where babeltrace2 reads the input is allowed
when its message is one of the checks listed in STRICTER (each with the
reason it is kept); any other such case fails too. Where babeltrace2
itself crashes or runs longer than BT_TIMEOUT (2.0.4 does, on some damaged
packets and on big metadata), its answer is unknown: the case is noted,
and trace-read must still neither crash, hang nor run out of memory; the
directed cases known to do that do not run babeltrace2 and expect a given
status of trace-read. Other such unknown answers (random cases, about
6 of 200 in a run) are at most UNKNOWN_MAX of the cases: beyond that, too
little was compared, and the run fails.

A summary goes to standard output: cases, agreements, and every
disagreement with its mutation. The input of every failing case stays
under WORK/failed/ with the outputs of both readers; the exit status is 1
if any case failed.
"""

import argparse
import concurrent.futures
import os
import random
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import time

HDR = 84                   # packet header + packet context (bytes)
MAGIC = 0xC1FC1FC1
META_MAGIC = 0x75D11D57
TR_TIMEOUT = 10
BT_TIMEOUT = 2
UNKNOWN_MAX = 0.03
TR_MEMORY = 256 << 20

# Checks of trace-read that babeltrace2 does not make (or makes only as a
# warning), as "pattern in trace-read's message": reason. A case where
# babeltrace2 reads the input and trace-read exits 3 with such a message is
# a justified disagreement.
STRICTER = {
    r"packet_seq_num \d+ does not follow":
        "packets of a stream come in sequence order (a repeated or "
        "decreasing number means packets swapped or duplicated)",
    r"timestamp_begin \d+ goes back":
        "a packet starts before the previous one ended (packets swapped, "
        "duplicated or moved)",
    r"timestamp_begin \d+ > timestamp_end":
        "a packet ends before it begins",
    r"event timestamp \d+ goes back":
        "timestamps never decrease within a stream",
    r"is after the packet's timestamp_end":
        "an event lies inside its packet's time range",
    r"events_discarded decreases":
        "events_discarded is a running total",
    r"invalid content_size":
        "content_size is a whole number of bytes that covers the packet "
        "header and context",
    r"unsupported|not supported|only integers are supported":
        "trace-read reads the CTF that shmtrace writes (doc/trace-format.md), "
        "not every construct of CTF 1.8",
    r"more than \d+ ":
        "an implementation limit of trace-read, far above what shmtrace writes",
    r"without name or id":
        "every event class of a shmtrace trace has a name and an id",
    r"duplicate env key":
        "an env key is given once",
    r"multiple clocks":
        "a shmtrace trace has one clock",
    r"stream id \d+ after packets of stream id":
        "a stream file holds packets of one stream class",
    r"stream instance id \d+ of stream id \d+ also in ":
        "each stream file of a trace is a stream of its own "
        "(stream_instance_id unique in a stream class): babeltrace2 merges "
        "the two files into one stream",
    r"packet uuid does not match":
        "a packet whose uuid is not the trace's belongs to another trace "
        "(babeltrace2 does not compare them)",
    r"bad metadata packet magic":
        "every packet of packetized metadata begins with its magic "
        "(babeltrace2 checks the first one only)",
    r"metadata packet of another uuid":
        "the packets of packetized metadata are of one trace",
    r"nested too deeply":
        "an implementation limit that bounds the parser's stack, far above "
        "what shmtrace writes",
    r"out of range":
        "a number that does not fit in 64 bits (signed where negative): "
        "babeltrace2 lets it wrap around",
}


class Case:
    def __init__(self, name, base, mutate, skip_bt=None):
        self.name = name
        self.base = base        # "plain" or "lz4"
        self.mutate = mutate    # function(dir)
        # (why, status): babeltrace2 is not run (it crashes or does not
        # finish on this input); trace-read must exit with status
        self.skip_bt = skip_bt


# ---- the trace: metadata, packets and events ------------------------------

INT_TYPES = {"uint8_t": 1, "uint16_t": 2, "uint32_t": 4, "uint64_t": 8,
             "int8_t": 1, "int16_t": 2, "int32_t": 4, "int64_t": 8,
             "xint64_t": 8, "double": 8}


def parse_fields(body):
    """[(kind, name, bytes, len_index)] of a struct body."""
    fields = []
    for t, n, ln in re.findall(r"(\w+)\s+(\w+)(?:\[(\w+)\])?\s*;", body):
        if t == "string":
            fields.append(("str", n, 0, None))
        elif ln:
            idx = [f[1] for f in fields].index(ln)
            fields.append(("seq", n, INT_TYPES[t], idx))
        else:
            fields.append(("int", n, INT_TYPES[t], None))
    return fields


class Trace:
    def __init__(self, path):
        self.path = path
        with open(os.path.join(path, "metadata")) as f:
            self.meta = f.read()
        self.files = sorted(n for n in os.listdir(path)
                            if n != "metadata" and not n.startswith("."))
        self.ctx = {}
        for m in re.finditer(r"stream \{\s*id = (\d+);(.*?)\n\};", self.meta, re.S):
            c = re.search(r"event\.context := struct \{(.*?)\}", m.group(2), re.S)
            self.ctx[int(m.group(1))] = sum(f[2] for f in parse_fields(c.group(1))) if c else 0
        self.events = {}
        for m in re.finditer(r"event \{\s*name = \"([^\"]*)\";\s*id = (\d+);"
                             r"\s*stream_id = (\d+);.*?fields := struct \{(.*?)\};",
                             self.meta, re.S):
            self.events[(int(m.group(3)), int(m.group(2)))] = (m.group(1), parse_fields(m.group(4)))
        self.data = {}
        for n in self.files:
            with open(os.path.join(path, n), "rb") as f:
                self.data[n] = f.read()

    def packets(self, name):
        """[(offset, packet bytes, content bytes)] of a plain stream file."""
        d = self.data[name]
        out, off = [], 0
        while off + HDR <= len(d):
            cs, ps = struct.unpack_from("<QQ", d, off + 48)
            out.append((off, ps // 8, cs // 8))
            off += ps // 8
        return out

    def decode(self, name, poff):
        """[(start, end, id, [field offsets])] of the packet at poff."""
        d = self.data[name]
        sid = struct.unpack_from("<I", d, poff + 20)[0]
        cs = struct.unpack_from("<Q", d, poff + 48)[0] // 8
        pos, end, evs = poff + HDR, poff + cs, []
        while pos < end:
            start = pos
            if d[pos] == 255:
                eid = struct.unpack_from("<I", d, pos + 1)[0]
                pos += 13
            else:
                eid = d[pos]
                pos += 4
            pos += self.ctx.get(sid, 0)
            offs, lens = [], []
            for kind, _, size, li in self.events[(sid, eid)][1]:
                offs.append(pos)
                if kind == "int":
                    lens.append(int.from_bytes(d[pos:pos + size], "little"))
                    pos += size
                elif kind == "str":
                    pos = d.index(b"\0", pos) + 1
                    lens.append(None)
                else:
                    pos += lens[li] * size
                    lens.append(None)
            evs.append((start, pos, eid, offs))
        return evs


# ---- mutation helpers -------------------------------------------------------

def rd(d, name):
    with open(os.path.join(d, name), "rb") as f:
        return bytearray(f.read())


def wr(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def put(d, name, off, fmt, *vals):
    b = rd(d, name)
    struct.pack_into(fmt, b, off, *vals)
    wr(d, name, b)


def cut(d, name, size):
    b = rd(d, name)
    wr(d, name, b[:size])


def meta_sub(pattern, repl, count=1, flags=0):
    def f(d):
        t = rd(d, "metadata").decode("latin-1")
        n = re.sub(pattern, repl, t, count=count, flags=flags)
        if n == t:
            raise RuntimeError("pattern not in the metadata: %r" % pattern)
        wr(d, "metadata", n.encode("latin-1"))
    return f


def meta_text(fn):
    def f(d):
        wr(d, "metadata", fn(rd(d, "metadata").decode("latin-1")).encode("latin-1"))
    return f


def packetize(text, uuid, size=4096, damage=None):
    """LTTng-style packetized metadata of the text; damage(i, hdr) may change
    packet i's 37-byte header (a bytearray)."""
    out = bytearray()
    data = text.encode("latin-1")
    chunk = size - 37
    for i in range(0, max(len(data), 1), chunk):
        part = data[i:i + chunk]
        h = bytearray(struct.pack("<I16sIIIBBBBB", META_MAGIC, uuid, 0,
                                  (37 + len(part)) * 8, size * 8, 0, 0, 0, 1, 8))
        if damage:
            damage(i // chunk, h)
        out += h + part + bytes(size - 37 - len(part))
    return out


def seq(*fns):
    def f(d):
        for fn in fns:
            fn(d)
    return f


# ---- the directed cases -----------------------------------------------------

def directed(T, L):
    cases = []

    def add(name, fn, base="plain", skip_bt=None):
        cases.append(Case(name, base, fn, skip_bt))

    BT_HANGS = "babeltrace2 2.0 does not finish"
    BT_SLOW = "babeltrace2 2.0 takes more than %d s" % BT_TIMEOUT
    BT_CRASHES = "babeltrace2 2.0 crashes (abort, SIGSEGV)"

    multi = [n for n in T.files if len(T.packets(n)) >= 2]
    if not multi:
        raise RuntimeError("no stream file with two packets")
    S = multi[0]
    P = T.packets(S)
    p1, n1, c1 = P[0]
    p2, n2, c2 = P[1]
    EV = T.decode(S, 0)
    e0, e1 = EV[0], EV[1]
    size = len(T.data[S])
    other = [n for n in T.files if n != S and T.packets(n)]
    # a stream file of another stream class, if any
    sid = lambda n: struct.unpack_from("<I", T.data[n], 20)[0]
    oclass = [n for n in other if sid(n) != sid(S)]
    sclass = [n for n in other if sid(n) == sid(S)]
    uuid = T.data[S][4:20]

    # -- stream files cut
    for at, what in [(1, "inside the magic"), (20, "inside the uuid"),
                     (32, "at the end of the packet header"),
                     (40, "inside the packet context"),
                     (HDR, "at the end of the packet context"),
                     (HDR + 1, "inside the first event header"),
                     (e0[1], "at the end of the first event"),
                     (e0[1] + 5, "inside the second event"),
                     ((e0[3][-1] if e0[3] else e0[1]) + 1, "inside the first event's last field"),
                     (c1 - 1, "one byte before the first packet's content ends"),
                     (p2, "at the second packet"),
                     (p2 + 50, "inside the second packet's context"),
                     (size - 1, "one byte short")]:
        add("cut %s at %d %s" % (S, at, what), lambda d, at=at: cut(d, S, at))
    add("every stream file empty", lambda d: [cut(d, n, 0) for n in T.files])
    add("stream file of 84 zero bytes", lambda d: wr(d, S, bytes(HDR)))
    add("stream file of one packet header and nothing else",
        lambda d: wr(d, S, T.data[S][:HDR]))

    # -- packets moved around
    add("two packets swapped", lambda d: wr(
        d, S, T.data[S][p2:p2 + n2] + T.data[S][p1:p1 + n1] + T.data[S][p2 + n2:]))
    add("first packet duplicated", lambda d: wr(
        d, S, T.data[S][p1:p1 + n1] + T.data[S]))
    add("last packet duplicated", lambda d: wr(
        d, S, T.data[S] + T.data[S][P[-1][0]:P[-1][0] + P[-1][1]]))
    add("first packet dropped (sequence gap)", lambda d: wr(d, S, T.data[S][p2:]))
    if len(P) >= 3:
        add("middle packet dropped", lambda d: wr(
            d, S, T.data[S][:p2] + T.data[S][p2 + n2:]))
    if sclass:
        o = sclass[0]
        add("packet of another stream appended", lambda d: wr(
            d, S, T.data[S] + T.data[o][:T.packets(o)[0][1]]))
        add("two stream files with the same stream instance id",
            lambda d: put(d, o, 24, "<Q", struct.unpack_from("<Q", T.data[S], 24)[0]))
        add("stream file copied under another name",
            lambda d: wr(d, S + "_copy", T.data[S]))
    if oclass:
        o = oclass[0]
        add("packet of another stream class appended", lambda d: wr(
            d, S, T.data[S] + T.data[o][:T.packets(o)[0][1]]))
    add("second packet's stream instance id changed",
        lambda d: put(d, S, p2 + 24, "<Q", 12345))

    # -- packet and content sizes
    for v, what in [(size * 8 + 8, "one byte past the end of the file"),
                    (size * 8 * 2, "twice the file"), (2 ** 64 - 8, "2^64 - 8"),
                    (2 ** 63, "2^63"), (c1 * 8 - 8, "smaller than content_size"),
                    (HDR * 8 - 8, "smaller than the headers"), (0, "0"),
                    (n1 * 8 + 4, "not a whole number of bytes"),
                    ((n1 + 8) * 8, "8 bytes more (next packet misplaced)"),
                    ((n1 - 8) * 8, "8 bytes less")]:
        add("packet_size %s" % what, lambda d, v=v: put(d, S, 56, "<Q", v),
            skip_bt=(BT_CRASHES, 3) if v >= 2 ** 63 else None)
    for v, what in [(n1 * 8 + 8, "larger than packet_size"), (0, "0"),
                    (HDR * 8 - 8, "smaller than the headers"),
                    (c1 * 8 - 4, "not a whole number of bytes"),
                    (c1 * 8 - 8, "one byte less (cuts the last event)"),
                    (HDR * 8, "the headers alone"), (2 ** 64 - 8, "2^64 - 8")]:
        add("content_size %s" % what, lambda d, v=v: put(d, S, 48, "<Q", v),
            skip_bt=(BT_CRASHES, 3) if v >= 2 ** 63 else None)
    add("content_size and packet_size both past the end of the file",
        lambda d: put(d, S, 48, "<QQ", (size + 64) * 8, (size + 64) * 8))
    add("second packet's sizes past the end of the file",
        lambda d: put(d, S, p2 + 48, "<QQ", (size - p2 + 8) * 8, (size - p2 + 8) * 8))

    # -- packet header fields
    add("bad magic", lambda d: put(d, S, 0, "<I", 0xC1FC1FC0))
    add("bad magic of the second packet", lambda d: put(d, S, p2, "<I", 0))
    add("wrong uuid", lambda d: put(d, S, 4, "<B", uuid[0] ^ 1))
    add("wrong uuid in the second packet", lambda d: put(d, S, p2 + 19, "<B", uuid[15] ^ 0x80))
    add("unknown stream id", lambda d: put(d, S, 20, "<I", 77))
    add("stream id 2^32 - 1", lambda d: put(d, S, 20, "<I", 2 ** 32 - 1))
    if oclass:
        add("stream id of another declared stream class",
            lambda d: put(d, S, 20, "<I", sid(oclass[0])))
        add("second packet of another declared stream class",
            lambda d: put(d, S, p2 + 20, "<I", sid(oclass[0])))
    add("timestamp_begin after timestamp_end", lambda d: put(
        d, S, 32, "<Q", struct.unpack_from("<Q", T.data[S], 40)[0] + 1))
    add("timestamp_end before the first event", lambda d: put(
        d, S, 40, "<Q", struct.unpack_from("<Q", T.data[S], 32)[0]))
    add("timestamp_begin 2^64 - 1", lambda d: put(d, S, 32, "<QQ", 2 ** 64 - 1, 2 ** 64 - 1),
        skip_bt=(BT_CRASHES, 3))
    add("timestamp_begin 0", lambda d: put(d, S, 32, "<Q", 0))
    add("packet_seq_num repeated", lambda d: put(
        d, S, p2 + 64, "<Q", struct.unpack_from("<Q", T.data[S], 64)[0]))
    add("packet_seq_num 2^64 - 1", lambda d: put(d, S, 64, "<Q", 2 ** 64 - 1))
    add("events_discarded decreasing", lambda d: put(d, S, 72, "<Q", 1000000))
    # from the second packet on (a running total never decreases; how many
    # packets the stream has depends on when the consumer flushed)
    add("events_discarded 2^64 - 1", lambda d: [put(d, S, po + 72, "<Q", 2 ** 64 - 1)
                                                 for po, _, _ in P[1:]],
        skip_bt=(BT_CRASHES, 0))
    add("tid 0", lambda d: put(d, S, 80, "<I", 0))

    # -- events
    add("unknown compact event id", lambda d: put(d, S, e1[0], "<B", 200))
    add("unknown extended event id", lambda d: put(d, S, e1[0], "<BIQ", 255, 100000,
                                                    struct.unpack_from("<Q", T.data[S], 40)[0]))
    add("extended event id 2^32 - 1", lambda d: put(d, S, e1[0], "<BI", 255, 2 ** 32 - 1))
    add("extended event timestamp going back", lambda d: put(
        d, S, e1[0], "<BIQ", 255, e1[2], 0))
    add("extended event timestamp after timestamp_end", lambda d: put(
        d, S, e1[0], "<BIQ", 255, e1[2], 2 ** 64 - 1))
    add("string without its NUL", lambda d: put(
        d, S, c1 - 1, "<B", ord("x")))
    add("every byte of the first packet's events 0xff", lambda d: wr(
        d, S, T.data[S][:HDR] + b"\xff" * (c1 - HDR) + T.data[S][c1:]))
    add("every byte of the first packet's events 0", lambda d: wr(
        d, S, T.data[S][:HDR] + b"\0" * (c1 - HDR) + T.data[S][c1:]))
    # a sequence length of every event with one
    for n in T.files:
        done = False
        for po, _, _ in T.packets(n):
            for start, end, eid, offs in T.decode(n, po):
                fl = T.events[(struct.unpack_from("<I", T.data[n], po + 20)[0], eid)][1]
                for i, f in enumerate(fl):
                    if f[0] == "seq" and not done:
                        lo = offs[f[3]]
                        for v in (2 ** 32 - 1, 2 ** 31, 1000000):
                            add("sequence %s length %d in %s" % (f[1], v, n),
                                lambda d, n=n, lo=lo, v=v: put(d, n, lo, "<I", v),
                                skip_bt=(BT_CRASHES, 3) if f[1] == "_build_id" else None)
                        done = True

    # -- metadata edits
    M = T.meta
    add("metadata: last closing brace removed", meta_text(lambda t: t[:t.rindex("}")] + t[t.rindex("}") + 1:]))
    add("metadata: first closing brace removed", meta_sub(r"\}", ""))
    # C's other white space: not a blank to babeltrace2
    add("metadata: a newline made a vertical tab", meta_sub(r"\n", "\v"))
    add("metadata: a newline made a form feed", meta_sub(r";\n", ";\f"))
    add("metadata: carriage returns before newlines", meta_sub(r"\n", "\r\n", count=0))
    add("metadata: first opening brace removed", meta_sub(r"\{", ""))
    add("metadata: a semicolon removed", meta_sub(r"uint32_t stream_id;", "uint32_t stream_id"))
    add("metadata: unknown type of a field", meta_sub(r"uint32_t _thread;", "uint33_t _thread;"))
    add("metadata: unknown type in packet.context", meta_sub(r"uint32_t tid;", "pid_t tid;"))
    add("metadata: unknown top-level block", meta_text(lambda t: t + "\ncallsite {\n\tname = \"x\";\n};\n"))
    add("metadata: unknown attribute in the trace block", meta_sub(r"minor = 8;", "minor = 8;\n\tcolour = 3;"))
    add("metadata: unknown attribute in an integer", meta_sub(r"size = 8; align = 8;", "size = 8; colour = 8; align = 8;"))
    for v in ("0", "128", "-8", "65", "18446744073709551615", "18446744073709551616", "4294967304"):
        add("metadata: integer size %s" % v, meta_sub(r"size = 64; align = 8; signed = false; \} := uint64_t",
                                                       "size = %s; align = 8; signed = false; } := uint64_t" % v))
    add("metadata: uint32_t of size 8", meta_sub(r"size = 32; align = 8; signed = false; \} := uint32_t",
                                                  "size = 8; align = 8; signed = false; } := uint32_t"))
    add("metadata: timestamp of size 16", meta_sub(r"size = 24; align = 1;", "size = 16; align = 1;"))
    for v in ("0", "3", "6", "128", "-1", "16", "64"):
        add("metadata: alignment %s of uint32_t" % v,
            meta_sub(r"size = 32; align = 8; signed = false; \} := uint32_t",
                     "size = 32; align = %s; signed = false; } := uint32_t" % v),
            skip_bt=(BT_HANGS, 3) if v == "16" else None)
    for v in ("0", "3", "16", "64"):
        add("metadata: event.header align(%s)" % v, meta_sub(r"\} align\(8\);", "} align(%s);" % v),
            skip_bt=(BT_HANGS, 3) if v == "64" else None)
    add("metadata: event fields struct align(64)",
        meta_sub(r"(name = \"shmtrace_test:event\";.*?fields := struct \{.*?\})", r"\1 align(64)", flags=re.S))
    add("metadata: compact timestamp aligned on 16 bits", meta_sub(r"size = 24; align = 1;", "size = 24; align = 16;"))
    add("metadata: byte order be", meta_sub(r"byte_order = le;", "byte_order = be;"))
    add("metadata: byte order nonsense", meta_sub(r"byte_order = le;", "byte_order = middle;"))
    add("metadata: signed packet_size", meta_sub(r"uint64_t packet_size;", "int64_t packet_size;"))
    add("metadata: enum with no mapping", meta_sub(r"\{ compact = 0 \.\.\. 254, extended = 255 \}", "{ }"))
    add("metadata: enum without extended", meta_sub(r", extended = 255 \}", " }"))
    add("metadata: enum compact = 0 ... 200", meta_sub(r"compact = 0 \.\.\. 254", "compact = 0 ... 200"))
    add("metadata: enum mappings swapped", meta_sub(r"compact = 0 \.\.\. 254, extended = 255",
                                                    "compact = 255, extended = 0 ... 254"))
    add("metadata: enum range reversed", meta_sub(r"compact = 0 \.\.\. 254", "compact = 254 ... 0"))
    add("metadata: enum value out of the container's range",
        meta_sub(r"extended = 255", "extended = 256"))
    add("metadata: enum label renamed", meta_sub(r"extended = 255", "extendet = 255"))
    add("metadata: variant tag unknown", meta_sub(r"variant <id>", "variant <idx>"))
    add("metadata: variant option unknown", meta_sub(r"\} compact;", "} compakt;"))
    add("metadata: variant tag a struct", meta_sub(r"variant <id>", "variant <v>"))
    add("metadata: typealias to itself", meta_text(
        lambda t: t.replace("\ntrace {", "\ntypealias loop_t := loop_t;\ntrace {", 1)))
    add("metadata: typealias loop through two names", meta_text(
        lambda t: t.replace("\ntrace {", "\ntypealias a_t := b_t;\ntypealias b_t := a_t;\ntrace {", 1)))
    add("metadata: typealias redefining uint32_t as a string", meta_text(
        lambda t: t.replace("\ntrace {", "\ntypealias string := uint32_t;\ntrace {", 1)))
    add("metadata: typealias of a type name already declared", meta_text(
        lambda t: t.replace("\ntrace {", "\ntypealias uint8_t := uint16_t;\ntrace {", 1)))

    def chain(n):
        def f(t):
            lines = ["typealias uint32_t := chain_0;"]
            lines += ["typealias chain_%d := chain_%d;" % (i, i + 1) for i in range(n)]
            t = t.replace("\ntrace {", "\n" + "\n".join(lines) + "\ntrace {", 1)
            return t.replace("uint32_t _thread;", "chain_%d _thread;" % n)
        return meta_text(f)
    add("metadata: typedef chain of 2000", chain(2000))
    add("metadata: nested structs 200 deep", meta_sub(
        r"uint32_t _thread;", "struct { " * 200 + "uint32_t x; " + "} y; " * 200 + "uint32_t _thread;"))
    add("metadata: nested structs 30 deep in a typealias", meta_text(
        lambda t: t.replace("\ntrace {", "\ntypealias " + "struct { " * 30 + "uint8_t x; " +
                            "} y; " * 29 + "} := deep_t;\ntrace {", 1)))
    add("metadata: struct field in an event", meta_sub(
        r"uint32_t _thread;", "struct { uint32_t a; } _thread;"))
    add("metadata: enum field in an event", meta_sub(
        r"uint32_t _thread;", "enum : uint32_t { zero = 0, one = 1 } _thread;"))
    for v in ("4294967296", "4294967295", "1048577", "100000000"):
        add("metadata: array of %s bytes in an event" % v, meta_sub(
            r"uint32_t _thread;", "uint32_t _thread; uint8_t _big[%s];" % v),
            skip_bt=(BT_HANGS, 3) if v == "100000000" else
            (BT_CRASHES, 3) if v.startswith("42949672") else None)
    add("metadata: packet header uuid[17]", meta_sub(r"uuid\[16\]", "uuid[17]"))
    add("metadata: packet header uuid[4294967296]", meta_sub(r"uuid\[16\]", "uuid[4294967296]"))
    add("metadata: sequence of an unknown length field", meta_sub(r"_bytes\[_bytes_length\]", "_bytes[_nope]"))
    add("metadata: sequence length after the sequence", meta_sub(
        r"uint32_t _bytes_length;\s*uint8_t _bytes\[_bytes_length\];",
        "uint8_t _bytes[_bytes_length]; uint32_t _bytes_length;"))
    add("metadata: sequence of a string length", meta_sub(
        r"uint32_t _bytes_length;", "string _bytes_length;"))
    add("metadata: sequence of a signed length", meta_sub(
        r"uint32_t _bytes_length;", "int32_t _bytes_length;"))
    add("metadata: sequence of strings", meta_sub(
        r"uint8_t _bytes\[_bytes_length\]", "string _bytes[_bytes_length]"))
    add("metadata: duplicate field names in an event", meta_sub(r"uint32_t _thread;", "uint64_t _seq;"),
        skip_bt=(BT_CRASHES, 3))
    add("metadata: duplicate field names in packet.context", meta_sub(
        r"uint64_t events_discarded;", "uint64_t packet_seq_num;"))
    add("metadata: duplicate field names in event.context", meta_sub(
        r"uint32_t _cpu_id;", "uint32_t _ip;"), skip_bt=(BT_CRASHES, 3))
    add("metadata: duplicate option names in the variant", meta_sub(r"\} extended;", "} compact;"))
    add("metadata: duplicate event id", meta_sub(r"id = 1;\n\tstream_id = 0;", "id = 0;\n\tstream_id = 0;"))
    add("metadata: duplicate event name", meta_sub(r"shmtrace_proc:exit", "shmtrace_proc:fork"))
    add("metadata: duplicate attribute in an event", meta_sub(r"(name = \"shmtrace_test:event\";)",
                                                               r'\1 name = "x:y";'))
    add("metadata: duplicate stream id", meta_sub(r"stream \{\n\tid = \d+;", "stream {\n\tid = 0;", count=0))
    add("metadata: duplicate trace block", meta_text(lambda t: t + re.search(r"\ntrace \{.*?\n\};", t, re.S).group(0)))
    add("metadata: duplicate clock block", meta_text(lambda t: t + re.search(r"\nclock \{.*?\n\};", t, re.S).group(0)))
    add("metadata: duplicate env key", meta_sub(r"domain = \"ust\";", 'domain = "ust";\n\tdomain = "kernel";'))
    add("metadata: event of an unknown stream", meta_sub(r"stream_id = 0;", "stream_id = 9;"))
    add("metadata: event without stream_id", meta_sub(r"\n\tstream_id = \d+;", ""))
    add("metadata: event without id", meta_sub(r"\n\tid = \d+;\n\tstream_id", "\n\tstream_id"))
    add("metadata: event id 2^32", meta_sub(r"\n\tid = 1;\n", "\n\tid = 4294967296;\n"))
    add("metadata: event id 4000000000", meta_sub(r"\n\tid = 1;\n", "\n\tid = 4000000000;\n"))
    add("metadata: clock map names no clock", meta_sub(r"map = clock\.\w+\.value", "map = clock.nope.value"))
    add("metadata: clock map of every timestamp names no clock",
        meta_sub(r"map = clock\.\w+\.value", "map = clock.nope.value", count=0))
    add("metadata: clock map to nothing", meta_sub(r"map = clock\.\w+\.value", "map = value"))
    add("metadata: clock freq 0", meta_sub(r"freq = \d+;", "freq = 0;"))
    add("metadata: clock freq 1", meta_sub(r"freq = \d+;", "freq = 1;"))
    add("metadata: clock freq 2^64 - 1", meta_sub(r"freq = \d+;", "freq = 18446744073709551615;"))
    add("metadata: clock offset_s -2^63", meta_sub(r"offset_s = \d+;", "offset_s = -9223372036854775808;"))
    add("metadata: clock offset 2^63 - 1", meta_sub(r"offset = \d+;", "offset = 9223372036854775807;"))
    add("metadata: clock name removed", meta_sub(r"\n\tname = \"\w+\";\n\tuuid", "\n\tuuid"))
    add("metadata: clock block removed", meta_sub(r"\nclock \{.*?\n\};", "", flags=re.S))
    add("metadata: trace block removed", meta_sub(r"\ntrace \{.*?\n\};", "", flags=re.S))
    add("metadata: every stream block removed", meta_sub(r"\nstream \{.*?\n\};", "", count=0, flags=re.S))
    add("metadata: packet.header removed", meta_sub(r"packet\.header := struct \{.*?\};", "", flags=re.S))
    add("metadata: packet.header without uuid", meta_sub(r"uint8_t uuid\[16\];", ""))
    add("metadata: packet.header fields swapped", meta_sub(
        r"uint32_t stream_id;\s*uint64_t stream_instance_id;", "uint64_t stream_instance_id; uint32_t stream_id;"))
    add("metadata: trace uuid changed", meta_sub(r"(\n\tuuid = \")(.)", lambda m: m.group(1) + ("0" if m.group(2) != "0" else "1")))
    add("metadata: trace uuid malformed", meta_sub(r"(\n\tuuid = \")(.)", r"\1g"))
    add("metadata: trace uuid removed", meta_sub(r"\n\tuuid = \"[^\"]*\";\n\tbyte_order", "\n\tbyte_order"))
    add("metadata: CTF 2.0", meta_sub(r"major = 1;", "major = 2;"))
    add("metadata: CTF 1.9", meta_sub(r"minor = 8;", "minor = 9;"))
    add("metadata: signature only", lambda d: wr(d, "metadata", b"/* CTF 1.8 */\n"))
    add("metadata: unterminated comment", meta_text(lambda t: t + "\n/* no end"))
    add("metadata: unterminated string", meta_sub(r"procname = \"[^\"]*\";", 'procname = "gen;'))
    add("metadata: string with an escaped quote", meta_sub(r"procname = \"[^\"]*\";", r'procname = "a\\"b";'))
    add("metadata: NUL escape in a string", meta_sub(r"procname = \"[^\"]*\";", r'procname = "a\\0b";'))
    add("metadata: integer literal 2^64", meta_sub(r"vpid = \d+;", "vpid = 18446744073709551616;"))
    add("metadata: env value -2^63", meta_sub(r"vpid = \d+;", "vpid = -9223372036854775808;"))
    add("metadata: env value -2^63 - 1", meta_sub(r"vpid = \d+;", "vpid = -9223372036854775809;"))
    add("metadata: non-ASCII byte", meta_sub(r"domain", "dom\xe9in"))
    add("metadata: loglevel 2^63", meta_sub(r"loglevel = \d+;", "loglevel = 9223372036854775808;"))
    for frac in (0.1, 0.5, 0.9, 0.99):
        at = int(len(M) * frac)
        add("metadata: truncated at %d of %d bytes" % (at, len(M)),
            lambda d, at=at: cut(d, "metadata", at))
    add("metadata: truncated before the last event block", lambda d: cut(d, "metadata", M.rindex("\nevent {")))
    add("metadata: empty", lambda d: cut(d, "metadata", 0))

    # -- big metadata: a parser quadratic in the number of names takes
    # minutes on these; trace-read must read them (babeltrace2 2.0 itself
    # is too slow on most: not run)
    def new_event(eid, body):
        return "event {\n\tname = \"big:%d\";\n\tid = %d;\n\tstream_id = 0;\n" \
            "\tfields := struct { %s };\n};\n" % (eid, eid, body)
    n = 100000
    add("metadata: %d typealiases, the first one used 20000 times" % n, meta_text(
        lambda t: t.replace("\ntrace {", "\n" + "".join("typealias uint8_t := big_%d;\n" % i
                                                        for i in range(n)) + "trace {", 1) +
        new_event(5000, "".join("uint8_t _f%d; " % i for i in range(20000)))),
        skip_bt=(BT_SLOW, 0))
    add("metadata: env block of %d keys" % n, meta_sub(
        r"domain = \"ust\";", "domain = \"ust\";\n" + "".join("\tk%d = %d;\n" % (i, i) for i in range(n))),
        skip_bt=(BT_SLOW, 0))
    add("metadata: 10000 events", meta_text(
        lambda t: t + "".join(new_event(1000 + i, "uint32_t _a;") for i in range(10000))))
    add("metadata: event of 60000 fields", meta_text(
        lambda t: t + new_event(5000, "".join("uint8_t _f%d; " % i for i in range(60000)))),
        skip_bt=(BT_SLOW, 0))
    add("metadata: event of 70000 fields", meta_text(
        lambda t: t + new_event(5000, "".join("uint8_t _f%d; " % i for i in range(70000)))),
        skip_bt=(BT_SLOW, 3))
    add("metadata: event of 30000 sequences of one length", meta_text(
        lambda t: t + new_event(5000, "uint32_t _n; " + "".join("uint8_t _s%d[_n]; " % i for i in range(30000)))),
        skip_bt=(BT_SLOW, 0))
    add("metadata: event of 60000 empty arrays, 300 empty stream files", seq(
        meta_text(lambda t: t + new_event(5000, "".join("uint8_t _a%d[0]; " % i for i in range(60000)))),
        lambda d: [wr(d, "empty_%d" % i, b"") for i in range(300)]),
        skip_bt=(BT_SLOW, 0))

    # -- packetized metadata (the form LTTng writes)
    def pk(damage=None, size=4096, text=None):
        return lambda d: wr(d, "metadata", packetize(text(M) if text else M, uuid, size, damage))
    add("metadata packetized", pk())
    add("metadata packetized: bad magic of the second packet",
        pk(lambda i, h: struct.pack_into("<I", h, 0, 0x75D11D56) if i == 1 else None))
    add("metadata packetized: wrong uuid",
        pk(lambda i, h: struct.pack_into("<B", h, 4, h[4] ^ 1) if i == 0 else None))
    add("metadata packetized: content_size larger than packet_size",
        pk(lambda i, h: struct.pack_into("<I", h, 24, 4097 * 8) if i == 0 else None))
    add("metadata packetized: content_size smaller than the header",
        pk(lambda i, h: struct.pack_into("<I", h, 24, 8) if i == 0 else None))
    add("metadata packetized: content_size 0",
        pk(lambda i, h: struct.pack_into("<I", h, 24, 0) if i == 0 else None))
    add("metadata packetized: packet_size past the end",
        pk(lambda i, h: struct.pack_into("<I", h, 28, 2 ** 32 - 8) if i == 0 else None))
    add("metadata packetized: packet_size 0",
        pk(lambda i, h: struct.pack_into("<I", h, 28, 0) if i == 0 else None))
    add("metadata packetized: compressed",
        pk(lambda i, h: struct.pack_into("<B", h, 32, 1) if i == 0 else None))
    add("metadata packetized: encrypted",
        pk(lambda i, h: struct.pack_into("<B", h, 33, 1) if i == 0 else None))
    add("metadata packetized: checksummed",
        pk(lambda i, h: struct.pack_into("<B", h, 34, 1) if i == 0 else None))
    add("metadata packetized: version 2.0",
        pk(lambda i, h: struct.pack_into("<BB", h, 35, 2, 0) if i == 0 else None))
    add("metadata packetized: cut inside a packet header", lambda d: wr(
        d, "metadata", packetize(M, uuid)[:4096 + 20]))
    add("metadata packetized: cut inside a packet", lambda d: wr(
        d, "metadata", packetize(M, uuid)[:4096 + 1000]), skip_bt=(BT_HANGS, 3))
    add("metadata packetized: text cut in the middle", pk(text=lambda t: t[:len(t) // 2]))
    add("metadata packetized: NUL in the text", pk(text=lambda t: t.replace("domain", "dom\0in")))

    # -- LZ4 stream files
    if L:
        Z = [n for n in L.files if L.data[n][:4] == b"\x04\x22\x4d\x18"]
        if Z:
            z = Z[0]
            zs = len(L.data[z])
            for at in (2, 4, 6, 11, zs // 2, zs - 4, zs - 1):
                add("lz4: %s cut at %d of %d" % (z, at, zs), lambda d, at=at: cut(d, z, at), "lz4")
            for at in (4, 5, 6, 14, 15, 20, zs // 2, zs - 2):
                add("lz4: %s byte %d flipped" % (z, at),
                    lambda d, at=at: put(d, z, at, "<B", L.data[z][at] ^ 0x5a), "lz4")
            add("lz4: frame doubled", lambda d: wr(d, z, L.data[z] * 2), "lz4")
            add("lz4: garbage after the frame", lambda d: wr(d, z, L.data[z] + b"garbage"), "lz4")
            add("lz4: empty frame", lambda d: wr(d, z, b"\x04\x22\x4d\x18\x60\x40\x82\0\0\0\0"), "lz4")
            add("lz4: block size 4 MiB, block claiming 4 MiB", lambda d: wr(
                d, z, b"\x04\x22\x4d\x18\x60\x70\x73" + struct.pack("<I", 4 << 20) + b"x" * 100), "lz4")
    return cases


# ---- random cases ----------------------------------------------------------

INTERESTING = [0, 1, 0x7f, 0x80, 0xff]
NUMBERS = ["0", "1", "-1", "3", "7", "9", "255", "256", "65536", "4294967295", "4294967296",
           "9223372036854775807", "9223372036854775808", "18446744073709551615",
           "18446744073709551616", "0x7fffffff", "-9223372036854775808", "99999999999999999999"]


def random_cases(T, L, n, seed):
    rng = random.Random(seed)
    cases = []
    plain = [f for f in T.files if T.data[f]]
    zfiles = [f for f in L.files if L.data[f][:4] == b"\x04\x22\x4d\x18"] if L else []
    meta_lines = T.meta.split("\n")
    for i in range(n):
        r = rng.random()
        if r < 0.70:
            f = rng.choice(plain)
            data = T.data[f]
            pk = T.packets(f)
            kind = rng.choice(["flip", "flip", "byte", "byte", "header", "header", "cut", "multi"])
            ops = []
            if kind == "flip":
                for _ in range(rng.randint(1, 4)):
                    o = rng.randrange(len(data))
                    ops.append(("flip", o, 1 << rng.randrange(8)))
            elif kind == "byte":
                for _ in range(rng.randint(1, 4)):
                    o = rng.randrange(len(data))
                    ops.append(("set", o, rng.choice(INTERESTING + [rng.randrange(256)])))
            elif kind == "header":
                # a byte of a packet header or context
                po = rng.choice(pk)[0]
                for _ in range(rng.randint(1, 2)):
                    o = po + rng.randrange(HDR)
                    ops.append(("set", o, rng.choice(INTERESTING + [rng.randrange(256)])))
            elif kind == "cut":
                ops.append(("cut", rng.randrange(len(data)), 0))
            else:
                for _ in range(rng.randint(5, 20)):
                    ops.append(("flip", rng.randrange(len(data)), 1 << rng.randrange(8)))

            def fn(d, f=f, ops=ops):
                b = rd(d, f)
                for op, o, v in ops:
                    if op == "flip":
                        b[o] ^= v
                    elif op == "set":
                        b[o] = v
                    else:
                        del b[o:]
                wr(d, f, b)
            desc = ", ".join("%s %d%s" % (op, o, "" if op == "cut" else "=%#x" % v) for op, o, v in ops)
            cases.append(Case("random %d: %s: %s" % (i, f, desc), "plain", fn))
        elif r < 0.95:
            kind = rng.choice(["flip", "flip", "delete", "repeat", "swap", "number", "number", "cut"])
            lines = list(meta_lines)
            text = T.meta
            if kind == "flip":
                ops = [(rng.randrange(len(text)), 1 << rng.randrange(7)) for _ in range(rng.randint(1, 3))]
                b = bytearray(text.encode("latin-1"))
                for o, v in ops:
                    b[o] ^= v
                new = b.decode("latin-1")
                desc = "metadata bits flipped: " + ", ".join("%d^%#x" % x for x in ops)
            elif kind == "delete":
                k = rng.randrange(len(lines))
                desc = "metadata line %d deleted: %r" % (k + 1, lines[k])
                del lines[k]
                new = "\n".join(lines)
            elif kind == "repeat":
                k = rng.randrange(len(lines))
                desc = "metadata line %d repeated: %r" % (k + 1, lines[k])
                lines.insert(k, lines[k])
                new = "\n".join(lines)
            elif kind == "swap":
                a, b2 = rng.randrange(len(lines)), rng.randrange(len(lines))
                desc = "metadata lines %d and %d swapped" % (a + 1, b2 + 1)
                lines[a], lines[b2] = lines[b2], lines[a]
                new = "\n".join(lines)
            elif kind == "number":
                nums = list(re.finditer(r"\b\d+\b", text))
                m = rng.choice(nums)
                v = rng.choice(NUMBERS)
                desc = "metadata number %s at line %d replaced by %s" % (
                    m.group(0), text.count("\n", 0, m.start()) + 1, v)
                new = text[:m.start()] + v + text[m.end():]
            else:
                k = rng.randrange(len(text))
                desc = "metadata cut at %d" % k
                new = text[:k]
            cases.append(Case("random %d: %s" % (i, desc), "plain",
                              lambda d, new=new: wr(d, "metadata", new.encode("latin-1"))))
        elif zfiles:
            f = rng.choice(zfiles)
            data = L.data[f]
            if rng.random() < 0.6:
                ops = [(rng.randrange(len(data)), 1 << rng.randrange(8)) for _ in range(rng.randint(1, 3))]

                def fn(d, f=f, ops=ops):
                    b = rd(d, f)
                    for o, v in ops:
                        b[o] ^= v
                    wr(d, f, b)
                desc = "bits flipped: " + ", ".join("%d^%#x" % x for x in ops)
            else:
                k = rng.randrange(len(data))
                fn = lambda d, f=f, k=k: cut(d, f, k)
                desc = "cut at %d" % k
            cases.append(Case("random %d: lz4 %s: %s" % (i, f, desc), "lz4", fn))
        else:
            cases.append(Case("random %d: no change" % i, "plain", lambda d: None))
    return cases


# ---- running ---------------------------------------------------------------

def limit_memory():
    if TR_MEMORY:
        resource.setrlimit(resource.RLIMIT_AS, (TR_MEMORY, TR_MEMORY))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(cmd, timeout, limit=False):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, preexec_fn=limit_memory if limit else None)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        return "timeout", e.stdout or b"", e.stderr or b"", time.monotonic() - t0


def lines(b):
    return b.count(b"\n")


def stricter_reason(err):
    for pat, why in STRICTER.items():
        if re.search(pat, err):
            return why
    return None


def check(case, d, args):
    """Run both readers on d: (verdict, details), verdict in ok / noted / unknown / FAIL."""
    trst, trout, trerr, trt = run([args.trace_read, d], TR_TIMEOUT, limit=True)
    trerr_s = trerr.decode("utf-8", "replace")
    trmsg = next((l for l in trerr_s.splitlines() if l.startswith("trace-read: ")), "")
    # babeltrace2 reads LZ4 stream files inflated by lz4 -d
    btdir, btst, bterr = d, None, b""
    if case.base == "lz4":
        btdir = d + ".inflated"
        os.mkdir(btdir)
        for n in os.listdir(d):
            src, dst = os.path.join(d, n), os.path.join(btdir, n)
            with open(src, "rb") as f:
                head = f.read(4)
            if n != "metadata" and head == b"\x04\x22\x4d\x18":
                p = subprocess.run(["lz4", "-d", "-q", "-c", src], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=BT_TIMEOUT)
                if p.returncode:
                    btst, bterr = "lz4 -d: %d" % p.returncode, p.stderr
                    break
                with open(dst, "wb") as f:
                    f.write(p.stdout)
            else:
                shutil.copy(src, dst)
    btout, btt = b"", 0
    if case.skip_bt:
        btst = "skipped"
    elif btst is None:
        btst, btout, bterr, btt = run([args.babeltrace2, btdir], BT_TIMEOUT)
    bt_ok = btst == 0
    info = {"tr": trst, "trmsg": trmsg, "bt": btst, "time": trt, "bttime": btt,
            "trerr": trerr_s, "bterr": bterr.decode("utf-8", "replace")}
    if trst == "timeout":
        return "FAIL", "trace-read still running after %d s" % TR_TIMEOUT, info
    if isinstance(trst, int) and trst < 0:
        return "FAIL", "trace-read killed by signal %d" % -trst, info
    if "out of memory" in trerr_s:
        return "FAIL", "trace-read ran out of memory (%d MiB)" % (TR_MEMORY >> 20), info
    if "Sanitizer" in trerr_s or "runtime error:" in trerr_s:
        return "FAIL", "trace-read: %s" % next(l for l in trerr_s.splitlines()
                                               if "Sanitizer" in l or "runtime error:" in l), info
    if trst not in (0, 3):
        return "FAIL", "trace-read exited with %s" % trst, info
    if trst == 3 and not trmsg:
        return "FAIL", "trace-read exited with 3 and said nothing", info
    if case.skip_bt:
        why, want = case.skip_bt
        if trst != want:
            return "FAIL", "trace-read exited with %s, expected %s" % (trst, want), info
        return "noted", "%s on this input, not run; trace-read exits with %s%s" % (
            why, trst, (": " + trmsg[12:]) if trmsg else ""), info
    if btst == "timeout":
        return "unknown", "babeltrace2 still running after %d s; trace-read %s" % (BT_TIMEOUT, trst), info
    if isinstance(btst, int) and btst < 0:
        return "unknown", "babeltrace2 killed by signal %d; trace-read %s" % (-btst, trst), info
    if not bt_ok and trst == 0:
        return "FAIL", "babeltrace2 rejects (%s: %s), trace-read reads it" % (
            btst, last_error(info["bterr"])), info
    if bt_ok and trst == 3:
        why = stricter_reason(trmsg)
        if why:
            return "noted", "babeltrace2 reads it, trace-read: %s (%s)" % (trmsg[12:], why), info
        return "FAIL", "babeltrace2 reads it, trace-read rejects it: %s" % trmsg[12:], info
    if bt_ok and trst == 0 and lines(trout) != lines(btout):
        return "FAIL", "both read it: trace-read %d events, babeltrace2 %d" % (
            lines(trout), lines(btout)), info
    return "ok", "both %s" % ("read it" if bt_ok else "reject it"), info


def last_error(err):
    """The most telling line of babeltrace2's error output."""
    found = ""
    for l in err.splitlines():
        l = l.strip()
        m = re.search(r"(?:ERROR|WARNING|CAUSED BY)[^:]*:\s*(.*)", l)
        if m:
            found = m.group(1)
        elif l.startswith("CAUSED BY"):
            found = l
    found = re.sub(r"\s+", " ", found or (err.strip().splitlines() or ["?"])[-1])
    return found[:200]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("trace_read")
    ap.add_argument("babeltrace2")
    ap.add_argument("plain")
    ap.add_argument("lz4", nargs="?", default="-")
    ap.add_argument("--random", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default=None)
    ap.add_argument("--keep", action="store_true", help="keep every case")
    ap.add_argument("--no-memory-limit", action="store_true",
                    help="for a trace-read built with AddressSanitizer")
    args = ap.parse_args()
    global TR_MEMORY, TR_TIMEOUT
    if args.no_memory_limit:
        TR_MEMORY = 0
        TR_TIMEOUT *= 6
    T = Trace(args.plain)
    L = Trace(args.lz4) if args.lz4 != "-" else None
    cases = directed(T, L) + random_cases(T, L, args.random, args.seed)
    if args.only:
        cases = [c for c in cases if args.only in c.name]
    cases_dir = os.path.join(args.work, "cases")
    failed_dir = os.path.join(args.work, "failed")
    os.makedirs(cases_dir, exist_ok=True)
    base_dir = {"plain": args.plain, "lz4": args.lz4}

    def one(k):
        c = cases[k]
        d = os.path.join(cases_dir, "%03d" % k)
        shutil.copytree(base_dir[c.base], d)
        try:
            c.mutate(d)
        except Exception as e:      # a mutation that does not apply is a bug of this file
            return k, "FAIL", "mutation failed: %s" % e, {}
        verdict, why, info = check(c, d, args)
        if verdict == "FAIL":
            keep = os.path.join(failed_dir, "%03d" % k)
            os.makedirs(failed_dir, exist_ok=True)
            shutil.move(d, keep)
            with open(keep + ".txt", "w") as f:
                f.write("case: %s\nverdict: %s\n\n--- trace-read (status %s)\n%s\n"
                        "--- babeltrace2 (status %s)\n%s\n" % (
                            c.name, why, info.get("tr"), info.get("trerr", "")[-4000:],
                            info.get("bt"), info.get("bterr", "")[-4000:]))
        elif not args.keep:
            shutil.rmtree(d)
        if os.path.isdir(d + ".inflated") and not args.keep:
            shutil.rmtree(d + ".inflated")
        return k, verdict, why, info

    t0 = time.monotonic()
    results = [None] * len(cases)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for k, verdict, why, info in ex.map(one, range(len(cases))):
            results[k] = (verdict, why, info)
    elapsed = time.monotonic() - t0

    counts = {"ok": 0, "noted": 0, "unknown": 0, "FAIL": 0}
    both_read = both_reject = 0
    slowest = (0, None)
    btslow = (0, None)
    for k, (verdict, why, info) in enumerate(results):
        counts[verdict] += 1
        if verdict == "ok":
            if info["bt"] == 0:
                both_read += 1
            else:
                both_reject += 1
        if info and info["time"] > slowest[0]:
            slowest = (info["time"], k)
        if info and info["bt"] != "timeout" and info["bttime"] > btslow[0]:
            btslow = (info["bttime"], k)
    for k, (verdict, why, info) in enumerate(results):
        if verdict != "ok":
            print("%s: %03d %s: %s" % (verdict, k, cases[k].name, why))
    print("read-fuzz: %d cases in %.1f s: %d agreements (%d read by both, %d rejected by both), "
          "%d justified disagreements, %d unknown (babeltrace2 crashed or hung), %d failures; "
          "slowest trace-read %.2f s (%03d %s)" % (
              len(cases), elapsed, counts["ok"], both_read, both_reject, counts["noted"],
              counts["unknown"], counts["FAIL"], slowest[0],
              slowest[1] if slowest[1] is not None else -1,
              cases[slowest[1]].name[:60] if slowest[1] is not None else ""))
    if btslow[1] is not None:
        print("read-fuzz: slowest babeltrace2 that finished: %.2f s (%03d %s)" % (
            btslow[0], btslow[1], cases[btslow[1]].name[:60]))
    if counts["FAIL"]:
        print("read-fuzz: the failing cases' inputs are in %s" % failed_dir)
    unknown_max = int(UNKNOWN_MAX * len(cases))
    if counts["unknown"] > unknown_max:
        print("read-fuzz: babeltrace2 gave no answer in %d cases, more than %d: too little "
              "was compared" % (counts["unknown"], unknown_max))
        return 1
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
