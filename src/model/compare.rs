//! Structural comparison of two ZOM trees (pydantic-zarr's JSON form): every difference,
//! located by node path and by field location inside the node.
//!
//! # What is compared
//!
//! A node is a JSON object. Its fields are compared in document order (the expected node's keys
//! in their order, then the keys only the actual node has), then its `members`: the union of
//! both sides' member names in byte order, each member compared recursively as a node. The
//! output is in that order (pre-order over the tree), so it is deterministic.
//!
//! - A member present on one side only is **one** difference at the member's path with an
//!   empty `loc` (`added`: only in actual, `removed`: only in expected), not one per field.
//! - A member that is a group on one side and an array on the other is one `type_changed`
//!   difference at the member's path with an empty `loc` (expected/actual are `"group"` /
//!   `"array"`), since their fields are not comparable. The kind is `node_type` when it is
//!   `"group"` or `"array"`, else `"array"` when the node has `shape`, else `"group"` when it
//!   has `members` (v2 nodes have no `node_type`). Nodes of different `zarr_format` but the
//!   same kind are compared field by field.
//! - When `members` is not an object on both sides (absent, or `null` in the flattened form),
//!   it is compared as a plain field at loc `["members"]`.
//! - Objects inside a node compare key by key regardless of key order. Arrays compare element
//!   by element by index, with no alignment: an element past the other side's length is one
//!   `added`/`removed` difference per element (so a length change from 2 to 3 is one `added`
//!   at index 2, and an element inserted at the front shows as changes at every index).
//! - Values of different JSON types (null, boolean, number, string, array, object) are one
//!   `type_changed`; the containers are not entered. Booleans are not numbers (Python's
//!   `True == 1` does not apply).
//! - Numbers compare by value: `1`, `1.0` and `1e0` are equal; integers beyond 2^53 compare
//!   exactly against each other and against floats, without overflow. `"NaN"` and other
//!   strings compare as strings.
//! - Nesting deeper than [`MAX_LOCATION_STEPS`] steps of location (counted from the root, member steps
//!   included) is not entered: it gives one `too_deep` difference there, so a tree that deep
//!   is never [`like`] anything, itself included.
//!
//! # Field selectors
//!
//! [`CompareOptions`] takes selectors: dotted paths of fields inside a node, e.g. `attributes`,
//! `codecs`, `chunk_grid.configuration`, `attributes.units`, `codecs.1.configuration.level`.
//! - A step is an object key; on an array it is a decimal index (`codecs.0`).
//! - The step `*` matches any one key or index (`codecs.*.configuration`).
//! - `\` escapes the next character: `attributes.a\.b` is the key `a.b`, `\*` a literal `*`,
//!   `\\` a backslash. The empty selector selects nothing.
//! - A selector applies at every node, relative to that node: `attributes` is the attributes
//!   of the root and of every member. Because it is also tried relative to each ancestor,
//!   `members.a` selects every member named `a`, and `members.a.attributes` the attributes of
//!   every node named `a`.
//! - `exclude`: a field (or member) matched by an exclude selector, and everything inside it,
//!   is ignored. Excluding `members` compares only the root node.
//! - `include`: only fields matched by an include selector (and what is inside them) are
//!   compared; `None` compares everything. The member structure is always walked in include
//!   mode (unless `members` is excluded): members present on one side only and group/array
//!   changes are still reported, and the included fields of every member are compared.
//! - Exclusion wins over inclusion.
//!
//! Compared with pydantic-zarr's `like(other, include=, exclude=)` (which dumps both models
//! with pydantic's `include`/`exclude` and compares the dicts with `==`): the two agree on the
//! root node (`exclude={"attributes"}` ignores the attributes, `exclude={"members"}` compares
//! the root only). pydantic's set form applies only to the root's own fields, where these
//! selectors apply at every node; pydantic's `include={"attributes"}` drops the members
//! entirely, where here the members are still walked; and Python's `True == 1` makes pydantic
//! call a boolean equal to a number, which this does not.

