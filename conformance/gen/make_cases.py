"""Generates Weft's own conformance cases with real Warp 1.19 on the CPU.

    /work/warpvenv/bin/python conformance/gen/make_cases.py             # every case
    /work/warpvenv/bin/python conformance/gen/make_cases.py --only NAME # some cases
    /work/warpvenv/bin/python conformance/gen/make_cases.py --verify    # regenerate in a temp dir, require identical files

The cases use the format of the shared corpus (`../shared/conformance`,
its README): `cases/<name>/{kernel.py, case.json, <arg>.npy,
expected_<arg>.npy}` and `index.json`. Case definitions live in `defs/*.py`:
a function decorated with `@case(name, tags)` taking a numpy generator
(seeded from the case name) and returning `dict(src=..., kernel=...,
dim=[...], args=[Arr(...)/Scal(...)], check=[...], rtol=, atol=, note=)`.
Inputs are written first, then the case is run with Warp exactly as
`weft conform` runs it and every checked array is read back.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import pkgutil
import shutil
import sys
import tempfile
import textwrap
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from caselib import REGISTRY, Arr, CaseDef, elem_info, packed_struct_dtype  # noqa: E402


def json_value(v, dtype):
    sd, es = elem_info(dtype)
    if not es:
        if dtype == "bool":
            return bool(v)
        if dtype == "bfloat16":
            return float(v)
        if sd.kind == "f":
            return float(sd.type(v))
        return int(v)
    a = np.asarray(v, dtype=sd).reshape(es)
    conv = float if sd.kind == "f" else int
    if len(es) == 1:
        return [conv(x) for x in a]
    return [[conv(x) for x in row] for row in a]


def write_case(d: Path, cd: CaseDef, spec: dict):
    d.mkdir(parents=True, exist_ok=True)
    src = "import warp as wp\n\n\n" + textwrap.dedent(spec["src"]).strip("\n") + "\n"
    (d / "kernel.py").write_text(src)
    args = []
    for a in spec["args"]:
        if isinstance(a, Arr):
            if a.fields is not None:
                data = np.ascontiguousarray(a.data.astype(packed_struct_dtype(a.fields)))
            else:
                sd, _ = elem_info(a.dtype)
                data = np.ascontiguousarray(a.data.astype(sd, copy=False))
            np.save(d / f"{a.name}.npy", data)
            shp = a.shape()
            aj = {"name": a.name, "kind": "array", "dtype": a.dtype, "ndim": a.ndim or len(shp),
                  "shape": shp, "file": f"{a.name}.npy"}
            if a.fields is not None:
                aj["fields"] = [{"name": n, "dtype": t} for n, t in a.fields]
                aj["npy_layout"] = "packed numpy structured dtype, one field per struct member in declaration order"
            args.append(aj)
        else:
            args.append({"name": a.name, "kind": "scalar", "dtype": a.dtype, "value": json_value(a.value, a.dtype)})
    j = {"name": cd.name, "kernel": spec["kernel"], "dim": list(spec["dim"]), "args": args,
         "check": list(spec["check"]), "rtol": spec.get("rtol", 0.0), "atol": spec.get("atol", 0.0)}
    if "tolerances" in spec:
        j["tolerances"] = spec["tolerances"]
    j["tags"] = cd.tags
    j["note"] = spec.get("note", "")
    (d / "case.json").write_text(json.dumps(j, indent=1) + "\n")


_wp = None


def warp():
    global _wp
    if _wp is None:
        import warp as wp

        wp.config.quiet = True
        wp.init()
        _wp = wp
    return _wp


def wp_dtype(wp, name):
    return getattr(wp, name) if name not in ("bool",) else wp.bool


def run_case(d: Path):
    """Runs `d` with Warp and writes `expected_<name>.npy` for every checked array."""
    wp = warp()
    j = json.loads((d / "case.json").read_text())
    modname = f"weft_case_{j['name']}"
    spec = importlib.util.spec_from_file_location(modname, d / "kernel.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    kernel = getattr(mod, j["kernel"])
    inputs, arrays = [], {}
    for a in j["args"]:
        t = getattr(mod, a["dtype"], None) if "fields" in a else wp_dtype(wp, a["dtype"])
        if a["kind"] == "array" and "fields" in a:
            data = np.load(d / a["file"])
            aligned = np.zeros(data.shape, dtype=t.numpy_dtype())
            for f in a["fields"]:
                aligned[f["name"]] = data[f["name"]]
            arr = wp.array(aligned, dtype=t, device="cpu")
            arrays[a["name"]] = arr
            inputs.append(arr)
        elif a["kind"] == "array":
            data = np.load(d / a["file"])
            arr = wp.array(data, dtype=t, shape=tuple(a["shape"]), device="cpu")
            arrays[a["name"]] = arr
            inputs.append(arr)
        else:
            v = a["value"]
            inputs.append(t(*np.asarray(v).reshape(-1).tolist()) if isinstance(v, list) else t(v))
    wp.launch(kernel, dim=tuple(j["dim"]), inputs=inputs, device="cpu")
    wp.synchronize()
    specs = {a["name"]: a for a in j["args"]}
    for n in j["check"]:
        out = arrays[n].numpy()
        if "fields" in specs[n]:
            fields = [(f["name"], f["dtype"]) for f in specs[n]["fields"]]
            packed = np.zeros(out.shape, dtype=packed_struct_dtype(fields))
            for f, _ in fields:
                packed[f] = out[f]
            out = packed
        np.save(d / f"expected_{n}.npy", np.ascontiguousarray(out))


def load_defs():
    import defs  # noqa: F401

    for m in pkgutil.iter_modules([str(HERE / "defs")]):
        importlib.import_module(f"defs.{m.name}")


def generate(root: Path, only: list[str] | None):
    cases = root / "cases"
    names = []
    for cd in REGISTRY:
        names.append(cd)
        if only and cd.name not in only:
            continue
        rng = np.random.default_rng(zlib.crc32(cd.name.encode()))
        spec = cd.fn(rng)
        d = cases / cd.name
        if d.exists():
            shutil.rmtree(d)
        write_case(d, cd, spec)
        run_case(d)
        print("ok", cd.name)
    if not only:
        for d in cases.iterdir():
            if d.is_dir() and d.name not in {c.name for c in REGISTRY}:
                shutil.rmtree(d)
    idx = {"format_version": 1, "warp_version": warp().config.version, "device": "cpu",
           "num_cases": len(names),
           "cases": [{"name": c.name, "tags": c.tags,
                      "note": json.loads((cases / c.name / "case.json").read_text())["note"]}
                     for c in sorted(names, key=lambda c: c.name)]}
    (root / "index.json").write_text(json.dumps(idx, indent=1) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--verify", action="store_true")
    args = ap.parse_args()
    load_defs()
    if args.verify:
        tmp = Path(tempfile.mkdtemp(prefix="weft_conf_"))
        generate(tmp, None)
        bad = 0
        for f in sorted((tmp / "cases").rglob("*")):
            if f.is_file():
                g = ROOT / "cases" / f.relative_to(tmp / "cases")
                if not g.exists() or g.read_bytes() != f.read_bytes():
                    print("differs:", g)
                    bad += 1
        shutil.rmtree(tmp)
        sys.exit(1 if bad else 0)
    generate(ROOT, args.only)


if __name__ == "__main__":
    main()
