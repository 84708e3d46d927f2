//! JSON Schemas (draft 2020-12) of the Zarr Object Model of each Zarr version: the nested JSON
//! that pydantic-zarr's `GroupSpec.from_zarr(g).model_dump()` gives, checked against the Zarr
//! specs.
//!
//! The root is a node; a node is a group or an array; a group's `members` maps member names to
//! nodes through a `$ref` back to the node definition. The schema describes the *nested* ZOM
//! only: a group must have a `members` object (the flattened form's `"members": null` does not
//! validate). JSON Schema cannot express some of the specs' rules, which zom's validator checks
//! instead: that `chunks`/`chunk_shape`/`dimension_names` have one entry per dimension of
//! `shape`, that a codec pipeline has exactly one array-to-bytes codec, the configuration of
//! each codec, the fill value of extension data types (and of v2 complex, unicode and object
//! types), and the uniqueness of structured field names.
//!
//! How these schemas differ from pydantic-zarr 0.9.2's `GroupSpec.model_json_schema()`:
//! - pydantic's root is a group; here it is a group or an array (an `ArraySpec` dump is a ZOM
//!   too).
//! - pydantic makes `members` optional and nullable (`{}` by default, `null` when flattened)
//!   and `zarr_format`/`node_type` optional (they have defaults); here they are required, as
//!   they are in every dump.
//! - Shape lengths must be non-negative and chunk lengths (v2 `chunks`, v3 regular
//!   `chunk_shape`) at least 1; pydantic only asks for integers.
//! - Member names must be non-empty, without `/`, not only dots, and must not start with `__`
//!   (the v3 spec's node-name rules, which zarr-python also applies to v2); pydantic does not
//!   constrain them in its schema.
//! - v3: pydantic forbids unknown keys; here an array or group may carry extra keys, as the
//!   v3 spec allows (a reader must refuse those it does not understand unless they are objects
//!   with `"must_understand": false`), except that an array may not have `members`; the
//!   draft ZEP 10 `extensions` list is typed.
//!   Named configurations may have `must_understand` (pydantic forbids it); pydantic allows
//!   only the `regular` chunk grid and the `default`/`v2` chunk key encodings, here any name is
//!   allowed and those three are checked. `codecs` must not be empty. `fill_value` is checked
//!   against the core data types (booleans, integers within the type's range, floats as
//!   numbers, `"NaN"`, `"Infinity"`, `"-Infinity"` or `"0x…"` hex, complex as pairs, `rN` as
//!   byte lists); pydantic takes any of those forms for any data type.
//! - v2: pydantic requires only `attributes`, `shape`, `chunks` and `dtype`; here every key the
//!   v2 spec requires in `.zarray` is required (`zarr_format`, `fill_value`, `order`, `filters`,
//!   `compressor`; `dimension_separator` stays optional). `dtype` must be a NumPy typestring
//!   (`<f8`, `|S4`, `<M8[ns]`, `|O`) or a structured list of `[name, type]` /
//!   `[name, type, shape]` (pydantic: any string or list of lists). Compressor and filter
//!   configurations must have a string `id`. `fill_value` is checked for boolean, integer,
//!   float and datetime typestrings and is base64 for `S`/`V`/structured types, as the v2 spec
//!   says.
//! - Unknown keys are refused in v2 nodes, as pydantic does (the v2 spec lists every key).

//!
//! The schemas are kept as JSON documents beside this file (`schema/zom-v2.schema.json`,
//! `schema/zom-v3.schema.json`) and embedded (minified at compile time): as data they cost a
//! fraction of the WebAssembly size that code building them would. The npm package's
//! `jsonSchema` serves the same files from JavaScript (`pkg/zom_schemas.js`, written by
//! scripts/build.mjs), so the WebAssembly module does not carry them.

use crate::error::{Result, ZomError};
use serde_json::Value;

/// The `$schema` of the schemas.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

const V2_TEXT: &[u8] = include_bytes!("schema/zom-v2.schema.json");
const V3_TEXT: &[u8] = include_bytes!("schema/zom-v3.schema.json");
// Embedded without the indentation (minified at compile time).
const V2: [u8; minified_len(V2_TEXT)] = minify(V2_TEXT);
const V3: [u8; minified_len(V3_TEXT)] = minify(V3_TEXT);

/// The length of `json` without whitespace outside strings.
pub(crate) const fn minified_len(json: &[u8]) -> usize {
    let (mut i, mut n, mut in_string, mut escaped) = (0, 0, false, false);
    while i < json.len() {
        let b = json[i];
        if in_string || !b.is_ascii_whitespace() {
            n += 1;
        }
        (in_string, escaped) = string_state(b, in_string, escaped);
        i += 1;
    }
    n
}

/// `json` without whitespace outside strings (`N` from [`minified_len`]).
pub(crate) const fn minify<const N: usize>(json: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let (mut i, mut n, mut in_string, mut escaped) = (0, 0, false, false);
    while i < json.len() {
        let b = json[i];
        if in_string || !b.is_ascii_whitespace() {
            out[n] = b;
            n += 1;
        }
        (in_string, escaped) = string_state(b, in_string, escaped);
        i += 1;
    }
    out
}

/// Whether the next byte is inside a string, and escaped, after byte `b`.
const fn string_state(b: u8, in_string: bool, escaped: bool) -> (bool, bool) {
    match (in_string, escaped, b) {
        (true, true, _) => (true, false),
        (true, false, b'\\') => (true, true),
        (true, false, b'"') => (false, false),
        (false, _, b'"') => (true, false),
        (state, _, _) => (state, false),
    }
}

/// The JSON Schema (draft 2020-12) of a ZOM of `zarr_format` 2 or 3; any other version is an
/// [`crate::ErrorCode::InvalidArgument`] error.
pub fn json_schema(zarr_format: u8) -> Result<Value> {
    let text: &[u8] = match zarr_format {
        2 => &V2,
        3 => &V3,
        other => {
            return Err(ZomError::invalid_argument(format!(
                "there is no Zarr v{other}: json_schema takes 2 or 3"
            )))
        }
    };
    // The embedded documents are tested to parse (tests/schema.rs); this cannot fail.
    // zom_json's parse: the one serde_json reader the crate uses (a second one is code).
    zom_json::text::parse(text).map_err(|e| ZomError::invalid_argument(e.to_string()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_schemas_are_the_files_minified() {
        for (text, minified) in [
            (super::V2_TEXT, &super::V2[..]),
            (super::V3_TEXT, &super::V3[..]),
        ] {
            let file: serde_json::Value = serde_json::from_slice(text).unwrap();
            assert_eq!(minified, serde_json::to_string(&file).unwrap().as_bytes());
        }
    }
}
