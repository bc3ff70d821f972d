//! Helpers shared by the pass tests that build IR with `FuncBuilder`.
#![allow(dead_code)] // each test binary uses its own subset

use weft_ir::{
    ArrayType, ElemType, FuncBuilder, FuncId, FuncKind, Function, MemAccess, Module, Param, Scalar,
    Type, Value,
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
