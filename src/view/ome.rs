//! OME-Zarr multiscale images (0.4, 0.5, 0.6) as viewers draw them: axes, resolution levels
//! with their physical scale, channels with their rendering settings, labels.
//!
//! Severities follow the OME-NGFF text (0.4, 0.5, 0.6rc0): a MUST broken is an error; what a
//! spec only shows in an example or says "usually" is a warning, since a picture can still be
//! drawn (strict mode reports it).

mod channels;
mod labels;

use super::{Described, Node};
use crate::problem::{join_path, LocExt, LocStep, Problem, ProblemKind, Severity};
use serde::Serialize;
use serde_json::{Map, Value};

/// At most this many axes are read (OME-Zarr allows 5; hostile metadata may list millions).
const MAX_AXES: usize = 32;
/// At most this many resolution levels are read.
const MAX_LEVELS: usize = 256;
/// At most this many channels are described.
const MAX_CHANNELS: usize = 1024;
/// At most this many label images, label colours or properties are read.
const MAX_LABELS: usize = 4096;
/// How deep `sequence` transformations are followed.
const MAX_SEQUENCE_DEPTH: usize = 8;
/// The colours of channels when `omero` names none, for more than three channels.
const CYCLE: [&str; 6] = ["00FFFF", "FFFF00", "FF00FF", "FF0000", "00FF00", "0000FF"];

/// An OME-Zarr multiscale image (its first multiscale), a label image too.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImageView {
    /// The OME-Zarr version the metadata states (0.4: `multiscales[0].version`; 0.5 and later:
    /// `ome.version`), as written.
    pub version: Option<String>,
    /// `multiscales[0].name`.
    pub name: Option<String>,
    /// The axes (0.6: those of the coordinate system the levels map to).
    pub axes: Vec<Axis>,
    /// The index of the channel axis (type "channel", else the axis named "c").
    pub channel_axis: Option<usize>,
    /// The index of the time axis (type "time", else the axis named "t").
    pub time_axis: Option<usize>,
    /// The index of the z axis: the space axis named "z", else the third-from-last space axis.
    pub z_axis: Option<usize>,
    /// The index of the y axis: the second-to-last space axis.
    pub y_axis: Option<usize>,
    /// The index of the x axis: the last space axis.
    pub x_axis: Option<usize>,
    /// One per `multiscales[0].datasets` entry, in order (largest first).
    pub levels: Vec<Level>,
    /// The channels to draw, with their rendering settings (defaults where `omero` is silent).
    pub channels: Vec<Channel>,
    /// The label images the image's `labels` group lists.
    pub labels: Vec<LabelRef>,
    /// Set when this image is a label image (its metadata has `image-label`).
    pub label: Option<LabelInfo>,
    /// `omero.rdefs.defaultZ`: the z plane to show first.
    pub default_z: Option<u64>,
    /// `omero.rdefs.defaultT`: the time point to show first.
    pub default_t: Option<u64>,
}

/// One axis of an image.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Axis {
    /// The axis name.
    pub name: String,
    /// The axis type ("space", "time", "channel" or a custom one).
    #[serde(rename = "type")]
    pub r#type: Option<String>,
    /// The axis unit.
    pub unit: Option<String>,
}

/// One resolution level of an image.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Level {
    /// The dataset path as written.
    pub path: String,
    /// The level array's node path in the hierarchy.
    pub node: String,
    /// The array's shape, when the hierarchy holds the array.
    pub shape: Option<Vec<u64>>,
    /// The regular chunk grid's chunk shape (v3; for a sharded array the shard shape), or v2
    /// `chunks`.
    pub chunks: Option<Vec<u64>>,
    /// The v3 data type name, or the v2 dtype as written.
    pub data_type: Option<String>,
    /// Per axis, the scale from array indices to the image's coordinates (default 1).
    pub scale: Vec<f64>,
    /// Per axis, the translation after the scale (default 0).
    pub translation: Vec<f64>,
}

