//! Selections: Python slice semantics (checked against a table Python wrote and against a
//! port of CPython's algorithm on random inputs), integers, None, errors and their messages.

mod chunk_common;

use chunk_common::{slice_indices as cpython, Rng};
use serde_json::json;
use zom::chunk::{AxisSelection, DimSelection, Selection};
use zom::ErrorCode;

/// A slice bound or step (`None` in Python).
type Bound = Option<i64>;

/// `list(range(n))[slice(start, stop, step)]` as Python 3.11 computes it.
#[rustfmt::skip]
const PYTHON: &[(u64, Bound, Bound, Bound, &[u64])] = &[
    (0, Some(-3), Some(1), Some(1), &[]),
    (0, Some(-5), Some(-12), Some(3), &[]),
    (0, Some(-7), Some(-12), Some(-2), &[]),
    (0, Some(-7), Some(3), Some(-5), &[]),
    (0, Some(1), Some(-1), Some(2), &[]),
    (0, Some(1), Some(4), Some(-3), &[]),
    (0, Some(5), Some(5), Some(-1), &[]),
    (0, Some(6), Some(2), Some(-1), &[]),
    (1, Some(-5), Some(4), Some(3), &[0]),
    (1, Some(-7), Some(-12), Some(2), &[]),
    (1, Some(1), Some(-5), Some(-2), &[0]),
    (1, Some(1), Some(3), None, &[]),
    (1, Some(12), Some(1), Some(-3), &[]),
    (1, Some(2), Some(1), Some(-2), &[]),
    (1, None, Some(-12), Some(-3), &[0]),
    (1, None, Some(2), Some(2), &[0]),
    (2, Some(-12), Some(-5), Some(1), &[]),
    (2, Some(-12), Some(2), Some(1), &[0, 1]),
    (2, Some(-3), None, Some(2), &[0]),
    (2, Some(-7), Some(5), Some(7), &[0]),
    (2, Some(1), Some(3), Some(-5), &[]),
    (2, Some(5), Some(0), Some(-2), &[1]),
    (2, Some(5), Some(1), Some(-1), &[]),
    (5, Some(-12), Some(-12), Some(-5), &[]),
    (5, Some(-3), Some(-5), Some(-2), &[2]),
    (5, Some(-7), Some(6), Some(-2), &[]),
    (5, Some(0), Some(5), Some(1), &[0, 1, 2, 3, 4]),
    (5, Some(12), Some(-7), Some(-3), &[4, 1]),
    (5, Some(12), Some(4), Some(-2), &[]),
    (5, Some(2), Some(-1), Some(-2), &[]),
    (5, Some(4), Some(2), Some(-3), &[4]),
    (5, Some(7), Some(2), Some(-1), &[4, 3]),
    (6, Some(-1), Some(12), Some(2), &[5]),
    (6, Some(-12), Some(1), None, &[0]),
    (6, Some(-3), Some(2), Some(-5), &[3]),
    (6, Some(-7), Some(2), Some(1), &[0, 1]),
    (6, Some(0), None, Some(1), &[0, 1, 2, 3, 4, 5]),
    (6, Some(2), Some(-7), None, &[]),
    (6, Some(5), Some(12), Some(2), &[5]),
    (6, Some(6), Some(2), Some(-2), &[5, 3]),
    (6, None, Some(-5), Some(7), &[0]),
    (6, None, Some(3), Some(3), &[0]),
    (7, Some(-1), Some(-12), Some(-3), &[6, 3, 0]),
    (7, Some(-12), Some(7), Some(1), &[0, 1, 2, 3, 4, 5, 6]),
    (7, Some(-3), Some(-1), Some(-2), &[]),
    (7, Some(-5), Some(0), Some(-3), &[2]),
    (7, Some(-5), Some(3), Some(3), &[2]),
    (7, Some(0), Some(-1), Some(-3), &[]),
    (7, Some(7), Some(-12), Some(-1), &[6, 5, 4, 3, 2, 1, 0]),
    (7, None, None, Some(-1), &[6, 5, 4, 3, 2, 1, 0]),
];

/// Python's `slice(start, stop, step).indices(len)` for a dimension of length 2^64 - 1: count
/// and smallest index.
#[rustfmt::skip]
const PYTHON_HUGE: &[(Bound, Bound, Bound, u64, u64)] = &[
    (None, None, Some(-1), 18446744073709551615, 0),
    (Some(-1), None, Some(i64::MIN), 2, 9223372036854775806),
    (Some(9223372036854775807), None, None, 9223372036854775808, 9223372036854775807),
    (Some(i64::MIN), Some(9223372036854775807), Some(9223372036854775807), 0, 0),
    (None, None, Some(9223372036854775807), 3, 0),
    (None, Some(i64::MIN), Some(-1), 9223372036854775807, 9223372036854775808),
    (None, None, Some(2), 9223372036854775808, 0),
    (Some(5), Some(-2), Some(-3), 0, 0),
];

/// The indices an axis selection visits, in output order.
fn visited(axis: &AxisSelection) -> Vec<u64> {
    let mut v: Vec<u64> = (0..axis.count).map(|k| axis.index(k).unwrap()).collect();
    if axis.reversed {
        v.reverse();
    }
    v
}

fn one_dim(len: u64, sel: DimSelection) -> AxisSelection {
    Selection::new(vec![sel]).resolve(&[len]).unwrap().axes[0]
}

