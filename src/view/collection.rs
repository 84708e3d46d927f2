//! OME-Zarr collections of images: plates and wells, bioformats2raw series, 0.6 scenes.
//!
//! The hierarchy specs (src/spec/builtin/ome-zarr-*.json) already check that wells, fields,
//! series and scene images exist, that a well's `rowIndex`/`columnIndex` are in range and name
//! the row and column its path does, and that ids are unique. The one problem here is what
//! they cannot see: a well a plate picture cannot place.

use super::ome::ome_metadata;
use super::{Described, Node};
use crate::problem::{join_path, show, LocExt, Problem, ProblemKind};
use serde::Serialize;
use serde_json::Value;

/// At most this many rows, columns, wells, fields, series or scene transformations are read.
const MAX_ITEMS: usize = 65_536;
/// At most this many scene transformations are read (each image looks at all of them).
const MAX_SCENE: usize = 1024;

/// An OME-Zarr plate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlateView {
    /// The OME-Zarr version the metadata states (`ome.version`, else `plate.version`).
    pub version: Option<String>,
    /// `plate.name`.
    pub name: Option<String>,
    /// The row names, in order.
    pub rows: Vec<String>,
    /// The column names, in order.
    pub columns: Vec<String>,
    /// The wells a picture can place (at a row and column).
    pub wells: Vec<WellRef>,
    /// The plate's acquisitions.
    pub acquisitions: Vec<Acquisition>,
    /// `plate.field_count`: the most fields of view any well has.
    pub field_count: Option<u64>,
}

/// One well of a plate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WellRef {
    /// The well path as written ("A/1").
    pub path: String,
    /// The well's node path.
    pub node: String,
    /// The row's index (`rowIndex`, else the position of the path's row name in `rows`).
    pub row: usize,
    /// The column's index (`columnIndex`, else the position of the path's column name).
    pub column: usize,
    /// Whether the hierarchy holds the well's node.
    pub present: bool,
}

/// One acquisition of a plate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Acquisition {
    /// The acquisition id.
    pub id: i64,
    /// Its name.
    pub name: Option<String>,
    /// `maximumfieldcount`: the most fields of view of a well in it.
    pub maximum_field_count: Option<u64>,
}

/// An OME-Zarr well.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WellView {
    /// The OME-Zarr version the metadata states (`ome.version`, else `well.version`).
    pub version: Option<String>,
    /// The well's fields of view.
    pub images: Vec<FieldRef>,
}

/// One field of view of a well.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldRef {
    /// The image path as written.
    pub path: String,
    /// The image's node path.
    pub node: String,
    /// The id of the plate acquisition it belongs to.
    pub acquisition: Option<i64>,
}

/// A bioformats2raw collection.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeriesView {
    /// The node paths of the collection's images: the `OME` group's `series` when it has one,
    /// else the numbered members 0, 1, 2… the hierarchy holds.
    pub images: Vec<String>,
}

/// An OME-Zarr 0.6 scene.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SceneView {
    /// The OME-Zarr version (`ome.version`).
    pub version: Option<String>,
    /// `scene.coordinateSystems`, as written.
    pub coordinate_systems: Vec<Value>,
    /// The images the scene's transformations name, in order of first mention.
    pub images: Vec<SceneImage>,
}

/// An image of a scene and the transformations that place it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SceneImage {
    /// The image's path as written in the transformations.
    pub path: String,
    /// The image's node path.
    pub node: String,
    /// Whether the hierarchy holds the image's node.
    pub present: bool,
    /// The scene transformations from this image (their `input.path` is the image), as written.
    pub transforms: Vec<Value>,
    /// The scene transformations to this image (their `output.path` is the image), as written.
    pub incoming: Vec<Value>,
    /// The image's coordinate system the first transformation from it reads (`input.name`),
    /// else the one the first transformation to it writes.
    pub input: Option<String>,
    /// The coordinate system the first transformation from the image maps to (`output.name`).
    pub output: Option<String>,
    /// The node path of the image that first transformation maps to, when it names one.
    pub output_image: Option<String>,
}

