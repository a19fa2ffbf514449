#!/usr/bin/env node
// The `arbiter` command: runs the TypeScript sources through tsx so the CLI
// and the Worker share one implementation of every engine.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
