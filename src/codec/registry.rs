//! The codec registry: every codec zom knows, by name, with what it is and how it is
//! configured. The decoder (`v3.rs`, `v2.rs`), the validator (`crate::validate::codecs`), the
//! v2 → v3 conversion (`crate::model::convert`) and reader refusals ask it; a codec's names,
//! kind, configuration reading and construction live in its own module, in one
//! [`CodecSpec`]. See ARCHITECTURE.md, "Adding a codec".
//!
//! Two dialects name codecs. A v3 `codecs` entry names a codec of the v3 specs or zarr-python
//! 3 (`"gzip"`, `"vlen-utf8"`), or a numcodecs codec as `numcodecs.<id>`; a v2 `filters` or
//! `compressor` entry names a numcodecs codec by its `id`. The same algorithm may have two
//! entries, because its configurations differ (v3 `blosc` spells `shuffle` as a word, numcodecs
//! as a number).

use super::num_type::{NumKind, NumType};
use super::{bad_config, unknown_codec};
use super::{ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec};
use crate::document::named::NUMCODECS_PREFIX;
use crate::dtype::{DataType, FillValue};
use crate::error::Result;
use crate::problem::config::{Config, ConfigProblem, Effect};
use serde_json::{Map, Value};

/// Where a codec sits in a pipeline, in the v3 spec's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Array → array (transpose, filters).
    ArrayToArray,
    /// Array → bytes (exactly one per pipeline).
    ArrayToBytes,
    /// Bytes → bytes (compressors, checksums).
    BytesToBytes,
}

/// What a codec receives at its place in a pipeline, as far as it is known (the validator may
/// not know the data type after a filter that changes it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Stage {
    /// The element type.
    pub(crate) dtype: Option<DataType>,
    /// The chunk shape.
    pub(crate) shape: Option<Vec<u64>>,
    /// A v2 array whose dtype is big-endian (`>`): numcodecs filters work in that order.
    pub(crate) big: bool,
    /// The array's fill value, for codecs that build nested pipelines (sharding); `None` when
    /// only checking.
    pub(crate) fill: Option<FillValue>,
    /// Whether this is a sharding `index_codecs` list.
    pub(crate) index: bool,
    /// What a sharding codec's nested pipelines receive, once its `configure` has read it.
    pub(crate) nested: Option<Box<Nested>>,
}

/// What the pipelines nested in a sharding codec receive.
#[derive(Clone, Debug)]
pub(crate) struct Nested {
    /// What the inner `codecs` receive: inner chunks.
    pub(crate) inner: Stage,
    /// Inner chunks per shard along each dimension (the index's shape, less its last 2), when
    /// known.
    pub(crate) chunks_per_shard: Option<Vec<u64>>,
}

impl Stage {
    /// The numeric type of the elements, in the byte order filters default to.
    pub(crate) fn num_type(&self) -> Option<NumType> {
        let kind = NumKind::from_data_type(self.dtype.as_ref()?)?;
        Some(NumType {
            kind,
            big: self.big,
        })
    }
}

/// A codec built by its `configure` function.
pub(crate) enum Built {
    /// An array → array codec.
    ArrayToArray(Box<dyn ArrayToArrayCodec>),
    /// An array → bytes codec.
    ArrayToBytes(Box<dyn ArrayToBytesCodec>),
    /// A bytes → bytes codec.
    BytesToBytes(Box<dyn BytesToBytesCodec>),
    /// A codec whose form depends on the dialect (numcodecs filters on typed values,
    /// `packbits`): array → array in v3, and in v2 a step on the bytes before the compressor.
    Filter(Box<dyn Filter>),
}

/// A numcodecs filter: an array → array codec in a v3 pipeline and, in a v2 one, a bytes →
/// bytes step before the compressor (on the bytes in the byte order its configuration names).
/// The pipeline builders ask for the form they need, without knowing which filter it is.
pub(crate) trait Filter {
    /// The v3 form.
    fn into_array_codec(self: Box<Self>) -> Box<dyn ArrayToArrayCodec>;
    /// The v2 form.
    fn into_bytes_codec(self: Box<Self>) -> Box<dyn BytesToBytesCodec>;
}

/// Reads (and checks) a configuration and builds the codec; `None` when a problem stops it or
/// the codec is known but zom cannot decode it ([`Config`] holds the reason).
pub(crate) type Configure = fn(&mut Config, &mut Stage) -> Option<Built>;

