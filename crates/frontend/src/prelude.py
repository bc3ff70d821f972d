# Weft prelude: Warp builtins that are plain arithmetic, written once in the
# kernel language. The frontend compiles this module like user code; the
# builtin lowering (builtins/) calls these funcs by name, and the inliner
# removes the calls.
#
# Template scheme (expanded by builtins/prelude.rs before parsing):
#   a line `# @float` starts a block instantiated once per float type
#   (float16, float32, float64, bfloat16), `# @float3264` one for float32 and float64
#   only, `# @scalar` one per numeric scalar type (only $F substituted);
#   `# @once` starts a block emitted as is.
#   In templated blocks: $F is the scalar type (wp.float32), $V2 $V3 $V4 the
#   vectors, $M22 $M33 $M44 the matrices, $Q the quaternion, $T the
#   transform and $S the spatial vector of that scalar type.
#
# Every func is named __weft_<builtin>; user code cannot use that prefix.
# Where Warp's adjoint of a builtin is not the derivative of its formula,
# the prelude gives it as `@wp.func_grad(__weft_f) def __weft_f__adjoint`
# (found by that name); the adjoint pass uses it at every call.
# Formulas follow Warp 1.19's native code (vec.h, mat.h, quat.h, spatial.h,
# builtin.h, rand.h) operation for operation, so rounding matches.

import warp as wp

# bfloat16's vector, matrix, quaternion and transform types, which Warp names
# only as `wp.types.vector(...)` and so on ($V3 and the others of bfloat16).
__weft_vec2bf = wp.types.vector(length=2, dtype=wp.bfloat16)
__weft_vec3bf = wp.types.vector(length=3, dtype=wp.bfloat16)
__weft_vec4bf = wp.types.vector(length=4, dtype=wp.bfloat16)
__weft_spatial_vectorbf = wp.types.vector(length=6, dtype=wp.bfloat16)
__weft_mat22bf = wp.types.matrix(shape=(2, 2), dtype=wp.bfloat16)
__weft_mat33bf = wp.types.matrix(shape=(3, 3), dtype=wp.bfloat16)
__weft_mat44bf = wp.types.matrix(shape=(4, 4), dtype=wp.bfloat16)
__weft_quatbf = wp.types.quaternion(dtype=wp.bfloat16)
__weft_transformbf = wp.types.transformation(dtype=wp.bfloat16)

# @float

@wp.func
def __weft_dot(a: $V2, b: $V2):
    return a[0] * b[0] + a[1] * b[1]


@wp.func
def __weft_dot(a: $V3, b: $V3):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@wp.func
def __weft_dot(a: $V4, b: $V4):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]


@wp.func
def __weft_dot(a: $Q, b: $Q):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]


@wp.func
def __weft_length(a: $V2):
    return wp.sqrt(a[0] * a[0] + a[1] * a[1])


@wp.func
def __weft_length(a: $V3):
    return wp.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@wp.func
def __weft_length(a: $V4):
    return wp.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3])


@wp.func
def __weft_length(a: $Q):
    return wp.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3])


@wp.func
def __weft_length_sq(a: $V2):
    return a[0] * a[0] + a[1] * a[1]


@wp.func
def __weft_length_sq(a: $V3):
    return a[0] * a[0] + a[1] * a[1] + a[2] * a[2]


@wp.func
def __weft_length_sq(a: $V4):
    return a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]


@wp.func
def __weft_length_sq(a: $Q):
    return a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]


# normalize(0) is 0 for vectors (Warp divides by the length).
@wp.func
def __weft_normalize(a: $V2):
    l = wp.sqrt(a[0] * a[0] + a[1] * a[1])
    return wp.where(l > $F(0.0), $V2(a[0] / l, a[1] / l), $V2())


@wp.func
def __weft_normalize(a: $V3):
    l = wp.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    return wp.where(l > $F(0.0), $V3(a[0] / l, a[1] / l, a[2] / l), $V3())


@wp.func
def __weft_normalize(a: $V4):
    l = wp.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3])
    return wp.where(l > $F(0.0), $V4(a[0] / l, a[1] / l, a[2] / l, a[3] / l), $V4())


# normalize of a zero quaternion is the identity; Warp multiplies by 1/l.
@wp.func
def __weft_normalize(q: $Q):
    l = wp.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    inv = $F(1.0) / l
    return wp.where(l > $F(0.0), $Q(q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv), $Q(0.0, 0.0, 0.0, 1.0))


