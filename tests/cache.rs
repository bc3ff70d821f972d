//! The disk compile cache across processes: `weft cache warm FILE` prints
//! one line per artifact, `<kind> [kernel] <hit|miss> <ms> ms <sha256>`.
//!
//! * a second process compiles the same module from the cache (cold and
//!   warm times are printed);
//! * a corrupted entry is rebuilt (same artifact), never trusted;
//! * 8 processes compiling one module at once all succeed with identical
//!   artifacts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const NBODY: &str = include_str!("../examples/nbody.py");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("weft-cache-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn weft(cache: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_weft"));
    c.args(args).env("WEFT_CACHE_DIR", cache);
    c
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "weft failed: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The `ir` line's fields: (hit, ms, sha).
fn ir_line(out: &str) -> (bool, f64, String) {
    let l = out.lines().find(|l| l.starts_with("ir ")).expect("ir line");
    let w: Vec<_> = l.split_whitespace().collect();
    (w[1] == "hit", w[2].parse().unwrap(), w[4].to_string())
}

/// Every line without its timing: (kind, [kernel], hit/miss, sha).
fn artifacts(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| {
            let w: Vec<_> = l.split_whitespace().collect();
            let ms = w.iter().position(|x| *x == "ms").unwrap_or(w.len());
            let mut keep: Vec<&str> = w[..ms.saturating_sub(1)].to_vec();
            keep.extend(&w[(ms + 1).min(w.len())..]);
            keep.retain(|x| *x != "hit" && *x != "miss");
            keep.join(" ")
        })
        .collect()
}

fn setup(name: &str) -> (PathBuf, PathBuf) {
    let d = scratch(name);
    let file = d.join("nbody.py");
    std::fs::write(&file, NBODY).unwrap();
    (d.join("cache"), file)
}

#[test]
fn second_process_compiles_from_the_cache() {
    let (cache, file) = setup("second");
    let f = file.to_str().unwrap();
    let cold = stdout(&weft(&cache, &["cache", "warm", f]).output().unwrap());
    let warm = stdout(&weft(&cache, &["cache", "warm", f]).output().unwrap());
    let (h1, t1, s1) = ir_line(&cold);
    let (h2, t2, s2) = ir_line(&warm);
    println!("N-body module, optimized IR: cold {t1:.3} ms, warm (another process) {t2:.3} ms");
    println!("cold:\n{cold}warm:\n{warm}");
    assert!(!h1 && h2, "cold must miss and warm hit:\n{cold}\n{warm}");
    assert_eq!(s1, s2);
    assert_eq!(artifacts(&cold), artifacts(&warm));
    for l in warm.lines().filter(|l| !l.contains("unsupported")) {
        assert!(l.contains(" hit "), "not from the cache: {l}");
    }
    let info = stdout(&weft(&cache, &["cache", "info"]).output().unwrap());
    assert!(info.contains("ir ") && info.contains("total"), "{info}");
    let clear = stdout(&weft(&cache, &["cache", "clear"]).output().unwrap());
    assert!(clear.starts_with("removed "), "{clear}");
    let info = stdout(&weft(&cache, &["cache", "info"]).output().unwrap());
    assert!(info.contains("total       0 entries"), "{info}");
}

#[test]
fn corrupt_entries_are_rebuilt() {
    let (cache, file) = setup("corrupt");
    let f = file.to_str().unwrap();
    let first = stdout(&weft(&cache, &["cache", "warm", f]).output().unwrap());
    let vdir = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with('v'))
        .expect("versioned dir")
        .path();
    let mut n = 0;
    for e in std::fs::read_dir(&vdir).unwrap().flatten() {
        let mut b = std::fs::read(e.path()).unwrap();
        let k = b.len() - 10;
        b[k] ^= 0x20;
        std::fs::write(e.path(), b).unwrap();
        n += 1;
    }
    assert!(n >= 1);
    let rebuilt = stdout(&weft(&cache, &["cache", "warm", f]).output().unwrap());
    assert!(
        !ir_line(&rebuilt).0,
        "a corrupt entry was trusted:\n{rebuilt}"
    );
    for l in rebuilt.lines().filter(|l| !l.contains("unsupported")) {
        assert!(l.contains(" miss "), "a corrupt entry was trusted: {l}");
    }
    assert_eq!(artifacts(&first), artifacts(&rebuilt));
    let again = stdout(&weft(&cache, &["cache", "warm", f]).output().unwrap());
    assert!(ir_line(&again).0, "{again}");
    assert_eq!(artifacts(&first), artifacts(&again));
}

#[test]
fn eight_processes_compile_one_module_at_once() {
    let (cache, file) = setup("eight");
    let f = file.to_str().unwrap();
    let children: Vec<_> = (0..8)
        .map(|_| {
            weft(&cache, &["cache", "warm", f])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<String> = children
        .into_iter()
        .map(|c| stdout(&c.wait_with_output().unwrap()))
        .collect();
    let first = artifacts(&outs[0]);
    assert!(!first.is_empty());
    for o in &outs {
        assert_eq!(artifacts(o), first, "artifacts differ:\n{o}");
    }
    // No temporary files left, and the entries are whole.
    for v in std::fs::read_dir(&cache).unwrap().flatten() {
        for e in std::fs::read_dir(v.path()).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with('.'), "temporary file left: {name}");
        }
    }
    let after = stdout(&weft(&cache, &["cache", "warm", f]).output().unwrap());
    assert!(ir_line(&after).0, "{after}");
    assert_eq!(artifacts(&after), first);
}
