/**
 * Customs host-pool benchmark: allocations per second over a pool of 1,000
 * hosts in-process (the Durable Object's hot path: one selection over the
 * prepared pool plus counting the job on the chosen host), against reading the
 * allocation request (JSON.parse + zod + engine validation) in the same run.
 * Run directly with `npx tsx bench/customs.ts`.
 */
import {
  decideCustoms,
  DEFAULT_POLICY_DATA,
  loadCustomsPolicy,
  normalizeHost,
  normalizeRequest,
  prepareHost,
  prepareRequest,
  selectHost,
  withJobs,
  type PreparedHost,
} from "../src/engines/customs/index.js";
import { hostSchemas } from "../src/http/schemas/hosts.js";
import { measure, printTable, type BenchRow } from "./support.js";
import { CUSTOMS_REQUEST as REQUEST, rawHosts as rawPool } from "./fixtures.js";

const POOL_SIZE = 1_000;
const policy = loadCustomsPolicy(DEFAULT_POLICY_DATA);

function preparedPool(raw: object[]): PreparedHost[] {
  return raw.map((h) => {
    const n = normalizeHost(h, policy.defaults);
    if (!n.ok) throw new Error(n.error[0].message);
    const p = prepareHost(n.value);
    if (!p.ok) throw new Error(p.error[0].message);
    return p.value;
  });
}

/** Measures allocation over 1,000 hosts and its baseline; returns the rows `npm run bench` prints. */
export async function runCustomsBench(): Promise<BenchRow[]> {
  const raw = rawPool(POOL_SIZE);
  const pool = preparedPool(raw);
  const json = JSON.stringify(REQUEST);
  const readRequest = () => {
    const body = hostSchemas().AllocateRequest.parse(JSON.parse(json));
    const checked = normalizeRequest(body);
    if (!checked.ok) throw new Error("bad request");
    return prepareRequest(checked.value);
  };
  const prepared = readRequest();
  if (!prepared.ok) throw new Error("bad request");
  const req = prepared.value;
  const baselineName = "read request";
  const baseline = measure(readRequest);
  const rows: BenchRow[] = [
    { name: "read request (JSON.parse + zod + validate)", microsPerOp: baseline, baselineName, ratio: 1 },
  ];

  // The DO's hot path: select, then count the job on the chosen host; every 50 allocations a "report" resets the pool.
  let last = -1;
  let count = 0;
  const live = pool.slice();
  const allocate = () => {
    const sel = selectHost(live, req, { now: undefined, downFactor: 2, last, ratings: false });
    if (sel.index >= 0) {
      last = sel.index;
      live[sel.index] = withJobs(live[sel.index], live[sel.index].host.jobs + 1);
    }
    if (++count % 50 === 0) for (let i = 0; i < pool.length; i++) live[i] = pool[i];
    return sel;
  };
  const allocUs = measure(allocate);
  rows.push({
    name: `allocate over ${POOL_SIZE} hosts (prepared pool)`,
    microsPerOp: allocUs,
    baselineName,
    ratio: allocUs / baseline,
  });

  const ratedUs = measure(() =>
    selectHost(pool, req, { now: undefined, downFactor: 2, last: -1, ratings: true }),
  );
  rows.push({
    name: `select + ratings map over ${POOL_SIZE} hosts`,
    microsPerOp: ratedUs,
    baselineName,
    ratio: ratedUs / baseline,
  });

  const input = { hosts: raw, request: REQUEST };
  const pureUs = measure(() => decideCustoms(policy, input), 600);
  rows.push({
    name: `pure decision from JSON objects (${POOL_SIZE} hosts validated each time)`,
    microsPerOp: pureUs,
    baselineName,
    ratio: pureUs / baseline,
  });

  const reportHost = raw[10];
  const reportUs = measure(() => {
    const n = normalizeHost(reportHost, policy.defaults);
    return n.ok ? prepareHost(n.value) : n;
  });
  rows.push({
    name: "prepare one host report (validate + ACL + rating)",
    microsPerOp: reportUs,
    baselineName,
    ratio: reportUs / baseline,
  });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runCustomsBench();
  printTable(
    `customs: µs per operation over ${POOL_SIZE} hosts, ratio to reading the request (same run)`,
    rows,
  );
  console.log(
    `allocations per second over ${POOL_SIZE} hosts: ${Math.round(1e6 / rows[1].microsPerOp).toLocaleString("en")}`,
  );
}
