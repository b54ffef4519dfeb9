# SPDX-License-Identifier: MIT
"""shmtrace.read(): the selected events as numpy columns. Private module;
its public names are re-exported by the package."""

from __future__ import annotations

from typing import Dict, Iterable, Iterator, List, Mapping, Optional

import numpy as np

from . import _reader as R

COMMON = ("time_ns", "pid", "tid", "proc", "event")


def int_dtype(seen: int) -> Optional[np.dtype]:
    """The exact dtype of an integer column whose rows had the types of
    bit mask ``seen`` (shmtrace_rd_cols_seen()); None: no numpy integer
    holds them all (a uint64 beside a signed field)."""
    u = max((t - R.U8 for t in range(R.U8, R.U64 + 1) if seen >> t & 1), default=-1)
    s = max((t - R.S8 for t in range(R.S8, R.S64 + 1) if seen >> t & 1), default=-1)
    if s < 0:
        return np.dtype("uint%d" % (8 << u))
    r = max(s, u + 1)
    return np.dtype("int%d" % (8 << r)) if r <= 3 else None


class StringTable:
    """The str of the string table's entries, decoded once each, when a
    column uses them."""

    def __init__(self, strings: List[bytes]):
        self.strings = strings
        self.lut = np.empty(len(strings), dtype=object)
        self.done = np.zeros(len(strings), dtype=bool)

    def array(self, codes: np.ndarray) -> np.ndarray:
        """An object array of the str of each code (no sort: a mark per
        entry used, then one fancy index)."""
        if not len(codes):
            return np.empty(0, dtype=object)
        used = np.zeros(len(self.strings), dtype=bool)
        used[codes] = True
        new = np.flatnonzero(used & ~self.done)
        if len(new):
            s = self.strings
            self.lut[new] = [s[k].decode("utf-8", "replace") for k in new.tolist()]
            self.done[new] = True
        return self.lut[codes]


def seq_value(strings: List[bytes], t: int, code: int) -> np.ndarray:
    return np.frombuffer(strings[code], dtype=R.SEQ_DTYPE[t])


def convert(table: StringTable, vals: np.ndarray, types: np.ndarray, seen: int):
    """The numpy array of one column (see read()), and its mask (None when
    every row has the field)."""
    has = seen & ~1
    mask = None if not seen & 1 else types != R.NONE
    if has and not has & ~R.INT_BITS:
        dt = int_dtype(has)
        if dt is not None:
            if has & sum(1 << t for t in range(R.S8, R.S64 + 1)):
                return vals.view(np.int64).astype(dt), mask
            return vals.astype(dt), mask
    elif has and not has & ~((1 << R.F32) | (1 << R.F64)):
        out = vals.view(np.float64).copy()
        if mask is not None:
            out[~mask] = np.nan
        return (out.astype(np.float32) if has == 1 << R.F32 else out), mask
    elif has == 1 << R.STRING and mask is None:
        return table.array(vals), mask
    elif not has:
        return np.zeros(len(vals), dtype=np.uint8), mask
    # strings with rows lacking them, sequences, or kinds mixed: objects
    out = np.empty(len(vals), dtype=object)
    for t in np.unique(types):
        t = int(t)
        rows = np.nonzero(types == t)[0]
        if t == R.NONE:
            continue
        if t == R.STRING:
            out[rows] = table.array(vals[rows])
        elif t >= R.SEQ_FIRST:
            cache = {}
            for i in rows:
                k = int(vals[i])
                a = cache.get(k)
                if a is None:
                    a = cache[k] = seq_value(table.strings, t, k)
                out[i] = a
        elif t in (R.F32, R.F64):
            out[rows] = vals[rows].view(np.float64).tolist()
        elif t >= R.S8:
            out[rows] = vals[rows].view(np.int64).tolist()
        else:
            out[rows] = vals[rows].tolist()
    return out, mask