/// The plate view of `node`, when its attributes (0.4) or `ome` (0.5 and later) hold `plate`.
///
/// Checks: the spec says a well's "`path` MUST consist of a `name` in the `rows` field, a file
/// separator (`/`), and a `name` from the `columns` field"; when a well has no usable
/// `rowIndex`/`columnIndex` (older data) and its path's names are not among `rows` and
/// `columns`, no picture can place it: an error at the well's `path`. (With indices, the specs
/// report a mismatch themselves.)
pub fn plate(node: &Node) -> Option<Described<PlateView>> {
    let (ome, base) = ome_metadata(node, "plate")?;
    let plate = ome.get("plate");
    let get = |k: &str| plate.and_then(|p| p.get(k));
    let names = |k: &str| -> Vec<String> {
        get(k)
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .take(MAX_ITEMS)
                    .map(|r| {
                        r.get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let rows = names("rows");
    let columns = names("columns");
    let mut problems = Vec::new();
    let mut wells = Vec::new();
    let listed = get("wells")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (i, well) in listed.iter().enumerate().take(MAX_ITEMS) {
        let Some(path) = well.get("path").and_then(Value::as_str) else {
            continue;
        };
        let (row_name, column_name) = path.split_once('/').unwrap_or((path, ""));
        let index = |key: &str, names: &[String], name: &str| {
            well.get(key)
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok())
                .filter(|&i| i < names.len())
                .or_else(|| names.iter().position(|n| n == name))
        };
        let row = index("rowIndex", &rows, row_name);
        let column = index("columnIndex", &columns, column_name);
        let (Some(row), Some(column)) = (row, column) else {
            let has_indices = well.get("rowIndex").is_some() && well.get("columnIndex").is_some();
            if !has_indices {
                let loc = base.key("plate").key("wells").idx(i).key("path");
                let message = format!(
                    "well {} names a row or column the plate does not list (rows {}, columns {})",
                    show(&Value::String(path.to_string())),
                    show(&Value::from(rows.clone())),
                    show(&Value::from(columns.clone()))
                );
                problems.push(Problem::error(
                    &node.path,
                    &loc,
                    ProblemKind::InvalidValue,
                    message,
                ));
            }
            continue;
        };
        wells.push(WellRef {
            path: path.to_string(),
            node: join_path(&node.path, path),
            row,
            column,
            present: !path.is_empty() && node.child(path).is_some(),
        });
    }
    let acquisitions = get("acquisitions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .take(MAX_ITEMS)
        .filter_map(|a| {
            Some(Acquisition {
                id: a.get("id")?.as_i64()?,
                name: a.get("name").and_then(Value::as_str).map(str::to_string),
                maximum_field_count: a.get("maximumfieldcount").and_then(Value::as_u64),
            })
        })
        .collect();
    let view = PlateView {
        version: version(ome.get("version"), get("version")),
        name: get("name").and_then(Value::as_str).map(str::to_string),
        rows,
        columns,
        wells,
        acquisitions,
        field_count: get("field_count").and_then(Value::as_u64),
    };
    Some(Described { view, problems })
}

/// The version as written at `ome.version`, else at the object's own `version`.
fn version(ome: Option<&Value>, own: Option<&Value>) -> Option<String> {
    ome.and_then(Value::as_str)
        .or_else(|| own.and_then(Value::as_str))
        .map(str::to_string)
}

/// The well view of `node`, when its attributes (0.4) or `ome` (0.5 and later) hold `well`.
pub fn well(node: &Node) -> Option<Described<WellView>> {
    let (ome, _) = ome_metadata(node, "well")?;
    let well = ome.get("well");
    let images = well
        .and_then(|w| w.get("images"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .take(MAX_ITEMS)
        .filter_map(|f| {
            let path = f.get("path")?.as_str()?;
            Some(FieldRef {
                path: path.to_string(),
                node: join_path(&node.path, path),
                acquisition: f.get("acquisition").and_then(Value::as_i64),
            })
        })
        .collect();
    let view = WellView {
        version: version(ome.get("version"), well.and_then(|w| w.get("version"))),
        images,
    };
    Some(Described {
        view,
        problems: Vec::new(),
    })
}

/// The series view of `node`, when its attributes (0.4) or `ome` (0.5) hold
/// `bioformats2raw.layout`.
pub fn series(node: &Node) -> Option<Described<SeriesView>> {
    ome_metadata(node, "bioformats2raw.layout")?;
    let listed = node
        .child("OME")
        .and_then(|ome| {
            let (meta, _) = ome_metadata(&ome, "series")?;
            meta.get("series")?.as_array().cloned()
        })
        .map(|list| {
            list.iter()
                .take(MAX_ITEMS)
                .filter_map(Value::as_str)
                .map(|s| join_path(&node.path, s))
                .collect::<Vec<_>>()
        });
    let images = listed.unwrap_or_else(|| {
        let count = node
            .value
            .get("members")
            .and_then(Value::as_object)
            .map_or(0, |m| m.len());
        (0..count.min(MAX_ITEMS))
            .map(|i| i.to_string())
            .take_while(|name| node.child(name).is_some())
            .map(|name| join_path(&node.path, &name))
            .collect()
    });
    Some(Described {
        view: SeriesView { images },
        problems: Vec::new(),
    })
}

/// The scene view of `node`, when its `ome` attributes hold an OME-Zarr 0.6 `scene`.
pub fn scene(node: &Node) -> Option<Described<SceneView>> {
    let (ome, _) = ome_metadata(node, "scene")?;
    let scene = ome.get("scene");
    let list = |k: &str| {
        scene
            .and_then(|s| s.get(k))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    };
    let all = list("coordinateTransformations");
    let transforms = all.get(..MAX_SCENE).unwrap_or(all);
    let end = |t: &Value, side: &str, key: &str| {
        t.get(side)
            .and_then(|s| s.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut images: Vec<SceneImage> = Vec::new();
    for t in transforms {
        for side in ["input", "output"] {
            let Some(path) = end(t, side, "path") else {
                continue;
            };
            if images.iter().any(|i| i.path == path) {
                continue;
            }
            let from: Vec<Value> = transforms
                .iter()
                .filter(|x| end(x, "input", "path").as_deref() == Some(&path))
                .cloned()
                .collect();
            let incoming: Vec<Value> = transforms
                .iter()
                .filter(|x| end(x, "output", "path").as_deref() == Some(&path))
                .cloned()
                .collect();
            let first = from.first();
            images.push(SceneImage {
                node: join_path(&node.path, &path),
                present: !path.is_empty() && node.child(&path).is_some(),
                input: first
                    .and_then(|f| end(f, "input", "name"))
                    .or_else(|| incoming.first().and_then(|f| end(f, "output", "name"))),
                output: first.and_then(|f| end(f, "output", "name")),
                output_image: first
                    .and_then(|f| end(f, "output", "path"))
                    .map(|p| join_path(&node.path, &p)),
                path,
                transforms: from,
                incoming,
            });
        }
    }
    let view = SceneView {
        version: ome
            .get("version")
            .and_then(Value::as_str)
            .map(str::to_string),
        coordinate_systems: list("coordinateSystems")
            .iter()
            .take(MAX_ITEMS)
            .cloned()
            .collect(),
        images,
    };
    Some(Described {
        view,
        problems: Vec::new(),
    })
}
