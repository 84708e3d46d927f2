//! Read plans and assembly against a brute-force reference: random shapes, chunk shapes and
//! selections (seeded RNG), synthetic chunks whose elements are their global index, missing
//! chunks, variable-length elements, shards (inner plans), limits, hostile plans, and whole
//! reads of the uncompressed fixtures.

use std::collections::BTreeSet;
use zom::chunk::{
    ArrayLayout, AxisSelection, ChunkRead, DimSelection, ReadPlan, ResolvedSelection, Selection,
};
use zom::ErrorCode;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    fn opt(&mut self, lo: i64, hi: i64) -> Option<i64> {
        if self.below(4) == 0 {
            None
        } else {
            Some(self.range(lo, hi))
        }
    }
}

/// CPython's slice semantics, the plainest way.
fn slice_indices(len: i64, start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> Vec<u64> {
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
struct Reference {
    indices: Vec<Vec<u64>>,
    output_shape: Vec<u64>,
}

fn reference(shape: &[u64], sel: &[DimSelection]) -> Reference {
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
fn selected(r: &Reference) -> Vec<Vec<u64>> {
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

fn ravel(idx: &[u64], shape: &[u64]) -> u64 {
    idx.iter().zip(shape).fold(0, |acc, (&i, &n)| acc * n + i)
}

fn unravel(mut i: u64, shape: &[u64]) -> Vec<u64> {
    let mut out = vec![0; shape.len()];
    for (o, &n) in out.iter_mut().zip(shape).rev() {
        *o = i % n;
        i /= n;
    }
    out
}

fn value(global: u64, item_size: usize) -> Vec<u8> {
    (global + 1).to_le_bytes()[..item_size].to_vec()
}

const POISON: u8 = 0xFF;

fn fill(item_size: usize) -> Vec<u8> {
    (0..item_size).map(|i| 0xF0 + i as u8).collect()
}

/// A chunk as a decoder would return it: full chunk shape, each element its global index,
/// POISON where the chunk overhangs the array.
fn synthetic_chunk(
    shape: &[u64],
    chunk_shape: &[u64],
    coords: &[u64],
    item_size: usize,
) -> Vec<u8> {
    let n: u64 = chunk_shape.iter().product();
    let mut out = Vec::with_capacity(n as usize * item_size);
    for l in 0..n {
        let local = unravel(l, chunk_shape);
        let global: Vec<u64> = local
            .iter()
            .zip(coords.iter().zip(chunk_shape))
            .map(|(l, (c, cs))| c * cs + l)
            .collect();
        if global.iter().zip(shape).all(|(g, n)| g < n) {
            out.extend(value(ravel(&global, shape), item_size));
        } else {
            out.extend(vec![POISON; item_size]);
        }
    }
    out
}

fn is_missing(coords: &[u64], seed: u64) -> bool {
    let h = coords
        .iter()
        .fold(seed, |h, &c| (h ^ c).wrapping_mul(0x100_0000_01b3));
    h % 3 == 0
}

fn random_case(rng: &mut Rng) -> (Vec<u64>, Vec<u64>, Vec<DimSelection>) {
    let rank = rng.below(5) as usize;
    let shape: Vec<u64> = (0..rank)
        .map(|_| {
            if rng.below(12) == 0 {
                0
            } else {
                rng.below(8) + 1
            }
        })
        .collect();
    let chunks: Vec<u64> = shape.iter().map(|&n| rng.below(n + 2) + 1).collect();
    let entries = if rng.below(3) == 0 {
        rank
    } else {
        rng.below(rank as u64 + 1) as usize
    };
    let sel = shape
        .iter()
        .take(entries)
        .map(|&n| {
            let n = n as i64;
            match rng.below(4) {
                0 => DimSelection::All,
                1 if n > 0 => DimSelection::Index(rng.range(-n, n - 1)),
                _ => {
                    let mut step = rng.opt(-4, 4);
                    if step == Some(0) {
                        step = Some(1);
                    }
                    DimSelection::slice(rng.opt(-n - 2, n + 2), rng.opt(-n - 2, n + 2), step)
                }
            }
        })
        .collect();
    (shape, chunks, sel)
}

fn chunk_of(idx: &[u64], chunks: &[u64]) -> Vec<u64> {
    idx.iter().zip(chunks).map(|(i, c)| i / c).collect()
}

#[test]
fn random_reads_equal_the_brute_force_reference() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut nonempty = 0;
    for case in 0..3000 {
        let (shape, chunks, sel) = random_case(&mut rng);
        let item_size = [1usize, 2, 3, 4, 8][rng.below(5) as usize];
        let seed = rng.next();
        let what = format!("case {case}: shape {shape:?} chunks {chunks:?} sel {sel:?}");
        let r = reference(&shape, &sel);
        let resolved = Selection::new(sel.clone()).resolve(&shape).unwrap();
        assert_eq!(resolved.output_shape, r.output_shape, "{what}");
        let plan = ReadPlan::new(&shape, &chunks, &resolved).unwrap();
        assert_eq!(plan.output_shape(), &r.output_shape[..], "{what}");
        let elements = selected(&r);
        assert_eq!(plan.output_len().unwrap(), elements.len() as u64, "{what}");

        // The chunks: exactly those holding a selected element, in C order, once each.
        let wanted: BTreeSet<Vec<u64>> = elements.iter().map(|e| chunk_of(e, &chunks)).collect();
        let reads: Vec<ChunkRead> = plan.chunks().map(Result::unwrap).collect();
        let got: Vec<Vec<u64>> = reads.iter().map(|c| c.coords.clone()).collect();
        assert_eq!(got, wanted.iter().cloned().collect::<Vec<_>>(), "{what}");
        assert_eq!(plan.num_chunks().unwrap(), reads.len() as u64, "{what}");
        if let Some(ranges) = plan.chunk_ranges() {
            for c in &got {
                for (x, (lo, hi)) in c.iter().zip(&ranges) {
                    assert!(lo <= x && x <= hi, "{what}");
                }
            }
        } else {
            assert!(got.is_empty());
        }

        // Assembly with missing chunks filled.
        let mut out = plan.allocate_output(item_size as u64, 1 << 30).unwrap();
        for read in &reads {
            if is_missing(&read.coords, seed) {
                read.fill_into(&mut out, &fill(item_size)).unwrap();
            } else {
                let decoded = synthetic_chunk(&shape, &chunks, &read.coords, item_size);
                read.copy_into(&mut out, item_size as u64, &decoded)
                    .unwrap();
                if let Some(range) = read.direct_output_range(item_size as u64) {
                    assert_eq!(&out[range], &decoded[..], "{what}");
                }
            }
        }
        let mut expected = Vec::new();
        for e in &elements {
            if is_missing(&chunk_of(e, &chunks), seed) {
                expected.extend(fill(item_size));
            } else {
                expected.extend(value(ravel(e, &shape), item_size));
            }
        }
        assert_eq!(out, expected, "{what}");
        if !elements.is_empty() {
            nonempty += 1;
        }
    }
    assert!(nonempty > 1500, "{nonempty}");
}

#[test]
fn variable_length_elements_use_the_same_plan() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for case in 0..1500 {
        let (shape, chunks, sel) = random_case(&mut rng);
        let seed = rng.next();
        let what = format!("case {case}: shape {shape:?} chunks {chunks:?} sel {sel:?}");
        let r = reference(&shape, &sel);
        let plan = ReadPlan::new(
            &shape,
            &chunks,
            &Selection::new(sel).resolve(&shape).unwrap(),
        )
        .unwrap();
        let mut out = plan.allocate_elements(String::new(), 1 << 20).unwrap();
        for read in plan.chunks().map(Result::unwrap) {
            if is_missing(&read.coords, seed) {
                read.fill_elements_into(&mut out, &"fill".to_string())
                    .unwrap();
                continue;
            }
            let n: u64 = chunks.iter().product();
            let decoded: Vec<String> = (0..n)
                .map(|l| {
                    let g: Vec<u64> = unravel(l, &chunks)
                        .iter()
                        .zip(read.coords.iter().zip(&chunks))
                        .map(|(l, (c, cs))| c * cs + l)
                        .collect();
                    if g.iter().zip(&shape).all(|(g, n)| g < n) {
                        format!("{g:?}")
                    } else {
                        "poison".into()
                    }
                })
                .collect();
            read.copy_elements_into(&mut out, &decoded).unwrap();
        }
        let expected: Vec<String> = selected(&r)
            .iter()
            .map(|e| {
                if is_missing(&chunk_of(e, &chunks), seed) {
                    "fill".into()
                } else {
                    format!("{e:?}")
                }
            })
            .collect();
        assert_eq!(out, expected, "{what}");
    }
}

#[test]
fn shards_read_through_inner_plans() {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for case in 0..1500 {
        let (shape, shards, sel) = random_case(&mut rng);
        // Inner chunks usually divide the shard (sharding requires it); sometimes not, which
        // the planner handles too.
        let inner: Vec<u64> = shards
            .iter()
            .map(|&s| {
                let divisors: Vec<u64> = (1..=s).filter(|d| s % d == 0).collect();
                if rng.below(4) == 0 {
                    rng.below(s) + 1
                } else {
                    divisors[rng.below(divisors.len() as u64) as usize]
                }
            })
            .collect();
        let item_size = 4usize;
        let seed = rng.next();
        let what =
            format!("case {case}: shape {shape:?} shards {shards:?} inner {inner:?} sel {sel:?}");
        let r = reference(&shape, &sel);
        let plan = ReadPlan::new(
            &shape,
            &shards,
            &Selection::new(sel).resolve(&shape).unwrap(),
        )
        .unwrap();
        let mut out = plan.allocate_output(item_size as u64, 1 << 30).unwrap();
        for shard in plan.chunks().map(Result::unwrap) {
            let inner_plan = shard.inner_plan(&inner).unwrap();
            assert_eq!(inner_plan.output_shape(), plan.output_shape());
            for read in inner_plan.chunks().map(Result::unwrap) {
                // Global position of the inner chunk: shard origin + inner origin.
                let origin: Vec<u64> = shard
                    .coords
                    .iter()
                    .zip(&shards)
                    .zip(read.coords.iter().zip(&inner))
                    .map(|((s, ss), (c, cs))| s * ss + c * cs)
                    .collect();
                if is_missing(&origin, seed) {
                    read.fill_into(&mut out, &fill(item_size)).unwrap();
                    continue;
                }
                let n: u64 = inner.iter().product();
                let mut decoded = Vec::new();
                for l in 0..n {
                    let local = unravel(l, &inner);
                    let within_shard = local
                        .iter()
                        .zip(read.coords.iter().zip(&inner))
                        .map(|(l, (c, cs))| c * cs + l)
                        .zip(&shards)
                        .all(|(x, s)| x < *s);
                    let g: Vec<u64> = local.iter().zip(&origin).map(|(l, o)| l + o).collect();
                    if within_shard && g.iter().zip(&shape).all(|(g, n)| g < n) {
                        decoded.extend(value(ravel(&g, &shape), item_size));
                    } else {
                        decoded.extend([POISON; 4]);
                    }
                }
                read.copy_into(&mut out, item_size as u64, &decoded)
                    .unwrap();
            }
        }
        let mut expected = Vec::new();
        for e in selected(&r) {
            // The inner chunk origin of element e.
            let origin: Vec<u64> = e
                .iter()
                .zip(shards.iter().zip(&inner))
                .map(|(x, (ss, cs))| (x / ss) * ss + ((x % ss) / cs) * cs)
                .collect();
            if is_missing(&origin, seed) {
                expected.extend(fill(item_size));
            } else {
                expected.extend(value(ravel(&e, &shape), item_size));
            }
        }
        assert_eq!(out, expected, "{what}");
    }
}

fn runs_of(shape: &[u64], chunks: &[u64]) -> Vec<Option<std::ops::Range<usize>>> {
    let plan = ReadPlan::new(shape, chunks, &ResolvedSelection::all(shape)).unwrap();
    plan.chunks()
        .map(|c| c.unwrap().direct_output_range(4))
        .collect()
}

#[test]
fn whole_row_chunks_are_one_block_of_the_output() {
    // Chunks spanning whole rows: each chunk is one contiguous block.
    assert_eq!(
        runs_of(&[6, 4], &[2, 4]),
        vec![Some(0..32), Some(32..64), Some(64..96)]
    );
    assert_eq!(
        runs_of(&[2, 3, 4], &[1, 3, 4]),
        vec![Some(0..48), Some(48..96)]
    );
    // Edge chunks and column splits are not.
    assert_eq!(runs_of(&[5, 4], &[2, 4])[2], None);
    assert_eq!(runs_of(&[4, 4], &[2, 2]), vec![None; 4]);
    // 0-d: the one element.
    assert_eq!(runs_of(&[], &[]), vec![Some(0..4)]);
}

#[test]
fn zero_dimensional_arrays() {
    let resolved = Selection::all().resolve(&[]).unwrap();
    let plan = ReadPlan::new(&[], &[], &resolved).unwrap();
    assert_eq!(plan.output_shape(), &[] as &[u64]);
    assert_eq!(plan.output_len().unwrap(), 1);
    let reads: Vec<_> = plan.chunks().map(Result::unwrap).collect();
    assert_eq!(reads.len(), 1);
    assert!(reads[0].coords.is_empty() && reads[0].is_whole_chunk());
    let mut out = plan.allocate_output(8, 8).unwrap();
    reads[0]
        .copy_into(&mut out, 8, &42u64.to_le_bytes())
        .unwrap();
    assert_eq!(out, 42u64.to_le_bytes());
    reads[0].fill_into(&mut out, &7u64.to_le_bytes()).unwrap();
    assert_eq!(out, 7u64.to_le_bytes());
    let mut strings = plan.allocate_elements(String::new(), 1).unwrap();
    reads[0]
        .copy_elements_into(&mut strings, &["x".to_string()])
        .unwrap();
    assert_eq!(strings, ["x"]);
}

#[test]
fn zero_length_dimensions_read_nothing() {
    let shape = [3, 0, 4];
    let plan = ReadPlan::new(
        &shape,
        &[2, 2, 2],
        &Selection::all().resolve(&shape).unwrap(),
    )
    .unwrap();
    assert_eq!(plan.output_shape(), &[3, 0, 4]);
    assert_eq!(plan.num_chunks().unwrap(), 0);
    assert_eq!(plan.chunks().count(), 0);
    assert!(plan.chunk_ranges().is_none());
    assert_eq!(plan.allocate_output(4, 0).unwrap(), Vec::<u8>::new());
    // An empty slice of a non-empty array reads nothing either.
    let sel = Selection::new(vec![DimSelection::slice(Some(2), Some(1), None)]);
    let plan = ReadPlan::new(&[5], &[2], &sel.resolve(&[5]).unwrap()).unwrap();
    assert_eq!(plan.output_shape(), &[0]);
    assert_eq!(plan.chunks().count(), 0);
    let e = Selection::new(vec![DimSelection::All, DimSelection::Index(0)])
        .resolve(&shape)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidSelection);
}

#[test]
fn limits_are_enforced_before_allocating() {
    let shape = [1000, 1000];
    let plan = ReadPlan::new(&shape, &[10, 10], &ResolvedSelection::all(&shape)).unwrap();
    assert_eq!(plan.allocate_output(8, 8_000_000).unwrap().len(), 8_000_000);
    let e = plan.allocate_output(8, 7_999_999).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded);
    assert!(
        e.message.contains("8000000") && e.message.contains("7999999"),
        "{e}"
    );
    let e = plan.allocate_elements(String::new(), 999_999).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded);
    // Sizes beyond u64 or memory: errors, not panics or aborts.
    let huge = [u64::MAX, u64::MAX];
    let plan = ReadPlan::new(&huge, &[1 << 40, 1 << 40], &ResolvedSelection::all(&huge)).unwrap();
    assert_eq!(
        plan.output_len().unwrap_err().code,
        ErrorCode::LimitExceeded
    );
    assert_eq!(
        plan.allocate_output(1, u64::MAX).unwrap_err().code,
        ErrorCode::LimitExceeded
    );
    assert_eq!(plan.num_chunks().unwrap(), (1u64 << 24) * (1 << 24));
    let one = [u64::MAX / 2];
    let plan = ReadPlan::new(&one, &[1], &ResolvedSelection::all(&one)).unwrap();
    assert_eq!(
        plan.allocate_output(4, u64::MAX).unwrap_err().code,
        ErrorCode::LimitExceeded
    );
    assert_eq!(
        plan.allocate_elements(0u8, u64::MAX).unwrap_err().code,
        ErrorCode::LimitExceeded
    );
    // The lazy iterator does not materialise 2^63 chunks.
    assert_eq!(
        plan.chunks()
            .take(3)
            .map(|c| c.unwrap().coords[0])
            .collect::<Vec<_>>(),
        [0, 1, 2]
    );
    // Keyed chunk lists are bounded too.
    let meta = serde_json::json!({
        "shape": [100, 100], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, 1]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "bytes"}], "zarr_format": 3, "node_type": "array"
    });
    let layout = ArrayLayout::from_v3(&serde_json::from_value(meta).unwrap(), "a").unwrap();
    let plan = layout.plan(&Selection::all()).unwrap();
    let e = layout.planned_chunks(&plan, 9_999).unwrap_err();
    assert_eq!(e.code, ErrorCode::LimitExceeded);
    assert_eq!(e.path.as_deref(), Some("a"));
    let planned = layout.planned_chunks(&plan, 10_000).unwrap();
    assert_eq!(planned.len(), 10_000);
    assert_eq!(planned[101].key, "a/c/1/1");
}

