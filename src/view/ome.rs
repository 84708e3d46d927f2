//! OME-Zarr multiscale images (0.4, 0.5, 0.6) as viewers draw them.

use super::{Described, Node};
use serde::Serialize;

/// An OME-Zarr multiscale image.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImageView {}

/// The image view of `node`, when its attributes hold `multiscales`.
pub fn image(node: &Node) -> Option<Described<ImageView>> {
    let _ = node;
    None
}
