//! The seed's N-body kernel, built as the frontend lowers it, and a plain
//! Rust version of the same computation in the same operation order.
#![allow(dead_code)]

use weft_ir::ir::{BinaryOp, MemAccess, UnaryOp};
use weft_ir::{
    ArrayType, ElemType, FuncBuilder, FuncKind, Function, Module, Param, Scalar, Type, Value,
};

fn at(array: Value, i: Value) -> MemAccess {
    MemAccess {
        array,
        indices: vec![i],
        path: vec![],
    }
}

/// `nbody_step(pos, vel, mass, new_pos, new_vel, n, dt, grav, eps2)`.
pub fn nbody_module() -> Module {
    let mut m = Module::new();
    let v3 = Type::Vec(3, Scalar::F32);
    let av3 = Type::Array(ArrayType {
        elem: ElemType::Vec(3, Scalar::F32),
        ndim: 1,
    });
    let af = Type::Array(ArrayType {
        elem: ElemType::Scalar(Scalar::F32),
        ndim: 1,
    });
    let params: Vec<Param> = [
        ("pos", av3),
        ("vel", av3),
        ("mass", af),
        ("new_pos", av3),
        ("new_vel", av3),
        ("n", Type::I32),
        ("dt", Type::F32),
        ("grav", Type::F32),
        ("eps2", Type::F32),
    ]
    .iter()
    .map(|(n, t)| Param {
        name: n.to_string(),
        ty: *t,
    })
    .collect();
    let mut f = Function::new("nbody_step", FuncKind::Kernel, params, vec![]);
    let p = f.param_values().to_vec();
    {
        let mut b = FuncBuilder::new(&mut f, &m.structs);
        let comp = |b: &mut FuncBuilder, op: BinaryOp, x: Value, y: Value| {
            let parts = (0..3)
                .map(|k| {
                    let a = b.extract(x, vec![k]);
                    let c = b.extract(y, vec![k]);
                    b.binary(op, a, c)
                })
                .collect();
            b.make(v3, parts)
        };
        let scale = |b: &mut FuncBuilder, x: Value, s: Value| {
            let parts = (0..3)
                .map(|k| {
                    let a = b.extract(x, vec![k]);
                    b.binary(BinaryOp::Mul, a, s)
                })
                .collect();
            b.make(v3, parts)
        };
        let i = b.thread_id();
        let pi = b.load(at(p[0], i));
        let z = b.fconst(Scalar::F32, 0.0);
        let acc0 = b.make(v3, vec![z, z, z]);
        let j0 = b.iconst(Scalar::I32, 0);
        let (lp, body, lps) = b.loop_(vec![j0, acc0], &[v3]);
        b.switch_to(body);
        let (j, acc) = (lps[0], lps[1]);
        let c = b.binary(BinaryOp::Lt, j, p[5]);
        let (_, t, e) = b.if_(c, &[]);
        b.switch_to(e);
        b.break_(vec![acc]);
        b.switch_to(t);
        b.yield_(vec![]);
        b.switch_to(body);
        let pj = b.load(at(p[0], j));
        let d = comp(&mut b, BinaryOp::Sub, pj, pi);
        let (dx, dy, dz) = (
            b.extract(d, vec![0]),
            b.extract(d, vec![1]),
            b.extract(d, vec![2]),
        );
        let xx = b.binary(BinaryOp::Mul, dx, dx);
        let yy = b.binary(BinaryOp::Mul, dy, dy);
        let zz = b.binary(BinaryOp::Mul, dz, dz);
        let s = b.binary(BinaryOp::Add, xx, yy);
        let dot = b.binary(BinaryOp::Add, s, zz);
        let r2 = b.binary(BinaryOp::Add, dot, p[8]);
        let one = b.fconst(Scalar::F32, 1.0);
        let sq = b.unary(UnaryOp::Sqrt, r2);
        let inv_r = b.binary(BinaryOp::Div, one, sq);
        let mj = b.load(at(p[2], j));
        let g = b.binary(BinaryOp::Mul, p[7], mj);
        let g = b.binary(BinaryOp::Mul, g, inv_r);
        let g = b.binary(BinaryOp::Mul, g, inv_r);
        let g = b.binary(BinaryOp::Mul, g, inv_r);
        let dg = scale(&mut b, d, g);
        let acc1 = comp(&mut b, BinaryOp::Add, acc, dg);
        let one_i = b.iconst(Scalar::I32, 1);
        let j1 = b.binary(BinaryOp::Add, j, one_i);
        b.continue_(vec![j1, acc1]);
        let body_region = b.func.body;
        b.switch_to(body_region);
        let acc = b.func.results(lp)[0];
        let vi = b.load(at(p[1], i));
        let adt = scale(&mut b, acc, p[6]);
        let v = comp(&mut b, BinaryOp::Add, vi, adt);
        b.store(at(p[4], i), v);
        let vdt = scale(&mut b, v, p[6]);
        let np = comp(&mut b, BinaryOp::Add, pi, vdt);
        b.store(at(p[3], i), np);
        b.return_(vec![]);
    }
    m.funcs.push(f);
    m
}

/// The same computation in Rust, one thread index.
#[allow(clippy::too_many_arguments)]
pub fn nbody_ref(
    i: usize,
    pos: &[[f32; 3]],
    vel: &[[f32; 3]],
    mass: &[f32],
    dt: f32,
    grav: f32,
    eps2: f32,
) -> ([f32; 3], [f32; 3]) {
    let p = pos[i];
    let mut acc = [0f32; 3];
    for j in 0..pos.len() {
        let d = [pos[j][0] - p[0], pos[j][1] - p[1], pos[j][2] - p[2]];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
        let inv_r = 1.0 / r2.sqrt();
        let s = grav * mass[j] * inv_r * inv_r * inv_r;
        for k in 0..3 {
            acc[k] += d[k] * s;
        }
    }
    let v = [
        vel[i][0] + acc[0] * dt,
        vel[i][1] + acc[1] * dt,
        vel[i][2] + acc[2] * dt,
    ];
    let np = [p[0] + v[0] * dt, p[1] + v[1] * dt, p[2] + v[2] * dt];
    (np, v)
}
