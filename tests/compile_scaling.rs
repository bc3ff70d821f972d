//! The kernels of `weft bench --workload compile-scaling` (issue 18) run
//! right where compile time made the backends take other paths: a module
//! of many kernels (compiled in parallel: Cranelift functions, LLVM parts)
//! and a kernel of many calls (LLVM's fast code generation on llvm-cpu);
//! and the workload's quick mode reports what it measured.

use weft::{Arg, Array, Compiler, Device};
use weft_devtools::bench::scaling::{self, kernels};

/// The devices compared with the interpreter.
fn devices() -> Vec<Device> {
    let mut v = vec![Device::cpu()];
    if cfg!(feature = "llvm") {
        v.push(Device::open("llvm-cpu").unwrap());
    }
    v
}

/// `kernel` of `m` launched over `x` (and `y`, or `c` for the chain
/// kernel) on `dev`: the output array.
fn run(dev: &Device, m: &weft::Module, kernel: &str, chain: bool) -> Vec<f32> {
    let n = 257;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.01 - 1.0).collect();
    let x = Array::from_slice(&xs, &[n]).unwrap();
    let y = Array::from_slice(&vec![0.25f32; n], &[n]).unwrap();
    let k = dev.load(m, kernel).unwrap();
    let mut args = vec![Arg::array(&x), Arg::array(&y)];
    if chain {
        args.push(Arg::f32(0.01));
    }
    dev.launch(&k, &[n], &args).unwrap();
    y.to_vec::<f32>().unwrap()
}

#[test]
fn a_module_of_many_kernels_runs_like_the_interpreter() {
    let k = 300;
    let m = Compiler::new()
        .compile("many.py", &kernels::many_kernels(k))
        .unwrap();
    let names: Vec<String> = kernels::many_kernel_names(k).collect();
    assert_eq!(m.kernel_names(), names);
    for dev in devices() {
        for name in ["kernel_0", "kernel_150", "kernel_299"] {
            let want = run(&Device::interp(), &m, name, false);
            assert_eq!(run(&dev, &m, name, false), want, "{name} on {}", dev.name());
        }
    }
}

#[test]
fn a_kernel_of_many_calls_runs_like_the_interpreter() {
    // More calls than llvm-cpu's fast code generation threshold.
    let n = 2100;
    let m = Compiler::new()
        .compile("chain.py", &kernels::chain(n))
        .unwrap();
    let want = run(&Device::interp(), &m, "chain", true);
    for dev in devices() {
        assert_eq!(run(&dev, &m, "chain", true), want, "on {}", dev.name());
    }
}

#[test]
fn a_kernel_above_the_single_pass_regalloc_threshold_runs_like_the_interpreter() {
    // About 8 Cranelift instructions per statement, twice (the kernel's
    // unit-stride copy): 6000 statements are well above
    // `weft_backend_cpu::SINGLE_PASS_REGALLOC_INSTS`, so the CPU JIT
    // register-allocates this kernel with Cranelift's single pass.
    let n = 6000;
    assert!(n * 8 > weft_backend_cpu::SINGLE_PASS_REGALLOC_INSTS);
    let m = Compiler::new()
        .compile("chain.py", &kernels::chain(n))
        .unwrap();
    let want = run(&Device::interp(), &m, "chain", true);
    assert_eq!(run(&Device::cpu(), &m, "chain", true), want);
}

#[test]
fn the_quick_workload_reports_every_size_and_the_module() {
    let mut backends = vec!["cpu".to_string(), "hlsl".to_string()];
    if cfg!(feature = "llvm") {
        backends.push("ptx".into());
    }
    let r = scaling::run(true, &backends, |_| {}).unwrap();
    for (b, why) in &r.skipped {
        // Only PTX may be missing something (libdevice).
        assert_eq!(b, "ptx", "{why}");
        weft_testkit::skip(format!("compile-scaling on ptx: {why}"));
        backends.retain(|x| x != b);
    }
    let rows: Vec<&str> = r.chain.iter().map(|c| c.backend.as_str()).collect();
    let mut want = vec!["frontend+passes"];
    want.extend(backends.iter().map(String::as_str));
    assert_eq!(rows, want);
    for c in &r.chain {
        let ns: Vec<usize> = c.sizes.iter().map(|(n, _)| *n).collect();
        assert_eq!(ns, scaling::sizes(true), "{}", c.backend);
        assert!(c.sizes.iter().all(|(_, s)| s.wall > 0.0 && s.runs == 1));
        assert!(c.exponent.is_some_and(f64::is_finite), "{}", c.backend);
    }
    assert_eq!(r.module.len(), want.len());
    assert!(r.module.iter().all(|m| m.one.wall > 0.0 && m.speedup > 0.0));
    let table = r.table();
    assert!(table.contains("N = 2000, s"), "{table}");
    assert!(table.contains("50 small kernels"), "{table}");
    let json = r.json();
    assert_eq!(json["chain"].as_array().map(Vec::len), Some(want.len()));
}

#[test]
fn the_exponent_is_the_slope_of_the_logarithms() {
    let quad: Vec<(f64, f64)> = [10.0, 100.0, 1000.0]
        .map(|n: f64| (n, 3.0 * n * n))
        .to_vec();
    let k = scaling::fit_exponent(&quad).unwrap();
    assert!((k - 2.0).abs() < 1e-9, "{k}");
    let lin = [(1000.0, 0.05), (5000.0, 0.25), (20000.0, 1.0)];
    let k = scaling::fit_exponent(&lin).unwrap();
    assert!((k - 1.0).abs() < 1e-9, "{k}");
    assert_eq!(scaling::fit_exponent(&[(1.0, 1.0)]), None);
}
