//! The `rectilinear` chunk grid (zarr-extensions; zarr-python 3.2+ writes it behind its
//! `array.rectilinear_chunks` flag): per dimension either one chunk length that repeats, or the
//! list of chunk edges, written as lengths and `[length, count]` runs. The edges of a dimension
//! may reach past the array. One reader for the decoder ([`super::ChunkGrid::from_v3`]) and
//! the validator, with every problem located; runs stay runs, so a count of 2^53 costs nothing.

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

/// A problem in a rectilinear grid's configuration, located relative to `configuration`.
#[derive(Clone, Debug, PartialEq)]
pub struct GridProblem {
    /// Where, below `configuration`.
    pub loc: Vec<LocStep>,
    /// The validator's vocabulary.
    pub kind: ProblemKind,
    /// What is wrong.
    pub message: String,
}

fn problem(loc: Vec<LocStep>, kind: ProblemKind, message: String) -> GridProblem {
    GridProblem { loc, kind, message }
}

fn key(k: &str) -> LocStep {
    LocStep::Key(k.to_string())
}

impl Rectilinear {
    /// Reads a rectilinear grid's `configuration` for an array of `shape` (when known): the
    /// grid, or every problem found.
    pub fn read(
        config: Option<&Value>,
        shape: Option<&[u64]>,
    ) -> Result<Rectilinear, Vec<GridProblem>> {
        let mut problems = Vec::new();
        let Some(config) = config else {
            let message =
                "the rectilinear chunk grid needs a 'configuration' with 'kind' and 'chunk_shapes'";
            return Err(vec![problem(
                Vec::new(),
                ProblemKind::MissingKey,
                message.into(),
            )]);
        };
        let Some(obj) = config.as_object() else {
            let message = format!(
                "the rectilinear chunk grid's configuration must be an object, not {}",
                show(config)
            );
            return Err(vec![problem(Vec::new(), ProblemKind::InvalidType, message)]);
        };
        for k in obj
            .keys()
            .filter(|k| !matches!(k.as_str(), "kind" | "chunk_shapes"))
        {
            let message =
                format!("the rectilinear chunk grid configuration has an unknown member '{k}'");
            problems.push(problem(vec![key(k)], ProblemKind::UnknownKey, message));
        }
        match obj.get("kind") {
            None => problems.push(problem(
                vec![key("kind")],
                ProblemKind::MissingKey,
                "the rectilinear chunk grid configuration has no 'kind' (\"inline\")".into(),
            )),
            Some(Value::String(k)) if k == "inline" => {}
            Some(other) => problems.push(problem(
                vec![key("kind")],
                ProblemKind::InvalidValue,
                format!("rectilinear 'kind' must be \"inline\", not {}", show(other)),
            )),
        }
        let axes = match obj.get("chunk_shapes") {
            None => {
                let message = "the rectilinear chunk grid configuration has no 'chunk_shapes'";
                problems.push(problem(
                    vec![key("chunk_shapes")],
                    ProblemKind::MissingKey,
                    message.into(),
                ));
                None
            }
            Some(list) => read_axes(list, shape, &mut problems),
        };
        match axes {
            Some(axes) if problems.is_empty() => Ok(Rectilinear { axes }),
            _ => Err(problems),
        }
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

/// `chunk_shapes`: one entry per dimension.
fn read_axes(
    list: &Value,
    shape: Option<&[u64]>,
    problems: &mut Vec<GridProblem>,
) -> Option<Vec<RectilinearAxis>> {
    let at = |rest: &[LocStep]| {
        let mut loc = vec![key("chunk_shapes")];
        loc.extend_from_slice(rest);
        loc
    };
    let Some(items) = list.as_array() else {
        let message = format!(
            "rectilinear 'chunk_shapes' must be a list, one entry per dimension, not {}",
            show(list)
        );
        problems.push(problem(at(&[]), ProblemKind::InvalidType, message));
        return None;
    };
    if let Some(shape) = shape {
        if items.len() != shape.len() {
            let message = format!(
                "rectilinear 'chunk_shapes' has {} entries; the array has {} dimensions",
                items.len(),
                shape.len()
            );
            problems.push(problem(at(&[]), ProblemKind::InvalidValue, message));
        }
    }
    let before = problems.len();
    let mut axes = Vec::with_capacity(items.len());
    for (dim, item) in items.iter().enumerate() {
        let here = at(&[LocStep::Index(dim)]);
        let axis = match item {
            Value::Array(edges) => {
                read_edges(edges, dim, &here, problems).map(RectilinearAxis::Edges)
            }
            other => match check_uint(other, &format!("chunk_shapes[{dim}]"), 1) {
                Ok(n) => Some(RectilinearAxis::Repeat(n)),
                Err((kind, message)) => {
                    problems.push(problem(here.clone(), kind, message));
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
                problems.push(problem(here.clone(), ProblemKind::InvalidValue, message));
            }
        }
        axes.extend(axis);
    }
    (problems.len() == before && axes.len() == items.len()).then_some(axes)
}

/// One dimension's edges: lengths and `[length, count]` runs, at least one.
fn read_edges(
    edges: &[Value],
    dim: usize,
    here: &[LocStep],
    problems: &mut Vec<GridProblem>,
) -> Option<Vec<(u64, u64)>> {
    if edges.is_empty() {
        let message = format!("chunk_shapes[{dim}] lists no chunk edges");
        problems.push(problem(here.to_vec(), ProblemKind::InvalidValue, message));
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
            Err((kind, message)) => {
                problems.push(problem(loc, kind, message));
                ok = false;
            }
        }
    }
    ok.then_some(runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_lengths_runs_and_repeats_without_expanding_them() {
        let config = json!({"kind": "inline", "chunk_shapes": [[[10, 2], 5], 4, [[1, 9007199254740992u64]]]});
        let grid = Rectilinear::read(Some(&config), Some(&[25, 7, 30])).unwrap();
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
            Rectilinear::read(Some(&regular), Some(&[9, 9]))
                .unwrap()
                .as_regular(),
            Some(vec![3, 4])
        );
    }

    #[test]
    fn locates_every_problem() {
        let config =
            json!({"kind": "outline", "chunk_shapes": [[[10, 0], 5], 0, [], [[3, 1, 1]]], "x": 1});
        let problems = Rectilinear::read(Some(&config), Some(&[20, 4, 4])).unwrap_err();
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
        let problems = Rectilinear::read(Some(&short), Some(&[21])).unwrap_err();
        assert!(
            problems[0]
                .message
                .contains("reach 20, short of the array's length 21"),
            "{problems:?}"
        );
    }
}
