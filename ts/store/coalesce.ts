/**
 * Coalescing of range reads: the getRange calls on one key issued in the same tick whose
 * ranges overlap, touch or lie within a small gap of each other become one request, whose
 * answer is cut back into the ranges asked for.
 * @module
 */
import { Joint, raceAbort } from "./signal.js";

/** Reads `length` bytes of `key` from `offset` (fewer at the end of the value; undefined: missing). */
export type RangeReader = (key: string, offset: number, length: number, signal: AbortSignal | undefined) => Promise<Uint8Array | undefined>;

interface Want {
  offset: number;
  length: number;
  signal: AbortSignal | undefined;
  resolve: (v: Uint8Array | undefined) => void;
  reject: (e: unknown) => void;
}

/** The most bytes one merged read grows to, unless told otherwise. */
export const MAX_MERGED_BYTES = 16 * 1024 * 1024;

/** Batches range reads per key until the end of the current tick. */
export class Coalescer {
  private pending = new Map<string, Want[]>();
  private scheduled = false;

  /**
   * @param reader does one read
   * @param gap ranges at most this many bytes apart are merged
   * @param maxSize a merged read never grows beyond this many bytes
   */
  constructor(
    private readonly reader: RangeReader,
    private readonly gap: number,
    private readonly maxSize: number = MAX_MERGED_BYTES,
  ) {}

  /** Reads a range, possibly merged with others issued in the same tick. */
  read(key: string, offset: number, length: number, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
    const promise = new Promise<Uint8Array | undefined>((resolve, reject) => {
      const list = this.pending.get(key);
      const want: Want = { offset, length, signal, resolve, reject };
      if (list) list.push(want);
      else this.pending.set(key, [want]);
    });
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
    return raceAbort(promise, key, signal);
  }

  private flush(): void {
    const batches = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    for (const [key, wants] of batches) {
      // Callers that aborted meanwhile already have their rejection.
      const live = wants.filter((w) => !w.signal?.aborted).sort((a, b) => a.offset - b.offset);
      for (const group of this.groups(live)) this.fetchGroup(key, group);
    }
  }

  private groups(wants: Want[]): Want[][] {
    const out: Want[][] = [];
    let group: Want[] = [];
    let start = 0;
    let end = 0;
    for (const w of wants) {
      const wEnd = w.offset + w.length;
      const merged = Math.max(end, wEnd) - start;
      if (group.length > 0 && w.offset <= end + this.gap && merged <= this.maxSize) {
        group.push(w);
        end = Math.max(end, wEnd);
      } else {
        if (group.length > 0) out.push(group);
        group = [w];
        start = w.offset;
        end = wEnd;
      }
    }
    if (group.length > 0) out.push(group);
    return out;
  }

  private fetchGroup(key: string, group: Want[]): void {
    const first = group[0];
    if (first === undefined) return;
    if (group.length === 1) {
      this.reader(key, first.offset, first.length, first.signal).then(first.resolve, first.reject);
      return;
    }
    const start = first.offset;
    const end = Math.max(...group.map((w) => w.offset + w.length));
    const joint = new Joint();
    for (const w of group) joint.join(w.signal);
    this.reader(key, start, end - start, joint.signal).then(
      (bytes) => {
        if (bytes !== undefined && bytes.length < end - start) {
          // Slicing a short answer would hand some callers fewer bytes than they asked for.
          const error = new Error(`Short read of ${key}: asked for ${end - start} bytes at ${start}, got ${bytes.length}`);
          for (const w of group) w.reject(error);
          return;
        }
        for (const w of group) {
          if (bytes === undefined) w.resolve(undefined);
          else w.resolve(bytes.slice(w.offset - start, w.offset - start + w.length));
        }
      },
      (e: unknown) => {
        for (const w of group) w.reject(e);
      },
    );
  }
}
