//! numcodecs `pcodec`: one chunk of numbers in pco's standalone format (what the pcodec Python
//! package's `standalone.simple_compress` writes), decoded with the `pco` crate into the
//! little-endian values of the array's data type.

use pco::data_types::Number;
use pco::standalone::simple_decompress_into;

/// Decodes `input` into at most `max` bytes of `dtype` values (a v3 data type name).
pub(crate) fn decode(dtype: &str, input: &[u8], max: usize) -> Result<Vec<u8>, String> {
    match dtype {
        "uint8" => numbers::<u8>(input, max, |v, out| out.push(v)),
        "int8" => numbers::<i8>(input, max, |v, out| out.extend(v.to_le_bytes())),
        "uint16" => numbers::<u16>(input, max, |v, out| out.extend(v.to_le_bytes())),
        "int16" => numbers::<i16>(input, max, |v, out| out.extend(v.to_le_bytes())),
        "uint32" => numbers::<u32>(input, max, |v, out| out.extend(v.to_le_bytes())),
        "int32" => numbers::<i32>(input, max, |v, out| out.extend(v.to_le_bytes())),
        "uint64" => numbers::<u64>(input, max, |v, out| out.extend(v.to_le_bytes())),
        "int64" => numbers::<i64>(input, max, |v, out| out.extend(v.to_le_bytes())),
        "float16" => numbers::<half::f16>(input, max, |v, out| out.extend(v.to_le_bytes())),
        "float32" => numbers::<f32>(input, max, |v, out| out.extend(v.to_le_bytes())),
        "float64" => numbers::<f64>(input, max, |v, out| out.extend(v.to_le_bytes())),
        _ => Err(format!("pcodec does not encode {dtype} values")),
    }
}

/// Decodes the numbers of one standalone pco file into a buffer of exactly as many numbers as
/// `max` bytes hold: a file holding more is refused before they are decoded, one holding
/// fewer after.
fn numbers<T: Number>(
    input: &[u8],
    max: usize,
    put: fn(T, &mut Vec<u8>),
) -> Result<Vec<u8>, String> {
    let size = std::mem::size_of::<T>();
    let n = max / size;
    let mut values = vec![T::default(); n];
    let progress = simple_decompress_into(input, &mut values).map_err(|e| e.to_string())?;
    if !progress.finished {
        return Err(super::too_big(max, &format!("more than {n} values")));
    }
    let got = progress.n_processed;
    let mut out = Vec::with_capacity(got * size);
    for &v in values.get(..got).unwrap_or_default() {
        put(v, &mut out);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pco::standalone::simple_compress;
    use pco::ChunkConfig;

    #[test]
    fn decodes_what_pco_encodes_as_little_endian_values() {
        let values: Vec<f32> = (0..1000).map(|i| i as f32 * 0.25 - 7.0).collect();
        let encoded = simple_compress(&values, &ChunkConfig::default()).unwrap();
        let max = values.len() * 4;
        let out = decode("float32", &encoded, max).unwrap();
        let want: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(out, want);
        let ints: Vec<i16> = (-300..300).collect();
        let encoded = simple_compress(&ints, &ChunkConfig::default()).unwrap();
        let out = decode("int16", &encoded, ints.len() * 2).unwrap();
        assert_eq!(
            out,
            ints.iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>()
        );
    }

    #[test]
    fn refuses_more_values_than_the_chunk_holds_and_other_types() {
        let values: Vec<u32> = (0..5000).collect();
        let encoded = simple_compress(&values, &ChunkConfig::default()).unwrap();
        let e = decode("uint32", &encoded, 4999 * 4).unwrap_err();
        assert!(e.contains("more than the 19996 bytes"), "{e}");
        // Fewer values than the chunk holds: the caller's size check refuses the result.
        assert_eq!(
            decode("uint32", &encoded, 6000 * 4).unwrap().len(),
            5000 * 4
        );
        let e = decode("int32", &encoded, 5000 * 4).unwrap_err();
        assert!(e.contains("number type"), "{e}");
        assert!(decode("bool", &encoded, 10).is_err());
        assert!(decode("float64", b"pco!garbage", 80).is_err());
        assert!(decode("float64", b"", 80).is_err());
    }
}

#[cfg(test)]
mod hostile {
    use super::*;
    use pco::standalone::simple_compress;
    use pco::ChunkConfig;

    /// Every byte of a valid stream flipped in turn, and every truncation of it: errors or
    /// values, never a panic, never more than the bound.
    #[test]
    fn mutated_and_truncated_streams_never_panic() {
        let values: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.37).sin() * 1e3).collect();
        let config = ChunkConfig::default().with_paging_spec(pco::PagingSpec::EqualPagesUpTo(300));
        let encoded = simple_compress(&values, &config).unwrap();
        let max = values.len() * 8;
        for i in 0..encoded.len() {
            for bit in [0x01u8, 0x80] {
                let mut bad = encoded.clone();
                bad[i] ^= bit;
                if let Ok(out) = decode("float64", &bad, max) {
                    assert!(out.len() <= max);
                }
            }
            let _ = decode("float64", &encoded[..i], max);
        }
    }
}
