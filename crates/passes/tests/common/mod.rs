//! Helpers shared by the pass tests that build IR with `FuncBuilder`.
#![allow(dead_code)] // each test binary uses its own subset

use weft_ir::{
    ArrayType, BinaryOp, ElemType, FuncBuilder, FuncId, FuncKind, Function, MemAccess, Module,
    Param, Scalar, Type, Value,
};

pub const I32: Scalar = Scalar::I32;

/// A 1-D array of `s`.
pub fn arr(s: Scalar) -> Type {
    Type::Array(ArrayType {
        elem: ElemType::Scalar(s),
        ndim: 1,
    })
}

pub fn arr_i32() -> Type {
    arr(I32)
}

pub fn param(name: &str, ty: Type) -> Param {
    Param {
        name: name.into(),
        ty,
    }
}

/// `array[index]`, the whole element.
pub fn at(array: Value, index: Value) -> MemAccess {
    MemAccess {
        array,
        indices: vec![index],
        path: vec![],
    }
}

/// Adds a function built by `build` (given the builder and the params).
pub fn add_func(
    m: &mut Module,
    name: &str,
    kind: FuncKind,
    params: Vec<Param>,
    returns: Vec<Type>,
    build: impl FnOnce(&mut FuncBuilder, &[Value]),
) -> FuncId {
    let mut f = Function::new(name, kind, params, returns);
    let ps = f.param_values().to_vec();
    let structs = m.structs.clone();
    let mut b = FuncBuilder::new(&mut f, &structs);
    build(&mut b, &ps);
    m.funcs.push(f)
}

/// `func find(a, n, key) -> i32`: the index of the first `key` in `a[0..n]`
/// or -1 — an early return inside an `if` inside a loop.
pub fn add_find(m: &mut Module) -> FuncId {
    add_func(
        m,
        "find",
        FuncKind::Func,
        vec![
            param("a", arr_i32()),
            param("n", Type::I32),
            param("key", Type::I32),
        ],
        vec![Type::I32],
        |b, ps| {
            let (a, n, key) = (ps[0], ps[1], ps[2]);
            let zero = b.iconst(I32, 0);
            let (_lp, body, lps) = b.loop_(vec![zero], &[]);
            b.switch_to(body);
            let i = lps[0];
            let lt = b.binary(BinaryOp::Lt, i, n);
            let (_, t, e) = b.if_(lt, &[]);
            b.switch_to(t);
            b.yield_(vec![]);
            b.switch_to(e);
            b.break_(vec![]);
            b.switch_to(body);
            let x = b.load(at(a, i));
            let eq = b.binary(BinaryOp::Eq, x, key);
            let (_, t, e) = b.if_(eq, &[]);
            b.switch_to(t);
            b.return_(vec![i]);
            b.switch_to(e);
            b.yield_(vec![]);
            b.switch_to(body);
            let one = b.iconst(I32, 1);
            let i1 = b.binary(BinaryOp::Add, i, one);
            b.continue_(vec![i1]);
            b.switch_to(b.func.body);
            let m1 = b.iconst(I32, -1);
            b.return_(vec![m1]);
        },
    )
}
