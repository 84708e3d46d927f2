//! Selectors of a hierarchy spec: JSON pointers (RFC 6901) in which a `*` step stands for
//! every item of an array or every value of an object, e.g. `/ome/multiscales/*/datasets/*/path`.

use crate::problem::LocStep;
use serde_json::Value;

/// The most steps a selector may have (selecting recurses once per step).
pub(crate) const MAX_STEPS: usize = 64;

/// One step of a selector.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    /// An object key (or an array index written as digits).
    Key(String),
    /// Every item or value.
    Any,
}

/// A parsed selector.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Selector {
    steps: Vec<Step>,
    text: String,
}

/// A value a selector found, with where it is.
pub(crate) struct Found<'v> {
    /// Its location from the value the selector was applied to.
    pub loc: Vec<LocStep>,
    /// The value.
    pub value: &'v Value,
}

impl Selector {
    /// Parses `text` ("" selects the value itself; otherwise it starts with `/`).
    pub(crate) fn parse(text: &str) -> Result<Selector, String> {
        if text.is_empty() {
            return Ok(Selector {
                steps: Vec::new(),
                text: String::new(),
            });
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(format!("selector '{text}' must be empty or start with '/'"));
        };
        let steps: Vec<Step> = rest
            .split('/')
            .map(|s| match s {
                "*" => Step::Any,
                _ => Step::Key(s.replace("~1", "/").replace("~0", "~")),
            })
            .collect();
        if steps.len() > MAX_STEPS {
            return Err(format!(
                "selector '{text}' has {} steps; at most {MAX_STEPS} are allowed",
                steps.len()
            ));
        }
        Ok(Selector {
            steps,
            text: text.to_string(),
        })
    }

    /// The selector that selects the value itself (`""`).
    pub(crate) fn whole() -> Selector {
        Selector {
            steps: Vec::new(),
            text: String::new(),
        }
    }

    /// The first step when it is a key, and the selector of the steps after it (`/shape/0` →
    /// `shape`, `/0`).
    pub(crate) fn split_first_key(&self) -> Option<(&str, Selector)> {
        let Some(Step::Key(first)) = self.steps.first() else {
            return None;
        };
        let rest_text = self
            .text
            .get(1..)
            .and_then(|t| t.find('/').map(|i| &t[i..]))
            .unwrap_or("");
        let rest = Selector {
            steps: self.steps.get(1..).unwrap_or_default().to_vec(),
            text: rest_text.to_string(),
        };
        Some((first, rest))
    }

    /// The selector as written.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Every value the selector finds in `root`, in document order; `base` is prepended to
    /// each location. Keys or indices that are absent select nothing.
    pub(crate) fn select<'v>(&self, root: &'v Value, base: &[LocStep]) -> Vec<Found<'v>> {
        self.select_in(root, base, true)
    }

    /// [`Selector::select`], or with `locate` false the values alone (every `loc` empty), which
    /// allocates nothing per step: for checks that need locations only when they find a problem.
    pub(crate) fn select_in<'v>(
        &self,
        root: &'v Value,
        base: &[LocStep],
        locate: bool,
    ) -> Vec<Found<'v>> {
        let mut found = Vec::new();
        let mut loc = if locate { base.to_vec() } else { Vec::new() };
        self.walk(0, root, locate, &mut loc, &mut found);
        found
    }

    /// Applies the steps from `step` on to `value` at `loc`; a location is copied only for
    /// what is found. Recursion is as deep as the selector is long (at most [`MAX_STEPS`]).
    fn walk<'v>(
        &self,
        step: usize,
        value: &'v Value,
        locate: bool,
        loc: &mut Vec<LocStep>,
        found: &mut Vec<Found<'v>>,
    ) {
        let Some(s) = self.steps.get(step) else {
            found.push(Found {
                loc: loc.clone(),
                value,
            });
            return;
        };
        // The step is made only when locations are kept (a key's copy is an allocation).
        let mut visit =
            |here: &dyn Fn() -> LocStep, child: &'v Value, found: &mut Vec<Found<'v>>| {
                if locate {
                    loc.push(here());
                }
                self.walk(step + 1, child, locate, loc, found);
                if locate {
                    loc.pop();
                }
            };
        match (s, value) {
            (Step::Any, Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    visit(&|| LocStep::Index(i), item, found);
                }
            }
            (Step::Any, Value::Object(map)) => {
                for (k, v) in map {
                    visit(&|| LocStep::Key(k.clone()), v, found);
                }
            }
            (Step::Key(k), Value::Object(map)) => {
                if let Some(v) = map.get(k) {
                    visit(&|| LocStep::Key(k.clone()), v, found);
                }
            }
            (Step::Key(k), Value::Array(items)) => {
                let item = k
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| Some((i, items.get(i)?)));
                if let Some((i, v)) = item {
                    visit(&|| LocStep::Index(i), v, found);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wildcards_select_every_item_in_order() {
        let v = json!({"m": [{"d": [{"p": "0"}, {"p": "1"}]}, {"d": [{"p": "2"}, {"q": 3}]}]});
        let s = Selector::parse("/m/*/d/*/p").unwrap();
        let found: Vec<_> = s
            .select(&v, &[])
            .into_iter()
            .map(|f| (f.loc, f.value.clone()))
            .collect();
        assert_eq!(found.len(), 3);
        assert_eq!(found[2].1, json!("2"));
        assert_eq!(
            found[2].0,
            vec![
                LocStep::Key("m".into()),
                LocStep::Index(1),
                LocStep::Key("d".into()),
                LocStep::Index(0),
                LocStep::Key("p".into())
            ]
        );
    }

    #[test]
    fn escapes_indices_and_absent_keys() {
        let v = json!({"a/b": {"~": [10, 20]}});
        let s = Selector::parse("/a~1b/~0/1").unwrap();
        let found = s.select(&v, &[LocStep::Key("attributes".into())]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].value, &json!(20));
        assert_eq!(found[0].loc.len(), 4);
        assert!(Selector::parse("/x/*").unwrap().select(&v, &[]).is_empty());
        assert!(Selector::parse("/a~1b/~0/7")
            .unwrap()
            .select(&v, &[])
            .is_empty());
        assert!(Selector::parse("a").is_err());
        assert!(Selector::parse(&"/a".repeat(MAX_STEPS)).is_ok());
        assert!(Selector::parse(&"/a".repeat(MAX_STEPS + 1)).is_err());
        assert_eq!(Selector::parse("").unwrap().select(&v, &[]).len(), 1);
        let (first, rest) = Selector::parse("/a~1b/~0/1")
            .unwrap()
            .split_first_key()
            .map(|(f, r)| (f.to_string(), r))
            .unwrap();
        assert_eq!((first.as_str(), rest.text()), ("a/b", "/~0/1"));
        assert_eq!(rest.select(&v["a/b"], &[]).len(), 1);
        assert!(Selector::parse("/*/x").unwrap().split_first_key().is_none());
        assert!(Selector::parse("").unwrap().split_first_key().is_none());
    }
}
