//! `weft cache info|clear|warm`: the on-disk compile cache.

use super::args::{read, str_arg};
use super::Outcome;
use clap::{Arg, ArgMatches, Command};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use weft::cache::{Cache, CacheError, CacheKey};
use weft::Compiler;
use weft_conform::Error;

pub fn command() -> Command {
    Command::new("cache")
        .about("The on-disk compile cache ($WEFT_CACHE_DIR, default the user cache dir)")
        .subcommand_required(true)
        .subcommand(Command::new("info").about("Location, entries and size per kind"))
        .subcommand(Command::new("clear").about("Remove every entry"))
        .subcommand(
            Command::new("warm")
                .about("Compile FILE through the cache (optimized IR; PTX and SPIR-V when their tools exist) and print each artifact's hit/miss, time and SHA-256")
                .arg(Arg::new("file").required(true).value_name("FILE.py")),
        )
}

fn cache_err(e: CacheError) -> Error {
    weft::Error::Backend(Box::new(e)).into()
}

fn sha256_hex(bytes: &[u8]) -> String {
    CacheKey::of_kind("sha", &[bytes]).hex()
}

pub fn run(a: &ArgMatches) -> Outcome {
    let cache = Cache::open_default().map_err(cache_err)?;
    match a.subcommand() {
        Some(("info", _)) => {
            say!("location: {}", cache.dir().display());
            let info = cache.info().map_err(cache_err)?;
            let (mut n, mut bytes) = (0, 0);
            for k in &info {
                say!(
                    "{:<6} {:>6} entries {:>12} bytes",
                    k.kind,
                    k.entries,
                    k.bytes
                );
                n += k.entries;
                bytes += k.bytes;
            }
            say!("total  {n:>6} entries {bytes:>12} bytes");
        }
        Some(("clear", _)) => {
            let n = cache.clear().map_err(cache_err)?;
            say!("removed {n} entries from {}", cache.dir().display());
        }
        Some(("warm", w)) => {
            let file = str_arg(w, "file");
            let source = read(Path::new(file))?;
            let t = std::time::Instant::now();
            let (m, hit) = Compiler::new()
                .with_cache(weft::CacheLocation::Dir(cache.dir().to_path_buf()))
                .compile_cached(file, &source)?;
            let ir = m.ir_text();
            let hm = |h: bool| if h { "hit" } else { "miss" };
            say!(
                "ir {} {:.3} ms {}",
                hm(hit),
                t.elapsed().as_secs_f64() * 1e3,
                sha256_hex(ir.as_bytes())
            );
            #[cfg(feature = "llvm")]
            if weft::tools::find_libdevice(None).is_some() {
                let t = std::time::Instant::now();
                let opts = weft::PtxOptions::default();
                let info = weft::ir::verify::verify_module(m.ir());
                let r = info.map_err(|e| e.to_string()).and_then(|info| {
                    weft::cache::ptx(Some(&cache), m.ir(), &info, &opts).map_err(|e| e.to_string())
                });
                match r {
                    Ok((art, hit)) => say!(
                        "ptx {} {:.3} ms {}",
                        hm(hit),
                        t.elapsed().as_secs_f64() * 1e3,
                        sha256_hex(art.ptx.as_bytes())
                    ),
                    Err(e) => say!("ptx error: {e}"),
                }
            }
            if weft::tools::find_glslang().is_some() {
                for k in m.kernel_names() {
                    let t = std::time::Instant::now();
                    let r = m.hlsl(&k, &Default::default()).and_then(|art| {
                        weft::cache::spirv(Some(&cache), &art)
                            .map_err(|e| weft::Error::Backend(Box::new(e)))
                    });
                    match r {
                        Ok((words, hit)) => {
                            let bytes: Vec<u8> =
                                words.iter().flat_map(|w| w.to_le_bytes()).collect();
                            say!(
                                "spirv {k} {} {:.3} ms {}",
                                hm(hit),
                                t.elapsed().as_secs_f64() * 1e3,
                                sha256_hex(&bytes)
                            )
                        }
                        Err(e) => say!("spirv {k} unsupported: {e}"),
                    }
                }
            }
        }
        _ => return Ok(ExitCode::from(2)),
    }
    Ok(ExitCode::SUCCESS)
}
