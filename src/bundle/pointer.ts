/**
 * The pointer value that means "serve the embedded bundle" (what `arbiter publish
 * --reset` writes). A written value rather than a deleted key, so the policy
 * coordinator sees the reset as an outside write and builds the next publish on
 * the embedded bundle; revisions are 64 hex digits, so it names no bundle.
 */
export const EMBEDDED_POINTER = "embedded";

/** Whether a pointer value asks for no published bundle: absent, or reset to the embedded one. */
export function isEmbeddedPointer(value: string | null): value is null | typeof EMBEDDED_POINTER {
  return value === null || value === EMBEDDED_POINTER;
}
