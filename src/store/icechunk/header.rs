//! The header every Icechunk metadata file (repo info, snapshot, manifest, transaction log)
//! starts with, and the payload after it, decompressed within a bound.

use super::corrupt;
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::{exceeded, Limit};

/// The magic bytes: `ICE🧊CHUNK` in UTF-8.
pub const MAGIC: &[u8; 12] = b"ICE\xF0\x9F\xA7\x8ACHUNK";

/// The length of the implementation name field (space-padded UTF-8).
const IMPLEMENTATION_LEN: usize = 24;

/// The length of the header: magic, implementation name, spec version, file type, compression.
pub const HEADER_LEN: usize = MAGIC.len() + IMPLEMENTATION_LEN + 3;

/// The newest Icechunk spec version this reader reads.
pub const MAX_SPEC_VERSION: u8 = 2;

/// What an Icechunk metadata file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    /// A snapshot (code 1).
    Snapshot,
    /// A chunk manifest (code 2).
    Manifest,
    /// A transaction log (code 4).
    TransactionLog,
    /// The repo info file of spec version 2 (code 6).
    RepoInfo,
}

impl FileType {
    /// The type of a header's code, `None` for codes Icechunk never writes to a metadata file.
    pub fn from_code(code: u8) -> Option<FileType> {
        match code {
            1 => Some(FileType::Snapshot),
            2 => Some(FileType::Manifest),
            4 => Some(FileType::TransactionLog),
            6 => Some(FileType::RepoInfo),
            _ => None,
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            FileType::Snapshot => "snapshot",
            FileType::Manifest => "manifest",
            FileType::TransactionLog => "transaction log",
            FileType::RepoInfo => "repo info",
        }
    }
}

/// How the payload after the header is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed (code 0).
    None,
    /// One or more zstd frames (code 1), what Icechunk writes.
    Zstd,
}

/// A parsed file header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileHeader {
    /// The writer's name and version, e.g. `ic-2.3.0`, without its padding.
    pub implementation: String,
    /// The spec version the file is written in (1 or 2).
    pub spec_version: u8,
    /// What the file holds.
    pub file_type: FileType,
    /// How the payload is compressed.
    pub compression: Compression,
}

impl FileHeader {
    /// Reads the header at the start of `file`.
    pub fn parse(file: &[u8]) -> Result<FileHeader> {
        let Some(header) = file.get(..HEADER_LEN) else {
            return Err(corrupt(format!(
                "the file has {} bytes, fewer than the {HEADER_LEN} of an Icechunk header",
                file.len()
            )));
        };
        let (magic, rest) = header.split_at(MAGIC.len());
        if magic != MAGIC {
            return Err(corrupt("not an Icechunk file: the magic bytes are wrong"));
        }
        let (name, codes) = rest.split_at(IMPLEMENTATION_LEN);
        let implementation = String::from_utf8_lossy(name).trim_end().to_string();
        let [spec_version, file_type, compression] = [codes[0], codes[1], codes[2]];
        if spec_version == 0 || spec_version > MAX_SPEC_VERSION {
            return Err(ZomError::new(
                ErrorCode::UnsupportedExtension,
                format!(
                    "icechunk: the file is in spec version {spec_version}; zom reads versions 1 to {MAX_SPEC_VERSION}"
                ),
            ));
        }
        let file_type = FileType::from_code(file_type)
            .ok_or_else(|| corrupt(format!("unknown file type code {file_type} in the header")))?;
        let compression = match compression {
            0 => Compression::None,
            1 => Compression::Zstd,
            other => {
                return Err(corrupt(format!(
                    "unknown compression code {other} in the header"
                )))
            }
        };
        Ok(FileHeader {
            implementation,
            spec_version,
            file_type,
            compression,
        })
    }
}

/// Reads a metadata file that must be of type `want`: its header, and its payload decompressed
/// to at most `max` bytes ([`Limits::max_document_bytes`](crate::Limits::max_document_bytes)).
pub fn read_file(file: &[u8], want: FileType, max: u64) -> Result<(FileHeader, Vec<u8>)> {
    let header = FileHeader::parse(file)?;
    if header.file_type != want {
        return Err(corrupt(format!(
            "expected a {} file, the header says {}",
            want.name(),
            header.file_type.name()
        )));
    }
    let payload = &file[HEADER_LEN..];
    let bytes = match header.compression {
        Compression::None => {
            if payload.len() as u64 > max {
                return Err(too_big(max, payload.len() as u64));
            }
            payload.to_vec()
        }
        Compression::Zstd => zstd_bounded(payload, max, None)?,
    };
    Ok((header, bytes))
}

