//! An image's label images: the `labels` group's list, `image-label`, and whether each label
//! image fits its image.

use super::MAX_LABELS;
use super::{ome_metadata, problem, read_image, ImageView, LabelColor, LabelInfo, LabelRef, Roles};
use crate::problem::{join_path, LocExt, Problem, Severity};
use crate::view::Node;
use serde_json::Value;

/// The label images the `labels` child group lists (0.4: its attributes' `labels`; 0.5 and
/// later: under `ome`).
pub(super) fn read_labels(node: &Node) -> Vec<LabelRef> {
    let Some(group) = node.child("labels") else {
        return Vec::new();
    };
    let Some((meta, _)) = ome_metadata(&group, "labels") else {
        return Vec::new();
    };
    let Some(list) = meta.get("labels").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .take(MAX_LABELS)
        .filter_map(Value::as_str)
        .filter(|name| !name.is_empty())
        .map(|name| LabelRef {
            name: name.to_string(),
            node: join_path(&group.path, name),
            present: group.child(name).is_some(),
        })
        .collect()
}

/// A label image's `image-label` metadata, resolved.
pub(super) fn read_label_info(node: &Node, label: &Value) -> LabelInfo {
    let list = |k: &str| {
        label
            .get(k)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    };
    let colors = list("colors")
        .iter()
        .take(MAX_LABELS)
        .filter_map(|c| {
            let label_value = c.get("label-value")?.as_f64()?;
            let rgba = c.get("rgba")?.as_array()?;
            let mut out = [0u8; 4];
            if rgba.len() != 4 {
                return None;
            }
            for (slot, v) in out.iter_mut().zip(rgba) {
                *slot = u8::try_from(v.as_u64()?).ok()?;
            }
            Some(LabelColor {
                label_value,
                rgba: out,
            })
        })
        .collect();
    let properties = list("properties")
        .iter()
        .take(MAX_LABELS)
        .filter(|p| p.get("label-value").is_some())
        .cloned()
        .collect();
    let source_image = label
        .get("source")
        .and_then(|s| s.get("image"))
        .and_then(Value::as_str)
        .and_then(|s| resolve(&node.path, s));
    LabelInfo {
        colors,
        properties,
        source_image,
    }
}

/// A relative path (`../../`) from node `from`, as a node path; `None` when it is absolute, a
/// URL, or climbs out of the hierarchy.
fn resolve(from: &str, relative: &str) -> Option<String> {
    if relative.starts_with('/') || relative.contains("://") {
        return None;
    }
    crate::spec::relative_path(from, relative)
}

/// Checks that each listed label image fits the image, located at the label image.
///
/// The spec: a label image is "in the same coordinate system as a corresponding multiscale
/// image (usually having the same dimensions and coordinate transformations)". "Usually" is
/// no MUST, so a level 0 that differs from the image's on a space axis, in size or in scale,
/// is a warning: an overlay drawn over the image would not fit it.
pub(super) fn check_labels(node: &Node, image: &ImageView, out: &mut Vec<Problem>) {
    let Some(base) = image.levels.first() else {
        return;
    };
    let roles = Roles::of(&image.axes);
    for label in &image.labels {
        let Some(at) = node.child(&format!("labels/{}", label.name)) else {
            continue;
        };
        let mut ignored = Vec::new();
        let Some(view) = read_image(&at, false, &mut ignored) else {
            continue;
        };
        let Some(level) = view.levels.first() else {
            continue;
        };
        let Some((_, lbase)) = ome_metadata(&at, "multiscales") else {
            continue;
        };
        let loc = lbase.key("multiscales").idx(0).key("datasets").idx(0);
        for &a in &roles.space {
            let name = &image.axes[a].name;
            let Some(b) = view.axes.iter().position(|x| &x.name == name) else {
                continue;
            };
            let (mine, theirs) = (base.shape.as_ref(), level.shape.as_ref());
            if let (Some(&s), Some(&l)) =
                (mine.and_then(|m| m.get(a)), theirs.and_then(|t| t.get(b)))
            {
                if s != l {
                    let message = format!(
                        "label image {} is {l} long on axis {name}; its image {} is {s}",
                        label.node, node.path
                    );
                    out.push(problem(&at, loc.clone(), Severity::Warning, message));
                }
            }
            if let (Some(&s), Some(&l)) = (base.scale.get(a), level.scale.get(b)) {
                if !close(s, l) {
                    let message = format!(
                        "label image {}'s level 0 scale on axis {name} is {l}; its image's is {s}",
                        label.node
                    );
                    out.push(problem(
                        &at,
                        loc.key("coordinateTransformations"),
                        Severity::Warning,
                        message,
                    ));
                }
            }
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn relative_sources_resolve_inside_the_hierarchy_only() {
        assert_eq!(resolve("labels/cells", "../../").as_deref(), Some(""));
        assert_eq!(resolve("a/labels/cells", "../..").as_deref(), Some("a"));
        assert_eq!(
            resolve("labels/cells", "./../x").as_deref(),
            Some("labels/x")
        );
        assert_eq!(resolve("labels/cells", "../../../"), None);
        assert_eq!(resolve("labels/cells", "/abs"), None);
        assert_eq!(resolve("labels/cells", "s3://bucket/x"), None);
    }
}
