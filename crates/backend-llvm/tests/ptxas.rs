//! Every conformance kernel through the NVPTX path: PTX for sm_80 and
//! sm_90, assembled by `ptxas` when it is available.

mod common;

use common::emit_ptx;
use weft_abi::trap::record::SIZE as TRAP_RECORD_SIZE;
use weft_backend_llvm::{find_libdevice, find_ptxas, ptxas_info, Options, TRAP_GLOBAL};

/// Whether libdevice is here (the corpus has transcendental kernels, which
/// need it on NVPTX); a counted SKIP when it is not.
fn libdevice_here() -> bool {
    let here = find_libdevice(None).is_some();
    if !here {
        weft_testkit::skip(
            "libdevice.10.bc not found (WEFT_LIBDEVICE, CUDA_HOME or .venv): the corpus's transcendental kernels need it on NVPTX",
        );
    }
    here
}

#[test]
fn every_conformance_kernel_assembles_for_sm80_and_sm90() {
    let Some(cases) = common::cases() else {
        return;
    };
    if !libdevice_here() {
        return;
    }
    let ptxas = find_ptxas();
    if ptxas.is_none() {
        weft_testkit::skip(
            "ptxas part: ptxas not found (WEFT_PTXAS, PATH or .venv); PTX is still generated",
        );
    }
    let mut failures = Vec::new();
    let mut kernels = 0;
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(case.join("kernel.py")).unwrap();
        let file = case.join("kernel.py").to_string_lossy().into_owned();
        let m = common::compile_source(&file, &src);
        // Funcs kept as calls: device functions called by the kernel.
        let calls = common::compile_source_with(&file, &src, false);
        if calls.funcs.len() > calls.kernels().count() {
            match emit_ptx(&calls, &Options::default()) {
                Ok(a) if ptxas.is_some() => {
                    if let Err(e) = ptxas_info(&a.ptx, "sm_80") {
                        failures.push(format!("{name} (calls kept): {e}"));
                    }
                }
                Ok(_) => {}
                Err(e) => failures.push(format!("{name} (calls kept): emit: {e}")),
            }
        }
        for arch in ["sm_80", "sm_90"] {
            let opts = Options {
                arch: arch.into(),
                ..Options::default()
            };
            let art = match emit_ptx(&m, &opts) {
                Ok(a) => a,
                Err(e) => {
                    failures.push(format!("{name} {arch}: emit: {e}"));
                    continue;
                }
            };
            assert!(art.ptx.contains(&format!(".target {arch}")), "{name}");
            for k in &art.kernels {
                assert!(
                    art.ptx.contains(&format!(".entry {}(", k.entry_symbol)),
                    "{name}: no .entry for {}",
                    k.entry_symbol
                );
            }
            if arch == "sm_80" {
                kernels += art.kernels.len();
            }
            if ptxas.is_some() {
                if let Err(e) = ptxas_info(&art.ptx, arch) {
                    failures.push(format!("{name} {arch}: {e}"));
                }
            }
        }
    }
    println!("{} cases, {kernels} kernels", cases.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Bounds-checked mode: every conformance kernel compiled with checks (the
/// `bounds-check` pass after the pipeline, funcs inlined and kept as calls)
/// has the trap record and assembles for sm_80 and sm_90.
#[test]
fn every_checked_conformance_kernel_assembles_for_sm80_and_sm90() {
    let Some(cases) = common::cases() else {
        return;
    };
    if !libdevice_here() {
        return;
    }
    let ptxas = find_ptxas();
    if ptxas.is_none() {
        weft_testkit::skip(
            "ptxas part: ptxas not found (WEFT_PTXAS, PATH or .venv); PTX is still generated",
        );
    }
    let record = format!(".global .align 8 .b8 {TRAP_GLOBAL}[{TRAP_RECORD_SIZE}]");
    let mut failures = Vec::new();
    let mut with_checks = 0;
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(case.join("kernel.py")).unwrap();
        let file = case.join("kernel.py").to_string_lossy().into_owned();
        for inline in [true, false] {
            let mut m = common::compile_source_with(&file, &src, inline);
            let checks = weft_passes::bounds::insert_bounds_checks(&mut m);
            if !inline && m.funcs.len() == m.kernels().count() {
                continue;
            }
            with_checks += usize::from(checks && inline);
            for arch in ["sm_80", "sm_90"] {
                let opts = Options {
                    arch: arch.into(),
                    ..Options::default()
                };
                let art = match emit_ptx(&m, &opts) {
                    Ok(a) => a,
                    Err(e) => {
                        failures.push(format!("{name} {arch} inline={inline}: emit: {e}"));
                        continue;
                    }
                };
                if art.ptx.contains(&record) != checks {
                    failures.push(format!(
                        "{name} {arch} inline={inline}: checks {checks}, trap record {}",
                        !checks
                    ));
                }
                if checks && !art.ptx.contains("atom.global.cas.b32") {
                    failures.push(format!("{name} {arch}: no atom.global.cas.b32"));
                }
                if ptxas.is_some() {
                    if let Err(e) = ptxas_info(&art.ptx, arch) {
                        failures.push(format!("{name} {arch} inline={inline}: {e}"));
                    }
                }
            }
        }
    }
    println!("{} cases, {with_checks} with checks", cases.len());
    assert!(with_checks > 50, "{with_checks}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
