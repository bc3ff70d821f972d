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
#   transform, $S the spatial vector and $SM the 6x6 matrix of that scalar type.
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

# @float

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


# @float3264


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


# ---- erfcinv (crt.h): erfinv(1 - x) in double, rounded to float32 for the
# 16- and 32-bit types (Warp calls erfcinvf on them)

@wp.func
def __weft_erfcinv(x: wp.float16):
    return wp.float16(wp.float32(wp.erfinv(wp.float64(1.0) - wp.float64(x))))


@wp.func
def __weft_erfcinv(x: wp.bfloat16):
    return wp.bfloat16(wp.float32(wp.erfinv(wp.float64(1.0) - wp.float64(x))))


@wp.func
def __weft_erfcinv(x: wp.float32):
    return wp.float32(wp.erfinv(wp.float64(1.0) - wp.float64(x)))


@wp.func
def __weft_erfcinv(x: wp.float64):
    return wp.erfinv(wp.float64(1.0) - x)


# 6x6 matrices ($SM), which Warp names `wp.spatial_matrix` (float32 and
# float64 only); defined here, after the funcs whose prelude lines the
# snapshots name.
__weft_mat66h = wp.types.matrix(shape=(6, 6), dtype=wp.float16)
__weft_mat66 = wp.types.matrix(shape=(6, 6), dtype=wp.float32)
__weft_mat66d = wp.types.matrix(shape=(6, 6), dtype=wp.float64)
__weft_mat66bf = wp.types.matrix(shape=(6, 6), dtype=wp.bfloat16)


# @float

# spatial.h: [[r, 0], [s, r]]
@wp.func
def __weft_spatial_adjoint(r: $M33, s: $M33):
    m = $SM()
    for i in range(3):
        for j in range(3):
            m[i, j] = r[i, j]
            m[i + 3, j + 3] = r[i, j]
            m[i + 3, j] = s[i, j]
    return m


# @once

# ---- dense matrices in flat float32 arrays (matnn.h), row-major; they
# index the arrays' data without strides, as Warp does

@wp.func
def __weft_dense_gemm(m: wp.int32, n: wp.int32, p: wp.int32, t1: wp.int32, t2: wp.int32, a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float32), c: wp.array(dtype=wp.float32)):
    if (t1 == 0 or t1 == 1) and (t2 == 0 or t2 == 1):
        for i in range(m):
            for j in range(n):
                s = wp.float32(0.0)
                for k in range(p):
                    ia = i * p + k
                    if t1 == 1:
                        ia = k * m + i
                    ib = k * n + j
                    if t2 == 1:
                        ib = j * p + k
                    s = s + a[ia] * b[ib]
                c[i * n + j] = s


@wp.func
def __weft_dense_chol(n: wp.int32, a: wp.array(dtype=wp.float32), regularization: wp.float32, l: wp.array(dtype=wp.float32)):
    for j in range(n):
        s = a[j * n + j] + regularization
        for k in range(j):
            r = l[j * n + k]
            s = s - r * r
        s = wp.sqrt(s)
        inv_s = wp.float32(1.0) / s
        l[j * n + j] = s
        for i in range(j + 1, n):
            t = a[i * n + j]
            for k in range(j):
                t = t - l[i * n + k] * l[j * n + k]
            l[i * n + j] = t * inv_s


@wp.func
def __weft_dense_subs(n: wp.int32, l: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float32), x: wp.array(dtype=wp.float32)):
    for i in range(n):
        s = b[i]
        for j in range(i):
            s = s - l[i * n + j] * x[j]
        x[i] = s / l[i * n + i]
    for ii in range(n):
        i = n - 1 - ii
        s = x[i]
        for j in range(i + 1, n):
            s = s - l[j * n + i] * x[j]
        x[i] = s / l[i * n + i]


@wp.func
def __weft_dense_solve(n: wp.int32, a: wp.array(dtype=wp.float32), l: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float32), x: wp.array(dtype=wp.float32)):
    __weft_dense_subs(n, l, b, x)


# ---- svd3, svd2, qr3, eig3 (svd.h): Jacobi iterations with approximate
# Givens rotations (McAdams et al.), operation for operation. Warp's
# constants per type: the QR epsilon and the number of Jacobi sweeps.

# @once

@wp.func
def __weft_svd_eps(x: wp.float16):
    return wp.float16(wp.float32(1.0e-6))


@wp.func
def __weft_svd_eps(x: wp.bfloat16):
    return wp.bfloat16(wp.float32(1.0e-6))


@wp.func
def __weft_svd_eps(x: wp.float32):
    return wp.float32(1.0e-6)


@wp.func
def __weft_svd_eps(x: wp.float64):
    return wp.float64(1.0e-12)


@wp.func
def __weft_jacobi_sweeps(x: wp.float16):
    return 4


@wp.func
def __weft_jacobi_sweeps(x: wp.bfloat16):
    return 4


@wp.func
def __weft_jacobi_sweeps(x: wp.float32):
    return 4


@wp.func
def __weft_jacobi_sweeps(x: wp.float64):
    return 8


# @float

# approximateGivensQuaternion: (ch, sh)
@wp.func
def __weft_givens_approx(a11: $F, a12: $F, a22: $F):
    ch = $F(2.0) * (a11 - a22)
    sh = a12
    b = $F(5.82842712474619) * sh * sh < ch * ch
    w = $F(1.0) / wp.sqrt(ch * ch + sh * sh)
    return wp.where(b, w * ch, $F(0.9238795325112867)), wp.where(b, w * sh, $F(0.3826834323650898))


