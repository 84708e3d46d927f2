//! xarray / CF datasets: dimensions, coordinates, data variables and their CF decoding.
//!
//! A dataset is read as `xr.open_zarr` reads it with its defaults (`decode_coords=True`):
//! coordinates are the dimension coordinates and the variables a `coordinates` attribute (of a
//! variable or of the group) names; `grid_mapping` and `bounds` variables stay data variables
//! (they are named, not moved). Fill values are xarray's: a v2 array's `fill_value` (zarr
//! v2's fill value is xarray's mask there), a v3 array's `_FillValue` attribute (base64 of the
//! little-endian float64 for float data types, as xarray's `FillValueCoder` writes it).

use super::cf_time::{self, Calendar};
use super::{Described, Node};
use crate::dtype::DataType;
use crate::problem::{name_of, show, tname, LocStep, Problem, ProblemKind, Severity};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

mod packing;

use packing::packing_of;
pub use packing::{unpack, Packing};

/// Group attributes that make a group something other than a dataset (OME-Zarr).
const NOT_DATASET: [&str; 5] = ["ome", "multiscales", "plate", "well", "labels"];

/// An xarray / CF dataset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DatasetView {
    /// The dimensions, in first-seen order over the data variables, then the coordinates (the
    /// order xarray's `open_zarr` gives them).
    pub dimensions: Vec<Dimension>,
    /// Dimension coordinates (1-D arrays named like their dimension) by name, then auxiliary
    /// coordinates (named by a `coordinates` attribute) by name.
    pub coordinates: Vec<Variable>,
    /// The other arrays whose dimensions are named, by name.
    pub data_variables: Vec<Variable>,
    /// The group's attributes (`title`, `Conventions`, …).
    pub attributes: Map<String, Value>,
}

/// A dimension of a dataset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Dimension {
    /// Its name.
    pub name: String,
    /// Its length (the first array's that uses it).
    pub size: u64,
}

/// A variable of a dataset: one array member.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Variable {
    /// The member's name.
    pub name: String,
    /// The array's node path.
    pub node: String,
    /// Its dimensions' names, one per axis.
    pub dims: Vec<String>,
    /// Its shape.
    pub shape: Vec<u64>,
    /// Its data type's v3 name (`float32`; v2 typestrings translated, `<f4` → `float32`).
    pub data_type: String,
    /// The `units` attribute.
    pub units: Option<String>,
    /// The `long_name` attribute.
    pub long_name: Option<String>,
    /// The `standard_name` attribute.
    pub standard_name: Option<String>,
    /// For coordinates: what the coordinate measures (`latitude`, `longitude`, `time`,
    /// `vertical`, `x`, `y`), by CF's rules, else by name.
    pub axis: Option<String>,
    /// For data variables: the dimension coordinates of its dimensions (in dimension order),
    /// then the other variables its `coordinates` attribute names.
    pub coordinates: Vec<String>,
    /// How stored values decode to physical ones.
    pub packing: Packing,
    /// The time encoding, when the units are `"<unit> since <date>"`.
    pub time: Option<TimeEncoding>,
    /// The `grid_mapping` attribute (the name of the grid-mapping variable, or CF's extended
    /// form as written).
    pub grid_mapping: Option<String>,
    /// The `bounds` attribute: the name of the bounds variable.
    pub bounds: Option<String>,
}

/// A CF time encoding: offsets in `unit` since `epoch` in `calendar`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TimeEncoding {
    /// The `units` attribute as written.
    pub units: String,
    /// The `calendar` attribute, lower-cased (`standard` when absent).
    pub calendar: String,
    /// The offsets' unit: `days`, `hours`, `minutes`, `seconds`, `milliseconds`,
    /// `microseconds` or `nanoseconds`.
    pub unit: String,
    /// The epoch in UTC, ISO 8601 (`2026-01-01T00:00:00`, see [`cf_time::CfDate::iso`]).
    pub epoch: String,
}

