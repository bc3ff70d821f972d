//! Hand-written Rust + rayon versions of the benchmark kernels: the yardstick
//! Weft's CPU backend is measured against (`weft bench`, `benches/`). Each
//! does the kernel's f32 operations in the kernel's order, so results are
//! bit-identical to Weft's (the atomic sum excepted: it adds in chunk
//! order), and splits the work like the runtime's CPU launch. [`simd`]
//! holds the same kernels at the machine's native vector width.

pub mod simd;

use rayon::prelude::*;

/// A 3-vector of f32, as a `wp.vec3` element.
pub type V3 = [f32; 3];

/// The N-body step's parameters: `(dt, grav, eps2)`.
pub type NbodyParams = (f32, f32, f32);

/// Chunk length splitting `n` items into 4 chunks per rayon thread, as the
/// runtime's CPU launch does.
pub fn chunk_len(n: usize) -> usize {
    n.div_ceil(rayon::current_num_threads() * 4).max(1)
}

/// `y[i] = a * x[i] + y[i]`.
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let c = chunk_len(y.len());
    y.par_chunks_mut(c)
        .zip(x.par_chunks(c))
        .for_each(|(y, x)| saxpy_seq(a, x, y));
}

/// [`saxpy`] on one thread.
pub fn saxpy_seq(a: f32, x: &[f32], y: &mut [f32]) {
    for (y, &x) in y.iter_mut().zip(x) {
        *y += a * x; // = a * x + y, as in the kernel
    }
}

/// `y[i] = a * x[i]` (the `scale` workload: `y` written only), chunked
/// as [`saxpy`].
pub fn scale(a: f32, x: &[f32], y: &mut [f32]) {
    let c = chunk_len(y.len());
    y.par_chunks_mut(c).zip(x.par_chunks(c)).for_each(|(y, x)| {
        for (y, &x) in y.iter_mut().zip(x) {
            *y = a * x;
        }
    });
}

/// One `nbody_step` of `examples/nbody.py` (the seed's kernel).
pub fn nbody_step(
    pos: &[V3],
    vel: &[V3],
    mass: &[f32],
    new_pos: &mut [V3],
    new_vel: &mut [V3],
    prm: NbodyParams,
) {
    let c = chunk_len(pos.len());
    new_pos
        .par_chunks_mut(c)
        .zip(new_vel.par_chunks_mut(c))
        .enumerate()
        .for_each(|(k, (np, nv))| nbody_seq(k * c, pos, vel, mass, np, nv, prm));
}

/// Bodies `first..first + new_pos.len()` of [`nbody_step`] on one thread.
pub fn nbody_seq(
    first: usize,
    pos: &[V3],
    vel: &[V3],
    mass: &[f32],
    new_pos: &mut [V3],
    new_vel: &mut [V3],
    prm: NbodyParams,
) {
    for (off, (np, nv)) in new_pos.iter_mut().zip(new_vel).enumerate() {
        (*np, *nv) = nbody_body(first + off, pos, vel, mass, prm);
    }
}

/// Body `i` of [`nbody_step`]: its new position and velocity.
fn nbody_body(
    i: usize,
    pos: &[V3],
    vel: &[V3],
    mass: &[f32],
    (dt, grav, eps2): NbodyParams,
) -> (V3, V3) {
    let p = pos[i];
    let mut acc = [0.0f32; 3];
    for (q, &m) in pos.iter().zip(mass) {
        let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
        let inv_r = 1.0 / r2.sqrt();
        let s = grav * m * inv_r * inv_r * inv_r;
        acc = [acc[0] + d[0] * s, acc[1] + d[1] * s, acc[2] + d[2] * s];
    }
    let v = [
        vel[i][0] + acc[0] * dt,
        vel[i][1] + acc[1] * dt,
        vel[i][2] + acc[2] * dt,
    ];
    ([p[0] + v[0] * dt, p[1] + v[1] * dt, p[2] + v[2] * dt], v)
}

/// The atomic sum's total: each chunk summed in order on its thread, the
/// chunks' sums added in chunk order.
pub fn atomic_sum(x: &[f32]) -> f32 {
    let sums: Vec<f32> = x.par_chunks(chunk_len(x.len())).map(sum_seq).collect();
    sum_seq(&sums)
}

/// The sum of `x` in order.
pub fn sum_seq(x: &[f32]) -> f32 {
    x.iter().fold(0.0, |s, &v| s + v)
}

/// The bench's `particles` kernel over all particles: gravity, a step, a
/// ground bounce.
pub fn particles(x: &mut [V3], v: &mut [V3], gravity: f32, dt: f32) {
    let c = chunk_len(x.len());
    x.par_chunks_mut(c)
        .zip(v.par_chunks_mut(c))
        .for_each(|(x, v)| particles_seq(x, v, gravity, dt));
}

/// [`particles`] on one thread. Per particle: `vi = v + vec3(0, -g, 0) *
/// dt`, `xi = x + vi * dt`, and if `xi.y < 0` the bounce `xi.y = -xi.y`,
/// `vi.y = -0.5 * vi.y`.
pub fn particles_seq(x: &mut [V3], v: &mut [V3], gravity: f32, dt: f32) {
    let g = [0.0 * dt, -gravity * dt, 0.0 * dt];
    for (x, v) in x.iter_mut().zip(v) {
        let mut vi = [v[0] + g[0], v[1] + g[1], v[2] + g[2]];
        let mut xi = [x[0] + vi[0] * dt, x[1] + vi[1] * dt, x[2] + vi[2] * dt];
        if xi[1] < 0.0 {
            xi[1] = -xi[1];
            vi[1] *= -0.5; // = -0.5 * vi.y (commutative, same bits)
        }
        *v = vi;
        *x = xi;
    }
}

/// Deterministic bodies in the unit cube (xorshift), velocities in the unit
/// cube, masses 1/N.
pub fn bodies(n: usize) -> (Vec<V3>, Vec<V3>, Vec<f32>) {
    let mut s = 0x2545_f491_u32;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        (s >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    };
    let pos = (0..n).map(|_| [next(), next(), next()]).collect();
    let vel = (0..n).map(|_| [next(), next(), next()]).collect();
    (pos, vel, vec![1.0 / n as f32; n])
}
