# SPDX-License-Identifier: MIT
"""libshmtrace-reader through ctypes: finding it, the C types and the
signatures of the functions the package calls (include/shmtrace/reader.h).
Private to the package."""

import ctypes
import ctypes.util
import os

try:
    from ._config import LIBDIR
except ImportError:  # not installed by make install: from the source tree
    LIBDIR = None

LIBNAME = "libshmtrace-reader.so.0"
ERRLEN = 512

# enum shmtrace_rd_kind
INT, FLOAT, STRING, SEQUENCE, ARRAY = range(5)


class Num(ctypes.Union):
    _fields_ = [("u", ctypes.c_uint64), ("s", ctypes.c_int64), ("d", ctypes.c_double)]


class Symbol(ctypes.Structure):
    """struct shmtrace_rd_symbol"""
    _fields_ = [("name", ctypes.c_char_p), ("offset", ctypes.c_uint64),
                ("path", ctypes.c_char_p)]


class Value(ctypes.Structure):
    """struct shmtrace_rd_value"""
    _anonymous_ = ("n",)
    _fields_ = [
        ("kind", ctypes.c_int),
        ("bytes", ctypes.c_uint8),
        ("is_signed", ctypes.c_bool),
        ("base", ctypes.c_uint8),
        ("n", Num),
        ("str", ctypes.c_void_p),
        ("len", ctypes.c_size_t),
        ("data", ctypes.c_void_p),
        ("count", ctypes.c_uint32),
    ]


class ColOut(ctypes.Structure):
    """struct shmtrace_rd_col_out"""
    _fields_ = [(n, ctypes.c_void_p) for n in ("time_ns", "pid", "tid", "name", "proc", "cls")]


def candidates():
    """The paths tried, in order, to load the library."""
    here = os.path.dirname(os.path.abspath(__file__))
    return [p for p in (
        os.environ.get("SHMTRACE_READER_LIB"),
        LIBDIR and os.path.join(LIBDIR, LIBNAME),
        # a source tree with its build tree in build/ (scripts/setup.sh)
        os.path.exists(os.path.join(here, "..", "pyproject.toml")) and
        os.path.join(here, "..", "..", "build", ".libs", LIBNAME),
        ctypes.util.find_library("shmtrace-reader"),
        LIBNAME) if p]


def load():
    tried = []
    for path in candidates():
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(str(e))
    raise ImportError("cannot load libshmtrace-reader (set SHMTRACE_READER_LIB to its path): " +
                      ("; ".join(tried) or "not found"))


P = ctypes.c_void_p
_SIGS = {
    "shmtrace_rd_open": (ctypes.c_int, [ctypes.POINTER(P), ctypes.POINTER(ctypes.c_char_p),
                                        ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]),
    "shmtrace_rd_close": (None, [P]),
    "shmtrace_rd_errmsg": (ctypes.c_char_p, [P]),
    "shmtrace_rd_damage_count": (ctypes.c_size_t, [P]),
    "shmtrace_rd_damage_message": (ctypes.c_char_p, [P, ctypes.c_size_t]),
    "shmtrace_rd_sym_open": (ctypes.c_int, [ctypes.POINTER(P), P, ctypes.c_char_p, P, P]),
    "shmtrace_rd_sym_close": (None, [P]),
    "shmtrace_rd_cols_open": (ctypes.c_int, [ctypes.POINTER(P), P, P]),
    "shmtrace_rd_cols_close": (None, [P]),
    "shmtrace_rd_cols_select_event": (ctypes.c_int, [P, ctypes.c_char_p]),
    "shmtrace_rd_cols_select_pid": (ctypes.c_int, [P, ctypes.c_int64]),
    "shmtrace_rd_cols_select_tid": (ctypes.c_int, [P, ctypes.c_uint32]),
    "shmtrace_rd_cols_select_begin": (ctypes.c_int, [P, ctypes.c_char_p]),
    "shmtrace_rd_cols_select_end": (ctypes.c_int, [P, ctypes.c_char_p]),
    "shmtrace_rd_cols_select_filter": (ctypes.c_int, [P, ctypes.c_char_p, ctypes.c_char_p,
                                                      ctypes.c_size_t]),
    "shmtrace_rd_cols_filter_unknown": (ctypes.c_char_p, [P, ctypes.c_uint,
                                                          ctypes.POINTER(ctypes.c_char_p)]),
    "shmtrace_rd_cols_add": (ctypes.c_int, [P, ctypes.c_char_p]),
    "shmtrace_rd_cols_add_all": (ctypes.c_int, [P]),
    "shmtrace_rd_cols_count": (ctypes.c_size_t, [P]),
    "shmtrace_rd_cols_name": (ctypes.c_char_p, [P, ctypes.c_size_t]),
    "shmtrace_rd_cols_seen": (ctypes.c_uint32, [P, ctypes.c_size_t]),
    "shmtrace_rd_cols_read": (ctypes.c_long, [P, ctypes.c_size_t, ctypes.POINTER(ColOut),
                                              ctypes.c_size_t, ctypes.POINTER(P),
                                              ctypes.POINTER(P)]),
    "shmtrace_rd_cols_string_count": (ctypes.c_size_t, [P]),
    "shmtrace_rd_cols_string_offsets": (P, [P]),
    "shmtrace_rd_cols_string_data": (P, [P]),
    "shmtrace_rd_cols_class_fields": (ctypes.c_long, [P, ctypes.c_uint32,
                                                      ctypes.POINTER(ctypes.c_int32),
                                                      ctypes.c_size_t]),
}

lib = load()
for _name, (_res, _args) in _SIGS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def text(b):
    """A C string of the library as str (None stays None)."""
    return b.decode("utf-8", "replace") if b is not None else None
