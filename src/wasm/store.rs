//! JS stores as a Rust [`Store`]: any object with zarrita's store shape (`get`, optional
//! `getRange` and `list`, each returning a value or a Promise) and `Map`s of key → bytes.
//!
//! Keys go to JS stores absolute, with a leading `/` (zarrita's convention: `"/a/zarr.json"`);
//! a Map is looked up with and without it. Every call passes `{ signal }` when the operation
//! has an AbortSignal, and an aborted signal stops the operation before its next request.
//! Whatever a store throws becomes a [`ZomError`]: its own `code` when it is a ZomError
//! (FetchStore's `HttpError`, `Aborted`), `Aborted` for an `AbortError`, else `HttpError`.

use crate::error::{ErrorCode, Result, ZomError};
use crate::store::{ByteRange, Listing, Store};
use js_sys::{Array, ArrayBuffer, Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A listing in the JS stores' absolute form: `{keys: ["/a/zarr.json"], prefixes: ["/a/b/"]}`.
pub fn absolute_listing(listing: &Listing) -> JsValue {
    let keys: Vec<String> = listing.keys.iter().map(|k| absolute(k)).collect();
    let prefixes: Vec<String> = listing.prefixes.iter().map(|p| absolute(p) + "/").collect();
    super::plain::listing(&keys, &prefixes)
}

/// What is directly below `prefix` among `keys` (the keys a JS store holds, e.g. FileStore's;
/// or what a folder or S3 listing found, folders as keys ending in "/"):
/// [`crate::store::list_keys`], the one listing rule, in the absolute form.
#[wasm_bindgen(js_name = listKeys)]
pub fn list_keys_js(keys: Vec<String>, prefix: &str) -> JsValue {
    absolute_listing(&crate::store::list_keys(
        &mut keys.iter().map(String::as_str),
        prefix,
    ))
}

enum Backend {
    Map(js_sys::Map),
    Object {
        target: JsValue,
        get: Function,
        get_range: Option<Function>,
        list: Option<Function>,
    },
}

/// A JS store, with the AbortSignal of the operation using it.
pub struct JsStore {
    backend: Backend,
    signal: JsValue,
    /// Keys go to the store as they are (URLs: a ReferenceStore's targets), not absolute.
    verbatim: bool,
}

fn prop(target: &JsValue, name: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

pub(super) fn function(target: &JsValue, name: &str) -> Option<Function> {
    prop(target, name).dyn_into::<Function>().ok()
}

/// The code named `name` (a ZomError's `code`).
fn code_of(name: &str) -> Option<ErrorCode> {
    ErrorCode::ALL
        .into_iter()
        .find(|code| code.as_str() == name)
}

/// A ZomError for what a store threw (or a Promise rejected with) during `what` on `key`.
pub fn thrown_to_error(thrown: &JsValue, what: &str, key: &str) -> ZomError {
    let message = prop(thrown, "message")
        .as_string()
        .or_else(|| thrown.as_string())
        .unwrap_or_else(|| "unknown error".to_string());
    let name = prop(thrown, "name").as_string().unwrap_or_default();
    let code = prop(thrown, "code").as_string().and_then(|c| code_of(&c));
    let (code, message) = match code {
        Some(code) => (code, message),
        None if name == "AbortError" || name == "TimeoutError" => {
            (ErrorCode::Aborted, format!("{what} was aborted: {message}"))
        }
        None => (
            ErrorCode::HttpError,
            format!("the store's {what} failed: {message}"),
        ),
    };
    ZomError::new(code, message).at_key(key)
}

/// The bytes a store answered with, copied into WebAssembly memory; `None` for undefined or
/// null. With `max`, a longer value is refused ([`ErrorCode::LimitExceeded`]) before the copy.
pub(super) fn bytes_of(
    value: &JsValue,
    what: &str,
    key: &str,
    max: Option<u64>,
) -> Result<Option<Vec<u8>>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let view = if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
        Some(bytes.clone())
    } else if let Some(buffer) = value.dyn_ref::<ArrayBuffer>() {
        Some(Uint8Array::new(buffer))
    } else if ArrayBuffer::is_view(value) {
        let offset = prop(value, "byteOffset").as_f64().unwrap_or(0.0);
        let length = prop(value, "byteLength").as_f64().unwrap_or(0.0);
        prop(value, "buffer")
            .dyn_ref::<ArrayBuffer>()
            .map(|b| Uint8Array::new_with_byte_offset_and_length(b, offset as u32, length as u32))
    } else {
        None
    };
    let Some(view) = view else {
        return Err(ZomError::new(
            ErrorCode::InvalidArgument,
            format!("the store's {what} must give a Uint8Array or undefined"),
        )
        .at_key(key));
    };
    let length = u64::from(view.length());
    if let Some(max) = max.filter(|max| length > *max) {
        return Err(ZomError::new(
            ErrorCode::LimitExceeded,
            format!("the store's {what} gave {length} bytes, more than the {max} asked for"),
        )
        .at_key(key));
    }
    Ok(Some(view.to_vec()))
}

