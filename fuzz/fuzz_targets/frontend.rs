//! Fuzz target `frontend`: see `weft_devtools::fuzz::targets::frontend`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_devtools::fuzz::targets::frontend(data));
