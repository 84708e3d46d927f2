//! The `{{ … }}` templates of kerchunk references: fsspec renders them with Jinja2, zom with a
//! small evaluator of the expressions kerchunk's templates and generators use — names, integer
//! literals, `+ - * / // %`, unary `-` and `+`, parentheses — on 64-bit integers with Python's
//! rounding (`//` floors, `%` takes the divisor's sign). `/` gives an integer only when it
//! divides exactly (Python would give a float, which no offset, length or key can use). An
//! unknown name is an error, where Jinja2 would print nothing.

/// The value of a template variable or expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Val {
    /// An integer (a range dimension, a literal, arithmetic).
    Int(i64),
    /// Text (a template, a listed dimension value).
    Text(String),
}

/// Template variables, looked up by name.
pub(super) type Vars = [(String, Val)];

/// The longest text one rendering may give, in bytes.
pub(super) const MAX_RENDERED: usize = 8192;
/// The deepest nesting of parentheses and unary signs in one expression.
const MAX_DEPTH: usize = 32;

/// `text` with every `{{ expr }}` replaced by the value of `expr`; the error says what is
/// wrong in words.
pub(super) fn render(text: &str, vars: &Vars) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        out.push_str(rest.get(..open).unwrap_or_default());
        let after = rest.get(open.saturating_add(2)..).unwrap_or_default();
        let close = after
            .find("}}")
            .ok_or_else(|| format!("'{{{{' without '}}}}' in template {text:?}"))?;
        match eval(after.get(..close).unwrap_or_default(), vars)? {
            Val::Int(n) => out.push_str(&n.to_string()),
            Val::Text(s) => out.push_str(&s),
        }
        if out.len() > MAX_RENDERED {
            return Err(format!(
                "template {text:?} renders longer than {MAX_RENDERED} bytes"
            ));
        }
        rest = after.get(close.saturating_add(2)..).unwrap_or_default();
    }
    out.push_str(rest);
    if out.len() > MAX_RENDERED {
        return Err(format!(
            "template {text:?} renders longer than {MAX_RENDERED} bytes"
        ));
    }
    Ok(out)
}

