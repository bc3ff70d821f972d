import warp as wp


@wp.func
def fact(n: int) -> int:
    if n <= 1:
        return 1
    return n * fact(n - 1)


@wp.kernel
def k(x: wp.array(dtype=int)):
    i = wp.tid()
    x[i] = fact(x[i])
