//! The benchmark kernels by hand at the machine's native vector width:
//! `std::arch` intrinsics, AVX-512F (16 lanes) or AVX2 (8 lanes), chosen at
//! run time, on all rayon threads. Each lane does its item's f32 operations
//! in the kernel's order (IEEE `sqrt` and division, no FMA), so the results
//! are bit-identical to the scalar [`super`] versions (the atomic sum
//! excepted: its vector partial sums reassociate). They are the limit for
//! code that keeps the scalar path's results: `weft bench`'s "vs limit".
//!
//! Lanes run across items (N-body: 16 or 8 bodies `i` against one body `j`
//! broadcast; particles: the AoS floats as they lie, 16 or 8 particles in 3
//! vectors, the bounce a masked blend on the `y` lanes). Items left over
//! at the end of a chunk take the scalar code. Other CPUs and architectures
//! get the scalar versions ([`Isa::SCALAR`]).

use super::{chunk_len, nbody_seq, particles_seq, saxpy_seq, sum_seq, NbodyParams, V3};
use rayon::prelude::*;

/// A vector instruction set the kernels can run with. Only
/// [`Isa::detected`] makes the vector ones, after checking that the CPU
/// has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Isa(Kind);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Isa {
    /// The portable scalar code (one lane).
    pub const SCALAR: Isa = Isa(Kind::Scalar);

    /// The vector instruction sets this CPU has, widest first (empty on a
    /// CPU with neither AVX-512F nor AVX2).
    pub fn detected() -> Vec<Isa> {
        #[allow(unused_mut)]
        let mut v = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f") {
                v.push(Isa(Kind::Avx512));
            }
            if is_x86_feature_detected!("avx2") {
                v.push(Isa(Kind::Avx2));
            }
        }
        v
    }

    /// f32 lanes per vector.
    pub fn lanes(self) -> usize {
        match self.0 {
            Kind::Scalar => 1,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => 8,
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => 16,
        }
    }

    /// E.g. `AVX-512, 16 lanes`.
    pub fn name(self) -> String {
        let isa = match self.0 {
            Kind::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx2 => "AVX2",
            #[cfg(target_arch = "x86_64")]
            Kind::Avx512 => "AVX-512",
        };
        match self.lanes() {
            1 => format!("{isa}, 1 lane"),
            n => format!("{isa}, {n} lanes"),
        }
    }

    /// The chunk length for `n` items: 4 chunks per rayon thread, as
    /// [`chunk_len`], rounded up to whole vectors.
    fn chunk(self, n: usize) -> usize {
        chunk_len(n).next_multiple_of(self.lanes())
    }
}

