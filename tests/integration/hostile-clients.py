#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile clients of the session daemon's socket, for hostile-clients.sh.

usage: hostile-clients.py SOCKET idle N | junk | fds

idle N  open N connections that send nothing, print "open", wait for a line
        on standard input, close them
junk    random, truncated, oversized, lying and half-header messages, each
        on its own connection; prints how many the daemon did not close
fds     registrations carrying descriptors of the wrong kind (a pipe, a
        directory, /dev/zero, an unsealed memfd, a memfd of the wrong size,
        a stream socket as the wake socket); prints how many were accepted
"""
import os
import random
import select
import socket
import struct
import sys

MAGIC = 0x544d4853
VERSION = 1
MSG_APP_REGISTER = 1
MSG_CMD = 16
CTL_SIZE = 4096 + 8192 + 8 * 8192 + 16384
PROC_SIZE = 4096
MFD_ALLOW_SEALING = 2
F_ADD_SEALS = 1033
F_SEAL_SHRINK, F_SEAL_GROW = 2, 4


def conn(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    return s


def header(mtype, size, version=VERSION, magic=MAGIC):
    return struct.pack("<IHHIi", magic, version, mtype, size, 0)


def closed_by_daemon(s, timeout=3.0):
    """True when the daemon answered an error or closed the connection."""
    while True:
        r, _, _ = select.select([s], [], [], timeout)
        if not r:
            return False
        try:
            data = s.recv(70000)
        except OSError:
            return True
        if not data:
            return True
        if len(data) < 16:
            return True
        _, _, mtype, _, status = struct.unpack("<IHHIi", data[:16])
        # why it is refused: MSG_REPLY_ITEM (70) holding a REC_ERROR (11)
        if mtype == 70 and len(data) >= 24 and struct.unpack("<I", data[16:20])[0] == 11:
            continue
        # then the error reply: MSG_REPLY (64) with a negative status
        return mtype == 64 and status < 0


def register_body(pid):
    return struct.pack("<IIIIIIIIQ16sQ", pid, os.getppid(), os.getuid(), 0, 2, 8192, 8,
                       0, 0, b"hostile", random.getrandbits(64))


def memfd(size, seal=True):
    fd = os.memfd_create("hostile", MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    if seal:
        import fcntl
        fcntl.fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW)
    return fd


def cmd_idle(path, n):
    socks = [conn(path) for _ in range(n)]
    print("open", flush=True)
    sys.stdin.readline()
    for s in socks:
        s.close()


def cmd_junk(path):
    rnd = random.Random(12)
    cases = [b"x", b"\0" * 15, header(MSG_CMD, 16)[:10],
             header(MSG_CMD, 16, version=9), header(MSG_CMD, 16, magic=1),
             header(MSG_CMD, 1000) + b"short", header(77, 16),
             header(MSG_APP_REGISTER, 16 + 64) + register_body(os.getpid()),
             header(MSG_CMD, 70016) + b"\0" * 70000]
    for _ in range(40):
        cases.append(bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(1, 300))))
    for _ in range(20):
        body = bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(0, 200)))
        cases.append(header(rnd.choice([MSG_CMD, MSG_APP_REGISTER, 2, 3, 4, 5, 6]),
                            16 + len(body)) + body)
    survived = 0
    for c in cases:
        s = conn(path)
        try:
            s.send(c)
        except OSError:
            s.close()
            continue
        if not closed_by_daemon(s):
            survived += 1
        s.close()
    print(survived)


def cmd_fds(path):
    wrong = []
    r, w = os.pipe()
    wrong.append(("pipe as control page", [r, memfd(PROC_SIZE), None]))
    wrong.append(("directory", [os.open("/", os.O_RDONLY), memfd(PROC_SIZE), None]))
    wrong.append(("/dev/zero", [os.open("/dev/zero", os.O_RDONLY), memfd(PROC_SIZE), None]))
    wrong.append(("unsealed memfd", [memfd(CTL_SIZE, seal=False), memfd(PROC_SIZE), None]))
    wrong.append(("memfd of the wrong size", [memfd(4096), memfd(PROC_SIZE), None]))
    wrong.append(("stream socket as wake socket", [memfd(CTL_SIZE), memfd(PROC_SIZE), "stream"]))
    wrong.append(("pipe as wake socket", [memfd(CTL_SIZE), memfd(PROC_SIZE), "pipe"]))
    accepted = 0
    for name, fds in wrong:
        keep = []
        if fds[2] is None or fds[2] == "dgram":
            a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            keep += [a, b]
            fds[2] = b.fileno()
        elif fds[2] == "stream":
            a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            keep += [a, b]
            fds[2] = b.fileno()
        elif fds[2] == "pipe":
            pr, pw = os.pipe()
            fds[2] = pr
        s = conn(path)
        msg = header(MSG_APP_REGISTER, 16 + 64) + register_body(os.getpid())
        s.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("3i", *fds))])
        if not closed_by_daemon(s, 2.0):
            accepted += 1
            print("accepted: " + name, file=sys.stderr)
        s.close()
        for k in keep:
            k.close()
    print(accepted)


def main():
    path, what = sys.argv[1], sys.argv[2]
    if what == "idle":
        cmd_idle(path, int(sys.argv[3]))
    elif what == "junk":
        cmd_junk(path)
    elif what == "fds":
        cmd_fds(path)
    else:
        sys.exit("unknown command " + what)


if __name__ == "__main__":
    main()
