//! What a build says about the devices and outputs it has: every device of
//! the registry is known by name; one whose cargo feature is off is refused
//! with the feature to enable, by the library and by the CLI, and so is
//! PTX without the `llvm` feature.

use std::process::Command;

const SAXPY: &str = "import warp as wp\n\n@wp.kernel\ndef saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):\n    i = wp.tid()\n    y[i] = a * x[i] + y[i]\n";

fn weft(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(args)
        .output()
        .expect("runs weft");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout),
    )
}

#[test]
fn the_registry_lists_every_device_and_which_this_build_has() {
    let names: Vec<_> = weft::devices().iter().map(|d| d.name).collect();
    for n in ["interp", "cpu", "llvm-cpu", "cuda", "vulkan"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let built = weft::device_names();
    assert!(built.contains(&"cpu") && built.contains(&"interp"));
    assert_eq!(built.contains(&"llvm-cpu"), cfg!(feature = "llvm"));
    assert_eq!(built.contains(&"vulkan"), cfg!(feature = "vulkan"));
    // `--backend`'s help is the registry's.
    let (_, help) = weft(&["run", "--help"]);
    for n in names {
        assert!(help.contains(n), "{n} not in:\n{help}");
    }
}

#[test]
fn an_unknown_device_lists_the_known_ones() {
    let e = weft::Device::open("gpu7").unwrap_err().to_string();
    assert!(
        e.contains("unknown device `gpu7`") && e.contains("interp, cpu, llvm-cpu, cuda, vulkan"),
        "{e}"
    );
    let dir = std::env::temp_dir().join(format!("weft-features-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("saxpy.py");
    std::fs::write(&file, SAXPY).unwrap();
    let (ok, out) = weft(&["build", file.to_str().unwrap(), "--emit", "ptx"]);
    if cfg!(feature = "llvm") {
        assert!(ok, "{out}");
    } else {
        assert!(!ok);
        assert!(out.contains("--emit ptx needs the `llvm` feature"), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(not(feature = "llvm"))]
#[test]
fn devices_behind_the_llvm_feature_name_it() {
    for name in ["llvm-cpu", "cuda", "cuda:1"] {
        let e = weft::Device::open(name).unwrap_err().to_string();
        assert!(
            e.contains("is not compiled into this build") && e.contains("`llvm`"),
            "{name}: {e}"
        );
    }
    let case = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/checked/oob_read");
    let (ok, out) = weft(&["run", case.to_str().unwrap(), "--backend", "llvm-cpu"]);
    assert!(!ok);
    assert!(
        out.contains("the `llvm-cpu` device is not compiled into this build: rebuild with the cargo feature `llvm`"),
        "{out}"
    );
}
