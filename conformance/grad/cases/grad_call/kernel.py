import warp as wp

@wp.func
def sq(x: float):
    return x * x * wp.sin(x)


@wp.func
def two(a: float, b: float):
    return wp.atan2(a, b) * a


@wp.func
def vfun(v: wp.vec3, s: float):
    return wp.dot(v, v) * s + wp.length(v)


@wp.func
def vout(v: wp.vec3):
    return v * wp.length(v)


@wp.func
def loopy(x: float, n: int):
    s = float(0.0)
    for k in range(n):
        s = s + wp.exp(x * float(k) * 0.1)
    return s


@wp.kernel
def gradcall(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), g: wp.array2d(dtype=float),
             gv: wp.array(dtype=wp.vec3), y: wp.array(dtype=float)):
    i = wp.tid()
    g[i, 0] = wp.grad(sq)(x[i])
    da, db = wp.grad(two)(x[i], 0.5)
    g[i, 1] = da
    g[i, 2] = db
    dv, ds = wp.grad(vfun)(v[i], x[i])
    gv[i] = dv + wp.grad(vout)(v[i])
    g[i, 3] = ds
    dx, dn = wp.grad(loopy)(x[i], 3)
    g[i, 4] = dx + float(dn)
    y[i] = sq(x[i]) + wp.grad(sq)(x[i]) * 2.0
