//! Conditional reads of virtual chunks: a virtual chunk reference may record what its object
//! was when the reference was written ([`Checksum`]: an ETag or a last modification time).
//! [`Store`](crate::store::Store) has no conditional request, so an [`IcechunkStore`] verifies
//! a checksum only through a [`ConditionalRead`] its caller gives it
//! ([`IcechunkStore::with_conditional_reads`]); without one, checksums are not verified.
//!
//! [`IcechunkStore`]: super::IcechunkStore
//! [`IcechunkStore::with_conditional_reads`]: super::IcechunkStore::with_conditional_reads

use super::manifest::Checksum;
use crate::error::Result;
use crate::store::ByteRange;

/// A reader of virtual chunks' objects that can make a request conditional on what the object
/// must still be (HTTP `If-Match` or `If-Unmodified-Since`, S3 and GCS alike).
#[allow(async_fn_in_trait)]
pub trait ConditionalRead {
    /// Bytes `range` of the object at `url` (the URL the virtual store would be asked for),
    /// only if the object still matches `checksum` ([`Checksum::http_precondition`] is the
    /// HTTP header that asks for it). An object that changed is an
    /// [`ErrorCode::ChecksumMismatch`](crate::ErrorCode::ChecksumMismatch) error (an HTTP
    /// 412 answer); no object is `None`.
    async fn get_range_if(
        &self,
        url: &str,
        range: ByteRange,
        checksum: &Checksum,
    ) -> Result<Option<Vec<u8>>>;
}

/// The conditional reader of a store that has none: no value of it exists, so an
/// [`IcechunkStore`](super::IcechunkStore) of it reads every virtual chunk unconditionally.
#[derive(Clone, Copy, Debug)]
pub enum NoConditionalReads {}

impl ConditionalRead for NoConditionalReads {
    async fn get_range_if(&self, _: &str, _: ByteRange, _: &Checksum) -> Result<Option<Vec<u8>>> {
        match *self {}
    }
}

impl<T: ConditionalRead> ConditionalRead for &T {
    async fn get_range_if(
        &self,
        url: &str,
        range: ByteRange,
        checksum: &Checksum,
    ) -> Result<Option<Vec<u8>>> {
        (**self).get_range_if(url, range, checksum).await
    }
}

impl Checksum {
    /// The HTTP request header that makes a read fail (412) when the object is no longer the
    /// one referenced: `If-Match` with the ETag (quoted), or `If-Unmodified-Since` with the
    /// time (an HTTP date).
    pub fn http_precondition(&self) -> (&'static str, String) {
        match self {
            Checksum::ETag(etag) => {
                let bare = etag.trim_matches('"');
                ("If-Match", format!("\"{bare}\""))
            }
            Checksum::LastModified(seconds) => ("If-Unmodified-Since", http_date(*seconds)),
        }
    }
}

/// `seconds` since the Unix epoch as an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn http_date(seconds: u32) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = i64::from(seconds / 86_400);
    let time = seconds % 86_400;
    // The civil date of a day count (Howard Hinnant's days-to-civil algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{}, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        DAYS[(days % 7) as usize],
        MONTHS[(month - 1) as usize],
        time / 3_600,
        time / 60 % 60,
        time % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates() {
        for (seconds, want) in [
            (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
            (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (4_102_444_800, "Fri, 01 Jan 2100 00:00:00 GMT"),
            (u32::MAX, "Sun, 07 Feb 2106 06:28:15 GMT"),
        ] {
            assert_eq!(http_date(seconds), want, "{seconds}");
        }
    }

    #[test]
    fn preconditions() {
        let etag = Checksum::ETag("\"abc\"".into()).http_precondition();
        assert_eq!(etag, ("If-Match", "\"abc\"".to_string()));
        let bare = Checksum::ETag("abc".into()).http_precondition();
        assert_eq!(bare, etag);
        let time = Checksum::LastModified(0).http_precondition();
        assert_eq!(time.0, "If-Unmodified-Since");
    }
}
