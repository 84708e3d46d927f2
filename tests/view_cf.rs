//! The xarray / CF dataset view (src/view/cf.rs): the real xarray fixtures
//! (tests/fixtures/conventions/xarray-*, written by xarray 2026.9) described exactly, mutated
//! copies for each CF problem, `unpack` and `ascending`. CF time decoding is
//! tests/view_cf_time.rs.

mod common;

use common::store::{block_on, store_from_dir};
use serde_json::{json, Value};
use zom::hierarchy::{walk, WalkOptions};
use zom::validate::{LocStep, ProblemKind, Severity};
use zom::view::cf::{self, ascending, unpack, DatasetView, Packing};
use zom::view::{describe, Node, View};

/// The ZOM of a convention fixture, as zom reads it (walked, then `to_value`).
fn zom_of(dir: &str) -> Value {
    let store = store_from_dir(&common::fixtures().join("conventions").join(dir));
    let walked = block_on(walk(&store, "", &WalkOptions::default(), &mut |_| {})).unwrap();
    walked.root.to_value()
}

fn node<'a>(zom: &'a Value, path: &str) -> Node<'a> {
    Node {
        root: zom,
        path: path.to_string(),
        value: zom::view::node_at(zom, path).unwrap(),
    }
}

/// The dataset view of the root and its problems.
fn described(zom: &Value) -> (DatasetView, Vec<zom::validate::Problem>) {
    let d = cf::dataset(&node(zom, "")).expect("a dataset");
    (d.view, d.problems)
}

/// The root's dataset view as JSON (NaN fill values are `null` there, as the page gets them).
fn view_json(zom: &Value) -> Value {
    let (view, problems) = described(zom);
    assert!(problems.is_empty(), "{problems:?}");
    serde_json::to_value(view).unwrap()
}

fn packing(fill: &[Value]) -> Value {
    json!({"scale_factor": null, "add_offset": null, "fill_values": fill,
           "valid_min": null, "valid_max": null})
}

#[allow(clippy::too_many_arguments)]
fn var(
    name: &str,
    dims: &[&str],
    shape: &[u64],
    data_type: &str,
    units: Option<&str>,
    axis: Option<&str>,
    coordinates: &[&str],
    fill: &[Value],
) -> Value {
    json!({
        "name": name, "node": name, "dims": dims, "shape": shape, "data_type": data_type,
        "units": units, "long_name": null, "standard_name": null, "axis": axis,
        "coordinates": coordinates, "packing": packing(fill), "time": null,
        "grid_mapping": null, "bounds": null,
    })
}

#[rustfmt::skip]
fn expected_xarray() -> Value {
    let nan = [Value::Null];
    let mut time = var("time", &["time"], &[3], "int64", Some("days since 2020-01-01 00:00:00"), Some("time"), &[], &[]);
    time["time"] = json!({"units": "days since 2020-01-01 00:00:00", "calendar": "proleptic_gregorian",
                          "unit": "days", "epoch": "2020-01-01T00:00:00"});
    let data = |name: &str, units: &str, long_name: &str| {
        let mut v = var(name, &["time", "lat", "lon"], &[3, 4, 5], "float32", Some(units), None, &["time", "lat", "lon", "cell_area"], &nan);
        v["long_name"] = json!(long_name);
        v
    };
    json!({
        // As xarray's open_zarr orders them: {'time': 3, 'lat': 4, 'lon': 5}.
        "dimensions": [{"name": "time", "size": 3}, {"name": "lat", "size": 4}, {"name": "lon", "size": 5}],
        "coordinates": [
            var("lat", &["lat"], &[4], "float64", Some("degrees_north"), Some("latitude"), &[], &nan),
            var("lon", &["lon"], &[5], "float64", Some("degrees_east"), Some("longitude"), &[], &nan),
            time,
            var("cell_area", &["lat", "lon"], &[4, 5], "float32", Some("km2"), None, &[], &nan),
        ],
        "data_variables": [data("precip", "mm/day", "precipitation"), data("temperature", "degC", "air temperature")],
        "attributes": {"title": "zom convention fixture"},
    })
}

#[test]
fn xarray_fixtures_describe_their_dimensions_coordinates_and_variables() {
    for dir in ["xarray-v2", "xarray-v3"] {
        let got = view_json(&zom_of(dir));
        common::assert_json_eq(&got, &expected_xarray(), dir);
    }
}

