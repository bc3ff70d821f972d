"""``python -m weft.warp_tests``: runs test files of Warp 1.19's own suite,
unmodified, with ``import warp`` bound to ``weft.warp``.

Two modes:

* ``python -m weft.warp_tests [--device D] [--tests-dir DIR] [-v] FILE...``
  runs the files one after another in this process. Prints
  ``FILE: P passed, F failed, S skipped`` per file (errors count as
  failures; a file that does not import is one failure) and last
  ``P passed, F failed``; exits 1 when anything failed.
* ``--all`` (every ``test_*.py`` of the suite, subdirectories included) or
  ``--isolate FILE...`` runs each file in its own subprocess with a time
  limit (``--timeout``, ``--jobs`` in parallel), so that a crash or a hang
  costs that file only, and compares with what real Warp 1.19 passes (the
  baseline): per directory, and last ``P passed of N``, where N is the
  number of tests real Warp passes over the files run and P sums Weft's
  passes per file counted up to Warp's for that file. A file that crashes
  its process (a signal, or an exit without a result), times out or does not
  import counts Warp's number of tests for it (``ran`` in the baseline; 1
  when unknown) as failures. Exits 1 when a file crashed or timed out.

The files are taken from the ``warp-lang==1.19.0`` wheel, downloaded with
pip (``--no-deps``) into ``$XDG_CACHE_HOME/weft/warp-1.19.0`` (default
``~/.cache``) on first use, unless ``--tests-dir`` names a ``warp/tests``
directory.

The baseline is a TSV file, one line per test file:
``file  seconds  ran  failures  errors  skipped``; Warp passes
``ran - failures - errors - skipped`` of a file. ``--baseline-file PATH``
names one; ``--baseline`` measures the files missing from
``$XDG_CACHE_HOME/weft/warp-1.19.0/baseline_cpu.tsv`` with the real
``warp-lang`` (installed on first use into the venv
``$XDG_CACHE_HOME/weft/warp-baseline-venv``), each file in its own process,
and adds them to that file; without either flag that file is used when it
exists. ``cpu``, ``llvm-cpu``, ``interp`` and ``vulkan`` share the CPU
baseline (real Warp on the CPU); ``cuda`` devices have their own
(``baseline_cuda.tsv``, real Warp with every device of the machine)."""

import argparse
import concurrent.futures
import dataclasses
import importlib
import importlib.util
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
import unittest
import zipfile

WARP_VERSION = "1.19.0"
DEFAULT_TIMEOUT = 600.0
BASELINE_HEADER = ("file", "seconds", "ran", "failures", "errors", "skipped")


