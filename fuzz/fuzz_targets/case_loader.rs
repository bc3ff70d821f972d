//! Fuzz target `case_loader`: see `weft_devtools::fuzz::targets::case_loader`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_devtools::fuzz::targets::case_loader(data));
