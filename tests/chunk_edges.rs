//! Edge cases of read plans and assembly: 0-d and zero-length arrays, limits, wrong buffers,
//! inconsistent or hostile hand-made plans (errors, never panics), and whole reads of the
//! uncompressed fixtures compared with zarr-python's values.

mod chunk_common;

use chunk_common::{ravel, reference, selected, Rng};
use zom::chunk::{
    ArrayLayout, AxisSelection, ChunkRead, DimSelection, ReadPlan, ResolvedSelection, Selection,
};
use zom::ErrorCode;

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