def cache_root():
    """``$XDG_CACHE_HOME/weft`` (default ``~/.cache/weft``)."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "weft")


def _warp_cache_dir():
    return os.path.join(cache_root(), f"warp-{WARP_VERSION}")


def cache_tests_dir():
    """Warp 1.19's ``warp/tests`` directory, extracted from the
    ``warp-lang`` wheel into the cache on first use."""
    base = _warp_cache_dir()
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
    # The internals Warp's tests import by their `warp._src` names.
    for name, mod in (("types", wp.types), ("context", wp._src.context), ("codegen", wp._src.codegen), ("utils", wp.utils)):
        sys.modules[f"warp._src.{name}"] = mod
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
        # The internals under their `warp._src` names (`import warp._src.build`).
        if name.startswith("weft.warp._src.") and mod is not None:
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


def _module_name(rel):
    return "warp.tests." + rel[:-3].replace("/", ".")


def _run_file_full(tests_dir, rel, verbose, real_warp=False, hide_stdout=True):
    """Runs one test file here; returns a dict of counts (``passed``,
    ``failed``, ``skipped`` as the in-process report counts them; ``ran``,
    ``failures``, ``errors`` as unittest's summary does) and ``note``.
    ``real_warp``: import the file as a module of the installed ``warp``
    package (the baseline), not from ``tests_dir``. ``hide_stdout``: the
    tests' ``print``s go to a buffer unless ``verbose`` (a child process
    leaves ``sys.stdout`` a real file: real Warp redirects its descriptor
    when it compiles)."""
    counts = {"passed": 0, "failed": 0, "skipped": 0, "ran": 0, "failures": 0, "errors": 0, "note": None}
    modname = _module_name(rel)
    try:
        if real_warp:
            mod = importlib.import_module(modname)
        else:
            spec = importlib.util.spec_from_file_location(modname, os.path.join(tests_dir, rel))
            mod = importlib.util.module_from_spec(spec)
            sys.modules[modname] = mod
            spec.loader.exec_module(mod)
    except BaseException as e:  # noqa: BLE001 (a file that does not import is one failure)
        counts.update(failed=1, ran=1, errors=1, note=f"import failed: {type(e).__name__}: {e}")
        return counts
    suite = unittest.TestLoader().loadTestsFromModule(mod)
    result = _Counts()
    out = sys.stdout
    if verbose:
        sys.stdout = sys.stderr
    elif hide_stdout:
        sys.stdout = io.StringIO()
    try:
        suite.run(result)
    finally:
        sys.stdout = out
    if verbose:
        for t, tb in result.failures + result.errors:
            print(f"--- {t.id()}\n{tb}", file=sys.stderr)
    counts.update(
        passed=result.passed + len(result.expectedFailures),
        failed=len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses),
        skipped=len(result.skipped),
        ran=result.testsRun,
        failures=len(result.failures),
        errors=len(result.errors),
    )
    return counts


def run_file(tests_dir, rel, verbose):
    """Runs one test file in this process (``warp`` must be bound, see
    ``install_alias``); returns ``(passed, failed, skipped, note)``."""
    c = _run_file_full(tests_dir, rel, verbose)
    return c["passed"], c["failed"], c["skipped"], c["note"]


# ---------------------------------------------------------------------------
# The suite's files and the baseline


def discover_files(tests_dir):
    """Every ``test_*.py`` under ``tests_dir`` (subdirectories included),
    as sorted paths relative to it with ``/`` separators."""
    if not os.path.isdir(tests_dir):
        raise FileNotFoundError(f"tests_dir: no directory {tests_dir!r}")
    found = []
    for root, dirs, files in os.walk(tests_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")) and d != "assets")
        rel_root = os.path.relpath(root, tests_dir)
        for f in files:
            if f.startswith("test_") and f.endswith(".py"):
                found.append(f if rel_root == "." else f"{rel_root}/{f}".replace(os.sep, "/"))
    return sorted(found)


def top_dir(rel):
    """The top directory of a test file's relative path, ``.`` for the top
    level: ``matrix/test_mat.py`` -> ``matrix``."""
    head, sep, _ = rel.partition("/")
    return head if sep else "."


def select_dirs(files, only=None, exclude=None):
    """The files whose top directory (``top_dir``) is in ``only`` (when
    given) and not in ``exclude``."""
    only = set(only) if only else None
    exclude = set(exclude or ())
    return [f for f in files if (only is None or top_dir(f) in only) and top_dir(f) not in exclude]


@dataclasses.dataclass
class BaselineEntry:
    """Real Warp's counts for one test file (one TSV line)."""

    seconds: float
    ran: int
    failures: int
    errors: int
    skipped: int

    @property
    def passed(self):
        """The tests real Warp passes: ``ran - failures - errors - skipped``
        (not below 0)."""
        return max(0, self.ran - self.failures - self.errors - self.skipped)


def baseline_key(device):
    """The baseline a device is compared with: ``cpu`` for ``cpu``,
    ``llvm-cpu``, ``interp`` and ``vulkan``; ``cuda`` for ``cuda:N``."""
    if not isinstance(device, str) or not device:
        raise ValueError(f"device: expected a device name, got {device!r}")
    return "cuda" if device.split(":")[0] == "cuda" else "cpu"


def default_baseline_path(device):
    """Where ``--baseline`` keeps the baseline for ``device``:
    ``$XDG_CACHE_HOME/weft/warp-1.19.0/baseline_<key>.tsv``."""
    return os.path.join(_warp_cache_dir(), f"baseline_{baseline_key(device)}.tsv")


