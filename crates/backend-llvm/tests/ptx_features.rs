//! Properties of the emitted PTX: math policy (no silent approximations),
//! fast math, line info, the kernel entry, and typed errors.

mod common;

use common::emit_ptx;
use common::kernel_module;
use weft_backend_llvm::{find_libdevice, Error, Options};
use weft_ir::ir::{BinaryOp, MemAccess, UnaryOp};
use weft_ir::{ElemType, Scalar, Type, Value};

fn arr1(s: Scalar) -> Type {
    Type::Array(weft_ir::ArrayType {
        elem: ElemType::Scalar(s),
        ndim: 1,
    })
}

fn at(array: Value, i: Value) -> MemAccess {
    MemAccess {
        array,
        indices: vec![i],
        path: vec![],
    }
}

/// `o[i] = f(a[i])` over scalar type `s`.
fn map_kernel(
    s: Scalar,
    f: impl FnOnce(&mut weft_ir::FuncBuilder, Value) -> Value,
) -> weft_ir::Module {
    kernel_module(&[("a", arr1(s)), ("o", arr1(s))], |b, p| {
        let i = b.thread_id();
        let x = b.load(at(p[0], i));
        let y = f(b, x);
        b.store(at(p[1], i), y);
        b.return_(vec![]);
    })
}

