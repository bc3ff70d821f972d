"""Extra differential cases for weft's builtins (not part of the corpus)."""

import numpy as np

from conformance_lib import Arr, Scal, case, fill, uniform


def unit_quats(rng, n, dtype=np.float32):
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q.astype(dtype)


@case("x_vec_f64", tags=["vec"])
def vec_f64(rng):
    n = 24
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.vec3d), b: wp.array(dtype=wp.vec3d), o: wp.array2d(dtype=wp.vec3d), s: wp.array2d(dtype=wp.float64)):
        i = wp.tid()
        u = a[i]
        v = b[i]
        o[i, 0] = wp.cross(u, v)
        o[i, 1] = wp.normalize(u)
        o[i, 2] = u * wp.float64(2.0) - v / wp.float64(3.0)
        o[i, 3] = wp.lerp(u, v, wp.float64(0.25))
        o[i, 4] = wp.cw_div(u, v)
        o[i, 5] = wp.float64(2.0) / v
        o[i, 6] = wp.min(u, v)
        o[i, 7] = wp.abs(u)
        o[i, 8] = wp.vec3d(wp.vec3(1.5, 2.5, 3.5))
        s[i, 0] = wp.dot(u, v)
        s[i, 1] = wp.length(u)
        s[i, 2] = wp.length_sq(v)
        s[i, 3] = wp.max(u)
        s[i, 4] = wp.float64(wp.argmax(v))
        s[i, 5] = wp.smoothstep(wp.float64(-0.5), wp.float64(0.5), u[0])
        s[i, 6] = wp.degrees(u[1]) + wp.radians(v[2])
    '''
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "vec3d", uniform(rng, -2, 2, (n, 3), np.float64)), Arr("b", "vec3d", uniform(rng, 0.5, 2, (n, 3), np.float64)),
                      Arr("o", "vec3d", fill((n, 9, 3), -9.0, np.float64)), Arr("s", "float64", fill((n, 7), -9.0, np.float64))],
                check=["o", "s"], rtol=1e-13, atol=1e-13, note="vec3d")


@case("x_mat_f64", tags=["mat"])
def mat_f64(rng):
    n = 24
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.mat22d), b: wp.array(dtype=wp.mat33d), c: wp.array(dtype=wp.mat44d),
          ia: wp.array(dtype=wp.mat22d), ib: wp.array(dtype=wp.mat33d), ic: wp.array(dtype=wp.mat44d), d: wp.array2d(dtype=wp.float64),
          pb: wp.array(dtype=wp.mat33d), vb: wp.array(dtype=wp.vec3d)):
        i = wp.tid()
        ia[i] = wp.inverse(a[i])
        ib[i] = wp.inverse(b[i])
        ic[i] = wp.inverse(c[i])
        d[i, 0] = wp.determinant(a[i])
        d[i, 1] = wp.determinant(b[i])
        d[i, 2] = wp.determinant(c[i])
        d[i, 3] = wp.trace(c[i])
        pb[i] = b[i] * wp.transpose(b[i]) + wp.skew(wp.vec3d(b[i][0, 0], b[i][1, 1], b[i][2, 2])) - wp.diag(wp.vec3d(wp.float64(1.0), wp.float64(2.0), wp.float64(3.0)))
        vb[i] = b[i] * wp.vec3d(wp.float64(1.0), wp.float64(-2.0), wp.float64(0.5)) + wp.vec3d(wp.float64(0.5), wp.float64(1.0), wp.float64(2.0)) * b[i]
    '''
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "mat22d", uniform(rng, -2, 2, (n, 2, 2), np.float64)), Arr("b", "mat33d", uniform(rng, -2, 2, (n, 3, 3), np.float64)),
                      Arr("c", "mat44d", uniform(rng, -2, 2, (n, 4, 4), np.float64)),
                      Arr("ia", "mat22d", fill((n, 2, 2), -9.0, np.float64)), Arr("ib", "mat33d", fill((n, 3, 3), -9.0, np.float64)),
                      Arr("ic", "mat44d", fill((n, 4, 4), -9.0, np.float64)), Arr("d", "float64", fill((n, 4), -9.0, np.float64)),
                      Arr("pb", "mat33d", fill((n, 3, 3), -9.0, np.float64)), Arr("vb", "vec3d", fill((n, 3), -9.0, np.float64))],
                check=["ia", "ib", "ic", "d", "pb", "vb"], rtol=1e-11, atol=1e-12, note="mat f64")


