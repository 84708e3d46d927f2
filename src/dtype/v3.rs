//! The v3 `data_type` encoding: bare names for simple types, named configurations for the
//! parameterised ones, exactly as zarr-python 3.1 writes them.

use super::element::check_struct_fields;
use super::fill::shorten;
use super::numeric;
use super::time::{check_scale_factor, unknown_unit};
use super::{
    BytesNaming, DataType, Endianness, StructField, StructNaming, TimeUnit, MAX_STRUCT_DEPTH,
};
use crate::document::named::NamedConfig;
use crate::json::type_name;
use serde_json::{Map, Value};

/// The names of the types other than the numeric ones (`super::numeric`) that take no
/// configuration.
const SIMPLE: &[(&str, DataType)] = &[
    ("string", DataType::String),
    (
        "variable_length_bytes",
        DataType::Bytes(BytesNaming::VariableLengthBytes),
    ),
    ("bytes", DataType::Bytes(BytesNaming::Bytes)),
];

/// The type a configuration-free `name` stands for.
fn simple(name: &str) -> Option<DataType> {
    numeric::by_name(name)
        .map(|n| n.data_type.clone())
        .or_else(|| {
            SIMPLE
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, dt)| dt.clone())
        })
}

/// The names of the types that need a configuration.
const CONFIGURED: &[&str] = &[
    "fixed_length_utf32",
    "null_terminated_bytes",
    "raw_bytes",
    "numpy.datetime64",
    "numpy.timedelta64",
    "structured",
    "struct",
];

/// Whether `name` is a v3 data type name zom knows.
pub(super) fn is_known_name(name: &str) -> bool {
    simple(name).is_some() || CONFIGURED.contains(&name) || matches!(r_bits(name), Some(Ok(_)))
}

/// The number of bits of a core-spec `r<bits>` name: `None` when `name` is not `r` followed
/// by digits, `Some(Err)` when it is but the number is not a positive multiple of 8.
fn r_bits(name: &str) -> Option<Result<u64, String>> {
    let digits = name.strip_prefix('r')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let invalid = || {
        format!(
            "'{}': r<bits> needs a positive multiple of 8 bits",
            shorten(name)
        )
    };
    if digits.starts_with('0') {
        return Some(Err(invalid()));
    }
    Some(match digits.parse::<u64>() {
        Ok(bits) if bits % 8 == 0 => Ok(bits),
        _ => Err(invalid()),
    })
}

/// Reads a v3 `data_type`; `depth` is how many structs enclose it.
pub(super) fn from_v3(named: &NamedConfig, depth: usize) -> Result<DataType, String> {
    let name = named.name.as_str();
    if let Some(dt) = simple(name) {
        no_configuration(named)?;
        return Ok(dt);
    }
    if let Some(bits) = r_bits(name) {
        let bits = bits?;
        no_configuration(named)?;
        return Ok(DataType::RawBytes {
            length_bytes: bits / 8,
            r_name: true,
        });
    }
    match name {
        "fixed_length_utf32" => {
            let config = configuration(named, &["length_bytes"])?;
            let length_bytes = length_bytes(name, config)?;
            if length_bytes % 4 != 0 {
                return Err(format!(
                    "fixed_length_utf32: length_bytes must be a multiple of 4, got {length_bytes}"
                ));
            }
            Ok(DataType::FixedLengthUtf32 { length_bytes })
        }
        "null_terminated_bytes" => {
            let config = configuration(named, &["length_bytes"])?;
            Ok(DataType::NullTerminatedBytes {
                length_bytes: length_bytes(name, config)?,
            })
        }
        "raw_bytes" => {
            let config = configuration(named, &["length_bytes"])?;
            Ok(DataType::RawBytes {
                length_bytes: length_bytes(name, config)?,
                r_name: false,
            })
        }
        "numpy.datetime64" | "numpy.timedelta64" => {
            let config = configuration(named, &["unit", "scale_factor"])?;
            let unit = match config.get("unit") {
                Some(Value::String(unit)) => {
                    TimeUnit::parse(unit).ok_or_else(|| unknown_unit(unit))?
                }
                Some(other) => {
                    return Err(format!(
                        "{name}: unit must be a string, got {}",
                        type_name(other)
                    ))
                }
                None => return Err(format!("{name}: configuration is missing 'unit'")),
            };
            let scale_factor = match config.get("scale_factor") {
                Some(Value::Number(n)) => match n.as_u64() {
                    Some(s) => check_scale_factor(s).map_err(|e| format!("{name}: {e}"))?,
                    None => {
                        return Err(format!(
                            "{name}: scale_factor must be a positive integer, got {n}"
                        ))
                    }
                },
                Some(other) => {
                    return Err(format!(
                        "{name}: scale_factor must be a positive integer, got {}",
                        type_name(other)
                    ))
                }
                None => return Err(format!("{name}: configuration is missing 'scale_factor'")),
            };
            Ok(if name == "numpy.datetime64" {
                DataType::DateTime64 { unit, scale_factor }
            } else {
                DataType::TimeDelta64 { unit, scale_factor }
            })
        }
        "structured" | "struct" => {
            let naming = if name == "struct" {
                StructNaming::Struct
            } else {
                StructNaming::Structured
            };
            struct_from_v3(named, naming, depth)
        }
        _ => Err(format!("unknown data type '{}'", shorten(name))),
    }
}

