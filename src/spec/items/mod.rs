//! Rules over the items of lists in the attributes, as conventions state them: items unique by
//! a key (`unique`), ordered by category (`order`), monotone values (`monotone`, of the items
//! or of the arrays they name), a string built from other items (`matches`), and values that
//! agree with another node's (`across`). Each is read from a node spec's key of the same name,
//! a list of rules, and checked on every node the node spec applies to.

mod check;
mod read;

pub(crate) use check::{array_fact_of, loc_text, relative_path, Context};

use super::pointer::Selector;
use crate::problem::Severity;
use serde_json::Value;

/// What every item rule has: its name, severity and the items of the attributes it applies
/// within.
pub(crate) struct Head {
    pub rule: String,
    pub severity: Severity,
    pub for_each: Selector,
}

/// Items whose keys must be distinct.
pub(crate) struct Unique {
    pub head: Head,
    pub items: Selector,
    pub key: Selector,
}

/// Items whose keys must come in the order of `categories`.
pub(crate) struct Order {
    pub head: Head,
    pub items: Selector,
    pub key: Selector,
    /// Values of each category, in order; `wildcard` is the category of any value not listed.
    pub categories: Vec<Vec<Value>>,
    pub wildcard: Option<usize>,
}

/// Which way a monotone sequence goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    NonDecreasing,
    NonIncreasing,
    Increasing,
    Decreasing,
    /// Every value the same (any JSON values).
    Equal,
}

/// Values (numbers, or lists of numbers compared entry by entry) that must go one way.
pub(crate) struct Monotone {
    pub head: Head,
    pub items: Selector,
    pub key: Selector,
    /// When given: within each item, the path of a node (relative to this one) whose array
    /// facts (`/shape`, `/chunk_shape`, …) `key` selects from.
    pub node_path: Option<Selector>,
    pub direction: Direction,
}

/// One part of the string a `matches` rule builds.
pub(crate) enum Part {
    Text(String),
    /// The value at `key` within the item itself.
    Own {
        key: Selector,
    },
    /// The `key` of the item of list `from` (from the attributes) at the index the item holds
    /// at `index`.
    Item {
        from: Selector,
        index: Selector,
        key: Selector,
    },
}

/// A string that must equal the concatenation of `parts`.
pub(crate) struct Matches {
    pub head: Head,
    pub value: Selector,
    pub parts: Vec<Part>,
}

/// How an `across` rule compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compare {
    Length,
    Value,
    /// The value is one of the values `other` selects.
    OneOf,
}

/// Values that must agree with values of another node's attributes.
pub(crate) struct Across {
    pub head: Head,
    pub value: Selector,
    /// The other node, relative to this one (`..` steps up).
    pub node: String,
    pub other: Selector,
    pub compare: Compare,
}

/// A node spec's item rules.
#[derive(Default)]
pub(crate) struct ItemRules {
    pub unique: Vec<Unique>,
    pub order: Vec<Order>,
    pub monotone: Vec<Monotone>,
    pub matches: Vec<Matches>,
    pub across: Vec<Across>,
}

/// The node spec keys read here.
pub(crate) const ITEM_KEYS: &[&str] = &["unique", "order", "monotone", "matches", "across"];