/// Calls `$f` of the module of `$isa`'s instruction set, or `$scalar`.
macro_rules! dispatch {
    ($isa:expr, $scalar:expr, $f:ident($($arg:expr),*)) => {
        match $isa.0 {
            Kind::Scalar => $scalar,
            #[cfg(target_arch = "x86_64")]
            // SAFETY: an `Isa` of this kind is made only by `Isa::detected`,
            // after `is_x86_feature_detected!("avx2")` found the feature.
            Kind::Avx2 => unsafe { avx2::$f($($arg),*) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, with "avx512f".
            Kind::Avx512 => unsafe { avx512::$f($($arg),*) },
        }
    };
}

/// `y[i] = a * x[i] + y[i]` (as [`super::saxpy`]).
pub fn saxpy(isa: Isa, a: f32, x: &[f32], y: &mut [f32]) {
    let c = isa.chunk(y.len());
    y.par_chunks_mut(c)
        .zip(x.par_chunks(c))
        .for_each(|(y, x)| dispatch!(isa, saxpy_seq(a, x, y), saxpy(a, x, y)));
}

/// One N-body step (as [`super::nbody_step`]).
pub fn nbody_step(
    isa: Isa,
    pos: &[V3],
    vel: &[V3],
    mass: &[f32],
    new_pos: &mut [V3],
    new_vel: &mut [V3],
    prm: NbodyParams,
) {
    let c = isa.chunk(pos.len());
    new_pos
        .par_chunks_mut(c)
        .zip(new_vel.par_chunks_mut(c))
        .enumerate()
        .for_each(|(k, (np, nv))| {
            let first = k * c;
            dispatch!(
                isa,
                nbody_seq(first, pos, vel, mass, np, nv, prm),
                nbody(pos, vel, mass, first, np, nv, prm)
            )
        });
}

/// The atomic sum's total: vector partial sums per chunk, the chunks'
/// sums added in chunk order.
pub fn atomic_sum(isa: Isa, x: &[f32]) -> f32 {
    let sums: Vec<f32> = x
        .par_chunks(isa.chunk(x.len()))
        .map(|x| dispatch!(isa, sum_seq(x), sum(x)))
        .collect();
    sum_seq(&sums)
}

/// The particle update, AoS (as [`super::particles`]).
pub fn particles(isa: Isa, x: &mut [V3], v: &mut [V3], gravity: f32, dt: f32) {
    let c = isa.chunk(x.len());
    x.par_chunks_mut(c)
        .zip(v.par_chunks_mut(c))
        .for_each(|(x, v)| {
            dispatch!(
                isa,
                particles_seq(x, v, gravity, dt),
                particles(x, v, gravity, dt)
            )
        });
}

/// The components of `L` vec3s, one array per component.
#[cfg(target_arch = "x86_64")]
fn split3<const L: usize>(v: &[V3]) -> [[f32; L]; 3] {
    let mut out = [[0.0; L]; 3];
    for (l, v) in v.iter().take(L).enumerate() {
        for c in 0..3 {
            out[c][l] = v[c];
        }
    }
    out
}

/// The inverse of [`split3`].
#[cfg(target_arch = "x86_64")]
fn join3<const L: usize>(c: &[[f32; L]; 3], v: &mut [V3]) {
    for (l, v) in v.iter_mut().take(L).enumerate() {
        *v = [c[0][l], c[1][l], c[2][l]];
    }
}

/// The kernels over one chunk, written with the enclosing module's `V`
/// (vector), `M` (lane mask), `L` (lanes) and operations; `$feat` is its
/// `target_feature`. Each kernel is safe to call only where the CPU has
/// `$feat`.
#[cfg(target_arch = "x86_64")]
macro_rules! kernels {
    ($feat:literal) => {
        use super::{join3, split3};
        use crate::reference::{nbody_seq, particles_seq, saxpy_seq, sum_seq, NbodyParams, V3};

        #[target_feature(enable = $feat)]
        pub(super) fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
            let av = splat(a);
            let (xv, xt) = x.as_chunks::<L>();
            let (yv, yt) = y.as_chunks_mut::<L>();
            for (y, x) in yv.iter_mut().zip(xv) {
                let r = add(mul(av, load(x)), load(y));
                store(y, r);
            }
            saxpy_seq(a, xt, yt);
        }

        /// Bodies `first..first + np.len()`, `L` at a time.
        #[target_feature(enable = $feat)]
        pub(super) fn nbody(
            pos: &[V3],
            vel: &[V3],
            mass: &[f32],
            first: usize,
            np: &mut [V3],
            nv: &mut [V3],
            (dt, grav, eps2): NbodyParams,
        ) {
            let whole = np.len() / L * L;
            let (one, e2, dtv) = (splat(1.0), splat(eps2), splat(dt));
            for b in (0..whole).step_by(L) {
                let i = first + b;
                let [px, py, pz] = split3::<L>(&pos[i..]);
                let (px, py, pz) = (load(&px), load(&py), load(&pz));
                let (mut ax, mut ay, mut az) = (splat(0.0), splat(0.0), splat(0.0));
                for (q, &m) in pos.iter().zip(mass) {
                    let dx = sub(splat(q[0]), px);
                    let dy = sub(splat(q[1]), py);
                    let dz = sub(splat(q[2]), pz);
                    let r2 = add(add(add(mul(dx, dx), mul(dy, dy)), mul(dz, dz)), e2);
                    let inv_r = div(one, sqrt(r2));
                    let s = mul(mul(mul(splat(grav * m), inv_r), inv_r), inv_r);
                    ax = add(ax, mul(dx, s));
                    ay = add(ay, mul(dy, s));
                    az = add(az, mul(dz, s));
                }
                let [vx, vy, vz] = split3::<L>(&vel[i..]);
                let vx = add(load(&vx), mul(ax, dtv));
                let vy = add(load(&vy), mul(ay, dtv));
                let vz = add(load(&vz), mul(az, dtv));
                let mut v = [[0.0; L]; 3];
                let mut p = [[0.0; L]; 3];
                for (c, (vc, pc)) in [(vx, px), (vy, py), (vz, pz)].into_iter().enumerate() {
                    store(&mut v[c], vc);
                    store(&mut p[c], add(pc, mul(vc, dtv)));
                }
                join3(&v, &mut nv[b..]);
                join3(&p, &mut np[b..]);
            }
            let prm = (dt, grav, eps2);
            nbody_seq(
                first + whole,
                pos,
                vel,
                mass,
                &mut np[whole..],
                &mut nv[whole..],
                prm,
            );
        }

        /// The sum of `x`: 4 vector accumulators, then their lanes and the
        /// leftover floats in order.
        #[target_feature(enable = $feat)]
        pub(super) fn sum(x: &[f32]) -> f32 {
            let (xv, xt) = x.as_chunks::<L>();
            let (x4, x1) = xv.as_chunks::<4>();
            let mut acc = [splat(0.0); 4];
            for b in x4 {
                for k in 0..4 {
                    acc[k] = add(acc[k], load(&b[k]));
                }
            }
            for (k, v) in x1.iter().enumerate() {
                acc[k] = add(acc[k], load(v));
            }
            let mut lanes = [[0.0; L]; 4];
            for k in 0..4 {
                store(&mut lanes[k], acc[k]);
            }
            sum_seq(lanes.as_flattened()) + sum_seq(xt)
        }

        /// `L` particles are 3 vectors of their floats as they lie (AoS);
        /// float `f` of a group is component `f % 3`.
        #[target_feature(enable = $feat)]
        pub(super) fn particles(x: &mut [V3], v: &mut [V3], gravity: f32, dt: f32) {
            let (zero, dtv, half) = (splat(0.0), splat(dt), splat(-0.5));
            // Per vector of a group: `vec3(0, -g, 0) * dt` and the `y` lanes.
            let mut gdt = [zero; 3];
            let mut ylanes = [lt(zero, zero); 3];
            for k in 0..3 {
                let (mut g, mut y) = ([0.0; L], [1.0; L]);
                for l in 0..L {
                    if (k * L + l) % 3 == 1 {
                        g[l] = -gravity;
                        y[l] = -1.0;
                    }
                }
                gdt[k] = mul(load(&g), dtv);
                ylanes[k] = lt(load(&y), zero);
            }
            let whole = x.len() / L * L;
            let (xs, xt) = x.split_at_mut(whole);
            let (vs, vt) = v.split_at_mut(whole);
            let xg = xs.as_flattened_mut().as_chunks_mut::<L>().0;
            let vg = vs.as_flattened_mut().as_chunks_mut::<L>().0;
            let groups = xg.as_chunks_mut::<3>().0.iter_mut();
            for (xg, vg) in groups.zip(vg.as_chunks_mut::<3>().0) {
                for k in 0..3 {
                    let vi = add(load(&vg[k]), gdt[k]);
                    let xi = add(load(&xg[k]), mul(vi, dtv));
                    let bounce = and(ylanes[k], lt(xi, zero));
                    store(&mut vg[k], select(bounce, mul(half, vi), vi));
                    store(&mut xg[k], select(bounce, neg(xi), xi));
                }
            }
            particles_seq(xt, vt, gravity, dt);
        }
    };
}

