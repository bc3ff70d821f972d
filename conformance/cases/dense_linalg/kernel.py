import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float), l: wp.array(dtype=float),
      rhs: wp.array(dtype=float), x: wp.array(dtype=float), x2: wp.array(dtype=float)):
    wp.dense_gemm(4, 4, 4, 0, 0, a, b, c)
    wp.dense_chol(4, c, 0.5, l)
    wp.dense_subs(4, l, rhs, x)
    wp.dense_solve(4, c, l, rhs, x2)
