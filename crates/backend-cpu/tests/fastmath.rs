//! Fast-math flags in the CPU backend: `contract` products and sums become
//! `fma` when the host has one; without flags nothing is fused.

use weft_backend_cpu::{emit_text, Options};
use weft_ir::text::parse_module;

const KERNEL: &str = "kernel @k(v0: array1<f32>, v1: array1<f32>) {
  v2: i32 = thread_id
  v3: f32 = load v0[v2]
  v4: f32 = sqrt v3 FLAGS
  v5: f32 = mul v4, v3 FLAGS
  v6: f32 = add v5, v4 FLAGS
  v7: f32 = sub v4, v5 FLAGS
  v8: f32 = add v6, v7 FLAGS
  store v1[v2], v8
  return
}
";

fn clif(flags: &str) -> String {
    let m = parse_module(&KERNEL.replace("FLAGS", flags)).unwrap();
    weft_ir::verify::verify_module(&m).unwrap();
    emit_text(
        &m,
        &weft_ir::verify::verify_module(&m).expect("verifies"),
        &Options::default(),
    )
    .unwrap()
}

fn host_has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        cfg!(target_arch = "aarch64")
    }
}

#[test]
fn precise_code_has_no_fma() {
    assert!(!clif("").contains(" fma "));
    // `afn` alone allows no fusion.
    assert!(!clif("fast(afn)").contains(" fma "));
}

#[test]
fn contract_fuses_mul_add_and_mul_sub() {
    let text = clif("fast(contract,afn)");
    if host_has_fma() {
        // Each copy of the body (the kernel loop may be unrolled) has one
        // fused add and one fused sub, whose product operand is negated.
        let (fmas, fnegs) = (
            text.matches(" fma ").count(),
            text.matches(" fneg ").count(),
        );
        assert!(fmas >= 2 && fmas == 2 * fnegs, "{text}");
    } else {
        assert!(!text.contains(" fma "), "{text}");
    }
}
