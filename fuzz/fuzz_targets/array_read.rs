//! cargo-fuzz target: see zom_fuzz::array_read.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zom_fuzz::array_read::run(data);
});
