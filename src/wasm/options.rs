//! Every options object the bindings take, read in one place: one struct per options object
//! and one reader each, through the fields [`super::boundary`] declares (which
//! ts/generated/boundary.ts states for TypeScript). A wrong option is refused with an
//! InvalidArgument error that names it; an absent one (or `null`) takes its default.

use super::boundary as b;
use super::convert::as_array;
use crate::error::ZomError;
use crate::hierarchy::{Follow, NodeKind, OpenHints};
use crate::limits::{Limit, Limits};
use crate::model::{CompareOptions, DocumentOptions, FlatForm, ZarrFormat};
use crate::spec::{SpecChoice, Unsettled};
use crate::validate::{ExtensionHandler, LocStep, ValidateOptions};
use js_sys::{Array, Function, Object, Reflect};
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

type Result<T> = std::result::Result<T, ZomError>;

/// The property names of [`super::boundary`]'s fields, as constants: only the names reach
/// the module (a reference to a whole field would carry its TypeScript type and doc along).
macro_rules! names {
    ($($field:ident),* $(,)?) => {
        $(const $field: &str = b::$field.name;)*
    };
}

names!(
    SIGNAL,
    LIMITS,
    EXTENSIONS,
    CODECS,
    STORED_BITS,
    KIND,
    FORMAT,
    DEPTH,
    CONCURRENCY,
    FOLLOW,
    UNLISTED,
    UNKNOWN,
    WALK_PROGRESS,
    READ_PROGRESS,
    BYTES_IN_FLIGHT,
    MAX_BYTES,
    DECODE_HOOK,
    CACHE_ID,
    DECODE_EXTERNAL,
    KEY,
    STRICT,
    CHECK_EXTENSIONS,
    EXTENSION_HANDLERS,
    SPECS,
    CONSOLIDATED,
    FORM,
    INCLUDE,
    EXCLUDE,
    HOOK_SHARE,
    HOOK_DECODE,
    HOOK_PLACE,
    HOOK_OUTPUT,
    PROBLEM_MESSAGE,
    PROBLEM_KIND,
    PROBLEM_SEVERITY,
    PROBLEM_LOC,
);

