//! A JSON Schema (draft 2020-12) evaluator for the schemas embedded in hierarchy spec documents.
//!
//! A [`Schema`] is compiled once from a location inside a spec document (patterns compiled,
//! local `$ref`s resolved to indices into one arena) and then evaluated many times, either as a
//! yes/no ([`Schema::is_valid`]) or with every failure located ([`Schema::errors`]).
//!
//! Supported: the assertion and applicator keywords of 2020-12 that do not need annotation
//! collection (`unevaluated*` and `$dynamicRef` are refused at compile time, as is any unknown
//! keyword, so that a typo in a spec cannot silently pass), local `$ref`s only ("#..." JSON
//! pointers into the spec document). `format` is an annotation, as 2020-12 says by default.
//!
//! Hostile input: compilation has no recursion (a work queue over the arena), refuses schemas
//! nested over [`MAX_SCHEMA_DEPTH`] pointer segments and `$ref` cycles that do not descend into
//! the instance; evaluation stops at [`MAX_EVAL_DEPTH`] nested evaluations (a failure).

use std::cmp::Ordering;
use std::collections::HashMap;

use super::pattern::Pattern as Regex;
use serde_json::{Map, Number, Value};

use crate::problem::LocStep;

/// The deepest JSON pointer (in segments) a schema may be compiled from.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 256;
/// The most nested subschema evaluations one evaluation may make (deeper is a failure): room
/// for documents as deep as [`crate::limits::MAX_JSON_DEPTH`] with two or three subschemas per
/// level (`items` then `$ref`), within the stack of a debug-build test thread.
pub(crate) const MAX_EVAL_DEPTH: u32 = 320;
/// The longest string value a message quotes, in bytes (the value renderer cuts at 60 chars too).
const SHOWN_VALUE_LEN: usize = 60;
/// Keywords accepted and ignored: metadata and annotations.
const ANNOTATIONS: [&str; 14] = [
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// A schema compiled once (patterns compiled, `$ref`s resolved to indices), evaluated many
/// times.
pub(crate) struct Schema {
    nodes: Vec<Node>,
}

/// Where a schema fails: the instance location, the schema keyword path, and words.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SchemaError {
    /// Location of the failing value in the instance (after the caller's `base`).
    pub loc: Vec<LocStep>,
    /// JSON pointer into the spec document of the failing keyword, e.g.
    /// "/definitions/image/attributes/properties/multiscales/minItems".
    pub keyword: String,
    /// What is wrong, in words, with the offending value shown.
    pub message: String,
}

/// One compiled subschema: its pointer in the spec document and its assertions.
struct Node {
    ptr: String,
    checks: Vec<Check>,
}

/// Bits of the `type` keyword.
const T_NULL: u8 = 1;
const T_BOOL: u8 = 2;
const T_OBJECT: u8 = 4;
const T_ARRAY: u8 = 8;
const T_NUMBER: u8 = 16;
const T_STRING: u8 = 32;
const T_INTEGER: u8 = 64;
const TYPE_NAMES: [(&str, u8); 7] = [
    ("null", T_NULL),
    ("boolean", T_BOOL),
    ("object", T_OBJECT),
    ("array", T_ARRAY),
    ("number", T_NUMBER),
    ("string", T_STRING),
    ("integer", T_INTEGER),
];

/// One compiled keyword. Subschemas are indices into [`Schema::nodes`].
enum Check {
    False,
    Type(u8),
    Enum(Vec<Value>),
    Const(Value),
    Properties(Vec<(String, usize)>),
    PatternProperties(Vec<(Regex, usize)>),
    Additional(Box<Additional>),
    PropertyNames(usize),
    Required(Vec<String>),
    MinProperties(u64),
    MaxProperties(u64),
    DependentRequired(Vec<(String, Vec<String>)>),
    DependentSchemas(Vec<(String, usize)>),
    PrefixItems(Vec<usize>),
    Items {
        skip: usize,
        schema: usize,
    },
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    Contains {
        schema: usize,
        min: u64,
        max: Option<u64>,
    },
    Minimum(Number),
    Maximum(Number),
    ExclusiveMinimum(Number),
    ExclusiveMaximum(Number),
    MultipleOf(Number),
    MinLength(u64),
    MaxLength(u64),
    Pattern(Regex),
    AllOf(Vec<usize>),
    AnyOf(Vec<usize>),
    OneOf(Vec<usize>),
    Not(usize),
    If {
        cond: usize,
        then: Option<usize>,
        els: Option<usize>,
    },
    Ref(usize),
}