#[test]
fn wrong_buffers_are_errors() {
    let shape = [6, 5];
    let plan = ReadPlan::new(&shape, &[4, 3], &ResolvedSelection::all(&shape)).unwrap();
    let read = plan.chunks().next().unwrap().unwrap();
    let mut out = plan.allocate_output(4, 1 << 20).unwrap();
    let e = read.copy_into(&mut out, 4, &[0; 47]).unwrap_err();
    assert_eq!(e.code, ErrorCode::CodecError);
    assert!(e.message.contains("47") && e.message.contains("48"), "{e}");
    let e = read.copy_into(&mut out[..116], 4, &[0; 48]).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    let e = read.copy_into(&mut out[..119], 4, &[0; 48]).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(
        read.fill_into(&mut out, &[0; 3]).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        read.fill_into(&mut out, &[]).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    let mut strings = vec![String::new(); 29];
    let e = read
        .fill_elements_into(&mut strings, &String::new())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    let mut strings = vec![String::new(); 30];
    let e = read
        .copy_elements_into(&mut strings, &vec![String::new(); 11])
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::CodecError);
}

#[test]
fn inconsistent_plans_are_refused() {
    let axis = |start, step, count| AxisSelection {
        start,
        step,
        count,
        out_start: 0,
        reversed: false,
        dropped: false,
    };
    let sel = |axes: Vec<AxisSelection>, out: Vec<u64>| ResolvedSelection {
        axes,
        output_shape: out,
    };
    for (shape, chunks, s) in [
        (vec![5], vec![2], sel(vec![axis(0, 1, 6)], vec![6])), // beyond the array
        (vec![5], vec![2], sel(vec![axis(0, 0, 2)], vec![2])), // step 0
        (vec![5], vec![2], sel(vec![axis(0, 1, 5)], vec![4])), // output too small
        (vec![5], vec![2], sel(vec![axis(0, 1, 5)], vec![])),  // output rank
        (vec![5], vec![2], sel(vec![axis(0, 1, 5)], vec![5, 1])),
        (vec![5, 5], vec![2, 2], sel(vec![axis(0, 1, 5)], vec![5])),
        (vec![5], vec![0], sel(vec![axis(0, 1, 5)], vec![5])),
        (
            vec![u64::MAX],
            vec![2],
            sel(vec![axis(u64::MAX - 1, u64::MAX, 2)], vec![2]),
        ),
        (
            vec![5],
            vec![2],
            sel(
                vec![AxisSelection {
                    reversed: true,
                    out_start: 3,
                    ..axis(0, 1, 5)
                }],
                vec![5],
            ),
        ),
        (
            vec![5],
            vec![2],
            sel(
                vec![AxisSelection {
                    dropped: true,
                    ..axis(0, 1, 2)
                }],
                vec![],
            ),
        ),
    ] {
        let e = ReadPlan::new(&shape, &chunks, &s).unwrap_err();
        assert!(
            matches!(
                e.code,
                ErrorCode::InvalidSelection | ErrorCode::InvalidMetadata | ErrorCode::LimitExceeded
            ),
            "{shape:?} {s:?}: {e}"
        );
    }
    // Hand-made chunk reads that do not fit their chunk or output.
    let read = ChunkRead {
        coords: vec![0],
        chunk_shape: vec![2],
        selection: sel(vec![axis(1, 1, 2)], vec![2]),
    };
    let mut out = vec![0u8; 2];
    assert_eq!(
        read.copy_into(&mut out, 1, &[1, 2]).unwrap_err().code,
        ErrorCode::InvalidSelection
    );
    let read = ChunkRead {
        coords: vec![0],
        chunk_shape: vec![2],
        selection: sel(
            vec![AxisSelection {
                out_start: 1,
                ..axis(0, 1, 2)
            }],
            vec![2],
        ),
    };
    assert_eq!(
        read.copy_into(&mut out, 1, &[1, 2]).unwrap_err().code,
        ErrorCode::InvalidSelection
    );
    assert_eq!(
        read.fill_into(&mut out, &[1]).unwrap_err().code,
        ErrorCode::InvalidSelection
    );
    assert_eq!(read.direct_output_range(1), None);
}

