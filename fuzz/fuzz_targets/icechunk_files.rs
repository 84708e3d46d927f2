//! cargo-fuzz target: see zom_fuzz::icechunk_files.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zom_fuzz::icechunk_files::run(data);
});
