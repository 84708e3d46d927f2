//! JSON text into `serde_json::Value`: the values, the errors and their positions of
//! serde_json's `from_slice` (with `preserve_order` and `float_roundtrip`), in a parser of a
//! few kilobytes. Numbers that are not small exact decimals are converted by the platform:
//! core's `f64::from_str` natively and the host's `parseFloat` in WebAssembly (both round
//! correctly), so that the module carries no float parser of its own.

use serde_json::{Map, Number, Value};
use std::fmt;

/// How deep arrays and objects may nest: serde_json's recursion limit.
const RECURSION_LIMIT: u32 = 128;

/// Why JSON text could not be parsed, and where: serde_json's messages and positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    message: &'static str,
    line: usize,
    column: usize,
}

impl ParseError {
    /// The line of the error, from 1.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The column of the error: the bytes from the start of its line to it, the byte included.
    pub fn column(&self) -> usize {
        self.column
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.message, self.line, self.column
        )
    }
}

impl std::error::Error for ParseError {}

const EOF_VALUE: &str = "EOF while parsing a value";
const EOF_LIST: &str = "EOF while parsing a list";
const EOF_OBJECT: &str = "EOF while parsing an object";
const EOF_STRING: &str = "EOF while parsing a string";
const EXPECTED_VALUE: &str = "expected value";
const EXPECTED_IDENT: &str = "expected ident";
const EXPECTED_COLON: &str = "expected `:`";
const LIST_COMMA_OR_END: &str = "expected `,` or `]`";
const OBJECT_COMMA_OR_END: &str = "expected `,` or `}`";
const KEY_NOT_STRING: &str = "key must be a string";
const TRAILING_COMMA: &str = "trailing comma";
const TRAILING_CHARACTERS: &str = "trailing characters";
const INVALID_NUMBER: &str = "invalid number";
const OUT_OF_RANGE: &str = "number out of range";
const INVALID_ESCAPE: &str = "invalid escape";
const INVALID_CODE_POINT: &str = "invalid unicode code point";
const CONTROL_CHARACTER: &str = "control character (\\u0000-\\u001F) found while parsing a string";
const LONE_SURROGATE: &str = "lone leading surrogate in hex escape";
const END_OF_HEX_ESCAPE: &str = "unexpected end of hex escape";
const RECURSION: &str = "recursion limit exceeded";

/// Parses JSON text into a value, as serde_json's `from_slice` does.
pub fn parse(bytes: &[u8]) -> Result<Value, ParseError> {
    let mut parser = Parser {
        text: bytes,
        at: 0,
        remaining_depth: RECURSION_LIMIT,
        column_back: 0,
    };
    parser.document().map_err(|at| parser.located(at))
}

/// An error: its message and the input offset its position is computed from (the byte after
/// the one at fault, or the end of the input).
type Failure = (&'static str, usize);

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
    remaining_depth: u32,
    /// How far before its position an error's column is (serde_json's column of invalid UTF-8
    /// in a string: the closing quote's, less the bytes from the first invalid one).
    column_back: usize,
}

impl<'a> Parser<'a> {
    /// serde_json's `SliceRead::position_of_index`.
    fn located(&self, (message, offset): Failure) -> ParseError {
        let before = &self.text[..offset.min(self.text.len())];
        let start_of_line = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = 1 + before[..start_of_line]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        ParseError {
            message,
            line,
            column: (before.len() - start_of_line).saturating_sub(self.column_back),
        }
    }

    /// An error at the byte last peeked (or consumed).
    fn at_peek(&self, message: &'static str) -> Failure {
        (message, (self.at + 1).min(self.text.len()))
    }