use crate::json::type_name;
use crate::problem::LocStep;
use serde::Serialize;
use serde_json::{Map, Number, Value};

/// The deepest location (in steps from the root, `members`/name steps and the steps into
/// attribute values included: not the levels of nodes [`crate::model::node::MAX_DEPTH`] counts)
/// that is compared; anything nested deeper is one [`DifferenceKind::TooDeep`] difference.
pub const MAX_LOCATION_STEPS: usize = 256;

/// Which fields of every node to compare (see the module documentation for the syntax).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompareOptions {
    /// Compare only these fields (plus the member structure); `None` compares all fields.
    pub include: Option<Vec<String>>,
    /// Ignore these fields; `members` here compares only the root node.
    pub exclude: Vec<String>,
}

/// What kind of difference was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DifferenceKind {
    /// Present in the actual tree only.
    Added,
    /// Present in the expected tree only.
    Removed,
    /// Present in both with the same JSON type but different values.
    Changed,
    /// Present in both with different JSON types, or a group on one side and an array on the
    /// other.
    TypeChanged,
    /// Nested deeper than [`MAX_LOCATION_STEPS`]: not compared.
    TooDeep,
}

/// One difference between the expected and the actual tree.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    /// Node path: `""` for the root, `"a/b"` for a member.
    pub path: String,
    /// Location inside the node, e.g. `["codecs", 1, "configuration", "level"]`; empty for a
    /// whole member added, removed or changed between group and array.
    pub loc: Vec<LocStep>,
    /// What kind of difference it is.
    pub kind: DifferenceKind,
    /// The expected value (absent when the value is only in the actual tree, or too deep to
    /// copy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// The actual value (absent when the value is only in the expected tree, or too deep to
    /// copy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
    /// The difference in words, with the location in selector syntax.
    pub message: String,
}

/// Every difference between `expected` and `actual`, in document order (see the module
/// documentation). Never panics, whatever the input.
pub fn diff(expected: &Value, actual: &Value, options: &CompareOptions) -> Vec<Difference> {
    let mut walker = Walker {
        include: options
            .include
            .as_ref()
            .map(|list| list.iter().filter_map(|s| parse_selector(s)).collect()),
        exclude: options
            .exclude
            .iter()
            .filter_map(|s| parse_selector(s))
            .collect(),
        full: Vec::new(),
        node_starts: vec![0],
        path: String::new(),
        out: Vec::new(),
    };
    walker.node(expected, actual);
    walker.out
}

/// Whether the two trees have no difference under `options` (`diff` is empty).
pub fn like(a: &Value, b: &Value, options: &CompareOptions) -> bool {
    diff(a, b, options).is_empty()
}

/// One step of a parsed selector.
enum Step {
    /// `*`: any key or index.
    Any,
    /// A key, and the index it also names when it is a canonical decimal number.
    Name(String, Option<usize>),
}

impl Step {
    fn matches(&self, step: &LocStep) -> bool {
        match (self, step) {
            (Step::Any, _) => true,
            (Step::Name(name, _), LocStep::Key(key)) => name == key,
            (Step::Name(_, index), LocStep::Index(i)) => *index == Some(*i),
        }
    }
}

fn parse_selector(selector: &str) -> Option<Vec<Step>> {
    if selector.is_empty() {
        return None;
    }
    let mut steps = Vec::new();
    let mut current = String::new();
    let mut escaped_any = false;
    let mut chars = selector.chars();
    let finish = |text: String, escaped: bool| {
        if text == "*" && !escaped {
            Step::Any
        } else {
            let index = text.parse::<usize>().ok().filter(|i| i.to_string() == text);
            Step::Name(text, index)
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                escaped_any = true;
                current.push(chars.next().unwrap_or('\\'));
            }
            '.' => {
                steps.push(finish(std::mem::take(&mut current), escaped_any));
                escaped_any = false;
            }
            _ => current.push(c),
        }
    }
    steps.push(finish(current, escaped_any));
    Some(steps)
}