@wp.func
def __weft_cross(a: $V3, b: $V3):
    return $V3(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@wp.func
def __weft_frac(x: $F):
    return x - wp.trunc(x)


# Warp 1.19 gives frac no adjoint (MISSINGADJOINT in native/builtin.h).
@wp.func_grad(__weft_frac)
def __weft_frac__adjoint(x: $F, adj_ret: $F):
    pass


@wp.func
def __weft_smoothstep(edge0: $F, edge1: $F, x: $F):
    t = wp.min(wp.max($F(0.0), (x - edge0) / (edge1 - edge0)), $F(1.0))
    return t * t * ($F(3.0) - $F(2.0) * t)


# ---- matrices

@wp.func
def __weft_determinant(m: $M22):
    return m[0, 0] * m[1, 1] - m[1, 0] * m[0, 1]


@wp.func
def __weft_determinant(m: $M33):
    return wp.dot(m[0], wp.cross(m[1], m[2]))


# Warp keeps the 2x2 minors in double precision (USD's algorithm).
@wp.func
def __weft_determinant(m: $M44):
    x00 = m[0, 0]
    x01 = m[0, 1]
    x02 = m[0, 2]
    x03 = m[0, 3]
    x10 = m[1, 0]
    x11 = m[1, 1]
    x12 = m[1, 2]
    x13 = m[1, 3]
    x20 = m[2, 0]
    x21 = m[2, 1]
    x22 = m[2, 2]
    x23 = m[2, 3]
    x30 = m[3, 0]
    x31 = m[3, 1]
    x32 = m[3, 2]
    x33 = m[3, 3]
    y01 = wp.float64(x02 * x13 - x12 * x03)
    y02 = wp.float64(x02 * x23 - x22 * x03)
    y03 = wp.float64(x02 * x33 - x32 * x03)
    y12 = wp.float64(x12 * x23 - x22 * x13)
    y13 = wp.float64(x12 * x33 - x32 * x13)
    y23 = wp.float64(x22 * x33 - x32 * x23)
    z30 = $F(wp.float64(x11) * y02 - wp.float64(x21) * y01 - wp.float64(x01) * y12)
    z20 = $F(wp.float64(x01) * y13 - wp.float64(x11) * y03 + wp.float64(x31) * y01)
    z10 = $F(wp.float64(x21) * y03 - wp.float64(x31) * y02 - wp.float64(x01) * y23)
    z00 = $F(wp.float64(x11) * y23 - wp.float64(x21) * y13 + wp.float64(x31) * y12)
    return x30 * z30 + x20 * z20 + x10 * z10 + x00 * z00


@wp.func
def __weft_inverse(m: $M22):
    det = m[0, 0] * m[1, 1] - m[1, 0] * m[0, 1]
    rcp = $F(1.0) / det
    inv = $M22(m[1, 1], -m[0, 1], -m[1, 0], m[0, 0]) * rcp
    return wp.where(wp.abs(det) > $F(0.0), inv, $M22())


@wp.func
def __weft_inverse(m: $M33):
    det = wp.dot(m[0], wp.cross(m[1], m[2]))
    b00 = m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1]
    b10 = m[1, 2] * m[2, 0] - m[1, 0] * m[2, 2]
    b20 = m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]
    b01 = m[0, 2] * m[2, 1] - m[0, 1] * m[2, 2]
    b11 = m[0, 0] * m[2, 2] - m[0, 2] * m[2, 0]
    b21 = m[0, 1] * m[2, 0] - m[0, 0] * m[2, 1]
    b02 = m[0, 1] * m[1, 2] - m[0, 2] * m[1, 1]
    b12 = m[0, 2] * m[1, 0] - m[0, 0] * m[1, 2]
    b22 = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    rcp = $F(1.0) / det
    inv = $M33(b00, b01, b02, b10, b11, b12, b20, b21, b22) * rcp
    return wp.where(det != $F(0.0), inv, $M33())


@wp.func
def __weft_inverse(m: $M44):
    x00 = m[0, 0]
    x01 = m[0, 1]
    x02 = m[0, 2]
    x03 = m[0, 3]
    x10 = m[1, 0]
    x11 = m[1, 1]
    x12 = m[1, 2]
    x13 = m[1, 3]
    x20 = m[2, 0]
    x21 = m[2, 1]
    x22 = m[2, 2]
    x23 = m[2, 3]
    x30 = m[3, 0]
    x31 = m[3, 1]
    x32 = m[3, 2]
    x33 = m[3, 3]
    # 2x2 minors of the first two columns
    y01 = wp.float64(x00 * x11 - x10 * x01)
    y02 = wp.float64(x00 * x21 - x20 * x01)
    y03 = wp.float64(x00 * x31 - x30 * x01)
    y12 = wp.float64(x10 * x21 - x20 * x11)
    y13 = wp.float64(x10 * x31 - x30 * x11)
    y23 = wp.float64(x20 * x31 - x30 * x21)
    # cofactors of the last two columns (double)
    z33 = wp.float64(x02) * y12 - wp.float64(x12) * y02 + wp.float64(x22) * y01
    z23 = wp.float64(x12) * y03 - wp.float64(x32) * y01 - wp.float64(x02) * y13
    z13 = wp.float64(x02) * y23 - wp.float64(x22) * y03 + wp.float64(x32) * y02
    z03 = wp.float64(x22) * y13 - wp.float64(x32) * y12 - wp.float64(x12) * y23
    z32 = wp.float64(x13) * y02 - wp.float64(x23) * y01 - wp.float64(x03) * y12
    z22 = wp.float64(x03) * y13 - wp.float64(x13) * y03 + wp.float64(x33) * y01
    z12 = wp.float64(x23) * y03 - wp.float64(x33) * y02 - wp.float64(x03) * y23
    z02 = wp.float64(x13) * y23 - wp.float64(x23) * y13 + wp.float64(x33) * y12
    # 2x2 minors of the last two columns
    w01 = wp.float64(x02 * x13 - x12 * x03)
    w02 = wp.float64(x02 * x23 - x22 * x03)
    w03 = wp.float64(x02 * x33 - x32 * x03)
    w12 = wp.float64(x12 * x23 - x22 * x13)
    w13 = wp.float64(x12 * x33 - x32 * x13)
    w23 = wp.float64(x22 * x33 - x32 * x23)
    # cofactors of the first two columns (stored in the matrix's type)
    z30 = $F(wp.float64(x11) * w02 - wp.float64(x21) * w01 - wp.float64(x01) * w12)
    z20 = $F(wp.float64(x01) * w13 - wp.float64(x11) * w03 + wp.float64(x31) * w01)
    z10 = $F(wp.float64(x21) * w03 - wp.float64(x31) * w02 - wp.float64(x01) * w23)
    z00 = $F(wp.float64(x11) * w23 - wp.float64(x21) * w13 + wp.float64(x31) * w12)
    z31 = $F(wp.float64(x00) * w12 - wp.float64(x10) * w02 + wp.float64(x20) * w01)
    z21 = $F(wp.float64(x10) * w03 - wp.float64(x30) * w01 - wp.float64(x00) * w13)
    z11 = $F(wp.float64(x00) * w23 - wp.float64(x20) * w03 + wp.float64(x30) * w02)
    z01 = $F(wp.float64(x20) * w13 - wp.float64(x30) * w12 - wp.float64(x10) * w23)
    det = wp.float64(x30 * z30 + x20 * z20 + x10 * z10 + x00 * z00)
    rcp = wp.float64(1.0) / det
    inv = $M44(
        $F(wp.float64(z00) * rcp), $F(wp.float64(z10) * rcp), $F(wp.float64(z20) * rcp), $F(wp.float64(z30) * rcp),
        $F(wp.float64(z01) * rcp), $F(wp.float64(z11) * rcp), $F(wp.float64(z21) * rcp), $F(wp.float64(z31) * rcp),
        $F(z02 * rcp), $F(z12 * rcp), $F(z22 * rcp), $F(z32 * rcp),
        $F(z03 * rcp), $F(z13 * rcp), $F(z23 * rcp), $F(z33 * rcp),
    )
    return wp.where(wp.abs(det) > wp.float64(0.0), inv, $M44())