    /// An error at the current offset.
    fn here(&self, message: &'static str) -> Failure {
        (message, self.at)
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    /// Skips whitespace and peeks at the next byte.
    fn whitespace(&mut self) -> Option<u8> {
        while let Some(b) = self.peek() {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    fn document(&mut self) -> Result<Value, Failure> {
        let value = self.value()?;
        match self.whitespace() {
            Some(_) => Err(self.at_peek(TRAILING_CHARACTERS)),
            None => Ok(value),
        }
    }

    fn value(&mut self) -> Result<Value, Failure> {
        let Some(b) = self.whitespace() else {
            return Err(self.at_peek(EOF_VALUE));
        };
        match b {
            b'n' => self.ident(b"null", Value::Null),
            b't' => self.ident(b"true", Value::Bool(true)),
            b'f' => self.ident(b"false", Value::Bool(false)),
            b'-' | b'0'..=b'9' => self.number().map(Value::Number),
            b'"' => {
                self.at += 1;
                self.string().map(Value::String)
            }
            b'[' => {
                self.descend()?;
                let list = self.list();
                self.remaining_depth += 1;
                list.map(Value::Array)
            }
            b'{' => {
                self.descend()?;
                let object = self.object();
                self.remaining_depth += 1;
                object.map(Value::Object)
            }
            _ => Err(self.at_peek(EXPECTED_VALUE)),
        }
    }

    fn descend(&mut self) -> Result<(), Failure> {
        self.remaining_depth -= 1;
        if self.remaining_depth == 0 {
            return Err(self.at_peek(RECURSION));
        }
        self.at += 1;
        Ok(())
    }

    fn ident(&mut self, word: &[u8], value: Value) -> Result<Value, Failure> {
        self.at += 1;
        for &expected in &word[1..] {
            match self.next() {
                None => return Err(self.here(EOF_VALUE)),
                Some(b) if b != expected => return Err(self.here(EXPECTED_IDENT)),
                Some(_) => {}
            }
        }
        Ok(value)
    }

    /// After `[`, the elements and the closing `]`.
    fn list(&mut self) -> Result<Vec<Value>, Failure> {
        let mut items = Vec::new();
        loop {
            match self.whitespace() {
                None => return Err(self.at_peek(EOF_LIST)),
                Some(b']') => {
                    self.at += 1;
                    return Ok(items);
                }
                Some(b',') if !items.is_empty() => {
                    self.at += 1;
                    match self.whitespace() {
                        Some(b']') => return Err(self.at_peek(TRAILING_COMMA)),
                        Some(_) => {}
                        None => return Err(self.at_peek(EOF_VALUE)),
                    }
                }
                Some(_) if !items.is_empty() => return Err(self.at_peek(LIST_COMMA_OR_END)),
                Some(_) => {}
            }
            items.push(self.value()?);
        }
    }

    /// After `{`, the members and the closing `}`.
    fn object(&mut self) -> Result<Map<String, Value>, Failure> {
        let mut members = Map::new();
        let mut first = true;
        loop {
            match self.whitespace() {
                None => return Err(self.at_peek(EOF_OBJECT)),
                Some(b'}') => {
                    self.at += 1;
                    return Ok(members);
                }
                Some(b'"') if first => {}
                Some(_) if first => return Err(self.at_peek(KEY_NOT_STRING)),
                Some(b',') => {
                    self.at += 1;
                    match self.whitespace() {
                        Some(b'"') => {}
                        Some(b'}') => return Err(self.at_peek(TRAILING_COMMA)),
                        Some(_) => return Err(self.at_peek(KEY_NOT_STRING)),
                        None => return Err(self.at_peek(EOF_VALUE)),
                    }
                }
                Some(_) => return Err(self.at_peek(OBJECT_COMMA_OR_END)),
            }
            first = false;
            self.at += 1;
            let key = self.string()?;
            match self.whitespace() {
                Some(b':') => self.at += 1,
                Some(_) => return Err(self.at_peek(EXPECTED_COLON)),
                None => return Err(self.at_peek(EOF_OBJECT)),
            }
            let value = self.value()?;
            members.insert(key, value);
        }
    }

    /// After the opening quote, the string's characters and the closing quote.
    fn string(&mut self) -> Result<String, Failure> {
        let mut scratch = Vec::new();
        let mut start = self.at;
        loop {
            let rest = &self.text[self.at..];
            let run = rest
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(rest.len());
            self.at += run;
            match self.peek() {
                None => return Err(self.here(EOF_STRING)),
                Some(b'"') => {
                    let raw = &self.text[start..self.at];
                    self.at += 1;
                    let bytes = if scratch.is_empty() {
                        raw.to_vec()
                    } else {
                        scratch.extend_from_slice(raw);
                        scratch
                    };
                    return String::from_utf8(bytes).map_err(|e| {
                        let bytes = e.as_bytes();
                        self.column_back = bytes.len() - e.utf8_error().valid_up_to();
                        self.here(INVALID_CODE_POINT)
                    });
                }
                Some(b'\\') => {
                    scratch.extend_from_slice(&self.text[start..self.at]);
                    self.at += 1;
                    self.escape(&mut scratch)?;
                    start = self.at;
                }
                Some(_) => {
                    self.at += 1;
                    return Err(self.here(CONTROL_CHARACTER));
                }
            }
        }
    }

    /// After a backslash, one escape appended to `out` as UTF-8.
    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), Failure> {
        let Some(b) = self.next() else {
            return Err(self.here(EOF_STRING));
        };
        let byte = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => return self.unicode_escape(out),
            _ => return Err(self.here(INVALID_ESCAPE)),
        };
        out.push(byte);
        Ok(())
    }

    /// After `\u`, one character: a code unit or a surrogate pair.
    fn unicode_escape(&mut self, out: &mut Vec<u8>) -> Result<(), Failure> {
        let first = self.hex4()?;
        let code = match first {
            0xDC00..=0xDFFF => return Err(self.here(LONE_SURROGATE)),
            0xD800..=0xDBFF => {
                for expected in [b'\\', b'u'] {
                    match self.peek() {
                        None => return Err(self.here(EOF_STRING)),
                        Some(b) if b != expected => {
                            self.at += 1;
                            return Err(self.here(END_OF_HEX_ESCAPE));
                        }
                        Some(_) => self.at += 1,
                    }
                }
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.here(LONE_SURROGATE));
                }
                (((u32::from(first) - 0xD800) << 10) | (u32::from(second) - 0xDC00)) + 0x1_0000
            }
            unit => u32::from(unit),
        };
        let c = char::from_u32(code).ok_or_else(|| self.here(INVALID_ESCAPE))?;
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        Ok(())
    }

    fn hex4(&mut self) -> Result<u16, Failure> {
        let Some(digits) = self.text.get(self.at..self.at + 4) else {
            self.at = self.text.len();
            return Err(self.here(EOF_STRING));
        };
        self.at += 4;
        let mut n = 0u16;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.here(INVALID_ESCAPE)),
            };
            n = n << 4 | u16::from(v);
        }
        Ok(n)
    }

    /// A number: an integer that fits `u64` (or, negative, `i64`) as one, anything else as
    /// the nearest `f64`.
    fn number(&mut self) -> Result<Number, Failure> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        match self.next() {
            None => return Err(self.here(EOF_VALUE)),
            Some(b'0') => {
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.at_peek(INVALID_NUMBER));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            Some(_) => return Err(self.here(INVALID_NUMBER)),
        }
        let integer_end = self.at;
        let mut integral = true;
        if self.peek() == Some(b'.') {
            integral = false;
            self.at += 1;
            if self.digits() == 0 {
                return Err(match self.peek() {
                    Some(_) => self.at_peek(INVALID_NUMBER),
                    None => self.at_peek(EOF_VALUE),
                });
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            integral = false;
            let zero = !self.text[start..self.at]
                .iter()
                .any(|b| matches!(b, b'1'..=b'9'));
            self.at += 1;
            let positive = match self.peek() {
                Some(b'+') => {
                    self.at += 1;
                    true
                }
                Some(b'-') => {
                    self.at += 1;
                    false
                }
                _ => true,
            };
            let mut exponent = match self.next() {
                None => return Err(self.here(EOF_VALUE)),
                Some(d @ b'0'..=b'9') => i32::from(d - b'0'),
                Some(_) => return Err(self.here(INVALID_NUMBER)),
            };
            // serde_json refuses a positive exponent past i32 at its digit when the
            // significand is not zero (a larger one cannot be finite).
            while let Some(d @ b'0'..=b'9') = self.peek() {
                self.at += 1;
                match exponent
                    .checked_mul(10)
                    .and_then(|e| e.checked_add(i32::from(d - b'0')))
                {
                    Some(e) => exponent = e,
                    None if positive && !zero => return Err(self.here(OUT_OF_RANGE)),
                    None => exponent = i32::MAX,
                }
            }
        }
        let token = &self.text[start..self.at];
        if integral {
            let digits = &self.text[start + usize::from(negative)..integer_end];
            if let Some(n) = integer(digits, negative) {
                return Ok(n);
            }
        }
        match to_f64(token) {
            Some(f) if f.is_finite() => Number::from_f64(f).ok_or_else(|| self.here(OUT_OF_RANGE)),
            _ => Err(self.here(OUT_OF_RANGE)),
        }
    }

    /// Skips ASCII digits and returns how many.
    fn digits(&mut self) -> usize {
        let run = self.text[self.at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        self.at += run;
        run
    }
}

