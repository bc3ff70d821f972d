//! The kernels of `weft bench --workload compile-scaling` (issue 18):
//! Warp source text generated at a given size, so that compile time can be
//! measured as a function of kernel size and of kernels per module.

use std::fmt::Write;

/// One kernel of `n` statements `v = v * 1.0001 + wp.sin(v) * c` (one
/// array in, one out, `c` a parameter): grows in statements and in calls
/// of one library function.
pub fn chain(n: usize) -> String {
    let mut s = String::with_capacity(64 + 40 * n);
    s.push_str(
        "import warp as wp\n\n\
         @wp.kernel\n\
         def chain(x: wp.array(dtype=float), y: wp.array(dtype=float), c: float):\n    \
         i = wp.tid()\n    \
         v = x[i]\n",
    );
    for _ in 0..n {
        s.push_str("    v = v * 1.0001 + wp.sin(v) * c\n");
    }
    s.push_str("    y[i] = v\n");
    s
}

/// A module of `k` small kernels `kernel_<j>`, each a few statements with
/// one transcendental (each kernel's constants differ, so no two are
/// alike).
pub fn many_kernels(k: usize) -> String {
    let mut s = String::with_capacity(32 + 220 * k);
    s.push_str("import warp as wp\n");
    for j in 0..k {
        let _ = write!(
            s,
            "\n@wp.kernel\n\
             def kernel_{j}(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n    \
             i = wp.tid()\n    \
             v = x[i] * {a:.1} + 1.0\n    \
             if v > 0.5:\n        \
             v = wp.sin(v) * {b:.1}\n    \
             y[i] = v + y[i]\n",
            a = (j % 97) as f32 + 1.5,
            b = (j % 89) as f32 + 0.5,
        );
    }
    s
}

/// The names of [`many_kernels`]`(k)`'s kernels, in order.
pub fn many_kernel_names(k: usize) -> impl Iterator<Item = String> {
    (0..k).map(|j| format!("kernel_{j}"))
}
