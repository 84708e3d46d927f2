//! The error type every fallible zom operation returns.

use std::fmt;

/// A stable, machine-readable error category. JS callers see it as `error.code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A node or key that was asked for does not exist.
    NotFound,
    /// A metadata document is not valid JSON or not valid Zarr metadata.
    InvalidMetadata,
    /// An extension with `must_understand: true` that zom does not implement.
    UnsupportedExtension,
    /// A codec that zom does not implement.
    UnknownCodec,
    /// A codec failed to decode or encode its input.
    CodecError,
    /// A stored checksum does not match the data.
    ChecksumMismatch,
    /// A selection does not fit the array.
    InvalidSelection,
    /// An HTTP request failed.
    HttpError,
    /// The caller aborted the operation.
    Aborted,
    /// A configured resource limit was exceeded.
    LimitExceeded,
    /// A caller passed an argument of the wrong shape.
    InvalidArgument,
}

impl ErrorCode {
    /// Every code, in declaration order (ts/generated/boundary.ts states them for TypeScript:
    /// examples/gen_boundary.rs).
    pub const ALL: [ErrorCode; 11] = [
        ErrorCode::NotFound,
        ErrorCode::InvalidMetadata,
        ErrorCode::UnsupportedExtension,
        ErrorCode::UnknownCodec,
        ErrorCode::CodecError,
        ErrorCode::ChecksumMismatch,
        ErrorCode::InvalidSelection,
        ErrorCode::HttpError,
        ErrorCode::Aborted,
        ErrorCode::LimitExceeded,
        ErrorCode::InvalidArgument,
    ];

    /// The code's name, exactly as JS callers see it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "NotFound",
            ErrorCode::InvalidMetadata => "InvalidMetadata",
            ErrorCode::UnsupportedExtension => "UnsupportedExtension",
            ErrorCode::UnknownCodec => "UnknownCodec",
            ErrorCode::CodecError => "CodecError",
            ErrorCode::ChecksumMismatch => "ChecksumMismatch",
            ErrorCode::InvalidSelection => "InvalidSelection",
            ErrorCode::HttpError => "HttpError",
            ErrorCode::Aborted => "Aborted",
            ErrorCode::LimitExceeded => "LimitExceeded",
            ErrorCode::InvalidArgument => "InvalidArgument",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with its code, a human-readable message, and where it happened:
/// the node path inside the hierarchy and the store key that was being read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct ZomError {
    /// The error's category.
    pub code: ErrorCode,
    /// What went wrong, in words.
    pub message: String,
    /// The node path ("" for the root, "a/b" for a member), when known.
    pub path: Option<String>,
    /// The store key being read or written, when known.
    pub key: Option<String>,
}

impl ZomError {
    /// A new error with a code and message and no location yet.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ZomError {
            code,
            message: message.into(),
            path: None,
            key: None,
        }
    }

    /// Shorthand for an [`ErrorCode::InvalidMetadata`] error.
    pub fn invalid_metadata(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidMetadata, message)
    }

    /// Shorthand for an [`ErrorCode::InvalidArgument`] error.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }

    /// The same error, located at a node path (kept if one is already set).
    pub fn at_path(mut self, path: impl Into<String>) -> Self {
        if self.path.is_none() {
            self.path = Some(path.into());
        }
        self
    }

    /// The same error, located at a store key (kept if one is already set).
    pub fn at_key(mut self, key: impl Into<String>) -> Self {
        if self.key.is_none() {
            self.key = Some(key.into());
        }
        self
    }
}

impl fmt::Display for ZomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)?;
        if let Some(path) = &self.path {
            write!(f, " (node '/{path}')")?;
        }
        if let Some(key) = &self.key {
            write!(f, " (key '{key}')")?;
        }
        Ok(())
    }
}

/// The result type of zom's fallible operations.
pub type Result<T, E = ZomError> = std::result::Result<T, E>;

#[cfg(test)]
mod all_codes {
    use super::ErrorCode;

    /// [`ErrorCode::ALL`] lists every code once, in order: the match below fails to compile
    /// when a code is added and not placed.
    #[test]
    fn all_lists_every_code_in_order() {
        for (at, code) in ErrorCode::ALL.into_iter().enumerate() {
            let place = match code {
                ErrorCode::NotFound => 0,
                ErrorCode::InvalidMetadata => 1,
                ErrorCode::UnsupportedExtension => 2,
                ErrorCode::UnknownCodec => 3,
                ErrorCode::CodecError => 4,
                ErrorCode::ChecksumMismatch => 5,
                ErrorCode::InvalidSelection => 6,
                ErrorCode::HttpError => 7,
                ErrorCode::Aborted => 8,
                ErrorCode::LimitExceeded => 9,
                ErrorCode::InvalidArgument => 10,
            };
            assert_eq!(place, at, "{code}");
        }
    }
}
