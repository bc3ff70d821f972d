#!/usr/bin/env python3
"""Writes crates/python/python/weft/warp/_warp_names.json: the public names
of the installed NVIDIA Warp (`warp-lang`, 1.19) and of the submodules its
users import, for the name-coverage test of `weft.warp`
(crates/python/python/tests/test_names.py).

Run it with a Python that has the reference Warp installed (CPU is enough):

    python3 -m venv /tmp/warpref && /tmp/warpref/bin/pip install warp-lang==1.19.0 numpy
    /tmp/warpref/bin/python scripts/warp-names.py

A module's public names are `[n for n in dir(mod) if not n.startswith("_")]`.
`builtins` lists the names of `warp` that are kernel builtins (Warp's
builtin registry, `warp._src.context.builtin_functions`); `absent` lists the
submodules asked for that this Warp does not have (importing them fails in
Warp too). Names only: nothing of Warp's code is copied.
"""

import importlib
import json
import os
import sys

# The submodules Warp's users import; `warp.jax_experimental` and
# `warp.torch` were public modules of older Warps (1.19 has the interop
# functions at the top level: wp.from_torch, wp.to_jax, ...).
SUBMODULES = [
    "warp.types",
    "warp.utils",
    "warp.sparse",
    "warp.optim",
    "warp.optim.linear",
    "warp.fem",
    "warp.fem.linalg",
    "warp.fem.utils",
    "warp.render",
    "warp.geometry",
    "warp.autograd",
    "warp.config",
    "warp.build_experimental",
    "warp.jax_experimental",
    "warp.torch",
]

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "python", "python", "weft", "warp", "_warp_names.json")


def public(mod):
    return sorted(n for n in dir(mod) if not n.startswith("_"))


def main(argv):
    out = os.path.normpath(argv[1] if len(argv) > 1 else OUT)
    import warp

    if getattr(warp, "_weft_compat", False):
        sys.exit("warp-names.py: `import warp` found weft.warp, not NVIDIA Warp; run it with Warp's own Python")
    modules = {"warp": public(warp)}
    absent = []
    for name in SUBMODULES:
        try:
            modules[name] = public(importlib.import_module(name))
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            absent.append(name)
    from warp._src import context

    builtins = sorted(n for n in modules["warp"] if n in context.builtin_functions)
    data = {
        "generator": "scripts/warp-names.py",
        "warp_version": warp.__version__,
        "modules": modules,
        "builtins": builtins,
        "absent": absent,
    }
    with open(out, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    counts = ", ".join(f"{k} {len(v)}" for k, v in modules.items())
    print(f"{out}: Warp {warp.__version__}: {counts}; {len(builtins)} builtins; absent: {', '.join(absent) or 'none'}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