/// The operations every instruction set has alike (`splat`, `load`,
/// `store`, `add`, `sub`, `mul`, `div`, `sqrt`), from its intrinsics.
#[cfg(target_arch = "x86_64")]
macro_rules! wrappers {
    ($feat:literal, $set1:ident, $loadu:ident, $storeu:ident, $add:ident, $sub:ident, $mul:ident, $div:ident, $sqrt:ident) => {
        #[target_feature(enable = $feat)]
        fn splat(x: f32) -> V {
            $set1(x)
        }
        #[target_feature(enable = $feat)]
        fn load(s: &[f32; L]) -> V {
            // SAFETY: `s` is L floats; `loadu` needs no alignment.
            unsafe { $loadu(s.as_ptr()) }
        }
        #[target_feature(enable = $feat)]
        fn store(s: &mut [f32; L], v: V) {
            // SAFETY: `s` is L writable floats; `storeu` needs no alignment.
            unsafe { $storeu(s.as_mut_ptr(), v) }
        }
        #[target_feature(enable = $feat)]
        fn add(a: V, b: V) -> V {
            $add(a, b)
        }
        #[target_feature(enable = $feat)]
        fn sub(a: V, b: V) -> V {
            $sub(a, b)
        }
        #[target_feature(enable = $feat)]
        fn mul(a: V, b: V) -> V {
            $mul(a, b)
        }
        #[target_feature(enable = $feat)]
        fn div(a: V, b: V) -> V {
            $div(a, b)
        }
        #[target_feature(enable = $feat)]
        fn sqrt(a: V) -> V {
            $sqrt(a)
        }
    };
}

