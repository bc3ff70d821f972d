//! Cold compile time, source → PTX text, of the N-body module
//! (`seed_nbody_step` of the conformance corpus, or a file given as the
//! first argument): frontend, pass pipeline and `weft_backend_llvm::compile`, repeated; prints
//! the median and the spread.
//!
//! `cargo run --release -p weft-backend-llvm --example cold_compile [FILE.py] [RUNS]`

use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = args.get(1).map(PathBuf::from).unwrap_or_else(|| {
        let dir = std::env::var_os("WEFT_CONFORMANCE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance")
            });
        dir.join("cases/seed_nbody_step/kernel.py")
    });
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(21);
    let src = match std::fs::read_to_string(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            std::process::exit(2);
        }
    };
    let name = file.to_string_lossy().into_owned();
    let opts = weft_backend_llvm::Options::default();
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    let mut size = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let mut m = match weft_frontend::compile(&name, &src) {
            Ok(m) => m,
            Err(d) => {
                eprintln!("{d:?}");
                std::process::exit(1);
            }
        };
        if let Err(e) = weft_passes::run_pipeline(&mut m, &weft_passes::PipelineOptions::default())
        {
            eprintln!("{e}");
            std::process::exit(1);
        }
        let info = weft_ir::ModuleInfo::of(&m);
        match weft_backend_llvm::compile(&m, &info, &opts) {
            Ok(a) => size = a.ptx.len(),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        times.push(t.elapsed());
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{}: source -> PTX ({} bytes, {}), {runs} runs: median {:.2} ms (min {:.2}, max {:.2})",
        file.display(),
        size,
        opts.arch,
        ms(times[runs / 2]),
        ms(times[0]),
        ms(times[runs - 1])
    );
}
