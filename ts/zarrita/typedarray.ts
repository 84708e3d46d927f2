/**
 * zarrita's array-likes for the data types JS has no TypedArray for (written for zom/zarrita,
 * with zarrita's constructors and methods), and the conversion of zom's values to them.
 * @module
 */

type Buffer = ArrayBuffer | SharedArrayBuffer;

function isBuffer(x: unknown): x is Buffer {
  return x instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && x instanceof SharedArrayBuffer);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: NumPy's byte strings end in NULs
const NULS = /\u0000+$/;

/** What the array-likes share: the typed array they are a view of, and iteration by `get`. */
abstract class Viewed<V extends Uint8Array | Int32Array, T> {
  /** Not enumerable, as zarrita's private field: printing the array shows no internals. */
  declare protected readonly view: V;
  protected constructor(view: V) {
    Object.defineProperty(this, "view", { value: view });
  }
  get byteOffset(): number {
    return this.view.byteOffset;
  }
  get byteLength(): number {
    return this.view.byteLength;
  }
  get buffer(): Buffer {
    return this.view.buffer;
  }
  abstract get length(): number;
  abstract get(index: number): T;
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
  }
}

/** Booleans, one byte each. */
export class BoolArray extends Viewed<Uint8Array, boolean> {
  constructor(size: number);
  constructor(values: Iterable<boolean>);
  constructor(buffer: Buffer, byteOffset?: number, length?: number);
  constructor(x: number | Iterable<boolean> | Buffer, byteOffset?: number, length?: number) {
    if (typeof x === "number") super(new Uint8Array(x));
    else if (isBuffer(x)) super(new Uint8Array(x, byteOffset, length));
    else super(Uint8Array.from(x, (v) => (v ? 1 : 0)));
  }
  get BYTES_PER_ELEMENT(): 1 {
    return 1;
  }
  get length(): number {
    return this.view.length;
  }
  get(index: number): boolean {
    return this.view[index] !== 0;
  }
  set(index: number, value: boolean): void {
    this.view[index] = value ? 1 : 0;
  }
  fill(value: boolean): void {
    this.view.fill(value ? 1 : 0);
  }
}

/** A typed array's constructor, as a fixed-length string array makes its view with it. */
type ViewOf<V> = { new (n: number): V; new (b: Buffer, offset?: number, length?: number): V };

/** Fixed-length strings of `chars` items (bytes or code points) each, made by zarrita's constructors. */
abstract class FixedStrings<V extends Uint8Array | Int32Array> extends Viewed<V, string> {
  /** The typed array a subclass keeps its items in. */
  declare protected static readonly items: ViewOf<Uint8Array> | ViewOf<Int32Array>;
  constructor(chars: number, size: number);
  constructor(chars: number, buffer: Buffer, byteOffset?: number, length?: number);
  constructor(chars: number, values: Iterable<string>);
  constructor(
    public chars: number,
    x: number | Buffer | Iterable<string>,
    byteOffset?: number,
    length?: number,
  ) {
    const [view, values] = stringView(new.target.items as ViewOf<V>, chars, x, byteOffset, length);
    super(view);
    if (values !== undefined)
      globalThis.Array.from(values).forEach((v, i) => {
        this.set(i, v);
      });
  }
  get length(): number {
    return this.chars === 0 ? 0 : this.view.length / this.chars;
  }
  abstract set(index: number, value: string): void;
  /** The items of element `index`. */
  protected slot(index: number): V {
    return this.view.subarray(index * this.chars, (index + 1) * this.chars) as V;
  }
}

/** How a fixed-length string array's view is made from zarrita's constructor arguments. */
function stringView<V>(
  make: ViewOf<V>,
  chars: number,
  x: number | Buffer | Iterable<string>,
  byteOffset?: number,
  length?: number,
): [V, Iterable<string> | undefined] {
  if (typeof x === "number") return [new make(x * chars), undefined];
  if (isBuffer(x)) return [new make(x, byteOffset, length === undefined ? undefined : length * chars), undefined];
  const values = globalThis.Array.from(x);
  return [new make(values.length * chars), values];
}

