//! The bodies of the fuzz targets of `fuzz/` (`cargo fuzz run <name>`),
//! one function per target ([`TARGETS`]). Each takes arbitrary bytes and
//! returns normally on any input a layer handles as it promises (a typed
//! error counts as handled); it panics — the fuzzer's "crash" — when an
//! invariant is broken:
//!
//! * `frontend`: source text → IR. Never panics; what compiles verifies.
//! * `pipeline`: source text → IR → pass pipelines (O0, O1, O2 with
//!   the opt-in passes, SoA layout, bounds checks), the verifier after
//!   every pass → the CPU backend (CLIF) and the HLSL backend; and the
//!   backward module (the adjoint pass, Warp's loop rule or exact loops)
//!   through pipelines. A verifier failure after a pass, or a backend's
//!   code generator failing on verified IR, is a bug. Each input takes
//!   two of the five pipelines and one loop rule ([`Pick`]).
//! * `ir_text`: IR text → parser → verifier (and `ModuleInfo`); a module
//!   that parses prints back to text that parses to the same text.
//! * `ir_passes`: IR text that verifies → each pass alone, the adjoint
//!   pass and two of the pipelines ([`Pick`]), the verifier after each;
//!   then the backends.
//! * `case_loader`: a conformance case (case.json, kernel.py, npy files)
//!   → case parser, npy parser, arrays, scalar arguments, the comparison
//!   rule. Every failure is a typed error; what loads round-trips.
//! * `cache_entry`: bytes as a compile-cache entry → the entry decoder, a
//!   lookup (a bad entry is a miss and is removed), the facade's IR cache
//!   (a hit is IR that verifies, anything else is rebuilt) and the SPIR-V
//!   payload decoder.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use weft::ir::verify::verify_module;
use weft::ir::{ArrayLayout, Module, OptLevel, StructTable};
use weft_conform::{self as conform, data, npy::Npy, Case};
use weft_passes::{LayoutOptions, Pass, PassError, PipelineOptions, VerifyMode};

/// A fuzz target: its name (the file `fuzz/fuzz_targets/<name>.rs`) and
/// body.
pub type Target = (&'static str, fn(&[u8]));

/// Every fuzz target, in the order `scripts/fuzz.sh` runs them.
pub const TARGETS: &[Target] = &[
    ("frontend", frontend),
    ("pipeline", pipeline),
    ("ir_text", ir_text),
    ("ir_passes", ir_passes),
    ("case_loader", case_loader),
    ("cache_entry", cache_entry),
];

/// The target named `name`.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Separates the parts of a `case_loader` input: case.json, kernel.py,
/// then npy files (for each buffer its contents, then an expected file).
pub const PART_SEPARATOR: &[u8] = b"\n--8<--\n";

/// Source text → IR; what compiles verifies.
pub fn frontend(data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = weft_frontend::compile("fuzz.py", source) {
        if let Err(e) = verify_module(&m) {
            panic!("the frontend's IR does not verify: {e}");
        }
    }
}

/// Source text → IR → every pipeline → backends.
pub fn pipeline(data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = weft_frontend::compile_for_backward("fuzz.py", source) else {
        return;
    };
    if let Err(e) = verify_module(&m) {
        panic!("the frontend's IR does not verify: {e}");
    }
    let pick = Pick::of(data);
    passes_and_backends(&m, pick);
    adjoints(&m, Some(pick.next()));
}

/// Which configurations one input goes through: a hash of its bytes
/// picks two of the five pipelines of [`passes_and_backends`] and one of
/// the adjoint's two loop rules, so that an input costs a fraction of the
/// whole set (under ASan and coverage instrumentation a 30-line kernel
/// through all of them took over libFuzzer's 10 s limit on a loaded
/// machine), while the corpus, whose inputs hash differently, covers
/// them all.
#[derive(Copy, Clone)]
struct Pick(u64);

impl Pick {
    fn of(data: &[u8]) -> Pick {
        // FNV-1a.
        Pick(data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        }))
    }
    /// Another pick for a derived module (the backward one).
    fn next(self) -> Pick {
        Pick(self.0.rotate_right(17).wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }
    /// Whether pipeline `i` of `n` runs: two consecutive ones (mod `n`).
    fn pipeline(self, i: usize, n: usize) -> bool {
        (i + n - (self.0 % n as u64) as usize) % n < 2
    }
    fn exact_loops(self) -> Option<u32> {
        (self.0 >> 32 & 1 == 1).then_some(2)
    }
}

