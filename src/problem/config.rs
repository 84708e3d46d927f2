//! Reading an extension's configuration (a codec's, a chunk grid's, a chunk key encoding's):
//! the one reader both the decoder and the validator use.
//!
//! A codec's `configure` function (see `crate::codec::registry`), and the readers of the chunk
//! grids and key encodings (`crate::chunk`), read their keys through a [`Config`]. Every problem is recorded with its location and wording; whether it stops
//! decoding is the codec's call ([`Need`]): a value the decoder uses must be right
//! ([`Need::Decode`]), a value only the spec constrains ([`Need::Spec`]) is reported by the
//! validator and ignored by the decoder (gzip's `level`, say, which decoding does not use).

use crate::problem::{
    check_array, check_bool, check_int_range, check_number, check_one_of, check_str, check_uint,
    Bad,
};
use crate::problem::{LocStep, ProblemKind};
use serde_json::{Map, Value};

/// Whether a configuration value is needed to decode, or only constrained by the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// The decoder uses it: a bad value stops decoding.
    Decode,
    /// Only the spec constrains it: the validator reports it, the decoder goes on.
    Spec,
}

/// One problem found in a codec configuration.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ConfigProblem {
    /// Where, relative to the codec's configuration object (empty: the codec as a whole).
    pub(crate) loc: Vec<LocStep>,
    /// The problem kind (the validator's vocabulary).
    pub(crate) kind: ProblemKind,
    /// What is wrong.
    pub(crate) message: String,
    /// What it means for the decoder and the validator.
    pub(crate) effect: Effect,
}

/// What a configuration problem means for the decoder and for the validator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Against the spec, but decoding does not depend on it: a validation error only.
    Spec,
    /// Decoding cannot go on: a validation error and a decoder `InvalidMetadata` error.
    Fatal,
    /// Valid, but zom cannot decode it: a decoder `UnknownCodec` error, a strict-mode warning.
    Unsupported,
    /// A SHOULD-level remark: a strict-mode warning only.
    Warning,
}

/// A codec's configuration being read: its members and the problems found so far.
pub(crate) struct Config<'a> {
    map: &'a Map<String, Value>,
    /// The name as the metadata wrote it (`"numcodecs.zlib"`, `"endian"`).
    pub(crate) name: &'a str,
    /// The codec's registry name (`"gzip"`, `"zlib"`), as messages name it.
    codec: &'static str,
    /// Whether the configuration is a numcodecs object, where `id` is a member.
    numcodecs: bool,
    /// The extension point when this is not a codec (`"chunk grid"`).
    point: Option<&'static str>,
    /// The members the codec defines, as its `allow` call listed them.
    allowed: &'static [&'static str],
    problems: Vec<ConfigProblem>,
}

impl<'a> Config<'a> {
    /// A reader over `map`, the configuration of the codec registered as `codec` (a numcodecs
    /// id when `numcodecs`), written `name` in the metadata.
    pub(crate) fn new(
        map: &'a Map<String, Value>,
        name: &'a str,
        codec: &'static str,
        numcodecs: bool,
    ) -> Self {
        Config {
            map,
            name,
            codec,
            numcodecs,
            point: None,
            allowed: &[],
            problems: Vec::new(),
        }
    }

    /// A reader over `map`, the configuration of the `name` extension at extension `point`
    /// (`"chunk grid"`, `"chunk key encoding"`).
    pub(crate) fn extension(
        map: &'a Map<String, Value>,
        name: &'static str,
        point: &'static str,
    ) -> Self {
        Config {
            point: Some(point),
            ..Config::new(map, name, name, false)
        }
    }

    /// The problems found, in the order found.
    pub(crate) fn into_problems(self) -> Vec<ConfigProblem> {
        self.problems
    }

