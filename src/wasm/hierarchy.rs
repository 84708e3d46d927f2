//! Bindings of the hierarchy API over JS stores: `openNode` and the `ArrayHandle` of an
//! opened array (`get`, `getChunk`). The TypeScript wrapper
//! (ts/read/hierarchy.ts, ts/read/array.ts) is the public face; these return plain data and Promises.

use super::boundary;
use super::codecs::JsExternalCodecs;
use super::convert::{from_js, node_to_js, report, set_own, to_js};
use super::options::{self, NodeFromZomOptions, OpenOptions, Understood};
use super::pool::JsDecodeHook;
use super::store::JsStore;
use super::values::chunk_to_js;
use crate::chunk::Selection;
use crate::error::{ErrorCode, ZomError};
use crate::hierarchy::{
    self, ArrayReader, CacheUse, ExternalCodecs, Opened, ReadContext, ReadOptions, ReadProgress,
};
use crate::limits::Limits;
use crate::model::{Array as ArrayNode, DeferredMembers, Node};
use js_sys::{Array, Object, Promise};
use serde_json::Value;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

use super::{fail, limits, JsResult};

/// `{done, total, cached}`.
const READ_PROGRESS: [&str; 3] = boundary::names(&boundary::READ_PROGRESS_SHAPE);
/// `{deferred?, kind, path, zom, consolidated, array?}`.
const NODE: [&str; 6] = boundary::names(&boundary::NODE_RESULT);

/// Opens the node at `path`: `{kind, path, zom, consolidated, array?}` (`array`: an
/// [`ArrayHandle`]). Options: `kind`, `format`, `signal`, `limits`.
#[wasm_bindgen(js_name = openNode)]
pub fn open_node(store: JsValue, path: Option<String>, options: JsValue) -> Promise {
    super::promise(Box::pin(async move {
        let options = OpenOptions::read(&options).map_err(fail)?;
        let js_store = JsStore::new(&store, options.signal.clone()).map_err(fail)?;
        let limits = options.limits.over(limits::current());
        let path = path.as_deref().unwrap_or("");
        let opened = hierarchy::open_deferred(&js_store, path, options.hints, &limits)
            .await
            .map_err(fail)?;
        node_result(store, opened, limits, &options.understood)
    }))
}

/// A node from its ZOM (a member of a group opened from consolidated metadata), without any
/// request: the same `{kind, path, zom, consolidated, array?}` as [`open_node`]. Options:
/// `limits`, `extensions`, `codecs` (those of a ChunkDecoder), `kind` (a node of the other kind
/// is NotFound, as for [`open_node`]).
#[wasm_bindgen(js_name = nodeFromZom)]
pub fn node_from_zom(
    store: JsValue,
    path: Option<String>,
    zom: JsValue,
    consolidated: bool,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let options = NodeFromZomOptions::read(&options).map_err(fail)?;
    let limits = options.decoder.limits.over(limits::current());
    JsStore::new(&store, JsValue::UNDEFINED).map_err(fail)?;
    let path = hierarchy::normalize_path(path.as_deref().unwrap_or("")).map_err(fail)?;
    let node = from_js(&zom)
        .and_then(|value| Node::from_value(&value))
        .map_err(|e| fail(e.at_path(path.clone())))?;
    let opened = Opened {
        path,
        node,
        consolidated,
        deferred: None,
    };
    let opened = opened.of_kind(options.hints).map_err(fail)?;
    node_result(store, opened, limits, &options.decoder.understood)
}

/// A group opened from inline consolidated metadata whose members are not read yet: the
/// `deferred` of [`open_node`]'s result.
#[wasm_bindgen]
pub struct DeferredGroup {
    members: Box<DeferredMembers>,
    path: String,
    store: JsValue,
    limits: Limits,
}

#[wasm_bindgen]
impl DeferredGroup {
    /// The names of the group's direct members.
    pub fn names(&self) -> Vec<String> {
        self.members.names().into_iter().map(String::from).collect()
    }

    /// The group's ZOM with every member, read now.
    pub fn zom(&self) -> JsResult {
        Ok(node_to_js(self.members.read_all().map_err(fail)?))
    }

