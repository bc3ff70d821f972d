"""Warp's small-matrix decompositions and the remaining linear-algebra
builtins: svd3, svd2, qr3, eig3 (value and output-argument forms),
spatial_adjoint, erfcinv and the dense_* helpers on flat arrays."""

import numpy as np

from caselib import Arr, case, fill


@case("svd_qr_eig", tags=["builtins", "mat", "linalg", "out_args"])
def svd_qr_eig(rng):
    n = 16
    src = '''
    @wp.kernel
    def k(
        a: wp.array(dtype=wp.mat33),
        a2: wp.array(dtype=wp.mat22),
        om: wp.array(dtype=wp.mat33),
        ov: wp.array(dtype=wp.vec3),
        om2: wp.array(dtype=wp.mat22),
        ov2: wp.array(dtype=wp.vec2),
    ):
        i = wp.tid()
        m = a[i]
        U, s, V = wp.svd3(m)
        om[i * 8 + 0] = U
        om[i * 8 + 1] = V
        ov[i * 4 + 0] = s
        Q, R = wp.qr3(m)
        om[i * 8 + 2] = Q
        om[i * 8 + 3] = R
        sym = m + wp.transpose(m)
        E, d = wp.eig3(sym)
        om[i * 8 + 4] = E
        ov[i * 4 + 1] = d
        # the forms that write into variables
        U2 = wp.mat33()
        s2 = wp.vec3()
        V2 = wp.mat33()
        wp.svd3(m, U2, s2, V2)
        om[i * 8 + 5] = U2 * wp.diag(s2) * wp.transpose(V2)
        wp.qr3(m, Q, R)
        om[i * 8 + 6] = Q * R
        wp.eig3(sym, E, d)
        ov[i * 4 + 2] = d
        om[i * 8 + 7] = E
        m2 = a2[i]
        u, t, v = wp.svd2(m2)
        om2[i * 3 + 0] = u
        om2[i * 3 + 1] = v
        ov2[i * 2 + 0] = t
        u3 = wp.mat22()
        t3 = wp.vec2()
        v3 = wp.mat22()
        wp.svd2(m2, u3, t3, v3)
        om2[i * 3 + 2] = u3 * wp.diag(t3) * wp.transpose(v3)
        ov2[i * 2 + 1] = t3
        ax = wp.vec3()
        ang = float(0.0)
        wp.quat_to_axis_angle(wp.quat_from_matrix(U), ax, ang)
        ov[i * 4 + 3] = ax * ang
    '''
    a = rng.uniform(-2.0, 2.0, (n, 3, 3)).astype(np.float32)
    a[0] = np.eye(3, dtype=np.float32) * 2.0  # repeated singular values
    a[1] = np.diag([3.0, -1.0, 0.5]).astype(np.float32)
    a[2] = 0.0  # all zero
    a[3, 2] = a[3, 0] + a[3, 1]  # rank 2
    a2 = rng.uniform(-2.0, 2.0, (n, 2, 2)).astype(np.float32)
    a2[0] = np.eye(2, dtype=np.float32)  # zero discriminant
    a2[1] = [[0.0, 0.0], [0.0, 0.0]]
    a2[2] = [[1.0, 2.0], [2.0, 4.0]]  # singular
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "mat33", a), Arr("a2", "mat22", a2),
                      Arr("om", "mat33", fill((n * 8, 3, 3), -9.0)), Arr("ov", "vec3", fill((n * 4, 3), -9.0)),
                      Arr("om2", "mat22", fill((n * 3, 2, 2), -9.0)), Arr("ov2", "vec2", fill((n * 2, 2), -9.0))],
                check=["om", "ov", "om2", "ov2"], rtol=1e-5, atol=1e-5,
                note="svd3/svd2/qr3/eig3 as Warp's svd.h computes them (value and output-argument forms), float32; within 1e-5")


