"""Warp's kernel-language math helpers (`warp/_src/math.py`) and the
approximate builtins: norm_huber, norm_pseudo_huber, smooth_normalize,
quat_to_axis_angle, transform_compose/decompose, quat_twist(_angle(_signed)),
quat_from_euler, quat_to_euler, inverse_approx, div_approx."""

import numpy as np

from caselib import Arr, case, fill


def unit_quats(rng, n):
    q = rng.normal(size=(n, 4)).astype(np.float32)
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


@case("math_helpers", tags=["builtins", "quat", "vec", "mat", "transform"])
def math_helpers(rng):
    n = 24
    src = '''
    @wp.kernel
    def k(
        v: wp.array(dtype=wp.vec3),
        q: wp.array(dtype=wp.quat),
        vd: wp.array(dtype=wp.vec3d),
        o: wp.array(dtype=float),
        ov: wp.array(dtype=wp.vec3),
        oq: wp.array(dtype=wp.quat),
        om: wp.array(dtype=wp.mat44),
        od: wp.array(dtype=wp.float64),
    ):
        i = wp.tid()
        x = v[i]
        r = q[i]
        o[i * 10 + 0] = wp.norm_huber(x)
        o[i * 10 + 1] = wp.norm_huber(x, 0.7)
        o[i * 10 + 2] = wp.norm_pseudo_huber(x)
        o[i * 10 + 3] = wp.norm_pseudo_huber(x, 2.5)
        axis, angle = wp.quat_to_axis_angle(r)
        o[i * 10 + 4] = angle
        ax = wp.normalize(x)
        o[i * 10 + 5] = wp.quat_twist_angle(ax, r)
        o[i * 10 + 6] = wp.quat_twist_angle_signed(ax, r)
        o[i * 10 + 7] = wp.div_approx(x[0], x[1])
        o[i * 10 + 8] = wp.norm_huber(wp.vec2(x[0], x[1]), 0.3)
        o[i * 10 + 9] = wp.norm_pseudo_huber(wp.vec4(x[0], x[1], x[2], 1.0))
        ov[i * 6 + 0] = wp.smooth_normalize(x)
        ov[i * 6 + 1] = wp.smooth_normalize(x, 0.1)
        ov[i * 6 + 2] = axis
        ov[i * 6 + 3] = wp.quat_to_euler(r, 0, 1, 2)
        ov[i * 6 + 4] = wp.quat_to_euler(r, 2, 0, 2)
        ov[i * 6 + 5] = wp.div_approx(x, 3.0)
        oq[i * 4 + 0] = wp.quat_twist(ax, r)
        oq[i * 4 + 1] = wp.quat_from_euler(x, 0, 1, 2)
        oq[i * 4 + 2] = wp.quat_from_euler(x, 2, 1, 0)
        oq[i * 4 + 3] = wp.quat_from_euler(x, 1, 0, 1)
        m = wp.transform_compose(x, r, wp.vec3(1.5, 0.5, 2.0))
        om[i * 3 + 0] = m
        p, rq, s = wp.transform_decompose(m)
        om[i * 3 + 1] = wp.transform_compose(p, rq, s)
        om[i * 3 + 2] = wp.inverse_approx(m)
        y = vd[i]
        md = wp.transform_compose(y, wp.quatd(wp.float64(0.6), wp.float64(0.0), wp.float64(0.0), wp.float64(0.8)), y)
        od[i * 3 + 0] = md[1, 1]
        od[i * 3 + 1] = md[2, 3]
        od[i * 3 + 2] = wp.inverse_approx(wp.mat22d(y[0], y[1], y[2], wp.float64(1.0)))[0, 1]
    '''
    v = rng.uniform(-2.0, 2.0, (n, 3)).astype(np.float32)
    v[0] = [0.1, 0.2, -0.1]  # inside the Huber threshold
    q = unit_quats(rng, n)
    q[1] = [0.0, 0.0, 0.0, 1.0]
    q[2] = [0.0, 0.0, 0.0, -1.0]
    vd = rng.uniform(-2.0, 2.0, (n, 3))
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("v", "vec3", v), Arr("q", "quat", q), Arr("vd", "vec3d", vd),
                      Arr("o", "float32", fill(n * 10, -9.0)), Arr("ov", "vec3", fill((n * 6, 3), -9.0)),
                      Arr("oq", "quat", fill((n * 4, 4), -9.0)), Arr("om", "mat44", fill((n * 3, 4, 4), -9.0)),
                      Arr("od", "float64", fill(n * 3, -9.0, np.float64))],
                check=["o", "ov", "oq", "om", "od"], rtol=1e-6, atol=1e-6,
                note="Warp's math.py helpers and the approximate builtins (exact on the CPU); transcendental results within 1e-6")


