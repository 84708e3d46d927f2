//! The text of CF time units: their words and the epoch's date, `[+-]Y[-M[-D]][(T| )h:m[:s[.f]]]`
//! with an optional zone, read as cftime reads them.

use super::{CfDate, MAX_YEAR};

/// The first whitespace-separated word of `text` and what follows it.
pub(super) fn first_word(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    text.split_once(char::is_whitespace).unwrap_or((text, ""))
}

/// A short rendering of text for messages.
pub(super) fn shown(text: &str) -> String {
    let cut: String = text.chars().take(60).collect();
    if cut.len() < text.len() {
        format!("\"{cut}…\"")
    } else {
        format!("\"{cut}\"")
    }
}

/// A cursor over the date text of time units.
struct Cursor<'a> {
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    fn eat(&mut self, c: char) -> bool {
        match self.rest.strip_prefix(c) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    /// Up to `max` ASCII digits (at least one), as text.
    fn digits(&mut self, max: usize) -> Option<&'a str> {
        let n = self
            .rest
            .bytes()
            .take(max)
            .take_while(u8::is_ascii_digit)
            .count();
        if n == 0 {
            return None;
        }
        let (digits, rest) = self.rest.split_at(n);
        self.rest = rest;
        Some(digits)
    }

    fn number(&mut self, max: usize, what: &str) -> Result<u32, String> {
        self.digits(max)
            .and_then(|d| d.parse().ok())
            .ok_or_else(|| format!("no {what}"))
    }

    fn skip_space(&mut self) -> bool {
        let trimmed = self.rest.trim_start();
        let skipped = trimmed.len() < self.rest.len();
        self.rest = trimmed;
        skipped
    }
}

/// The date of time units, `[+-]Y[-M[-D]][(T| )h:m[:s[.f]]][ ][zone]`, and its zone's offset
/// in minutes.
pub(super) fn parse_date(text: &str) -> Result<(CfDate, i32), String> {
    let mut c = Cursor { rest: text };
    let negative = if c.eat('-') {
        true
    } else {
        c.eat('+');
        false
    };
    let year: i64 = c.digits(12).and_then(|d| d.parse().ok()).ok_or("no year")?;
    if year > MAX_YEAR {
        return Err(format!("year {year} is out of range"));
    }
    let year = if negative { -year } else { year };
    let mut date = CfDate {
        year,
        month: 1,
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
        nanosecond: 0,
    };
    if c.eat('-') {
        date.month = c.number(2, "month")?;
        if c.eat('-') {
            date.day = c.number(2, "day")?;
        }
    }
    let before_time = c.rest;
    let spaced = c.skip_space();
    if spaced || c.eat('T') || c.eat('t') {
        match c.digits(2) {
            Some(h) if c.rest.starts_with(':') => {
                date.hour = h.parse().map_err(|_| "no hour".to_string())?;
                c.eat(':');
                date.minute = c.number(2, "minute")?;
                if c.eat(':') {
                    date.second = c.number(2, "second")?;
                    if c.eat('.') {
                        let fraction = c.digits(usize::MAX).unwrap_or("");
                        let kept: String = fraction.chars().take(9).collect();
                        let padded = format!("{kept:0<9}");
                        date.nanosecond = padded.parse().unwrap_or(0);
                    }
                }
            }
            // Not a time: a zone after a space ("2000-01-01 UTC", "2000-01-01 -05:00").
            _ => c.rest = before_time,
        }
    }
    if date.month == 0 || date.month > 12 {
        return Err(format!("month {} is not 1 to 12", date.month));
    }
    if date.day == 0 || date.day > 31 {
        return Err(format!("day {} is not 1 to 31", date.day));
    }
    if date.hour > 23 || date.minute > 59 || date.second > 59 {
        return Err(format!(
            "{:02}:{:02}:{:02} is not a time of day",
            date.hour, date.minute, date.second
        ));
    }
    c.skip_space();
    let offset = parse_zone(&mut c)?;
    c.skip_space();
    if !c.rest.is_empty() {
        return Err(format!("unexpected {}", shown(c.rest)));
    }
    Ok((date, offset))
}

/// A time zone, `Z`, `UTC`, `GMT` or `±hh[:mm]`, as minutes east of UTC (0 when none).
fn parse_zone(c: &mut Cursor) -> Result<i32, String> {
    for name in ["UTC", "GMT", "Z"] {
        if c.rest.len() >= name.len()
            && c.rest.is_char_boundary(name.len())
            && c.rest[..name.len()].eq_ignore_ascii_case(name)
        {
            c.rest = &c.rest[name.len()..];
            return Ok(0);
        }
    }
    let sign = if c.eat('+') {
        1
    } else if c.eat('-') {
        -1
    } else {
        return Ok(0);
    };
    // UDUNITS: hours in one or two digits, then `:mm`, or hours and minutes in three or four
    // digits without a colon (`-6:00`, `-6`, `-600`, `-0600`).
    let digits = c.digits(4).ok_or("no zone hour")?;
    let (hours, minutes): (u32, u32) = match digits.len() {
        1 | 2 => {
            let hours = digits.parse().map_err(|_| "no zone hour")?;
            let minutes = if c.eat(':') {
                c.digits(2)
                    .filter(|m| m.len() == 2)
                    .and_then(|m| m.parse().ok())
                    .ok_or("no zone minute")?
            } else {
                0
            };
            (hours, minutes)
        }
        n => {
            let (h, m) = digits.split_at(n - 2);
            let hours = h.parse().map_err(|_| "no zone hour")?;
            (hours, m.parse().map_err(|_| "no zone minute")?)
        }
    };
    if hours > 23 || minutes > 59 {
        return Err(format!("zone {hours:02}:{minutes:02} is out of range"));
    }
    // Both at most two digits: no overflow.
    Ok(sign * (hours * 60 + minutes) as i32)
}
