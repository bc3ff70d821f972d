//! Fuzz target `ir_passes`: see `weft_devtools::fuzz::targets::ir_passes`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_devtools::fuzz::targets::ir_passes(data));
