//! The compile cache under concurrent processes (issue 16, item 4): 8
//! processes each compile 100 modules that change from one compile to the
//! next (13 variants, so processes meet on shared entries and make new
//! ones), through one cache directory, while this process deletes entries
//! and truncates others in place underneath them. Every compile must give
//! exactly the IR of the same source compiled without a cache; the
//! processes count their hits, misses and rebuilt entries.
//!
//! A test without libtest's harness (`harness = false`): the same binary
//! is the helper process, run with `WEFT_CACHE_STRESS_CHILD=<dir>,<id>`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use weft::{CacheLocation, Compiler};

const PROCESSES: usize = 8;
const COMPILES: usize = 100;
const VARIANTS: usize = 13;

/// Module variant `v`: the kernels change with `v` (constants, a loop
/// bound, one kernel more for odd `v`).
fn variant(v: usize) -> String {
    let mut s = format!(
        "import warp as wp\n\n\
         @wp.func\n\
         def f(x: float) -> float:\n    \
         return x * {a}.5 + {b}.0\n\n\
         @wp.kernel\n\
         def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n    \
         i = wp.tid()\n    \
         v = x[i]\n    \
         for j in range({n}):\n        \
         v = f(v) - float(j)\n    \
         y[i] = v\n",
        a = v + 1,
        b = v * 3,
        n = v % 4 + 1
    );
    if v % 2 == 1 {
        s.push_str(&format!(
            "\n@wp.kernel\ndef extra(x: wp.array(dtype=int)):\n    i = wp.tid()\n    x[i] = x[i] * {v} + i\n"
        ));
    }
    s
}

/// The helper process: `COMPILES` compiles through the cache at `dir`.
fn child(dir: &Path, id: usize) -> Result<String, String> {
    let cached = Compiler::new().with_cache(CacheLocation::Dir(dir.to_path_buf()));
    let plain = Compiler::new();
    let want: Vec<String> = (0..VARIANTS)
        .map(|v| {
            plain
                .compile("stress.py", &variant(v))
                .map(|m| m.ir_text())
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    let (mut hits, mut misses) = (0, 0);
    for i in 0..COMPILES {
        let v = (id * 5 + i * 7) % VARIANTS;
        let (m, hit) = cached
            .compile_cached("stress.py", &variant(v))
            .map_err(|e| format!("compile {i} (variant {v}): {e}"))?;
        if m.ir_text() != want[v] {
            return Err(format!(
                "compile {i} (variant {v}, {}): IR differs from an uncached compile",
                if hit { "hit" } else { "miss" }
            ));
        }
        if hit {
            hits += 1
        } else {
            misses += 1
        }
    }
    Ok(format!("{hits} hits, {misses} misses"))
}

/// Deletes every third entry it sees and truncates others in place, until
/// `stop`; returns how many of each.
fn vandal(dir: &Path, stop: &AtomicBool) -> (usize, usize) {
    let (mut deleted, mut truncated) = (0, 0);
    let mut turn = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue; // a writer's temporary file
            }
            turn += 1;
            match turn % 3 {
                0 => deleted += std::fs::remove_file(e.path()).is_ok() as usize,
                1 => {
                    // In place, as a crash or a full disk would leave it.
                    if let Ok(f) = std::fs::OpenOptions::new().write(true).open(e.path()) {
                        let len = f.metadata().map_or(0, |m| m.len());
                        truncated += f.set_len(len / 2).is_ok() as usize;
                    }
                }
                _ => {}
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    (deleted, truncated)
}

fn main() {
    if let Ok(spec) = std::env::var("WEFT_CACHE_STRESS_CHILD") {
        let (dir, id) = spec.rsplit_once(',').expect("dir,id");
        match child(Path::new(dir), id.parse().expect("id")) {
            Ok(summary) => println!("{summary}"),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    // libtest's arguments (`--list`, filters) are accepted and ignored.
    if std::env::args().any(|a| a == "--list") {
        println!("cache_stress: test");
        return;
    }
    let dir = std::env::temp_dir().join(format!("weft-cache-stress-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let exe = std::env::current_exe().unwrap();
    let t0 = Instant::now();
    let stop = AtomicBool::new(false);
    let (outs, (deleted, truncated)) = std::thread::scope(|s| {
        let v = s.spawn(|| vandal(&dir, &stop));
        let children: Vec<_> = (0..PROCESSES)
            .map(|id| {
                Command::new(&exe)
                    .env("WEFT_CACHE_STRESS_CHILD", format!("{},{id}", dir.display()))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        stop.store(true, Ordering::Relaxed);
        (outs, v.join().unwrap())
    });
    let mut failed = false;
    for (id, o) in outs.iter().enumerate() {
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        println!("process {id}: {} {}", out.trim(), err.trim());
        failed |= !o.status.success();
    }
    println!(
        "{PROCESSES} processes x {COMPILES} compiles in {:.1} s; {deleted} entries deleted, {truncated} truncated underneath",
        t0.elapsed().as_secs_f64()
    );
    assert!(deleted + truncated > 0, "nothing was damaged underneath");
    // No writer's temporary file stays behind.
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with('.'), "temporary file left: {name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    if failed {
        eprintln!("cache_stress: a process failed");
        std::process::exit(1);
    }
    println!("test cache_stress ... ok");
}
