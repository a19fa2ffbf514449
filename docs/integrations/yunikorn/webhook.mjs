#!/usr/bin/env node
// A Kubernetes mutating admission webhook that asks Arbiter which YuniKorn queue a pod
// goes to (POST /v1/place) and writes the answer into the pod's `queue` label, where
// YuniKorn's `provided` placement rule reads it. A rejection denies the pod.
//
//   ARBITER_URL            Arbiter's base URL (default http://127.0.0.1:8787)
//   ARBITER_DECISION_TOKEN a token of Arbiter's DECISION_TOKENS (optional)
//   PORT                   where to listen (default 8443)
//   TLS_CERT, TLS_KEY      PEM files: serve HTTPS, as the API server requires;
//                          without them, plain HTTP (for trying it locally)
//   PARTITION              YuniKorn partition (default "default")
//
// Node 20 or later, no dependencies. docs/integrations/yunikorn.md explains the setup.
import { readFileSync } from "node:fs";
import { createServer as createHttp } from "node:http";
import { createServer as createHttps } from "node:https";

const arbiter = (process.env.ARBITER_URL ?? "http://127.0.0.1:8787").replace(/\/$/, "");
const token = process.env.ARBITER_DECISION_TOKEN;
const partition = process.env.PARTITION ?? "default";

/** The placement request for the pod of an AdmissionReview: who creates it, their groups, its namespace and labels. */
function placeRequest(review) {
  const request = review.request;
  const pod = request.object ?? {};
  const labels = pod.metadata?.labels ?? {};
  const body = {
    partition,
    user: request.userInfo?.username ?? "",
    groups: request.userInfo?.groups ?? [],
    tags: { namespace: request.namespace ?? pod.metadata?.namespace ?? "default" },
  };
  const asked = labels.queue ?? pod.metadata?.annotations?.["yunikorn.apache.org/queue"];
  if (asked) body.queue = asked;
  const app = labels.applicationId ?? pod.metadata?.annotations?.["yunikorn.apache.org/app-id"];
  if (app) body.applicationId = app;
  return body;
}

/** JSON Patch setting the pod's `queue` label (creating the labels map when the pod has none). */
function queuePatch(pod, queue) {
  if (pod.metadata?.labels === undefined) return [{ op: "add", path: "/metadata/labels", value: { queue } }];
  return [{ op: pod.metadata.labels.queue === undefined ? "add" : "replace", path: "/metadata/labels/queue", value: queue }];
}

/** Arbiter's verdict for one review, turned into the AdmissionReview answer. */
async function review(body) {
  const uid = body.request?.uid ?? "";
  const answer = (response) => ({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid, ...response } });
  if (body.request?.kind?.kind !== "Pod") return answer({ allowed: true });
  const res = await fetch(`${arbiter}/v1/place`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(placeRequest(body)),
  });
  const verdict = await res.json();
  if (res.status !== 200) return answer({ allowed: false, status: { code: 500, message: `Arbiter answered ${res.status}: ${verdict.error?.message ?? ""}` } });
  if (verdict.rejected) return answer({ allowed: false, status: { code: 403, message: verdict.reason } });
  const patch = queuePatch(body.request.object ?? {}, verdict.queue);
  return answer({ allowed: true, patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(patch)).toString("base64") });
}

async function handle(req, res) {
  let text = "";
  for await (const chunk of req) text += chunk;
  let out;
  try {
    out = await review(JSON.parse(text));
  } catch (e) {
    res.writeHead(400, { "content-type": "text/plain" });
    res.end(`cannot review: ${e.message}\n`);
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(out));
}

const tls = process.env.TLS_CERT && process.env.TLS_KEY ? { cert: readFileSync(process.env.TLS_CERT), key: readFileSync(process.env.TLS_KEY) } : undefined;
const server = tls ? createHttps(tls, handle) : createHttp(handle);
const port = Number(process.env.PORT ?? 8443);
server.listen(port, () => console.log(`placement webhook on ${tls ? "https" : "http"}://0.0.0.0:${port}, asking ${arbiter}`));