/// Everything zom knows about one codec.
pub(crate) struct CodecSpec {
    /// The v3 name, or for a numcodecs codec its `id` (`numcodecs.<id>` in v3).
    pub(crate) name: &'static str,
    /// Other v3 names that mean the same codec (`"endian"` for `bytes`).
    pub(crate) aliases: &'static [&'static str],
    /// Whether `name` is a numcodecs id.
    pub(crate) numcodecs: bool,
    /// Its place in a pipeline.
    pub(crate) kind: Kind,
    /// Whether its output has a size known from its input (checksums): allowed in
    /// `index_codecs`.
    pub(crate) fixed_size: bool,
    /// Whether it gives a v2 `|O` array its meaning (an object codec).
    pub(crate) object: bool,
    /// A strict-mode warning when a v3 pipeline names it `numcodecs.<id>` (a deprecated
    /// alias of a v3 codec).
    pub(crate) deprecated_in_v3: Option<&'static str>,
    /// How a v2 → v3 conversion writes it (numcodecs specs).
    pub(crate) v3_form: V3Form,
    /// Reads the configuration and builds the codec.
    pub(crate) configure: Configure,
}

/// How a numcodecs codec of a v2 array is written in a v3 pipeline (what zarr-python 3 reads).
#[derive(Clone, Copy)]
pub(crate) enum V3Form {
    /// `numcodecs.<id>` with the numcodecs configuration less `id`; with a warning when other
    /// readers may not implement it.
    Numcodecs(Option<&'static str>),
    /// The v3 codec of this name, without configuration (`vlen-utf8`).
    Named(&'static str),
    /// As a compressor, the v3 codec this function makes from the configuration and the
    /// element size; as a filter, `numcodecs.<id>`.
    Compressor(fn(&Map<String, Value>, u64) -> crate::document::named::NamedConfig),
    /// No v3 form: the array is not converted.
    None,
}

impl CodecSpec {
    /// A spec with the common defaults: a v3 codec, not fixed-size, not an object codec, that
    /// may change the element type.
    pub(crate) const fn v3(name: &'static str, kind: Kind, configure: Configure) -> CodecSpec {
        CodecSpec {
            name,
            aliases: &[],
            numcodecs: false,
            kind,
            fixed_size: false,
            object: false,
            deprecated_in_v3: None,
            v3_form: V3Form::Numcodecs(None),
            configure,
        }
    }

    /// A numcodecs spec with the common defaults.
    pub(crate) const fn numcodecs(id: &'static str, kind: Kind, configure: Configure) -> CodecSpec {
        CodecSpec {
            numcodecs: true,
            ..CodecSpec::v3(id, kind, configure)
        }
    }

    /// Reads `config` (`None`: no configuration) for a codec written as `written`, at `stage`:
    /// the problems found, and the codec when it could be built.
    pub(crate) fn read(
        &self,
        written: &str,
        config: Option<&Map<String, Value>>,
        stage: &mut Stage,
    ) -> (Vec<ConfigProblem>, Option<Built>) {
        let map = config.unwrap_or_else(|| crate::problem::config::empty_map());
        let mut cfg = Config::new(map, written, self.name, self.numcodecs);
        if written.starts_with(NUMCODECS_PREFIX) {
            if let Some(message) = self.deprecated_in_v3 {
                cfg.warn(message.to_string());
            }
        }
        let built = (self.configure)(&mut cfg, stage);
        (cfg.into_problems(), built)
    }

    /// The configuration members it defines.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> &'static [&'static str] {
        let empty = Map::new();
        let mut cfg = Config::new(&empty, self.name, self.name, self.numcodecs);
        (self.configure)(&mut cfg, &mut Stage::default());
        cfg.allowed()
    }
}

/// Builds the codec for the decoder: the first problem that stops decoding is the error
/// (`UnknownCodec` for what zom cannot decode, `InvalidMetadata` otherwise).
pub(crate) fn build(
    spec: &CodecSpec,
    written: &str,
    config: Option<&Map<String, Value>>,
    stage: &mut Stage,
) -> Result<Built> {
    let (problems, built) = spec.read(written, config, stage);
    for problem in &problems {
        match problem.effect {
            Effect::Fatal => return Err(bad_config(written, &problem.message)),
            Effect::Unsupported => return Err(unknown_codec(written, problem.message.clone())),
            Effect::Spec | Effect::Warning => {}
        }
    }
    built.ok_or_else(|| unknown_codec(written, "not supported"))
}

/// Known numcodecs codecs zom does not decode: their configurations are not checked.
fn not_decoded(cfg: &mut Config, _: &mut Stage) -> Option<Built> {
    cfg.unsupported(format!("{} is not supported", cfg.what()));
    None
}

const PICKLE: CodecSpec = CodecSpec {
    object: true,
    v3_form: V3Form::None,
    ..CodecSpec::numcodecs("pickle", Kind::ArrayToBytes, pickle)
};
const BASE64: CodecSpec = CodecSpec::numcodecs("base64", Kind::BytesToBytes, not_decoded);

fn pickle(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["protocol"]);
    cfg.int("protocol", -1, 5, crate::problem::config::Need::Spec);
    not_decoded(cfg, stage)
}

