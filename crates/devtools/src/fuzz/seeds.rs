//! Seed inputs of the fuzz targets ([`super::targets`]), made from the
//! conformance corpus (forward and gradient cases) and the repository's IR
//! file tests: the kernels' sources, their IR before and after the
//! pipeline, the cases' files, and compile-cache entries of their IR.

use super::targets::{PART_SEPARATOR, TARGETS};
use std::path::{Path, PathBuf};
use weft::Compiler;

/// Named seed inputs of `target` (empty for an unknown target). `corpus`
/// is the conformance corpus directory (its `cases/` and `grad/cases/`).
pub fn seeds(target: &str, corpus: &Path) -> Vec<(String, Vec<u8>)> {
    let cases = case_dirs(corpus);
    let sources = || {
        cases.iter().filter_map(|d| {
            let src = std::fs::read_to_string(d.join("kernel.py")).ok()?;
            Some((case_name(d), src))
        })
    };
    match target {
        "frontend" | "pipeline" => sources().map(|(n, s)| (n, s.into_bytes())).collect(),
        "ir_text" | "ir_passes" => {
            let mut out = Vec::new();
            for (n, s) in sources() {
                if let Ok(raw) = weft_frontend::compile("kernel.py", &s) {
                    out.push((format!("{n}.raw"), weft::ir::text::print_module(&raw)));
                }
                if let Ok(m) = Compiler::new().compile("kernel.py", &s) {
                    out.push((format!("{n}.o2"), m.ir_text()));
                }
            }
            out.extend(ir_file_tests());
            out.into_iter().map(|(n, s)| (n, s.into_bytes())).collect()
        }
        "case_loader" => cases
            .iter()
            .filter_map(|d| Some((case_name(d), case_input(d)?)))
            .collect(),
        "cache_entry" => cache_entries(sources().collect()),
        _ => Vec::new(),
    }
}

/// Writes every target's seeds to `out/<target>/<name>`; returns the
/// count per target.
pub fn write_seeds(corpus: &Path, out: &Path) -> std::io::Result<Vec<(&'static str, usize)>> {
    let mut counts = Vec::new();
    for (t, _) in TARGETS {
        let dir = out.join(t);
        std::fs::create_dir_all(&dir)?;
        let s = seeds(t, corpus);
        for (name, bytes) in &s {
            std::fs::write(dir.join(name), bytes)?;
        }
        counts.push((*t, s.len()));
    }
    Ok(counts)
}

/// The case directories of the corpus, forward then gradient, by name.
fn case_dirs(corpus: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["cases", "grad/cases"] {
        if let Ok(found) = weft_conform::find_cases(&corpus.join(sub)) {
            out.extend(found);
        }
    }
    out
}

fn case_name(dir: &Path) -> String {
    let grad = dir
        .parent()
        .and_then(Path::parent)
        .is_some_and(|p| p.ends_with("grad"));
    let name = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    if grad {
        format!("grad_{name}")
    } else {
        name
    }
}

/// A case as one `case_loader` input: case.json, kernel.py, then for each
/// buffer its npy and its expected npy (or the input again).
fn case_input(dir: &Path) -> Option<Vec<u8>> {
    let case = weft_conform::Case::load(dir).ok()?;
    let mut parts = vec![
        std::fs::read(dir.join("case.json")).ok()?,
        std::fs::read(dir.join("kernel.py")).ok()?,
    ];
    for b in &case.buffers {
        let input = std::fs::read(dir.join(&b.file)).ok()?;
        let expected = std::fs::read(dir.join(format!("expected_{}.npy", b.name)))
            .unwrap_or_else(|_| input.clone());
        parts.push(input);
        parts.push(expected);
    }
    Some(parts.join(PART_SEPARATOR))
}

/// The IR file tests of the repository (`tests/filetests`, the passes'
/// `crates/passes/tests/filetests`).
fn ir_file_tests() -> Vec<(String, String)> {
    // The repository root: this crate is `crates/devtools`.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    let mut stack = vec![
        root.join("tests/filetests"),
        root.join("crates/passes/tests/filetests"),
    ];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "ir") {
                if let Ok(text) = std::fs::read_to_string(&p) {
                    let name = p
                        .file_stem()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                    out.push((format!("filetest_{name}"), text));
                }
            }
        }
    }
    out
}

/// Whole compile-cache entries (the bytes of the entry file) of each
/// source's optimized IR, and of a SPIR-V header.
fn cache_entries(sources: Vec<(String, String)>) -> Vec<(String, Vec<u8>)> {
    let dir = std::env::temp_dir().join(format!("weft-fuzz-seeds-{}", std::process::id()));
    let Ok(cache) = weft::cache::Cache::open(&dir) else {
        return Vec::new();
    };
    let entry = |name: &str, payload: &[u8]| {
        let k = weft::cache::CacheKey::of_kind("seed", &[name.as_bytes()]);
        cache.put(&k, payload).ok()?;
        std::fs::read(cache.entry_path(&k)).ok()
    };
    let mut out = Vec::new();
    for (n, s) in sources {
        if let Ok(m) = Compiler::new().compile("k.py", &s) {
            if let Some(b) = entry(&n, m.ir_text().as_bytes()) {
                out.push((n, b));
            }
        }
    }
    let spirv: Vec<u8> = [0x0723_0203u32, 0x0001_0000, 0, 8, 0]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    if let Some(b) = entry("spirv", &spirv) {
        out.push(("spirv_header".into(), b));
    }
    let _ = std::fs::remove_dir_all(&dir);
    out
}
