//! Fuzz target `pipeline`: see `weft_devtools::fuzz::targets::pipeline`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_devtools::fuzz::targets::pipeline(data));
