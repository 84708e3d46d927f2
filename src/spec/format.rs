//! Reading a hierarchy spec document into rules: every part checked, every JSON Schema
//! compiled once, node specs referred to by name resolved to indices. The format is described
//! in ARCHITECTURE.md ("Hierarchy specs") and by its own JSON Schema, `spec.schema.json`.

use super::items::ItemRules;
use super::pattern::Pattern;
use super::pointer::Selector;
use super::schema::Schema;
use crate::error::{ErrorCode, Result, ZomError};
use crate::problem::Severity;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The `zom_spec` number of the format this version of zom reads.
pub const FORMAT_VERSION: u64 = 1;

/// A hierarchy spec, read and compiled: where it applies in a hierarchy and what it asks of
/// the nodes there.
pub struct Spec {
    /// Its `name`, reported with each problem.
    pub name: String,
    /// The convention it belongs to (`ome-zarr`, `xarray`, …); its name when not given.
    pub convention: String,
    /// The version of the convention, when the spec gives one.
    pub version: Option<String>,
    /// A title for people, when given.
    pub title: Option<String>,
    pub(crate) claims: Vec<Claim>,
    pub(crate) root: Option<usize>,
    pub(crate) nodes: Vec<NodeRule>,
    pub(crate) schemas: Vec<Schema>,
}

/// Where a spec applies: nodes that match `when` are checked against `node`.
pub(crate) struct Claim {
    pub name: String,
    pub when: When,
    pub node: usize,
}

/// A condition on a node.
pub(crate) struct When {
    pub zarr_format: Option<u64>,
    pub kind: Option<Kind>,
    pub attributes: Option<usize>,
    pub array: Option<usize>,
    pub any_member: Option<Box<When>>,
    /// The node is a coordinate variable: a 1-D array whose dimension is named like itself.
    pub coordinate_variable: bool,
}

/// A node's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Group,
    Array,
}

/// What a node must be.
#[derive(Default)]
pub(crate) struct NodeRule {
    /// Where the rule is in the spec document (a JSON pointer).
    pub at: String,
    pub kind: Option<Kind>,
    pub zarr_format: Option<u64>,
    pub attributes: Option<usize>,
    /// What the attributes SHOULD be: its failures are warnings.
    pub recommended: Option<usize>,
    pub array: Option<usize>,
    pub members: Vec<MemberRule>,
    pub patterns: Vec<PatternRule>,
    pub other_members: bool,
    pub references: Vec<Reference>,
    pub lengths: Vec<Lengths>,
    pub dimensions: Option<Dimensions>,
    pub items: ItemRules,
}

/// A member named exactly.
pub(crate) struct MemberRule {
    pub at: String,
    pub name: String,
    pub required: bool,
    pub node: Option<usize>,
}

/// Members whose names match a pattern.
pub(crate) struct PatternRule {
    pub at: String,
    pub regex: Pattern,
    pub min: Option<u64>,
    pub max: Option<u64>,
    pub node: Option<usize>,
    /// Only members of this kind are counted and checked.
    pub kind: Option<Kind>,
}

/// Node paths taken from attributes that must name members (relative to the node).
pub(crate) struct Reference {
    pub rule: String,
    pub severity: Severity,
    pub for_each: Selector,
    pub from: Selector,
    pub split: Option<String>,
    /// Names are resolved from the node's parent (its siblings) instead of the node.
    pub from_parent: bool,
    pub node: Option<usize>,
    pub kind: Option<Kind>,
    pub rank: Option<Selector>,
    pub dimension_names: Option<Selector>,
}

/// Lists in the attributes whose lengths must agree (and with the node's rank).
pub(crate) struct Lengths {
    pub rule: String,
    pub severity: Severity,
    pub for_each: Selector,
    pub equal: Vec<Selector>,
    pub rank: bool,
}

/// Named dimensions of a group's arrays must have one size.
pub(crate) struct Dimensions {
    pub rule: String,
    pub severity: Severity,
    /// `None`: v3 `dimension_names`; otherwise an attribute selector (`/_ARRAY_DIMENSIONS`).
    pub names: Option<Selector>,
}

