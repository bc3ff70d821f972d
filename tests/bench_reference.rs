//! The hand-written scalar references of `weft bench`
//! (`weft_devtools::reference`) compute what Weft's CPU backend computes: the
//! same bits for saxpy, N-body and the particle update, the atomic sum
//! within rounding (it adds in another order). Their SIMD versions are
//! checked against them in `reference::simd`'s unit tests.

use weft::{Arg, Array, Compiler, Device};
use weft_devtools::bench::{PARTICLES_SOURCE, SOURCE};
use weft_devtools::reference::{self, V3};

const NBODY_SOURCE: &str = include_str!("../examples/nbody.py");

fn launch(source: &str, kernel: &str, n: usize, args: &[Arg<'_>]) {
    let m = Compiler::new()
        .compile("bench.py", source)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let dev = Device::cpu();
    let k = dev.load(&m, kernel).unwrap();
    dev.launch(&k, &[n], args).unwrap();
}

fn bits(v: &[V3]) -> Vec<[u32; 3]> {
    v.iter().map(|p| p.map(f32::to_bits)).collect()
}

#[test]
fn saxpy_references_match_weft() {
    let n = 1000 + 3;
    let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.37 - 11.0).collect();
    let y0: Vec<f32> = (0..n).map(|i| (i % 31) as f32 * 1.3).collect();
    let (xa, ya) = (
        Array::from_slice(&x, &[n]).unwrap(),
        Array::from_slice(&y0, &[n]).unwrap(),
    );
    launch(
        SOURCE,
        "saxpy",
        n,
        &[Arg::array(&xa), Arg::array(&ya), Arg::f32(0.7)],
    );
    let weft: Vec<u32> = ya
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    let mut y = y0.clone();
    reference::saxpy(0.7, &x, &mut y);
    let y: Vec<u32> = y.iter().map(|v| v.to_bits()).collect();
    assert_eq!(y, weft);
}

#[test]
fn nbody_references_match_weft() {
    let n = 64 + 5;
    let (p, v, m) = reference::bodies(n);
    let prm = (1e-3f32, 1.0f32, 0.0025f32);
    let pa = Array::from_slice(&p, &[n]).unwrap();
    let dt = pa.dtype().clone();
    let (np, nv) = (
        Array::zeros(dt.clone(), &[n]).unwrap(),
        Array::zeros(dt, &[n]).unwrap(),
    );
    let (va, ma) = (
        Array::from_slice(&v, &[n]).unwrap(),
        Array::from_slice(&m, &[n]).unwrap(),
    );
    let args = [
        Arg::array(&pa),
        Arg::array(&va),
        Arg::array(&ma),
        Arg::array(&np),
        Arg::array(&nv),
        Arg::i32(n as i32),
        Arg::f32(prm.0),
        Arg::f32(prm.1),
        Arg::f32(prm.2),
    ];
    launch(NBODY_SOURCE, "nbody_step", n, &args);
    let (wp, wv): (Vec<V3>, Vec<V3>) = (np.to_vec().unwrap(), nv.to_vec().unwrap());
    let (mut gp, mut gv) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    reference::nbody_step(&p, &v, &m, &mut gp, &mut gv, prm);
    assert_eq!(bits(&gp), bits(&wp));
    assert_eq!(bits(&gv), bits(&wv));
}

#[test]
fn atomic_sum_references_match_weft() {
    let n = 5000 + 7;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 1e-3 - 0.3).collect();
    let total = Array::from_slice(&[0.0f32], &[1]).unwrap();
    let xa = Array::from_slice(&x, &[n]).unwrap();
    launch(
        SOURCE,
        "atomic_sum",
        n,
        &[Arg::array(&xa), Arg::array(&total)],
    );
    let weft = total.to_vec::<f32>().unwrap()[0];
    let tol = 1e-5 * x.iter().map(|v| v.abs()).sum::<f32>();
    let s = reference::atomic_sum(&x);
    assert!((s - weft).abs() <= tol, "{s} vs {weft}");
}

#[test]
fn particle_references_match_weft() {
    let n = 300 + 9;
    // Some particles end below the ground (the bounce), some above.
    let x0: Vec<V3> = (0..n)
        .map(|i| [i as f32 * 0.1, (i % 9) as f32 * 1e-3 - 2e-3, 1.0])
        .collect();
    let v0: Vec<V3> = (0..n)
        .map(|i| [-0.0, (i % 5) as f32 - 2.0, (i % 3) as f32])
        .collect();
    let (xa, va) = (
        Array::from_slice(&x0, &[n]).unwrap(),
        Array::from_slice(&v0, &[n]).unwrap(),
    );
    let args = [
        Arg::array(&xa),
        Arg::array(&va),
        Arg::f32(9.81),
        Arg::f32(1e-3),
    ];
    launch(PARTICLES_SOURCE, "particles", n, &args);
    let (wx, wv): (Vec<V3>, Vec<V3>) = (xa.to_vec().unwrap(), va.to_vec().unwrap());
    assert!(wv.iter().any(|v| v[1] > 0.0), "no particle bounced");
    let (mut x, mut v) = (x0.clone(), v0.clone());
    reference::particles(&mut x, &mut v, 9.81, 1e-3);
    assert_eq!(bits(&x), bits(&wx));
    assert_eq!(bits(&v), bits(&wv));
}
