//! A reader of the YAML icechunk writes a spec version 1 repository's `config.yaml` in
//! (serde_yaml_ng's block style), for one top-level entry: the other entries are skipped
//! unread. The subset: block mappings (plain, quoted and `? ` explicit keys), block sequences
//! (also `- - ` on one line, and at their key's indentation), tags (`!s3`), `{}` and `[]`,
//! plain, single- and double-quoted scalars on one line, and comments. Anything else (flow
//! collections with entries, block scalars, anchors, a scalar over several lines) is a clear
//! error. Bounded: nesting deeper than `max_depth` and more than `max_nodes` values are
//! refused as they are reached, lines are read in place, and every string built is a part of
//! the text.

use super::corrupt;
use crate::error::{Result, ZomError};
use crate::limits::{exceeded, Limit};
use std::cell::Cell;

/// A node: its tag (`s3` for `!s3`), if any, and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    /// The tag without its `!`.
    pub tag: Option<String>,
    /// The value.
    pub value: Yaml,
}

/// A value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Yaml {
    /// `null`, `~` or nothing.
    Null,
    /// Any other scalar, as text (no numbers or booleans: the reader needs none).
    Scalar(String),
    /// A mapping, in the order written.
    Map(Vec<(String, Node)>),
    /// A sequence.
    Seq(Vec<Node>),
}

impl Node {
    /// The value of key `name` of a mapping (the first, if written twice).
    pub(crate) fn get(&self, name: &str) -> Option<&Node> {
        match &self.value {
            Yaml::Map(entries) => entries.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// One line that is not blank or a comment.
#[derive(Clone, Copy, Debug)]
struct Line<'a> {
    /// 1-based, for messages.
    number: usize,
    indent: usize,
    /// After the indentation, trailing spaces cut.
    text: &'a str,
    /// Where it starts in the text, and where the line after it starts.
    start: usize,
    end: usize,
}

/// The file's key, which errors name.
const CONFIG: &str = "config.yaml";

fn error(line: usize, what: impl std::fmt::Display) -> ZomError {
    corrupt(format!("config.yaml, line {line}: {what}")).at_key(CONFIG)
}

/// The first line at or after byte `from` of `text` (line `number`) that is not blank or a
/// comment.
fn line_at(text: &str, mut from: usize, mut number: usize) -> Option<Line<'_>> {
    while from < text.len() {
        let end = text[from..].find('\n').map_or(text.len(), |i| from + i + 1);
        let raw = text[from..end].trim_end_matches(['\n', '\r']);
        let body = raw.trim_start_matches(' ');
        let indent = raw.len() - body.len();
        let body = body.trim_end_matches([' ', '\t']);
        if !body.is_empty() && !body.starts_with('#') {
            return Some(Line {
                number,
                indent,
                text: body,
                start: from,
                end,
            });
        }
        from = end;
        number += 1;
    }
    None
}

/// The value of top-level key `key` of `text`, `None` when there is no such key.
pub(crate) fn top_level(
    text: &str,
    key: &str,
    max_depth: usize,
    max_nodes: u64,
) -> Result<Option<Node>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The section: from the key's line to the next top-level entry (a line at column 0
    // that is not a sequence item, which may sit under the key above it, nor a `: ` value,
    // nor a document marker).
    let (mut at, mut number) = (0, 1);
    let mut section: Option<Line<'_>> = None;
    let mut end = text.len();
    while let Some(line) = line_at(text, at, number) {
        if line.text.starts_with('\t') {
            return Err(error(line.number, "indentation with a tab"));
        }
        let marker = line.text == "---" || line.text == "...";
        if line.indent == 0 && !marker && !is_item(line.text) && !line.text.starts_with(':') {
            let Some((found, _)) = split_key(line.text) else {
                return Err(error(line.number, "a line that is not 'key: value'"));
            };
            let is_key = found == key;
            match (section, is_key) {
                (Some(_), true) => return Err(error(line.number, format!("'{key}' again"))),
                (Some(_), false) if end == text.len() => end = line.start,
                (None, true) => section = Some(line),
                _ => {}
            }
        }
        (at, number) = (line.end, line.number + 1);
    }
    let Some(first) = section else {
        return Ok(None);
    };
    let mut parser = Parser {
        text: &text[..end],
        next: first.end,
        number: first.number + 1,
        max_depth,
        max_nodes,
        nodes: 0,
        peeked: Cell::new(None),
    };
    let (_, offset) = split_key(first.text).unwrap_or_default();
    let rest = &first.text[offset..];
    let node = parser.value(rest, offset, 0, true, 1, first.number)?;
    if let Some(extra) = parser.peek() {
        return Err(error(extra.number, "a line that does not belong there"));
    }
    Ok(Some(node))
}