#[test]
fn random_hostile_plans_never_panic() {
    let mut rng = Rng(0x5555_aaaa_5555_aaaa);
    let pick = |rng: &mut Rng| -> u64 {
        match rng.below(6) {
            0 => 0,
            1 => u64::MAX - rng.below(3),
            2 => 1 << rng.below(64),
            _ => rng.below(6),
        }
    };
    for _ in 0..20_000 {
        let rank = rng.below(4) as usize;
        let shape: Vec<u64> = (0..rank).map(|_| pick(&mut rng)).collect();
        let chunks: Vec<u64> = (0..rank).map(|_| pick(&mut rng)).collect();
        let axes: Vec<AxisSelection> = (0..rank)
            .map(|_| AxisSelection {
                start: pick(&mut rng),
                step: pick(&mut rng),
                count: pick(&mut rng),
                out_start: pick(&mut rng),
                reversed: rng.below(2) == 0,
                dropped: rng.below(4) == 0,
            })
            .collect();
        let output_shape: Vec<u64> = (0..rng.below(4)).map(|_| pick(&mut rng)).collect();
        let sel = ResolvedSelection { axes, output_shape };
        let mut out = vec![0u8; 64];
        if let Ok(plan) = ReadPlan::new(&shape, &chunks, &sel) {
            let _ = plan.num_chunks();
            let _ = plan.output_len();
            let _ = plan.chunk_ranges();
            let _ = plan.allocate_output(4, 1 << 16);
            for read in plan.chunks().take(4).flatten() {
                let _ = read.copy_into(&mut out, 4, &[0u8; 64]);
                let _ = read.fill_into(&mut out, &[1, 2, 3, 4]);
                let _ = read.direct_output_range(4);
                let _ = read.inner_plan(&chunks);
            }
        }
        // Chunk reads built by hand skip the plan's checks.
        let read = ChunkRead {
            coords: vec![0; rank],
            chunk_shape: chunks.clone(),
            selection: sel.clone(),
        };
        let _ = read.copy_into(&mut out, 4, &[0u8; 64]);
        let _ = read.fill_into(&mut out, &[9; 4]);
        let mut strings = vec![String::new(); 16];
        let _ = read.copy_elements_into(&mut strings, &vec![String::new(); 16]);
        let _ = read.fill_elements_into(&mut strings, &String::new());
        let _ = read.direct_output_range(4);
    }
}

