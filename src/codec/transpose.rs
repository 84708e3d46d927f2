//! The `transpose` array → array codec, also used for v2 `order: "F"`.

use super::{bad_config, codec_error, ArrayToArrayCodec, ChunkRepr, DecodedChunk};
use crate::error::Result;
use serde_json::Value;

/// Permutes the dimensions of a chunk: the encoded array's dimension `i` is the decoded
/// array's dimension `order[i]`.
#[derive(Clone, Debug)]
pub(crate) struct TransposeCodec {
    name: String,
    /// `None` stands for "reverse all dimensions" (v2 order F, v3 legacy `"F"`).
    order: Option<Vec<usize>>,
}

impl TransposeCodec {
    /// Reads the v3 configuration (`order`: a permutation, or the legacy `"C"` / `"F"`).
    pub(crate) fn from_config(name: &str, order: Option<&Value>) -> Result<TransposeCodec> {
        let order = match order {
            Some(Value::String(s)) if s == "F" => None,
            Some(Value::String(s)) if s == "C" => Some(Vec::new()),
            Some(Value::Array(items)) => {
                let mut order = Vec::with_capacity(items.len());
                for item in items {
                    let axis = item
                        .as_u64()
                        .and_then(|a| usize::try_from(a).ok())
                        .ok_or_else(|| bad_config(name, "order must list dimension indices"))?;
                    order.push(axis);
                }
                Some(order)
            }
            _ => return Err(bad_config(name, "order must be an array of integers")),
        };
        Ok(TransposeCodec {
            name: name.to_string(),
            order,
        })
    }

    /// The codec that reverses all dimensions (Fortran order).
    pub(crate) fn fortran() -> TransposeCodec {
        TransposeCodec {
            name: "order F".to_string(),
            order: None,
        }
    }

    /// The permutation for `ndim` dimensions, checked.
    fn permutation(&self, ndim: usize) -> Result<Vec<usize>> {
        let order = match &self.order {
            None => (0..ndim).rev().collect(),
            Some(o) if o.is_empty() => (0..ndim).collect(),
            Some(o) => o.clone(),
        };
        let mut seen = vec![false; ndim];
        if order.len() != ndim {
            return Err(bad_config(
                &self.name,
                format!("order has {} entries for {ndim} dimensions", order.len()),
            ));
        }
        for &axis in &order {
            match seen.get_mut(axis) {
                Some(s) if !*s => *s = true,
                _ => return Err(bad_config(&self.name, "order is not a permutation")),
            }
        }
        Ok(order)
    }
}

impl ArrayToArrayCodec for TransposeCodec {
    fn name(&self) -> &str {
        &self.name
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> Result<ChunkRepr> {
        let order = self.permutation(decoded.shape.len())?;
        let shape = order
            .iter()
            .map(|&axis| decoded.shape.get(axis).copied().unwrap_or(0))
            .collect();
        Ok(ChunkRepr::new(shape, decoded.data_type.clone()))
    }

    fn decode(&self, input: DecodedChunk, decoded: &ChunkRepr) -> Result<DecodedChunk> {
        let (order, dshape, eshape) = self.shapes(decoded)?;
        if order.iter().enumerate().all(|(i, &a)| i == a) || dshape.len() < 2 {
            return Ok(input);
        }
        // The input (encoded) stride of each decoded dimension.
        let estrides = c_strides(&eshape)?;
        let mut in_strides = vec![0usize; dshape.len()];
        for (i, &axis) in order.iter().enumerate() {
            if let (Some(slot), Some(&s)) = (in_strides.get_mut(axis), estrides.get(i)) {
                *slot = s;
            }
        }
        permute(input, &dshape, &in_strides)
    }

    #[cfg(feature = "encode")]
    fn encode(&self, input: DecodedChunk, decoded: &ChunkRepr) -> Result<DecodedChunk> {
        let (order, dshape, eshape) = self.shapes(decoded)?;
        if order.iter().enumerate().all(|(i, &a)| i == a) || dshape.len() < 2 {
            return Ok(input);
        }
        // Encoded dimension i walks decoded dimension order[i].
        let dstrides = c_strides(&dshape)?;
        let in_strides: Vec<usize> = order
            .iter()
            .map(|&axis| dstrides.get(axis).copied().unwrap_or(0))
            .collect();
        permute(input, &eshape, &in_strides)
    }
}

impl TransposeCodec {
    /// The permutation, the decoded shape and the encoded shape.
    fn shapes(&self, decoded: &ChunkRepr) -> Result<(Vec<usize>, Vec<usize>, Vec<usize>)> {
        let order = self.permutation(decoded.shape.len())?;
        let dshape = crate::codec::sharding::dims(&decoded.shape)?;
        let eshape = order
            .iter()
            .map(|&a| dshape.get(a).copied().unwrap_or(0))
            .collect();
        Ok((order, dshape, eshape))
    }
}

/// C-order strides, in elements, of an array of `shape`.
fn c_strides(shape: &[usize]) -> Result<Vec<usize>> {
    let mut strides = vec![0usize; shape.len()];
    let mut acc = 1usize;
    for (stride, &d) in strides.iter_mut().zip(shape).rev() {
        *stride = acc;
        acc = acc
            .checked_mul(d)
            .ok_or_else(|| codec_error("the chunk is too large"))?;
    }
    Ok(strides)
}

/// The elements of `input` in the C order of an output of `shape`, whose element at each
/// index is the input's at the dot product of that index and `strides`.
fn permute(input: DecodedChunk, shape: &[usize], strides: &[usize]) -> Result<DecodedChunk> {
    let n = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| codec_error("the chunk is too large"))?;
    match input {
        DecodedChunk::Fixed(bytes) => {
            let item = bytes.len().checked_div(n).unwrap_or(0);
            if item.checked_mul(n) != Some(bytes.len()) {
                return Err(codec_error(
                    "transpose: the chunk size does not fit its shape",
                ));
            }
            let mut out = Vec::with_capacity(bytes.len());
            if !zom_kernels::gather(&bytes, item, shape, strides, &mut out) {
                return Err(codec_error("element index out of range"));
            }
            Ok(DecodedChunk::Fixed(out))
        }
        DecodedChunk::Strings(items) => Ok(DecodedChunk::Strings(reorder(items, shape, strides)?)),
        DecodedChunk::Bytes(items) => Ok(DecodedChunk::Bytes(reorder(items, shape, strides)?)),
        DecodedChunk::Json(items) => Ok(DecodedChunk::Json(reorder(items, shape, strides)?)),
    }
}

