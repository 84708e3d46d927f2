//! The JavaScript bindings: thin wrappers that convert values and errors and call the core.
//! The TypeScript wrapper in `ts/` is the public JS API; these are its raw imports.

mod cache;
mod convert;
mod hierarchy;
mod http;
mod limits;
mod plain;
mod pool;
mod reference;
mod store;
mod values;
mod zarrita;
mod zip;

use crate::error::ZomError;
use crate::hierarchy::ArrayReader;
use crate::json;
use crate::model::{self, DocumentOptions, FlatForm, Node};
use crate::spec::{self, SpecChoice};
use crate::validate::{self, ExtensionHandler, LocStep, Problem, ProblemKind, Severity};
use convert::{as_array, bytes_of, error_to_js, from_js, to_js};
use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use serde_json::Value;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

type JsResult = Result<JsValue, JsValue>;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

/// Runs when the module is instantiated: a panic (always a zom bug) is reported on the
/// console with its message and location before the instance stops.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!("zom: internal error (please report it): {info}"));
    }));
}

/// The Promise of an async binding. Every one goes through this one non-generic function: one
/// copy of the executor glue (`future_to_promise` is generic over the future) for them all.
fn promise(future: std::pin::Pin<Box<dyn std::future::Future<Output = JsResult>>>) -> Promise {
    wasm_bindgen_futures::future_to_promise(future)
}

/// A core error as the plain object JS receives (and ts/ turns into a ZomError).
fn fail(error: ZomError) -> JsValue {
    error_to_js(&error)
}

