//! cargo-fuzz target: see zom_fuzz::metadata_document.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zom_fuzz::metadata_document::run(data);
});
