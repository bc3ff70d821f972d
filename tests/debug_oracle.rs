//! The debugger against its oracle, exhaustively: for every conformance
//! kernel (its first launch), in both array layouts, and a few threads
//! (the first, the last, one in the middle, and one whose statements differ
//! from the first's where the sampled threads have one), the CPU debug
//! build's stops are the interpreter's statement trace
//! (`Debugger::oracle`), stop for stop (location, depth, stack, every
//! variable bit for bit); and for every source line of the kernel's file
//! that has a statement, `break L` + `continue` stops at the first
//! execution of L with the oracle's variables, and `step`, `next`,
//! `finish` and `continue` from there land where the oracle's trace says.
//!
//! `WEFT_DEBUG_ORACLE_CASES=a,b` limits the run to those cases (by folder
//! name). The counts are printed at the end (`--nocapture`).

use std::path::Path;
use weft::debug::{Breakpoint, DebugValue, Debugger, Stop};
use weft::ArrayLayout;
use weft_cli::debug::with_case_args;
use weft_conform::Case;

#[derive(Default)]
struct Counts {
    kernels: usize,
    threads: usize,
    stops: usize,
    breakpoints: usize,
    transitions: usize,
    failures: Vec<String>,
}

/// Bitwise equality of two values (NaN equals NaN of the same bits).
fn same(a: &DebugValue, b: &DebugValue) -> bool {
    match (a, b) {
        (DebugValue::Scalar(x), DebugValue::Scalar(y)) => {
            x == y || x.as_f64().to_bits() == y.as_f64().to_bits()
        }
        (DebugValue::Aggregate { ty: t, parts: p }, DebugValue::Aggregate { ty: u, parts: q }) => {
            t == u
                && p.len() == q.len()
                && p.iter().zip(q).all(|((l, x), (k, y))| l == k && same(x, y))
        }
        _ => false,
    }
}

/// Why stop `got` is not the oracle's `want`, if it is not.
fn differs(got: &Stop, want: &Stop) -> Option<String> {
    let at = |s: &Stop| format!("{}:{}:{} depth {}", s.func, s.line, s.col, s.depth);
    if (
        &got.func,
        &got.file,
        got.line,
        got.col,
        got.depth,
        got.func_entry,
    ) != (
        &want.func,
        &want.file,
        want.line,
        want.col,
        want.depth,
        want.func_entry,
    ) {
        return Some(format!(
            "at {} (entry {}), oracle {} (entry {})",
            at(got),
            got.func_entry,
            at(want),
            want.func_entry
        ));
    }
    if got.stack != want.stack {
        return Some(format!(
            "{}: stack {:?}, oracle {:?}",
            at(want),
            got.stack,
            want.stack
        ));
    }
    let names = |s: &Stop| s.locals.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    if names(got) != names(want) {
        return Some(format!(
            "{}: locals {:?}, oracle {:?}",
            at(want),
            names(got),
            names(want)
        ));
    }
    for ((n, x), (_, y)) in got.locals.iter().zip(&want.locals) {
        if !same(x, y) {
            return Some(format!("{}: {n} = {x}, oracle {y}", at(want)));
        }
    }
    None
}

fn oracle(case: &Case, m: &weft::Module, tid: usize) -> Result<Vec<Stop>, String> {
    with_case_args(case, m, |k, dim, args| {
        Debugger::oracle(m, k, dim, args, tid)
    })
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())
}

/// The threads to check: first, last, middle, and of up to 8 evenly
/// spaced ones the first whose statements' lines differ from thread 0's
/// (found with the debug build, which is fast; the chosen thread is then
/// checked against the oracle like the others).
fn threads(case: &Case, m: &weft::Module, total: usize) -> Vec<usize> {
    let mut ts = vec![0, total - 1, total / 2];
    let lines = |t| {
        with_case_args(case, m, |k, dim, args| Debugger::launch(m, k, dim, args, t))
            .map_err(|e| e.to_string())
            .and_then(|d| d.map_err(|e| e.to_string()))
            .map(|mut d| d.stops_to_end().iter().map(|s| s.line).collect::<Vec<_>>())
    };
    if let Ok(first) = lines(0) {
        for k in 1..8 {
            let t = k * total / 8;
            if t == 0 || ts.contains(&t) {
                continue;
            }
            if lines(t).is_ok_and(|l| l != first) {
                ts.push(t);
                break;
            }
        }
    }
    ts.sort();
    ts.dedup();
    ts
}

