"""What the distributed examples share: mpi4py (or a clean exit saying it
is missing), the environment each rank's Weft runs with, and one device
per process.

Imported before ``weft.warp``: it sets, unless already set,
``WEFT_TIER_UP_MS=0`` (the cpu device's vector tier is compiled with the
module, in the warm-up, not mid-run on one rank while the others wait for
it: docs/vector.md) and ``RAYON_NUM_THREADS`` = cores / ranks on this
node (each rank's launch threads share the node's cores with the other
ranks')."""

import os
import sys

try:
    from mpi4py import MPI
except ImportError:
    print(
        f"{os.path.basename(sys.argv[0])} needs mpi4py (pip install mpi4py, with an MPI library such as "
        "OpenMPI: apt-get install openmpi-bin libopenmpi-dev): not installed, nothing run"
    )
    sys.exit(0)

os.environ.setdefault("WEFT_TIER_UP_MS", "0")
NODE = MPI.COMM_WORLD.Split_type(MPI.COMM_TYPE_SHARED)
os.environ.setdefault("RAYON_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // NODE.size)))

import weft.warp as wp  # noqa: E402


def threads_per_rank():
    return int(os.environ["RAYON_NUM_THREADS"])


def pick_device(name):
    """(device, None) or (None, why not). One process per device: ``cuda``
    ranks on a node take ``cuda:<local rank mod GPUs>``."""
    if name == "cuda":
        if not wp.is_cuda_available():
            return None, "no CUDA device (or this build has no `llvm` feature)"
        name = f"cuda:{NODE.rank % wp.get_cuda_device_count()}"
    try:
        return wp.get_device(name), None
    except Exception as e:  # noqa: BLE001 (the reason is reported)
        return None, f"{type(e).__name__}: {e}"


def device_or_exit(name, comm):
    """The device, the same decision on every rank: when one rank cannot
    open it, rank 0 says why and every rank exits with status 2."""
    device, why = pick_device(name)
    reasons = comm.allgather(why)
    if any(reasons):
        if comm.rank == 0:
            print(f"{os.path.basename(sys.argv[0])}: device {name!r} is not available: {next(r for r in reasons if r)}")
        sys.exit(2)
    return device
