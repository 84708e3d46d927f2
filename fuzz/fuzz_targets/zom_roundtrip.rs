//! cargo-fuzz target: see zom_fuzz::zom_roundtrip.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zom_fuzz::zom_roundtrip::run(data);
});