# Warp's min/max of a vector: the reduction; its adjoint goes to the first
# extremum (argmin/argmax), as in native/vec.h.
@wp.func
def __weft_min(v: $V2):
    return wp.min(v[0], v[1])


@wp.func
def __weft_min(v: $V3):
    return wp.min(wp.min(v[0], v[1]), v[2])


@wp.func
def __weft_min(v: $V4):
    return wp.min(wp.min(wp.min(v[0], v[1]), v[2]), v[3])


@wp.func
def __weft_max(v: $V2):
    return wp.max(v[0], v[1])


@wp.func
def __weft_max(v: $V3):
    return wp.max(wp.max(v[0], v[1]), v[2])


@wp.func
def __weft_max(v: $V4):
    return wp.max(wp.max(wp.max(v[0], v[1]), v[2]), v[3])


@wp.func_grad(__weft_min)
def __weft_min__adjoint(v: $V2, adj_ret: $F):
    g = $V2()
    g[wp.argmin(v)] = adj_ret
    wp.adjoint[v] += g


@wp.func_grad(__weft_min)
def __weft_min__adjoint(v: $V3, adj_ret: $F):
    g = $V3()
    g[wp.argmin(v)] = adj_ret
    wp.adjoint[v] += g


@wp.func_grad(__weft_min)
def __weft_min__adjoint(v: $V4, adj_ret: $F):
    g = $V4()
    g[wp.argmin(v)] = adj_ret
    wp.adjoint[v] += g


@wp.func_grad(__weft_max)
def __weft_max__adjoint(v: $V2, adj_ret: $F):
    g = $V2()
    g[wp.argmax(v)] = adj_ret
    wp.adjoint[v] += g


@wp.func_grad(__weft_max)
def __weft_max__adjoint(v: $V3, adj_ret: $F):
    g = $V3()
    g[wp.argmax(v)] = adj_ret
    wp.adjoint[v] += g


@wp.func_grad(__weft_max)
def __weft_max__adjoint(v: $V4, adj_ret: $F):
    g = $V4()
    g[wp.argmax(v)] = adj_ret
    wp.adjoint[v] += g


# ---- adjoints that are Warp's, not the formulas' (guards at zero, native forms)

@wp.func_grad(__weft_length)
def __weft_length__adjoint(a: $V2, adj_ret: $F):
    l = wp.length(a)
    if l > $F(0.0):
        wp.adjoint[a] += $V2(a[0] / l, a[1] / l) * adj_ret


@wp.func_grad(__weft_length)
def __weft_length__adjoint(a: $V3, adj_ret: $F):
    l = wp.length(a)
    if l > $F(0.0):
        wp.adjoint[a] += $V3(a[0] / l, a[1] / l, a[2] / l) * adj_ret


@wp.func_grad(__weft_length)
def __weft_length__adjoint(a: $V4, adj_ret: $F):
    l = wp.length(a)
    if l > $F(0.0):
        wp.adjoint[a] += $V4(a[0] / l, a[1] / l, a[2] / l, a[3] / l) * adj_ret


@wp.func_grad(__weft_length)
def __weft_length__adjoint(a: $Q, adj_ret: $F):
    l = wp.length(a)
    if l > $F(0.0):
        inv = $F(1.0) / l
        wp.adjoint[a] += $Q(a[0] * inv, a[1] * inv, a[2] * inv, a[3] * inv) * adj_ret


@wp.func_grad(__weft_normalize)
def __weft_normalize__adjoint(a: $V2, adj_ret: $V2):
    d = wp.length(a)
    if d > $F(0.0):
        invd = $F(1.0) / d
        ret = wp.normalize(a)
        wp.adjoint[a] += adj_ret * invd - ret * wp.dot(ret, adj_ret) * invd


@wp.func_grad(__weft_normalize)
def __weft_normalize__adjoint(a: $V3, adj_ret: $V3):
    d = wp.length(a)
    if d > $F(0.0):
        invd = $F(1.0) / d
        ret = wp.normalize(a)
        wp.adjoint[a] += adj_ret * invd - ret * wp.dot(ret, adj_ret) * invd


@wp.func_grad(__weft_normalize)
def __weft_normalize__adjoint(a: $V4, adj_ret: $V4):
    d = wp.length(a)
    if d > $F(0.0):
        invd = $F(1.0) / d
        ret = wp.normalize(a)
        wp.adjoint[a] += adj_ret * invd - ret * wp.dot(ret, adj_ret) * invd


@wp.func_grad(__weft_normalize)
def __weft_normalize__adjoint(q: $Q, adj_ret: $Q):
    l = wp.length(q)
    if l > $F(0.0):
        l_inv = $F(1.0) / l
        wp.adjoint[q] += adj_ret * l_inv - q * (l_inv * l_inv * l_inv * wp.dot(q, adj_ret))