/// `object[name]`, or undefined when `object` is not an object.
fn get(object: &JsValue, name: &str) -> JsValue {
    if object.is_object() {
        Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

fn absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

/// A boolean option: `true` only when it is `true`.
fn flag(options: &JsValue, name: &'static str) -> bool {
    get(options, name).as_bool().unwrap_or(false)
}

/// A non-negative integer (`Infinity`: `u64::MAX`); absent: `None`.
fn count_of(value: &JsValue, name: &str) -> Result<Option<u64>> {
    if absent(value) {
        return Ok(None);
    }
    match value.as_f64() {
        Some(f) if f == f64::INFINITY => Ok(Some(u64::MAX)),
        Some(f) if f >= 0.0 && f.fract() == 0.0 => Ok(Some(f as u64)),
        _ => Err(ZomError::invalid_argument(format!(
            "option '{name}' must be a non-negative integer"
        ))),
    }
}

/// A non-negative integer option (`Infinity`: `u64::MAX`); absent: `None`.
fn count(options: &JsValue, name: &'static str) -> Result<Option<u64>> {
    count_of(&get(options, name), name)
}

fn usize_of(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// An array-of-strings option, checked; absent: `None`.
fn string_list(options: &JsValue, name: &'static str) -> Result<Option<Vec<String>>> {
    let value = get(options, name);
    if absent(&value) {
        return Ok(None);
    }
    let wrong =
        || ZomError::invalid_argument(format!("option '{name}' must be an array of strings"));
    if !Array::is_array(&value) {
        return Err(wrong());
    }
    let mut out = Vec::new();
    for v in as_array(&value).iter() {
        out.push(v.as_string().ok_or_else(wrong)?);
    }
    Ok(Some(out))
}

/// The strings of an array option, others skipped; `None` when it is not an array (the
/// registered names ts/ passes, what a walk could not settle).
fn names(options: &JsValue, name: &'static str) -> Option<Vec<String>> {
    let list = get(options, name);
    Array::is_array(&list).then(|| {
        as_array(&list)
            .iter()
            .filter_map(|v| v.as_string())
            .collect()
    })
}

/// A function option (anything else: `None`).
fn function(options: &JsValue, name: &'static str) -> Option<Function> {
    get(options, name).dyn_into::<Function>().ok()
}

/// The limits an object sets (`{maxChunkBytes, …}`: non-negative integers or `Infinity`), to
/// apply over a base: the `limits` option, `defaultLimits`' argument, a worker's copy.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LimitsSet([Option<u64>; Limit::ALL.len()]);

impl LimitsSet {
    /// Reads a limits object; unknown fields are refused (a misspelt limit would be silently
    /// unset).
    pub(super) fn of(value: &JsValue) -> Result<LimitsSet> {
        let mut set = LimitsSet::default();
        if absent(value) {
            return Ok(set);
        }
        if !value.is_object() {
            return Err(ZomError::invalid_argument("limits must be an object"));
        }
        let mut known = 0u32;
        for (slot, limit) in set.0.iter_mut().zip(Limit::ALL) {
            *slot = count_of(&get(value, limit.name()), limit.name())?;
            known = known.saturating_add(u32::from(slot.is_some()));
        }
        if Object::keys(value.unchecked_ref::<Object>()).length() > known {
            return Err(ZomError::invalid_argument(
                "limits has a field that is not a limit (maxChunkBytes, maxBytes, maxChunks, \
                 maxDocumentBytes, maxJsonDepth, maxNodes, maxShardIndexBytes)",
            ));
        }
        Ok(set)
    }

    /// The `limits` option of `options`.
    fn option(options: &JsValue) -> Result<LimitsSet> {
        LimitsSet::of(&get(options, LIMITS))
    }

    /// `base` with these limits applied.
    pub(super) fn over(&self, mut base: Limits) -> Limits {
        for (value, limit) in self.0.iter().zip(Limit::ALL) {
            if let Some(n) = value {
                *base.get_mut(limit) = *n;
            }
        }
        base
    }
}

/// The names the caller implements: `extensions` and `codecs` (ts/shared/extensions.ts
/// `withUnderstood`).
pub(super) struct Understood {
    /// The ZEP 10 extensions, for the arrays the call opens.
    pub extensions: Vec<String>,
    /// The registered codecs (v3 names and numcodecs ids), applied by the read's
    /// `decodeExternal` function.
    pub codecs: Vec<String>,
}

impl Understood {
    fn of(options: &JsValue) -> Understood {
        Understood {
            extensions: names(options, EXTENSIONS).unwrap_or_default(),
            codecs: names(options, CODECS).unwrap_or_default(),
        }
    }
}

/// `kind` and `format`: what the node is expected to be.
fn hints(options: &JsValue) -> Result<OpenHints> {
    let kind_value = get(options, KIND);
    let kind = match kind_value.as_string().as_deref() {
        None if absent(&kind_value) => None,
        Some("array") => Some(NodeKind::Array),
        Some("group") => Some(NodeKind::Group),
        Some(other) => {
            return Err(ZomError::invalid_argument(format!(
                "option 'kind' must be \"array\" or \"group\", not \"{other}\""
            )))
        }
        None => {
            return Err(ZomError::invalid_argument(
                "option 'kind' must be \"array\" or \"group\"",
            ))
        }
    };
    let format = match count(options, FORMAT)? {
        None => None,
        Some(n) => Some(ZarrFormat::from_number(n).ok_or_else(|| {
            ZomError::invalid_argument(format!("option 'format' must be 2 or 3, not {n}"))
        })?),
    };
    Ok(OpenHints { kind, format })
}

/// The signal option: an object, or undefined.
fn signal(options: &JsValue) -> JsValue {
    get(options, SIGNAL)
}

/// [`b::OPEN_OPTIONS`]: `openNode`, `DeferredGroup.open`.
pub(super) struct OpenOptions {
    pub hints: OpenHints,
    pub signal: JsValue,
    pub limits: LimitsSet,
    pub understood: Understood,
}

impl OpenOptions {
    pub(super) fn read(options: &JsValue) -> Result<OpenOptions> {
        Ok(OpenOptions {
            hints: hints(options)?,
            signal: signal(options),
            limits: LimitsSet::option(options)?,
            understood: Understood::of(options),
        })
    }
}

/// [`b::WALK_OPTIONS`]: `walkHierarchy`.
pub(super) struct WalkOptions {
    pub depth: Option<usize>,
    pub concurrency: Option<usize>,
    pub hints: OpenHints,
    pub signal: JsValue,
    pub limits: LimitsSet,
    pub follow: Follow,
    pub on_progress: Option<Function>,
}

impl WalkOptions {
    pub(super) fn read(options: &JsValue) -> std::result::Result<WalkOptions, JsValue> {
        let fail = super::fail;
        Ok(WalkOptions {
            depth: count(options, DEPTH).map_err(fail)?.map(usize_of),
            concurrency: count(options, CONCURRENCY).map_err(fail)?.map(usize_of),
            hints: hints(options).map_err(fail)?,
            signal: signal(options),
            limits: LimitsSet::option(options).map_err(fail)?,
            follow: follow(&get(options, FOLLOW))?,
            on_progress: function(options, WALK_PROGRESS),
        })
    }
}

/// A walk's `follow`: `false` follows no spec, `true` or nothing the built-in ones, anything
/// else is a `specs` value.
fn follow(value: &JsValue) -> std::result::Result<Follow, JsValue> {
    match value.as_bool() {
        Some(false) => Ok(Follow::Nothing),
        Some(true) => Ok(Follow::Builtin),
        None if value.is_undefined() || value.is_null() => Ok(Follow::Builtin),
        None => {
            let choices = super::specs::choices(value)?;
            Ok(Follow::Specs(
                choices.iter().flat_map(SpecChoice::specs).collect(),
            ))
        }
    }
}

/// [`b::READ_OPTIONS`]: `ArrayHandle.get` and `getChunk`.
pub(super) struct ReadOptions {
    pub signal: JsValue,
    pub on_progress: Option<Function>,
    pub bytes_in_flight: Option<u64>,
    /// `limits`, with `maxBytes` over them.
    pub limits: LimitsSet,
    pub decode_hook: Option<DecodeHookFns>,
    pub cache_id: Option<u64>,
    pub decode_external: Option<Function>,
    /// The stored bits of a widened type rather than its widened values.
    pub stored_bits: bool,
}

impl ReadOptions {
    pub(super) fn read(options: &JsValue) -> Result<ReadOptions> {
        let mut limits = LimitsSet::option(options)?;
        if let Some(max) = count(options, MAX_BYTES)? {
            limits.0[index_of(Limit::Bytes)] = Some(max);
        }
        Ok(ReadOptions {
            bytes_in_flight: count(options, BYTES_IN_FLIGHT)?,
            cache_id: count(options, CACHE_ID)?,
            signal: signal(options),
            on_progress: function(options, READ_PROGRESS),
            limits,
            decode_hook: DecodeHookFns::of(&get(options, DECODE_HOOK)),
            decode_external: function(options, DECODE_EXTERNAL),
            stored_bits: flag(options, STORED_BITS),
        })
    }
}

fn index_of(limit: Limit) -> usize {
    Limit::ALL.iter().position(|&l| l == limit).unwrap_or(0)
}

/// [`b::DECODE_HOOK_SHAPE`]: the object ts/read/array.ts passes as `decodeHook`, when it has
/// every method.
pub(super) struct DecodeHookFns {
    pub target: JsValue,
    pub share: Function,
    pub decode: Function,
    pub place: Function,
    pub output: Function,
}

impl DecodeHookFns {
    fn of(target: &JsValue) -> Option<DecodeHookFns> {
        Some(DecodeHookFns {
            share: function(target, HOOK_SHARE)?,
            decode: function(target, HOOK_DECODE)?,
            place: function(target, HOOK_PLACE)?,
            output: function(target, HOOK_OUTPUT)?,
            target: target.clone(),
        })
    }
}

/// [`b::DECODER_OPTIONS`]: `new ChunkDecoder`, `nodeFromZom`.
pub(super) struct DecoderOptions {
    pub limits: LimitsSet,
    pub understood: Understood,
}

impl DecoderOptions {
    pub(super) fn read(options: &JsValue) -> Result<DecoderOptions> {
        Ok(DecoderOptions {
            limits: LimitsSet::option(options)?,
            understood: Understood::of(options),
        })
    }
}

/// [`b::NODE_FROM_ZOM_OPTIONS`]: `nodeFromZom`'s, a ChunkDecoder's and the kind asked for.
pub(super) struct NodeFromZomOptions {
    pub hints: OpenHints,
    pub decoder: DecoderOptions,
}

impl NodeFromZomOptions {
    pub(super) fn read(options: &JsValue) -> Result<NodeFromZomOptions> {
        Ok(NodeFromZomOptions {
            hints: hints(options)?,
            decoder: DecoderOptions::read(options)?,
        })
    }
}

/// [`b::VALIDATE_OPTIONS`]: the validations, under `limits` (the module's), each JS extension
/// handler made into an [`ExtensionHandler`] by `handler` (name, function).
pub(super) fn validate_options(
    options: &JsValue,
    limits: Limits,
    handler: fn(String, Function) -> Arc<dyn ExtensionHandler>,
) -> std::result::Result<ValidateOptions, JsValue> {
    let mut out = ValidateOptions {
        key: get(options, KEY).as_string(),
        strict: flag(options, STRICT),
        extensions: flag(options, CHECK_EXTENSIONS),
        limits,
        ..Default::default()
    };
    let handlers = get(options, EXTENSION_HANDLERS);
    if handlers.is_object() {
        for entry in Object::entries(Object::unchecked_from_js_ref(&handlers)).iter() {
            let pair = as_array(&entry);
            let name = pair.get(0).as_string().unwrap_or_default();
            let handler: Option<Arc<dyn ExtensionHandler>> = match pair.get(1).dyn_into::<Function>() {
                Ok(function) => Some(handler(name.clone(), function)),
                Err(other) if absent(&other) || other.as_bool() == Some(true) => None,
                Err(_) => {
                    return Err(super::fail(ZomError::invalid_argument(format!(
                        "extension handler '{name}' must be a function (or true / null to only mark it known)"
                    ))))
                }
            };
            out.registry.handlers.push((name, handler));
        }
    }
    out.specs = super::specs::choices(&get(options, SPECS))?;
    out.unsettled = Unsettled {
        unlisted: names(options, UNLISTED).unwrap_or_default(),
        unknown: names(options, UNKNOWN).unwrap_or_default(),
    };
    Ok(out)
}

/// [`b::DOCUMENT_OPTIONS`]: `toDocuments`.
pub(super) fn document_options(options: &JsValue) -> DocumentOptions {
    DocumentOptions {
        consolidated: flag(options, CONSOLIDATED),
    }
}

/// [`b::FLAT_OPTIONS`]: `flatten` and `unflatten` (`None`: no form given).
pub(super) fn flat_form(options: &JsValue) -> Result<Option<FlatForm>> {
    get(options, FORM)
        .as_string()
        .map(|name| FlatForm::from_name(&name))
        .transpose()
}

/// [`b::COMPARE_OPTIONS`]: `like` and `diff`.
pub(super) fn compare_options(options: &JsValue) -> Result<CompareOptions> {
    Ok(CompareOptions {
        include: string_list(options, INCLUDE)?,
        exclude: string_list(options, EXCLUDE)?.unwrap_or_default(),
    })
}

/// [`b::HANDLER_PROBLEM`]: a problem an extension handler returned (or a string, its
/// message): its fields as given, each `None` when absent or of another type.
pub(super) struct ReturnedProblem {
    pub message: Option<String>,
    pub kind: Option<String>,
    pub severity: Option<String>,
    /// The steps of `loc`: keys and indices (negative ones as 0).
    pub loc: Vec<LocStep>,
}

impl ReturnedProblem {
    pub(super) fn of(item: &JsValue) -> ReturnedProblem {
        let loc = get(item, PROBLEM_LOC);
        ReturnedProblem {
            message: get(item, PROBLEM_MESSAGE)
                .as_string()
                .or_else(|| item.as_string()),
            kind: get(item, PROBLEM_KIND).as_string(),
            severity: get(item, PROBLEM_SEVERITY).as_string(),
            loc: if Array::is_array(&loc) {
                as_array(&loc)
                    .iter()
                    .filter_map(|step| match step.as_string() {
                        Some(s) => Some(LocStep::Key(s)),
                        None => step.as_f64().map(|n| LocStep::Index(n.max(0.0) as usize)),
                    })
                    .collect()
            } else {
                Vec::new()
            },
        }
    }
}

/// The default limits of every later call: `undefined` leaves them; an object's fields replace
/// the current ones; `null` puts every default back. Returns the limits now in force (the
/// TypeScript `setLimits` and `getLimits`).
#[wasm_bindgen(js_name = defaultLimits)]
pub fn default_limits(limits: JsValue) -> std::result::Result<JsValue, JsValue> {
    let next = if limits.is_null() {
        Limits::DEFAULT
    } else {
        LimitsSet::of(&limits)
            .map_err(super::fail)?
            .over(super::limits::current())
    };
    super::limits::set_current(next);
    Ok(super::limits::to_js(&next))
}