// --- the uncompressed fixtures, read whole and by selections -------------------------------

fn fixture_values(hierarchy: &str, name: &str) -> Vec<i64> {
    let path = format!(
        "{}/tests/fixtures/expected/{hierarchy}.values.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v[name]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn read_fixture(
    hierarchy: &str,
    name: &str,
    item_size: usize,
    big_endian: bool,
    sel: &[DimSelection],
) -> Vec<u8> {
    let dir = format!("{}/tests/fixtures/{hierarchy}", env!("CARGO_MANIFEST_DIR"));
    let doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(format!(
            "{dir}/{name}/{}",
            if hierarchy == "v3" {
                "zarr.json"
            } else {
                ".zarray"
            }
        ))
        .unwrap(),
    )
    .unwrap();
    let layout = if hierarchy == "v3" {
        ArrayLayout::from_v3(&serde_json::from_value(doc).unwrap(), name).unwrap()
    } else {
        ArrayLayout::from_v2(
            &zom::model::v2::ArrayMetadataV2::from_value(&doc).unwrap(),
            name,
        )
        .unwrap()
    };
    let plan = layout.plan(&Selection::new(sel.to_vec())).unwrap();
    let mut out = plan.allocate_output(item_size as u64, 1 << 20).unwrap();
    for chunk in layout.planned_chunks(&plan, 100).unwrap() {
        match std::fs::read(format!("{dir}/{}", chunk.key)) {
            Ok(mut bytes) => {
                if big_endian {
                    for e in bytes.chunks_mut(item_size) {
                        e.reverse();
                    }
                }
                chunk
                    .read
                    .copy_into(&mut out, item_size as u64, &bytes)
                    .unwrap()
            }
            Err(_) => chunk.read.fill_into(&mut out, &vec![0; item_size]).unwrap(),
        }
    }
    out
}

