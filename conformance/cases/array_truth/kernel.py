import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), e: wp.array(dtype=float), m: wp.array2d(dtype=float), o: wp.array(dtype=int)):
    o[0] = wp.where(a, 1, 2)
    o[1] = wp.where(e, 1, 2)
    o[2] = int(not a)
    o[3] = int(not e)
    if a:
        o[4] = 5
    if e:
        o[5] = 6
    if not m:
        o[6] = 7
    o[7] = wp.where(m, 8, 9)