@wp.func_grad(__weft_inverse)
def __weft_inverse__adjoint(m: $M22, adj_ret: $M22):
    invt = wp.transpose(wp.inverse(m))
    wp.adjoint[m] -= (invt * adj_ret) * invt


@wp.func_grad(__weft_inverse)
def __weft_inverse__adjoint(m: $M33, adj_ret: $M33):
    invt = wp.transpose(wp.inverse(m))
    wp.adjoint[m] -= (invt * adj_ret) * invt


@wp.func_grad(__weft_inverse)
def __weft_inverse__adjoint(m: $M44, adj_ret: $M44):
    invt = wp.transpose(wp.inverse(m))
    wp.adjoint[m] -= (invt * adj_ret) * invt


# ---- quaternions (x, y, z, w), w real

@wp.func
def __weft_quat_mul(a: $Q, b: $Q):
    return $Q(
        a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - b[1] * a[2],
        a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - b[2] * a[0],
        a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - b[0] * a[1],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    )


@wp.func
def __weft_quat_inverse(q: $Q):
    return $Q(-q[0], -q[1], -q[2], q[3])


@wp.func
def __weft_quat_rotate(q: $Q, x: $V3):
    c = $F(2.0) * q[3] * q[3] - $F(1.0)
    d = $F(2.0) * (q[0] * x[0] + q[1] * x[1] + q[2] * x[2])
    return $V3(
        x[0] * c + q[0] * d + (q[1] * x[2] - q[2] * x[1]) * q[3] * $F(2.0),
        x[1] * c + q[1] * d + (q[2] * x[0] - q[0] * x[2]) * q[3] * $F(2.0),
        x[2] * c + q[2] * d + (q[0] * x[1] - q[1] * x[0]) * q[3] * $F(2.0),
    )


@wp.func
def __weft_quat_rotate_inv(q: $Q, x: $V3):
    c = $F(2.0) * q[3] * q[3] - $F(1.0)
    d = $F(2.0) * (q[0] * x[0] + q[1] * x[1] + q[2] * x[2])
    return $V3(
        x[0] * c + q[0] * d - (q[1] * x[2] - q[2] * x[1]) * q[3] * $F(2.0),
        x[1] * c + q[1] * d - (q[2] * x[0] - q[0] * x[2]) * q[3] * $F(2.0),
        x[2] * c + q[2] * d - (q[0] * x[1] - q[1] * x[0]) * q[3] * $F(2.0),
    )


@wp.func
def __weft_quat_to_matrix(q: $Q):
    c1 = wp.quat_rotate(q, $V3(1.0, 0.0, 0.0))
    c2 = wp.quat_rotate(q, $V3(0.0, 1.0, 0.0))
    c3 = wp.quat_rotate(q, $V3(0.0, 0.0, 1.0))
    return $M33(c1[0], c2[0], c3[0], c1[1], c2[1], c3[1], c1[2], c2[2], c3[2])


@wp.func
def __weft_quat_from_rot(m00: $F, m01: $F, m02: $F, m10: $F, m11: $F, m12: $F, m20: $F, m21: $F, m22: $F):
    tr = m00 + m11 + m22
    x = $F(0.0)
    y = $F(0.0)
    z = $F(0.0)
    w = $F(0.0)
    h = $F(0.0)
    if tr >= $F(0.0):
        h = wp.sqrt(tr + $F(1.0))
        w = $F(0.5) * h
        h = $F(0.5) / h
        x = (m21 - m12) * h
        y = (m02 - m20) * h
        z = (m10 - m01) * h
    else:
        max_diag = int(0)
        dmax = m00
        if m11 > m00:
            max_diag = int(1)
            dmax = m11
        if m22 > dmax:
            max_diag = int(2)
        if max_diag == 0:
            h = wp.sqrt((m00 - (m11 + m22)) + $F(1.0))
            x = $F(0.5) * h
            h = $F(0.5) / h
            y = (m01 + m10) * h
            z = (m20 + m02) * h
            w = (m21 - m12) * h
        elif max_diag == 1:
            h = wp.sqrt((m11 - (m22 + m00)) + $F(1.0))
            y = $F(0.5) * h
            h = $F(0.5) / h
            z = (m12 + m21) * h
            x = (m01 + m10) * h
            w = (m02 - m20) * h
        else:
            h = wp.sqrt((m22 - (m00 + m11)) + $F(1.0))
            z = $F(0.5) * h
            h = $F(0.5) / h
            x = (m20 + m02) * h
            y = (m12 + m21) * h
            w = (m10 - m01) * h
    return wp.normalize($Q(x, y, z, w))


@wp.func
def __weft_quat_from_matrix(m: $M33):
    return __weft_quat_from_rot(m[0, 0], m[0, 1], m[0, 2], m[1, 0], m[1, 1], m[1, 2], m[2, 0], m[2, 1], m[2, 2])


@wp.func
def __weft_quat_from_matrix(m: $M44):
    return __weft_quat_from_rot(m[0, 0], m[0, 1], m[0, 2], m[1, 0], m[1, 1], m[1, 2], m[2, 0], m[2, 1], m[2, 2])


@wp.func
def __weft_quat_from_axis_angle(axis: $V3, angle: $F):
    half = angle * $F(0.5)
    w = wp.cos(half)
    s = wp.sin(half)
    return $Q(axis[0] * s, axis[1] * s, axis[2] * s, w)


@wp.func
def __weft_quat_rpy(roll: $F, pitch: $F, yaw: $F):
    cy = wp.cos(yaw * $F(0.5))
    sy = wp.sin(yaw * $F(0.5))
    cr = wp.cos(roll * $F(0.5))
    sr = wp.sin(roll * $F(0.5))
    cp = wp.cos(pitch * $F(0.5))
    sp = wp.sin(pitch * $F(0.5))
    w = cy * cr * cp + sy * sr * sp
    x = cy * sr * cp - sy * cr * sp
    y = cy * cr * sp + sy * sr * cp
    z = sy * cr * cp - cy * sr * sp
    return $Q(x, y, z, w)


