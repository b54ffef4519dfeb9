# SPDX-License-Identifier: MIT
"""Read shmtrace traces from Python.

shmtrace writes CTF 1.8 traces; this package reads them through
libshmtrace-reader (the library trace-read uses), with ctypes, so that it
needs nothing but the library::

    import shmtrace

    for ev in shmtrace.events("/path/to/session/output"):
        print(ev["time_ns"], ev["event"], ev["fields"])

    df = shmtrace.dataframe("/path/to/output")     # needs pandas

Each event is a dict, with the keys of ``trace-read --format json``:

``time_ns``
    nanoseconds since the Epoch (int)
``proc``, ``pid``, ``tid``
    the process name, its pid, the thread id
``event``
    ``"provider:event"``
``context``
    the context fields (``ip``, ``cpu_id``), only when the event has some
``fields``
    the payload: name -> int, float, str, or list of int (sequences and
    arrays)

Unlike the JSON, hexadecimal fields (``ip``, addresses) are ints, and a
NaN stays a float. Beside a field ``NAME`` that holds a code address (the
``ip`` context field, the addresses the preload helpers record), the key
``NAME_sym`` names the function it falls in, as trace-read names it
(``"main+0x1c"``; absent when no function is known, or when the event has
a field of that name): from the state dumps in the traces and the ELF
files of the traced programs, through libshmtrace-reader's symbol tables
(``symbols=False`` leaves them out, and reads no ELF file). The other keys
that trace-read adds beside a field are not given: ``NAME_names`` (flags
as ``"O_WRONLY|O_CREAT"``) and ``NAME_octal`` (a file mode); the numbers
they name are all here. Events come in time order over every trace found
under the paths given (session outputs, chunks, snapshots, single traces).

The library is found, in this order, through ``SHMTRACE_READER_LIB`` (a
path), where ``make install`` put it, then the system's search path.
"""

import ctypes
import ctypes.util
import os

__all__ = ["Reader", "events", "dataframe", "ReadError"]

try:
    from ._config import LIBDIR as _LIBDIR
except ImportError:  # not installed: from the source tree
    _LIBDIR = None

_LIBNAME = "libshmtrace-reader.so.0"

# enum shmtrace_rd_kind
_INT, _FLOAT, _STRING, _SEQUENCE, _ARRAY = range(5)


class _Num(ctypes.Union):
    _fields_ = [("u", ctypes.c_uint64), ("s", ctypes.c_int64), ("d", ctypes.c_double)]


class _Symbol(ctypes.Structure):
    """struct shmtrace_rd_symbol"""
    _fields_ = [("name", ctypes.c_char_p), ("offset", ctypes.c_uint64), ("path", ctypes.c_char_p)]


class _Value(ctypes.Structure):
    """struct shmtrace_rd_value"""
    _anonymous_ = ("n",)
    _fields_ = [
        ("kind", ctypes.c_int),
        ("bytes", ctypes.c_uint8),
        ("is_signed", ctypes.c_bool),
        ("base", ctypes.c_uint8),
        ("n", _Num),
        ("str", ctypes.c_void_p),
        ("len", ctypes.c_size_t),
        ("data", ctypes.c_void_p),
        ("count", ctypes.c_uint32),
    ]


class ReadError(Exception):
    """A trace could not be opened or read (damaged, truncated, missing)."""


def _load():
    tried = []
    for path in (os.environ.get("SHMTRACE_READER_LIB"),
                 _LIBDIR and os.path.join(_LIBDIR, _LIBNAME),
                 ctypes.util.find_library("shmtrace-reader"), _LIBNAME):
        if not path:
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(str(e))
    raise ImportError("cannot load libshmtrace-reader (set SHMTRACE_READER_LIB): " +
                      "; ".join(tried))