def read_baseline(path):
    """Reads a baseline TSV (``file seconds ran failures errors skipped``;
    blank lines, ``#`` comments and a header line are ignored) into a dict
    file -> ``BaselineEntry``."""
    entries = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if tuple(fields) == BASELINE_HEADER:
                continue
            if len(fields) != 6:
                raise ValueError(f"baseline file {path}:{n}: expected 6 tab-separated fields, got {len(fields)}")
            try:
                entries[fields[0]] = BaselineEntry(float(fields[1]), *(int(x) for x in fields[2:]))
            except ValueError as e:
                raise ValueError(f"baseline file {path}:{n}: {e}") from None
    return entries


def write_baseline(path, entries):
    """Writes a dict file -> ``BaselineEntry`` as a baseline TSV, sorted by
    file (seconds rounded to whole seconds, as Warp's measured baseline)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        for rel in sorted(entries):
            e = entries[rel]
            f.write(f"{rel}\t{round(e.seconds)}\t{e.ran}\t{e.failures}\t{e.errors}\t{e.skipped}\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------------------
# One process per file


@dataclasses.dataclass
class FileResult:
    """One file's outcome in an isolated run. ``status``: ``ok``,
    ``import failed``, ``crashed`` or ``timed out``; ``note`` says more."""

    file: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    ran: int = 0
    failures: int = 0
    errors: int = 0
    seconds: float = 0.0
    status: str = "ok"
    note: str | None = None

    def line(self):
        """``FILE: P passed, F failed, S skipped`` and the note."""
        s = f"{self.file}: {self.passed} passed, {self.failed} failed, {self.skipped} skipped"
        return s + (f" ({self.note})" if self.note else "")


def _signal_name(n):
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def _child_env(real_warp):
    env = dict(os.environ)
    if real_warp:
        # The installed warp-lang, on the CPU only for the CPU baseline.
        env.pop("PYTHONPATH", None)
    elif env.get("PYTHONPATH"):
        # The children run in a scratch directory: keep the path absolute.
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) if p else p for p in env["PYTHONPATH"].split(os.pathsep))
    return env


class _Runner:
    """Runs test files each in a subprocess of its own (``--child-json``),
    ``jobs`` at a time, each within ``timeout`` seconds."""

    def __init__(self, tests_dir, device, timeout, jobs, verbose=False, python=None, real_warp=False):
        if not timeout or timeout <= 0:
            raise ValueError(f"timeout: expected a positive number of seconds, got {timeout!r}")
        if not isinstance(jobs, int) or jobs < 1:
            raise ValueError(f"jobs: expected a positive integer, got {jobs!r}")
        self.tests_dir = os.path.abspath(tests_dir) if tests_dir else None
        self.device = device
        self.timeout = timeout
        self.jobs = jobs
        self.verbose = verbose
        self.python = python or sys.executable
        self.real_warp = real_warp
        self.env = _child_env(real_warp)
        if real_warp and baseline_key(device) == "cpu":
            self.env["CUDA_VISIBLE_DEVICES"] = ""
        self._live = set()
        self._lock = threading.Lock()

    def _command(self, rel, out):
        if self.real_warp:
            # -I: neither PYTHONPATH nor this file's directory (which holds
            # Weft's `warp`) on the path; the installed warp-lang is imported.
            cmd = [self.python, "-I", os.path.abspath(__file__), "--real-warp"]
        else:
            cmd = [self.python, "-m", "weft.warp_tests", "--device", self.device, "--tests-dir", self.tests_dir]
        cmd += ["--child-json", out, rel]
        if self.verbose:
            cmd.append("-v")
        return cmd

    def run_one(self, rel, scratch):
        """Runs ``rel`` in a subprocess; returns a ``FileResult`` (crash and
        time-out results have no counts yet: see ``apply_losses``)."""
        out = os.path.join(scratch, rel.replace("/", "__") + ".json")
        log = os.path.join(scratch, rel.replace("/", "__") + ".log")
        start = time.monotonic()
        timed_out = False
        with open(log, "wb") as logf:
            proc = subprocess.Popen(
                self._command(rel, out),
                stdin=subprocess.DEVNULL,
                stdout=logf,
                stderr=subprocess.STDOUT,
                cwd=scratch,
                env=self.env,
                start_new_session=True,
            )
            with self._lock:
                self._live.add(proc)
            try:
                rc = proc.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                self._kill(proc)
                rc = proc.wait()
            finally:
                with self._lock:
                    self._live.discard(proc)
        res = FileResult(rel, seconds=time.monotonic() - start)
        counts = None
        if os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                counts = json.load(f)
        if timed_out:
            res.status, res.note = "timed out", "timed out"
        elif rc < 0:
            res.status, res.note = "crashed", f"crashed: {_signal_name(-rc)}"
            if counts is not None:
                res.note += " after its tests ran"
        elif counts is None:
            res.status, res.note = "crashed", f"crashed: exit code {rc} without a result"
        else:
            for k in ("passed", "failed", "skipped", "ran", "failures", "errors"):
                setattr(res, k, int(counts[k]))
            if counts.get("note"):
                res.status, res.note = "import failed", counts["note"]
        if self.verbose:
            with open(log, encoding="utf-8", errors="replace") as f:
                text = f.read()
            with self._lock:
                print(f"=== {rel} ({res.status})\n{text}", file=sys.stderr, flush=True)
        return res

    @staticmethod
    def _kill(proc):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            proc.kill()

    def run(self, files, on_result=None):
        """Runs every file; calls ``on_result(FileResult)`` in the order of
        ``files`` as soon as a file and those before it are done; returns
        the results in that order."""
        results = [None] * len(files)
        emitted = 0
        with tempfile.TemporaryDirectory(prefix="weft-warp-tests-") as scratch:
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs)
            futures = {}
            try:
                futures = {pool.submit(self.run_one, rel, scratch): i for i, rel in enumerate(files)}
                for fut in concurrent.futures.as_completed(futures):
                    results[futures[fut]] = fut.result()
                    while emitted < len(files) and results[emitted] is not None:
                        if on_result:
                            on_result(results[emitted])
                        emitted += 1
            except BaseException:
                for f in futures:
                    f.cancel()
                with self._lock:
                    for proc in list(self._live):
                        self._kill(proc)
                raise
            finally:
                pool.shutdown(wait=True)
        return results


def apply_losses(res, baseline):
    """A file that crashed, timed out or did not import: no passes, and as
    many failures as real Warp ran tests of it (1 when the baseline does
    not know the file)."""
    if res.status == "ok":
        return res
    entry = baseline.get(res.file) if baseline else None
    lost = entry.ran if entry and entry.ran > 0 else 1
    res.passed, res.skipped, res.failed = 0, 0, lost
    return res


# ---------------------------------------------------------------------------
# The score


@dataclasses.dataclass
class Score:
    """Weft's passes counted up to Warp's (``counted``) out of Warp's passes
    (``warp``), over ``files`` files."""

    files: int = 0
    counted: int = 0
    warp: int = 0

    @property
    def percent(self):
        return 100.0 * self.counted / self.warp if self.warp else 0.0


def score(results, baseline):
    """Per top directory and in all (key ``None``): for each file, Weft's
    passes counted up to Warp's passes for that file (a file the baseline
    lacks counts 0 of 0). Returns a dict directory -> ``Score``, the
    directories sorted with ``.`` first, then ``None``."""
    by_dir = {}
    total = Score()
    for r in results:
        entry = baseline.get(r.file)
        warp = entry.passed if entry else 0
        counted = min(max(r.passed, 0), warp)
        s = by_dir.setdefault(top_dir(r.file), Score())
        for t in (s, total):
            t.files += 1
            t.counted += counted
            t.warp += warp
    ordered = {d: by_dir[d] for d in sorted(by_dir, key=lambda d: (d != ".", d))}
    ordered[None] = total
    return ordered


def format_table(scores):
    """The per-directory table of ``score``'s result, as lines."""
    rows = [("directory", "files", "weft", "warp", "%")]
    for d, s in scores.items():
        rows.append(("all" if d is None else d, str(s.files), str(s.counted), str(s.warp), f"{s.percent:.1f}"))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return [
        "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip()
        for r in rows
    ]