    /// The members the codec defines (empty until its `configure` has called `allow`).
    #[cfg(test)]
    pub(crate) fn allowed(&self) -> &'static [&'static str] {
        self.allowed
    }

    /// Whether a problem found so far stops decoding.
    pub(crate) fn failed(&self) -> bool {
        self.problems
            .iter()
            .any(|p| matches!(p.effect, Effect::Fatal | Effect::Unsupported))
    }

    /// Records a problem at `loc` (relative to the configuration).
    pub(crate) fn problem(&mut self, loc: Vec<LocStep>, bad: Bad, need: Need) {
        let effect = match need {
            Need::Decode => Effect::Fatal,
            Need::Spec => Effect::Spec,
        };
        self.problems.push(ConfigProblem {
            loc,
            kind: bad.0,
            message: bad.1,
            effect,
        });
    }

    /// Records that zom cannot decode this (valid) configuration.
    pub(crate) fn unsupported(&mut self, message: String) {
        self.problems.push(ConfigProblem {
            loc: Vec::new(),
            kind: ProblemKind::InvalidValue,
            message,
            effect: Effect::Unsupported,
        });
    }

    /// The codec a constructor built, or its error recorded as a fatal problem.
    pub(crate) fn built<T>(&mut self, made: crate::error::Result<T>) -> Option<T> {
        match made {
            Ok(v) => Some(v),
            Err(e) => {
                let code = e.code;
                let prefix = format!("codec '{}': ", self.name);
                let message = match e.message.strip_prefix(&prefix) {
                    Some(rest) => rest.to_string(),
                    None => e.message,
                };
                if code == crate::error::ErrorCode::UnknownCodec {
                    self.unsupported(message);
                } else {
                    self.refuse(ProblemKind::InvalidValue, message, Need::Decode);
                }
                None
            }
        }
    }

    /// Records a problem with the codec as a whole (its fit with the data type, say).
    pub(crate) fn refuse(&mut self, kind: ProblemKind, message: String, need: Need) {
        self.problem(Vec::new(), (kind, message), need);
    }

    /// Records a strict-mode warning about the codec as a whole.
    pub(crate) fn warn(&mut self, message: String) {
        self.problems.push(ConfigProblem {
            loc: Vec::new(),
            kind: ProblemKind::InvalidValue,
            message,
            effect: Effect::Warning,
        });
    }

    /// Reports every member not in `allowed` (`id` is allowed in numcodecs objects).
    pub(crate) fn allow(&mut self, allowed: &'static [&'static str]) {
        self.allowed = allowed;
        let map = self.map;
        for key in map.keys() {
            if allowed.contains(&key.as_str()) || (self.numcodecs && key == "id") {
                continue;
            }
            let message = format!("'{key}' is not a key of {}", self.what());
            self.problem(key_loc(key), (ProblemKind::UnknownKey, message), Need::Spec);
        }
    }

    /// A member's value; in a codec's configuration `null` counts as absent (numcodecs writes
    /// `null` for "default").
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        let codec = self.point.is_none();
        self.map.get(key).filter(|v| !(codec && v.is_null()))
    }

    /// A member the spec requires: reports `missing_key` when absent.
    pub(crate) fn required(&mut self, key: &str, need: Need) -> Option<&'a Value> {
        let found = self.get(key);
        if found.is_none() {
            let message = format!("{} has no '{key}'", self.what());
            self.problem(key_loc(key), (ProblemKind::MissingKey, message), need);
        }
        found
    }

    /// Checks a present member with `check`; `None` when absent or bad.
    fn checked<T>(
        &mut self,
        key: &str,
        need: Need,
        check: impl FnOnce(&'a Value, &str) -> Result<T, Bad>,
    ) -> Option<T> {
        let value = self.get(key)?;
        match check(value, &self.label(key)) {
            Ok(v) => Some(v),
            Err(bad) => {
                self.problem(key_loc(key), bad, need);
                None
            }
        }
    }

    /// How messages name the codec or extension: `"codec 'gzip'"`, `"numcodecs 'zlib'"`,
    /// `"the 'regular' chunk grid configuration"`.
    pub(crate) fn what(&self) -> String {
        match self.point {
            Some(point) => format!("the '{}' {point} configuration", self.codec),
            None => what(self.codec, self.numcodecs),
        }
    }

    /// How messages name a member: `"gzip 'level'"`.
    pub(crate) fn label(&self, key: &str) -> String {
        format!("{} '{key}'", self.codec)
    }

    /// An integer member in `lo..=hi`.
    pub(crate) fn int(&mut self, key: &str, lo: i64, hi: i64, need: Need) -> Option<i64> {
        self.checked(key, need, |v, what| check_int_range(v, what, lo, hi))
    }

    /// A non-negative integer member at least `min`.
    pub(crate) fn uint(&mut self, key: &str, min: u64, need: Need) -> Option<u64> {
        self.checked(key, need, |v, what| check_uint(v, what, min))
    }

    /// A number member.
    pub(crate) fn number(&mut self, key: &str, need: Need) -> Option<f64> {
        self.checked(key, need, check_number)
    }

    /// A boolean member.
    pub(crate) fn bool(&mut self, key: &str, need: Need) -> Option<bool> {
        self.checked(key, need, check_bool)
    }

    /// A string member.
    pub(crate) fn str(&mut self, key: &str, need: Need) -> Option<&'a str> {
        self.checked(key, need, check_str)
    }

    /// A string member that is one of `allowed`.
    pub(crate) fn one_of(&mut self, key: &str, allowed: &[&str], need: Need) -> Option<&'a str> {
        self.checked(key, need, |v, what| check_one_of(v, what, allowed))
    }

    /// An array member.
    pub(crate) fn array(&mut self, key: &str, need: Need) -> Option<&'a Vec<Value>> {
        self.checked(key, need, check_array)
    }

    /// A list of non-negative integers (each at least `min`); every bad element is reported,
    /// and `None` returned if there is one.
    pub(crate) fn uint_list(&mut self, key: &str, min: u64, need: Need) -> Option<Vec<u64>> {
        let items = self.array(key, need)?;
        let label = self.label(key);
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match check_uint(item, &format!("{label}[{i}]"), min) {
                Ok(v) => out.push(v),
                Err(bad) => {
                    ok = false;
                    self.problem(vec![key_step(key), LocStep::Index(i)], bad, need);
                }
            }
        }
        ok.then_some(out)
    }

    /// A list of strings.
    pub(crate) fn str_list(&mut self, key: &str, need: Need) -> Option<Vec<String>> {
        let items = self.array(key, need)?;
        let label = self.label(key);
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match check_str(item, &format!("{label}[{i}]")) {
                Ok(s) => out.push(s.to_string()),
                Err(bad) => {
                    self.problem(vec![key_step(key), LocStep::Index(i)], bad, need);
                    return None;
                }
            }
        }
        Some(out)
    }
}

