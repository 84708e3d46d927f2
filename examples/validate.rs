//! Validates metadata documents given as files and prints each report as one JSON line.
//!
//! `cargo run --example validate -- [--strict] [--extensions] path/to/zarr.json …`
//! The file name (`zarr.json`, `.zarray`, …) tells the document kind.

use zom::validate::{validate_document_bytes, ValidateOptions};

fn main() {
    let mut options = ValidateOptions::default();
    let mut paths = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--strict" => options.strict = true,
            "--extensions" => options.extensions = true,
            _ => paths.push(arg),
        }
    }
    for path in paths {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        };
        let key = path.rsplit('/').next().unwrap_or(&path).to_string();
        let report = validate_document_bytes(
            &bytes,
            &ValidateOptions {
                key: Some(key),
                ..options.clone()
            },
        );
        let line = serde_json::json!({"file": path, "report": report});
        println!("{line}");
    }
}
