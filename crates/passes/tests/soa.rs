//! The `soa` pass on real kernels: every conformance case (see
//! `tests/corpus`) whose launched kernels have an array parameter that can
//! be laid out structure of arrays is compiled with every eligible array
//! SoA ([`LayoutOptions::default`] = SoA), at O2 (also with bounds checks)
//! and O0, and run on the reference interpreter with its arrays converted
//! to SoA planes for each launch and back afterwards. The final arrays must
//! be bit for bit those of the AoS build: the proof that the pass's
//! addressing is right.

mod corpus;

use corpus::{run_and_compare, run_case, RunDiff};
use serde_json::Value as Json;
use std::path::PathBuf;
use weft_ir::ArrayLayout;
use weft_passes::soa::soa_choices;
use weft_passes::{run_pipeline, LayoutOptions, OptLevel, PipelineOptions, VerifyMode};

fn soa_everywhere() -> LayoutOptions {
    LayoutOptions {
        default: ArrayLayout::Soa,
        params: Vec::new(),
    }
}

/// The kernels a case launches.
fn launched(case: &Json) -> Vec<String> {
    let mut names: Vec<String> = match case.get("launches").and_then(Json::as_array) {
        Some(ls) => ls
            .iter()
            .filter_map(|l| l["kernel"].as_str().map(String::from))
            .collect(),
        None => case["kernel"]
            .as_str()
            .map(String::from)
            .into_iter()
            .collect(),
    };
    names.sort();
    names.dedup();
    names
}

