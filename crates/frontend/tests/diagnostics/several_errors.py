import warp as wp


@wp.kernel
def first(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = undefined_a


@wp.kernel
def second(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = wp.no_such_builtin(x[i])
