//! The built-in specs, written in the spec format (`builtin/*.json`, embedded), read once.
//!
//! [`TABLE`] is the one list of them: a spec's name (its file is `builtin/<name>.json`) and
//! its convention. Everything else — the names `--spec` and `specs` take, a convention's
//! specs, `auto` — comes from it; scripts/build.mjs ships every file of `builtin/` to JS.

use super::format::Spec;
use crate::error::{Result, ZomError};
use std::sync::{Arc, OnceLock};

/// Declares [`TABLE`] and, with the `builtin-specs` feature, the embedded texts in its order.
macro_rules! builtins {
    ($($name:literal in $convention:literal),* $(,)?) => {
        /// Every built-in spec: (name, convention), a convention's specs oldest first.
        pub(crate) const TABLE: &[(&str, &str)] = &[$(($name, $convention)),*];

        // Embedded without the indentation (at compile time), as the ZOM schemas are.
        #[cfg(feature = "builtin-specs")]
        const EMBEDDED: &[&[u8]] = &[$({
            use crate::model::schema::{minified_len, minify};
            const FILE: &[u8] = include_bytes!(concat!("builtin/", $name, ".json"));
            const TEXT: [u8; minified_len(FILE)] = minify(FILE);
            &TEXT
        }),*];
    };
}

builtins! {
    "ome-zarr-0.4" in "ome-zarr",
    "ome-zarr-0.5" in "ome-zarr",
    "ome-zarr-0.6" in "ome-zarr",
    "xarray" in "xarray",
}

/// The built-in specs' texts when the crate does not embed them (feature `builtin-specs` off):
/// set once by [`set_texts`], before any spec is used; in [`TABLE`]'s order.
#[cfg(not(feature = "builtin-specs"))]
static TEXTS: OnceLock<Vec<String>> = OnceLock::new();

/// Gives the built-in specs' texts (minified JSON, by name) to a build without the
/// `builtin-specs` feature; false when they were already given. A name not in [`TABLE`] is
/// ignored; a spec whose text is not given reads as a broken spec (it applies nowhere).
#[cfg(not(feature = "builtin-specs"))]
pub fn set_texts(names: Vec<String>, texts: Vec<String>) -> bool {
    let mut all = vec![String::new(); TABLE.len()];
    for (name, text) in names.into_iter().zip(texts) {
        if let Some(i) = index(&name) {
            all[i] = text;
        }
    }
    TEXTS.set(all).is_ok()
}

/// The text of built-in spec `i` of [`TABLE`].
fn text(i: usize) -> &'static [u8] {
    #[cfg(feature = "builtin-specs")]
    {
        EMBEDDED.get(i).copied().unwrap_or_default()
    }
    #[cfg(not(feature = "builtin-specs"))]
    {
        TEXTS
            .get()
            .and_then(|t| t.get(i))
            .map_or(&[][..], |t| t.as_bytes())
    }
}

/// Where a spec's name is in [`TABLE`].
fn index(name: &str) -> Option<usize> {
    TABLE.iter().position(|(n, _)| *n == name)
}

/// The names [`builtin`] takes: each convention with more than one spec (`ome-zarr`), then
/// each spec (`ome-zarr-0.4`, …, `xarray`).
pub fn names() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for (name, convention) in TABLE {
        if convention != name && !out.contains(convention) {
            out.push(convention);
        }
    }
    out.extend(TABLE.iter().map(|(name, _)| *name));
    out
}

fn read(text: &[u8]) -> Arc<Spec> {
    // The built-in texts are part of zom and tested (tests/specs.rs reads each); a broken one
    // would be a build mistake, reported as a spec with no rules rather than a panic.
    let spec = crate::json::parse_document(text, &crate::Limits::default())
        .and_then(|doc| Spec::from_value(&doc));
    Arc::new(spec.unwrap_or_else(|e| Spec::broken(e.message)))
}

/// Every built-in spec, read once, in [`TABLE`]'s order.
fn specs() -> &'static [Arc<Spec>] {
    static CELL: OnceLock<Vec<Arc<Spec>>> = OnceLock::new();
    CELL.get_or_init(|| (0..TABLE.len()).map(|i| read(text(i))).collect())
}

/// The specs of a convention, in [`TABLE`]'s order.
fn of_convention(convention: &str) -> Vec<Arc<Spec>> {
    TABLE
        .iter()
        .zip(specs())
        .filter(|((_, c), _)| *c == convention)
        .map(|(_, s)| s.clone())
        .collect()
}

/// The built-in specs a name stands for: a convention (`ome-zarr`: 0.4, 0.5 and 0.6, each node
/// checked by the version it claims) or one spec (`ome-zarr-0.6`, `xarray`).
pub fn builtin(name: &str) -> Result<Vec<Arc<Spec>>> {
    if let Some(i) = index(name) {
        return Ok(vec![specs()[i].clone()]);
    }
    let found = of_convention(name);
    if found.is_empty() {
        return Err(ZomError::invalid_argument(format!(
            "no built-in spec '{name}' (there are: {})",
            names().join(", ")
        )));
    }
    Ok(found)
}

/// Every built-in spec.
pub fn all() -> Vec<Arc<Spec>> {
    specs().to_vec()
}

/// The built-in conventions and their specs.
pub(crate) fn families() -> Vec<(&'static str, Vec<Arc<Spec>>)> {
    let mut out: Vec<(&'static str, Vec<Arc<Spec>>)> = Vec::new();
    for (_, convention) in TABLE {
        if !out.iter().any(|(c, _)| c == convention) {
            out.push((convention, of_convention(convention)));
        }
    }
    out
}

/// The JSON text (minified) of one built-in spec, by its name in [`TABLE`].
pub fn builtin_text(name: &str) -> Result<&'static str> {
    let Some(i) = index(name) else {
        let list: Vec<&str> = TABLE.iter().map(|(n, _)| *n).collect();
        return Err(ZomError::invalid_argument(format!(
            "no built-in spec '{name}' (there are: {})",
            list.join(", ")
        )));
    };
    std::str::from_utf8(text(i))
        .map_err(|_| ZomError::invalid_argument(format!("built-in spec '{name}' is not UTF-8")))
}
