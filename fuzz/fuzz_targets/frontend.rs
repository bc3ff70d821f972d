//! Fuzz target `frontend`: see `weft_cli::fuzz::targets::frontend`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_cli::fuzz::targets::frontend(data));