/// One channel of an image and how to render it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Channel {
    /// The channel's index along the channel axis.
    pub index: usize,
    /// `omero.channels[i].label`, else "Channel i".
    pub label: String,
    /// The colour, "RRGGBB" upper-case hex.
    pub color: String,
    /// The display window; `None` when `omero` gives none (a picture windows from the data).
    pub window: Option<Window>,
    /// Whether the channel is shown.
    pub active: bool,
    /// Whether the colour ramp is inverted.
    pub inverted: bool,
    /// The rendering coefficient.
    pub coefficient: f64,
    /// The rendering family ("linear" by default).
    pub family: String,
}

/// A channel's display window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Window {
    /// The value drawn darkest.
    pub start: f64,
    /// The value drawn brightest.
    pub end: f64,
    /// The smallest value of the data, when stated.
    pub min: Option<f64>,
    /// The largest value of the data, when stated.
    pub max: Option<f64>,
}

/// A label image an image's `labels` group lists.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LabelRef {
    /// The name as listed.
    pub name: String,
    /// The label image's node path.
    pub node: String,
    /// Whether the hierarchy holds that node.
    pub present: bool,
}

/// What makes an image a label image: its `image-label` metadata.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LabelInfo {
    /// The colours of label values (`image-label.colors` entries with a label value and rgba).
    pub colors: Vec<LabelColor>,
    /// `image-label.properties` entries that have a label value, as written.
    pub properties: Vec<Value>,
    /// `image-label.source.image` as a node path, when it is relative and stays inside the
    /// hierarchy.
    pub source_image: Option<String>,
}

/// The colour of one label value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LabelColor {
    /// The label value.
    pub label_value: f64,
    /// Red, green, blue, alpha.
    pub rgba: [u8; 4],
}

/// Where a node's OME metadata is: the object holding `multiscales`, `plate`… (0.5 and later:
/// `attributes.ome`; 0.4: the attributes) and its location in the attributes document.
pub(crate) fn ome_metadata<'a>(
    node: &Node<'a>,
    key: &str,
) -> Option<(&'a Map<String, Value>, Vec<LocStep>)> {
    let attributes = node.attributes();
    let root = vec![LocStep::Key("attributes".to_string())];
    if let Some(ome) = attributes.get("ome").and_then(Value::as_object) {
        if ome.contains_key(key) {
            return Some((ome, root.key("ome")));
        }
    }
    attributes.contains_key(key).then_some((attributes, root))
}

/// The image view of `node`, when its attributes (0.4: top level; 0.5 and later: under `ome`)
/// hold `multiscales`.
pub fn image(node: &Node) -> Option<Described<ImageView>> {
    let mut problems = Vec::new();
    let view = read_image(node, true, &mut problems)?;
    Some(Described { view, problems })
}

/// The level to read for a picture `width` × `height` pixels: the smallest level (last in
/// order) whose x and y sizes are both at least the picture's; level 0 when none is that large
/// or when shapes are unknown (levels whose shape is unknown are skipped).
pub fn level_for(view: &ImageView, width: u64, height: u64) -> usize {
    let (Some(x), Some(y)) = (view.x_axis, view.y_axis) else {
        return 0;
    };
    let mut chosen = 0;
    for (i, level) in view.levels.iter().enumerate() {
        let Some(shape) = &level.shape else { continue };
        if let (Some(&w), Some(&h)) = (shape.get(x), shape.get(y)) {
            if w >= width && h >= height {
                chosen = i;
            }
        }
    }
    chosen
}

/// The level whose shape must be known before [`level_for`] can answer for a picture `width`
/// × `height` pixels: going from the smallest level up, the first whose shape is unknown before
/// one is found that is large enough. None when the known shapes settle the answer. A reader
/// opens that level's array, puts it in the ZOM and asks again; for a thumbnail of a pyramid it
/// reads one level's metadata, not every level's.
pub fn level_to_open(view: &ImageView, width: u64, height: u64) -> Option<usize> {
    let (Some(x), Some(y)) = (view.x_axis, view.y_axis) else {
        return None;
    };
    for (i, level) in view.levels.iter().enumerate().rev() {
        let Some(shape) = &level.shape else {
            return Some(i);
        };
        if let (Some(&w), Some(&h)) = (shape.get(x), shape.get(y)) {
            if w >= width && h >= height {
                return None;
            }
        }
    }
    None
}

