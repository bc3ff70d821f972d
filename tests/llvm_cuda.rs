//! The LLVM-backed devices through the public API and the CLI: `llvm-cpu`
//! runs kernels like `cpu`; `cuda` without a driver is a clean error; PTX
//! and LLVM IR come out of `weft build`; the PTX cache hits and rebuilds.
//! (Built with the `llvm` feature; `tests/cli.rs` checks what a build
//! without it says.)
#![cfg(feature = "llvm")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use weft::{Arg, Array, Compiler, Device, PtxOptions};

const SAXPY: &str = r#"import warp as wp

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
"#;

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("llvm_cuda")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn llvm_cpu_matches_cpu_and_checks_arguments() {
    let m = Compiler::new().compile("saxpy.py", SAXPY).unwrap();
    let n = 10_000;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let mut results = Vec::new();
    for dev in [Device::cpu(), Device::open("llvm-cpu").unwrap()] {
        let k = dev.load(&m, "saxpy").unwrap();
        let xa = Array::from_slice(&x, &[n]).unwrap();
        let ya = Array::from_slice(&vec![1.0f32; n], &[n]).unwrap();
        dev.launch(&k, &[n], &[Arg::array(&xa), Arg::array(&ya), Arg::f32(3.0)])
            .unwrap();
        results.push(ya.to_vec::<f32>().unwrap());
        let err = dev.launch(&k, &[n], &[Arg::array(&xa)]).unwrap_err();
        assert!(
            err.to_string()
                .contains("missing argument for parameter `y`"),
            "{err}"
        );
        let wrong = Array::from_slice(&vec![0.0f64; n], &[n]).unwrap();
        let err = dev
            .launch(
                &k,
                &[n],
                &[Arg::array(&wrong), Arg::array(&ya), Arg::f32(1.0)],
            )
            .unwrap_err();
        assert!(err.to_string().contains("`x`"), "{err}");
        assert!(err.to_string().contains("got array1<f64>"), "{err}");
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(results[1][8], 3.0 * 2.0 + 1.0);
}

#[test]
fn cuda_without_a_driver_is_an_error() {
    let err = match Device::open("cuda") {
        Ok(_) => {
            weft_testkit::skip("a CUDA device is present; this test is for machines without one");
            return;
        }
        Err(e) => e.to_string(),
    };
    if !err.contains("no CUDA driver found") {
        weft_testkit::skip(format!(
            "a CUDA driver is present ({err}); this test is for machines without one"
        ));
        return;
    }
    assert!(Device::open("cuda:1").is_err());

    // The CLI part needs the corpus.
    let Some(case) = common::corpus_case("seed_double_kernel") else {
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["run", case.to_str().unwrap(), "--backend", "cuda"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no CUDA driver found"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn build_emits_ptx_and_llvm_ir() {
    let dir = scratch("build");
    let file = dir.join("saxpy.py");
    std::fs::write(&file, SAXPY).unwrap();
    let weft = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_weft"))
            .arg("build")
            .arg(&file)
            .args(args)
            .env("WEFT_CACHE_DIR", dir.join("cache"))
            .output()
            .unwrap()
    };
    let out = weft(&["--emit", "ptx", "--arch", "sm_90"]);
    let ptx = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(ptx.contains(".target sm_90"), "{ptx}");
    assert!(ptx.contains(".entry saxpy"), "{ptx}");

    let out = weft(&["--emit", "llvm"]);
    let ir = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(ir.contains("nvptx64-nvidia-cuda"), "{ir}");
    let out = weft(&["--emit", "llvm", "--llvm-target", "host"]);
    let ir = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(ir.contains("define") && !ir.contains("nvptx"), "{ir}");

    let out = weft(&["--emit", "ptx", "--arch", "sm_99"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("sm_99"));

    let out = weft(&["--emit", "ptx", "--ptxas-info"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if weft::backend_llvm::find_ptxas().is_some() {
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains("registers"), "{stderr}");
    } else {
        assert!(!out.status.success());
        assert!(stderr.contains("ptxas not found"), "{stderr}");
    }
}

#[test]
fn ptx_cache_hits_and_rebuilds_corrupt_entries() {
    let dir = scratch("ptx_cache");
    let cache = weft_cache::Cache::open(dir.join("c")).unwrap();
    let m = Compiler::new().compile("saxpy.py", SAXPY).unwrap();
    let opts = PtxOptions::default();
    let info = weft::ir::verify::verify_module(m.ir()).unwrap();
    let (a, hit) = weft_runtime::cached::ptx(Some(&cache), m.ir(), &info, &opts).unwrap();
    assert!(!hit);
    let (b, hit) = weft_runtime::cached::ptx(Some(&cache), m.ir(), &info, &opts).unwrap();
    assert!(hit);
    assert_eq!(a.ptx, b.ptx);
    assert_eq!(a.kernels, b.kernels);
    // Another architecture is another entry.
    let sm90 = PtxOptions {
        arch: "sm_90".into(),
        ..Default::default()
    };
    let (_, hit) = weft_runtime::cached::ptx(Some(&cache), m.ir(), &info, &sm90).unwrap();
    assert!(!hit);
    // Corrupt every entry: the next lookup rebuilds the same PTX.
    for e in std::fs::read_dir(cache.dir()).unwrap().flatten() {
        let mut bytes = std::fs::read(e.path()).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x55;
        std::fs::write(e.path(), bytes).unwrap();
    }
    let (c, hit) = weft_runtime::cached::ptx(Some(&cache), m.ir(), &info, &opts).unwrap();
    assert!(!hit);
    assert_eq!(c.ptx, a.ptx);
    let (_, hit) = weft_runtime::cached::ptx(Some(&cache), m.ir(), &info, &opts).unwrap();
    assert!(hit);
}

#[test]
fn conformance_corpus_on_llvm_cpu() {
    let Some(case) = common::corpus_case("seed_double_kernel") else {
        return;
    };
    let dir = case.parent().unwrap().parent().unwrap();
    let mut failures = Vec::new();
    let summary = weft_conform::run_dir(
        dir,
        &Device::open("llvm-cpu").unwrap(),
        &Compiler::new(),
        |r| {
            failures.extend(r.line());
        },
    )
    .unwrap();
    assert_eq!(summary.failed, 0, "{failures:#?}");
    assert!(summary.passed >= 100, "{summary}");
}