# jacobiConjugation on (p, q) = (x, y): the rotated symmetric matrix, its
# entries cycled as Warp does, and the accumulated quaternion (x, y, z, w)
@wp.func
def __weft_jacobi_conj(x: int, y: int, z: int, s11: $F, s21: $F, s22: $F, s31: $F, s32: $F, s33: $F, qv: $V4):
    gs = __weft_givens_approx(s11, s21, s22)
    ch = gs[0]
    sh = gs[1]
    scale = ch * ch + sh * sh
    a = (ch * ch - sh * sh) / scale
    b = ($F(2.0) * sh * ch) / scale
    t11 = a * (a * s11 + b * s21) + b * (a * s21 + b * s22)
    t21 = a * (-b * s11 + a * s21) + b * (-b * s21 + a * s22)
    t22 = -b * (-b * s11 + a * s21) + a * (-b * s21 + a * s22)
    t31 = a * s31 + b * s32
    t32 = -b * s31 + a * s32
    tmp = $V3(qv[0] * sh, qv[1] * sh, qv[2] * sh)
    shw = sh * qv[3]
    q = $V4(qv[0] * ch, qv[1] * ch, qv[2] * ch, qv[3] * ch)
    q[z] = q[z] + shw
    q[3] = q[3] - tmp[z]
    q[x] = q[x] + tmp[y]
    q[y] = q[y] - tmp[x]
    return t22, t32, s33, t21, t31, t11, q


# jacobiEigenanlysis of the symmetric (s11; s21 s22; s31 s32 s33)
@wp.func
def __weft_jacobi_eigen(s11: $F, s21: $F, s22: $F, s31: $F, s32: $F, s33: $F):
    q = $V4($F(0.0), $F(0.0), $F(0.0), $F(1.0))
    a11 = s11
    a21 = s21
    a22 = s22
    a31 = s31
    a32 = s32
    a33 = s33
    for it in range(__weft_jacobi_sweeps(s11)):
        a11, a21, a22, a31, a32, a33, q = __weft_jacobi_conj(0, 1, 2, a11, a21, a22, a31, a32, a33, q)
        a11, a21, a22, a31, a32, a33, q = __weft_jacobi_conj(1, 2, 0, a11, a21, a22, a31, a32, a33, q)
        a11, a21, a22, a31, a32, a33, q = __weft_jacobi_conj(2, 0, 1, a11, a21, a22, a31, a32, a33, q)
    return q


# quatToMat3 of (x, y, z, w)
@wp.func
def __weft_svd_quat_mat(q: $V4):
    w = q[3]
    x = q[0]
    y = q[1]
    z = q[2]
    qxx = x * x
    qyy = y * y
    qzz = z * z
    qxz = x * z
    qxy = x * y
    qyz = y * z
    qwx = w * x
    qwy = w * y
    qwz = w * z
    one = $F(1.0)
    two = $F(2.0)
    return $M33(
        one - two * (qyy + qzz), two * (qxy - qwz), two * (qxz + qwy),
        two * (qxy + qwz), one - two * (qxx + qzz), two * (qyz - qwx),
        two * (qxz - qwy), two * (qyz + qwx), one - two * (qxx + qyy),
    )


# multAB and multAtB: sums in the order of svd.h
@wp.func
def __weft_svd_mul(a: $M33, b: $M33):
    m = $M33()
    for i in range(3):
        for j in range(3):
            m[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j]
    return m


@wp.func
def __weft_svd_mul_t(a: $M33, b: $M33):
    m = $M33()
    for i in range(3):
        for j in range(3):
            m[i, j] = a[0, i] * b[0, j] + a[1, i] * b[1, j] + a[2, i] * b[2, j]
    return m


# condNegSwap of columns i and j: (col i, col j) <- (col j, -col i)
@wp.func
def __weft_svd_neg_swap(c: bool, m: $M33, i: int, j: int):
    r = m
    for k in range(3):
        z = -m[k, i]
        r[k, i] = wp.where(c, m[k, j], m[k, i])
        r[k, j] = wp.where(c, z, m[k, j])
    return r


# QRGivensQuaternion: (ch, sh)
@wp.func
def __weft_qr_givens(a1: $F, a2: $F):
    eps = __weft_svd_eps(a1)
    rho = wp.sqrt(a1 * a1 + a2 * a2)
    sh = wp.where(rho > eps, a2, $F(0.0))
    ch = wp.abs(a1) + wp.max(rho, eps)
    b = a1 < $F(0.0)
    sh2 = wp.where(b, ch, sh)
    ch2 = wp.where(b, sh, ch)
    w = $F(1.0) / wp.sqrt(ch2 * ch2 + sh2 * sh2)
    return ch2 * w, sh2 * w


# QRDecomposition: (Q, R)
@wp.func
def __weft_qr(bm: $M33):
    b11 = bm[0, 0]
    b12 = bm[0, 1]
    b13 = bm[0, 2]
    b21 = bm[1, 0]
    b22 = bm[1, 1]
    b23 = bm[1, 2]
    b31 = bm[2, 0]
    b32 = bm[2, 1]
    b33 = bm[2, 2]
    one = $F(1.0)
    two = $F(2.0)
    g1 = __weft_qr_givens(b11, b21)
    ch1 = g1[0]
    sh1 = g1[1]
    a = one - two * sh1 * sh1
    b = two * ch1 * sh1
    r11 = a * b11 + b * b21
    r12 = a * b12 + b * b22
    r13 = a * b13 + b * b23
    r21 = -b * b11 + a * b21
    r22 = -b * b12 + a * b22
    r23 = -b * b13 + a * b23
    r31 = b31
    r32 = b32
    r33 = b33
    g2 = __weft_qr_givens(r11, r31)
    ch2 = g2[0]
    sh2 = g2[1]
    a = one - two * sh2 * sh2
    b = two * ch2 * sh2
    b11 = a * r11 + b * r31
    b12 = a * r12 + b * r32
    b13 = a * r13 + b * r33
    b21 = r21
    b22 = r22
    b23 = r23
    b31 = -b * r11 + a * r31
    b32 = -b * r12 + a * r32
    b33 = -b * r13 + a * r33
    g3 = __weft_qr_givens(b22, b32)
    ch3 = g3[0]
    sh3 = g3[1]
    a = one - two * sh3 * sh3
    b = two * ch3 * sh3
    r11 = b11
    r12 = b12
    r13 = b13
    r21 = a * b21 + b * b31
    r22 = a * b22 + b * b32
    r23 = a * b23 + b * b33
    r31 = -b * b21 + a * b31
    r32 = -b * b22 + a * b32
    r33 = -b * b23 + a * b33
    sh12 = sh1 * sh1
    sh22 = sh2 * sh2
    sh32 = sh3 * sh3
    m1 = $F(-1.0)
    four = $F(4.0)
    q11 = (m1 + two * sh12) * (m1 + two * sh22)
    q12 = four * ch2 * ch3 * (m1 + two * sh12) * sh2 * sh3 + two * ch1 * sh1 * (m1 + two * sh32)
    q13 = four * ch1 * ch3 * sh1 * sh3 - two * ch2 * (m1 + two * sh12) * sh2 * (m1 + two * sh32)
    q21 = two * ch1 * sh1 * (one - two * sh22)
    q22 = $F(-8.0) * ch1 * ch2 * ch3 * sh1 * sh2 * sh3 + (m1 + two * sh12) * (m1 + two * sh32)
    q23 = $F(-2.0) * ch3 * sh3 + four * sh1 * (ch3 * sh1 * sh3 + ch1 * ch2 * sh2 * (m1 + two * sh32))
    q31 = two * ch2 * sh2
    q32 = two * ch3 * (one - two * sh22) * sh3
    q33 = (m1 + two * sh22) * (m1 + two * sh32)
    return $M33(q11, q12, q13, q21, q22, q23, q31, q32, q33), $M33(r11, r12, r13, r21, r22, r23, r31, r32, r33)