@case("svd_qr_eig_f64", tags=["builtins", "mat", "linalg", "float64"])
def svd_qr_eig_f64(rng):
    n = 8
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.mat33d), om: wp.array(dtype=wp.mat33d), ov: wp.array(dtype=wp.vec3d), o2: wp.array(dtype=wp.mat22d)):
        i = wp.tid()
        m = a[i]
        U, s, V = wp.svd3(m)
        om[i * 4 + 0] = U
        om[i * 4 + 1] = V
        ov[i * 2 + 0] = s
        Q, R = wp.qr3(m)
        om[i * 4 + 2] = R
        E, d = wp.eig3(m + wp.transpose(m))
        om[i * 4 + 3] = E
        ov[i * 2 + 1] = d
        m2 = wp.mat22d(m[0, 0], m[0, 1], m[1, 0], m[1, 1])
        u, t, v = wp.svd2(m2)
        o2[i * 2 + 0] = u
        o2[i * 2 + 1] = wp.diag(t) * v
    '''
    a = rng.uniform(-2.0, 2.0, (n, 3, 3))
    a[0] = np.diag([1.0, 4.0, 2.0])
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "mat33d", a), Arr("om", "mat33d", fill((n * 4, 3, 3), -9.0, np.float64)),
                      Arr("ov", "vec3d", fill((n * 2, 3), -9.0, np.float64)),
                      Arr("o2", "mat22d", fill((n * 2, 2, 2), -9.0, np.float64))],
                check=["om", "ov", "o2"], rtol=1e-12, atol=1e-12,
                note="svd3/svd2/qr3/eig3 in float64 (8 Jacobi sweeps, epsilon 1e-12); within 1e-12")


@case("spatial_adjoint_cross_f16", tags=["builtins", "spatial", "mat", "float16"])
def spatial_adjoint_cross_f16(rng):
    n = 8
    src = '''
    @wp.kernel
    def k(r: wp.array(dtype=wp.mat33), x: wp.array(dtype=float), om: wp.array(dtype=wp.spatial_matrix),
          omd: wp.array(dtype=wp.spatial_matrixd), sv: wp.array(dtype=wp.spatial_vectorh)):
        i = wp.tid()
        R = r[i]
        S = wp.skew(wp.vec3(1.0, 2.0, 3.0)) * R
        om[i] = wp.spatial_adjoint(R, S)
        omd[i] = wp.spatial_adjoint(wp.mat33d(R), wp.mat33d(S))
        h = wp.spatial_vectorh(wp.float16(x[i]), wp.float16(1.0), wp.float16(2.0), wp.float16(0.5), wp.float16(-1.0), wp.float16(0.25))
        g = wp.spatial_vectorh(wp.float16(0.5), wp.float16(x[i]), wp.float16(-2.0), wp.float16(1.5), wp.float16(1.0), wp.float16(0.75))
        sv[i * 2 + 0] = wp.spatial_cross(h, g)
        sv[i * 2 + 1] = wp.spatial_cross_dual(h, g)
    '''
    r = rng.uniform(-1.0, 1.0, (n, 3, 3)).astype(np.float32)
    x = rng.uniform(-2.0, 2.0, n).astype(np.float32)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("r", "mat33", r), Arr("x", "float32", x),
                      Arr("om", "spatial_matrix", fill((n, 6, 6), -9.0)),
                      Arr("omd", "spatial_matrixd", fill((n, 6, 6), -9.0, np.float64)),
                      Arr("sv", "spatial_vectorh", fill((n * 2, 6), -9.0, np.float16))],
                check=["om", "omd", "sv"],
                note="spatial_adjoint ([[r, 0], [s, r]]) in float32 and float64, spatial_cross(_dual) on float16; exact")


@case("erfcinv", tags=["builtins", "math", "float64", "float16"])
def erfcinv(rng):
    n = 8
    src = '''
    @wp.kernel
    def k(x: wp.array(dtype=float), xd: wp.array(dtype=wp.float64), o: wp.array(dtype=float),
          od: wp.array(dtype=wp.float64), oh: wp.array(dtype=wp.float16)):
        i = wp.tid()
        o[i] = wp.erfcinv(x[i])
        od[i] = wp.erfcinv(xd[i])
        oh[i] = wp.erfcinv(wp.float16(x[i]))
    '''
    x = rng.uniform(0.0, 2.0, n).astype(np.float32)
    x[0] = 1.0
    x[1] = 0.0  # +inf
    x[2] = 2.0  # -inf
    x[3] = 1e-6
    x[4] = 2.5  # outside [0, 2]: nan
    xd = rng.uniform(0.0, 2.0, n)
    xd[0] = 0.5
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("x", "float32", x), Arr("xd", "float64", xd), Arr("o", "float32", fill(n, -9.0)),
                      Arr("od", "float64", fill(n, -9.0, np.float64)), Arr("oh", "float16", fill(n, -9.0, np.float16))],
                check=["o", "od", "oh"], tolerances={"od": {"rtol": 1e-15, "atol": 0.0}},
                note="erfcinv is erfinv(1 - x) in double (crt.h), rounded to float32 for float32 and float16 (float64 within 1e-15: libm's log)")


@case("dense_linalg", tags=["builtins", "array", "linalg"])
def dense_linalg(rng):
    n = 4
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float), l: wp.array(dtype=float),
          rhs: wp.array(dtype=float), x: wp.array(dtype=float), x2: wp.array(dtype=float)):
        wp.dense_gemm(4, 4, 4, 0, 0, a, b, c)
        wp.dense_chol(4, c, 0.5, l)
        wp.dense_subs(4, l, rhs, x)
        wp.dense_solve(4, c, l, rhs, x2)
    '''
    a = rng.uniform(-1.0, 1.0, n * n).astype(np.float32)
    b = a.reshape(n, n).T.copy().reshape(-1)  # c = a a^T, symmetric positive semi-definite
    return dict(src=src, kernel="k", dim=[1],
                args=[Arr("a", "float32", a), Arr("b", "float32", b), Arr("c", "float32", fill(n * n, 0.0)),
                      Arr("l", "float32", fill(n * n, 0.0)), Arr("rhs", "float32", rng.uniform(-1, 1, n).astype(np.float32)),
                      Arr("x", "float32", fill(n, 0.0)), Arr("x2", "float32", fill(n, 0.0))],
                check=["c", "l", "x", "x2"], rtol=1e-6, atol=1e-6,
                note="dense_gemm, dense_chol (regularized), dense_subs and dense_solve on flat row-major float32 arrays; within 1e-6")