/// The integer of ASCII `digits` as serde_json keeps it: `u64`, `i64` when negative, none
/// when it does not fit (or is `-0`, which serde_json keeps as the float).
fn integer(digits: &[u8], negative: bool) -> Option<Number> {
    let mut n: u64 = 0;
    for &d in digits {
        n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    if !negative {
        return Some(Number::from(n));
    }
    let negated = (n as i64).wrapping_neg();
    (negated < 0).then(|| Number::from(negated))
}

/// The nearest `f64` to a JSON number's text: exactly when its digits and exponent are small
/// (one correctly rounded operation on exact operands), else by the platform.
fn to_f64(token: &[u8]) -> Option<f64> {
    exact_small(token).or_else(|| platform_f64(std::str::from_utf8(token).ok()?))
}

/// The value of a number whose significand (its digits without the point) is below 2^53 and
/// whose decimal exponent is within ±22: both are exact `f64`s, so one multiplication or
/// division rounds correctly.
fn exact_small(token: &[u8]) -> Option<f64> {
    const POWERS: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let (negative, body) = match token.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, token),
    };
    let (mantissa, exponent) = match body.iter().position(|&b| b == b'e' || b == b'E') {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mut significand: u64 = 0;
    let mut scale: i64 = 0;
    let mut after_point = false;
    for &b in mantissa {
        if b == b'.' {
            after_point = true;
            continue;
        }
        significand = significand
            .checked_mul(10)?
            .checked_add(u64::from(b - b'0'))?;
        if after_point {
            scale -= 1;
        }
    }
    if let Some(text) = exponent {
        let (sign, digits) = match text.split_first() {
            Some((b'-', rest)) => (-1, rest),
            Some((b'+', rest)) => (1, rest),
            _ => (1, text),
        };
        if digits.len() > 4 {
            return None;
        }
        let e = digits
            .iter()
            .fold(0i64, |e, &d| e * 10 + i64::from(d - b'0'));
        scale += sign * e;
    }
    if significand > 1 << 53 {
        return None;
    }
    let magnitude = significand as f64;
    let value = if significand == 0 {
        0.0
    } else if (0..=22).contains(&scale) {
        magnitude * POWERS[scale as usize]
    } else if (-22..0).contains(&scale) {
        magnitude / POWERS[(-scale) as usize]
    } else {
        return None;
    };
    Some(if negative { -value } else { value })
}

#[cfg(not(target_arch = "wasm32"))]
fn platform_f64(text: &str) -> Option<f64> {
    text.parse().ok()
}

#[cfg(target_arch = "wasm32")]
fn platform_f64(text: &str) -> Option<f64> {
    Some(js_sys::parse_float(text))
}

#[cfg(test)]
mod tests;
