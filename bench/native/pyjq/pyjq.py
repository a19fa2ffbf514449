"""
A stand-in for the `pyjq` package (the Python binding to libjq that pScheduler's
limit processor imports), written for Arbiter's benchmarks: `compile`, `all`,
`first` and `one` as pyjq offers them, over `_pyjq` in this directory.
"""

from _pyjq import Script, ScriptRuntimeError  # noqa: F401


def compile(script, vars={}, library_paths=[]):
    """A compiled script; `vars` are predefined `$name` variables."""
    return Script(script, vars=vars, library_paths=library_paths)


def all(script, value=None, vars={}, library_paths=[]):
    """Every output of `script` on `value`, as a list."""
    return compile(script, vars, library_paths).all(value)


apply = all


def first(script, value=None, default=None, vars={}, library_paths=[]):
    """The first output of `script` on `value`, or `default` when there is none."""
    return compile(script, vars, library_paths).first(value, default)


def one(script, value=None, vars={}, library_paths=[]):
    """The only output of `script` on `value`; ValueError unless there is exactly one."""
    results = all(script, value, vars, library_paths)
    if len(results) != 1:
        raise ValueError("Result is not unique: %d outputs" % len(results))
    return results[0]