/// Cuts `range` out of a whole value, as an HTTP server would (an end past the value is cut).
fn cut(value: Vec<u8>, range: &ByteRange) -> Vec<u8> {
    let len = value.len();
    let clamp = |v: u64| usize::try_from(v).unwrap_or(usize::MAX).min(len);
    let (start, end) = match range {
        ByteRange::Bounded(r) => (clamp(r.start), clamp(r.end)),
        ByteRange::Suffix(n) => (len.saturating_sub(clamp(*n)), len),
    };
    value
        .get(start..end.max(start))
        .unwrap_or_default()
        .to_vec()
}

/// The absolute (leading `/`) form of a key.
pub(super) fn absolute(key: &str) -> String {
    format!("/{}", key.trim_start_matches('/'))
}

/// A byte count from JS: a non-negative safe integer (anything else: the largest).
pub(super) fn count(x: f64) -> u64 {
    if x.is_finite() && x >= 0.0 && x <= crate::store::wire::MAX_SAFE as f64 {
        x as u64
    } else {
        crate::store::wire::MAX_SAFE
    }
}

/// The read a TypeScript store over WebAssembly asks for (`readRequest` in
/// `ts/store/range.ts`): `mode` 0 all of the value (at most `a` bytes), 1 `b` bytes from `a`,
/// 2 its last `a` bytes. The range (`None`: all) and the most bytes of the value.
pub(super) fn read_request(mode: u8, a: f64, b: f64) -> (Option<ByteRange>, u64) {
    let (a, b) = (count(a), count(b));
    match mode {
        0 => (None, a),
        1 => (Some(ByteRange::Bounded(a..a.saturating_add(b))), u64::MAX),
        _ => (Some(ByteRange::Suffix(a)), u64::MAX),
    }
}

/// An Aborted error at `key` when `signal` (an AbortSignal, or undefined) is aborted.
pub(super) fn check_aborted(signal: &JsValue, key: &str) -> Result<()> {
    if signal.is_object() && prop(signal, "aborted").as_bool() == Some(true) {
        let reason = prop(signal, "reason");
        let why = prop(&reason, "message")
            .as_string()
            .unwrap_or_else(|| "the operation was aborted".into());
        return Err(ZomError::new(ErrorCode::Aborted, why).at_key(key));
    }
    Ok(())
}

/// Calls `f` (a store's method, `what`, for `key`) and awaits its answer (a value or a
/// Promise); what it throws or rejects with becomes a ZomError.
pub(super) async fn call(
    f: &Function,
    target: &JsValue,
    args: &Array,
    what: &str,
    key: &str,
) -> Result<JsValue> {
    let returned = f
        .apply(target, args)
        .map_err(|e| thrown_to_error(&e, what, key))?;
    JsFuture::from(Promise::resolve(&returned))
        .await
        .map_err(|e| thrown_to_error(&e, what, key))
}

impl JsStore {
    /// Adapts `store` (a Map, or an object with a `get` method) for one operation with
    /// `signal` (an AbortSignal, or undefined).
    pub fn new(store: &JsValue, signal: JsValue) -> Result<JsStore> {
        let backend = if let Some(map) = store.dyn_ref::<js_sys::Map>() {
            Backend::Map(map.clone())
        } else if let Some(get) = function(store, "get").filter(|_| store.is_object()) {
            Backend::Object {
                target: store.clone(),
                get,
                get_range: function(store, "getRange"),
                list: function(store, "list"),
            }
        } else {
            return Err(ZomError::invalid_argument(
                "a store must be a Map of key → Uint8Array or an object with a get(key) method",
            ));
        };
        let signal = if signal.is_object() {
            signal
        } else {
            JsValue::UNDEFINED
        };
        Ok(JsStore {
            backend,
            signal,
            verbatim: false,
        })
    }

    /// The same store, its keys passed as they are rather than absolute (URLs).
    pub fn verbatim(mut self) -> JsStore {
        self.verbatim = true;
        self
    }

    /// `key` as the store is given it.
    fn key_of(&self, key: &str) -> String {
        if self.verbatim {
            key.to_string()
        } else {
            absolute(key)
        }
    }

    fn check_aborted(&self, key: &str) -> Result<()> {
        check_aborted(&self.signal, key)
    }

    /// The options of a store call: the operation's `signal`, and `maxBytes` when the caller
    /// refuses longer values (FetchStore and FsStore then stop before reading them).
    fn call_options(&self, max_bytes: Option<u64>) -> JsValue {
        let options = Object::new();
        if !self.signal.is_undefined() {
            let _ = Reflect::set(&options, &JsValue::from_str("signal"), &self.signal);
        }
        if let Some(max) = max_bytes {
            let _ = Reflect::set(
                &options,
                &JsValue::from_str("maxBytes"),
                &JsValue::from_f64(max as f64),
            );
        }
        options.into()
    }