@wp.func
def __weft_qr3(a: $M33):
    return __weft_qr(a)


@wp.func
def __weft_svd3(a: $M33):
    ata = __weft_svd_mul_t(a, a)
    q = __weft_jacobi_eigen(ata[0, 0], ata[1, 0], ata[1, 1], ata[2, 0], ata[2, 1], ata[2, 2])
    v = __weft_svd_quat_mat(q)
    b = __weft_svd_mul(a, v)
    # sortSingularValues
    rho1 = b[0, 0] * b[0, 0] + b[1, 0] * b[1, 0] + b[2, 0] * b[2, 0]
    rho2 = b[0, 1] * b[0, 1] + b[1, 1] * b[1, 1] + b[2, 1] * b[2, 1]
    rho3 = b[0, 2] * b[0, 2] + b[1, 2] * b[1, 2] + b[2, 2] * b[2, 2]
    c = rho1 < rho2
    b = __weft_svd_neg_swap(c, b, 0, 1)
    v = __weft_svd_neg_swap(c, v, 0, 1)
    t = rho1
    rho1 = wp.where(c, rho2, rho1)
    rho2 = wp.where(c, t, rho2)
    c = rho1 < rho3
    b = __weft_svd_neg_swap(c, b, 0, 2)
    v = __weft_svd_neg_swap(c, v, 0, 2)
    t = rho1
    rho1 = wp.where(c, rho3, rho1)
    rho3 = wp.where(c, t, rho3)
    c = rho2 < rho3
    b = __weft_svd_neg_swap(c, b, 1, 2)
    v = __weft_svd_neg_swap(c, v, 1, 2)
    qr = __weft_qr(b)
    r = qr[1]
    return qr[0], $V3(r[0, 0], r[1, 1], r[2, 2]), v


@wp.func
def __weft_eig3(a: $M33):
    qv = __weft_jacobi_eigen(a[0, 0], a[1, 0], a[1, 1], a[2, 0], a[2, 1], a[2, 2])
    q = __weft_svd_quat_mat(qv)
    t = __weft_svd_mul_t(q, a)
    u = __weft_svd_mul(t, q)
    return q, $V3(u[0, 0], u[1, 1], u[2, 2])


# _svd_2
@wp.func
def __weft_svd2(a: $M22):
    a11 = a[0, 0]
    a12 = a[0, 1]
    a21 = a[1, 0]
    a22 = a[1, 1]
    ata11 = a11 * a11 + a21 * a21
    ata12 = a11 * a12 + a21 * a22
    ata22 = a12 * a12 + a22 * a22
    trace = ata11 + ata22
    diff = ata11 - ata22
    disc = diff * diff + $F(4.0) * ata12 * ata12
    if disc == $F(0.0):
        s = wp.sqrt($F(0.5) * trace)
        i = $M22($F(1.0), $F(0.0), $F(0.0), $F(1.0))
        return i, $V2(s, s), i
    sqrt_term = wp.sqrt(disc)
    lambda1 = (trace + sqrt_term) * $F(0.5)
    lambda2 = (trace - sqrt_term) * $F(0.5)
    inv_sigma1 = $F(1.0) / wp.sqrt(lambda1)
    sigma1 = $F(1.0) / inv_sigma1
    sigma2 = wp.sqrt(lambda2)
    v1y = diff - sqrt_term + $F(2.0) * ata12
    v1x = diff + sqrt_term - $F(2.0) * ata12
    len1_sq = v1x * v1x + v1y * v1y
    v11 = $F(0.707106781186547524401)
    v21 = v11
    if len1_sq != $F(0.0):
        inv_len1 = $F(1.0) / wp.sqrt(len1_sq)
        v11 = v1x * inv_len1
        v21 = v1y * inv_len1
    u11 = (a11 * v11 + a12 * v21) * inv_sigma1
    u21 = (a21 * v11 + a22 * v21) * inv_sigma1
    det_sign = wp.sign(a11 * a22 - a12 * a21)
    return $M22(u11, -u21 * det_sign, u21, u11 * det_sign), $V2(sigma1, sigma2), $M22(v11, -v21, v21, v11)


# @once

# ---- Perlin noise (noise.h), float32: noise, pnoise, curlnoise. Corner
# gradients come from the PCG generator seeded by a hash of the cell.

@wp.func
def __weft_smootherstep(t: wp.float32):
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


