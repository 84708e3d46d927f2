//! Differences as JSON, written by hand: the derived `Serialize` impls give the same JSON (see
//! the tests), but serde's serializer machinery costs the WebAssembly module more than this.

use super::compare::{Difference, DifferenceKind};
use crate::problem::LocStep;
use serde_json::{Map, Value};

impl DifferenceKind {
    /// The kind's name in JSON (`"added"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            DifferenceKind::Added => "added",
            DifferenceKind::Removed => "removed",
            DifferenceKind::Changed => "changed",
            DifferenceKind::TypeChanged => "type_changed",
            DifferenceKind::TooDeep => "too_deep",
        }
    }
}

impl Difference {
    /// The difference as JSON: `{path, loc, kind, expected?, actual?, message}`.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("path".into(), self.path.clone().into());
        o.insert("loc".into(), LocStep::list_value(&self.loc));
        o.insert("kind".into(), self.kind.as_str().into());
        if let Some(expected) = &self.expected {
            o.insert("expected".into(), expected.clone());
        }
        if let Some(actual) = &self.actual {
            o.insert("actual".into(), actual.clone());
        }
        o.insert("message".into(), self.message.clone().into());
        Value::Object(o)
    }

    /// Differences as a JSON array.
    pub fn list_value(differences: &[Difference]) -> Value {
        Value::Array(differences.iter().map(Difference::to_value).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_are_the_json_serde_writes() {
        let kinds = [
            DifferenceKind::Added,
            DifferenceKind::Removed,
            DifferenceKind::Changed,
            DifferenceKind::TypeChanged,
            DifferenceKind::TooDeep,
        ];
        let mut all = Vec::new();
        for (i, kind) in kinds.into_iter().enumerate() {
            for (expected, actual) in [
                (None, None),
                (Some(json!(1)), None),
                (None, Some(json!({"a": [1, "x"]}))),
                (Some(json!(null)), Some(json!(2.5))),
            ] {
                all.push(Difference {
                    path: format!("g/a{i}"),
                    loc: vec![LocStep::Key("attributes".into()), LocStep::Index(i)],
                    kind,
                    expected,
                    actual,
                    message: format!("difference {i}"),
                });
            }
        }
        assert_eq!(
            Difference::list_value(&all),
            serde_json::to_value(&all).unwrap()
        );
    }
}
