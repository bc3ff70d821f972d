//! The interpreter's statement trace (`weft_ir::interp::trace_thread`, the
//! debugger's oracle) on lowered kernels: which statements a thread
//! starts, at which depth, and the variables in scope at each.

use weft_ir::interp::{trace_thread, ArgValue, InterpOptions, TraceEvent};

const SRC: &str = "import warp as wp


@wp.func
def twice(x: float):
    y = x * 2.0
    return y


@wp.kernel
def k(out: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = float(0.0)
    for j in range(n):
        t = float(j)
        if i % 2 == 0:
            t = twice(t)
        s = s + t
    out[i] = s
";

/// The trace of thread `tid` of `k` over 4 threads with `n = 2`.
fn trace(tid: i32) -> Vec<TraceEvent> {
    let m = weft_frontend::compile("k.py", SRC).expect("compiles");
    let k = m.func_by_name("k").expect("kernel");
    let mut out = vec![0u8; 16];
    let mut args = [
        ArgValue::Array {
            data: &mut out,
            shape: [4, 1, 1, 1],
            strides: [4, 0, 0, 0],
        },
        ArgValue::Value(2i32.to_le_bytes().to_vec()),
    ];
    trace_thread(&m, k, &[4], &mut args, &InterpOptions::default(), tid).expect("runs")
}

fn lines(t: &[TraceEvent]) -> Vec<(u32, u32)> {
    t.iter().map(|e| (e.loc.line, e.depth)).collect()
}

fn var(e: &TraceEvent, name: &str) -> Option<f64> {
    e.vars
        .iter()
        .find(|v| v.name == name)
        .map(|v| v.leaves[0].as_f64())
}

#[test]
fn statements_depths_and_scopes() {
    // Thread 0 takes the branch and calls `twice` (lines 6–7: 7 has no
    // stop of its own, `return y` computes nothing).
    let t = trace(0);
    assert_eq!(
        lines(&t),
        [
            (12, 0),
            (13, 0),
            (14, 0),
            (15, 0),
            (16, 0),
            (17, 0),
            (6, 1),
            (18, 0),
            (14, 0),
            (15, 0),
            (16, 0),
            (17, 0),
            (6, 1),
            (18, 0),
            (14, 0),
            (19, 0)
        ]
    );
    assert!(t[6].entry && !t[7].entry);
    // In the func: only its own variables.
    let names: Vec<&str> = t[6].vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["x"]);
    // Before `s = s + t` of the second iteration: `t` is the branch's.
    assert_eq!(var(&t[13], "t"), Some(2.0));
    assert_eq!(var(&t[13], "j"), Some(1.0));
    assert_eq!(var(&t[13], "s"), Some(0.0));
    // After the loop: its results, and none of the body's variables.
    assert_eq!(var(&t[15], "s"), Some(2.0));
    assert_eq!(var(&t[15], "t"), None);
    // Thread 1 skips the branch: no call.
    let t = trace(1);
    assert!(t.iter().all(|e| e.depth == 0));
    assert!(!t.iter().any(|e| e.loc.line == 17));
    assert_eq!(var(t.last().unwrap(), "s"), Some(1.0));
}
