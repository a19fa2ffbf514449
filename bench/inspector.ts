/**
 * A small client of workerd's V8 inspector (the Chrome DevTools protocol over a
 * WebSocket), for the benches that look inside the isolate: its CPU profile
 * (bench/http-profile.ts) and its heap (bench/memory.ts).
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

interface Socket {
  onopen: (() => void) | null;
  onerror: ((e: unknown) => void) | null;
  onmessage: ((e: { data: unknown }) => void) | null;
  send(text: string): void;
  close(): void;
}

/** A connected inspector session: send a method, get its result. */
export interface Inspector {
  send<T = unknown>(method: string, params?: object): Promise<T>;
  /** Receives the session's events (method and params), e.g. heap snapshot chunks. */
  onEvent(handler: (method: string, params: Record<string, unknown>) => void): void;
  close(): void;
}

/** The isolate's heap as V8 reports it (`Runtime.getHeapUsage`), in bytes. */
export interface HeapUsage {
  usedSize: number;
  totalSize: number;
  /** ArrayBuffer backing stores (typed arrays), outside the heap's own figures; where the V8 version reports it. */
  backingStorageSize?: number;
}

/** Connects to the first target of the inspector listening on `port`. */
export async function connectInspector(port: number): Promise<Inspector> {
  // undici's WebSocket (wrangler brings undici; Node 20 has no global WebSocket)
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
  const { WebSocket } = (await import(pathToFileURL(fromWrangler.resolve("undici")).href)) as {
    WebSocket: new (url: string) => Socket;
  };
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const ws = new WebSocket(list[0].webSocketDebuggerUrl);
  await new Promise<void>((done, fail) => {
    ws.onopen = () => done();
    ws.onerror = fail;
  });
  let nextId = 1;
  const pending = new Map<number, { done: (result: unknown) => void; fail: (e: Error) => void }>();
  let events: (method: string, params: Record<string, unknown>) => void = () => {};
  ws.onmessage = (event) => {
    const msg = JSON.parse(String(event.data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
      method?: string;
      params?: Record<string, unknown>;
    };
    if (msg.id === undefined) {
      if (msg.method !== undefined) events(msg.method, msg.params ?? {});
      return;
    }
    const waiting = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error !== undefined) waiting?.fail(new Error(msg.error.message));
    else waiting?.done(msg.result);
  };
  return {
    send: <T>(method: string, params: object = {}) =>
      new Promise<T>((done, fail) => {
        const id = nextId++;
        pending.set(id, { done: done as (r: unknown) => void, fail });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    onEvent: (handler) => (events = handler),
    close: () => ws.close(),
  };
}

/**
 * The heap after a full collection. workerd does not run the task that
 * `HeapProfiler.collectGarbage` posts (the call never answers), but a heap
 * snapshot collects first; its text is written to `saveTo` when given (open
 * it in Chrome's DevTools, Memory tab, to compare two), else dropped.
 */
export async function heapAfterGc(inspector: Inspector, saveTo?: string): Promise<HeapUsage> {
  const chunks: string[] = [];
  inspector.onEvent((method, params) => {
    if (method === "HeapProfiler.addHeapSnapshotChunk" && saveTo !== undefined)
      chunks.push(params.chunk as string);
  });
  await inspector.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  inspector.onEvent(() => {});
  if (saveTo !== undefined) writeFileSync(saveTo, chunks.join(""));
  return inspector.send<HeapUsage>("Runtime.getHeapUsage");
}