/// Reads the image at `node`; `with_labels` also reads (and checks) its label images.
fn read_image(node: &Node, with_labels: bool, problems: &mut Vec<Problem>) -> Option<ImageView> {
    let (ome, base) = ome_metadata(node, "multiscales")?;
    let multiscales = ome.get("multiscales");
    let ms = multiscales
        .and_then(Value::as_array)
        .and_then(|m| m.first())
        .and_then(Value::as_object);
    let ms_loc = base.key("multiscales").idx(0);
    let version = ome
        .get("version")
        .and_then(Value::as_str)
        .or_else(|| ms.and_then(|m| m.get("version")).and_then(Value::as_str))
        .map(str::to_string);
    let name = ms
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let axes = ms.map(read_axes).unwrap_or_default();
    let roles = Roles::of(&axes);
    let levels = ms
        .map(|m| read_levels(node, m, axes.len()))
        .unwrap_or_default();
    check_levels(node, &levels, &axes, &roles, &ms_loc, problems);
    let omero = ome.get("omero").and_then(Value::as_object);
    // Levels downsample space, not channels: any level whose array is known tells the count
    // (a picture may have opened only the level it draws).
    let channel_count = roles.channel.and_then(|c| {
        levels
            .iter()
            .find_map(|l| l.shape.as_ref().and_then(|s| s.get(c).copied()))
    });
    let channels = channels::read_channels(
        node,
        omero,
        &base.key("omero"),
        roles.channel.is_some(),
        channel_count,
        problems,
    );
    let rdefs = omero.and_then(|o| o.get("rdefs"));
    let rdef = |key: &str| rdefs.and_then(|r| r.get(key)).and_then(Value::as_u64);
    let mut view = ImageView {
        version,
        name,
        axes,
        channel_axis: roles.channel,
        time_axis: roles.time,
        z_axis: roles.z,
        y_axis: roles.y,
        x_axis: roles.x,
        levels,
        channels,
        labels: Vec::new(),
        label: ome
            .get("image-label")
            .map(|l| labels::read_label_info(node, l)),
        default_z: rdef("defaultZ"),
        default_t: rdef("defaultT"),
    };
    if with_labels {
        view.labels = labels::read_labels(node);
        labels::check_labels(node, &view, problems);
    }
    Some(view)
}

/// The axes of a multiscale: 0.4/0.5 `axes` (objects, or names in older data); 0.6 the axes of
/// the coordinate system the first level maps to ("intrinsic"), else of the last one (the
/// spec: the "intrinsic" coordinate system is "the last entry of the `coordinateSystems`
/// array").
fn read_axes(ms: &Map<String, Value>) -> Vec<Axis> {
    let axes = match ms.get("coordinateSystems").and_then(Value::as_array) {
        Some(systems) => {
            let target = ms
                .get("datasets")
                .and_then(|d| d.get(0))
                .and_then(|d| d.get("coordinateTransformations"))
                .and_then(|t| t.get(0))
                .and_then(|t| t.get("output"))
                .and_then(system_name);
            let named = target.and_then(|t| {
                systems
                    .iter()
                    .find(|s| s.get("name").and_then(Value::as_str) == Some(t))
            });
            named.or_else(|| systems.last()).and_then(|s| s.get("axes"))
        }
        None => ms.get("axes"),
    };
    let Some(list) = axes.and_then(Value::as_array) else {
        return Vec::new();
    };
    let text = |a: &Value, k: &str| a.get(k).and_then(Value::as_str).map(str::to_string);
    list.iter()
        .take(MAX_AXES)
        .map(|a| match a {
            Value::String(name) => Axis {
                name: name.clone(),
                r#type: None,
                unit: None,
            },
            other => Axis {
                name: text(other, "name").unwrap_or_default(),
                r#type: text(other, "type"),
                unit: text(other, "unit"),
            },
        })
        .collect()
}

