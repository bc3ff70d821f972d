//! Prints the HLSL of one kernel: `cargo run -p weft-backend-hlsl --example
//! emit_hlsl -- FILE.py KERNEL`.

use weft_backend_hlsl::{compile_kernel, Options};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(file), Some(kernel)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: emit_hlsl FILE.py KERNEL");
        std::process::exit(2);
    };
    let src = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{file}: {e}");
            std::process::exit(1);
        }
    };
    let mut m = match weft_frontend::compile(file, &src) {
        Ok(m) => m,
        Err(d) => {
            eprintln!("{d}");
            std::process::exit(1);
        }
    };
    if let Err(e) = weft_passes::run_pipeline(&mut m, &weft_passes::PipelineOptions::default()) {
        eprintln!("{e}");
        std::process::exit(1);
    }
    let info = match weft_ir::verify::verify_module(&m) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    match compile_kernel(&m, &info, kernel, &Options::default()) {
        Ok(a) => print!("{}", a.source),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