@case("transform_set_in_place", tags=["transform", "builtins", "in_place"])
def transform_set_in_place(rng):
    n = 8
    src = '''
    @wp.kernel
    def k(t: wp.array(dtype=wp.transform), p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), o: wp.array(dtype=wp.transform)):
        i = wp.tid()
        x = t[i]
        wp.transform_set_translation(x, p[i])
        o[i * 3 + 0] = x
        wp.transform_set_rotation(x, q[i])
        o[i * 3 + 1] = x
        y = t[i]
        for j in range(3):
            wp.transform_set_translation(y, wp.transform_get_translation(y) + p[i])
        o[i * 3 + 2] = y
        # an array element is a copy: t is unchanged
        wp.transform_set_translation(t[i], p[i])
    '''
    t = rng.uniform(-1, 1, (n, 7)).astype(np.float32)
    p = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    q = unit_quats(rng, n)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("t", "transform", t), Arr("p", "vec3", p), Arr("q", "quat", q),
                      Arr("o", "transform", fill((n * 3, 7), -9.0))],
                check=["o", "t"], note="transform_set_translation/rotation modify a variable in place (an array element is a copy); exact")


@case("isnan_isinf_aggregates", tags=["builtins", "quat", "vec", "mat", "nan"])
def isnan_isinf_aggregates(rng):
    # One bool per call, any component NaN/inf (all finite), as Warp; on
    # quaternions too (no `quat<bool>` in between).
    n = 8
    src = '''
    @wp.kernel
    def k(q: wp.array(dtype=wp.quat), qd: wp.array(dtype=wp.quatd), m: wp.array(dtype=wp.mat22), o: wp.array(dtype=int)):
        i = wp.tid()
        x = q[i]
        y = qd[i]
        z = m[i]
        v = wp.vec3h(wp.float16(x[0]), wp.float16(x[1]), wp.float16(x[2]))
        o[i * 10 + 0] = int(wp.isnan(x))
        o[i * 10 + 1] = int(wp.isinf(x))
        o[i * 10 + 2] = int(wp.isfinite(x))
        o[i * 10 + 3] = int(wp.isnan(y))
        o[i * 10 + 4] = int(wp.isinf(y))
        o[i * 10 + 5] = int(wp.isfinite(y))
        o[i * 10 + 6] = int(wp.isnan(z))
        o[i * 10 + 7] = int(wp.isinf(z))
        o[i * 10 + 8] = int(wp.isfinite(z))
        o[i * 10 + 9] = int(wp.isnan(v)) + 2 * int(wp.isinf(v))
    '''
    q = rng.normal(size=(n, 4)).astype(np.float32)
    q[1, 2] = np.nan
    q[2, 0] = np.inf
    q[3, 3] = -np.inf
    q[3, 1] = np.nan
    qd = q.astype(np.float64)
    qd[4, 1] = np.nan
    qd[5, 3] = np.inf
    m = rng.normal(size=(n, 2, 2)).astype(np.float32)
    m[6, 1, 0] = np.nan
    m[7, 0, 1] = -np.inf
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("q", "quat", q), Arr("qd", "quatd", qd), Arr("m", "mat22", m),
                      Arr("o", "int32", fill(n * 10, -1, np.int32))],
                check=["o"], note="isnan/isinf/isfinite of quat, quatd, mat22, vec3h: one bool each; exact")
