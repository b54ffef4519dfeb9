# SPDX-License-Identifier: MIT
"""Read shmtrace traces from Python.

shmtrace writes CTF 1.8 traces; this package reads them through
libshmtrace-reader, the library trace-read uses, with ctypes and numpy
(no compiler needed). Two ways in::

    import shmtrace

    # columns: numpy arrays, the selection done in C
    c = shmtrace.read("/path/to/session/output", event="app:request_*",
                      fields=["latency_ns"], filter="latency_ns > 1000")
    print(len(c), c["latency_ns"].mean())
    df = c.to_pandas()                      # needs pandas

    # one typed event at a time
    for ev in shmtrace.events("/path/to/output", event="app:*"):
        print(ev.time_ns, ev.name, ev.tid, ev["latency_ns"])

read() returns a Columns (a mapping of column name to numpy array, with
exact integer types: a uint64 pointer stays exact); events() yields Event
objects (``time_ns``, ``name``, ``pid``, ``tid``, ``proc``, ``fields``,
``context``). Both take trace-read's selection: event name patterns,
process and thread ids, a time window and a filter expression. Events
come in time order over every trace found under the paths given (session
outputs, chunks, snapshots, single traces).

Beside a field ``NAME`` that holds a code address (the ``ip`` context
field, the addresses the preload helpers record), ``NAME_sym`` names the
function it falls in, as trace-read names it (``"main+0x1c"``): from the
state dumps in the traces and the ELF files of the traced programs
(``symbols=False`` leaves them out, and reads no ELF file). The names of
flags and modes that trace-read's JSON adds (``NAME_names``,
``NAME_octal``) are not given; the numbers they name are.

Errors: ReadError, an OSError (``errno``, ``filename``), when a trace
cannot be read; ValueError for a bad selection. A damaged part of a trace
(a corrupt or truncated stream file) is skipped with a DamageWarning
naming the file and offset, after the events before it, as trace-read
does; ``Columns.damage`` lists the messages too.

The library is found, in this order, through ``SHMTRACE_READER_LIB`` (a
path), the directory named at install time (``make install``'s libdir,
or ``SHMTRACE_LIBDIR`` given to pip), the build tree ``build/`` next to
a source tree, then the system's search path. ``dataframe()`` is
``read(...).to_pandas()``.
"""

from __future__ import annotations

from typing import Optional

from ._columns import Columns, read
from ._events import Event, events
from ._reader import DamageWarning, Paths, ReadError

__all__ = ["read", "events", "dataframe", "Columns", "Event", "ReadError", "DamageWarning"]
__version__ = "0.1"


def dataframe(paths: Paths, event=None, fields=None, *, begin=None, end=None, pid=None,
              tid=None, filter: Optional[str] = None, symbols: bool = True):
    """The events under ``paths`` as a pandas DataFrame: read() with the
    same arguments, then Columns.to_pandas() (a ``time`` datetime64[ns]
    column first; integers exact, nullable where some events lack the
    field). Needs pandas (Debian: python3-pandas)."""
    return read(paths, event, fields, begin=begin, end=end, pid=pid, tid=tid,
                filter=filter, symbols=symbols).to_pandas()


for _obj in (read, events, Columns, Event, ReadError, DamageWarning):
    _obj.__module__ = __name__
del _obj


def __dir__():
    return sorted(__all__ + ["__version__"])


