//! CF packing: `scale_factor`, `add_offset`, `_FillValue` / `missing_value` and the valid
//! range, read from a variable's attributes (each bad one a located problem) and applied to
//! stored values as xarray's `mask_and_scale` applies them.

use super::{Node, Report};
use crate::problem::{show, tname, ProblemKind};
use serde::Serialize;
use serde_json::{Map, Value};

/// The longest `_FillValue` string decoded as base64 (8 bytes take 12 characters).
const MAX_FILL_TEXT: usize = 64;
/// The most `missing_value` entries read.
const MAX_MISSING: usize = 64;

/// CF decoding of stored values (xarray's `mask_and_scale`).
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
pub struct Packing {
    /// `scale_factor`.
    pub scale_factor: Option<f64>,
    /// `add_offset`.
    pub add_offset: Option<f64>,
    /// Stored values that mean "missing": `_FillValue` and `missing_value`, NaN included
    /// (serialised as JSON `null`).
    pub fill_values: Vec<f64>,
    /// The smallest valid stored value (`valid_range[0]` or `valid_min`).
    pub valid_min: Option<f64>,
    /// The largest valid stored value (`valid_range[1]` or `valid_max`).
    pub valid_max: Option<f64>,
}

/// A number, or a list of one number (netCDF attributes are lists); the JSON strings `NaN`,
/// `Infinity` and `-Infinity` too, as zarr writes non-finite numbers.
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => special(s),
        Value::Array(items) if items.len() == 1 => number(&items[0]),
        _ => None,
    }
}

fn special(text: &str) -> Option<f64> {
    match text {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// A numeric attribute (`scale_factor`, `valid_min`, …); a problem when it is not a number.
fn numeric_attr(attrs: &Map<String, Value>, key: &str, report: &mut Report) -> Option<f64> {
    let value = attrs.get(key)?;
    let n = number(value);
    if n.is_none() {
        report.wrong_type(key, "a number", value);
    }
    n
}

pub(super) fn packing_of(node: &Node, data_type: &str, report: &mut Report) -> Packing {
    let attrs = node.attributes();
    let mut packing = Packing {
        scale_factor: numeric_attr(attrs, "scale_factor", report),
        add_offset: numeric_attr(attrs, "add_offset", report),
        ..Packing::default()
    };
    packing
        .fill_values
        .extend(fill_value(node, data_type, report));
    if let Some(missing) = attrs.get("missing_value") {
        let listed: Option<Vec<f64>> = match missing {
            Value::Array(items) if items.len() <= MAX_MISSING => items.iter().map(number).collect(),
            other => number(other).map(|n| vec![n]),
        };
        if listed.is_none() {
            report.wrong_type("missing_value", "a number or a list of numbers", missing);
        }
        for v in listed.into_iter().flatten() {
            if !packing.fill_values.iter().any(|f| same(*f, v)) {
                packing.fill_values.push(v);
            }
        }
    }
    if let Some(range) = attrs.get("valid_range") {
        let pair: Option<Option<Vec<f64>>> =
            range.as_array().map(|r| r.iter().map(number).collect());
        let (kind, why) = match pair.as_ref().map(|p| p.as_deref()) {
            None | Some(None) => (ProblemKind::InvalidType, "must be a list of two numbers"),
            Some(Some(&[lo, hi])) if lo <= hi => {
                packing.valid_min = Some(lo);
                packing.valid_max = Some(hi);
                (ProblemKind::InvalidValue, "")
            }
            Some(Some(&[_, _])) => (
                ProblemKind::InvalidValue,
                "has its minimum above its maximum",
            ),
            Some(Some(_)) => (
                ProblemKind::InvalidValue,
                "must be a pair (minimum, maximum)",
            ),
        };
        if !why.is_empty() {
            let message = format!("valid_range {why}, not {} {}", tname(range), show(range));
            report.at("valid_range", kind, message);
        }
    }
    if let Some(lo) = numeric_attr(attrs, "valid_min", report) {
        packing.valid_min = Some(lo);
    }
    if let Some(hi) = numeric_attr(attrs, "valid_max", report) {
        packing.valid_max = Some(hi);
    }
    packing
}

/// Equal, NaN matching NaN.
fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// The `_FillValue` xarray decodes with: v2 the array's `fill_value` (else a numeric
/// `_FillValue` attribute), v3 the `_FillValue` attribute.
fn fill_value(node: &Node, data_type: &str, report: &mut Report) -> Option<f64> {
    if node.format() == 2 {
        match node.value.get("fill_value") {
            Some(Value::Null) | None => {}
            Some(Value::Number(n)) => return n.as_f64(),
            Some(Value::String(s)) => return special(s),
            // Booleans and others: not a numeric mask.
            Some(_) => return None,
        }
    }
    let value = node.attributes().get("_FillValue")?;
    let float = data_type.starts_with("float");
    let decoded = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if float => special(s).or_else(|| base64_float(s)),
        Value::Array(items) if items.len() == 1 => number(&items[0]),
        _ => None,
    };
    match (decoded, value.is_string() && float) {
        (Some(_), _) => {}
        (None, true) => {
            let message = format!(
                "_FillValue of a float must be the base64 of a little-endian float64, not {}",
                show(value)
            );
            report.at("_FillValue", ProblemKind::InvalidValue, message);
        }
        (None, false) => report.wrong_type("_FillValue", "a number", value),
    }
    decoded
}

/// The float64 whose little-endian bytes `text` is the base64 of.
fn base64_float(text: &str) -> Option<f64> {
    if text.len() > MAX_FILL_TEXT {
        return None;
    }
    let bytes = crate::dtype::base64::decode(text).ok()?;
    let bytes: [u8; 8] = bytes.try_into().ok()?;
    Some(f64::from_le_bytes(bytes))
}

/// Stored values → physical values: a value equal to a fill value (NaN matches NaN) becomes
/// NaN, as xarray's `decode_cf` (`mask_and_scale`) makes it; so does one outside the valid
/// minimum and maximum, as CF 2.5.1 asks of generic applications and netCDF4-python does (xarray
/// leaves those, pydata/xarray#8359); any other becomes `value * scale_factor + add_offset`.
pub fn unpack(packing: &Packing, stored: &[f64]) -> Vec<f64> {
    stored
        .iter()
        .map(|&v| {
            let masked = packing.fill_values.iter().any(|&f| same(f, v))
                || packing.valid_min.is_some_and(|lo| v < lo)
                || packing.valid_max.is_some_and(|hi| v > hi);
            if masked {
                f64::NAN
            } else {
                let scaled = packing.scale_factor.map_or(v, |s| v * s);
                packing.add_offset.map_or(scaled, |o| scaled + o)
            }
        })
        .collect()
}
