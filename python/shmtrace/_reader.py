# SPDX-License-Identifier: MIT
"""The reading session shared by read() and events(): a reader of
libshmtrace-reader, its symbol table, and its columns object (the
selection, pushed down to C), read in batches into numpy buffers; the
string table kept in Python as it grows. Private to the package."""

from __future__ import annotations

import ctypes
import errno as _errno
import os
import warnings
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lib
from ._lib import lib

PathArg = Union[str, bytes, os.PathLike]
Paths = Union[PathArg, Sequence[PathArg]]

# enum shmtrace_rd_col_type
NONE = 0
U8, U16, U32, U64, S8, S16, S32, S64 = range(1, 9)
F32, F64, STRING = 9, 10, 11
SEQ_FIRST, SEQ_LAST = 12, 19
INT_BITS = sum(1 << t for t in range(U8, S64 + 1))
SEQ_BITS = sum(1 << t for t in range(SEQ_FIRST, SEQ_LAST + 1))
# element dtype of each sequence type
SEQ_DTYPE = {12 + r: np.dtype("<u%d" % (1 << r)) for r in range(4)}
SEQ_DTYPE.update({16 + r: np.dtype("<i%d" % (1 << r)) for r in range(4)})

BATCH = 1 << 16


class DamageWarning(UserWarning):
    """Parts of the traces were damaged (a corrupt or truncated stream
    file, unreadable metadata) and skipped: the events before the damage
    of each stream file, and every other stream, were read. The message
    names each file and byte offset, as trace-read's warnings do."""


class ReadError(OSError):
    """A trace could not be opened or read: missing, not a trace, damaged
    beyond reading. An OSError: ``errno`` is the error number,
    ``filename`` the path given (the first one, when several), and
    ``strerror`` the reader library's message (naming the file and the
    byte offset for a damaged file)."""


def _paths(paths: Paths) -> List[bytes]:
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    enc = [os.fsencode(p) for p in paths]
    if not enc:
        raise ValueError("no path given")
    return enc


def _ids(v, what: str) -> List[int]:
    if v is None:
        return []
    if isinstance(v, (int, np.integer)):
        v = [v]
    out = [int(x) for x in v]
    if len(out) > 64:
        raise ValueError(f"at most 64 {what}s")
    return out


def _when(v) -> Optional[bytes]:
    """A bound as trace-read takes it: a str as written, or a number of
    nanoseconds since the Epoch (an int; numpy.datetime64 too)."""
    if v is None:
        return None
    if isinstance(v, np.datetime64):
        v = int(v.astype("datetime64[ns]").astype(np.int64))
    if isinstance(v, (int, np.integer)):
        v = int(v)
        if v < 0:
            raise ValueError("a time before the Epoch")
        return b"%d.%09d" % divmod(v, 1000000000)
    if isinstance(v, str):
        return v.encode()
    raise TypeError("begin and end are str (as trace-read's --begin) or int nanoseconds")


