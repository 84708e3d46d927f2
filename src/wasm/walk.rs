//! The binding of the hierarchy walk over JS stores: `walkHierarchy`. The TypeScript wrapper
//! (ts/read/hierarchy.ts `walk`) is the public face.

use super::boundary;
use super::convert::{node_to_js, report, set_own};
use super::options;
use super::plain::error as error_to_js;
use super::store::JsStore;
use crate::hierarchy::{self, WalkOptions, WalkProgress};
use js_sys::{Array, Object, Promise};
use wasm_bindgen::prelude::*;

use super::{fail, limits, JsResult};

/// `{nodes, pending, errors, found}`.
const WALK_PROGRESS: [&str; 4] = boundary::names(&boundary::WALK_PROGRESS_SHAPE);
/// `{zom, errors, unlisted, unasked, consolidated}`.
const WALK: [&str; 5] = boundary::names(&boundary::WALK_RESULT);

/// Walks the hierarchy below `path`: `{zom, errors, unlisted, consolidated}`. Options:
/// `depth`, `concurrency`, `kind`, `format` (of the start node), `signal`, `limits`,
/// `onProgress` (`{nodes, pending, errors}`).
#[wasm_bindgen(js_name = walkHierarchy)]
pub fn walk_hierarchy(store: JsValue, path: Option<String>, options: JsValue) -> Promise {
    super::promise(Box::pin(walk_hierarchy_async(store, path, options)))
}

async fn walk_hierarchy_async(store: JsValue, path: Option<String>, options: JsValue) -> JsResult {
    let options = options::WalkOptions::read(&options)?;
    let js_store = JsStore::new(&store, options.signal.clone()).map_err(fail)?;
    let defaults = WalkOptions::default();
    let walk_options = WalkOptions {
        depth: options.depth,
        concurrency: options.concurrency.unwrap_or(defaults.concurrency).max(1),
        hints: options.hints,
        limits: options.limits.over(limits::current()),
        follow: options.follow,
    };
    let mut progress = |p: WalkProgress| {
        if options.on_progress.is_none() {
            return;
        }
        let [nodes, pending, errors, found] = WALK_PROGRESS;
        let paths = Array::new();
        for path in p.found {
            paths.push(&JsValue::from_str(path));
        }
        report(
            options.on_progress.as_ref(),
            [nodes, pending, errors],
            [p.nodes, p.pending, p.errors],
            &[(found, &paths)],
        );
    };
    let result = hierarchy::walk(
        &js_store,
        path.as_deref().unwrap_or(""),
        &walk_options,
        &mut progress,
    )
    .await
    .map_err(fail)?;
    let [n_zom, n_errors, n_unlisted, n_unasked, n_consolidated] = WALK;
    let out = Object::new();
    set_own(&out, n_zom, &node_to_js(result.root));
    let errors = Array::new();
    for error in &result.errors {
        errors.push(&error_to_js(error));
    }
    set_own(&out, n_errors, &errors);
    let unlisted = Array::new();
    for path in &result.unlisted {
        unlisted.push(&JsValue::from_str(path));
    }
    set_own(&out, n_unlisted, &unlisted);
    let unasked = Array::new();
    for path in &result.unasked {
        unasked.push(&JsValue::from_str(path));
    }
    set_own(&out, n_unasked, &unasked);
    set_own(
        &out,
        n_consolidated,
        &JsValue::from_bool(result.consolidated),
    );
    Ok(out.into())
}
