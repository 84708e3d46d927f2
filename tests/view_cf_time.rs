//! CF time decoding (src/view/cf_time.rs): dates decoded as cftime 1.6.4 decodes them in each
//! calendar, exact for integral offsets, never a panic on hostile values, and the units and
//! calendars cftime reads.

use zom::view::cf_time::{self, Calendar, CfDate, TimeUnit};

/// Year, month, day, hour, minute, second, microsecond.
type Ymdhmsu = (i64, u32, u32, u32, u32, u32, u32);

/// Dates cftime 1.6.4 decodes: `cftime.num2date(value, units, calendar)` printed as (year,
/// month, day, hour, minute, second, microsecond), by a script run in a venv with
/// `pip install cftime==1.6.4` (Python 3.11). Years as cftime numbers them: no year zero in
/// standard/gregorian and julian, a year zero in the others.
#[rustfmt::skip]
const CFTIME: &[(&str, &str, f64, Ymdhmsu)] = &[
    ("days since 1582-10-04", "standard", 0.0, (1582, 10, 4, 0, 0, 0, 0)),
    ("days since 1582-10-04", "standard", 1.0, (1582, 10, 15, 0, 0, 0, 0)),
    ("days since 1582-10-04", "standard", 2.0, (1582, 10, 16, 0, 0, 0, 0)),
    ("days since 1582-10-04", "standard", -1.0, (1582, 10, 3, 0, 0, 0, 0)),
    ("days since 1582-10-04", "standard", -365.0, (1581, 10, 4, 0, 0, 0, 0)),
    ("days since 1582-10-04", "standard", -366.0, (1581, 10, 3, 0, 0, 0, 0)),
    ("days since 1582-10-04", "standard", 36524.0, (1682, 10, 13, 0, 0, 0, 0)),
    ("days since 1970-01-01", "standard", 0.0, (1970, 1, 1, 0, 0, 0, 0)),
    ("days since 1970-01-01", "standard", 18262.0, (2020, 1, 1, 0, 0, 0, 0)),
    ("days since 1970-01-01", "standard", -141427.0, (1582, 10, 15, 0, 0, 0, 0)),
    ("days since 1970-01-01", "standard", -141428.0, (1582, 10, 4, 0, 0, 0, 0)),
    ("days since 1970-01-01", "standard", -719162.0, (1, 1, 3, 0, 0, 0, 0)),
    ("days since 1970-01-01", "standard", -719163.0, (1, 1, 2, 0, 0, 0, 0)),
    ("days since 1970-01-01", "standard", 1000000.0, (4707, 11, 29, 0, 0, 0, 0)),
    ("hours since 1900-01-01 00:00:00", "gregorian", 1.5, (1900, 1, 1, 1, 30, 0, 0)),
    ("hours since 1900-01-01 00:00:00", "gregorian", 876576.0, (2000, 1, 1, 0, 0, 0, 0)),
    ("hours since 1900-01-01 00:00:00", "gregorian", -17532000.0, (-102, 12, 20, 0, 0, 0, 0)),
    ("hours since 1900-01-01 00:00:00", "gregorian", 0.001, (1900, 1, 1, 0, 0, 3, 600000)),
    ("seconds since 1970-01-01T00:00:00Z", "standard", 1700000000.0, (2023, 11, 14, 22, 13, 20, 0)),
    ("seconds since 1970-01-01T00:00:00Z", "standard", 0.25, (1970, 1, 1, 0, 0, 0, 250000)),
    ("seconds since 1970-01-01T00:00:00Z", "standard", -1.0, (1969, 12, 31, 23, 59, 59, 0)),
    ("days since 0001-01-01", "standard", -1.0, (-1, 12, 31, 0, 0, 0, 0)),
    ("days since 0001-01-01", "standard", -366.0, (-1, 1, 1, 0, 0, 0, 0)),
    ("days since 0001-01-01", "standard", -367.0, (-2, 12, 31, 0, 0, 0, 0)),
    ("days since 0001-01-01", "standard", 577736.0, (1582, 10, 4, 0, 0, 0, 0)),
    ("days since 0001-01-01", "standard", 577737.0, (1582, 10, 15, 0, 0, 0, 0)),
    ("days since 0001-01-01", "standard", 577738.0, (1582, 10, 16, 0, 0, 0, 0)),
    ("days since 2020-01-01 00:00:00", "proleptic_gregorian", 0.0, (2020, 1, 1, 0, 0, 0, 0)),
    ("days since 2020-01-01 00:00:00", "proleptic_gregorian", 1.0, (2020, 1, 2, 0, 0, 0, 0)),
    ("days since 2020-01-01 00:00:00", "proleptic_gregorian", 2.0, (2020, 1, 3, 0, 0, 0, 0)),
    ("days since 2020-01-01 00:00:00", "proleptic_gregorian", 59.0, (2020, 2, 29, 0, 0, 0, 0)),
    ("days since 2020-01-01 00:00:00", "proleptic_gregorian", 60.0, (2020, 3, 1, 0, 0, 0, 0)),
    ("days since 2020-01-01 00:00:00", "proleptic_gregorian", 366.0, (2021, 1, 1, 0, 0, 0, 0)),
    ("days since 2020-01-01 00:00:00", "proleptic_gregorian", -737425.0, (0, 12, 31, 0, 0, 0, 0)),
    ("days since 2020-01-01 00:00:00", "proleptic_gregorian", -737426.0, (0, 12, 30, 0, 0, 0, 0)),
    ("days since 0001-01-01", "proleptic_gregorian", -1.0, (0, 12, 31, 0, 0, 0, 0)),
    ("days since 0001-01-01", "proleptic_gregorian", -366.0, (0, 1, 1, 0, 0, 0, 0)),
    ("days since 0001-01-01", "proleptic_gregorian", -367.0, (-1, 12, 31, 0, 0, 0, 0)),
    ("days since 0001-01-01", "proleptic_gregorian", 577737.0, (1582, 10, 17, 0, 0, 0, 0)),
    ("days since 0001-01-01", "proleptic_gregorian", 577738.0, (1582, 10, 18, 0, 0, 0, 0)),
    ("days since 2001-01-01", "noleap", 58.0, (2001, 2, 28, 0, 0, 0, 0)),
    ("days since 2001-01-01", "noleap", 59.0, (2001, 3, 1, 0, 0, 0, 0)),
    ("days since 2001-01-01", "noleap", 365.0, (2002, 1, 1, 0, 0, 0, 0)),
    ("days since 2001-01-01", "noleap", -1.0, (2000, 12, 31, 0, 0, 0, 0)),
    ("days since 2001-01-01", "noleap", 730485.0, (4002, 5, 1, 0, 0, 0, 0)),
    ("days since 2001-01-01", "noleap", -730485.0, (-1, 9, 3, 0, 0, 0, 0)),
    ("days since 2001-01-01", "365_day", 1.75, (2001, 1, 2, 18, 0, 0, 0)),
    ("days since 2001-01-01", "all_leap", 58.0, (2001, 2, 28, 0, 0, 0, 0)),
    ("days since 2001-01-01", "all_leap", 59.0, (2001, 2, 29, 0, 0, 0, 0)),
    ("days since 2001-01-01", "all_leap", 60.0, (2001, 3, 1, 0, 0, 0, 0)),
    ("days since 2001-01-01", "all_leap", 366.0, (2002, 1, 1, 0, 0, 0, 0)),
    ("days since 2001-01-01", "all_leap", -1.0, (2000, 12, 31, 0, 0, 0, 0)),
    ("days since 2001-01-01", "366_day", -366.0, (2000, 1, 1, 0, 0, 0, 0)),
    ("days since 2000-01-01", "360_day", 29.0, (2000, 1, 30, 0, 0, 0, 0)),
    ("days since 2000-01-01", "360_day", 30.0, (2000, 2, 1, 0, 0, 0, 0)),
    ("days since 2000-01-01", "360_day", 59.0, (2000, 2, 30, 0, 0, 0, 0)),
    ("days since 2000-01-01", "360_day", 360.0, (2001, 1, 1, 0, 0, 0, 0)),
    ("days since 2000-01-01", "360_day", -1.0, (1999, 12, 30, 0, 0, 0, 0)),
    ("days since 2000-01-01", "360_day", 100000.0, (2277, 10, 11, 0, 0, 0, 0)),
    ("days since 2000-01-01", "360_day", -730000.0, (-28, 3, 21, 0, 0, 0, 0)),
    ("hours since 2000-02-30", "360_day", 24.0, (2000, 3, 1, 0, 0, 0, 0)),
    ("hours since 2000-02-30", "360_day", -24.0, (2000, 2, 29, 0, 0, 0, 0)),
    ("days since 1900-01-01", "julian", 58.0, (1900, 2, 28, 0, 0, 0, 0)),
    ("days since 1900-01-01", "julian", 59.0, (1900, 2, 29, 0, 0, 0, 0)),
    ("days since 1900-01-01", "julian", 60.0, (1900, 3, 1, 0, 0, 0, 0)),
    ("days since 1900-01-01", "julian", 365.0, (1900, 12, 31, 0, 0, 0, 0)),
    ("days since 1900-01-01", "julian", 366.0, (1901, 1, 1, 0, 0, 0, 0)),
    ("days since 1900-01-01", "julian", -693000.0, (2, 9, 2, 0, 0, 0, 0)),
    ("days since 1900-01-01", "julian", -694000.0, (-2, 12, 7, 0, 0, 0, 0)),
    ("days since 1-1-1", "julian", -1.0, (-1, 12, 31, 0, 0, 0, 0)),
    ("days since 1-1-1", "julian", -366.0, (-1, 1, 1, 0, 0, 0, 0)),
    ("hours since 2000-01-01 00:00:00 +05:30", "standard", 0.0, (1999, 12, 31, 18, 30, 0, 0)),
    ("hours since 2000-01-01 00:00:00 +05:30", "standard", 5.5, (2000, 1, 1, 0, 0, 0, 0)),
    ("minutes since 2000-01-01 00:00 -05:00", "360_day", 0.0, (2000, 1, 1, 5, 0, 0, 0)),
    ("minutes since 2000-01-01 00:00 -05:00", "360_day", 60.0, (2000, 1, 1, 6, 0, 0, 0)),
    ("milliseconds since 2000-01-01", "standard", 1.5, (2000, 1, 1, 0, 0, 0, 1500)),
    ("milliseconds since 2000-01-01", "standard", -1.5, (1999, 12, 31, 23, 59, 59, 998500)),
    ("microseconds since 2000-01-01 12:00:00", "proleptic_gregorian", 1.0, (2000, 1, 1, 12, 0, 0, 1)),
    ("microseconds since 2000-01-01 12:00:00", "proleptic_gregorian", 86400000000.0, (2000, 1, 2, 12, 0, 0, 0)),
    ("days since -100-03-01", "standard", 0.0, (-100, 3, 1, 0, 0, 0, 0)),
    ("days since -100-03-01", "standard", -1.0, (-100, 2, 28, 0, 0, 0, 0)),
    ("days since -100-03-01", "standard", 36525.0, (1, 3, 1, 0, 0, 0, 0)),
    ("days since 1582-10-15", "standard", -1.0, (1582, 10, 4, 0, 0, 0, 0)),
    ("days since 1582-10-15", "standard", -10.0, (1582, 9, 25, 0, 0, 0, 0)),
    ("days since 1582-10-15", "standard", 0.0, (1582, 10, 15, 0, 0, 0, 0)),
    ("seconds since 1992-10-8 15:15:42.5 -0600", "standard", 0.0, (1992, 10, 8, 21, 15, 42, 500000)),
    ("seconds since 1992-10-8 15:15 +0545", "standard", 0.0, (1992, 10, 8, 9, 30, 0, 0)),
    ("hours since 2000-01-01 -05", "standard", 0.0, (2000, 1, 1, 5, 0, 0, 0)),
    // Not cftime's: it ignores a one-digit zone hour ("-6:00"), which UDUNITS reads as -6 h.
    ("seconds since 1992-10-8 15:15:42.5 -6:00", "standard", 0.0, (1992, 10, 8, 21, 15, 42, 500000)),
];

