//! `weft compare` over the whole conformance corpus: on every case, every
//! backend available here agrees with the reference interpreter within the
//! case's tolerance (and the interpreter with Warp's outputs).
//!
//! The corpus is at `$WEFT_CONFORMANCE_DIR`, default `shared/conformance`
//! beside an ancestor of the workspace (`weft_testkit::corpus`); when it is
//! missing the test prints a counted `SKIP:` and returns (it fails with
//! `WEFT_REQUIRE_CORPUS=1`).

mod common;

use weft::Compiler;
use weft_conform as conform;
use weft_conform::compare::{backends, compare_case, open_backends, Status};

#[test]
fn every_case_agrees_on_every_available_backend() {
    let Some(dir) = common::corpus() else { return };
    let devices = open_backends(&backends());
    for (name, d) in &devices {
        if let Err(why) = d {
            weft_testkit::skip(format!("backend {name}: {why}"));
        }
    }
    let compiler = Compiler::new();
    let (mut failures, mut unsupported, mut ran) = (Vec::new(), Vec::new(), 0usize);
    let cases = conform::find_cases(&dir).expect("corpus");
    assert!(cases.len() > 100, "{} cases", cases.len());
    for case in &cases {
        let cmp = match compare_case(case, &devices, &compiler) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{}: {}", case.display(), conform::one_line(&e)));
                continue;
            }
        };
        // The interpreter matches Warp, and every backend matches it.
        let bad: Vec<&str> = cmp.rows[1..]
            .iter()
            .filter(|r| r.passed() == Some(false))
            .map(|r| r.backend.as_str())
            .collect();
        if !cmp.rows[0].passed().unwrap_or(false) || !bad.is_empty() {
            failures.push(cmp.table());
        }
        for r in &cmp.rows {
            match &r.status {
                Status::Ran { .. } => ran += 1,
                Status::Unsupported(w) => {
                    unsupported.push(format!("{} on {}: {w}", cmp.case.name, r.backend))
                }
                _ => {}
            }
        }
    }
    for u in &unsupported {
        println!("unsupported: {u}");
    }
    println!(
        "{} cases, {ran} backend runs, {} unsupported, {} failures",
        cases.len(),
        unsupported.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Every backend that opened ran every case or said it cannot.
    let opened = devices.iter().filter(|(_, d)| d.is_ok()).count();
    assert!(opened >= 2, "interp and cpu open everywhere");
    assert_eq!(
        ran + unsupported.len(),
        opened * cases.len(),
        "each opened backend runs every case or reports it unsupported"
    );
}

#[test]
fn table_reports_differences_and_skips() {
    let Some(dir) = common::corpus() else { return };
    let devices = open_backends(&["interp", "cpu", "no-such-backend"]);
    let cmp = compare_case(
        &dir.join("cases/seed_double_kernel"),
        &devices,
        &Compiler::new(),
    )
    .expect("compare");
    let t = cmp.table();
    println!("{t}");
    assert!(t.contains("max |diff|") && t.contains("max ulp"), "{t}");
    let cpu = t.lines().find(|l| l.starts_with("cpu ")).expect("cpu row");
    assert!(cpu.ends_with("pass"), "{cpu}");
    assert!(
        t.contains("no-such-backend") && t.contains("skipped: unknown device"),
        "{t}"
    );
    assert!(cmp.agree());
}

#[test]
fn bench_quick_reports_every_backend_as_json() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["bench", "--quick", "--json"])
        .args([
            "--backend",
            "cpu",
            "--backend",
            "interp",
            "--backend",
            "cuda",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let rows = j["rows"].as_array().unwrap();
    let workloads = [
        "saxpy",
        "scale",
        "nbody",
        "transcendental",
        "atomic sum",
        "particles 2^14 AoS",
        "particles 2^14 SoA",
    ];
    for b in ["cpu", "interp", "cuda"] {
        let ran = rows.iter().filter(|r| r["backend"] == b).count();
        let skipped = j["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["backend"] == b);
        assert!(
            ran == workloads.len() || (ran == 0 && skipped),
            "{b}: {text}"
        );
    }
    for r in rows.iter().filter(|r| r["backend"] == "cpu") {
        assert!(r["throughput"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["compile_cold_ms"].as_f64().unwrap() > 0.0, "{r}");
        let w = r["workload"].as_str().unwrap();
        assert!(workloads.iter().any(|p| w.starts_with(p)), "{w}");
        // Every workload but the transcendental one has a hand-written
        // scalar version (vs rayon), and all but it and scale a SIMD one
        // (vs limit).
        let rayon = !w.starts_with("transcendental");
        let simd = rayon && !w.starts_with("scale");
        assert_eq!(r["vs_rayon"].is_number(), rayon, "{r}");
        assert_eq!(r["vs_limit"].is_number(), simd, "{r}");
        if simd {
            // The limit is the fastest SIMD version (cpu is the only
            // backend timed, so the footer's times are this row's).
            let simd = j["simd_ms"].as_array().unwrap().iter();
            let (fastest, ms) = simd
                .filter(|s| s["workload"] == w)
                .map(|s| (s["isa"].as_str().unwrap(), s["ms"].as_f64().unwrap()))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            assert_eq!(r["limit_isa"], fastest, "{r}");
            let want = r["run_ms"].as_f64().unwrap() / ms;
            let got = r["vs_limit"].as_f64().unwrap();
            assert!((got - want).abs() <= 1e-9 * want, "{got} vs {want}: {r}");
        }
    }
    let simd = j["simd_ms"].as_array().unwrap();
    let isas = j["simd_isas"].as_array().unwrap();
    assert!(!isas.is_empty(), "{text}");
    for isa in isas {
        let timed = simd.iter().filter(|s| s["isa"] == *isa).count();
        // All but the transcendental and scale workloads.
        assert_eq!(timed, workloads.len() - 2, "{isa}: {text}");
    }
    let lo = j["launch_overhead_us"].as_array().unwrap();
    assert!(lo
        .iter()
        .any(|l| l["backend"] == "cpu" && l["us"].as_f64().unwrap() > 0.0));
}