@wp.func
def __weft_quat_slerp(q0: $Q, q1: $Q, t: $F):
    d = wp.quat_inverse(q0) * q1
    v = $V3(d[0], d[1], d[2])
    n = wp.normalize(v)
    axis = wp.where(d[3] < $F(0.0), -n, n)
    angle = $F(2.0) * wp.atan2(wp.length(v), wp.abs(d[3]))
    return q0 * wp.quat_from_axis_angle(axis, t * angle)


# ---- transforms (p, q)

@wp.func
def __weft_transform_point(t: $T, x: $V3):
    return wp.transform_get_translation(t) + wp.quat_rotate(wp.transform_get_rotation(t), x)


@wp.func
def __weft_transform_vector(t: $T, x: $V3):
    return wp.quat_rotate(wp.transform_get_rotation(t), x)


@wp.func
def __weft_transform_multiply(a: $T, b: $T):
    aq = wp.transform_get_rotation(a)
    p = wp.quat_rotate(aq, wp.transform_get_translation(b)) + wp.transform_get_translation(a)
    return $T(p, aq * wp.transform_get_rotation(b))


@wp.func
def __weft_transform_inverse(t: $T):
    q_inv = wp.quat_inverse(wp.transform_get_rotation(t))
    return $T(-wp.quat_rotate(q_inv, wp.transform_get_translation(t)), q_inv)


@wp.func
def __weft_transform_to_matrix(t: $T):
    p = wp.transform_get_translation(t)
    r = wp.quat_to_matrix(wp.transform_get_rotation(t))
    return $M44(
        r[0, 0], r[0, 1], r[0, 2], p[0],
        r[1, 0], r[1, 1], r[1, 2], p[1],
        r[2, 0], r[2, 1], r[2, 2], p[2],
        0.0, 0.0, 0.0, 1.0,
    )


@wp.func
def __weft_transform_from_matrix(m: $M44):
    return $T($V3(m[0, 3], m[1, 3], m[2, 3]), wp.quat_from_matrix(m))


# inverse of quat_rpy (extrinsic x-y-z); pitch clamped to [-pi/2, pi/2]
@wp.func
def __weft_quat_to_rpy(q: $Q):
    roll = wp.atan2($F(2.0) * (q[3] * q[0] + q[1] * q[2]), $F(1.0) - $F(2.0) * (q[0] * q[0] + q[1] * q[1]))
    pitch = wp.asin(wp.clamp($F(2.0) * (q[3] * q[1] - q[2] * q[0]), $F(-1.0), $F(1.0)))
    yaw = wp.atan2($F(2.0) * (q[3] * q[2] + q[0] * q[1]), $F(1.0) - $F(2.0) * (q[1] * q[1] + q[2] * q[2]))
    return $V3(roll, pitch, yaw)


# quat.h: the axis is flipped with w so that the angle is in [0, pi].
@wp.func
def __weft_quat_to_axis_angle(q: $Q):
    v = $V3(q[0], q[1], q[2])
    n = wp.normalize(v)
    axis = wp.where(q[3] < $F(0.0), -n, n)
    return axis, $F(2.0) * wp.atan2(wp.length(v), wp.abs(q[3]))


# ---- 4x4 matrices from and to position, rotation and scale (math.py)

@wp.func
def __weft_transform_compose(p: $V3, q: $Q, s: $V3):
    r = wp.quat_to_matrix(q)
    return $M44(
        s[0] * r[0, 0], s[1] * r[0, 1], s[2] * r[0, 2], p[0],
        s[0] * r[1, 0], s[1] * r[1, 1], s[2] * r[1, 2], p[1],
        s[0] * r[2, 0], s[1] * r[2, 1], s[2] * r[2, 2], p[2],
        $F(0.0), $F(0.0), $F(0.0), $F(1.0),
    )


@wp.func
def __weft_transform_decompose(m: $M44):
    zero = $F(0.0)
    sx = wp.sqrt(m[0, 0] * m[0, 0] + m[1, 0] * m[1, 0] + m[2, 0] * m[2, 0])
    sy = wp.sqrt(m[0, 1] * m[0, 1] + m[1, 1] * m[1, 1] + m[2, 1] * m[2, 1])
    sz = wp.sqrt(m[0, 2] * m[0, 2] + m[1, 2] * m[1, 2] + m[2, 2] * m[2, 2])
    # A zero column keeps its (zero) entries.
    dx = wp.where(sx != zero, sx, $F(1.0))
    dy = wp.where(sy != zero, sy, $F(1.0))
    dz = wp.where(sz != zero, sz, $F(1.0))
    r = $M33(
        m[0, 0] / dx, m[0, 1] / dy, m[0, 2] / dz,
        m[1, 0] / dx, m[1, 1] / dy, m[1, 2] / dz,
        m[2, 0] / dx, m[2, 1] / dy, m[2, 2] / dz,
    )
    return $V3(m[0, 3], m[1, 3], m[2, 3]), wp.quat_from_matrix(r), $V3(sx, sy, sz)


# @float3264

# ---- spatial vectors (top = angular w, bottom = linear v)

@wp.func
def __weft_spatial_cross(a: $S, b: $S):
    aw = $V3(a[0], a[1], a[2])
    av = $V3(a[3], a[4], a[5])
    bw = $V3(b[0], b[1], b[2])
    bv = $V3(b[3], b[4], b[5])
    w = wp.cross(aw, bw)
    v = wp.cross(av, bw) + wp.cross(aw, bv)
    return $S(w[0], w[1], w[2], v[0], v[1], v[2])