/// The backward module of verified `m` (Warp's rule for dynamic loops,
/// or exact loops keeping 2 states, as `pick` says; both without a pick),
/// through the pipelines and backends `pick` picks when there is one. A
/// typed error (a construct without an adjoint, a kernel without
/// backward) is fine; a backward module that does not verify is a bug.
fn adjoints(m: &Module, pick: Option<Pick>) {
    use weft_passes::adjoint::{adjoint_module, AdjointError, AdjointOptions};
    let rules = match pick {
        Some(p) => vec![p.exact_loops()],
        None => vec![None, Some(2)],
    };
    for exact_loops in rules {
        let opts = AdjointOptions {
            exact_loops,
            ..Default::default()
        };
        match adjoint_module(m, &opts) {
            Ok(b) => match verify_module(&b) {
                Ok(_) => {
                    if let Some(p) = pick {
                        passes_and_backends(&b, p.next());
                    }
                }
                Err(e) => panic!("the backward module does not verify: {e}"),
            },
            Err(e @ AdjointError::Verify(_)) => panic!("adjoint pass on verified IR: {e}"),
            Err(_) => {}
        }
    }
}

/// IR text → parser → verifier; the text form round-trips.
pub fn ir_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = weft::ir::text::parse_module(text) else {
        return;
    };
    let _ = weft::ir::ModuleInfo::of(&m);
    let verified = verify_module(&m).is_ok();
    // Text that parses is not broken in the ways that print with
    // placeholders, so it must print back to text that reads the same.
    if let Err(e) = weft::ir::text::check_roundtrip(&m) {
        panic!("parsed IR does not round-trip: {e}");
    }
    if verified {
        let printed = weft::ir::text::print_module(&m);
        let back = weft::ir::text::parse_module(&printed).expect("round-tripped text parses");
        if let Err(e) = verify_module(&back) {
            panic!("verified IR fails to verify after print → parse: {e}");
        }
    }
}

/// Verified IR text → each pass alone, the adjoint pass, two pipelines, the backends.
pub fn ir_passes(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = weft::ir::text::parse_module(text) else {
        return;
    };
    if verify_module(&m).is_err() {
        return;
    }
    for (name, mut pass) in single_passes() {
        let mut t = m.clone();
        match pass.run(&mut t) {
            Ok(_) => {
                if let Err(e) = verify_module(&t) {
                    panic!("invalid IR after pass `{name}` alone: {e}");
                }
            }
            Err(e) => allowed(&e, name),
        }
    }
    adjoints(&m, None);
    passes_and_backends(&m, Pick::of(data));
}

/// The passes one by one, each from verified input.
fn single_passes() -> Vec<(&'static str, Box<dyn Pass>)> {
    use weft_passes::*;
    let soa = LayoutOptions {
        default: ArrayLayout::Soa,
        params: Vec::new(),
    };
    vec![
        ("inline", Box::new(inline::Inline::default())),
        ("simplify", Box::new(simplify::Simplify)),
        ("dce", Box::new(dce::Dce)),
        ("cse", Box::new(cse::Cse)),
        ("licm", Box::new(licm::Licm)),
        ("unroll", Box::new(unroll::Unroll::default())),
        ("strength-reduce", Box::new(reduce::StrengthReduce)),
        ("fast-math", Box::new(fastmath::FastMath::default())),
        ("soa", Box::new(soa::Soa { options: soa })),
        ("bounds-check", Box::new(bounds::BoundsCheck)),
    ]
}

/// Errors a pass may return on verified input: what it cannot transform
/// (recursion, a layout that does not apply, an unsupported construct, a
/// `wp.grad` that cannot be differentiated). A verifier failure or
/// "malformed IR" on verified input is a bug.
fn allowed(e: &PassError, what: &str) {
    use weft_passes::adjoint::AdjointError;
    match e {
        PassError::Recursion { .. }
        | PassError::Layout { .. }
        | PassError::Unsupported { .. }
        | PassError::Io(..) => {}
        PassError::Grad(AdjointError::Verify(_)) => panic!("{what} on verified IR: {e}"),
        PassError::Grad(_) => {}
        PassError::Verify { .. } | PassError::Malformed { .. } => {
            panic!("{what} on verified IR: {e}")
        }
    }
}

