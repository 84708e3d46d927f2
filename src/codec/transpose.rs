//! The `transpose` array → array codec, also used for v2 `order: "F"`.

use super::registry::{Built, CodecSpec, Kind, Stage};
use super::{bad_config, codec_error, ArrayToArrayCodec, ChunkRepr, DecodedChunk};
use crate::error::Result;
use crate::problem::check_array;
use crate::problem::config::{Config, Need};
use crate::problem::{LocStep, ProblemKind};
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
        decoding_built!();
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

/// `transpose`.
pub(crate) const TRANSPOSE: CodecSpec = CodecSpec::v3("transpose", Kind::ArrayToArray, configure);

fn configure(cfg: &mut Config, stage: &mut Stage) -> Option<Built> {
    cfg.allow(&["order"]);
    let value = cfg.required("order", Need::Decode)?;
    let order = match value {
        // Early zarr-python 3 releases wrote the orders as letters.
        Value::String(s) if s == "F" || s == "C" => {
            let bad = check_array(value, &cfg.label("order")).err();
            if let Some(bad) = bad {
                cfg.problem(key("order"), bad, Need::Spec);
            }
            // `None` reverses every dimension; an empty order keeps them.
            let order = if s == "F" {
                if let Some(shape) = stage.shape.as_mut() {
                    shape.reverse();
                }
                None
            } else {
                Some(Vec::new())
            };
            return Some(transpose(cfg.name, order));
        }
        _ => cfg.uint_list("order", 0, Need::Decode),
    };
    let Some(order) = order else {
        stage.shape = None;
        return None;
    };
    let rank = stage.shape.as_ref().map_or(order.len(), Vec::len);
    let mut seen = vec![false; rank];
    let mut ok = order.len() == rank;
    if !ok {
        let message = format!(
            "transpose 'order' has {} entries; the array has {rank} dimensions",
            order.len()
        );
        cfg.problem(
            key("order"),
            (ProblemKind::InvalidValue, message),
            Need::Decode,
        );
    }
    let mut axes = Vec::with_capacity(order.len());
    for (i, &axis) in order.iter().enumerate() {
        let at = vec![LocStep::Key("order".into()), LocStep::Index(i)];
        let index = usize::try_from(axis).ok();
        match index.and_then(|a| seen.get_mut(a)) {
            Some(s) if !*s => *s = true,
            Some(_) => {
                ok = false;
                let message = format!("transpose 'order' repeats axis {axis}");
                cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
            }
            None => {
                ok = false;
                let message = format!("transpose 'order' axis {axis} is not below the rank {rank}");
                cfg.problem(at, (ProblemKind::InvalidValue, message), Need::Decode);
            }
        }
        axes.extend(index);
    }
    stage.shape = match (&stage.shape, ok) {
        (Some(shape), true) => axes.iter().map(|&a| shape.get(a).copied()).collect(),
        _ => None,
    };
    ok.then(|| transpose(cfg.name, Some(axes)))
}

fn transpose(name: &str, order: Option<Vec<usize>>) -> Built {
    Built::ArrayToArray(Box::new(TransposeCodec {
        name: name.to_string(),
        order,
    }))
}

fn key(k: &str) -> Vec<LocStep> {
    vec![LocStep::Key(k.into())]
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
