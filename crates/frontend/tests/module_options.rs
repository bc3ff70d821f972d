//! Warp's module options in the source: which kernels get
//! `Function::fast_math`.

use weft_frontend::compile;
use weft_ir::Module;

/// `(kernel, flag(kernel))` of `src`'s kernels, by name.
fn kernel_flags(src: &str, flag: fn(&weft_ir::Function) -> bool) -> Vec<(String, bool)> {
    let m: Module = compile("k.py", src).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let mut v: Vec<(String, bool)> = m
        .kernels()
        .map(|(_, f)| (f.name.clone(), flag(f)))
        .collect();
    v.sort();
    v
}

fn fast_kernels(src: &str) -> Vec<(String, bool)> {
    kernel_flags(src, |f| f.fast_math)
}

const KERNELS: &str = r#"
@wp.kernel
def a(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = wp.sin(x[i])


@wp.kernel(module="unique")
def b(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = wp.sin(x[i])


@wp.kernel(module_options={"fast_math": True}, module="unique")
def c(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = wp.sin(x[i])


@wp.kernel(enable_backward=False)
def d(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = wp.sin(x[i])
"#;

fn with(header: &str, footer: &str) -> Vec<(String, bool)> {
    fast_kernels(&format!(
        "import warp as wp\n\n{header}\n{KERNELS}\n{footer}\n"
    ))
}

fn expect(v: &[(&str, bool)]) -> Vec<(String, bool)> {
    v.iter().map(|(n, b)| (n.to_string(), *b)).collect()
}

#[test]
fn no_options_no_fast_math_except_a_kernels_own() {
    assert_eq!(
        with("", ""),
        expect(&[("a", false), ("b", false), ("c", true), ("d", false)])
    );
}

#[test]
fn set_module_options_covers_the_files_module() {
    let want = expect(&[("a", true), ("b", false), ("c", true), ("d", true)]);
    assert_eq!(
        with(
            r#"wp.set_module_options({"fast_math": True, "enable_backward": False})"#,
            ""
        ),
        want
    );
    // Wherever the statement is (Warp reads options when it compiles the
    // module), by name, as `dict(...)`, and with `module=__name__`.
    assert_eq!(
        with("", r#"wp.set_module_options({"fast_math": True})"#),
        want
    );
    assert_eq!(
        with(
            "OPTS = {\"fuse_fp\": True, \"fast_math\": True, \"mode\": \"release\", \"block_dim\": 128}\nwp.set_module_options(OPTS)",
            ""
        ),
        want
    );
    assert_eq!(
        with(
            "wp.set_module_options(dict(fast_math=True), module=__name__)",
            ""
        ),
        want
    );
}

#[test]
fn the_last_value_wins_and_other_keys_leave_it() {
    let off = expect(&[("a", false), ("b", false), ("c", true), ("d", false)]);
    assert_eq!(
        with(
            r#"wp.set_module_options({"fast_math": True})"#,
            r#"wp.set_module_options({"fast_math": False})"#
        ),
        off
    );
    assert_eq!(
        with(
            r#"wp.set_module_options({"fast_math": True})"#,
            r#"wp.set_module_options({"enable_backward": True})"#
        ),
        expect(&[("a", true), ("b", false), ("c", true), ("d", true)])
    );
}

#[test]
fn options_in_host_code_are_not_read() {
    assert_eq!(
        with(
            "",
            "if __name__ == \"__main__\":\n    wp.set_module_options({\"fast_math\": True})"
        ),
        expect(&[("a", false), ("b", false), ("c", true), ("d", false)])
    );
}

#[test]
fn the_attribute_is_in_the_ir_text() {
    let src =
        format!("import warp as wp\nwp.set_module_options({{\"fast_math\": True}})\n{KERNELS}");
    let m = compile("k.py", &src).unwrap();
    let text = weft_ir::text::print_module(&m);
    assert!(
        text.contains("kernel @a(v0 \"x\": array1<f32>) fast_math @0:"),
        "{text}"
    );
    assert!(
        !text.contains("kernel @b(v0 \"x\": array1<f32>) fast_math"),
        "{text}"
    );
    weft_ir::text::check_roundtrip(&m).unwrap();
}

#[test]
fn unsupported_forms_are_diagnostics() {
    for (stmt, message) in [
        (
            r#"wp.set_module_options({"fast_math": True}, module="other")"#,
            "options of another module",
        ),
        (
            r#"wp.set_module_options(make_options())"#,
            "module options must be a dict literal",
        ),
        (
            r#"wp.set_module_options({**BASE})"#,
            "module option names must be string literals",
        ),
        (
            r#"wp.set_module_options({"fast_math": True}, "other")"#,
            "options of another module",
        ),
        (
            r#"wp.set_module_options({"fast_math": True}, __name__, True)"#,
            "unsupported `wp.set_module_options` call",
        ),
    ] {
        let src = format!("import warp as wp\n{stmt}\n{KERNELS}");
        let d = compile("k.py", &src).expect_err(stmt);
        assert!(
            d.items.iter().any(|i| i.message == message),
            "{stmt}: {}",
            d.render(false)
        );
    }
}

fn deterministic_kernels(src: &str) -> Vec<(String, bool)> {
    kernel_flags(src, |f| f.deterministic)
}

#[test]
fn deterministic_takes_warps_modes_bools_and_ints() {
    let on = expect(&[("a", true), ("b", false), ("c", false), ("d", true)]);
    let off = expect(&[("a", false), ("b", false), ("c", false), ("d", false)]);
    for (value, want) in [
        ("wp.DeterministicMode.RUN_TO_RUN", &on),
        ("wp.DeterministicMode.GPU_TO_GPU", &on),
        ("wp.DeterministicMode.NOT_GUARANTEED", &off),
        ("True", &on),
        ("False", &off),
        ("1", &on),
        ("0", &off),
    ] {
        let src = format!(
            "import warp as wp\n\nwp.set_module_options({{\"deterministic\": {value}}})\n{KERNELS}\n"
        );
        assert_eq!(&deterministic_kernels(&src), want, "{value}");
    }
    assert_eq!(
        deterministic_kernels(&format!("import warp as wp\n{KERNELS}")),
        off
    );
    // A kernel of its own module takes its own options.
    let own = KERNELS.replace(
        r#"module_options={"fast_math": True}"#,
        r#"module_options={"deterministic": wp.DeterministicMode.RUN_TO_RUN}"#,
    );
    assert_eq!(
        deterministic_kernels(&format!("import warp as wp\n{own}")),
        expect(&[("a", false), ("b", false), ("c", true), ("d", false)])
    );
}

#[test]
fn deterministic_rejects_other_values_with_a_span() {
    for value in ["3", "\"yes\"", "2.5"] {
        let src = format!(
            "import warp as wp\n\nwp.set_module_options({{\"deterministic\": {value}}})\n{KERNELS}\n"
        );
        let err = compile("k.py", &src).expect_err(value);
        let text = err.render(false);
        assert!(text.contains("`deterministic` must be"), "{value}: {text}");
        assert!(text.contains("k.py:3:"), "{value}: {text}");
    }
}
