import warp as wp


@wp.kernel
def k(p: wp.array(dtype=int), o: wp.array(dtype=int)):
    i = wp.tid()
    start = p[i * 3 + 0]
    stop = p[i * 3 + 1]
    step = p[i * 3 + 2]
    # order-sensitive digest of the visited values
    h = int(17)
    c = int(0)
    if step != 0:
        for j in reversed(range(start, stop, step)):
            h = h * 31 + j
            c += 1
    o[i * 6 + 0] = h
    o[i * 6 + 1] = c
    h = int(5)
    for j in reversed(range(stop)):
        h = h * 7 + j
        if j < start:
            break
    o[i * 6 + 2] = h
    h = int(3)
    for j in reversed(range(4)):
        h = h * 11 + j
    o[i * 6 + 3] = h
    h = int(1)
    for j in reversed(range(10, -3, -4)):
        h = h * 13 + j
    o[i * 6 + 4] = h
    last = int(-99)
    for j in reversed(range(start, stop)):
        last = j
    o[i * 6 + 5] = last
