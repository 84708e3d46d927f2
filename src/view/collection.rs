//! OME-Zarr collections of images: plates and wells, bioformats2raw series, 0.6 scenes.

use super::{Described, Node};
use serde::Serialize;

/// An OME-Zarr plate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlateView {}

/// An OME-Zarr well.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WellView {}

/// A bioformats2raw collection.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeriesView {}

/// An OME-Zarr 0.6 scene.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SceneView {}

/// The plate view of `node`, when its attributes hold `plate`.
pub fn plate(node: &Node) -> Option<Described<PlateView>> {
    let _ = node;
    None
}

/// The well view of `node`, when its attributes hold `well`.
pub fn well(node: &Node) -> Option<Described<WellView>> {
    let _ = node;
    None
}

/// The series view of `node`, when its attributes hold `bioformats2raw.layout`.
pub fn series(node: &Node) -> Option<Described<SeriesView>> {
    let _ = node;
    None
}

/// The scene view of `node`, when its attributes hold an OME-Zarr 0.6 `scene`.
pub fn scene(node: &Node) -> Option<Described<SceneView>> {
    let _ = node;
    None
}
