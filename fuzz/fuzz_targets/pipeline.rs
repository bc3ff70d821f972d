//! Fuzz target `pipeline`: see `weft_cli::fuzz::targets::pipeline`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_cli::fuzz::targets::pipeline(data));
