//! CF time coordinates: `units` ("days since 2026-01-01") and `calendar`, decoded to dates.
//!
//! What cftime 1.6 (xarray's decoder for non-standard calendars) computes, for the calendars
//! CF defines: the mixed Julian/Gregorian `standard`, `proleptic_gregorian`, `noleap`,
//! `all_leap`, `360_day` and `julian`. Years are numbered as cftime numbers them by default
//! (CF 1.9): `standard` and `julian` have no year zero (year -1 precedes year 1), the others
//! have one. Dates are kept to the nanosecond; anything beyond what the arithmetic can hold
//! (about ±3·10¹³ years) decodes to `None` instead of overflowing.

use serde::Serialize;
use text::{first_word, parse_date, shown};

mod text;

/// Nanoseconds in a day.
const NS_PER_DAY: i128 = 86_400_000_000_000;
/// The largest offset from an epoch, in nanoseconds, that is decoded (about 3·10¹³ years).
const MAX_NS: f64 = 1e30;
/// The largest absolute year an epoch may be written with.
const MAX_YEAR: i64 = 1_000_000_000;
/// Unix day of the first Gregorian day of the `standard` calendar, 1582-10-15.
const GREGORIAN_START: i64 = -141_427;

/// A CF calendar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Calendar {
    /// `standard` (= `gregorian`): Julian before 1582-10-15, Gregorian from then on.
    Standard,
    /// `proleptic_gregorian`: Gregorian rules for every year, year zero included.
    ProlepticGregorian,
    /// `noleap` (= `365_day`): no year has 29 February.
    NoLeap,
    /// `all_leap` (= `366_day`): every year has 29 February.
    AllLeap,
    /// `360_day`: twelve months of 30 days.
    Day360,
    /// `julian`: a leap year every four years.
    Julian,
}

impl Calendar {
    /// The calendar a CF `calendar` attribute names (case-insensitive); `None` for `"none"` and
    /// names CF does not define.
    pub fn parse(name: &str) -> Option<Calendar> {
        match name.trim().to_ascii_lowercase().as_str() {
            "standard" | "gregorian" => Some(Calendar::Standard),
            "proleptic_gregorian" => Some(Calendar::ProlepticGregorian),
            "noleap" | "365_day" => Some(Calendar::NoLeap),
            "all_leap" | "366_day" => Some(Calendar::AllLeap),
            "360_day" => Some(Calendar::Day360),
            "julian" => Some(Calendar::Julian),
            _ => None,
        }
    }

    /// True when the calendar numbers a year zero (cftime's default `has_year_zero`).
    pub fn has_year_zero(self) -> bool {
        !matches!(self, Calendar::Standard | Calendar::Julian)
    }
}

/// The unit of a CF time offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeUnit {
    /// Days of 86 400 seconds.
    Days,
    /// Hours.
    Hours,
    /// Minutes.
    Minutes,
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Milliseconds,
    /// Microseconds.
    Microseconds,
    /// Nanoseconds.
    Nanoseconds,
}

impl TimeUnit {
    /// The unit a CF units word names, as cftime spells them (singular, plural, abbreviated;
    /// case-insensitive), plus `us` and nanoseconds as xarray reads them.
    pub fn parse(word: &str) -> Option<TimeUnit> {
        Some(match word.to_ascii_lowercase().as_str() {
            "days" | "day" | "d" => TimeUnit::Days,
            "hours" | "hour" | "hrs" | "hr" | "h" => TimeUnit::Hours,
            "minutes" | "minute" | "mins" | "min" => TimeUnit::Minutes,
            "seconds" | "second" | "secs" | "sec" | "s" => TimeUnit::Seconds,
            "milliseconds" | "millisecond" | "millisecs" | "millisec" | "msecs" | "msec" | "ms" => {
                TimeUnit::Milliseconds
            }
            "microseconds" | "microsecond" | "microsecs" | "microsec" | "us" => {
                TimeUnit::Microseconds
            }
            "nanoseconds" | "nanosecond" | "nanosecs" | "nanosec" | "ns" => TimeUnit::Nanoseconds,
            _ => return None,
        })
    }

    /// The unit's plural name: `days`, `hours`, … `nanoseconds`.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Days => "days",
            TimeUnit::Hours => "hours",
            TimeUnit::Minutes => "minutes",
            TimeUnit::Seconds => "seconds",
            TimeUnit::Milliseconds => "milliseconds",
            TimeUnit::Microseconds => "microseconds",
            TimeUnit::Nanoseconds => "nanoseconds",
        }
    }

    /// The unit's length in nanoseconds.
    pub fn nanoseconds(self) -> i128 {
        match self {
            TimeUnit::Days => NS_PER_DAY,
            TimeUnit::Hours => 3_600_000_000_000,
            TimeUnit::Minutes => 60_000_000_000,
            TimeUnit::Seconds => 1_000_000_000,
            TimeUnit::Milliseconds => 1_000_000,
            TimeUnit::Microseconds => 1_000,
            TimeUnit::Nanoseconds => 1,
        }
    }
}

