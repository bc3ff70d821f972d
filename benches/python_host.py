"""Host-side figures of the Python package beside NVIDIA Warp's, each in a
fresh process of the given interpreter:

    python benches/python_host.py [--warp ~/.cache/weft/warp-venv/bin/python] [--weft .venv-py/bin/python]

* import: ``import weft.warp`` / ``import warp; wp.init()``;
* cold first launch: the N-body step kernel (examples/nbody.py) launched
  once, in a process with an empty kernel cache (a fresh cache directory);
* warm first launch: the same in a new process, the cache now filled;
* launch overhead: mean ``wp.launch`` time of a 1-thread kernel with one
  array argument, over 20,000 launches after a warm-up; and of
  ``Launch.launch()`` of the same launch recorded once
  (``record_cmd=True``).

Both packages are byte-compiled first (``compileall``), as ``pip install``
leaves them.

Build the package in release first (``WEFT_PY_RELEASE=1 scripts/python-test.sh``)."""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import os, sys, time, json, importlib.util
mode, what = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if mode == "weft":
    import weft.warp as wp
    sys.modules["warp"] = wp
else:
    import warp as wp
    wp.config.quiet = True
    wp.config.kernel_cache_dir = os.environ["BENCH_CACHE"]
    wp.init()
t_import = time.perf_counter() - t0
out = {"import_s": t_import}
if what == "first":
    spec = importlib.util.spec_from_file_location("nbody_kernels", os.path.join(sys.argv[3], "examples", "nbody.py"))
    k = importlib.util.module_from_spec(spec); spec.loader.exec_module(k)
    n = 256
    pos = wp.zeros(n, dtype=wp.vec3); vel = wp.zeros(n, dtype=wp.vec3); mass = wp.ones(n, dtype=float)
    np_, nv = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3)
    t0 = time.perf_counter()
    wp.launch(k.nbody_step, dim=n, inputs=[pos, vel, mass, np_, nv, n, 1e-3, 1.0, 0.0025])
    wp.synchronize()
    out["first_launch_s"] = time.perf_counter() - t0
elif what == "overhead":
    @wp.kernel
    def one(a: wp.array(dtype=float)):
        a[0] = a[0] + 1.0
    a = wp.zeros(1, dtype=float)
    for _ in range(1000):
        wp.launch(one, dim=1, inputs=[a])
    n = 20000
    t0 = time.perf_counter()
    for _ in range(n):
        wp.launch(one, dim=1, inputs=[a])
    wp.synchronize()
    out["launch_us"] = (time.perf_counter() - t0) / n * 1e6
    cmd = wp.launch(one, dim=1, inputs=[a], record_cmd=True)
    for _ in range(1000):
        cmd.launch()
    t0 = time.perf_counter()
    for _ in range(n):
        cmd.launch()
    wp.synchronize()
    out["recorded_us"] = (time.perf_counter() - t0) / n * 1e6
print("BENCH" + json.dumps(out))
"""


def run(python, mode, what, env):
    # A file, not `-c`: kernels' source is read from their file.
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(CHILD)
    try:
        r = subprocess.run([python, f.name, mode, what, ROOT], capture_output=True, text=True, env=env, check=True)
    finally:
        os.unlink(f.name)
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("BENCH"))
    return json.loads(line[5:])


def precompile(python, mode):
    """Byte-compiles the package as ``pip install`` does (an editable or
    in-tree build has no ``.pyc`` where ``PYTHONDONTWRITEBYTECODE`` is set,
    and each process would then compile its modules again)."""
    pkg = "weft" if mode == "weft" else "warp"
    where = subprocess.run([python, "-c", f"import {pkg}, os; print(os.path.dirname({pkg}.__file__))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([python, "-m", "compileall", "-q", where], check=True, stdout=subprocess.DEVNULL)


def figures(python, mode):
    precompile(python, mode)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, BENCH_CACHE=cache, XDG_CACHE_HOME=cache, WEFT_CACHE_DIR=os.path.join(cache, "weft"))
        imp = min(run(python, mode, "import", env)["import_s"] for _ in range(3))
        cold = run(python, mode, "first", env)["first_launch_s"]
        warm = run(python, mode, "first", env)["first_launch_s"]
        o = run(python, mode, "overhead", env)
    return imp, cold, warm, o["launch_us"], o["recorded_us"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warp", default=os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "weft", "warp-venv", "bin", "python"))
    ap.add_argument("--weft", default=os.path.join(ROOT, ".venv-py", "bin", "python"))
    args = ap.parse_args()
    rows = [("Weft", figures(args.weft, "weft")), ("Warp 1.19", figures(args.warp, "warp"))]
    print(f"{'':10} {'import':>10} {'cold 1st launch':>16} {'warm 1st launch':>16} {'launch (1 thread)':>18} {'wp.Launch.launch':>17}")
    for name, (imp, cold, warm, over, rec) in rows:
        print(f"{name:10} {imp * 1e3:8.1f}ms {cold * 1e3:14.1f}ms {warm * 1e3:14.2f}ms {over:15.2f} µs {rec:14.2f} µs")


if __name__ == "__main__":
    sys.exit(main())
