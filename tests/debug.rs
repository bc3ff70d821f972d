//! The debugger on the CPU JIT: stepping the seed's N-body kernel for one
//! thread and checking its loop-local values against an independent host
//! computation; stepping into and out of a `@wp.func`.

use weft::debug::{Breakpoint, Debugger};
use weft::{Arg, Array};

/// The seed's N-body kernel source, or `None` after a counted `SKIP` when
/// the corpus is missing (a failure with `WEFT_REQUIRE_CORPUS=1`).
fn nbody_source() -> Option<String> {
    let p = weft_testkit::corpus::case("seed_nbody_step")?.join("kernel.py");
    let src =
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{} not readable: {e}", p.display()));
    Some(src)
}

fn vec3s(v: &[[f32; 3]]) -> Array {
    Array::from_slice(v, &[v.len()]).expect("vec3 array")
}

#[test]
fn nbody_thread_3_statement_by_statement() {
    let Some(src) = nbody_source() else { return };
    let n = 12usize;
    let pos: Vec<[f32; 3]> = (0..n)
        .map(|i| {
            let t = i as f32;
            [t.sin() * 2.0, (t * 0.7).cos(), 0.1 * t - 0.5]
        })
        .collect();
    let vel: Vec<[f32; 3]> = (0..n).map(|i| [0.01 * i as f32, 0.0, -0.02]).collect();
    let mass: Vec<f32> = (0..n).map(|i| 1.0 + 0.25 * i as f32).collect();
    let (dt, grav, eps2) = (0.01f32, 0.001f32, 0.01f32);
    let module = Debugger::compile("kernel.py", &src).expect("compiles");
    let (p_a, v_a) = (vec3s(&pos), vec3s(&vel));
    let m_a = Array::from_slice(&mass, &[n]).unwrap();
    let (np, nv) = (vec3s(&vec![[0.0; 3]; n]), vec3s(&vec![[0.0; 3]; n]));
    let args = [
        Arg::array(&p_a),
        Arg::array(&v_a),
        Arg::array(&m_a),
        Arg::array(&np),
        Arg::array(&nv),
        Arg::i32(n as i32),
        Arg::f32(dt),
        Arg::f32(grav),
        Arg::f32(eps2),
    ];
    let tid = 3;
    let mut dbg = Debugger::launch(&module, "nbody_step", &[n], &args, tid).expect("launch");

    // Independent host computation of thread 3's loop, per iteration.
    let p = pos[tid];
    let mut acc_before = Vec::new();
    let mut ds = Vec::new();
    let mut r2s = Vec::new();
    let mut acc = [0.0f32; 3];
    for j in 0..n {
        acc_before.push(acc);
        let d = [pos[j][0] - p[0], pos[j][1] - p[1], pos[j][2] - p[2]];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
        let inv_r = 1.0 / r2.sqrt();
        let s = grav * mass[j] * inv_r * inv_r * inv_r;
        acc = [acc[0] + d[0] * s, acc[1] + d[1] * s, acc[2] + d[2] * s];
        ds.push(d);
        r2s.push(r2);
    }
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-5 * b.abs().max(1e-3);
    let close3 = |a: &[f64], b: [f32; 3]| a.len() == 3 && (0..3).all(|k| close(a[k], b[k] as f64));

    // Statement by statement in the kernel (over the prelude's calls).
    let mut lines = Vec::new();
    let (mut seen_d, mut seen_r2, mut seen_acc) = (0, 0, 0);
    let mut seen_written = false;
    while let Some(stop) = dbg.next() {
        assert_eq!(stop.depth, 0);
        assert_eq!(stop.func, "nbody_step");
        lines.push(stop.line);
        let j = stop
            .local("j")
            .and_then(|v| v.scalar())
            .map(|s| s.as_f64() as usize);
        match (stop.line, j) {
            // About to compute d: acc holds the sum over 0..j.
            (20, Some(j)) => {
                let a = stop.local("acc").expect("acc").leaves_f64();
                assert!(
                    close3(&a, acc_before[j]),
                    "acc before j={j}: {a:?} vs {:?}",
                    acc_before[j]
                );
                seen_acc += 1;
            }
            // d was just computed.
            (21, Some(j)) => {
                let d = dbg.print("d").unwrap().leaves_f64();
                assert!(close3(&d, ds[j]), "d at j={j}: {d:?} vs {:?}", ds[j]);
                let dx = dbg.print("d.x").unwrap().scalar().unwrap().as_f64();
                assert!(close(dx, ds[j][0] as f64));
                seen_d += 1;
            }
            (22, Some(j)) => {
                let r2 = dbg.print("r2").unwrap().scalar().unwrap().as_f64();
                assert!(close(r2, r2s[j] as f64), "r2 at j={j}: {r2} vs {}", r2s[j]);
                seen_r2 += 1;
            }
            // After the loop: the total acceleration.
            (24, _) => {
                let a = stop.local("acc").expect("acc").leaves_f64();
                assert!(close3(&a, acc), "final acc {a:?} vs {acc:?}");
            }
            // Line 25 wrote thread 3's new velocity, vel + acc * dt, into
            // the live launch's memory; thread 2 wrote its own before
            // thread 3 started, thread 4 has not started.
            (26, _) => {
                let got = dbg.print("new_vel[3]").unwrap().leaves_f64();
                let want = [0, 1, 2].map(|k| vel[tid][k] + acc[k] * dt);
                assert!(close3(&got, want), "new_vel[3] = {got:?}, want {want:?}");
                let two = dbg.print("new_vel[2]").unwrap().leaves_f64();
                assert!(two.iter().any(|&x| x != 0.0), "new_vel[2] = {two:?}");
                let four = dbg.print("new_vel[4]").unwrap().leaves_f64();
                assert_eq!(four, [0.0; 3], "thread 4 has not run");
                seen_written = true;
            }
            _ => {}
        }
    }
    assert!(seen_written);
    assert_eq!((seen_acc, seen_d, seen_r2), (n, n, n), "lines: {lines:?}");
    assert!(lines.starts_with(&[16, 17, 18]), "{lines:?}");
    assert!(lines.ends_with(&[24, 25, 26]), "{lines:?}");
    assert!(dbg.finished());

    // The debugger ran on copies: the caller's arrays are as they were.
    assert_eq!(nv.to_vec::<[f32; 3]>().unwrap(), vec![[0.0; 3]; n]);
}

