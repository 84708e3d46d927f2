//! The crate's module layers (ARCHITECTURE.md, "Layers"), enforced.
//!
//! Every `src/**/*.rs` is read and every path through `crate::` (in `use` lines, grouped
//! `use crate::{a, b::c}` included, and in code) is an edge from the file's top-level module to
//! the named one. Each top-level module must sit in a layer of [`LAYERS`] and refer only to
//! modules of lower layers, or to the same layer's modules where [`SAME_LAYER`] allows it (and
//! then without a cycle). Inside [`CHAINS`] (`hierarchy`, `wasm`) the submodules must not refer
//! to each other in a cycle: `crate::hierarchy::x` and `super::x` (or a name the parent
//! re-exports from `x`) are edges.
//!
//! What is not an edge: comments (doc links included: a link is documentation, not a
//! dependency), string literals, `$crate` in macros, and `super::` chains (they cannot leave a
//! top-level module from its own files except to the crate root). `src/lib.rs` is the root that
//! declares the modules and is not checked. Tests inside `src/` (`#[cfg(test)]`) are held to the
//! same rules: there is no exemption.
//!
//! `LAYERS_PRINT=1 cargo test --test layers -- --nocapture` prints the module graph.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The top-level modules, bottom to top. A module may use modules of lower layers.
const LAYERS: &[&[&str]] = &[
    &["error", "sort", "testing"],
    &["limits"],
    &["json"],
    &["problem", "document"],
    &["dtype"],
    &["chunk"],
    &["codec"],
    &["store"],
    &["model"],
    &["spec"],
    &["view"],
    &["validate"],
    &["hierarchy"],
    &["wasm"],
];

/// Same-layer references that are allowed (from, to). None: every layer's modules are
/// independent of each other.
const SAME_LAYER: &[(&str, &str)] = &[];

/// Top-level modules whose submodules must not refer to each other in a cycle.
const CHAINS: &[&str] = &["hierarchy", "wasm"];

struct Edge {
    from: String,
    to: String,
    file: PathBuf,
    line: usize,
}

/// The source with comments and the contents of string and char literals blanked out
/// (newlines kept, so that line numbers stay).
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, c: u8| out.push(if c == b'\n' { b'\n' } else { b' ' });
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && (i == 0 || !is_ident(b[i - 1]))
        {
            // A raw string r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.extend(std::iter::repeat_n(b' ', j + 1 - i));
            i = j + 1;
            while i < b.len() {
                if b[i] == b'"'
                    && b[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == b'#')
                        .count()
                        == hashes
                {
                    out.extend(std::iter::repeat_n(b' ', 1 + hashes));
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == b'"' {
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    blank(&mut out, b[i]);
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            out.push(b' ');
            i += 1;
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}'), or a lifetime (left as it is).
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&x| x == b'\'')
                    .map(|p| i + 2 + p)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 2)
            } else {
                // A multi-byte UTF-8 char literal.
                let len = std::str::from_utf8(&b[i + 1..(i + 5).min(b.len())])
                    .ok()
                    .or_else(|| std::str::from_utf8(&b[i + 1..(i + 4).min(b.len())]).ok())
                    .or_else(|| std::str::from_utf8(&b[i + 1..(i + 3).min(b.len())]).ok())
                    .and_then(|s| s.chars().next())
                    .map(char::len_utf8);
                match len {
                    Some(l) if l > 1 && b.get(i + 1 + l) == Some(&b'\'') => Some(i + 1 + l),
                    _ => None,
                }
            };
            match end {
                Some(e) => {
                    for &x in &b[i..=e] {
                        blank(&mut out, x);
                    }
                    i = e + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].bytes().filter(|&c| c == b'\n').count() + 1
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn ident_at(b: &[u8], i: usize) -> Option<(String, usize)> {
    let mut j = i;
    while j < b.len() && is_ident(b[j]) {
        j += 1;
    }
    (j > i).then(|| (String::from_utf8_lossy(&b[i..j]).into_owned(), j))
}

/// The paths following each `prefix::` in the code (a path as its segments), with their
/// offsets: `prefix::a::b` gives `[a, b]`, `prefix::{a::b, c}` gives `[a, b]` and `[c]`.
fn paths_after(code: &str, prefix: &str) -> Vec<(Vec<String>, usize)> {
    let b = code.as_bytes();
    let needle = format!("{prefix}::");
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find(&needle) {
        let at = from + p;
        from = at + needle.len();
        if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b'$' || b[at - 1] == b':') {
            continue;
        }
        collect(b, skip_ws(b, from), Vec::new(), &mut found);
    }
    found
}

