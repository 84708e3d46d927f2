//! The values that cross, made from bench/lib/generate.py's hierarchies with zom's own code: the
//! ZOM trees `fromDocuments` and `walk` return, the report `validateHierarchy` returns for a
//! tree with a bad fill value on every array, `summarizeTree`'s summaries, the errors of a
//! walk, a decoded chunk of strings, an S3 listing page, the limits, a shape.

use serde_json::Value;
use zom::limits::Limits;
use zom::model::{self, join_path, Node, NodeSummary};
use zom::validate::{self, Report, ValidateOptions};
use zom::{ErrorCode, ZomError};

/// A ListObjectsV2 page as `httpS3Page` returns it.
#[derive(Debug, serde::Serialize)]
pub struct Listing {
    pub keys: Vec<String>,
    pub prefixes: Vec<String>,
    pub truncated: bool,
    pub next: Option<String>,
}

/// Every value a case converts, built once.
pub struct Fixtures {
    /// (label, ZOM tree as JSON): one array node, the 1001-node and the 10,000-node hierarchy.
    pub zoms: Vec<(String, Value)>,
    /// Validation reports of growing length (the first problems of the 10,000-node one).
    pub reports: Vec<Report>,
    /// (path, summary) of every node, for one node, 1001 nodes and 10,000 nodes.
    pub summaries: Vec<Vec<(String, NodeSummary)>>,
    /// A walk's per-node errors: one, and a thousand.
    pub errors: Vec<Vec<ZomError>>,
    /// A decoded vlen-utf8 chunk's values: a thousand and a hundred thousand strings.
    pub strings: Vec<Vec<String>>,
    /// A full S3 listing page (1000 keys).
    pub listing: Listing,
    /// The default limits (what `getLimits` and `ArrayHandle.limits` give).
    pub limits: Limits,
    /// An array's shape.
    pub shape: Vec<u64>,
}

fn zom_of(bytes: &[u8]) -> Result<Node, ZomError> {
    let value = zom::json::parse_document(bytes, &Limits::DEFAULT)?;
    model::from_documents([("zarr.json", value)])
}

fn first_array(node: &Node) -> Option<&Node> {
    match node {
        Node::Array(_) => Some(node),
        Node::Group(g) => g.members.values().find_map(first_array),
    }
}

/// The tree with every array's `fill_value` replaced by a string no data type accepts: one
/// validation problem per array.
fn spoil(value: &mut Value) {
    let Some(object) = value.as_object_mut() else {
        return;
    };
    if object.get("node_type").and_then(Value::as_str) == Some("array") {
        object.insert("fill_value".into(), "not a fill value".into());
    }
    if let Some(members) = object.get_mut("members").and_then(Value::as_object_mut) {
        for member in members.values_mut() {
            spoil(member);
        }
    }
}

fn summaries_of(node: &Node, path: &str, out: &mut Vec<(String, NodeSummary)>) {
    out.push((path.to_string(), model::summarize(node)));
    if let Node::Group(g) = node {
        for (name, member) in &g.members {
            summaries_of(member, &join_path(path, name), out);
        }
    }
}

fn paths_of(node: &Node, path: &str, out: &mut Vec<String>) {
    out.push(path.to_string());
    if let Node::Group(g) = node {
        for (name, member) in &g.members {
            paths_of(member, &join_path(path, name), out);
        }
    }
}

/// The fixtures, from the root `zarr.json` of the 1001-node and the 10,000-node consolidated
/// hierarchies.
pub fn build(walk1k: &[u8], walk10k: &[u8]) -> Result<Fixtures, ZomError> {
    let small = zom_of(walk1k)?;
    let large = zom_of(walk10k)?;
    let one = first_array(&large)
        .cloned()
        .ok_or_else(|| ZomError::invalid_argument("the 10,000-node hierarchy has no array"))?;
    let zoms = vec![
        ("1 array".to_string(), one.to_value()),
        ("1,001 nodes".to_string(), small.to_value()),
        ("10,000 nodes".to_string(), large.to_value()),
    ];

    let mut spoilt = large.to_value();
    spoil(&mut spoilt);
    let full = validate::validate_hierarchy(&spoilt, &ValidateOptions::default());
    let reports = [10, 1000, full.problems.len()]
        .into_iter()
        .map(|n| Report {
            valid: false,
            problems: full.problems.iter().take(n).cloned().collect(),
        })
        .collect();

    let summaries = [&one, &small, &large]
        .into_iter()
        .map(|node| {
            let mut out = Vec::new();
            summaries_of(node, "", &mut out);
            out
        })
        .collect();

    let mut paths = Vec::new();
    paths_of(&large, "", &mut paths);
    let errors = [1, 1000]
        .into_iter()
        .map(|n| {
            paths
                .iter()
                .skip(1)
                .take(n)
                .map(|path| {
                    let key = join_path(path, "zarr.json");
                    ZomError::new(
                        ErrorCode::NotFound,
                        format!("no metadata document at {key}"),
                    )
                    .at_path(path.clone())
                    .at_key(key)
                })
                .collect()
        })
        .collect();

    let strings = [1000, 100_000]
        .into_iter()
        .map(|n| (0..n).map(|i| format!("sample {i:06}")).collect())
        .collect();

    let listing = Listing {
        keys: paths
            .iter()
            .skip(1)
            .take(1000)
            .map(|p| join_path(p, "zarr.json"))
            .collect(),
        prefixes: Vec::new(),
        truncated: true,
        next: Some("token-of-the-next-page".into()),
    };

    Ok(Fixtures {
        zoms,
        reports,
        summaries,
        errors,
        strings,
        listing,
        limits: Limits::DEFAULT,
        shape: vec![4096, 4096, 3, 2],
    })
}
