//! DEFLATE streams (RFC 1951) in their containers: zlib (RFC 1950, v3 and numcodecs `zlib`,
//! blosc's zlib blocks), gzip (RFC 1952, v3 and numcodecs `gzip`; members one after another,
//! zero padding after the last) and none (zip members), inflated by zlib-rs through flate2.

use flate2::{Decompress, FlushDecompress, Status};

/// Which container: `"zlib"`, `"gzip"` or `"raw"` (the part's variant).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wrapper {
    Zlib,
    Gzip,
    Raw,
}

fn new_inflater(wrapper: Wrapper) -> Decompress {
    match wrapper {
        Wrapper::Zlib => Decompress::new(true),
        Wrapper::Gzip => Decompress::new_gzip(15),
        Wrapper::Raw => Decompress::new(false),
    }
}

/// Whether another gzip member follows a stream that ended before `rest`: anything but zero
/// padding.
fn member_follows(wrapper: Wrapper, rest: &[u8]) -> bool {
    wrapper == Wrapper::Gzip && rest.iter().any(|&b| b != 0)
}

/// Inflates `input` in the container `variant` (`"gzip"`, `"zlib"`, `"raw"`) into a vector
/// that grows with the output, up to `max` bytes; the error is a message without the codec's
/// name.
pub fn inflate(variant: &str, input: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let wrapper = match variant {
        "zlib" => Wrapper::Zlib,
        "gzip" => Wrapper::Gzip,
        "raw" => Wrapper::Raw,
        _ => return Err(format!("no deflate container named '{variant}'")),
    };
    let too_big = |got: usize| crate::too_big(max, &format!("at least {got}"));
    let mut d = new_inflater(wrapper);
    let first = input.len().saturating_mul(4).clamp(4096, 1 << 22);
    let mut out: Vec<u8> = Vec::with_capacity(first.min(max.saturating_add(1)));
    let mut pos_in = 0usize;
    loop {
        if out.len() == out.capacity() {
            if out.len() > max {
                return Err(too_big(out.len()));
            }
            let room = max.saturating_add(1).saturating_sub(out.len());
            out.reserve(out.capacity().max(4096).min(room).max(1));
        }
        let rest_in = input.get(pos_in..).unwrap_or_default();
        let (in0, out0) = (d.total_in(), out.len());
        let status = d
            .decompress_vec(rest_in, &mut out, FlushDecompress::Finish)
            .map_err(|e| e.to_string())?;
        let used_in = usize::try_from(d.total_in().saturating_sub(in0)).unwrap_or(usize::MAX);
        pos_in = pos_in.saturating_add(used_in);
        if out.len() > max {
            return Err(too_big(out.len()));
        }
        match status {
            Status::StreamEnd => {
                if member_follows(wrapper, input.get(pos_in..).unwrap_or_default()) {
                    d = new_inflater(wrapper);
                    continue;
                }
                return Ok(out);
            }
            Status::Ok | Status::BufError => {
                if used_in == 0 && out.len() == out0 && out.len() < out.capacity() {
                    return Err("the stream is truncated".into());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::inflate;
    use flate2::write::{GzEncoder, ZlibEncoder};
    use flate2::Compression;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn gzip_members_follow_one_another_and_zero_padding_is_ignored() {
        let mut two = gzip(b"hello ");
        two.extend(gzip(b"world"));
        two.extend([0u8; 8]);
        assert_eq!(inflate("gzip", &two, 100).unwrap(), b"hello world");
    }

    #[test]
    fn more_than_max_is_refused_and_truncation_named() {
        let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
        e.write_all(&[7u8; 10_000]).unwrap();
        let z = e.finish().unwrap();
        assert_eq!(inflate("zlib", &z, 10_000).unwrap(), vec![7u8; 10_000]);
        let e = inflate("zlib", &z, 9_999).unwrap_err();
        assert!(
            e.starts_with("the data decodes to more than the 9999 bytes"),
            "{e}"
        );
        let e = inflate("zlib", &z[..z.len() / 2], 10_000).unwrap_err();
        assert_eq!(e, "the stream is truncated");
        assert!(inflate("gzip", b"not gzip", 10).is_err());
        assert!(inflate("zip", b"", 10).is_err());
    }
}