/// `options[name]`, or undefined when `options` is not an object.
fn option(options: &JsValue, name: &str) -> JsValue {
    if options.is_object() {
        Reflect::get(options, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

fn bool_option(options: &JsValue, name: &str) -> bool {
    option(options, name).as_bool().unwrap_or(false)
}

fn string_list_option(options: &JsValue, name: &str) -> Result<Option<Vec<String>>, JsValue> {
    let value = option(options, name);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if !Array::is_array(&value) {
        return Err(fail(ZomError::invalid_argument(format!(
            "option '{name}' must be an array of strings"
        ))));
    }
    let mut out = Vec::new();
    for v in as_array(&value).iter() {
        match v.as_string() {
            Some(s) => out.push(s),
            None => {
                return Err(fail(ZomError::invalid_argument(format!(
                    "option '{name}' must be an array of strings"
                ))))
            }
        }
    }
    Ok(Some(out))
}

/// A JSON value from a JS object, or from JSON text / bytes (parsed under the default limits).
fn json_input(value: &JsValue) -> Result<Value, JsValue> {
    json_input_with(value, &limits::current())
}

/// A JSON value from a JS object, or from JSON text / bytes parsed under `limits`.
fn json_input_with(value: &JsValue, limits: &crate::Limits) -> Result<Value, JsValue> {
    match bytes_of(value) {
        Some(bytes) => json::parse_document(&bytes, limits).map_err(fail),
        None => from_js(value).map_err(fail),
    }
}

fn zom_input(value: &JsValue) -> Result<Node, JsValue> {
    Node::from_value(&json_input(value)?).map_err(fail)
}

/// A ZEP 10 / extension handler written in JS: `(extension, path, loc) => problems`.
struct JsExtensionHandler {
    name: String,
    function: Function,
}

impl ExtensionHandler for JsExtensionHandler {
    fn check(&self, value: &Value, path: &str, loc: &[LocStep]) -> Vec<Problem> {
        let loc_js = to_js(&LocStep::list_value(loc));
        let result = self.function.call3(
            &JsValue::NULL,
            &to_js(value),
            &JsValue::from_str(path),
            &loc_js,
        );
        let problem = |message: String| Problem {
            path: path.to_string(),
            loc: loc.to_vec(),
            kind: ProblemKind::InvalidValue,
            message,
            severity: Severity::Error,
            spec: None,
            rule: None,
        };
        let returned = match result {
            Err(thrown) => {
                let text = thrown
                    .dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
                    .unwrap_or_else(|| format!("{thrown:?}"));
                return vec![problem(format!(
                    "extension handler for '{}' threw: {text}",
                    self.name
                ))];
            }
            Ok(v) if v.is_undefined() || v.is_null() => return Vec::new(),
            Ok(v) => v,
        };
        if !Array::is_array(&returned) {
            return vec![problem(format!(
                "extension handler for '{}' must return an array of problems",
                self.name
            ))];
        }
        as_array(&returned)
            .iter()
            .map(|item| {
                let message = option(&item, "message")
                    .as_string()
                    .or_else(|| item.as_string())
                    .unwrap_or_else(|| format!("rejected by the '{}' handler", self.name));
                let kind = match option(&item, "kind").as_string().as_deref() {
                    Some("missing_key") => ProblemKind::MissingKey,
                    Some("invalid_type") => ProblemKind::InvalidType,
                    Some("unknown_key") => ProblemKind::UnknownKey,
                    Some("must_understand") => ProblemKind::MustUnderstand,
                    _ => ProblemKind::InvalidValue,
                };
                let severity = match option(&item, "severity").as_string().as_deref() {
                    Some("warning") => Severity::Warning,
                    _ => Severity::Error,
                };
                let mut full_loc = loc.to_vec();
                let extra_loc = option(&item, "loc");
                if Array::is_array(&extra_loc) {
                    for step in as_array(&extra_loc).iter() {
                        if let Some(s) = step.as_string() {
                            full_loc.push(LocStep::Key(s));
                        } else if let Some(n) = step.as_f64() {
                            full_loc.push(LocStep::Index(n.max(0.0) as usize));
                        }
                    }
                }
                Problem {
                    path: path.to_string(),
                    loc: full_loc,
                    kind,
                    message,
                    severity,
                    spec: None,
                    rule: None,
                }
            })
            .collect()
    }
}

fn validate_options(options: &JsValue) -> Result<validate::ValidateOptions, JsValue> {
    let mut out = validate::ValidateOptions {
        key: option(options, "key").as_string(),
        strict: bool_option(options, "strict"),
        extensions: bool_option(options, "extensions"),
        limits: limits::current(),
        ..Default::default()
    };
    let handlers = option(options, "extensionHandlers");
    if handlers.is_object() {
        for entry in Object::entries(Object::unchecked_from_js_ref(&handlers)).iter() {
            let pair = as_array(&entry);
            let name = pair.get(0).as_string().unwrap_or_default();
            let value = pair.get(1);
            let handler: Option<Arc<dyn ExtensionHandler>> = match value.dyn_into::<Function>() {
                Ok(function) => Some(Arc::new(JsExtensionHandler {
                    name: name.clone(),
                    function,
                })),
                Err(other) if other.is_null() || other.is_undefined() || other.as_bool() == Some(true) => None,
                Err(_) => {
                    return Err(fail(ZomError::invalid_argument(format!(
                        "extension handler '{name}' must be a function (or true / null to only mark it known)"
                    ))))
                }
            };
            out.registry.handlers.push((name, handler));
        }
    }
    out.specs = spec_choices(&option(options, "specs"))?;
    Ok(out)
}

/// The `specs` option: `"auto"`, a built-in name, a spec (object, JSON text or bytes), or an
/// array of those.
fn spec_choices(value: &JsValue) -> Result<Vec<SpecChoice>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    let one = |item: &JsValue| -> Result<SpecChoice, JsValue> {
        if let Some(name) = item
            .as_string()
            .filter(|s| !s.trim_start().starts_with('{'))
        {
            return SpecChoice::named(&name).map_err(fail);
        }
        let doc = json_input(item)?;
        if !spec::is_spec(&doc) {
            return Err(fail(ZomError::invalid_argument(
                "a spec must be \"auto\", a built-in name or a spec document (with \"zom_spec\": 1)",
            )));
        }
        Ok(SpecChoice::Spec(Arc::new(
            spec::Spec::from_value(&doc).map_err(fail)?,
        )))
    };
    if Array::is_array(value) {
        as_array(value).iter().map(|item| one(&item)).collect()
    } else {
        Ok(vec![one(value)?])
    }
}

/// Where a hierarchy (ZOM object, JSON text or bytes) claims zom's built-in conventions, or
/// the given specs: `[{convention, spec, version, claim, path}]`.
#[wasm_bindgen(js_name = detectConventions)]
pub fn detect_conventions(zom: JsValue, specs: JsValue) -> JsResult {
    let value = json_input(&zom)?;
    let choices = spec_choices(&specs)?;
    let found = if choices.is_empty() {
        spec::detect_conventions(&value)
    } else {
        let list: Vec<_> = choices.iter().flat_map(SpecChoice::specs).collect();
        spec::detect(&value, &list)
    };
    Ok(plain::detected(&found))
}

/// Gives the module the built-in specs' texts (pkg/zom_schemas.js carries them): called once
/// by ts/load.ts after instantiation, in builds without the `builtin-specs` feature.
#[cfg(not(feature = "builtin-specs"))]
#[wasm_bindgen(js_name = setBuiltinSpecs)]
pub fn set_builtin_specs(names: Vec<String>, texts: Vec<String>) {
    spec::set_builtin_texts(names, texts);
}

/// The JSON text of a built-in spec (`ome-zarr-0.4`, `ome-zarr-0.5`, `ome-zarr-0.6`, `xarray`).
#[wasm_bindgen(js_name = builtinSpecText)]
pub fn builtin_spec_text(name: &str) -> Result<String, JsValue> {
    spec::builtin_text(name).map(str::to_string).map_err(fail)
}

/// The names `specs` takes besides spec documents: `auto` and the built-in ones.
#[wasm_bindgen(js_name = specNames)]
pub fn spec_names() -> Vec<String> {
    spec::choice_names()
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// Validates one metadata document (object, JSON text or bytes). Returns `{valid, problems}`.
#[wasm_bindgen(js_name = validateDocument)]
pub fn validate_document(doc: JsValue, options: JsValue) -> JsResult {
    let opts = validate_options(&options)?;
    let report = match bytes_of(&doc) {
        Some(bytes) => validate::validate_document_bytes(&bytes, &opts),
        None => validate::validate_document(&from_js(&doc).map_err(fail)?, &opts),
    };
    Ok(plain::report(&report))
}

/// Validates a whole hierarchy given as ZOM (object or JSON text). Returns `{valid, problems}`.
#[wasm_bindgen(js_name = validateHierarchy)]
pub fn validate_hierarchy(zom: JsValue, options: JsValue) -> JsResult {
    let opts = validate_options(&options)?;
    match bytes_of(&zom) {
        Some(bytes) => match json::parse_document(&bytes, &opts.limits) {
            Ok(value) => Ok(plain::report(&validate::validate_hierarchy(&value, &opts))),
            Err(_) => Ok(plain::report(&validate::validate_document_bytes(
                &bytes, &opts,
            ))),
        },
        None => Ok(plain::report(&validate::validate_hierarchy(
            &from_js(&zom).map_err(fail)?,
            &opts,
        ))),
    }
}

/// Validates a group's attributes (object or JSON text) alone against `options.specs`: what
/// the attributes decide, without the nodes they name. Returns `{valid, problems}`.
#[wasm_bindgen(js_name = validateAttributes)]
pub fn validate_attributes(attributes: JsValue, options: JsValue) -> JsResult {
    let opts = validate_options(&options)?;
    let value = match attributes.as_string() {
        Some(text) => json::parse_document(text.as_bytes(), &opts.limits).map_err(fail)?,
        None => from_js(&attributes).map_err(fail)?,
    };
    Ok(plain::report(&validate::validate_attributes(&value, &opts)))
}

/// Builds the ZOM of a hierarchy from its documents: a Map or object of key → bytes, JSON text
/// or parsed JSON.
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
    let opts = DocumentOptions {
        consolidated: bool_option(&options, "consolidated"),
    };
    let docs = model::to_document_bytes(&node, opts).map_err(fail)?;
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

fn form_option(options: &JsValue) -> Result<Option<FlatForm>, JsValue> {
    match option(options, "form").as_string() {
        Some(name) => FlatForm::from_name(&name).map(Some).map_err(fail),
        None => Ok(None),
    }
}

/// A flat form of a ZOM: `{form: "pydantic" | "zmetadata" | "consolidated"}`.
#[wasm_bindgen]
pub fn flatten(zom: JsValue, options: JsValue) -> JsResult {
    let node = zom_input(&zom)?;
    let form = form_option(&options)?.unwrap_or(FlatForm::Pydantic);
    Ok(to_js(&model::flatten(&node, form).map_err(fail)?))
}

/// The ZOM of a flat form (detected when `form` is not given).
#[wasm_bindgen]
pub fn unflatten(flat: JsValue, options: JsValue) -> JsResult {
    let value = json_input(&flat)?;
    let form = form_option(&options)?.unwrap_or_else(|| FlatForm::detect(&value));
    Ok(to_js(
        &model::unflatten(&value, form).map_err(fail)?.to_value(),
    ))
}

/// What user interfaces say about every node of a ZOM tree, by node path ("" for the root):
/// [`model::summarize_tree`].
#[wasm_bindgen(js_name = summarizeTree)]
pub fn summarize_tree(zom: JsValue) -> JsResult {
    Ok(plain::summaries(&model::summaries(&zom_input(&zom)?)))
}

/// Converts a v2 ZOM to v3: `{zom, problems}`.
#[wasm_bindgen(js_name = toV3)]
pub fn to_v3(zom: JsValue) -> JsResult {
    let conversion = model::to_v3(&zom_input(&zom)?);
    let out = Object::new();
    convert::set_own(&out, "zom", &convert::node_to_js(conversion.node));
    convert::set_own(&out, "problems", &plain::problems(&conversion.problems));
    Ok(out.into())
}

fn compare_options(options: &JsValue) -> Result<model::CompareOptions, JsValue> {
    Ok(model::CompareOptions {
        include: string_list_option(options, "include")?,
        exclude: string_list_option(options, "exclude")?.unwrap_or_default(),
    })
}

/// Whether two ZOMs are alike under `{include, exclude}` field selectors.
#[wasm_bindgen]
pub fn like(a: JsValue, b: JsValue, options: JsValue) -> Result<bool, JsValue> {
    let opts = compare_options(&options)?;
    Ok(model::like(&json_input(&a)?, &json_input(&b)?, &opts))
}

/// Every difference between an expected and an actual ZOM, with node path and location.
#[wasm_bindgen]
pub fn diff(expected: JsValue, actual: JsValue, options: JsValue) -> JsResult {
    let opts = compare_options(&options)?;
    let differences = model::diff(&json_input(&expected)?, &json_input(&actual)?, &opts);
    Ok(plain::differences(&differences))
}

fn array_input(
    meta: &JsValue,
    path: &str,
    limits: crate::Limits,
    understood: &[String],
) -> Result<ArrayReader, JsValue> {
    match json_input_with(meta, &limits).and_then(|v| Node::from_value(&v).map_err(fail))? {
        Node::Array(array) => {
            ArrayReader::open_with_extensions(&array, path, limits, understood).map_err(fail)
        }
        Node::Group(_) => Err(fail(ZomError::invalid_argument(
            "array metadata expected (a zarr.json of an array, a .zarray, or an array ZOM node)",
        ))),
    }
}

fn coords_input(coords: &[f64]) -> Result<Vec<u64>, JsValue> {
    convert::chunk_coords(coords.iter().copied()).map_err(fail)
}

/// An array opened for decoding: its codecs are checked once, then chunks decode.
#[wasm_bindgen]
pub struct ChunkDecoder {
    reader: ArrayReader,
}

#[wasm_bindgen]
impl ChunkDecoder {
    /// Opens an array from its metadata (`zarr.json` of an array, `.zarray`, or a ZOM array
    /// node); `path` is its node path, used in errors and chunk keys. Options: `limits`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        meta: JsValue,
        path: Option<String>,
        options: JsValue,
    ) -> Result<ChunkDecoder, JsValue> {
        let limits = limits::of_options(&options, limits::current()).map_err(fail)?;
        Ok(ChunkDecoder {
            reader: array_input(
                &meta,
                path.as_deref().unwrap_or(""),
                limits,
                &hierarchy::understood_of(&options),
            )?,
        })
    }

    /// Decodes the chunk at `coords` from its bytes (`null`/`undefined`: missing, read as the
    /// fill value): `{shape, kind, bytes}` or `{shape, kind: "values", values}`. Numeric
    /// values go straight into `out` when it has their exact length (then `bytes` is `out`).
    pub fn decode(
        &self,
        bytes: Option<Vec<u8>>,
        coords: Vec<f64>,
        out: Option<Uint8Array>,
    ) -> JsResult {
        let coords = coords_input(&coords)?;
        let chunk = self
            .reader
            .decode_chunk(&coords, bytes.as_deref())
            .map_err(fail)?;
        values::chunk_to_js(self.reader.data_type(), chunk, out.as_ref()).map_err(fail)
    }

    /// The store key of the chunk at `coords`, relative to the store root.
    #[wasm_bindgen(js_name = chunkKey)]
    pub fn chunk_key(&self, coords: Vec<f64>) -> Result<String, JsValue> {
        self.reader.chunk_key(&coords_input(&coords)?).map_err(fail)
    }

    /// The array's shape.
    #[wasm_bindgen(getter)]
    pub fn shape(&self) -> Vec<f64> {
        self.reader.shape().iter().map(|&n| n as f64).collect()
    }

    /// The shape of a (stored) chunk; for a sharded array, of a shard.
    #[wasm_bindgen(getter, js_name = chunkShape)]
    pub fn chunk_shape(&self) -> Vec<f64> {
        self.reader
            .layout()
            .grid
            .chunk_shape()
            .iter()
            .map(|&n| n as f64)
            .collect()
    }

    /// The number of chunks along each dimension.
    #[wasm_bindgen(getter, js_name = gridShape)]
    pub fn grid_shape(&self) -> Vec<f64> {
        self.reader
            .layout()
            .grid
            .grid_shape()
            .iter()
            .map(|&n| n as f64)
            .collect()
    }

    /// The data type in its v3 JSON form.
    #[wasm_bindgen(getter, js_name = dataType)]
    pub fn data_type(&self) -> JsValue {
        to_js(&self.reader.data_type().to_v3().to_value())
    }
}

/// float16 element bytes as float32 values, for runtimes without `Float16Array`.
#[wasm_bindgen(js_name = float16ToFloat32)]
pub fn float16_to_float32(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(2)
        .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
        .collect()
}

/// JSON text of any value (BigInt-safe), with `indent` spaces (0 = compact).
#[wasm_bindgen]
pub fn stringify(value: JsValue, indent: Option<u32>) -> Result<String, JsValue> {
    let json = from_js(&value).map_err(fail)?;
    Ok(match indent.unwrap_or(0) {
        0 => json::to_compact(&json),
        n => json::to_indented(&json, n.min(16) as usize),
    })
}

/// Parses JSON text; integers beyond ±(2^53 − 1) become BigInt.
#[wasm_bindgen(js_name = parseJson)]
pub fn parse_json(text: &str) -> JsResult {
    let value = json::parse_document(text.as_bytes(), &limits::current()).map_err(fail)?;
    Ok(to_js(&value))
}

/// The crate version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