/// The value of one expression.
pub(super) fn eval(expr: &str, vars: &Vars) -> Result<Val, String> {
    let mut p = Parser {
        s: expr.as_bytes(),
        pos: 0,
        vars,
        depth: 0,
    };
    let v = p.sum()?;
    p.space();
    match p.peek() {
        None => Ok(v),
        Some(_) => Err(format!("unexpected text in expression {expr:?}")),
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    vars: &'a Vars,
    depth: usize,
}

fn int(v: Val) -> Result<i64, String> {
    match v {
        Val::Int(n) => Ok(n),
        Val::Text(s) => Err(format!("arithmetic on text {s:?}")),
    }
}

fn overflow() -> String {
    "integer overflow in expression".to_string()
}

/// Python's `a // b` and `a % b`.
fn floor_div_mod(a: i64, b: i64) -> Result<(i64, i64), String> {
    if b == 0 {
        return Err("division by zero in expression".to_string());
    }
    let (mut q, mut r) = (
        a.checked_div(b).ok_or_else(overflow)?,
        a.checked_rem(b).ok_or_else(overflow)?,
    );
    if r != 0 && (r < 0) != (b < 0) {
        q = q.checked_sub(1).ok_or_else(overflow)?;
        r = r.checked_add(b).ok_or_else(overflow)?;
    }
    Ok((q, r))
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos = self.pos.saturating_add(1);
        }
    }

    /// Consumes `op` (after white space) when it comes next.
    fn eat(&mut self, op: &[u8]) -> bool {
        self.space();
        let next = self.s.get(self.pos..self.pos.saturating_add(op.len()));
        let found = next == Some(op);
        if found {
            self.pos = self.pos.saturating_add(op.len());
        }
        found
    }

    fn sum(&mut self) -> Result<Val, String> {
        let mut v = self.product()?;
        loop {
            if self.eat(b"+") {
                let r = int(self.product()?)?;
                v = Val::Int(int(v)?.checked_add(r).ok_or_else(overflow)?);
            } else if self.eat(b"-") {
                let r = int(self.product()?)?;
                v = Val::Int(int(v)?.checked_sub(r).ok_or_else(overflow)?);
            } else {
                return Ok(v);
            }
        }
    }

    fn product(&mut self) -> Result<Val, String> {
        let mut v = self.unary()?;
        loop {
            let op = if self.eat(b"*") {
                b'*'
            } else if self.eat(b"//") {
                b'f'
            } else if self.eat(b"/") {
                b'/'
            } else if self.eat(b"%") {
                b'%'
            } else {
                return Ok(v);
            };
            let (a, b) = (int(v)?, int(self.unary()?)?);
            v = Val::Int(match op {
                b'*' => a.checked_mul(b).ok_or_else(overflow)?,
                b'f' => floor_div_mod(a, b)?.0,
                b'%' => floor_div_mod(a, b)?.1,
                _ => match floor_div_mod(a, b)? {
                    (q, 0) => q,
                    _ => return Err(format!("{a} / {b} is not an integer")),
                },
            });
        }
    }

    fn unary(&mut self) -> Result<Val, String> {
        self.depth = self.depth.saturating_add(1);
        if self.depth > MAX_DEPTH {
            return Err(format!("expression nested deeper than {MAX_DEPTH}"));
        }
        let v = if self.eat(b"-") {
            Val::Int(int(self.unary()?)?.checked_neg().ok_or_else(overflow)?)
        } else if self.eat(b"+") {
            Val::Int(int(self.unary()?)?)
        } else if self.eat(b"(") {
            let v = self.sum()?;
            if !self.eat(b")") {
                return Err("missing ')' in expression".to_string());
            }
            v
        } else {
            self.atom()?
        };
        self.depth = self.depth.saturating_sub(1);
        Ok(v)
    }

    fn atom(&mut self) -> Result<Val, String> {
        self.space();
        let start = self.pos;
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        while self.peek().is_some_and(word) {
            self.pos = self.pos.saturating_add(1);
        }
        let token = self.s.get(start..self.pos).unwrap_or_default();
        let text = std::str::from_utf8(token).unwrap_or_default();
        match token.first() {
            None => Err("an expression is missing a value".to_string()),
            Some(b) if b.is_ascii_digit() => text
                .parse::<i64>()
                .map(Val::Int)
                .map_err(|_| format!("{text:?} is not an integer (or too large)")),
            Some(_) => self
                .vars
                .iter()
                .find(|(name, _)| name == text)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| format!("unknown name {text:?} in expression")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_as_python() {
        let vars = vec![
            ("i".to_string(), Val::Int(7)),
            ("f".to_string(), Val::Text("x.nc".to_string())),
        ];
        let ev = |e: &str| eval(e, &vars);
        assert_eq!(ev("150 + i * 32"), Ok(Val::Int(374)));
        assert_eq!(ev("-i // 2"), Ok(Val::Int(-4)));
        assert_eq!(ev("-7 % 3"), Ok(Val::Int(2)));
        assert_eq!(ev("7 % -3"), Ok(Val::Int(-2)));
        assert_eq!(ev("(i + 1) / 4"), Ok(Val::Int(2)));
        assert_eq!(ev(" f "), Ok(Val::Text("x.nc".to_string())));
        for bad in [
            "i / 2",
            "f + 1",
            "1 / 0",
            "j",
            "",
            "(1",
            "1 2",
            "99999999999999999999",
            "9223372036854775807 + 1",
        ] {
            assert!(ev(bad).is_err(), "{bad}");
        }
        assert!(ev(&"(".repeat(100)).is_err());
        assert!(ev(&"-".repeat(10_000)).is_err());
        assert_eq!(render("{{f}}/{{ i }}.0", &vars).as_deref(), Ok("x.nc/7.0"));
        assert!(render("{{i", &vars).is_err());
        assert_eq!(render("no template", &vars).as_deref(), Ok("no template"));
    }
}