/// A coordinate system reference's name: 0.6's `{"name": …}` or a plain string.
fn system_name(value: &Value) -> Option<&str> {
    value
        .as_str()
        .or_else(|| value.get("name").and_then(Value::as_str))
}

/// Which axis plays which part in a picture.
struct Roles {
    channel: Option<usize>,
    time: Option<usize>,
    z: Option<usize>,
    y: Option<usize>,
    x: Option<usize>,
    space: Vec<usize>,
}

impl Roles {
    fn of(axes: &[Axis]) -> Roles {
        let typed = |t: &str| axes.iter().position(|a| a.r#type.as_deref() == Some(t));
        let named = |n: &str| axes.iter().position(|a| a.name == n);
        let any_space = axes.iter().any(|a| a.r#type.as_deref() == Some("space"));
        let space: Vec<usize> = (0..axes.len())
            .filter(|&i| match axes[i].r#type.as_deref() {
                Some(t) => t == "space",
                // Untyped axes (names only, as in older data) are space when named x, y, z.
                None => !any_space && matches!(axes[i].name.as_str(), "x" | "y" | "z"),
            })
            .collect();
        let from_end = |k: usize| space.len().checked_sub(k).map(|i| space[i]);
        let z = space
            .iter()
            .copied()
            .find(|&i| axes[i].name == "z")
            .or_else(|| from_end(3));
        Roles {
            channel: typed("channel").or_else(|| named("c")),
            time: typed("time").or_else(|| named("t")),
            z,
            y: from_end(2),
            x: from_end(1),
            space,
        }
    }
}

/// The levels of a multiscale, each with its array's facts when the hierarchy holds it.
fn read_levels(node: &Node, ms: &Map<String, Value>, rank: usize) -> Vec<Level> {
    let Some(datasets) = ms.get("datasets").and_then(Value::as_array) else {
        return Vec::new();
    };
    // 0.4 and 0.5: multiscale-level transformations apply to every level after its own. 0.6:
    // they map the intrinsic coordinate system to other ones, so a level's scale stops there.
    let shared = if ms.contains_key("coordinateSystems") {
        None
    } else {
        ms.get("coordinateTransformations")
    };
    datasets
        .iter()
        .take(MAX_LEVELS)
        .map(|d| {
            let path = d
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let mut scale = vec![1.0; rank];
            let mut translation = vec![0.0; rank];
            for list in [d.get("coordinateTransformations"), shared] {
                apply_all(list, &mut scale, &mut translation, 0);
            }
            let array = node
                .child(&path)
                .filter(|c| !path.is_empty() && c.is_array());
            let facts = array.as_ref().map(|a| array_facts(a.value, a.format()));
            let (shape, chunks, data_type) = facts.unwrap_or((None, None, None));
            Level {
                node: join_path(&node.path, &path),
                path,
                shape,
                chunks,
                data_type,
                scale,
                translation,
            }
        })
        .collect()
}

/// Composes a list of transformations onto `scale` and `translation`, in order: a point `p`
/// maps to `p * scale + translation`. Transformations of other types, or whose length is not
/// the rank, change nothing (the hierarchy specs report them).
fn apply_all(list: Option<&Value>, scale: &mut [f64], translation: &mut [f64], depth: usize) {
    let Some(list) = list.and_then(Value::as_array) else {
        return;
    };
    if depth > MAX_SEQUENCE_DEPTH {
        return;
    }
    for t in list.iter().take(MAX_LEVELS) {
        match t.get("type").and_then(Value::as_str) {
            Some("scale") => {
                if let Some(s) = numbers(t.get("scale"), scale.len()) {
                    for i in 0..scale.len() {
                        scale[i] *= s[i];
                        translation[i] *= s[i];
                    }
                }
            }
            Some("translation") => {
                if let Some(s) = numbers(t.get("translation"), scale.len()) {
                    for i in 0..scale.len() {
                        translation[i] += s[i];
                    }
                }
            }
            Some("sequence") => apply_all(t.get("transformations"), scale, translation, depth + 1),
            _ => {}
        }
    }
}

/// A list of exactly `len` numbers.
fn numbers(value: Option<&Value>, len: usize) -> Option<Vec<f64>> {
    let list = value?.as_array()?;
    if list.len() != len {
        return None;
    }
    list.iter().map(Value::as_f64).collect()
}

/// A list of unsigned integers, at most [`MAX_AXES`] long.
fn uints(value: Option<&Value>) -> Option<Vec<u64>> {
    let list = value?.as_array()?;
    if list.len() > MAX_AXES {
        return None;
    }
    list.iter().map(Value::as_u64).collect()
}

type Facts = (Option<Vec<u64>>, Option<Vec<u64>>, Option<String>);

/// An array node's shape, chunk shape and data type.
fn array_facts(array: &Value, format: u64) -> Facts {
    let shape = uints(array.get("shape"));
    if format == 2 {
        let dtype = array
            .get("dtype")
            .and_then(Value::as_str)
            .map(str::to_string);
        return (shape, uints(array.get("chunks")), dtype);
    }
    let grid = array.get("chunk_grid");
    let chunks = match grid.and_then(|g| g.get("name")).and_then(Value::as_str) {
        Some("regular") => uints(
            grid.and_then(|g| g.get("configuration"))
                .and_then(|c| c.get("chunk_shape")),
        ),
        _ => None,
    };
    let data_type = array
        .get("data_type")
        .and_then(crate::problem::name_of)
        .map(str::to_string);
    (shape, chunks, data_type)
}

/// A problem at the node's attributes.
fn problem(node: &Node, loc: Vec<LocStep>, severity: Severity, message: String) -> Problem {
    Problem {
        severity,
        ..Problem::error(&node.path, &loc, ProblemKind::InvalidValue, message)
    }
}

/// The checks of levels a picture depends on.
///
/// - "The `path`s MUST be ordered from largest (i.e. highest resolution) to smallest": a level
///   larger than its predecessor on an axis is an error; one the same size on every space axis
///   does not downsample it, a warning (the order allows equal sizes, but the level adds
///   nothing and a level picker cannot tell the two apart).
/// - "The number of dimensions and order MUST correspond to number and order of `axes`": a
///   level's rank that is not the axes count is an error.
fn check_levels(
    node: &Node,
    levels: &[Level],
    axes: &[Axis],
    roles: &Roles,
    ms_loc: &[LocStep],
    out: &mut Vec<Problem>,
) {
    let mut previous: Option<&Vec<u64>> = None;
    for (i, level) in levels.iter().enumerate() {
        let Some(shape) = &level.shape else { continue };
        let loc = ms_loc.key("datasets").idx(i);
        if !axes.is_empty() && shape.len() != axes.len() {
            let message = format!(
                "level {i} ({}) has {} dimensions {shape:?} for {} axes",
                level.node,
                shape.len(),
                axes.len()
            );
            out.push(problem(node, loc, Severity::Error, message));
            continue;
        }
        if let Some(before) = previous.filter(|b| b.len() == shape.len()) {
            if let Some(axis) = (0..shape.len()).find(|&a| shape[a] > before[a]) {
                let message = format!(
                    "level {i} ({}) is larger than level {} on axis {}: shape {shape:?} after {before:?} (levels go from largest to smallest)",
                    level.node,
                    i - 1,
                    axis_name(axes, axis)
                );
                out.push(problem(node, loc, Severity::Error, message));
            } else if !roles.space.is_empty() && roles.space.iter().all(|&a| shape[a] == before[a])
            {
                let message = format!(
                    "level {i} ({}) does not downsample level {}: the same size {shape:?} on every space axis",
                    level.node,
                    i - 1
                );
                out.push(problem(node, loc, Severity::Warning, message));
            }
        }
        previous = Some(shape);
    }
}

fn axis_name(axes: &[Axis], i: usize) -> String {
    axes.get(i)
        .map_or_else(|| i.to_string(), |a| a.name.clone())
}