/// An empty configuration, read when a document gives none.
pub(crate) fn empty_map() -> &'static Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

/// Reads `config` (`None`: the document gives none) of the `name` extension at `point` with
/// `read`: the problems found, and what `read` made of it.
pub(crate) fn read_extension<T>(
    name: &'static str,
    point: &'static str,
    config: Option<&Map<String, Value>>,
    read: impl FnOnce(&mut Config) -> Option<T>,
) -> (Vec<ConfigProblem>, Option<T>) {
    let mut cfg = Config::extension(config.unwrap_or_else(|| empty_map()), name, point);
    let made = read(&mut cfg);
    (cfg.into_problems(), made)
}

/// The decoder's verdict on what [`read_extension`] found: what was made, or the first problem
/// that stops decoding as an [`ErrorCode::InvalidMetadata`] error.
///
/// [`ErrorCode::InvalidMetadata`]: crate::error::ErrorCode::InvalidMetadata
pub(crate) fn decoder_result<T>(
    (problems, made): (Vec<ConfigProblem>, Option<T>),
    name: &str,
    point: &str,
) -> crate::error::Result<T> {
    let fatal = problems
        .into_iter()
        .find(|p| matches!(p.effect, Effect::Fatal | Effect::Unsupported));
    match (made, fatal) {
        (Some(made), None) => Ok(made),
        (_, Some(problem)) => Err(crate::error::ZomError::invalid_metadata(problem.message)),
        (None, None) => Err(crate::error::ZomError::invalid_metadata(format!(
            "the {point} '{name}' could not be read"
        ))),
    }
}

/// How messages name a codec: `"codec 'gzip'"` (v3), `"numcodecs 'zlib'"`.
pub(crate) fn what(codec: &str, numcodecs: bool) -> String {
    if numcodecs {
        format!("numcodecs '{codec}'")
    } else {
        format!("codec '{codec}'")
    }
}

fn key_step(key: &str) -> LocStep {
    LocStep::Key(key.to_string())
}

/// The location of the member `key` (relative to the configuration).
pub(crate) fn key_loc(key: &str) -> Vec<LocStep> {
    vec![key_step(key)]
}
