//! zfp, decoded with the `zfp-rs` crate (bit-for-bit the C library's format) into the
//! little-endian values of the array's data type, in two forms:
//!
//! - numcodecs `zfpy` (`numcodecs.zfpy` in v3): the stream starts with zfp's full header
//!   (magic, field metadata, mode), as the zfpy package's `compress_numpy` writes it; the
//!   variant is the array's data type, which the header's scalar type must be.
//! - the zarr-extensions `zfp` codec: no header; the variant carries the data type, the mode
//!   and the chunk's zfp field, `"<dtype>;<mode>;<nx>,<ny>,<nz>,<nw>"` (see [`variant`]).
//!   8- and 16-bit integers are stored promoted to `int32`, unsigned 32- and 64-bit ones
//!   clamped to the signed type (the zfp utility functions; as zarrs writes them).

use zfp_rs::{
    ZfpBitStream, ZfpConfig, ZfpDimensionality, ZfpFieldMut, ZfpHeaderMask, ZfpScalar,
    ZfpScalarType, ZfpStreamAlignment,
};

/// The data types zfpy writes and the zfp scalar type each is, as v3 names.
fn zfpy_type(dtype: &str) -> Option<ZfpScalarType> {
    Some(match dtype {
        "int32" => ZfpScalarType::I32,
        "int64" => ZfpScalarType::I64,
        "float32" => ZfpScalarType::F32,
        "float64" => ZfpScalarType::F64,
        _ => return None,
    })
}

/// The zfp scalar type the zarr-extensions codec stores `dtype` as (numpy's datetime64 and
/// timedelta64 as their `int64` counts, as zarrs writes them).
fn zfp_type(dtype: &str) -> Option<ZfpScalarType> {
    Some(match dtype {
        "int8" | "uint8" | "int16" | "uint16" | "uint32" => ZfpScalarType::I32,
        "uint64" | "numpy.datetime64" | "numpy.timedelta64" => ZfpScalarType::I64,
        _ => return zfpy_type(dtype),
    })
}

/// Builds the variant of the zarr-extensions `zfp` codec: `mode` is `reversible`,
/// `rate:<r>`, `precision:<p>`, `accuracy:<t>` or `expert:<minbits>,<maxbits>,<maxprec>,<minexp>`,
/// where a rate or tolerance is its `f64`'s bits (`f64::to_bits`, as an integer: exact, and
/// no float formatting in the reader);
/// `dims` the zfp field, `[nx, ny, nz, nw]` (unused ones 0).
pub fn variant(dtype: &str, mode: &str, dims: [u64; 4]) -> String {
    let [x, y, z, w] = dims;
    format!("{dtype};{mode};{x},{y},{z},{w}")
}

/// Decodes a numcodecs `zfpy` stream (with zfp's header) of `dtype` values into at most `max`
/// bytes.
pub(crate) fn decode_zfpy(dtype: &str, input: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let ty = zfpy_type(dtype).ok_or_else(|| format!("zfpy does not encode {dtype} values"))?;
    let mut bs = ZfpBitStream::from_bytes(input).map_err(|e| e.to_string())?;
    let header = bs
        .read_header(ZfpHeaderMask::FULL)
        .map_err(|e| e.to_string())?;
    let (Some(meta), Some(config)) = (header.metadata, header.config) else {
        return Err("the zfp header has no field or mode".into());
    };
    if meta.scalar_type != ty {
        return Err(format!(
            "the stream holds {} values, not {dtype}",
            type_name(meta.scalar_type)
        ));
    }
    decode_field(&mut bs, input.len(), &config, ty, meta.dims, max)
}

