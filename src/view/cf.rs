//! xarray / CF datasets: dimensions, coordinates, data variables and their CF decoding.

use super::{Described, Node};
use serde::Serialize;

/// An xarray / CF dataset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DatasetView {}

/// The dataset view of `node`, when it is a group whose arrays name their dimensions.
pub fn dataset(node: &Node) -> Option<Described<DatasetView>> {
    let _ = node;
    None
}
