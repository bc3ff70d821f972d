//! Atomics into one address (`weft_ir::info::reductions`), which the CPU
//! backend accumulates per thread range: the results equal the
//! interpreter's (one atomic per thread) bit for bit wherever the op is
//! exact — integer ops, float `min`/`max`, float sums of integers — for
//! launch sizes around the runtime's range splits, and the site leaves an
//! array untouched when no thread reaches it.

use weft::{Arg, Array, Compiler, Device};

const SRC: &str = r#"
import warp as wp

@wp.kernel
def reduce(x: wp.array(dtype=float), k: wp.array(dtype=int), n: int,
           total: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float),
           count: wp.array(dtype=int), imin: wp.array(dtype=int), imax: wp.array(dtype=int),
           bits: wp.array(dtype=int), ors: wp.array(dtype=int), xors: wp.array(dtype=int),
           never: wp.array(dtype=float), mixed: wp.array(dtype=int), seen: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    wp.atomic_add(total, n - 1, v)
    wp.atomic_min(lo, 0, v)
    wp.atomic_max(hi, 0, v)
    if k[i] % 3 == 0:
        wp.atomic_add(count, 0, 1)
    wp.atomic_min(imin, 0, k[i])
    wp.atomic_max(imax, 0, k[i])
    wp.atomic_and(bits, 0, k[i] | 1024)
    wp.atomic_or(ors, 0, k[i])
    wp.atomic_xor(xors, 0, k[i])
    if v > 1.0e9:
        wp.atomic_min(never, 0, v)
    # Not a reduction: two ops on one array, and an index per thread.
    wp.atomic_add(mixed, 0, 1)
    wp.atomic_max(mixed, 1, k[i])
    wp.atomic_add(seen, i % 4, 1)
"#;

fn run(dev: &Device, n: usize) -> Vec<Vec<u8>> {
    let m = Compiler::new().compile("reduce.py", SRC).expect("compiles");
    let kern = dev.load(&m, "reduce").expect("loads");
    // Integers in floats: every partial sum is exact.
    let x: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
    let k: Vec<i32> = (0..n).map(|i| ((i * 7919) % 2000) as i32 - 1000).collect();
    let f1 = |v: f32| Array::from_slice(&[v], &[1]).unwrap();
    let i1 = |v: i32| Array::from_slice(&[v], &[1]).unwrap();
    let xa = Array::from_slice(&x, &[n]).unwrap();
    let ka = Array::from_slice(&k, &[n]).unwrap();
    let total = Array::from_slice(&[0.5f32, -0.0], &[2]).unwrap();
    let outs = [
        f1(f32::INFINITY),
        f1(f32::NEG_INFINITY),
        i1(7),
        i1(i32::MAX),
        i1(i32::MIN),
        i1(-1),
        i1(0),
        i1(0x55),
        f1(f32::NAN),
        Array::from_slice(&[0i32, 0], &[2]).unwrap(),
        Array::from_slice(&[0i32; 4], &[4]).unwrap(),
    ];
    let mut args = vec![
        Arg::array(&xa),
        Arg::array(&ka),
        Arg::i32(2),
        Arg::array(&total),
    ];
    args.extend(outs.iter().map(Arg::array));
    dev.launch(&kern, &[n], &args).expect("runs");
    std::iter::once(&total)
        .chain(&outs)
        .map(|a| a.to_bytes())
        .collect()
}

#[test]
fn reductions_equal_one_atomic_per_thread() {
    let names = [
        "total", "lo", "hi", "count", "imin", "imax", "bits", "ors", "xors", "never", "mixed",
        "seen",
    ];
    for n in [1, 3, 64, 1000, 4099, 100_003] {
        let want = run(&Device::interp(), n);
        let got = run(&Device::cpu(), n);
        for ((a, b), name) in want.iter().zip(&got).zip(names) {
            assert_eq!(a, b, "`{name}` differs from the interpreter at n = {n}");
        }
        // `total[0]` untouched (0.5), `total[1]` the sum from -0.0.
        let t: Vec<f32> = got[0]
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let sum: f32 = (0..n).map(|i| ((i * 37) % 101) as f32 - 50.0).sum();
        assert_eq!(t, vec![0.5, sum], "n = {n}");
        // No thread reached `never`: its NaN is left as it was.
        let never = f32::from_le_bytes(got[9][..4].try_into().unwrap());
        assert!(never.is_nan(), "n = {n}: {never}");
    }
}

#[test]
fn what_counts_as_a_reduction() {
    let m = Compiler::new().compile("reduce.py", SRC).expect("compiles");
    let ir = m.ir();
    let (_, f) = ir.kernels().next().expect("a kernel");
    let sites = weft::ir::info::reductions(f);
    // total, lo, hi, count, imin, imax, bits, ors, xors, never; not the
    // mixed ops on `mixed`, not `seen[i % 4]`.
    assert_eq!(sites.len(), 10, "{sites:?}");
}
