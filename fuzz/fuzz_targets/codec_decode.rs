//! cargo-fuzz target: see zom_fuzz::codec_decode.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zom_fuzz::codec_decode::run(data);
});