def _declare(lib):
    P = ctypes.c_void_p
    sigs = {
        "shmtrace_rd_open": (ctypes.c_int, [ctypes.POINTER(P), ctypes.POINTER(ctypes.c_char_p),
                                            ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]),
        "shmtrace_rd_close": (None, [P]),
        "shmtrace_rd_next": (ctypes.c_int, [P, ctypes.POINTER(P)]),
        "shmtrace_rd_errmsg": (ctypes.c_char_p, [P]),
        "shmtrace_rd_event_trace": (P, [P]),
        "shmtrace_rd_event_time_ns": (ctypes.c_int64, [P]),
        "shmtrace_rd_event_name": (ctypes.c_char_p, [P]),
        "shmtrace_rd_event_tid": (ctypes.c_uint32, [P]),
        "shmtrace_rd_trace_procname": (ctypes.c_char_p, [P]),
        "shmtrace_rd_trace_vpid": (ctypes.c_int64, [P]),
        "shmtrace_rd_event_field_count": (ctypes.c_uint, [P]),
        "shmtrace_rd_event_field_name": (ctypes.c_char_p, [P, ctypes.c_uint]),
        "shmtrace_rd_event_field": (ctypes.c_int, [P, ctypes.c_uint, ctypes.POINTER(_Value)]),
        "shmtrace_rd_event_context_count": (ctypes.c_uint, [P]),
        "shmtrace_rd_event_context_name": (ctypes.c_char_p, [P, ctypes.c_uint]),
        "shmtrace_rd_event_context": (ctypes.c_int, [P, ctypes.c_uint, ctypes.POINTER(_Value)]),
        "shmtrace_rd_sym_open": (ctypes.c_int, [ctypes.POINTER(P), P, ctypes.c_char_p, P, P]),
        "shmtrace_rd_sym_close": (None, [P]),
        "shmtrace_rd_sym_track": (None, [P, P]),
        "shmtrace_rd_sym_value": (ctypes.c_int, [P, P, ctypes.c_bool, ctypes.POINTER(_Value),
                                                 ctypes.POINTER(_Symbol)]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args


_lib = _load()
_declare(_lib)


def _text(b):
    return b.decode("utf-8", "replace") if b is not None else None


def _value(v):
    if v.kind == _INT:
        return v.s if v.is_signed else v.u
    if v.kind == _FLOAT:
        return v.d
    if v.kind == _STRING:
        return ctypes.string_at(v.str, v.len).decode("utf-8", "replace")
    # sequences and arrays: little-endian integers of v.bytes each
    raw = ctypes.string_at(v.data, v.count * v.bytes) if v.count else b""
    return [int.from_bytes(raw[i:i + v.bytes], "little", signed=v.is_signed)
            for i in range(0, len(raw), v.bytes)]


# the longest key trace-read writes beside a field, in bytes
_KEY_MAX = 255


def _group(ev, count, name, get, syms, context):
    """The fields of a group, in order; with ``syms``, NAME_sym right after
    each address that names a function, as trace-read's JSON has it: not
    when the group has a field of that name, or the key would be longer
    than trace-read writes."""
    fields = []
    val = _Value()
    sym = _Symbol()
    for i in range(count(ev)):
        if get(ev, i, ctypes.byref(val)) != 0:
            continue
        raw = name(ev, i)
        text = None
        if (syms and val.kind == _INT and
                _lib.shmtrace_rd_sym_value(syms, ev, context, ctypes.byref(val),
                                           ctypes.byref(sym))):
            text = _text(sym.name)
            if sym.offset:
                text += "+0x%x" % sym.offset
        fields.append((raw, _value(val), text))
    raws = {raw for raw, _, _ in fields}
    out = {}
    for raw, value, text in fields:
        out[_text(raw)] = value
        if text is not None and len(raw) + 4 <= _KEY_MAX and raw + b"_sym" not in raws:
            out[_text(raw + b"_sym")] = text
    return out


class Reader:
    """The events of the traces under ``paths`` (a path or a list of paths).

    Iterating gives each event as a dict, in time order. Use it as a context
    manager, or call close(); the library's files stay open until then.
    With ``symbols`` (the default), addresses are named (``NAME_sym``).
    """

    def __init__(self, paths, symbols=True):
        if isinstance(paths, (str, bytes, os.PathLike)):
            paths = [paths]
        enc = [os.fsencode(p) for p in paths]
        arr = (ctypes.c_char_p * len(enc))(*enc)
        err = ctypes.create_string_buffer(512)
        self._r = ctypes.c_void_p()
        ret = _lib.shmtrace_rd_open(ctypes.byref(self._r), arr, len(enc), err, len(err))
        if ret < 0:
            self._r = None
            raise ReadError(_text(err.value) or os.strerror(-ret))
        self._syms = None
        if symbols:
            syms = ctypes.c_void_p()
            ret = _lib.shmtrace_rd_sym_open(ctypes.byref(syms), self._r, None, None, None)
            if ret < 0:
                self.close()
                raise MemoryError("no memory for the symbol tables")
            self._syms = syms

    def close(self):
        if getattr(self, "_syms", None):
            _lib.shmtrace_rd_sym_close(self._syms)
            self._syms = None
        if self._r:
            _lib.shmtrace_rd_close(self._r)
            self._r = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def __iter__(self):
        ev = ctypes.c_void_p()
        while self._r:
            ret = _lib.shmtrace_rd_next(self._r, ctypes.byref(ev))
            if ret == 0:
                return
            if ret < 0:
                raise ReadError(_text(_lib.shmtrace_rd_errmsg(self._r)))
            if self._syms:
                _lib.shmtrace_rd_sym_track(self._syms, ev)
            yield self._event(ev, self._syms)

    @staticmethod
    def _event(ev, syms):
        t = _lib.shmtrace_rd_event_trace(ev)
        d = {
            "time_ns": _lib.shmtrace_rd_event_time_ns(ev),
            "proc": _text(_lib.shmtrace_rd_trace_procname(t)),
            "pid": _lib.shmtrace_rd_trace_vpid(t),
            "tid": _lib.shmtrace_rd_event_tid(ev),
            "event": _text(_lib.shmtrace_rd_event_name(ev)),
        }
        if _lib.shmtrace_rd_event_context_count(ev):
            d["context"] = _group(ev, _lib.shmtrace_rd_event_context_count,
                                  _lib.shmtrace_rd_event_context_name,
                                  _lib.shmtrace_rd_event_context, syms, True)
        d["fields"] = _group(ev, _lib.shmtrace_rd_event_field_count,
                             _lib.shmtrace_rd_event_field_name, _lib.shmtrace_rd_event_field,
                             syms, False)
        return d


def events(paths, symbols=True):
    """Each event under ``paths`` as a dict, in time order (a generator)."""
    with Reader(paths, symbols) as r:
        yield from r


def dataframe(paths, symbols=True):
    """The events under ``paths`` as a pandas DataFrame.

    One row per event: the columns time_ns, proc, pid, tid and event, then
    one column per context and payload field name (NaN where an event has
    no such field; a field named like an earlier column is prefixed with
    ``ctx.`` or ``field.``), with ``time`` as a datetime64 column first.
    """
    try:
        import pandas
    except ImportError as e:
        raise ImportError("shmtrace.dataframe() needs pandas (Debian: python3-pandas)") from e
    rows = []
    for ev in events(paths, symbols):
        row = {k: ev[k] for k in ("time_ns", "proc", "pid", "tid", "event")}
        for group, prefix in ((ev.get("context", {}), "ctx."), (ev["fields"], "field.")):
            for k, v in group.items():
                row[prefix + k if k in row else k] = v
        rows.append(row)
    df = pandas.DataFrame(rows)
    if len(df):
        df.insert(0, "time", pandas.to_datetime(df["time_ns"], unit="ns"))
    return df
