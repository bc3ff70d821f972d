//! Fuzz target `ir_text`: see `weft_devtools::fuzz::targets::ir_text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_devtools::fuzz::targets::ir_text(data));