    /// The member at `relative` as [`open_node`] gives a node, read from the consolidated
    /// metadata; `undefined` when it does not list it. Options: `kind`, `limits`.
    pub fn open(&self, relative: &str, options: JsValue) -> JsResult {
        let options = OpenOptions::read(&options).map_err(fail)?;
        let limits = options.limits.over(self.limits);
        let opened = hierarchy::open_member(&self.members, &self.path, relative, options.hints)
            .map_err(fail)?;
        match opened {
            Some(opened) => node_result(self.store.clone(), opened, limits, &options.understood),
            None => Ok(JsValue::UNDEFINED),
        }
    }
}

/// `{kind, path, zom, consolidated, array?, deferred?}` of an opened node; an array whose
/// document has an extension the caller must understand and does not is refused here.
fn node_result(
    store: JsValue,
    mut opened: Opened,
    limits: Limits,
    understood: &Understood,
) -> Result<JsValue, JsValue> {
    let [n_deferred, n_kind, n_path, n_zom, n_consolidated, n_array] = NODE;
    let out = Object::new();
    if let Some(members) = opened.deferred.take() {
        let deferred = DeferredGroup {
            members,
            path: opened.path.clone(),
            store: store.clone(),
            limits,
        };
        set_own(&out, n_deferred, &JsValue::from(deferred));
    }
    let kind = match opened.node {
        Node::Array(_) => "array",
        Node::Group(_) => "group",
    };
    set_own(&out, n_kind, &JsValue::from_str(kind));
    set_own(&out, n_path, &JsValue::from_str(&opened.path));
    set_own(&out, n_zom, &to_js(&opened.node.to_value()));
    set_own(
        &out,
        n_consolidated,
        &JsValue::from_bool(opened.consolidated),
    );
    if let Node::Array(array) = opened.node {
        if let Some(refusal) = ArrayReader::refusal(&array, &understood.extensions) {
            let key = crate::model::join_path(&opened.path, "zarr.json");
            return Err(fail(refusal.at_path(opened.path).at_key(key)));
        }
        // Checked once here: reopening it under other limits needs no second check.
        let registered = understood.codecs.clone();
        let reader = ArrayReader::open_unchecked(&array, &opened.path, limits, &registered);
        let handle = ArrayHandle {
            inner: Rc::new(ArrayInner {
                id: next_array_id(),
                store,
                reader,
                array,
                path: opened.path,
                limits,
                registered,
            }),
        };
        set_own(&out, n_array, &JsValue::from(handle));
    }
    Ok(out.into())
}

thread_local! {
    static NEXT_ARRAY: Cell<u64> = const { Cell::new(0) };
}

/// A new array identity for cache keys: never reused, so that a freed array's entries
/// cannot be taken for another's.
fn next_array_id() -> u64 {
    NEXT_ARRAY.with(|n| {
        n.set(n.get().saturating_add(1));
        n.get()
    })
}

struct ArrayInner {
    /// The array's identity in chunk caches.
    id: u64,
    store: JsValue,
    /// The reader, or why the array cannot be read (an unknown codec): metadata stays
    /// available either way.
    reader: Result<ArrayReader, ZomError>,
    array: ArrayNode,
    path: String,
    /// The limits it was opened with: those of its reads unless a read gives its own.
    limits: Limits,
    /// The registered codecs it was opened with, which its reads apply.
    registered: Vec<String>,
}

impl ArrayInner {
    fn reader(&self) -> Result<&ArrayReader, JsValue> {
        self.reader.as_ref().map_err(|e| fail(e.clone()))
    }

    /// The array reopened for a read under `limits` when they change how chunks decode
    /// (`None`: [`ArrayInner::reader`] serves).
    fn reopened(&self, limits: &Limits) -> Result<Option<ArrayReader>, JsValue> {
        self.reader()?;
        let decoding = |l: &Limits| (l.max_chunk_bytes, l.max_shard_index_bytes);
        if decoding(limits) == decoding(&self.limits) {
            return Ok(None);
        }
        ArrayReader::open_unchecked(&self.array, &self.path, *limits, &self.registered)
            .map(Some)
            .map_err(fail)
    }
}

/// An opened array: reads regions and chunks from its store.
#[wasm_bindgen]
pub struct ArrayHandle {
    inner: Rc<ArrayInner>,
}

