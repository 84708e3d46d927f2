//! Reading item rules from a node spec, every mistake located.

use super::{
    Across, Compare, Direction, Head, ItemRules, Matches, Monotone, Order, Part, Unique, ITEM_KEYS,
};
use crate::spec::format::Reader;
use crate::spec::pointer::Selector;
use serde_json::{Map, Value};

const HEAD_KEYS: &[&str] = &["rule", "description", "severity", "for_each"];

impl<'d> Reader<'d> {
    /// The item rules of node spec `o` (at `at`).
    pub(crate) fn item_rules(&mut self, o: &'d Map<String, Value>, at: &str) -> ItemRules {
        let mut rules = ItemRules::default();
        for key in ITEM_KEYS {
            let Some(list) = self.list(o, key, at) else {
                continue;
            };
            for (i, v) in list.iter().enumerate() {
                let at = format!("{at}/{key}/{i}");
                match *key {
                    "unique" => rules.unique.extend(self.unique(v, &at)),
                    "order" => rules.order.extend(self.order(v, &at)),
                    "monotone" => rules.monotone.extend(self.monotone(v, &at)),
                    "matches" => rules.matches.extend(self.matches(v, &at)),
                    _ => rules.across.extend(self.across(v, &at)),
                }
            }
        }
        rules
    }

    fn item_rule(
        &mut self,
        v: &'d Value,
        at: &str,
        keys: &[&str],
    ) -> Option<(&'d Map<String, Value>, Head)> {
        let all: Vec<&str> = HEAD_KEYS.iter().chain(keys).copied().collect();
        let o = self.object(v, at, &all)?;
        let head = Head {
            rule: self.rule_name(o, at),
            severity: self.severity(o, at),
            for_each: self
                .selector(o, "for_each", at)
                .unwrap_or_else(Selector::whole),
        };
        Some((o, head))
    }

    /// A selector the rule cannot do without.
    fn required_selector(&mut self, o: &Map<String, Value>, key: &str, at: &str) -> Selector {
        if !o.contains_key(key) {
            self.problem(at, format!("'{key}' is required"));
        }
        self.selector(o, key, at).unwrap_or_else(Selector::whole)
    }

    fn unique(&mut self, v: &'d Value, at: &str) -> Option<Unique> {
        let (o, head) = self.item_rule(v, at, &["items", "key"])?;
        Some(Unique {
            head,
            items: self.required_selector(o, "items", at),
            key: self.selector(o, "key", at).unwrap_or_else(Selector::whole),
        })
    }

    fn order(&mut self, v: &'d Value, at: &str) -> Option<Order> {
        let (o, head) = self.item_rule(v, at, &["items", "key", "categories"])?;
        let mut categories = Vec::new();
        let mut wildcard = None;
        match o.get("categories") {
            Some(Value::Array(list)) if !list.is_empty() => {
                for (i, c) in list.iter().enumerate() {
                    let Some(values) = c.as_array() else {
                        self.problem(&format!("{at}/categories/{i}"), "must be an array");
                        continue;
                    };
                    if values.iter().any(|v| v == "*") {
                        if wildcard.is_some() {
                            self.problem(
                                &format!("{at}/categories/{i}"),
                                "'*' may be in one category only",
                            );
                        }
                        wildcard = Some(categories.len());
                    }
                    categories.push(values.iter().filter(|v| *v != "*").cloned().collect());
                }
            }
            _ => self.problem(
                at,
                "'categories' must be a non-empty array of arrays of values",
            ),
        }
        Some(Order {
            head,
            items: self.required_selector(o, "items", at),
            key: self.selector(o, "key", at).unwrap_or_else(Selector::whole),
            categories,
            wildcard,
        })
    }

    fn monotone(&mut self, v: &'d Value, at: &str) -> Option<Monotone> {
        let (o, head) = self.item_rule(v, at, &["items", "key", "node_path", "direction"])?;
        let direction = match o.get("direction").and_then(Value::as_str) {
            Some("non_decreasing") => Direction::NonDecreasing,
            Some("non_increasing") => Direction::NonIncreasing,
            Some("increasing") => Direction::Increasing,
            Some("decreasing") => Direction::Decreasing,
            Some("equal") => Direction::Equal,
            _ => {
                self.problem(
                    &format!("{at}/direction"),
                    "must be \"non_decreasing\", \"non_increasing\", \"increasing\", \"decreasing\" or \"equal\"",
                );
                Direction::NonDecreasing
            }
        };
        let node_path = self.selector(o, "node_path", at);
        let key = self.selector(o, "key", at).unwrap_or_else(Selector::whole);
        if node_path.is_some() && key.split_first_key().is_none() {
            self.problem(
                &format!("{at}/key"),
                "with node_path, the key must start with an array fact (/shape, /data_type, …)",
            );
        }
        Some(Monotone {
            head,
            items: self.required_selector(o, "items", at),
            key,
            node_path,
            direction,
        })
    }

    fn matches(&mut self, v: &'d Value, at: &str) -> Option<Matches> {
        let (o, head) = self.item_rule(v, at, &["value", "parts"])?;
        let value = self.required_selector(o, "value", at);
        let mut parts = Vec::new();
        match o.get("parts") {
            Some(Value::Array(list)) => {
                for (i, p) in list.iter().enumerate() {
                    let pat = format!("{at}/parts/{i}");
                    if let Value::String(text) = p {
                        parts.push(Part::Text(text.clone()));
                        continue;
                    }
                    let Some(po) = self.object(p, &pat, &["from", "index", "key"]) else {
                        continue;
                    };
                    let key = self
                        .selector(po, "key", &pat)
                        .unwrap_or_else(Selector::whole);
                    if !po.contains_key("from") && !po.contains_key("index") {
                        parts.push(Part::Own { key });
                        continue;
                    }
                    parts.push(Part::Item {
                        from: self.required_selector(po, "from", &pat),
                        index: self.required_selector(po, "index", &pat),
                        key,
                    });
                }
            }
            _ => self.problem(
                at,
                "'parts' must be an array of strings, {key} and {from, index, key}",
            ),
        }
        Some(Matches { head, value, parts })
    }

    fn across(&mut self, v: &'d Value, at: &str) -> Option<Across> {
        let (o, head) = self.item_rule(v, at, &["value", "node", "other", "compare"])?;
        let node = self.string(o, "node", at).map(str::to_string);
        if node.is_none() {
            self.problem(at, "'node' is required (a path relative to this node)");
        }
        let compare = match o.get("compare").and_then(Value::as_str) {
            None | Some("value") => Compare::Value,
            Some("length") => Compare::Length,
            Some("one_of") => Compare::OneOf,
            Some(_) => {
                self.problem(
                    &format!("{at}/compare"),
                    "must be \"value\", \"length\" or \"one_of\"",
                );
                Compare::Value
            }
        };
        Some(Across {
            head,
            value: self.required_selector(o, "value", at),
            node: node?,
            other: self.required_selector(o, "other", at),
            compare,
        })
    }
}
