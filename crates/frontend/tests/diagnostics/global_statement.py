import warp as wp

counter = 0


@wp.kernel
def k(x: wp.array(dtype=int)):
    global counter
    i = wp.tid()
    x[i] = i