/// `additionalProperties`, with what its siblings `properties` and `patternProperties` name.
struct Additional {
    known: Vec<String>,
    patterns: Vec<Regex>,
    schema: usize,
}

impl Check {
    /// The keyword this check was compiled from (the last segment of its error path).
    fn keyword(&self) -> &'static str {
        match self {
            Check::False => "",
            Check::Type(_) => "type",
            Check::Enum(_) => "enum",
            Check::Const(_) => "const",
            Check::Properties(_) => "properties",
            Check::PatternProperties(_) => "patternProperties",
            Check::Additional(_) => "additionalProperties",
            Check::PropertyNames(_) => "propertyNames",
            Check::Required(_) => "required",
            Check::MinProperties(_) => "minProperties",
            Check::MaxProperties(_) => "maxProperties",
            Check::DependentRequired(_) => "dependentRequired",
            Check::DependentSchemas(_) => "dependentSchemas",
            Check::PrefixItems(_) => "prefixItems",
            Check::Items { .. } => "items",
            Check::MinItems(_) => "minItems",
            Check::MaxItems(_) => "maxItems",
            Check::UniqueItems => "uniqueItems",
            Check::Contains { .. } => "contains",
            Check::Minimum(_) => "minimum",
            Check::Maximum(_) => "maximum",
            Check::ExclusiveMinimum(_) => "exclusiveMinimum",
            Check::ExclusiveMaximum(_) => "exclusiveMaximum",
            Check::MultipleOf(_) => "multipleOf",
            Check::MinLength(_) => "minLength",
            Check::MaxLength(_) => "maxLength",
            Check::Pattern(_) => "pattern",
            Check::AllOf(_) => "allOf",
            Check::AnyOf(_) => "anyOf",
            Check::OneOf(_) => "oneOf",
            Check::Not(_) => "not",
            Check::If { .. } => "if",
            Check::Ref(_) => "$ref",
        }
    }

    /// Subschemas evaluated against the same instance value (not a member of it): the edges
    /// along which a `$ref` cycle would never terminate.
    fn same_instance(&self, out: &mut Vec<usize>) {
        match self {
            Check::AllOf(v) | Check::AnyOf(v) | Check::OneOf(v) => out.extend_from_slice(v),
            Check::Not(s) | Check::Ref(s) => out.push(*s),
            Check::If { cond, then, els } => {
                out.push(*cond);
                out.extend(then.iter().chain(els.iter()));
            }
            Check::DependentSchemas(v) => out.extend(v.iter().map(|(_, s)| *s)),
            _ => {}
        }
    }
}

mod compile;
mod eval;

impl Schema {
    /// Compiles the schema found at `pointer` (a JSON pointer, "" = whole, a leading "#" is
    /// allowed) inside `root`, the whole spec document that `$ref`s like "#/$defs/axis"
    /// resolve against. Errors: every problem with the schema itself (unknown keyword, bad
    /// regex, unresolvable `$ref`, keyword value of the wrong type, `$ref` cycle that never
    /// descends into the instance, nesting too deep), each naming its keyword path.
    pub(crate) fn compile(root: &Value, pointer: &str) -> Result<Schema, Vec<String>> {
        compile::compile(root, pointer)
    }

    /// Whether `instance` conforms (stops at the first failure; allocates nothing on success,
    /// except `uniqueItems` over more than 32 items).
    pub(crate) fn is_valid(&self, instance: &Value) -> bool {
        self.valid(0, instance, 0)
    }

    /// Appends every failure of `instance` to `out`, located; `base` is prepended to each
    /// `loc` (e.g. `["attributes"]`). Appends nothing exactly when [`Schema::is_valid`] is true.
    pub(crate) fn errors(&self, instance: &Value, base: &[LocStep], out: &mut Vec<SchemaError>) {
        let mut loc = base.to_vec();
        self.collect(0, instance, &mut loc, 0, out);
    }
}

