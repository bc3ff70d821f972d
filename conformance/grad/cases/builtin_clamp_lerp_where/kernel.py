import warp as wp

@wp.kernel
def ternary(x: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float), t: wp.array(dtype=float),
            y: wp.array2d(dtype=float)):
    i = wp.tid()
    y[i, 0] = wp.clamp(x[i], lo[i], hi[i])
    y[i, 1] = wp.lerp(lo[i], hi[i], t[i])
    y[i, 2] = wp.smoothstep(lo[i], hi[i], x[i])
    y[i, 3] = wp.where(x[i] > t[i], x[i] * lo[i], hi[i] * t[i])
    y[i, 4] = x[i] * 2.0 if x[i] < 0.0 else wp.sin(x[i])
    y[i, 5] = wp.min(wp.max(x[i], lo[i]), hi[i])