/// Runs every pipeline configuration on verified `m` with the verifier
/// after every pass; each result that succeeds goes through the CPU and
/// HLSL backends.
fn passes_and_backends(m: &Module, pick: Pick) {
    let soa = LayoutOptions {
        default: ArrayLayout::Soa,
        params: Vec::new(),
    };
    let configs: [(&str, PipelineOptions); 5] = [
        ("O0", pipeline_opts(OptLevel::O0, |_| {})),
        ("O1", pipeline_opts(OptLevel::O1, |_| {})),
        (
            "O2+unroll+strength-reduce+fast-math",
            pipeline_opts(OptLevel::O2, |o| {
                o.enable = vec!["unroll".into(), "strength-reduce".into()];
                o.fast_math = true;
            }),
        ),
        (
            "O2 soa",
            pipeline_opts(OptLevel::O2, |o| o.layout = soa.clone()),
        ),
        ("O2", pipeline_opts(OptLevel::O2, |_| {})),
    ];
    let n = configs.len();
    for (_, (name, opts)) in configs
        .iter()
        .enumerate()
        .filter(|(i, _)| pick.pipeline(*i, n))
    {
        let mut t = m.clone();
        match weft_passes::run_pipeline(&mut t, opts) {
            Ok(_) => {
                if *name == "O2" {
                    let mut checked = t.clone();
                    weft_passes::bounds::insert_bounds_checks(&mut checked);
                    match verify_module(&checked) {
                        Ok(_) => backends(&checked, "O2 checked"),
                        Err(e) => panic!("invalid IR after bounds checks: {e}"),
                    }
                }
                backends(&t, name);
            }
            Err(e) => allowed(&e, &format!("pipeline {name}")),
        }
    }
}

fn pipeline_opts(level: OptLevel, f: impl FnOnce(&mut PipelineOptions)) -> PipelineOptions {
    let mut o = PipelineOptions {
        opt_level: level,
        verify: VerifyMode::Always,
        ..PipelineOptions::default()
    };
    f(&mut o);
    o
}

/// The CPU backend (Cranelift, its verifier on) and the HLSL backend on
/// a module that verifies: a typed error is fine, a code generator
/// failure (Cranelift's verifier rejecting the CLIF) is a bug.
fn backends(m: &Module, what: &str) {
    let Ok(info) = verify_module(m) else {
        panic!("{what}: the module does not verify");
    };
    let cpu = weft_backend_cpu::Options {
        verify: true,
        ..Default::default()
    };
    if let Err(e @ weft_backend_cpu::Error::Codegen(_)) =
        weft_backend_cpu::emit_text(m, &info, &cpu)
    {
        panic!("{what}: the CPU backend failed on verified IR: {e}");
    }
    if info.inlined {
        for k in &info.kernels {
            let _ = weft_backend_hlsl::compile_kernel(m, &info, &k.name, &Default::default());
        }
    }
}

/// The structs of a case's `kernel.py` (none if it does not compile).
fn case_structs(part: Option<&[u8]>) -> Arc<StructTable> {
    let structs = part
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|s| weft_frontend::compile("kernel.py", s).ok())
        .map(|m| m.structs)
        .unwrap_or_default();
    Arc::new(structs)
}

/// Splits `data` at every [`PART_SEPARATOR`].
pub fn split_parts(data: &[u8]) -> Vec<&[u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while let Some(i) = rest
        .windows(PART_SEPARATOR.len())
        .position(|w| w == PART_SEPARATOR)
    {
        parts.push(&rest[..i]);
        rest = &rest[i + PART_SEPARATOR.len()..];
    }
    parts.push(rest);
    parts
}

/// A conformance case's files → case, arrays, values, comparisons.
pub fn case_loader(data: &[u8]) {
    let parts = split_parts(data);
    let Ok(json) = std::str::from_utf8(parts[0]) else {
        return;
    };
    let Ok(case) = Case::parse(json, Path::new("case.json"), PathBuf::from("fuzz")) else {
        return;
    };
    let structs = case_structs(parts.get(1).copied());
    let npy_part = |i: usize| parts.get(2 + i).copied().unwrap_or_default();
    for (i, b) in case.buffers.iter().enumerate() {
        let Ok(npy) = Npy::parse(npy_part(2 * i)) else {
            continue;
        };
        let Some(dtype) = data::warp_dtype(&b.dtype, &structs) else {
            continue;
        };
        let Ok(arr) = data::array_from_npy(&npy, dtype, &b.shape) else {
            continue;
        };
        let back = data::array_to_npy(&arr);
        assert_eq!(
            (&back.shape, &back.data),
            (&npy.shape, &npy.data),
            "an npy array does not round-trip"
        );
        let reparsed = Npy::parse(&back.to_bytes()).expect("a written npy parses");
        assert_eq!(
            reparsed.data, npy.data,
            "a written npy reads back differently"
        );
        if let Ok(expected) = Npy::parse(npy_part(2 * i + 1)) {
            let (rtol, atol) = case.tolerance(&b.name);
            let _ = conform::compare(&b.name, &arr, &expected, rtol, atol);
            let _ = conform::diff_stats(&b.name, &arr, &expected, rtol, atol);
        }
    }
    for l in &case.launches {
        for a in &l.args {
            if let conform::ArgSpec::Scalar { dtype, value, .. } = a {
                if let Some(d) = data::warp_dtype(dtype, &structs) {
                    if let Ok(bytes) = data::encode_value(value, &d) {
                        assert_eq!(bytes.len(), d.size(), "a value's bytes are not its size");
                    }
                }
            }
        }
    }
}