/// Every codec zom knows.
static ALL: &[&CodecSpec] = &[
    &super::bytes::BYTES,
    &super::transpose::TRANSPOSE,
    &super::reshape::RESHAPE,
    &super::compress::GZIP,
    &super::compress::ZSTD,
    &super::blosc::BLOSC,
    &super::checksum::CRC32C,
    &super::conditional::CONDITIONAL,
    &super::vlen::VLEN_UTF8,
    &super::vlen::VLEN_BYTES,
    &super::packbits::PACKBITS,
    &super::n5_default::N5_DEFAULT,
    &super::zfp::ZFP,
    &super::filters::BITROUND,
    &super::scale_offset::SCALE_OFFSET,
    &super::cast_value::CAST_VALUE,
    &super::sharding::SHARDING,
    // numcodecs ids
    &super::compress::NC_GZIP,
    &super::compress::NC_ZLIB,
    &super::compress::NC_BZ2,
    &super::compress::NC_ZSTD,
    &super::compress::NC_LZ4,
    &super::compress::NC_LZMA,
    &super::blosc::NC_BLOSC,
    &super::checksum::NC_CRC32,
    &super::checksum::NC_CRC32C,
    &super::checksum::NC_ADLER32,
    &super::checksum::NC_FLETCHER32,
    &super::checksum::NC_JENKINS_LOOKUP3,
    &super::shuffle::NC_SHUFFLE,
    &super::filters::NC_DELTA,
    &super::filters::NC_FIXEDSCALEOFFSET,
    &super::filters::NC_QUANTIZE,
    &super::filters::NC_ASTYPE,
    &super::filters::NC_BITROUND,
    &super::packbits::NC_PACKBITS,
    &super::vlen::NC_VLEN_UTF8,
    &super::vlen::NC_VLEN_BYTES,
    &super::vlen::NC_VLEN_ARRAY,
    &super::object::NC_JSON2,
    &super::object::NC_MSGPACK2,
    &PICKLE,
    &super::filters::NC_CATEGORIZE,
    &super::zfp::NC_ZFPY,
    &super::pcodec::NC_PCODEC,
    &BASE64,
];

/// Every codec zom knows, v3 names first.
pub(crate) fn all() -> &'static [&'static CodecSpec] {
    ALL
}

/// The codec a v3 `codecs` entry names: a v3 name or alias, or `numcodecs.<id>`.
pub(crate) fn v3(name: &str) -> Option<&'static CodecSpec> {
    ALL.iter()
        .copied()
        .find(|s| !s.numcodecs && (s.name == name || s.aliases.contains(&name)))
        .or_else(|| numcodecs(name.strip_prefix(NUMCODECS_PREFIX)?))
}

/// Every name a v3 `codecs` entry may give a codec zom knows: the v3 names and aliases, then
/// each numcodecs codec as `numcodecs.<id>`.
pub fn v3_names() -> Vec<String> {
    let v3 = ALL.iter().filter(|s| !s.numcodecs);
    let names = v3.flat_map(|s| std::iter::once(s.name).chain(s.aliases.iter().copied()));
    let numcodecs = ALL.iter().filter(|s| s.numcodecs);
    names
        .map(str::to_string)
        .chain(numcodecs.map(|s| format!("{NUMCODECS_PREFIX}{}", s.name)))
        .collect()
}

/// The numcodecs codec with this `id`.
pub(crate) fn numcodecs(id: &str) -> Option<&'static CodecSpec> {
    ALL.iter().copied().find(|s| s.numcodecs && s.name == id)
}