/// Refuses a configuration on a type that takes none (an empty one is tolerated).
fn no_configuration(named: &NamedConfig) -> Result<(), String> {
    match &named.configuration {
        Some(config) if !config.is_empty() => {
            Err(format!("data type '{}' takes no configuration", named.name))
        }
        _ => Ok(()),
    }
}

/// The configuration of a parameterised type, refusing keys outside `allowed`.
fn configuration<'a>(
    named: &'a NamedConfig,
    allowed: &[&str],
) -> Result<&'a Map<String, Value>, String> {
    let config = named
        .configuration
        .as_ref()
        .ok_or_else(|| format!("data type '{}' needs a configuration", named.name))?;
    if let Some(key) = config.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "{}: unknown configuration key '{}'",
            named.name,
            shorten(key)
        ));
    }
    Ok(config)
}

/// The positive integer `length_bytes` of a configuration.
fn length_bytes(name: &str, config: &Map<String, Value>) -> Result<u64, String> {
    match config.get("length_bytes") {
        None => Err(format!("{name}: configuration is missing 'length_bytes'")),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(0) => Err(format!("{name}: length_bytes must be positive, got 0")),
            Some(length) => Ok(length),
            None => Err(format!(
                "{name}: length_bytes must be a positive integer, got {n}"
            )),
        },
        Some(other) => Err(format!(
            "{name}: length_bytes must be a positive integer, got {}",
            type_name(other)
        )),
    }
}

/// Reads `structured` (`[[name, type], …]`) or `struct` (`[{name, data_type}, …]`) fields.
fn struct_from_v3(
    named: &NamedConfig,
    naming: StructNaming,
    depth: usize,
) -> Result<DataType, String> {
    let name = named.name.as_str();
    if depth >= MAX_STRUCT_DEPTH {
        return Err(format!(
            "{name}: struct types are nested more than {MAX_STRUCT_DEPTH} levels deep"
        ));
    }
    let config = configuration(named, &["fields"])?;
    let list = match config.get("fields") {
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(format!(
                "{name}: fields must be an array, got {}",
                type_name(other)
            ))
        }
        None => return Err(format!("{name}: configuration is missing 'fields'")),
    };
    let mut fields = Vec::with_capacity(list.len().min(1024));
    for (index, entry) in list.iter().enumerate() {
        let (field_name, type_json) = match (naming, entry) {
            (StructNaming::Structured, Value::Array(pair)) => match pair.as_slice() {
                [Value::String(n), t] => (n, t),
                _ => return Err(format!("{name}: field {index} must be [name, data_type]")),
            },
            (StructNaming::Struct, Value::Object(object)) => {
                if let Some(key) = object.keys().find(|k| *k != "name" && *k != "data_type") {
                    return Err(format!(
                        "{name}: field {index} has an unknown key '{}'",
                        shorten(key)
                    ));
                }
                match (object.get("name"), object.get("data_type")) {
                    (Some(Value::String(n)), Some(t)) => (n, t),
                    _ => {
                        return Err(format!(
                            "{name}: field {index} must be {{\"name\": string, \"data_type\": …}}"
                        ))
                    }
                }
            }
            (StructNaming::Structured, _) => {
                return Err(format!("{name}: field {index} must be [name, data_type]"))
            }
            (StructNaming::Struct, _) => {
                return Err(format!(
                    "{name}: field {index} must be an object with 'name' and 'data_type'"
                ))
            }
        };
        let inner = NamedConfig::from_value(type_json)
            .map_err(|e| format!("{name}: field '{}': data_type {e}", shorten(field_name)))?;
        let data_type = from_v3(&inner, depth + 1)
            .map_err(|e| format!("{name}: field '{}': {e}", shorten(field_name)))?;
        let endianness = field_endianness(&data_type);
        fields.push(StructField {
            name: field_name.clone(),
            data_type,
            shape: Vec::new(),
            endianness,
        });
    }
    check_struct_fields(name, &fields)?;
    Ok(DataType::Struct { fields, naming })
}

