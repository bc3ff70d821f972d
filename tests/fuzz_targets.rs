//! The fuzz targets' bodies (`weft_devtools::fuzz::targets`) over their seed
//! corpora, made from the conformance corpus and the IR file tests
//! (`weft_devtools::fuzz::seeds`), with stable Rust and no fuzzer: every seed
//! is handled as each layer promises (a target panics on a broken
//! invariant). `scripts/fuzz.sh` runs the same bodies under libFuzzer
//! from these seeds; this test is its smoke run in `cargo test`.

mod common;

use weft_devtools::fuzz::{seeds, targets};

fn replay(name: &str) {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let body = targets::target(name).expect("a fuzz target");
    let inputs = seeds::seeds(name, &corpus);
    assert!(
        inputs.len() >= 100,
        "only {} seeds for `{name}` from {}",
        inputs.len(),
        corpus.display()
    );
    for (seed, bytes) in &inputs {
        let r = std::panic::catch_unwind(|| body(bytes));
        assert!(r.is_ok(), "fuzz target `{name}` failed on seed `{seed}`");
    }
}

#[test]
fn every_target_has_a_fuzz_crate_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("fuzz/Cargo.toml");
    for (name, _) in targets::TARGETS {
        let file = dir.join(format!("fuzz_targets/{name}.rs"));
        let src = std::fs::read_to_string(&file).expect("the target's file");
        assert!(
            src.contains(&format!("weft_devtools::fuzz::targets::{name}(data)")),
            "{} does not run targets::{name}",
            file.display()
        );
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "fuzz/Cargo.toml has no bin `{name}`"
        );
    }
}

#[test]
fn frontend_seeds() {
    replay("frontend");
}

#[test]
fn pipeline_seeds() {
    replay("pipeline");
}

#[test]
fn ir_text_seeds() {
    replay("ir_text");
}

#[test]
fn ir_passes_seeds() {
    replay("ir_passes");
}

#[test]
fn case_loader_seeds() {
    replay("case_loader");
}

#[test]
fn cache_entry_seeds() {
    replay("cache_entry");
}

/// Inputs that break each layer's promises in the ways that matter: the
/// targets reject or handle them without panicking.
#[test]
fn hostile_inputs() {
    let deep = format!(
        "import warp as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[0] = {}1.0{}\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let inputs: Vec<Vec<u8>> = vec![
        Vec::new(),
        vec![0xff, 0xfe, 0x00, 0x80],
        deep.into_bytes(),
        b"kernel @k() {\n".to_vec(),
        [
            b"{}".as_slice(),
            targets::PART_SEPARATOR,
            b"\x93NUMPY\x01\x00",
        ]
        .concat(),
        b"WEFT\x00\x00\x00\x00".to_vec(),
        // A dtype name with a byte below `0` where a vector or matrix size
        // goes (found by `scripts/fuzz.sh`: an overflow in the name parser).
        br#"{"name": "c", "kernel": "k", "dim": [1], "args": [{"name": "m", "kind": "array", "dtype": "mat2/", "ndim": 1, "shape": [1], "file": "m.npy"}]}"#.to_vec(),
    ];
    for (name, body) in targets::TARGETS {
        for (i, input) in inputs.iter().enumerate() {
            let r = std::panic::catch_unwind(|| body(input));
            assert!(
                r.is_ok(),
                "fuzz target `{name}` failed on hostile input {i}"
            );
        }
    }
}
