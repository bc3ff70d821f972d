//! Small programs mixing control flow, casts and stores, on the HLSL
//! backend: each kernel is emitted, compiled by glslang and checked by
//! `spirv-val`, and — where a Vulkan device exists (lavapipe here) — run
//! and compared bit for bit with the `cpu` device (any NaN matches any NaN;
//! on a difference the interpreter says which side is wrong).
//!
//! * `reported_*`: the kernels of a bug report (a store to an array inside a
//!   dynamic loop: the frontend carries the array through the loop, and the
//!   HLSL backend once failed with "value v1 used before its definition")
//!   and hand-written relatives (arrays through `if`, `while`, nested loops
//!   with `break`/`continue`, views, atomics).
//! * `loop_exit_values_of_divergent_threads`: loops that threads leave at
//!   different iterations with a value of that iteration (a lavapipe
//!   miscompilation the backend works around).
//! * `generated_programs`: `GENERATED` kernels from a fixed-seed generator
//!   combining constant and dynamic `range` loops, `while` loops, `if`/
//!   `else`, `break`/`continue`, casts between float32, float64 and int
//!   (and through int64, uint32 and float16),
//!   and stores inside loops. `WEFT_PROGRAMS_SEED=<n>` picks another seed
//!   (`WEFT_PROGRAMS=<count>` another count), to hunt further.
//!
//! Without the tools the HLSL is only emitted; without a Vulkan device the
//! runs are skipped (`SKIP:` says so).

mod common;

use weft::ir::{Scalar, Type};
use weft::{Arg, Array, CompileOptions, Compiler, Device, Dtype, Module, OptLevel};
use weft_backend_hlsl::{compile_spirv, find_glslang, find_spirv_val};

/// Threads per launch.
const N: usize = 16;
/// Slots per thread in the generated kernels' 2-D outputs.
const SLOTS: usize = 4;
/// Generated kernels per run.
const GENERATED: usize = 48;

use common::vulkan;

/// One argument of a launch: an array (element scalar, shape, bytes) or an
/// `int`.
#[derive(Clone)]
enum In {
    Arr(Scalar, Vec<usize>, Vec<u8>),
    Int(i32),
}

fn arr<T: Copy>(s: Scalar, shape: &[usize], v: &[T], bytes: fn(T) -> Vec<u8>) -> In {
    let n: usize = shape.iter().product();
    In::Arr(
        s,
        shape.to_vec(),
        (0..n).flat_map(|i| bytes(v[i % v.len()])).collect(),
    )
}
fn f32s(shape: &[usize], v: &[f32]) -> In {
    arr(Scalar::F32, shape, v, |x| x.to_le_bytes().to_vec())
}
fn f64s(shape: &[usize], v: &[f64]) -> In {
    arr(Scalar::F64, shape, v, |x| x.to_le_bytes().to_vec())
}
fn i32s(shape: &[usize], v: &[i32]) -> In {
    arr(Scalar::I32, shape, v, |x| x.to_le_bytes().to_vec())
}
/// An output filled with a sentinel byte.
fn out(s: Scalar, shape: &[usize]) -> In {
    let n: usize = shape.iter().product();
    In::Arr(s, shape.to_vec(), vec![0xa5; n * s.size() as usize])
}

/// Runs `kernel` over `N` threads on `dev`; every array's bytes afterwards.
fn run(dev: &Device, m: &Module, kernel: &str, ins: &[In]) -> Result<Vec<Vec<u8>>, String> {
    let k = dev.load(m, kernel).map_err(|e| e.to_string())?;
    let arrays: Vec<Option<Array>> = ins
        .iter()
        .map(|a| match a {
            In::Arr(s, shape, data) => {
                Some(Array::from_bytes(Dtype::scalar(*s), data, shape).expect("array from bytes"))
            }
            In::Int(_) => None,
        })
        .collect();
    let args: Vec<Arg> = ins
        .iter()
        .zip(&arrays)
        .map(|(a, arr)| match (a, arr) {
            (_, Some(arr)) => Arg::array(arr),
            (In::Int(v), None) => Arg::i32(*v),
            _ => unreachable!("every array argument has an array"),
        })
        .collect();
    dev.launch(&k, &[N], &args).map_err(|e| e.to_string())?;
    Ok(arrays.iter().flatten().map(Array::to_bytes).collect())
}