@case("x_mat44_f32", tags=["mat"])
def mat44_f32(rng):
    n = 48
    src = '''
    @wp.kernel
    def k(c: wp.array(dtype=wp.mat44), ic: wp.array(dtype=wp.mat44), d: wp.array(dtype=float), tp: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat)):
        i = wp.tid()
        ic[i] = wp.inverse(c[i])
        d[i] = wp.determinant(c[i])
        tp[i] = wp.transform_point(c[i], wp.vec3(1.0, 2.0, 3.0)) + wp.transform_vector(c[i], wp.vec3(-1.0, 0.5, 0.25))
        q[i] = wp.quat_from_matrix(c[i])
    '''
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("c", "mat44", uniform(rng, -2, 2, (n, 4, 4))), Arr("ic", "mat44", fill((n, 4, 4), -9.0)),
                      Arr("d", "float32", fill((n,), -9.0)), Arr("tp", "vec3", fill((n, 3), -9.0)), Arr("q", "quat", fill((n, 4), -9.0))],
                check=["ic", "d", "tp", "q"], rtol=2e-5, atol=2e-5, note="mat44 f32")


@case("x_quat_f64", tags=["quat"])
def quat_f64(rng):
    n = 32
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.quatd), b: wp.array(dtype=wp.quatd), v: wp.array(dtype=wp.vec3d), o: wp.array2d(dtype=wp.quatd), r: wp.array2d(dtype=wp.vec3d), m: wp.array(dtype=wp.mat33d)):
        i = wp.tid()
        p = a[i]
        q = b[i]
        o[i, 0] = p * q
        o[i, 1] = wp.quat_slerp(p, q, wp.float64(0.3))
        o[i, 2] = wp.quat_from_matrix(wp.quat_to_matrix(q))
        o[i, 3] = wp.quat_rpy(v[i][0], v[i][1], v[i][2])
        o[i, 4] = wp.normalize(p * wp.float64(3.0))
        o[i, 5] = wp.quat_from_axis_angle(wp.normalize(v[i]), v[i][0])
        o[i, 6] = wp.quat_inverse(p) - q
        r[i, 0] = wp.quat_rotate(p, v[i])
        r[i, 1] = wp.quat_rotate_inv(p, v[i])
        t = wp.transformd(v[i], p)
        u = wp.transformd(-v[i], q)
        r[i, 2] = wp.transform_point(t * u, v[i])
        r[i, 3] = wp.transform_vector(wp.transform_inverse(t), v[i])
        r[i, 4] = wp.transform_get_translation(wp.transform_multiply(u, t))
        m[i] = wp.quat_to_matrix(p)
    '''
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "quatd", unit_quats(rng, n, np.float64)), Arr("b", "quatd", unit_quats(rng, n, np.float64)),
                      Arr("v", "vec3d", uniform(rng, -2, 2, (n, 3), np.float64)),
                      Arr("o", "quatd", fill((n, 7, 4), -9.0, np.float64)), Arr("r", "vec3d", fill((n, 5, 3), -9.0, np.float64)),
                      Arr("m", "mat33d", fill((n, 3, 3), -9.0, np.float64))],
                check=["o", "r", "m"], rtol=1e-12, atol=1e-12, note="quat f64")


@case("x_quat_from_matrix_branches", tags=["quat"])
def qfm(rng):
    n = 64
    src = '''
    @wp.kernel
    def k(q: wp.array(dtype=wp.quat), o: wp.array(dtype=wp.quat), m: wp.array(dtype=wp.mat33)):
        i = wp.tid()
        r = wp.quat_to_matrix(q[i])
        o[i] = wp.quat_from_matrix(r)
        m[i] = r
    '''
    q = unit_quats(rng, n)
    # force negative traces: rotations by ~pi about the axes
    q[: n // 4, 3] = 0.01
    q[: n // 4] /= np.linalg.norm(q[: n // 4], axis=1, keepdims=True)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("q", "quat", q), Arr("o", "quat", fill((n, 4), -9.0)), Arr("m", "mat33", fill((n, 3, 3), -9.0))],
                check=["o", "m"], rtol=1e-5, atol=2e-6, note="quat_from_matrix branches")


@case("x_small_ints", tags=["scalar"])
def small_ints(rng):
    n = 256
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.int8), b: wp.array(dtype=wp.uint8), c: wp.array(dtype=wp.int64), u: wp.array(dtype=wp.uint16), o: wp.array2d(dtype=int)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        o[i, 0] = int(wp.sign(x))
        o[i, 1] = int(wp.step(x))
        o[i, 2] = int(wp.abs(x))
        o[i, 3] = int(wp.clamp(x, wp.int8(-50), wp.int8(50)))
        o[i, 4] = wp.bit_count(x)
        o[i, 5] = wp.bit_count(y)
        o[i, 6] = wp.bit_count(c[i])
        o[i, 7] = int(wp.nonzero(y))
        o[i, 8] = int(wp.min(y, wp.uint8(100)))
        o[i, 9] = int(x // wp.int8(7))
        o[i, 10] = int(x % wp.int8(7))
        o[i, 11] = int(-x)
        o[i, 12] = int(~y)
        o[i, 13] = int(y << wp.uint8(3))
        o[i, 14] = int(x >> wp.int8(2))
        o[i, 15] = int(wp.sign(y))
        o[i, 16] = int(c[i] // wp.int64(-1000))
        o[i, 17] = int(u[i] * u[i])
        o[i, 18] = int(wp.uint16(u[i] - wp.uint16(40000)) / wp.uint16(3))
        o[i, 19] = int(x ^ wp.int8(85)) + int(x & wp.int8(15)) + int(x | wp.int8(3))
    '''
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "int8", np.arange(-128, 128).astype(np.int8)), Arr("b", "uint8", np.arange(256).astype(np.uint8)),
                      Arr("c", "int64", rng.integers(-10**15, 10**15, n).astype(np.int64)), Arr("u", "uint16", rng.integers(0, 65535, n).astype(np.uint16)),
                      Arr("o", "int32", fill((n, 20), -7, np.int32))],
                check=["o"], rtol=0, atol=0, note="small ints")


