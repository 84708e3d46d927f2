//! Read plans and assembly against a brute-force reference: random shapes, chunk shapes and
//! selections (seeded RNG), synthetic chunks whose elements are their global index, missing
//! chunks, variable-length elements, shards through inner plans, and whole-row chunks as one
//! block of the output.

mod chunk_common;

use chunk_common::{ravel, reference, selected, unravel, Rng};
use std::collections::BTreeSet;
use zom::chunk::{ChunkRead, DimSelection, ReadPlan, ResolvedSelection, Selection};

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
