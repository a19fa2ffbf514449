#!/usr/bin/env python3
"""Runs Ganeti's own RAPI client against an Arbiter server and checks what
Ganeti's QA expects of the filter rules and the job queue.

This is our harness, not Ganeti code: it loads the client from the file the
caller names (GANETI_RAPI_CLIENT, Ganeti's lib/rapi/client.py), drives
GanetiRapiClient's filter methods (GetFilters, GetFilter, AddFilter,
ReplaceFilter, DeleteFilter) through the scenarios of Ganeti's
qa/qa_filters.py, and submits the jobs those scenarios start with
`gnt-debug delay` to Arbiter's job routes (/v1/queues/default/jobs), since the
RAPI client has no call for them.

  GANETI_RAPI_CLIENT=/path/to/ganeti/lib/rapi/client.py \
      python3 rapi_client_harness.py --port 8860 \
      [--token TOKEN] [--record transcript.yaml]

Exit status 0 when every scenario held; 1 with the failed checks on stderr.
With --record, every HTTP exchange (the bytes the client sent, the status and
body it got back) is written as the case file test/worker/ganeti-rapi.test.ts
replays, with uuids, server timestamps and decision ids turned into
placeholders.
"""

import argparse
import importlib.util
import json
import os
import re
import sys
import time

import pycurl

