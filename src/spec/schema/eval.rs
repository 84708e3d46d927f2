//! Evaluation of a compiled [`Schema`]: the yes/no fast path ([`Schema::valid`]) and the
//! located failures ([`Schema::collect`]). Both stop at [`MAX_EVAL_DEPTH`] nested evaluations.

use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::{
    all_unique, has, json_eq, multiple_of, num_cmp, show, show_str, type_matches, Additional,
    Check, LocStep, Schema, SchemaError, MAX_EVAL_DEPTH, TYPE_NAMES,
};

/// How many items of `a` (from `skip` on) conform to `schema`, stopping once past `stop`.
fn count_matching(s: &Schema, schema: usize, a: &[Value], depth: u32, stop: u64) -> u64 {
    let mut n = 0u64;
    for item in a {
        if s.valid(schema, item, depth) {
            n = n.saturating_add(1);
            if n > stop {
                break;
            }
        }
    }
    n
}

/// Whether `key` is named by `properties` or matched by `patternProperties`.
fn known(add: &Additional, key: &str) -> bool {
    add.known.binary_search_by(|k| k.as_str().cmp(key)).is_ok()
        || add.patterns.iter().any(|r| r.is_match(key))
}

/// Whether `s` has fewer than `min` code points.
fn shorter(s: &str, min: u64) -> bool {
    let min = usize::try_from(min).unwrap_or(usize::MAX);
    s.chars().take(min).count() < min
}

/// Whether `s` has more than `max` code points.
fn longer(s: &str, max: u64) -> bool {
    usize::try_from(max).is_ok_and(|m| s.chars().nth(m).is_some())
}

/// Whether `len` is below `min` / above `max`.
fn below(len: usize, min: u64) -> bool {
    u64::try_from(len).is_ok_and(|l| l < min)
}
fn above(len: usize, max: u64) -> bool {
    u64::try_from(len).map_or(true, |l| l > max)
}

/// The names of the types in a `type` set, for a message.
fn type_names(set: u8) -> String {
    let names: Vec<String> = TYPE_NAMES
        .iter()
        .filter(|(_, b)| set & b != 0)
        .map(|(n, _)| format!("{n:?}"))
        .collect();
    names.join(", ")
}

impl Schema {
    /// Whether `v` conforms to node `node`.
    pub(super) fn valid(&self, node: usize, v: &Value, depth: u32) -> bool {
        let Some(n) = self.nodes.get(node) else {
            return false;
        };
        if depth > MAX_EVAL_DEPTH {
            return false;
        }
        let d = depth.saturating_add(1);
        n.checks.iter().all(|c| self.check(c, v, d))
    }