@wp.func
def __weft_spatial_cross_dual(a: $S, b: $S):
    aw = $V3(a[0], a[1], a[2])
    av = $V3(a[3], a[4], a[5])
    bw = $V3(b[0], b[1], b[2])
    bv = $V3(b[3], b[4], b[5])
    w = wp.cross(aw, bw) + wp.cross(av, bv)
    v = wp.cross(aw, bv)
    return $S(w[0], w[1], w[2], v[0], v[1], v[2])


@wp.func
def __weft_velocity_at_point(qd: $S, r: $V3):
    return $V3(qd[3], qd[4], qd[5]) + wp.cross($V3(qd[0], qd[1], qd[2]), r)


# twist (w, v) into the frame of t: w' = R w, v' = R v + p x w'
@wp.func
def __weft_transform_twist(t: $T, x: $S):
    q = wp.transform_get_rotation(t)
    w = wp.quat_rotate(q, $V3(x[0], x[1], x[2]))
    v = wp.quat_rotate(q, $V3(x[3], x[4], x[5])) + wp.cross(wp.transform_get_translation(t), w)
    return $S(w[0], w[1], w[2], v[0], v[1], v[2])


# wrench (tau, f) into the frame of t: f' = R f, tau' = R tau + p x f'
@wp.func
def __weft_transform_wrench(t: $T, x: $S):
    q = wp.transform_get_rotation(t)
    f = wp.quat_rotate(q, $V3(x[3], x[4], x[5]))
    tau = wp.quat_rotate(q, $V3(x[0], x[1], x[2])) + wp.cross(wp.transform_get_translation(t), f)
    return $S(tau[0], tau[1], tau[2], f[0], f[1], f[2])


# @once

# ---- random numbers: Warp's PCG hash (rand.h), uint32 arithmetic

@wp.func
def __weft_pcg(state: wp.uint32):
    b = state * wp.uint32(747796405) + wp.uint32(2891336453)
    c = ((b >> ((b >> wp.uint32(28)) + wp.uint32(4))) ^ b) * wp.uint32(277803737)
    return (c >> wp.uint32(22)) ^ c


@wp.func
def __weft_rand_init(seed: wp.int32):
    return __weft_pcg(wp.uint32(seed))


@wp.func
def __weft_rand_init(seed: wp.int32, offset: wp.int32):
    return __weft_pcg(wp.uint32(seed) + __weft_pcg(wp.uint32(offset)))


# Draws return (value, new_state); the caller stores new_state back.
@wp.func
def __weft_randi(state: wp.uint32):
    s = __weft_pcg(state)
    return wp.int32(s), s


@wp.func
def __weft_randi(state: wp.uint32, lo: wp.int32, hi: wp.int32):
    s = __weft_pcg(state)
    return wp.int32(s % wp.uint32(hi - lo) + wp.uint32(lo)), s


@wp.func
def __weft_randu(state: wp.uint32):
    s = __weft_pcg(state)
    return s, s


@wp.func
def __weft_randu(state: wp.uint32, lo: wp.uint32, hi: wp.uint32):
    s = __weft_pcg(state)
    return s % (hi - lo) + lo, s


@wp.func
def __weft_randf(state: wp.uint32):
    s = __weft_pcg(state)
    return wp.float32(s >> wp.uint32(8)) * 5.9604644775390625e-08, s


@wp.func
def __weft_randf(state: wp.uint32, lo: wp.float32, hi: wp.float32):
    s = __weft_pcg(state)
    return (hi - lo) * (wp.float32(s >> wp.uint32(8)) * 5.9604644775390625e-08) + lo, s


@wp.func
def __weft_randn(state: wp.uint32):
    s1 = __weft_pcg(state)
    s2 = __weft_pcg(s1)
    u1 = wp.float32(s1 >> wp.uint32(8)) * 5.9604644775390625e-08
    u2 = wp.float32(s2 >> wp.uint32(8)) * 5.9604644775390625e-08
    return wp.sqrt(-2.0 * wp.log(u1 + 5.96e-08)) * wp.cos(6.2831855 * u2), s2


# uniform in [0, 1): the float of the state's top 24 bits
@wp.func
def __weft_unit(state: wp.uint32):
    return wp.float32(state >> wp.uint32(8)) * 5.9604644775390625e-08


@wp.func
def __weft_sample_triangle(state: wp.uint32):
    s1 = __weft_pcg(state)
    s2 = __weft_pcg(s1)
    r = wp.sqrt(__weft_unit(s1))
    u = 1.0 - r
    v = __weft_unit(s2) * r
    return wp.vec2(u, v), s2


@wp.func
def __weft_sample_unit_ring(state: wp.uint32):
    s1 = __weft_pcg(state)
    theta = 6.2831855 * __weft_unit(s1) + 0.0
    return wp.vec2(wp.cos(theta), wp.sin(theta)), s1


@wp.func
def __weft_sample_unit_disk(state: wp.uint32):
    s1 = __weft_pcg(state)
    s2 = __weft_pcg(s1)
    r = wp.sqrt(__weft_unit(s1))
    theta = 6.2831855 * __weft_unit(s2) + 0.0
    return wp.vec2(r * wp.cos(theta), r * wp.sin(theta)), s2


@wp.func
def __weft_sample_unit_sphere_surface(state: wp.uint32):
    s1 = __weft_pcg(state)
    s2 = __weft_pcg(s1)
    phi = wp.acos(1.0 - 2.0 * __weft_unit(s1))
    theta = 6.2831855 * __weft_unit(s2) + 0.0
    return wp.vec3(wp.cos(theta) * wp.sin(phi), wp.sin(theta) * wp.sin(phi), wp.cos(phi)), s2