@wp.func
def __weft_smootherstep_gradient(t: wp.float32):
    return 30.0 * t * t * (t * (t - 2.0) + 1.0)


@wp.func
def __weft_interpolate(a0: wp.float32, a1: wp.float32, t: wp.float32):
    return (a1 - a0) * __weft_smootherstep(t) + a0


@wp.func
def __weft_interpolate_gradient(a0: wp.float32, a1: wp.float32, t: wp.float32, d_a0: wp.vec2, d_a1: wp.vec2, d_t: wp.vec2):
    return (d_a1 - d_a0) * __weft_smootherstep(t) + (a1 - a0) * __weft_smootherstep_gradient(t) * d_t + d_a0


@wp.func
def __weft_interpolate_gradient(a0: wp.float32, a1: wp.float32, t: wp.float32, d_a0: wp.vec3, d_a1: wp.vec3, d_t: wp.vec3):
    return (d_a1 - d_a0) * __weft_smootherstep(t) + (a1 - a0) * __weft_smootherstep_gradient(t) * d_t + d_a0


@wp.func
def __weft_interpolate_gradient(a0: wp.float32, a1: wp.float32, t: wp.float32, d_a0: wp.vec4, d_a1: wp.vec4, d_t: wp.vec4):
    return (d_a1 - d_a0) * __weft_smootherstep(t) + (a1 - a0) * __weft_smootherstep_gradient(t) * d_t + d_a0


# the cell hash: C's `ix * p1 ^ iy * p2 ^ ... + state` (+ binds tighter than ^)
@wp.func
def __weft_random_gradient(state: wp.uint32, ix: wp.int32):
    idx = wp.uint32(ix) * wp.uint32(73856093) + state
    return wp.randf(idx, -1.0, 1.0)


@wp.func
def __weft_random_gradient(state: wp.uint32, ix: wp.int32, iy: wp.int32):
    idx = (wp.uint32(ix) * wp.uint32(73856093)) ^ (wp.uint32(iy) * wp.uint32(19349663) + state)
    return wp.normalize(wp.sample_unit_square(idx))


@wp.func
def __weft_random_gradient(state: wp.uint32, ix: wp.int32, iy: wp.int32, iz: wp.int32):
    idx = (wp.uint32(ix) * wp.uint32(73856093)) ^ (wp.uint32(iy) * wp.uint32(19349663)) ^ (wp.uint32(iz) * wp.uint32(53471161) + state)
    return wp.normalize(wp.sample_unit_cube(idx))


@wp.func
def __weft_random_gradient(state: wp.uint32, ix: wp.int32, iy: wp.int32, iz: wp.int32, it: wp.int32):
    idx = (wp.uint32(ix) * wp.uint32(73856093)) ^ (wp.uint32(iy) * wp.uint32(19349663)) ^ (wp.uint32(iz) * wp.uint32(53471161)) ^ (wp.uint32(it) * wp.uint32(10000019) + state)
    a = wp.randf(idx) - 0.5
    b = wp.randf(idx) - 0.5
    c = wp.randf(idx) - 0.5
    d = wp.randf(idx) - 0.5
    return wp.normalize(wp.vec4(a, b, c, d))


@wp.func
def __weft_noise_1d(state: wp.uint32, x0: wp.int32, x1: wp.int32, dx: wp.float32):
    v0 = dx * __weft_random_gradient(state, x0)
    v1 = (dx - 1.0) * __weft_random_gradient(state, x1)
    return __weft_interpolate(v0, v1, dx)


@wp.func
def __weft_dot_grid(state: wp.uint32, ix: wp.int32, iy: wp.int32, dx: wp.float32, dy: wp.float32):
    g = __weft_random_gradient(state, ix, iy)
    return dx * g[0] + dy * g[1]


@wp.func
def __weft_dot_grid(state: wp.uint32, ix: wp.int32, iy: wp.int32, iz: wp.int32, dx: wp.float32, dy: wp.float32, dz: wp.float32):
    g = __weft_random_gradient(state, ix, iy, iz)
    return dx * g[0] + dy * g[1] + dz * g[2]


@wp.func
def __weft_dot_grid(state: wp.uint32, ix: wp.int32, iy: wp.int32, iz: wp.int32, it: wp.int32, dx: wp.float32, dy: wp.float32, dz: wp.float32, dt: wp.float32):
    g = __weft_random_gradient(state, ix, iy, iz, it)
    return dx * g[0] + dy * g[1] + dz * g[2] + dt * g[3]


@wp.func
def __weft_noise_2d(state: wp.uint32, x0: wp.int32, y0: wp.int32, x1: wp.int32, y1: wp.int32, dx: wp.float32, dy: wp.float32):
    v00 = __weft_dot_grid(state, x0, y0, dx, dy)
    v10 = __weft_dot_grid(state, x1, y0, dx - 1.0, dy)
    xi0 = __weft_interpolate(v00, v10, dx)
    v01 = __weft_dot_grid(state, x0, y1, dx, dy - 1.0)
    v11 = __weft_dot_grid(state, x1, y1, dx - 1.0, dy - 1.0)
    xi1 = __weft_interpolate(v01, v11, dx)
    return __weft_interpolate(xi0, xi1, dy)


