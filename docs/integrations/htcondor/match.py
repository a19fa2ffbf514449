#!/usr/bin/env python3
"""Ask Arbiter to match a pool's idle jobs, with ads read by HTCondor's Python bindings.

The schedd's idle jobs and the collector's slot ads go to POST /v1/match as ClassAd
text (str(ad) is the new syntax Arbiter reads); Arbiter applies the pool-wide policy
(NEGOTIATOR_PE_* of its pool.conf) and answers which slot each job would get.
With --check, the collector's schedd and slot ads go to POST /v1/ads/check instead.

  ARBITER_URL             Arbiter's base URL (default http://127.0.0.1:8787)
  ARBITER_DECISION_TOKEN  a token of Arbiter's DECISION_TOKENS (optional)

Needs the htcondor bindings (pip install htcondor) and a pool to query.
"""
import json
import os
import sys
import urllib.request

import htcondor

ARBITER = os.environ.get("ARBITER_URL", "http://127.0.0.1:8787").rstrip("/")
TOKEN = os.environ.get("ARBITER_DECISION_TOKEN")


def ask(path, body):
    headers = {"content-type": "application/json"}
    if TOKEN:
        headers["authorization"] = "Bearer " + TOKEN
    request = urllib.request.Request(ARBITER + path, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


collector = htcondor.Collector()
slots = collector.query(htcondor.AdTypes.Startd)[:2000]  # Arbiter takes up to 2,000 machines per request

if "--check" in sys.argv[1:]:
    for kind, ads in (("schedd", collector.query(htcondor.AdTypes.Schedd)), ("startd", slots)):
        for ad in ads:
            verdict = ask("/v1/ads/check", {"kind": kind, "ad": str(ad)})
            print(kind, ad.get("Name"), "discarded" if verdict["discarded"] else "kept")
    sys.exit(0)

schedd_ad = collector.locate(htcondor.DaemonTypes.Schedd)
schedd = htcondor.Schedd(schedd_ad)
machines = [str(ad) for ad in slots]
for job in schedd.query(constraint="JobStatus == 1", limit=20):  # idle jobs
    verdict = ask("/v1/match", {"job": str(job), "machines": machines, "schedd": str(schedd_ad)})
    job_id = f"{job.get('ClusterId')}.{job.get('ProcId')}"
    if verdict["job"]["discarded"]:
        print(job_id, "discarded by NEGOTIATOR_PE_JOB_ONLY_EXPR")
    else:
        print(job_id, "->", verdict["best"] or "no match")