/// The differences between two runs' arrays, element by element.
fn differences(ins: &[In], got: &[Vec<u8>], want: &[Vec<u8>]) -> Vec<String> {
    let scalars = ins.iter().filter_map(|a| match a {
        In::Arr(s, shape, _) => Some((*s, shape.get(1).copied().unwrap_or(1))),
        In::Int(_) => None,
    });
    let mut d = Vec::new();
    for (k, ((s, cols), (g, w))) in scalars.zip(got.iter().zip(want)).enumerate() {
        let sz = s.size() as usize;
        let nan = |b: &[u8]| match s {
            Scalar::F32 => b.try_into().is_ok_and(|b| f32::from_le_bytes(b).is_nan()),
            Scalar::F64 => b.try_into().is_ok_and(|b| f64::from_le_bytes(b).is_nan()),
            _ => false,
        };
        let show = |b: &[u8]| match s {
            Scalar::F32 => format!("{:?}", f32::from_le_bytes(b.try_into().unwrap_or([0; 4]))),
            Scalar::F64 => format!("{:?}", f64::from_le_bytes(b.try_into().unwrap_or([0; 8]))),
            Scalar::I32 => format!("{}", i32::from_le_bytes(b.try_into().unwrap_or([0; 4]))),
            _ => format!("{b:02x?}"),
        };
        for (idx, (gb, wb)) in g.chunks(sz).zip(w.chunks(sz)).enumerate() {
            if gb != wb && !(nan(gb) && nan(wb)) {
                d.push(format!(
                    "array {k} [{}, {}]: {} vs {}",
                    idx / cols,
                    idx % cols,
                    show(gb),
                    show(wb)
                ));
            }
        }
    }
    d
}

/// Emits every kernel of `m` and, with the tools, compiles and validates
/// its SPIR-V; on Vulkan, runs `kernel` against the cpu device.
/// Returns the failures (with the kernel's source when given).
fn check(vk: Option<&Device>, m: &Module, kernel: &str, ins: &[In]) -> Vec<String> {
    let art = match m.hlsl(kernel, &Default::default()) {
        Ok(a) => a,
        Err(e) => return vec![format!("{kernel}: emit: {e}")],
    };
    if find_glslang().is_some() && find_spirv_val().is_some() {
        let r = compile_spirv(&art).and_then(|spv| weft_backend_hlsl::validate_spirv(&spv));
        if let Err(e) = r {
            return vec![format!("{kernel}: SPIR-V: {e}")];
        }
    }
    let Some(vk) = vk else { return Vec::new() };
    let want = match run(&Device::cpu(), m, kernel, ins) {
        Ok(w) => w,
        Err(e) => return vec![format!("{kernel}: cpu: {e}")],
    };
    let got = match run(vk, m, kernel, ins) {
        Ok(g) => g,
        Err(e) => return vec![format!("{kernel}: vulkan: {e}")],
    };
    let diff = differences(ins, &got, &want);
    if diff.is_empty() {
        return Vec::new();
    }
    // Who is right: the interpreter decides.
    let referee = match run(&Device::interp(), m, kernel, ins) {
        Ok(r) if differences(ins, &want, &r).is_empty() => "cpu agrees with the interpreter",
        Ok(r) if differences(ins, &got, &r).is_empty() => "vulkan agrees with the interpreter",
        Ok(_) => "the interpreter agrees with neither",
        Err(_) => "the interpreter failed",
    };
    let mut lines = vec![format!(
        "{kernel}: vulkan vs cpu, {} differences ({referee}):",
        diff.len()
    )];
    lines.extend(diff.into_iter().take(8).map(|d| format!("  {d}")));
    vec![lines.join("\n")]
}

const REPORTED: &str = r#"
import warp as wp

@wp.kernel
def k(x: wp.array(dtype=float), z: wp.array(dtype=wp.float64), m: int):
    i = wp.tid()
    v = x[i]
    for j in range(m):
        z[i] = wp.float64(v)

