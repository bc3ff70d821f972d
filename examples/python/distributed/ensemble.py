"""An ensemble over MPI ranks: ``--sims`` independent N-body simulations
(the kernels of ``examples/nbody.py``; simulation ``k`` starts from the
disc of ``examples/python/nbody.py`` with seed ``1000 + k``), simulation
``k`` run by rank ``k mod ranks``. Rank 0 gathers every simulation's final
positions (each rank sends its ``wp.array(dtype=wp.vec3)`` buffers as they
are, zero copy) and energies, and prints each rank's throughput and the
total (body-steps per second; each step is ``bodies^2`` interactions).

    mpirun -n 2 python examples/python/distributed/ensemble.py --sims 8 --bodies 512 --steps 50

``--check``: rank 0 reruns every simulation itself and requires the
gathered positions to be bit-identical (each simulation is the same
launches of the same kernels on the same inputs, whichever rank runs it)
and every energy drift under 1e-3. Exits 1 on a mismatch. The last line
rank 0 prints is ``RESULT {json}``.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

from _mpi import MPI, device_or_exit, threads_per_rank, wp

HERE = os.path.dirname(os.path.abspath(__file__))


# examples/python/nbody.py: its initial disc (`bodies`) and the kernels it
# loads from examples/nbody.py (`kernels`), under Weft.
sys.path.insert(0, os.path.join(HERE, ".."))
import nbody  # noqa: E402

kernels, bodies = nbody.kernels, nbody.bodies

GRAV, DT, EPS2 = 1.0, 1e-3, 0.05 * 0.05
DRIFT_MAX = 1e-3


def energy(pos, vel, mass, n, device):
    e = wp.zeros(n, dtype=float, device=device)
    wp.launch(kernels.body_energy, dim=n, inputs=[pos, vel, mass, n, GRAV, EPS2, e], device=device)
    return float(np.sum(e.numpy(), dtype=np.float64))


def simulate(k, n, steps, device):
    """Simulation ``k``: (final positions as a wp.array, initial energy,
    final energy)."""
    p, v, m = bodies(n, seed=1000 + k)
    pos = wp.array(p, dtype=wp.vec3, device=device)
    vel = wp.array(v, dtype=wp.vec3, device=device)
    mass = wp.array(m, dtype=float, device=device)
    new_pos = wp.zeros(n, dtype=wp.vec3, device=device)
    new_vel = wp.zeros(n, dtype=wp.vec3, device=device)
    e0 = energy(pos, vel, mass, n, device)
    for _ in range(steps):
        wp.launch(
            kernels.nbody_step,
            dim=n,
            inputs=[pos, vel, mass, new_pos, new_vel, n, DT, GRAV, EPS2],
            device=device,
        )
        pos, new_pos = new_pos, pos
        vel, new_vel = new_vel, vel
    wp.synchronize_device(device)
    return pos, e0, energy(pos, vel, mass, n, device)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "vulkan", "cuda"])
    ap.add_argument("--sims", type=int, default=8)
    ap.add_argument("--bodies", type=int, default=512)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--check", action="store_true", help="rank 0 reruns every simulation and compares")
    args = ap.parse_args(argv)
    comm = MPI.COMM_WORLD
    rank, size = comm.rank, comm.size
    if args.sims < 1 or args.bodies < 2 or args.steps < 1:
        if rank == 0:
            print("ensemble.py: --sims >= 1, --bodies >= 2 and --steps >= 1 are needed")
        return 2
    device = device_or_exit(args.device, comm)
    n = args.bodies
    mine = list(range(rank, args.sims, size))

    # Compile (and reach the vector tier) before the clock starts.
    simulate(0, 8, 1, device)
    comm.Barrier()
    t0 = time.perf_counter()
    results = {}
    for k in mine:
        pos, e0, e1 = simulate(k, n, args.steps, device)
        results[k] = (pos, e0, e1)
    busy = time.perf_counter() - t0
    comm.Barrier()
    wall = time.perf_counter() - t0

    # Gather on rank 0: the energies (pickled, small), the positions as
    # buffers straight from the wp.arrays (tag = simulation index).
    summary = comm.gather({"rank": rank, "sims": mine, "busy": busy, "energies": {k: r[1:] for k, r in results.items()}})
    final = np.empty((args.sims, n, 3), dtype=np.float32) if rank == 0 else None
    if rank == 0:
        for k in results:
            final[k] = results[k][0].numpy()
        reqs = [comm.Irecv(final[k], source=k % size, tag=k) for k in range(args.sims) if k % size != 0]
        MPI.Request.Waitall(reqs)
    else:
        reqs = [comm.Isend(results[k][0], dest=0, tag=k) for k in mine]
        MPI.Request.Waitall(reqs)

    status = 0
    if rank == 0:
        per_sim = n * args.steps  # body-steps
        total_sims = 0
        print(
            f"ensemble: {args.sims} N-body simulations of {n} bodies x {args.steps} steps on {size} rank(s) "
            f"({threads_per_rank()} launch thread(s) each), device {device}"
        )
        for s in summary:
            rate = len(s["sims"]) * per_sim / s["busy"] if s["busy"] > 0 else 0.0
            total_sims += len(s["sims"])
            print(
                f"  rank {s['rank']}: {len(s['sims'])} simulation(s) {s['sims']} in {s['busy']:.3f} s: "
                f"{rate / 1e3:.1f} k body-steps/s ({rate * n / 1e6:.1f} M interactions/s)"
            )
        total = total_sims * per_sim / wall
        print(f"  total: {total_sims} simulations in {wall:.3f} s: {total / 1e3:.1f} k body-steps/s ({total * n / 1e6:.1f} M interactions/s)")
        energies = {k: e for s in summary for k, e in s["energies"].items()}
        drifts = [abs(energies[k][1] - energies[k][0]) / abs(energies[k][0]) for k in range(args.sims)]
        print(f"  energy drift: max {max(drifts):.2e} (bound {DRIFT_MAX:g})")
        result = {
            "device": str(device),
            "ranks": size,
            "sims": args.sims,
            "bodies": n,
            "steps": args.steps,
            "wall_s": wall,
            "body_steps_per_s": total,
            "per_rank_body_steps_per_s": [len(s["sims"]) * per_sim / s["busy"] for s in summary],
            "max_drift": max(drifts),
        }
        if args.check:
            same = []
            for k in range(args.sims):
                pos, _, _ = simulate(k, n, args.steps, device)
                same.append(bool(np.array_equal(pos.numpy(), final[k])))
            ok = all(same) and max(drifts) < DRIFT_MAX
            print(
                f"check: gathered positions bit-identical to rank 0's rerun for {sum(same)}/{args.sims} simulation(s); "
                f"drift under {DRIFT_MAX:g}: {max(drifts) < DRIFT_MAX}"
            )
            print("CHECK " + ("PASSED" if ok else "FAILED"))
            result["check"] = ok
            status = 0 if ok else 1
        print("RESULT " + json.dumps(result))
    return comm.bcast(status, root=0)


if __name__ == "__main__":
    sys.exit(main())