class Session:
    """One reader with its columns. ``fields`` None: every field
    (shmtrace_rd_cols_add_all())."""

    def __init__(self, paths: Paths, fields: Optional[Iterable[str]], symbols: bool,
                 event=None, begin=None, end=None, pid=None, tid=None,
                 filter: Optional[str] = None):
        enc = _paths(paths)
        self.filename = os.fsdecode(enc[0])
        self._r = self._syms = self._c = None
        names = None if fields is None else [str(f) for f in fields]
        if isinstance(fields, str):
            raise TypeError("fields is a list of names, not one str")
        patterns = [event] if isinstance(event, str) else list(event or [])
        pids, tids = _ids(pid, "pid"), _ids(tid, "tid")
        b, e = _when(begin), _when(end)

        arr = (ctypes.c_char_p * len(enc))(*enc)
        err = ctypes.create_string_buffer(_lib.ERRLEN)
        r = ctypes.c_void_p()
        ret = lib.shmtrace_rd_open(ctypes.byref(r), arr, len(enc), err, len(err))
        if ret < 0:
            raise ReadError(-ret, _lib.text(err.value) or os.strerror(-ret), self.filename)
        self._r = r
        try:
            want_syms = symbols and (names is None or any(n.endswith("_sym") for n in names))
            if want_syms:
                s = ctypes.c_void_p()
                if lib.shmtrace_rd_sym_open(ctypes.byref(s), r, None, None, None) < 0:
                    raise MemoryError("no memory for the symbol tables")
                self._syms = s
            c = ctypes.c_void_p()
            if lib.shmtrace_rd_cols_open(ctypes.byref(c), r, self._syms) < 0:
                raise MemoryError("no memory for the columns")
            self._c = c
            self._select(patterns, pids, tids, b, e, filter)
            for n in names or []:
                ret = lib.shmtrace_rd_cols_add(c, n.encode())
                if ret < 0:
                    raise ValueError(f"field {n!r}: " + os.strerror(-ret))
            if names is None:
                lib.shmtrace_rd_cols_add_all(c)
        except BaseException:
            self.close()
            raise
        self.strings: List[bytes] = []
        self._nbound = 0

    def _select(self, patterns, pids, tids, b, e, expr):
        c = self._c
        for p in patterns:
            if lib.shmtrace_rd_cols_select_event(c, str(p).encode()) < 0:
                raise MemoryError("no memory for the selection")
        for p in pids:
            lib.shmtrace_rd_cols_select_pid(c, p)
        for t in tids:
            if not 0 <= t < 1 << 32:
                raise ValueError(f"tid {t} out of range")
            lib.shmtrace_rd_cols_select_tid(c, t)
        if b is not None and lib.shmtrace_rd_cols_select_begin(c, b) < 0:
            raise ValueError(f"begin: unreadable time {b.decode()!r}")
        if e is not None and lib.shmtrace_rd_cols_select_end(c, e) < 0:
            raise ValueError(f"end: unreadable time {e.decode()!r}")
        if expr is not None:
            err = ctypes.create_string_buffer(256)
            if lib.shmtrace_rd_cols_select_filter(c, str(expr).encode(), err, len(err)) < 0:
                raise ValueError(f"filter {expr!r}: {_lib.text(err.value)}")

    def close(self) -> None:
        if self._c:
            lib.shmtrace_rd_cols_close(self._c)
            self._c = None
        if self._syms:
            lib.shmtrace_rd_sym_close(self._syms)
            self._syms = None
        if self._r:
            lib.shmtrace_rd_close(self._r)
            self._r = None

    def __del__(self):
        self.close()

    def names(self) -> List[str]:
        c = self._c
        return [_lib.text(lib.shmtrace_rd_cols_name(c, i))
                for i in range(lib.shmtrace_rd_cols_count(c))]

    def seen(self, i: int) -> int:
        return lib.shmtrace_rd_cols_seen(self._c, i)

    def damage(self) -> List[str]:
        r = self._r
        return [_lib.text(lib.shmtrace_rd_damage_message(r, i))
                for i in range(lib.shmtrace_rd_damage_count(r))]

    def class_fields(self, cls: int) -> List[Tuple[int, bool]]:
        """(column, is_context) of each field of class ``cls``, in order."""
        buf = (ctypes.c_int32 * 256)()
        n = lib.shmtrace_rd_cols_class_fields(self._c, cls, buf, len(buf))
        if n > len(buf):
            buf = (ctypes.c_int32 * n)()
            n = lib.shmtrace_rd_cols_class_fields(self._c, cls, buf, len(buf))
        return [(x >> 1, bool(x & 1)) for x in buf[:max(n, 0)]]

    def _warn_filter(self) -> None:
        """Warn of the filter's fields that no event read had, as
        trace-read does (a typo, most likely)."""
        near = ctypes.c_char_p()
        for k in range(64):
            name = lib.shmtrace_rd_cols_filter_unknown(self._c, k, ctypes.byref(near))
            if name is not None:
                hint = f"; did you mean {_lib.text(near.value)!r}?" if near.value else ""
                warnings.warn(f"filter: no event read has a field {_lib.text(name)!r}{hint}",
                              UserWarning, stacklevel=4)

    def _sync_strings(self) -> None:
        c = self._c
        n = lib.shmtrace_rd_cols_string_count(c)
        have = len(self.strings)
        if n == have:
            return
        offs = np.ctypeslib.as_array(
            ctypes.cast(lib.shmtrace_rd_cols_string_offsets(c),
                        ctypes.POINTER(ctypes.c_uint64)), (n + 1,))
        lo, hi = int(offs[have]), int(offs[n])
        data = ctypes.string_at(lib.shmtrace_rd_cols_string_data(c) + lo, hi - lo) \
            if hi > lo else b""
        o = (offs[have:n + 1] - lo).tolist()
        self.strings.extend(data[o[k]:o[k + 1]] for k in range(n - have))

    def batches(self, size: int = BATCH) -> Iterator[tuple]:
        """Each batch read: (rows, common, values, types) with common the
        dict of the common arrays (time_ns, pid, tid, name, proc, cls) and
        values/types one array per column (the columns known then)."""
        c = self._c
        while True:
            ncols = lib.shmtrace_rd_cols_count(c)
            common = {
                "time_ns": np.empty(size, np.int64),
                "pid": np.empty(size, np.int64),
                "tid": np.empty(size, np.uint32),
                "name": np.empty(size, np.uint32),
                "proc": np.empty(size, np.uint32),
                "cls": np.empty(size, np.uint32),
            }
            out = _lib.ColOut(*(a.ctypes.data for a in common.values()))
            vals = [np.empty(size, np.uint64) for _ in range(ncols)]
            types = [np.empty(size, np.uint8) for _ in range(ncols)]
            pv = (ctypes.c_void_p * max(ncols, 1))(*(a.ctypes.data for a in vals))
            pt = (ctypes.c_void_p * max(ncols, 1))(*(a.ctypes.data for a in types))
            n = lib.shmtrace_rd_cols_read(c, size, ctypes.byref(out), ncols, pv, pt)
            if n == -_errno.EAGAIN:
                continue
            if n < 0:
                if n != -_errno.ENOMEM and lib.shmtrace_rd_damage_count(self._r):
                    # every stream was read to its end or its damage
                    warnings.warn(DamageWarning("; ".join(self.damage())), stacklevel=3)
                    return
                if n == -_errno.EINVAL:
                    raise ValueError("the time window selects nothing (end before begin)")
                msg = _lib.text(lib.shmtrace_rd_errmsg(self._r))
                raise ReadError(-n, msg or os.strerror(-n), self.filename)
            if n == 0:
                self._warn_filter()
                return
            self._sync_strings()
            yield (n, {k: a[:n] for k, a in common.items()},
                   [a[:n] for a in vals], [a[:n] for a in types])
