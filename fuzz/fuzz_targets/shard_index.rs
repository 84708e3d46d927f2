//! cargo-fuzz target: see zom_fuzz::shard_index.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    zom_fuzz::shard_index::run(data);
});
