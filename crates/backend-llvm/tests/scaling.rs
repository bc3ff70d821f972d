//! Compile-time scaling (issue 18) in what it changes in the output: a
//! libdevice function called from many sites is one `.func` that every site
//! calls; a large module is compiled in parts whose PTX is joined into one
//! module's, the same on every machine, that `ptxas` accepts.

mod common;

use common::{compile_source, compile_source_with, emit_ptx};
use weft_backend_llvm::{
    find_libdevice, find_ptxas, ptxas_info, Options, LIBDEVICE_INLINE_SITES, PART_WEIGHT,
    TRAP_GLOBAL,
};

/// One kernel calling `wp.sin` at `n` sites.
fn sines(n: usize) -> String {
    let mut s = String::from(
        "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float), c: float):\n    i = wp.tid()\n    v = x[i]\n",
    );
    for _ in 0..n {
        s.push_str("    v = v * 1.0001 + wp.sin(v) * c\n");
    }
    s.push_str("    x[i] = v\n");
    s
}

/// `k` kernels, each calling one shared func and indexing an array (a
/// trap site once bounds-checked: every part defines the trap record).
fn many(k: usize) -> String {
    let mut s = String::from(
        "import warp as wp\n\n@wp.func\ndef f(a: float, b: float):\n    return a * b + wp.sqrt(a * a + 1.0)\n",
    );
    for j in 0..k {
        s.push_str(&format!(
            "\n@wp.kernel\ndef k{j}(x: wp.array(dtype=float)):\n    i = wp.tid()\n    v = x[i]\n    for r in range(4):\n        v = f(v, {j}.5) + x[i + r]\n    x[i] = v\n"
        ));
    }
    s
}

fn libdevice_here() -> bool {
    let here = find_libdevice(None).is_some();
    if !here {
        weft_testkit::skip("libdevice.10.bc not found (WEFT_LIBDEVICE, CUDA_HOME or .venv)");
    }
    here
}

/// ptxas accepts `ptx` (a counted SKIP without ptxas).
fn assembles(ptx: &str) {
    if find_ptxas().is_none() {
        weft_testkit::skip("ptxas not found (WEFT_PTXAS, PATH or .venv)");
        return;
    }
    if let Err(e) = ptxas_info(ptx, "sm_80") {
        panic!("ptxas: {e}\n{ptx}");
    }
}

#[test]
fn libdevice_is_inlined_at_few_sites_and_called_from_many() {
    if !libdevice_here() {
        return;
    }
    let few = emit_ptx(
        &compile_source("few.py", &sines(LIBDEVICE_INLINE_SITES)),
        &Options::default(),
    )
    .unwrap()
    .ptx;
    assert!(!few.contains("__nv_sinf"), "{few}");
    assert!(!few.contains("call.uni"), "{few}");
    assert_eq!(few.matches(".entry").count(), 1);

    let n = LIBDEVICE_INLINE_SITES + 1;
    let more = emit_ptx(&compile_source("more.py", &sines(n)), &Options::default())
        .unwrap()
        .ptx;
    // One definition (and its declaration ahead of the kernel), n calls.
    let funcs = more
        .lines()
        .filter(|l| l.starts_with(".visible .func") && l.contains(" __nv_sinf"))
        .count();
    assert_eq!(funcs, 2, "{more}");
    assert_eq!(
        more.matches("call.uni (r), __nv_sinf,").count(),
        n,
        "{more}"
    );
    assert!(more.lines().count() < few.lines().count() * 2, "{more}");
    assembles(&more);
}

#[test]
fn a_large_module_is_compiled_in_parts_and_joined() {
    let src = many(300);
    // Funcs kept as calls: the shared func is compiled in every part.
    let mut m = compile_source_with("many.py", &src, false);
    assert!(weft_passes::bounds::insert_bounds_checks(&mut m));
    let weight: usize = m.funcs.iter().map(|(_, f)| f.insts.len()).sum();
    assert!(weight > 2 * PART_WEIGHT, "{weight}: too small to be split");
    let opts = Options {
        line_info: true,
        ..Options::default()
    };
    let info = weft_ir::verify::verify_module(&m).unwrap();
    assert!(info.has_traps);
    let a = weft_backend_llvm::compile(&m, &info, &opts).unwrap();
    let ptx = &a.ptx;
    assert_eq!(a.kernels.len(), 300);
    for (j, k) in a.kernels.iter().enumerate() {
        assert_eq!(k.name, format!("k{j}"));
        assert_eq!(ptx.matches(&format!("{}(", k.entry_symbol)).count(), 1);
    }
    assert_eq!(ptx.matches(".version").count(), 1, "one header");
    assert_eq!(ptx.matches(".target").count(), 1, "one header");
    let trap = format!(".visible .global .align 8 .b8 {TRAP_GLOBAL}[");
    assert_eq!(ptx.matches(&trap).count(), 1, "one trap record");
    // One file table, every `.loc` pointing into it.
    let files: Vec<&str> = ptx
        .lines()
        .filter(|l| l.trim_start().starts_with(".file"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].contains("many.py"), "{files:?}");
    for l in ptx.lines().filter(|l| l.trim_start().starts_with(".loc")) {
        assert!(l.trim_start().starts_with(".loc\t1 "), "{l}");
    }
    // The split depends on the module only.
    let again = weft_backend_llvm::compile(&m, &info, &opts).unwrap();
    assert_eq!(again.ptx, *ptx);
    assembles(ptx);
}