/// Collects the path(s) starting at `i` (after a `::`), each prefixed with `head`.
fn collect(b: &[u8], i: usize, head: Vec<String>, found: &mut Vec<(Vec<String>, usize)>) {
    if b.get(i) == Some(&b'{') {
        let mut j = skip_ws(b, i + 1);
        loop {
            if j >= b.len() || b[j] == b'}' {
                return;
            }
            let end = collect_one(b, j, head.clone(), found);
            // Skip to the next item of this group.
            let mut k = end;
            let mut depth = 0;
            while k < b.len() {
                match b[k] {
                    b'{' => depth += 1,
                    b'}' if depth == 0 => return,
                    b'}' => depth -= 1,
                    b',' if depth == 0 => break,
                    _ => {}
                }
                k += 1;
            }
            j = skip_ws(b, k + 1);
        }
    } else {
        collect_one(b, i, head, found);
    }
}

/// One path at `i`; returns where it ends.
fn collect_one(
    b: &[u8],
    i: usize,
    mut head: Vec<String>,
    found: &mut Vec<(Vec<String>, usize)>,
) -> usize {
    let mut i = i;
    let start = i;
    loop {
        let Some((seg, j)) = ident_at(b, i) else {
            if head.is_empty() {
                return i;
            }
            found.push((head, start));
            return i;
        };
        head.push(seg);
        let k = skip_ws(b, j);
        if b.get(k) == Some(&b':') && b.get(k + 1) == Some(&b':') {
            let n = skip_ws(b, k + 2);
            if b.get(n) == Some(&b'{') {
                let before = found.len();
                collect(b, n, head.clone(), found);
                if found.len() == before {
                    found.push((head, start));
                }
                return n;
            }
            i = n;
        } else {
            found.push((head, start));
            return k;
        }
    }
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rs_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under src/: src/a.rs and src/a/mod.rs are [a], src/a/b.rs [a, b].
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// A cycle in the graph, if any, as its nodes in order.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m.as_str()) {
                Some(1) => {
                    let at = stack.iter().position(|s| s == m).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(m, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if !state.contains_key(n.as_str()) {
            if let Some(c) = visit(n, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn where_(edges: &[Edge], from: &str, to: &str) -> String {
    edges
        .iter()
        .filter(|e| e.from == from && e.to == to)
        .map(|e| format!("{}:{}", e.file.display(), e.line))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>()
        .join(", ")
}

/// The names a `mod.rs` re-exports from each of its submodules (`pub use x::{A, B}`,
/// `pub(crate) use x::C`, `use x::D`): name → submodule.
fn reexports(code: &str, children: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let b = code.as_bytes();
    let mut from = 0;
    while let Some(p) = code[from..].find("use ") {
        let at = from + p;
        from = at + 4;
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        let mut found = Vec::new();
        collect(b, skip_ws(b, at + 4), Vec::new(), &mut found);
        for (path, _) in found {
            if path.len() >= 2 && children.contains(&path[0]) {
                names.insert(path.last().unwrap().clone(), path[0].clone());
            }
        }
    }
    names
}

#[test]
fn modules_keep_their_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    files.sort();

    let top: BTreeSet<String> = files
        .iter()
        .filter_map(|f| module_of(&src, f).first().cloned())
        .collect();
    let mut problems = Vec::new();
    for m in &top {
        if layer_of(m).is_none() {
            problems.push(format!("module `{m}` is in no layer of LAYERS"));
        }
    }
    for m in LAYERS.iter().flat_map(|l| l.iter()) {
        if !top.contains(*m) {
            problems.push(format!("LAYERS names `{m}`, which src/ does not have"));
        }
    }

    // Edges between top-level modules, and inside the chained ones.
    let mut edges = Vec::new();
    let mut inner: BTreeMap<String, Vec<Edge>> = BTreeMap::new();
    let codes: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|f| (f.clone(), code_only(&fs::read_to_string(f).unwrap())))
        .collect();
    for (file, code) in &codes {
        let module = module_of(&src, file);
        let Some(from) = module.first() else { continue };
        let rel = file.strip_prefix(root).unwrap().to_path_buf();
        for (path, at) in paths_after(code, "crate") {
            let to = &path[0];
            if !top.contains(to) {
                continue;
            }
            let line = line_of(code, at);
            if to != from {
                edges.push(Edge {
                    from: from.clone(),
                    to: to.clone(),
                    file: rel.clone(),
                    line,
                });
            } else if CHAINS.contains(&from.as_str())
                && module.len() >= 2
                && path.len() >= 2
                && path[1] != module[1]
            {
                inner.entry(from.clone()).or_default().push(Edge {
                    from: module[1].clone(),
                    to: path[1].clone(),
                    file: rel.clone(),
                    line,
                });
            }
        }
    }

    // super:: inside the chained modules: sibling submodules and the parent's re-exports.
    for &chain in CHAINS {
        let dir = src.join(chain);
        let children: BTreeSet<String> = files
            .iter()
            .map(|f| module_of(&src, f))
            .filter(|m| m.len() >= 2 && m[0] == chain)
            .map(|m| m[1].clone())
            .collect();
        let parent = dir.join("mod.rs");
        let names = codes
            .get(&parent)
            .map(|c| reexports(c, &children))
            .unwrap_or_default();
        for (file, code) in &codes {
            let module = module_of(&src, file);
            if module.len() != 2 || module[0] != chain {
                continue;
            }
            let rel = file.strip_prefix(root).unwrap().to_path_buf();
            for (path, at) in paths_after(code, "super") {
                let first = &path[0];
                let to = if children.contains(first) {
                    first.clone()
                } else if let Some(child) = names.get(first) {
                    child.clone()
                } else {
                    continue;
                };
                if to != module[1] {
                    inner.entry(chain.to_string()).or_default().push(Edge {
                        from: module[1].clone(),
                        to,
                        file: rel.clone(),
                        line: line_of(code, at),
                    });
                }
            }
        }
    }

    // (1) Layers.
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in &edges {
        graph
            .entry(e.from.clone())
            .or_default()
            .insert(e.to.clone());
        let (Some(a), Some(b)) = (layer_of(&e.from), layer_of(&e.to)) else {
            continue;
        };
        let allowed = b < a || (a == b && SAME_LAYER.contains(&(e.from.as_str(), e.to.as_str())));
        if !allowed {
            problems.push(format!(
                "{}:{}: `{}` (layer {a}) refers to `crate::{}` (layer {b}): a module may refer \
                 only to lower layers",
                e.file.display(),
                e.line,
                e.from,
                e.to
            ));
        }
    }
    let same: BTreeMap<String, BTreeSet<String>> = graph
        .iter()
        .map(|(a, tos)| {
            let tos = tos
                .iter()
                .filter(|b| layer_of(a) == layer_of(b))
                .cloned()
                .collect();
            (a.clone(), tos)
        })
        .collect();
    if let Some(cycle) = find_cycle(&same) {
        let at: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("{} -> {} ({})", w[0], w[1], where_(&edges, &w[0], &w[1])))
            .collect();
        problems.push(format!("a cycle within a layer: {}", at.join("; ")));
    }

    // (2) No cycle among the chained modules' submodules.
    for (chain, es) in &inner {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for e in es {
            g.entry(e.from.clone()).or_default().insert(e.to.clone());
        }
        if let Some(cycle) = find_cycle(&g) {
            let at: Vec<String> = cycle
                .windows(2)
                .map(|w| format!("{} -> {} ({})", w[0], w[1], where_(es, &w[0], &w[1])))
                .collect();
            problems.push(format!(
                "a cycle among the submodules of `{chain}`: {}",
                at.join("; ")
            ));
        }
        if std::env::var_os("LAYERS_PRINT").is_some() {
            println!("{chain}:");
            for (a, tos) in &g {
                let tos: Vec<&str> = tos.iter().map(String::as_str).collect();
                println!("  {a} -> {}", tos.join(", "));
            }
        }
    }

    if std::env::var_os("LAYERS_PRINT").is_some() {
        for (a, tos) in &graph {
            let tos: Vec<&str> = tos.iter().map(String::as_str).collect();
            println!("{a} -> {}", tos.join(", "));
        }
    }
    assert!(
        problems.is_empty(),
        "the module layers (tests/layers.rs, ARCHITECTURE.md \"Layers\") are broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_parser_finds_paths() {
    let code = code_only(
        "use crate::a::{b, c::{d, e}};\n// crate::x\nlet s = \"crate::y\";\nfn f<'a>() { crate::z::w(); let c = '\"'; }\nuse crate::{p, q::r};",
    );
    let paths: Vec<String> = paths_after(&code, "crate")
        .into_iter()
        .map(|(p, at)| format!("{}@{}", p.join("::"), line_of(&code, at)))
        .collect();
    assert_eq!(
        paths,
        [
            "a::b@1",
            "a::c::d@1",
            "a::c::e@1",
            "z::w@4",
            "p@5",
            "q::r@5"
        ]
    );
}
