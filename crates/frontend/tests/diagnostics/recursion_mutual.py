import warp as wp


@wp.func
def is_even(n: int) -> bool:
    if n == 0:
        return True
    return is_odd(n - 1)


@wp.func
def is_odd(n: int) -> bool:
    if n == 0:
        return False
    return is_even(n - 1)


@wp.kernel
def k(x: wp.array(dtype=int)):
    i = wp.tid()
    if is_even(x[i]):
        x[i] = 0