impl Spec {
    /// A spec that applies nowhere, standing for a built-in one that could not be read.
    pub(crate) fn broken(why: String) -> Spec {
        Spec {
            name: format!("broken: {why}"),
            convention: String::new(),
            version: None,
            title: None,
            claims: Vec::new(),
            root: None,
            nodes: Vec::new(),
            schemas: Vec::new(),
        }
    }
}

/// Reads a spec document. Every problem with it is listed in one `InvalidArgument` error.
pub(crate) fn read(doc: &Value) -> Result<Spec> {
    let mut r = Reader {
        doc,
        problems: Vec::new(),
        named: HashMap::new(),
        nodes: Vec::new(),
        schemas: Vec::new(),
    };
    let spec = r.spec();
    if r.problems.is_empty() {
        if let Some(spec) = spec {
            return Ok(spec);
        }
    }
    let name = doc.get("name").and_then(Value::as_str).unwrap_or("spec");
    Err(ZomError::new(
        ErrorCode::InvalidArgument,
        format!("the spec '{name}' is not valid: {}", r.problems.join("; ")),
    ))
}

/// Reads a spec document, collecting every problem with it.
pub(crate) struct Reader<'d> {
    doc: &'d Value,
    problems: Vec<String>,
    named: HashMap<String, usize>,
    nodes: Vec<NodeRule>,
    schemas: Vec<Schema>,
}

const SPEC_KEYS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "$defs",
    "zom_spec",
    "name",
    "convention",
    "version",
    "title",
    "description",
    "url",
    "claims",
    "root",
    "nodes",
];
const NODE_KEYS: &[&str] = &[
    "description",
    "kind",
    "zarr_format",
    "attributes",
    "recommended",
    "array",
    "members",
    "member_patterns",
    "other_members",
    "references",
    "lengths",
    "dimensions",
    "unique",
    "order",
    "monotone",
    "matches",
    "across",
];

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

impl<'d> Reader<'d> {
    pub(super) fn problem(&mut self, at: &str, message: impl std::fmt::Display) {
        let at = if at.is_empty() { "/" } else { at };
        self.problems.push(format!("at {at}: {message}"));
    }

