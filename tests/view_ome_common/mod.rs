//! Helpers of the view tests (view_ome, view_ome_problems, view_ome_hostile): fixtures' ZOMs,
//! the image view of a node, problem assertions.
#![allow(dead_code)]

use crate::common::{fixtures, read_documents};
use serde_json::Value;
use std::path::Path;
use zom::validate::{LocStep, Problem, ProblemKind, Severity};
use zom::view::ome::{self, ImageView};
use zom::view::{describe, node_paths, View};

/// The ZOM JSON of a fixture folder, read as zom reads a store.
pub fn zom_of(dir: &str) -> Value {
    zom_at(&fixtures().join(dir))
}

pub fn zom_at(dir: &Path) -> Value {
    let docs = read_documents(dir);
    zom::model::from_document_bytes(docs, &zom::Limits::default())
        .unwrap()
        .to_value()
}

pub fn image_of(zom: &Value, path: &str) -> (ImageView, Vec<Problem>) {
    let d = describe(zom, path);
    match d.view {
        Some(View::Image(v)) => (v, d.problems),
        other => panic!("{path}: not an image: {other:?}"),
    }
}

pub fn image(zom: &Value, path: &str) -> ImageView {
    let (view, problems) = image_of(zom, path);
    assert!(problems.is_empty(), "{path}: {problems:#?}");
    view
}

pub fn loc(steps: Value) -> Vec<LocStep> {
    steps
        .as_array()
        .unwrap()
        .iter()
        .map(|s| match s {
            Value::String(k) => LocStep::Key(k.clone()),
            n => LocStep::Index(n.as_u64().unwrap() as usize),
        })
        .collect()
}

/// The one problem of `problems`, checked against path, location, kind and severity.
pub fn assert_one(problems: &[Problem], path: &str, at: Value, severity: Severity) -> Problem {
    assert_eq!(problems.len(), 1, "{problems:#?}");
    let p = problems[0].clone();
    assert_eq!(p.path, path, "{p:#?}");
    assert_eq!(p.loc, loc(at), "{p:#?}");
    assert_eq!(p.kind, ProblemKind::InvalidValue, "{p:#?}");
    assert_eq!(p.severity, severity, "{p:#?}");
    p
}

/// The node at `path` of a ZOM, to edit.
pub fn node_mut<'a>(zom: &'a mut Value, path: &str) -> &'a mut Value {
    let mut at = zom;
    for name in path.split('/').filter(|n| !n.is_empty()) {
        at = at.get_mut("members").unwrap().get_mut(name).unwrap();
    }
    at
}

pub fn names(view: &ImageView) -> Vec<&str> {
    view.axes.iter().map(|a| a.name.as_str()).collect()
}

pub fn shapes(view: &ImageView) -> Vec<Vec<u64>> {
    view.levels
        .iter()
        .map(|l| l.shape.clone().unwrap())
        .collect()
}

/// Describes every node of a ZOM (and picks a level of each image), serialising each view.
pub fn describe_all(zom: &Value) {
    for path in node_paths(zom) {
        let d = describe(zom, &path);
        serde_json::to_string(&d).unwrap();
        if let Some(View::Image(v)) = &d.view {
            ome::level_for(v, 512, 512);
        }
    }
}