@wp.func
def __weft_noise_3d(state: wp.uint32, x0: wp.int32, y0: wp.int32, z0: wp.int32, x1: wp.int32, y1: wp.int32, z1: wp.int32, dx: wp.float32, dy: wp.float32, dz: wp.float32):
    v000 = __weft_dot_grid(state, x0, y0, z0, dx, dy, dz)
    v100 = __weft_dot_grid(state, x1, y0, z0, dx - 1.0, dy, dz)
    xi00 = __weft_interpolate(v000, v100, dx)
    v010 = __weft_dot_grid(state, x0, y1, z0, dx, dy - 1.0, dz)
    v110 = __weft_dot_grid(state, x1, y1, z0, dx - 1.0, dy - 1.0, dz)
    xi10 = __weft_interpolate(v010, v110, dx)
    yi0 = __weft_interpolate(xi00, xi10, dy)
    v001 = __weft_dot_grid(state, x0, y0, z1, dx, dy, dz - 1.0)
    v101 = __weft_dot_grid(state, x1, y0, z1, dx - 1.0, dy, dz - 1.0)
    xi01 = __weft_interpolate(v001, v101, dx)
    v011 = __weft_dot_grid(state, x0, y1, z1, dx, dy - 1.0, dz - 1.0)
    v111 = __weft_dot_grid(state, x1, y1, z1, dx - 1.0, dy - 1.0, dz - 1.0)
    xi11 = __weft_interpolate(v011, v111, dx)
    yi1 = __weft_interpolate(xi01, xi11, dy)
    zi = __weft_interpolate(yi0, yi1, dz)
    return zi


@wp.func
def __weft_noise_4d(state: wp.uint32, x0: wp.int32, y0: wp.int32, z0: wp.int32, t0: wp.int32, x1: wp.int32, y1: wp.int32, z1: wp.int32, t1: wp.int32, dx: wp.float32, dy: wp.float32, dz: wp.float32, dt: wp.float32):
    v0000 = __weft_dot_grid(state, x0, y0, z0, t0, dx, dy, dz, dt)
    v1000 = __weft_dot_grid(state, x1, y0, z0, t0, dx - 1.0, dy, dz, dt)
    xi000 = __weft_interpolate(v0000, v1000, dx)
    v0100 = __weft_dot_grid(state, x0, y1, z0, t0, dx, dy - 1.0, dz, dt)
    v1100 = __weft_dot_grid(state, x1, y1, z0, t0, dx - 1.0, dy - 1.0, dz, dt)
    xi100 = __weft_interpolate(v0100, v1100, dx)
    yi00 = __weft_interpolate(xi000, xi100, dy)
    v0010 = __weft_dot_grid(state, x0, y0, z1, t0, dx, dy, dz - 1.0, dt)
    v1010 = __weft_dot_grid(state, x1, y0, z1, t0, dx - 1.0, dy, dz - 1.0, dt)
    xi010 = __weft_interpolate(v0010, v1010, dx)
    v0110 = __weft_dot_grid(state, x0, y1, z1, t0, dx, dy - 1.0, dz - 1.0, dt)
    v1110 = __weft_dot_grid(state, x1, y1, z1, t0, dx - 1.0, dy - 1.0, dz - 1.0, dt)
    xi110 = __weft_interpolate(v0110, v1110, dx)
    yi10 = __weft_interpolate(xi010, xi110, dy)
    zi0 = __weft_interpolate(yi00, yi10, dz)
    v0001 = __weft_dot_grid(state, x0, y0, z0, t1, dx, dy, dz, dt - 1.0)
    v1001 = __weft_dot_grid(state, x1, y0, z0, t1, dx - 1.0, dy, dz, dt - 1.0)
    xi001 = __weft_interpolate(v0001, v1001, dx)
    v0101 = __weft_dot_grid(state, x0, y1, z0, t1, dx, dy - 1.0, dz, dt - 1.0)
    v1101 = __weft_dot_grid(state, x1, y1, z0, t1, dx - 1.0, dy - 1.0, dz, dt - 1.0)
    xi101 = __weft_interpolate(v0101, v1101, dx)
    yi01 = __weft_interpolate(xi001, xi101, dy)
    v0011 = __weft_dot_grid(state, x0, y0, z1, t1, dx, dy, dz - 1.0, dt - 1.0)
    v1011 = __weft_dot_grid(state, x1, y0, z1, t1, dx - 1.0, dy, dz - 1.0, dt - 1.0)
    xi011 = __weft_interpolate(v0011, v1011, dx)
    v0111 = __weft_dot_grid(state, x0, y1, z1, t1, dx, dy - 1.0, dz - 1.0, dt - 1.0)
    v1111 = __weft_dot_grid(state, x1, y1, z1, t1, dx - 1.0, dy - 1.0, dz - 1.0, dt - 1.0)
    xi111 = __weft_interpolate(v0111, v1111, dx)
    yi11 = __weft_interpolate(xi011, xi111, dy)
    zi1 = __weft_interpolate(yi01, yi11, dz)
    ti = __weft_interpolate(zi0, zi1, dt)
    return ti


@wp.func
def __weft_noise_2d_gradient(state: wp.uint32, x0: wp.int32, y0: wp.int32, x1: wp.int32, y1: wp.int32, dx: wp.float32, dy: wp.float32):
    g00 = __weft_random_gradient(state, x0, y0)
    v00 = wp.dot(wp.vec2(dx, dy), g00)
    g10 = __weft_random_gradient(state, x1, y0)
    v10 = wp.dot(wp.vec2(dx - 1.0, dy), g10)
    g01 = __weft_random_gradient(state, x0, y1)
    v01 = wp.dot(wp.vec2(dx, dy - 1.0), g01)
    g11 = __weft_random_gradient(state, x1, y1)
    v11 = wp.dot(wp.vec2(dx - 1.0, dy - 1.0), g11)
    e0 = wp.vec2(1.0, 0.0)
    xi0 = __weft_interpolate(v00, v10, dx)
    gxi0 = __weft_interpolate_gradient(v00, v10, dx, g00, g10, e0)
    xi1 = __weft_interpolate(v01, v11, dx)
    gxi1 = __weft_interpolate_gradient(v01, v11, dx, g01, g11, e0)
    e1 = wp.vec2(0.0, 1.0)
    yi = __weft_interpolate(xi0, xi1, dy)
    gyi = __weft_interpolate_gradient(xi0, xi1, dy, gxi0, gxi1, e1)
    return gyi


