//! The NVPTX target: the shared lowering, libdevice, LLVM's O3 pipeline and
//! the NVPTX code generator; plus `ptxas` discovery for validation.

use crate::lower::{self, TargetCfg, TargetKind};
use crate::{libdevice, llvm_level, llvm_pipeline, parts, Error, Options};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use weft_ir::{FuncId, ModuleInfo};

/// One kernel of an [`Artifact`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The kernel's name in the source.
    pub name: String,
    /// The `.entry` symbol in the PTX.
    pub entry_symbol: String,
    /// Size in bytes of the argument block (the one `.param` array).
    pub param_size: u32,
}

/// PTX text of a module and its kernels.
#[derive(Clone, Debug)]
pub struct Artifact {
    pub ptx: String,
    pub kernels: Vec<Kernel>,
    /// Whether the module has the bounds-checked mode's trap record
    /// ([`crate::TRAP_GLOBAL`]): exactly when its [`weft_ir::ModuleInfo`]
    /// says it has traps. A host zeroes it before a launch and reads it
    /// after.
    pub trap_record: bool,
}

impl Artifact {
    /// The kernel named `name` (its source name), if the module has one.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// The architectures [`compile`] accepts, oldest first.
pub const SUPPORTED_ARCHS: [&str; 8] = [
    "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90",
];

/// The newest supported architecture a device of compute capability
/// `major.minor` runs: its own when supported, else the newest older one
/// (the driver JIT-compiles PTX for newer GPUs). `None` below sm_70.
pub fn arch_for_compute_capability(major: u32, minor: u32) -> Option<&'static str> {
    let cc = major * 10 + minor;
    SUPPORTED_ARCHS
        .iter()
        .rev()
        .find(|a| a[3..].parse::<u32>().is_ok_and(|v| v <= cc))
        .copied()
}

/// The PTX ISA version feature used for an architecture (the lowest that
/// supports it, so older drivers can JIT it).
fn ptx_feature(arch: &str) -> Result<&'static str, Error> {
    Ok(match arch {
        "sm_70" => "+ptx60",
        "sm_72" => "+ptx61",
        "sm_75" => "+ptx63",
        "sm_80" => "+ptx70",
        "sm_86" => "+ptx71",
        "sm_87" => "+ptx74",
        "sm_89" | "sm_90" => "+ptx78",
        _ => {
            return Err(Error::Option(format!(
                "architecture {arch:?} (supported: sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90)"
            )))
        }
    })
}

fn machine(opts: &Options) -> Result<TargetMachine, Error> {
    static INIT: OnceLock<()> = OnceLock::new();
    INIT.get_or_init(|| Target::initialize_nvptx(&InitializationConfig::default()));
    let feat = ptx_feature(&opts.arch)?;
    let triple = TargetTriple::create(TRIPLE);
    let target = Target::from_triple(&triple).map_err(|e| Error::Llvm(e.to_string()))?;
    target
        .create_target_machine(
            &triple,
            &opts.arch,
            feat,
            llvm_level(opts.opt_level),
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| Error::Llvm("cannot create the NVPTX target machine".into()))
}

/// Lowers the kernels `kernels` of `m`, links libdevice if needed, and
/// optimizes. Part `part` > 0 of a module ([`crate::parts`]) gives its
/// local symbols the suffix `_p{part}`, so that the parts' PTX can be
/// concatenated ([`crate::parts::merge_ptx`]).
fn build<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    m: &weft_ir::Module,
    opts: &Options,
    tm: &TargetMachine,
    kernels: &[FuncId],
    part: usize,
) -> Result<lower::Lowered, Error> {
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let libdevice = find_libdevice(opts.libdevice.as_deref());
    let cfg = TargetCfg {
        kind: TargetKind::Nvptx,
        libdevice: libdevice.is_some(),
        debug: opts.line_info,
        cancel_checks: false,
        vector_width: 0,
        inline_math: false,
        stream_min_bytes: 0,
        cpu: None,
        fma: false,
    };
    let lowered = lower::lower(ctx, module, m, cfg, kernels)?;
    module
        .verify()
        .map_err(|e| Error::Llvm(format!("invalid LLVM IR: {e}")))?;
    let suffix = if part == 0 {
        String::new()
    } else {
        format!("_p{part}")
    };
    if !lowered.libdevice_calls.is_empty() {
        if let Some(path) = &libdevice {
            libdevice::link_libdevice(ctx, module, path, &lowered, &suffix)?;
        }
    }
    let passes = match llvm_pipeline(opts.opt_level) {
        Some(p) => format!("globaldce,{p}"),
        None => "globaldce".to_string(),
    };
    module
        .run_passes(&passes, tm, PassBuilderOptions::create())
        .map_err(|e| Error::Llvm(e.to_string()))?;
    if part > 0 {
        rename_locals(module, &suffix);
    }
    Ok(lowered)
}