const FUNCS: &str = r#"import warp as wp


@wp.func
def scale(a: float, b: float):
    c = a * b
    return c + 1.0


@wp.kernel
def apply(x: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    w = scale(v, 2.0)
    x[i] = w
"#;

#[test]
fn step_into_and_out_of_a_func() {
    let module = Debugger::compile("funcs.py", FUNCS).unwrap();
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let mut dbg = Debugger::launch(&module, "apply", &[4], &[Arg::array(&x)], 2).unwrap();
    let lines: Vec<u32> = dbg.stops_to_end().iter().map(|s| s.line).collect();
    assert_eq!(lines, [12, 13, 14, 6, 7, 15], "{lines:?}");
    dbg.reset();

    assert_eq!(dbg.step().unwrap().line, 12);
    assert_eq!(dbg.step().unwrap().line, 13);
    assert_eq!(dbg.step().unwrap().line, 14);
    assert_eq!(dbg.print("v").unwrap().scalar().unwrap().as_f64(), 3.0);
    // Into the func.
    let s = dbg.step().unwrap();
    assert_eq!((s.func.as_str(), s.line, s.depth), ("scale", 6, 1));
    let stack: Vec<(&str, u32)> = s.stack.iter().map(|f| (f.func.as_str(), f.line)).collect();
    assert_eq!(stack, [("scale", 6), ("apply", 14)]);
    assert_eq!(dbg.print("a").unwrap().scalar().unwrap().as_f64(), 3.0);
    assert_eq!(dbg.print("b").unwrap().scalar().unwrap().as_f64(), 2.0);
    assert!(
        dbg.print("v").is_err(),
        "the caller's locals are not in scope"
    );
    assert_eq!(dbg.step().unwrap().line, 7);
    assert_eq!(dbg.print("c").unwrap().scalar().unwrap().as_f64(), 6.0);
    // Out of it.
    let s = dbg.finish().unwrap();
    assert_eq!((s.func.as_str(), s.line, s.depth), ("apply", 15, 0));
    assert_eq!(dbg.print("w").unwrap().scalar().unwrap().as_f64(), 7.0);
    assert!(dbg.step().is_none());

    // `next` steps over the call; a func breakpoint stops inside it.
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let mut dbg = Debugger::launch(&module, "apply", &[4], &[Arg::array(&x)], 0).unwrap();
    dbg.add_breakpoint(Breakpoint::parse("funcs.py:14"));
    assert_eq!(dbg.cont().unwrap().line, 14);
    assert_eq!(dbg.next().unwrap().line, 15);
    let mut dbg = Debugger::launch(&module, "apply", &[4], &[Arg::array(&x)], 0).unwrap();
    dbg.add_breakpoint(Breakpoint::parse("scale"));
    let s = dbg.cont().unwrap();
    assert_eq!((s.func.as_str(), s.line), ("scale", 6));
    assert!(dbg.cont().is_none());
}

#[test]
fn watch_stops_when_a_value_changes() {
    let module = Debugger::compile("funcs.py", FUNCS).unwrap();
    let x = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let mut dbg = Debugger::launch(&module, "apply", &[2], &[Arg::array(&x)], 1).unwrap();
    assert_eq!(dbg.step().unwrap().line, 12);
    dbg.watch("i");
    // `i` is defined on line 12 and never changes again.
    assert!(dbg.cont().is_none());
}

/// Every conformance case compiles in the CPU debug build and its first
/// launch runs under the recorder, stopping at least once.
#[test]
fn every_case_runs_in_the_debug_build() {
    let Some(root) = weft_testkit::corpus::find() else {
        return;
    };
    let cases = weft_conform::find_cases(&root)
        .unwrap_or_else(|e| panic!("the corpus at {}: {e}", root.display()));
    assert!(!cases.is_empty(), "no case under {}", root.display());
    let mut failures = Vec::new();
    for path in &cases {
        let case = weft_conform::Case::load(path).expect("case loads");
        let mut out = Vec::new();
        let script = "step\nlocals\ncontinue\n";
        if let Err(e) = weft_cli::debug::run_session(&case, &[0], script.as_bytes(), &mut out) {
            failures.push(format!("{}: {e}", case.name));
            continue;
        }
        let text = String::from_utf8_lossy(&out);
        if !text.contains("stopped at") {
            failures.push(format!("{}: no stop\n{text}", case.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Issue 17's transcript on the seed's case (thread 3), rerun: `break 22`
/// and `continue` stop with `d`, `j`, `r2` visible and equal to the
/// interpreter's values, and `next` goes to 23; `break 20` + `next` goes
/// to 21; at every stop on 23, `r2` and `eps2` are there.
#[test]
fn the_issue_transcript_stops_at_the_right_lines() {
    let Some(dir) = weft_testkit::corpus::case("seed_nbody_step") else {
        return;
    };
    let case = weft_conform::Case::load(&dir).expect("loads the case");
    let src = std::fs::read_to_string(dir.join("kernel.py")).expect("kernel.py");
    let m = Debugger::compile("kernel.py", &src).expect("compiles");
    let run = |oracle: bool| {
        weft_cli::debug::with_case_args(&case, &m, |k, dim, args| {
            if oracle {
                Debugger::oracle(&m, k, dim, args, 3).map(|s| (None, s))
            } else {
                Debugger::launch(&m, k, dim, args, 3).map(|mut d| {
                    let s = d.stops_to_end().to_vec();
                    d.reset();
                    (Some(d), s)
                })
            }
        })
        .expect("inputs")
        .expect("launch")
    };
    let (_, want) = run(true);
    let (dbg, _) = run(false);
    let mut dbg = dbg.expect("a debugger");
    dbg.add_breakpoint(Breakpoint::parse("kernel.py:22"));
    let s = dbg.cont().expect("stops").clone();
    assert_eq!(s.line, 22);
    let w = want
        .iter()
        .find(|w| w.line == 22)
        .expect("the oracle runs 22");
    for name in ["d", "j", "r2", "eps2", "acc", "p"] {
        assert_eq!(s.local(name), w.local(name), "{name}");
        assert!(s.local(name).is_some(), "{name} visible");
    }
    assert_eq!(dbg.next().map(|s| s.line), Some(23));
    dbg.reset();
    dbg.clear_breakpoints();
    dbg.add_breakpoint(Breakpoint::parse("kernel.py:20"));
    assert_eq!(dbg.cont().map(|s| s.line), Some(20));
    assert_eq!(dbg.next().map(|s| s.line), Some(21));
    let on_23: Vec<_> = dbg.stops_to_end().iter().filter(|s| s.line == 23).collect();
    assert_eq!(on_23.len(), 1000);
    assert!(on_23
        .iter()
        .all(|s| s.local("r2").is_some() && s.local("eps2").is_some()));
}

// Live stops: the launch is paused at the stepped thread's stop, threads
// with a lower index finished, those with a higher one not started.

/// Thread `t` reads its input at line 7, writes `out[t]` at line 8 and
/// reads what thread `t - 1` wrote at line 10.
const CHAIN: &str = r#"import warp as wp


@wp.kernel
def chain(out: wp.array(dtype=float), seen: wp.array(dtype=float)):
    t = wp.tid()
    x = out[t] * 10.0
    out[t] = x + 1.0
    if t > 0:
        seen[t] = out[t - 1]
"#;

fn f(dbg: &Debugger, e: &str) -> f64 {
    dbg.print(e)
        .unwrap_or_else(|err| panic!("print {e}: {err}"))
        .scalar()
        .expect("a scalar")
        .as_f64()
}

#[test]
fn a_stop_shows_the_memory_of_the_real_run_at_that_point() {
    let module = Debugger::compile("chain.py", CHAIN).unwrap();
    let out = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[6]).unwrap();
    let seen = Array::from_slice(&[0.0f32; 6], &[6]).unwrap();
    let args = [Arg::array(&out), Arg::array(&seen)];
    let mut dbg = Debugger::launch(&module, "chain", &[6], &args, 3).unwrap();
    assert!(matches!(
        dbg.print("out[3]"),
        Err(weft::debug::DebugError::NotStarted)
    ));
    dbg.add_breakpoint(Breakpoint::parse("chain.py:8"));
    assert_eq!(dbg.cont().map(|s| s.line), Some(8));
    // Before line 8 runs: thread 3's element is still its input, thread
    // 2's is written, thread 4's is not.
    assert_eq!(f(&dbg, "out[3]"), 4.0);
    assert_eq!(f(&dbg, "out[2]"), 31.0);
    assert_eq!(f(&dbg, "out[4]"), 5.0);
    assert_eq!(f(&dbg, "seen[2]"), 21.0);
    assert_eq!(f(&dbg, "x"), 40.0);
    assert_eq!(dbg.next().map(|s| s.line), Some(9));
    assert_eq!(f(&dbg, "out[3]"), 41.0);
    assert_eq!(f(&dbg, "out[4]"), 5.0);
    assert_eq!(dbg.next().map(|s| s.line), Some(10));
    assert_eq!(f(&dbg, "seen[3]"), 0.0);
    assert!(dbg.next().is_none(), "no statement after line 10");
    assert!(dbg.finished() && dbg.failure().is_none());
    // Again from the start, with the same inputs: the same live values;
    // a watch on an element stops after the statement that stores it.
    dbg.reset();
    dbg.clear_breakpoints();
    assert_eq!(dbg.step().map(|s| s.line), Some(6));
    dbg.watch("out[3]");
    assert_eq!(dbg.cont().map(|s| s.line), Some(9));
    assert_eq!(f(&dbg, "out[3]"), 41.0);
    dbg.reset();
    dbg.add_breakpoint(Breakpoint::parse("chain.py:8"));
    assert_eq!(dbg.cont().map(|s| s.line), Some(8));
    assert_eq!(f(&dbg, "out[3]"), 4.0);
    assert_eq!(f(&dbg, "out[2]"), 31.0);
    // Once run to the end, the memory at an earlier stop is gone: an
    // error, not a stale value.
    let n = dbg.stops_to_end().len();
    assert_eq!(n, 5);
    assert!(dbg.print("out[3]").is_err());
    assert_eq!(f(&dbg, "x"), 40.0);
    // The caller's arrays were copied, not written.
    assert_eq!(out.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
}

const COUNT: &str = r#"import warp as wp


@wp.kernel
def count(counter: wp.array(dtype=int), slot: wp.array(dtype=int)):
    t = wp.tid()
    k = wp.atomic_add(counter, 0, 1)
    slot[t] = k
"#;

#[test]
fn an_atomic_counter_shows_the_threads_before_the_stepped_one() {
    let module = Debugger::compile("count.py", COUNT).unwrap();
    let counter = Array::from_slice(&[0i32], &[1]).unwrap();
    let slot = Array::from_slice(&[-1i32; 8], &[8]).unwrap();
    let args = [Arg::array(&counter), Arg::array(&slot)];
    for tid in [0usize, 5, 7] {
        let mut dbg = Debugger::launch(&module, "count", &[8], &args, tid).unwrap();
        assert_eq!(dbg.step().map(|s| s.line), Some(6));
        assert_eq!(dbg.step().map(|s| s.line), Some(7));
        assert_eq!(f(&dbg, "counter[0]"), tid as f64, "thread {tid}");
        assert_eq!(dbg.step().map(|s| s.line), Some(8));
        assert_eq!(f(&dbg, "k"), tid as f64);
        assert_eq!(f(&dbg, "counter[0]"), tid as f64 + 1.0);
        if tid > 0 {
            assert_eq!(f(&dbg, &format!("slot[{}]", tid - 1)), tid as f64 - 1.0);
        }
        assert_eq!(f(&dbg, &format!("slot[{tid}]")), -1.0);
        assert!(dbg.step().is_none());
    }
}

/// Every thread spins while `flag[0]` is set: a launch that never ends by
/// itself.
const SPIN: &str = r#"import warp as wp


@wp.kernel
def spin(flag: wp.array(dtype=int), out: wp.array(dtype=int)):
    t = wp.tid()
    n = int(0)
    while flag[0] > 0:
        n = n + 1
    out[t] = n
"#;

/// Runs `f` on a debugger of the spinning kernel over 4 threads stepping
/// thread `tid`, on another thread; fails unless `f` and the debugger's
/// drop return within a minute.
fn returns_in_time(tid: usize, f: impl FnOnce(Debugger) + Send + 'static) {
    let (tx, rx) = std::sync::mpsc::channel();
    let h = std::thread::spawn(move || {
        let module = Debugger::compile("spin.py", SPIN).unwrap();
        let flag = Array::from_slice(&[1i32], &[1]).unwrap();
        let out = Array::from_slice(&[0i32; 4], &[4]).unwrap();
        let args = [Arg::array(&flag), Arg::array(&out)];
        f(Debugger::launch(&module, "spin", &[4], &args, tid).unwrap());
        let _ = tx.send(());
    });
    let r = rx.recv_timeout(std::time::Duration::from_secs(60));
    assert!(r.is_ok(), "the debugger did not end its launch");
    h.join().unwrap();
}

#[test]
fn quitting_mid_kernel_ends_the_launch_and_joins_its_worker() {
    // Paused in thread 0's hook, before its loop that never ends: the
    // drop cancels the launch (the loop ends at its back-edge).
    returns_in_time(0, |mut dbg| {
        assert_eq!(dbg.step().map(|s| s.line), Some(6));
        assert_eq!(dbg.step().map(|s| s.line), Some(7));
        drop(dbg);
    });
    // Dropped before its first command (the launch has not started).
    returns_in_time(2, drop);
}

#[test]
fn a_timeout_ends_a_launch_that_never_reaches_the_thread() {
    returns_in_time(2, |mut dbg| {
        dbg.set_timeout(Some(std::time::Duration::from_millis(300)));
        // Thread 0 spins: thread 2 never gets to a statement.
        assert!(dbg.step().is_none());
        assert!(dbg.finished());
        let e = dbg.failure().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("time"), "{e}");
        // The launch can run again (and time out again).
        dbg.reset();
        assert!(dbg.step().is_none());
        assert!(dbg.failure().is_some());
    });
}

const NOISE: &str = r#"import warp as wp


@wp.kernel
def noise(seed: int, out: wp.array(dtype=float)):
    t = wp.tid()
    state = wp.rand_init(seed, t)
    x = wp.randf(state)
    out[t] = x
"#;

/// Random numbers at a stop are the real run's: thread 5's `x` is what a
/// normal CPU launch writes to `out[5]`, and thread 4's element, live, is
/// the one the normal launch wrote.
#[test]
fn random_numbers_at_a_stop_are_those_of_a_normal_launch() {
    let module = Debugger::compile("noise.py", NOISE).unwrap();
    let real = Array::from_slice(&[0.0f32; 8], &[8]).unwrap();
    let dev = weft::Device::cpu();
    let k = dev.load(&module, "noise").unwrap();
    dev.launch(&k, &[8], &[Arg::i32(42), Arg::array(&real)])
        .unwrap();
    let real = real.to_vec::<f32>().unwrap();
    assert!(real.iter().all(|&x| x > 0.0 && x < 1.0), "{real:?}");
    let out = Array::from_slice(&[0.0f32; 8], &[8]).unwrap();
    let args = [Arg::i32(42), Arg::array(&out)];
    let mut dbg = Debugger::launch(&module, "noise", &[8], &args, 5).unwrap();
    dbg.add_breakpoint(Breakpoint::parse("noise.py:9"));
    assert_eq!(dbg.cont().map(|s| s.line), Some(9));
    assert_eq!(f(&dbg, "x"), real[5] as f64);
    assert_eq!(f(&dbg, "out[4]"), real[4] as f64);
    assert_eq!(f(&dbg, "out[5]"), 0.0);
}

const OOB: &str = r#"import warp as wp


@wp.kernel
def oob(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    t = wp.tid()
    v = x[t + 2]
    out[t] = v
"#;

/// A bounds-check failure in checked mode ends the stepped thread (no
/// hang) and is the session's failure; in a thread below the stepped one
/// too. A thread that reads in bounds finishes normally.
#[test]
fn a_trap_in_checked_mode_ends_the_thread_with_its_report() {
    let module = weft::Compiler::with_options(weft::CompileOptions {
        checked: true,
        opt: false,
        opt_level: weft_ir::OptLevel::O0,
        ..weft::CompileOptions::default()
    })
    .compile("oob.py", OOB)
    .unwrap();
    let x = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let out = Array::from_slice(&[0.0f32; 4], &[4]).unwrap();
    let args = [Arg::array(&x), Arg::array(&out)];
    let mut dbg = Debugger::launch(&module, "oob", &[4], &args, 1).unwrap();
    assert_eq!(dbg.next().map(|s| s.line), Some(6));
    assert_eq!(dbg.next().map(|s| s.line), Some(7));
    assert_eq!(dbg.next().map(|s| s.line), Some(8));
    assert_eq!(f(&dbg, "v"), 4.0);
    assert!(dbg.next().is_none());
    assert!(dbg.failure().is_none(), "{:?}", dbg.failure());
    for tid in [2, 3] {
        let mut dbg = Debugger::launch(&module, "oob", &[4], &args, tid).unwrap();
        dbg.add_breakpoint(Breakpoint::parse("oob.py:7"));
        assert_eq!(dbg.cont().map(|s| s.line), Some(7));
        assert!(dbg.cont().is_none());
        let e = dbg.failure().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            e.contains("oob.py") && e.contains(":7"),
            "thread {tid}: {e}"
        );
    }
}