/// Variable-length elements moved into output C order (see [`permute`]).
fn reorder<T: Default>(mut items: Vec<T>, shape: &[usize], strides: &[usize]) -> Result<Vec<T>> {
    let mut out = Vec::with_capacity(items.len());
    for_each_source(shape, strides, |src| {
        out.push(std::mem::take(items.get_mut(src)?));
        Some(())
    })?;
    Ok(out)
}

/// Calls `f` with the source element index of each output element, in output C order.
/// `f` returns `None` when the index is out of range.
pub(crate) fn for_each_source(
    shape: &[usize],
    strides: &[usize],
    mut f: impl FnMut(usize) -> Option<()>,
) -> Result<()> {
    let out_of_range = || codec_error("element index out of range");
    if shape.contains(&0) {
        return Ok(());
    }
    let ndim = shape.len();
    let (Some(&last_len), Some(&last_stride)) = (shape.last(), strides.last()) else {
        return f(0).ok_or_else(out_of_range);
    };
    let mut index = vec![0usize; ndim];
    let mut base = 0usize;
    loop {
        let mut src = base;
        for _ in 0..last_len {
            f(src).ok_or_else(out_of_range)?;
            src = src.wrapping_add(last_stride);
        }
        // Advance the odometer over all dimensions but the last.
        let mut dim = ndim.saturating_sub(1);
        loop {
            if dim == 0 {
                return Ok(());
            }
            dim -= 1;
            let (Some(i), Some(&len), Some(&stride)) =
                (index.get_mut(dim), shape.get(dim), strides.get(dim))
            else {
                return Err(out_of_range());
            };
            *i += 1;
            base = base.wrapping_add(stride);
            if *i < len {
                break;
            }
            *i = 0;
            base = base.wrapping_sub(stride.wrapping_mul(len));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_length_elements_move_into_c_order() {
        // A 2×3 block stored in F order: element (r, c) is at r + 2c.
        let (shape, strides) = ([2, 3], [1, 2]);
        let strings = ["a", "b", "c", "d", "e", "f"].map(String::from).to_vec();
        let got = permute(DecodedChunk::Strings(strings), &shape, &strides).unwrap();
        let want = ["a", "c", "e", "b", "d", "f"].map(String::from).to_vec();
        assert_eq!(got, DecodedChunk::Strings(want));
        let bytes = (0u8..6).map(|b| vec![b; usize::from(b)]).collect();
        let got = permute(DecodedChunk::Bytes(bytes), &shape, &strides).unwrap();
        let want = [0u8, 2, 4, 1, 3, 5]
            .map(|b| vec![b; usize::from(b)])
            .to_vec();
        assert_eq!(got, DecodedChunk::Bytes(want));
        // An index outside the elements is an error, not a panic.
        let short = DecodedChunk::Strings(vec![String::new(); 5]);
        assert!(permute(short, &shape, &strides).is_err());
    }
}