/// The dataset view of `node`: `Some` for a group (not an OME-Zarr one) with at least one
/// array member whose dimensions are named (v2 `_ARRAY_DIMENSIONS`, v3 `dimension_names` all
/// strings).
pub fn dataset(node: &Node) -> Option<Described<DatasetView>> {
    if node.is_array() {
        return None;
    }
    let attributes = node.attributes();
    if NOT_DATASET.iter().any(|k| attributes.contains_key(*k)) {
        return None;
    }
    let members = node.value.get("members")?.as_object()?;
    let mut arrays: Vec<(String, Node, Vec<String>)> = Vec::new();
    let mut named = false;
    for name in members.keys() {
        let Some(child) = node.child(name) else {
            continue;
        };
        if !child.is_array() {
            continue;
        }
        if let Some((dims, explicit)) = dimension_names(&child) {
            named |= explicit;
            arrays.push((name.clone(), child, dims));
        }
    }
    if !named {
        return None;
    }
    arrays.sort_by(|a, b| a.0.cmp(&b.0));
    let mut problems = Vec::new();

    let is_dimension_coordinate =
        |(name, _, dims): &(String, Node, Vec<String>)| dims.len() == 1 && dims[0] == *name;
    let dimension_coordinates: BTreeSet<&str> = arrays
        .iter()
        .filter(|a| is_dimension_coordinate(a))
        .map(|a| a.0.as_str())
        .collect();
    let present: BTreeSet<&str> = arrays.iter().map(|a| a.0.as_str()).collect();
    let mut auxiliary: BTreeSet<&str> = BTreeSet::new();
    let group_coordinates = attributes.get("coordinates").and_then(Value::as_str);
    for listed in arrays
        .iter()
        .filter_map(|a| a.1.attributes().get("coordinates").and_then(Value::as_str))
        .chain(group_coordinates)
    {
        for name in listed.split_whitespace() {
            if let Some(&known) = present.get(name) {
                if !dimension_coordinates.contains(known) {
                    auxiliary.insert(known);
                }
            }
        }
    }

    let mut coordinates = Vec::new();
    let mut auxiliaries = Vec::new();
    let mut data_variables = Vec::new();
    for (name, child, dims) in &arrays {
        let is_coordinate = dimension_coordinates.contains(name.as_str());
        let is_auxiliary = auxiliary.contains(name.as_str());
        let mut v = variable(name, child, dims, &mut problems);
        if is_coordinate || is_auxiliary {
            v.axis = axis_of(name, child.attributes());
        } else {
            v.coordinates = coordinates_of(name, dims, child, &dimension_coordinates, &present);
        }
        match (is_coordinate, is_auxiliary) {
            (true, _) => coordinates.push(v),
            (false, true) => auxiliaries.push(v),
            _ => data_variables.push(v),
        }
    }
    coordinates.extend(auxiliaries);

    let mut dimensions: Vec<Dimension> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    // xarray's order: first seen over the data variables (by name), then the coordinates.
    for v in data_variables.iter().chain(&coordinates) {
        for (name, size) in v.dims.iter().zip(&v.shape) {
            if seen.insert(name) {
                dimensions.push(Dimension {
                    name: name.clone(),
                    size: *size,
                });
            }
        }
    }
    Some(Described {
        view: DatasetView {
            dimensions,
            coordinates,
            data_variables,
            attributes: attributes.clone(),
        },
        problems,
    })
}

/// An array's dimension names, when it has them, and whether they were written (a v3 0-d
/// array without `dimension_names` has none to write). `None` when they are missing, not
/// strings, or not one per axis.
fn dimension_names(array: &Node) -> Option<(Vec<String>, bool)> {
    let rank = array.value.get("shape")?.as_array()?.len();
    let written = if array.format() == 2 {
        array.attributes().get("_ARRAY_DIMENSIONS")
    } else {
        array.value.get("dimension_names").filter(|d| !d.is_null())
    };
    let Some(written) = written else {
        return (rank == 0 && array.format() != 2).then(|| (Vec::new(), false));
    };
    let names: Vec<String> = written
        .as_array()?
        .iter()
        .map(|n| n.as_str().map(str::to_string))
        .collect::<Option<_>>()?;
    (names.len() == rank).then_some((names, true))
}

/// The variable of array `node` named `name`, its problems added to `problems`.
fn variable(name: &str, node: &Node, dims: &[String], problems: &mut Vec<Problem>) -> Variable {
    let attrs = node.attributes();
    let text = |key: &str| attrs.get(key).and_then(Value::as_str).map(str::to_string);
    let shape = node
        .value
        .get("shape")
        .and_then(Value::as_array)
        .map(|s| s.iter().map(|n| n.as_u64().unwrap_or(0)).collect())
        .unwrap_or_default();
    let data_type = data_type_of(node);
    let mut report = Report {
        path: &node.path,
        problems,
    };
    let packing = packing_of(node, &data_type, &mut report);
    let time = time_of(attrs, &mut report);
    Variable {
        name: name.to_string(),
        node: node.path.clone(),
        dims: dims.to_vec(),
        shape,
        data_type,
        units: text("units"),
        long_name: text("long_name"),
        standard_name: text("standard_name"),
        axis: None,
        coordinates: Vec::new(),
        packing,
        time,
        grid_mapping: text("grid_mapping"),
        bounds: text("bounds"),
    }
}