@case("x_f16_math", tags=["scalar"])
def f16_math(rng):
    n = 64
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.float16), b: wp.array(dtype=wp.float16), o: wp.array2d(dtype=wp.float16)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        o[i, 0] = x * y + x
        o[i, 1] = x / y
        o[i, 2] = x // y
        o[i, 3] = x % y
        o[i, 4] = wp.sign(x)
        o[i, 5] = wp.min(x, y)
        o[i, 6] = wp.sqrt(wp.abs(x))
        o[i, 7] = wp.float16(wp.float32(x) * 2.0)
        o[i, 8] = wp.lerp(x, y, wp.float16(0.25))
        o[i, 9] = wp.dot(wp.vec3h(x, y, x), wp.vec3h(y, y, x))
    '''
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "float16", uniform(rng, -4, 4, n, np.float16)), Arr("b", "float16", uniform(rng, 0.5, 3, n, np.float16)),
                      Arr("o", "float16", fill((n, 10), -9.0, np.float16))],
                check=["o"], rtol=0.0, atol=0.0, note="f16 (bit-exact)")


@case("x_random_more", tags=["random"])
def random_more(rng):
    n = 48
    src = '''
    @wp.kernel
    def k(seed: int, o2: wp.array2d(dtype=wp.vec2), o3: wp.array2d(dtype=wp.vec3), ou: wp.array2d(dtype=wp.uint32)):
        i = wp.tid()
        s = wp.rand_init(seed, i)
        o2[i, 0] = wp.sample_unit_ring(s)
        o2[i, 1] = wp.sample_unit_square(s)
        o2[i, 2] = wp.sample_triangle(s)
        o3[i, 0] = wp.sample_unit_hemisphere(s)
        o3[i, 1] = wp.sample_unit_hemisphere_surface(s)
        o3[i, 2] = wp.sample_unit_cube(s)
        o3[i, 3] = wp.sample_unit_sphere(s)
        ou[i, 0] = wp.randu(s)
        ou[i, 1] = wp.randu(s, wp.uint32(10), wp.uint32(1000))
        ou[i, 2] = wp.uint32(wp.randi(s, -5, 5))
        ou[i, 3] = s
    '''
    return dict(src=src, kernel="k", dim=[n],
                args=[Scal("seed", "int32", 12345), Arr("o2", "vec2", fill((n, 3, 2), -9.0)), Arr("o3", "vec3", fill((n, 4, 3), -9.0)),
                      Arr("ou", "uint32", fill((n, 4), 7, np.uint32))],
                check=["o2", "o3", "ou"], rtol=1e-5, atol=1e-6, note="sampling")


@case("x_index_and_misc", tags=["vec"])
def index_misc(rng):
    n = 24
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.vec4), m: wp.array(dtype=wp.mat33), o: wp.array2d(dtype=float), ob: wp.array2d(dtype=int), ov: wp.array2d(dtype=wp.vec3i)):
        i = wp.tid()
        v = a[i]
        j = i % 4
        o[i, 0] = v[j]
        o[i, 1] = v[-1]
        o[i, 2] = m[i][j % 3, 2 - j % 3]
        v[j] = 100.0
        o[i, 3] = v[0] + v[1] + v[2] + v[3]
        mm = m[i]
        mm[j % 3] = wp.vec3(1.0, 2.0, 3.0)
        mm[0, j % 3] = 7.0
        o[i, 4] = wp.trace(mm) + mm[1, 0]
        o[i, 5] = wp.outer(wp.vec2(v[0], v[1]), wp.vec3(1.0, 2.0, 3.0))[1, 2]
        o[i, 6] = wp.matrix_from_rows(wp.vec2(1.0, 2.0), wp.vec2(3.0, v[2]))[1, 1]
        o[i, 7] = wp.where(v[0] > 0.0, 1.0, -1.0) * wp.copysign(2.0, v[1])
        o[i, 8] = float(wp.argmin(v)) + float(wp.argmax(wp.vec3(1.0, 1.0, 0.0)))
        o[i, 9] = float(len(v)) + float(len(mm))
        q = wp.quat(v[0], v[1], v[2], v[3])
        o[i, 10] = q.w + q[0]
        ob[i, 0] = int(wp.isnan(v / 0.0))
        ob[i, 1] = int(wp.isinf(v / 0.0))
        ob[i, 2] = int(wp.isfinite(v))
        ob[i, 3] = int(v == a[i])
        ob[i, 4] = int(not (v == a[i]))
        x = wp.vec3i(i, -i, 3)
        y = wp.vec3i(2, 3, -4)
        ov[i, 0] = x + y
        ov[i, 1] = x * 3
        ov[i, 2] = wp.max(x, y)
        ov[i, 3] = wp.cw_mul(x, y)
        ov[i, 4] = x % y
    '''
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "vec4", uniform(rng, -2, 2, (n, 4))), Arr("m", "mat33", uniform(rng, -2, 2, (n, 3, 3))),
                      Arr("o", "float32", fill((n, 11), -9.0)), Arr("ob", "int32", fill((n, 5), -7, np.int32)), Arr("ov", "vec3i", fill((n, 5, 3), -7, np.int32))],
                check=["o", "ob", "ov"], rtol=1e-6, atol=1e-6, note="indexing etc")


