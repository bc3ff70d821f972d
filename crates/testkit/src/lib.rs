//! # weft-testkit — what Weft's tests share (dev only)
//!
//! * [`corpus`]: where the conformance corpus is (`$WEFT_CONFORMANCE_DIR`,
//!   else `shared/conformance` beside the workspace), and what a test does
//!   when it is missing: with `WEFT_REQUIRE_CORPUS=1` (CI sets it) it
//!   fails; otherwise it is skipped ([`skip`]).
//! * [`skip`]: a test that returns early because a tool, a device or data
//!   is missing says `SKIP: <why>` on stdout and is counted: each skip is
//!   appended to the file `$WEFT_SKIP_LOG` names (`scripts/test.sh` sets it
//!   and prints the count and the reasons at the end).
//! * [`bless`]: whether `WEFT_BLESS=1` asks tests to rewrite their expected
//!   outputs instead of comparing against them.
//! * [`snapshot`]: compare a text with its checked-in expectation, with a
//!   line diff, or rewrite it when blessing.
//! * [`filetest`]: the directive syntax of `.ir` file tests (`; test …`,
//!   `; check:`, `; not:`, `; error:`, `; run:`, `; expect:`) and the
//!   ordered-substring check, shared by the pass and backend file tests.
//!
//! It depends on no Weft crate, so every crate can use it for its tests.

pub mod corpus;
pub mod filetest;
pub mod snapshot;

use std::io::Write;

/// Prints `SKIP: <why>` (what `cargo test` output shows) and counts the
/// skip in `$WEFT_SKIP_LOG`, one line `<test binary>: <why>` each.
pub fn skip(why: impl std::fmt::Display) {
    println!("SKIP: {why}");
    if let Some(path) = std::env::var_os("WEFT_SKIP_LOG").filter(|p| !p.is_empty()) {
        let exe = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        // The binary's name without cargo's hash suffix.
        let name = exe.rsplit_once('-').map_or(exe.as_str(), |(n, _)| n);
        // One write of the whole line: tests run on several threads (and
        // binaries), and an append of one small write is not interleaved.
        let line = format!("{name}: {why}\n");
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// Whether `WEFT_BLESS=1`: rewrite expected outputs from the actual ones.
pub fn bless() -> bool {
    std::env::var_os("WEFT_BLESS").is_some_and(|v| v == "1")
}