#[test]
fn decode_matches_cftime_in_every_calendar() {
    for (units, calendar, value, want) in CFTIME {
        let parsed = cf_time::parse_units(units).unwrap();
        let cal = Calendar::parse(calendar).unwrap();
        let got = cf_time::decode(&[*value], &parsed, cal)[0]
            .unwrap_or_else(|| panic!("{units} {calendar} {value}"));
        let (year, month, day, hour, minute, second, micro) = *want;
        let want = CfDate {
            year,
            month,
            day,
            hour,
            minute,
            second,
            nanosecond: micro * 1000,
        };
        assert_eq!(got, want, "{value} {units} ({calendar})");
    }
}

#[test]
fn decode_is_exact_for_integral_values_and_rounds_fractions_to_nanoseconds() {
    let units = cf_time::parse_units("nanoseconds since 1970-01-01").unwrap();
    // 2^53 + 1 is not a float64; 2^62 is, and is decoded exactly.
    let got = cf_time::decode(
        &[4611686018427387904.0],
        &units,
        Calendar::ProlepticGregorian,
    )[0]
    .unwrap();
    assert_eq!(got.iso(), "2116-02-20T23:53:38.427387904");
    let units = cf_time::parse_units("days since 2000-01-01").unwrap();
    let got = cf_time::decode(&[1.0 / 3.0, 0.5, -0.25], &units, Calendar::Standard);
    let iso: Vec<String> = got.iter().map(|d| d.unwrap().iso()).collect();
    assert_eq!(
        iso,
        [
            "2000-01-01T08:00:00",
            "2000-01-01T12:00:00",
            "1999-12-31T18:00:00"
        ]
    );
    let units = cf_time::parse_units("hours since 1900-01-01").unwrap();
    assert_eq!(
        cf_time::decode(&[0.001], &units, Calendar::Standard)[0]
            .unwrap()
            .iso(),
        "1900-01-01T00:00:03.600"
    );
}