/// The JSON type bit of a value (`integer` is added for integral numbers by [`type_matches`]).
fn type_matches(set: u8, v: &Value) -> bool {
    let bit = match v {
        Value::Null => T_NULL,
        Value::Bool(_) => T_BOOL,
        Value::Object(_) => T_OBJECT,
        Value::Array(_) => T_ARRAY,
        Value::String(_) => T_STRING,
        Value::Number(n) => {
            if set & T_NUMBER != 0 || (set & T_INTEGER != 0 && is_integer(n)) {
                return true;
            }
            return false;
        }
    };
    set & bit != 0
}

/// Whether a number is integral (3 and 3.0 both are, as the spec says).
fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// A number as an exact integer, when it is one without a fraction part in its JSON form.
fn exact_int(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Numeric order: exact between integers, by f64 otherwise.
fn num_cmp(a: &Number, b: &Number) -> Option<Ordering> {
    match (exact_int(a), exact_int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// Whether `x` is a multiple of `m` (m > 0): exact for integers, within rounding otherwise.
fn multiple_of(x: &Number, m: &Number) -> bool {
    if let (Some(a), Some(b)) = (exact_int(x), exact_int(m)) {
        return a.checked_rem(b) == Some(0);
    }
    let (Some(a), Some(b)) = (x.as_f64(), m.as_f64()) else {
        return false;
    };
    let q = a / b;
    if !q.is_finite() {
        return false;
    }
    (q - q.round()).abs() <= 4.0 * f64::EPSILON * q.abs().max(1.0)
}

/// JSON equality: numbers by value (1 == 1.0), objects regardless of key order.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => num_cmp(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// A hash consistent with [`json_eq`] (numbers by their f64 value, objects order-free).
fn json_hash(v: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match v {
        Value::Null => 0u8.hash(&mut h),
        Value::Bool(b) => (1u8, b).hash(&mut h),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            (2u8, if f == 0.0 { 0 } else { f.to_bits() }).hash(&mut h)
        }
        Value::String(s) => (3u8, s).hash(&mut h),
        Value::Array(a) => {
            4u8.hash(&mut h);
            for x in a {
                json_hash(x).hash(&mut h);
            }
        }
        Value::Object(o) => {
            let mut sum = 0u64;
            for (k, x) in o {
                let mut e = std::collections::hash_map::DefaultHasher::new();
                (k, json_hash(x)).hash(&mut e);
                sum = sum.wrapping_add(e.finish());
            }
            (5u8, sum).hash(&mut h);
        }
    }
    h.finish()
}

/// Whether all items differ under [`json_eq`]: pairwise for short arrays, hashed for long.
fn all_unique(items: &[Value]) -> bool {
    if items.len() <= 32 {
        return items
            .iter()
            .enumerate()
            .all(|(i, a)| items.iter().skip(i + 1).all(|b| !json_eq(a, b)));
    }
    let mut seen: HashMap<u64, Vec<&Value>> = HashMap::with_capacity(items.len());
    for item in items {
        let bucket = seen.entry(json_hash(item)).or_default();
        if bucket.iter().any(|b| json_eq(b, item)) {
            return false;
        }
        bucket.push(item);
    }
    true
}

/// Whether an object has the property `name`.
fn has(obj: &Map<String, Value>, name: &str) -> bool {
    obj.contains_key(name)
}

/// A value rendered compactly for a message, as every other problem message renders one.
fn show(v: &Value) -> String {
    crate::problem::show(v)
}

/// A string value rendered as in a message (JSON-quoted, cut when long).
fn show_str(s: &str) -> String {
    let mut end = s.len().min(SHOWN_VALUE_LEN.saturating_add(1));
    while !s.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    let head = s.get(..end).unwrap_or("");
    let shown = show(&Value::String(head.to_owned()));
    if end < s.len() && !shown.ends_with('…') {
        return format!("{shown}…");
    }
    shown
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
