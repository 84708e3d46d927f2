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

use crate::error::{Result, ZomError};
use serde_json::{json, Value};

/// The `$schema` of the generated schemas.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The `$id` of the schema of `zarr_format` (2 or 3).
pub fn schema_id(zarr_format: u8) -> String {
    format!("https://example.invalid/zom/schema/zom-v{zarr_format}.json")
}

/// The JSON Schema (draft 2020-12) of a ZOM of `zarr_format` 2 or 3; any other version is an
/// [`crate::ErrorCode::InvalidArgument`] error.
pub fn json_schema(zarr_format: u8) -> Result<Value> {
    let (title, description, defs) = match zarr_format {
        2 => (
            "Zarr Object Model (Zarr v2)",
            "A Zarr v2 hierarchy as a Zarr Object Model (ZEP 6), in the nested JSON form that \
             pydantic-zarr's GroupSpec.model_dump() gives: a group (attributes and members) or an \
             array (its .zarray keys and attributes).",
            v2_defs(),
        ),
        3 => (
            "Zarr Object Model (Zarr v3)",
            "A Zarr v3 hierarchy as a Zarr Object Model (ZEP 6), in the nested JSON form that \
             pydantic-zarr's GroupSpec.model_dump() gives: a group (its zarr.json keys and \
             members) or an array (its zarr.json keys).",
            v3_defs(),
        ),
        other => {
            return Err(ZomError::invalid_argument(format!(
                "zarr_format must be 2 or 3, not {other}"
            )))
        }
    };
    Ok(json!({
        "$schema": DRAFT_2020_12,
        "$id": schema_id(zarr_format),
        "title": title,
        "description": description,
        "$ref": "#/$defs/node",
        "$defs": defs,
    }))
}

/// Definitions both versions share.
fn common_defs(defs: &mut serde_json::Map<String, Value>) {
    defs.insert(
        "member_name".into(),
        json!({
            "description": "A member's name: not empty, no '/', not only dots, not starting \
                            with '__' (reserved).",
            "type": "string",
            "minLength": 1,
            "pattern": "^[^/]*$",
            "not": {"anyOf": [{"pattern": "^\\.*$"}, {"pattern": "^__"}]}
        }),
    );
    defs.insert(
        "attributes".into(),
        json!({"description": "User attributes.", "type": "object"}),
    );
    defs.insert(
        "shape".into(),
        json!({
            "description": "The length of each dimension.",
            "type": "array",
            "items": {"type": "integer", "minimum": 0}
        }),
    );
    defs.insert(
        "chunk_shape".into(),
        json!({
            "description": "The length of each dimension of a chunk.",
            "type": "array",
            "items": {"type": "integer", "minimum": 1}
        }),
    );
    defs.insert(
        "members".into(),
        json!({
            "description": "Member name to member node.",
            "type": "object",
            "propertyNames": {"$ref": "#/$defs/member_name"},
            "additionalProperties": {"$ref": "#/$defs/node"}
        }),
    );
    defs.insert(
        "node".into(),
        json!({
            "description": "A group or an array.",
            "oneOf": [{"$ref": "#/$defs/group"}, {"$ref": "#/$defs/array"}]
        }),
    );
}

fn v3_defs() -> Value {
    let mut defs = serde_json::Map::new();
    common_defs(&mut defs);
    defs.insert(
        "named_config".into(),
        json!({
            "description": "An extension point: a bare name, or an object with the name, an \
                            optional configuration and an optional must_understand flag.",
            "oneOf": [
                {"type": "string", "minLength": 1},
                {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "name": {"type": "string", "minLength": 1},
                        "configuration": {"type": "object"},
                        "must_understand": {"type": "boolean"}
                    },
                    "additionalProperties": false
                }
            ]
        }),
    );
    defs.insert(
        "named_config_list".into(),
        json!({"type": "array", "items": {"$ref": "#/$defs/named_config"}}),
    );
    defs.insert(
        "group".into(),
        json!({
            "description": "A v3 group: its zarr.json keys and its members. Other keys are \
                            extension fields.",
            "type": "object",
            "required": ["zarr_format", "node_type", "attributes", "members"],
            "properties": {
                "zarr_format": {"const": 3},
                "node_type": {"const": "group"},
                "attributes": {"$ref": "#/$defs/attributes"},
                "extensions": {"$ref": "#/$defs/named_config_list"},
                "members": {"$ref": "#/$defs/members"}
            }
        }),
    );
    defs.insert("array".into(), v3_array());
    defs.insert("chunk_grid".into(), v3_chunk_grid());
    defs.insert("chunk_key_encoding".into(), v3_chunk_key_encoding());
    defs.insert("float_fill".into(), float_fill());
    defs.insert("fill_value_rules".into(), v3_fill_value_rules());
    Value::Object(defs)
}