#[test]
fn decode_never_panics_on_hostile_values() {
    #[rustfmt::skip]
    let values = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
        -1e300,
        f64::MAX,
        f64::MIN,
        9.3e18,
        -9.3e18,
        1e16,
        -1e16,
        f64::MIN_POSITIVE,
        -0.0,
        1e15,
        -1e15,
    ];
    for calendar in [
        "standard",
        "proleptic_gregorian",
        "noleap",
        "all_leap",
        "360_day",
        "julian",
    ] {
        let cal = Calendar::parse(calendar).unwrap();
        for units in [
            "days since 2000-01-01",
            "nanoseconds since -999999999-01-01",
            "days since 999999999-12-30 23:59:59.999999999 -23:59",
        ] {
            let parsed = cf_time::parse_units(units).unwrap();
            let got = cf_time::decode(&values, &parsed, cal);
            assert_eq!(got.len(), values.len());
            assert!(
                got[..7].iter().all(Option::is_none),
                "{calendar} {units}: {got:?}"
            );
            // What decodes is a real date of the calendar.
            for d in got.iter().flatten() {
                assert!(
                    (1..=12).contains(&d.month) && (1..=31).contains(&d.day) && d.hour < 24,
                    "{d:?}"
                );
                let _ = d.iso();
            }
        }
    }
    let parsed = cf_time::parse_units("days since 2000-01-01").unwrap();
    assert!(cf_time::decode(&[1e15], &parsed, Calendar::Standard)[0].is_some());
    assert!(cf_time::decode(&[], &parsed, Calendar::Standard).is_empty());
    // An epoch the calendar lacks: every value undecodable.
    let parsed = cf_time::parse_units("days since 1582-10-10").unwrap();
    assert_eq!(
        cf_time::decode(&[0.0, 1.0], &parsed, Calendar::Standard),
        [None, None]
    );
    assert!(parsed.epoch_in(Calendar::Standard).is_err());
    assert!(parsed.epoch_in(Calendar::Julian).is_ok());
    let year_zero = cf_time::parse_units("days since 0000-01-01").unwrap();
    assert!(year_zero.epoch_in(Calendar::Standard).is_err());
    assert_eq!(
        year_zero
            .epoch_in(Calendar::ProlepticGregorian)
            .unwrap()
            .iso(),
        "0000-01-01T00:00:00"
    );
}

