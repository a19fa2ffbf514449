import type { Context } from "hono";
import {
  captureMode,
  maskRequest,
  maskRulesFor,
  maskView,
  viewOf,
  type CaptureKind,
  type DecisionKind,
} from "../bundle/compare/index.js";
import type { AppEnv, Env } from "../env.js";
import { compactJsonText } from "./cache-key.js";
import { logDecision, type DecisionLog } from "./decision-log.js";
import { writeLog, writeLogText } from "../log-line.js";

/** A request longer than this (as compact JSON text) is logged as its size only. */
export const MAX_CAPTURED_CHARS = 65_536;

/** What a decision log line may capture: the request as received, and the verdict it got. */
export interface Capture {
  kind: CaptureKind;
  /** The request body's JSON text as received. */
  text: string;
  /** Reads the text (default JSON.parse; job routes keep exact integers). */
  parse?: (text: string) => unknown;
  /** What the decision used that the body does not say (limits: the connecting address as the requester), or undefined. */
  amend?: (request: Record<string, unknown>) => Record<string, unknown> | undefined;
  /** The verdict (an object, or the cached verdict's JSON text); its compared fields are logged beside the request. */
  verdict?: object | string;
  /** Writes the request back as JSON text (default JSON.stringify). */
  stringify?: (value: unknown) => string;
}

/** An error as a log line may carry it: never a JSON parser's message, which can quote the request. */
export function errorText(e: unknown): string {
  if (e instanceof SyntaxError) return "SyntaxError";
  return String(e).slice(0, 300);
}

/** Runs work after the answer is sent, or now where there is no execution context (a call outside a request). */
export function afterAnswer(c: Context<AppEnv>, work: () => Promise<void>): void {
  const guarded = work().catch((e: unknown) =>
    writeLog({ ts: new Date().toISOString(), event: "after_answer_failed", error: errorText(e) }, "error"),
  );
  try {
    c.executionCtx.waitUntil(guarded);
  } catch {
    // no execution context: the promise runs on its own
  }
}

/** The request and verdict fields a captured log line adds, as JSON members text (`,"request":…`). */
async function capturedMembers(env: Env, mode: "masked" | "full", capture: Capture): Promise<string> {
  const compact = compactJsonText(capture.text);
  if (compact.length > MAX_CAPTURED_CHARS) {
    return `,"kind":${JSON.stringify(capture.kind)},"request_omitted":${JSON.stringify(`${compact.length} characters`)}`;
  }
  const parsed = (capture.parse ?? JSON.parse)(compact) as Record<string, unknown>;
  const amended = capture.amend?.(parsed);
  const request = amended ?? parsed;
  const stringify = capture.stringify ?? JSON.stringify;
  let requestText: string;
  if (mode === "full") requestText = amended === undefined ? compact : stringify(amended);
  else
    requestText = stringify(
      await maskRequest(capture.kind, request, maskRulesFor(env.DECISION_LOG_MASK_ATTRIBUTES)),
    );
  let members = `,"kind":${JSON.stringify(capture.kind)},"request":${requestText}`;
  if (capture.verdict !== undefined && capture.kind !== "customs") {
    const kind: DecisionKind = capture.kind;
    const verdict =
      typeof capture.verdict === "string" ? (JSON.parse(capture.verdict) as object) : capture.verdict;
    let view = viewOf(kind, verdict);
    if (mode === "masked") view = await maskView(kind, request, view);
    members += `,"verdict":${JSON.stringify(view)}`;
  }
  return members;
}

/**
 * Writes a decision's log line. Without request capture (`DECISION_LOG_REQUESTS`
 * off, the default) it is written at once, as before. With `masked` or `full`
 * the line is written after the answer is sent, carrying the request (masked by
 * the rules of its kind, or as received) and the verdict's compared fields, so
 * the answer never waits for masking.
 */
export function logDecisionCapturing(c: Context<AppEnv>, entry: DecisionLog, capture: () => Capture): void {
  const mode = captureMode(c.env.DECISION_LOG_REQUESTS);
  if (mode === "off") return logDecision(entry);
  const env = c.env;
  afterAnswer(c, async () => {
    let members: string;
    try {
      members = await capturedMembers(env, mode, capture());
    } catch (e) {
      members = `,"request_omitted":${JSON.stringify(`the request could not be captured: ${errorText(e)}`)}`;
    }
    const line = JSON.stringify({ ts: new Date().toISOString(), ...entry });
    writeLogText(line.slice(0, -1) + members + "}");
  });
}
