"""
pScheduler's own LimitProcessor, driven by Arbiter's limits benchmark
(bench/native/pscheduler.ts) over stdin and stdout, one JSON object a line.

Started as: python3 pscheduler-limits.py LIMITS_FILE JQ_LIBRARY_DIR [JQ_LOOP_SO]
with PYTHONPATH holding our `pyjq` shim and the extracted `pscheduler` package,
and PYJQ_LIBJQ naming libjq.so.

The DNS identifier (ip-cymru-bogon) answers NXDOMAIN from memory, as the
Arbiter bench's resolver does, so the figure is the processor's own cost; the
query name is still built from the requester as pScheduler builds it.

Commands (one a line) and answers:
  {"op": "check", "task", "hints", "rewrite"} -> {"passed", "task", "diags"}
  {"op": "time", "task", "hints", "rewrite", "n"} -> {"us": CPU µs per process()}
  {"op": "shim", "task", "hints", "rewrite", "n"} -> every jq script one
     process() runs, each on the value it is given there, timed n times through
     the shim and in C: {"calls", "all_us": µs of Script.all summed over the
     calls, "core_us": µs of the same runs in C (jq-loop.so), summed}
"""

import ctypes
import copy
import json
import sys
import time

import dns.resolver

import _pyjq

import pscheduler.jqfilter
from pscheduler.limitprocessor.limitprocessor import LimitProcessor
from pscheduler.limitprocessor.identifier.ipcymrubogon import IdentifierIPCymruBogon


class _NxdomainResolver(object):
    """Every name is NXDOMAIN, answered from memory."""

    def query(self, host, rdtype):
        raise dns.resolver.NXDOMAIN()

    resolve = query


def _processor(limits_file, jq_library_dir):
    # where an installed pScheduler's jq finds "pscheduler/iso8601"
    pscheduler.jqfilter._DEFAULT_LIBRARY_PATH = [jq_library_dir]
    processor = LimitProcessor(limits_file)
    replaced = 0
    for identifier in processor.identifiers.identifiers:
        if isinstance(identifier["evaluator"], IdentifierIPCymruBogon):
            identifier["evaluator"].resolver = _NxdomainResolver()
            replaced += 1
    if replaced == 0:
        raise SystemExit("no ip-cymru-bogon identifier found to answer from memory")
    return processor


def _jq_calls(processor, task, hints, rewrite):
    """(script, input) of every jq evaluation one process() makes, in order."""
    calls = []
    original = _pyjq.Script.all

    def recording(self, value):
        calls.append((self, copy.deepcopy(value)))
        return original(self, value)

    _pyjq.Script.all = recording
    try:
        processor.process(task, hints, rewrite)
    finally:
        _pyjq.Script.all = original
    return calls


def main():
    limits_file, jq_library_dir = sys.argv[1], sys.argv[2]
    loop = None
    if len(sys.argv) > 3:
        loop = ctypes.CDLL(sys.argv[3]).arbiter_jq_loop
        loop.restype = ctypes.c_double
        from _pyjq import _Jv

        loop.argtypes = [ctypes.c_void_p, _Jv, ctypes.c_int]
    processor = _processor(limits_file, jq_library_dir)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "check":
            passed, diags, task, _priority = processor.process(cmd["task"], cmd["hints"], cmd["rewrite"])
            answer = {"passed": passed, "task": task, "diags": diags}
        elif op == "time":
            task, hints, rewrite, n = cmd["task"], cmd["hints"], cmd["rewrite"], cmd["n"]
            process = processor.process
            t0 = time.process_time_ns()
            for _ in range(n):
                process(task, hints, rewrite)
            answer = {"us": (time.process_time_ns() - t0) / n / 1000}
        elif op == "shim":
            if loop is None:
                raise SystemExit("the shim's overhead needs jq-loop.so")
            calls = _jq_calls(processor, cmd["task"], cmd["hints"], cmd["rewrite"])
            n, all_us, core_us = cmd["n"], 0.0, 0.0
            for script, value in calls:
                t0 = time.process_time_ns()
                for _ in range(n):
                    script.all(value)
                all_us += (time.process_time_ns() - t0) / n / 1000
                core_us += script.core_ns(value, n, loop) / 1000
            answer = {"calls": len(calls), "all_us": all_us, "core_us": core_us}
        else:
            answer = {"error": "unknown op %r" % op}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