fn check_thread(case: &Case, m: &weft::Module, tid: usize, n: &mut Counts) -> Result<(), String> {
    let want = oracle(case, m, tid)?;
    let mut dbg = with_case_args(case, m, |k, dim, args| {
        Debugger::launch(m, k, dim, args, tid)
    })
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())?;
    let got = dbg.stops_to_end();
    n.threads += 1;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if let Some(why) = differs(g, w) {
            return Err(format!("thread {tid}, stop {i}: {why}"));
        }
    }
    if got.len() != want.len() {
        return Err(format!(
            "thread {tid}: {} stops, the oracle {}",
            got.len(),
            want.len()
        ));
    }
    n.stops += got.len();
    // Every line of the kernel's file that has a statement.
    let kfile = want.first().map(|s| s.file.clone()).unwrap_or_default();
    let mut lines: Vec<u32> = want
        .iter()
        .filter(|s| s.file == kfile)
        .map(|s| s.line)
        .collect();
    lines.sort();
    lines.dedup();
    let first_at = |from: usize, pred: &dyn Fn(&Stop) -> bool| {
        (from..want.len())
            .find(|&i| pred(&want[i]))
            .unwrap_or(want.len())
    };
    for &line in &lines {
        let bp = Breakpoint::parse(&format!(
            "{}:{line}",
            kfile.rsplit('/').next().unwrap_or("")
        ));
        let at = first_at(0, &|s| s.file == kfile && s.line == line);
        let d = want[at].depth;
        // (command, where the oracle's trace says it lands)
        let mut expect = vec![
            ("step", at + 1),
            ("next", first_at(at + 1, &|s| s.depth <= d)),
            (
                "continue",
                first_at(at + 1, &|s| s.file == kfile && s.line == line),
            ),
        ];
        if d > 0 {
            expect.push(("finish", first_at(at + 1, &|s| s.depth < d)));
        }
        for (cmd, to) in expect {
            dbg.reset();
            dbg.clear_breakpoints();
            dbg.add_breakpoint(bp.clone());
            let fresh = &mut dbg;
            fresh.cont();
            if fresh.stop_index() != Some(at) {
                return Err(format!("thread {tid}: break {line} + continue stopped at stop {:?}, the oracle's first execution is stop {at}", fresh.stop_index()));
            }
            if cmd == "step" {
                n.breakpoints += 1;
                if let Some(why) = fresh.current().and_then(|s| differs(s, &want[at])) {
                    return Err(format!("thread {tid}: break {line}: {why}"));
                }
            }
            match cmd {
                "step" => fresh.step(),
                "next" => fresh.next(),
                "finish" => fresh.finish(),
                _ => fresh.cont(),
            };
            n.transitions += 1;
            if fresh.stop_index() != Some(to) {
                return Err(format!(
                    "thread {tid}: break {line}, {cmd}: at stop {:?}, the oracle's is {to}",
                    fresh.stop_index()
                ));
            }
            if let (Some(s), Some(w)) = (fresh.current(), want.get(to)) {
                if let Some(why) = differs(s, w) {
                    return Err(format!("thread {tid}: break {line}, {cmd}: {why}"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn every_stop_and_transition_matches_the_interpreter() {
    let only: Option<Vec<String>> = std::env::var("WEFT_DEBUG_ORACLE_CASES")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    let cases = weft_testkit::corpus::cases();
    if cases.is_empty() {
        weft_testkit::corpus::missing("the debugger's oracle test");
        return;
    }
    let mut n = Counts::default();
    for dir in &cases {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let Ok(case) = Case::load(dir) else { continue };
        let Some(l) = case.launches.first() else {
            continue;
        };
        let total: usize = l.dim.iter().product();
        if total == 0 {
            continue;
        }
        let started = std::time::Instant::now();
        let kpath = Path::new(dir).join("kernel.py");
        let Ok(src) = std::fs::read_to_string(&kpath) else {
            continue;
        };
        for layout in [ArrayLayout::Aos, ArrayLayout::Soa] {
            let m = match Debugger::compile_with_layout(&kpath.display().to_string(), &src, layout)
            {
                Ok(m) => m,
                Err(e) => {
                    n.failures
                        .push(format!("{name} ({layout:?}): compile: {e}"));
                    continue;
                }
            };
            n.kernels += 1;
            for tid in threads(&case, &m, total) {
                if let Err(e) = check_thread(&case, &m, tid, &mut n) {
                    n.failures.push(format!("{name} ({layout:?}): {e}"));
                    break;
                }
            }
        }
        eprintln!("{name}: {:.2}s", started.elapsed().as_secs_f64());
    }
    println!(
        "debugger oracle: {} kernel×layouts, {} threads, {} stops compared, {} breakpoint stops, {} step/next/finish/continue transitions",
        n.kernels, n.threads, n.stops, n.breakpoints, n.transitions
    );
    assert!(
        n.failures.is_empty(),
        "{} failures:\n{}",
        n.failures.len(),
        n.failures.join("\n")
    );
    assert!(n.stops > 0 && n.transitions > 0);
}
