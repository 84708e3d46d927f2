//! Units and scale factors of `numpy.datetime64` / `numpy.timedelta64`.

use super::TimeUnit;

/// The largest `scale_factor` zarr-python accepts (`2**31 - 1`).
pub const MAX_SCALE_FACTOR: u64 = (1 << 31) - 1;

impl TimeUnit {
    /// The unit as zarr-python writes it (`"s"`, `"us"`, `"generic"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TimeUnit::Years => "Y",
            TimeUnit::Months => "M",
            TimeUnit::Weeks => "W",
            TimeUnit::Days => "D",
            TimeUnit::Hours => "h",
            TimeUnit::Minutes => "m",
            TimeUnit::Seconds => "s",
            TimeUnit::Milliseconds => "ms",
            TimeUnit::Microseconds => "us",
            TimeUnit::Nanoseconds => "ns",
            TimeUnit::Picoseconds => "ps",
            TimeUnit::Femtoseconds => "fs",
            TimeUnit::Attoseconds => "as",
            TimeUnit::Generic => "generic",
        }
    }

    /// Reads a unit name; `μs` (NumPy's spelling) is microseconds too.
    pub fn parse(name: &str) -> Option<TimeUnit> {
        Some(match name {
            "Y" => TimeUnit::Years,
            "M" => TimeUnit::Months,
            "W" => TimeUnit::Weeks,
            "D" => TimeUnit::Days,
            "h" => TimeUnit::Hours,
            "m" => TimeUnit::Minutes,
            "s" => TimeUnit::Seconds,
            "ms" => TimeUnit::Milliseconds,
            "us" | "μs" => TimeUnit::Microseconds,
            "ns" => TimeUnit::Nanoseconds,
            "ps" => TimeUnit::Picoseconds,
            "fs" => TimeUnit::Femtoseconds,
            "as" => TimeUnit::Attoseconds,
            "generic" => TimeUnit::Generic,
            _ => return None,
        })
    }
}

/// The error for a unit that is not one of NumPy's.
pub(super) fn unknown_unit(name: &str) -> String {
    format!(
        "unknown time unit '{}' (expected one of Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as, generic)",
        super::fill::shorten(name)
    )
}

/// Checks a scale factor read from metadata.
pub(super) fn check_scale_factor(scale_factor: u64) -> Result<u64, String> {
    if scale_factor == 0 {
        return Err("scale_factor must be a positive integer, got 0".into());
    }
    if scale_factor > MAX_SCALE_FACTOR {
        return Err(format!(
            "scale_factor {scale_factor} is too large (at most {MAX_SCALE_FACTOR})"
        ));
    }
    Ok(scale_factor)
}