/// The data type's v3 name (a v2 typestring translated; one zom cannot read as written).
fn data_type_of(node: &Node) -> String {
    let obj = node.value;
    if node.format() != 2 {
        return obj
            .get("data_type")
            .and_then(name_of)
            .unwrap_or("")
            .to_string();
    }
    let Some(dtype) = obj.get("dtype") else {
        return String::new();
    };
    let filters = obj.get("filters").and_then(Value::as_array);
    let compressor = obj.get("compressor").filter(|c| !c.is_null());
    DataType::from_v2_codecs(dtype, filters.map(Vec::as_slice), compressor)
        .ok()
        .and_then(|(t, _)| match t.to_v3().to_value() {
            Value::String(name) => Some(name),
            Value::Object(o) => o.get("name").and_then(Value::as_str).map(str::to_string),
            _ => None,
        })
        .unwrap_or_else(|| dtype.as_str().map_or_else(|| show(dtype), str::to_string))
}

/// Reports problems at a variable's attributes.
struct Report<'p> {
    path: &'p str,
    problems: &'p mut Vec<Problem>,
}

impl Report<'_> {
    /// A problem at `["attributes", key]`.
    fn at(&mut self, key: &str, kind: ProblemKind, message: String) -> &mut Problem {
        let loc = [LocStep::Key("attributes".into()), LocStep::Key(key.into())];
        self.problems
            .push(Problem::error(self.path, &loc, kind, message));
        let last = self.problems.len() - 1;
        &mut self.problems[last]
    }

    /// An `invalid_type` problem: `key` must be `want`, not `value`.
    fn wrong_type(&mut self, key: &str, want: &str, value: &Value) {
        let message = format!("{key} must be {want}, not {} {}", tname(value), show(value));
        self.at(key, ProblemKind::InvalidType, message);
    }
}

/// The time encoding of a variable whose units are `"<unit> since <date>"`.
fn time_of(attrs: &Map<String, Value>, report: &mut Report) -> Option<TimeEncoding> {
    let units = attrs.get("units").and_then(Value::as_str)?;
    let mut words = units.split_whitespace();
    let first = words.next()?.to_ascii_lowercase();
    if !words.next()?.eq_ignore_ascii_case("since") {
        return None;
    }
    let calendar_name = match attrs.get("calendar") {
        None => "standard".to_string(),
        Some(Value::String(s)) => s.trim().to_ascii_lowercase(),
        Some(other) => {
            report.wrong_type("calendar", "a string", other);
            return None;
        }
    };
    let parsed = match cf_time::parse_units(units) {
        Ok(parsed) => parsed,
        Err(why) => {
            let p = report.at("units", ProblemKind::InvalidValue, why);
            // CF allows months and years (UDUNITS) but advises against them: cftime decodes
            // them in few calendars, xarray in none.
            let discouraged = [
                "month",
                "months",
                "year",
                "years",
                "common_year",
                "common_years",
            ];
            if discouraged.contains(&first.as_str()) {
                p.severity = Severity::Warning;
            }
            return None;
        }
    };
    let Some(calendar) = Calendar::parse(&calendar_name) else {
        // "none" (CF 1.8 and before) and CF 1.11's "utc" and "tai": valid, not decodable.
        if !matches!(calendar_name.as_str(), "none" | "utc" | "tai") {
            let message = format!(
                "unknown calendar {} (standard, gregorian, proleptic_gregorian, noleap, \
                 365_day, all_leap, 366_day, 360_day, julian)",
                show(&Value::String(calendar_name))
            );
            report.at("calendar", ProblemKind::InvalidValue, message);
        }
        return None;
    };
    let epoch = match parsed.epoch_in(calendar) {
        Ok(epoch) => epoch,
        Err(why) => {
            let message = format!(
                "the epoch of {} in the {calendar_name} calendar: {why}",
                show(&Value::String(units.to_string()))
            );
            report.at("units", ProblemKind::InvalidValue, message);
            return None;
        }
    };
    Some(TimeEncoding {
        units: units.to_string(),
        calendar: calendar_name,
        unit: parsed.unit.name().to_string(),
        epoch: epoch.iso(),
    })
}