#[rustfmt::skip]
fn expected_xarray_cf() -> Value {
    let nan = [Value::Null];
    let mut lat = var("lat", &["lat"], &[4], "float64", Some("degrees_north"), Some("latitude"), &[], &nan);
    lat["bounds"] = json!("lat_bnds");
    let mut lon = var("lon", &["lon"], &[5], "float64", Some("degrees_east"), Some("longitude"), &[], &nan);
    lon["bounds"] = json!("lon_bnds");
    let mut tas = var("tas", &["lat", "lon"], &[4, 5], "float32", Some("K"), None, &["lat", "lon"], &nan);
    tas["grid_mapping"] = json!("crs");
    json!({
        // As xarray's open_zarr orders them: {'lat': 4, 'bnds': 2, 'lon': 5}.
        "dimensions": [{"name": "lat", "size": 4}, {"name": "bnds", "size": 2}, {"name": "lon", "size": 5}],
        "coordinates": [lat, lon],
        "data_variables": [
            var("crs", &[], &[], "int32", None, None, &[], &[]),
            var("lat_bnds", &["lat", "bnds"], &[4, 2], "float64", None, None, &["lat"], &nan),
            var("lon_bnds", &["lon", "bnds"], &[5, 2], "float64", None, None, &["lon"], &nan),
            tas,
        ],
        "attributes": {"Conventions": "CF-1.11", "title": "zom convention fixture: CF grid mapping and bounds"},
    })
}

#[test]
fn xarray_cf_fixtures_keep_grid_mapping_and_bounds_variables_as_data_variables() {
    for dir in ["xarray-cf-v2", "xarray-cf-v3"] {
        let got = view_json(&zom_of(dir));
        common::assert_json_eq(&got, &expected_xarray_cf(), dir);
    }
}

#[test]
fn describe_finds_the_dataset_at_the_root_only() {
    let zom = zom_of("xarray-v3");
    let d = describe(&zom, "");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    let Some(View::Dataset(view)) = &d.view else {
        panic!("{:?}", d.view)
    };
    assert_eq!(view.data_variables.len(), 2);
    assert_eq!(serde_json::to_value(&d).unwrap()["view"]["kind"], "dataset");
    // An array is no dataset; neither is a group without named dimensions nor an OME image.
    assert!(cf::dataset(&node(&zom, "time")).is_none());
    let mut unnamed = zom.clone();
    for (_, member) in unnamed["members"].as_object_mut().unwrap() {
        member["dimension_names"] = Value::Null;
    }
    assert!(cf::dataset(&node(&unnamed, "")).is_none());
    let mut ome = zom.clone();
    ome["attributes"]["ome"] = json!({"version": "0.5", "multiscales": []});
    assert!(cf::dataset(&node(&ome, "")).is_none());
    for dir in ["ome-0.4-image", "ome-0.5-image", "ome-0.5-plate"] {
        let zom = zom_of(dir);
        for path in zom::view::node_paths(&zom) {
            assert!(cf::dataset(&node(&zom, &path)).is_none(), "{dir} {path}");
        }
    }
    // ngff-zarr puts each level array in a group of its own. In 0.5 the array names its
    // dimensions: that group is a dataset as xarray opens it (the image around it is not). In
    // 0.4 ngff-zarr writes _ARRAY_DIMENSIONS on the group, not the array: no dataset.
    let zom = zom_of("ngff-zarr-0.4-image");
    for path in zom::view::node_paths(&zom) {
        assert!(
            cf::dataset(&node(&zom, &path)).is_none(),
            "ngff-zarr-0.4-image {path}"
        );
    }
    {
        let dir = "ngff-zarr-0.5-image";
        let zom = zom_of(dir);
        assert!(cf::dataset(&node(&zom, "")).is_none(), "{dir}");
        let level = cf::dataset(&node(&zom, "scale0")).expect(dir);
        assert!(level.problems.is_empty());
        let image = &level.view.data_variables[0];
        assert_eq!(
            (image.node.as_str(), &image.dims),
            (
                "scale0/image",
                &vec!["c".to_string(), "y".into(), "x".into()]
            )
        );
        assert_eq!(level.view.dimensions.len(), 3);
    }
}

#[test]
fn arrays_without_named_dimensions_are_left_out() {
    let mut zom = zom_of("xarray-v3");
    zom["members"]["precip"]["dimension_names"] = json!(["time", null, "lon"]);
    zom["members"]["cell_area"]["dimension_names"] = json!(["lat"]);
    let (view, _) = described(&zom);
    let names: Vec<&str> = view
        .data_variables
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(names, ["temperature"]);
    // cell_area is still named by temperature's coordinates, but gone: not a coordinate.
    assert_eq!(view.coordinates.len(), 3);
    assert_eq!(view.data_variables[0].coordinates, ["time", "lat", "lon"]);
}

