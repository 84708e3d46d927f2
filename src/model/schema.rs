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
//! `schema/zom-v3.schema.json`) and embedded: as data they cost a fraction of the WebAssembly
//! size that code building them would.

use crate::error::{Result, ZomError};
use serde_json::Value;

/// The `$schema` of the schemas.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

const V2: &str = include_str!("schema/zom-v2.schema.json");
const V3: &str = include_str!("schema/zom-v3.schema.json");

/// The `$id` of the schema of `zarr_format` (2 or 3).
pub fn schema_id(zarr_format: u8) -> String {
    format!("https://example.invalid/zom/schema/zom-v{zarr_format}.json")
}

/// The JSON Schema (draft 2020-12) of a ZOM of `zarr_format` 2 or 3; any other version is an
/// [`crate::ErrorCode::InvalidArgument`] error.
pub fn json_schema(zarr_format: u8) -> Result<Value> {
    let text = match zarr_format {
        2 => V2,
        3 => V3,
        other => {
            return Err(ZomError::invalid_argument(format!(
                "there is no Zarr v{other}: json_schema takes 2 or 3"
            )))
        }
    };
    // The embedded documents are tested to parse (tests/schema.rs); this cannot fail.
    // from_slice: the one serde_json reader the crate uses elsewhere (a second one is code).
    serde_json::from_slice(text.as_bytes()).map_err(|e| ZomError::invalid_argument(e.to_string()))
}