/// Where a comment (` #`) starts in `text`, or its length.
fn comment_start(text: &str) -> usize {
    let bytes = text.as_bytes();
    (1..bytes.len())
        .find(|&i| bytes[i] == b'#' && bytes[i - 1] == b' ')
        .map_or(text.len(), |i| i - 1)
}

/// Whether `text` starts a sequence item (`-` then a space or nothing).
fn is_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// Whether `text` starts an explicit key (`?` then a space or nothing).
fn is_explicit_key(text: &str) -> bool {
    text == "?" || text.starts_with("? ")
}

/// The text after an indicator of one character and its spaces, and their length.
fn after_indicator(text: &str) -> (&str, usize) {
    let rest = text[1..].trim_start_matches(' ');
    (rest, text.len() - rest.len())
}

/// A mapping entry's key and where its value starts, when `text` is `key: …` or `key:`.
fn split_key(text: &str) -> Option<(String, usize)> {
    let (key, end) = match text.as_bytes().first()? {
        b'"' | b'\'' => quoted(text).ok()?,
        _ => {
            let mut cut = None;
            for (at, c) in text.char_indices() {
                if c == '#' && text[..at].ends_with(' ') {
                    return None;
                }
                let next = text[at + c.len_utf8()..].chars().next();
                if c == ':' && next.is_none_or(|n| n == ' ' || n == '\t') {
                    cut = Some(at);
                    break;
                }
            }
            let at = cut?;
            (text[..at].trim_end().to_string(), at)
        }
    };
    let after = text[end..].trim_start_matches(' ').strip_prefix(':')?;
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let value = after.trim_start_matches([' ', '\t']);
    Some((key, text.len() - value.len()))
}

/// A quoted scalar at the start of `text`, and the byte after its closing quote.
fn quoted(text: &str) -> std::result::Result<(String, usize), String> {
    let single = text.starts_with('\'');
    let mut out = String::new();
    let mut chars = text.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        if single {
            if c != '\'' {
                out.push(c);
            } else if text[at + 1..].starts_with('\'') {
                chars.next();
                out.push('\'');
            } else {
                return Ok((out, at + 1));
            }
            continue;
        }
        match c {
            '"' => return Ok((out, at + 1)),
            '\\' => {
                let (_, e) = chars.next().ok_or("a '\\' at the end of the line")?;
                let simple = match e {
                    '0' => '\0',
                    'a' => '\x07',
                    'b' => '\x08',
                    't' | '\t' => '\t',
                    'n' => '\n',
                    'v' => '\x0b',
                    'f' => '\x0c',
                    'r' => '\r',
                    'e' => '\x1b',
                    ' ' | '"' | '/' | '\\' => e,
                    'N' => '\u{85}',
                    '_' => '\u{a0}',
                    'L' => '\u{2028}',
                    'P' => '\u{2029}',
                    'x' | 'u' | 'U' => {
                        let digits = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let mut code = 0u32;
                        for _ in 0..digits {
                            let d = chars
                                .next()
                                .and_then(|(_, d)| d.to_digit(16))
                                .ok_or("a short '\\x', '\\u' or '\\U' escape")?;
                            code = code * 16 + d;
                        }
                        char::from_u32(code).ok_or("an escape that is no character")?
                    }
                    other => return Err(format!("the escape '\\{other}'")),
                };
                out.push(simple);
            }
            c => out.push(c),
        }
    }
    Err("a quoted scalar that does not end on its line".to_string())
}

