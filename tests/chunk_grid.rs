//! The regular chunk grid: grid shapes, edge chunk regions, 0-d and zero-length arrays,
//! chunk order, and errors for bad or huge inputs.

use serde_json::json;
use zom::chunk::{ChunkGrid, ChunkRegion};
use zom::model::named::NamedConfig;
use zom::ErrorCode;

#[test]
fn grid_shape_is_the_ceiling_division() {
    let g = ChunkGrid::new(&[6, 5], &[4, 3]).unwrap();
    assert_eq!(g.grid_shape(), &[2, 2]);
    assert_eq!(g.num_chunks().unwrap(), 4);
    assert_eq!(g.regular_chunk_shape().unwrap().iter().product::<u64>(), 12);
    let g = ChunkGrid::new(&[8, 9, 1], &[4, 3, 10]).unwrap();
    assert_eq!(g.grid_shape(), &[2, 3, 1]);
    let g = ChunkGrid::new(&[u64::MAX], &[1]).unwrap();
    assert_eq!(g.grid_shape(), &[u64::MAX]);
    let g = ChunkGrid::new(&[u64::MAX], &[u64::MAX]).unwrap();
    assert_eq!(g.grid_shape(), &[1]);
    let g = ChunkGrid::new(&[u64::MAX, u64::MAX], &[1, 1]).unwrap();
    assert_eq!(g.num_chunks().unwrap_err().code, ErrorCode::LimitExceeded);
}

#[test]
fn edge_chunks_report_the_part_inside_the_array() {
    let g = ChunkGrid::new(&[6, 5], &[4, 3]).unwrap();
    let region = |c: &[u64]| g.chunk_region(c).unwrap();
    assert_eq!(
        region(&[0, 0]),
        ChunkRegion {
            start: vec![0, 0],
            shape: vec![4, 3]
        }
    );
    assert_eq!(region(&[0, 1]).shape, vec![4, 2]);
    assert_eq!(region(&[1, 0]).shape, vec![2, 3]);
    assert_eq!(
        region(&[1, 1]),
        ChunkRegion {
            start: vec![4, 3],
            shape: vec![2, 2]
        }
    );
    // A chunk larger than the array.
    let g = ChunkGrid::new(&[3], &[10]).unwrap();
    assert_eq!(g.chunk_region(&[0]).unwrap().shape, vec![3]);
    // The last chunk of a dimension of length u64::MAX.
    let g = ChunkGrid::new(&[u64::MAX], &[1 << 32]).unwrap();
    let last = g.grid_shape()[0] - 1;
    let r = g.chunk_region(&[last]).unwrap();
    assert_eq!(r.start, vec![last << 32]);
    assert_eq!(r.shape, vec![(1 << 32) - 1]);
}

#[test]
fn every_element_is_in_exactly_one_chunk_region() {
    for (shape, chunks) in [
        (vec![7u64, 1, 5], vec![3u64, 1, 2]),
        (vec![4, 4], vec![4, 4]),
        (vec![9], vec![2]),
    ] {
        let g = ChunkGrid::new(&shape, &chunks).unwrap();
        let total: u64 = shape.iter().product();
        let mut covered = 0;
        for i in 0..g.num_chunks().unwrap() {
            let r = g.chunk_region(&g.coords_of(i).unwrap()).unwrap();
            for ((s, n), (&len, &c)) in r.start.iter().zip(&r.shape).zip(shape.iter().zip(&chunks))
            {
                assert!(s + n <= len && *n <= c && *n > 0);
            }
            covered += r.shape.iter().product::<u64>();
        }
        assert_eq!(covered, total);
    }
}

