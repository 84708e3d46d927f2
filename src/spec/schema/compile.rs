//! Compilation of a schema into the arena of [`Node`]s: a work queue (no recursion), one node
//! per distinct JSON pointer, so recursive `$ref`s compile once and refer by index.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use super::{
    is_integer, Additional, Check, Node, Regex, Schema, ANNOTATIONS, MAX_SCHEMA_DEPTH, TYPE_NAMES,
};

/// The compiler's state: the nodes so far, the pointer of each, and those still to compile.
struct Compiler<'a> {
    root: &'a Value,
    nodes: Vec<Node>,
    index: HashMap<String, usize>,
    queue: Vec<usize>,
    errors: Vec<String>,
}

/// See [`Schema::compile`].
pub(super) fn compile(root: &Value, pointer: &str) -> Result<Schema, Vec<String>> {
    let mut c = Compiler {
        root,
        nodes: Vec::new(),
        index: HashMap::new(),
        queue: Vec::new(),
        errors: Vec::new(),
    };
    let start = pointer.strip_prefix('#').unwrap_or(pointer);
    match parse_pointer(start) {
        Ok(segments) => {
            c.intern(&segments);
        }
        Err(e) => return Err(vec![format!("{pointer:?}: {e}")]),
    }
    while let Some(i) = c.queue.pop() {
        c.compile_node(i);
    }
    if c.errors.is_empty() {
        c.check_cycles();
    }
    if c.errors.is_empty() {
        Ok(Schema { nodes: c.nodes })
    } else {
        Err(c.errors)
    }
}

/// Splits a JSON pointer ("" or "/a/b~1c") into unescaped segments.
fn parse_pointer(p: &str) -> Result<Vec<String>, String> {
    if p.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = p.strip_prefix('/') else {
        return Err("a JSON pointer must be empty or start with \"/\"".into());
    };
    rest.split('/')
        .map(|s| {
            let mut out = String::with_capacity(s.len());
            let mut chars = s.chars();
            while let Some(ch) = chars.next() {
                match ch {
                    '~' => match chars.next() {
                        Some('0') => out.push('~'),
                        Some('1') => out.push('/'),
                        _ => return Err(format!("bad escape \"~\" in JSON pointer segment {s:?}")),
                    },
                    _ => out.push(ch),
                }
            }
            Ok(out)
        })
        .collect()
}

/// The canonical (escaped) JSON pointer of segments.
fn join_pointer(segments: &[String]) -> String {
    let mut out = String::new();
    for s in segments {
        out.push('/');
        push_segment(&mut out, s);
    }
    out
}

/// Appends one escaped pointer segment.
fn push_segment(out: &mut String, s: &str) {
    for ch in s.chars() {
        match ch {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            _ => out.push(ch),
        }
    }
}

/// `ptr` with the segments of `tail` appended, escaped.
fn path(ptr: &str, tail: &[&str]) -> String {
    let mut p = ptr.to_owned();
    for t in tail {
        p.push('/');
        push_segment(&mut p, t);
    }
    p
}

/// Decodes %XX escapes of a URI fragment.
fn percent_decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad percent escape in {s:?}"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("percent escapes in {s:?} are not UTF-8"))
}

/// The value at `segments` inside `root`.
fn resolve<'v>(root: &'v Value, segments: &[String]) -> Option<&'v Value> {
    segments.iter().try_fold(root, |v, s| match v {
        Value::Object(m) => m.get(s),
        Value::Array(a) => {
            if s.starts_with('+') || (s.starts_with('0') && s.len() > 1) {
                return None;
            }
            a.get(s.parse::<usize>().ok()?)
        }
        _ => None,
    })
}