struct Parser<'a> {
    /// The text up to the section's end.
    text: &'a str,
    /// Where the next unread line starts, and its number.
    next: usize,
    number: usize,
    max_depth: usize,
    max_nodes: u64,
    /// How many values were read.
    nodes: u64,
    /// The last answer of [`Parser::peek`] and where it looked from (blank lines and
    /// comments are skipped once, however many levels look at the next line).
    peeked: Cell<Option<(usize, Option<Line<'a>>)>>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<Line<'a>> {
        if let Some((from, line)) = self.peeked.get() {
            if from == self.next {
                return line;
            }
        }
        let line = line_at(self.text, self.next, self.number);
        self.peeked.set(Some((self.next, line)));
        line
    }

    /// Reads `line` (the one [`Parser::peek`] answered).
    fn take(&mut self, line: Line<'a>) -> Result<Line<'a>> {
        if line.text.starts_with('\t') {
            return Err(error(line.number, "indentation with a tab"));
        }
        self.next = line.end;
        self.number = line.number + 1;
        Ok(line)
    }

    /// The value that starts with `rest` (at column `col` of line `number`, possibly empty,
    /// then continuing on the lines below), under a parent at indentation `parent`;
    /// `entry_value` when it is a mapping entry's value: a collection then starts on a line
    /// of its own (a sequence may sit at the key's indentation).
    fn value(
        &mut self,
        rest: &'a str,
        col: usize,
        parent: usize,
        entry_value: bool,
        depth: usize,
        number: usize,
    ) -> Result<Node> {
        if depth > self.max_depth {
            let message = format!("nested deeper than {} levels", self.max_depth);
            return Err(error(number, message));
        }
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            let what = "the number of values in a config.yaml entry";
            return Err(exceeded(Limit::Nodes, self.max_nodes, self.nodes, what).at_key(CONFIG));
        }
        let (mut rest, mut col) = (rest, col);
        let mut tag = None;
        if rest.starts_with('!') {
            let end = rest.find([' ', '\t']).unwrap_or(rest.len());
            tag = Some(rest[1..end].to_string());
            let after = rest[end..].trim_start_matches([' ', '\t']);
            col += rest.len() - after.len();
            rest = after;
        }
        if rest.starts_with('#') {
            rest = "";
        }
        let value = if rest.is_empty() {
            match self.peek() {
                Some(l) if l.indent > parent => {
                    let l = self.take(l)?;
                    self.inline(l.text, l.indent, true, depth, l.number)?
                }
                Some(l) if entry_value && l.indent == parent && is_item(l.text) => {
                    let l = self.take(l)?;
                    self.sequence(l.text, l.indent, depth, l.number)?
                }
                _ => Yaml::Null,
            }
        } else {
            self.inline(rest, col, !entry_value, depth, number)?
        };
        Ok(Node { tag, value })
    }

    /// A value whose text on its first line is `text`, at column `col`; `collection` when a
    /// block collection may start there (at that indentation).
    fn inline(
        &mut self,
        text: &'a str,
        col: usize,
        collection: bool,
        depth: usize,
        number: usize,
    ) -> Result<Yaml> {
        let flow = text.starts_with(['{', '[']);
        let starts_collection =
            !flow && (is_item(text) || is_explicit_key(text) || split_key(text).is_some());
        if starts_collection {
            if !collection {
                return Err(error(number, "a collection on the line of its key"));
            }
            if is_item(text) {
                return self.sequence(text, col, depth, number);
            }
            return self.mapping(text, col, depth, number);
        }
        let (value, end) = match text.as_bytes()[0] {
            b'\'' | b'"' => {
                let (s, end) = quoted(text).map_err(|e| error(number, e))?;
                (Yaml::Scalar(s), end)
            }
            b'{' | b'[' => match text.get(..2) {
                Some("{}") => (Yaml::Map(Vec::new()), 2),
                Some("[]") => (Yaml::Seq(Vec::new()), 2),
                _ => return Err(error(number, "a flow collection with entries")),
            },
            b'|' | b'>' => return Err(error(number, "a block scalar ('|' or '>')")),
            b'&' | b'*' => return Err(error(number, "an anchor or an alias")),
            b'!' => return Err(error(number, "a second tag")),
            _ => {
                let end = comment_start(text);
                let value = match text[..end].trim_end() {
                    "null" | "Null" | "NULL" | "~" => Yaml::Null,
                    s => Yaml::Scalar(s.to_string()),
                };
                (value, end)
            }
        };
        let tail = text[end..].trim_start_matches([' ', '\t']);
        if !(tail.is_empty() || tail.starts_with('#')) {
            return Err(error(number, "more after a value"));
        }
        Ok(value)
    }

    /// A block mapping at indentation `indent`, whose first entry is `text` (on line
    /// `number`, already read).
    fn mapping(
        &mut self,
        text: &'a str,
        indent: usize,
        depth: usize,
        number: usize,
    ) -> Result<Yaml> {
        let mut entries = Vec::new();
        let (mut text, mut number) = (text, number);
        loop {
            let depth = depth + 1;
            if is_explicit_key(text) {
                let (rest, skip) = after_indicator(text);
                let key = match self.value(rest, indent + skip, indent, false, depth, number)? {
                    Node {
                        tag: None,
                        value: Yaml::Scalar(s),
                    } => s,
                    _ => return Err(error(number, "a key that is not a plain scalar")),
                };
                let value = match self.peek() {
                    Some(l)
                        if l.indent == indent && (l.text == ":" || l.text.starts_with(": ")) =>
                    {
                        let l = self.take(l)?;
                        let (rest, skip) = after_indicator(l.text);
                        self.value(rest, indent + skip, indent, false, depth, l.number)?
                    }
                    _ => Node {
                        tag: None,
                        value: Yaml::Null,
                    },
                };
                entries.push((key, value));
            } else {
                let (key, at) = split_key(text)
                    .ok_or_else(|| error(number, "a line that is not 'key: value'"))?;
                let value = self.value(&text[at..], indent + at, indent, true, depth, number)?;
                entries.push((key, value));
            }
            match self.peek() {
                Some(l) if l.indent == indent && !is_item(l.text) => {
                    let l = self.take(l)?;
                    (text, number) = (l.text, l.number);
                }
                Some(l) if l.indent > indent => {
                    return Err(error(l.number, "indented more than the mapping it is in"))
                }
                _ => return Ok(Yaml::Map(entries)),
            }
        }
    }

    /// A block sequence at indentation `indent`, whose first item is `text` (`- …`, on line
    /// `number`, already read).
    fn sequence(
        &mut self,
        text: &'a str,
        indent: usize,
        depth: usize,
        number: usize,
    ) -> Result<Yaml> {
        let mut items = Vec::new();
        let (mut text, mut number) = (text, number);
        loop {
            let (rest, skip) = after_indicator(text);
            items.push(self.value(rest, indent + skip, indent, false, depth + 1, number)?);
            match self.peek() {
                Some(l) if l.indent == indent && is_item(l.text) => {
                    let l = self.take(l)?;
                    (text, number) = (l.text, l.number);
                }
                Some(l) if l.indent > indent => {
                    return Err(error(l.number, "indented more than the sequence it is in"))
                }
                _ => return Ok(Yaml::Seq(items)),
            }
        }
    }
}
