//! The `rectilinear` chunk grid (zarr-extensions; zarr-python 3.2+ writes it behind its
//! `array.rectilinear_chunks` flag): per dimension either one chunk length that repeats, or the
//! list of chunk edges, written as lengths and `[length, count]` runs. The edges of a dimension
//! may reach past the array. One reader for the decoder ([`super::ChunkGrid::from_v3`]) and
//! the validator, with every problem located; runs stay runs, so a count of 2^53 costs nothing.

use crate::problem::config::{key_loc, Config, Need};
use crate::problem::{check_uint, show, LocStep, ProblemKind};
use serde_json::Value;

/// How one dimension is cut into chunks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RectilinearAxis {
    /// Chunks of one length, repeated as far as the dimension reaches.
    Repeat(u64),
    /// Chunk edges in order, as runs of `(length, count)`.
    Edges(Vec<(u64, u64)>),
}

/// A rectilinear grid: how each dimension is cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rectilinear {
    /// One entry per dimension.
    pub axes: Vec<RectilinearAxis>,
}

impl Rectilinear {
    /// Reads a rectilinear grid's configuration for an array of `shape` (when known); every
    /// problem is recorded in `cfg`.
    pub(crate) fn read(cfg: &mut Config, shape: Option<&[u64]>) -> Option<Rectilinear> {
        cfg.allow(&["kind", "chunk_shapes"]);
        cfg.required("kind", Need::Decode);
        cfg.one_of("kind", &["inline"], Need::Decode);
        cfg.required("chunk_shapes", Need::Decode);
        let list = cfg.get("chunk_shapes")?;
        let axes = read_axes(cfg, list, shape)?;
        (!cfg.failed()).then_some(Rectilinear { axes })
    }

    /// The chunk shape when every dimension repeats one length: the grid is a regular one.
    pub fn as_regular(&self) -> Option<Vec<u64>> {
        self.axes
            .iter()
            .map(|axis| match axis {
                RectilinearAxis::Repeat(n) => Some(*n),
                RectilinearAxis::Edges(_) => None,
            })
            .collect()
    }
}

fn at(rest: &[LocStep]) -> Vec<LocStep> {
    let mut loc = key_loc("chunk_shapes");
    loc.extend_from_slice(rest);
    loc
}

/// `chunk_shapes`: one entry per dimension.
fn read_axes(
    cfg: &mut Config,
    list: &Value,
    shape: Option<&[u64]>,
) -> Option<Vec<RectilinearAxis>> {
    let Some(items) = list.as_array() else {
        let message = format!(
            "rectilinear 'chunk_shapes' must be a list, one entry per dimension, not {}",
            show(list)
        );
        cfg.problem(at(&[]), (ProblemKind::InvalidType, message), Need::Decode);
        return None;
    };
    let mut ok = true;
    if let Some(shape) = shape {
        if items.len() != shape.len() {
            let message = format!(
                "rectilinear 'chunk_shapes' has {} entries; the array has {} dimensions",
                items.len(),
                shape.len()
            );
            cfg.problem(at(&[]), (ProblemKind::InvalidValue, message), Need::Decode);
            ok = false;
        }
    }
    let mut axes = Vec::with_capacity(items.len());
    for (dim, item) in items.iter().enumerate() {
        let here = at(&[LocStep::Index(dim)]);
        let axis = match item {
            Value::Array(edges) => read_edges(cfg, edges, dim, &here).map(RectilinearAxis::Edges),
            other => match check_uint(other, &format!("chunk_shapes[{dim}]"), 1) {
                Ok(n) => Some(RectilinearAxis::Repeat(n)),
                Err(bad) => {
                    cfg.problem(here.clone(), bad, Need::Decode);
                    None
                }
            },
        };
        if let (Some(RectilinearAxis::Edges(runs)), Some(extent)) =
            (&axis, shape.and_then(|s| s.get(dim)))
        {
            // Each run is at most 2^64 × 2^64: the sum of any number of them fits 128 bits
            // long before it could matter, and is checked anyway. A total of 2^64 or more
            // reaches any extent.
            let total = runs.iter().try_fold(0u128, |sum, &(len, count)| {
                sum.checked_add(u128::from(len) * u128::from(count))
            });
            let short = total
                .and_then(|t| u64::try_from(t).ok())
                .filter(|t| t < extent);
            if let Some(total) = short {
                let message = format!(
                    "the chunk edges of dimension {dim} reach {total}, short of the array's length {extent}"
                );
                cfg.problem(
                    here.clone(),
                    (ProblemKind::InvalidValue, message),
                    Need::Decode,
                );
                ok = false;
            }
        }
        match axis {
            Some(axis) => axes.push(axis),
            None => ok = false,
        }
    }
    ok.then_some(axes)
}