    /// Whether `v` passes one keyword.
    fn check(&self, c: &Check, v: &Value, d: u32) -> bool {
        match (c, v) {
            (Check::False, _) => false,
            (Check::Type(set), _) => type_matches(*set, v),
            (Check::Enum(list), _) => list.iter().any(|e| json_eq(e, v)),
            (Check::Const(e), _) => json_eq(e, v),
            (Check::Properties(props), Value::Object(o)) => props
                .iter()
                .all(|(k, s)| o.get(k).is_none_or(|x| self.valid(*s, x, d))),
            (Check::PatternProperties(pats), Value::Object(o)) => o.iter().all(|(k, x)| {
                pats.iter()
                    .all(|(r, s)| !r.is_match(k) || self.valid(*s, x, d))
            }),
            (Check::Additional(add), Value::Object(o)) => o
                .iter()
                .all(|(k, x)| known(add, k) || self.valid(add.schema, x, d)),
            (Check::PropertyNames(s), Value::Object(o)) => o.keys().all(|k| {
                // A key becomes a string instance only here; it is small and rare.
                self.valid(*s, &Value::String(k.clone()), d)
            }),
            (Check::Required(names), Value::Object(o)) => names.iter().all(|k| has(o, k)),
            (Check::MinProperties(min), Value::Object(o)) => !below(o.len(), *min),
            (Check::MaxProperties(max), Value::Object(o)) => !above(o.len(), *max),
            (Check::DependentRequired(deps), Value::Object(o)) => deps
                .iter()
                .all(|(k, names)| !has(o, k) || names.iter().all(|n| has(o, n))),
            (Check::DependentSchemas(deps), Value::Object(o)) => {
                deps.iter().all(|(k, s)| !has(o, k) || self.valid(*s, v, d))
            }
            (Check::PrefixItems(schemas), Value::Array(a)) => {
                schemas.iter().zip(a).all(|(s, x)| self.valid(*s, x, d))
            }
            (Check::Items { skip, schema }, Value::Array(a)) => {
                a.iter().skip(*skip).all(|x| self.valid(*schema, x, d))
            }
            (Check::MinItems(min), Value::Array(a)) => !below(a.len(), *min),
            (Check::MaxItems(max), Value::Array(a)) => !above(a.len(), *max),
            (Check::UniqueItems, Value::Array(a)) => all_unique(a),
            (Check::Contains { schema, min, max }, Value::Array(a)) => {
                let stop = max.unwrap_or(*min);
                let n = count_matching(self, *schema, a, d, stop);
                n >= *min && max.is_none_or(|m| n <= m)
            }
            (Check::Minimum(m), Value::Number(x)) => {
                matches!(num_cmp(x, m), Some(Ordering::Greater | Ordering::Equal))
            }
            (Check::Maximum(m), Value::Number(x)) => {
                matches!(num_cmp(x, m), Some(Ordering::Less | Ordering::Equal))
            }
            (Check::ExclusiveMinimum(m), Value::Number(x)) => {
                num_cmp(x, m) == Some(Ordering::Greater)
            }
            (Check::ExclusiveMaximum(m), Value::Number(x)) => num_cmp(x, m) == Some(Ordering::Less),
            (Check::MultipleOf(m), Value::Number(x)) => multiple_of(x, m),
            (Check::MinLength(min), Value::String(s)) => !shorter(s, *min),
            (Check::MaxLength(max), Value::String(s)) => !longer(s, *max),
            (Check::Pattern(r), Value::String(s)) => r.is_match(s),
            (Check::AllOf(list), _) => list.iter().all(|s| self.valid(*s, v, d)),
            (Check::AnyOf(list), _) => list.iter().any(|s| self.valid(*s, v, d)),
            (Check::OneOf(list), _) => self.one_of(list, v, d) == 1,
            (Check::Not(s), _) => !self.valid(*s, v, d),
            (Check::If { cond, then, els }, _) => {
                let branch = if self.valid(*cond, v, d) { then } else { els };
                branch.is_none_or(|s| self.valid(s, v, d))
            }
            (Check::Ref(s), _) => self.valid(*s, v, d),
            // Keywords of another instance type pass.
            _ => true,
        }
    }

    /// How many of `list` `v` conforms to, counting no further than 2.
    fn one_of(&self, list: &[usize], v: &Value, d: u32) -> usize {
        let mut n = 0;
        for s in list {
            if self.valid(*s, v, d) {
                n += 1;
                if n > 1 {
                    break;
                }
            }
        }
        n
    }

    /// Appends every failure of `v` against node `node` to `out`; `loc` is `v`'s location.
    pub(super) fn collect(
        &self,
        node: usize,
        v: &Value,
        loc: &mut Vec<LocStep>,
        depth: u32,
        out: &mut Vec<SchemaError>,
    ) {
        let Some(n) = self.nodes.get(node) else {
            return;
        };
        let d = depth.saturating_add(1);
        if depth > MAX_EVAL_DEPTH {
            out.push(SchemaError {
                loc: loc.clone(),
                keyword: n.ptr.clone(),
                message: format!(
                    "evaluation nested deeper than {MAX_EVAL_DEPTH} subschemas was stopped"
                ),
            });
            return;
        }
        for c in &n.checks {
            // The fast path first: only failing keywords are looked at closely.
            if self.check(c, v, d) {
                continue;
            }
            match c {
                Check::Properties(_)
                | Check::PatternProperties(_)
                | Check::Additional(_)
                | Check::PropertyNames(_)
                | Check::DependentSchemas(_)
                | Check::PrefixItems(_)
                | Check::Items { .. }
                | Check::AllOf(_)
                | Check::If { .. }
                | Check::Ref(_) => self.collect_sub(c, v, loc, d, out),
                _ => self.report(n, c, v, loc, d, out),
            }
        }
    }