fn v3_array() -> Value {
    json!({
        "description": "A v3 array: its zarr.json keys. Other keys are extension fields.",
        "type": "object",
        "required": [
            "zarr_format", "node_type", "attributes", "shape", "data_type", "chunk_grid",
            "chunk_key_encoding", "fill_value", "codecs"
        ],
        "properties": {
            "zarr_format": {"const": 3},
            "node_type": {"const": "array"},
            "attributes": {"$ref": "#/$defs/attributes"},
            "shape": {"$ref": "#/$defs/shape"},
            "data_type": {"$ref": "#/$defs/named_config"},
            "chunk_grid": {"$ref": "#/$defs/chunk_grid"},
            "chunk_key_encoding": {"$ref": "#/$defs/chunk_key_encoding"},
            "fill_value": true,
            "codecs": {
                "type": "array",
                "minItems": 1,
                "items": {"$ref": "#/$defs/named_config"}
            },
            "storage_transformers": {"$ref": "#/$defs/named_config_list"},
            "dimension_names": {
                "type": ["array", "null"],
                "items": {"type": ["string", "null"]}
            },
            "extensions": {"$ref": "#/$defs/named_config_list"},
            "members": false
        },
        "allOf": [{"$ref": "#/$defs/fill_value_rules"}]
    })
}

/// A condition: the named config at `field` has one of `names` (bare or object form).
fn named(field: &str, names: &[&str]) -> Value {
    json!({
        "required": [field],
        "properties": {
            field: {"anyOf": [
                {"enum": names},
                {"type": "object", "required": ["name"], "properties": {"name": {"enum": names}}}
            ]}
        }
    })
}

fn v3_chunk_grid() -> Value {
    json!({
        "description": "The chunk grid; the regular grid needs a chunk_shape of positive \
                        lengths.",
        "allOf": [
            {"$ref": "#/$defs/named_config"},
            {
                "if": {"anyOf": [
                    {"const": "regular"},
                    {"type": "object", "required": ["name"], "properties": {"name": {"const": "regular"}}}
                ]},
                "then": {
                    "type": "object",
                    "required": ["configuration"],
                    "properties": {"configuration": {
                        "required": ["chunk_shape"],
                        "properties": {"chunk_shape": {"$ref": "#/$defs/chunk_shape"}}
                    }}
                }
            }
        ]
    })
}

fn v3_chunk_key_encoding() -> Value {
    json!({
        "description": "How chunk coordinates become keys; default and v2 take a '/' or '.' \
                        separator.",
        "allOf": [
            {"$ref": "#/$defs/named_config"},
            {
                "if": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"name": {"enum": ["default", "v2"]}}
                },
                "then": {"properties": {"configuration": {
                    "properties": {"separator": {"enum": ["/", "."]}}
                }}}
            }
        ]
    })
}

fn float_fill() -> Value {
    json!({
        "description": "A float fill value: a number, a special value, or the bits as hex.",
        "anyOf": [
            {"type": "number"},
            {"enum": ["NaN", "Infinity", "-Infinity"]},
            {"type": "string", "pattern": "^0x[0-9a-fA-F]+$"}
        ]
    })
}

/// The fill value's form for each core data type of the v3 spec.
fn v3_fill_value_rules() -> Value {
    let int_ranges: [(&str, Value, Value); 8] = [
        ("int8", json!(-128), json!(127)),
        ("int16", json!(-32768), json!(32767)),
        ("int32", json!(-2_147_483_648_i64), json!(2_147_483_647_i64)),
        ("int64", json!(i64::MIN), json!(i64::MAX)),
        ("uint8", json!(0), json!(255)),
        ("uint16", json!(0), json!(65535)),
        ("uint32", json!(0), json!(4_294_967_295_u64)),
        ("uint64", json!(0), json!(u64::MAX)),
    ];
    let mut rules: Vec<Value> = int_ranges
        .into_iter()
        .map(|(name, min, max)| {
            json!({
                "if": named("data_type", &[name]),
                "then": {"properties": {"fill_value": {
                    "type": "integer", "minimum": min, "maximum": max
                }}}
            })
        })
        .collect();
    rules.push(json!({
        "if": named("data_type", &["bool"]),
        "then": {"properties": {"fill_value": {"type": "boolean"}}}
    }));
    rules.push(json!({
        "if": named("data_type", &["float16", "float32", "float64"]),
        "then": {"properties": {"fill_value": {"$ref": "#/$defs/float_fill"}}}
    }));
    rules.push(json!({
        "if": named("data_type", &["complex64", "complex128"]),
        "then": {"properties": {"fill_value": {
            "type": "array",
            "prefixItems": [{"$ref": "#/$defs/float_fill"}, {"$ref": "#/$defs/float_fill"}],
            "minItems": 2,
            "maxItems": 2
        }}}
    }));
    rules.push(json!({
        "if": {
            "required": ["data_type"],
            "properties": {"data_type": {"anyOf": [
                {"type": "string", "pattern": "^r[0-9]+$"},
                {"type": "object", "required": ["name"], "properties": {"name": {"pattern": "^r[0-9]+$"}}}
            ]}}
        },
        "then": {"properties": {"fill_value": {
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": 255}
        }}}
    }));
    json!({
        "description": "The fill value's form for the core data types.",
        "allOf": rules
    })
}

