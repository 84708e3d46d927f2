//! The problems the OME-Zarr views report, each on a mutated copy of a real fixture: path,
//! location, kind and severity.

mod common;
mod view_ome_common;

use serde_json::{json, Value};
use view_ome_common::*;
use zom::validate::Severity;
use zom::view::{describe, View};

#[test]
fn a_level_larger_than_its_predecessor_is_an_error() {
    let mut zom = zom_of("conventions/ome-0.5-image");
    node_mut(&mut zom, "s1")["shape"] = json!([2, 80, 32]);
    let (_, problems) = image_of(&zom, "");
    let p = assert_one(
        &problems,
        "",
        json!(["attributes", "ome", "multiscales", 0, "datasets", 1]),
        Severity::Error,
    );
    assert!(p.message.contains("axis y"), "{}", p.message);
    assert!(p.message.contains("[2, 80, 32]"), "{}", p.message);
}

#[test]
fn a_level_that_does_not_downsample_is_a_warning() {
    let mut zom = zom_of("conventions/ome-0.4-image");
    node_mut(&mut zom, "s2")["shape"] = json!([2, 32, 32]);
    let (_, problems) = image_of(&zom, "");
    assert_one(
        &problems,
        "",
        json!(["attributes", "multiscales", 0, "datasets", 2]),
        Severity::Warning,
    );
}

#[test]
fn a_level_of_another_rank_than_the_axes_is_an_error() {
    let mut zom = zom_of("conventions/ome-0.4-image");
    node_mut(&mut zom, "s2")["shape"] = json!([16, 16]);
    let (v, problems) = image_of(&zom, "");
    let p = assert_one(
        &problems,
        "",
        json!(["attributes", "multiscales", 0, "datasets", 2]),
        Severity::Error,
    );
    assert!(
        p.message.contains("2 dimensions") && p.message.contains("3 axes"),
        "{}",
        p.message
    );
    assert_eq!(v.levels[2].shape, Some(vec![16, 16]));
}

fn with_omero(omero: Value) -> Value {
    let mut zom = zom_of("conventions/ome-0.5-image");
    node_mut(&mut zom, "")["attributes"]["ome"]["omero"] = omero;
    zom
}

#[test]
fn an_omero_channel_count_that_is_not_the_channel_axis_length_is_a_warning() {
    let channel =
        json!({"color": "ff0000", "window": {"start": 0, "end": 10, "min": 0, "max": 100}});
    let zom = with_omero(json!({"channels": [channel, channel, channel]}));
    let (v, problems) = image_of(&zom, "");
    let p = assert_one(
        &problems,
        "",
        json!(["attributes", "ome", "omero", "channels"]),
        Severity::Warning,
    );
    assert!(
        p.message.contains('3') && p.message.contains('2'),
        "{}",
        p.message
    );
    // The picture draws the channel axis: two channels, colours upper-cased.
    assert_eq!(v.channels.len(), 2);
    assert_eq!(v.channels[1].color, "FF0000");
}

#[test]
fn an_omero_color_that_is_not_six_hex_digits_is_an_error() {
    let zom = with_omero(json!({"channels": [
        {"color": "red", "window": {"start": 0, "end": 10, "min": 0, "max": 100}},
        {"color": "00FF00", "window": {"start": 0, "end": 10, "min": 0, "max": 100}},
    ]}));
    let (v, problems) = image_of(&zom, "");
    let p = assert_one(
        &problems,
        "",
        json!(["attributes", "ome", "omero", "channels", 0, "color"]),
        Severity::Error,
    );
    assert!(p.message.contains("\"red\""), "{}", p.message);
    assert_eq!(
        v.channels[0].color, "FF00FF",
        "the default colour stands in"
    );
}

#[test]
fn an_omero_window_that_starts_after_its_end_is_a_warning() {
    let zom = with_omero(json!({"channels": [
        {"color": "FF0000", "window": {"start": 0, "end": 10, "min": 0, "max": 100}, "label": "a",
         "active": false, "inverted": true, "coefficient": 0.5, "family": "exponential"},
        {"color": "00FF00", "window": {"start": 50, "end": 10, "min": 0, "max": 100}},
    ], "rdefs": {"defaultZ": 3, "defaultT": 1}}));
    let (v, problems) = image_of(&zom, "");
    assert_one(
        &problems,
        "",
        json!(["attributes", "ome", "omero", "channels", 1, "window"]),
        Severity::Warning,
    );
    let c = &v.channels[0];
    assert_eq!((c.label.as_str(), c.active, c.inverted), ("a", false, true));
    assert_eq!((c.coefficient, c.family.as_str()), (0.5, "exponential"));
    assert_eq!((v.default_z, v.default_t), (Some(3), Some(1)));
}

