import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float), o: wp.array(dtype=int)):
    i = wp.tid()
    wp.expect_eq(i, 1)
    wp.expect_neq(wp.vec3(1.0, 2.0, 3.0), wp.vec3(1.0, 2.0, x[i]))
    wp.expect_near(x[i], 2.0, 0.5)
    wp.expect_near(wp.vec2(x[i], 1.0), wp.vec2(2.0, 1.0))
    wp.expect_eq(wp.mat22(1.0, 2.0, 3.0, 4.0), wp.mat22(1.0, 2.0, 3.0, 4.0))
    wp.expect_near(wp.quat(0.0, 0.0, 0.0, 1.0), wp.quat(0.0, 0.0, 0.0, 1.0), 0.0)
    o[i] = i + 10
