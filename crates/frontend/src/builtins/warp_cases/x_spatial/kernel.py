import warp as wp


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
