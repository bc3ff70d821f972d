import warp as wp

@wp.kernel
def mm(x: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float), tot: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i] * 2.0
    wp.atomic_min(lo, i % 2, v)
    wp.atomic_max(hi, i % 2, v)
    wp.atomic_sub(tot, 0, v * v)