    /// The failure of a keyword that reports at the instance's own location (assertions, and
    /// `anyOf`, `oneOf`, `not`). Kept out of [`Schema::collect`] so that its messages do not
    /// weigh on the stack frame of the recursion.
    #[inline(never)]
    fn report(
        &self,
        n: &super::Node,
        c: &Check,
        v: &Value,
        loc: &[LocStep],
        d: u32,
        out: &mut Vec<SchemaError>,
    ) {
        let keyword = if matches!(c, Check::False) {
            n.ptr.clone()
        } else {
            format!("{}/{}", n.ptr, c.keyword())
        };
        let mut fail = |message: String| {
            out.push(SchemaError {
                loc: loc.to_vec(),
                keyword: keyword.clone(),
                message,
            })
        };
        match (c, v) {
            (Check::False, _) => fail(format!("False schema does not allow {}", show(v))),
            (Check::Type(set), _) => {
                let plural = if set.count_ones() > 1 { "s" } else { "" };
                fail(format!(
                    "{} is not of type{plural} {}",
                    show(v),
                    type_names(*set)
                ))
            }
            (Check::Enum(list), _) => {
                let shown: Vec<String> = list.iter().map(show).collect();
                let all = format!("[{}]", shown.join(", "));
                fail(format!("{} is not one of {all}", show(v)))
            }
            (Check::Const(e), _) => fail(format!("{} was expected, not {}", show(e), show(v))),
            (Check::Required(names), Value::Object(o)) => {
                // Located at the missing key, as the Zarr validator locates a missing key.
                for k in names.iter().filter(|k| !has(o, k)) {
                    let mut at = loc.to_vec();
                    at.push(LocStep::Key(k.clone()));
                    out.push(SchemaError {
                        loc: at,
                        keyword: keyword.clone(),
                        message: format!("{} is a required property", show_str(k)),
                    });
                }
            }
            (Check::MinProperties(min), _) => {
                fail(format!("{} has fewer than {min} properties", show(v)))
            }
            (Check::MaxProperties(max), _) => {
                fail(format!("{} has more than {max} properties", show(v)))
            }
            (Check::DependentRequired(deps), Value::Object(o)) => {
                for (k, names) in deps.iter().filter(|(k, _)| has(o, k)) {
                    for name in names.iter().filter(|name| !has(o, name)) {
                        fail(format!(
                            "{} is a required property when {} is present",
                            show_str(name),
                            show_str(k)
                        ));
                    }
                }
            }
            (Check::MinItems(min), _) => fail(format!("{} has fewer than {min} items", show(v))),
            (Check::MaxItems(max), _) => fail(format!("{} has more than {max} items", show(v))),
            (Check::UniqueItems, _) => fail(format!("{} has non-unique elements", show(v))),
            (Check::Contains { schema, min, max }, Value::Array(a)) => {
                let n = count_matching(self, *schema, a, d, max.unwrap_or(*min));
                fail(if n < *min && *min == 1 {
                    format!(
                        "{} does not contain items matching the given schema",
                        show(v)
                    )
                } else if n < *min {
                    format!("{} contains fewer than {min} matching items", show(v))
                } else {
                    let m = max.unwrap_or(0);
                    format!("{} contains more than {m} matching items", show(v))
                })
            }
            (Check::Minimum(m), _) => fail(format!("{} is less than the minimum of {m}", show(v))),
            (Check::Maximum(m), _) => {
                fail(format!("{} is greater than the maximum of {m}", show(v)))
            }
            (Check::ExclusiveMinimum(m), _) => fail(format!(
                "{} is less than or equal to the minimum of {m}",
                show(v)
            )),
            (Check::ExclusiveMaximum(m), _) => fail(format!(
                "{} is greater than or equal to the maximum of {m}",
                show(v)
            )),
            (Check::MultipleOf(m), _) => fail(format!("{} is not a multiple of {m}", show(v))),
            (Check::MinLength(min), _) => {
                fail(format!("{} is shorter than {min} characters", show(v)))
            }
            (Check::MaxLength(max), _) => {
                fail(format!("{} is longer than {max} characters", show(v)))
            }
            (Check::Pattern(r), _) => fail(format!(
                "{} does not match {}",
                show(v),
                show_str(r.as_str())
            )),
            (Check::AnyOf(_), _) => fail(format!(
                "{} is not valid under any of the schemas in anyOf",
                show(v)
            )),
            (Check::OneOf(list), _) => fail(if self.one_of(list, v, d) == 0 {
                format!("{} is not valid under any of the schemas in oneOf", show(v))
            } else {
                format!(
                    "{} is valid under more than one of the schemas in oneOf",
                    show(v)
                )
            }),
            (Check::Not(_), _) => fail(format!("{} is valid under the schema in not", show(v))),
            _ => {}
        }
    }