@wp.func
def __weft_noise_3d_gradient(state: wp.uint32, x0: wp.int32, y0: wp.int32, z0: wp.int32, x1: wp.int32, y1: wp.int32, z1: wp.int32, dx: wp.float32, dy: wp.float32, dz: wp.float32):
    g000 = __weft_random_gradient(state, x0, y0, z0)
    v000 = wp.dot(wp.vec3(dx, dy, dz), g000)
    g100 = __weft_random_gradient(state, x1, y0, z0)
    v100 = wp.dot(wp.vec3(dx - 1.0, dy, dz), g100)
    g010 = __weft_random_gradient(state, x0, y1, z0)
    v010 = wp.dot(wp.vec3(dx, dy - 1.0, dz), g010)
    g110 = __weft_random_gradient(state, x1, y1, z0)
    v110 = wp.dot(wp.vec3(dx - 1.0, dy - 1.0, dz), g110)
    g001 = __weft_random_gradient(state, x0, y0, z1)
    v001 = wp.dot(wp.vec3(dx, dy, dz - 1.0), g001)
    g101 = __weft_random_gradient(state, x1, y0, z1)
    v101 = wp.dot(wp.vec3(dx - 1.0, dy, dz - 1.0), g101)
    g011 = __weft_random_gradient(state, x0, y1, z1)
    v011 = wp.dot(wp.vec3(dx, dy - 1.0, dz - 1.0), g011)
    g111 = __weft_random_gradient(state, x1, y1, z1)
    v111 = wp.dot(wp.vec3(dx - 1.0, dy - 1.0, dz - 1.0), g111)
    e0 = wp.vec3(1.0, 0.0, 0.0)
    xi00 = __weft_interpolate(v000, v100, dx)
    gxi00 = __weft_interpolate_gradient(v000, v100, dx, g000, g100, e0)
    xi10 = __weft_interpolate(v010, v110, dx)
    gxi10 = __weft_interpolate_gradient(v010, v110, dx, g010, g110, e0)
    xi01 = __weft_interpolate(v001, v101, dx)
    gxi01 = __weft_interpolate_gradient(v001, v101, dx, g001, g101, e0)
    xi11 = __weft_interpolate(v011, v111, dx)
    gxi11 = __weft_interpolate_gradient(v011, v111, dx, g011, g111, e0)
    e1 = wp.vec3(0.0, 1.0, 0.0)
    yi0 = __weft_interpolate(xi00, xi10, dy)
    gyi0 = __weft_interpolate_gradient(xi00, xi10, dy, gxi00, gxi10, e1)
    yi1 = __weft_interpolate(xi01, xi11, dy)
    gyi1 = __weft_interpolate_gradient(xi01, xi11, dy, gxi01, gxi11, e1)
    e2 = wp.vec3(0.0, 0.0, 1.0)
    zi = __weft_interpolate(yi0, yi1, dz)
    gzi = __weft_interpolate_gradient(yi0, yi1, dz, gyi0, gyi1, e2)
    return gzi


