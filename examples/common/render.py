# The examples' renderer, written in the Warp language and run by Weft:
# point splatting (orthographic camera, soft discs accumulated with atomics,
# then resolved over a background) and a colormap for 2-D scalar fields.
# Images are `wp.array2d(dtype=wp.vec3)` of linear RGB in [0, 1], row 0 at
# the top; the host quantizes them and writes PNG files.
import warp as wp


@wp.kernel
def clear_accum(accum: wp.array3d(dtype=float)):
    y, x, c = wp.tid()
    accum[y, x, c] = 0.0


@wp.kernel
def splat(
    points: wp.array(dtype=wp.vec3),
    colors: wp.array(dtype=wp.vec3),
    radius: wp.array(dtype=float),
    center: wp.vec3,
    right: wp.vec3,
    up: wp.vec3,
    forward: wp.vec3,
    scale: float,
    sharpness: float,
    accum: wp.array3d(dtype=float),
):
    # One thread per point: its disc (radius in world units, at least about
    # one pixel) adds coverage a, and color and weight scaled by a soft
    # depth test exp(-sharpness * depth), to the pixels it covers: nearer
    # discs dominate the average colour of a pixel.
    i = wp.tid()
    h = accum.shape[0]
    w = accum.shape[1]
    d = points[i] - center
    sx = wp.dot(d, right) * scale + float(w) * 0.5
    sy = float(h) * 0.5 - wp.dot(d, up) * scale
    r = wp.max(radius[i] * scale, 0.8)
    x0 = wp.max(int(wp.floor(sx - r)), 0)
    x1 = wp.min(int(wp.floor(sx + r)), w - 1)
    y0 = wp.max(int(wp.floor(sy - r)), 0)
    y1 = wp.min(int(wp.floor(sy + r)), h - 1)
    c = colors[i]
    dw = wp.exp(-sharpness * wp.dot(d, forward))
    inv_r2 = 1.0 / (r * r)
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            dx = float(x) + 0.5 - sx
            dy = float(y) + 0.5 - sy
            q = (dx * dx + dy * dy) * inv_r2
            if q < 1.0:
                a = 1.0 - q * q
                aw = a * dw
                wp.atomic_add(accum, y, x, 0, c[0] * aw)
                wp.atomic_add(accum, y, x, 1, c[1] * aw)
                wp.atomic_add(accum, y, x, 2, c[2] * aw)
                wp.atomic_add(accum, y, x, 3, aw)
                wp.atomic_add(accum, y, x, 4, a)


@wp.kernel
def resolve(accum: wp.array3d(dtype=float), background: wp.vec3, img: wp.array2d(dtype=wp.vec3)):
    # Weighted average color of the discs over a pixel, blended over the
    # background by their total coverage (capped at 1).
    y, x = wp.tid()
    wgt = accum[y, x, 3]
    c = background
    if wgt > 0.0:
        a = wp.min(accum[y, x, 4], 1.0)
        avg = wp.vec3(accum[y, x, 0], accum[y, x, 1], accum[y, x, 2]) / wgt
        c = avg * a + background * (1.0 - a)
    img[y, x] = c


@wp.func
def colormap(t: float) -> wp.vec3:
    # A dark-blue → purple → orange → pale-yellow ramp, piecewise linear
    # over five stops.
    s = wp.clamp(t, 0.0, 1.0) * 4.0
    k = wp.min(int(s), 3)
    f = s - float(k)
    c0 = wp.vec3(0.02, 0.02, 0.08)
    c1 = wp.vec3(0.25, 0.05, 0.45)
    if k == 1:
        c0 = wp.vec3(0.25, 0.05, 0.45)
        c1 = wp.vec3(0.75, 0.2, 0.35)
    elif k == 2:
        c0 = wp.vec3(0.75, 0.2, 0.35)
        c1 = wp.vec3(0.98, 0.55, 0.1)
    elif k == 3:
        c0 = wp.vec3(0.98, 0.55, 0.1)
        c1 = wp.vec3(0.99, 0.97, 0.65)
    return c0 * (1.0 - f) + c1 * f


@wp.kernel
def color_by_value(values: wp.array(dtype=float), lo: float, hi: float, colors: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    colors[i] = colormap((values[i] - lo) / (hi - lo))


@wp.kernel
def field_image(field: wp.array2d(dtype=float), lo: float, hi: float, img: wp.array2d(dtype=wp.vec3)):
    # The field (row 0 at the bottom) sampled bilinearly at each pixel of
    # the image (row 0 at the top), through the colormap.
    y, x = wp.tid()
    fh = field.shape[0]
    fw = field.shape[1]
    ih = img.shape[0]
    iw = img.shape[1]
    fx = wp.clamp((float(x) + 0.5) * float(fw) / float(iw) - 0.5, 0.0, float(fw - 1))
    fy = wp.clamp((float(ih - 1 - y) + 0.5) * float(fh) / float(ih) - 0.5, 0.0, float(fh - 1))
    x0 = wp.min(int(fx), fw - 1)
    y0 = wp.min(int(fy), fh - 1)
    x1 = wp.min(x0 + 1, fw - 1)
    y1 = wp.min(y0 + 1, fh - 1)
    tx = fx - float(x0)
    ty = fy - float(y0)
    a = field[y0, x0] * (1.0 - tx) + field[y0, x1] * tx
    b = field[y1, x0] * (1.0 - tx) + field[y1, x1] * tx
    v = a * (1.0 - ty) + b * ty
    img[y, x] = colormap((v - lo) / (hi - lo))