/// A date and time of day in some calendar, its year numbered as the calendar numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct CfDate {
    /// The year (negative before year 1; no year zero in `standard` and `julian`).
    pub year: i64,
    /// The month, 1 to 12.
    pub month: u32,
    /// The day of the month, from 1.
    pub day: u32,
    /// The hour, 0 to 23.
    pub hour: u32,
    /// The minute, 0 to 59.
    pub minute: u32,
    /// The second, 0 to 59.
    pub second: u32,
    /// The nanosecond within the second.
    pub nanosecond: u32,
}

impl CfDate {
    /// ISO 8601 text: `2026-01-01T00:00:00`, followed by a fraction only when the time has one,
    /// in the fewest of 3, 6 or 9 digits that hold it exactly (numpy's `datetime_as_string`
    /// with `unit="auto"`: `.500`, `.000250`, `.000000001`). Years have at least four digits
    /// and a `-` before zero (`-0044-03-15`).
    pub fn iso(&self) -> String {
        let year = if self.year < 0 {
            format!("-{:04}", self.year.unsigned_abs())
        } else {
            format!("{:04}", self.year)
        };
        let mut out = format!(
            "{year}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.month, self.day, self.hour, self.minute, self.second
        );
        let ns = self.nanosecond;
        if ns != 0 {
            if ns.is_multiple_of(1_000_000) {
                out.push_str(&format!(".{:03}", ns / 1_000_000));
            } else if ns.is_multiple_of(1_000) {
                out.push_str(&format!(".{:06}", ns / 1_000));
            } else {
                out.push_str(&format!(".{ns:09}"));
            }
        }
        out
    }
}

/// CF time units: the unit of the offsets and the date they count from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TimeUnits {
    /// The unit of the offsets.
    pub unit: TimeUnit,
    /// The epoch as written (its time zone not applied; checked against no calendar).
    pub epoch: CfDate,
    /// The epoch's time zone, in minutes east of UTC (`+05:30` is 330), 0 when none is written.
    pub utc_offset_minutes: i32,
}

impl TimeUnits {
    /// The epoch in UTC, in `calendar`: an error when the written date does not exist there
    /// (30 February outside `360_day`, 1582-10-10 in `standard`, year zero without one).
    pub fn epoch_in(&self, calendar: Calendar) -> Result<CfDate, String> {
        let ns = epoch_ns(self, calendar)?;
        date_at(ns, calendar).ok_or_else(|| "the epoch is out of range".to_string())
    }
}

/// Parses CF time units, `"<unit> since <date>[ <time>][ <zone>]"`: `days since 2026-01-01`,
/// `hours since 2026-01-01 00:00:00`, `seconds since 1970-01-01T00:00:00Z`, `days since
/// 1-1-1`, `minutes since 2000-01-01 00:00 +05:30`, `… UTC`. The date is checked for ranges
/// (month 1–12, day 1–31, hour 0–23 …), not against a calendar (see [`TimeUnits::epoch_in`]).
/// Trailing text other than a time zone is an error (cftime ignores it).
pub fn parse_units(units: &str) -> Result<TimeUnits, String> {
    let (unit_word, rest) = first_word(units);
    let (since, rest) = first_word(rest);
    let rest = rest.trim();
    if !since.eq_ignore_ascii_case("since") {
        return Err(format!(
            "time units must be \"<unit> since <date>\", not {}",
            shown(units)
        ));
    }
    let unit = TimeUnit::parse(unit_word).ok_or_else(|| {
        format!(
            "unknown time unit {} (days, hours, minutes, seconds, milliseconds, microseconds, nanoseconds)",
            shown(unit_word)
        )
    })?;
    let (epoch, utc_offset_minutes) = parse_date(rest).map_err(|why| {
        format!(
            "cannot read the date {} of the time units: {why}",
            shown(rest)
        )
    })?;
    Ok(TimeUnits {
        unit,
        epoch,
        utc_offset_minutes,
    })
}

/// Decodes numeric offsets to dates in `calendar`: `None` for NaN, ±infinity, offsets beyond
/// the range kept, and every value when the epoch does not exist in the calendar. An integral
/// value is multiplied out exactly; a fractional one is rounded to the nearest nanosecond.
pub fn decode(values: &[f64], units: &TimeUnits, calendar: Calendar) -> Vec<Option<CfDate>> {
    let Ok(epoch) = epoch_ns(units, calendar) else {
        return vec![None; values.len()];
    };
    let unit = units.unit.nanoseconds();
    values
        .iter()
        .map(|&v| {
            let offset = offset_ns(v, unit)?;
            date_at(epoch.checked_add(offset)?, calendar)
        })
        .collect()
}