@wp.func
def __weft_noise_4d_gradient(state: wp.uint32, x0: wp.int32, y0: wp.int32, z0: wp.int32, t0: wp.int32, x1: wp.int32, y1: wp.int32, z1: wp.int32, t1: wp.int32, dx: wp.float32, dy: wp.float32, dz: wp.float32, dt: wp.float32):
    g0000 = __weft_random_gradient(state, x0, y0, z0, t0)
    v0000 = wp.dot(wp.vec4(dx, dy, dz, dt), g0000)
    g1000 = __weft_random_gradient(state, x1, y0, z0, t0)
    v1000 = wp.dot(wp.vec4(dx - 1.0, dy, dz, dt), g1000)
    g0100 = __weft_random_gradient(state, x0, y1, z0, t0)
    v0100 = wp.dot(wp.vec4(dx, dy - 1.0, dz, dt), g0100)
    g1100 = __weft_random_gradient(state, x1, y1, z0, t0)
    v1100 = wp.dot(wp.vec4(dx - 1.0, dy - 1.0, dz, dt), g1100)
    g0010 = __weft_random_gradient(state, x0, y0, z1, t0)
    v0010 = wp.dot(wp.vec4(dx, dy, dz - 1.0, dt), g0010)
    g1010 = __weft_random_gradient(state, x1, y0, z1, t0)
    v1010 = wp.dot(wp.vec4(dx - 1.0, dy, dz - 1.0, dt), g1010)
    g0110 = __weft_random_gradient(state, x0, y1, z1, t0)
    v0110 = wp.dot(wp.vec4(dx, dy - 1.0, dz - 1.0, dt), g0110)
    g1110 = __weft_random_gradient(state, x1, y1, z1, t0)
    v1110 = wp.dot(wp.vec4(dx - 1.0, dy - 1.0, dz - 1.0, dt), g1110)
    g0001 = __weft_random_gradient(state, x0, y0, z0, t1)
    v0001 = wp.dot(wp.vec4(dx, dy, dz, dt - 1.0), g0001)
    g1001 = __weft_random_gradient(state, x1, y0, z0, t1)
    v1001 = wp.dot(wp.vec4(dx - 1.0, dy, dz, dt - 1.0), g1001)
    g0101 = __weft_random_gradient(state, x0, y1, z0, t1)
    v0101 = wp.dot(wp.vec4(dx, dy - 1.0, dz, dt - 1.0), g0101)
    g1101 = __weft_random_gradient(state, x1, y1, z0, t1)
    v1101 = wp.dot(wp.vec4(dx - 1.0, dy - 1.0, dz, dt - 1.0), g1101)
    g0011 = __weft_random_gradient(state, x0, y0, z1, t1)
    v0011 = wp.dot(wp.vec4(dx, dy, dz - 1.0, dt - 1.0), g0011)
    g1011 = __weft_random_gradient(state, x1, y0, z1, t1)
    v1011 = wp.dot(wp.vec4(dx - 1.0, dy, dz - 1.0, dt - 1.0), g1011)
    g0111 = __weft_random_gradient(state, x0, y1, z1, t1)
    v0111 = wp.dot(wp.vec4(dx, dy - 1.0, dz - 1.0, dt - 1.0), g0111)
    g1111 = __weft_random_gradient(state, x1, y1, z1, t1)
    v1111 = wp.dot(wp.vec4(dx - 1.0, dy - 1.0, dz - 1.0, dt - 1.0), g1111)
    e0 = wp.vec4(1.0, 0.0, 0.0, 0.0)
    xi000 = __weft_interpolate(v0000, v1000, dx)
    gxi000 = __weft_interpolate_gradient(v0000, v1000, dx, g0000, g1000, e0)
    xi100 = __weft_interpolate(v0100, v1100, dx)
    gxi100 = __weft_interpolate_gradient(v0100, v1100, dx, g0100, g1100, e0)
    xi010 = __weft_interpolate(v0010, v1010, dx)
    gxi010 = __weft_interpolate_gradient(v0010, v1010, dx, g0010, g1010, e0)
    xi110 = __weft_interpolate(v0110, v1110, dx)
    gxi110 = __weft_interpolate_gradient(v0110, v1110, dx, g0110, g1110, e0)
    xi001 = __weft_interpolate(v0001, v1001, dx)
    gxi001 = __weft_interpolate_gradient(v0001, v1001, dx, g0001, g1001, e0)
    xi101 = __weft_interpolate(v0101, v1101, dx)
    gxi101 = __weft_interpolate_gradient(v0101, v1101, dx, g0101, g1101, e0)
    xi011 = __weft_interpolate(v0011, v1011, dx)
    gxi011 = __weft_interpolate_gradient(v0011, v1011, dx, g0011, g1011, e0)
    xi111 = __weft_interpolate(v0111, v1111, dx)
    gxi111 = __weft_interpolate_gradient(v0111, v1111, dx, g0111, g1111, e0)
    e1 = wp.vec4(0.0, 1.0, 0.0, 0.0)
    yi00 = __weft_interpolate(xi000, xi100, dy)
    gyi00 = __weft_interpolate_gradient(xi000, xi100, dy, gxi000, gxi100, e1)
    yi10 = __weft_interpolate(xi010, xi110, dy)
    gyi10 = __weft_interpolate_gradient(xi010, xi110, dy, gxi010, gxi110, e1)
    yi01 = __weft_interpolate(xi001, xi101, dy)
    gyi01 = __weft_interpolate_gradient(xi001, xi101, dy, gxi001, gxi101, e1)
    yi11 = __weft_interpolate(xi011, xi111, dy)
    gyi11 = __weft_interpolate_gradient(xi011, xi111, dy, gxi011, gxi111, e1)
    e2 = wp.vec4(0.0, 0.0, 1.0, 0.0)
    zi0 = __weft_interpolate(yi00, yi10, dz)
    gzi0 = __weft_interpolate_gradient(yi00, yi10, dz, gyi00, gyi10, e2)
    zi1 = __weft_interpolate(yi01, yi11, dz)
    gzi1 = __weft_interpolate_gradient(yi01, yi11, dz, gyi01, gyi11, e2)
    e3 = wp.vec4(0.0, 0.0, 0.0, 1.0)
    ti = __weft_interpolate(zi0, zi1, dt)
    gti = __weft_interpolate_gradient(zi0, zi1, dt, gzi0, gzi1, e3)
    return gti


@wp.func
def __weft_noise(state: wp.uint32, x: wp.float32):
    x0 = wp.int32(wp.floor(x))
    return __weft_noise_1d(state, x0, x0 + 1, x - wp.floor(x))


@wp.func
def __weft_noise(state: wp.uint32, p: wp.vec2):
    x0 = wp.int32(wp.floor(p[0]))
    y0 = wp.int32(wp.floor(p[1]))
    return __weft_noise_2d(state, x0, y0, x0 + 1, y0 + 1, p[0] - wp.floor(p[0]), p[1] - wp.floor(p[1]))


@wp.func
def __weft_noise(state: wp.uint32, p: wp.vec3):
    x0 = wp.int32(wp.floor(p[0]))
    y0 = wp.int32(wp.floor(p[1]))
    z0 = wp.int32(wp.floor(p[2]))
    return __weft_noise_3d(state, x0, y0, z0, x0 + 1, y0 + 1, z0 + 1, p[0] - wp.floor(p[0]), p[1] - wp.floor(p[1]), p[2] - wp.floor(p[2]))


@wp.func
def __weft_noise(state: wp.uint32, p: wp.vec4):
    x0 = wp.int32(wp.floor(p[0]))
    y0 = wp.int32(wp.floor(p[1]))
    z0 = wp.int32(wp.floor(p[2]))
    t0 = wp.int32(wp.floor(p[3]))
    return __weft_noise_4d(state, x0, y0, z0, t0, x0 + 1, y0 + 1, z0 + 1, t0 + 1, p[0] - wp.floor(p[0]), p[1] - wp.floor(p[1]), p[2] - wp.floor(p[2]), p[3] - wp.floor(p[3]))


# periodic: cells modulo the period (C's %, as Warp's mod on ints)
@wp.func
def __weft_pnoise(state: wp.uint32, x: wp.float32, px: wp.int32):
    x0 = wp.mod(wp.int32(wp.floor(x)), px)
    return __weft_noise_1d(state, x0, wp.mod(x0 + 1, px), x - wp.floor(x))


@wp.func
def __weft_pnoise(state: wp.uint32, p: wp.vec2, px: wp.int32, py: wp.int32):
    x0 = wp.mod(wp.int32(wp.floor(p[0])), px)
    y0 = wp.mod(wp.int32(wp.floor(p[1])), py)
    return __weft_noise_2d(state, x0, y0, wp.mod(x0 + 1, px), wp.mod(y0 + 1, py), p[0] - wp.floor(p[0]), p[1] - wp.floor(p[1]))