impl ArrayHandle {
    /// [`ArrayHandle::get`] (`what`: a selection) and [`ArrayHandle::get_chunk`] (`chunk`:
    /// `what` is chunk coordinates): one state machine for both reads.
    fn read(&self, what: JsValue, chunk: bool, options: JsValue) -> Promise {
        let inner = Rc::clone(&self.inner);
        super::promise(Box::pin(async move {
            let options = options::ReadOptions::read(&options).map_err(fail)?;
            let read_options = ReadOptions {
                bytes_in_flight: options
                    .bytes_in_flight
                    .unwrap_or(ReadOptions::default().bytes_in_flight),
                limits: options.limits.over(inner.limits),
                ..ReadOptions::default()
            };
            let cache = super::cache::of_id(options.cache_id).map_err(fail)?;
            let reopened = inner.reopened(&read_options.limits)?;
            let reader = match &reopened {
                Some(reader) => reader,
                None => inner.reader()?,
            };
            let selection = if chunk {
                coords_of(&what).and_then(|coords| hierarchy::chunk_selection(reader, &coords))
            } else {
                from_js(&what).and_then(|v| Selection::from_json(&v))
            }
            .map_err(|e| fail(e.at_path(inner.path.clone())))?;
            let store = JsStore::new(&inner.store, options.signal.clone()).map_err(fail)?;
            let external = options
                .decode_external
                .map(|apply| JsExternalCodecs::new(apply, options.signal.clone()));
            // A chunk read reports no progress.
            let callback = options.on_progress.filter(|_| !chunk);
            let mut progress = |p: ReadProgress| {
                report(
                    callback.as_ref(),
                    READ_PROGRESS,
                    [p.done, p.total, p.cached],
                    &[],
                )
            };
            // Workers decode under the limits the array was opened with; other limits, here.
            let hook = options
                .decode_hook
                .and_then(|fns| JsDecodeHook::of(fns, reader))
                .filter(|_| reopened.is_none());
            let context = ReadContext {
                cache: cache.as_deref().map(|cache| CacheUse {
                    cache,
                    array: inner.id,
                }),
                external: external.as_ref().map(|e| e as &dyn ExternalCodecs),
            };
            let mut values = hierarchy::read_cached(
                &store,
                reader,
                &selection,
                &read_options,
                hook.as_ref(),
                context,
                &mut progress,
            )
            .await
            .map_err(fail)?;
            if let Some(hook) = &hook {
                hook.values(reader.data_type(), &mut values).map_err(fail)?;
            }
            let stored_bits = options.stored_bits;
            chunk_to_js(reader.data_type(), values, None, stored_bits).map_err(fail)
        }))
    }
}

fn numbers(values: &[u64]) -> JsValue {
    let out = Array::new();
    for &v in values {
        out.push(&JsValue::from_f64(v as f64));
    }
    out.into()
}

fn coords_of(value: &JsValue) -> Result<Vec<u64>, ZomError> {
    if !Array::is_array(value) {
        return Err(ZomError::new(
            ErrorCode::InvalidSelection,
            "chunk coordinates must be an array of non-negative integers",
        ));
    }
    let values = Array::from(value);
    super::convert::chunk_coords(values.iter().map(|v| v.as_f64().unwrap_or(f64::NAN)))
}

#[wasm_bindgen]
impl ArrayHandle {
    /// Reads a selection (`null`/`undefined`: everything; else a list of integer, `null` or
    /// `{start, stop, step}` per leading dimension): `{shape, kind, bytes}` or
    /// `{shape, kind: "values", values}`. Options: `signal`, `onProgress`
    /// (`{done, total, cached}`), `bytesInFlight`, `maxBytes`, `decodeHook`
    /// (`{share, decode, place, output}`: chunks of fixed-size values decode there into an
    /// output it keeps, see the `pool` module), `cacheId` (a chunk cache, see the `cache`
    /// module).
    pub fn get(&self, selection: JsValue, options: JsValue) -> Promise {
        self.read(selection, false, options)
    }

    /// Reads one chunk (for a sharded array: one inner chunk), cut to the array. Options:
    /// `signal`, `decodeHook`.
    #[wasm_bindgen(js_name = getChunk)]
    pub fn get_chunk(&self, coords: JsValue, options: JsValue) -> Promise {
        self.read(coords, true, options)
    }
    /// The node path.
    #[wasm_bindgen(getter)]
    pub fn path(&self) -> String {
        self.inner.path.clone()
    }

    /// The array's shape.
    #[wasm_bindgen(getter)]
    pub fn shape(&self) -> JsValue {
        numbers(self.inner.array.shape())
    }