/// AVX2: 8 f32 lanes in a `__m256`; masks are `__m256` (all ones per lane).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    type V = __m256;
    type M = __m256;
    const L: usize = 8;

    wrappers!(
        "avx2",
        _mm256_set1_ps,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_add_ps,
        _mm256_sub_ps,
        _mm256_mul_ps,
        _mm256_div_ps,
        _mm256_sqrt_ps
    );
    /// `-a`: the sign bit flipped.
    #[target_feature(enable = "avx2")]
    fn neg(a: V) -> V {
        _mm256_xor_ps(a, _mm256_set1_ps(-0.0))
    }
    /// `a < b` per lane (false for NaN).
    #[target_feature(enable = "avx2")]
    fn lt(a: V, b: V) -> M {
        _mm256_cmp_ps::<_CMP_LT_OQ>(a, b)
    }
    #[target_feature(enable = "avx2")]
    fn and(a: M, b: M) -> M {
        _mm256_and_ps(a, b)
    }
    /// `m ? a : b` per lane.
    #[target_feature(enable = "avx2")]
    fn select(m: M, a: V, b: V) -> V {
        _mm256_blendv_ps(b, a, m)
    }

    kernels!("avx2");
}

/// AVX-512F: 16 f32 lanes in a `__m512`; masks are `__mmask16`.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    type V = __m512;
    type M = __mmask16;
    const L: usize = 16;

    wrappers!(
        "avx512f",
        _mm512_set1_ps,
        _mm512_loadu_ps,
        _mm512_storeu_ps,
        _mm512_add_ps,
        _mm512_sub_ps,
        _mm512_mul_ps,
        _mm512_div_ps,
        _mm512_sqrt_ps
    );
    /// `-a`: the sign bit flipped (integer xor: `xor_ps` is AVX-512DQ).
    #[target_feature(enable = "avx512f")]
    fn neg(a: V) -> V {
        let sign = _mm512_set1_epi32(i32::MIN);
        _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), sign))
    }
    /// `a < b` per lane (false for NaN).
    #[target_feature(enable = "avx512f")]
    fn lt(a: V, b: V) -> M {
        _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, b)
    }
    fn and(a: M, b: M) -> M {
        a & b
    }
    /// `m ? a : b` per lane.
    #[target_feature(enable = "avx512f")]
    fn select(m: M, a: V, b: V) -> V {
        _mm512_mask_blend_ps(m, b, a)
    }

    kernels!("avx512f");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;

    /// The ISAs to test: every detected one, and the scalar fallback.
    fn isas() -> Vec<Isa> {
        let mut v = Isa::detected();
        v.push(Isa::SCALAR);
        v
    }

    fn bits(v: &[V3]) -> Vec<[u32; 3]> {
        v.iter().map(|p| p.map(f32::to_bits)).collect()
    }

    // Sizes not multiples of the lanes, so that the scalar tails run too.

    #[test]
    fn saxpy_is_bit_identical_to_the_scalar_reference() {
        let n = 1000 + 13;
        let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.37 - 11.0).collect();
        let y0: Vec<f32> = (0..n).map(|i| (i % 31) as f32 * 1.3).collect();
        let mut want = y0.clone();
        reference::saxpy(0.7, &x, &mut want);
        for isa in isas() {
            let mut y = y0.clone();
            saxpy(isa, 0.7, &x, &mut y);
            let same = y.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{}", isa.name());
        }
    }

    #[test]
    fn nbody_is_bit_identical_to_the_scalar_reference() {
        let n = 100 + 7;
        let (p, v, m) = bodies_with_a_heavy_one(n);
        let prm = (1e-3, 1.0, 0.0025);
        let (mut wp, mut wv) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        reference::nbody_step(&p, &v, &m, &mut wp, &mut wv, prm);
        for isa in isas() {
            let (mut np, mut nv) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
            nbody_step(isa, &p, &v, &m, &mut np, &mut nv, prm);
            assert_eq!(bits(&np), bits(&wp), "{}", isa.name());
            assert_eq!(bits(&nv), bits(&wv), "{}", isa.name());
        }
    }

    fn bodies_with_a_heavy_one(n: usize) -> (Vec<V3>, Vec<V3>, Vec<f32>) {
        let (p, v, mut m) = reference::bodies(n);
        m[3] = 10.0; // accelerations far from uniform
        (p, v, m)
    }

    #[test]
    fn atomic_sum_agrees_with_the_scalar_reference() {
        let n = 10_000 + 5;
        let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 1e-3 - 0.3).collect();
        let exact: f64 = x.iter().map(|&v| v as f64).sum();
        let want = reference::atomic_sum(&x);
        assert!((want as f64 - exact).abs() < 1e-3 * exact.abs());
        for isa in isas() {
            let got = atomic_sum(isa, &x);
            let tol = 1e-5 * x.iter().map(|v| v.abs()).sum::<f32>();
            assert!((got - want).abs() <= tol, "{}: {got} vs {want}", isa.name());
        }
    }

    #[test]
    fn particles_are_bit_identical_to_the_scalar_reference() {
        let n = 200 + 11;
        // Heights around the ground so that some bounce; -0.0 velocities
        // (`-0.0 + 0.0 * dt` is +0.0) and a NaN height (no bounce).
        let mut x0: Vec<V3> = (0..n)
            .map(|i| [i as f32 * 0.1, (i % 9) as f32 * 1e-3 - 2e-3, 1.0])
            .collect();
        let v0: Vec<V3> = (0..n)
            .map(|i| [-0.0, (i % 5) as f32 - 2.0, (i % 3) as f32])
            .collect();
        x0[17][1] = f32::NAN;
        let (mut wx, mut wv) = (x0.clone(), v0.clone());
        reference::particles(&mut wx, &mut wv, 9.81, 1e-3);
        assert!(wv.iter().any(|v| v[1] > 0.0) && wv.iter().any(|v| v[1] < 0.0));
        for isa in isas() {
            let (mut x, mut v) = (x0.clone(), v0.clone());
            particles(isa, &mut x, &mut v, 9.81, 1e-3);
            assert_eq!(bits(&x), bits(&wx), "{}", isa.name());
            assert_eq!(bits(&v), bits(&wv), "{}", isa.name());
        }
    }

    #[test]
    fn names_give_the_lanes() {
        assert_eq!(Isa::SCALAR.name(), "scalar, 1 lane");
        for isa in Isa::detected() {
            assert!(isa.name().ends_with(&format!(", {} lanes", isa.lanes())));
        }
    }
}
