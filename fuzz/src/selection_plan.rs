//! Target `selection_plan`: selections (integers, slices with any start/stop/step including
//! negative steps, whole dimensions) resolved against random shapes and planned over random
//! chunk grids, checked against a naive NumPy-semantics model.
//!
//! Input: rank, shape, chunk shape, inner (shard) chunk shape, the selection entries.
//!
//! Checks: `resolve` fails exactly when NumPy would (index out of bounds, zero step, too many
//! entries) and otherwise selects NumPy's indices; the JSON form reads back to the same
//! selection; when small enough, assembling the plan's chunk reads (and, nested, the inner
//! plans of each read, as for shards) gives exactly the naive gather, every output element is
//! written by a chunk, and no read touches a chunk's padding past the array's edge.

use super::input::Input;
use super::outcome::Outcome;
use serde_json::{json, Value};
use zom::chunk::{DimSelection, ReadPlan, Selection};

/// The most output elements / chunks the naive model is run for.
const SMALL: u64 = 4096;
/// Marks padding past the array's edge in the synthetic chunks.
const PAD: u64 = u64::MAX;

/// NumPy's indices of one dimension (`None`: an error), or only their count when they are
/// too many to list.
fn naive(sel: DimSelection, len: u64) -> Option<(u64, Vec<u64>)> {
    let n = i128::from(len);
    let (start, step, count) = match sel {
        DimSelection::All => (0, 1, n),
        DimSelection::Index(i) => {
            let i = if i < 0 {
                i128::from(i) + n
            } else {
                i128::from(i)
            };
            if i < 0 || i >= n {
                return None;
            }
            (i, 1, 1)
        }
        DimSelection::Slice { start, stop, step } => {
            let step = i128::from(step.unwrap_or(1));
            if step == 0 {
                return None;
            }
            let (lower, upper) = if step > 0 { (0, n) } else { (-1, n - 1) };
            let clamp = |v: Option<i64>, default: i128| match v {
                None => default,
                Some(v) => {
                    let v = i128::from(v);
                    if v < 0 {
                        (v + n).max(lower)
                    } else {
                        v.min(upper)
                    }
                }
            };
            let a = clamp(start, if step > 0 { lower } else { upper });
            let b = clamp(stop, if step > 0 { upper } else { lower });
            let count = if step > 0 && a < b {
                (b - a + step - 1) / step
            } else if step < 0 && a > b {
                (a - b - step - 1) / -step
            } else {
                0
            };
            (a, step, count)
        }
    };
    let count_u = u64::try_from(count).ok()?;
    let list = if count_u <= SMALL {
        (0..count).map(|k| (start + k * step) as u64).collect()
    } else {
        Vec::new()
    };
    Some((count_u, list))
}

fn dim_json(sel: &DimSelection) -> Value {
    match *sel {
        DimSelection::All => Value::Null,
        DimSelection::Index(i) => json!(i),
        DimSelection::Slice { start, stop, step } => {
            json!({"start": start, "stop": stop, "step": step})
        }
    }
}

/// C-order position of `index` in `shape`, wrapping (only a label).
fn label(shape: &[u64], index: &[u64]) -> u64 {
    index
        .iter()
        .zip(shape)
        .fold(0u64, |acc, (&i, &n)| acc.wrapping_mul(n).wrapping_add(i))
}

/// A chunk's elements (full chunk shape): the array label inside the array, PAD outside.
fn chunk_values(shape: &[u64], chunk: &[u64], origin: &[u64]) -> Vec<u64> {
    let n: u64 = chunk.iter().product();
    (0..n)
        .map(|k| {
            let mut rem = k;
            let mut global = vec![Some(0u64); chunk.len()];
            for d in (0..chunk.len()).rev() {
                global[d] = origin[d].checked_add(rem % chunk[d]);
                rem /= chunk[d];
            }
            if global
                .iter()
                .zip(shape)
                .all(|(g, n)| g.is_some_and(|g| g < *n))
            {
                let global: Vec<u64> = global.into_iter().flatten().collect();
                label(shape, &global)
            } else {
                PAD
            }
        })
        .collect()
}

/// The elements of a `sub`-shaped block at `origin` of a C-order `values` of `shape`,
/// PAD past its edge.
fn sub_block(values: &[u64], shape: &[u64], sub: &[u64], origin: &[u64]) -> Vec<u64> {
    let n: u64 = sub.iter().product();
    (0..n)
        .map(|k| {
            let mut rem = k;
            let mut at = vec![0u64; sub.len()];
            for d in (0..sub.len()).rev() {
                at[d] = origin[d] + rem % sub[d];
                rem /= sub[d];
            }
            if at.iter().zip(shape).all(|(a, n)| a < n) {
                values[label(shape, &at) as usize]
            } else {
                PAD
            }
        })
        .collect()
}