    /// The failures of the subschemas of a failing applicator keyword, at their locations.
    fn collect_sub(
        &self,
        c: &Check,
        v: &Value,
        loc: &mut Vec<LocStep>,
        d: u32,
        out: &mut Vec<SchemaError>,
    ) {
        let mut at_key = |k: &str, s: usize, x: &Value, out: &mut Vec<SchemaError>| {
            loc.push(LocStep::Key(k.to_owned()));
            self.collect(s, x, loc, d, out);
            loc.pop();
        };
        match (c, v) {
            (Check::Properties(props), Value::Object(o)) => {
                for (k, s) in props {
                    if let Some(x) = o.get(k) {
                        at_key(k, *s, x, out);
                    }
                }
            }
            (Check::PatternProperties(pats), Value::Object(o)) => {
                for (k, x) in o {
                    for (r, s) in pats {
                        if r.is_match(k) {
                            at_key(k, *s, x, out);
                        }
                    }
                }
            }
            (Check::Additional(add), Value::Object(o)) => {
                let extra = |o: &Map<String, Value>| {
                    o.keys()
                        .filter(|k| !known(add, k))
                        .map(|k| show_str(k))
                        .collect::<Vec<_>>()
                };
                let node = self.nodes.get(add.schema);
                if let Some(n) = node.filter(|n| matches!(n.checks.as_slice(), [Check::False])) {
                    let names = extra(o);
                    let (s, were) = if names.len() == 1 {
                        ("", "was")
                    } else {
                        ("s", "were")
                    };
                    out.push(SchemaError {
                        loc: loc.clone(),
                        keyword: n.ptr.clone(),
                        message: format!(
                            "Additional properties are not allowed ({} {were} unexpected{s})",
                            names.join(", ")
                        ),
                    });
                    return;
                }
                for (k, x) in o.iter().filter(|(k, _)| !known(add, k)) {
                    at_key(k, add.schema, x, out);
                }
            }
            (Check::PropertyNames(s), Value::Object(o)) => {
                for k in o.keys() {
                    let key = Value::String(k.clone());
                    if !self.valid(*s, &key, d) {
                        // The key's failures, located at the object.
                        self.collect(*s, &key, loc, d, out);
                    }
                }
            }
            (Check::DependentSchemas(deps), Value::Object(o)) => {
                for (_, s) in deps.iter().filter(|(k, _)| has(o, k)) {
                    self.collect(*s, v, loc, d, out);
                }
            }
            (Check::PrefixItems(schemas), Value::Array(a)) => {
                for (i, (s, x)) in schemas.iter().zip(a).enumerate() {
                    loc.push(LocStep::Index(i));
                    self.collect(*s, x, loc, d, out);
                    loc.pop();
                }
            }
            (Check::Items { skip, schema }, Value::Array(a)) => {
                for (i, x) in a.iter().enumerate().skip(*skip) {
                    loc.push(LocStep::Index(i));
                    self.collect(*schema, x, loc, d, out);
                    loc.pop();
                }
            }
            (Check::AllOf(list), _) => {
                for s in list {
                    self.collect(*s, v, loc, d, out);
                }
            }
            (Check::If { cond, then, els }, _) => {
                let branch = if self.valid(*cond, v, d) { then } else { els };
                if let Some(s) = branch {
                    self.collect(*s, v, loc, d, out);
                }
            }
            (Check::Ref(s), _) => self.collect(*s, v, loc, d, out),
            _ => {}
        }
    }
}
