#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A relay for tests: enough of lttng-relayd's protocol (version 2.10, as
shmtrace speaks it, doc/protocol.md) to stand for a relay that refuses
commands or stops answering in the middle of a session.

usage: stream-fake-relay.py PORTFILE [--refuse CMD:N] [--mute N]

Listens on two loopback ports, control and data, and writes "CTRL DATA"
to PORTFILE once it does. Every control command is answered as
lttng-relayd answers it, except:
  --refuse CMD:N  from the N-th command CMD on (add_stream, send_index,
                  streams_sent, data_pending, close_stream), an error
                  status (LTTNG_ERR_UNK);
  --mute N        after the N-th control command of the consumer (VERSION
                  and CREATE_SESSION, the session daemon's, not counted),
                  nothing more is read on any connection, nor answered; the
                  connections stay open.
Data messages are read and dropped. Runs until killed.
"""
import os
import select
import socket
import struct
import sys

OK, ERR = 10, 11
NAMES = {1: "add_stream", 2: "create_session", 5: "version", 6: "send_metadata",
         7: "close_stream", 8: "data_pending", 13: "send_index", 16: "streams_sent"}


def main():
    portfile = sys.argv[1]
    refuse, refuse_from, mute = None, 0, None
    args = sys.argv[2:]
    while args:
        opt = args.pop(0)
        if opt == "--refuse":
            name, n = args.pop(0).split(":")
            refuse, refuse_from = name, int(n)
        elif opt == "--mute":
            mute = int(args.pop(0))
        else:
            sys.exit("unknown option " + opt)

    ctrl_l = socket.socket()
    data_l = socket.socket()
    for s in (ctrl_l, data_l):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        s.listen(8)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d %d\n" % (ctrl_l.getsockname()[1], data_l.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)

    conns = {}          # socket -> [kind, buffer]
    seen = {}           # command name -> count
    commands = 0        # the consumer's control commands
    handle = 0
    muted = False
    while True:
        watch = [ctrl_l, data_l] + ([] if muted else list(conns))
        readable, _, _ = select.select(watch, [], [])
        for s in readable:
            if s in (ctrl_l, data_l):
                c, _ = s.accept()
                conns[c] = ["ctrl" if s is ctrl_l else "data", b""]
                continue
            chunk = s.recv(1 << 20)
            if not chunk:
                del conns[s]
                s.close()
                continue
            conns[s][1] += chunk
            kind, buf = conns[s]
            while not muted:
                if kind == "data":
                    if len(buf) < 32:
                        break
                    size, pad = struct.unpack(">II", buf[24:32])
                    if len(buf) < 32 + size + pad:
                        break
                    buf = buf[32 + size + pad:]
                    continue
                if len(buf) < 24:
                    break
                _, size, cmd, _ = struct.unpack(">QQII", buf[:24])
                if len(buf) < 24 + size:
                    break
                buf = buf[24 + size:]
                name = NAMES.get(cmd, "unknown")
                seen[name] = seen.get(name, 0) + 1
                status = OK
                if name == refuse and seen[name] >= refuse_from:
                    status = ERR
                if name == "version":
                    s.sendall(struct.pack(">II", 2, 10))
                    continue
                if name == "create_session":
                    s.sendall(struct.pack(">QI", 1, OK))
                    continue
                commands += 1
                if name == "add_stream":
                    handle += 1
                    s.sendall(struct.pack(">QI", handle, status))
                elif name == "data_pending":
                    s.sendall(struct.pack(">I", 0 if status == OK else 0xffffffff))
                elif name != "send_metadata":
                    s.sendall(struct.pack(">I", status))
                if mute is not None and commands >= mute:
                    muted = True
            conns[s][1] = buf


if __name__ == "__main__":
    main()