QUEUE = "default"
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def load_client():
  """Imports the lib/rapi/client.py named by GANETI_RAPI_CLIENT (it is standalone)."""
  path = os.environ.get("GANETI_RAPI_CLIENT")
  if not path or not os.path.isfile(path):
    sys.exit("GANETI_RAPI_CLIENT does not name a file (Ganeti's lib/rapi/client.py)")
  spec = importlib.util.spec_from_file_location("ganeti_rapi_client", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


class Recorder(object):
  """Captures every exchange curl makes, labelled by the call that made it."""

  def __init__(self):
    self.exchanges = []
    self.label = None
    self.scenario = None

  def configure(self, curl, _logger=None):
    """curl_config_fn: hooks curl's debug stream into a new exchange."""
    ex = {"scenario": self.scenario, "call": self.label,
          "out_head": b"", "out_body": b"", "in_head": b"", "in_body": b""}
    self.exchanges.append(ex)

    def debug(kind, data):
      if isinstance(data, str):
        data = data.encode("latin-1")
      if kind == pycurl.INFOTYPE_HEADER_OUT:
        ex["out_head"] += data
      elif kind == pycurl.INFOTYPE_DATA_OUT:
        ex["out_body"] += data
      elif kind == pycurl.INFOTYPE_HEADER_IN:
        ex["in_head"] += data
      elif kind == pycurl.INFOTYPE_DATA_IN:
        ex["in_body"] += data

    curl.setopt(pycurl.VERBOSE, True)
    curl.setopt(pycurl.DEBUGFUNCTION, debug)


class Harness(object):
  def __init__(self, module, host, port, token):
    self.C = module
    self.rec = Recorder()
    self.host = host
    self.port = port
    self.token = token
    user = "arbiter" if token else None
    self.cl = module.GanetiRapiClient(host, port=port, username=user,
                                      password=token,
                                      curl_config_fn=self.rec.configure)
    self.failures = []

  # ---- calls ----

  def call(self, label, fn):
    """Runs one client call; answers (result, None) or (None, GanetiApiError)."""
    self.rec.label = label
    try:
      return fn(), None
    except self.C.GanetiApiError as err:
      return None, err

  def job(self, label, method, path, body=None):
    """One request to Arbiter's job routes, sent as the client sends its own."""
    self.rec.label = label
    curl = pycurl.Curl()
    curl.setopt(pycurl.SSL_VERIFYHOST, 0)
    curl.setopt(pycurl.SSL_VERIFYPEER, False)
    headers = ["Accept: application/json", "Content-type: application/json"]
    if self.token:
      headers.append("Authorization: Bearer %s" % self.token)
    curl.setopt(pycurl.HTTPHEADER, headers)
    curl.setopt(pycurl.CUSTOMREQUEST, method)
    curl.setopt(pycurl.URL, "https://%s:%s%s" % (self.host, self.port, path))
    curl.setopt(pycurl.POSTFIELDS, "" if body is None else json.dumps(body, sort_keys=True))
    chunks = []
    curl.setopt(pycurl.WRITEFUNCTION, chunks.append)
    self.rec.configure(curl)
    curl.perform()
    status = curl.getinfo(pycurl.RESPONSE_CODE)
    text = b"".join(chunks).decode("utf-8")
    return status, (json.loads(text) if text else None)

  def delay(self, reason=None):
    """What `gnt-debug delay [--reason=R] 0.01` submits: one OP_TEST_DELAY with gnt-debug's reason trail."""
    trail = []
    if reason is not None:
      trail.append(["gnt:user", reason, epoch_nano()])
    trail.append(["gnt:client:gnt-debug", "delay", epoch_nano()])
    op = {"OP_ID": "OP_TEST_DELAY", "duration": 0.01, "on_master": True,
          "on_nodes": [], "repeat": 0, "reason": trail}
    label = "gnt-debug delay%s 0.01" % ("" if reason is None else " --reason=%s" % reason)
    status, body = self.job(label, "POST", "/v1/queues/%s/jobs" % QUEUE, {"opcodes": [op]})
    self.check(status == 200, "job submission answered %s %r" % (status, body))
    return body

  def finish(self, job_id):
    """The job ends (a delay job that ran, or `gnt-job cancel --kill`)."""
    status, body = self.job("job %d finishes" % job_id, "POST",
                            "/v1/queues/%s/jobs/%d/finish" % (QUEUE, job_id))
    self.check(status == 200, "finish answered %s %r" % (status, body))

  def status(self, job_id):
    """`gnt-job info`: the job's state, decided again if it is held."""
    status, body = self.job("gnt-job info %d" % job_id, "GET",
                            "/v1/queues/%s/jobs/%d" % (QUEUE, job_id))
    self.check(status == 200, "job status answered %s %r" % (status, body))
    return body

  def ran(self, verdict):
    """A delay job that was accepted runs and succeeds; a refused one fails."""
    if verdict.get("run"):
      self.finish(verdict["job_id"])
      return True
    return False

  # ---- checks ----

  def check(self, ok, message):
    if not ok:
      self.failures.append("%s: %s" % (self.rec.scenario, message))

  def add(self, priority=0, predicates=None, action="CONTINUE", reason_trail=None, label=None):
    args = (priority, predicates or [], action, reason_trail)
    uuid, err = self.call(label or "AddFilter(%d, %s, %s)" % (priority, json.dumps(predicates or []), json.dumps(action)),
                          lambda: self.cl.AddFilter(*args))
    self.check(err is None and UUID_RE.fullmatch(uuid or "") is not None, "AddFilter answered %r / %s" % (uuid, err))
    return uuid

  def delete(self, uuid):
    result, err = self.call("DeleteFilter(uuid)", lambda: self.cl.DeleteFilter(uuid))
    self.check(err is None and result is None, "DeleteFilter answered %r / %s" % (result, err))


def epoch_nano():
  """Ganeti's utils.EpochNano: nanoseconds since the epoch."""
  return int(time.time() * 1000000000)


# ---- the scenarios of qa/qa_filters.py ----

def TestFilterAddRemove(h):
  uuid1 = h.add(reason_trail=[("gnt:user", "reason1", epoch_nano())],
                label='AddFilter(0, [], "CONTINUE", [("gnt:user", "reason1", ts)])  # gnt-filter add --reason reason1')
  uuids, err = h.call("GetFilters()", lambda: h.cl.GetFilters())
  h.check(err is None and uuids == [uuid1], "GetFilters answered %r / %s" % (uuids, err))
  bulk, err = h.call("GetFilters(bulk=True)", lambda: h.cl.GetFilters(bulk=True))
  h.check(err is None and [r["uuid"] for r in bulk] == [uuid1], "GetFilters(bulk) answered %r / %s" % (bulk, err))
  rule, err = h.call("GetFilter(uuid)", lambda: h.cl.GetFilter(uuid1))
  h.check(err is None and rule == bulk[0], "GetFilter answered %r / %s" % (rule, err))
  h.check(list(rule) == ["watermark", "priority", "predicates", "action", "reason_trail", "uuid"],
          "rule keys %r" % list(rule))
  h.check([e[:2] for e in rule["reason_trail"]] == [["gnt:user", "reason1"], ["gnt:client", ""], ["luxid", ""]],
          "reason trail %r" % rule["reason_trail"])
  h.delete(uuid1)
  uuids, err = h.call("GetFilters()", lambda: h.cl.GetFilters())
  h.check(err is None and uuids == [], "GetFilters after delete answered %r / %s" % (uuids, err))


def TestFilterWatermark(h):
  jid1 = h.delay()["job_id"]
  h.finish(jid1)
  uuid = h.add(label="AddFilter(0, [], \"CONTINUE\")  # gnt-filter add")
  jid2 = h.delay()["job_id"]
  h.finish(jid2)
  rule, err = h.call("GetFilter(uuid)  # gnt-filter info", lambda: h.cl.GetFilter(uuid))
  h.check(err is None and jid1 <= rule["watermark"] < jid2,
          "watermark not in range: %d <= %r < %d" % (jid1, rule and rule["watermark"], jid2))
  h.delete(uuid)


def TestFilterReject(h):
  uuid = h.add(0, [["jobid", [">", "id", "watermark"]]], "REJECT")
  v = h.delay()
  h.check(v["action"] == "REJECT" and v["state"] == "cancelled", "new job not rejected: %r" % v)
  h.delete(uuid)


def TestFilterOpCode(h):
  h.check(h.ran(h.delay()), "a delay job did not run before the filter")
  uuid = h.add(0, [["opcode", ["=", "OP_ID", "OP_TEST_DELAY"]]], "REJECT")
  v = h.delay()
  h.check(v["action"] == "REJECT" and not v["run"], "delay job not rejected: %r" % v)
  h.delete(uuid)


def TestFilterContinue(h):
  uuid_cont = h.add(0, [["jobid", [">", "id", "watermark"]]], "CONTINUE")
  uuid_reject = h.add(1, [["jobid", [">", "id", "watermark"]]], "REJECT")
  v = h.delay()
  h.check(v["action"] == "REJECT" and v["rule"] == uuid_reject, "job not rejected by the second rule: %r" % v)
  h.delete(uuid_reject)
  h.check(h.ran(h.delay()), "job did not run once the REJECT rule was deleted")
  h.delete(uuid_cont)


def TestFilterReasonChain(h):
  uuid1 = h.add(0, [["reason", ["=", "reason", "allow this"]]], "ACCEPT")
  uuid2 = h.add(1, [["jobid", [">", "id", "watermark"]]], "REJECT")
  v = h.delay()
  h.check(v["action"] == "REJECT", "job without the reason not rejected: %r" % v)
  v = h.delay(reason="allow this")
  h.check(v["action"] == "ACCEPT" and v["rule"] == uuid1 and h.ran(v), "job with the reason not accepted: %r" % v)
  h.delete(uuid1)
  h.delete(uuid2)


def TestFilterAcceptPause(h):
  uuid1 = h.add(0, [["reason", ["=", "reason", "allow this"]]], "ACCEPT")
  uuid2 = h.add(1, [["jobid", [">", "id", "watermark"]]], "PAUSE")
  v1 = h.delay()
  v2 = h.delay(reason="allow this")
  h.check(v1["action"] == "PAUSE" and v1["state"] == "queued", "job 1 not paused: %r" % v1)
  h.check(v2["action"] == "ACCEPT" and h.ran(v2), "job 2 paused: %r" % v2)
  h.check(h.status(v1["job_id"])["state"] == "queued", "job 1 left the queue while paused")
  h.delete(uuid1)
  h.delete(uuid2)
  v1 = h.status(v1["job_id"])
  h.check(v1["action"] == "ACCEPT" and v1["state"] == "running", "paused job did not start once the rules were gone: %r" % v1)
  h.ran(v1)


def TestFilterRateLimit(h):
  uuid = h.add(0, [["jobid", [">", "id", "watermark"]]], ["RATE_LIMIT", 2])
  jobs = [h.delay() for _ in range(3)]
  h.check([j["state"] for j in jobs] == ["running", "running", "queued"],
          "states %r" % [j["state"] for j in jobs])
  h.check(jobs[2]["action"] == "RATE_LIMITED", "third job %r" % jobs[2])
  h.delete(uuid)
  for j in jobs[:2]:
    h.finish(j["job_id"])
  h.ran(h.status(jobs[2]["job_id"]))


def TestAdHocReasonRateLimit(h):
  jobs = [h.delay(reason="rate-limit:2:hello") for _ in range(3)]
  h.check([j["state"] for j in jobs] == ["running", "running", "queued"],
          "states %r" % [j["state"] for j in jobs])
  h.check(jobs[2]["action"] == "ADHOC_RATE_LIMITED", "third job %r" % jobs[2])
  for j in jobs[:2]:
    h.finish(j["job_id"])
  h.ran(h.status(jobs[2]["job_id"]))


def ClientErrors(h):
  """How the client reports the RAPI's refusals (GanetiApiError with the HTTP code)."""
  missing = "0c8ad2f4-6a2b-4c5e-9d1f-3b7a9e2c4d60"
  cases = [
    ("GetFilter(unknown uuid)", lambda: h.cl.GetFilter(missing), 404),
    ("DeleteFilter(unknown uuid)", lambda: h.cl.DeleteFilter(missing), 404),
    ("ReplaceFilter(\"not-a-uuid\", 0, [], \"ACCEPT\")", lambda: h.cl.ReplaceFilter("not-a-uuid", 0, [], "ACCEPT"), 400),
    ("AddFilter(-1, [], \"ACCEPT\")", lambda: h.cl.AddFilter(-1, [], "ACCEPT"), 400),
    ("AddFilter(0, [], \"FOO\")", lambda: h.cl.AddFilter(0, [], "FOO"), 400),
    ("AddFilter(0, [[\"foo\", 1]], \"ACCEPT\")", lambda: h.cl.AddFilter(0, [["foo", 1]], "ACCEPT"), 400),
    ("AddFilter(0, [[\"opcode\", [\"~\", \"OP_ID\", \"x\"]]], \"ACCEPT\")",
     lambda: h.cl.AddFilter(0, [["opcode", ["~", "OP_ID", "x"]]], "ACCEPT"), 400),
    # test/py/legacy/ganeti.rapi.client_unittest.py testAddFilter passes a flat trail
    ("AddFilter(1, ..., reason_trail=[\"testAddFilter\", \"myreason\", ts])  # client_unittest testAddFilter",
     lambda: h.cl.AddFilter(1, [["jobid", [">", "id", "watermark"]]], "CONTINUE",
                            reason_trail=["testAddFilter", "myreason", epoch_nano()]), 400),
  ]
  for label, fn, code in cases:
    result, err = h.call(label, fn)
    h.check(err is not None and err.code == code, "%s answered %r / %s, not %d" % (label, result, err, code))
  uuids, err = h.call("GetFilters()", lambda: h.cl.GetFilters())
  h.check(err is None and uuids == [], "a refused call left a rule behind: %r" % uuids)


def ReplaceCreates(h):
  """ReplaceFilter on an unknown uuid creates the rule with that uuid (client_unittest testReplaceFilter)."""
  uuid = "4364c043-f232-41e3-837f-f1ce846f21d2"
  result, err = h.call("ReplaceFilter(uuid, 1, [[\"jobid\", [\">\", \"id\", \"watermark\"]]], \"CONTINUE\")",
                       lambda: h.cl.ReplaceFilter(uuid, 1, [["jobid", [">", "id", "watermark"]]], "CONTINUE"))
  h.check(err is None and result == uuid, "ReplaceFilter answered %r / %s" % (result, err))
  rule, err = h.call("GetFilter(uuid)", lambda: h.cl.GetFilter(uuid))
  h.check(err is None and rule["priority"] == 1 and rule["action"] == "CONTINUE", "GetFilter answered %r" % rule)
  result, err = h.call("ReplaceFilter(uuid, 2, [], [\"RATE_LIMIT\", 3])",
                       lambda: h.cl.ReplaceFilter(uuid, 2, [], ["RATE_LIMIT", 3]))
  rule, err = h.call("GetFilter(uuid)", lambda: h.cl.GetFilter(uuid))
  h.check(err is None and rule["action"] == ["RATE_LIMIT", 3] and len(rule["reason_trail"]) == 2,
          "replaced rule %r" % rule)
  h.delete(uuid)


def Authentication(h):
  """With a token set: the client's HTTP Basic password is the token (ganeti.server.rapi_unittest testQueryAuth)."""
  if not h.token:
    return
  for label, user, password, code in [("wrong password", "admin", "wrongpass", 401), ("no credentials", None, None, 401)]:
    other = h.C.GanetiRapiClient(h.host, port=h.port, username=user, password=password, curl_config_fn=h.rec.configure)
    result, err = h.call("AddFilter(0, [], \"PAUSE\")  # %s" % label, lambda: other.AddFilter(0, [], "PAUSE"))
    h.check(err is not None and err.code == code, "%s: AddFilter answered %r / %s" % (label, result, err))


SCENARIOS = [Authentication, TestFilterAddRemove, TestFilterWatermark, TestFilterReject, TestFilterOpCode,
             TestFilterContinue, TestFilterReasonChain, TestFilterAcceptPause,
             TestFilterRateLimit, TestAdHocReasonRateLimit, ClientErrors, ReplaceCreates]


# ---- the transcript ----

def split_head(raw):
  lines = raw.decode("latin-1").split("\r\n")
  return lines[0], dict((k.strip().lower(), v.strip()) for k, _, v in
                        (l.partition(":") for l in lines[1:] if ":" in l))


class Normalizer(object):
  """Turns run-specific values into placeholders the replay binds or matches."""

  def __init__(self):
    self.names = {}
    self.literal = set()

  def text(self, s):
    """Uuids an answer gave (filter uuids) become ${ruleN} in paths and bodies; uuids the caller chose stay."""
    def sub(m):
      u = m.group(0)
      if u in self.names:
        return "${%s}" % self.names[u]
      self.literal.add(u)
      return u
    return UUID_RE.sub(sub, s)

  def uuid(self, u):
    if u in self.literal:
      return u
    if u not in self.names:
      self.names[u] = "rule%d" % (len(self.names) + 1)
    return "${%s}" % self.names[u]

  def value(self, v, key=None, in_trail=False):
    if isinstance(v, dict):
      return dict((k, self.value(x, k)) for k, x in v.items())
    if isinstance(v, list):
      if len(v) == 3 and v[0] == "luxid" and isinstance(v[2], int):
        return ["luxid", v[1], "<ns>"]
      return [self.value(x, key) for x in v]
    if isinstance(v, str):
      if key in ("decision_id",) or (key == "id" and UUID_RE.fullmatch(v)):
        return "<uuid>"
      if key == "expires_at":
        return "<time>"
      if key == "revision":
        return "${revision}"
      if UUID_RE.fullmatch(v):
        return self.uuid(v)
      return UUID_RE.sub(lambda m: self.uuid(m.group(0)), v)
    return v


def transcript(exchanges):
  norm = Normalizer()
  out = []
  for ex in exchanges:
    request_line, headers = split_head(ex["out_head"])
    method, target, _ = request_line.split(" ", 2)
    status_line, in_headers = split_head(ex["in_head"].strip())
    status = int(status_line.split(" ")[1])
    body = ex["in_body"].decode("utf-8")
    entry = {
      "scenario": ex["scenario"],
      "call": ex["call"],
      "request": {
        "method": method,
        "path": norm.text(target),
        "headers": dict((k, headers[k]) for k in ("accept", "content-type", "user-agent") if k in headers),
        "body": norm.text(ex["out_body"].decode("utf-8")),
      },
      "response": {
        "status": status,
        "content_type": in_headers.get("content-type"),
        "body": norm.value(json.loads(body)) if body else None,
      },
    }
    out.append(entry)
  return out


def to_yaml(value, indent=0):
  """A small YAML writer for the transcript (JSON scalars are YAML scalars)."""
  pad = "  " * indent
  if isinstance(value, dict):
    if not value:
      return "{}"
    lines = []
    for k, v in value.items():
      if isinstance(v, (dict, list)) and v and not (isinstance(v, list) and all(not isinstance(x, (dict, list)) for x in v) and k != "body"):
        if k == "body":
          lines.append("%s%s: %s" % (pad, k, json.dumps(v, ensure_ascii=False)))
        else:
          lines.append("%s%s:\n%s" % (pad, k, to_yaml(v, indent + 1)))
      else:
        lines.append("%s%s: %s" % (pad, k, json.dumps(v, ensure_ascii=False)))
    return "\n".join(lines)
  if isinstance(value, list):
    lines = []
    for v in value:
      inner = to_yaml(v, indent + 1)
      lines.append("%s- %s" % (pad, inner.lstrip()))
    return "\n".join(lines)
  return json.dumps(value, ensure_ascii=False)


HEADER = """\
# HTTP exchanges of Ganeti's own RAPI client (ganeti/ganeti lib/rapi/client.py,
# GanetiRapiClient: GetFilters, GetFilter, AddFilter, ReplaceFilter, DeleteFilter)
# with Arbiter, recorded by test/ganeti/rapi_client_harness.py while it replayed
# the scenarios of Ganeti's qa/qa_filters.py (TestFilterAddRemove ...
# TestAdHocReasonRateLimit; the `gnt-debug delay` jobs go to /v1/queues/default/jobs)
# and the filter calls of test/py/legacy/ganeti.rapi.client_unittest.py.
# Replayed in workerd by test/worker/ganeti-rapi.test.ts. Placeholders:
# ${ruleN} a filter uuid (bound on first sight), ${revision} the bundle
# revision, <uuid> any uuid, <ns> any integer (a server timestamp),
# <time> any ISO timestamp. Recorded with no token configured (the replay
# sends no credentials), so the Authentication scenario is not in it; the
# replay test checks authentication on its own.
"""


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--host", default="127.0.0.1")
  parser.add_argument("--port", type=int, required=True)
  parser.add_argument("--token", default=os.environ.get("ARBITER_ADMIN_TOKEN"))
  parser.add_argument("--record")
  parser.add_argument("--only", action="append")
  args = parser.parse_args()
  h = Harness(load_client(), args.host, args.port, args.token)
  for scenario in SCENARIOS:
    if args.only and scenario.__name__ not in args.only:
      continue
    h.rec.scenario = scenario.__name__
    try:
      scenario(h)
    except Exception as err:  # a crash is a failed scenario, reported with the rest
      h.failures.append("%s: %s: %s" % (scenario.__name__, type(err).__name__, err))
    print("%s: %s" % (scenario.__name__, "ok" if not any(f.startswith(scenario.__name__ + ":") for f in h.failures) else "FAILED"))
  if args.record:
    with open(args.record, "w") as f:
      f.write(HEADER)
      f.write(to_yaml(transcript(h.rec.exchanges)))
      f.write("\n")
  for failure in h.failures:
    print(failure, file=sys.stderr)
  sys.exit(1 if h.failures else 0)


if __name__ == "__main__":
  main()
