//! The frontend never panics: every conformance kernel with each line
//! deleted in turn, and truncated at many points, compiles or fails with
//! diagnostics.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Compiles `src`: the result must verify, or the diagnostics must exist and
/// render.
fn check(src: &str) -> Result<(), String> {
    let r = catch_unwind(AssertUnwindSafe(|| {
        match weft_frontend::compile("k.py", src) {
            Ok(m) => weft_ir::verify::verify_module(&m)
                .map(drop)
                .map_err(|e| format!("verifier: {e}")),
            Err(d) if d.items.is_empty() || d.render(false).is_empty() => {
                Err("failed without a diagnostic".to_string())
            }
            Err(_) => Ok(()),
        }
    }));
    r.unwrap_or_else(|_| Err("panicked".into()))
}

#[test]
fn every_line_deleted() {
    let Some(cases) = weft_testkit::corpus::kernels() else {
        return;
    };
    let mut failures = Vec::new();
    for (name, src) in &cases {
        let lines: Vec<&str> = src.lines().collect();
        for skip in 0..lines.len() {
            let mutated: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, l)| *l)
                .collect();
            if let Err(e) = check(&mutated.join("\n")) {
                failures.push(format!("{name} without line {}: {e}", skip + 1));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn truncations_and_token_swaps() {
    let Some(cases) = weft_testkit::corpus::kernels() else {
        return;
    };
    let mut failures = Vec::new();
    // A deterministic generator (xorshift) picks cut points and swaps.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    let swaps = [
        ("float", "wp.float64"),
        ("float", "int"),
        ("int", "float"),
        ("wp.vec3", "wp.mat33"),
        ("wp.vec3", "float"),
        ("+", "*"),
        ("+", " and "),
        ("[i]", "[i, i]"),
        ("[i]", ""),
        ("(", ""),
        (")", ""),
        ("range", "wp.range"),
        ("return", "break"),
        ("i", "q"),
        ("0", "0.0"),
        (".x", "[0]"),
        ("+=", "="),
        ("=", "+="),
        ("if ", "while "),
        ("wp.tid()", "wp.tid(), 0"),
    ];
    for (name, src) in &cases {
        for _ in 0..8 {
            let mut cut = next(src.len());
            while !src.is_char_boundary(cut) {
                cut -= 1;
            }
            if let Err(e) = check(&src[..cut]) {
                failures.push(format!("{name} truncated at byte {cut}: {e}"));
            }
        }
        // Every occurrence of every swap, one at a time.
        for (from, to) in swaps {
            for (at, _) in src.match_indices(from) {
                let mutated = format!("{}{}{}", &src[..at], to, &src[at + from.len()..]);
                if let Err(e) = check(&mutated) {
                    failures.push(format!("{name} with `{from}` → `{to}` at byte {at}: {e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn deeply_nested_source() {
    // Long sums, deep parentheses, deeply nested `if`s and long constant
    // expressions are lowered without overflowing the stack.
    let n = 5000;
    let kernel = |body: &str| {
        format!("import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float)):\n i = wp.tid()\n{body}")
    };
    let sum = vec!["x[i]"; n].join(" + ");
    let parens = format!("{}x[i]{}", "(".repeat(n), ")".repeat(n));
    let mut ifs = String::new();
    for d in 0..500 {
        ifs.push_str(&format!("{}if x[i] > 0.0:\n", " ".repeat(d + 1)));
    }
    ifs.push_str(&format!("{}x[i] = 1.0\n", " ".repeat(501)));
    let sources = [
        kernel(&format!(" for j in range(i):\n  x[i] = {sum}\n")),
        kernel(&format!(" x[i] = {parens}\n")),
        kernel(&ifs),
        format!(
            "import warp as wp\nK = wp.constant({})\n\n@wp.kernel\ndef k(x: wp.array(dtype=int)):\n x[0] = K\n",
            vec!["1"; n].join(" + ")
        ),
    ];
    for src in &sources {
        // Compiled on the test thread's own (small) stack.
        let m = weft_frontend::compile("deep.py", src).unwrap_or_else(|d| panic!("{d}"));
        // The verifier recurses over nested regions: give it room.
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || weft_ir::verify::verify_module(&m).map_err(|e| e.to_string()))
            .expect("thread")
            .join()
            .expect("verifier thread")
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
