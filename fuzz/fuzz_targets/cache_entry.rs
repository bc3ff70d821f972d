//! Fuzz target `cache_entry`: see `weft_devtools::fuzz::targets::cache_entry`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_devtools::fuzz::targets::cache_entry(data));