/// The one problem a mutated ZOM's dataset view finds.
fn one_problem(zom: &Value) -> zom::validate::Problem {
    let (_, problems) = described(zom);
    assert_eq!(problems.len(), 1, "{problems:?}");
    problems.into_iter().next().unwrap()
}

fn at(key: &str) -> Vec<LocStep> {
    vec![LocStep::Key("attributes".into()), LocStep::Key(key.into())]
}

#[test]
fn undecodable_time_units_and_calendars_are_problems_at_the_attribute() {
    #[rustfmt::skip]
    let cases: &[(&str, Value, &str, ProblemKind, Severity)] = &[
        ("units", json!("days since 2020-13-01"), "units", ProblemKind::InvalidValue, Severity::Error),
        ("units", json!("days since yesterday"), "units", ProblemKind::InvalidValue, Severity::Error),
        ("units", json!("days since"), "units", ProblemKind::InvalidValue, Severity::Error),
        ("units", json!("fortnights since 2020-01-01"), "units", ProblemKind::InvalidValue, Severity::Error),
        ("units", json!("days since 2020-01-01 25:00:00"), "units", ProblemKind::InvalidValue, Severity::Error),
        ("units", json!("days since 2020-01-01 00:00:00 and then some"), "units", ProblemKind::InvalidValue, Severity::Error),
        // CF allows months (UDUNITS) but advises against them; nothing decodes them.
        ("units", json!("months since 2020-01-01"), "units", ProblemKind::InvalidValue, Severity::Warning),
        // Not in the proleptic_gregorian calendar the fixture's time is in.
        ("units", json!("days since 2021-02-29"), "units", ProblemKind::InvalidValue, Severity::Error),
        ("calendar", json!("lunar"), "calendar", ProblemKind::InvalidValue, Severity::Error),
        ("calendar", json!(360), "calendar", ProblemKind::InvalidType, Severity::Error),
    ];
    for dir in ["xarray-v2", "xarray-v3"] {
        for (key, value, loc, kind, severity) in cases {
            let mut zom = zom_of(dir);
            zom["members"]["time"]["attributes"][*key] = value.clone();
            let p = one_problem(&zom);
            assert_eq!(
                (p.path.as_str(), &p.loc, p.kind, p.severity),
                ("time", &at(loc), *kind, *severity),
                "{dir} {value}"
            );
            let (view, _) = described(&zom);
            assert_eq!(view.coordinates[2].time, None, "{dir} {value}");
        }
    }
    // Valid, but not decodable here: no problem, no time encoding.
    for calendar in ["none", "utc", "TAI"] {
        let mut zom = zom_of("xarray-v3");
        zom["members"]["time"]["attributes"]["calendar"] = json!(calendar);
        let (view, problems) = described(&zom);
        assert!(problems.is_empty(), "{calendar}: {problems:?}");
        assert_eq!(view.coordinates[2].time, None);
    }
    // 29 February 2021 exists in all_leap, and 30 February in 360_day.
    for (units, calendar, epoch) in [
        ("days since 2021-02-29", "ALL_LEAP", "2021-02-29T00:00:00"),
        (
            "hours since 2021-02-30 06:00",
            "360_day",
            "2021-02-30T06:00:00",
        ),
        (
            "seconds since 2000-01-01 00:00:00 +05:30",
            "gregorian",
            "1999-12-31T18:30:00",
        ),
        ("d since 1-1-1", "julian", "0001-01-01T00:00:00"),
    ] {
        let mut zom = zom_of("xarray-v3");
        zom["members"]["time"]["attributes"] = json!({"units": units, "calendar": calendar});
        let (view, problems) = described(&zom);
        assert!(problems.is_empty(), "{units}: {problems:?}");
        let time = view.coordinates[2].time.clone().unwrap();
        assert_eq!(time.epoch, epoch);
        assert_eq!(time.calendar, calendar.to_lowercase());
    }
}