/// How an include selector relates to a location.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inclusion {
    /// Inside an included field.
    Included,
    /// On the way to an included field.
    OnPath,
    /// Neither.
    Out,
}

struct Walker {
    include: Option<Vec<Vec<Step>>>,
    exclude: Vec<Vec<Step>>,
    /// The location from the root, member steps included.
    full: Vec<LocStep>,
    /// Where in `full` each node on the current path starts (the root at 0).
    node_starts: Vec<usize>,
    /// The current node's path.
    path: String,
    out: Vec<Difference>,
}

impl Walker {
    /// The current location relative to each node on the path, innermost last.
    fn relative_locs(&self) -> impl Iterator<Item = &[LocStep]> {
        self.node_starts
            .iter()
            .filter_map(|start| self.full.get(*start..))
    }

    /// The current location inside the current node.
    fn loc(&self) -> Vec<LocStep> {
        let start = self.node_starts.last().copied().unwrap_or(0);
        self.full.get(start..).unwrap_or_default().to_vec()
    }

    fn excluded(&self) -> bool {
        self.relative_locs().any(|rel| {
            self.exclude
                .iter()
                .any(|sel| sel.len() <= rel.len() && sel.iter().zip(rel).all(|(s, l)| s.matches(l)))
        })
    }

    fn inclusion(&self) -> Inclusion {
        let Some(include) = &self.include else {
            return Inclusion::Included;
        };
        let mut result = Inclusion::Out;
        for rel in self.relative_locs() {
            for sel in include {
                if !sel.iter().zip(rel).all(|(s, l)| s.matches(l)) {
                    continue;
                }
                if sel.len() <= rel.len() {
                    return Inclusion::Included;
                }
                result = Inclusion::OnPath;
            }
        }
        result
    }

    fn push(&mut self, kind: DifferenceKind, e: Option<&Value>, a: Option<&Value>, what: String) {
        let budget = MAX_LOCATION_STEPS.saturating_sub(self.full.len());
        let expected = e.and_then(|v| bounded_clone(v, budget));
        let actual = a.and_then(|v| bounded_clone(v, budget));
        let mut message = what;
        if expected.is_none() != e.is_none() || actual.is_none() != a.is_none() {
            message.push_str(" (value too deeply nested to include)");
        }
        let loc = self.loc();
        if !loc.is_empty() {
            message = format!("{}: {message}", selector_string(&loc));
        }
        self.out.push(Difference {
            path: self.path.clone(),
            loc,
            kind,
            expected,
            actual,
            message,
        });
    }

    fn too_deep(&mut self) {
        let what = format!("nested deeper than {MAX_LOCATION_STEPS} levels; not compared");
        self.push(DifferenceKind::TooDeep, None, None, what);
    }

    /// Compares two nodes; `full`, `node_starts` and `path` already point at them.
    fn node(&mut self, e: &Value, a: &Value) {
        if self.full.len() >= MAX_LOCATION_STEPS {
            self.too_deep();
            return;
        }
        let (Some(eo), Some(ao)) = (e.as_object(), a.as_object()) else {
            self.value(Some(e), Some(a), true);
            return;
        };
        if let (Some(ek), Some(ak)) = (node_kind(eo), node_kind(ao)) {
            if ek != ak {
                let what = format!("expected {}, found {}", article(ek), article(ak));
                let (ev, av) = (Value::String(ek.into()), Value::String(ak.into()));
                self.push(DifferenceKind::TypeChanged, Some(&ev), Some(&av), what);
                return;
            }
        }
        for (key, ev) in eo {
            if key != "members" {
                self.field(key, Some(ev), ao.get(key));
            }
        }
        for (key, av) in ao {
            if key != "members" && !eo.contains_key(key) {
                self.field(key, None, Some(av));
            }
        }
        self.full.push(LocStep::Key("members".into()));
        if !self.excluded() {
            match (eo.get("members"), ao.get("members")) {
                (Some(Value::Object(em)), Some(Value::Object(am))) => self.members(em, am),
                (None, None) => {}
                (em, am) => self.value(em, am, true),
            }
        }
        self.full.pop();
    }

