//! cargo-fuzz target: see zom_fuzz::selection_plan.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zom_fuzz::selection_plan::run(data);
});
