"""The Jacobi solve the distributed examples share (``jacobi.py`` on
mpi4py, ``jacobi_torch.py`` on torch.distributed): the ``@wp.kernel``
sweep, the row split, one rank's block with its ghost rows, and the timed
loop, which takes the halo exchange as a function (none: one process).

The grid is ``ny x nx``; the top boundary row holds ``sin(pi x)``, the
other boundaries 0, the interior starts at 0. A rank owns a block of rows
plus one ghost row above and below.
"""

import time

import numpy as np

import weft.warp as wp

RESIDUAL_RTOL = 1e-12


@wp.kernel
def sweep(u: wp.array2d(dtype=float), u_new: wp.array2d(dtype=float), row0: int, ny: int, nx: int):
    # Thread (i, j): owned row i (local row i + 1, global row row0 + i),
    # column j. Boundary points keep their value.
    i, j = wp.tid()
    g = row0 + i
    if g == 0 or g == ny - 1 or j == 0 or j == nx - 1:
        return
    r = i + 1
    u_new[r, j] = 0.25 * ((u[r - 1, j] + u[r + 1, j]) + (u[r, j - 1] + u[r, j + 1]))


def split_rows(ny, size):
    """(first global row, row count) of each rank: as even as can be."""
    base, extra = divmod(ny, size)
    counts = [base + (1 if r < extra else 0) for r in range(size)]
    starts = [sum(counts[:r]) for r in range(size)]
    return starts, counts


def initial(row0, rows, nx):
    """The local block with its ghost rows: the top boundary sin(pi x)."""
    u = np.zeros((rows + 2, nx), dtype=np.float32)
    if row0 == 0:
        x = np.linspace(0.0, 1.0, nx, dtype=np.float64)
        u[1, :] = np.sin(np.pi * x).astype(np.float32)
    return u


class Block:
    """One rank's rows: two arrays (read, written) swapped each sweep, and
    the row views the halo exchange sends from and receives into."""

    def __init__(self, row0, rows, ny, nx, device):
        self.row0, self.rows, self.ny, self.nx, self.device = row0, rows, ny, nx, device
        u0 = initial(row0, rows, nx)
        self.u = wp.array(u0, dtype=float, device=device)
        self.v = wp.array(u0, dtype=float, device=device)
        # Row views of each array (1-d wp.arrays sharing its memory): the
        # first and last owned rows, the ghost rows above and below.
        self.rows_of = {id(a): (a[1], a[rows], a[0], a[rows + 1]) for a in (self.u, self.v)}

    def launch(self, src, dst):
        wp.launch(sweep, dim=(self.rows, self.nx), inputs=[src, dst, self.row0, self.ny, self.nx], device=self.device)

    def warm_up(self):
        """Compiles the kernel (a sweep into a scratch array) so that the
        timed loop does not include it."""
        scratch = wp.array(self.u.numpy(), dtype=float, device=self.device)
        self.launch(self.u, scratch)
        wp.synchronize_device(self.device)


def run(block, iters, exchange=None, barrier=None):
    """Runs ``iters`` sweeps of ``block``, each followed by
    ``exchange(array)`` (the halo exchange of the array just written) when
    given; ``barrier()``, when given, runs before each exchange and is
    timed apart (``wait``: the ranks' load imbalance) so that ``halo`` is
    the transfer alone. Returns (final array, previous array, seconds:
    ``total``, ``sweep``, ``wait``, ``halo``). Warm up first
    (``block.warm_up()``) to keep the compile out of the timings."""
    src, dst = block.u, block.v
    t_sweep = t_halo = t_wait = 0.0
    t0 = time.perf_counter()
    for _ in range(iters):
        a = time.perf_counter()
        block.launch(src, dst)
        wp.synchronize_device(block.device)
        b = time.perf_counter()
        if barrier is not None:
            barrier()
        w = time.perf_counter()
        if exchange is not None:
            exchange(dst)
        c = time.perf_counter()
        t_sweep += b - a
        t_wait += w - b
        t_halo += c - w
        src, dst = dst, src
    total = time.perf_counter() - t0
    return src, dst, {"total": total, "sweep": t_sweep, "wait": t_wait, "halo": t_halo}


def single(ny, nx, iters, device):
    """The single-process solve: (its block, final array, previous array)."""
    block = Block(0, ny, ny, nx, device)
    block.warm_up()
    new, old, _ = run(block, iters)
    return block, new, old


def owned(block, a):
    """The rows a rank owns (a NumPy view, no copy)."""
    return a.numpy()[1 : block.rows + 1]


def residual_sq(block, new, old):
    """The float64 sum of squares of the last update over the owned rows."""
    d = owned(block, new).astype(np.float64) - owned(block, old).astype(np.float64)
    return float(np.sum(d * d))
