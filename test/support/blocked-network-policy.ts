/**
 * A pScheduler limits policy for the url-fetch tests: requesters in
 * 198.51.100.0/24 are refused by a named limit, everyone else passes.
 * No imports, so both the Node and the workerd projects can load it.
 */
export const BLOCKED_NETWORK_POLICY = JSON.stringify({
  schema: 1,
  identifiers: [
    { name: "blocked", description: "b", type: "ip-cidr-list", data: { cidrs: ["198.51.100.0/24"] } },
    { name: "everybody", description: "all", type: "always", data: {} },
  ],
  classifiers: [
    { name: "blocked", description: "b", identifiers: ["blocked"] },
    { name: "everybody", description: "all", identifiers: ["everybody"] },
  ],
  limits: [
    { name: "pass", description: "p", type: "pass-fail", data: { pass: true } },
    {
      name: "no-blocked",
      description: "refuses the blocked network",
      type: "pass-fail",
      data: { pass: false },
    },
  ],
  applications: [
    { classifier: "blocked", apply: [{ require: "all", limits: ["no-blocked"] }], "stop-on-failure": true },
    { classifier: "everybody", apply: [{ require: "all", limits: ["pass"] }] },
  ],
});
