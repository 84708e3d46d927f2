//! Icechunk repositories for the TypeScript `IcechunkStore` (`ts/store/icechunk.ts`), in a
//! part of their own (Cargo.toml's `bind-icechunk`): [`IcechunkRepo`] is the core's
//! [`Repository`] over the JS store holding the repository's files, and
//! [`IcechunkCheckout`] one snapshot of it as a store ([`IcechunkStore`]), its virtual chunks
//! read through a second JS store keyed by absolute URL. Every read goes through the JS store
//! bridge (`store.rs`): the TypeScript side does the I/O.

use super::options::LimitsSet;
use super::store::{absolute_listing, read_request, JsStore};
use super::{fail, promise};
use crate::limits::Limits;
use crate::store::icechunk::{
    IcechunkStore, RefSpec, Repository, SnapshotId, ValidatedRead, Validators,
};
use crate::store::wire::MAX_SAFE;
use crate::store::{ByteRange, Store};
use crate::ZomError;
use js_sys::{Array, Object, Promise, Reflect, Uint8Array};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// An Icechunk repository held by a JS store: its refs and history, and its snapshots.
#[wasm_bindgen]
pub struct IcechunkRepo {
    shared: Rc<Repo>,
}

struct Repo {
    repository: Repository,
    /// The JS store holding the repository's files.
    source: JsValue,
    limits: Limits,
}

/// One snapshot of a repository, read as a store.
#[wasm_bindgen]
pub struct IcechunkCheckout {
    store: Rc<IcechunkStore<JsStore, JsStore, JsValidated>>,
}

/// The JS store of virtual chunks, as the reader of the chunks that record a checksum: after
/// a read, its `validators(url)` (where it has one) gives what the answer said of the object,
/// `{etag, lastModified}`.
struct JsValidated {
    store: JsStore,
    source: JsValue,
}

impl ValidatedRead for JsValidated {
    async fn get_range_validated(
        &self,
        url: &str,
        range: ByteRange,
    ) -> crate::Result<Option<(Vec<u8>, Validators)>> {
        let Some(bytes) = self.store.get_range(url, range).await? else {
            return Ok(None);
        };
        let Some(validators) = super::store::function(&self.source, "validators") else {
            return Ok(Some((bytes, Validators::default())));
        };
        let seen = validators
            .call1(&self.source, &JsValue::from_str(url))
            .unwrap_or(JsValue::UNDEFINED);
        let text = |name: &str| {
            Reflect::get(&seen, &JsValue::from_str(name))
                .ok()
                .and_then(|v| v.as_string())
        };
        let seen = Validators {
            etag: text("etag"),
            last_modified: text("lastModified"),
        };
        Ok(Some((bytes, seen)))
    }
}

fn set(target: &Object, key: &str, value: &JsValue) {
    // Setting a field of a plain object cannot fail.
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}

/// `[{name, snapshot}, …]`.
fn named_ids(refs: &[(String, SnapshotId)]) -> JsValue {
    let out = Array::new();
    for (name, id) in refs {
        let entry = Object::new();
        set(&entry, "name", &JsValue::from_str(name));
        set(&entry, "snapshot", &JsValue::from_str(&id.to_string()));
        out.push(&entry);
    }
    out.into()
}

impl Repo {
    fn store(&self) -> Result<JsStore, JsValue> {
        JsStore::new(&self.source, JsValue::UNDEFINED).map_err(fail)
    }
}

/// Which snapshot `kind` ("branch", "tag", "snapshot") and `name` name.
fn ref_spec(kind: &str, name: String) -> crate::Result<RefSpec> {
    Ok(match kind {
        "branch" => RefSpec::Branch(name),
        "tag" => RefSpec::Tag(name),
        "snapshot" => RefSpec::Snapshot(SnapshotId::parse(&name)?),
        other => {
            return Err(ZomError::invalid_argument(format!(
                "a ref is a branch, a tag or a snapshot, not '{other}'"
            )))
        }
    })
}

#[wasm_bindgen]
impl IcechunkRepo {
    /// Opens the repository whose files `source` holds (a JS store; keys `repo`,
    /// `snapshots/…`): a Promise of an IcechunkRepo. `limits`: the limits in force.
    pub fn open(source: JsValue, limits: JsValue) -> Promise {
        promise(Box::pin(async move {
            let limits = LimitsSet::of(&limits).map_err(fail)?.over(Limits::DEFAULT);
            let store = JsStore::new(&source, JsValue::UNDEFINED).map_err(fail)?;
            let repository = Repository::open(&store, &limits).await.map_err(fail)?;
            let shared = Rc::new(Repo {
                repository,
                source,
                limits,
            });
            Ok(IcechunkRepo { shared }.into())
        }))
    }

    /// The spec version of the repository's layout: 2 (a `repo` file) or 1 (`refs/`).
    #[wasm_bindgen(getter, js_name = specVersion)]
    pub fn spec_version(&self) -> u8 {
        self.shared.repository.spec_version()
    }

    /// A Promise of the id of the snapshot that `kind` ("branch", "tag", "snapshot") and
    /// `name` name.
    pub fn resolve(&self, kind: String, name: String) -> Promise {
        let shared = self.shared.clone();
        promise(Box::pin(async move {
            let spec = ref_spec(&kind, name).map_err(fail)?;
            let store = shared.store()?;
            let id = shared.repository.resolve(&store, &spec).await;
            Ok(JsValue::from_str(&id.map_err(fail)?.to_string()))
        }))
    }

