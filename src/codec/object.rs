//! numcodecs' `json2` and `msgpack2` object codecs (v2 `|O` arrays of any values).
//!
//! numcodecs encodes a chunk as one list: the chunk's items (`ndarray.tolist()`, so nested
//! one level per dimension beyond the first), then the dtype string and the shape. Decoding
//! takes the items, flattened in C order as far as the shape says, and checks their count.

use super::registry::{Built, CodecSpec, Kind, Stage, V3Form};
use super::{codec_error, ArrayToBytesCodec, ChunkRepr, DecodedChunk, Limits, SizeBound};
use crate::dtype::ObjectFormat;
use crate::error::Result;
use crate::limits::MAX_JSON_DEPTH;
use crate::problem::config::Config;
use serde_json::Value;

/// A `json2` or `msgpack2` codec.
#[derive(Debug)]
pub(crate) struct ObjectCodec {
    format: ObjectFormat,
}

impl ObjectCodec {
    /// The codec for `format`.
    pub(crate) fn new(format: ObjectFormat) -> Self {
        ObjectCodec { format }
    }

    /// The whole encoded list.
    fn parse(&self, input: &[u8]) -> Result<Value> {
        let who = self.format.id();
        match self.format {
            ObjectFormat::Json => {
                if let Some(depth) = zom_json::depth_over(input, MAX_JSON_DEPTH) {
                    return Err(codec_error(format!("{who}: the values nest {depth} deep")));
                }
                zom_json::text::parse(input).map_err(|e| codec_error(format!("{who}: {e}")))
            }
            ObjectFormat::MsgPack => {
                let mut reader = MsgPack { input, at: 0 };
                let value = reader
                    .value(0)
                    .map_err(|why| codec_error(format!("{who}: {why}")))?;
                if reader.at != input.len() {
                    return Err(codec_error(format!("{who}: bytes after the list")));
                }
                Ok(value)
            }
        }
    }
}

/// A MessagePack reader into JSON values: what numcodecs' `MsgPack` writes (nil, booleans,
/// integers, floats, strings, arrays, maps with string keys). Binary and extension types have
/// no JSON value and are refused. Hand-written rather than rmp-serde: that crate, with
/// serde_json's `Value` deserialised through it, made the module much larger (docs/size.md).
struct MsgPack<'a> {
    input: &'a [u8],
    at: usize,
}

impl MsgPack<'_> {
    fn take(&mut self, n: usize) -> std::result::Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.input.len());
        let end = end.ok_or_else(|| "the data is truncated".to_string())?;
        let bytes = self.input.get(self.at..end).unwrap_or_default();
        self.at = end;
        Ok(bytes)
    }

    fn uint(&mut self, n: usize) -> std::result::Result<u64, String> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    /// A length of `width` bytes (at most 2^32 - 1).
    fn length(&mut self, width: usize) -> std::result::Result<usize, String> {
        Ok(usize::try_from(self.uint(width)?).unwrap_or(usize::MAX))
    }

    fn value(&mut self, depth: u64) -> std::result::Result<Value, String> {
        if depth > MAX_JSON_DEPTH {
            return Err(format!("the values nest deeper than {MAX_JSON_DEPTH}"));
        }
        let tag = self.uint(1)? as u8;
        Ok(match tag {
            0x00..=0x7f => Value::from(tag),
            0x80..=0x8f => self.map(usize::from(tag & 0x0f), depth)?,
            0x90..=0x9f => self.array(usize::from(tag & 0x0f), depth)?,
            0xa0..=0xbf => self.string(usize::from(tag & 0x1f))?,
            0xc0 => Value::Null,
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xca => Value::from(f64::from(f32::from_bits(self.uint(4)? as u32))),
            0xcb => Value::from(f64::from_bits(self.uint(8)?)),
            0xcc => Value::from(self.uint(1)?),
            0xcd => Value::from(self.uint(2)?),
            0xce => Value::from(self.uint(4)?),
            0xcf => Value::from(self.uint(8)?),
            0xd0 => Value::from(self.uint(1)? as u8 as i8),
            0xd1 => Value::from(self.uint(2)? as u16 as i16),
            0xd2 => Value::from(self.uint(4)? as u32 as i32),
            0xd3 => Value::from(self.uint(8)? as i64),
            // str8/16/32, array16/32, map16/32: a big-endian length of 1, 2 or 4 bytes.
            0xd9..=0xdb => {
                let n = self.length(1 << (tag - 0xd9))?;
                self.string(n)?
            }
            0xdc | 0xdd => {
                let n = self.length(if tag == 0xdc { 2 } else { 4 })?;
                self.array(n, depth)?
            }
            0xde | 0xdf => {
                let n = self.length(if tag == 0xde { 2 } else { 4 })?;
                self.map(n, depth)?
            }
            0xe0..=0xff => Value::from(tag as i8),
            0xc4..=0xc9 | 0xd4..=0xd8 => {
                return Err("binary and extension values have no JSON value".into())
            }
            0xc1 => return Err("0xc1 is not a MessagePack value".into()),
        })
    }

    fn string(&mut self, n: usize) -> std::result::Result<Value, String> {
        let bytes = self.take(n)?;
        std::str::from_utf8(bytes)
            .map(|s| Value::String(s.to_string()))
            .map_err(|_| "a string is not UTF-8".to_string())
    }

    fn array(&mut self, n: usize, depth: u64) -> std::result::Result<Value, String> {
        // Every item takes at least a byte: no more room than the input can fill.
        let mut items = Vec::with_capacity(n.min(self.input.len().saturating_sub(self.at)));
        for _ in 0..n {
            items.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(items))
    }

    fn map(&mut self, n: usize, depth: u64) -> std::result::Result<Value, String> {
        let mut map = serde_json::Map::new();
        for _ in 0..n {
            let Value::String(key) = self.value(depth + 1)? else {
                return Err("a map key is not a string".into());
            };
            map.insert(key, self.value(depth + 1)?);
        }
        Ok(Value::Object(map))
    }
}

