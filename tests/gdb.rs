//! gdb on the CPU JIT: with `WEFT_GDB=1` (or `-g`), `weft run` registers its
//! JIT-compiled code with gdb (DWARF line tables into the kernel's `.py`
//! file), so `break kernel.py:LINE` stops in the kernel, and with `-O0` in a
//! `@wp.func` (docs/debugging.md, "gdb").
//!
//! Needs `gdb` on PATH (CI installs it); without it, or where the sandbox
//! forbids ptrace, the tests say SKIP and why.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `func_basic` case, if the corpus is here.
fn case() -> Option<PathBuf> {
    case_named("func_basic")
}

/// Conformance case `name`, if the corpus is here (a counted `SKIP`
/// otherwise, a failure with `WEFT_REQUIRE_CORPUS=1`).
fn case_named(name: &str) -> Option<PathBuf> {
    let case = weft_testkit::corpus::case(name)?;
    assert!(
        case.join("case.json").is_file(),
        "{} has no case.json",
        case.display()
    );
    Some(case)
}

/// The 1-based line of `kernel.py` that contains `text`.
fn line_of(case: &Path, text: &str) -> u32 {
    let src = std::fs::read_to_string(case.join("kernel.py")).expect("reads kernel.py");
    let i = src
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no line with {text:?} in kernel.py"));
    i as u32 + 1
}

fn have_gdb() -> bool {
    match Command::new("gdb").arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            weft_testkit::skip("gdb is not on PATH (apt-get install gdb)");
            false
        }
    }
}

/// Runs `gdb -batch` with `commands` on `weft run CASE --backend cpu EXTRA`
/// with `WEFT_GDB=1`; its output (stdout and stderr), or `None` (SKIP) if
/// gdb may not trace here. Killed after two minutes.
fn gdb(case: &Path, commands: &[&str], extra: &[&str], tag: &str) -> Option<String> {
    gdb_env(case, commands, extra, tag, true)
}