@case("dense_gemm_transposed", tags=["builtins", "array", "linalg"])
def dense_gemm_transposed(rng):
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=float), b: wp.array(dtype=float), c0: wp.array(dtype=float), c1: wp.array(dtype=float),
          c2: wp.array(dtype=float), c3: wp.array(dtype=float), c4: wp.array(dtype=float)):
        wp.dense_gemm(2, 3, 4, 0, 0, a, b, c0)
        wp.dense_gemm(2, 3, 4, 1, 0, a, b, c1)
        wp.dense_gemm(2, 3, 4, 0, 1, a, b, c2)
        wp.dense_gemm(2, 3, 4, 1, 1, a, b, c3)
        # any other flag: Warp does nothing
        wp.dense_gemm(2, 3, 4, 2, 0, a, b, c4)
    '''
    a = rng.uniform(-1, 1, 8).astype(np.float32)
    b = rng.uniform(-1, 1, 12).astype(np.float32)
    return dict(src=src, kernel="k", dim=[1],
                args=[Arr("a", "float32", a), Arr("b", "float32", b)]
                + [Arr(f"c{j}", "float32", fill(6, -9.0)) for j in range(5)],
                check=[f"c{j}" for j in range(5)], rtol=1e-6, atol=1e-6,
                note="dense_gemm's four transposed layouts, and a flag outside 0/1 (no write)")