fn approx_ops(ptx: &str) -> Vec<String> {
    let mut v: Vec<String> = ptx
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|op| op.contains(".approx"))
        .map(|s| s.to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn arithmetic_without_fast_math_is_correctly_rounded() {
    for s in [Scalar::F32, Scalar::F64] {
        let m = map_kernel(s, |b, x| {
            let r = b.unary(UnaryOp::Sqrt, x);
            let q = b.binary(BinaryOp::Div, x, r);
            let one = b.konst(weft_ir::Const::float(s, 1.0));
            let inv = b.binary(BinaryOp::Div, one, r);
            let m = b.binary(BinaryOp::Min, q, inv);
            b.binary(BinaryOp::Max, m, x)
        });
        let ptx = emit_ptx(&m, &Options::default()).unwrap().ptx;
        assert!(approx_ops(&ptx).is_empty(), "{s}: {:?}", approx_ops(&ptx));
        let t = if s == Scalar::F32 { "f32" } else { "f64" };
        assert!(ptx.contains(&format!("sqrt.rn.{t}")), "{ptx}");
        assert!(
            ptx.contains(&format!("div.rn.{t}")) || ptx.contains(&format!("rcp.rn.{t}")),
            "{ptx}"
        );
    }
}

/// Without fast math, transcendentals call libdevice. The only `.approx`
/// instructions in the result are those libdevice's own accurate algorithms
/// use internally (`ex2.approx` on a reduced argument, `rcp.approx` seeds
/// refined by Newton steps); Weft itself emits none (see
/// `arithmetic_without_fast_math_is_correctly_rounded`), and never the
/// `sin`/`cos`/`lg2`/`rsqrt` approximations.
#[test]
fn transcendentals_without_fast_math_use_libdevice() {
    if find_libdevice(None).is_none() {
        weft_testkit::skip("libdevice.10.bc not found (WEFT_LIBDEVICE, CUDA_HOME or .venv)");
        return;
    }
    let allowed = [
        "ex2.approx.ftz.f32",
        "ex2.approx.f32",
        "rcp.approx.ftz.f32",
        "rcp.approx.ftz.f64",
        "lg2.approx.ftz.f32",
        "lg2.approx.f32",
    ];
    for s in [Scalar::F32, Scalar::F64] {
        for op in [
            UnaryOp::Sin,
            UnaryOp::Cos,
            UnaryOp::Tan,
            UnaryOp::Exp,
            UnaryOp::Log,
            UnaryOp::Atan,
            UnaryOp::Tanh,
            UnaryOp::Erf,
            UnaryOp::Cbrt,
        ] {
            let m = map_kernel(s, |b, x| b.unary(op, x));
            let ptx = emit_ptx(&m, &Options::default()).unwrap().ptx;
            for a in approx_ops(&ptx) {
                assert!(allowed.contains(&a.as_str()), "{op:?} {s}: unexpected {a}");
            }
            for bad in [
                "sin.approx",
                "cos.approx",
                "rsqrt.approx",
                "sqrt.approx",
                "div.approx",
            ] {
                assert!(!ptx.contains(bad), "{op:?} {s}: {bad}");
            }
        }
    }
}

#[test]
fn fast_math_uses_approximate_instructions() {
    let m = map_kernel(Scalar::F32, |b, x| {
        let s = b.unary(UnaryOp::Sin, x);
        let c = b.unary(UnaryOp::Cos, x);
        let e = b.unary(UnaryOp::Exp, s);
        let l = b.unary(UnaryOp::Log, c);
        let r = b.unary(UnaryOp::Sqrt, x);
        let one = b.konst(weft_ir::Const::float(Scalar::F32, 1.0));
        let inv = b.binary(BinaryOp::Div, one, r);
        let t = b.binary(BinaryOp::Add, e, l);
        b.binary(BinaryOp::Mul, t, inv)
    });
    // Fast math is the IR's flags, as the `fast-math` pass sets them.
    let ptx = emit_ptx(&common::fast(&m), &Options::default())
        .unwrap()
        .ptx;
    for op in [
        "sin.approx",
        "cos.approx",
        "ex2.approx",
        "lg2.approx",
        "rsqrt.approx",
    ] {
        assert!(ptx.contains(op), "{op} missing:\n{ptx}");
    }
}

#[test]
fn missing_libdevice_is_an_error_not_an_approximation() {
    let m = map_kernel(Scalar::F32, |b, x| b.unary(UnaryOp::Sin, x));
    let opts = Options {
        libdevice: Some("/nonexistent/libdevice.10.bc".into()),
        ..Options::default()
    };
    match emit_ptx(&m, &opts) {
        Err(e @ Error::NoLibdevice { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("sin on f32 needs libdevice.10.bc"), "{msg}");
            // f32 `sin` has an approximate form: fast math is advice that applies.
            assert!(msg.contains("or enable fast math"), "{msg}");
        }
        other => panic!("expected NoLibdevice, got {other:?}"),
    }
    // Neither f64 `sin` nor `erf` has one, with fast math or without.
    let f64_sin = map_kernel(Scalar::F64, |b, x| b.unary(UnaryOp::Sin, x));
    let erf = map_kernel(Scalar::F32, |b, x| b.unary(UnaryOp::Erf, x));
    for m in [f64_sin.clone(), common::fast(&f64_sin), common::fast(&erf)] {
        match emit_ptx(&m, &opts) {
            Err(e @ Error::NoLibdevice { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("needs libdevice.10.bc"), "{msg}");
                assert!(!msg.contains("fast math"), "{msg}");
            }
            other => panic!("expected NoLibdevice, got {other:?}"),
        }
    }
    // Arithmetic alone needs no libdevice.
    let m = map_kernel(Scalar::F32, |b, x| b.unary(UnaryOp::Sqrt, x));
    assert!(emit_ptx(&m, &opts).is_ok());
}

#[test]
fn fast_math_needs_no_libdevice_for_what_it_approximates() {
    let m = map_kernel(Scalar::F32, |b, x| {
        let mut acc = x;
        for op in [
            UnaryOp::Sin,
            UnaryOp::Cos,
            UnaryOp::Tan,
            UnaryOp::Exp,
            UnaryOp::Exp2,
            UnaryOp::Log,
            UnaryOp::Log2,
            UnaryOp::Log10,
        ] {
            let y = b.unary(op, x);
            acc = b.binary(BinaryOp::Add, acc, y);
        }
        let r = b.unary(UnaryOp::Sqrt, acc);
        let one = b.konst(weft_ir::Const::float(Scalar::F32, 1.0));
        b.binary(BinaryOp::Div, one, r)
    });
    let opts = Options {
        libdevice: Some("/nonexistent/libdevice.10.bc".into()),
        ..Options::default()
    };
    assert!(matches!(
        emit_ptx(&m, &opts),
        Err(Error::NoLibdevice { .. })
    ));
    let ptx = emit_ptx(&common::fast(&m), &opts).unwrap().ptx;
    assert!(!ptx.contains("__nv_"), "{ptx}");
    for op in [
        "sin.approx.f32",
        "cos.approx.f32",
        "div.approx.f32",
        "ex2.approx.f32",
        "lg2.approx.f32",
        "rsqrt.approx.f32",
    ] {
        assert!(ptx.contains(op), "{op} missing:\n{ptx}");
    }
}

#[test]
fn kernel_entry_takes_the_block_by_value_and_strides_over_the_grid() {
    let m = map_kernel(Scalar::F32, |b, x| b.binary(BinaryOp::Add, x, x));
    let art = emit_ptx(&m, &Options::default()).unwrap();
    assert_eq!(art.kernels.len(), 1);
    let k = &art.kernels[0];
    assert_eq!(k.name, "k");
    // 16 bytes of launch dims + two array descriptors of 56 bytes.
    assert_eq!(k.param_size, 16 + 2 * 56);
    let ptx = &art.ptx;
    assert!(
        ptx.contains(&format!(".visible .entry {}(", k.entry_symbol)),
        "{ptx}"
    );
    assert!(ptx.contains(".param .align 8 .b8 k_param_0[128]"), "{ptx}");
    for sreg in ["%ctaid.x", "%ntid.x", "%tid.x", "%nctaid.x"] {
        assert!(ptx.contains(sreg), "{sreg} missing");
    }
    assert!(ptx.contains("ld.global.f32") && ptx.contains("st.global.f32"));
}

#[test]
fn line_info_points_into_the_kernel_source() {
    let src = "import warp as wp\n\n\n@wp.kernel\ndef scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n    i = wp.tid()\n    y[i] = 3.0 * x[i]\n";
    let m = common::compile_source("dir/scale.py", src);
    let ptx = emit_ptx(&m, &Options::default()).unwrap().ptx;
    assert!(ptx.contains(".file\t1 \"dir/scale.py\""), "{ptx}");
    assert!(ptx.contains(".loc\t1 7 "), "no .loc for line 7:\n{ptx}");
    let off = Options {
        line_info: false,
        ..Options::default()
    };
    let ptx = emit_ptx(&m, &off).unwrap().ptx;
    assert!(!ptx.contains(".loc"));
}

#[test]
fn atomics_are_native_where_ptx_has_them() {
    let m = kernel_module(
        &[
            ("a", arr1(Scalar::F32)),
            ("h", arr1(Scalar::I32)),
            ("d", arr1(Scalar::F64)),
        ],
        |b, p| {
            let i = b.thread_id();
            let x = b.load(at(p[0], i));
            let zero = b.konst(weft_ir::Const::int(Scalar::I32, 0));
            b.atomic(weft_ir::ir::AtomicOp::Add, at(p[0], zero), x);
            b.atomic(weft_ir::ir::AtomicOp::Max, at(p[0], zero), x);
            b.atomic(weft_ir::ir::AtomicOp::Add, at(p[1], zero), i);
            b.atomic(weft_ir::ir::AtomicOp::Min, at(p[1], zero), i);
            let xd = b.cast(x, Scalar::F64);
            b.atomic(weft_ir::ir::AtomicOp::Add, at(p[2], zero), xd);
            b.return_(vec![]);
        },
    );
    let ptx = emit_ptx(&m, &Options::default()).unwrap().ptx;
    assert!(ptx.contains("atom.global.add.f32"), "{ptx}");
    assert!(ptx.contains("atom.global.add.f64"), "{ptx}");
    assert!(
        ptx.contains("atom.global.add.u32") || ptx.contains("red.global.add.u32"),
        "{ptx}"
    );
    assert!(
        ptx.contains("atom.global.min.s32") || ptx.contains("red.global.min.s32"),
        "{ptx}"
    );
    // Float max has no PTX instruction: a compare-and-swap loop.
    assert!(ptx.contains("atom.global.cas.b32"), "{ptx}");
}

#[test]
fn bad_options_and_unsupported_ir_are_typed_errors() {
    let m = map_kernel(Scalar::F32, |b, x| b.binary(BinaryOp::Add, x, x));
    let bad = Options {
        arch: "sm_20".into(),
        ..Options::default()
    };
    assert!(matches!(emit_ptx(&m, &bad), Err(Error::Option(_))));
    // Bitwise `and` on floats is not an operation of the IR's float types.
    let m = map_kernel(Scalar::F32, |b, x| b.binary(BinaryOp::And, x, x));
    assert!(matches!(
        emit_ptx(&m, &Options::default()),
        Err(Error::Unsupported { .. })
    ));
    assert!(matches!(
        common::compile_host(&m, &Default::default()),
        Err(Error::Unsupported { .. })
    ));
}

#[test]
fn funcs_kept_as_calls_become_device_functions() {
    let src = "import warp as wp\n\n\n@wp.func\ndef sq(v: float):\n    return v * v\n\n\n@wp.kernel\ndef k(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n    i = wp.tid()\n    y[i] = sq(x[i]) + 1.0\n";
    let m = common::compile_source_with("f.py", src, false);
    let calls = m
        .funcs
        .values()
        .flat_map(|f| f.insts.values())
        .filter(|d| matches!(d.kind, weft_ir::InstKind::Call(..)))
        .count();
    assert!(calls > 0, "the pipeline inlined the call");
    let o0 = Options {
        opt_level: weft_ir::OptLevel::O0,
        ..Options::default()
    };
    let ptx = emit_ptx(&m, &o0).unwrap().ptx;
    assert!(ptx.contains(".func"), "{ptx}");
    assert!(ptx.contains("call.uni") || ptx.contains("call "), "{ptx}");
    // The host JIT runs it.
    let art = common::compile_host(&m, &Default::default()).unwrap();
    let k = art.kernel("k").unwrap();
    let mut x: Vec<u8> = [1.5f32, -2.0, 3.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut y = vec![0u8; 12];
    let blk = common::pack_arrays(
        &m,
        "k",
        [3, 1, 1, 1],
        &[common::raw_desc(&mut x, 4), common::raw_desc(&mut y, 4)],
    );
    // SAFETY: the block matches the kernel's params; buffers outlive the call.
    unsafe { (k.entry)(blk.as_ptr() as *const u8, 0, 3) };
    let ys: Vec<f32> = y
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(ys, vec![3.25, 5.0, 10.0]);
}

#[test]
fn llvm_cpu_artifact_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<weft_backend_llvm::host::Artifact>();
    check::<weft_backend_llvm::Artifact>();
}

#[test]
fn compiles_concurrently_from_several_threads() {
    let Some(m) = common::case_module("seed_nbody_step") else {
        return;
    };
    let serial = emit_ptx(&m, &Options::default()).unwrap().ptx;
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|t| {
                let m = &m;
                s.spawn(move || {
                    if t % 2 == 0 {
                        emit_ptx(m, &Options::default()).unwrap().ptx
                    } else {
                        let a = common::compile_host(m, &Default::default()).unwrap();
                        assert!(a.kernel("nbody_step").is_some());
                        String::new()
                    }
                })
            })
            .collect();
        for (t, h) in hs.into_iter().enumerate() {
            let ptx = h.join().unwrap();
            if t % 2 == 0 {
                assert_eq!(ptx, serial, "PTX differs between threads");
            }
        }
    });
    let art = emit_ptx(&m, &Options::default()).unwrap();
    assert_eq!(
        art.kernel("nbody_step").map(|k| k.entry_symbol.as_str()),
        Some("nbody_step")
    );
}

