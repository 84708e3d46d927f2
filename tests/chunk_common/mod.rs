//! Helpers shared by the chunk tests: a seeded RNG and a brute-force reference of NumPy
//! basic indexing (CPython's slice semantics, cartesian products in C order).
#![allow(dead_code)]

use zom::chunk::DimSelection;

/// xorshift64*: small, seeded, good enough for choosing test cases.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    /// `None` one time in four, else a value in `lo..=hi`.
    pub fn opt(&mut self, lo: i64, hi: i64) -> Option<i64> {
        if self.below(4) == 0 {
            None
        } else {
            Some(self.range(lo, hi))
        }
    }
}

/// CPython's slice semantics, the plainest way.
pub fn slice_indices(
    len: i64,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Vec<u64> {
    let step = step.unwrap_or(1);
    let (lower, upper) = if step < 0 { (-1, len - 1) } else { (0, len) };
    let adjust = |v: Option<i64>, default: i64| match v {
        None => default,
        Some(v) if v < 0 => (v + len).max(lower),
        Some(v) => v.min(upper),
    };
    let start = adjust(start, if step < 0 { upper } else { lower });
    let stop = adjust(stop, if step < 0 { lower } else { upper });
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i as u64);
        i += step;
    }
    out
}

/// The reference: per dimension the indices visited in output order, whether it is kept,
/// and the output shape.
pub struct Reference {
    pub indices: Vec<Vec<u64>>,
    pub output_shape: Vec<u64>,
}

pub fn reference(shape: &[u64], sel: &[DimSelection]) -> Reference {
    let mut indices = Vec::new();
    let mut output_shape = Vec::new();
    for (d, &len) in shape.iter().enumerate() {
        match sel.get(d).copied().unwrap_or(DimSelection::All) {
            DimSelection::All => {
                indices.push((0..len).collect());
                output_shape.push(len);
            }
            DimSelection::Index(i) => {
                let i = if i < 0 { i + len as i64 } else { i };
                indices.push(vec![i as u64]);
            }
            DimSelection::Slice { start, stop, step } => {
                let v = slice_indices(len as i64, start, stop, step);
                output_shape.push(v.len() as u64);
                indices.push(v);
            }
        }
    }
    Reference {
        indices,
        output_shape,
    }
}

/// Every selected element's array coordinates, in output (C) order.
pub fn selected(r: &Reference) -> Vec<Vec<u64>> {
    let mut out = vec![vec![]];
    for list in &r.indices {
        let mut next = Vec::new();
        for prefix in &out {
            for &i in list {
                let mut p = prefix.clone();
                p.push(i);
                next.push(p);
            }
        }
        out = next;
    }
    out
}

pub fn ravel(idx: &[u64], shape: &[u64]) -> u64 {
    idx.iter().zip(shape).fold(0, |acc, (&i, &n)| acc * n + i)
}

pub fn unravel(mut i: u64, shape: &[u64]) -> Vec<u64> {
    let mut out = vec![0; shape.len()];
    for (o, &n) in out.iter_mut().zip(shape).rev() {
        *o = i % n;
        i /= n;
    }
    out
}
