"""python -m weft.warp_tests --all / --isolate: each test file in its own
process, compared with a baseline of real Warp's results. The fake test
directories are written here (plain unittest files, not Warp's); the smoke
on Warp's own files skips when they are not cached."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

from weft import warp_tests as wt

OK = """
import unittest


class T(unittest.TestCase):
    def test_a(self):
        pass

    def test_b(self):
        pass

    def test_c(self):
        self.assertEqual(1, 2)

    @unittest.skip("never")
    def test_d(self):
        pass
"""

CRASH = """
import os
import signal
import unittest


class T(unittest.TestCase):
    def test_a(self):
        pass

    def test_crash(self):
        os.kill(os.getpid(), signal.SIGSEGV)
"""

HANG = """
import time
import unittest


class T(unittest.TestCase):
    def test_sleep(self):
        time.sleep(120)
"""

LINE = re.compile(r"^(\S+): (\d+) passed, (\d+) failed, (\d+) skipped(?: \((.*)\))?$")


def write_tree(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def write_baseline(path, rows):
    """rows: file -> (ran, failures, errors, skipped)."""
    path.write_text("".join(f"{f}\t1\t{r}\t{fa}\t{e}\t{s}\n" for f, (r, fa, e, s) in rows.items()))


def run_cli(args, tmp_path, timeout=300):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    return subprocess.run(
        [sys.executable, "-m", "weft.warp_tests", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def per_file(stdout):
    """FILE -> (passed, failed, skipped, note) from the per-file lines."""
    out = {}
    for line in stdout.splitlines():
        m = LINE.match(line)
        if m:
            out[m[1]] = (int(m[2]), int(m[3]), int(m[4]), m[5])
    return out


def test_discover_and_select(tmp_path):
    write_tree(
        tmp_path,
        {
            "test_a.py": "",
            "aux_test_b.py": "",
            "sub/test_c.py": "",
            "sub/deeper/test_d.py": "",
            "other/test_e.py": "",
            "assets/test_f.py": "",
            "sub/helper.py": "",
        },
    )
    files = wt.discover_files(str(tmp_path))
    assert files == ["other/test_e.py", "sub/deeper/test_d.py", "sub/test_c.py", "test_a.py"]
    assert [wt.top_dir(f) for f in files] == ["other", "sub", "sub", "."]
    assert wt.select_dirs(files, only=["sub", "."]) == ["sub/deeper/test_d.py", "sub/test_c.py", "test_a.py"]
    assert wt.select_dirs(files, exclude=["sub"]) == ["other/test_e.py", "test_a.py"]
    with pytest.raises(FileNotFoundError, match="tests_dir"):
        wt.discover_files(str(tmp_path / "missing"))


def test_baseline_tsv_round_trip(tmp_path):
    p = tmp_path / "b.tsv"
    write_baseline(p, {"test_a.py": (10, 1, 2, 3), "sub/test_b.py": (3, 0, 5, 0)})
    b = wt.read_baseline(str(p))
    assert b["test_a.py"].passed == 4
    assert b["sub/test_b.py"].passed == 0  # more errors than tests (subtests): not below 0
    q = tmp_path / "c.tsv"
    wt.write_baseline(str(q), b)
    assert wt.read_baseline(str(q)) == b
    (tmp_path / "bad.tsv").write_text("test_a.py\t1\t2\n")
    with pytest.raises(ValueError, match="bad.tsv:1"):
        wt.read_baseline(str(tmp_path / "bad.tsv"))
    assert wt.baseline_key("vulkan") == wt.baseline_key("llvm-cpu") == "cpu"
    assert wt.baseline_key("cuda:0") == "cuda"


def test_score_caps_passes_at_warps():
    baseline = {
        "test_a.py": wt.BaselineEntry(1, 10, 0, 0, 2),  # Warp passes 8
        "test_b.py": wt.BaselineEntry(1, 5, 1, 1, 0),  # 3
        "sub/test_c.py": wt.BaselineEntry(1, 4, 0, 0, 0),  # 4
    }
    results = [
        wt.FileResult("test_a.py", passed=5),  # 5 of 8
        wt.FileResult("test_b.py", passed=7),  # more than Warp: 3 of 3
        wt.FileResult("sub/test_c.py", passed=4),  # 4 of 4
        wt.FileResult("sub/test_d.py", passed=9),  # not in the baseline: 0 of 0
    ]
    s = wt.score(results, baseline)
    assert list(s) == [".", "sub", None]
    assert (s["."].files, s["."].counted, s["."].warp) == (2, 8, 11)
    assert (s["sub"].files, s["sub"].counted, s["sub"].warp) == (2, 4, 4)
    assert (s[None].files, s[None].counted, s[None].warp) == (4, 12, 15)
    assert s[None].percent == pytest.approx(80.0)
    table = wt.format_table(s)
    assert table[0].split() == ["directory", "files", "weft", "warp", "%"]
    assert table[-1].split() == ["all", "4", "12", "15", "80.0"]


def test_losses_of_a_crashed_file():
    baseline = {"test_a.py": wt.BaselineEntry(1, 6, 0, 0, 1)}
    r = wt.apply_losses(wt.FileResult("test_a.py", passed=2, skipped=1, status="crashed"), baseline)
    assert (r.passed, r.failed, r.skipped) == (0, 6, 0)
    r = wt.apply_losses(wt.FileResult("test_z.py", status="timed out"), baseline)
    assert (r.passed, r.failed, r.skipped) == (0, 1, 0)
    r = wt.apply_losses(wt.FileResult("test_a.py", passed=2, failed=1, skipped=1), baseline)
    assert (r.passed, r.failed, r.skipped) == (2, 1, 1)


def test_crash_counts_as_failures_and_the_run_goes_on(tmp_path):
    tests = tmp_path / "tests"
    write_tree(tests, {"test_a_crash.py": CRASH, "test_b_ok.py": OK, "sub/test_c_ok.py": OK})
    base = tmp_path / "baseline.tsv"
    # Warp: test_a_crash 7 ran, 7 passes; test_b_ok 1 pass (Weft's 2 count 1);
    # sub/test_c_ok 4 ran, 1 failure, 1 skipped: 2 passes.
    write_baseline(
        base, {"test_a_crash.py": (7, 0, 0, 0), "test_b_ok.py": (1, 0, 0, 0), "sub/test_c_ok.py": (4, 1, 0, 1)}
    )
    r = run_cli(["--all", "--tests-dir", str(tests), "--baseline-file", str(base), "--jobs", "2"], tmp_path)
    out = r.stdout
    lines = per_file(out)
    assert list(lines) == ["sub/test_c_ok.py", "test_a_crash.py", "test_b_ok.py"], out + r.stderr
    assert lines["test_a_crash.py"] == (0, 7, 0, "crashed: SIGSEGV")
    assert lines["test_b_ok.py"] == (2, 1, 1, None)
    assert lines["sub/test_c_ok.py"] == (2, 1, 1, None)
    assert "1 file(s) crashed: test_a_crash.py" in out
    assert "0 file(s) timed out" in out
    assert out.strip().splitlines()[-1] == "3 passed of 10"
    assert r.returncode == 1


def test_time_out_counts_as_failures(tmp_path):
    tests = tmp_path / "tests"
    write_tree(tests, {"test_hang.py": HANG, "test_ok.py": OK})
    base = tmp_path / "baseline.tsv"
    write_baseline(base, {"test_ok.py": (4, 1, 0, 1)})
    args = ["--isolate", "--tests-dir", str(tests), "--baseline-file", str(base), "--timeout", "3"]
    r = run_cli([*args, "test_hang.py", "test_ok.py"], tmp_path)
    lines = per_file(r.stdout)
    assert lines["test_hang.py"] == (0, 1, 0, "timed out"), r.stdout + r.stderr  # not in the baseline: 1
    assert lines["test_ok.py"] == (2, 1, 1, None)
    assert "1 file(s) timed out: test_hang.py" in r.stdout
    assert r.stdout.strip().splitlines()[-1] == "2 passed of 2"
    assert r.returncode == 1


def test_import_failure_and_only_exclude(tmp_path):
    tests = tmp_path / "tests"
    write_tree(tests, {"test_ok.py": OK, "test_bad.py": "import warp.no_such_module\n", "sub/test_ok.py": OK})
    base = tmp_path / "baseline.tsv"
    write_baseline(base, {"test_ok.py": (3, 0, 0, 0), "test_bad.py": (5, 0, 0, 1), "sub/test_ok.py": (2, 0, 0, 0)})
    r = run_cli(["--all", "--tests-dir", str(tests), "--baseline-file", str(base), "--exclude", "sub"], tmp_path)
    lines = per_file(r.stdout)
    assert list(lines) == ["test_bad.py", "test_ok.py"], r.stdout + r.stderr
    assert lines["test_bad.py"][:3] == (0, 5, 0)
    assert lines["test_bad.py"][3].startswith("import failed: ModuleNotFoundError")
    assert "all directories except sub: 28.6 %" in r.stdout
    assert r.stdout.strip().splitlines()[-1] == "2 passed of 7"
    assert r.returncode == 0
    r = run_cli(["--all", "--tests-dir", str(tests), "--baseline-file", str(base), "--only", "sub"], tmp_path)
    assert list(per_file(r.stdout)) == ["sub/test_ok.py"], r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == "2 passed of 2"


def test_all_without_a_baseline_says_which_flag(tmp_path):
    tests = tmp_path / "tests"
    write_tree(tests, {"test_ok.py": OK})
    r = run_cli(["--all", "--tests-dir", str(tests)], tmp_path)
    assert r.returncode == 2
    assert "--baseline-file PATH" in r.stderr and "--baseline" in r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""
    r = run_cli(["--all", "--tests-dir", str(tests), "--baseline-file", str(tmp_path / "none.tsv")], tmp_path)
    assert r.returncode == 2 and "--baseline-file: no file" in r.stderr and "Traceback" not in r.stderr
    # --isolate goes without one: the counts, no comparison.
    r = run_cli(["--isolate", "--tests-dir", str(tests), "test_ok.py"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == "2 passed, 1 failed"


def test_cached_baseline_is_used(tmp_path):
    tests = tmp_path / "tests"
    write_tree(tests, {"test_ok.py": OK})
    cached = tmp_path / "xdg" / "weft" / f"warp-{wt.WARP_VERSION}" / "baseline_cpu.tsv"
    cached.parent.mkdir(parents=True)
    write_baseline(cached, {"test_ok.py": (9, 0, 0, 0)})
    r = run_cli(["--all", "--tests-dir", str(tests), "--device", "vulkan"], tmp_path)
    # vulkan shares the CPU baseline; the device itself may be missing here,
    # but the file's tests are plain unittest.
    assert r.stdout.strip().splitlines()[-1] == "2 passed of 9", r.stdout + r.stderr


SMOKE_FILES = ["test_math.py", "test_rand.py", "test_operators.py", "test_special_values.py"]


def test_isolate_smoke_on_warps_files(tmp_path):
    tests_dir = os.path.join(wt._warp_cache_dir(), "warp", "tests")
    if not all(os.path.isfile(os.path.join(tests_dir, f)) for f in SMOKE_FILES):
        pytest.skip(f"Warp's test files are not cached at {tests_dir} (python -m weft.warp_tests FILE downloads them)")
    base = tmp_path / "baseline.tsv"
    # Made-up Warp counts: 1 pass for the first file (Weft's are capped to
    # it), 1000 for the others (Weft's count in full).
    warp = {f: (1 if i == 0 else 1000) for i, f in enumerate(SMOKE_FILES)}
    write_baseline(base, {f: (n, 0, 0, 0) for f, n in warp.items()})
    r = run_cli(
        ["--isolate", "--device", "cpu", "--tests-dir", tests_dir, "--baseline-file", str(base), *SMOKE_FILES],
        tmp_path,
        timeout=600,
    )
    lines = per_file(r.stdout)
    assert list(lines) == SMOKE_FILES, r.stdout + r.stderr
    assert r.returncode == 0, r.stdout
    assert sum(p for p, _, _, _ in lines.values()) > 0
    expected = sum(min(lines[f][0], warp[f]) for f in SMOKE_FILES)
    assert r.stdout.strip().splitlines()[-1] == f"{expected} passed of {sum(warp.values())}"
