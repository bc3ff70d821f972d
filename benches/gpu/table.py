"""The workloads table of scripts/gpu-check.sh from the JSON lines of
`weft bench-gpu --json`, benches/gpu/workloads (CUDA C) and
benches/gpu/peers.py: `python3 benches/gpu/table.py FILE...` prints
Markdown. Times are medians in ms; lines that are not JSON are ignored."""

import json
import sys

IMPLS = [
    ("weft", "Weft"),
    ("cuda-c", "CUDA C (nvcc -O3)"),
    ("cuda-c-nofma", "CUDA C, -fmad=false"),
    ("numba-cuda", "numba-cuda"),
    ("triton", "Triton"),
    ("cupy", "CuPy (ElementwiseKernel)"),
    ("cupy-ops", "CuPy array ops"),
]
PEERS = ["numba-cuda", "triton", "cupy", "cupy-ops"]
WORKLOADS = ["nbody", "saxpy", "transcendental", "atomic_sum"]
NAMES = {"nbody": "N-body step", "saxpy": "saxpy", "transcendental": "transcendental", "atomic_sum": "atomic sum"}
GOAL = 1.1


def load(paths):
    """Rows by (impl, workload); an error of a whole impl is a row under
    every workload."""
    rows, errors = {}, []
    for p in paths:
        try:
            lines = open(p, encoding="utf-8", errors="replace").read().splitlines()
        except OSError as e:
            errors.append(f"{p}: {e.strerror}")
            continue
        for line in lines:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if "error" in r:
                r["error"] = " ".join(str(r["error"]).split())
                where = " ".join(x for x in (r.get("impl", "?"), r.get("workload", "")) if x)
                errors.append(f"{where}: {r['error']}")
                for w in [r["workload"]] if "workload" in r else WORKLOADS:
                    rows.setdefault((r.get("impl", "?"), w), r)
            elif "impl" in r and "workload" in r:
                rows[(r["impl"], r["workload"])] = r
    return rows, errors


def ms(r, key="host_ms"):
    if r is None:
        return "–"
    if "error" in r:
        return "error"
    v = r.get(key)
    if v is None:
        return "–"
    cell = f"{v:.3f}" if v < 100 else f"{v:.1f}"
    if str(r.get("check", "")).startswith("FAILED"):
        cell += " (check FAILED)"
    return cell


def ok(r):
    return r is not None and "error" not in r and r.get("host_ms") and not str(r.get("check", "")).startswith("FAILED")


def table(rows):
    # Weft and CUDA C always; the others when they left a row.
    present = [(k, n) for k, n in IMPLS if k in ("weft", "cuda-c") or any((k, w) in rows for w in WORKLOADS)]
    keys = [k for k, _ in present]
    out = ["Host clock, launch until the device is idle (median ms; what `weft bench-gpu` measures):", ""]
    head = ["workload", "size"] + [n for _, n in present] + [f"Weft / CUDA C (goal ≤ {GOAL})", "Weft ahead of the peers"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for w in WORKLOADS:
        sizes = {rows[(k, w)]["size"] for k in keys if rows.get((k, w), {}).get("size")}
        size = " / ".join(sorted(sizes)) + (" (sizes differ!)" if len(sizes) > 1 else "")
        cells = [NAMES[w], size] + [ms(rows.get((k, w))) for k in keys]
        wf, cc = rows.get(("weft", w)), rows.get(("cuda-c", w))
        if ok(wf) and ok(cc):
            q = wf["host_ms"] / cc["host_ms"]
            cells.append(f"{q:.2f}x " + ("(met)" if q <= GOAL else "(NOT met)"))
        else:
            cells.append("–")
        peers = [(p, rows[(p, w)]) for p in PEERS if ok(rows.get((p, w)))]
        if ok(wf) and peers:
            best = min(peers, key=lambda pr: pr[1]["host_ms"])
            ahead = wf["host_ms"] < best[1]["host_ms"]
            cells.append(("yes" if ahead else "no") + f" (best peer: {best[0]}, {best[1]['host_ms']:.3f})")
        else:
            cells.append("–")
        out.append("| " + " | ".join(cells) + " |")
    n = len(head)
    out.append("| tile matmul | – | " + " | ".join(["n/a: tiles not implemented"] + [""] * (n - 3)) + " |")
    ev = [(k, nm) for k, nm in present if any(rows.get((k, w), {}).get("event_ms") is not None for w in WORKLOADS)]
    if ev:
        out += ["", "CUDA events around each launch (median ms, GPU time; Weft's API has no events):", ""]
        head = ["workload"] + [nm for _, nm in ev]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for w in WORKLOADS:
            out.append("| " + " | ".join([NAMES[w]] + [ms(rows.get((k, w)), "event_ms") for k, _ in ev]) + " |")
    rates = []
    for w in WORKLOADS:
        for k, nm in present:
            r = rows.get((k, w))
            if ok(r):
                rates.append(f"{NAMES[w]}, {nm}: {r['rate']:.1f} {r['unit']}; {r.get('check', '')}"
                             + (f"; {r['note']}" if r.get("note") else ""))
    if rates:
        out += ["", "Rates (host clock) and checks:", ""] + [f"* {x}" for x in rates]
    return out


def main(paths):
    rows, errors = load(paths)
    out = table(rows)
    if errors:
        out += ["", "Errors:", ""] + [f"* {e}" for e in errors]
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