/// Line info must not switch ptxas into debug (unoptimized) compilation:
/// no `.target …, debug`, no DWARF sections, same register count as
/// without line info.
#[test]
fn line_info_does_not_disable_optimization() {
    let Some(m) = common::case_module("seed_nbody_step") else {
        return;
    };
    let with = emit_ptx(&m, &Options::default()).unwrap().ptx;
    assert!(with.contains(".loc"));
    assert!(!with.contains(", debug"), "debug target flag");
    assert!(!with.contains(".section"), "DWARF sections");
    let without = emit_ptx(
        &m,
        &Options {
            line_info: false,
            ..Options::default()
        },
    )
    .unwrap()
    .ptx;
    if weft_backend_llvm::find_ptxas().is_none() {
        weft_testkit::skip("ptxas part: ptxas not found");
        return;
    }
    let regs = |ptx: &str| {
        let info = weft_backend_llvm::ptxas_info(ptx, "sm_80").unwrap();
        info.lines()
            .find_map(|l| {
                l.split("Used ")
                    .nth(1)?
                    .split(' ')
                    .next()?
                    .parse::<u32>()
                    .ok()
            })
            .expect("register count")
    };
    assert_eq!(regs(&with), regs(&without));
}

#[test]
fn arch_follows_the_device() {
    use weft_backend_llvm::arch_for_compute_capability as arch;
    assert_eq!(arch(9, 0), Some("sm_90"));
    assert_eq!(arch(8, 9), Some("sm_89"));
    assert_eq!(arch(8, 6), Some("sm_86"));
    assert_eq!(arch(8, 0), Some("sm_80"));
    assert_eq!(arch(7, 5), Some("sm_75"));
    assert_eq!(arch(12, 0), Some("sm_90"));
    assert_eq!(arch(6, 1), None);
    for a in weft_backend_llvm::SUPPORTED_ARCHS {
        let m = map_kernel(Scalar::F32, |b, x| b.binary(BinaryOp::Add, x, x));
        let opts = Options {
            arch: a.into(),
            ..Options::default()
        };
        assert!(emit_ptx(&m, &opts)
            .unwrap()
            .ptx
            .contains(&format!(".target {a}")));
    }
}

