//! OME-Zarr views (`zom::view::ome`, `zom::view::collection`) of the real fixtures written by
//! ome-zarr-py and ngff-zarr: their values, and no problems. Problems on mutated copies are in
//! view_ome_problems.rs, hostile input in view_ome_hostile.rs.

mod common;
mod view_ome_common;

use common::{fixtures, read_json};
use serde_json::{json, Value};
use view_ome_common::*;
use zom::view::collection::{SceneView, SeriesView};
use zom::view::ome;
use zom::view::{describe, node_paths, Node, View};

const VALID: [&str; 17] = [
    "conventions/ome-0.4-image",
    "conventions/ome-0.5-image",
    "conventions/ome-0.4-plate",
    "conventions/ome-0.5-plate",
    "conventions/ome-0.4-bioformats2raw",
    "conventions/ome-0.5-bioformats2raw",
    "conventions/ngff-zarr-0.4-image",
    "conventions/ngff-zarr-0.5-image",
    "conventions/ngff-zarr-0.6-image",
    "conventions-0.6/ome-0.6-image",
    "conventions-0.6/ome-0.6-image-version-0.6",
    "conventions-0.6/ome-0.6-plate",
    "conventions-0.6/ome-0.6-scene",
    "walk/ozp-0.21-v0.4-image",
    "walk/ozp-0.21-v0.5-plate",
    "walk/ozp-0.21-v0.5-bioformats2raw",
    "walk/ngff-zarr-0.50-v0.6-image",
];

#[test]
fn valid_fixtures_have_no_view_problems() {
    let mut described = 0;
    for dir in VALID {
        let zom = zom_of(dir);
        for path in node_paths(&zom) {
            let d = describe(&zom, &path);
            assert!(d.problems.is_empty(), "{dir} {path}: {:#?}", d.problems);
            described += usize::from(d.view.is_some());
        }
        assert!(zom::view::problems(&zom).is_empty(), "{dir}");
    }
    assert!(described > 40, "{described}");
}

#[test]
fn every_walk_fixture_has_no_view_problems() {
    let walk = fixtures().join("walk");
    for entry in read_json(&walk.join("manifest.json")).as_array().unwrap() {
        let dir = entry["dir"].as_str().unwrap();
        let zom = zom_at(&walk.join(dir));
        assert!(zom::view::problems(&zom).is_empty(), "{dir}");
    }
}