#[test]
fn zero_dimensional_and_zero_length_arrays() {
    let g = ChunkGrid::new(&[], &[]).unwrap();
    assert_eq!(g.grid_shape(), &[] as &[u64]);
    assert_eq!(g.num_chunks().unwrap(), 1);
    assert_eq!(g.regular_chunk_shape().unwrap().iter().product::<u64>(), 1);
    assert_eq!(g.coords_of(0).unwrap(), Vec::<u64>::new());
    assert_eq!(g.linear_index(&[]).unwrap(), 0);
    assert_eq!(
        g.chunk_region(&[]).unwrap(),
        ChunkRegion {
            start: vec![],
            shape: vec![]
        }
    );
    let g = ChunkGrid::new(&[0, 5], &[2, 2]).unwrap();
    assert_eq!(g.grid_shape(), &[0, 3]);
    assert_eq!(g.num_chunks().unwrap(), 0);
    assert_eq!(
        g.chunk_region(&[0, 0]).unwrap_err().code,
        ErrorCode::InvalidSelection
    );
    assert_eq!(
        g.coords_of(0).unwrap_err().code,
        ErrorCode::InvalidSelection
    );
}

#[test]
fn chunk_order_is_c_order() {
    let g = ChunkGrid::new(&[6, 5, 4], &[4, 3, 3]).unwrap();
    let all: Vec<Vec<u64>> = (0..g.num_chunks().unwrap())
        .map(|i| g.coords_of(i).unwrap())
        .collect();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted);
    assert_eq!(all[1], vec![0, 0, 1]);
    assert_eq!(g.linear_index(&[1, 1, 0]).unwrap(), 6);
    assert_eq!(
        g.linear_index(&[2, 0, 0]).unwrap_err().code,
        ErrorCode::InvalidSelection
    );
    assert_eq!(
        g.linear_index(&[0, 0]).unwrap_err().code,
        ErrorCode::InvalidSelection
    );
}

#[test]
fn invalid_grids() {
    let e = ChunkGrid::new(&[6, 5], &[4]).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
    assert!(
        e.message.contains("[4]") && e.message.contains("[6, 5]"),
        "{e}"
    );
    let e = ChunkGrid::new(&[6], &[0]).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidMetadata);
    assert!(e.message.contains("dimension 0"), "{e}");
    let named = |v| NamedConfig::from_value(&v).unwrap();
    let g = ChunkGrid::from_v3(
        &named(json!({"name": "regular", "configuration": {"chunk_shape": [2, 2]}})),
        &[3, 3],
    )
    .unwrap();
    assert_eq!(g.grid_shape(), &[2, 2]);
    for (bad, code) in [
        (
            json!({"name": "regular", "configuration": {"chunk_shape": [2]}}),
            ErrorCode::InvalidMetadata,
        ),
        (
            json!({"name": "regular", "configuration": {"chunk_shape": [2, 1.5]}}),
            ErrorCode::InvalidMetadata,
        ),
        (
            json!({"name": "regular", "configuration": {"chunk_shape": "2"}}),
            ErrorCode::InvalidMetadata,
        ),
        (
            json!({"name": "regular", "configuration": {}}),
            ErrorCode::InvalidMetadata,
        ),
        (json!("regular"), ErrorCode::InvalidMetadata),
        // A rectilinear grid is read and checked (no `kind`, edges short of the shape).
        (
            json!({"name": "rectilinear", "configuration": {"chunk_shapes": [[1], [2]]}}),
            ErrorCode::InvalidMetadata,
        ),
        (
            json!({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[1], [2]]}}),
            ErrorCode::InvalidMetadata,
        ),
        (
            json!({"name": "example.grid", "configuration": {}}),
            ErrorCode::UnsupportedExtension,
        ),
    ] {
        assert_eq!(
            ChunkGrid::from_v3(&named(bad.clone()), &[3, 3])
                .unwrap_err()
                .code,
            code,
            "{bad}"
        );
    }
    let edges = json!({"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[1, 2], [[1, 3]]]}});
    let grid = ChunkGrid::from_v3(&named(edges), &[3, 3]).unwrap();
    assert_eq!(grid.grid_shape(), [2, 3]);
    assert_eq!(grid.regular_chunk_shape(), None);
    assert_eq!(grid.chunk_shape_at(&[1, 2]).unwrap(), [2, 1]);
    assert_eq!(
        ChunkGrid::from_v2(&[3], &[0]).unwrap_err().code,
        ErrorCode::InvalidMetadata
    );
}