#[test]
fn parse_units_reads_what_cftime_reads() {
    #[rustfmt::skip]
    let ok: &[(&str, TimeUnit, &str, i32)] = &[
        ("days since 2026-01-01", TimeUnit::Days, "2026-01-01T00:00:00", 0),
        ("hours since 2026-01-01 00:00:00", TimeUnit::Hours, "2026-01-01T00:00:00", 0),
        ("seconds since 1970-01-01T00:00:00Z", TimeUnit::Seconds, "1970-01-01T00:00:00", 0),
        ("days since 1-1-1", TimeUnit::Days, "0001-01-01T00:00:00", 0),
        ("Days Since 2000-1-1 0:0:0", TimeUnit::Days, "2000-01-01T00:00:00", 0),
        ("  d   since   2000-01-01  ", TimeUnit::Days, "2000-01-01T00:00:00", 0),
        ("hr since 2000-01-01 12:30 UTC", TimeUnit::Hours, "2000-01-01T12:30:00", 0),
        ("h since 2000-01-01 GMT", TimeUnit::Hours, "2000-01-01T00:00:00", 0),
        ("minutes since 2000-01-01 00:00:00 +05:30", TimeUnit::Minutes, "2000-01-01T00:00:00", 330),
        ("min since 2000-01-01T00:00-0500", TimeUnit::Minutes, "2000-01-01T00:00:00", -300),
        ("mins since 2000-01-01 -05", TimeUnit::Minutes, "2000-01-01T00:00:00", -300),
        // UDUNITS' own example, and its colon-less zones of three and four digits.
        ("seconds since 1992-10-8 15:15:42.5 -6:00", TimeUnit::Seconds, "1992-10-08T15:15:42.500", -360),
        ("seconds since 1992-10-8 15:15:42.5 -600", TimeUnit::Seconds, "1992-10-08T15:15:42.500", -360),
        ("seconds since 1992-10-8 15:15 +0545", TimeUnit::Seconds, "1992-10-08T15:15:00", 345),
        ("sec since 2000-01-01 00:00:00.5", TimeUnit::Seconds, "2000-01-01T00:00:00.500", 0),
        ("s since 2000-01-01 00:00:00.123456789123", TimeUnit::Seconds, "2000-01-01T00:00:00.123456789", 0),
        ("milliseconds since 2000-01-01", TimeUnit::Milliseconds, "2000-01-01T00:00:00", 0),
        ("msec since 2000-01-01", TimeUnit::Milliseconds, "2000-01-01T00:00:00", 0),
        ("ms since 2000-01-01", TimeUnit::Milliseconds, "2000-01-01T00:00:00", 0),
        ("microseconds since 2000-01-01", TimeUnit::Microseconds, "2000-01-01T00:00:00", 0),
        ("us since 2000-01-01", TimeUnit::Microseconds, "2000-01-01T00:00:00", 0),
        ("nanoseconds since 2000-01-01", TimeUnit::Nanoseconds, "2000-01-01T00:00:00", 0),
        ("days since -100-03-01", TimeUnit::Days, "-0100-03-01T00:00:00", 0),
        ("days since +2000-02-30", TimeUnit::Days, "2000-02-30T00:00:00", 0),
        ("days since 2000", TimeUnit::Days, "2000-01-01T00:00:00", 0),
    ];
    for (text, unit, epoch, offset) in ok {
        let u = cf_time::parse_units(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(
            (u.unit, u.epoch.iso().as_str(), u.utc_offset_minutes),
            (*unit, *epoch, *offset),
            "{text}"
        );
    }
    let long = format!("days since 2000-01-01{}", " ".repeat(10_000));
    assert!(cf_time::parse_units(&long).is_ok());
    #[rustfmt::skip]
    let bad = [
        "",
        "days",
        "days since",
        "days after 2000-01-01",
        "fortnights since 2000-01-01",
        "months since 2000-01-01",
        "days since 2000-13-01",
        "days since 2000-01-32",
        "days since 2000-01-00",
        "days since 2000-01-01 24:00:00",
        "days since 2000-01-01 23:59:60",
        "days since 2000-01-01 12",
        "days since 2000-01-01 00:00:00 +25:00",
        "days since 2000-01-01 00:00:00 +05:",
        "days since 2000-01-01 00:00:00 +05:3",
        "days since 2000-01-01 00:00:00 +05000",
        "days since 2000-01-01garbage",
        "days since 99999999999-01-01",
        "days since 2000-01-01 00:00:00 UTC UTC",
        "days since ２０００-01-01",
        "days since 2000-01-01 00:00:00 Ü",
    ];
    for text in bad {
        assert!(cf_time::parse_units(text).is_err(), "{text}");
    }
    for hostile in [
        "d".repeat(10_000),
        format!("days since {}", "9".repeat(10_000)),
        format!("days since 2000-01-01 00:00:00.{}", "9".repeat(10_000)),
        format!("days since 2000-01-01 {}", "é".repeat(5_000)),
        format!("{} since 2000", "ü".repeat(5_000)),
    ] {
        // Long fractions are cut to nanoseconds; the rest fails; none panics or echoes 10 KB.
        match cf_time::parse_units(&hostile) {
            Ok(u) => assert_eq!(u.epoch.nanosecond, 999_999_999),
            Err(e) => assert!(e.len() < 400, "{}", e.len()),
        }
    }
}

#[test]
fn calendars_parse_case_insensitively() {
    #[rustfmt::skip]
    let cases = [
        ("standard", Some(Calendar::Standard)),
        ("Gregorian", Some(Calendar::Standard)),
        ("proleptic_gregorian", Some(Calendar::ProlepticGregorian)),
        ("noleap", Some(Calendar::NoLeap)),
        ("365_DAY", Some(Calendar::NoLeap)),
        ("all_leap", Some(Calendar::AllLeap)),
        ("366_day", Some(Calendar::AllLeap)),
        ("360_day", Some(Calendar::Day360)),
        ("JULIAN", Some(Calendar::Julian)),
        ("none", None),
        ("lunar", None),
        ("", None),
    ];
    for (name, want) in cases {
        assert_eq!(Calendar::parse(name), want, "{name}");
    }
}