    /// `get`, refusing values over `max` bytes when one is given.
    async fn get_bounded(&self, key: &str, max: Option<u64>) -> Result<Option<Vec<u8>>> {
        self.read(key, None, max).await
    }

    /// `range` of the value at `key` (`None`: all of it, refused over `max` bytes): one store
    /// call (`get`, or `getRange` where the store has it, else `get` cut to the range) and one
    /// await, which every read shares: each await of a JS store is code in the module.
    async fn read(
        &self,
        key: &str,
        range: Option<ByteRange>,
        max: Option<u64>,
    ) -> Result<Option<Vec<u8>>> {
        let (target, f, what, args) = match (&self.backend, &range) {
            (Backend::Map(map), _) => {
                self.check_aborted(key)?;
                let whole = bytes_of(&Self::map_get(map, key), "get", key, max)?;
                return Ok(match &range {
                    Some(range) => whole.map(|whole| cut(whole, range)),
                    None => whole,
                });
            }
            (
                Backend::Object {
                    target,
                    get_range: Some(get_range),
                    ..
                },
                Some(range),
            ) => {
                let spec = Object::new();
                let set = |name: &str, v: u64| {
                    let _ = Reflect::set(
                        &spec,
                        &JsValue::from_str(name),
                        &JsValue::from_f64(v as f64),
                    );
                };
                match range {
                    ByteRange::Bounded(r) => {
                        set("offset", r.start);
                        set("length", r.end.saturating_sub(r.start));
                    }
                    ByteRange::Suffix(n) => set("suffixLength", *n),
                }
                let args = Array::of3(
                    &JsValue::from_str(&self.key_of(key)),
                    &spec,
                    &self.call_options(None),
                );
                (target, get_range, "getRange", args)
            }
            (Backend::Object { target, get, .. }, _) => {
                let args = Array::of2(
                    &JsValue::from_str(&self.key_of(key)),
                    &self.call_options(max),
                );
                (target, get, "get", args)
            }
        };
        let value = self.call(f, target, &args, what, key).await?;
        let bytes = bytes_of(&value, what, key, max)?;
        Ok(match range {
            Some(range) if what == "get" => bytes.map(|whole| cut(whole, &range)),
            _ => bytes,
        })
    }

    /// Calls a store method and awaits its answer (a value or a Promise).
    async fn call(
        &self,
        f: &Function,
        target: &JsValue,
        args: &Array,
        what: &str,
        key: &str,
    ) -> Result<JsValue> {
        self.check_aborted(key)?;
        call(f, target, args, what, key).await
    }

    fn map_get(map: &js_sys::Map, key: &str) -> JsValue {
        let with = map.get(&JsValue::from_str(&absolute(key)));
        if !with.is_undefined() {
            return with;
        }
        map.get(&JsValue::from_str(key.trim_start_matches('/')))
    }

    fn map_list(map: &js_sys::Map, prefix: &str) -> Listing {
        let mut keys = Vec::new();
        map.for_each(&mut |_, key| keys.extend(key.as_string()));
        crate::store::list_keys(&mut keys.iter().map(String::as_str), prefix)
    }
}

fn strings(value: &JsValue) -> Vec<String> {
    if !Array::is_array(value) {
        return Vec::new();
    }
    Array::from(value)
        .iter()
        .filter_map(|v| v.as_string())
        .map(|s| s.trim_start_matches('/').trim_end_matches('/').to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

impl Store for JsStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.get_bounded(key, None).await
    }

    async fn get_within(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>> {
        self.get_bounded(key, Some(max)).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.get_range_now(key, range).await
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Listing>> {
        self.list_dir_now(prefix).await
    }
}

impl JsStore {
    async fn get_range_now(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.read(key, Some(range), None).await
    }

    async fn list_dir_now(&self, prefix: &str) -> Result<Option<Listing>> {
        match &self.backend {
            Backend::Map(map) => {
                self.check_aborted(prefix)?;
                Ok(Some(Self::map_list(map, prefix)))
            }
            Backend::Object {
                target,
                list: Some(list),
                ..
            } => {
                let trimmed = prefix.trim_matches('/');
                let absolute_prefix = if trimmed.is_empty() {
                    "/".to_string()
                } else {
                    format!("/{trimmed}/")
                };
                let args = Array::of2(
                    &JsValue::from_str(&absolute_prefix),
                    &self.call_options(None),
                );
                let value = self
                    .call(list, target, &args, "list", &absolute_prefix)
                    .await?;
                if value.is_undefined() || value.is_null() {
                    return Ok(None);
                }
                Ok(Some(Listing {
                    keys: strings(&prop(&value, "keys")),
                    prefixes: strings(&prop(&value, "prefixes")),
                }))
            }
            Backend::Object { list: None, .. } => Ok(None),
        }
    }
}
