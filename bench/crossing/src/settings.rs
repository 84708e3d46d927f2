//! Options coming in: what every way must end with (`Settings`, compared between the ways),
//! and the serde form serde-wasm-bindgen and JSON text read them into (`WalkIn`, `ValidateIn`).

use serde::Deserialize;
use zom::limits::{Limit, Limits};
use zom::ZomError;

/// `walkHierarchy`'s plain-data options, read and checked.
#[derive(Debug, PartialEq)]
pub struct WalkSettings {
    pub kind: Option<String>,
    pub format: Option<u64>,
    pub depth: Option<u64>,
    pub concurrency: Option<u64>,
    pub limits: Limits,
}

impl WalkSettings {
    /// Settings with zom's checks of `kind` and `format`.
    pub fn checked(
        kind: Option<String>,
        format: Option<u64>,
        depth: Option<u64>,
        concurrency: Option<u64>,
        limits: Limits,
    ) -> Result<WalkSettings, ZomError> {
        if let Some(k) = kind.as_deref().filter(|k| *k != "array" && *k != "group") {
            return Err(ZomError::invalid_argument(format!(
                "option 'kind' must be \"array\" or \"group\", not \"{k}\""
            )));
        }
        if let Some(f) = format.filter(|f| *f != 2 && *f != 3) {
            return Err(ZomError::invalid_argument(format!(
                "option 'format' must be 2 or 3, not {f}"
            )));
        }
        Ok(WalkSettings {
            kind,
            format,
            depth,
            concurrency,
            limits,
        })
    }
}

/// `validateDocument`'s plain-data options.
#[derive(Debug, PartialEq)]
pub struct ValidateSettings {
    pub key: Option<String>,
    pub strict: bool,
    pub extensions: bool,
}

/// The options of one case, read.
#[derive(Debug, PartialEq)]
pub enum Settings {
    Walk(WalkSettings),
    Validate(ValidateSettings),
}

/// `walkHierarchy`'s options as serde reads them.
#[derive(Deserialize)]
pub struct WalkIn {
    kind: Option<String>,
    format: Option<f64>,
    depth: Option<f64>,
    concurrency: Option<f64>,
    limits: Option<LimitsIn>,
}

/// The `limits` option as serde reads it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LimitsIn {
    max_chunk_bytes: Option<f64>,
    max_bytes: Option<f64>,
    max_chunks: Option<f64>,
    max_document_bytes: Option<f64>,
    max_json_depth: Option<f64>,
    max_nodes: Option<f64>,
    max_shard_index_bytes: Option<f64>,
}

fn count(name: &str, value: Option<f64>) -> Result<Option<u64>, ZomError> {
    match value {
        None => Ok(None),
        Some(f) if f == f64::INFINITY => Ok(Some(u64::MAX)),
        Some(f) if f >= 0.0 && f.fract() == 0.0 => Ok(Some(f as u64)),
        Some(_) => Err(ZomError::invalid_argument(format!(
            "option '{name}' must be a non-negative integer"
        ))),
    }
}

impl WalkIn {
    /// The settings, checked as zom checks them.
    pub fn settle(self) -> Result<Settings, ZomError> {
        let mut limits = Limits::DEFAULT;
        if let Some(given) = self.limits {
            let fields = [
                given.max_chunk_bytes,
                given.max_bytes,
                given.max_chunks,
                given.max_document_bytes,
                given.max_json_depth,
                given.max_nodes,
                given.max_shard_index_bytes,
            ];
            for (limit, value) in Limit::ALL.into_iter().zip(fields) {
                if let Some(n) = count(limit.name(), value)? {
                    *limits.get_mut(limit) = n;
                }
            }
        }
        Ok(Settings::Walk(WalkSettings::checked(
            self.kind,
            count("format", self.format)?,
            count("depth", self.depth)?,
            count("concurrency", self.concurrency)?,
            limits,
        )?))
    }
}

/// `validateDocument`'s options as serde reads them.
#[derive(Deserialize)]
pub struct ValidateIn {
    key: Option<String>,
    strict: Option<bool>,
    extensions: Option<bool>,
}

impl ValidateIn {
    /// The settings.
    pub fn settle(self) -> Settings {
        Settings::Validate(ValidateSettings {
            key: self.key,
            strict: self.strict.unwrap_or(false),
            extensions: self.extensions.unwrap_or(false),
        })
    }
}