/// A NumPy typestring as the v2 spec allows: byte order, kind, size; datetimes with a unit.
const V2_TYPESTR: &str =
    "^[<>|](?:[biufcSUV][0-9]+|O[0-9]*|[mM]8(?:\\[[0-9]*(?:Y|M|W|D|h|m|s|ms|us|ns|ps|fs|as)\\])?)$";

fn v2_defs() -> Value {
    let mut defs = serde_json::Map::new();
    common_defs(&mut defs);
    defs.insert(
        "typestr".into(),
        json!({"type": "string", "pattern": V2_TYPESTR}),
    );
    defs.insert(
        "structured_dtype".into(),
        json!({
            "description": "A structured type: a list of [name, type] or [name, type, shape].",
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "array",
                "minItems": 2,
                "maxItems": 3,
                "prefixItems": [
                    {"type": "string"},
                    {"anyOf": [{"$ref": "#/$defs/typestr"}, {"$ref": "#/$defs/structured_dtype"}]},
                    {"type": "array", "items": {"type": "integer", "minimum": 0}}
                ]
            }
        }),
    );
    defs.insert(
        "codec".into(),
        json!({
            "description": "A numcodecs configuration.",
            "type": "object",
            "required": ["id"],
            "properties": {"id": {"type": "string", "minLength": 1}}
        }),
    );
    defs.insert(
        "group".into(),
        json!({
            "description": "A v2 group: its attributes and its members.",
            "type": "object",
            "required": ["zarr_format", "attributes", "members"],
            "properties": {
                "zarr_format": {"const": 2},
                "attributes": {"$ref": "#/$defs/attributes"},
                "members": {"$ref": "#/$defs/members"}
            },
            "additionalProperties": false
        }),
    );
    defs.insert("array".into(), v2_array());
    Value::Object(defs)
}

fn v2_array() -> Value {
    let dtype_is = |pattern: &str| json!({"required": ["dtype"], "properties": {"dtype": {"type": "string", "pattern": pattern}}});
    let fill_rule = |pattern: &str, fill: Value| json!({"if": dtype_is(pattern), "then": {"properties": {"fill_value": fill}}});
    json!({
        "description": "A v2 array: its .zarray keys and its attributes.",
        "type": "object",
        "required": [
            "zarr_format", "attributes", "shape", "chunks", "dtype", "fill_value", "order",
            "filters", "compressor"
        ],
        "properties": {
            "zarr_format": {"const": 2},
            "attributes": {"$ref": "#/$defs/attributes"},
            "shape": {"$ref": "#/$defs/shape"},
            "chunks": {"$ref": "#/$defs/chunk_shape"},
            "dtype": {"oneOf": [{"$ref": "#/$defs/typestr"}, {"$ref": "#/$defs/structured_dtype"}]},
            "fill_value": true,
            "order": {"enum": ["C", "F"]},
            "filters": {
                "oneOf": [{"type": "null"}, {"type": "array", "items": {"$ref": "#/$defs/codec"}}]
            },
            "dimension_separator": {"enum": [".", "/"]},
            "compressor": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/codec"}]}
        },
        "additionalProperties": false,
        "allOf": [
            fill_rule("^.b", json!({"type": ["boolean", "null"]})),
            fill_rule("^.[iumM]", json!({"type": ["integer", "null"]})),
            fill_rule("^.f", json!({"anyOf": [
                {"type": ["number", "null"]},
                {"enum": ["NaN", "Infinity", "-Infinity"]}
            ]})),
            fill_rule("^.[SV]", json!({"type": ["string", "null"], "pattern": "^[A-Za-z0-9+/]*={0,2}$"})),
            {
                "if": {"required": ["dtype"], "properties": {"dtype": {"type": "array"}}},
                "then": {"properties": {"fill_value": {
                    "type": ["string", "null"], "pattern": "^[A-Za-z0-9+/]*={0,2}$"
                }}}
            }
        ]
    })
}
