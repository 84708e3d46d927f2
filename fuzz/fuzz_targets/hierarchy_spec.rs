//! cargo-fuzz target: see zom_fuzz::hierarchy_spec.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zom_fuzz::hierarchy_spec::run(data);
});