/// `value` units of `unit` nanoseconds, in nanoseconds (None when not finite or too large).
fn offset_ns(value: f64, unit: i128) -> Option<i128> {
    if !value.is_finite() || (value.abs() * unit as f64) > MAX_NS {
        return None;
    }
    let whole = value.trunc();
    let fraction = value - whole;
    // |whole| ≤ 1e30 < 2^127: the conversion is exact (an integral f64).
    let ns = (whole as i128).checked_mul(unit)?;
    let rest = (fraction * unit as f64).round() as i128;
    ns.checked_add(rest)
}

/// The epoch of `units` in UTC as nanoseconds from 1970-01-01 (calendar day numbers).
fn epoch_ns(units: &TimeUnits, calendar: Calendar) -> Result<i128, String> {
    let e = units.epoch;
    let day = day_number(e.year, e.month, e.day, calendar)?;
    let ns = i128::from(day) * NS_PER_DAY
        + i128::from(e.hour) * 3_600_000_000_000
        + i128::from(e.minute) * 60_000_000_000
        + i128::from(e.second) * 1_000_000_000
        + i128::from(e.nanosecond)
        - i128::from(units.utc_offset_minutes) * 60_000_000_000;
    Ok(ns)
}

/// The date `ns` nanoseconds after the calendar's day 0 (None beyond the range kept).
fn date_at(ns: i128, calendar: Calendar) -> Option<CfDate> {
    let day = i64::try_from(ns.div_euclid(NS_PER_DAY)).ok()?;
    let in_day = ns.rem_euclid(NS_PER_DAY);
    if day.unsigned_abs() > 20_000_000_000_000_000 {
        return None;
    }
    let (astro, month, dom) = civil(day, calendar);
    let year = if calendar.has_year_zero() || astro > 0 {
        astro
    } else {
        astro.checked_sub(1)?
    };
    let secs = in_day / 1_000_000_000;
    Some(CfDate {
        year,
        month,
        day: dom,
        hour: u32::try_from(secs / 3600).ok()?,
        minute: u32::try_from(secs / 60 % 60).ok()?,
        second: u32::try_from(secs % 60).ok()?,
        nanosecond: u32::try_from(in_day % 1_000_000_000).ok()?,
    })
}

/// Cumulative days before each month in a common and a leap year.
const CUMULATIVE: [[i64; 12]; 2] = [
    [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334],
    [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335],
];

fn gregorian_leap(y: i64) -> bool {
    y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0)
}

/// Days in `month` of astronomical year `y` under `calendar`.
fn month_length(y: i64, month: u32, calendar: Calendar) -> u32 {
    let leap = match calendar {
        Calendar::Day360 => return 30,
        Calendar::NoLeap => false,
        Calendar::AllLeap => true,
        Calendar::Julian => y.rem_euclid(4) == 0,
        Calendar::ProlepticGregorian => gregorian_leap(y),
        Calendar::Standard if y < 1582 => y.rem_euclid(4) == 0,
        Calendar::Standard => gregorian_leap(y),
    };
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The calendar's day number of a date (its year as the calendar numbers it): days from
/// 1970-01-01 for the Gregorian and Julian calendars (the same day numbers, so that `standard`
/// joins them), from year 0 for the idealised ones. An error when the date does not exist.
fn day_number(year: i64, month: u32, day: u32, calendar: Calendar) -> Result<i64, String> {
    if year.unsigned_abs() > MAX_YEAR.unsigned_abs() {
        return Err(format!("year {year} is out of range"));
    }
    let y = if calendar.has_year_zero() {
        year
    } else if year == 0 {
        return Err("year zero does not exist in this calendar".to_string());
    } else if year < 0 {
        year + 1
    } else {
        year
    };
    if !(1..=12).contains(&month) || day < 1 || day > month_length(y, month, calendar) {
        return Err(format!(
            "{year}-{month:02}-{day:02} does not exist in this calendar"
        ));
    }
    let (m, d) = (i64::from(month), i64::from(day));
    Ok(match calendar {
        Calendar::ProlepticGregorian => gregorian_days(y, m, d),
        Calendar::Julian => julian_days(y, m, d),
        Calendar::Standard => {
            if (y, m, d) >= (1582, 10, 15) {
                gregorian_days(y, m, d)
            } else if (y, m, d) <= (1582, 10, 4) {
                julian_days(y, m, d)
            } else {
                return Err(format!(
                    "{year}-{month:02}-{day:02} is in the gap between the Julian and Gregorian calendars"
                ));
            }
        }
        Calendar::NoLeap => y * 365 + CUMULATIVE[0][(m - 1) as usize] + d - 1,
        Calendar::AllLeap => y * 366 + CUMULATIVE[1][(m - 1) as usize] + d - 1,
        Calendar::Day360 => y * 360 + (m - 1) * 30 + d - 1,
    })
}

/// The astronomical year, month and day of a day number (the inverse of [`day_number`]).
fn civil(z: i64, calendar: Calendar) -> (i64, u32, u32) {
    match calendar {
        Calendar::ProlepticGregorian => gregorian_civil(z),
        Calendar::Julian => julian_civil(z),
        Calendar::Standard if z >= GREGORIAN_START => gregorian_civil(z),
        Calendar::Standard => julian_civil(z),
        Calendar::NoLeap => fixed_year(z, 365, &CUMULATIVE[0]),
        Calendar::AllLeap => fixed_year(z, 366, &CUMULATIVE[1]),
        Calendar::Day360 => {
            let y = z.div_euclid(360);
            let doy = z.rem_euclid(360);
            (y, (doy / 30 + 1) as u32, (doy % 30 + 1) as u32)
        }
    }
}

fn fixed_year(z: i64, length: i64, cumulative: &[i64; 12]) -> (i64, u32, u32) {
    let y = z.div_euclid(length);
    let doy = z.rem_euclid(length);
    let month = cumulative.iter().rposition(|&c| c <= doy).unwrap_or(0);
    (y, (month + 1) as u32, (doy - cumulative[month] + 1) as u32)
}

/// Day of a March-based year (March 1 is 0) for month `m` and day `d`.
fn march_day(m: i64, d: i64) -> i64 {
    (153 * ((m + 9) % 12) + 2) / 5 + d - 1
}

/// Month and day from a March-based day of year.
fn from_march_day(doy: i64) -> (u32, u32) {
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (m as u32, d as u32)
}

/// Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn gregorian_days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + march_day(m, d);
    era * 146_097 + doe - 719_468
}

