/**
 * Progress lines on stderr for walks and reads: rewritten in place on a terminal, one line a
 * second otherwise (`--progress` into a file or pipe), and a closing summary line.
 * @module
 */

/** Where progress goes: a writable with an optional TTY flag (process.stderr). */
export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Writes progress updates, throttled, and a final line. A disabled one writes nothing. */
export class Progress {
  readonly #sink: ProgressSink;
  readonly #enabled: boolean;
  readonly #tty: boolean;
  readonly #interval: number;
  readonly #t0 = performance.now();
  #last = -Infinity;
  #shown = false;

  /** @param enabled whether anything is written at all */
  constructor(sink: ProgressSink, enabled: boolean) {
    this.#sink = sink;
    this.#enabled = enabled;
    this.#tty = sink.isTTY === true;
    this.#interval = this.#tty ? 100 : 1000;
  }

  /** Shows `text` as the current state, unless the last update was too recent. */
  update(text: () => string): void {
    if (!this.#enabled) return;
    const now = performance.now();
    if (now - this.#last < this.#interval) return;
    this.#last = now;
    this.#write(text());
  }

  /** Ends the progress display with `text` and the time taken. */
  done(text: string): void {
    if (!this.#enabled) return;
    const seconds = ((performance.now() - this.#t0) / 1000).toFixed(2);
    this.#write(`${text} in ${seconds} s`);
    if (this.#tty) this.#sink.write("\n");
  }

  /** Clears a line left on a terminal (before an error message). */
  clear(): void {
    if (this.#enabled && this.#tty && this.#shown) this.#sink.write("\r\x1b[K");
    this.#shown = false;
  }

  #write(line: string): void {
    this.#sink.write(this.#tty ? `\r\x1b[K${line}` : `${line}\n`);
    this.#shown = this.#tty;
  }
}
