/**
 * Reading a body that may be larger than we accept, without holding more of
 * it than that: shared by the request reader (src/http/body.ts) and the CIDR
 * list download (src/cron/refresh-cidr-lists.ts).
 */

/**
 * The stream's text, read chunk by chunk; null once it passes `max` bytes,
 * the rest cancelled and never read (whatever length the sender declared).
 */
export async function readCappedText(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<string | null> {
  if (body === null) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > max) {
      await reader.cancel();
      return null;
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join("");
}