/// Appends `suffix` to the name of every function and global defined with
/// local linkage (internal or private) in `module`.
fn rename_locals(module: &Module<'_>, suffix: &str) {
    let local = |l: Linkage| matches!(l, Linkage::Internal | Linkage::Private);
    let rename = |g: inkwell::values::GlobalValue<'_>| {
        if !g.is_declaration() && local(g.get_linkage()) {
            let name = format!("{}{suffix}", g.get_name().to_string_lossy());
            g.set_name(&name);
        }
    };
    let funcs = std::iter::successors(module.get_first_function(), |f| f.get_next_function());
    for f in funcs {
        rename(f.as_global_value());
    }
    let globals = std::iter::successors(module.get_first_global(), |g| g.get_next_global());
    for g in globals {
        rename(g);
    }
}

/// Compiles every kernel of a verified module `m` to PTX; `info` is what
/// the verifier returned. The kernels are compiled in parts
/// ([`crate::parts`]) in parallel, whose PTX is then joined into one
/// module's.
pub fn compile(m: &weft_ir::Module, info: &ModuleInfo, opts: &Options) -> Result<Artifact, Error> {
    ptx_feature(&opts.arch)?;
    let parts = parts::split(m);
    let done = parts::each(&parts, |i, ks| compile_part(m, opts, i, ks))?;
    let mut kernels: HashMap<FuncId, lower::LoweredKernel> = HashMap::new();
    let mut texts = Vec::with_capacity(done.len());
    for (ptx, ks) in done {
        texts.push(ptx);
        kernels.extend(ks.into_iter().map(|k| (k.func, k)));
    }
    let ptx = parts::merge_ptx(texts);
    Ok(Artifact {
        ptx,
        kernels: m
            .kernels()
            .filter_map(|(id, _)| kernels.remove(&id))
            .map(|k| Kernel {
                name: k.name,
                entry_symbol: k.symbol,
                param_size: k.param_size,
            })
            .collect(),
        trap_record: info.has_traps,
    })
}

/// The PTX of part `part` (the kernels `kernels`) of `m`, and its kernels.
fn compile_part(
    m: &weft_ir::Module,
    opts: &Options,
    part: usize,
    kernels: &[FuncId],
) -> Result<(String, Vec<lower::LoweredKernel>), Error> {
    let tm = machine(opts)?;
    let ctx = Context::create();
    let module = ctx.create_module("weft");
    let lowered = build(&ctx, &module, m, opts, &tm, kernels, part)?;
    let buf = tm
        .write_to_memory_buffer(&module, FileType::Assembly)
        .map_err(|e| Error::Llvm(e.to_string()))?;
    let ptx = String::from_utf8_lossy(buf.as_slice())
        .trim_end_matches('\0')
        .to_string();
    let ptx = if opts.line_info {
        line_directives_only(&ptx)
    } else {
        ptx
    };
    Ok((ptx, lowered.kernels))
}

/// The PTX text of a verified module `m` ([`compile`]'s).
pub fn emit_text(m: &weft_ir::Module, info: &ModuleInfo, opts: &Options) -> Result<String, Error> {
    compile(m, info, opts).map(|a| a.ptx)
}