#[test]
fn packing_attributes_of_the_wrong_type_or_value_are_problems() {
    let cases: &[(&str, Value, ProblemKind)] = &[
        ("scale_factor", json!("0.01"), ProblemKind::InvalidType),
        ("add_offset", json!({"value": 1}), ProblemKind::InvalidType),
        ("add_offset", json!([1, 2]), ProblemKind::InvalidType),
        ("missing_value", json!("none"), ProblemKind::InvalidType),
        ("valid_range", json!("0 10"), ProblemKind::InvalidType),
        ("valid_range", json!([0, "10"]), ProblemKind::InvalidType),
        ("valid_range", json!([0]), ProblemKind::InvalidValue),
        ("valid_range", json!([0, 5, 10]), ProblemKind::InvalidValue),
        ("valid_range", json!([10, 0]), ProblemKind::InvalidValue),
        ("valid_min", json!(true), ProblemKind::InvalidType),
        ("_FillValue", json!(true), ProblemKind::InvalidType),
        // A float's _FillValue in v3 is the base64 of 8 bytes.
        (
            "_FillValue",
            json!("not base64!"),
            ProblemKind::InvalidValue,
        ),
        ("_FillValue", json!("AAAA"), ProblemKind::InvalidValue),
    ];
    for (key, value, kind) in cases {
        let mut zom = zom_of("xarray-v3");
        zom["members"]["temperature"]["attributes"][*key] = value.clone();
        let p = one_problem(&zom);
        assert_eq!(
            (p.path.as_str(), &p.loc, p.kind, p.severity),
            ("temperature", &at(key), *kind, Severity::Error),
            "{key} {value}"
        );
    }
    // In v2 the mask is the array's fill_value; a string _FillValue of an integer is wrong.
    let mut zom = zom_of("xarray-v2");
    zom["members"]["time"]["attributes"]["_FillValue"] = json!("-1");
    let p = one_problem(&zom);
    assert_eq!(
        (p.path.as_str(), &p.loc, p.kind),
        ("time", &at("_FillValue"), ProblemKind::InvalidType)
    );
}

#[test]
fn packing_reads_scale_offset_fill_missing_and_valid_values() {
    let mut zom = zom_of("xarray-v3");
    let t = &mut zom["members"]["temperature"];
    t["data_type"] = json!("int16");
    t["attributes"]["scale_factor"] = json!(0.01);
    t["attributes"]["add_offset"] = json!([273.15]);
    t["attributes"]["_FillValue"] = json!(-32768);
    t["attributes"]["missing_value"] = json!([-999, -32768, "NaN"]);
    t["attributes"]["valid_range"] = json!([-5000, 5000]);
    t["attributes"]["valid_max"] = json!(4000);
    let (view, problems) = described(&zom);
    assert!(problems.is_empty(), "{problems:?}");
    let v = &view.data_variables[1];
    assert_eq!(v.data_type, "int16");
    let p = &v.packing;
    assert_eq!((p.scale_factor, p.add_offset), (Some(0.01), Some(273.15)));
    assert_eq!(&p.fill_values[..2], [-32768.0, -999.0]);
    assert!(p.fill_values[2].is_nan() && p.fill_values.len() == 3);
    assert_eq!((p.valid_min, p.valid_max), (Some(-5000.0), Some(4000.0)));
    // v3 float _FillValue: base64 of the little-endian float64, and the JSON specials.
    let mut zom = zom_of("xarray-v3");
    zom["members"]["precip"]["attributes"]["_FillValue"] = json!("AAAAAAAA8L8="); // -1.0
    zom["members"]["temperature"]["attributes"]["_FillValue"] = json!("-Infinity");
    let (view, problems) = described(&zom);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(view.data_variables[0].packing.fill_values, [-1.0]);
    assert_eq!(
        view.data_variables[1].packing.fill_values,
        [f64::NEG_INFINITY]
    );
    // v3: the array's fill_value is no mask without _FillValue (time's fill_value is 0).
    assert!(view.coordinates[2].packing.fill_values.is_empty());
    // v2: the array's fill_value is the mask, over a _FillValue attribute.
    let mut zom = zom_of("xarray-v2");
    zom["members"]["time"]["fill_value"] = json!(-1);
    zom["members"]["time"]["attributes"]["_FillValue"] = json!(7);
    zom["members"]["lat"]["fill_value"] = json!("Infinity");
    let (view, problems) = described(&zom);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(view.coordinates[2].packing.fill_values, [-1.0]);
    assert_eq!(view.coordinates[0].packing.fill_values, [f64::INFINITY]);
}

