"""Runs each peer (its own process) on the `weft bench` workloads and
prints a table of median launch times (ms); fails if a peer's results do
not match numpy's. `--quick`: small sizes; `--json`: the raw lines."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = [["taichi_peer.py"], ["taichi_peer.py", "--ieee"], ["numba_peer.py"]]


def main():
    flags = [a for a in sys.argv[1:] if a == "--quick"]
    rows = []
    for peer in PEERS:
        cmd = [sys.executable, os.path.join(HERE, peer[0])] + peer[1:] + flags
        print("peers: " + " ".join(peer + flags), file=sys.stderr, flush=True)
        out = subprocess.run(cmd, cwd=HERE, check=True, stdout=subprocess.PIPE, text=True).stdout
        rows += [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    if "--json" in sys.argv:
        for r in rows:
            print(json.dumps(r))
    peers = list(dict.fromkeys(r["peer"] for r in rows))
    works = list(dict.fromkeys(r["workload"] for r in rows))
    table = [["workload"] + peers]
    for w in works:
        line = [w]
        for p in peers:
            r = next((r for r in rows if r["peer"] == p and r["workload"] == w), None)
            if r is None:
                line.append("-")
            elif r["error"]:
                line.append("WRONG: " + r["error"])
            else:
                line.append(f"{r['median_ms']:.2f} ms")
        table.append(line)
    width = [max(len(r[k]) for r in table) for k in range(len(table[0]))]
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip())
    first = ", ".join(f"{p} {max(r['first_ms'] for r in rows if r['peer'] == p) / 1e3:.1f} s" for p in peers)
    reps = sorted({len(r["ms"]) for r in rows})
    print(f"median of {'/'.join(map(str, reps))} launches after a first one; "
          f"{os.cpu_count()} threads; slowest first launch (JIT compile): {first}")
    bad = [r for r in rows if r["error"]]
    for r in bad:
        print(f"error: {r['peer']} {r['workload']}: result differs from numpy: {r['error']}", file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
