//! Chunk key encodings: v3 `default` and `v2`, and v2's `dimension_separator`.

use crate::document::named::NamedConfig;
use crate::error::{ErrorCode, Result, ZomError};
use crate::problem::config::{decoder_result, read_extension, Config, ConfigProblem, Need};
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// A chunk key encoding zom reads: its name and the reader of its configuration, one for the
/// decoder and the validator.
pub(crate) struct KeyEncodingSpec {
    /// The v3 `chunk_key_encoding` name.
    pub(crate) name: &'static str,
    /// The separator when the configuration gives none.
    default_separator: char,
    /// Makes the encoding from its separator.
    make: fn(char) -> ChunkKeyEncoding,
}

impl KeyEncodingSpec {
    /// Reads `config`: the problems found, and the encoding when it can be used.
    pub(crate) fn read(
        &self,
        config: Option<&Map<String, Value>>,
    ) -> (Vec<ConfigProblem>, Option<ChunkKeyEncoding>) {
        read_extension(self.name, "chunk key encoding", config, |cfg| {
            self.read_config(cfg)
        })
    }

    fn read_config(&self, cfg: &mut Config) -> Option<ChunkKeyEncoding> {
        cfg.allow(&["separator"]);
        let separator = match cfg.get("separator") {
            None => self.default_separator,
            Some(_) => match cfg.one_of("separator", &["/", "."], Need::Decode)? {
                "/" => '/',
                _ => '.',
            },
        };
        Some((self.make)(separator))
    }
}

/// Every chunk key encoding zom reads.
static ENCODINGS: &[KeyEncodingSpec] = &[
    KeyEncodingSpec {
        name: "default",
        default_separator: '/',
        make: |separator| ChunkKeyEncoding::Default { separator },
    },
    KeyEncodingSpec {
        name: "v2",
        default_separator: '.',
        make: |separator| ChunkKeyEncoding::V2 { separator },
    },
];

/// The chunk key encoding of this name.
pub(crate) fn key_encoding_spec(name: &str) -> Option<&'static KeyEncodingSpec> {
    ENCODINGS.iter().find(|e| e.name == name)
}

/// How chunk coordinates become store keys (relative to the array's path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkKeyEncoding {
    /// v3 `default`: `c` then each coordinate after the separator (`c/1/0`, `c.1.0`);
    /// a 0-d array's only chunk is `c`.
    Default {
        /// `'/'` (the default) or `'.'`.
        separator: char,
    },
    /// v3 `v2` and every v2 array: the coordinates joined by the separator (`1.0`, `1/0`);
    /// a 0-d array's only chunk is `0`.
    V2 {
        /// `'.'` (the default) or `'/'`.
        separator: char,
    },
}

impl ChunkKeyEncoding {
    /// Reads a v3 `chunk_key_encoding`.
    ///
    /// Unknown names are [`ErrorCode::UnsupportedExtension`]; a separator other than `"/"` or
    /// `"."` is [`ErrorCode::InvalidMetadata`].
    pub fn from_v3(encoding: &NamedConfig) -> Result<Self> {
        let Some(spec) = key_encoding_spec(&encoding.name) else {
            let known: Vec<String> = ENCODINGS.iter().map(|e| format!("'{}'", e.name)).collect();
            return Err(ZomError::new(
                ErrorCode::UnsupportedExtension,
                format!(
                    "chunk key encoding '{}' is not supported (only {})",
                    encoding.name,
                    known.join(" and ")
                ),
            ));
        };
        decoder_result(
            spec.read(encoding.configuration.as_ref()),
            spec.name,
            "chunk key encoding",
        )
    }

    /// The encoding of a v2 array from its `dimension_separator` (absent means `"."`).
    pub fn from_v2(dimension_separator: Option<&str>) -> Result<Self> {
        match dimension_separator {
            None | Some(".") => Ok(ChunkKeyEncoding::V2 { separator: '.' }),
            Some("/") => Ok(ChunkKeyEncoding::V2 { separator: '/' }),
            Some(other) => Err(ZomError::invalid_metadata(format!(
                "dimension_separator must be \"/\" or \".\", not \"{other}\""
            ))),
        }
    }

    /// The key of the chunk at `coords`, relative to the array (`c/0/1`, `0.1`).
    pub fn encode(&self, coords: &[u64]) -> String {
        let mut key = String::with_capacity(2 + coords.len() * 4);
        match *self {
            ChunkKeyEncoding::Default { separator } => {
                key.push('c');
                for c in coords {
                    key.push(separator);
                    // Writing to a String cannot fail.
                    let _ = write!(key, "{c}");
                }
            }
            ChunkKeyEncoding::V2 { separator } => {
                if coords.is_empty() {
                    key.push('0');
                }
                for (i, c) in coords.iter().enumerate() {
                    if i > 0 {
                        key.push(separator);
                    }
                    let _ = write!(key, "{c}");
                }
            }
        }
        key
    }

    /// The store key of the chunk at `coords` of the array at node path `array_path`
    /// (`""` for the root, `"a/b"` for a member; surrounding slashes are ignored).
    pub fn encode_at(&self, array_path: &str, coords: &[u64]) -> String {
        let path = array_path.trim_matches('/');
        let key = self.encode(coords);
        if path.is_empty() {
            key
        } else {
            format!("{path}/{key}")
        }
    }

    /// The coordinates of a `rank`-dimensional chunk from its key relative to the array (the
    /// inverse of [`ChunkKeyEncoding::encode`]), or `None` when the key is not one this
    /// encoding writes (other separators, signs, leading zeros, numbers beyond `u64`).
    pub fn decode(&self, key: &str, rank: usize) -> Option<Vec<u64>> {
        let (rest, separator) = match *self {
            ChunkKeyEncoding::Default { separator } => {
                let rest = key.strip_prefix('c')?;
                if rank == 0 {
                    return rest.is_empty().then(Vec::new);
                }
                (rest.strip_prefix(separator)?, separator)
            }
            ChunkKeyEncoding::V2 { separator } => {
                if rank == 0 {
                    return (key == "0").then(Vec::new);
                }
                (key, separator)
            }
        };
        let coords = rest
            .split(separator)
            .map(|part| {
                let canonical = part.bytes().all(|b| b.is_ascii_digit())
                    && !part.is_empty()
                    && (part == "0" || !part.starts_with('0'));
                if canonical {
                    part.parse::<u64>().ok()
                } else {
                    None
                }
            })
            .collect::<Option<Vec<u64>>>()?;
        (coords.len() == rank).then_some(coords)
    }

    /// The separator between coordinates.
    pub fn separator(&self) -> char {
        match *self {
            ChunkKeyEncoding::Default { separator } | ChunkKeyEncoding::V2 { separator } => {
                separator
            }
        }
    }
}