#[test]
fn uncompressed_fixtures_read_as_zarr_python_reads_them() {
    let shape = [6u64, 5];
    let selections: Vec<Vec<DimSelection>> = vec![
        vec![],
        vec![DimSelection::slice(None, None, Some(-1))],
        vec![
            DimSelection::Index(-1),
            DimSelection::slice(Some(1), None, Some(2)),
        ],
        vec![
            DimSelection::slice(Some(1), Some(-1), Some(3)),
            DimSelection::Index(4),
        ],
        vec![
            DimSelection::All,
            DimSelection::slice(Some(-1), None, Some(-2)),
        ],
    ];
    for (hierarchy, name, item_size, big) in [
        ("v3", "codec_bytes_only", 4usize, false),
        ("v2", "codec_none", 4, false),
        ("v3", "codec_bytes_big", 2, true),
    ] {
        let values = fixture_values(hierarchy, name);
        for sel in &selections {
            let r = reference(&shape, sel);
            let expected: Vec<u8> = selected(&r)
                .iter()
                .flat_map(|e| {
                    let v = values[ravel(e, &shape) as usize];
                    v.to_le_bytes()[..item_size].to_vec()
                })
                .collect();
            let got = read_fixture(hierarchy, name, item_size, big, sel);
            assert_eq!(got, expected, "{hierarchy}/{name} {sel:?}");
        }
    }
}

