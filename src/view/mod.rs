//! What a node *means* under the conventions it follows, as data a page draws: an OME-Zarr
//! image (axes, levels with their physical scale, channels with their rendering settings,
//! labels), a plate and its wells, a bioformats2raw collection's series, an OME-Zarr 0.6 scene,
//! an xarray / CF dataset (dimensions, coordinates, variables, CF decoding). Also the problems
//! such pictures depend on that the hierarchy specs cannot express (a level that does not
//! downsample its predecessor, an `omero` channel count that is not the `c` axis's length, a
//! label image that does not fit its image, CF attributes that cannot be decoded), and
//! [`picture`], the pixels: composites of channels in their colours, label overlays, a CF
//! variable's plane.
//!
//! Everything here reads ZOM JSON (the form [`crate::model::Node::to_value`] writes) and
//! returns plain values: sans-I/O, like the layers below. A view never fails: what a node's
//! metadata does not say is filled with the defaults viewers use, and what it says wrongly is a
//! [`Problem`] located at the node and key.

pub mod cf;
pub mod cf_time;
pub mod check;
pub mod collection;
pub mod ome;
pub mod picture;

use crate::model::node::{format_of, node_kind};
use crate::problem::{join_path, Problem};
use serde::Serialize;
use serde_json::{Map, Value};

/// How deep a view looks for the nodes it names (a plate's wells' fields' levels).
pub(crate) const MAX_DEPTH: usize = 256;

/// The view of one node: what it is under its convention, with its own facts.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum View {
    /// An OME-Zarr multiscale image (`multiscales`), a label image too.
    Image(ome::ImageView),
    /// An OME-Zarr plate (`plate`).
    Plate(collection::PlateView),
    /// An OME-Zarr well (`well`).
    Well(collection::WellView),
    /// A bioformats2raw collection (`bioformats2raw.layout`): its series.
    Series(collection::SeriesView),
    /// An OME-Zarr 0.6 scene (`scene`): member images and their coordinate systems.
    Scene(collection::SceneView),
    /// An xarray / CF dataset: a group whose arrays name their dimensions.
    Dataset(cf::DatasetView),
}

/// A node's view and the problems found while building it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Description {
    /// The node path ("" for the root).
    pub path: String,
    /// What the node is; `None` when it follows no convention a view knows.
    pub view: Option<View>,
    /// Problems the view depends on, located at node paths and metadata keys.
    pub problems: Vec<Problem>,
}

/// A view and the problems its building found.
#[derive(Clone, Debug, PartialEq)]
pub struct Described<T> {
    /// The view.
    pub view: T,
    /// What was wrong, located.
    pub problems: Vec<Problem>,
}

/// The view of the node at `path` of the hierarchy `zom` (ZOM JSON of the root, with its
/// members): the first convention that recognises it, in the order image, plate, well,
/// series, scene, dataset.
pub fn describe(zom: &Value, path: &str) -> Description {
    let Some(node) = node_at(zom, path) else {
        return Description {
            path: path.to_string(),
            view: None,
            problems: Vec::new(),
        };
    };
    let at = Node {
        root: zom,
        path: path.to_string(),
        value: node,
    };
    let found = ome::image(&at)
        .map(|d| (View::Image(d.view), d.problems))
        .or_else(|| collection::plate(&at).map(|d| (View::Plate(d.view), d.problems)))
        .or_else(|| collection::well(&at).map(|d| (View::Well(d.view), d.problems)))
        .or_else(|| collection::series(&at).map(|d| (View::Series(d.view), d.problems)))
        .or_else(|| collection::scene(&at).map(|d| (View::Scene(d.view), d.problems)))
        .or_else(|| cf::dataset(&at).map(|d| (View::Dataset(d.view), d.problems)));
    let (view, problems) = match found {
        Some((view, problems)) => (Some(view), problems),
        None => (None, Vec::new()),
    };
    Description {
        path: path.to_string(),
        view,
        problems,
    }
}

/// The problems every view of the hierarchy depends on, node by node, parents first
/// ([`check::check`] gives them for the nodes that claim a convention, as a validation adds
/// them).
pub fn problems(zom: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    for path in node_paths(zom) {
        out.extend(describe(zom, &path).problems);
    }
    out
}

/// A node of a hierarchy as the views read it: the root (to find the nodes metadata names),
/// the node's path and its ZOM JSON.
#[derive(Clone, Debug)]
pub struct Node<'a> {
    /// The ZOM JSON of the hierarchy's root.
    pub root: &'a Value,
    /// The node's path ("" for the root).
    pub path: String,
    /// The node's ZOM JSON.
    pub value: &'a Value,
}

impl<'a> Node<'a> {
    /// The node's attributes (an empty map when it has none).
    pub fn attributes(&self) -> &'a Map<String, Value> {
        attributes(self.value)
    }

    /// The Zarr format the node is read as (its own `zarr_format`, else the root's).
    pub fn format(&self) -> u64 {
        self.kind().0
    }

    /// True when the node is an array.
    pub fn is_array(&self) -> bool {
        self.kind().1
    }

    fn kind(&self) -> (u64, bool) {
        match self.value.as_object() {
            Some(obj) => node_kind(obj, format_of(self.value).or_else(|| format_of(self.root))),
            None => (3, false),
        }
    }

    /// The member at `relative` ("a/b") below this node, when the hierarchy holds it.
    pub fn child(&self, relative: &str) -> Option<Node<'a>> {
        let mut value = self.value;
        for name in relative.split('/').filter(|n| !n.is_empty() && *n != ".") {
            value = value.get("members")?.as_object()?.get(name)?;
        }
        let names: Vec<&str> = relative
            .split('/')
            .filter(|n| !n.is_empty() && *n != ".")
            .collect();
        Some(Node {
            root: self.root,
            path: join_path(&self.path, &names.join("/")),
            value,
        })
    }

    /// The store key of the node's attributes document: `zarr.json` (v3) or `.zattrs` (v2).
    pub fn attributes_key(&self) -> String {
        let name = if self.format() == 2 {
            ".zattrs"
        } else {
            "zarr.json"
        };
        join_path(&self.path, name)
    }

    /// The store key of the node's own metadata document (`zarr.json`, `.zarray`, `.zgroup`).
    pub fn metadata_key(&self) -> String {
        let name = match (self.format(), self.is_array()) {
            (3, _) => "zarr.json",
            (_, true) => ".zarray",
            _ => ".zgroup",
        };
        join_path(&self.path, name)
    }
}

/// A ZOM node's attributes (an empty map when it has none).
pub fn attributes(node: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    node.get("attributes")
        .and_then(Value::as_object)
        .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

/// The node at `path` of the ZOM `zom` ("" is the root).
pub fn node_at<'a>(zom: &'a Value, path: &str) -> Option<&'a Value> {
    let mut value = zom;
    for name in path.split('/').filter(|n| !n.is_empty()) {
        value = value.get("members")?.as_object()?.get(name)?;
    }
    Some(value)
}

/// Every node path of the ZOM, parents first ("" for the root), at most [`MAX_DEPTH`] deep.
pub fn node_paths(zom: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), zom, 0usize)];
    while let Some((path, node, depth)) = stack.pop() {
        if depth < MAX_DEPTH {
            if let Some(members) = node.get("members").and_then(Value::as_object) {
                for (name, child) in members.iter().rev() {
                    stack.push((join_path(&path, name), child, depth + 1));
                }
            }
        }
        out.push(path);
    }
    out
}
