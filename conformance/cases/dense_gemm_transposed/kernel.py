import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float), c0: wp.array(dtype=float), c1: wp.array(dtype=float),
      c2: wp.array(dtype=float), c3: wp.array(dtype=float), c4: wp.array(dtype=float)):
    wp.dense_gemm(2, 3, 4, 0, 0, a, b, c0)
    wp.dense_gemm(2, 3, 4, 1, 0, a, b, c1)
    wp.dense_gemm(2, 3, 4, 0, 1, a, b, c2)
    wp.dense_gemm(2, 3, 4, 1, 1, a, b, c3)
    # any other flag: Warp does nothing
    wp.dense_gemm(2, 3, 4, 2, 0, a, b, c4)
