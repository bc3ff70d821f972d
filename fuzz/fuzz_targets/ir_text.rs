//! Fuzz target `ir_text`: see `weft_cli::fuzz::targets::ir_text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| weft_cli::fuzz::targets::ir_text(data));
