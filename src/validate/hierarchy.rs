//! Whole hierarchies as ZOM JSON (pydantic-zarr's `GroupSpec` form): each node as a document
//! of its version, plus member names, mixed versions and members of arrays.

use super::names::{node_name_error, node_name_recommended};
use super::util::{join_path, show, tname, Ctx, LocExt};
use super::{v2, v3, LocStep, ProblemKind};
use crate::model::node::{format_of, node_kind, MAX_DEPTH};
use serde_json::Value;

/// Validates the tree rooted at `zom`.
pub(crate) fn validate(cx: &mut Ctx, zom: &Value) {
    let root_format = format_of(zom);
    let mut stack: Vec<(String, &Value, usize)> = vec![(String::new(), zom, 0)];
    while let Some((path, node, depth)) = stack.pop() {
        cx.path = path;
        let base: &[LocStep] = &[];
        let Some(obj) = node.as_object() else {
            cx.error(
                base,
                ProblemKind::InvalidType,
                format!(
                    "a ZOM node must be an object, not {} {}",
                    tname(node),
                    show(node)
                ),
            );
            continue;
        };
        let own = format_of(node);
        let (version, is_array) = node_kind(obj, own.or(root_format));
        if let (Some(own), Some(root), true) = (own, root_format, depth > 0) {
            if own != root {
                cx.error(
                    &base.key("zarr_format"),
                    ProblemKind::InvalidValue,
                    format!("node has zarr_format {own} but the root has {root}; a hierarchy has one version"),
                );
            }
        }
        match (version, is_array) {
            (3, _) => v3::check_zarr_json(cx, node, base, true),
            (_, true) => v2::check_zarray(cx, node, base, true),
            (_, false) => v2::check_zgroup(cx, node, base, true),
        }
        let mloc = base.key("members");
        match (is_array, obj.get("members")) {
            (_, None) | (false, Some(Value::Null)) => {}
            (true, Some(_)) => cx.error(
                &mloc,
                ProblemKind::InvalidValue,
                "an array cannot have members",
            ),
            (false, Some(Value::Object(members))) => {
                if depth >= MAX_DEPTH {
                    if !members.is_empty() {
                        cx.error(
                            &mloc,
                            ProblemKind::InvalidValue,
                            format!("the hierarchy is deeper than {MAX_DEPTH} levels; members below are not checked"),
                        );
                    }
                    continue;
                }
                for (name, _) in members.iter() {
                    if let Some(why) = node_name_error(name) {
                        cx.error(&mloc.key(name), ProblemKind::InvalidValue, why);
                    } else if !node_name_recommended(name) {
                        cx.warn(
                            &mloc.key(name),
                            ProblemKind::InvalidValue,
                            format!("node name '{name}' should use only a-z, A-Z, 0-9, '-', '_' and '.'"),
                        );
                    }
                }
                let parent = cx.path.clone();
                for (name, child) in members.iter().rev() {
                    stack.push((join_path(&parent, name), child, depth.saturating_add(1)));
                }
            }
            (false, Some(other)) => cx.error(
                &mloc,
                ProblemKind::InvalidType,
                format!(
                    "'members' must be an object, not {} {}",
                    tname(other),
                    show(other)
                ),
            ),
        }
    }
}
