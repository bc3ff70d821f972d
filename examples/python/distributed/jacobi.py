"""A 2-D Jacobi solve of Laplace's equation split over MPI ranks by rows,
with the halo rows exchanged through mpi4py straight from the Weft arrays'
memory (the buffer protocol: no copy through NumPy).

The grid is ``ny x nx`` (``--n``; ``--weak`` makes ``ny = n * ranks``), the
top boundary row holds ``sin(pi x)``, the other boundaries 0, the interior
starts at 0. Each rank owns a block of rows plus one ghost row above and
below; each iteration is one ``@wp.kernel`` sweep and one halo exchange
(two ``Sendrecv`` of whole rows). One process per device: ``cuda`` ranks
take ``cuda:<local rank mod GPUs>``.

    mpirun -n 2 python examples/python/distributed/jacobi.py --device cpu --check

``--check`` also runs the single-process solve on rank 0 and compares:
the grids must be bit-identical (a fixed number of sweeps with no
reduction in the update: every point is the same float32 expression of the
same inputs however the rows are split), and the residual norm (the norm of
the last sweep's update, a float64 sum whose order differs with the split)
must agree to a relative 1e-12. Exits 1 on a mismatch.

The last line rank 0 prints is ``RESULT {json}``: per iteration, the
slowest rank's step, sweep (the launch) and halo exchange times, and the
halo share (the exchange's time over the step's, the largest over the
ranks; it includes waiting for a slower neighbour unless ``--barrier``
puts a timed barrier before each exchange). The kernel and the timed loop
are ``_jacobi.py``'s, shared with ``jacobi_torch.py``.
"""

import argparse
import json
import sys

import numpy as np

from _mpi import MPI, device_or_exit, threads_per_rank
from _jacobi import RESIDUAL_RTOL, Block, owned, residual_sq, run, single, split_rows, sweep


def exchanger(comm, block):
    """The halo exchange of an array of ``block``: the first owned row
    goes up, the ghost row below comes from down; the last owned row goes
    down, the ghost row above comes from up. The wp.array row views go to
    MPI as they are (the buffer protocol: zero copy)."""
    up = comm.rank - 1 if comm.rank > 0 else MPI.PROC_NULL
    down = comm.rank + 1 if comm.rank < comm.size - 1 else MPI.PROC_NULL

    def exchange(a):
        first, last, ghost_up, ghost_down = block.rows_of[id(a)]
        comm.Sendrecv(sendbuf=first, dest=up, sendtag=0, recvbuf=ghost_down, source=down, recvtag=0)
        comm.Sendrecv(sendbuf=last, dest=down, sendtag=1, recvbuf=ghost_up, source=up, recvtag=1)

    return exchange


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cpu", choices=["cpu", "vulkan", "cuda"])
    p.add_argument("--n", type=int, default=512, help="grid columns (and rows, without --weak)")
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--weak", action="store_true", help="rows = n * ranks (weak scaling: n x n per rank)")
    p.add_argument(
        "--barrier",
        action="store_true",
        help="a barrier before each exchange, timed apart (wait), so that halo is the transfer alone",
    )
    p.add_argument("--check", action="store_true", help="compare with the single-process solve on rank 0")
    args = p.parse_args(argv)
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    if args.n < 3 or args.iters < 1:
        if rank == 0:
            print(f"jacobi.py: --n must be at least 3 and --iters at least 1, got {args.n} and {args.iters}")
        return 2
    nx = args.n
    ny = args.n * size if args.weak else args.n
    if ny < size:
        if rank == 0:
            print(f"jacobi.py: {ny} rows cannot be split over {size} ranks")
        return 2
    device = device_or_exit(args.device, comm)

    starts, counts = split_rows(ny, size)
    block = Block(starts[rank], counts[rank], ny, nx, device)
    block.warm_up()
    comm.Barrier()
    new, old, t = run(block, args.iters, exchanger(comm, block), comm.Barrier if args.barrier else None)
    res = float(np.sqrt(comm.allreduce(residual_sq(block, new, old), op=MPI.SUM)))
    slowest = {k: comm.allreduce(v, op=MPI.MAX) for k, v in t.items()}
    halo_share = comm.allreduce(t["halo"] / t["total"], op=MPI.MAX)
    # The whole grid on rank 0 (Gatherv of the owned rows, also zero copy).
    grid = np.empty((ny, nx), dtype=np.float32) if rank == 0 else None
    comm.Gatherv(new[1 : block.rows + 1], [grid, [c * nx for c in counts], MPI.FLOAT] if rank == 0 else None, root=0)

    status = 0
    result = {
        "device": str(device),
        "ranks": size,
        "ny": ny,
        "nx": nx,
        "iters": args.iters,
        "weak": args.weak,
        "s_per_iter": slowest["total"] / args.iters,
        "sweep_s_per_iter": slowest["sweep"] / args.iters,
        "halo_s_per_iter": slowest["halo"] / args.iters,
        "wait_s_per_iter": slowest["wait"] / args.iters,
        "halo_share": halo_share,
        "threads_per_rank": threads_per_rank(),
        "tier": sweep.tier(device) if hasattr(sweep, "tier") else None,
        "residual": res,
    }
    if rank == 0:
        print(
            f"jacobi {ny}x{nx} on {size} rank(s) ({result['threads_per_rank']} launch thread(s) each), device {device} "
            f"({result['tier']}), {args.iters} sweeps: "
            f"{slowest['total'] / args.iters * 1e3:.3f} ms/iter (sweep {slowest['sweep'] / args.iters * 1e3:.3f}, "
            f"halo {slowest['halo'] / args.iters * 1e3:.3f}"
            + (f", barrier wait {slowest['wait'] / args.iters * 1e3:.3f}" if args.barrier else "")
            + f"; halo share {halo_share * 100:.1f}%), residual {res:.6e}"
        )
    if args.check:
        ok = None
        if rank == 0:
            one, one_new, one_old = single(ny, nx, args.iters, device)
            ref = owned(one, one_new)
            ref_res = float(np.sqrt(residual_sq(one, one_new, one_old)))
            same = bool(np.array_equal(grid, ref))
            diff = float(np.max(np.abs(grid.astype(np.float64) - ref.astype(np.float64))))
            rel = abs(res - ref_res) / max(abs(ref_res), np.finfo(np.float64).tiny)
            ok = same and rel <= RESIDUAL_RTOL
            print(
                f"check against the single-process solve: grid bit-identical: {same} (max |diff| {diff:.3e}); "
                f"residual {ref_res:.6e}, relative difference {rel:.2e} (tolerance {RESIDUAL_RTOL:g}, the "
                f"float64 sum's order differs)"
            )
            print("CHECK " + ("PASSED" if ok else "FAILED"))
            result.update(check=ok, max_abs_diff=diff, residual_rel_diff=rel)
        ok = comm.bcast(ok, root=0)
        status = 0 if ok else 1
    if rank == 0:
        print("RESULT " + json.dumps(result))
    return status


if __name__ == "__main__":
    sys.exit(main())