/** Byte strings of `chars` bytes each (NumPy "S"), read as UTF-8 without trailing NULs. */
export class ByteStringArray extends FixedStrings<Uint8Array> {
  protected static override get items(): ViewOf<Uint8Array> {
    return Uint8Array;
  }
  /** The bytes (zarrita's field). */
  get _data(): Uint8Array {
    return this.view;
  }
  get BYTES_PER_ELEMENT(): number {
    return this.chars;
  }
  get(index: number): string {
    return new TextDecoder().decode(this.slot(index)).replace(NULS, "");
  }
  set(index: number, value: string): void {
    const slot = this.slot(index);
    slot.fill(0);
    slot.set(new TextEncoder().encode(value).subarray(0, this.chars));
  }
  fill(value: string): void {
    for (let i = 0; i < this.length; i++) this.set(i, value);
  }
}

/** Unicode strings of `chars` code points each (NumPy "U": UTF-32), without trailing NULs. */
export class UnicodeStringArray extends FixedStrings<Int32Array> {
  protected static override get items(): ViewOf<Int32Array> {
    return Int32Array;
  }
  get BYTES_PER_ELEMENT(): number {
    return 4 * this.chars;
  }
  get(index: number): string {
    let s = "";
    for (const c of this.slot(index)) s += String.fromCodePoint(c);
    return s.replace(NULS, "");
  }
  set(index: number, value: string): void {
    const slot = this.slot(index);
    slot.fill(0);
    let i = 0;
    for (const c of value) {
      if (i === this.chars) break;
      slot[i++] = c.codePointAt(0) ?? 0;
    }
  }
  fill(value: string): void {
    if (this.length === 0) return;
    this.set(0, value);
    const first = this.slot(0);
    for (let i = 1; i < this.length; i++) this.view.set(first, i * this.chars);
  }
}

/** How zom's values of a data type become zarrita's: the kind of array zarrita uses for it. */
export type Shape = { kind: "bool" } | { kind: "unicode"; chars: number } | { kind: "bytes"; chars: number } | { kind: "same" };

/** Any array of values zom/zarrita hands out. */
export type AnyData = ArrayLike<unknown> | BoolArray | ByteStringArray | UnicodeStringArray;

/**
 * zom's values as zarrita's: bool bytes viewed as a {@link BoolArray} (no copy), fixed-length
 * strings (zom: string[] and Uint8Array[]) written into a {@link UnicodeStringArray} or
 * {@link ByteStringArray}; every other kind is what zarrita uses already (TypedArrays,
 * BigInt64Array for int64, string[] for variable-length strings) or one zarrita has not.
 */
export function toZarrita(data: unknown, shape: Shape): AnyData {
  switch (shape.kind) {
    case "bool": {
      const bytes = data as Uint8Array;
      return new BoolArray(bytes.buffer, bytes.byteOffset, bytes.length);
    }
    case "unicode":
      return new UnicodeStringArray(shape.chars, data as string[]);
    case "bytes": {
      const items = data as Uint8Array[];
      const out = new ByteStringArray(shape.chars, items.length);
      items.forEach((b, i) => {
        out._data.set(b.subarray(0, shape.chars), i * shape.chars);
      });
      return out;
    }
    default:
      return data as AnyData;
  }
}

/** A new array of `n` elements of the same kind as `like` (for padding a chunk cut at the array's edge). */
export function allocLike(like: AnyData, n: number, width: number): AnyData {
  if (like instanceof BoolArray) return new BoolArray(n);
  if (like instanceof UnicodeStringArray) return new UnicodeStringArray(like.chars, n);
  if (like instanceof ByteStringArray) return new ByteStringArray(like.chars, n);
  if (ArrayBuffer.isView(like)) {
    const Ctor = (like as unknown as { constructor: new (n: number) => AnyData }).constructor;
    return new Ctor(n * width);
  }
  return new globalThis.Array(n * width).fill(undefined);
}

/** Copies element `from` of `src` to element `to` of `dst` (`width` values per element). */
export function copyElement(src: AnyData, from: number, dst: AnyData, to: number, width: number): void {
  if ("get" in src && "set" in dst && typeof src.get === "function" && !ArrayBuffer.isView(src)) {
    (dst as { set(i: number, v: unknown): void }).set(to, (src as { get(i: number): unknown }).get(from));
    return;
  }
  const s = src as ArrayLike<unknown>;
  const d = dst as { [i: number]: unknown };
  for (let k = 0; k < width; k++) d[to * width + k] = s[from * width + k];
}
