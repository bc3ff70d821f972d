"""The seed's first program: double every element of an array. Runs on
Weft (``import weft.warp as wp``) or NVIDIA Warp (``USE_WARP=1``), same
code; prints the implementation, the device and the result."""

import sys

import numpy as np

from _select import warp

wp = warp()


@wp.kernel
def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


def main(device="cpu"):
    x = wp.array(np.arange(8, dtype=np.float32), dtype=float, device=device)
    y = wp.zeros(8, dtype=float, device=device)
    wp.launch(double, dim=8, inputs=[x], outputs=[y], device=device)
    wp.synchronize()
    print(wp.__name__, device, y.numpy().tolist())
    assert np.array_equal(y.numpy(), 2.0 * np.arange(8))


if __name__ == "__main__":
    main(*sys.argv[1:])
