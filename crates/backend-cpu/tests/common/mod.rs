//! Helpers for the JIT tests: build kernels, pack argument blocks, run.
#![allow(dead_code)]

pub mod nbody;

use weft_backend_cpu::{compile, Artifact, Options};
use weft_ir::layout::{self, ArrayDesc};
use weft_ir::{FuncBuilder, FuncKind, Function, Module, Param, Type};

/// Builds a module with one kernel `k` of the given params; `body` fills it
/// (it must end the body region with `return`).
pub fn kernel_module(
    params: &[(&str, Type)],
    body: impl FnOnce(&mut FuncBuilder, &[weft_ir::Value]),
) -> Module {
    let mut m = Module::new();
    add_kernel(&mut m, "k", params, body);
    m
}

pub fn add_kernel(
    m: &mut Module,
    name: &str,
    params: &[(&str, Type)],
    body: impl FnOnce(&mut FuncBuilder, &[weft_ir::Value]),
) -> weft_ir::FuncId {
    let ps = params
        .iter()
        .map(|(n, t)| Param {
            name: n.to_string(),
            ty: *t,
        })
        .collect();
    let mut f = Function::new(name, FuncKind::Kernel, ps, vec![]);
    let vals = f.param_values().to_vec();
    {
        let mut b = FuncBuilder::new(&mut f, &m.structs);
        body(&mut b, &vals);
    }
    m.funcs.push(f)
}

/// The default options with Cranelift's verifier on.
pub fn checked_options() -> Options {
    Options {
        verify: true,
        ..Options::default()
    }
}

pub fn compile_checked(m: &Module) -> Artifact {
    let opts = checked_options();
    // Not every module here verifies (some test what the backend does
    // with IR outside the rules); the info does not check it.
    compile(m, &weft_ir::ModuleInfo::of(m), &opts).expect("compile")
}

/// A 1-D array descriptor over a slice.
pub fn desc<T>(v: &mut [T]) -> ArrayDesc {
    ArrayDesc {
        data: v.as_mut_ptr() as *mut u8,
        shape: [v.len() as i32, 1, 1, 1],
        strides: [std::mem::size_of::<T>() as i64, 0, 0, 0],
    }
}

/// A C-order 2-D descriptor over a slice of `rows * cols` elements.
pub fn desc2<T>(v: &mut [T], rows: usize, cols: usize) -> ArrayDesc {
    assert_eq!(v.len(), rows * cols);
    let s = std::mem::size_of::<T>() as i64;
    ArrayDesc {
        data: v.as_mut_ptr() as *mut u8,
        shape: [rows as i32, cols as i32, 1, 1],
        strides: [s * cols as i64, s, 0, 0],
    }
}

/// One argument value.
pub enum Arg {
    Array(ArrayDesc),
    /// Raw bytes of a by-value parameter in its data layout.
    Bytes(Vec<u8>),
}

pub fn bytes_of<T: Copy>(v: T) -> Arg {
    let n = std::mem::size_of::<T>();
    let mut out = vec![0u8; n];
    // SAFETY: T is plain data (Copy scalar or array of scalars) in tests.
    unsafe { std::ptr::copy_nonoverlapping(&v as *const T as *const u8, out.as_mut_ptr(), n) };
    Arg::Bytes(out)
}

/// An argument block (8-byte aligned storage).
pub struct ArgBlock(pub Vec<u64>);

impl ArgBlock {
    pub fn ptr(&self) -> *const u8 {
        self.0.as_ptr() as *const u8
    }
}

// SAFETY (for tests running kernels on several threads): the block is only
// read by the kernels.
unsafe impl Send for ArgBlock {}
unsafe impl Sync for ArgBlock {}

pub fn pack(m: &Module, kernel: &str, dims: [i32; 4], args: &[Arg]) -> ArgBlock {
    let f = &m.funcs[m.func_by_name(kernel).expect("kernel")];
    let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
    let al = layout::arg_layout(&types, &m.structs);
    let mut buf = vec![0u64; (al.size as usize).div_ceil(8).max(2)];
    let bytes = buf.as_mut_ptr() as *mut u8;
    assert_eq!(args.len(), types.len());
    // SAFETY: every write stays inside `buf` (offsets from arg_layout).
    unsafe {
        std::ptr::copy_nonoverlapping(dims.as_ptr() as *const u8, bytes, 16);
        for (a, &off) in args.iter().zip(&al.offsets) {
            match a {
                Arg::Array(d) => std::ptr::copy_nonoverlapping(
                    d as *const ArrayDesc as *const u8,
                    bytes.add(off as usize),
                    layout::ARRAY_DESC_SIZE as usize,
                ),
                Arg::Bytes(b) => {
                    std::ptr::copy_nonoverlapping(b.as_ptr(), bytes.add(off as usize), b.len())
                }
            }
        }
    }
    ArgBlock(buf)
}

/// Compiles `m`, packs `args` and runs kernel `k` over `0..n` (1-D launch).
pub fn run(m: &Module, n: i32, args: &[Arg]) {
    let art = compile_checked(m);
    let k = art.kernel("k").expect("kernel k");
    let block = pack(m, "k", [n, 1, 1, 1], args);
    // SAFETY: the block matches the kernel's params; arrays outlive the call.
    unsafe { (k.entry)(block.ptr(), 0, n as i64) };
}

pub fn arr(elem: weft_ir::ElemType, ndim: u8) -> Type {
    Type::Array(weft_ir::ArrayType { elem, ndim })
}

pub fn arr1(s: weft_ir::Scalar) -> Type {
    arr(weft_ir::ElemType::Scalar(s), 1)
}
