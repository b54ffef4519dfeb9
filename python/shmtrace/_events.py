# SPDX-License-Identifier: MIT
"""shmtrace.events(): one typed event at a time, built from the batches of
columns the C side fills. Private module; its public names are
re-exported by the package."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional

import numpy as np

from . import _reader as R


class Event:
    """One event of a trace.

    Attributes: ``time_ns`` (int, nanoseconds since the Epoch), ``name``
    (``"provider:event"``), ``pid`` (int, -1 when unknown), ``tid``,
    ``proc`` (the process name), ``fields`` (dict of the payload: int,
    float, str, or list of int for sequences and arrays, in the order the
    event has them, ``NAME_sym`` right after an address NAME that names a
    function) and ``context`` (dict of the context fields, such as ``ip``
    and ``cpu_id``, and their ``NAME_sym``; empty when none).

    ``ev["NAME"]`` is the payload field NAME, else the context field NAME
    (KeyError when neither); ``ev.get("NAME", default)`` and ``"NAME" in
    ev`` too.
    """

    __slots__ = ("time_ns", "name", "pid", "tid", "proc", "fields", "context")

    def __init__(self, time_ns: int, name: str, pid: int, tid: int, proc: str,
                 fields: Dict[str, Any], context: Dict[str, Any]):
        self.time_ns = time_ns
        self.name = name
        self.pid = pid
        self.tid = tid
        self.proc = proc
        self.fields = fields
        self.context = context

    def __getitem__(self, key: str) -> Any:
        try:
            return self.fields[key]
        except KeyError:
            return self.context[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key`` (payload, else context), or ``default``."""
        v = self.fields.get(key, self)
        if v is self:
            return self.context.get(key, default)
        return v

    def __contains__(self, key: str) -> bool:
        return key in self.fields or key in self.context

    def to_dict(self) -> Dict[str, Any]:
        """The event with the keys of ``trace-read --format json`` (but
        ``time``): time_ns, proc, pid, tid, event, context (when not
        empty), fields."""
        d = {"time_ns": self.time_ns, "proc": self.proc, "pid": self.pid, "tid": self.tid,
             "event": self.name}
        if self.context:
            d["context"] = dict(self.context)
        d["fields"] = dict(self.fields)
        return d

    def __repr__(self) -> str:
        return "Event(%d, %r, pid=%d, tid=%d, fields=%r)" % (
            self.time_ns, self.name, self.pid, self.tid, self.fields)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in Event.__slots__)

    __hash__ = None  # type: ignore[assignment]


def _values(strings: List[bytes], vals: np.ndarray, types: np.ndarray,
            cache: Dict[int, Any]) -> List[Any]:
    """The Python value of each row of one column of a batch. A row whose
    event lacks the field holds None when the column is a string (the
    NAME_sym columns, absent where no function is named), else anything:
    the layout of the row's class does not read it."""
    present = np.unique(types).tolist()
    kinds = [t for t in present if t != R.NONE]
    if not kinds:
        return [None] * len(vals)
    if len(kinds) == 1:
        t = kinds[0]
        if R.U8 <= t <= R.U64:
            return vals.tolist()
        if R.S8 <= t <= R.S64:
            return vals.view(np.int64).tolist()
        if t in (R.F32, R.F64):
            return vals.view(np.float64).tolist()
    out: List[Any] = [None] * len(vals)
    codes = vals.tolist()
    tl = types.tolist()
    sints = floats = None
    for i, t in enumerate(tl):
        if t == R.NONE:
            continue
        if t <= R.U64:
            out[i] = codes[i]
        elif t <= R.S64:
            if sints is None:
                sints = vals.view(np.int64).tolist()
            out[i] = sints[i]
        elif t <= R.F64:
            if floats is None:
                floats = vals.view(np.float64).tolist()
            out[i] = floats[i]
        else:
            key = codes[i] << 5 | t
            v = cache.get(key)
            if v is None:
                raw = strings[codes[i]]
                if t == R.STRING:
                    v = raw.decode("utf-8", "replace")
                else:
                    v = tuple(np.frombuffer(raw, dtype=R.SEQ_DTYPE[t]).tolist())
                cache[key] = v
            out[i] = v if t == R.STRING else list(v)
    return out


def events(paths: R.Paths, event=None, *, begin=None, end=None, pid=None, tid=None,
           filter: Optional[str] = None, symbols: bool = True) -> Iterator[Event]:
    """Each event under ``paths`` as an Event, in time order (a generator).

    ``paths`` and the selection (``event``, ``begin``, ``end``, ``pid``,
    ``tid``, ``filter``) are those of read(); with ``symbols`` (the
    default), each address field NAME that falls in a known function
    gets ``NAME_sym`` beside it, as trace-read names it, from the state
    dumps in the traces and the ELF files of the traced programs
    (``symbols=False`` reads no ELF file).

    The traces stay open until the generator ends or is closed. Raises
    ReadError (an OSError) when a trace cannot be read.
    """
    s = R.Session(paths, None, symbols, event=event, begin=begin, end=end, pid=pid,
                  tid=tid, filter=filter)
    try:
        strings = s.strings
        names: List[str] = []
        layouts: Dict[int, list] = {}
        text: Dict[int, str] = {}
        cache: Dict[int, Any] = {}
        for n, common, vals, types in s.batches(4096):
            if len(names) < len(vals):
                names = s.names()
            cols = [_values(strings, vals[i], types[i], cache) for i in range(len(vals))]
            for code in np.unique(np.concatenate((common["name"], common["proc"]))).tolist():
                if code not in text:
                    text[code] = strings[code].decode("utf-8", "replace")
            for i, (ts, pid_, tid_, nm, pr, cls) in enumerate(zip(
                    common["time_ns"].tolist(), common["pid"].tolist(),
                    common["tid"].tolist(), common["name"].tolist(),
                    common["proc"].tolist(), common["cls"].tolist())):
                lay = layouts.get(cls)
                if lay is None:
                    lay = layouts[cls] = [
                        (names[k][5:] if names[k].startswith("$ctx.") else names[k],
                         cols[k], ctx) for k, ctx in s.class_fields(cls)]
                fields: Dict[str, Any] = {}
                context: Dict[str, Any] = {}
                for key, col, ctx in lay:
                    v = col[i]
                    if v is not None:
                        (context if ctx else fields)[key] = v
                yield Event(ts, text[nm], pid_, tid_, text[pr], fields, context)
            layouts.clear()
    finally:
        s.close()