/// One dimension's edges: lengths and `[length, count]` runs, at least one.
fn read_edges(
    cfg: &mut Config,
    edges: &[Value],
    dim: usize,
    here: &[LocStep],
) -> Option<Vec<(u64, u64)>> {
    if edges.is_empty() {
        let message = format!("chunk_shapes[{dim}] lists no chunk edges");
        cfg.problem(
            here.to_vec(),
            (ProblemKind::InvalidValue, message),
            Need::Decode,
        );
        return None;
    }
    let mut runs = Vec::with_capacity(edges.len());
    let mut ok = true;
    for (i, edge) in edges.iter().enumerate() {
        let mut loc = here.to_vec();
        loc.push(LocStep::Index(i));
        let what = format!("chunk_shapes[{dim}][{i}]");
        let run = match edge {
            Value::Array(pair) => match pair.as_slice() {
                [len, count] => check_uint(len, &format!("{what}'s length"), 1)
                    .and_then(|len| Ok((len, check_uint(count, &format!("{what}'s count"), 1)?))),
                _ => Err((
                    ProblemKind::InvalidValue,
                    format!(
                        "{what} must be an edge length or a [length, count] pair, not {}",
                        show(edge)
                    ),
                )),
            },
            other => check_uint(other, &what, 1).map(|len| (len, 1)),
        };
        match run {
            Ok(run) => runs.push(run),
            Err(bad) => {
                cfg.problem(loc, bad, Need::Decode);
                ok = false;
            }
        }
    }
    ok.then_some(runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::config::{read_extension, ConfigProblem};
    use serde_json::json;

    fn read(config: &Value, shape: &[u64]) -> Result<Rectilinear, Vec<ConfigProblem>> {
        let (problems, grid) =
            read_extension("rectilinear", "chunk grid", config.as_object(), |cfg| {
                Rectilinear::read(cfg, Some(shape))
            });
        grid.ok_or(problems)
    }

    #[test]
    fn reads_lengths_runs_and_repeats_without_expanding_them() {
        let config = json!({"kind": "inline", "chunk_shapes": [[[10, 2], 5], 4, [[1, 9007199254740992u64]]]});
        let grid = read(&config, &[25, 7, 30]).unwrap();
        assert_eq!(
            grid.axes,
            vec![
                RectilinearAxis::Edges(vec![(10, 2), (5, 1)]),
                RectilinearAxis::Repeat(4),
                RectilinearAxis::Edges(vec![(1, 1 << 53)]),
            ]
        );
        assert_eq!(grid.as_regular(), None);
        let regular = json!({"kind": "inline", "chunk_shapes": [3, 4]});
        assert_eq!(
            read(&regular, &[9, 9]).unwrap().as_regular(),
            Some(vec![3, 4])
        );
    }

    #[test]
    fn locates_every_problem() {
        let config =
            json!({"kind": "outline", "chunk_shapes": [[[10, 0], 5], 0, [], [[3, 1, 1]]], "x": 1});
        let problems = read(&config, &[20, 4, 4]).unwrap_err();
        let locs: Vec<Value> = problems
            .iter()
            .map(|p| serde_json::to_value(&p.loc).unwrap())
            .collect();
        assert_eq!(
            locs,
            vec![
                json!(["x"]),
                json!(["kind"]),
                json!(["chunk_shapes"]),
                json!(["chunk_shapes", 0, 0]),
                json!(["chunk_shapes", 1]),
                json!(["chunk_shapes", 2]),
                json!(["chunk_shapes", 3, 0]),
            ]
        );
        let short = json!({"kind": "inline", "chunk_shapes": [[[10, 2]]]});
        let problems = read(&short, &[21]).unwrap_err();
        assert!(
            problems[0]
                .message
                .contains("reach 20, short of the array's length 21"),
            "{problems:?}"
        );
    }
}