/// [`gdb`], with `WEFT_GDB=1` in the environment or (`env` false) without
/// `WEFT_GDB` at all.
fn gdb_env(case: &Path, commands: &[&str], extra: &[&str], tag: &str, env: bool) -> Option<String> {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("gdb-{tag}"));
    std::fs::create_dir_all(&tmp).expect("creates the output dir");
    let log = tmp.join("gdb.log");
    let file = std::fs::File::create(&log).expect("creates the log");
    let mut cmd = Command::new("gdb");
    cmd.args(["-batch", "-nx"]);
    for c in ["set debuginfod enabled off", "set breakpoint pending on"]
        .iter()
        .chain(commands)
    {
        cmd.arg("-ex").arg(c);
    }
    cmd.arg("--args")
        .arg(env!("CARGO_BIN_EXE_weft"))
        .arg("run")
        .arg(case)
        .args(["--backend", "cpu", "--out"])
        .arg(tmp.join("out"))
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::from(file.try_clone().expect("clones the log")))
        .stderr(Stdio::from(file));
    if env {
        cmd.env("WEFT_GDB", "1");
    } else {
        cmd.env_remove("WEFT_GDB");
    }
    let mut child = cmd.spawn().expect("starts gdb");
    let t0 = Instant::now();
    loop {
        if child.try_wait().expect("waits for gdb").is_some() {
            break;
        }
        if t0.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            let out = std::fs::read_to_string(&log).unwrap_or_default();
            panic!("gdb did not finish in 120 s:\n{out}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = std::fs::read_to_string(&log).expect("reads the log");
    if out.contains("ptrace: Operation not permitted") {
        // The reason on one line (the skip log counts lines), gdb's output after.
        weft_testkit::skip("gdb may not ptrace here");
        println!("{out}");
        return None;
    }
    Some(out)
}

/// Whether `line` shows a frame of `func` at `file:n`, as gdb prints it:
/// `func_basic (x=..., out=...) at /…/kernel.py:17` (arguments vary).
fn frame_at(line: &str, func: &str, file: &str, n: u32) -> bool {
    line.contains(&format!("{func} (")) && line.ends_with(&format!(") at {file}:{n}"))
}

/// The line gdb prints when breakpoint `n` is hit, e.g.
/// `Thread 3 "weft" hit Breakpoint 1, func_basic (x=..., out=...) at /…/kernel.py:17`
/// (`Temporary breakpoint` for a `tbreak`).
fn hit_line(out: &str, n: u32) -> Option<&str> {
    let pat = format!("breakpoint {n}, ");
    out.lines().find(|l| l.to_lowercase().contains(&pat))
}

#[test]
fn break_on_a_kernel_line() {
    let (Some(case), true) = (case(), have_gdb()) else {
        return;
    };
    let line = line_of(&case, "v = x[i]");
    let Some(out) = gdb(
        &case,
        &[
            &format!("break kernel.py:{line}"),
            "run",
            "bt 2",
            "info line *$pc",
        ],
        &[],
        "kernel",
    ) else {
        return;
    };
    let hit = hit_line(&out, 1).unwrap_or_else(|| panic!("breakpoint not hit:\n{out}"));
    let file = case.join("kernel.py").display().to_string();
    assert!(frame_at(hit, "func_basic", &file, line), "{hit}\n{out}");
    // `bt` walks from the JIT frame into the runtime's.
    assert!(out.contains("#1  0x"), "{out}");
    assert!(out.contains("weft_runtime::"), "{out}");
    // `info line *$pc` maps the pc back to the line.
    assert!(
        out.contains(&format!(
            "Line {line} of \"{}\"",
            case.join("kernel.py").display()
        )),
        "{out}"
    );
}

/// `weft run -g` is `WEFT_GDB=1`: the breakpoint on a kernel line is hit,
/// with no `WEFT_GDB` in the environment.
#[test]
fn dash_g_breaks_on_a_kernel_line_without_the_variable() {
    let (Some(case), true) = (case(), have_gdb()) else {
        return;
    };
    let line = line_of(&case, "v = x[i]");
    let commands = [&format!("break kernel.py:{line}") as &str, "run", "bt 1"];
    let Some(out) = gdb_env(&case, &commands, &["-g"], "dash-g", false) else {
        return;
    };
    let hit = hit_line(&out, 1).unwrap_or_else(|| panic!("breakpoint not hit with -g:\n{out}"));
    let file = case.join("kernel.py").display().to_string();
    assert!(frame_at(hit, "func_basic", &file, line), "{hit}\n{out}");
    // Without -g (and without the variable) there is no line to break on.
    let Some(out) = gdb_env(&case, &commands, &[], "no-g", false) else {
        return;
    };
    assert!(hit_line(&out, 1).is_none(), "hit without -g:\n{out}");
}

#[test]
fn break_in_a_func_at_o0() {
    let (Some(case), true) = (case(), have_gdb()) else {
        return;
    };
    let in_func = line_of(&case, "return (a * x + b) * x + c");
    let call = line_of(&case, "out[i, 0] = poly(v, 1.0, -2.0, 0.5)");
    let Some(out) = gdb(
        &case,
        &[
            // One-shot, so that other threads do not stop there again.
            &format!("tbreak kernel.py:{call}"),
            &format!("break kernel.py:{in_func}"),
            "run",
            "continue",
            "bt 2",
        ],
        &["-O0"],
        "func",
    ) else {
        return;
    };
    let file = case.join("kernel.py").display().to_string();
    let hit = hit_line(&out, 1).unwrap_or_else(|| panic!("breakpoint 1 not hit:\n{out}"));
    assert!(frame_at(hit, "func_basic", &file, call), "{hit}\n{out}");
    // Then into `poly`, called from the kernel's line.
    let hit = hit_line(&out, 2).unwrap_or_else(|| panic!("breakpoint 2 not hit:\n{out}"));
    assert!(frame_at(hit, "poly", &file, in_func), "{hit}\n{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("#1 ") && frame_at(l, "in func_basic", &file, call)),
        "the caller's frame:\n{out}"
    );
}

#[test]
fn step_into_a_func_at_o0() {
    let (Some(case), true) = (case(), have_gdb()) else {
        return;
    };
    let in_func = line_of(&case, "return (a * x + b) * x + c");
    let call = line_of(&case, "out[i, 0] = poly(v, 1.0, -2.0, 0.5)");
    let next = line_of(&case, "out[i, 1] = relu(v)");
    let Some(out) = gdb(
        &case,
        &[
            &format!("tbreak kernel.py:{call}"),
            "run",
            // Only the stopped thread moves while stepping.
            "set scheduler-locking step",
            "step",
            "step",
        ],
        &["-O0"],
        "step",
    ) else {
        return;
    };
    let file = case.join("kernel.py").display().to_string();
    assert!(hit_line(&out, 1).is_some(), "breakpoint not hit:\n{out}");
    // `step` enters `poly` at its line, showing its arguments (`x` is the
    // thread's `v`, the others are the call's constants); the next `step`
    // returns to the kernel's next line.
    let into = format!(", a=1, b=-2, c=0.5) at {file}:{in_func}");
    let i = out
        .lines()
        .position(|l| l.starts_with("poly (x=") && l.ends_with(&into))
        .unwrap_or_else(|| panic!("no poly (x=…{into:?}:\n{out}"));
    assert!(
        out.lines()
            .skip(i)
            .any(|l| l.starts_with("func_basic (") && frame_at(l, "func_basic", &file, next)),
        "no func_basic (…) at {file}:{next} after it:\n{out}"
    );
}

/// The numbers in `text` (`{0.62, -0.18}`, `vec3<f32>(0.62, -0.18)`, `2`) as
/// `f32`s.
fn numbers(text: &str) -> Vec<f32> {
    // Past a type such as `vec3<f32>`.
    let text = text.split_once('(').map_or(text, |(_, rest)| rest);
    text.split(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | '+')))
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
        .map(|t| t.parse().unwrap_or_else(|_| panic!("not a number: {t:?}")))
        .collect()
}

