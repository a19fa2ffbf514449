"""
A stand-in for pyjq's compiled `_pyjq` module, written for Arbiter's benchmarks:
the same names pScheduler uses (`Script`, `ScriptRuntimeError`), over libjq
through ctypes instead of a Cython extension.

Where it differs from pyjq: values cross into and out of jq as JSON text
(`json.dumps` + `jv_parse_sized` in, `jv_dump_string` + `json.loads` out), where
pyjq walks Python objects and jq values node by node in C; and each libjq call
is a ctypes call (about a microsecond, where Cython's is a C call). The number
of libjq calls per evaluation is the same small constant either way; the
conversions are where the cost differs (see `Script.core_ns`).

The library is `PYJQ_LIBJQ` (a path to libjq.so) or the system's libjq.
"""

import ctypes
import ctypes.util
import json
import os


class ScriptRuntimeError(Exception):
    """A jq script raised an error while it ran."""


class _Jv(ctypes.Structure):
    # jq 1.7's jv: kind and flags, padding, array offset, size, then a union of
    # a pointer and a double, which the x86-64 ABI passes as an integer word
    _fields_ = [
        ("kind_flags", ctypes.c_ubyte),
        ("pad_", ctypes.c_ubyte),
        ("offset", ctypes.c_ushort),
        ("size", ctypes.c_int),
        ("u", ctypes.c_uint64),
    ]


_MSG_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, _Jv)


def _load():
    path = os.environ.get("PYJQ_LIBJQ") or ctypes.util.find_library("jq")
    if not path:
        raise ImportError("no libjq: set PYJQ_LIBJQ to the path of libjq.so")
    lib = ctypes.CDLL(path)
    sig = {
        "jq_init": (ctypes.c_void_p, []),
        "jq_teardown": (None, [ctypes.POINTER(ctypes.c_void_p)]),
        "jq_set_error_cb": (None, [ctypes.c_void_p, _MSG_CB, ctypes.c_void_p]),
        "jq_set_attr": (None, [ctypes.c_void_p, _Jv, _Jv]),
        "jq_compile_args": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, _Jv]),
        "jq_start": (None, [ctypes.c_void_p, _Jv, ctypes.c_int]),
        "jq_next": (_Jv, [ctypes.c_void_p]),
        "jv_get_kind": (ctypes.c_int, [_Jv]),
        "jv_copy": (_Jv, [_Jv]),
        "jv_free": (None, [_Jv]),
        "jv_invalid_has_msg": (ctypes.c_int, [_Jv]),
        "jv_invalid_get_msg": (_Jv, [_Jv]),
        "jv_string": (_Jv, [ctypes.c_char_p]),
        "jv_string_value": (ctypes.c_char_p, [_Jv]),
        "jv_dump_string": (_Jv, [_Jv, ctypes.c_int]),
        "jv_parse_sized": (_Jv, [ctypes.c_char_p, ctypes.c_int]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


_lib = _load()
# jv_kind: INVALID, NULL, FALSE, TRUE, NUMBER, STRING, ARRAY, OBJECT (jv.h)
_INVALID, _STRING = 0, 5


def _from_json(value):
    """A jq value parsed from the JSON text of a Python value (owned by the caller)."""
    text = json.dumps(value).encode()
    v = _lib.jv_parse_sized(text, len(text))
    if _lib.jv_get_kind(v) == _INVALID:
        raise ValueError("value is not JSON: %s" % _message(v))
    return v


def _message(invalid):
    """The text of an invalid value's message; consumes it."""
    msg = _lib.jv_invalid_get_msg(invalid)
    if _lib.jv_get_kind(msg) == _STRING:
        text = _lib.jv_string_value(msg).decode("utf-8", "replace")
        _lib.jv_free(msg)
        return text
    dumped = _lib.jv_dump_string(msg, 0)
    text = _lib.jv_string_value(dumped).decode("utf-8", "replace")
    _lib.jv_free(dumped)
    return text


class Script(object):
    """A compiled jq program: one jq_state, compiled once, started once per input."""

    def __init__(self, script, vars={}, library_paths=[]):
        self._errors = []

        def on_error(_data, err):
            if _lib.jv_get_kind(err) == _INVALID:
                self._errors.append(_message(err))
            elif _lib.jv_get_kind(err) == _STRING:
                self._errors.append(_lib.jv_string_value(err).decode("utf-8", "replace"))
                _lib.jv_free(err)
            else:
                dumped = _lib.jv_dump_string(err, 0)
                self._errors.append(_lib.jv_string_value(dumped).decode("utf-8", "replace"))
                _lib.jv_free(dumped)

        self._cb = _MSG_CB(on_error)  # kept alive as long as the state
        self._jq = ctypes.c_void_p(_lib.jq_init())
        if not self._jq:
            raise MemoryError("jq_init failed")
        _lib.jq_set_error_cb(self._jq, self._cb, None)
        _lib.jq_set_attr(self._jq, _lib.jv_string(b"JQ_LIBRARY_PATH"), _from_json(list(library_paths)))
        if not _lib.jq_compile_args(self._jq, script.encode("utf-8"), _from_json(dict(vars))):
            raise ValueError("\n".join(self._errors) or "jq: the script does not compile")

    def __del__(self):
        if getattr(self, "_jq", None):
            _lib.jq_teardown(ctypes.byref(self._jq))

    def all(self, value):
        """Every output of the script on `value`, as a list of Python values."""
        _lib.jq_start(self._jq, _from_json(value), 0)
        out = []
        while True:
            r = _lib.jq_next(self._jq)
            if _lib.jv_get_kind(r) == _INVALID:
                if _lib.jv_invalid_has_msg(_lib.jv_copy(r)):
                    raise ScriptRuntimeError(_message(r))
                _lib.jv_free(r)
                return out
            dumped = _lib.jv_dump_string(r, 0)
            out.append(json.loads(_lib.jv_string_value(dumped)))
            _lib.jv_free(dumped)

    def first(self, value, default=None):
        """The first output of the script on `value`, or `default` when there is none."""
        results = self.all(value)
        return results[0] if results else default

    def core_ns(self, value, n, loop):
        """CPU ns per run of the script alone on `value`: jq_start and jq_next in C
        (`loop`, bench/native/jq-loop.c), without the shim's conversions or calls."""
        v = _from_json(value)
        ns = loop(self._jq, v, n)
        _lib.jv_free(v)
        return ns