@wp.kernel
def k_if(x: wp.array(dtype=float), z: wp.array(dtype=wp.float64), m: int):
    i = wp.tid()
    v = x[i]
    if v > 0.5:
        z[i] = wp.float64(v)
    else:
        x[i] = 2.0

@wp.kernel
def k_while(x: wp.array(dtype=float), z: wp.array(dtype=wp.float64), m: int):
    i = wp.tid()
    k = int(0)
    while k < m:
        z[i] = z[i] + wp.float64(x[i])
        k = k + 1
        if k > 5:
            break

@wp.kernel
def k_nested(x: wp.array2d(dtype=float), z: wp.array(dtype=wp.float64), m: int):
    i = wp.tid()
    for j in range(m):
        for l in range(3):
            x[i, l] = x[i, l] + float(j)
            if j == 2:
                z[i] = wp.float64(x[i, l])
                continue
            x[i, l] = x[i, l] * 0.5
    z[i] = z[i] * wp.float64(2.0)

@wp.kernel
def k_view(x: wp.array2d(dtype=float), z: wp.array(dtype=wp.float64), m: int):
    i = wp.tid()
    row = x[i]
    for j in range(m):
        row[1] = row[1] + row[0]
        z[i] = wp.float64(row[1]) / wp.float64(3.0)

@wp.kernel
def k_atomic(x: wp.array2d(dtype=float), z: wp.array(dtype=wp.float64), m: int):
    i = wp.tid()
    for j in range(m):
        wp.atomic_add(x, i, 0, 1.0)
        if x[i, 0] > 4.0:
            break
"#;