/// Decodes a headerless zarr-extensions `zfp` stream as `variant` says into at most `max` bytes.
pub(crate) fn decode_zfp(variant: &str, input: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let bad = || format!("not a zfp variant: '{variant}'");
    let mut parts = variant.split(';');
    let (Some(dtype), Some(mode), Some(dims), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    let ty = zfp_type(dtype).ok_or_else(|| format!("zfp does not encode {dtype} values"))?;
    let mut field = [0usize; 4];
    let mut count = 0;
    for (slot, d) in field.iter_mut().zip(dims.split(',')) {
        *slot = d.parse().map_err(|_| bad())?;
        count += 1;
    }
    if count != 4 || dims.split(',').count() != 4 {
        return Err(bad());
    }
    let config = mode_config(mode, ty).ok_or_else(bad)??;
    let mut bs = ZfpBitStream::from_bytes(input).map_err(|e| e.to_string())?;
    let values = decode_field(
        &mut bs,
        input.len(),
        &config,
        ty,
        field,
        max_values(dtype, ty, max),
    )?;
    Ok(demote(dtype, values))
}

/// The bytes of the zfp scalars behind `max` bytes of `dtype` values.
fn max_values(dtype: &str, ty: ZfpScalarType, max: usize) -> usize {
    let size = dtype_size(dtype);
    (max / size).saturating_mul(scalar_size(ty))
}

/// The mode of a variant as a configuration; `None` when it is not one.
fn mode_config(mode: &str, ty: ZfpScalarType) -> Option<Result<ZfpConfig, String>> {
    let (name, args) = mode.split_once(':').unwrap_or((mode, ""));
    Some(match name {
        "reversible" if args.is_empty() => Ok(ZfpConfig::reversible()),
        "precision" => Ok(ZfpConfig::fixed_precision(args.parse().ok()?)),
        "accuracy" => {
            let tolerance = f64::from_bits(args.parse().ok()?);
            if matches!(ty, ZfpScalarType::I32 | ZfpScalarType::I64) {
                return Some(Err(
                    "fixed_accuracy mode is for floating-point values".into()
                ));
            }
            Ok(ZfpConfig::fixed_accuracy(tolerance))
        }
        // zarrs, the codec's writer, sets the rate for 3-D blocks whatever the chunk's rank.
        "rate" => ZfpConfig::fixed_rate(
            f64::from_bits(args.parse().ok()?),
            ty,
            ZfpDimensionality::D3,
            ZfpStreamAlignment::Unaligned,
        )
        .map_err(|e| e.to_string()),
        "expert" => {
            let mut p = args.split(',');
            let (Some(a), Some(b), Some(c), Some(d), None) =
                (p.next(), p.next(), p.next(), p.next(), p.next())
            else {
                return None;
            };
            let (a, b, c, d) = (
                a.parse().ok()?,
                b.parse().ok()?,
                c.parse().ok()?,
                d.parse().ok()?,
            );
            ZfpConfig::expert(a, b, c, d).map_err(|e| e.to_string())
        }
        _ => return None,
    })
}

/// Decodes the field `dims` (`[nx, ny, nz, nw]`) of `ty` scalars from `bs` (a stream of
/// `len` bytes), refusing a field
/// of more than `max` bytes before allocating it; the scalars' little-endian bytes.
fn decode_field(
    bs: &mut ZfpBitStream,
    len: usize,
    config: &ZfpConfig,
    ty: ZfpScalarType,
    dims: [usize; 4],
    max: usize,
) -> Result<Vec<u8>, String> {
    let mut n: usize = 1;
    for &d in dims.iter().filter(|&&d| d > 0) {
        n = n.saturating_mul(d);
    }
    let bytes = n.saturating_mul(scalar_size(ty));
    if bytes > max {
        return Err(super::too_big(max, &format!("a field of {n} values")));
    }
    match ty {
        ZfpScalarType::I32 => scalars::<i32>(bs, len, config, dims, n),
        ZfpScalarType::I64 => scalars::<i64>(bs, len, config, dims, n),
        ZfpScalarType::F32 => scalars::<f32>(bs, len, config, dims, n),
        ZfpScalarType::F64 => scalars::<f64>(bs, len, config, dims, n),
    }
}

/// Decodes `n` scalars of type `T` from `bs` (`len` bytes) into their little-endian bytes (zfp-rs, like zfp's
/// stream, is for little-endian hosts: wasm32 and the platforms zom is tested on).
fn scalars<T: ZfpScalar>(
    bs: &mut ZfpBitStream,
    len: usize,
    config: &ZfpConfig,
    dims: [usize; 4],
    n: usize,
) -> Result<Vec<u8>, String> {
    let mut values = vec![T::default(); n];
    let mut field = ZfpFieldMut::new(&mut values, dims).map_err(|e| e.to_string())?;
    let used = bs
        .decompress(config, &mut field)
        .map_err(|e| e.to_string())?;
    // zfp-rs reads a trailing partial word as if zero-padded; zfp's writers flush whole
    // words, so a stream read past its last byte is a truncated one.
    if used > len {
        return Err(format!(
            "the stream is truncated: decoding read {used} of its {len} bytes"
        ));
    }
    Ok(bytemuck::cast_slice::<T, u8>(&values).to_vec())
}

/// The size of one scalar of `ty`.
fn scalar_size(ty: ZfpScalarType) -> usize {
    match ty {
        ZfpScalarType::I32 | ZfpScalarType::F32 => 4,
        ZfpScalarType::I64 | ZfpScalarType::F64 => 8,
    }
}

/// The size of one value of `dtype` (one of [`zfp_type`]'s).
fn dtype_size(dtype: &str) -> usize {
    match dtype {
        "int8" | "uint8" => 1,
        "int16" | "uint16" => 2,
        "int32" | "uint32" | "float32" => 4,
        _ => 8,
    }
}

/// The name of a zfp scalar type as a v3 data type.
fn type_name(ty: ZfpScalarType) -> &'static str {
    match ty {
        ZfpScalarType::I32 => "int32",
        ZfpScalarType::I64 => "int64",
        ZfpScalarType::F32 => "float32",
        ZfpScalarType::F64 => "float64",
    }
}

