"""``python -m weft.warp_tests [--device D] [--tests-dir DIR] FILE...``:
runs test files of Warp 1.19's own suite, unmodified, with ``import warp``
bound to ``weft.warp`` for this process.

The files are taken from the ``warp-lang==1.19.0`` wheel, downloaded with
pip (``--no-deps``) into ``$XDG_CACHE_HOME/weft/warp-1.19.0`` (default
``~/.cache``) on first use, unless ``--tests-dir`` names a ``warp/tests``
directory. Prints ``FILE: P passed, F failed, S skipped`` per file (errors
count as failures; a file that does not import is one failure) and last
``P passed, F failed``. Tests' own output goes to stderr with ``-v``."""

import argparse
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import types
import unittest
import zipfile

WARP_VERSION = "1.19.0"


def cache_tests_dir():
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    base = os.path.join(root, "weft", f"warp-{WARP_VERSION}")
    tests = os.path.join(base, "warp", "tests")
    if os.path.isdir(tests):
        return tests
    os.makedirs(base, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"warp-lang=={WARP_VERSION}", "-d", tmp],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        wheel = next(os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".whl"))
        with zipfile.ZipFile(wheel) as z:
            for name in z.namelist():
                if name.startswith("warp/tests/"):
                    z.extract(name, base)
    return tests


def install_alias(tests_dir):
    """Binds ``warp`` (and what Warp's tests import of it) to Weft."""
    import weft.warp as wp

    sys.modules["warp"] = wp
    sys.modules["warp.types"] = wp.types
    sys.modules["warp.config"] = wp.config  # an object in Weft, a module in Warp: `import warp.config` works
    sys.modules["warp._src"] = wp._src
    sys.modules["warp._src.logger"] = wp._src.logger
    from weft.warp import _unittest_utils
    import weft.warp.autograd
    import weft.warp.fem
    import weft.warp.geometry
    import weft.warp.optim
    import weft.warp.render
    import weft.warp.sparse  # noqa: F401

    # Warp's submodules: each `weft.warp.X` (and `weft.warp.X.Y`) as `warp.X`.
    for name, mod in list(sys.modules.items()):
        if name.startswith("weft.warp.") and mod is not None and not name.startswith("weft.warp._"):
            sys.modules.setdefault("warp." + name[len("weft.warp.") :], mod)

    pkg = types.ModuleType("warp.tests")
    pkg.__path__ = [tests_dir]
    sys.modules["warp.tests"] = pkg
    wp.tests = pkg
    sys.modules["warp.tests.unittest_utils"] = _unittest_utils
    pkg.unittest_utils = _unittest_utils
    return wp


class _Counts(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.passed = 0

    def addSuccess(self, test):
        self.passed += 1


def run_file(tests_dir, rel, verbose):
    path = os.path.join(tests_dir, rel)
    modname = "warp.tests." + rel[:-3].replace("/", ".")
    err = io.StringIO()
    try:
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
    except BaseException as e:  # noqa: BLE001 (a file that does not import is one failure)
        return 0, 1, 0, f"import failed: {type(e).__name__}: {e}"
    suite = unittest.TestLoader().loadTestsFromModule(mod)
    result = _Counts()
    out = sys.stdout
    sys.stdout = sys.stderr if verbose else io.StringIO()
    try:
        suite.run(result)
    finally:
        sys.stdout = out
    if verbose:
        for t, tb in result.failures + result.errors:
            print(f"--- {t.id()}\n{tb}", file=sys.stderr)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    del err
    return result.passed + len(result.expectedFailures), failed, len(result.skipped), None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m weft.warp_tests", description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--tests-dir")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    tests_dir = args.tests_dir or cache_tests_dir()
    os.environ["WEFT_WARP_TESTS_DEVICE"] = args.device
    install_alias(tests_dir)
    tp = tf = 0
    for rel in args.files:
        p, f, s, note = run_file(tests_dir, rel, args.verbose)
        tp, tf = tp + p, tf + f
        print(f"{rel}: {p} passed, {f} failed, {s} skipped" + (f" ({note})" if note else ""), flush=True)
    print(f"{tp} passed, {tf} failed")
    return 0 if tf == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
