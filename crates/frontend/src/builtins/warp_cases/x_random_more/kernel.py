import warp as wp


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