/// The values of `dtype` that the decoded scalars (little-endian bytes) stand for: zfp's
/// demotion of 8- and 16-bit integers from `int32`, unsigned ones clamped at 0.
fn demote(dtype: &str, scalars: Vec<u8>) -> Vec<u8> {
    let i32s = || {
        scalars
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    match dtype {
        "int8" => i32s()
            .map(|i| (i >> 23).clamp(-0x80, 0x7f) as i8 as u8)
            .collect(),
        "uint8" => i32s()
            .map(|i| ((i >> 23) + 0x80).clamp(0, 0xff) as u8)
            .collect(),
        "int16" => i32s()
            .flat_map(|i| ((i >> 15).clamp(-0x8000, 0x7fff) as i16).to_le_bytes())
            .collect(),
        "uint16" => i32s()
            .flat_map(|i| (((i >> 15) + 0x8000).clamp(0, 0xffff) as u16).to_le_bytes())
            .collect(),
        "uint32" => i32s()
            .flat_map(|i| (i.max(0) as u32).to_le_bytes())
            .collect(),
        "uint64" => scalars
            .chunks_exact(8)
            .flat_map(|b| {
                let mut w = [0u8; 8];
                w.copy_from_slice(b);
                (i64::from_le_bytes(w).max(0) as u64).to_le_bytes()
            })
            .collect(),
        _ => scalars,
    }
}

#[cfg(test)]
#[path = "../zfp_streams.rs"]
mod streams;

#[cfg(test)]
mod tests {
    use super::*;

    use super::streams::compress as encode;

    fn le<T: bytemuck::Pod>(values: &[T]) -> Vec<u8> {
        bytemuck::cast_slice(values).to_vec()
    }

    #[test]
    fn zfpy_streams_decode_from_their_header() {
        let values: Vec<f64> = (0..60).map(|i| (i as f64 * 0.3).sin()).collect();
        let stream = encode(&values, [5, 4, 3, 0], &ZfpConfig::reversible(), true);
        assert_eq!(decode_zfpy("float64", &stream, 480).unwrap(), le(&values));
        let e = decode_zfpy("float32", &stream, 480).unwrap_err();
        assert!(e.contains("holds float64 values"), "{e}");
        let e = decode_zfpy("float64", &stream, 479).unwrap_err();
        assert!(e.contains("more than the 479 bytes"), "{e}");
        assert!(decode_zfpy("float64", b"zfp", 480).is_err());
        assert!(decode_zfpy("uint8", &stream, 480).is_err());
    }

    #[test]
    fn headerless_streams_decode_in_every_mode_and_rank() {
        let values: Vec<f32> = (0..96).map(|i| i as f32 * 0.5 - 3.0).collect();
        let accuracy = format!("accuracy:{}", 0.05f64.to_bits());
        let rate = format!("rate:{}", 10.5f64.to_bits());
        let cases: [(&str, ZfpConfig); 5] = [
            ("reversible", ZfpConfig::reversible()),
            ("precision:19", ZfpConfig::fixed_precision(19)),
            (&accuracy, ZfpConfig::fixed_accuracy(0.05)),
            (
                &rate,
                ZfpConfig::fixed_rate(
                    10.5,
                    ZfpScalarType::F32,
                    ZfpDimensionality::D3,
                    ZfpStreamAlignment::Unaligned,
                )
                .unwrap(),
            ),
            (
                "expert:1,13,19,-2",
                ZfpConfig::expert(1, 13, 19, -2).unwrap(),
            ),
        ];
        for dims in [[96, 0, 0, 0], [12, 8, 0, 0], [4, 4, 6, 0], [2, 4, 3, 4]] {
            for (mode, config) in &cases {
                let stream = encode(&values, dims, config, false);
                let mut want = vec![0f32; 96];
                let mut field = ZfpFieldMut::new(&mut want, dims).unwrap();
                let mut bs = ZfpBitStream::from_bytes(&stream).unwrap();
                bs.decompress(config, &mut field).unwrap();
                let d = dims.map(|d| d as u64);
                let got = decode_zfp(&variant("float32", mode, d), &stream, 384).unwrap();
                assert_eq!(got, le(&want), "{mode} {dims:?}");
                if *mode == "reversible" {
                    assert_eq!(got, le(&values));
                }
            }
        }
    }

    #[test]
    fn small_integers_are_promoted_and_demoted_as_zfp_does() {
        let u16s: Vec<u16> = (0..64).map(|i| i * 1000).collect();
        let promoted: Vec<i32> = u16s
            .iter()
            .map(|&u| (i32::from(u) - 0x8000) << 15)
            .collect();
        let stream = encode(&promoted, [8, 8, 0, 0], &ZfpConfig::reversible(), false);
        let v = variant("uint16", "reversible", [8, 8, 0, 0]);
        assert_eq!(decode_zfp(&v, &stream, 128).unwrap(), le(&u16s));
        let e = decode_zfp(&v, &stream, 126).unwrap_err();
        assert!(e.contains("more than"), "{e}");
        // numpy's datetime64 and timedelta64 are their int64 counts.
        let seconds: Vec<i64> = (0..16).map(|i| 1_700_000_000 + i * 3_600).collect();
        let stream = encode(&seconds, [16, 0, 0, 0], &ZfpConfig::reversible(), false);
        for dtype in ["numpy.datetime64", "numpy.timedelta64"] {
            let v = variant(dtype, "reversible", [16, 0, 0, 0]);
            assert_eq!(
                decode_zfp(&v, &stream, 128).unwrap(),
                le(&seconds),
                "{dtype}"
            );
        }
        let e = decode_zfp(
            &variant(
                "int32",
                &format!("accuracy:{}", 0.5f64.to_bits()),
                [8, 8, 0, 0],
            ),
            &stream,
            256,
        );
        assert!(e.unwrap_err().contains("floating-point"));
        for bad in [
            "int32;reversible;8,8",
            "int32;fancy;8,8,0,0",
            "bool;reversible;1,0,0,0",
        ] {
            assert!(decode_zfp(bad, &stream, 256).is_err(), "{bad}");
        }
    }
}

#[cfg(test)]
mod hostile {
    use super::streams::compress as encode;
    use super::*;

    /// Every bit of a valid stream flipped in turn, and every
    /// truncation of it: errors or values, never a panic, never more than the bound.
    #[test]
    fn mutated_and_truncated_streams_never_panic() {
        let values: Vec<f64> = (0..200).map(|i| (i as f64 * 0.37).sin() * 1e3).collect();
        let dims = [10, 5, 4, 0];
        let max = 1600;
        let with = encode(&values, dims, &ZfpConfig::fixed_accuracy(1e-3), true);
        let without = encode(&values, dims, &ZfpConfig::fixed_precision(20), false);
        let v = variant("float64", "precision:20", [10, 5, 4, 0]);
        for (stream, zfpy) in [(with, true), (without, false)] {
            let run = |bytes: &[u8]| {
                let out = if zfpy {
                    decode_zfpy("float64", bytes, max)
                } else {
                    decode_zfp(&v, bytes, max)
                };
                if let Ok(out) = out {
                    assert!(out.len() <= max);
                }
            };
            for i in 0..stream.len() {
                for bit in 0..8 {
                    let mut bad = stream.clone();
                    bad[i] ^= 1u8 << bit;
                    run(&bad);
                }
                run(&stream[..i]);
            }
        }
    }
}
