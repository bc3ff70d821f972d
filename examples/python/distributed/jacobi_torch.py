"""The Jacobi solve of ``jacobi.py`` (``_jacobi.py``'s kernel and loop)
with the halo exchange through ``torch.distributed`` instead of mpi4py:
the weft arrays' row views become CPU tensors through DLPack
(``torch.from_dlpack``, zero copy: arrays are host memory in this Weft
version, ``kDLCPU``) and are sent with the ``gloo`` backend. Started by
``torchrun``:

    torchrun --nproc-per-node 2 examples/python/distributed/jacobi_torch.py --device cpu --check

Without PyTorch it says so and exits 0 (nothing run). ``--check`` compares
with the single-process solve on rank 0 as ``jacobi.py`` does (bit-identical
grid; residual to a relative 1e-12).
"""

import argparse
import os
import sys

try:
    import torch
    import torch.distributed as dist
except ImportError:
    print("jacobi_torch.py needs PyTorch (pip install torch): not installed, skipped (nothing run)")
    sys.exit(0)

# As _mpi.py does for mpirun: the vector tier compiled in the warm-up, and
# the node's cores shared by its ranks (torchrun sets LOCAL_WORLD_SIZE).
os.environ.setdefault("WEFT_TIER_UP_MS", "0")
_local = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
os.environ.setdefault("RAYON_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // _local)))

import numpy as np  # noqa: E402

import weft.warp as wp  # noqa: E402
from _jacobi import RESIDUAL_RTOL, Block, owned, residual_sq, run, single, split_rows  # noqa: E402


def exchanger(rank, size, block):
    """The halo exchange of ``jacobi.py`` on torch.distributed: the row
    views of each array as tensors sharing their memory (DLPack), sent
    and received with batched point-to-point operations."""
    tensors = {key: tuple(torch.from_dlpack(v) for v in views) for key, views in block.rows_of.items()}
    up = rank - 1 if rank > 0 else None
    down = rank + 1 if rank < size - 1 else None

    def exchange(a):
        first, last, ghost_up, ghost_down = tensors[id(a)]
        ops = []
        if up is not None:
            ops += [dist.P2POp(dist.isend, first, up), dist.P2POp(dist.irecv, ghost_up, up)]
        if down is not None:
            ops += [dist.P2POp(dist.isend, last, down), dist.P2POp(dist.irecv, ghost_down, down)]
        if ops:
            for req in dist.batch_isend_irecv(ops):
                req.wait()

    return exchange


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="cpu", choices=["cpu", "vulkan", "cuda"])
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--iters", type=int, default=200)
    p.add_argument("--check", action="store_true")
    args = p.parse_args(argv)
    if args.n < 3 or args.iters < 1:
        print(f"jacobi_torch.py: --n must be at least 3 and --iters at least 1, got {args.n} and {args.iters}")
        return 2
    dist.init_process_group(backend="gloo")  # host tensors: the arrays are host memory
    rank, size = dist.get_rank(), dist.get_world_size()
    name = args.device
    if name == "cuda":
        name = f"cuda:{int(os.environ.get('LOCAL_RANK', '0')) % max(1, wp.get_cuda_device_count())}"
    try:
        device = wp.get_device(name)
        why = ""
    except Exception as e:  # noqa: BLE001 (the reason is reported)
        device, why = None, f"{type(e).__name__}: {e}"
    reasons = [None] * size
    dist.all_gather_object(reasons, why)
    if any(reasons):
        if rank == 0:
            print(f"jacobi_torch.py: device {args.device!r} is not available: {next(r for r in reasons if r)}")
        dist.destroy_process_group()
        return 2

    ny = nx = args.n
    starts, counts = split_rows(ny, size)
    block = Block(starts[rank], counts[rank], ny, nx, device)
    block.warm_up()
    dist.barrier()
    new, old, t = run(block, args.iters, exchanger(rank, size, block))
    res2 = torch.tensor([residual_sq(block, new, old)], dtype=torch.float64)
    dist.all_reduce(res2)
    res = float(res2.sqrt())
    # The owned rows to rank 0, received into the grid in place.
    owned_rows = torch.from_dlpack(new[1 : block.rows + 1])
    status = 0
    if rank == 0:
        grid = np.empty((ny, nx), dtype=np.float32)
        grid[: counts[0]] = owned(block, new)
        for r in range(1, size):
            dist.recv(torch.from_numpy(grid[starts[r] : starts[r] + counts[r]]), src=r)
        print(
            f"jacobi (torch.distributed, gloo) {ny}x{nx} on {size} rank(s), device {device}, {args.iters} sweeps: "
            f"{t['total'] / args.iters * 1e3:.3f} ms/iter, halo share {t['halo'] / t['total'] * 100:.1f}% (rank 0), "
            f"residual {res:.6e}"
        )
        if args.check:
            one, one_new, one_old = single(ny, nx, args.iters, device)
            ref_res = float(np.sqrt(residual_sq(one, one_new, one_old)))
            same = bool(np.array_equal(grid, owned(one, one_new)))
            rel = abs(res - ref_res) / max(abs(ref_res), np.finfo(np.float64).tiny)
            ok = same and rel <= RESIDUAL_RTOL
            print(f"check: grid bit-identical: {same}; residual relative difference {rel:.2e} (tolerance {RESIDUAL_RTOL:g})")
            print("CHECK " + ("PASSED" if ok else "FAILED"))
            status = 0 if ok else 1
    else:
        dist.send(owned_rows, dst=0)
    flag = torch.tensor([status], dtype=torch.int32)
    dist.broadcast(flag, src=0)
    dist.destroy_process_group()
    return int(flag.item())


if __name__ == "__main__":
    sys.exit(main())