#[test]
fn slices_match_python_table() {
    for &(len, start, stop, step, expected) in PYTHON {
        let axis = one_dim(len, DimSelection::slice(start, stop, step));
        assert_eq!(
            visited(&axis),
            expected,
            "len {len} slice({start:?}, {stop:?}, {step:?})"
        );
        assert!(!axis.dropped);
        // The reference port agrees with Python too.
        assert_eq!(cpython(len as i64, start, stop, step), expected);
    }
}

#[test]
fn slices_on_huge_dimensions_do_not_overflow() {
    for &(start, stop, step, count, lowest) in PYTHON_HUGE {
        let axis = one_dim(u64::MAX, DimSelection::slice(start, stop, step));
        assert_eq!(axis.count, count, "slice({start:?}, {stop:?}, {step:?})");
        if count > 0 {
            assert_eq!(axis.start, lowest);
            assert_eq!(axis.reversed, step.unwrap_or(1) < 0 && count > 1);
            // The last visited index is inside the dimension.
            assert!(axis.index(count - 1).is_some());
        }
    }
}

#[test]
fn random_slices_match_cpython() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for _ in 0..20_000 {
        let len = rng.range(0, 40);
        let start = rng.opt(-50, 50);
        let stop = rng.opt(-50, 50);
        let mut step = rng.opt(-12, 12);
        if step == Some(0) {
            step = None;
        }
        let axis = one_dim(len as u64, DimSelection::slice(start, stop, step));
        assert_eq!(
            visited(&axis),
            cpython(len, start, stop, step),
            "len {len} slice({start:?}, {stop:?}, {step:?})"
        );
        // Output positions: 0, 1, … along the visiting order.
        for k in 0..axis.count {
            let out = axis.out_index(k).unwrap();
            let expected = if axis.reversed { axis.count - 1 - k } else { k };
            assert_eq!(out, expected);
        }
    }
}

#[test]
fn integers_count_from_the_end_and_drop_their_dimension() {
    let r = Selection::new(vec![DimSelection::Index(-1), DimSelection::All])
        .resolve(&[4, 3])
        .unwrap();
    assert_eq!(r.output_shape, vec![3]);
    assert_eq!(r.axes[0].start, 3);
    assert!(r.axes[0].dropped);
    assert_eq!(r.axes[0].count, 1);
    let r = Selection::new(vec![DimSelection::Index(-4), DimSelection::Index(2)])
        .resolve(&[4, 3])
        .unwrap();
    assert_eq!(r.output_shape, Vec::<u64>::new());
    assert_eq!((r.axes[0].start, r.axes[1].start), (0, 2));
    // Huge dimensions: i64::MIN counts back from 2^64 - 1.
    let r = Selection::new(vec![DimSelection::Index(i64::MIN)])
        .resolve(&[u64::MAX])
        .unwrap();
    assert_eq!(r.axes[0].start, u64::MAX - (1u64 << 63));
}

#[test]
fn fewer_entries_select_whole_dimensions() {
    let r = Selection::new(vec![DimSelection::slice(Some(1), None, None)])
        .resolve(&[4, 3, 2])
        .unwrap();
    assert_eq!(r.output_shape, vec![3, 3, 2]);
    assert_eq!(
        Selection::all().resolve(&[4, 3]).unwrap().output_shape,
        vec![4, 3]
    );
    // 0-d: the empty selection, output shape [].
    let r = Selection::all().resolve(&[]).unwrap();
    assert!(r.axes.is_empty() && r.output_shape.is_empty());
    assert_eq!(r.output_len().unwrap(), 1);
}

fn error(sel: Vec<DimSelection>, shape: &[u64]) -> String {
    let e = Selection::new(sel).resolve(shape).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidSelection, "{e}");
    e.message
}

#[test]
fn invalid_selections_say_what_is_wrong() {
    let m = error(vec![DimSelection::All, DimSelection::Index(3)], &[4, 3]);
    assert!(m.contains("index 3") && m.contains("dimension 1") && m.contains("length 3"));
    assert!(m.contains("-3 to 2"), "{m}");
    let m = error(vec![DimSelection::Index(-5)], &[4]);
    assert!(m.contains("index -5") && m.contains("dimension 0") && m.contains("-4 to 3"));
    let m = error(vec![DimSelection::Index(0)], &[0]);
    assert!(m.contains("length 0"), "{m}");
    let m = error(vec![DimSelection::slice(None, None, Some(0))], &[4]);
    assert!(m.contains("step cannot be zero"), "{m}");
    let m = error(vec![DimSelection::All; 3], &[4, 3]);
    assert!(m.contains("3 entries") && m.contains("2 dimensions"), "{m}");
    let m = error(vec![DimSelection::Index(0)], &[]);
    assert!(m.contains("0 dimensions"), "{m}");
}

#[test]
fn selections_from_json() {
    let s = Selection::from_json(&json!([
        {"start": 1, "stop": null, "step": -2},
        3,
        null,
        {"stop": 4},
        -1.0
    ]))
    .unwrap();
    assert_eq!(
        s.0,
        vec![
            DimSelection::slice(Some(1), None, Some(-2)),
            DimSelection::Index(3),
            DimSelection::All,
            DimSelection::slice(None, Some(4), None),
            DimSelection::Index(-1),
        ]
    );
    assert_eq!(
        Selection::from_json(&json!(null)).unwrap(),
        Selection::all()
    );
    for bad in [
        json!(3),
        json!(["a"]),
        json!([1.5]),
        json!([1e300]),
        json!([{"start": "1"}]),
        json!([{"begin": 1}]),
        json!([[1, 2]]),
        json!([true]),
    ] {
        let e = Selection::from_json(&bad).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidSelection, "{bad}");
    }
}