# ---------------------------------------------------------------------------
# The baseline with real Warp


def baseline_venv_python(create=True):
    """The Python of the venv that holds the real ``warp-lang`` 1.19
    (``$XDG_CACHE_HOME/weft/warp-baseline-venv``), made with pip on first
    use when ``create``; None when there is none and not ``create``."""
    venv = os.path.join(cache_root(), "warp-baseline-venv")
    py = os.path.join(venv, "Scripts", "python.exe") if os.name == "nt" else os.path.join(venv, "bin", "python")
    if os.path.exists(py) and has_real_warp(py):
        return py
    if not create:
        return None
    print(f"baseline: installing warp-lang=={WARP_VERSION} into {venv}", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", f"warp-lang=={WARP_VERSION}", "numpy"], check=True)
    return py


def has_real_warp(python):
    """Whether ``python`` (an interpreter's path) has ``warp-lang`` 1.19."""
    check = [python, "-I", "-c", f"import importlib.metadata as m; assert m.version('warp-lang') == {WARP_VERSION!r}"]
    try:
        return subprocess.run(check, capture_output=True).returncode == 0
    except OSError:
        return False


def measure_baseline(files, device, path, timeout, jobs, verbose=False, python=None):
    """Runs the files ``path`` lacks under real Warp, each in its own
    process, and adds their lines to ``path``. Returns the whole baseline.
    ``python``: an interpreter with ``warp-lang`` 1.19 (default: the venv
    of ``baseline_venv_python``)."""
    entries = read_baseline(path) if os.path.exists(path) else {}
    todo = [f for f in files if f not in entries]
    if not todo:
        return entries
    py = python or baseline_venv_python()
    print(f"baseline: {len(todo)} file(s) under real Warp {WARP_VERSION} -> {path}", file=sys.stderr, flush=True)
    runner = _Runner(None, device, timeout, jobs, verbose=verbose, python=py, real_warp=True)

    def record(r):
        if r.status in ("ok", "import failed"):
            entries[r.file] = BaselineEntry(r.seconds, r.ran, r.failures, r.errors, r.skipped)
        else:  # real Warp crashed or hung: nothing it passes
            entries[r.file] = BaselineEntry(r.seconds, 1, 0, 1, 0)
        print(f"baseline: {r.line()}", file=sys.stderr, flush=True)
        write_baseline(path, entries)

    runner.run(todo, record)
    return entries


# ---------------------------------------------------------------------------
# The command line


def _positive(conv, what, positive):
    """An argparse type: ``conv(text)`` if that is above 0, else an error
    saying ``what`` (not a number) or ``positive`` (not above 0)."""

    def parse(text):
        try:
            v = conv(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if v <= 0:
            raise argparse.ArgumentTypeError(f"expected {positive}, got {text!r}")
        return v

    return parse


_positive_float = _positive(float, "seconds", "a positive number of seconds")
_positive_int = _positive(int, "a positive integer", "a positive integer")


def _dir_list(text):
    dirs = [d.strip().strip("/") or "." for d in text.split(",") if d.strip()]
    if not dirs:
        raise argparse.ArgumentTypeError("expected DIR[,DIR...] (. for the top level)")
    return dirs


def _parser():
    ap = argparse.ArgumentParser(
        prog="python -m weft.warp_tests",
        description=__doc__.split("\n\n")[0],
        epilog="See docs/python.md, \"Warp's own tests\".",
    )
    ap.add_argument("--device", default="cpu", help="the device Weft runs the tests on (default cpu)")
    ap.add_argument("--tests-dir", help="a warp/tests directory (default: Warp 1.19's, cached)")
    ap.add_argument("-v", "--verbose", action="store_true", help="the tests' output and failures, to stderr")
    ap.add_argument("--all", action="store_true", help="every test_*.py of the suite, each in its own process")
    ap.add_argument("--isolate", action="store_true", help="FILE... each in its own process, compared with Warp")
    ap.add_argument("--files-from", metavar="PATH", help="test files to run, one a line (# comments)")
    ap.add_argument("--only", type=_dir_list, metavar="DIR[,DIR]", help="only these top directories (. = top level)")
    ap.add_argument("--exclude", type=_dir_list, metavar="DIR[,DIR]", help="not these top directories")
    ap.add_argument(
        "--timeout", type=_positive_float, default=DEFAULT_TIMEOUT, help="seconds per file (default 600)"
    )
    ap.add_argument("--jobs", type=_positive_int, default=1, help="files run in parallel (default 1)")
    base = ap.add_mutually_exclusive_group()
    base.add_argument("--baseline", action="store_true", help="measure real Warp (venv) for files the cache lacks")
    base.add_argument("--baseline-file", metavar="PATH", help="real Warp's counts, a TSV")
    ap.add_argument(
        "--baseline-python", metavar="PATH", help="for --baseline: a Python with warp-lang 1.19 (default: a venv)"
    )
    ap.add_argument("--save", metavar="PATH", help="write Weft's per-file results as a TSV")
    # Internal: one file in this process, its counts as JSON to PATH.
    ap.add_argument("--child-json", metavar="PATH", help=argparse.SUPPRESS)
    ap.add_argument("--real-warp", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="*", metavar="FILE", help="test files, relative to the tests directory")
    return ap


def _tests_dir(args):
    """``--tests-dir``, else the cached files of Warp's suite (fetched on
    first use); a clean exit when they cannot be fetched."""
    if args.tests_dir:
        return args.tests_dir
    try:
        return cache_tests_dir()
    except (subprocess.CalledProcessError, OSError, StopIteration) as e:
        raise SystemExit(
            f"could not fetch Warp {WARP_VERSION}'s test files with pip ({e}): "
            "give --tests-dir DIR (a warp/tests directory)"
        ) from None


def _child(args):
    """One file in this process; writes its counts to ``--child-json``."""
    if len(args.files) != 1:
        raise SystemExit("--child-json: expected exactly one FILE")
    tests_dir = None
    if not args.real_warp:
        tests_dir = _tests_dir(args)
        os.environ["WEFT_WARP_TESTS_DEVICE"] = args.device
        install_alias(tests_dir)
    start = time.monotonic()
    counts = _run_file_full(tests_dir, args.files[0], args.verbose, real_warp=args.real_warp, hide_stdout=False)
    counts["seconds"] = time.monotonic() - start
    tmp = args.child_json + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(counts, f)
    os.replace(tmp, args.child_json)
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


def _read_files_from(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [s for s in (line.split("#")[0].strip() for line in f) if s]
    except OSError as e:
        raise SystemExit(f"--files-from: cannot read {path!r}: {e.strerror}") from None


def _in_process(args, files):
    tests_dir = _tests_dir(args)
    os.environ["WEFT_WARP_TESTS_DEVICE"] = args.device
    install_alias(tests_dir)
    tp = tf = 0
    for rel in files:
        p, f, s, note = run_file(tests_dir, rel, args.verbose)
        tp, tf = tp + p, tf + f
        print(f"{rel}: {p} passed, {f} failed, {s} skipped" + (f" ({note})" if note else ""), flush=True)
    print(f"{tp} passed, {tf} failed")
    return 0 if tf == 0 else 1


def _scope(args):
    if args.only:
        s = "directories " + ", ".join(args.only)
    else:
        s = "all directories"
    if args.exclude:
        s += " except " + ", ".join(args.exclude)
    return s


def _save(path, results, baseline):
    with open(path, "w", encoding="utf-8") as f:
        f.write("file\tseconds\tpassed\tfailed\tskipped\twarp_passed\tstatus\tnote\n")
        for r in results:
            entry = baseline.get(r.file) if baseline else None
            warp = "" if entry is None else str(entry.passed)
            f.write(
                f"{r.file}\t{r.seconds:.1f}\t{r.passed}\t{r.failed}\t{r.skipped}\t{warp}\t{r.status}\t{r.note or ''}\n"
            )


def _no_baseline_message(device, path):
    return (
        f"python -m weft.warp_tests --all: no baseline of real Warp {WARP_VERSION}'s results for "
        f"{device!r} (looked for {path}).\n"
        f"Give one with --baseline-file PATH (a TSV: file seconds ran failures errors skipped), "
        f"or measure it with --baseline (installs warp-lang=={WARP_VERSION} into a venv in "
        f"{cache_root()} and runs each file once under it)."
    )


def _load_baseline(ap, args, files):
    """The baseline for this run (a dict, or None when there is none and
    the run may go without), from ``--baseline-file``, ``--baseline`` or
    the cache."""
    key_path = default_baseline_path(args.device)
    if args.baseline_file:
        if not os.path.isfile(args.baseline_file):
            ap.error(f"--baseline-file: no file {args.baseline_file!r}")
        try:
            return read_baseline(args.baseline_file)
        except ValueError as e:
            ap.error(f"--baseline-file: {e}")
    if args.baseline:
        if args.baseline_python and not has_real_warp(args.baseline_python):
            ap.error(f"--baseline-python: {args.baseline_python!r} has no warp-lang=={WARP_VERSION}")
        try:
            return measure_baseline(
                files, args.device, key_path, args.timeout, args.jobs, args.verbose, args.baseline_python
            )
        except subprocess.CalledProcessError as e:
            raise SystemExit(f"--baseline: could not install warp-lang=={WARP_VERSION}: {e}") from None
    if os.path.isfile(key_path):
        try:
            return read_baseline(key_path)
        except ValueError as e:
            raise SystemExit(f"the cached baseline: {e} (remove it, or give --baseline-file)") from None
    return None


def _report(args, results, baseline, elapsed):
    """The summary after the per-file lines: totals, crashes and time-outs,
    the per-directory table and last ``P passed of N``."""
    crashed = [r.file for r in results if r.status == "crashed"]
    timed_out = [r.file for r in results if r.status == "timed out"]
    tp = sum(r.passed for r in results)
    tf = sum(r.failed for r in results)
    ts = sum(r.skipped for r in results)
    print()
    print(f"Weft on {args.device}: {tp} passed, {tf} failed, {ts} skipped in {len(results)} files ({elapsed:.0f} s)")
    print(f"{len(crashed)} file(s) crashed" + (": " + ", ".join(crashed) if crashed else ""))
    print(f"{len(timed_out)} file(s) timed out" + (": " + ", ".join(timed_out) if timed_out else ""))
    if baseline is None:
        print("no baseline of real Warp's results to compare with (--baseline-file PATH or --baseline)")
        print(f"{tp} passed, {tf} failed")
        return
    missing = [r.file for r in results if r.file not in baseline]
    if missing:
        print(f"{len(missing)} file(s) not in the baseline (counted 0 of 0): " + ", ".join(missing))
    scores = score(results, baseline)
    print()
    for line in format_table(scores):
        print(line)
    total = scores[None]
    print()
    print(f"share of real Warp's passes, {_scope(args)}: {total.percent:.1f} %")
    print(f"{total.counted} passed of {total.warp}")


def main(argv=None):
    """The command line; returns the exit status."""
    ap = _parser()
    args = ap.parse_args(argv)
    if args.child_json:
        return _child(args)

    files = list(args.files)
    if args.files_from:
        files += _read_files_from(args.files_from)
    if args.all and files:
        ap.error("--all runs every file: give no FILE and no --files-from")
    if not args.all and not files and not args.baseline:
        ap.error("give FILE..., --files-from PATH or --all")
    if not (args.all or args.isolate or args.baseline or args.baseline_file):
        return _in_process(args, select_dirs(files, args.only, args.exclude))

    key_path = default_baseline_path(args.device)
    if args.all and not (args.baseline or args.baseline_file or os.path.isfile(key_path)):
        print(_no_baseline_message(args.device, key_path), file=sys.stderr)
        return 2
    tests_dir = _tests_dir(args)
    if not files:
        try:
            files = discover_files(tests_dir)
        except FileNotFoundError:
            ap.error(f"--tests-dir: no directory {tests_dir!r}")
    files = select_dirs(files, args.only, args.exclude)
    if not files:
        ap.error(f"no test files in {tests_dir} for {_scope(args)}")

    baseline = _load_baseline(ap, args, files)
    if args.baseline and not (args.all or args.isolate or args.files or args.files_from):
        print(f"baseline: {len(baseline)} file(s) in {key_path}")
        return 0

    runner = _Runner(tests_dir, args.device, args.timeout, args.jobs, verbose=args.verbose)

    def on_result(r):
        apply_losses(r, baseline)
        print(r.line(), flush=True)

    start = time.monotonic()
    results = runner.run(files, on_result)
    if args.save:
        _save(args.save, results, baseline)
    _report(args, results, baseline, time.monotonic() - start)
    return 1 if any(r.status in ("crashed", "timed out") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
