//! The `{{ … }}` templates of kerchunk references: fsspec renders them with Jinja2, zom with a
//! small evaluator of the expressions kerchunk's templates and generators use — names, integer
//! literals, `+ - * / // %`, unary `-` and `+`, parentheses — on 64-bit integers with Python's
//! rounding (`//` floors, `%` takes the divisor's sign). `/` gives an integer only when it
//! divides exactly (Python would give a float, which no offset, length or key can use). A name
//! alone may be text (a template, a listed dimension value); arithmetic is on integers. An
//! unknown name is an error, where Jinja2 would print nothing.

/// The value of a template variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Val {
    /// An integer (a range dimension, a listed number).
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

/// The operators, each with its precedence level (0: `+ -`, 1: `* // / %`; `//` before `/`).
const OPS: [(&str, u8); 6] = [("+", 0), ("-", 0), ("*", 1), ("//", 1), ("/", 1), ("%", 1)];

/// `text` with every `{{ expr }}` replaced by the value of `expr`; the error says what is
/// wrong in words.
pub(super) fn render(text: &str, vars: &Vars) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some((head, tail)) = rest.split_once("{{") {
        let (expr, after) = tail
            .split_once("}}")
            .ok_or_else(|| format!("'{{{{' without '}}}}' in {text:?}"))?;
        out.push_str(head);
        match vars.iter().find(|(name, _)| name == expr.trim()) {
            Some((_, Val::Text(t))) => out.push_str(t),
            // Display, not to_string: i64's to_string is a second formatter in the module.
            _ => out.push_str(&format!("{}", eval(expr, vars)?)),
        }
        if out.len() > MAX_RENDERED {
            return Err(format!("{text:?} renders longer than {MAX_RENDERED} bytes"));
        }
        rest = after;
    }
    out.push_str(rest);
    Ok(out)
}

/// The integer value of one expression.
pub(super) fn eval(expr: &str, vars: &Vars) -> Result<i64, String> {
    let mut p = Parser {
        s: expr,
        pos: 0,
        vars,
    };
    let v = p.binary(0, 0)?;
    if !p.rest().trim_start().is_empty() {
        return Err(format!("unexpected text in expression {expr:?}"));
    }
    Ok(v)
}

/// `a op b` as Python computes it on integers; `None` on overflow, division by zero or an
/// inexact `/`.
fn apply(op: &str, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        "+" => a.checked_add(b)?,
        "-" => a.checked_sub(b)?,
        "*" => a.checked_mul(b)?,
        _ => {
            let (q, r) = (a.checked_div(b)?, a.checked_rem(b)?);
            let floor = r != 0 && (r < 0) != (b < 0);
            match op {
                "//" => q.checked_sub(i64::from(floor))?,
                "%" if floor => r.checked_add(b)?,
                "%" => r,
                _ if r == 0 => q,
                _ => return None,
            }
        }
    })
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    vars: &'a Vars,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or_default()
    }

    /// Skips white space, then consumes `prefix` when it comes next.
    fn eat(&mut self, prefix: &str) -> bool {
        let rest = self.rest();
        self.pos = self
            .pos
            .saturating_add(rest.len() - rest.trim_start().len());
        let found = self.rest().starts_with(prefix);
        if found {
            self.pos = self.pos.saturating_add(prefix.len());
        }
        found
    }

    /// Operands joined by the operators of `level` and above.
    fn binary(&mut self, level: u8, depth: usize) -> Result<i64, String> {
        let operand = |p: &mut Self| {
            if level == 0 {
                p.binary(1, depth)
            } else {
                p.unary(depth)
            }
        };
        let mut value = operand(self)?;
        while let Some(&(op, _)) = OPS.iter().find(|&&(op, l)| l == level && self.eat(op)) {
            let right = operand(self)?;
            value = apply(op, value, right).ok_or_else(|| {
                format!("{value} {op} {right} overflows, divides by zero or is not a whole number")
            })?;
        }
        Ok(value)
    }

    fn unary(&mut self, depth: usize) -> Result<i64, String> {
        if depth > MAX_DEPTH {
            return Err(format!("expression nested deeper than {MAX_DEPTH}"));
        }
        if self.eat("-") {
            let v = self.unary(depth.saturating_add(1))?;
            return v.checked_neg().ok_or_else(|| format!("-({v}) overflows"));
        }
        if self.eat("+") {
            return self.unary(depth.saturating_add(1));
        }
        if self.eat("(") {
            let v = self.binary(0, depth.saturating_add(1))?;
            return if self.eat(")") {
                Ok(v)
            } else {
                Err("missing ')' in expression".into())
            };
        }
        let rest = self.rest();
        let len = rest
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(rest.len());
        let word = rest.get(..len).unwrap_or_default();
        self.pos = self.pos.saturating_add(len);
        if word.starts_with(|c: char| c.is_ascii_digit()) {
            return word
                .parse()
                .map_err(|_| format!("{word:?} is not an integer (or too large)"));
        }
        match self.vars.iter().find(|(name, _)| name == word) {
            Some((_, Val::Int(n))) => Ok(*n),
            Some(_) => Err(format!("arithmetic on text {word:?}")),
            None if word.is_empty() => Err("an expression is missing a value".into()),
            None => Err(format!("unknown name {word:?} in expression")),
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
        assert_eq!(ev("150 + i * 32"), Ok(374));
        assert_eq!(ev("-i // 2"), Ok(-4));
        assert_eq!(ev("-7 % 3"), Ok(2));
        assert_eq!(ev("7 % -3"), Ok(-2));
        assert_eq!(ev("(i + 1) / 4"), Ok(2));
        assert_eq!(ev("10 - 2 - 3"), Ok(5));
        assert_eq!(ev("100 // 7 // 2"), Ok(7));
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