/// The reported kernels compiled other ways: bounds-checked (the checks
/// read the carried arrays' shapes) and -O1 run against the cpu device;
/// fast math is only compiled (contraction may change the last bit).
#[test]
fn reported_kernels_checked_o1_and_fast() {
    let vk = vulkan();
    let x: Vec<f32> = (0..N).map(|i| i as f32 * 0.375 - 1.0).collect();
    let z: Vec<f64> = (0..N).map(|i| i as f64 * 0.1).collect();
    let variants = [
        (
            "checked",
            CompileOptions {
                checked: true,
                ..Default::default()
            },
            true,
        ),
        (
            "O1",
            CompileOptions {
                opt_level: OptLevel::O1,
                ..Default::default()
            },
            true,
        ),
        (
            "fast",
            CompileOptions {
                fast_math: true,
                ..Default::default()
            },
            false,
        ),
    ];
    let mut failures = Vec::new();
    for (what, opts, run) in variants {
        let m = Compiler::with_options(opts)
            .compile("reported.py", REPORTED)
            .unwrap_or_else(|e| panic!("{what}: {}", e.render(false)));
        let vk = if run { vk.as_ref() } else { None };
        let one = [f32s(&[N], &x), f64s(&[N], &z), In::Int(3)];
        let two = [f32s(&[N, 3], &x), f64s(&[N], &z), In::Int(3)];
        for kernel in ["k", "k_if", "k_while"] {
            failures.extend(
                check(vk, &m, kernel, &one)
                    .into_iter()
                    .map(|f| format!("{what}: {f}")),
            );
        }
        for kernel in ["k_nested", "k_view", "k_atomic"] {
            failures.extend(
                check(vk, &m, kernel, &two)
                    .into_iter()
                    .map(|f| format!("{what}: {f}")),
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn reported_store_in_a_dynamic_loop_and_relatives() {
    let m = Compiler::new()
        .compile("reported.py", REPORTED)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let vk = vulkan();
    let x: Vec<f32> = (0..N).map(|i| i as f32 * 0.375 - 1.0).collect();
    let z: Vec<f64> = (0..N).map(|i| i as f64 * 0.1).collect();
    let mut failures = Vec::new();
    for trips in [0, 1, 3, 7] {
        let one = [f32s(&[N], &x), f64s(&[N], &z), In::Int(trips)];
        let two = [f32s(&[N, 3], &x), f64s(&[N], &z), In::Int(trips)];
        for kernel in ["k", "k_if", "k_while"] {
            failures.extend(check(vk.as_ref(), &m, kernel, &one));
        }
        for kernel in ["k_nested", "k_view", "k_atomic"] {
            failures.extend(check(vk.as_ref(), &m, kernel, &two));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The reported kernel really stores on Vulkan: z = float64(x) after a
    // loop with trips, untouched without.
    if let Some(vk) = &vk {
        let got = run(vk, &m, "k", &[f32s(&[N], &x), f64s(&[N], &z), In::Int(2)])
            .expect("reported kernel runs on vulkan");
        let zs: Vec<f64> = got[1]
            .chunks(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let want: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        assert_eq!(zs, want);
    }
}

/// Constant zeros in float arithmetic, where lavapipe folds against IEEE
/// rules in spite of `SignedZeroInfNanPreserve` (`x + 0.0` → `x`,
/// `0.0 + x` after unrolling an accumulation from 0.0, `0.0 / x` → 0,
/// `x * 0.0` → 0, and it drops a store of `x / 0.0`), as the generator found
/// them; the HLSL backend reads float zeros from the constant buffer.
const ZEROS: &str = r#"
import warp as wp

@wp.kernel
def zeros32(a: wp.array(dtype=float), b: wp.array(dtype=wp.float64), c: wp.array(dtype=int), of: wp.array2d(dtype=float), od: wp.array2d(dtype=wp.float64), oi: wp.array2d(dtype=int), m: int):
    i = wp.tid()
    x = a[i]
    of[i, 0] = x + 0.0
    of[i, 1] = 0.0 + x
    of[i, 2] = x - (-0.0)
    of[i, 3] = x / 0.0
    of[i, 4] = x / -0.0
    of[i, 5] = 0.0 / x
    of[i, 6] = x * 0.0
    of[i, 7] = 0.0 - x
    s = float(0.0)
    for j in range(3):
        s = s + x
    of[i, 8] = s
    t = float(0.0)
    for j in range(m):
        t = t + x
    of[i, 9] = t

@wp.kernel
def zeros64(a: wp.array(dtype=float), b: wp.array(dtype=wp.float64), c: wp.array(dtype=int), of: wp.array2d(dtype=float), od: wp.array2d(dtype=wp.float64), oi: wp.array2d(dtype=int), m: int):
    i = wp.tid()
    x = b[i]
    z = wp.float64(0.0)
    od[i, 0] = x + z
    od[i, 1] = z + x
    od[i, 2] = x - (-z)
    od[i, 3] = x / z
    od[i, 4] = x / (-z)
    od[i, 5] = z / x
    od[i, 6] = x * z
    od[i, 7] = z - x
    s = wp.float64(0.0)
    for j in range(3):
        s = s + x
    od[i, 8] = s
"#;

#[test]
fn constant_zeros_keep_ieee_semantics() {
    let m = Compiler::new()
        .compile("zeros.py", ZEROS)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let vk = vulkan();
    let specials = [
        0.0,
        -0.0,
        1.5,
        -2.25,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
    ];
    let a: Vec<f32> = specials.iter().map(|&x| x as f32).collect();
    let ins = [
        f32s(&[N], &a),
        f64s(&[N], &specials),
        i32s(&[N], &[0]),
        out(Scalar::F32, &[N, 10]),
        out(Scalar::F64, &[N, 10]),
        out(Scalar::I32, &[N, 1]),
        In::Int(3),
    ];
    let mut failures = Vec::new();
    for k in ["zeros32", "zeros64"] {
        failures.extend(check(vk.as_ref(), &m, k, &ins));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Loops whose threads leave at different iterations with a value computed
/// in the iteration they leave (Warp's Poisson sampler does): lavapipe gave
/// each thread the value of one iteration later until the HLSL backend
/// gave such loops an opaque condition, one per loop depth (docs/hlsl.md,
/// "Loops with results"). One `break`, two `break`s with the same value, a
/// `for` loop with a dynamic bound, a loop nested in another, a loop in
/// an inlined function with early returns (itself a loop with results),
/// and `wp.poisson` with `lam >= 10`, which needs the condition per depth.
const LOOP_EXITS: &str = r#"
import warp as wp

@wp.func
def draw(s: wp.uint32, lo: float):
    if lo >= 0.5:
        k = float(0.0)
        while True:
            u = wp.randf(s)
            acc = float(0.0)
            for r in range(2):
                acc += wp.randf(s)
            k = u + acc
            if u < lo and acc > 0.4:
                break
        return k
    return -1.0

@wp.kernel
def loop_exits(x: wp.array(dtype=float), out: wp.array2d(dtype=float), m: int):
    i = wp.tid()
    s = wp.rand_init(42, i)
    k = float(0.0)
    while True:
        u = wp.randf(s) - 0.5
        v = wp.randf(s)
        k = u
        if v <= 0.4:
            break
    out[i, 0] = k
    j = int(0)
    t = float(0.0)
    while True:
        j += 1
        t = x[i] * float(j) + wp.randf(s)
        if t > 3.0:
            break
        if j > m:
            break
    out[i, 1] = t
    out[i, 2] = float(j)
    w = float(-1.0)
    for l in range(m):
        w = x[i] * float(l)
        if w > 2.0:
            break
    out[i, 3] = w
    acc = float(0.0)
    for r in range(3):
        q = float(0.0)
        while True:
            q = wp.randf(s)
            if q < 0.3 + 0.1 * float(r):
                break
        acc += q
    out[i, 4] = acc
    out[i, 5] = draw(wp.rand_init(7, i), 0.45 + x[i] * 0.05)
    out[i, 6] = float(wp.poisson(wp.rand_init(42, i), 10.0 + x[i]))
"#;

#[test]
fn loop_exit_values_of_divergent_threads() {
    let m = Compiler::new()
        .compile("loop_exits.py", LOOP_EXITS)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let vk = vulkan();
    let x: Vec<f32> = (0..N).map(|i| i as f32 * 0.25).collect();
    let mut failures = Vec::new();
    for trips in [0, 2, 9] {
        let ins = [f32s(&[N], &x), out(Scalar::F32, &[N, 7]), In::Int(trips)];
        failures.extend(check(vk.as_ref(), &m, "loop_exits", &ins));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The loops with results get the opaque condition; the others do not.
    let hlsl = m
        .hlsl("loop_exits", &Default::default())
        .expect("emits")
        .source;
    assert!(hlsl.contains("[loop] for (; weft_on0_;)"), "{hlsl}");
    assert!(hlsl.contains("[loop] for (; weft_on1_;)"), "{hlsl}");
    assert!(
        hlsl.contains("bool weft_on1_ = ((weft_cb[1].z >> 1u) == 0u);"),
        "{hlsl}"
    );
}

/// A large float64 kernel: every float64 operation the backend writes with
/// helpers (sqrt, rounding, fmod, min/max) and plain arithmetic and casts,
/// one value into many outputs. It gave wrong values on lavapipe (and took
/// minutes to compile) while `weft_bits64` scaled with loops; and
/// `fmod(1e300, 1e-300)` stopped early while `weft_fmod64` was quadratic
/// (docs/hlsl.md). `sqrt(x * x)`: float64 `sqrt` may be one ulp off, which
/// the bit-exact comparison would flag, but not for exact squares.
const BIG64: &str = r#"
import warp as wp

@wp.kernel
def big64(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array2d(dtype=wp.float64), outf: wp.array2d(dtype=float), outi: wp.array2d(dtype=int)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i, 0] = wp.sqrt(x * x)
    out[i, 1] = wp.floor(x)
    out[i, 2] = wp.ceil(x)
    out[i, 3] = wp.trunc(x)
    out[i, 4] = wp.round(x)
    out[i, 5] = wp.rint(x)
    out[i, 6] = x % y
    out[i, 7] = wp.min(x, y)
    out[i, 8] = x / y
    out[i, 9] = wp.max(x, y)
    out[i, 10] = x * y + wp.float64(1.0)
    out[i, 11] = wp.abs(x - y)
    outf[i, 0] = float(x)
    outf[i, 1] = float(x / y)
    outi[i, 0] = int(x)
    outi[i, 1] = int(y)
"#;

#[test]
fn large_float64_kernel() {
    let m = Compiler::new()
        .compile("big64.py", BIG64)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let vk = vulkan();
    let x = [
        2.5,
        -2.5,
        0.5,
        -0.0,
        0.0,
        1e300,
        -7.75,
        3.0000000000000004,
        f64::INFINITY,
        f64::NAN,
        4503599627370497.0,
        -1e-310,
        123456.789,
        0.49999999999999994,
        -1.5,
        2.0,
    ];
    // (Not min/max of 0.0 and -0.0: the cpu device gives -0.0 where the
    // interpreter and Vulkan give 0.0; the IR leaves it open.)
    let y = [3.0, -0.75, 0.0, 2.0, -1e-300, 1e-300, 1.25, f64::NAN, 7.0];
    let ins = [
        f64s(&[N], &x),
        f64s(&[N], &y),
        out(Scalar::F64, &[N, 12]),
        out(Scalar::F32, &[N, 2]),
        out(Scalar::I32, &[N, 2]),
    ];
    let failures = check(vk.as_ref(), &m, "big64", &ins);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------- generator

/// A random kernel source: locals `f` (float32), `d` (float64) and `n`
/// (int) from the inputs, statements, and the locals stored at the end.
struct Gen {
    state: u64,
    src: String,
    /// Loop variables in scope (ints).
    loop_vars: Vec<String>,
    /// Loops entered (for `break`/`continue`) and a counter for names.
    loops: usize,
    names: usize,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            state: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d,
            src: String::new(),
            loop_vars: Vec::new(),
            loops: 0,
            names: 0,
        }
    }

    /// splitmix64.
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick_of<'s>(&mut self, xs: &[&'s str]) -> &'s str {
        xs[self.pick(xs.len())]
    }

    fn loop_var(&mut self) -> Option<String> {
        if self.loop_vars.is_empty() {
            return None;
        }
        let k = self.pick(self.loop_vars.len());
        Some(self.loop_vars[k].clone())
    }

    fn float(&mut self, depth: u32) -> String {
        let leaf = depth == 0 || self.pick(3) == 0;
        if leaf {
            return match self.pick(9) {
                0 => "f".into(),
                1 => "a[i]".into(),
                2 => "float(d)".into(),
                3 => "float(n)".into(),
                7 => "float(wp.int64(n) * wp.int64(1000003))".into(),
                8 => "float(wp.float16(f) * wp.float16(3.0))".into(),
                4 => match self.loop_var() {
                    Some(j) => format!("float({j})"),
                    None => "f".into(),
                },
                _ => self
                    .pick_of(&["0.5", "1.25", "-2.0", "3.0", "0.1", "1e-3"])
                    .into(),
            };
        }
        let op = self.pick_of(&["+", "-", "*", "*", "/"]);
        format!("({} {op} {})", self.float(depth - 1), self.float(depth - 1))
    }

    fn double(&mut self, depth: u32) -> String {
        let leaf = depth == 0 || self.pick(3) == 0;
        if leaf {
            return match self.pick(9) {
                0 => "d".into(),
                1 => "b[i]".into(),
                2 => "wp.float64(f)".into(),
                3 => "wp.float64(n)".into(),
                7 => "wp.float64(wp.int64(d * wp.float64(1e10)))".into(),
                8 => "wp.float64(wp.uint32(n))".into(),
                4 => match self.loop_var() {
                    Some(j) => format!("wp.float64({j})"),
                    None => "d".into(),
                },
                _ => {
                    let lit = self.pick_of(&["0.5", "0.1", "-1.5", "3.0", "1e-7"]);
                    format!("wp.float64({lit})")
                }
            };
        }
        let op = self.pick_of(&["+", "-", "*", "*", "/"]);
        format!(
            "({} {op} {})",
            self.double(depth - 1),
            self.double(depth - 1)
        )
    }

    fn int(&mut self, depth: u32) -> String {
        let leaf = depth == 0 || self.pick(3) == 0;
        if leaf {
            return match self.pick(9) {
                0 => "n".into(),
                1 => "c[i]".into(),
                2 => "int(f)".into(),
                3 => "int(d)".into(),
                7 => "int(wp.uint32(n) / wp.uint32(3))".into(),
                8 => "int(wp.int64(d) / wp.int64(7))".into(),
                4 => self.loop_var().unwrap_or_else(|| "n".into()),
                _ => self.pick_of(&["1", "2", "-3", "7"]).into(),
            };
        }
        match self.pick(4) {
            0 => format!("({} % 5)", self.int(depth - 1)),
            _ => {
                let op = self.pick_of(&["+", "-", "*"]);
                format!("({} {op} {})", self.int(depth - 1), self.int(depth - 1))
            }
        }
    }

    fn cond(&mut self) -> String {
        match self.pick(6) {
            0 => format!("f < {}", self.float(1)),
            1 => format!("d > {}", self.double(1)),
            2 => "n % 2 == 0".into(),
            3 => format!("c[i] > {}", self.int(0)),
            4 => match self.loop_var() {
                Some(j) => format!("{j} == 1"),
                None => "n > 0".into(),
            },
            _ => format!("{} < {} and n != 3", self.double(1), self.double(0)),
        }
    }

    fn line(&mut self, indent: usize, s: &str) {
        for _ in 0..indent {
            self.src.push_str("    ");
        }
        self.src.push_str(s);
        self.src.push('\n');
    }

    fn store(&mut self, indent: usize) {
        let slot = 1 + self.pick(SLOTS - 1);
        let s = match self.pick(3) {
            0 => format!("of[i, {slot}] = {}", self.float(2)),
            1 => format!("od[i, {slot}] = {}", self.double(2)),
            _ => format!("oi[i, {slot}] = {}", self.int(2)),
        };
        self.line(indent, &s);
    }

    fn block(&mut self, indent: usize, depth: u32) {
        let n = 1 + self.pick(3);
        for _ in 0..n {
            self.stmt(indent, depth);
        }
    }

    fn stmt(&mut self, indent: usize, depth: u32) {
        let choice = if depth == 0 {
            self.pick(5)
        } else {
            self.pick(11)
        };
        match choice {
            0 => {
                let e = self.float(2);
                self.line(indent, &format!("f = {e}"));
            }
            1 => {
                let e = self.double(2);
                self.line(indent, &format!("d = {e}"));
            }
            2 => {
                let e = self.int(2);
                self.line(indent, &format!("n = {e}"));
            }
            3 | 4 => self.store(indent),
            5 | 6 => {
                let c = self.cond();
                self.line(indent, &format!("if {c}:"));
                self.block(indent + 1, depth - 1);
                if self.pick(2) == 0 {
                    self.line(indent, "else:");
                    self.block(indent + 1, depth - 1);
                }
            }
            7 | 8 => {
                let j = format!("j{}", self.names);
                self.names += 1;
                let range = match self.pick(4) {
                    0 => format!("{}", self.pick(4)),
                    1 => "m".into(),
                    2 => "c[i] % 4".into(),
                    _ => "1, m".into(),
                };
                self.line(indent, &format!("for {j} in range({range}):"));
                self.loop_body(indent + 1, depth - 1, j);
            }
            9 => {
                let w = format!("w{}", self.names);
                self.names += 1;
                self.line(indent, &format!("{w} = int(0)"));
                self.line(indent, &format!("while {w} < m:"));
                // The increment first, so that `continue` cannot loop forever.
                self.line(indent + 1, &format!("{w} = {w} + 1"));
                self.loop_body(indent + 1, depth - 1, w);
            }
            _ if self.loops > 0 => {
                let c = self.cond();
                let exit = self.pick_of(&["break", "continue"]);
                self.line(indent, &format!("if {c}:"));
                self.store(indent + 1);
                self.line(indent + 1, exit);
            }
            _ => self.store(indent),
        }
    }

    fn loop_body(&mut self, indent: usize, depth: u32, var: String) {
        self.loop_vars.push(var);
        self.loops += 1;
        self.block(indent, depth);
        // Most loops store something (the reported pattern).
        if self.pick(3) != 0 {
            self.store(indent);
        }
        self.loops -= 1;
        self.loop_vars.pop();
    }

    /// One kernel named `name`.
    fn kernel(&mut self, name: &str) -> String {
        self.src.clear();
        self.line(0, "@wp.kernel");
        self.line(0, &format!("def {name}(a: wp.array(dtype=float), b: wp.array(dtype=wp.float64), c: wp.array(dtype=int), of: wp.array2d(dtype=float), od: wp.array2d(dtype=wp.float64), oi: wp.array2d(dtype=int), m: int):"));
        self.line(1, "i = wp.tid()");
        self.line(1, "f = a[i]");
        self.line(1, "d = b[i]");
        self.line(1, "n = c[i]");
        let n = 2 + self.pick(3);
        for _ in 0..n {
            self.stmt(1, 3);
        }
        self.line(1, "of[i, 0] = f");
        self.line(1, "od[i, 0] = d");
        self.line(1, "oi[i, 0] = n");
        std::mem::take(&mut self.src)
    }
}

#[test]
fn generated_programs() {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let seed = env("WEFT_PROGRAMS_SEED").unwrap_or(1);
    let count = env("WEFT_PROGRAMS").unwrap_or(GENERATED as u64) as usize;
    let mut g = Gen::new(seed);
    let mut kernels: Vec<(String, String)> = (0..count)
        .map(|k| {
            let name = format!("g{k}");
            let src = g.kernel(&name);
            (name, src)
        })
        .collect();
    let mut source = std::iter::once("import warp as wp\n".to_string())
        .chain(kernels.iter().map(|(_, s)| format!("\n{s}")))
        .collect::<String>();
    // A file of kernels with the generated signature instead (to minimise
    // a failure by hand).
    if let Ok(path) = std::env::var("WEFT_PROGRAMS_FILE") {
        source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        kernels = source
            .split("@wp.kernel")
            .skip(1)
            .filter_map(|k| {
                let name = k
                    .split("def ")
                    .nth(1)?
                    .split('(')
                    .next()?
                    .trim()
                    .to_string();
                Some((name, format!("@wp.kernel{k}")))
            })
            .collect();
    }
    let m = Compiler::new()
        .compile("generated.py", &source)
        .unwrap_or_else(|e| panic!("{}\n{source}", e.render(false)));
    let vk = vulkan();
    let a: Vec<f32> = (0..N).map(|i| i as f32 * 0.625 - 3.0).collect();
    let b: Vec<f64> = (0..N).map(|i| 2.5 - i as f64 * 0.3).collect();
    let c: Vec<i32> = (0..N as i32).map(|i| (i * 7) % 11 - 3).collect();
    let ins = [
        f32s(&[N], &a),
        f64s(&[N], &b),
        i32s(&[N], &c),
        out(Scalar::F32, &[N, SLOTS]),
        out(Scalar::F64, &[N, SLOTS]),
        out(Scalar::I32, &[N, SLOTS]),
        In::Int(3),
    ];
    let mut failures = Vec::new();
    for (name, src) in &kernels {
        for f in check(vk.as_ref(), &m, name, &ins) {
            failures.push(format!("{f}\n{src}"));
        }
    }
    assert!(
        failures.is_empty(),
        "seed {seed}: {} of {} kernels failed:\n{}",
        failures.len(),
        kernels.len(),
        failures.join("\n")
    );
}

/// The element types in the generated signature are what `In` sends.
#[test]
fn generated_signature_matches_the_inputs() {
    let mut g = Gen::new(7);
    let src = format!("import warp as wp\n\n{}", g.kernel("g"));
    let m = Compiler::new().compile("g.py", &src).expect("compiles");
    let ir = m.ir();
    let f = &ir.funcs[ir.func_by_name("g").expect("kernel")];
    let tys: Vec<Option<Scalar>> = f
        .params
        .iter()
        .map(|p| match p.ty {
            Type::Array(a) => Type::from(a.elem).as_scalar(),
            t => t.as_scalar(),
        })
        .collect();
    use Scalar::*;
    assert_eq!(
        tys,
        [F32, F64, I32, F32, F64, I32, I32].map(Some).to_vec(),
        "{src}"
    );
}