/// The byte order a v3 struct field is held in: little-endian when it has one.
fn field_endianness(data_type: &DataType) -> Endianness {
    if data_type.has_byte_order() {
        Endianness::Little
    } else {
        Endianness::NotApplicable
    }
}

/// A named configuration with the given entries.
fn named(name: &str, entries: Vec<(&str, Value)>) -> NamedConfig {
    let config: Map<String, Value> = entries
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    NamedConfig::new(name, Some(config))
}

/// The v3 `data_type` of `data_type`.
pub(super) fn to_v3(data_type: &DataType) -> NamedConfig {
    if let Some(n) = data_type.numeric() {
        return NamedConfig::short(n.name);
    }
    if let Some((name, _)) = SIMPLE.iter().find(|(_, dt)| dt == data_type) {
        return NamedConfig::short(*name);
    }
    match data_type {
        DataType::FixedLengthUtf32 { length_bytes } => named(
            "fixed_length_utf32",
            vec![("length_bytes", Value::from(*length_bytes))],
        ),
        DataType::NullTerminatedBytes { length_bytes } => named(
            "null_terminated_bytes",
            vec![("length_bytes", Value::from(*length_bytes))],
        ),
        DataType::RawBytes {
            length_bytes,
            r_name: true,
        } if length_bytes.checked_mul(8).is_some() && *length_bytes > 0 => {
            NamedConfig::short(format!("r{}", length_bytes.saturating_mul(8)))
        }
        DataType::RawBytes { length_bytes, .. } => named(
            "raw_bytes",
            vec![("length_bytes", Value::from(*length_bytes))],
        ),
        DataType::DateTime64 { unit, scale_factor } => {
            time_named("numpy.datetime64", *unit, *scale_factor)
        }
        DataType::TimeDelta64 { unit, scale_factor } => {
            time_named("numpy.timedelta64", *unit, *scale_factor)
        }
        DataType::Struct { fields, naming } => {
            let list = fields
                .iter()
                .map(|field| {
                    let field_type = field_type_v3(field);
                    match naming {
                        StructNaming::Structured => {
                            Value::Array(vec![Value::String(field.name.clone()), field_type])
                        }
                        StructNaming::Struct => {
                            let mut object = Map::new();
                            object.insert("name".into(), Value::String(field.name.clone()));
                            object.insert("data_type".into(), field_type);
                            Value::Object(object)
                        }
                    }
                })
                .collect();
            let name = match naming {
                StructNaming::Structured => "structured",
                StructNaming::Struct => "struct",
            };
            named(name, vec![("fields", Value::Array(list))])
        }
        DataType::VlenArray { item } => named(
            "numcodecs.vlen-array",
            vec![("data_type", to_v3(item).to_value())],
        ),
        DataType::Object(format) => NamedConfig::short(format!(
            "{}{}",
            crate::document::named::NUMCODECS_PREFIX,
            format.id()
        )),
        // The simple types were handled above.
        _ => NamedConfig::short("unknown"),
    }
}

/// The v3 type of a struct field. v3 has no subarray fields: like zarr-python (which turns a
/// NumPy subarray field into `|V<n>`), a field with a shape becomes `raw_bytes` of its size.
fn field_type_v3(field: &StructField) -> Value {
    if field.shape.is_empty() {
        return to_v3(&field.data_type).to_value();
    }
    let count = field
        .shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d));
    let size = count.and_then(|c| field.data_type.fixed_size().and_then(|s| s.checked_mul(c)));
    match size {
        Some(length_bytes) => named(
            "raw_bytes",
            vec![("length_bytes", Value::from(length_bytes))],
        )
        .to_value(),
        None => to_v3(&field.data_type).to_value(),
    }
}

/// `numpy.datetime64` / `numpy.timedelta64` with unit then scale factor, as zarr-python orders
/// them.
fn time_named(name: &str, unit: TimeUnit, scale_factor: u64) -> NamedConfig {
    named(
        name,
        vec![
            ("unit", Value::String(unit.as_str().into())),
            ("scale_factor", Value::from(scale_factor)),
        ],
    )
}