impl Compiler<'_> {
    /// The node index of the schema at `segments`, queued for compilation when new.
    fn intern(&mut self, segments: &[String]) -> usize {
        let ptr = join_pointer(segments);
        if let Some(&i) = self.index.get(&ptr) {
            return i;
        }
        let i = self.nodes.len();
        self.index.insert(ptr.clone(), i);
        self.nodes.push(Node {
            ptr,
            checks: Vec::new(),
        });
        self.queue.push(i);
        i
    }

    /// The node index of the subschema at `ptr` + `tail` (escaped segments appended).
    fn child(&mut self, ptr: &str, tail: &[&str]) -> usize {
        let p = path(ptr, tail);
        // `p` is canonical already; parse it back to resolve it.
        match parse_pointer(&p) {
            Ok(segs) => self.intern(&segs),
            Err(e) => {
                self.errors.push(format!("{p}: {e}"));
                0
            }
        }
    }

    /// Records a problem with keyword `kw` (a path relative to `ptr`, unescaped).
    fn err(&mut self, ptr: &str, kw: &str, msg: impl std::fmt::Display) {
        self.errors.push(format!("{}: {msg}", path(ptr, &[kw])));
    }

    /// Compiles node `i` (its pointer is set; its subschemas are interned and queued).
    fn compile_node(&mut self, i: usize) {
        let Some(ptr) = self.nodes.get(i).map(|n| n.ptr.clone()) else {
            return;
        };
        let segments = match parse_pointer(&ptr) {
            Ok(s) => s,
            Err(e) => return self.errors.push(format!("{ptr}: {e}")),
        };
        if segments.len() > MAX_SCHEMA_DEPTH {
            return self.errors.push(format!(
                "{ptr}: schema nested deeper than {MAX_SCHEMA_DEPTH} pointer segments"
            ));
        }
        let root = self.root;
        let checks = match resolve(root, &segments) {
            None => {
                self.errors
                    .push(format!("{ptr:?}: no such location in the document"));
                return;
            }
            Some(Value::Bool(true)) => Vec::new(),
            Some(Value::Bool(false)) => vec![Check::False],
            Some(Value::Object(m)) => self.keywords(&ptr, m),
            Some(other) => {
                self.errors.push(format!(
                    "{ptr:?}: a schema must be an object or a boolean, not {}",
                    super::show(other)
                ));
                return;
            }
        };
        if let Some(n) = self.nodes.get_mut(i) {
            n.checks = checks;
        }
    }

    /// The checks of one schema object.
    fn keywords(&mut self, ptr: &str, m: &Map<String, Value>) -> Vec<Check> {
        let mut checks = Vec::new();
        for (kw, v) in m {
            if ANNOTATIONS.contains(&kw.as_str()) || kw.starts_with("x-") {
                continue;
            }
            if let Some(c) = self.keyword(ptr, m, kw, v) {
                checks.push(c);
            }
        }
        checks
    }

    /// One keyword's check (None for containers, siblings handled elsewhere, and errors).
    fn keyword(&mut self, ptr: &str, m: &Map<String, Value>, kw: &str, v: &Value) -> Option<Check> {
        let check = match kw {
            "$defs" | "definitions" => {
                if !v.is_object() {
                    self.err(ptr, kw, "must be an object");
                }
                return None;
            }
            "then" | "else" => {
                if !m.contains_key("if") {
                    // Without `if` they are ignored (2020-12), but must still be schemas.
                    self.subschema(ptr, kw, v);
                }
                return None;
            }
            "type" => Check::Type(self.types(ptr, v)?),
            "enum" => match v {
                Value::Array(a) => Check::Enum(a.clone()),
                _ => return self.bad(ptr, kw, "an array"),
            },
            "const" => Check::Const(v.clone()),
            "properties" => Check::Properties(self.schema_map(ptr, kw, v)?),
            "patternProperties" => {
                let map = self.schema_map(ptr, kw, v)?;
                let mut out = Vec::with_capacity(map.len());
                for (pattern, s) in map {
                    out.push((self.regex(&path(ptr, &[kw, &pattern]), &pattern)?, s));
                }
                Check::PatternProperties(out)
            }
            "additionalProperties" => {
                let schema = self.subschema(ptr, kw, v)?;
                let mut known: Vec<String> = match m.get("properties") {
                    Some(Value::Object(p)) => p.keys().cloned().collect(),
                    _ => Vec::new(),
                };
                crate::sort::heap_sort(&mut known, |a, b| a < b);
                let mut patterns = Vec::new();
                if let Some(Value::Object(p)) = m.get("patternProperties") {
                    for pattern in p.keys() {
                        let at = path(ptr, &["patternProperties", pattern]);
                        patterns.push(self.regex(&at, pattern)?);
                    }
                }
                Check::Additional(Box::new(Additional {
                    known,
                    patterns,
                    schema,
                }))
            }
            "propertyNames" => Check::PropertyNames(self.subschema(ptr, kw, v)?),
            "required" => Check::Required(self.strings(ptr, kw, v)?),
            "minProperties" => Check::MinProperties(self.count(ptr, kw, v)?),
            "maxProperties" => Check::MaxProperties(self.count(ptr, kw, v)?),
            "dependentRequired" => {
                let Value::Object(d) = v else {
                    return self.bad(ptr, kw, "an object");
                };
                let mut out = Vec::with_capacity(d.len());
                for (k, names) in d {
                    let list = self.strings(&path(ptr, &[kw]), k, names)?;
                    out.push((k.clone(), list));
                }
                Check::DependentRequired(out)
            }
            "dependentSchemas" => Check::DependentSchemas(self.schema_map(ptr, kw, v)?),
            "prefixItems" => Check::PrefixItems(self.schema_list(ptr, kw, v)?),
            "items" => {
                if v.is_array() {
                    return self.bad(
                        ptr,
                        kw,
                        "a schema (array form is draft 2019-09 and older: use prefixItems)",
                    );
                }
                let skip = match m.get("prefixItems") {
                    Some(Value::Array(p)) => p.len(),
                    _ => 0,
                };
                Check::Items {
                    skip,
                    schema: self.subschema(ptr, kw, v)?,
                }
            }
            "minItems" => Check::MinItems(self.count(ptr, kw, v)?),
            "maxItems" => Check::MaxItems(self.count(ptr, kw, v)?),
            "uniqueItems" => match v {
                Value::Bool(true) => Check::UniqueItems,
                Value::Bool(false) => return None,
                _ => return self.bad(ptr, kw, "a boolean"),
            },
            "contains" => {
                let schema = self.subschema(ptr, kw, v)?;
                let min = match m.get("minContains") {
                    Some(n) => self.count(ptr, "minContains", n)?,
                    None => 1,
                };
                let max = match m.get("maxContains") {
                    Some(n) => Some(self.count(ptr, "maxContains", n)?),
                    None => None,
                };
                Check::Contains { schema, min, max }
            }
            "minContains" | "maxContains" => {
                // Without `contains` they are ignored, but must still be counts.
                if !m.contains_key("contains") {
                    self.count(ptr, kw, v)?;
                }
                return None;
            }
            "minimum" => Check::Minimum(self.number(ptr, kw, v)?),
            "maximum" => Check::Maximum(self.number(ptr, kw, v)?),
            "exclusiveMinimum" => Check::ExclusiveMinimum(self.number(ptr, kw, v)?),
            "exclusiveMaximum" => Check::ExclusiveMaximum(self.number(ptr, kw, v)?),
            "multipleOf" => {
                let n = self.number(ptr, kw, v)?;
                if n.as_f64().is_none_or(|f| f <= 0.0) {
                    return self.bad(ptr, kw, "a number greater than 0");
                }
                Check::MultipleOf(n)
            }
            "minLength" => Check::MinLength(self.count(ptr, kw, v)?),
            "maxLength" => Check::MaxLength(self.count(ptr, kw, v)?),
            "pattern" => match v {
                Value::String(p) => Check::Pattern(self.regex(&path(ptr, &[kw]), p)?),
                _ => return self.bad(ptr, kw, "a string"),
            },
            "allOf" => Check::AllOf(self.schema_list_nonempty(ptr, kw, v)?),
            "anyOf" => Check::AnyOf(self.schema_list_nonempty(ptr, kw, v)?),
            "oneOf" => Check::OneOf(self.schema_list_nonempty(ptr, kw, v)?),
            "not" => Check::Not(self.subschema(ptr, kw, v)?),
            "if" => {
                let cond = self.subschema(ptr, kw, v)?;
                let then = match m.get("then") {
                    Some(t) => Some(self.subschema(ptr, "then", t)?),
                    None => None,
                };
                let els = match m.get("else") {
                    Some(e) => Some(self.subschema(ptr, "else", e)?),
                    None => None,
                };
                Check::If { cond, then, els }
            }
            "$ref" => Check::Ref(self.reference(ptr, v)?),
            "unevaluatedProperties"
            | "unevaluatedItems"
            | "$dynamicRef"
            | "$dynamicAnchor"
            | "$recursiveRef"
            | "$recursiveAnchor" => {
                self.err(ptr, kw, "is not supported by zom's schema evaluator");
                return None;
            }
            _ => {
                self.err(
                    ptr,
                    kw,
                    "unknown keyword (extensions must start with \"x-\")",
                );
                return None;
            }
        };
        Some(check)
    }

    /// Records "`kw` must be `what`" and gives up on the keyword.
    fn bad<T>(&mut self, ptr: &str, kw: &str, what: &str) -> Option<T> {
        self.err(ptr, kw, format_args!("must be {what}"));
        None
    }

    fn types(&mut self, ptr: &str, v: &Value) -> Option<u8> {
        let one = |s: &str| TYPE_NAMES.iter().find(|(n, _)| *n == s).map(|(_, b)| *b);
        let set = match v {
            Value::String(s) => one(s),
            Value::Array(a) if !a.is_empty() => a
                .iter()
                .try_fold(0u8, |acc, t| Some(acc | one(t.as_str()?)?)),
            _ => None,
        };
        if set.is_none() {
            self.err(
                ptr,
                "type",
                "must be a type name or a non-empty array of them",
            );
        }
        set
    }

    fn subschema(&mut self, ptr: &str, kw: &str, v: &Value) -> Option<usize> {
        if !(v.is_object() || v.is_boolean()) {
            return self.bad(ptr, kw, "a schema (an object or a boolean)");
        }
        Some(self.child(ptr, &[kw]))
    }

    fn schema_map(&mut self, ptr: &str, kw: &str, v: &Value) -> Option<Vec<(String, usize)>> {
        let Value::Object(m) = v else {
            return self.bad(ptr, kw, "an object of schemas");
        };
        let mut out = Vec::with_capacity(m.len());
        for (k, s) in m {
            if !(s.is_object() || s.is_boolean()) {
                return self.bad(&path(ptr, &[kw]), k, "a schema (an object or a boolean)");
            }
            out.push((k.clone(), self.child(ptr, &[kw, k])));
        }
        Some(out)
    }

    fn schema_list(&mut self, ptr: &str, kw: &str, v: &Value) -> Option<Vec<usize>> {
        let Value::Array(a) = v else {
            return self.bad(ptr, kw, "an array of schemas");
        };
        let mut out = Vec::with_capacity(a.len());
        for (i, s) in a.iter().enumerate() {
            if !(s.is_object() || s.is_boolean()) {
                return self.bad(
                    &path(ptr, &[kw]),
                    &i.to_string(),
                    "a schema (an object or a boolean)",
                );
            }
            out.push(self.child(ptr, &[kw, &i.to_string()]));
        }
        Some(out)
    }

    fn schema_list_nonempty(&mut self, ptr: &str, kw: &str, v: &Value) -> Option<Vec<usize>> {
        let list = self.schema_list(ptr, kw, v)?;
        if list.is_empty() {
            return self.bad(ptr, kw, "a non-empty array of schemas");
        }
        Some(list)
    }

    fn strings(&mut self, ptr: &str, kw: &str, v: &Value) -> Option<Vec<String>> {
        let list = match v {
            Value::Array(a) => a
                .iter()
                .map(|s| s.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>(),
            _ => None,
        };
        if list.is_none() {
            self.err(ptr, kw, "must be an array of strings");
        }
        list
    }

    fn count(&mut self, ptr: &str, kw: &str, v: &Value) -> Option<u64> {
        let n = match v {
            Value::Number(n) if is_integer(n) => n
                .as_u64()
                .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
            _ => None,
        };
        if n.is_none() {
            self.err(ptr, kw, "must be a non-negative integer");
        }
        n
    }

    fn number(&mut self, ptr: &str, kw: &str, v: &Value) -> Option<Number> {
        match v {
            Value::Number(n) => Some(n.clone()),
            _ => self.bad(ptr, kw, "a number"),
        }
    }

    /// A compiled `pattern`; `at` is the keyword path for the error.
    fn regex(&mut self, at: &str, pattern: &str) -> Option<Regex> {
        match Regex::new(pattern) {
            Ok(r) => Some(r),
            Err(e) => {
                self.errors
                    .push(format!("{at}: bad regular expression {pattern:?}: {e}"));
                None
            }
        }
    }

    fn reference(&mut self, ptr: &str, v: &Value) -> Option<usize> {
        let Value::String(r) = v else {
            return self.bad(ptr, "$ref", "a string");
        };
        let Some(fragment) = r.strip_prefix('#') else {
            return self.bad(ptr, "$ref", &format!("a local reference starting with \"#\", not {r:?} (zom resolves no external schemas)"));
        };
        let segments = percent_decode(fragment).and_then(|f| {
            if !f.is_empty() && !f.starts_with('/') {
                return Err(format!(
                    "{r:?} names an anchor; only JSON pointers are supported"
                ));
            }
            parse_pointer(&f)
        });
        match segments {
            Ok(s) if resolve(self.root, &s).is_some() => Some(self.intern(&s)),
            Ok(_) => self.bad(
                ptr,
                "$ref",
                &format!("a reference to an existing location; {r:?} is not"),
            ),
            Err(e) => {
                self.err(ptr, "$ref", e);
                None
            }
        }
    }

    /// Refuses `$ref` cycles along which evaluation never descends into the instance (they
    /// would never terminate), e.g. `{"$ref": "#"}` at the root.
    fn check_cycles(&mut self) {
        // Iterative DFS: 0 = unseen, 1 = on the stack, 2 = done.
        let n = self.nodes.len();
        let mut state = vec![0u8; n];
        let mut edges = Vec::new();
        for start in 0..n {
            if state.get(start) != Some(&0) {
                continue;
            }
            let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
            edges.clear();
            self.same_instance_edges(start, &mut edges);
            stack.push((start, edges.clone()));
            if let Some(s) = state.get_mut(start) {
                *s = 1;
            }
            while let Some((node, pending)) = stack.last_mut() {
                let node = *node;
                match pending.pop() {
                    Some(next) => match state.get(next) {
                        Some(0) => {
                            edges.clear();
                            self.same_instance_edges(next, &mut edges);
                            if let Some(s) = state.get_mut(next) {
                                *s = 1;
                            }
                            stack.push((next, edges.clone()));
                        }
                        Some(1) => {
                            let at = self.nodes.get(next).map(|x| x.ptr.as_str()).unwrap_or("");
                            let from = self.nodes.get(node).map(|x| x.ptr.as_str()).unwrap_or("");
                            self.errors.push(format!(
                                "{from}: a $ref cycle back to {at:?} that never descends into the instance"
                            ));
                            return;
                        }
                        _ => {}
                    },
                    None => {
                        if let Some(s) = state.get_mut(node) {
                            *s = 2;
                        }
                        stack.pop();
                    }
                }
            }
        }
    }

    fn same_instance_edges(&self, node: usize, out: &mut Vec<usize>) {
        if let Some(n) = self.nodes.get(node) {
            for c in &n.checks {
                c.same_instance(out);
            }
        }
    }
}