#[test]
fn coordinate_axes_follow_cf_rules_before_names() {
    let cases: &[(Value, Option<&str>)] = &[
        (json!({"standard_name": "latitude"}), Some("latitude")),
        (
            json!({"standard_name": "longitude", "units": "degrees_north"}),
            Some("longitude"),
        ),
        (
            json!({"standard_name": "projection_x_coordinate"}),
            Some("x"),
        ),
        (json!({"standard_name": "grid_latitude"}), Some("y")),
        (json!({"standard_name": "air_pressure"}), Some("vertical")),
        (
            json!({"standard_name": "atmosphere_sigma_coordinate"}),
            Some("vertical"),
        ),
        (json!({"units": "degreeN"}), Some("latitude")),
        (json!({"units": "degrees_E"}), Some("longitude")),
        (json!({"units": "hours since 2000-01-01"}), Some("time")),
        (json!({"units": "hPa"}), Some("vertical")),
        (json!({"axis": "X"}), Some("x")),
        (json!({"axis": "Y", "units": "m"}), Some("y")),
        (json!({"axis": "Z"}), Some("vertical")),
        (json!({"axis": "T"}), Some("time")),
        (json!({"positive": "down", "units": "m"}), Some("vertical")),
        (json!({"units": "m"}), None),
    ];
    for (attrs, axis) in cases {
        let mut zom = zom_of("xarray-v3");
        zom["members"]["cell_area"]["attributes"] = attrs.clone();
        let (view, _) = described(&zom);
        assert_eq!(view.coordinates[3].axis.as_deref(), *axis, "{attrs}");
    }
    // By name when the attributes say nothing: lat, lon, time as written by xarray.
    let mut zom = zom_of("xarray-v3");
    for name in ["lat", "lon", "time"] {
        zom["members"][name]["attributes"] = json!({});
    }
    let (view, _) = described(&zom);
    let axes: Vec<_> = view.coordinates.iter().map(|c| c.axis.clone()).collect();
    assert_eq!(
        axes,
        [
            Some("latitude".into()),
            Some("longitude".into()),
            Some("time".into()),
            None
        ]
    );
}

#[test]
fn group_coordinates_attribute_makes_coordinates_too() {
    let mut zom = zom_of("xarray-cf-v3");
    zom["attributes"]["coordinates"] = json!("crs");
    let (view, _) = described(&zom);
    let coords: Vec<&str> = view.coordinates.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(coords, ["lat", "lon", "crs"]);
}

fn packed(
    fill: &[f64],
    min: Option<f64>,
    max: Option<f64>,
    scale: Option<f64>,
    offset: Option<f64>,
) -> Packing {
    Packing {
        scale_factor: scale,
        add_offset: offset,
        fill_values: fill.to_vec(),
        valid_min: min,
        valid_max: max,
    }
}

/// NaN-aware equality of decoded values.
fn same(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
}

#[test]
fn unpack_masks_fill_and_invalid_values_then_scales() {
    let nan = f64::NAN;
    let p = packed(
        &[-32768.0, nan],
        Some(-100.0),
        Some(100.0),
        Some(0.5),
        Some(10.0),
    );
    let got = unpack(&p, &[-32768.0, nan, -101.0, 101.0, -100.0, 0.0, 100.0, 3.0]);
    assert!(
        same(&got, &[nan, nan, nan, nan, -40.0, 10.0, 60.0, 11.5]),
        "{got:?}"
    );
    // No packing: values as stored; NaN stays NaN.
    let got = unpack(&Packing::default(), &[1.5, nan, -0.0]);
    assert!(same(&got, &[1.5, nan, -0.0]) && got[2].is_sign_negative());
    assert!(unpack(&p, &[]).is_empty());
    // Scale only, offset only.
    assert_eq!(
        unpack(&packed(&[], None, None, Some(0.01), None), &[250.0]),
        [2.5]
    );
    assert_eq!(
        unpack(&packed(&[], None, None, None, Some(273.15)), &[0.0]),
        [273.15]
    );
    // Infinite stored values stay infinite unless masked.
    let got = unpack(
        &packed(&[f64::INFINITY], None, None, None, None),
        &[f64::INFINITY, f64::NEG_INFINITY],
    );
    assert!(got[0].is_nan() && got[1] == f64::NEG_INFINITY);
}

#[test]
fn ascending_compares_the_first_and_last_finite_values() {
    let nan = f64::NAN;
    assert_eq!(ascending(&[40.0, 41.0, 42.0, 43.0]), Some(true));
    assert_eq!(ascending(&[90.0, 0.0, -90.0]), Some(false));
    assert_eq!(ascending(&[nan, 1.0, 0.5, 2.0, nan]), Some(true));
    assert_eq!(ascending(&[f64::INFINITY, 3.0, 2.0]), Some(false));
    assert_eq!(ascending(&[1.0, 1.0]), Some(false));
    assert_eq!(ascending(&[1.0]), None);
    assert_eq!(ascending(&[nan, 1.0, nan]), None);
    assert_eq!(ascending(&[]), None);
}