    /// A Promise of `{branches, tags}`, each `[{name, snapshot}]` sorted by name.
    pub fn refs(&self) -> Promise {
        let shared = self.shared.clone();
        promise(Box::pin(async move {
            let store = shared.store()?;
            let branches = shared.repository.branches(&store).await.map_err(fail)?;
            let tags = shared.repository.tags(&store).await.map_err(fail)?;
            let out = Object::new();
            set(&out, "branches", &named_ids(&branches));
            set(&out, "tags", &named_ids(&tags));
            Ok(out.into())
        }))
    }

    /// A Promise of the ancestry of snapshot `id`, newest first: `[{id, message, time}]`
    /// (`message` and `time`, milliseconds since the epoch, where the repository records
    /// them in its repo info; `null` otherwise).
    pub fn ancestry(&self, id: String) -> Promise {
        let shared = self.shared.clone();
        promise(Box::pin(async move {
            let id = SnapshotId::parse(&id).map_err(fail)?;
            let store = shared.store()?;
            let ids = shared
                .repository
                .ancestry(&store, &id)
                .await
                .map_err(fail)?;
            let info = shared.repository.repo_info();
            let out = Array::new();
            for id in ids {
                let entry = Object::new();
                set(&entry, "id", &JsValue::from_str(&id.to_string()));
                let summary = info.and_then(|info| info.snapshot(&id));
                let (message, time) = match summary {
                    Some(s) => (
                        JsValue::from_str(s.message),
                        JsValue::from_f64((s.flushed_at / 1000) as f64),
                    ),
                    None => (JsValue::NULL, JsValue::NULL),
                };
                set(&entry, "message", &message);
                set(&entry, "time", &time);
                out.push(&entry);
            }
            Ok(out.into())
        }))
    }

    /// A Promise of snapshot `id` as a store, its virtual chunks read through `virtual_source`
    /// (a JS store whose keys are absolute URLs), only those inside the virtual chunk
    /// containers the repository declares; those that record a checksum are checked against
    /// what `virtual_source.validators(url)` says of the answer, where it has that method.
    pub fn checkout(&self, id: String, virtual_source: JsValue) -> Promise {
        let shared = self.shared.clone();
        promise(Box::pin(async move {
            let id = SnapshotId::parse(&id).map_err(fail)?;
            let store = shared.store()?;
            let snapshot = shared
                .repository
                .snapshot(&store, &id)
                .await
                .map_err(fail)?;
            let virtual_store =
                || JsStore::new(&virtual_source, JsValue::UNDEFINED).map(JsStore::verbatim);
            let validated = JsValidated {
                store: virtual_store().map_err(fail)?,
                source: virtual_source.clone(),
            };
            // Virtual chunks only inside the containers the repository declares.
            let containers = shared.repository.virtual_chunk_containers().to_vec();
            let virtual_store = virtual_store().map_err(fail)?;
            let store = IcechunkStore::new(store, virtual_store, snapshot, &shared.limits)
                .with_virtual_chunk_containers(containers)
                .with_validated_reads(validated);
            Ok(IcechunkCheckout {
                store: Rc::new(store),
            }
            .into())
        }))
    }
}

#[wasm_bindgen]
impl IcechunkCheckout {
    /// The snapshot's id.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.store.snapshot().id().to_string()
    }

    /// A Promise of the value at `key` (undefined: none): `mode`, `a`, `b` as [`read_request`]
    /// reads them (all of it: over `a` bytes rejects with LimitExceeded). With `locate`,
    /// bytes that are a range of one of the repository's files (a native chunk) are not read:
    /// the Promise gives where they are, `{key, offset, length}`, for the caller to fetch
    /// (and to read again without `locate` when it gets another length, to learn why).
    pub fn read(&self, key: String, mode: u8, a: f64, b: f64, locate: bool) -> Promise {
        let store = self.store.clone();
        promise(Box::pin(async move {
            let (range, max) = read_request(mode, a, b);
            if locate {
                let at = store.native_range(&key, range.clone(), max).await;
                // Past 2^53 a JS number is not the offset: such a range is read here.
                if let Some(at) = at
                    .map_err(fail)?
                    .filter(|at| at.offset.saturating_add(at.length) <= MAX_SAFE)
                {
                    let out = Object::new();
                    set(
                        &out,
                        "key",
                        &JsValue::from_str(&super::store::absolute(&at.key)),
                    );
                    set(&out, "offset", &JsValue::from_f64(at.offset as f64));
                    set(&out, "length", &JsValue::from_f64(at.length as f64));
                    return Ok(out.into());
                }
            }
            let read = match range {
                None => store.get_within(&key, max).await,
                Some(range) => store.get_range(&key, range).await,
            };
            Ok(match read.map_err(fail)? {
                Some(bytes) => Uint8Array::from(bytes.as_slice()).into(),
                None => JsValue::UNDEFINED,
            })
        }))
    }

    /// A Promise of what is directly below `prefix` (a node path): `{keys, prefixes}`,
    /// absolute ("/a/zarr.json", "/a/b/").
    pub fn list(&self, prefix: String) -> Promise {
        let store = self.store.clone();
        promise(Box::pin(async move {
            let listing = store.list_dir(&prefix).await.map_err(fail)?;
            Ok(listing.map_or(JsValue::UNDEFINED, |l| absolute_listing(&l)))
        }))
    }
}