#[test]
fn inner_chunk_coordinates_give_shard_index_positions() {
    // A 12×10 array in 8×8 shards of 4×4 inner chunks; read rows 5..11, columns 6..9.
    let shape = [12, 10];
    let sel = Selection::new(vec![
        DimSelection::slice(Some(5), Some(11), None),
        DimSelection::slice(Some(6), Some(9), None),
    ]);
    let plan = ReadPlan::new(&shape, &[8, 8], &sel.resolve(&shape).unwrap()).unwrap();
    let shards: Vec<Vec<u64>> = plan.chunks().map(|c| c.unwrap().coords).collect();
    assert_eq!(shards, [[0, 0], [0, 1], [1, 0], [1, 1]]);
    let mut seen = Vec::new();
    for shard in plan.chunks().map(Result::unwrap) {
        let inner = shard.inner_plan(&[4, 4]).unwrap();
        assert_eq!(inner.grid().grid_shape(), &[2, 2]);
        for read in inner.chunks().map(Result::unwrap) {
            seen.push((
                shard.coords.clone(),
                read.coords.clone(),
                inner.grid().linear_index(&read.coords).unwrap(),
            ));
        }
    }
    assert_eq!(
        seen,
        [
            (vec![0, 0], vec![1, 1], 3),
            (vec![0, 1], vec![1, 0], 2),
            (vec![1, 0], vec![0, 1], 1),
            (vec![1, 1], vec![0, 0], 0),
        ]
    );
}
