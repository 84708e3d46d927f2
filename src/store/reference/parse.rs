//! A kerchunk reference document read into a table of key → entry, every problem located by
//! its place in the document. fsspec's `ReferenceFileSystem` is the model: version 0 is a
//! flat object of references; version 1 has `templates`, `refs` and `gen`; a reference is text
//! (`base64:` + base64 for bytes), an object (stored as its JSON text), `[url]` or
//! `[url, offset, length]`; generator entries override `refs`.

use super::template::{self, Val};
use super::{resolve_url, Entry, Table, MAX_GENERATED};
use crate::json::{to_compact, type_name};
use crate::problem::{LocStep, Problem, ProblemKind};
use serde_json::{Map, Value};

/// The most problems one document reports (the rest are dropped).
const MAX_PROBLEMS: usize = 100;

/// The JSON pointer of a location (`/refs/a~1.zarray/1`).
pub(super) fn pointer(loc: &[LocStep]) -> String {
    let mut out = String::new();
    for step in loc {
        out.push('/');
        match step {
            LocStep::Key(k) => out.push_str(&k.replace('~', "~0").replace('/', "~1")),
            LocStep::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

fn at(loc: &[LocStep], step: LocStep) -> Vec<LocStep> {
    let mut out = loc.to_vec();
    out.push(step);
    out
}

fn key(loc: &[LocStep], k: &str) -> Vec<LocStep> {
    at(loc, LocStep::Key(k.to_string()))
}

fn idx(loc: &[LocStep], i: usize) -> Vec<LocStep> {
    at(loc, LocStep::Index(i))
}

/// Builds the table of one document.
pub(super) struct Reader<'b> {
    base: &'b str,
    pub(super) problems: Vec<Problem>,
    pub(super) table: Table,
    generated: u64,
}

impl<'b> Reader<'b> {
    /// A reader resolving target URLs against `base`.
    pub(super) fn new(base: &'b str) -> Self {
        Reader {
            base,
            problems: Vec::new(),
            table: Table::default(),
            generated: 0,
        }
    }

    fn problem(&mut self, loc: &[LocStep], kind: ProblemKind, message: impl Into<String>) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems
                .push(Problem::error("", loc, kind, message.into()));
        }
    }

    /// Reads a whole document.
    pub(super) fn document(&mut self, doc: &Value) {
        let Some(root) = doc.as_object() else {
            return self.problem(
                &[],
                ProblemKind::InvalidType,
                "kerchunk references are a JSON object",
            );
        };
        let Some(version) = root.get("version") else {
            if root.contains_key("record_size") && root.contains_key("metadata") {
                return self.problem(
                    &[],
                    ProblemKind::InvalidValue,
                    "this is the .zmetadata of parquet references, which zom does not read: \
                     convert them to JSON references (kerchunk)",
                );
            }
            return self.refs(&[], root, &[]);
        };
        if version.as_u64() != Some(1) {
            return self.problem(
                &[LocStep::Key("version".into())],
                ProblemKind::InvalidValue,
                format!(
                    "unknown reference version {} (zom reads versions 0 and 1)",
                    to_compact(version)
                ),
            );
        }
        let mut templates = Vec::new();
        let loc = [LocStep::Key("templates".into())];
        match root.get("templates") {
            None => {}
            Some(Value::Object(map)) => {
                for (name, v) in map {
                    match v.as_str() {
                        Some(s) => templates.push((name.clone(), Val::Text(s.to_string()))),
                        None => self.problem(
                            &key(&loc, name),
                            ProblemKind::InvalidType,
                            "a template is a string",
                        ),
                    }
                }
            }
            Some(_) => self.problem(
                &loc,
                ProblemKind::InvalidType,
                "templates is an object of name → URL",
            ),
        }
        let loc = [LocStep::Key("refs".into())];
        match root.get("refs") {
            None => {}
            Some(Value::Object(map)) => self.refs(&loc, map, &templates),
            Some(_) => self.problem(
                &loc,
                ProblemKind::InvalidType,
                "refs is an object of key → reference",
            ),
        }
        let loc = [LocStep::Key("gen".into())];
        match root.get("gen") {
            None => {}
            Some(Value::Array(gens)) => {
                for (i, g) in gens.iter().enumerate() {
                    self.generator(&idx(&loc, i), g, &templates);
                }
            }
            Some(_) => self.problem(
                &loc,
                ProblemKind::InvalidType,
                "gen is an array of generators",
            ),
        }
    }

    fn refs(&mut self, loc: &[LocStep], map: &Map<String, Value>, templates: &[(String, Val)]) {
        for (k, v) in map {
            let here = key(loc, k);
            if let Some(entry) = self.reference(&here, v, templates) {
                self.insert(&here, k, entry);
            }
        }
    }

    fn insert(&mut self, loc: &[LocStep], k: &str, entry: Entry) {
        let k = k.trim_start_matches('/');
        if k.is_empty() {
            return self.problem(loc, ProblemKind::InvalidValue, "a reference key is empty");
        }
        self.table.insert(k, entry);
    }

    /// The id of a target URL (rendered with the templates, resolved against the base).
    fn url(&mut self, loc: &[LocStep], url: &str, templates: &[(String, Val)]) -> Option<u32> {
        let rendered;
        let mut url = url;
        if !templates.is_empty() && url.contains("{{") {
            match template::render(url, templates) {
                Ok(r) => rendered = r,
                Err(message) => {
                    self.problem(loc, ProblemKind::InvalidValue, message);
                    return None;
                }
            }
            url = &rendered;
        }
        let Some(resolved) = resolve_url(self.base, url) else {
            self.problem(
                loc,
                ProblemKind::InvalidValue,
                format!("target URL {url:?} does not resolve"),
            );
            return None;
        };
        // References to one target usually come together (kerchunk sorts keys by variable, a
        // generator has one URL): one copy of each run of the same URL.
        let last = self.table.urls.len().checked_sub(1);
        if let Some(last) = last.filter(|&i| self.table.urls.get(i) == Some(&resolved)) {
            return u32::try_from(last).ok();
        }
        let id = u32::try_from(self.table.urls.len()).ok()?;
        self.table.urls.push(resolved);
        Some(id)
    }

    fn count(&mut self, loc: &[LocStep], v: &Value, what: &str) -> Option<u64> {
        let n = match v {
            Value::Number(n) => n.as_u64().filter(|&n| n <= crate::store::wire::MAX_SAFE),
            _ => None,
        };
        if n.is_none() {
            self.problem(
                loc,
                ProblemKind::InvalidValue,
                format!(
                    "{what} must be an integer from 0 to 2^53 - 1, not {}",
                    to_compact(v)
                ),
            );
        }
        n
    }

    fn reference(
        &mut self,
        loc: &[LocStep],
        v: &Value,
        templates: &[(String, Val)],
    ) -> Option<Entry> {
        match v {
            Value::String(s) => match s.strip_prefix("base64:") {
                None => Some(Entry::Inline(s.as_bytes().to_vec())),
                Some(b64) => match crate::dtype::base64::decode(b64) {
                    Ok(bytes) => Some(Entry::Inline(bytes)),
                    Err(e) => {
                        self.problem(
                            loc,
                            ProblemKind::InvalidValue,
                            format!("invalid base64: {e}"),
                        );
                        None
                    }
                },
            },
            Value::Object(_) => Some(Entry::Inline(to_compact(v).into_bytes())),
            Value::Array(items) => {
                let url = match items.first() {
                    Some(Value::String(u)) if items.len() == 1 || items.len() == 3 => u,
                    _ => {
                        self.problem(
                            loc,
                            ProblemKind::InvalidValue,
                            "a reference list is [url] or [url, offset, length]",
                        );
                        return None;
                    }
                };
                let id = self.url(&idx(loc, 0), url, templates);
                match (items.get(1), items.get(2)) {
                    (Some(o), Some(l)) => {
                        let offset = self.count(&idx(loc, 1), o, "offset");
                        let length = self.count(&idx(loc, 2), l, "length");
                        let (offset, length) = (offset?, length?);
                        if offset.saturating_add(length) > crate::store::wire::MAX_SAFE {
                            self.problem(
                                loc,
                                ProblemKind::InvalidValue,
                                "offset + length is over 2^53 - 1",
                            );
                            return None;
                        }
                        Some(Entry::Range(id?, offset, length))
                    }
                    _ => Some(Entry::Whole(id?)),
                }
            }
            _ => {
                self.problem(
                    loc,
                    ProblemKind::InvalidType,
                    format!(
                        "a reference is a string, an object, [url] or [url, offset, length], not {}",
                        type_name(v)
                    ),
                );
                None
            }
        }
    }

    /// The values of one generator dimension.
    /// The values of one generator dimension, refused when there are more than `budget` (what
    /// the generated references may still multiply by) before any is made.
    fn dimension(&mut self, loc: &[LocStep], v: &Value, budget: u64) -> Option<Vec<Val>> {
        let over = |this: &mut Self, len: u64| {
            this.problem(
                loc,
                ProblemKind::InvalidValue,
                format!(
                    "{len} values: the generators would make more references than the limit of {MAX_GENERATED}"
                ),
            );
        };
        if let Value::Array(values) = v {
            let len = u64::try_from(values.len()).unwrap_or(u64::MAX);
            if len > budget {
                over(self, len);
                return None;
            }
            let mut out = Vec::with_capacity(values.len());
            for (i, value) in values.iter().enumerate() {
                out.push(match value {
                    Value::String(s) => Val::Text(s.clone()),
                    _ => Val::Int(self.int(&idx(loc, i), Some(value), 0)?),
                });
            }
            return Some(out);
        }
        let Value::Object(range) = v else {
            self.problem(
                loc,
                ProblemKind::InvalidType,
                "a dimension is {start, stop, step} or a list of values",
            );
            return None;
        };
        let start = self.int(&key(loc, "start"), range.get("start"), 0)?;
        let Some(stop_value) = range.get("stop") else {
            self.problem(loc, ProblemKind::MissingKey, "a range dimension needs stop");
            return None;
        };
        let stop = self.int(&key(loc, "stop"), Some(stop_value), 0)?;
        let step = self.int(&key(loc, "step"), range.get("step"), 1)?;
        if step == 0 {
            self.problem(
                &key(loc, "step"),
                ProblemKind::InvalidValue,
                "step must not be 0",
            );
            return None;
        }
        // Python's len(range(start, stop, step)), without overflow: the distance and the step as
        // magnitudes, a range that runs the wrong way being empty.
        let forward = step > 0;
        let span = if forward {
            stop.checked_sub(start)
        } else {
            start.checked_sub(stop)
        };
        let (span, stride) = (
            span.unwrap_or(i64::MAX).max(0).unsigned_abs(),
            step.unsigned_abs(),
        );
        let len = span.div_ceil(stride);
        if len > budget {
            over(self, len);
            return None;
        }
        let mut out = Vec::new();
        let mut x = start;
        for _ in 0..len {
            out.push(Val::Int(x));
            x = x.saturating_add(step);
        }
        Some(out)
    }

    fn int(&mut self, loc: &[LocStep], v: Option<&Value>, default: i64) -> Option<i64> {
        match v {
            None => Some(default),
            Some(v) => {
                let n = v.as_i64();
                if n.is_none() {
                    self.problem(
                        loc,
                        ProblemKind::InvalidType,
                        format!("an integer was expected, not {}", to_compact(v)),
                    );
                }
                n
            }
        }
    }

    fn generator(&mut self, loc: &[LocStep], g: &Value, templates: &[(String, Val)]) {
        let Some(g) = g.as_object() else {
            return self.problem(loc, ProblemKind::InvalidType, "a generator is an object");
        };
        let text = |this: &mut Self, name: &str| -> Option<String> {
            match g.get(name) {
                Some(Value::String(s)) => Some(s.clone()),
                Some(v @ Value::Number(_)) if name == "offset" || name == "length" => {
                    Some(to_compact(v))
                }
                None if name == "offset" || name == "length" => None,
                _ => {
                    this.problem(
                        &key(loc, name),
                        ProblemKind::InvalidType,
                        format!("a generator's {name} is a template string"),
                    );
                    None
                }
            }
        };
        let (Some(k), Some(url)) = (text(self, "key"), text(self, "url")) else {
            return;
        };
        let (offset, length) = (text(self, "offset"), text(self, "length"));
        if offset.is_some() != length.is_some() {
            return self.problem(
                loc,
                ProblemKind::MissingKey,
                "a generator has both offset and length, or neither",
            );
        }
        let dims_loc = key(loc, "dimensions");
        let Some(Value::Object(dims)) = g.get("dimensions") else {
            return self.problem(
                &dims_loc,
                ProblemKind::InvalidType,
                "a generator's dimensions are an object",
            );
        };
        let mut axes: Vec<(String, Vec<Val>)> = Vec::new();
        let mut total: u64 = 1;
        for (name, d) in dims {
            let budget = MAX_GENERATED.saturating_sub(self.generated) / total.max(1);
            let Some(values) = self.dimension(&key(&dims_loc, name), d, budget) else {
                return;
            };
            total = total.saturating_mul(u64::try_from(values.len()).unwrap_or(u64::MAX));
            axes.push((name.clone(), values));
        }
        if axes.iter().any(|(_, v)| v.is_empty()) {
            return;
        }
        self.generated = self.generated.saturating_add(total);
        if self.generated > MAX_GENERATED {
            return self.problem(
                &dims_loc,
                ProblemKind::InvalidValue,
                format!(
                    "the generators make {} references, over the limit of {MAX_GENERATED}",
                    self.generated
                ),
            );
        }
        let mut at_index = vec![0usize; axes.len()];
        let mut vars: Vec<(String, Val)> = templates.to_vec();
        loop {
            vars.truncate(templates.len());
            for ((name, values), &i) in axes.iter().zip(&at_index) {
                vars.push((name.clone(), values.get(i).cloned().unwrap_or(Val::Int(0))));
            }
            if !self.generate_one(
                loc,
                &vars,
                &k,
                &url,
                offset.as_deref().zip(length.as_deref()),
            ) {
                return;
            }
            // The next combination, the last dimension fastest (itertools.product).
            let mut d = axes.len();
            loop {
                let Some(prev) = d.checked_sub(1) else {
                    return;
                };
                d = prev;
                let (Some(i), Some((_, values))) = (at_index.get_mut(d), axes.get(d)) else {
                    return;
                };
                *i = i.saturating_add(1);
                if *i < values.len() {
                    break;
                }
                *i = 0;
            }
        }
    }

    /// One generated reference; false after a problem (the generator stops there).
    fn generate_one(
        &mut self,
        loc: &[LocStep],
        vars: &[(String, Val)],
        k: &str,
        url: &str,
        range: Option<(&str, &str)>,
    ) -> bool {
        let rendered =
            |name: &str, t: &str| template::render(t, vars).map_err(|e| (name.to_string(), e));
        let result = (|| {
            let k = rendered("key", k)?;
            let url = rendered("url", url)?;
            let range = match range {
                None => None,
                Some((o, l)) => {
                    let number = |name: &str, t: &str| -> Result<u64, (String, String)> {
                        let text = rendered(name, t)?;
                        text.trim()
                            .parse::<u64>()
                            .ok()
                            .filter(|&n| n <= crate::store::wire::MAX_SAFE)
                            .ok_or_else(|| {
                                (
                                    name.to_string(),
                                    format!("{name} {text:?} is not an integer from 0 to 2^53 - 1"),
                                )
                            })
                    };
                    Some((number("offset", o)?, number("length", l)?))
                }
            };
            Ok((k, url, range))
        })();
        let (k, url, range) = match result {
            Ok(parts) => parts,
            Err((name, message)) => {
                self.problem(&key(loc, &name), ProblemKind::InvalidValue, message);
                return false;
            }
        };
        let Some(id) = self.url(&key(loc, "url"), &url, &[]) else {
            return false;
        };
        let entry = match range {
            Some((o, l)) if o.saturating_add(l) <= crate::store::wire::MAX_SAFE => {
                Entry::Range(id, o, l)
            }
            Some(_) => {
                self.problem(
                    loc,
                    ProblemKind::InvalidValue,
                    "offset + length is over 2^53 - 1",
                );
                return false;
            }
            None => Entry::Whole(id),
        };
        self.insert(&key(loc, "key"), &k, entry);
        true
    }
}
