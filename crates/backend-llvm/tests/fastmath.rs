//! Fast-math flags in the LLVM lowering: the IR's per-operation flags (the
//! one source of fast math: no backend option) become LLVM fast-math flags,
//! and PTX then uses `.approx` instructions and `fma.rn`; without flags
//! neither appears.

mod common;

use common::{emit_ptx, llvm_ir};
use weft_backend_llvm::Options;
use weft_ir::text::parse_module;
use weft_ir::OptLevel;

const KERNEL: &str = "kernel @k(v0: array1<f32>, v1: array1<f32>) {
  v2: i32 = thread_id
  v3: f32 = load v0[v2]
  v4: f32 = sin v3 FLAGS
  v5: f32 = mul v4, v3 FLAGS
  v6: f32 = add v5, v4 FLAGS
  v7: f32 = div v6, v3 FLAGS
  v8: f32 = sqrt v7 FLAGS
  store v1[v2], v8
  return
}
";

fn module(flags: &str) -> weft_ir::Module {
    let m = parse_module(&KERNEL.replace("FLAGS", flags)).unwrap();
    weft_ir::verify::verify_module(&m).unwrap();
    m
}

/// The PTX of the kernel with `flags`; `None` (a counted SKIP) when it
/// needs libdevice (a precise `sin`) and none is here.
fn ptx(flags: &str) -> Option<String> {
    match emit_ptx(&module(flags), &Options::default()) {
        Ok(a) => Some(a.ptx),
        Err(weft_backend_llvm::Error::NoLibdevice { .. }) => {
            weft_testkit::skip("libdevice.10.bc not found (WEFT_LIBDEVICE, CUDA_HOME or .venv)");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn llvm_ir_carries_the_flags() {
    let host = |m| llvm_ir(&m, None, OptLevel::O2);
    let precise = host(module(""));
    assert!(!precise.contains("contract"), "{precise}");
    let fast = host(module("fast(contract,afn,nnan,ninf)"));
    assert!(fast.contains("fmul nnan ninf arcp contract afn"), "{fast}");
    assert!(fast.contains("fadd nnan ninf arcp contract afn"), "{fast}");
    assert!(fast.contains("fdiv nnan ninf arcp contract afn"), "{fast}");
    let contract = host(module("fast(contract)"));
    assert!(contract.contains("fadd contract"), "{contract}");
    assert!(!contract.contains("afn"), "{contract}");
}

#[test]
fn ptx_precise_has_no_approx_or_fusion() {
    let Some(text) = ptx("") else { return };
    assert!(!text.contains(".approx"), "{text}");
    // `.rn` on a separate multiply and add keeps ptxas from fusing them.
    assert!(text.contains("mul.rn.f32"), "{text}");
    assert!(text.contains("add.rn.f32"), "{text}");
}

#[test]
fn ptx_flags_select_approx_and_fma() {
    let Some(text) = ptx("fast(contract,afn)") else {
        return;
    };
    assert!(text.contains("sin.approx.f32"), "{text}");
    assert!(
        text.contains("div.approx.f32") || text.contains("div.full.f32"),
        "{text}"
    );
    assert!(text.contains("sqrt.approx.f32"), "{text}");
    assert!(text.contains("fma.rn.f32"), "{text}");
    // Contraction alone: fused, but precise functions and division.
    let Some(text) = ptx("fast(contract)") else {
        return;
    };
    assert!(text.contains("fma.rn.f32"), "{text}");
    assert!(!text.contains(".approx"), "{text}");
}
