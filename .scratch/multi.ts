import { compilePlacement } from "/work/wt/cli/src/engines/placement/index.js";
const a = "partitions:\n  - name: default\n    queues:\n      - name: root\n        bogus: 1\n    placementrules:\n      - name: fixed\n        valu: root.x\n";
const b = "partitions:\n  - queues:\n      - name: root\n        queues:\n          - name: \"a b\"\n          - name: c\n            adminacl: \"x  y\"\n    placementrules:\n      - name: tenant\n      - name: fixed\n        value: root.missing\n    defaultqueue: default\n";
for (const s of [a, b]) { console.log(JSON.stringify(compilePlacement(s), null, 1)); }
