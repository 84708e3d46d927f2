//! ZOM bindings: documents ↔ ZOM, flat forms, summaries, v2 → v3, comparison. Every part
//! has `toDocuments` and `summarizeTree` (zom/zarrita's consolidated store uses them); the
//! rest is the validator's.

use super::convert::{self, as_array, to_js};
use super::json_text::{json_input, zom_input};
use super::options;
use super::{fail, plain, JsResult};
use crate::error::ZomError;
use crate::model::{self, FlatForm};
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Builds the ZOM of a hierarchy from its documents: a Map or object of key → bytes, JSON text
/// or parsed JSON.
#[cfg(feature = "bind-tools")]
#[wasm_bindgen(js_name = fromDocuments)]
pub fn from_documents(docs: JsValue) -> JsResult {
    let mut entries: Vec<(String, JsValue)> = Vec::new();
    if let Some(map) = docs.dyn_ref::<js_sys::Map>() {
        map.for_each(&mut |value, key| {
            entries.push((key.as_string().unwrap_or_default(), value));
        });
    } else if docs.is_object() {
        for entry in Object::entries(Object::unchecked_from_js_ref(&docs)).iter() {
            let pair = as_array(&entry);
            entries.push((pair.get(0).as_string().unwrap_or_default(), pair.get(1)));
        }
    } else {
        return Err(fail(ZomError::invalid_argument(
            "fromDocuments takes a Map or an object of store key → document",
        )));
    }
    let mut parsed = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        if !model::documents::is_metadata_key(&key) {
            continue;
        }
        let path = model::documents::node_path_of_key(&key).to_string();
        let json = json_input(&value).inspect_err(|e| {
            // Locate parse errors at their key.
            let _ = Reflect::set(e, &"key".into(), &JsValue::from_str(&key));
            let _ = Reflect::set(e, &"path".into(), &JsValue::from_str(&path));
        })?;
        parsed.push((key, json));
    }
    let node = model::from_documents(parsed).map_err(fail)?;
    Ok(convert::node_to_js(node))
}

/// The documents that create a ZOM: an array of [key, Uint8Array] pairs.
#[wasm_bindgen(js_name = toDocuments)]
pub fn to_documents(zom: JsValue, options: JsValue) -> JsResult {
    let node = zom_input(&zom)?;
    let docs =
        model::to_document_bytes(&node, options::document_options(&options)).map_err(fail)?;
    let out = Array::new();
    for (key, bytes) in docs {
        let pair = Array::of2(
            &JsValue::from_str(&key),
            &Uint8Array::from(bytes.as_slice()),
        );
        out.push(&pair);
    }
    Ok(out.into())
}

/// A flat form of a ZOM: `{form: "pydantic" | "zmetadata" | "consolidated"}`.
#[cfg(feature = "bind-tools")]
#[wasm_bindgen]
pub fn flatten(zom: JsValue, options: JsValue) -> JsResult {
    let node = zom_input(&zom)?;
    let form = options::flat_form(&options)
        .map_err(fail)?
        .unwrap_or(FlatForm::Pydantic);
    Ok(to_js(&model::flatten(&node, form).map_err(fail)?))
}

/// The ZOM of a flat form (detected when `form` is not given).
#[cfg(feature = "bind-tools")]
#[wasm_bindgen]
pub fn unflatten(flat: JsValue, options: JsValue) -> JsResult {
    let value = json_input(&flat)?;
    let form = options::flat_form(&options)
        .map_err(fail)?
        .unwrap_or_else(|| FlatForm::detect(&value));
    Ok(to_js(
        &model::unflatten(&value, form).map_err(fail)?.to_value(),
    ))
}

/// What user interfaces say about every node of a ZOM tree, by node path ("" for the root):
/// [`model::summarize_tree`].
#[cfg(feature = "bind-tools")]
#[wasm_bindgen(js_name = summarizeTree)]
pub fn summarize_tree(zom: JsValue) -> JsResult {
    Ok(plain::summaries(&model::summaries(&zom_input(&zom)?)))
}

/// The path ("" for the root) and kind ("group" or "array") of every node of a ZOM tree,
/// parents before children: `[[path, kind], …]`, what zom/zarrita's consolidated store lists.
#[cfg(feature = "bind-read")]
#[wasm_bindgen(js_name = nodeKinds)]
pub fn node_kinds(zom: JsValue) -> JsResult {
    let node = zom_input(&zom)?;
    let out = Array::new();
    for (path, node) in node.descendants() {
        out.push(&Array::of2(
            &JsValue::from_str(&path),
            &JsValue::from_str(node.kind()),
        ));
    }
    Ok(out.into())
}

/// Converts a v2 ZOM to v3: `{zom, problems}`.
#[cfg(feature = "bind-tools")]
#[wasm_bindgen(js_name = toV3)]
pub fn to_v3(zom: JsValue) -> JsResult {
    let conversion = model::to_v3(&zom_input(&zom)?);
    let out = Object::new();
    convert::set_own(&out, "zom", &convert::node_to_js(conversion.node));
    convert::set_own(&out, "problems", &plain::problems(&conversion.problems));
    Ok(out.into())
}

/// Whether two ZOMs are alike under `{include, exclude}` field selectors.
#[cfg(feature = "bind-tools")]
#[wasm_bindgen]
pub fn like(a: JsValue, b: JsValue, options: JsValue) -> Result<bool, JsValue> {
    let opts = options::compare_options(&options).map_err(fail)?;
    Ok(model::like(&json_input(&a)?, &json_input(&b)?, &opts))
}

/// Every difference between an expected and an actual ZOM, with node path and location.
#[cfg(feature = "bind-tools")]
#[wasm_bindgen]
pub fn diff(expected: JsValue, actual: JsValue, options: JsValue) -> JsResult {
    let opts = options::compare_options(&options).map_err(fail)?;
    let differences = model::diff(&json_input(&expected)?, &json_input(&actual)?, &opts);
    Ok(plain::differences(&differences))
}
