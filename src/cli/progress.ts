import type { Io } from "./io.js";

/** Width of the bar in characters. */
const WIDTH = 30;

/**
 * A progress bar on stderr for a terminal: `replay [#####·····]  512/1000`,
 * redrawn in place when the shown fill or count's percent changes, and erased
 * when the work is done so only the result stays on screen.
 */
export function progressBar(io: Io, total: number, label = "replay"): { at(n: number): void; done(): void } {
  let shown = -1;
  const draw = (n: number) => {
    const percent = total === 0 ? 100 : Math.floor((n * 100) / total);
    if (percent === shown) return;
    shown = percent;
    const filled = Math.round((percent * WIDTH) / 100);
    io.stderr(
      `\r${label} [${"#".repeat(filled)}${"·".repeat(WIDTH - filled)}] ${String(n).padStart(String(total).length)}/${total}`,
    );
  };
  return {
    at: draw,
    done() {
      draw(total);
      io.stderr("\r\x1b[K");
    },
  };
}
