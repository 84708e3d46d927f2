//! The built-in specs, written in the spec format (`builtin/*.json`, embedded), read once.

use super::format::Spec;
use crate::error::{Result, ZomError};
use std::sync::{Arc, OnceLock};

// Embedded without the indentation (at compile time), as the ZOM schemas are.
#[cfg(feature = "builtin-specs")]
mod embedded {
    use crate::model::schema::{minified_len, minify};
    const OME_ZARR_04_FILE: &[u8] = include_bytes!("builtin/ome-zarr-0.4.json");
    const OME_ZARR_05_FILE: &[u8] = include_bytes!("builtin/ome-zarr-0.5.json");
    const XARRAY_FILE: &[u8] = include_bytes!("builtin/xarray.json");
    pub(super) static OME_ZARR_04: [u8; minified_len(OME_ZARR_04_FILE)] = minify(OME_ZARR_04_FILE);
    pub(super) static OME_ZARR_05: [u8; minified_len(OME_ZARR_05_FILE)] = minify(OME_ZARR_05_FILE);
    pub(super) static XARRAY: [u8; minified_len(XARRAY_FILE)] = minify(XARRAY_FILE);
}

/// The built-in specs' texts when the crate does not embed them (feature `builtin-specs` off):
/// set once by [`set_texts`], before any spec is used.
#[cfg(not(feature = "builtin-specs"))]
static TEXTS: OnceLock<[String; 3]> = OnceLock::new();

/// Gives the built-in specs' texts (`ome-zarr-0.4`, `ome-zarr-0.5`, `xarray`, minified JSON)
/// to a build without the `builtin-specs` feature; false when they were already given.
#[cfg(not(feature = "builtin-specs"))]
pub fn set_texts(ome04: String, ome05: String, xarray: String) -> bool {
    TEXTS.set([ome04, ome05, xarray]).is_ok()
}

/// The text of built-in spec `i` (0.4, 0.5, xarray).
fn text(i: usize) -> &'static [u8] {
    #[cfg(feature = "builtin-specs")]
    {
        let all: [&'static [u8]; 3] = [
            &embedded::OME_ZARR_04,
            &embedded::OME_ZARR_05,
            &embedded::XARRAY,
        ];
        all.get(i).copied().unwrap_or_default()
    }
    #[cfg(not(feature = "builtin-specs"))]
    {
        TEXTS
            .get()
            .and_then(|t| t.get(i))
            .map_or(&[][..], |t| t.as_bytes())
    }
}

/// The names [`builtin`] takes.
pub const BUILTIN_NAMES: &[&str] = &["ome-zarr", "ome-zarr-0.4", "ome-zarr-0.5", "xarray"];

fn read(text: &[u8]) -> Arc<Spec> {
    // The built-in texts are part of zom and tested (tests/specs.rs reads each); a broken one
    // would be a build mistake, reported as a spec with no rules rather than a panic.
    let spec = crate::json::parse_document(text, &crate::Limits::default())
        .and_then(|doc| Spec::from_value(&doc));
    Arc::new(spec.unwrap_or_else(|e| Spec::broken(e.message)))
}

struct Builtins {
    ome04: Arc<Spec>,
    ome05: Arc<Spec>,
    xarray: Arc<Spec>,
}

fn builtins() -> &'static Builtins {
    static CELL: OnceLock<Builtins> = OnceLock::new();
    CELL.get_or_init(|| Builtins {
        ome04: read(text(0)),
        ome05: read(text(1)),
        xarray: read(text(2)),
    })
}

/// The built-in specs of a convention: `ome-zarr` (0.4 and 0.5), `ome-zarr-0.4`,
/// `ome-zarr-0.5` or `xarray`.
pub fn builtin(name: &str) -> Result<Vec<Arc<Spec>>> {
    let b = builtins();
    Ok(match name {
        "ome-zarr" => vec![b.ome04.clone(), b.ome05.clone()],
        "ome-zarr-0.4" => vec![b.ome04.clone()],
        "ome-zarr-0.5" => vec![b.ome05.clone()],
        "xarray" => vec![b.xarray.clone()],
        _ => {
            return Err(ZomError::invalid_argument(format!(
                "no built-in spec '{name}' (there are: {})",
                BUILTIN_NAMES.join(", ")
            )))
        }
    })
}

/// Every built-in spec.
pub fn all() -> Vec<Arc<Spec>> {
    let b = builtins();
    vec![b.ome04.clone(), b.ome05.clone(), b.xarray.clone()]
}

/// The built-in conventions and their specs.
pub(crate) fn families() -> Vec<(&'static str, Vec<Arc<Spec>>)> {
    let b = builtins();
    vec![
        ("ome-zarr", vec![b.ome04.clone(), b.ome05.clone()]),
        ("xarray", vec![b.xarray.clone()]),
    ]
}

/// The JSON text (minified) of a built-in spec: `ome-zarr-0.4`, `ome-zarr-0.5` or `xarray`.
pub fn builtin_text(name: &str) -> Result<&'static str> {
    let bytes: &'static [u8] = match name {
        "ome-zarr-0.4" => text(0),
        "ome-zarr-0.5" => text(1),
        "xarray" => text(2),
        _ => {
            return Err(ZomError::invalid_argument(format!(
                "no built-in spec '{name}' (there are: ome-zarr-0.4, ome-zarr-0.5, xarray)"
            )))
        }
    };
    std::str::from_utf8(bytes)
        .map_err(|_| ZomError::invalid_argument(format!("built-in spec '{name}' is not UTF-8")))
}
