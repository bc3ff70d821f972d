//! Shared helpers of the tests: the conformance corpus, compiling sources,
//! packing argument blocks.
#![allow(dead_code)]

use std::path::PathBuf;
use weft_backend_llvm::{Artifact, Error, Options};
use weft_ir::layout::{self, ArrayDesc};
use weft_ir::{FuncBuilder, FuncKind, Function, Module, ModuleInfo, Param, Type};

/// [`weft_backend_llvm::compile`] with the module's info (the tests give
/// hand-made modules; the info does not check them).
pub fn emit_ptx(m: &Module, o: &Options) -> Result<Artifact, Error> {
    weft_backend_llvm::compile(m, &ModuleInfo::of(m), o)
}

/// [`weft_backend_llvm::host::compile`] with the module's info.
pub fn compile_host(
    m: &Module,
    o: &weft_backend_llvm::host::Options,
) -> Result<weft_backend_llvm::host::Artifact, Error> {
    weft_backend_llvm::host::compile(m, &ModuleInfo::of(m), o)
}

/// `m` with every float operation fast, as the `fast-math` pass makes it
/// (fast math is the IR's flags, not a backend option).
pub fn fast(m: &Module) -> Module {
    use weft_passes::Pass;
    let mut m = m.clone();
    weft_passes::fastmath::FastMath {
        flags: weft_passes::fastmath::DEFAULT_FLAGS,
        all: true,
        only: Vec::new(),
    }
    .run(&mut m)
    .expect("fast-math pass");
    m
}

/// The LLVM IR of `m` for the host (`o`), or for NVPTX (`None`).
pub fn llvm_ir(m: &Module, nvptx: Option<&Options>, o: weft_ir::OptLevel) -> String {
    let info = ModuleInfo::of(m);
    match nvptx {
        Some(p) => weft_backend_llvm::emit_llvm(m, &info, p),
        None => weft_backend_llvm::host::emit_text(
            m,
            &info,
            &weft_backend_llvm::host::Options {
                opt_level: o,
                ..Default::default()
            },
        ),
    }
    .expect("LLVM IR")
}

/// The conformance corpus ([`weft_testkit::corpus::find`]:
/// `$WEFT_CONFORMANCE_DIR`, else `shared/conformance` beside an ancestor of
/// the workspace), or `None` after a counted `SKIP` (a failure with
/// `WEFT_REQUIRE_CORPUS=1`).
pub fn conformance_dir() -> Option<PathBuf> {
    weft_testkit::corpus::find()
}

/// Every case directory with a `kernel.py`, sorted by name, or `None` after
/// [`conformance_dir`]'s skip; a corpus without such cases is a failure.
pub fn cases() -> Option<Vec<PathBuf>> {
    let d = conformance_dir()?;
    let v: Vec<PathBuf> = weft_testkit::corpus::cases()
        .into_iter()
        .filter(|p| p.join("kernel.py").is_file())
        .collect();
    assert!(
        !v.is_empty(),
        "no case with a kernel.py under {}",
        d.display()
    );
    Some(v)
}

/// Compiles a source file through the frontend and the default pipeline.
pub fn compile_source(file: &str, src: &str) -> Module {
    compile_source_with(file, src, true)
}

/// As [`compile_source`]; `inline: false` keeps funcs as calls.
pub fn compile_source_with(file: &str, src: &str, inline: bool) -> Module {
    let mut m = match weft_frontend::compile(file, src) {
        Ok(m) => m,
        Err(d) => panic!("{file}: frontend error: {d:?}"),
    };
    let opts = weft_passes::PipelineOptions {
        inline,
        ..Default::default()
    };
    weft_passes::run_pipeline(&mut m, &opts)
        .unwrap_or_else(|e| panic!("{file}: pipeline error: {e}"));
    m
}

/// The IR of a conformance case's kernel.py, or `None` after
/// [`conformance_dir`]'s skip; a corpus without the case is a failure.
pub fn case_module(name: &str) -> Option<Module> {
    let p = weft_testkit::corpus::case(name)?.join("kernel.py");
    let src = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    Some(compile_source(&p.to_string_lossy(), &src))
}

pub fn kernel_module(
    params: &[(&str, Type)],
    body: impl FnOnce(&mut FuncBuilder, &[weft_ir::Value]),
) -> Module {
    let mut m = Module::new();
    let ps = params
        .iter()
        .map(|(n, t)| Param {
            name: n.to_string(),
            ty: *t,
        })
        .collect();
    let mut f = Function::new("k", FuncKind::Kernel, ps, vec![]);
    let vals = f.param_values().to_vec();
    {
        let mut b = FuncBuilder::new(&mut f, &m.structs);
        body(&mut b, &vals);
    }
    m.funcs.push(f);
    m
}

/// A 1-D descriptor over raw element bytes.
pub fn raw_desc(v: &mut [u8], elem: u32) -> ArrayDesc {
    ArrayDesc {
        data: v.as_mut_ptr(),
        shape: [(v.len() as u32 / elem) as i32, 1, 1, 1],
        strides: [elem as i64, 0, 0, 0],
    }
}

/// An argument block (8-byte aligned) of array parameters only.
pub fn pack_arrays(m: &Module, kernel: &str, dims: [i32; 4], arrays: &[ArrayDesc]) -> Vec<u64> {
    let f = &m.funcs[m.func_by_name(kernel).expect("kernel")];
    let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
    let al = layout::arg_layout(&types, &m.structs);
    let mut buf = vec![0u64; (al.size as usize).div_ceil(8).max(2)];
    let bytes = buf.as_mut_ptr() as *mut u8;
    assert_eq!(arrays.len(), types.len());
    // SAFETY: every write stays inside `buf` (offsets from arg_layout).
    unsafe {
        std::ptr::copy_nonoverlapping(dims.as_ptr() as *const u8, bytes, 16);
        for (d, &off) in arrays.iter().zip(&al.offsets) {
            std::ptr::copy_nonoverlapping(
                d as *const ArrayDesc as *const u8,
                bytes.add(off as usize),
                layout::ARRAY_DESC_SIZE as usize,
            );
        }
    }
    buf
}

/// The LLVM IR of kernel `name` alone.
pub fn function_ir<'a>(ir: &'a str, name: &str) -> &'a str {
    let head = format!("define void @{name}(");
    let at = ir
        .find(&head)
        .unwrap_or_else(|| panic!("no {name} in\n{ir}"));
    let body = &ir[at..];
    &body[..body.find("\n}\n").map_or(body.len(), |e| e + 3)]
}
