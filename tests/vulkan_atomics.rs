//! 64-bit atomics on the `vulkan` device, done under the HLSL backend's
//! lock table (docs/hlsl.md, "atomics"): many threads update the same few
//! elements (int64, uint64, float64 add/sub/min/max/and/or/xor/exchange,
//! `atomic_cas` retry loops, float64 vectors as adjoints accumulate them),
//! and the results are compared with the cpu device and with their closed
//! forms. The old values the atomics return are checked too: every thread
//! that adds into one slot sees a different prefix sum. Without a Vulkan
//! device the tests print `SKIP:` and pass.

mod common;

use common::vulkan;
use weft::ir::{ElemType, Scalar};
use weft::{Arg, Array, Compiler, Device, Dtype, Element, Module};

/// Threads per launch: many workgroups of 64, run by lavapipe's threads
/// at once, so the locks are contended across and within subgroups.
const N: usize = 20_000;

const SOURCE: &str = r#"
import warp as wp

@wp.kernel
def contended(n: wp.array(dtype=wp.int64), u: wp.array(dtype=wp.uint64),
              d: wp.array(dtype=wp.float64), old_n: wp.array(dtype=wp.int64),
              old_d: wp.array(dtype=wp.float64)):
    i = wp.tid()
    # 2^32 + 1: every add carries into the high word.
    old_n[i] = wp.atomic_add(n, 0, wp.int64(4294967297))
    wp.atomic_sub(n, 1, wp.int64(3))
    wp.atomic_max(n, 2, (wp.int64(i) - wp.int64(7000)) * wp.int64(1099511627776))
    wp.atomic_min(n, 3, (wp.int64(i) - wp.int64(7000)) * wp.int64(1099511627776))
    wp.atomic_max(u, 0, wp.uint64(i) << wp.uint64(40))
    wp.atomic_min(u, 1, wp.uint64(i + 3) << wp.uint64(40))
    wp.atomic_or(u, 2, wp.uint64(1) << wp.uint64(i % 64))
    wp.atomic_xor(u, 3, wp.uint64(i) << wp.uint64(32))
    wp.atomic_and(u, 4, ~(wp.uint64(1) << wp.uint64(i % 61)))
    old_d[i] = wp.atomic_add(d, 0, wp.float64(0.5))
    wp.atomic_sub(d, 1, wp.float64(0.25))
    wp.atomic_min(d, 2, wp.float64(i) * wp.float64(-0.5) + wp.float64(3.0))
    wp.atomic_max(d, 3, wp.float64(i % 1000) + wp.float64(0.125))

@wp.kernel
def cas_counters(c: wp.array(dtype=wp.int64), f: wp.array(dtype=wp.float64),
                 u: wp.array(dtype=wp.uint64), last: wp.array(dtype=wp.int64)):
    i = wp.tid()
    # Increments by compare-and-swap retry loops, as Warp programs write them.
    cur = c[0]
    while True:
        prev = wp.atomic_cas(c, 0, cur, cur + wp.int64(1))
        if prev == cur:
            break
        cur = prev
    last[i] = cur
    x = f[0]
    while True:
        p = wp.atomic_cas(f, 0, x, x + wp.float64(0.25))
        if p == x:
            break
        x = p
    wp.atomic_exch(u, 0, wp.uint64(i))

