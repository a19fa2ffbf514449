#!/usr/bin/env python3
"""Manage Arbiter's job filter rules with Ganeti's own RAPI client.

Arbiter serves Ganeti's /2/filters resource (the queue `default`), so
ganeti.rapi.client.GanetiRapiClient, the client gnt-* tools and scripts use
against a cluster's RAPI daemon, works against Arbiter unchanged: it logs in with
HTTP Basic, and Arbiter takes the admin token as the password (the user name is
not read).

  ARBITER_HOST         Arbiter's host name (a deployed Worker serves HTTPS on 443)
  ARBITER_ADMIN_TOKEN  Arbiter's ADMIN_TOKEN (adding and removing rules is an admin action)
  ARBITER_PORT         another port than 443 (`npm start -- --local-protocol https`: 8787)
  ARBITER_CA_FILE      a certificate to trust instead of curl's CA bundle (a local
                       server's self-signed one)

Needs Ganeti's Python package (ganeti.rapi.client, with pycurl), as installed on a
Ganeti node or from a Ganeti source tree.
"""
import os

from ganeti.rapi import client as rapi

HOST = os.environ["ARBITER_HOST"]
PORT = int(os.environ.get("ARBITER_PORT", "443"))
TOKEN = os.environ["ARBITER_ADMIN_TOKEN"]
CA_FILE = os.environ.get("ARBITER_CA_FILE")

# The client checks no certificate unless told to: check the server's, and its name.
tls = rapi.GenericCurlConfig(use_curl_cabundle=CA_FILE is None, cafile=CA_FILE, verify_hostname=True)
arbiter = rapi.GanetiRapiClient(HOST, port=PORT, username="arbiter", password=TOKEN, curl_config_fn=tls)

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
print("reason trail", [entry[0] for entry in arbiter.GetFilter(uuid)["reason_trail"]])
arbiter.DeleteFilter(uuid)
print("deleted", uuid)
