//! Fuzz target `ir_passes`: see `weft_cli::fuzz::targets::ir_passes`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_cli::fuzz::targets::ir_passes(data));