fn gregorian_civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let (m, d) = from_march_day(doy);
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Julian-calendar days in the Gregorian day numbering: Julian 1582-10-04 is the day before
/// Gregorian 1582-10-15. `JULIAN_SHIFT` is that alignment (two days at 1970: Julian
/// 1969-12-19 is Gregorian 1970-01-01, day 0).
const JULIAN_SHIFT: i64 = 719_470;

fn julian_days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(4);
    let yoe = y - era * 4;
    era * 1461 + yoe * 365 + march_day(m, d) - JULIAN_SHIFT
}

fn julian_civil(z: i64) -> (i64, u32, u32) {
    let z = z + JULIAN_SHIFT;
    let era = z.div_euclid(1461);
    let doe = z - era * 1461;
    let yoe = (doe - doe / 1460) / 365;
    let doy = doe - 365 * yoe;
    let (m, d) = from_march_day(doy);
    (yoe + era * 4 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i64, m: u32, d: u32) -> CfDate {
        CfDate {
            year: y,
            month: m,
            day: d,
            hour: 0,
            minute: 0,
            second: 0,
            nanosecond: 0,
        }
    }

    #[test]
    fn day_numbers_round_trip_in_every_calendar() {
        use Calendar::*;
        for cal in [
            Standard,
            ProlepticGregorian,
            NoLeap,
            AllLeap,
            Day360,
            Julian,
        ] {
            let mut previous = None;
            for z in -800_000..800_000i64 {
                let (y, m, d) = civil(z, cal);
                let year = if cal.has_year_zero() || y > 0 {
                    y
                } else {
                    y - 1
                };
                assert_eq!(day_number(year, m, d, cal), Ok(z), "{cal:?} {z}");
                if let Some(p) = previous {
                    assert!((y, m, d) > p, "{cal:?} {z}");
                }
                previous = Some((y, m, d));
            }
        }
    }

    #[test]
    fn julian_and_gregorian_join_at_the_reform() {
        assert_eq!(gregorian_days(1970, 1, 1), 0);
        assert_eq!(gregorian_days(1582, 10, 15), GREGORIAN_START);
        assert_eq!(julian_days(1582, 10, 4), GREGORIAN_START - 1);
        assert_eq!(julian_days(1969, 12, 19), 0);
    }

    #[test]
    fn iso_trims_fractions_to_3_6_or_9_digits() {
        let mut d = date(2026, 1, 1);
        assert_eq!(d.iso(), "2026-01-01T00:00:00");
        d.nanosecond = 500_000_000;
        assert_eq!(d.iso(), "2026-01-01T00:00:00.500");
        d.nanosecond = 250_000;
        assert_eq!(d.iso(), "2026-01-01T00:00:00.000250");
        d.nanosecond = 1;
        assert_eq!(d.iso(), "2026-01-01T00:00:00.000000001");
        assert_eq!(date(-44, 3, 15).iso(), "-0044-03-15T00:00:00");
        assert_eq!(date(12345, 3, 15).iso(), "12345-03-15T00:00:00");
    }
}
