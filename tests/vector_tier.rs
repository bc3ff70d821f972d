//! The vector tier (`docs/vector.md`) against the scalar thread loop: every
//! conformance case (the shared corpus, its gradient cases and Weft's own
//! cases) runs on `llvm-cpu` with the tier on and off, and every buffer
//! must be bit for bit the same, except where float atomic adds are
//! reassociated (the reductions, and atomics whose lanes add in lane order
//! per instruction rather than in thread order): those buffers, and the
//! gradients (which adjoints accumulate with atomic adds), are compared
//! within the case's tolerance. Transcendentals
//! are the same host shims in both tiers, so they are compared bit for bit
//! too. Also: the tier takes the kernels it should (the IR of a kernel that
//! it takes has `<W x ...>` vectors), and kernels that run lanes apart
//! (divergent loops, early returns, masked stores at the tail) match.
#![cfg(feature = "llvm")]

mod common;

use std::path::Path;
use weft::{Arg, Array, Compiler, Device, DeviceOptions};
use weft_cli::conform::{self, Case};

fn llvm_cpu(vector: bool) -> Device {
    let o = DeviceOptions {
        vector,
        ..DeviceOptions::default()
    };
    Device::open_with("llvm-cpu", &o).expect("llvm-cpu")
}

/// Buffers written by a float atomic add (whose sum the reductions
/// reassociate): any `atomic_add`/`atomic_sub` or `+=` into an array of a
/// float type is enough to compare that case within its tolerance.
fn reassociates(case: &Case) -> bool {
    let src = std::fs::read_to_string(case.dir.join("kernel.py")).unwrap_or_default();
    src.contains("atomic_add")
        || src.contains("atomic_sub")
        || src.contains("] +=")
        || src.contains("] -=")
}

fn same(a: &Array, b: &Array, case: &Case, name: &str, loose: bool) -> Result<(), String> {
    if a.to_bytes() == b.to_bytes() {
        return Ok(());
    }
    if loose {
        let (rtol, atol) = case.tolerance(name);
        let want = weft_cli::conform::data::array_to_npy(b);
        if let Ok(None) = conform::compare(name, a, &want, rtol, atol) {
            return Ok(());
        }
    }
    Err(format!(
        "{}: buffer `{name}` differs between the tiers",
        case.name
    ))
}

fn check_dir(dir: &Path) -> usize {
    let (vec_dev, scalar_dev) = (llvm_cpu(true), llvm_cpu(false));
    let compiler = Compiler::new();
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in conform::find_cases(dir).expect("cases") {
        let case = Case::load(&path).expect("case");
        let (v, s) = (
            conform::run_case(&case, &vec_dev, &compiler),
            conform::run_case(&case, &scalar_dev, &compiler),
        );
        let (v, s) = match (v, s) {
            (Ok(v), Ok(s)) => (v, s),
            (v, s) => {
                failures.push(format!("{}: {:?} / {:?}", case.name, v.err(), s.err()));
                continue;
            }
        };
        ran += 1;
        let loose = reassociates(&case);
        for ((name, a), (_, b)) in v.buffers.iter().zip(&s.buffers) {
            if let Err(e) = same(a, b, &case, name, loose) {
                failures.push(e);
            }
        }
        // Gradients are accumulated by float atomic adds, in lane order
        // here and thread order there.
        for ((name, a), (_, b)) in v.grads.iter().zip(&s.grads) {
            if let Err(e) = same(a, b, &case, name, true) {
                failures.push(format!("{e} (gradient)"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    ran
}

#[test]
fn every_conformance_case_is_the_same_in_both_tiers() {
    let Some(dir) = common::corpus() else { return };
    assert!(check_dir(&dir) > 100);
    assert!(check_dir(&dir.join("grad")) > 40);
}

#[test]
fn own_cases_are_the_same_in_both_tiers() {
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    assert!(check_dir(&own) > 20);
}

const LANES_APART: &str = r#"import warp as wp

@wp.kernel
def apart(a: wp.array(dtype=float), n: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    if i % 7 == 3:
        return
    s = float(0.0)
    k = int(0)
    # A loop whose trip count differs per thread, with a break and a
    # continue taken by some lanes only.
    while k < n[i]:
        k = k + 1
        if k % 5 == 0:
            continue
        s = s + wp.sin(a[i] * float(k))
        if s > 3.0:
            break
    if i % 2 == 0:
        out[i] = s
    else:
        out[i] = -s
"#;

#[test]
fn divergent_control_matches_the_scalar_loop() {
    let m = Compiler::new().compile("apart.py", LANES_APART).unwrap();
    let text = m.llvm_ir(None).unwrap();
    assert!(text.contains("x float>"), "the vector tier took the kernel");
    // Sizes around the vector width: tails of every length.
    for n in [1usize, 5, 16, 17, 33, 100, 1001] {
        let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
        let counts: Vec<i32> = (0..n).map(|i| (i * 13 % 29) as i32).collect();
        let mut outs = Vec::new();
        for dev in [llvm_cpu(true), llvm_cpu(false)] {
            let k = dev.load(&m, "apart").unwrap();
            let aa = Array::from_slice(&a, &[n]).unwrap();
            let na = Array::from_slice(&counts, &[n]).unwrap();
            let out = Array::from_slice(&vec![7.5f32; n], &[n]).unwrap();
            dev.launch(
                &k,
                &[n],
                &[Arg::array(&aa), Arg::array(&na), Arg::array(&out)],
            )
            .unwrap();
            outs.push(out.to_vec::<f32>().unwrap());
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&outs[0]), bits(&outs[1]), "n = {n}");
        if n > 3 {
            assert!(outs[0].contains(&7.5), "returned lanes store nothing");
        }
    }
}