@case("x_transform_matrix", tags=["transform"])
def transform_matrix(rng):
    n = 32
    src = '''
    @wp.kernel
    def k(p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), m: wp.array(dtype=wp.mat44), t: wp.array(dtype=wp.transform),
          rpy: wp.array(dtype=wp.vec3), nrm: wp.array2d(dtype=float), pd: wp.array(dtype=wp.vec3d), md: wp.array(dtype=wp.mat44d)):
        i = wp.tid()
        xf = wp.transform(p[i], q[i])
        m[i] = wp.transform_to_matrix(xf)
        t[i] = wp.transform_from_matrix(m[i])
        rpy[i] = wp.quat_to_rpy(q[i])
        nrm[i, 0] = wp.norm_l1(p[i])
        nrm[i, 1] = wp.norm_l2(p[i])
        xd = wp.transformd(pd[i], wp.quatd(wp.float64(0.0), wp.float64(0.6), wp.float64(0.0), wp.float64(0.8)))
        md[i] = wp.transform_to_matrix(xd)
    '''
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("p", "vec3", uniform(rng, -2, 2, (n, 3))), Arr("q", "quat", unit_quats(rng, n)),
                      Arr("m", "mat44", fill((n, 4, 4), -9.0)), Arr("t", "transform", fill((n, 7), -9.0)),
                      Arr("rpy", "vec3", fill((n, 3), -9.0)), Arr("nrm", "float32", fill((n, 2), -9.0)),
                      Arr("pd", "vec3d", uniform(rng, -2, 2, (n, 3), np.float64)), Arr("md", "mat44d", fill((n, 4, 4), -9.0, np.float64))],
                check=["m", "t", "rpy", "nrm", "md"], rtol=1e-5, atol=2e-6, note="transform <-> matrix, quat_to_rpy, norms")


