// Where the bytes of zom's WebAssembly go, for bench/size/size.mjs: twiggy's per-item sizes of the
// module built with its function names kept (scripts/build.mjs namedWasm: the shipped module
// plus a name section), each item put in a group (its crate, or a kind of module part), and
// the name section itself left out, so that the groups add up to the shipped module's size.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** Reads an unsigned LEB128 at `i`: [value, index after it]. */
function leb(bytes, i) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = bytes[i++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, i];
}

/** The module's bytes without its "name" custom section (what wasm-opt --strip-debug leaves). */
export function withoutNameSection(bytes) {
  const parts = [bytes.subarray(0, 8)];
  let i = 8;
  while (i < bytes.length) {
    const start = i;
    const id = bytes[i++];
    let size;
    [size, i] = leb(bytes, i);
    const end = i + size;
    let name = null;
    if (id === 0) {
      const [n, j] = leb(bytes, i);
      name = Buffer.from(bytes.subarray(j, j + n)).toString("utf8");
    }
    if (name !== "name") parts.push(bytes.subarray(start, end));
    i = end;
  }
  return Buffer.concat(parts);
}

/** The crates of Rust's own library. */
const RUST_RUNTIME = new Set(["core", "alloc", "std", "compiler_builtins", "__rustc"]);
/** The crates of wasm-bindgen's runtime. */
const BINDGEN = new Set(["wasm_bindgen", "js_sys", "wasm_bindgen_futures", "web_sys"]);
/** zstd's Rust bindings, counted with its C code. */
const ZSTD_RUST = new Set(["zstd", "zstd_safe", "zstd_sys"]);

/**
 * The group names, as printed: "zstd" is C zstd (ZSTD_, HUF_, FSE_, XXH… functions) and its
 * Rust bindings; "wasm-bindgen glue" the shims wasm-bindgen generates and its runtime crates;
 * "Rust std" core, alloc, std, compiler_builtins and the allocator shims; other crates go by
 * their own names.
 */
export const GROUP = {
  nameSection: null,
  data: "data segments",
  interface: "imports and exports",
  structure: "module structure",
  bindgen: "wasm-bindgen glue",
  zstd: "zstd (C)",
  rust: "Rust std",
  zomExports: "zom",
  unnamed: "functions without a name",
};

/**
 * The crate a demangled Rust symbol belongs to: the first path segment, after stripping
 * crate disambiguators (`core[0123…]`), the `<` of `<T as Trait>::f` and `<T>::f` (the
 * implementing type's crate; the trait's when the type is a generic parameter or a
 * primitive), and `core::ptr::drop_in_place<T>` (T's crate: dropping T is T's code).
 * @returns {string | null} null when the name has no path
 */