#[test]
fn emits_textual_llvm_ir_for_both_targets() {
    let m = map_kernel(Scalar::F32, |b, x| b.unary(UnaryOp::Sqrt, x));
    let ptx = common::llvm_ir(&m, Some(&Options::default()), weft_ir::OptLevel::O2);
    assert!(
        ptx.contains("target triple = \"nvptx64-nvidia-cuda\""),
        "{ptx}"
    );
    assert!(ptx.contains("ptx_kernel void @k("), "{ptx}");
    assert!(ptx.contains("byval([128 x i8])"), "{ptx}");
    let raw = common::llvm_ir(&m, None, weft_ir::OptLevel::O0);
    assert!(
        raw.contains("define void @k(ptr noalias nocapture readonly %0, i64 %1, i64 %2)"),
        "{raw}"
    );
    assert!(raw.contains("@llvm.sqrt.f32"), "{raw}");
}

/// Bounds-checked mode: the PTX holds the trap record, the first failing
/// thread claims it with `atom.cas` and writes its fields; unchecked code
/// has no record.
#[test]
fn checked_code_writes_the_trap_record() {
    use weft_abi::trap::record::SIZE as TRAP_RECORD_SIZE;
    use weft_backend_llvm::TRAP_GLOBAL;
    let plain = map_kernel(Scalar::F32, |b, x| {
        let two = b.konst(weft_ir::Const::float(Scalar::F32, 2.0));
        b.binary(BinaryOp::Mul, x, two)
    });
    let mut checked = plain.clone();
    assert!(weft_passes::bounds::insert_bounds_checks(&mut checked));
    let opts = Options {
        line_info: false,
        ..Options::default()
    };
    let art = emit_ptx(&plain, &opts).unwrap();
    assert!(!art.trap_record);
    assert!(!art.ptx.contains(TRAP_GLOBAL), "{}", art.ptx);
    let art = emit_ptx(&checked, &opts).unwrap();
    assert!(art.trap_record);
    let ptx = art.ptx;
    let decl = format!(".visible .global .align 8 .b8 {TRAP_GLOBAL}[{TRAP_RECORD_SIZE}]");
    assert!(ptx.contains(&decl), "{ptx}");
    assert!(ptx.contains("atom.global.cas.b32"), "{ptx}");
    // code, file, line, col (u32) and index, size (u64) at their offsets
    // (LLVM may merge neighbouring fields into one vector store).
    let stored = |off: u32| {
        ptx.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("st.global") && l.contains(&format!("[{TRAP_GLOBAL}+{off}]"))
        })
    };
    for off in [4, 8, 16, 24, 32] {
        assert!(stored(off), "field at {off}: {ptx}");
    }
    // The two accesses (load a[i], store o[i]) are checked.
    assert!(ptx.matches("atom.global.cas.b32").count() >= 2, "{ptx}");
}