    fn field(&mut self, key: &str, e: Option<&Value>, a: Option<&Value>) {
        self.full.push(LocStep::Key(key.to_owned()));
        self.value(e, a, false);
        self.full.pop();
    }

    fn members(&mut self, em: &Map<String, Value>, am: &Map<String, Value>) {
        let names: Vec<String> = em.keys().chain(am.keys()).cloned().collect();
        for name in crate::store::sorted_unique(names) {
            let name = &name;
            self.full.push(LocStep::Key(name.clone()));
            if !self.excluded() {
                let saved = self.path.len();
                if !self.path.is_empty() {
                    self.path.push('/');
                }
                self.path.push_str(name);
                self.node_starts.push(self.full.len());
                match (em.get(name), am.get(name)) {
                    (Some(e), Some(a)) => self.node(e, a),
                    (Some(e), None) => {
                        let what = format!("{} only in expected", member_word(e));
                        self.push(DifferenceKind::Removed, Some(e), None, what);
                    }
                    (None, Some(a)) => {
                        let what = format!("{} only in actual", member_word(a));
                        self.push(DifferenceKind::Added, None, Some(a), what);
                    }
                    (None, None) => {}
                }
                self.node_starts.pop();
                self.path.truncate(saved);
            }
            self.full.pop();
        }
    }

    /// Compares two values at the current location; `included` skips the include check
    /// (a parent was included, or the value is structural).
    fn value(&mut self, e: Option<&Value>, a: Option<&Value>, included: bool) {
        if self.excluded() {
            return;
        }
        let inclusion = if included {
            Inclusion::Included
        } else {
            self.inclusion()
        };
        match inclusion {
            Inclusion::Out => {}
            Inclusion::OnPath => self.children(e, a, false),
            Inclusion::Included => match (e, a) {
                (None, None) => {}
                (Some(e), None) => {
                    let what = format!("only in expected ({})", short(e));
                    self.push(DifferenceKind::Removed, Some(e), None, what);
                }
                (None, Some(a)) => {
                    let what = format!("only in actual ({})", short(a));
                    self.push(DifferenceKind::Added, None, Some(a), what);
                }
                (Some(e), Some(a)) => self.both(e, a),
            },
        }
    }

    fn both(&mut self, e: &Value, a: &Value) {
        let equal = match (e, a) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(x), Value::Bool(y)) => x == y,
            (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
            (Value::String(x), Value::String(y)) => x == y,
            (Value::Array(_), Value::Array(_)) | (Value::Object(_), Value::Object(_)) => {
                self.children(Some(e), Some(a), true);
                return;
            }
            _ => {
                let what = format!(
                    "expected {}, found {}",
                    article(type_name(e)),
                    article(type_name(a))
                );
                self.push(DifferenceKind::TypeChanged, Some(e), Some(a), what);
                return;
            }
        };
        if !equal {
            let what = format!("expected {}, found {}", short(e), short(a));
            self.push(DifferenceKind::Changed, Some(e), Some(a), what);
        }
    }

    /// Compares the children of two values (either may be absent or not a container).
    fn children(&mut self, e: Option<&Value>, a: Option<&Value>, included: bool) {
        let has_children =
            |v: Option<&Value>| matches!(v, Some(Value::Array(_) | Value::Object(_)));
        if !has_children(e) && !has_children(a) {
            return;
        }
        if self.full.len() >= MAX_LOCATION_STEPS {
            self.too_deep();
            return;
        }
        let mut steps: Vec<LocStep> = Vec::new();
        let mut len = 0usize;
        if let Some(Value::Object(eo)) = e {
            steps.extend(eo.keys().map(|k| LocStep::Key(k.clone())));
        }
        if let Some(Value::Object(ao)) = a {
            let in_expected =
                |k: &String| matches!(e, Some(Value::Object(eo)) if eo.contains_key(k));
            steps.extend(
                ao.keys()
                    .filter(|k| !in_expected(k))
                    .map(|k| LocStep::Key(k.clone())),
            );
        }
        for side in [e, a] {
            if let Some(Value::Array(items)) = side {
                len = len.max(items.len());
            }
        }
        steps.extend((0..len).map(LocStep::Index));
        for step in steps {
            let (ec, ac) = (child(e, &step), child(a, &step));
            self.full.push(step);
            self.value(ec, ac, included);
            self.full.pop();
        }
    }
}