@case("x_spatial", tags=["spatial"])
def spatial(rng):
    n = 32
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.spatial_vector), b: wp.array(dtype=wp.spatial_vector), q: wp.array(dtype=wp.quat), r: wp.array(dtype=wp.vec3),
          o: wp.array2d(dtype=wp.spatial_vector), v: wp.array2d(dtype=wp.vec3), s: wp.array(dtype=float), od: wp.array(dtype=wp.spatial_vectord)):
        i = wp.tid()
        x = a[i]
        y = b[i]
        t = wp.transform(r[i], q[i])
        o[i, 0] = wp.spatial_cross(x, y)
        o[i, 1] = wp.spatial_cross_dual(x, y)
        o[i, 2] = wp.transform_twist(t, x)
        o[i, 3] = wp.transform_wrench(t, y)
        o[i, 4] = wp.spatial_vector(wp.spatial_bottom(x), wp.spatial_top(y))
        o[i, 5] = x * 2.0 + y
        v[i, 0] = wp.velocity_at_point(x, r[i])
        v[i, 1] = wp.spatial_top(x) - wp.spatial_bottom(y)
        s[i] = wp.spatial_dot(x, y)
        xd = wp.spatial_vectord(wp.float64(1.0), wp.float64(2.0), wp.float64(3.0), wp.float64(4.0), wp.float64(5.0), wp.float64(6.0))
        od[i] = wp.spatial_cross(xd, xd * wp.float64(s[i]))
    '''
    q = rng.normal(size=(n, 4)); q /= np.linalg.norm(q, axis=1, keepdims=True)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "spatial_vector", uniform(rng, -2, 2, (n, 6))), Arr("b", "spatial_vector", uniform(rng, -2, 2, (n, 6))),
                      Arr("q", "quat", q.astype(np.float32)), Arr("r", "vec3", uniform(rng, -2, 2, (n, 3))),
                      Arr("o", "spatial_vector", fill((n, 6, 6), -9.0)), Arr("v", "vec3", fill((n, 2, 3), -9.0)),
                      Arr("s", "float32", fill((n,), -9.0)), Arr("od", "spatial_vectord", fill((n, 6), -9.0, np.float64))],
                check=["o", "v", "s", "od"], rtol=1e-5, atol=2e-6, note="spatial vectors")


@case("x_degenerate", tags=["special_values"])
def degenerate(rng):
    n = 8
    src = '''
    @wp.kernel
    def k(s: wp.array(dtype=float), m3: wp.array(dtype=wp.mat33), m2: wp.array(dtype=wp.mat22), m4: wp.array(dtype=wp.mat44),
          q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), f: wp.array2d(dtype=float)):
        i = wp.tid()
        x = s[i]
        m3[i] = wp.inverse(wp.mat33(x, 2.0 * x, 3.0, x, 2.0 * x, 3.0, 1.0, 0.0, 1.0))
        m2[i] = wp.inverse(wp.mat22(x, x, x, x))
        m4[i] = wp.inverse(wp.mat44(x, 0.0, 0.0, 0.0, 0.0, x, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, x))
        q[i] = wp.normalize(wp.quat(x, 0.0, 0.0, 0.0) * 0.0)
        v[i] = wp.normalize(wp.vec3(x, x, 0.0))
        f[i, 0] = wp.smoothstep(1.0, 1.0, x)
        f[i, 1] = wp.clamp(x, -1.0, 1.0)
        f[i, 2] = wp.sign(x)
        f[i, 3] = wp.min(x, 0.5)
        f[i, 4] = wp.frac(x)
        f[i, 5] = x // 0.5
        f[i, 6] = x % 0.75
        f[i, 7] = wp.acos(x)
    '''
    s = np.array([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e-30], dtype=np.float32)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("s", "float32", s), Arr("m3", "mat33", fill((n, 3, 3), -9.0)), Arr("m2", "mat22", fill((n, 2, 2), -9.0)),
                      Arr("m4", "mat44", fill((n, 4, 4), -9.0)), Arr("q", "quat", fill((n, 4), -9.0)), Arr("v", "vec3", fill((n, 3), -9.0)),
                      Arr("f", "float32", fill((n, 8), -9.0))],
                check=["m3", "m2", "m4", "q", "v", "f"], rtol=1e-6, atol=1e-6, note="degenerate inputs")
