//! Checksums of virtual chunks: a virtual chunk reference may record what its object was when
//! the reference was written ([`Checksum`]: an ETag or a last modification time). A read of
//! such a chunk through a [`ValidatedRead`] returns what the answer said of the object (its
//! [`Validators`]: HTTP `ETag` and `Last-Modified`, S3 and GCS alike), and the chunk is refused
//! when they show that the object changed. Comparing what an answer carries, rather than
//! sending `If-Match`, needs no CORS preflight in a browser and works with servers that ignore
//! preconditions; an answer without the validator cannot be checked and is read as it is.
//! [`Store`](crate::store::Store) answers carry no validators, so an [`IcechunkStore`]
//! verifies checksums only through a [`ValidatedRead`] its caller gives it
//! ([`IcechunkStore::with_validated_reads`]).
//!
//! [`IcechunkStore`]: super::IcechunkStore
//! [`IcechunkStore::with_validated_reads`]: super::IcechunkStore::with_validated_reads

use super::manifest::Checksum;
use crate::error::{ErrorCode, Result, ZomError};
use crate::store::ByteRange;

/// What an answer said of the object its bytes came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Validators {
    /// The object's ETag, as sent (quoted, perhaps `W/`).
    pub etag: Option<String>,
    /// The object's last modification, as sent (an HTTP date).
    pub last_modified: Option<String>,
}

/// A reader of virtual chunks' objects that tells what each answer said of its object.
#[allow(async_fn_in_trait)]
pub trait ValidatedRead {
    /// Bytes `range` of the object at `url` (the URL the virtual store would be asked for),
    /// with the answer's validators; no object is `None`.
    async fn get_range_validated(
        &self,
        url: &str,
        range: ByteRange,
    ) -> Result<Option<(Vec<u8>, Validators)>>;
}

/// The validated reader of a store that has none: no value of it exists, so an
/// [`IcechunkStore`](super::IcechunkStore) of it reads every virtual chunk unchecked.
#[derive(Clone, Copy, Debug)]
pub enum NoValidatedReads {}

impl ValidatedRead for NoValidatedReads {
    async fn get_range_validated(
        &self,
        _: &str,
        _: ByteRange,
    ) -> Result<Option<(Vec<u8>, Validators)>> {
        match *self {}
    }
}

impl<T: ValidatedRead> ValidatedRead for &T {
    async fn get_range_validated(
        &self,
        url: &str,
        range: ByteRange,
    ) -> Result<Option<(Vec<u8>, Validators)>> {
        (**self).get_range_validated(url, range).await
    }
}

impl Checksum {
    /// Whether an answer carrying `seen` came from the object (at `url`) the reference was written
    /// against: an ETag must be the one recorded (strong comparison, as `If-Match` makes), a
    /// last modification must not be later than the one recorded (as `If-Unmodified-Since`
    /// makes). An [`ErrorCode::ChecksumMismatch`] error when the object changed; `Ok` when it
    /// did not, or when the answer does not carry the validator (or one zom cannot read).
    pub fn verify(&self, url: &str, seen: &Validators) -> Result<()> {
        let changed = match self {
            Checksum::ETag(want) => match seen.etag.as_deref() {
                Some(got) if got.starts_with("W/") => {
                    Some(format!("the object's ETag is now the weak {got}, not \"{}\"", bare(want)))
                }
                Some(got) if bare(got) != bare(want) => {
                    Some(format!("the object's ETag is now {got}, not \"{}\"", bare(want)))
                }
                _ => None,
            },
            Checksum::LastModified(want) => seen
                .last_modified
                .as_deref()
                .and_then(|got| parse_http_date(got).map(|at| (got, at)))
                .filter(|&(_, at)| at > u64::from(*want))
                .map(|(got, _)| {
                    format!(
                        "the object was modified at {got}, after the reference was written ({} seconds since the epoch)",
                        want
                    )
                }),
        };
        match changed {
            None => Ok(()),
            Some(message) => Err(ZomError::new(
                ErrorCode::ChecksumMismatch,
                format!("icechunk: the object of a virtual chunk, {url}, changed: {message}"),
            )),
        }
    }
}

/// An ETag without its quotes.
fn bare(etag: &str) -> &str {
    etag.trim().trim_matches('"')
}

/// Seconds since the Unix epoch of an HTTP date in its one current form, IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`); `None` for anything else.
fn parse_http_date(text: &str) -> Option<u64> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let mut parts = text.trim().split(' ');
    let _weekday = parts.next().filter(|w| w.len() == 4 && w.ends_with(','))?;
    let day: i64 = number(parts.next()?, 2)?;
    let month_name = parts.next()?;
    let month = MONTHS.iter().position(|m| *m == month_name)? as i64 + 1;
    let year: i64 = number(parts.next()?, 4)?;
    let mut clock = parts.next()?.split(':');
    let hour: i64 = number(clock.next()?, 2)?;
    let minute: i64 = number(clock.next()?, 2)?;
    let second: i64 = number(clock.next()?, 2)?;
    if parts.next() != Some("GMT") || parts.next().is_some() || clock.next().is_some() {
        return None;
    }
    if !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    // Days since the epoch of a civil date (Howard Hinnant's days-from-civil algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + hour * 3_600 + minute * 60 + second).ok()
}

/// The decimal number of exactly `digits` ASCII digits.
fn number(text: &str, digits: usize) -> Option<i64> {
    (text.len() == digits && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates() {
        for (want, text) in [
            (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
            (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (4_102_444_800, "Fri, 01 Jan 2100 00:00:00 GMT"),
            (4_294_967_295, "Sun, 07 Feb 2106 06:28:15 GMT"),
        ] {
            assert_eq!(parse_http_date(text), Some(want), "{text}");
        }
        for bad in [
            "",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT extra",
            "Sun, 06 Now 1994 08:49:37 GMT",
            "Sun, 00 Nov 1994 08:49:37 GMT",
        ] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }

    fn seen(etag: Option<&str>, last_modified: Option<&str>) -> Validators {
        Validators {
            etag: etag.map(str::to_string),
            last_modified: last_modified.map(str::to_string),
        }
    }

    #[test]
    fn etags_compare_strongly() {
        let want = Checksum::ETag("\"abc\"".into());
        assert!(want.verify("u", &seen(Some("\"abc\""), None)).is_ok());
        assert!(Checksum::ETag("abc".into())
            .verify("u", &seen(Some("\"abc\""), None))
            .is_ok());
        assert!(want
            .verify("u", &seen(None, Some("Thu, 01 Jan 2099 00:00:00 GMT")))
            .is_ok());
        for changed in ["\"abd\"", "W/\"abc\"", "\"\""] {
            let err = want.verify("u", &seen(Some(changed), None)).unwrap_err();
            assert_eq!(err.code, ErrorCode::ChecksumMismatch, "{changed}");
            assert!(err.message.contains(changed), "{err}");
        }
    }

    #[test]
    fn a_later_modification_is_a_change() {
        let want = Checksum::LastModified(784_111_777);
        for same in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sat, 05 Nov 1994 08:49:37 GMT",
            "soon",
        ] {
            assert!(
                want.verify("u", &seen(Some("\"x\""), Some(same))).is_ok(),
                "{same}"
            );
        }
        assert!(want.verify("u", &seen(None, None)).is_ok());
        let err = want
            .verify("u", &seen(None, Some("Sun, 06 Nov 1994 08:49:38 GMT")))
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::ChecksumMismatch);
        assert!(err.message.contains("08:49:38"), "{err}");
    }
}