fn too_big(max: u64, at_least: u64) -> ZomError {
    exceeded(
        Limit::DocumentBytes,
        max,
        at_least,
        "an Icechunk file's decompressed size in bytes",
    )
}

/// Decompresses zstd frames to at most `max` bytes, with `dictionary` when given. A size the
/// frame declares is checked before anything is allocated; without one the output grows in
/// steps and stops at the bound.
pub(crate) fn zstd_bounded(input: &[u8], max: u64, dictionary: Option<&[u8]>) -> Result<Vec<u8>> {
    use crate::codec::compress::{zstd_stream, ZstdFailure};
    let declared = zstd::zstd_safe::get_frame_content_size(input)
        .map_err(|_| corrupt("the zstd payload has no valid frame header"))?;
    if let Some(size) = declared {
        if size > max {
            return Err(too_big(max, size));
        }
    }
    let limit = usize::try_from(max).unwrap_or(usize::MAX);
    let mut dctx = zstd::zstd_safe::DCtx::create();
    if let Some(dictionary) = dictionary {
        dctx.load_dictionary(dictionary)
            .map_err(|_| corrupt("the zstd dictionary does not load"))?;
    }
    let first = declared.map_or(input.len().saturating_mul(4), |d| d as usize);
    zstd_stream(&mut dctx, input, first.clamp(64, 1 << 20), limit).map_err(
        |failure| match failure {
            ZstdFailure::TooBig(got) => too_big(max, got),
            ZstdFailure::Zstd(code) => corrupt(format!(
                "the zstd payload does not decode (zstd error {})",
                code.wrapping_neg()
            )),
            ZstdFailure::Truncated => corrupt("the zstd payload is truncated"),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(spec: u8, file_type: u8, compression: u8) -> Vec<u8> {
        let mut file = MAGIC.to_vec();
        file.extend_from_slice(format!("{:<24}", "ic-2.3.0").as_bytes());
        file.extend_from_slice(&[spec, file_type, compression]);
        file
    }

    #[test]
    fn reads_a_header_and_its_payload() {
        let mut file = header(2, 1, 1);
        file.extend(zstd::bulk::compress(b"payload", 3).unwrap());
        let (h, payload) = read_file(&file, FileType::Snapshot, 100).unwrap();
        assert_eq!(h.implementation, "ic-2.3.0");
        assert_eq!(
            (h.spec_version, h.file_type, h.compression),
            (2, FileType::Snapshot, Compression::Zstd)
        );
        assert_eq!(payload, b"payload");
    }

    #[test]
    fn refuses_bad_headers() {
        assert!(FileHeader::parse(&header(2, 1, 1)[..20])
            .unwrap_err()
            .message
            .contains("fewer than"));
        let mut bad = header(2, 1, 1);
        bad[0] = b'X';
        assert!(FileHeader::parse(&bad)
            .unwrap_err()
            .message
            .contains("magic"));
        assert_eq!(
            FileHeader::parse(&header(3, 1, 1)).unwrap_err().code,
            ErrorCode::UnsupportedExtension
        );
        assert!(FileHeader::parse(&header(2, 9, 1)).is_err());
        assert!(FileHeader::parse(&header(2, 1, 7)).is_err());
        let err = read_file(&header(2, 2, 0), FileType::Snapshot, 10).unwrap_err();
        assert!(err.message.contains("expected a snapshot"), "{err}");
    }

    #[test]
    fn a_huge_declared_size_is_refused_before_allocating() {
        // A frame header declaring 2^40 bytes of content (single segment, 8-byte size field).
        let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0xE0];
        frame.extend_from_slice(&(1u64 << 40).to_le_bytes());
        frame.extend_from_slice(&[0x01, 0x00, 0x00]);
        let mut file = header(2, 2, 1);
        file.extend(&frame);
        let err = read_file(&file, FileType::Manifest, 1 << 26).unwrap_err();
        assert_eq!(err.code, ErrorCode::LimitExceeded, "{err}");
    }

    #[test]
    fn an_undeclared_size_stops_at_the_bound() {
        use std::io::Write;
        let mut encoder = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        encoder.include_contentsize(false).unwrap();
        encoder.write_all(&vec![7u8; 100_000]).unwrap();
        let frame = encoder.finish().unwrap();
        let err = zstd_bounded(&frame, 1000, None).unwrap_err();
        assert_eq!(err.code, ErrorCode::LimitExceeded, "{err}");
        assert_eq!(zstd_bounded(&frame, 100_000, None).unwrap().len(), 100_000);
        assert!(zstd_bounded(&frame[..frame.len() / 2], 100_000, None).is_err());
    }
}
