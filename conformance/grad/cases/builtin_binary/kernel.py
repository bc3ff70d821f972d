import warp as wp

@wp.kernel
def binary(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i = wp.tid()
    y[i, 0] = a[i, 0] + b[i, 0]
    y[i, 1] = a[i, 1] - b[i, 1]
    y[i, 2] = a[i, 2] * b[i, 2]
    y[i, 3] = a[i, 3] / b[i, 3]
    y[i, 4] = wp.min(a[i, 4], b[i, 4])
    y[i, 5] = wp.max(a[i, 5], b[i, 5])
    y[i, 6] = wp.pow(a[i, 6], b[i, 6])
    y[i, 7] = wp.atan2(a[i, 7], b[i, 7])
    y[i, 8] = wp.mod(a[i, 8], b[i, 8])