#[test]
fn soa_builds_compute_what_aos_builds_compute() {
    let Some(root) = weft_testkit::corpus::find() else {
        return;
    };
    let cases_dir = root.join("cases");
    let entries =
        std::fs::read_dir(&cases_dir).unwrap_or_else(|e| panic!("{}: {e}", cases_dir.display()));
    let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    let only = std::env::var("WEFT_CASE").ok();
    let (mut cases, mut kernels, mut params) = (0, 0, 0);
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    for dir in dirs {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if only.as_ref().is_some_and(|o| *o != name) {
            continue;
        }
        let (Ok(src), Some(case)) = (
            std::fs::read_to_string(dir.join("kernel.py")),
            std::fs::read_to_string(dir.join("case.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Json>(&t).ok()),
        ) else {
            continue;
        };
        let Ok(m) = weft_frontend::compile("kernel.py", &src) else {
            skipped.push(format!("{name}: frontend"));
            continue;
        };
        // Which launched kernels have an eligible array.
        let mut eligible = Vec::new();
        for k in launched(&case) {
            let Some(id) = m.func_by_name(&k) else {
                continue;
            };
            match soa_choices(&m, &m.funcs[id], &soa_everywhere()) {
                Ok(c) if !c.is_empty() => eligible.push((k, c.len())),
                Ok(_) => {}
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
        if eligible.is_empty() {
            continue;
        }
        let mut aos = m.clone();
        let opts = PipelineOptions {
            verify: VerifyMode::Always,
            ..PipelineOptions::default()
        };
        if let Err(e) = run_pipeline(&mut aos, &opts) {
            failures.push(format!("{name}: AoS pipeline: {e}"));
            continue;
        }
        let reference = match run_case(&aos, &dir, &case) {
            Ok(r) => r,
            Err(e) => {
                skipped.push(format!("{name}: AoS run: {e}"));
                continue;
            }
        };
        let mut ok = true;
        for (what, level, checked) in [
            ("O2", OptLevel::O2, false),
            ("O2 bounds-checked", OptLevel::O2, true),
            ("O0", OptLevel::O0, false),
        ] {
            let mut sm = m.clone();
            let o = PipelineOptions {
                opt_level: level,
                layout: soa_everywhere(),
                ..opts.clone()
            };
            let report = match run_pipeline(&mut sm, &o) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{name}: SoA {what} pipeline: {e}"));
                    ok = false;
                    continue;
                }
            };
            assert_eq!(report.passes.first().map(|p| p.0.as_str()), Some("soa"));
            if checked {
                weft_passes::bounds::insert_bounds_checks(&mut sm);
                if let Err(e) = weft_ir::verify::verify_module(&sm) {
                    failures.push(format!("{name}: SoA {what}: {e}"));
                    ok = false;
                    continue;
                }
            }
            for (k, n) in &eligible {
                let f = &sm.funcs[sm.func_by_name(k).expect("kernel kept")];
                if f.soa_params.len() != *n {
                    failures.push(format!(
                        "{name}: SoA {what}: kernel `{k}` has {} SoA params, expected {n}",
                        f.soa_params.len()
                    ));
                    ok = false;
                }
            }
            if let Err(e) = weft_ir::text::check_roundtrip(&sm) {
                failures.push(format!("{name}: SoA {what}: {e}"));
                ok = false;
            }
            match run_and_compare(&sm, &dir, &case, &reference) {
                Ok(()) => {}
                Err(RunDiff::Differ(diff)) => {
                    failures.push(format!("{name}: SoA {what}: arrays differ: {diff:?}"));
                    ok = false;
                }
                Err(RunDiff::Run(e)) => {
                    failures.push(format!("{name}: SoA {what} run: {e}"));
                    ok = false;
                }
            }
        }
        if ok {
            cases += 1;
            kernels += eligible.len();
            params += eligible.iter().map(|e| e.1).sum::<usize>();
        }
    }
    println!(
        "{cases} cases ({kernels} kernels, {params} SoA array params) identical in SoA and AoS"
    );
    for s in &skipped {
        println!("  skipped {s}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if only.is_none() {
        assert!(cases > 0, "no case has an eligible array");
    }
}

const HINTED: &str = r#"import warp as wp


@wp.struct
class Body:
    pos: wp.vec3
    mass: float


@wp.struct
class Tagged:
    pos: wp.vec3
    id: int


@wp.func
def speed(v: wp.array(dtype=wp.vec3), i: int):
    return wp.length(v[i])


@wp.kernel
def step(
    x: wp.array(dtype=wp.vec3),  # weft: layout=soa
    v: wp.array(dtype=wp.vec3),  # weft: layout=aos
    b: wp.array(dtype=Body),
    t: wp.array(dtype=Tagged),
    s: wp.array(dtype=float),
    dt: float,
):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt * speed(v, i)
    b[i].pos = x[i]
    s[i] = b[i].mass + t[i].pos[0]
"#;

fn compile_hinted() -> weft_ir::Module {
    weft_frontend::compile("hinted.py", HINTED).expect("compiles")
}

/// `(param name, elem, ndim)` of the SoA params of kernel `step`.
fn soa_of(m: &weft_ir::Module) -> Vec<(String, String, u8)> {
    let f = &m.funcs[m.func_by_name("step").expect("kernel")];
    f.soa_params
        .iter()
        .map(|sp| {
            (
                f.params[sp.param as usize].name.clone(),
                weft_ir::DisplayType(sp.elem.into(), &m.structs).to_string(),
                sp.ndim,
            )
        })
        .collect()
}

fn run(m: &mut weft_ir::Module, layout: LayoutOptions, level: OptLevel) -> Result<(), String> {
    let o = PipelineOptions {
        opt_level: level,
        verify: VerifyMode::Always,
        layout,
        ..PipelineOptions::default()
    };
    run_pipeline(m, &o).map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn source_hints_choose_the_layout() {
    let m = compile_hinted();
    let f = &m.funcs[m.func_by_name("step").unwrap()];
    assert_eq!(
        f.layout_hints,
        vec![(0, ArrayLayout::Soa), (1, ArrayLayout::Aos)]
    );
    // Hints alone (default options): only `x`, at every level; the text
    // shows the hints and the lowered param.
    for level in OptLevel::ALL {
        let mut m = compile_hinted();
        run(&mut m, LayoutOptions::default(), level).unwrap();
        assert_eq!(soa_of(&m), vec![("x".into(), "vec3<f32>".into(), 1)]);
        let text = weft_ir::text::print_module(&m);
        assert!(
            text.contains("v0 \"x\": array2<f32> hint(soa) soa(vec3<f32>, 1)"),
            "{text}"
        );
        assert!(text.contains("array1<vec3<f32>> hint(aos)"), "{text}");
    }
}

#[test]
fn options_override_hints_and_default_skips_ineligible_arrays() {
    // default SoA: `v`'s `aos` hint wins over the default; `t` mixes f32
    // and i32 and `s` is scalar: they stay AoS.
    let mut m = compile_hinted();
    run(&mut m, soa_everywhere(), OptLevel::O0).unwrap();
    assert_eq!(
        soa_of(&m),
        vec![
            ("x".into(), "vec3<f32>".into(), 1),
            ("b".into(), "%Body".into(), 1)
        ]
    );
    // A per-param entry wins over the hint.
    let mut m = compile_hinted();
    let layout = LayoutOptions {
        default: ArrayLayout::Aos,
        params: vec![
            ("step".into(), "x".into(), ArrayLayout::Aos),
            ("step".into(), "v".into(), ArrayLayout::Soa),
        ],
    };
    run(&mut m, layout, OptLevel::O2).unwrap();
    assert_eq!(soa_of(&m), vec![("v".into(), "vec3<f32>".into(), 1)]);
    // `v` is passed to the func `speed`: at O0 too, that call is inlined.
    let mut m = compile_hinted();
    let layout = LayoutOptions {
        default: ArrayLayout::Aos,
        params: vec![("step".into(), "v".into(), ArrayLayout::Soa)],
    };
    run(&mut m, layout, OptLevel::O0).unwrap();
    let before: Vec<String> = compile_hinted()
        .funcs
        .values()
        .map(|f| f.name.clone())
        .collect();
    assert!(before.iter().any(|n| n.contains("speed")), "{before:?}");
    let names: Vec<&str> = m.funcs.values().map(|f| f.name.as_str()).collect();
    assert!(!names.iter().any(|n| n.contains("speed")), "{names:?}");
    assert_eq!(
        soa_of(&m),
        vec![
            ("x".into(), "vec3<f32>".into(), 1),
            ("v".into(), "vec3<f32>".into(), 1)
        ]
    );
}

#[test]
fn explicit_requests_for_ineligible_arrays_are_errors() {
    let cases = [
        (
            "t",
            "kernel `step`, parameter `t`: cannot lay out structure of arrays: \
             struct `Tagged` mixes f32 and i32 fields",
        ),
        (
            "s",
            "kernel `step`, parameter `s`: cannot lay out structure of arrays: \
             its elements are scalars (f32), already one plane",
        ),
        (
            "dt",
            "kernel `step`, parameter `dt`: cannot lay out structure of arrays: \
             it is not an array",
        ),
        (
            "nope",
            "kernel `step`, parameter `nope`: cannot lay out structure of arrays: \
             the kernel has no such parameter",
        ),
    ];
    for (param, want) in cases {
        let mut m = compile_hinted();
        let layout = LayoutOptions {
            default: ArrayLayout::Aos,
            params: vec![("step".into(), param.into(), ArrayLayout::Soa)],
        };
        assert_eq!(run(&mut m, layout, OptLevel::O2).unwrap_err(), want);
    }
    // An entry for a kernel the module does not have is ignored.
    let mut m = compile_hinted();
    let layout = LayoutOptions {
        default: ArrayLayout::Aos,
        params: vec![("other".into(), "t".into(), ArrayLayout::Soa)],
    };
    run(&mut m, layout, OptLevel::O2).unwrap();
}

#[test]
fn the_pipeline_lists_soa_only_when_asked() {
    let with = PipelineOptions {
        layout: soa_everywhere(),
        ..PipelineOptions::default()
    };
    for level in OptLevel::ALL {
        let plain = weft_passes::pipeline(level, &PipelineOptions::default()).describe();
        assert!(!plain.contains("soa"), "{plain}");
        let soa = weft_passes::pipeline(level, &with).describe();
        assert_eq!(soa, format!("soa\n{plain}"));
    }
    // Without any SoA choice the module is untouched (and `soa` does not
    // run): the pipeline's report is the usual one.
    let mut m = weft_frontend::compile("plain.py", &HINTED.replace("# weft: layout=soa", ""))
        .expect("compiles");
    assert!(!weft_passes::soa::needs_soa(&m, &LayoutOptions::default()).unwrap());
    assert!(weft_passes::soa::needs_soa(&m, &soa_everywhere()).unwrap());
    assert!(weft_passes::soa::needs_soa(&compile_hinted(), &LayoutOptions::default()).unwrap());
    let before = weft_ir::text::print_module(&m);
    let report = run_pipeline(&mut m.clone(), &PipelineOptions::default()).unwrap();
    assert!(report.passes.iter().all(|p| p.0 != "soa"));
    assert!(!weft_passes::soa::lower_soa(&mut m, &LayoutOptions::default()).unwrap());
    assert_eq!(weft_ir::text::print_module(&m), before);
}
