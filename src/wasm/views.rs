//! Views and pictures for the TypeScript `loadViews` (`ts/shared/views.ts`), in a part of their own
//! (Cargo.toml's `bind-views`): what a node means under its convention ([`view::describe`]),
//! the level a picture reads, CF decoding of times and values, and the pixels
//! ([`view::picture`]). A page loads it when it first draws or describes, so the reader and
//! the validator do not carry it.

use super::convert::{from_js, to_js};
use super::plain;
use super::{fail, JsResult};
use crate::problem::{LocStep, Problem, ProblemKind};
use crate::view::{self, cf, cf_time, check, ome, picture};
use crate::ZomError;
use js_sys::{Array, Uint8Array};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The view of the node at `path` of a ZOM: `{path, view, problems}` ([`view::describe`]).
#[wasm_bindgen]
pub fn describe(zom: JsValue, path: &str) -> JsResult {
    let zom = from_js(&zom).map_err(fail)?;
    serialized(&view::describe(&zom, path))
}

/// The problems the pictures of the claimed nodes depend on, as a validation adds them
/// ([`check::check`]): `claims` as `detectConventions` gives them (`{path, spec}`), `found` the
/// validation's problems (`{path, loc}`), where a problem at the same place is not repeated.
#[wasm_bindgen]
pub fn check(zom: JsValue, claims: JsValue, found: JsValue) -> JsResult {
    let zom = from_js(&zom).map_err(fail)?;
    let text = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let claims: Vec<check::Claim> = list(&from_js(&claims).map_err(fail)?)
        .iter()
        .map(|c| check::Claim {
            path: text(c, "path"),
            spec: text(c, "spec"),
        })
        .collect();
    let found: Vec<Problem> = list(&from_js(&found).map_err(fail)?)
        .iter()
        .map(|p| {
            let loc: Vec<LocStep> = list(p.get("loc").unwrap_or(&Value::Null))
                .iter()
                .filter_map(|step| match step {
                    Value::String(key) => Some(LocStep::Key(key.clone())),
                    n => n.as_u64().map(|i| LocStep::Index(i as usize)),
                })
                .collect();
            Problem::error(
                &text(p, "path"),
                &loc,
                ProblemKind::InvalidValue,
                String::new(),
            )
        })
        .collect();
    Ok(plain::problems(&check::check(&zom, &claims, &found)))
}

fn list(value: &Value) -> &[Value] {
    value.as_array().map(Vec::as_slice).unwrap_or_default()
}

/// The level of the image at `path` of a ZOM to read for a picture of `width` × `height`
/// pixels; undefined when the node is no image.
#[wasm_bindgen(js_name = levelFor)]
pub fn level_for(
    zom: JsValue,
    path: &str,
    width: f64,
    height: f64,
) -> Result<Option<usize>, JsValue> {
    let zom = from_js(&zom).map_err(fail)?;
    Ok(match view::describe(&zom, path).view {
        Some(view::View::Image(image)) => {
            Some(ome::level_for(&image, dimension(width), dimension(height)))
        }
        _ => None,
    })
}

/// The level of the image at `path` whose array must be opened (its shape put in the ZOM)
/// before `levelFor` can answer for a picture of `width` × `height`; undefined when the shapes
/// known settle it or the node is no image.
#[wasm_bindgen(js_name = levelToOpen)]
pub fn level_to_open(
    zom: JsValue,
    path: &str,
    width: f64,
    height: f64,
) -> Result<Option<usize>, JsValue> {
    let zom = from_js(&zom).map_err(fail)?;
    Ok(match view::describe(&zom, path).view {
        Some(view::View::Image(image)) => {
            ome::level_to_open(&image, dimension(width), dimension(height))
        }
        _ => None,
    })
}

/// Time offsets decoded as CF dates in `calendar` (`units` "days since 2026-01-01"): ISO
/// texts, null for a missing value. Throws `InvalidMetadata` when the units or the calendar
/// cannot be read.
#[wasm_bindgen(js_name = decodeTimes)]
pub fn decode_times(values: &[f64], units: &str, calendar: &str) -> JsResult {
    let units = cf_time::parse_units(units).map_err(|e| fail(ZomError::invalid_metadata(e)))?;
    let calendar = cf_time::Calendar::parse(calendar).ok_or_else(|| {
        fail(ZomError::invalid_metadata(format!(
            "unknown calendar {}",
            crate::problem::show(&Value::from(calendar))
        )))
    })?;
    let out = Array::new();
    for date in cf_time::decode(values, &units, calendar) {
        out.push(&date.map_or(JsValue::NULL, |d| JsValue::from_str(&d.iso())));
    }
    Ok(out.into())
}

/// Stored values decoded as CF says (`{scale_factor, add_offset, fill_values, valid_min,
/// valid_max}`, a variable view's `packing`): masked values are NaN.
#[wasm_bindgen]
pub fn unpack(packing: JsValue, stored: &[f64]) -> Result<Vec<f64>, JsValue> {
    let packing = packing_of(&from_js(&packing).map_err(fail)?);
    Ok(cf::unpack(&packing, stored))
}

/// Whether a coordinate's values increase (null when fewer than two are finite).
#[wasm_bindgen]
pub fn ascending(values: &[f64]) -> Option<bool> {
    cf::ascending(values)
}

