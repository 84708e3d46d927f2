//! cargo-fuzz target: see zom_fuzz::zip_archive.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zom_fuzz::zip_archive::run(data);
});
