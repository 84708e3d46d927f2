//! zfp streams for the tests: `values` compressed by zfp-rs (bit for bit the C library's
//! format), shared by the zfp part's tests and the root crate's `tests/codec_zfp.rs`.

use zfp_rs::{ZfpBitStream, ZfpConfig, ZfpField, ZfpHeaderMask, ZfpScalar};

/// A zfp stream of `values` in the field `dims`, with zfp's full header when `header`.
pub fn compress<T: ZfpScalar>(
    values: &[T],
    dims: [usize; 4],
    config: &ZfpConfig,
    header: bool,
) -> Vec<u8> {
    let field = ZfpField::new(values, dims).unwrap();
    let ty = field.scalar_type();
    let mut bs = ZfpBitStream::new(config.maximum_size(ty, dims).unwrap() + 64).unwrap();
    if header {
        bs.write_header(config, &field.metadata(), ZfpHeaderMask::FULL)
            .unwrap();
    }
    bs.compress(config, &field).unwrap();
    bs.into_bytes().unwrap()
}
