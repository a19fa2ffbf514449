#!/usr/bin/env python3
"""Manage Arbiter's job filter rules with Ganeti's own RAPI client.

Arbiter serves Ganeti's /2/filters resource (the queue `default`), so
ganeti.rapi.client.GanetiRapiClient, the client gnt-* tools and scripts use
against a cluster's RAPI daemon, works against Arbiter unchanged. Only the
authentication differs: Arbiter takes a bearer token, which curl_config_fn adds.

  ARBITER_HOST         Arbiter's host name (the Worker's, served on HTTPS port 443)
  ARBITER_ADMIN_TOKEN  Arbiter's ADMIN_TOKEN (adding and removing rules is an admin action)

Needs Ganeti's Python package (ganeti.rapi.client, with pycurl), as installed on a
Ganeti node or from a Ganeti source tree.
"""
import os

import pycurl
from ganeti.rapi import client as rapi

TOKEN = os.environ["ARBITER_ADMIN_TOKEN"]


def bearer_token(curl, logger):
    # The client sets Accept and Content-type itself; this list replaces it, so keep them.
    curl.setopt(pycurl.HTTPHEADER, [
        "Accept: application/json",
        "Content-type: application/json",
        "Authorization: Bearer " + TOKEN,
    ])
    # The client does not check certificates unless told to.
    curl.setopt(pycurl.SSL_VERIFYPEER, True)
    curl.setopt(pycurl.SSL_VERIFYHOST, 2)


arbiter = rapi.GanetiRapiClient(os.environ["ARBITER_HOST"], port=443, curl_config_fn=bearer_token)

# At most two disk replacements at a time, as `gnt-filter add --action "RATE_LIMIT 2"` would.
uuid = arbiter.AddFilter(
    priority=10,
    predicates=[["opcode", ["=", "OP_ID", "OP_INSTANCE_REPLACE_DISKS"]]],
    action=["RATE_LIMIT", 2],
    reason_trail=[["gnt:user", "protect the disks", 0]],
)
print("added", uuid)
for rule in arbiter.GetFilters(bulk=True):
    print(rule["uuid"], rule["priority"], rule["action"], rule["predicates"])
arbiter.DeleteFilter(uuid)
print("deleted", uuid)