/// The items of a chunk of rank `rank`: `items` flattened `rank - 1` levels, in C order.
fn flatten(items: Vec<Value>, rank: usize, out: &mut Vec<Value>, who: &str) -> Result<()> {
    if rank <= 1 {
        out.extend(items);
        return Ok(());
    }
    for item in items {
        match item {
            Value::Array(inner) => flatten(inner, rank - 1, out, who)?,
            _ => {
                return Err(codec_error(format!(
                    "{who}: the values do not nest as the chunk's shape"
                )))
            }
        }
    }
    Ok(())
}

impl ArrayToBytesCodec for ObjectCodec {
    fn name(&self) -> &str {
        self.format.id()
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    #[cfg(feature = "encode")]
    fn encode(&self, input: &DecodedChunk, decoded: &ChunkRepr) -> Result<Vec<u8>> {
        let who = self.format.id();
        let DecodedChunk::Json(values) = input else {
            return Err(codec_error(format!("{who} encodes JSON values")));
        };
        // numcodecs' list: the items nested per dimension (as `tolist()` gives them), then
        // the dtype string and the shape.
        let mut list = match nest(values, &decoded.shape)? {
            Value::Array(items) => items,
            other => vec![other],
        };
        list.push(Value::from("|O"));
        list.push(Value::from(decoded.shape.clone()));
        let list = Value::Array(list);
        Ok(match self.format {
            ObjectFormat::Json => {
                serde_json::to_vec(&list).map_err(|e| codec_error(format!("{who}: {e}")))?
            }
            ObjectFormat::MsgPack => {
                let mut out = Vec::new();
                write_msgpack(&list, &mut out);
                out
            }
        })
    }

    fn encoded_size(&self, _decoded: &ChunkRepr, limits: &Limits) -> Result<SizeBound> {
        Ok(SizeBound::AtMost(limits.max_chunk_bytes))
    }

    fn decode(&self, input: &[u8], decoded: &ChunkRepr, _limits: &Limits) -> Result<DecodedChunk> {
        decoding_built!();
        let who = self.format.id();
        let Value::Array(mut list) = self.parse(input)? else {
            return Err(codec_error(format!("{who}: the chunk is not a list")));
        };
        // The last two entries: the dtype string and the chunk's shape.
        if list.len() < 2 {
            return Err(codec_error(format!(
                "{who}: the list has no dtype and shape"
            )));
        }
        list.truncate(list.len() - 2);
        let n = usize::try_from(decoded.num_elements()?).unwrap_or(usize::MAX);
        let mut items = Vec::with_capacity(n.min(list.len()));
        flatten(list, decoded.shape.len(), &mut items, who)?;
        if items.len() != n {
            return Err(codec_error(format!(
                "{who}: decoded to {} values, but the chunk holds {n}",
                items.len()
            )));
        }
        Ok(DecodedChunk::Json(items))
    }
}

/// `values` (C order) as nested lists of `shape` (one level for rank 0 and 1).
#[cfg(feature = "encode")]
fn nest(values: &[Value], shape: &[u64]) -> Result<Value> {
    match shape {
        [] | [_] => Ok(Value::Array(values.to_vec())),
        [first, rest @ ..] => {
            let n = usize::try_from(*first).map_err(|_| codec_error("a chunk too large"))?;
            let per = values.len().checked_div(n).unwrap_or(0);
            if per.checked_mul(n) != Some(values.len()) {
                return Err(codec_error("the values do not fill the chunk's shape"));
            }
            let rows = (0..n)
                .map(|i| nest(values.get(i * per..(i + 1) * per).unwrap_or_default(), rest))
                .collect::<Result<Vec<_>>>()?;
            Ok(Value::Array(rows))
        }
    }
}

/// Writes `value` as MessagePack (the smallest form of each integer and length).
#[cfg(feature = "encode")]
fn write_msgpack(value: &Value, out: &mut Vec<u8>) {
    fn head(out: &mut Vec<u8>, n: usize, fix: u8, fix_max: usize, tags: [u8; 3]) {
        if n <= fix_max {
            out.push(fix | n as u8);
        } else if tags[0] != 0 && n <= 0xff {
            out.extend([tags[0], n as u8]);
        } else if n <= 0xffff {
            out.push(tags[1]);
            out.extend((n as u16).to_be_bytes());
        } else {
            out.push(tags[2]);
            out.extend((n as u32).to_be_bytes());
        }
    }
    match value {
        Value::Null => out.push(0xc0),
        Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.push(0xcf);
                out.extend(u.to_be_bytes());
            } else if let Some(i) = n.as_i64() {
                out.push(0xd3);
                out.extend(i.to_be_bytes());
            } else {
                out.push(0xcb);
                out.extend(n.as_f64().unwrap_or(f64::NAN).to_be_bytes());
            }
        }
        Value::String(s) => {
            head(out, s.len(), 0xa0, 31, [0xd9, 0xda, 0xdb]);
            out.extend(s.as_bytes());
        }
        Value::Array(items) => {
            head(out, items.len(), 0x90, 15, [0, 0xdc, 0xdd]);
            for item in items {
                write_msgpack(item, out);
            }
        }
        Value::Object(map) => {
            head(out, map.len(), 0x80, 15, [0, 0xde, 0xdf]);
            for (k, v) in map {
                write_msgpack(&Value::String(k.clone()), out);
                write_msgpack(v, out);
            }
        }
    }
}

/// numcodecs `json2`, a v2 object codec.
pub(crate) const NC_JSON2: CodecSpec = CodecSpec {
    object: true,
    v3_form: V3Form::None,
    ..CodecSpec::numcodecs("json2", Kind::ArrayToBytes, json2)
};

/// numcodecs `msgpack2`, a v2 object codec.
pub(crate) const NC_MSGPACK2: CodecSpec = CodecSpec {
    object: true,
    v3_form: V3Form::None,
    ..CodecSpec::numcodecs("msgpack2", Kind::ArrayToBytes, msgpack2)
};

// numcodecs writes its encoder's settings (`encoding`, `skipkeys`, `use_bin_type`, …) into
// the configuration; none of them changes how a chunk decodes, so none is checked.
fn json2(_: &mut Config, _: &mut Stage) -> Option<Built> {
    Some(Built::ArrayToBytes(Box::new(ObjectCodec::new(
        ObjectFormat::Json,
    ))))
}

fn msgpack2(_: &mut Config, _: &mut Stage) -> Option<Built> {
    Some(Built::ArrayToBytes(Box::new(ObjectCodec::new(
        ObjectFormat::MsgPack,
    ))))
}