#[test]
fn a_label_image_of_another_size_is_a_warning_at_the_label_image() {
    for (dir, base) in [
        ("conventions/ome-0.4-image", json!(["attributes"])),
        ("conventions/ome-0.5-image", json!(["attributes", "ome"])),
    ] {
        let mut zom = zom_of(dir);
        node_mut(&mut zom, "labels/cells/s0")["shape"] = json!([1, 64, 60]);
        let (_, problems) = image_of(&zom, "");
        let mut at = base.as_array().unwrap().clone();
        at.extend([json!("multiscales"), json!(0), json!("datasets"), json!(0)]);
        let p = assert_one(
            &problems,
            "labels/cells",
            Value::Array(at),
            Severity::Warning,
        );
        assert!(p.message.contains("axis x"), "{}", p.message);
        // Described on its own, the label image is fine.
        assert!(describe(&zom, "labels/cells").problems.is_empty());
    }
}

#[test]
fn a_label_image_of_another_scale_is_a_warning_at_the_label_image() {
    let mut zom = zom_of("conventions-0.6/ome-0.6-image");
    let label = node_mut(&mut zom, "labels/cells");
    label["attributes"]["ome"]["multiscales"][0]["datasets"][0]["coordinateTransformations"][0]
        ["scale"] = json!([1.0, 0.5, 0.25]);
    let (_, problems) = image_of(&zom, "");
    let p = assert_one(
        &problems,
        "labels/cells",
        json!([
            "attributes",
            "ome",
            "multiscales",
            0,
            "datasets",
            0,
            "coordinateTransformations"
        ]),
        Severity::Warning,
    );
    assert!(
        p.message.contains("0.25") && p.message.contains("0.5"),
        "{}",
        p.message
    );
}

#[test]
fn a_well_the_plate_cannot_place_is_an_error() {
    let mut zom = zom_of("conventions/ome-0.4-plate");
    let wells = &mut node_mut(&mut zom, "")["attributes"]["plate"]["wells"];
    for w in wells.as_array_mut().unwrap() {
        let w = w.as_object_mut().unwrap();
        w.remove("rowIndex");
        w.remove("columnIndex");
    }
    // Without indices, the path's names place the well.
    let d = describe(&zom, "");
    assert!(d.problems.is_empty(), "{:#?}", d.problems);
    let Some(View::Plate(p)) = d.view else {
        panic!()
    };
    assert_eq!((p.wells[1].row, p.wells[1].column), (1, 1));

    node_mut(&mut zom, "")["attributes"]["plate"]["wells"][1]["path"] = json!("C/2");
    let d = describe(&zom, "");
    let p = assert_one(
        &d.problems,
        "",
        json!(["attributes", "plate", "wells", 1, "path"]),
        Severity::Error,
    );
    assert!(p.message.contains("\"C/2\""), "{}", p.message);
    let Some(View::Plate(p)) = d.view else {
        panic!()
    };
    assert_eq!(p.wells.len(), 1);
}

#[test]
fn well_indices_the_specs_check_are_not_reported_twice() {
    // An index out of range and a path that disagrees with its indices are the specs'
    // well-path-row-column findings; the view places the well by its path's names.
    let mut zom = zom_of("conventions/ome-0.5-plate");
    let wells = &mut node_mut(&mut zom, "")["attributes"]["ome"]["plate"]["wells"];
    wells[1]["rowIndex"] = json!(7);
    let d = describe(&zom, "");
    assert!(d.problems.is_empty(), "{:#?}", d.problems);
    let Some(View::Plate(p)) = d.view else {
        panic!()
    };
    assert_eq!((p.wells[1].row, p.wells[1].column), (1, 1));
    let spec = zom::spec::builtin("ome-zarr").unwrap();
    let options = zom::validate::ValidateOptions {
        specs: vec![zom::spec::SpecChoice::Convention("ome-zarr".into(), spec)],
        ..Default::default()
    };
    let report = zom::validate::validate_hierarchy(&zom, &options);
    let rules: Vec<_> = report.problems.iter().map(|p| p.rule.clone()).collect();
    assert!(
        rules.contains(&Some("well-path-row-column".into())),
        "the spec reports the index: {rules:?}"
    );
}
