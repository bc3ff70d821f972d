//! Fuzz target `case_loader`: see `weft_cli::fuzz::targets::case_loader`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_cli::fuzz::targets::case_loader(data));