    /// The chunk shape reads are made of (the inner chunk shape of a sharded array); `null`
    /// when the array cannot be read or its chunks differ in shape (a rectilinear grid).
    #[wasm_bindgen(getter)]
    pub fn chunks(&self) -> JsValue {
        match self.inner.reader.as_ref().map(|r| r.read_chunk_shape()) {
            Ok(Some(shape)) => numbers(shape),
            _ => JsValue::NULL,
        }
    }

    /// The lengths of the chunks reads are made of along each dimension, each cut to the
    /// array (zarr-python's `read_chunk_sizes`); refused with LimitExceeded past `maxChunks`
    /// chunks in one dimension.
    #[wasm_bindgen(js_name = chunkSizes)]
    pub fn chunk_sizes(&self) -> Result<JsValue, JsValue> {
        let sizes = self
            .inner
            .reader()?
            .read_grid()
            .and_then(|grid| grid.chunk_sizes(self.inner.limits.max_chunks))
            .map_err(|e| fail(e.at_path(self.inner.path.clone())))?;
        let out = Array::new();
        for dim in &sizes {
            out.push(&numbers(dim));
        }
        Ok(out.into())
    }

    /// The shard shape of a sharded array, else `null`.
    #[wasm_bindgen(getter)]
    pub fn shards(&self) -> JsValue {
        match self
            .inner
            .reader
            .as_ref()
            .ok()
            .and_then(|r| r.shard_shape())
        {
            Some(shape) => numbers(shape),
            None => JsValue::NULL,
        }
    }

    /// The data type in its v3 JSON form (as stored when the array cannot be read).
    #[wasm_bindgen(getter)]
    pub fn dtype(&self) -> JsValue {
        match (&self.inner.reader, &self.inner.array) {
            (Ok(reader), _) => to_js(&reader.data_type().to_v3().to_value()),
            (Err(_), ArrayNode::V3(meta)) => to_js(&meta.data_type.to_value()),
            (Err(_), ArrayNode::V2(a)) => to_js(&a.metadata.dtype),
        }
    }

    /// The user attributes.
    #[wasm_bindgen(getter)]
    pub fn attributes(&self) -> JsValue {
        to_js(&Value::Object(
            self.inner.array.attributes().cloned().unwrap_or_default(),
        ))
    }

    /// The dimension names (v3), else `null`.
    #[wasm_bindgen(getter, js_name = dimensionNames)]
    pub fn dimension_names(&self) -> JsValue {
        match &self.inner.array {
            ArrayNode::V3(meta) => match &meta.dimension_names {
                Some(Some(names)) => {
                    let out = Array::new();
                    for name in names {
                        out.push(&name.as_deref().map_or(JsValue::NULL, JsValue::from_str));
                    }
                    out.into()
                }
                _ => JsValue::NULL,
            },
            ArrayNode::V2(_) => JsValue::NULL,
        }
    }

    /// The Zarr format (2 or 3).
    #[wasm_bindgen(getter)]
    pub fn format(&self) -> u32 {
        match &self.inner.array {
            ArrayNode::V2(_) => 2,
            ArrayNode::V3(_) => 3,
        }
    }

    /// The array's ZOM node.
    #[wasm_bindgen(getter)]
    pub fn zom(&self) -> JsValue {
        to_js(&Node::Array(self.inner.array.clone()).to_value())
    }

    /// The limits the array was opened with (what a worker's `PoolDecoder` decodes under).
    #[wasm_bindgen(getter)]
    pub fn limits(&self) -> JsValue {
        limits::to_js(&self.inner.limits)
    }

    /// The array's ZOM node as compact JSON text (what a worker's `PoolDecoder` opens).
    #[wasm_bindgen(getter, js_name = metadataJson)]
    pub fn metadata_json(&self) -> String {
        crate::json::to_compact(&Node::Array(self.inner.array.clone()).to_value())
    }

    /// The codec parts a read of the array calls (ts/parts/codec-calls.ts loads them first), by
    /// name; none when the array cannot be read.
    #[wasm_bindgen(getter)]
    pub fn parts(&self) -> Vec<String> {
        match &self.inner.reader {
            Ok(reader) => reader
                .pipeline()
                .parts()
                .into_iter()
                .map(String::from)
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Why the array cannot be read (an error object), or `null`.
    #[wasm_bindgen(getter, js_name = readError)]
    pub fn read_error(&self) -> JsValue {
        match &self.inner.reader {
            Ok(_) => JsValue::NULL,
            Err(e) => fail(e.clone()),
        }
    }
}