/// A `width` × `height` plane of values with its rows and columns reversed as asked.
#[wasm_bindgen]
pub fn oriented(
    values: &[f64],
    width: usize,
    height: usize,
    flip_rows: bool,
    flip_columns: bool,
) -> Result<Vec<f64>, JsValue> {
    picture::oriented(values, width, height, flip_rows, flip_columns).map_err(fail)
}

/// The composite of planes (each the bytes of a typed array, with its element kind
/// `"uint16"`…) in their styles (`{color: "RRGGBB", window: [start, end] | null, inverted}`),
/// as RGBA.
#[wasm_bindgen]
pub fn composite(
    planes: Array,
    kinds: Array,
    styles: JsValue,
    width: usize,
    height: usize,
) -> Result<Vec<u8>, JsValue> {
    let bytes: Vec<Vec<u8>> = planes
        .iter()
        .map(|p| Uint8Array::new(&p).to_vec())
        .collect();
    let kinds: Vec<picture::SampleKind> = kinds
        .iter()
        .map(|k| sample_kind(&k))
        .collect::<Result<_, _>>()?;
    if kinds.len() != bytes.len() {
        return Err(fail(ZomError::invalid_argument(
            "one element kind per plane",
        )));
    }
    let planes: Vec<picture::Plane> = bytes
        .iter()
        .zip(&kinds)
        .map(|(bytes, &kind)| picture::Plane { bytes, kind })
        .collect();
    let styles = channel_styles(&from_js(&styles).map_err(fail)?)?;
    picture::composite(&planes, &styles, width, height).map_err(fail)
}

/// `rgba` with the label plane (`kind` its element kind) laid over it in `colors`
/// (`[{label_value, rgba: [r, g, b, a]}]`, an image view's `label.colors`) at `opacity`.
#[wasm_bindgen(js_name = overlayLabels)]
pub fn overlay_labels(
    rgba: &mut [u8],
    labels: &[u8],
    kind: &str,
    colors: JsValue,
    opacity: f64,
) -> Result<(), JsValue> {
    let kind = sample_kind(&JsValue::from_str(kind))?;
    let colors = label_colors(&from_js(&colors).map_err(fail)?);
    let plane = picture::Plane {
        bytes: labels,
        kind,
    };
    picture::overlay_labels(rgba, &plane, &colors, opacity).map_err(fail)
}

fn serialized<T: serde::Serialize>(value: &T) -> JsResult {
    let value =
        serde_json::to_value(value).map_err(|e| fail(ZomError::invalid_argument(e.to_string())))?;
    Ok(to_js(&value))
}

fn dimension(n: f64) -> u64 {
    if n.is_finite() && n > 0.0 {
        n.min(u32::MAX as f64) as u64
    } else {
        1
    }
}

fn sample_kind(name: &JsValue) -> Result<picture::SampleKind, JsValue> {
    let text = name.as_string().unwrap_or_default();
    picture::SampleKind::parse(&text).ok_or_else(|| {
        fail(ZomError::invalid_argument(format!(
            "no picture is drawn from {text:?} samples"
        )))
    })
}

fn channel_styles(value: &Value) -> Result<Vec<picture::ChannelStyle>, JsValue> {
    let Some(list) = value.as_array() else {
        return Err(fail(ZomError::invalid_argument("the styles are a list")));
    };
    list.iter()
        .enumerate()
        .map(|(i, style)| {
            let color = style
                .get("color")
                .and_then(Value::as_str)
                .and_then(picture::parse_color)
                .ok_or_else(|| {
                    fail(ZomError::invalid_argument(format!(
                        "style {i}'s color is not RRGGBB"
                    )))
                })?;
            let window = style
                .get("window")
                .and_then(Value::as_array)
                .and_then(|w| Some((w.first()?.as_f64()?, w.get(1)?.as_f64()?)));
            let inverted = style
                .get("inverted")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            Ok(picture::ChannelStyle {
                color,
                window,
                inverted,
            })
        })
        .collect()
}

fn label_colors(value: &Value) -> Vec<picture::LabelColor> {
    let Some(list) = value.as_array() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|c| {
            let value = c.get("label_value")?.as_f64()?;
            let rgba = c.get("rgba")?.as_array()?;
            let byte = |i: usize| {
                rgba.get(i)
                    .and_then(Value::as_u64)
                    .map(|b| b.min(255) as u8)
            };
            Some(picture::LabelColor {
                value,
                rgba: [byte(0)?, byte(1)?, byte(2)?, byte(3).unwrap_or(255)],
            })
        })
        .collect()
}

/// A variable view's `packing` as the JS side hands it back (a NaN fill value crossed as null).
fn packing_of(value: &Value) -> cf::Packing {
    let number = |key: &str| value.get(key).and_then(Value::as_f64);
    let fill_values = value
        .get("fill_values")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|v| v.as_f64().unwrap_or(f64::NAN))
                .collect()
        })
        .unwrap_or_default();
    cf::Packing {
        scale_factor: number("scale_factor"),
        add_offset: number("add_offset"),
        fill_values,
        valid_min: number("valid_min"),
        valid_max: number("valid_max"),
    }
}