#[test]
fn ome_0_4_image_from_ome_zarr_py() {
    let zom = zom_of("conventions/ome-0.4-image");
    let v = image(&zom, "");
    assert_eq!(v.version.as_deref(), Some("0.4"));
    assert_eq!(v.name.as_deref(), Some("image"));
    assert_eq!(names(&v), ["c", "y", "x"]);
    assert_eq!(v.axes[0].r#type.as_deref(), Some("channel"));
    assert_eq!(v.axes[1].r#type.as_deref(), Some("space"));
    assert_eq!(v.axes[2].unit, None);
    assert_eq!(
        (v.channel_axis, v.time_axis, v.z_axis, v.y_axis, v.x_axis),
        (Some(0), None, None, Some(1), Some(2))
    );
    let paths: Vec<_> = v
        .levels
        .iter()
        .map(|l| (l.path.as_str(), l.node.as_str()))
        .collect();
    assert_eq!(paths, [("s0", "s0"), ("s1", "s1"), ("s2", "s2")]);
    assert_eq!(shapes(&v), [[2, 64, 64], [2, 32, 32], [2, 16, 16]]);
    assert_eq!(v.levels[0].chunks, Some(vec![2, 64, 64]));
    assert_eq!(v.levels[0].data_type.as_deref(), Some("<u2"));
    assert_eq!(v.levels[1].scale, [1.0, 2.0, 2.0]);
    assert_eq!(v.levels[2].scale, [1.0, 4.0, 4.0]);
    assert_eq!(v.levels[2].translation, [0.0, 1.5, 1.5]);
    // No omero: two channels in the viewers' default colours, windowed from the data.
    let colors: Vec<_> = v.channels.iter().map(|c| c.color.as_str()).collect();
    assert_eq!(colors, ["FF00FF", "00FF00"]);
    let c = &v.channels[1];
    assert_eq!((c.index, c.label.as_str()), (1, "Channel 1"));
    assert_eq!(
        (c.window.clone(), c.active, c.inverted),
        (None, true, false)
    );
    assert_eq!((c.coefficient, c.family.as_str()), (1.0, "linear"));
    assert_eq!((v.default_z, v.default_t), (None, None));
    assert_eq!(v.labels.len(), 1);
    assert_eq!(
        (
            v.labels[0].name.as_str(),
            v.labels[0].node.as_str(),
            v.labels[0].present
        ),
        ("cells", "labels/cells", true)
    );
    assert!(v.label.is_none());

    let label = image(&zom, "labels/cells");
    assert_eq!(label.name.as_deref(), Some("cells"));
    assert_eq!(shapes(&label)[0], [1, 64, 64]);
    assert_eq!(label.levels[0].data_type.as_deref(), Some("|u1"));
    assert_eq!(label.levels[0].node, "labels/cells/s0");
    let info = label.label.unwrap();
    let colors: Vec<_> = info
        .colors
        .iter()
        .map(|c| (c.label_value, c.rgba))
        .collect();
    assert_eq!(colors, [(1.0, [255, 0, 0, 255]), (2.0, [0, 255, 0, 255])]);
    assert_eq!(
        info.properties[1],
        json!({"label-value": 2, "class": "cytoplasm"})
    );
    assert_eq!(info.source_image, None);
    assert_eq!(label.channels.len(), 1);
    assert_eq!(label.channels[0].color, "FFFFFF");
}

#[test]
fn ome_0_5_image_from_ome_zarr_py() {
    let zom = zom_of("conventions/ome-0.5-image");
    let v = image(&zom, "");
    assert_eq!(v.version.as_deref(), Some("0.5"));
    assert_eq!(names(&v), ["c", "y", "x"]);
    assert_eq!(shapes(&v), [[2, 64, 64], [2, 32, 32], [2, 16, 16]]);
    assert_eq!(v.levels[0].chunks, Some(vec![2, 64, 64]));
    assert_eq!(v.levels[0].data_type.as_deref(), Some("uint16"));
    assert_eq!(v.levels[1].translation, [0.0, 0.5, 0.5]);
    assert_eq!(v.channels.len(), 2);
    assert_eq!(v.labels[0].node, "labels/cells");
    let label = image(&zom, "labels/cells");
    assert_eq!(label.levels[0].data_type.as_deref(), Some("uint8"));
    assert_eq!(label.label.unwrap().colors[1].rgba, [0, 255, 0, 255]);
    // The labels group itself is no image.
    assert!(describe(&zom, "labels").view.is_none());
}

#[test]
fn ngff_zarr_images_0_4_0_5_0_6() {
    for (dir, version, dtype) in [
        ("conventions/ngff-zarr-0.4-image", "0.4", "<u2"),
        ("conventions/ngff-zarr-0.5-image", "0.5", "uint16"),
        ("conventions/ngff-zarr-0.6-image", "0.6", "uint16"),
    ] {
        let zom = zom_of(dir);
        let v = image(&zom, "");
        assert_eq!(v.version.as_deref(), Some(version), "{dir}");
        assert_eq!(names(&v), ["c", "y", "x"], "{dir}");
        let nodes: Vec<_> = v.levels.iter().map(|l| l.node.as_str()).collect();
        assert_eq!(
            nodes,
            ["scale0/image", "scale1/image", "scale2/image"],
            "{dir}"
        );
        assert_eq!(shapes(&v), [[2, 64, 64], [2, 32, 32], [2, 16, 16]], "{dir}");
        assert_eq!(v.levels[0].data_type.as_deref(), Some(dtype), "{dir}");
        assert_eq!(v.levels[2].scale, [1.0, 4.0, 4.0], "{dir}");
        assert_eq!(v.levels[2].translation, [0.0, 1.5, 1.5], "{dir}");
        assert_eq!(
            (v.y_axis, v.x_axis, v.channel_axis),
            (Some(1), Some(2), Some(0))
        );
        assert!(v.labels.is_empty());
    }
}

#[test]
fn ome_0_6_image_with_omero_and_a_label() {
    let zom = zom_of("conventions-0.6/ome-0.6-image");
    let v = image(&zom, "");
    assert_eq!(v.version.as_deref(), Some("0.6rc0"));
    assert_eq!(names(&v), ["c", "y", "x"]);
    assert_eq!(v.axes[2].unit.as_deref(), Some("micrometer"));
    assert_eq!(shapes(&v), [[2, 32, 32], [2, 16, 16], [2, 8, 8]]);
    // The levels' scale to the intrinsic system "physical"; the multiscale's own
    // transformation (physical → world) is not part of it.
    assert_eq!(v.levels[0].scale, [1.0, 0.5, 0.5]);
    assert_eq!(v.levels[0].translation, [0.0, 0.0, 0.0]);
    assert_eq!(v.levels[1].scale, [1.0, 1.0, 1.0]);
    assert_eq!(v.levels[1].translation, [0.0, 0.25, 0.25]);
    assert_eq!(v.levels[2].translation, [0.0, 0.75, 0.75]);
    let dapi = &v.channels[0];
    assert_eq!(
        (dapi.label.as_str(), dapi.color.as_str(), dapi.active),
        ("DAPI", "FF0000", true)
    );
    let w = dapi.window.clone().unwrap();
    assert_eq!(
        (w.start, w.end, w.min, w.max),
        (0.0, 4000.0, Some(0.0), Some(65535.0))
    );
    assert_eq!(v.channels[1].label, "GFP");
    assert_eq!(v.channels[1].color, "00FF00");
    assert_eq!(v.channels[1].window.clone().unwrap().end, 2000.0);
    assert_eq!(v.labels[0].node, "labels/cells");
    let label = image(&zom, "labels/cells");
    let info = label.label.unwrap();
    assert_eq!(info.colors[0].rgba, [255, 0, 0, 128]);
    assert_eq!(info.properties[0], json!({"label-value": 1, "area": 120}));
    // "../../" from labels/cells is the image, the root.
    assert_eq!(info.source_image.as_deref(), Some(""));

    let v = image(&zom_of("conventions-0.6/ome-0.6-image-version-0.6"), "");
    assert_eq!(v.version.as_deref(), Some("0.6"));
}

#[test]
fn plates_and_wells_0_4_0_5_0_6() {
    for dir in [
        "conventions/ome-0.4-plate",
        "conventions/ome-0.5-plate",
        "conventions-0.6/ome-0.6-plate",
    ] {
        let zom = zom_of(dir);
        let d = describe(&zom, "");
        assert!(d.problems.is_empty(), "{dir}: {:#?}", d.problems);
        let Some(View::Plate(p)) = d.view else {
            panic!("{dir}: {:?}", d.view)
        };
        assert_eq!(p.rows, ["A", "B"], "{dir}");
        assert_eq!(p.columns, ["1", "2"], "{dir}");
        let wells: Vec<_> = p
            .wells
            .iter()
            .map(|w| (w.path.as_str(), w.node.as_str(), w.row, w.column, w.present))
            .collect();
        assert_eq!(
            wells,
            [("A/1", "A/1", 0, 0, true), ("B/2", "B/2", 1, 1, true)],
            "{dir}"
        );
        assert_eq!(p.field_count, Some(2), "{dir}");
        assert_eq!(p.acquisitions[0].id, 0);

        let Some(View::Well(w)) = describe(&zom, "A/1").view else {
            panic!("{dir}: A/1 is no well")
        };
        let fields: Vec<_> = w
            .images
            .iter()
            .map(|f| (f.path.as_str(), f.node.as_str()))
            .collect();
        assert_eq!(fields, [("0", "A/1/0"), ("1", "A/1/1")], "{dir}");
        assert_eq!(w.images[0].acquisition, Some(0));
        let field = image(&zom, "A/1/0");
        assert_eq!(shapes(&field)[0], [1, 16, 16], "{dir}");
        assert_eq!(field.levels[1].node, "A/1/0/s1");
        assert!(
            describe(&zom, "A").view.is_none(),
            "{dir}: a row group is nothing"
        );
    }
    let zom = zom_of("conventions/ome-0.4-plate");
    let Some(View::Plate(p)) = describe(&zom, "").view else {
        panic!()
    };
    assert_eq!(
        (p.version.as_deref(), p.name.as_deref()),
        (Some("0.4"), Some("plate"))
    );
    assert_eq!(p.acquisitions[0].name.as_deref(), Some("acquisition 0"));
    let field = image(&zom, "A/1/0");
    assert_eq!(field.labels[0].node, "A/1/0/labels/cells");
    assert_eq!(image(&zom, "A/1/0/labels/cells").levels.len(), 2);

    let zom = zom_of("conventions-0.6/ome-0.6-plate");
    let Some(View::Plate(p)) = describe(&zom, "").view else {
        panic!()
    };
    assert_eq!(p.version.as_deref(), Some("0.6rc0"));
    let acq: Vec<_> = p
        .acquisitions
        .iter()
        .map(|a| (a.id, a.name.as_deref(), a.maximum_field_count))
        .collect();
    assert_eq!(
        acq,
        [(0, Some("first"), Some(2)), (1, Some("second"), Some(1))]
    );
    let Some(View::Well(w)) = describe(&zom, "A/1").view else {
        panic!()
    };
    assert_eq!(w.version.as_deref(), Some("0.6rc0"));
    assert_eq!(w.images[1].acquisition, Some(1));
}

fn series_of(zom: &Value) -> SeriesView {
    match describe(zom, "").view {
        Some(View::Series(s)) => s,
        other => panic!("{other:?}"),
    }
}

#[test]
fn bioformats2raw_series_0_4_0_5() {
    for dir in [
        "conventions/ome-0.4-bioformats2raw",
        "conventions/ome-0.5-bioformats2raw",
    ] {
        let mut zom = zom_of(dir);
        assert_eq!(series_of(&zom).images, ["0", "1"], "{dir}");
        for s in ["0", "1"] {
            let v = image(&zom, s);
            assert_eq!(shapes(&v), [[2, 32, 32], [2, 16, 16]], "{dir}");
            assert_eq!(v.levels[0].node, format!("{s}/s0"));
        }
        // Without the OME group's series, the numbered members the hierarchy holds.
        node_mut(&mut zom, "")["members"]
            .as_object_mut()
            .unwrap()
            .remove("OME");
        assert_eq!(series_of(&zom).images, ["0", "1"], "{dir}");
    }
}

fn scene_of(zom: &Value) -> SceneView {
    match describe(zom, "").view {
        Some(View::Scene(s)) => s,
        other => panic!("{other:?}"),
    }
}

#[test]
fn ome_0_6_scene() {
    let zom = zom_of("conventions-0.6/ome-0.6-scene");
    let s = scene_of(&zom);
    assert_eq!(s.version.as_deref(), Some("0.6rc0"));
    assert_eq!(s.coordinate_systems.len(), 1);
    assert_eq!(s.coordinate_systems[0]["name"], "world");
    let images: Vec<_> = s
        .images
        .iter()
        .map(|i| (i.node.as_str(), i.present))
        .collect();
    assert_eq!(images, [("crop", true), ("volume", true)]);
    let crop = &s.images[0];
    assert_eq!(crop.transforms.len(), 1);
    assert_eq!(crop.transforms[0]["name"], "crop in volume");
    assert_eq!(crop.incoming[0]["type"], "rotation");
    assert_eq!(
        (crop.input.as_deref(), crop.output.as_deref()),
        (Some("physical"), Some("physical"))
    );
    assert_eq!(crop.output_image.as_deref(), Some("volume"));
    let volume = &s.images[1];
    let types: Vec<_> = volume
        .transforms
        .iter()
        .map(|t| t["type"].clone())
        .collect();
    assert_eq!(types, ["affine", "bijection"]);
    assert_eq!(
        (volume.input.as_deref(), volume.output.as_deref()),
        (Some("physical"), Some("world"))
    );
    assert_eq!(volume.output_image, None);
    let crop = image(&zom, "crop");
    assert_eq!(names(&crop), ["y", "x"]);
    assert_eq!(
        (crop.y_axis, crop.x_axis, crop.channel_axis),
        (Some(0), Some(1), None)
    );
    assert_eq!(crop.channels.len(), 1);
    assert_eq!(crop.levels[0].scale, [0.5, 0.5]);
    // The transformation's array is no image.
    assert!(describe(&zom, "coordinateTransformations/volume-to-world")
        .view
        .is_none());
}

#[test]
fn level_for_picks_the_smallest_level_that_covers_the_picture() {
    let v = image(&zom_of("conventions/ome-0.5-image"), "");
    assert_eq!(ome::level_for(&v, 64, 64), 0);
    assert_eq!(ome::level_for(&v, 100, 100), 0);
    assert_eq!(ome::level_for(&v, 33, 33), 0);
    assert_eq!(ome::level_for(&v, 32, 32), 1);
    assert_eq!(ome::level_for(&v, 17, 16), 1);
    assert_eq!(ome::level_for(&v, 16, 16), 2);
    assert_eq!(ome::level_for(&v, 1, 1), 2);
    assert_eq!(ome::level_for(&v, 0, 0), 2);
    assert_eq!(ome::level_for(&v, 64, 1), 0);
    // Unknown shapes are skipped; none known: level 0.
    let mut partial = v.clone();
    partial.levels[2].shape = None;
    assert_eq!(ome::level_for(&partial, 1, 1), 1);
    let mut unknown = v.clone();
    for l in &mut unknown.levels {
        l.shape = None;
    }
    assert_eq!(ome::level_for(&unknown, 1, 1), 0);
    let mut no_axes = v;
    no_axes.x_axis = None;
    assert_eq!(ome::level_for(&no_axes, 1, 1), 0);
}

#[test]
fn level_to_open_asks_for_the_levels_a_picture_depends_on_from_the_smallest_up() {
    let v = image(&zom_of("conventions/ome-0.5-image"), "");
    let mut unknown = v.clone();
    for l in &mut unknown.levels {
        l.shape = None;
    }
    // Known shapes settle it.
    assert_eq!(ome::level_to_open(&v, 64, 64), None);
    // Nothing known: the smallest level first.
    assert_eq!(ome::level_to_open(&unknown, 16, 16), Some(2));
    // The smallest is large enough: no other level's shape matters.
    let mut smallest = unknown.clone();
    smallest.levels[2].shape = v.levels[2].shape.clone();
    assert_eq!(ome::level_to_open(&smallest, 16, 16), None);
    assert_eq!(ome::level_for(&smallest, 16, 16), 2);
    // Too small: the next one up, and so on to level 0.
    assert_eq!(ome::level_to_open(&smallest, 32, 32), Some(1));
    let mut two = smallest.clone();
    two.levels[1].shape = v.levels[1].shape.clone();
    assert_eq!(ome::level_to_open(&two, 32, 32), None);
    assert_eq!(ome::level_for(&two, 32, 32), 1);
    assert_eq!(ome::level_to_open(&two, 64, 64), Some(0));
    // Each answer, once its levels are opened, is level_for's with every shape known.
    for size in [0, 1, 16, 17, 32, 33, 64, 100] {
        let mut known = unknown.clone();
        while let Some(i) = ome::level_to_open(&known, size, size) {
            known.levels[i].shape = v.levels[i].shape.clone();
        }
        assert_eq!(
            ome::level_for(&known, size, size),
            ome::level_for(&v, size, size),
            "{size}"
        );
    }
    let mut no_axes = unknown;
    no_axes.x_axis = None;
    assert_eq!(ome::level_to_open(&no_axes, 1, 1), None);
}

#[test]
fn channels_without_omero_are_counted_from_any_level_known() {
    // A picture that opened only the level it draws: no omero, level 0's array unknown.
    let mut zom = zom_of("conventions/ome-0.4-image");
    let members = zom["members"].as_object_mut().unwrap();
    members.remove("s0");
    members.remove("s1");
    let v = image_of(&zom, "").0;
    assert_eq!(v.levels[0].shape, None);
    let colors: Vec<_> = v.channels.iter().map(|c| c.color.as_str()).collect();
    assert_eq!(colors, ["FF00FF", "00FF00"], "the c axis's length, from s2");
}

#[test]
fn old_string_axes_are_read() {
    let zom = json!({
        "zarr_format": 2, "attributes": {"multiscales": [{"version": "0.3", "axes": ["t", "c", "z", "y", "x"],
            "datasets": [{"path": "0"}]}]},
        "members": {"0": {"zarr_format": 2, "shape": [1, 3, 5, 64, 64], "chunks": [1, 1, 1, 64, 64],
            "dtype": "<u2", "attributes": {}}}
    });
    let v = image(&zom, "");
    assert_eq!(names(&v), ["t", "c", "z", "y", "x"]);
    assert_eq!(
        (v.time_axis, v.channel_axis, v.z_axis, v.y_axis, v.x_axis),
        (Some(0), Some(1), Some(2), Some(3), Some(4))
    );
    assert_eq!(v.levels[0].scale, [1.0; 5]);
    let colors: Vec<_> = v.channels.iter().map(|c| c.color.as_str()).collect();
    assert_eq!(colors, ["FF0000", "00FF00", "0000FF"]);
}

#[test]
fn default_colours_cycle_and_six_channels_are_active() {
    let zom = json!({
        "zarr_format": 3, "node_type": "group",
        "attributes": {"ome": {"version": "0.5", "multiscales": [{"axes": [
            {"name": "c", "type": "channel"}, {"name": "y", "type": "space"}, {"name": "x", "type": "space"}],
            "datasets": [{"path": "0", "coordinateTransformations": [{"type": "scale", "scale": [1, 1, 1]}]}],
            "coordinateTransformations": [{"type": "scale", "scale": [1, 2, 3]}, {"type": "translation", "translation": [0, 5, 6]}]}]}},
        "members": {"0": {"zarr_format": 3, "node_type": "array", "shape": [8, 4, 4], "data_type": "uint8",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, 4, 4]}}}}
    });
    let v = image(&zom, "");
    let colors: Vec<_> = v.channels.iter().map(|c| c.color.as_str()).collect();
    assert_eq!(
        colors,
        ["00FFFF", "FFFF00", "FF00FF", "FF0000", "00FF00", "0000FF", "00FFFF", "FFFF00"]
    );
    let active: Vec<_> = v.channels.iter().map(|c| c.active).collect();
    assert_eq!(active, [true, true, true, true, true, true, false, false]);
    // Multiscale-level transformations apply after the level's own (0.4, 0.5).
    assert_eq!(v.levels[0].scale, [1.0, 2.0, 3.0]);
    assert_eq!(v.levels[0].translation, [0.0, 5.0, 6.0]);
    assert_eq!(v.levels[0].chunks, Some(vec![1, 4, 4]));
}

#[test]
fn a_label_source_that_leaves_the_hierarchy_is_not_resolved() {
    for (source, expected) in [
        ("../../", Some("")),
        ("../..", Some("")),
        ("../../../", None),
        ("/abs", None),
        ("https://example.org/x.zarr", None),
        ("../other", Some("labels/other")),
    ] {
        let mut zom = zom_of("conventions/ome-0.5-image");
        node_mut(&mut zom, "labels/cells")["attributes"]["ome"]["image-label"]["source"] =
            json!({ "image": source });
        let v = image(&zom, "labels/cells");
        assert_eq!(
            v.label.unwrap().source_image.as_deref(),
            expected,
            "{source}"
        );
    }
}

#[test]
fn node_describes_as_the_view_functions_do() {
    let zom = zom_of("conventions/ome-0.4-image");
    let node = Node {
        root: &zom,
        path: String::new(),
        value: &zom,
    };
    let d = ome::image(&node).unwrap();
    assert_eq!(Some(View::Image(d.view)), describe(&zom, "").view);
    assert!(zom::view::collection::plate(&node).is_none());
    assert!(zom::view::collection::well(&node).is_none());
    assert!(zom::view::collection::series(&node).is_none());
    assert!(zom::view::collection::scene(&node).is_none());
}