/// The value after `NAME = ` on the first line of `out` that starts with
/// it (after an optional `(weft) ` prompt).
fn value_of<'a>(out: &'a str, name: &str) -> Option<&'a str> {
    let pat = format!("{name} = ");
    out.lines()
        .map(|l| l.strip_prefix("(weft) ").unwrap_or(l))
        .find_map(|l| l.strip_prefix(&pat))
}

#[test]
fn locals_match_weft_debug() {
    // gdb reads the N-body kernel's variables where the JIT keeps them, at a
    // conditional breakpoint on the thread index and loop counter; `weft
    // debug` (statement hooks, a different mechanism) must agree.
    let (Some(case), true) = (case_named("seed_nbody_step"), have_gdb()) else {
        return;
    };
    let line = line_of(&case, "acc = acc + d * (");
    let Some(out) = gdb(
        &case,
        &[
            &format!("break kernel.py:{line} if tid == 3 && j == 2"),
            "run",
            "info locals",
            // An array parameter: its data pointer, indexed.
            "p pos.data[i]",
        ],
        &["-O0"],
        "locals",
    ) else {
        return;
    };
    let hit = hit_line(&out, 1).unwrap_or_else(|| panic!("breakpoint not hit:\n{out}"));
    assert!(hit.contains(&format!("kernel.py:{line}")), "{hit}");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gdb-locals");
    let script = tmp.join("script");
    let cmds = format!(
        "break kernel.py:{line}\ncontinue\ncontinue\ncontinue\nprint i\nprint j\nprint p\nprint d\nprint inv_r\nprint acc\nquit\n"
    );
    std::fs::write(&script, cmds).expect("writes the script");
    let r = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["debug", "--tid", "3", "--script"])
        .arg(&script)
        .arg(&case)
        .output()
        .expect("runs weft debug");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let want = String::from_utf8(r.stdout).expect("utf-8");
    assert_eq!(value_of(&out, "tid"), Some("3"), "{out}");
    for name in ["i", "j", "p", "d", "inv_r", "acc"] {
        let g = value_of(&out, name).unwrap_or_else(|| panic!("gdb has no {name}:\n{out}"));
        let w =
            value_of(&want, name).unwrap_or_else(|| panic!("weft debug has no {name}:\n{want}"));
        assert!(!g.contains("optimized out"), "{name} = {g}\n{out}");
        assert_eq!(numbers(g), numbers(w), "{name}: gdb {g}, weft debug {w}");
    }
    let loaded = value_of(&out, "$1").unwrap_or_else(|| panic!("no pos.data[i]:\n{out}"));
    let p = value_of(&out, "p").unwrap_or_default();
    assert_eq!(numbers(loaded), numbers(p), "pos[i] is p:\n{out}");
}