/// What a coordinate measures, by CF's rules (standard_name, units, axis, positive), else by
/// its name.
fn axis_of(name: &str, attrs: &Map<String, Value>) -> Option<String> {
    let text = |key: &str| attrs.get(key).and_then(Value::as_str).map(str::trim);
    let by_standard_name = text("standard_name").and_then(|s| match s {
        "latitude" => Some("latitude"),
        "longitude" => Some("longitude"),
        "time" => Some("time"),
        "projection_x_coordinate" | "grid_longitude" | "projection_x_angular_coordinate" => {
            Some("x")
        }
        "projection_y_coordinate" | "grid_latitude" | "projection_y_angular_coordinate" => {
            Some("y")
        }
        s if VERTICAL_STANDARD_NAMES.contains(&s)
            || (s.starts_with("atmosphere_") || s.starts_with("ocean_"))
                && s.ends_with("_coordinate") =>
        {
            Some("vertical")
        }
        _ => None,
    });
    let by_units = text("units").and_then(|u| {
        let lower = u.to_ascii_lowercase();
        if LATITUDE_UNITS.contains(&u) {
            Some("latitude")
        } else if LONGITUDE_UNITS.contains(&u) {
            Some("longitude")
        } else if lower.split_whitespace().nth(1) == Some("since") {
            Some("time")
        } else if PRESSURE_UNITS.contains(&u) {
            Some("vertical")
        } else {
            None
        }
    });
    let by_axis = text("axis").and_then(|a| match a {
        "X" | "x" => Some("x"),
        "Y" | "y" => Some("y"),
        "Z" | "z" => Some("vertical"),
        "T" | "t" => Some("time"),
        _ => None,
    });
    let by_positive = text("positive")
        .filter(|p| p.eq_ignore_ascii_case("up") || p.eq_ignore_ascii_case("down"))
        .map(|_| "vertical");
    let by_name = match name.to_ascii_lowercase().as_str() {
        "lat" | "latitude" | "nav_lat" | "y_lat" => Some("latitude"),
        "lon" | "long" | "longitude" | "nav_lon" | "x_lon" => Some("longitude"),
        "time" | "t" => Some("time"),
        "x" => Some("x"),
        "y" => Some("y"),
        "z" | "lev" | "level" | "plev" | "depth" | "height" | "altitude" | "pressure" => {
            Some("vertical")
        }
        _ => None,
    };
    by_standard_name
        .or(by_units)
        .or(by_axis)
        .or(by_positive)
        .or(by_name)
        .map(str::to_string)
}

/// CF's latitude units (section 4.1).
#[rustfmt::skip]
const LATITUDE_UNITS: [&str; 6] =
    ["degrees_north", "degree_north", "degree_N", "degrees_N", "degreeN", "degreesN"];
/// CF's longitude units (section 4.2).
#[rustfmt::skip]
const LONGITUDE_UNITS: [&str; 6] =
    ["degrees_east", "degree_east", "degree_E", "degrees_E", "degreeE", "degreesE"];
/// Units of pressure, which make a coordinate vertical (CF section 4.3).
#[rustfmt::skip]
const PRESSURE_UNITS: [&str; 10] =
    ["Pa", "hPa", "kPa", "mbar", "millibar", "bar", "decibar", "dbar", "atm", "mb"];
/// Standard names of vertical coordinates.
#[rustfmt::skip]
const VERTICAL_STANDARD_NAMES: [&str; 8] = [
    "air_pressure", "altitude", "depth", "height", "height_above_geopotential_datum",
    "model_level_number", "geopotential_height", "depth_below_geoid",
];

/// A data variable's coordinates: the dimension coordinates of its dimensions, then the
/// variables its `coordinates` attribute names that the group holds.
fn coordinates_of(
    name: &str,
    dims: &[String],
    node: &Node,
    dimension_coordinates: &BTreeSet<&str>,
    present: &BTreeSet<&str>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let listed = node
        .attributes()
        .get("coordinates")
        .and_then(Value::as_str)
        .unwrap_or("");
    let candidates = dims
        .iter()
        .map(String::as_str)
        .filter(|d| dimension_coordinates.contains(d))
        .chain(listed.split_whitespace().filter(|c| present.contains(c)));
    for c in candidates {
        if c != name && seen.insert(c) {
            out.push(c.to_string());
        }
    }
    out
}

/// Which way a 1-D coordinate runs: `Some(true)` when its values increase (the first finite
/// value is below the last), `Some(false)` when not; `None` with fewer than two finite values.
pub fn ascending(values: &[f64]) -> Option<bool> {
    let first = values.iter().find(|v| v.is_finite())?;
    let last = values.iter().rev().find(|v| v.is_finite())?;
    let finite = values.iter().filter(|v| v.is_finite()).take(2).count();
    (finite >= 2).then_some(first < last)
}