fn bytes_of(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Runs one input.
pub fn run(data: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let mut input = Input::new(data);
    let rank = input.below(5);
    let shape: Vec<u64> = (0..rank).map(|_| input.dim()).collect();
    let chunk: Vec<u64> = (0..rank).map(|_| input.dim()).collect();
    let inner: Vec<u64> = (0..rank).map(|_| 1 + u64::from(input.u8() % 5)).collect();
    let entries = input.below(rank + 2);
    let dims: Vec<DimSelection> = (0..entries)
        .map(|_| match input.u8() % 4 {
            0 => DimSelection::All,
            1 => DimSelection::Index(input.i64()),
            _ => {
                let flags = input.u8();
                let mut opt = |bit: u8| {
                    if flags & bit != 0 {
                        Some(input.i64())
                    } else {
                        None
                    }
                };
                DimSelection::Slice {
                    start: opt(1),
                    stop: opt(2),
                    step: opt(4),
                }
            }
        })
        .collect();
    let selection = Selection(dims.clone());

    let json_form = Value::Array(dims.iter().map(dim_json).collect());
    let back = Selection::from_json(&json_form).expect("a selection's JSON form reads");
    assert_eq!(back, selection, "selection JSON does not read back");

    let model: Option<Vec<(u64, Vec<u64>)>> = if dims.len() > rank {
        None
    } else {
        shape
            .iter()
            .enumerate()
            .map(|(d, &len)| naive(dims.get(d).copied().unwrap_or(DimSelection::All), len))
            .collect()
    };
    let resolved = selection.resolve(&shape);
    assert_eq!(
        resolved.is_ok(),
        model.is_some(),
        "resolve {resolved:?} vs NumPy {model:?}"
    );
    let Some(resolved) = out.step("resolve", resolved) else {
        return out;
    };
    let model = model.expect("checked above");
    for (axis, (count, list)) in resolved.axes.iter().zip(&model) {
        assert_eq!(axis.count, *count, "count of {axis:?}");
        for (k, &want) in list.iter().enumerate() {
            // The k-th NumPy index goes to output position k.
            let k = k as u64;
            let (pos, index) = if axis.reversed {
                (axis.count - 1 - k, axis.index(axis.count - 1 - k))
            } else {
                (k, axis.index(k))
            };
            assert_eq!(index, Some(want), "index {k} of {axis:?}");
            if !axis.dropped {
                assert_eq!(
                    axis.out_index(pos),
                    Some(k),
                    "output place of {k} in {axis:?}"
                );
            }
        }
    }

    let Some(plan) = out.step("plan", ReadPlan::new(&shape, &chunk, &resolved)) else {
        return out;
    };
    let output_len = out.step("output_len", plan.output_len());
    let num_chunks = out.step("num_chunks", plan.num_chunks());
    plan.chunk_ranges();
    let chunk_len = chunk.iter().try_fold(1u64, |a, &c| a.checked_mul(c));
    let (Some(output_len), Some(num_chunks), Some(chunk_len)) = (output_len, num_chunks, chunk_len)
    else {
        return out;
    };
    if output_len > SMALL || num_chunks > 256 || chunk_len > SMALL {
        // Too big for the model: walk a few chunks only.
        for read in plan.chunks().take(64) {
            out.step("chunk", read);
        }
        return out;
    }

    // The naive gather: the cartesian product of the per-dimension indices, in C order. An
    // empty dimension empties it; checked first, as the product of the dimensions before it
    // can be far larger than the (empty) output.
    let empty = model.iter().any(|(_, list)| list.is_empty());
    let mut expected = if empty { Vec::new() } else { vec![Vec::new()] };
    for (_, list) in model.iter().filter(|_| !empty) {
        expected = expected
            .into_iter()
            .flat_map(|prefix| {
                list.iter().map(move |&i| {
                    let mut p = prefix.clone();
                    p.push(i);
                    p
                })
            })
            .collect();
    }
    let expected: Vec<u64> = expected.iter().map(|idx| label(&shape, idx)).collect();
    assert_eq!(expected.len() as u64, output_len);

    let mut got = plan
        .allocate_output(8, SMALL * 8)
        .expect("a small output allocates");
    let mut got_elements = vec![PAD; output_len as usize];
    let mut filled = vec![0u8; output_len as usize];
    let mut nested = vec![PAD; output_len as usize];
    let mut count = 0u64;
    let mut previous: Option<Vec<u64>> = None;
    for read in plan.chunks() {
        let read = read.expect("a planned chunk");
        count += 1;
        if let Some(p) = &previous {
            assert!(p < &read.coords, "chunks not in C order");
        }
        previous = Some(read.coords.clone());
        let origin: Vec<u64> = read
            .coords
            .iter()
            .zip(&chunk)
            .map(|(c, n)| c.saturating_mul(*n))
            .collect();
        let values = chunk_values(&shape, &chunk, &origin);
        read.copy_into(&mut got, 8, &bytes_of(&values))
            .expect("copy_into");
        read.copy_elements_into(&mut got_elements, &values)
            .expect("copy_elements_into");
        read.fill_into(&mut filled, &[1]).expect("fill_into");
        // Shards: the same read through inner chunks of the outer chunk.
        let inner_plan = read.inner_plan(&inner).expect("an inner plan");
        for inner_read in inner_plan.chunks() {
            let inner_read = inner_read.expect("an inner chunk");
            let inner_origin: Vec<u64> = inner_read
                .coords
                .iter()
                .zip(&inner)
                .map(|(c, n)| c * n)
                .collect();
            let block = sub_block(&values, &chunk, &inner, &inner_origin);
            inner_read
                .copy_elements_into(&mut nested, &block)
                .expect("inner copy_elements_into");
        }
    }
    assert_eq!(count, num_chunks, "chunk count");
    let got: Vec<u64> = got
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(got, expected, "assembled output != naive gather");
    assert_eq!(got_elements, expected, "element assembly != naive gather");
    assert_eq!(
        nested, expected,
        "assembly through inner plans != naive gather"
    );
    assert!(
        filled.iter().all(|&f| f == 1),
        "fill_into left elements unwritten"
    );
    out
}