/// The source whose IR cache entry [`cache_entry`] replaces.
const CACHED_SOURCE: &str = "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = a[i] * 2.0\n";

/// A scratch cache directory of this thread (the target writes entries
/// and checks what it reads back, so threads must not share one).
fn scratch_cache() -> PathBuf {
    thread_local! {
        static DIR: PathBuf = {
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let d = std::env::temp_dir()
                .join(format!("weft-fuzz-cache-{}-{id}", std::process::id()));
            let _ = std::fs::create_dir_all(&d);
            d
        };
    }
    DIR.with(PathBuf::clone)
}

/// Bytes as a compile-cache entry, and as an entry's payload.
pub fn cache_entry(data: &[u8]) {
    if let Ok(payload) = weft::cache::decode_entry(data) {
        assert!(
            data.ends_with(payload),
            "the decoded payload is not the entry's tail"
        );
    }
    if let Some(words) = weft_runtime::cached::decode_spirv(data) {
        assert_eq!(
            words.len() * 4,
            data.len(),
            "SPIR-V words do not cover the payload"
        );
    }
    let dir = &scratch_cache();
    let Ok(cache) = weft::cache::Cache::open(dir) else {
        return;
    };
    let compiler = weft::Compiler::new().with_cache(weft::CacheLocation::Dir(dir.to_path_buf()));
    let key = weft::cache::CacheKey::of_kind("ir", &[b"fuzz"]);
    let path = cache.entry_path(&key);
    // The raw bytes as an entry file: a lookup is a hit of exactly the
    // decoded payload, or a miss that removed the file.
    if std::fs::write(&path, data).is_ok() {
        match cache.lookup(&key) {
            weft::cache::Lookup::Hit(p) => {
                assert_eq!(
                    Ok(p.as_slice()),
                    weft::cache::decode_entry(data).map_err(drop)
                )
            }
            weft::cache::Lookup::Corrupt(_) => assert!(!path.exists(), "a corrupt entry stayed"),
            weft::cache::Lookup::Miss => {}
        }
    }
    // The bytes as the IR entry of a source, raw and as a whole entry's
    // payload: compiling through the cache succeeds either way (a hit is
    // IR that verifies; anything else is rebuilt).
    let ir_path = dir.join(format!("ir-{}", compiler.ir_key("k.py", CACHED_SOURCE)));
    for whole in [false, true] {
        let written = if whole {
            // A whole entry holding `data`, moved to the source's name.
            let k = weft::cache::CacheKey::of_kind("ir", &[b"fuzz-payload"]);
            cache.put(&k, data).is_ok() && std::fs::rename(cache.entry_path(&k), &ir_path).is_ok()
        } else {
            std::fs::write(&ir_path, data).is_ok()
        };
        if !written {
            continue;
        }
        match compiler.compile_cached("k.py", CACHED_SOURCE) {
            Ok((m, _)) => {
                if let Err(e) = verify_module(m.ir()) {
                    panic!("IR from the cache does not verify: {e}");
                }
            }
            Err(e) => panic!("compiling through a damaged cache failed: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pick;

    #[test]
    fn each_input_takes_two_pipelines_and_the_inputs_take_all() {
        let mut seen = [0usize; 5];
        let mut rules = [0usize; 2];
        for k in 0..64u32 {
            let p = Pick::of(format!("input {k}").as_bytes());
            let on: Vec<usize> = (0..5).filter(|&i| p.pipeline(i, 5)).collect();
            assert_eq!(on.len(), 2, "input {k}: {on:?}");
            for i in on {
                seen[i] += 1;
            }
            rules[usize::from(p.next().exact_loops().is_some())] += 1;
        }
        assert!(seen.iter().all(|&c| c > 0), "{seen:?}");
        assert!(rules.iter().all(|&c| c > 0), "{rules:?}");
    }
}
