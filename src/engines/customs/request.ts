import { isJsonObject } from "../common/json.js";
import { policyError, type PolicyError } from "../common/result.js";
import type { HostRequest } from "./types.js";

const KNOWN = new Set([
  "client",
  "net",
  "fromAddress",
  "user",
  "arch",
  "attrs",
  "same",
  "exclusive",
  "uselocal",
]);

/** Validates an allocation request as clients send it; errors name the field. */
export function normalizeRequest(
  raw: unknown,
  at = "",
): { ok: true; value: HostRequest } | { ok: false; error: PolicyError[] } {
  if (!isJsonObject(raw))
    return {
      ok: false,
      error: [policyError("customs_invalid_request", "the request must be a JSON object", at)],
    };
  const errors: PolicyError[] = [];
  const bad = (field: string, message: string) =>
    errors.push(policyError("customs_invalid_field", message, `${at}/${field}`));
  for (const key of Object.keys(raw))
    if (!KNOWN.has(key))
      errors.push(policyError("customs_unknown_field", `unknown field ${key}`, `${at}/${key}`));
  for (const field of ["client", "fromAddress", "user"]) {
    if (typeof raw[field] !== "string" || raw[field] === "")
      bad(field, `invalid field ${field}: expected a non-empty string`);
  }
  for (const field of ["net", "arch"]) {
    const v = raw[field];
    if (v !== undefined && !(typeof v === "number" && Number.isInteger(v) && v >= 0))
      bad(field, `invalid field ${field}: expected an integer at least 0`);
  }
  if (
    raw.attrs !== undefined &&
    !(Array.isArray(raw.attrs) && raw.attrs.every((s) => typeof s === "string" && s !== "" && s !== "!"))
  ) {
    bad("attrs", "invalid field attrs: expected a list of attribute names");
  }
  for (const field of ["same", "exclusive", "uselocal"]) {
    if (raw[field] !== undefined && typeof raw[field] !== "boolean")
      bad(field, `invalid field ${field}: expected true or false`);
  }
  if (errors.length > 0) return { ok: false, error: errors };
  return {
    ok: true,
    value: {
      client: raw.client as string,
      net: (raw.net as number | undefined) ?? 0,
      fromAddress: raw.fromAddress as string,
      user: raw.user as string,
      ...(raw.arch !== undefined ? { arch: raw.arch as number } : {}),
      ...(raw.attrs !== undefined ? { attrs: raw.attrs as string[] } : {}),
      same: raw.same === true,
      exclusive: raw.exclusive === true,
      uselocal: raw.uselocal === true,
    },
  };
}