export function crateOf(name) {
  let s = name.replace(/\[[0-9a-f]{8,}\]/g, "");
  const drop = /^core::ptr::drop_in_place<(.+)>(::h[0-9a-f]{16})?$/.exec(s);
  if (drop) return crateOf(drop[1]) ?? "core";
  s = s.replace(/^(<|&|mut |dyn |\*const |\*mut |\[|\()+/, "");
  const first = /^([A-Za-z_][A-Za-z0-9_]*)::/.exec(s);
  const own = /^([A-Za-z_][A-Za-z0-9_]*)/.exec(s)?.[1];
  // A generic parameter (T, F), a primitive (u8, char, i128, str) or a tuple/slice: the trait's crate.
  const bare = own !== undefined && !first && /^(?:[A-Z][A-Za-z0-9]?|[iuf](?:8|16|32|64|128|size)|bool|char|str)$/.test(own);
  if (first && !/^[A-Z]/.test(first[1])) return first[1];
  const trait = / as ([A-Za-z_][A-Za-z0-9_]*)::/.exec(s);
  if (trait) return trait[1];
  if (bare || s !== name) return "core";
  return null;
}

/** The group of one twiggy item (by its name). */
export function groupOf(name) {
  if (/^"[^"]+" subsection$|^custom section 'name'/.test(name)) return GROUP.nameSection;
  if (name.startsWith("data segment ")) return GROUP.data;
  if (/^(import|export) /.test(name)) return GROUP.interface;
  if (/^code\[\d+\]$/.test(name)) return GROUP.unnamed;
  if (/^(type|global|elem|table|memory)\[\d+\]|section headers$|^wasm magic bytes$|^custom section /.test(name)) return GROUP.structure;
  if (/ shim$|^__wbg_|^__wbindgen_|^__externref_/.test(name)) return GROUP.bindgen;
  if (/^(ZSTD|ZSTDv\d+|HUF|FSE|BIT|HIST|ZDICT|ERR|XXH\d*|XXH_INLINE_XXH\d+)_|^rust_zstd_wasm_shim_/.test(name)) return GROUP.zstd;
  // compiler_builtins' C names (128-bit arithmetic, mem*).
  if (/^(mem(set|cpy|move|cmp)|bcmp|__[a-z]+[sdt]i\d|__[a-z]+ti[sd]?f?\d?|__multi3|__muloti4)$/.test(name)) return GROUP.rust;
  const crate = crateOf(name);
  if (crate === null) return GROUP.zomExports; // a #[wasm_bindgen] function under its export name
  if (RUST_RUNTIME.has(crate)) return GROUP.rust;
  if (BINDGEN.has(crate)) return GROUP.bindgen;
  if (ZSTD_RUST.has(crate)) return GROUP.zstd;
  return crate;
}

/** The module of an item of the "zom" group: "zom::codec" (exported functions, named by their export: "zom::wasm"). */
export function zomModuleOf(name) {
  const path = /(?:^|[^A-Za-z0-9_])zom::([a-z_0-9]+)/.exec(name);
  return path ? `zom::${path[1]}` : "zom::wasm";
}

/** twiggy's version ("0.8.0"), or null when it does not run. */
export function twiggyVersion(cmd = "twiggy") {
  const r = spawnSync(cmd, ["--version"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim().split(/\s+/)[1] : null;
}

/**
 * Attributes the bytes of `namedFile` (the names-kept twin of `shippedFile`) with twiggy top.
 * @param {{ namedFile: string, shippedFile: string, top?: number, twiggy?: string }} options
 * @returns the totals, the groups (largest first), zom's bytes by module, the `top` largest items
 */
export function attribute({ namedFile, shippedFile, top = 25, twiggy = "twiggy" }) {
  const named = readFileSync(namedFile);
  const shipped = readFileSync(shippedFile);
  if (!withoutNameSection(named).equals(shipped)) {
    throw new Error(`${namedFile} without its name section is not ${shippedFile}: build again (npm run build)`);
  }
  const r = spawnSync(twiggy, ["top", "--format", "json", namedFile], { encoding: "utf8", maxBuffer: 256 * 2 ** 20, timeout: 120_000 });
  if (r.error || r.status !== 0) throw new Error(`twiggy top failed: ${r.error?.message ?? r.stderr}`);
  const items = JSON.parse(r.stdout)
    .map((it) => ({ name: it.name, bytes: it.shallow_size, group: groupOf(it.name) }))
    .filter((it) => it.group !== GROUP.nameSection);
  const total = items.reduce((s, it) => s + it.bytes, 0);
  if (total !== shipped.length) throw new Error(`twiggy's items add up to ${total} bytes, the module has ${shipped.length}`);
  const groups = new Map();
  for (const it of items) {
    const g = groups.get(it.group) ?? { group: it.group, bytes: 0, items: 0 };
    g.bytes += it.bytes;
    g.items += 1;
    groups.set(it.group, g);
  }
  const zomModules = new Map();
  for (const it of items.filter((x) => x.group === "zom")) {
    const m = zomModuleOf(it.name);
    zomModules.set(m, (zomModules.get(m) ?? 0) + it.bytes);
  }
  const share = (bytes) => Math.round((bytes / total) * 10000) / 100;
  return {
    shipped_bytes: shipped.length,
    names_kept_bytes: named.length,
    groups: [...groups.values()].sort((a, b) => b.bytes - a.bytes).map((g) => ({ ...g, percent: share(g.bytes) })),
    zom_modules: [...zomModules].sort((a, b) => b[1] - a[1]).map(([module, bytes]) => ({ module, bytes, percent: share(bytes) })),
    top: items
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, top)
      .map((it) => ({ name: it.name.replace(/::h[0-9a-f]{16}$/, ""), bytes: it.bytes, percent: share(it.bytes), group: it.group })),
  };
}
