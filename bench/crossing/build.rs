//! Copies zom's `src/wasm/convert.rs` (today's conversions: `to_js`, `to_js_each`, `from_js`)
//! into `OUT_DIR` for `src/lib.rs` to include, so the benchmark measures zom's own code, not a
//! copy of it. Two edits, each required to match exactly (the build fails otherwise): its
//! inner doc comments go (they cannot stand in an `include!`d module), and `to_js_each`
//! becomes public (zom keeps it private behind `to_js`).

use std::{env, fs, path::PathBuf};

fn main() {
    let source = PathBuf::from("../../src/wasm/convert.rs");
    println!("cargo:rerun-if-changed={}", source.display());
    let text = fs::read_to_string(&source).expect("zom's src/wasm/convert.rs");
    let kept: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//!"))
        .collect();
    let mut out = kept.join("\n");
    let private = "\nfn to_js_each(value: &Value) -> JsValue {";
    assert!(
        out.contains(private),
        "src/wasm/convert.rs no longer has `fn to_js_each(value: &Value) -> JsValue`: \
         update bench/crossing/build.rs"
    );
    out = out.replacen(
        private,
        "\npub fn to_js_each(value: &Value) -> JsValue {",
        1,
    );
    let dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    fs::write(dir.join("convert.rs"), out).expect("write convert.rs");
}