class Columns(Mapping[str, np.ndarray]):
    """The events shmtrace.read() selected, as columns of equal length
    (one row per event, in time order).

    A mapping from column name to numpy array: ``time_ns`` (int64,
    nanoseconds since the Epoch), ``pid`` (int64, -1 when unknown),
    ``tid`` (uint32), ``proc`` and ``event`` (str objects), then one
    column per field read, under the name it was asked by (see read()).
    A field named like one of those common columns is keyed
    ``"field.NAME"``.

    ``has(name)`` says which rows hold the field (False: the event lacks
    it; those rows hold 0, NaN or None). ``damage`` lists the messages
    of the damaged parts of the traces skipped (file and offset).
    """

    __slots__ = ("_cols", "_masks", "_n", "damage")

    def __init__(self, cols: Dict[str, np.ndarray], masks: Dict[str, np.ndarray], n: int,
                 damage: List[str]):
        self._cols = cols
        self._masks = masks
        self._n = n
        self.damage = damage

    def __getitem__(self, name: str) -> np.ndarray:
        return self._cols[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._cols)

    def __len__(self) -> int:
        """The number of rows (events), not of columns."""
        return self._n

    @property
    def columns(self) -> List[str]:
        """The column names, common columns first."""
        return list(self._cols)

    def has(self, name: str) -> np.ndarray:
        """A bool array: True where the row's event has field ``name``."""
        m = self._masks.get(name)
        if m is None:
            if name not in self._cols:
                raise KeyError(name)
            return np.ones(self._n, dtype=bool)
        return m

    def __eq__(self, other: object) -> bool:
        """Columns compare by identity (numpy arrays do not compare to a
        bool)."""
        return self is other

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return "<shmtrace.Columns: %d rows, columns %s>" % (self._n, ", ".join(self._cols))

    def to_pandas(self):
        """A pandas DataFrame of the columns, with ``time`` (datetime64[ns])
        first. Integer columns with missing rows become pandas' nullable
        integer types (exact: no float64); other missing values are NaN or
        None. Needs pandas (Debian: python3-pandas)."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("to_pandas() needs pandas (Debian: python3-pandas)") from e
        data = {"time": pd.to_datetime(self._cols["time_ns"], unit="ns")}
        for k, v in self._cols.items():
            m = self._masks.get(k)
            if m is not None and v.dtype.kind in "iu":
                v = pd.arrays.IntegerArray(v, ~m)
            data[k] = v
        return pd.DataFrame(data)

    def to_arrow(self):
        """A pyarrow Table of the columns; rows lacking a field are nulls,
        integers keep their exact types. Needs pyarrow."""
        try:
            import pyarrow as pa
        except ImportError as e:
            raise ImportError("to_arrow() needs pyarrow (Debian: python3-pyarrow)") from e
        arrays = {}
        for k, v in self._cols.items():
            m = self._masks.get(k)
            if v.dtype == object:
                vals = [None if x is None else (x.tolist() if isinstance(x, np.ndarray) else x)
                        for x in v]
                arrays[k] = pa.array(vals)
            else:
                arrays[k] = pa.array(v, mask=None if m is None else ~m)
        return pa.table(arrays)


def read(paths: R.Paths, event=None, fields: Optional[Iterable[str]] = None, *,
         begin=None, end=None, pid=None, tid=None, filter: Optional[str] = None,
         symbols: bool = True) -> Columns:
    """Read the events under ``paths`` into numpy columns (a Columns).

    ``paths``: a trace, a session's output (every trace below it), or a
    list of them. The selection is trace-read's, done in C before any
    row reaches Python:

    ``event``
        a pattern (``"app:request_*"``) or a list of them: events whose
        ``provider:event`` name matches any (trace-read --event)
    ``pid``, ``tid``
        an id or a list of ids (at most 64 each)
    ``begin``, ``end``
        bounds as trace-read's --begin/--end take them (a str: seconds
        since the Epoch ``"1795322544.25"``, a time of day ``"04:30:41"``,
        an offset from the first event ``"+1.5s"``), or an int of
        nanoseconds since the Epoch; inclusive
    ``filter``
        an expression on the fields, as trace-read's --filter
        (``"latency_ns > 1000 && $ctx.procname == \\"app\\""``); a field
        that no event read had is warned of (UserWarning), as trace-read
        does

    ``fields``: the field columns to read, by name: a payload field, else
    a context field of the same name (``"$ctx.NAME"``: the context field
    only); ``"NAME_sym"`` is the function the address in field NAME falls
    in (``"main+0x1c"``; with ``symbols``). None (the default): every
    field of the selected events, context fields included (a context
    field named like a payload field of the same event is
    ``"$ctx.NAME"``), and the ``NAME_sym`` of address fields that name
    some function; not the length of a sequence (``NAME_length`` before
    the sequence NAME): the length of each array is.

    Types are exact: an integer column has the numpy type of the field's
    declared size and signedness (uint64 pointers stay exact; a column
    whose events declare it differently gets a type that holds them all,
    or object when a uint64 meets a signed field); floats are float64
    (float32 when declared so); strings are str objects; sequences and
    arrays are objects, each a numpy array of the declared element type.
    A selected event that lacks a field has, in that column, 0 (integers;
    for a column of only such rows: uint8 zeros), NaN (floats) or None
    (objects), and False in ``has(name)``.

    Raises ReadError (an OSError) when a trace cannot be read, ValueError
    for a bad selection (the filter's message says where).
    """
    s = R.Session(paths, fields, symbols, event=event, begin=begin, end=end, pid=pid,
                  tid=tid, filter=filter)
    try:
        chunks = list(s.batches())
        names = s.names()
        seen = [s.seen(i) for i in range(len(names))]
        damage = s.damage()
    finally:
        s.close()
    n = sum(c[0] for c in chunks)

    def cat(parts, dtype):
        return np.concatenate(parts) if parts else np.empty(0, dtype)

    table = StringTable(s.strings)
    common = {k: cat([c[1][k] for c in chunks], np.uint32)
              for k in ("time_ns", "pid", "tid", "name", "proc")}
    cols: Dict[str, np.ndarray] = {
        "time_ns": common["time_ns"].astype(np.int64, copy=False),
        "pid": common["pid"].astype(np.int64, copy=False),
        "tid": common["tid"],
        "proc": table.array(common["proc"]),
        "event": table.array(common["name"]),
    }
    masks: Dict[str, np.ndarray] = {}
    for i, name in enumerate(names):
        if fields is None and not seen[i] & ~1:
            continue    # a NAME_sym of addresses that name no function
        vals = [c[2][i] if i < len(c[2]) else np.zeros(c[0], np.uint64) for c in chunks]
        types = [c[3][i] if i < len(c[3]) else np.zeros(c[0], np.uint8) for c in chunks]
        if any(i >= len(c[2]) for c in chunks):
            seen[i] |= 1
        arr, mask = convert(table, cat(vals, np.uint64), cat(types, np.uint8), seen[i])
        key = "field." + name if name in COMMON else name
        cols[key] = arr
        if mask is not None:
            masks[key] = mask
    return Columns(cols, masks, n, damage)