@wp.kernel
def vectors(v: wp.array(dtype=wp.vec3d), w: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    # How an adjoint accumulates a float64 vector's gradient.
    wp.atomic_add(v, i % 3, wp.vec3d(wp.float64(1.0), wp.float64(0.5), wp.float64(i % 2)))
    wp.atomic_max(w, 0, wp.vec3d(wp.float64(i), wp.float64(-i), wp.float64(i % 7)))

@wp.kernel
def aliased(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(a, i % 2, wp.float64(1.0))
    wp.atomic_add(b, i % 2, wp.float64(1.0))
"#;

fn module() -> Module {
    Compiler::new()
        .compile("atomics64.py", SOURCE)
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
}

fn arr<T: Element>(v: &[T]) -> Array {
    Array::from_slice(v, &[v.len()]).expect("array")
}

/// An array of `vec3d` from its components.
fn vec3d(x: &[f64]) -> Array {
    let bytes: Vec<u8> = x.iter().flat_map(|c| c.to_le_bytes()).collect();
    let dtype = Dtype::new(ElemType::Vec(3, Scalar::F64));
    Array::from_bytes(dtype, &bytes, &[x.len() / 3]).expect("vec3d array")
}

fn vec_of<T: Element>(a: &Array) -> Vec<T> {
    a.to_vec::<T>().expect("to_vec")
}

/// Panics with the first difference of two long sequences (never the
/// whole sequences).
fn same<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    if let Some(k) = (0..got.len()).find(|&k| got[k] != want[k]) {
        let n = got.iter().zip(want).filter(|(g, w)| g != w).count();
        panic!(
            "{what}: {n} differences, the first at [{k}]: {:?} vs {:?}",
            got[k], want[k]
        );
    }
}

/// Launches `kernel` over `N` threads on `dev`.
fn launch(dev: &Device, m: &Module, kernel: &str, args: &[Arg]) {
    let k = dev
        .load(m, kernel)
        .unwrap_or_else(|e| panic!("{kernel}: {e}"));
    dev.launch(&k, &[N], args)
        .unwrap_or_else(|e| panic!("{kernel} on {}: {e}", dev.describe().name));
}

/// What `contended` leaves: the int64, uint64 and float64 slots, then the
/// sorted old values of the int64 and float64 adds.
type Contended = (Vec<i64>, Vec<u64>, Vec<f64>, Vec<i64>, Vec<f64>);

/// `contended` on `dev`.
fn contended(dev: &Device, m: &Module) -> Contended {
    let n = arr(&[0i64, 10, i64::MIN, i64::MAX]);
    let u = arr(&[0u64, u64::MAX, 0, 0, u64::MAX]);
    let d = arr(&[0.0f64, 1.0, f64::INFINITY, f64::NEG_INFINITY]);
    let (old_n, old_d) = (arr(&vec![-1i64; N]), arr(&vec![-1.0f64; N]));
    let args = [&n, &u, &d, &old_n, &old_d].map(Arg::array);
    launch(dev, m, "contended", &args);
    let mut on = vec_of::<i64>(&old_n);
    on.sort_unstable();
    let mut od = vec_of::<f64>(&old_d);
    od.sort_by(f64::total_cmp);
    (vec_of(&n), vec_of(&u), vec_of(&d), on, od)
}

#[test]
fn contended_64_bit_atomics_match_the_cpu() {
    let Some(vk) = vulkan() else { return };
    let m = module();
    let (n, u, d, old_n, old_d) = contended(&vk, &m);
    let cpu = contended(&Device::cpu(), &m);
    assert_eq!((&n, &u, &d), (&cpu.0, &cpu.1, &cpu.2), "vulkan vs cpu");
    same(
        "int64 atomic_add's old values, vulkan vs cpu",
        &old_n,
        &cpu.3,
    );
    same(
        "float64 atomic_add's old values, vulkan vs cpu",
        &old_d,
        &cpu.4,
    );
    let (nn, step) = (N as i64, 4_294_967_297i64);
    assert_eq!(
        n,
        [nn * step, 10 - 3 * nn, (nn - 1 - 7000) << 40, -7000 << 40]
    );
    let xor = (0..N as u64).fold(0u64, |x, i| x ^ (i << 32));
    let and = (0..61u64).fold(u64::MAX, |x, b| x & !(1 << b));
    assert_eq!(u, [(N as u64 - 1) << 40, 3 << 40, u64::MAX, xor, and]);
    let n_f = N as f64;
    assert_eq!(
        d,
        [
            0.5 * n_f,
            1.0 - 0.25 * n_f,
            (n_f - 1.0) * -0.5 + 3.0,
            999.125
        ]
    );
    // Each add saw a different prefix: the old values are 0, s, 2s, ...
    let prefixes: Vec<i64> = (0..nn).map(|k| k * step).collect();
    same("int64 atomic_add's old values", &old_n, &prefixes);
    let prefixes: Vec<f64> = (0..N).map(|k| k as f64 * 0.5).collect();
    same("float64 atomic_add's old values", &old_d, &prefixes);
}

#[test]
fn compare_and_swap_loops_count_every_thread() {
    let Some(vk) = vulkan() else { return };
    let m = module();
    let run = |dev: &Device| {
        let (c, f, u) = (arr(&[5i64]), arr(&[-1.0f64]), arr(&[u64::MAX]));
        let last = arr(&vec![-1i64; N]);
        launch(
            dev,
            &m,
            "cas_counters",
            &[&c, &f, &u, &last].map(Arg::array),
        );
        let mut l = vec_of::<i64>(&last);
        l.sort_unstable();
        let u = vec_of::<u64>(&u)[0];
        (vec_of::<i64>(&c), vec_of::<f64>(&f), u < N as u64, l)
    };
    let (c, f, exchanged, last) = run(&vk);
    let cpu = run(&Device::cpu());
    assert_eq!(
        (&c, &f, exchanged),
        (&cpu.0, &cpu.1, cpu.2),
        "vulkan vs cpu"
    );
    same("the values swapped in, vulkan vs cpu", &last, &cpu.3);
    assert_eq!(c, [5 + N as i64]);
    assert_eq!(f, [-1.0 + 0.25 * N as f64]);
    assert!(exchanged, "atomic_exch stored one thread's index");
    // Every thread swapped in a different value.
    let counts: Vec<i64> = (0..N as i64).map(|k| 5 + k).collect();
    same("the values swapped in", &last, &counts);
}

#[test]
fn float64_vector_atomics_match_the_cpu() {
    let Some(vk) = vulkan() else { return };
    let m = module();
    let run = |dev: &Device| {
        let (v, w) = (vec3d(&[0.0; 9]), vec3d(&[f64::NEG_INFINITY; 3]));
        launch(dev, &m, "vectors", &[Arg::array(&v), Arg::array(&w)]);
        let f = |a: &Array| -> Vec<f64> {
            let b = a.to_bytes();
            b.chunks(8)
                .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
                .collect()
        };
        (f(&v), f(&w))
    };
    let got = run(&vk);
    assert_eq!(got, run(&Device::cpu()), "vulkan vs cpu");
    let (v, w) = got;
    let per = |k: usize| (0..N).filter(move |i| i % 3 == k);
    for k in 0..3 {
        let count = per(k).count() as f64;
        let odd = per(k).filter(|i| i % 2 == 1).count() as f64;
        assert_eq!(v[3 * k..3 * k + 3], [count, 0.5 * count, odd], "v[{k}]");
    }
    assert_eq!(w, [N as f64 - 1.0, 0.0, 6.0]);
}

/// One array passed for two parameters: the locks hash the element's byte
/// offset only, so both parameters' atomics on an element take one lock.
#[test]
fn an_array_passed_twice_takes_one_lock_per_element() {
    let Some(vk) = vulkan() else { return };
    let m = module();
    let a = arr(&[0.0f64, 0.0]);
    launch(&vk, &m, "aliased", &[Arg::array(&a), Arg::array(&a)]);
    assert_eq!(vec_of::<f64>(&a), [N as f64, N as f64]);
}