    pub(super) fn object(
        &mut self,
        v: &'d Value,
        at: &str,
        keys: &[&str],
    ) -> Option<&'d Map<String, Value>> {
        let Some(o) = v.as_object() else {
            self.problem(at, "must be an object");
            return None;
        };
        for k in o.keys() {
            if !keys.contains(&k.as_str()) && !k.starts_with("x-") {
                self.problem(&format!("{at}/{}", escape(k)), "unknown key");
            }
        }
        Some(o)
    }

    /// An object whose keys are names (any key allowed).
    fn map(&mut self, v: &'d Value, at: &str) -> Option<&'d Map<String, Value>> {
        let map = v.as_object();
        if map.is_none() {
            self.problem(at, "must be an object");
        }
        map
    }

    pub(super) fn string(
        &mut self,
        o: &'d Map<String, Value>,
        key: &str,
        at: &str,
    ) -> Option<&'d str> {
        match o.get(key) {
            None => None,
            Some(Value::String(s)) => Some(s),
            Some(_) => {
                self.problem(&format!("{at}/{key}"), "must be a string");
                None
            }
        }
    }

    fn spec(&mut self) -> Option<Spec> {
        let o = self.object(self.doc, "", SPEC_KEYS)?;
        match o.get("zom_spec") {
            Some(v) if v.as_u64() == Some(FORMAT_VERSION) => {}
            Some(v) => self.problem(
                "/zom_spec",
                format!(
                    "zom reads spec format {FORMAT_VERSION}, not {}",
                    crate::problem::show(v)
                ),
            ),
            None => self.problem(
                "",
                format!("'zom_spec': {FORMAT_VERSION} is required (it tells a spec from a ZOM)"),
            ),
        }
        let name = self.string(o, "name", "").map(str::to_string);
        if name.is_none() {
            self.problem("", "'name' is required");
        }
        let convention = self.string(o, "convention", "").map(str::to_string);
        let version = self.string(o, "version", "").map(str::to_string);
        let title = self.string(o, "title", "").map(str::to_string);
        self.string(o, "description", "");
        self.string(o, "url", "");
        // Named nodes get their indices first, so that any node may refer to any other.
        if let Some(nodes) = o.get("nodes") {
            if let Some(map) = self.map(nodes, "/nodes") {
                for (i, key) in map.keys().enumerate() {
                    self.named.insert(key.clone(), i);
                    self.nodes.push(NodeRule::default());
                }
                for (key, value) in map {
                    let at = format!("/nodes/{}", escape(key));
                    if let Some(rule) = self.node(value, &at) {
                        if let Some(slot) = self.named.get(key).and_then(|&i| self.nodes.get_mut(i))
                        {
                            *slot = rule;
                        }
                    }
                }
            }
        }
        let root = o.get("root").and_then(|r| self.node_ref(r, "/root"));
        let mut claims = Vec::new();
        match o.get("claims") {
            None => {}
            Some(Value::Array(list)) => {
                for (i, c) in list.iter().enumerate() {
                    let at = format!("/claims/{i}");
                    if let Some(claim) = self.claim(c, &at) {
                        claims.push(claim);
                    }
                }
            }
            Some(_) => self.problem("/claims", "must be an array"),
        }
        if claims.is_empty() && root.is_none() {
            self.problem("", "a spec needs 'root' or at least one claim");
        }
        let name = name?;
        Some(Spec {
            convention: convention.unwrap_or_else(|| name.clone()),
            name,
            version,
            title,
            claims,
            root,
            nodes: std::mem::take(&mut self.nodes),
            schemas: std::mem::take(&mut self.schemas),
        })
    }

    fn claim(&mut self, v: &'d Value, at: &str) -> Option<Claim> {
        let o = self.object(v, at, &["name", "description", "when", "node"])?;
        let name = self.string(o, "name", at).unwrap_or("").to_string();
        let when = match o.get("when") {
            Some(w) => self.when(w, &format!("{at}/when"))?,
            None => {
                self.problem(at, "'when' is required");
                return None;
            }
        };
        let Some(node) = o
            .get("node")
            .and_then(|n| self.node_ref(n, &format!("{at}/node")))
        else {
            self.problem(at, "'node' is required");
            return None;
        };
        Some(Claim { name, when, node })
    }

    fn when(&mut self, v: &'d Value, at: &str) -> Option<When> {
        let keys = [
            "zarr_format",
            "kind",
            "attributes",
            "array",
            "any_member",
            "coordinate_variable",
        ];
        let o = self.object(v, at, &keys)?;
        Some(When {
            zarr_format: self.format(o, at),
            kind: self.kind(o, at),
            attributes: self.schema(o, "attributes", at),
            array: self.schema(o, "array", at),
            any_member: match o.get("any_member") {
                Some(m) => Some(Box::new(self.when(m, &format!("{at}/any_member"))?)),
                None => None,
            },
            coordinate_variable: self.flag(o, "coordinate_variable", at, false),
        })
    }

    fn format(&mut self, o: &Map<String, Value>, at: &str) -> Option<u64> {
        let v = o.get("zarr_format")?;
        match v.as_u64() {
            Some(f @ (2 | 3)) => Some(f),
            _ => {
                self.problem(&format!("{at}/zarr_format"), "must be 2 or 3");
                None
            }
        }
    }

    fn kind(&mut self, o: &Map<String, Value>, at: &str) -> Option<Kind> {
        match o.get("kind")?.as_str() {
            Some("group") => Some(Kind::Group),
            Some("array") => Some(Kind::Array),
            _ => {
                self.problem(&format!("{at}/kind"), "must be \"group\" or \"array\"");
                None
            }
        }
    }

    pub(super) fn severity(&mut self, o: &Map<String, Value>, at: &str) -> Severity {
        match o.get("severity").map(Value::as_str) {
            None | Some(Some("error")) => Severity::Error,
            Some(Some("warning")) => Severity::Warning,
            Some(_) => {
                self.problem(
                    &format!("{at}/severity"),
                    "must be \"error\" or \"warning\"",
                );
                Severity::Error
            }
        }
    }

    fn schema(&mut self, o: &Map<String, Value>, key: &str, at: &str) -> Option<usize> {
        o.get(key)?;
        let pointer = format!("{at}/{key}");
        match Schema::compile(self.doc, &pointer) {
            Ok(schema) => {
                self.schemas.push(schema);
                Some(self.schemas.len() - 1)
            }
            Err(problems) => {
                for p in problems {
                    self.problem(&pointer, p);
                }
                None
            }
        }
    }

    /// A node given by name (in `nodes`) or inline.
    fn node_ref(&mut self, v: &'d Value, at: &str) -> Option<usize> {
        if let Value::String(name) = v {
            let found = self.named.get(name).copied();
            if found.is_none() {
                self.problem(at, format!("no node named '{name}' in 'nodes'"));
            }
            return found;
        }
        let rule = self.node(v, at)?;
        self.nodes.push(rule);
        Some(self.nodes.len() - 1)
    }

    pub(super) fn selector(
        &mut self,
        o: &Map<String, Value>,
        key: &str,
        at: &str,
    ) -> Option<Selector> {
        let v = o.get(key)?;
        let parsed = match v.as_str() {
            Some(text) => Selector::parse(text),
            None => Err("must be a string".to_string()),
        };
        parsed
            .map_err(|e| self.problem(&format!("{at}/{key}"), e))
            .ok()
    }

    pub(super) fn rule_name(&mut self, o: &'d Map<String, Value>, at: &str) -> String {
        self.string(o, "rule", at)
            .map_or_else(|| at.to_string(), str::to_string)
    }

    fn node(&mut self, v: &'d Value, at: &str) -> Option<NodeRule> {
        let o = self.object(v, at, NODE_KEYS)?;
        self.string(o, "description", at);
        let mut rule = NodeRule {
            at: at.to_string(),
            kind: self.kind(o, at),
            zarr_format: self.format(o, at),
            attributes: self.schema(o, "attributes", at),
            recommended: self.schema(o, "recommended", at),
            array: self.schema(o, "array", at),
            other_members: true,
            ..NodeRule::default()
        };
        match o.get("other_members") {
            None => {}
            Some(Value::Bool(b)) => rule.other_members = *b,
            Some(_) => self.problem(&format!("{at}/other_members"), "must be a boolean"),
        }
        if let Some(members) = o.get("members") {
            let mat = format!("{at}/members");
            if let Some(map) = self.map(members, &mat) {
                for (name, m) in map {
                    let mat = format!("{mat}/{}", escape(name));
                    let Some(mo) = self.object(m, &mat, &["node", "required", "description"])
                    else {
                        continue;
                    };
                    let required = self.flag(mo, "required", &mat, true);
                    let node = mo
                        .get("node")
                        .and_then(|n| self.node_ref(n, &format!("{mat}/node")));
                    rule.members.push(MemberRule {
                        at: mat,
                        name: name.clone(),
                        required,
                        node,
                    });
                }
            }
        }
        if let Some(list) = self.list(o, "member_patterns", at) {
            for (i, p) in list.iter().enumerate() {
                let pat = format!("{at}/member_patterns/{i}");
                if let Some(p) = self.pattern(p, &pat) {
                    rule.patterns.push(p);
                }
            }
        }
        if let Some(list) = self.list(o, "references", at) {
            for (i, r) in list.iter().enumerate() {
                if let Some(r) = self.reference(r, &format!("{at}/references/{i}")) {
                    rule.references.push(r);
                }
            }
        }
        if let Some(list) = self.list(o, "lengths", at) {
            for (i, l) in list.iter().enumerate() {
                if let Some(l) = self.lengths(l, &format!("{at}/lengths/{i}")) {
                    rule.lengths.push(l);
                }
            }
        }
        if let Some(d) = o.get("dimensions") {
            rule.dimensions = self.dimensions(d, &format!("{at}/dimensions"));
        }
        rule.items = self.item_rules(o, at);
        Some(rule)
    }

    fn flag(&mut self, o: &Map<String, Value>, key: &str, at: &str, default: bool) -> bool {
        match o.get(key) {
            None => default,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                self.problem(&format!("{at}/{key}"), "must be a boolean");
                default
            }
        }
    }

    pub(super) fn list(
        &mut self,
        o: &'d Map<String, Value>,
        key: &str,
        at: &str,
    ) -> Option<&'d Vec<Value>> {
        match o.get(key)? {
            Value::Array(list) => Some(list),
            _ => {
                self.problem(&format!("{at}/{key}"), "must be an array");
                None
            }
        }
    }

    fn count(&mut self, o: &Map<String, Value>, key: &str, at: &str) -> Option<u64> {
        let v = o.get(key)?;
        let n = v.as_u64();
        if n.is_none() {
            self.problem(&format!("{at}/{key}"), "must be a non-negative integer");
        }
        n
    }

    fn pattern(&mut self, v: &'d Value, at: &str) -> Option<PatternRule> {
        let o = self.object(
            v,
            at,
            &["pattern", "kind", "node", "min", "max", "description"],
        )?;
        let Some(text) = self.string(o, "pattern", at) else {
            self.problem(at, "'pattern' is required");
            return None;
        };
        let regex = Pattern::new(text)
            .map_err(|e| {
                self.problem(
                    &format!("{at}/pattern"),
                    format!("not a valid pattern: {e}"),
                )
            })
            .ok()?;
        Some(PatternRule {
            at: at.to_string(),
            regex,
            min: self.count(o, "min", at),
            max: self.count(o, "max", at),
            node: o
                .get("node")
                .and_then(|n| self.node_ref(n, &format!("{at}/node"))),
            kind: self.kind(o, at),
        })
    }

    fn reference(&mut self, v: &'d Value, at: &str) -> Option<Reference> {
        let keys = [
            "rule",
            "description",
            "severity",
            "for_each",
            "from",
            "split",
            "from_parent",
            "node",
            "kind",
            "rank",
            "dimension_names",
        ];
        let o = self.object(v, at, &keys)?;
        let Some(from) = self.selector(o, "from", at) else {
            if !o.contains_key("from") {
                self.problem(at, "'from' is required");
            }
            return None;
        };
        Some(Reference {
            rule: self.rule_name(o, at),
            severity: self.severity(o, at),
            for_each: self
                .selector(o, "for_each", at)
                .unwrap_or(Selector::parse("").ok()?),
            from,
            split: self.string(o, "split", at).map(str::to_string),
            from_parent: self.flag(o, "from_parent", at, false),
            node: o
                .get("node")
                .and_then(|n| self.node_ref(n, &format!("{at}/node"))),
            kind: self.kind(o, at),
            rank: self.selector(o, "rank", at),
            dimension_names: self.selector(o, "dimension_names", at),
        })
    }

    fn lengths(&mut self, v: &'d Value, at: &str) -> Option<Lengths> {
        let o = self.object(
            v,
            at,
            &[
                "rule",
                "description",
                "severity",
                "for_each",
                "equal",
                "rank",
            ],
        )?;
        let mut equal = Vec::new();
        match o.get("equal") {
            Some(Value::Array(list)) => {
                for (i, s) in list.iter().enumerate() {
                    match s.as_str().map(Selector::parse) {
                        Some(Ok(sel)) => equal.push(sel),
                        Some(Err(e)) => self.problem(&format!("{at}/equal/{i}"), e),
                        None => self.problem(&format!("{at}/equal/{i}"), "must be a string"),
                    }
                }
            }
            _ => self.problem(at, "'equal' must be an array of selectors"),
        }
        Some(Lengths {
            rule: self.rule_name(o, at),
            severity: self.severity(o, at),
            for_each: self
                .selector(o, "for_each", at)
                .unwrap_or(Selector::parse("").ok()?),
            equal,
            rank: self.flag(o, "rank", at, false),
        })
    }

    fn dimensions(&mut self, v: &'d Value, at: &str) -> Option<Dimensions> {
        let o = self.object(v, at, &["rule", "description", "severity", "names"])?;
        let names = match o.get("names").and_then(Value::as_str) {
            Some("dimension_names") => None,
            Some(_) => self.selector(o, "names", at),
            None => {
                self.problem(
                    at,
                    "'names' must be \"dimension_names\" or an attribute selector",
                );
                None
            }
        };
        Some(Dimensions {
            rule: self.rule_name(o, at),
            severity: self.severity(o, at),
            names,
        })
    }
}