@wp.func
def __weft_sample_unit_sphere(state: wp.uint32):
    s1 = __weft_pcg(state)
    s2 = __weft_pcg(s1)
    s3 = __weft_pcg(s2)
    phi = wp.acos(1.0 - 2.0 * __weft_unit(s1))
    theta = 6.2831855 * __weft_unit(s2) + 0.0
    r = wp.pow(__weft_unit(s3), 1.0 / 3.0)
    return wp.vec3(r * wp.cos(theta) * wp.sin(phi), r * wp.sin(theta) * wp.sin(phi), r * wp.cos(phi)), s3


@wp.func
def __weft_sample_unit_hemisphere_surface(state: wp.uint32):
    s1 = __weft_pcg(state)
    s2 = __weft_pcg(s1)
    phi = wp.acos(1.0 - __weft_unit(s1))
    theta = 6.2831855 * __weft_unit(s2) + 0.0
    return wp.vec3(wp.cos(theta) * wp.sin(phi), wp.sin(theta) * wp.sin(phi), wp.cos(phi)), s2


@wp.func
def __weft_sample_unit_hemisphere(state: wp.uint32):
    s1 = __weft_pcg(state)
    s2 = __weft_pcg(s1)
    s3 = __weft_pcg(s2)
    phi = wp.acos(1.0 - __weft_unit(s1))
    theta = 6.2831855 * __weft_unit(s2) + 0.0
    r = wp.pow(__weft_unit(s3), 1.0 / 3.0)
    return wp.vec3(r * wp.cos(theta) * wp.sin(phi), r * wp.sin(theta) * wp.sin(phi), r * wp.cos(phi)), s3


@wp.func
def __weft_sample_unit_square(state: wp.uint32):
    s1 = __weft_pcg(state)
    s2 = __weft_pcg(s1)
    return wp.vec2(__weft_unit(s1) - 0.5, __weft_unit(s2) - 0.5), s2


@wp.func
def __weft_sample_unit_cube(state: wp.uint32):
    s1 = __weft_pcg(state)
    s2 = __weft_pcg(s1)
    s3 = __weft_pcg(s2)
    return wp.vec3(__weft_unit(s1) - 0.5, __weft_unit(s2) - 0.5, __weft_unit(s3) - 0.5), s3


# ---- float32-only quaternion helpers (Warp's `warp/_src/math.py`)

@wp.func
def __weft_quat_twist(axis: wp.vec3, q: wp.quat):
    a = wp.dot(wp.vec3(q[0], q[1], q[2]), axis) * axis
    return wp.normalize(wp.quat(a[0], a[1], a[2], q[3]))


@wp.func
def __weft_quat_twist_angle(axis: wp.vec3, q: wp.quat):
    return 2.0 * wp.atan2(wp.abs(wp.dot(axis, wp.vec3(q[0], q[1], q[2]))), q[3])


@wp.func
def __weft_quat_twist_angle_signed(axis: wp.vec3, q: wp.quat):
    return 2.0 * wp.atan2(wp.dot(axis, wp.vec3(q[0], q[1], q[2])), q[3])


# The rotation of `angle` about axis `axis` (0, 1, 2) at half angle `h`.
@wp.func
def __weft_axis_quat(axis: int, h: float):
    s = wp.sin(h)
    c = wp.cos(h)
    return wp.quat(wp.where(axis == 0, s, 0.0), wp.where(axis == 1, s, 0.0), wp.where(axis == 2, s, 0.0), c)


# Extrinsic rotations about axes i, then j, then k: q_k * q_j * q_i.
@wp.func
def __weft_quat_from_euler(e: wp.vec3, i: int, j: int, k: int):
    qi = __weft_axis_quat(i, 0.5 * e[i])
    qj = __weft_axis_quat(j, 0.5 * e[j])
    qk = __weft_axis_quat(k, 0.5 * e[k])
    return wp.mul(qk, wp.mul(qj, qi))


# Component `n` (1-based; 0 is w) of q in (w, x, y, z) order.
@wp.func
def __weft_wxyz(q: wp.quat, n: int):
    return wp.where(n == 0, q[3], wp.where(n == 1, q[0], wp.where(n == 2, q[1], q[2])))


# The inverse of quat_from_euler for axes i, j, k (Tait-Bryan when i != k,
# proper Euler when i == k), by the half-angle formulation Warp uses: the
# angles go back by axis, and the third of a proper sequence into the slot
# of the axis not named.
@wp.func
def __weft_quat_to_euler(q: wp.quat, i0: int, j0: int, k0: int):
    i = i0 + 1
    j = j0 + 1
    k = k0 + 1
    tait = i != k
    if not tait:
        k = 6 - i - j
    e = float((i - j) * (j - k) * (k - i)) / 2.0
    a = __weft_wxyz(q, 0)
    b = __weft_wxyz(q, i)
    c = __weft_wxyz(q, j)
    d = __weft_wxyz(q, k) * e
    if tait:
        a -= __weft_wxyz(q, j)
        b += __weft_wxyz(q, k) * e
        c += __weft_wxyz(q, 0)
        d -= __weft_wxyz(q, i)
    t2 = wp.acos(2.0 * (a * a + b * b) / (a * a + b * b + c * c + d * d) - 1.0)
    tp = wp.atan2(b, a)
    tm = wp.atan2(d, c)
    t1 = 0.0
    t3 = 0.0
    if wp.abs(t2) < 1e-6:
        t3 = 2.0 * tp - t1
    elif wp.abs(t2 - wp.pi) < 1e-6:
        t3 = 2.0 * tm + t1
    else:
        t1 = tp - tm
        t3 = tp + tm
    if tait:
        t2 -= wp.HALF_PI
        t3 *= e
    ex = t1
    ey = t2
    ez = t3
    if i == 2:
        ex = t2
        ey = t1
    elif i == 3:
        ex = t3
        ez = t1
    if j == 1:
        ex = t2
    elif j == 2:
        ey = t2
    else:
        ez = t2
    if k == 1:
        ex = t3
    elif k == 2:
        ey = t3
    else:
        ez = t3
    return wp.vec3(ex, ey, ez)


