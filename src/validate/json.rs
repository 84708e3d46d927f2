//! Reports as JSON, written by hand: the derived `Serialize` impls give the same JSON (see the
//! tests), but serde's serializer machinery costs the WebAssembly module more than this.

use super::{LocStep, Problem, ProblemKind, Report, Severity};
use serde_json::{Map, Value};

impl ProblemKind {
    /// The kind's name in JSON (`"missing_key"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::MissingKey => "missing_key",
            ProblemKind::InvalidType => "invalid_type",
            ProblemKind::InvalidValue => "invalid_value",
            ProblemKind::UnknownKey => "unknown_key",
            ProblemKind::InvalidJson => "invalid_json",
            ProblemKind::MustUnderstand => "must_understand",
        }
    }
}

impl Severity {
    /// The severity's name in JSON (`"error"` or `"warning"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl LocStep {
    /// The step as JSON: a string key or a number index.
    pub fn to_value(&self) -> Value {
        match self {
            LocStep::Key(key) => Value::String(key.clone()),
            LocStep::Index(index) => Value::from(*index),
        }
    }

    /// A location as a JSON array.
    pub fn list_value(loc: &[LocStep]) -> Value {
        Value::Array(loc.iter().map(LocStep::to_value).collect())
    }
}

impl Problem {
    /// The problem as JSON: `{path, loc, kind, message, severity}`, plus `spec` and `rule` for
    /// problems found by a hierarchy spec.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("path".into(), self.path.clone().into());
        o.insert("loc".into(), LocStep::list_value(&self.loc));
        o.insert("kind".into(), self.kind.as_str().into());
        o.insert("message".into(), self.message.clone().into());
        o.insert("severity".into(), self.severity.as_str().into());
        if let Some(spec) = &self.spec {
            o.insert("spec".into(), spec.clone().into());
        }
        if let Some(rule) = &self.rule {
            o.insert("rule".into(), rule.clone().into());
        }
        Value::Object(o)
    }

    /// Problems as a JSON array.
    pub fn list_value(problems: &[Problem]) -> Value {
        Value::Array(problems.iter().map(Problem::to_value).collect())
    }
}

impl Report {
    /// The report as JSON: `{valid, problems}`.
    pub fn to_value(&self) -> Value {
        let mut o = Map::new();
        o.insert("valid".into(), self.valid.into());
        o.insert("problems".into(), Problem::list_value(&self.problems));
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_the_json_serde_writes() {
        let kinds = [
            ProblemKind::MissingKey,
            ProblemKind::InvalidType,
            ProblemKind::InvalidValue,
            ProblemKind::UnknownKey,
            ProblemKind::InvalidJson,
            ProblemKind::MustUnderstand,
        ];
        let mut problems = Vec::new();
        for (i, kind) in kinds.into_iter().enumerate() {
            for severity in [Severity::Error, Severity::Warning] {
                problems.push(Problem {
                    path: format!("a/b{i}"),
                    loc: vec![
                        LocStep::Key("codecs".into()),
                        LocStep::Index(i),
                        LocStep::Key("é\"".into()),
                    ],
                    kind,
                    message: format!("problem {i}"),
                    severity,
                    spec: None,
                    rule: None,
                });
            }
        }
        for report in [Report::default(), Report::from_problems(problems.clone())] {
            assert_eq!(report.to_value(), serde_json::to_value(&report).unwrap());
        }
        assert_eq!(
            Problem::list_value(&problems),
            serde_json::to_value(&problems).unwrap()
        );
        let loc = &problems[0].loc;
        assert_eq!(LocStep::list_value(loc), serde_json::to_value(loc).unwrap());
    }
}
