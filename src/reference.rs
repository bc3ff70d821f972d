//! Hand-written Rust + rayon versions of the benchmark kernels: the yardstick
//! Weft's CPU backend is measured against (`weft bench`, `benches/`). Each
//! does the kernel's f32 operations in the kernel's order, so results are
//! bit-identical to Weft's, and splits the work like the runtime's CPU launch.

use rayon::prelude::*;

/// A 3-vector of f32, as a `wp.vec3` element.
pub type V3 = [f32; 3];

/// Chunk length splitting `n` items into 4 chunks per rayon thread, as the
/// runtime's CPU launch does.
pub fn chunk_len(n: usize) -> usize {
    n.div_ceil(rayon::current_num_threads() * 4).max(1)
}

/// `y[i] = a * x[i] + y[i]`.
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let c = chunk_len(y.len());
    y.par_chunks_mut(c).zip(x.par_chunks(c)).for_each(|(y, x)| {
        for (y, &x) in y.iter_mut().zip(x) {
            *y += a * x; // = a * x + y, as in the kernel
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
    (dt, grav, eps2): (f32, f32, f32),
) {
    let c = chunk_len(pos.len());
    new_pos
        .par_chunks_mut(c)
        .zip(new_vel.par_chunks_mut(c))
        .enumerate()
        .for_each(|(k, (np, nv))| {
            for (off, (np, nv)) in np.iter_mut().zip(nv.iter_mut()).enumerate() {
                let i = k * c + off;
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
                *nv = v;
                *np = [p[0] + v[0] * dt, p[1] + v[1] * dt, p[2] + v[2] * dt];
            }
        });
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