# ---- vector norms (Warp's `warp/_src/math.py`: float32 only, as there)

@wp.func
def __weft_norm_huber(v: wp.vec2, delta: wp.float32):
    a = wp.dot(v, v)
    return wp.where(a <= delta * delta, wp.float32(0.5) * a, delta * (wp.sqrt(a) - wp.float32(0.5) * delta))


@wp.func
def __weft_norm_huber(v: wp.vec3, delta: wp.float32):
    a = wp.dot(v, v)
    return wp.where(a <= delta * delta, wp.float32(0.5) * a, delta * (wp.sqrt(a) - wp.float32(0.5) * delta))


@wp.func
def __weft_norm_huber(v: wp.vec4, delta: wp.float32):
    a = wp.dot(v, v)
    return wp.where(a <= delta * delta, wp.float32(0.5) * a, delta * (wp.sqrt(a) - wp.float32(0.5) * delta))


@wp.func
def __weft_norm_pseudo_huber(v: wp.vec2, delta: wp.float32):
    return delta * wp.sqrt(wp.float32(1.0) + wp.dot(v, v) / (delta * delta))


@wp.func
def __weft_norm_pseudo_huber(v: wp.vec3, delta: wp.float32):
    return delta * wp.sqrt(wp.float32(1.0) + wp.dot(v, v) / (delta * delta))


@wp.func
def __weft_norm_pseudo_huber(v: wp.vec4, delta: wp.float32):
    return delta * wp.sqrt(wp.float32(1.0) + wp.dot(v, v) / (delta * delta))


@wp.func
def __weft_smooth_normalize(v: wp.vec2, delta: wp.float32):
    return v / __weft_norm_pseudo_huber(v, delta)


@wp.func
def __weft_smooth_normalize(v: wp.vec3, delta: wp.float32):
    return v / __weft_norm_pseudo_huber(v, delta)


@wp.func
def __weft_smooth_normalize(v: wp.vec4, delta: wp.float32):
    return v / __weft_norm_pseudo_huber(v, delta)


# ---- Poisson draws and sampling a CDF (rand.h)

@wp.func
def __weft_sample_cdf(state: wp.uint32, cdf: wp.array(dtype=wp.float32)):
    u, s = __weft_randf(state)
    return __weft_lower_bound(cdf, 0, cdf.shape[0], u), s


# log(Gamma(x)) (NumPy's series, float32 as in Warp).
@wp.func
def __weft_loggam(x: wp.float32):
    if x == 1.0 or x == 2.0:
        return 0.0
    n = int(0)
    if x < 7.0:
        n = int(7.0 - x)
    x0 = x + float(n)
    x2 = (1.0 / x0) * (1.0 / x0)
    g = -1.39243221690590e+00
    g = g * x2 + 1.796443723688307e-01
    g = g * x2 + -2.955065359477124e-02
    g = g * x2 + 6.410256410256410e-03
    g = g * x2 + -1.917526917526918e-03
    g = g * x2 + 8.417508417508418e-04
    g = g * x2 + -5.952380952380952e-04
    g = g * x2 + 7.936507936507937e-04
    g = g * x2 + -2.777777777777778e-03
    g = g * x2 + 8.333333333333333e-02
    gl = g / x0 + 0.5 * 1.8378770664093453 + (x0 - 0.5) * wp.log(x0) - x0
    for _k in range(n):
        gl -= wp.log(x0 - 1.0)
        x0 -= 1.0
    return gl


# lam < 10: multiply uniforms until the product drops to exp(-lam).
@wp.func
def __weft_poisson_mult(state: wp.uint32, lam: wp.float32):
    s = state
    enlam = wp.exp(-lam)
    x = wp.uint32(0)
    prod = float(1.0)
    while True:
        u, s = __weft_randf(s)
        prod *= u
        if prod > enlam:
            x += wp.uint32(1)
        else:
            break
    return x, s


# lam >= 10: Hoermann's transformed rejection (PTRS).
@wp.func
def __weft_poisson_ptrs(state: wp.uint32, lam: wp.float32):
    s = state
    slam = wp.sqrt(lam)
    loglam = wp.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    k = float(0.0)
    while True:
        u, s = __weft_randf(s)
        u = u - 0.5
        v, s = __weft_randf(s)
        us = 0.5 - wp.abs(u)
        k = wp.floor((2.0 * a / us + b) * u + lam + 0.43)
        if us >= 0.07 and v <= vr:
            break
        if k < 0.0 or (us < 0.013 and v > us):
            continue
        if wp.log(v) + wp.log(invalpha) - wp.log(a / (us * us) + b) <= -lam + k * loglam - __weft_loggam(k + 1.0):
            break
    return wp.uint32(k), s


@wp.func
def __weft_poisson(state: wp.uint32, lam: wp.float32):
    if lam >= 10.0:
        return __weft_poisson_ptrs(state, lam)
    if lam == 0.0:
        return wp.uint32(0), state
    return __weft_poisson_mult(state, lam)


# @scalar

# The first index of arr[lo:hi] whose value is not below `value` (hi - 1
# when none is), by binary search (array.h's lower_bound).
@wp.func
def __weft_lower_bound(arr: wp.array(dtype=$F), lo: int, hi: int, value: $F):
    lower = lo
    upper = hi - 1
    while lower < upper:
        mid = lower + (upper - lower) / 2
        if arr[mid] < value:
            lower = mid + 1
        else:
            upper = mid
    return lower


@wp.func
def __weft_lower_bound(arr: wp.array(dtype=$F), value: $F):
    return __weft_lower_bound(arr, 0, arr.shape[0], value)