/// The calls of libdevice function `name` in NVPTX LLVM IR before LLVM's
/// pipeline (O0: libdevice linked, nothing inlined).
fn libdevice_calls(ir: &str, name: &str) -> usize {
    ir.lines()
        .filter(|l| l.contains("call ") && l.contains(&format!("@{name}(")))
        .count()
}

/// `sin(x)` and `cos(x)` of one `x` share libdevice's `sincos` (one range
/// reduction, as nvcc does) where the second is lowered in the first's
/// block; a lone one, one in another block, or a fast-math one stays as it
/// was.
#[test]
fn sin_and_cos_of_one_value_share_a_sincos() {
    if find_libdevice(None).is_none() {
        weft_testkit::skip("sincos: libdevice.10.bc not found");
        return;
    }
    let src = r#"import warp as wp

@wp.kernel
def k(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    w = v + 1.0
    c = float(0.0)
    if v > 0.5:
        c = wp.cos(v)
    y[i] = wp.sin(v) * wp.cos(v) + wp.sin(w) + c
    d = wp.float64(v)
    z[i] = wp.cos(d) * wp.sin(d)
"#;
    let m = common::compile_source("sincos.py", src);
    let o0 = Options {
        opt_level: weft_ir::OptLevel::O0,
        ..Options::default()
    };
    let ir = common::llvm_ir(&m, Some(&o0), weft_ir::OptLevel::O0);
    // v: one sincos for the pair in the body, one more for the cos inside
    // the `if` (another block); w: a lone sin; d: the f64 pair.
    assert_eq!(libdevice_calls(&ir, "__nv_sincosf"), 2, "{ir}");
    assert_eq!(libdevice_calls(&ir, "__nv_sinf"), 1, "{ir}");
    assert_eq!(libdevice_calls(&ir, "__nv_cosf"), 0, "{ir}");
    assert_eq!(libdevice_calls(&ir, "__nv_sincos"), 1, "{ir}");
    assert_eq!(
        libdevice_calls(&ir, "__nv_sin") + libdevice_calls(&ir, "__nv_cos"),
        0
    );
    // Past the sites libdevice functions are inlined at, sin and cos are
    // separate again (they become calls of one copy each).
    let mut terms: Vec<String> = Vec::new();
    for k in 0..10 {
        terms.push(format!("wp.sin(v + {k}.5) * wp.cos(v + {k}.5)"));
    }
    let many = format!(
        "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n    i = wp.tid()\n    v = x[i]\n    y[i] = {}\n",
        terms.join(" + ")
    );
    let ir = common::llvm_ir(
        &common::compile_source("many.py", &many),
        Some(&o0),
        weft_ir::OptLevel::O0,
    );
    let pairs = weft_backend_llvm::LIBDEVICE_INLINE_SITES;
    assert_eq!(libdevice_calls(&ir, "__nv_sincosf"), pairs, "{ir}");
    assert_eq!(libdevice_calls(&ir, "__nv_sinf"), 10 - pairs, "{ir}");
    // Fast math keeps its approximate instructions, no libdevice.
    let fast = common::llvm_ir(&common::fast(&m), Some(&o0), weft_ir::OptLevel::O0);
    assert_eq!(libdevice_calls(&fast, "__nv_sincosf"), 0, "{fast}");
}