@wp.func
def __weft_pnoise(state: wp.uint32, p: wp.vec3, px: wp.int32, py: wp.int32, pz: wp.int32):
    x0 = wp.mod(wp.int32(wp.floor(p[0])), px)
    y0 = wp.mod(wp.int32(wp.floor(p[1])), py)
    z0 = wp.mod(wp.int32(wp.floor(p[2])), pz)
    return __weft_noise_3d(state, x0, y0, z0, wp.mod(x0 + 1, px), wp.mod(y0 + 1, py), wp.mod(z0 + 1, pz), p[0] - wp.floor(p[0]), p[1] - wp.floor(p[1]), p[2] - wp.floor(p[2]))


@wp.func
def __weft_pnoise(state: wp.uint32, p: wp.vec4, px: wp.int32, py: wp.int32, pz: wp.int32, pt: wp.int32):
    x0 = wp.mod(wp.int32(wp.floor(p[0])), px)
    y0 = wp.mod(wp.int32(wp.floor(p[1])), py)
    z0 = wp.mod(wp.int32(wp.floor(p[2])), pz)
    t0 = wp.mod(wp.int32(wp.floor(p[3])), pt)
    return __weft_noise_4d(state, x0, y0, z0, t0, wp.mod(x0 + 1, px), wp.mod(y0 + 1, py), wp.mod(z0 + 1, pz), wp.mod(t0 + 1, pt), p[0] - wp.floor(p[0]), p[1] - wp.floor(p[1]), p[2] - wp.floor(p[2]), p[3] - wp.floor(p[3]))


# curl of octaves of noise gradients; the 3-D and 4-D forms draw three
# fields, reseeding the state with rand_init between them
@wp.func
def __weft_curlnoise(state: wp.uint32, xy: wp.vec2, octaves: wp.uint32, lacunarity: wp.float32, gain: wp.float32):
    curl_sum = wp.vec2(0.0)
    freq = wp.float32(1.0)
    amplitude = wp.float32(1.0)
    for i in range(wp.int32(octaves)):
        pt = freq * xy
        x0 = wp.int32(wp.floor(pt[0]))
        y0 = wp.int32(wp.floor(pt[1]))
        g = __weft_noise_2d_gradient(state, x0, y0, x0 + 1, y0 + 1, pt[0] - wp.floor(pt[0]), pt[1] - wp.floor(pt[1]))
        curl_sum = curl_sum + amplitude * g
        amplitude = amplitude * gain
        freq = freq * lacunarity
    return wp.vec2(-curl_sum[1], curl_sum[0])


@wp.func
def __weft_curlnoise(state: wp.uint32, xyz: wp.vec3, octaves: wp.uint32, lacunarity: wp.float32, gain: wp.float32):
    s1 = wp.vec3(0.0)
    s2 = wp.vec3(0.0)
    s3 = wp.vec3(0.0)
    freq = wp.float32(1.0)
    amplitude = wp.float32(1.0)
    st = state
    for i in range(wp.int32(octaves)):
        pt = freq * xyz
        x0 = wp.int32(wp.floor(pt[0]))
        y0 = wp.int32(wp.floor(pt[1]))
        z0 = wp.int32(wp.floor(pt[2]))
        dx = pt[0] - wp.floor(pt[0])
        dy = pt[1] - wp.floor(pt[1])
        dz = pt[2] - wp.floor(pt[2])
        g1 = __weft_noise_3d_gradient(st, x0, y0, z0, x0 + 1, y0 + 1, z0 + 1, dx, dy, dz)
        st = wp.rand_init(wp.int32(st), 10019689)
        g2 = __weft_noise_3d_gradient(st, x0, y0, z0, x0 + 1, y0 + 1, z0 + 1, dx, dy, dz)
        st = wp.rand_init(wp.int32(st), 13112221)
        g3 = __weft_noise_3d_gradient(st, x0, y0, z0, x0 + 1, y0 + 1, z0 + 1, dx, dy, dz)
        s1 = s1 + amplitude * g1
        s2 = s2 + amplitude * g2
        s3 = s3 + amplitude * g3
        amplitude = amplitude * gain
        freq = freq * lacunarity
    return wp.vec3(s3[1] - s2[2], s1[2] - s3[0], s2[0] - s1[1])


@wp.func
def __weft_curlnoise(state: wp.uint32, xyzt: wp.vec4, octaves: wp.uint32, lacunarity: wp.float32, gain: wp.float32):
    s1 = wp.vec4(0.0)
    s2 = wp.vec4(0.0)
    s3 = wp.vec4(0.0)
    freq = wp.float32(1.0)
    amplitude = wp.float32(1.0)
    st = state
    for i in range(wp.int32(octaves)):
        pt = freq * xyzt
        x0 = wp.int32(wp.floor(pt[0]))
        y0 = wp.int32(wp.floor(pt[1]))
        z0 = wp.int32(wp.floor(pt[2]))
        t0 = wp.int32(wp.floor(pt[3]))
        dx = pt[0] - wp.floor(pt[0])
        dy = pt[1] - wp.floor(pt[1])
        dz = pt[2] - wp.floor(pt[2])
        dt = pt[3] - wp.floor(pt[3])
        g1 = __weft_noise_4d_gradient(st, x0, y0, z0, t0, x0 + 1, y0 + 1, z0 + 1, t0 + 1, dx, dy, dz, dt)
        st = wp.rand_init(wp.int32(st), 10019689)
        g2 = __weft_noise_4d_gradient(st, x0, y0, z0, t0, x0 + 1, y0 + 1, z0 + 1, t0 + 1, dx, dy, dz, dt)
        st = wp.rand_init(wp.int32(st), 13112221)
        g3 = __weft_noise_4d_gradient(st, x0, y0, z0, t0, x0 + 1, y0 + 1, z0 + 1, t0 + 1, dx, dy, dz, dt)
        s1 = s1 + amplitude * g1
        s2 = s2 + amplitude * g2
        s3 = s3 + amplitude * g3
        amplitude = amplitude * gain
        freq = freq * lacunarity
    return wp.vec3(s3[1] - s2[2], s1[2] - s3[0], s2[0] - s1[1])