fn child<'v>(value: Option<&'v Value>, step: &LocStep) -> Option<&'v Value> {
    match (value?, step) {
        (Value::Object(o), LocStep::Key(k)) => o.get(k),
        (Value::Array(items), LocStep::Index(i)) => items.get(*i),
        _ => None,
    }
}

fn node_kind(node: &Map<String, Value>) -> Option<&'static str> {
    match node.get("node_type").and_then(Value::as_str) {
        Some("group") => Some("group"),
        Some("array") => Some("array"),
        Some(_) => None,
        None if node.contains_key("shape") => Some("array"),
        None if node.contains_key("members") => Some("group"),
        None => None,
    }
}

fn member_word(node: &Value) -> String {
    match node.as_object().and_then(node_kind) {
        Some(kind) => format!("{kind} member"),
        None => "member".into(),
    }
}

/// The integer value of a number, when it is one.
fn integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

fn numbers_equal(x: &Number, y: &Number) -> bool {
    match (integer(x), integer(y)) {
        (Some(i), Some(j)) => i == j,
        (Some(i), None) => float_equals_integer(y.as_f64(), i),
        (None, Some(j)) => float_equals_integer(x.as_f64(), j),
        (None, None) => match (x.as_f64(), y.as_f64()) {
            (Some(f), Some(g)) => f == g,
            _ => false,
        },
    }
}

fn float_equals_integer(f: Option<f64>, i: i128) -> bool {
    // 2^64: no integer a serde_json number can hold reaches it.
    const LIMIT: f64 = 18_446_744_073_709_551_616.0;
    match f {
        Some(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < LIMIT => {
            // ok: f is integral and |f| < 2^64, so the conversion is exact.
            f as i128 == i
        }
        _ => false,
    }
}

/// A copy of `value` when it nests at most `budget` containers deep.
fn bounded_clone(value: &Value, budget: usize) -> Option<Value> {
    match value {
        Value::Array(items) => {
            let budget = budget.checked_sub(1)?;
            let mut copy = Vec::with_capacity(items.len());
            for v in items {
                copy.push(bounded_clone(v, budget)?);
            }
            Some(Value::Array(copy))
        }
        Value::Object(object) => {
            let budget = budget.checked_sub(1)?;
            let mut copy = Map::new();
            for (k, v) in object {
                copy.insert(k.clone(), bounded_clone(v, budget)?);
            }
            Some(Value::Object(copy))
        }
        scalar => Some(scalar.clone()),
    }
}

/// A short description of a value for messages: scalars as JSON (cut at 60 characters),
/// containers by their size.
fn short(value: &Value) -> String {
    match value {
        Value::Array(items) => format!("an array of {} items", items.len()),
        Value::Object(object) => format!("an object with {} keys", object.len()),
        scalar => {
            let text = crate::json::to_compact(scalar);
            if text.chars().count() > 60 {
                let cut: String = text.chars().take(57).collect();
                format!("{cut}...")
            } else {
                text
            }
        }
    }
}

fn article(word: &str) -> String {
    match word.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {word}"),
        _ => format!("a {word}"),
    }
}

/// A location in selector syntax (keys with `.`, `\` escaped, a `*` key as `\*`).
fn selector_string(loc: &[LocStep]) -> String {
    let mut out = String::new();
    for (i, step) in loc.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        match step {
            LocStep::Index(n) => out.push_str(&n.to_string()),
            LocStep::Key(key) if key == "*" => out.push_str("\\*"),
            LocStep::Key(key) => {
                for c in key.chars() {
                    if c == '.' || c == '\\' {
                        out.push('\\');
                    }
                    out.push(c);
                }
            }
        }
    }
    out
}
