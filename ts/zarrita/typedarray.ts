/**
 * zarrita's array-likes for the data types JS has no TypedArray for (written for zom/zarrita,
 * with zarrita's constructors and methods), and the conversion of zom's values to them.
 * @module
 */

type Buffer = ArrayBuffer | SharedArrayBuffer;

function isBuffer(x: unknown): x is Buffer {
  return x instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && x instanceof SharedArrayBuffer);
}

const NULS = /\u0000/g;

/** Booleans, one byte each. */
export class BoolArray {
  readonly #bytes: Uint8Array;

  constructor(size: number);
  constructor(values: Iterable<boolean>);
  constructor(buffer: Buffer, byteOffset?: number, length?: number);
  constructor(x: number | Iterable<boolean> | Buffer, byteOffset?: number, length?: number) {
    if (typeof x === "number") this.#bytes = new Uint8Array(x);
    else if (isBuffer(x)) this.#bytes = new Uint8Array(x, byteOffset, length);
    else this.#bytes = Uint8Array.from(x, (v) => (v ? 1 : 0));
  }
  get BYTES_PER_ELEMENT(): 1 {
    return 1;
  }
  get byteOffset(): number {
    return this.#bytes.byteOffset;
  }
  get byteLength(): number {
    return this.#bytes.byteLength;
  }
  get buffer(): Buffer {
    return this.#bytes.buffer;
  }
  get length(): number {
    return this.#bytes.length;
  }
  get(index: number): boolean {
    return this.#bytes[index] !== 0;
  }
  set(index: number, value: boolean): void {
    this.#bytes[index] = value ? 1 : 0;
  }
  fill(value: boolean): void {
    this.#bytes.fill(value ? 1 : 0);
  }
  *[Symbol.iterator](): IterableIterator<boolean> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
  }
}

/** Byte strings of `chars` bytes each (NumPy "S"), read as UTF-8 without trailing NULs. */
export class ByteStringArray {
  _data: Uint8Array;
  chars: number;

  constructor(chars: number, size: number);
  constructor(chars: number, buffer: Buffer, byteOffset?: number, length?: number);
  constructor(chars: number, values: Iterable<string>);
  constructor(chars: number, x: number | Buffer | Iterable<string>, byteOffset?: number, length?: number) {
    this.chars = chars;
    if (typeof x === "number") {
      this._data = new Uint8Array(x * chars);
    } else if (isBuffer(x)) {
      this._data = new Uint8Array(x, byteOffset, length === undefined ? undefined : length * chars);
    } else {
      const values = globalThis.Array.from(x);
      this._data = new Uint8Array(values.length * chars);
      values.forEach((v, i) => this.set(i, v));
    }
  }
  get BYTES_PER_ELEMENT(): number {
    return this.chars;
  }
  get byteOffset(): number {
    return this._data.byteOffset;
  }
  get byteLength(): number {
    return this._data.byteLength;
  }
  get buffer(): Buffer {
    return this._data.buffer;
  }
  get length(): number {
    return this.chars === 0 ? 0 : this.byteLength / this.chars;
  }
  get(index: number): string {
    const bytes = this._data.subarray(index * this.chars, (index + 1) * this.chars);
    return new TextDecoder().decode(bytes).replace(NULS, "");
  }
  set(index: number, value: string): void {
    const slot = this._data.subarray(index * this.chars, (index + 1) * this.chars);
    slot.fill(0);
    slot.set(new TextEncoder().encode(value).subarray(0, this.chars));
  }
  fill(value: string): void {
    for (let i = 0; i < this.length; i++) this.set(i, value);
  }
  *[Symbol.iterator](): IterableIterator<string> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
  }
}

/** Unicode strings of `chars` code points each (NumPy "U": UTF-32), without trailing NULs. */
export class UnicodeStringArray {
  readonly #data: Int32Array;
  chars: number;

  constructor(chars: number, size: number);
  constructor(chars: number, buffer: Buffer, byteOffset?: number, length?: number);
  constructor(chars: number, values: Iterable<string>);
  constructor(chars: number, x: number | Buffer | Iterable<string>, byteOffset?: number, length?: number) {
    this.chars = chars;
    if (typeof x === "number") {
      this.#data = new Int32Array(x * chars);
    } else if (isBuffer(x)) {
      this.#data = new Int32Array(x, byteOffset, length === undefined ? undefined : length * chars);
    } else {
      const values = globalThis.Array.from(x);
      this.#data = new Int32Array(values.length * chars);
      values.forEach((v, i) => this.set(i, v));
    }
  }
  get BYTES_PER_ELEMENT(): number {
    return 4 * this.chars;
  }
  get byteOffset(): number {
    return this.#data.byteOffset;
  }
  get byteLength(): number {
    return this.#data.byteLength;
  }
  get buffer(): Buffer {
    return this.#data.buffer;
  }
  get length(): number {
    return this.chars === 0 ? 0 : this.#data.length / this.chars;
  }
  get(index: number): string {
    let s = "";
    for (let i = index * this.chars; i < (index + 1) * this.chars; i++) s += String.fromCodePoint(this.#data[i] ?? 0);
    return s.replace(NULS, "");
  }
  set(index: number, value: string): void {
    const slot = this.#data.subarray(index * this.chars, (index + 1) * this.chars);
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
    const first = this.#data.subarray(0, this.chars);
    for (let i = 1; i < this.length; i++) this.#data.set(first, i * this.chars);
  }
  *[Symbol.iterator](): IterableIterator<string> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
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
      items.forEach((b, i) => out._data.set(b.subarray(0, shape.chars), i * shape.chars));
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