/// Keeps `.file`/`.loc` and drops the DWARF sections and the `debug`
/// target flag that LLVM emits for line tables: with `.target sm_XX, debug`
/// ptxas and the driver compile for source-level debugging, without
/// optimization (e.g. 122 instead of 32 registers for the N-body kernel).
/// The result is what `nvcc -lineinfo` produces (LLVM's
/// "DebugDirectivesOnly" emission kind, which the C API cannot select).
fn line_directives_only(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut in_section = false;
    for line in ptx.lines() {
        let t = line.trim();
        if in_section {
            if t == "}" {
                in_section = false;
            }
            continue;
        }
        if t.starts_with(".section") && t.contains(".debug_") {
            // `.section .debug_x { ... }` on one line, or a block.
            in_section = !t.ends_with('}');
            continue;
        }
        if t.starts_with(".target") {
            out.push_str(&line.replace(", debug", ""));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The LLVM IR for NVPTX of a verified module `m`, after optimization and
/// libdevice linking.
pub fn emit_llvm(m: &weft_ir::Module, _info: &ModuleInfo, opts: &Options) -> Result<String, Error> {
    let tm = machine(opts)?;
    let ctx = Context::create();
    let module = ctx.create_module("weft");
    let kernels: Vec<FuncId> = m.kernels().map(|(id, _)| id).collect();
    build(&ctx, &module, m, opts, &tm, &kernels, 0)?;
    Ok(module.print_to_string().to_string())
}

// ---- tool discovery ----

/// Directories that may hold the project's `.venv`: the current directory
/// and its ancestors, and this crate's workspace.
fn venv_roots() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        out.extend(cwd.ancestors().map(|p| p.join(".venv")));
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    out.extend(here.ancestors().map(|p| p.join(".venv")));
    out
}

/// `<venv>/lib/python3*/site-packages/nvidia/cuda_nvcc/<rel>` in any venv.
fn venv_nvcc(rel: &str) -> Option<PathBuf> {
    for v in venv_roots() {
        let Ok(rd) = std::fs::read_dir(v.join("lib")) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path().join("site-packages/nvidia/cuda_nvcc").join(rel);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn cuda_homes() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|k| std::env::var_os(k).map(PathBuf::from))
        .collect();
    out.push(PathBuf::from("/usr/local/cuda"));
    out
}

/// Finds `libdevice.10.bc`: `explicit`, then `$WEFT_LIBDEVICE`,
/// `$CUDA_HOME`/`$CUDA_PATH` `/nvvm/libdevice`, the project `.venv`
/// (`nvidia-cuda-nvcc-cu12`), `/usr/local/cuda`.
pub fn find_libdevice(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return p.is_file().then(|| p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("WEFT_LIBDEVICE").map(PathBuf::from) {
        if p.is_file() {
            return Some(p);
        }
    }
    let rel = "nvvm/libdevice/libdevice.10.bc";
    let homes = cuda_homes();
    let (env_homes, sys) = homes.split_at(homes.len() - 1);
    env_homes
        .iter()
        .map(|h| h.join(rel))
        .find(|p| p.is_file())
        .or_else(|| venv_nvcc(rel))
        .or_else(|| sys.iter().map(|h| h.join(rel)).find(|p| p.is_file()))
}

/// Finds `ptxas`: `$WEFT_PTXAS`, `PATH`, the project `.venv`
/// (`nvidia-cuda-nvcc-cu12`), `$CUDA_HOME/bin`, `/usr/local/cuda/bin`.
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("WEFT_PTXAS").map(PathBuf::from) {
        if p.is_file() {
            return Some(p);
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            let p = d.join("ptxas");
            if p.is_file() {
                return Some(p);
            }
        }
    }
    venv_nvcc("bin/ptxas").or_else(|| {
        cuda_homes()
            .into_iter()
            .map(|h| h.join("bin/ptxas"))
            .find(|p| p.is_file())
    })
}

/// Assembles `ptx` for `arch` with `ptxas -v` and returns its report
/// (registers, spills, shared memory per kernel). An error carries ptxas's
/// diagnostics.
pub fn ptxas_info(ptx: &str, arch: &str) -> Result<String, Error> {
    ptx_feature(arch)?;
    let ptxas = find_ptxas().ok_or(Error::PtxasNotFound)?;
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir();
    let stem = format!("weft-ptxas-{}-{n}", std::process::id());
    let src = dir.join(format!("{stem}.ptx"));
    let out = dir.join(format!("{stem}.cubin"));
    std::fs::write(&src, ptx).map_err(|e| Error::Ptxas(format!("{}: {e}", src.display())))?;
    let res = std::process::Command::new(&ptxas)
        .arg("--gpu-name")
        .arg(arch)
        .arg("-v")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output();
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&out);
    let res = res.map_err(|e| Error::Ptxas(format!("{}: {e}", ptxas.display())))?;
    let mut text = String::from_utf8_lossy(&res.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&res.stderr));
    if res.status.success() {
        Ok(text)
    } else {
        Err(Error::Ptxas(text))
    }
}
