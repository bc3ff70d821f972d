//! `bounds-check`: the bounds-checked (debug) mode.
//!
//! Before every array access (`load`, `store`, `atomic`) the pass inserts,
//! for each indexed axis `k`, an explicit test
//!
//! ```text
//! vI: u64 = cast<u64> index        ; negative indices become huge
//! vS: i32 = array_shape arr, k
//! vN: u64 = cast<u64> vS
//! vC: bool = lt vI, vN
//! if vC {
//!   yield
//! } else {
//!   vX: i64 = cast<i64> index
//!   vY: i64 = cast<i64> vS
//!   trap oob k vX, vY                 ; the thread stops here
//! }
//! ```
//!
//! and before every integer `div`/`rem` a test of the divisor against zero
//! (`trap divzero`). A [`InstKind::Trap`] ends the thread: the access (or
//! division) after the test never runs with a bad operand, so no memory
//! outside an array is touched. The traps carry the access's source
//! location; the backends report them to the runtime, which returns the
//! error from the launch.
//!
//! The pass runs after the optimisation pipeline (so that optimisations do
//! not see, move or duplicate the tests) and only when asked for; without
//! it the generated code is unchanged.

use crate::{Pass, PassError};
use weft_ir::ir::{
    BinaryOp, Const, Function, Inst, InstKind, Loc, MemAccess, Region, TrapKind, Value,
};
use weft_ir::{Module, Scalar, Type};

/// The bounds-check pass (see the module docs).
#[derive(Default)]
pub struct BoundsCheck;

impl Pass for BoundsCheck {
    fn name(&self) -> &'static str {
        "bounds-check"
    }
    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        Ok(insert_bounds_checks(m))
    }
}

/// Inserts the tests into every function of `m`; true if any was inserted.
pub fn insert_bounds_checks(m: &mut Module) -> bool {
    let mut changed = false;
    for (_, f) in m.funcs.iter_mut() {
        changed |= guard_function(f);
    }
    changed
}

/// Inserts the tests into one function; true if any was inserted.
pub fn guard_function(f: &mut Function) -> bool {
    let regions: Vec<Region> = f.regions.keys().collect();
    let mut changed = false;
    for r in regions {
        let old = std::mem::take(&mut f.regions[r].insts);
        let mut new = Vec::with_capacity(old.len());
        for inst in old {
            let guards = guards_of(f, inst);
            changed |= !guards.is_empty();
            for g in guards {
                new.extend(build_guard(f, inst, g));
            }
            new.push(inst);
        }
        f.regions[r].insts = new;
    }
    changed
}

/// One test to insert before an instruction.
enum Guard {
    /// `index < shape(array, axis)`.
    Index {
        array: Value,
        axis: u8,
        index: Value,
    },
    /// `divisor != 0` for an integer type.
    NonZero { divisor: Value, ty: Scalar },
}

fn guards_of(f: &Function, inst: Inst) -> Vec<Guard> {
    let mem = |m: &MemAccess| {
        m.indices
            .iter()
            .enumerate()
            .filter(|(_, &ix)| matches!(f.value_type(ix), Type::Scalar(s) if s.is_int()))
            .map(|(k, &index)| Guard::Index {
                array: m.array,
                axis: k as u8,
                index,
            })
            .collect()
    };
    let kind = &f.insts[inst].kind;
    if let Some(m) = kind.mem_access() {
        return mem(m);
    }
    match kind {
        InstKind::Binary(BinaryOp::Div | BinaryOp::Rem, _, b) => match f.value_type(*b) {
            Type::Scalar(s) if s.is_int() => vec![Guard::NonZero { divisor: *b, ty: s }],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Creates an instruction with one result of type `ty`.
fn def(f: &mut Function, kind: InstKind, ty: Scalar, loc: Loc) -> (Inst, Value) {
    let i = f.create_inst(kind, &[Type::Scalar(ty)], loc);
    (i, f.insts[i].results[0])
}

/// Builds a test: the instructions to place before the guarded one (the
/// last is the `if` whose `else` region traps).
fn build_guard(f: &mut Function, at: Inst, g: Guard) -> Vec<Inst> {
    let loc = f.insts[at].loc;
    let mut pre = Vec::new();
    let mut on_fail = Vec::new();
    let (cond, trap) = match g {
        Guard::Index { array, axis, index } => {
            let (i1, iu) = def(f, InstKind::Cast(index, Scalar::U64), Scalar::U64, loc);
            let (i2, sh) = def(f, InstKind::ArrayShape(array, axis), Scalar::I32, loc);
            let (i3, su) = def(f, InstKind::Cast(sh, Scalar::U64), Scalar::U64, loc);
            let (i4, c) = def(f, InstKind::Binary(BinaryOp::Lt, iu, su), Scalar::Bool, loc);
            pre.extend([i1, i2, i3, i4]);
            let (x1, xi) = def(f, InstKind::Cast(index, Scalar::I64), Scalar::I64, loc);
            let (x2, xs) = def(f, InstKind::Cast(sh, Scalar::I64), Scalar::I64, loc);
            on_fail.extend([x1, x2]);
            (
                c,
                InstKind::Trap(TrapKind::OutOfBounds { axis }, vec![xi, xs]),
            )
        }
        Guard::NonZero { divisor, ty } => {
            let (i1, z) = def(f, InstKind::Const(Const::int(ty, 0)), ty, loc);
            let (i2, c) = def(
                f,
                InstKind::Binary(BinaryOp::Ne, divisor, z),
                Scalar::Bool,
                loc,
            );
            pre.extend([i1, i2]);
            (c, InstKind::Trap(TrapKind::DivByZero, Vec::new()))
        }
    };
    on_fail.push(f.create_inst(trap, &[], loc));
    let then_r = f.new_region();
    let y = f.create_inst(InstKind::Yield(Vec::new()), &[], loc);
    f.regions[then_r].insts.push(y);
    let else_r = f.new_region();
    f.regions[else_r].insts = on_fail;
    pre.push(f.create_inst(
        InstKind::If {
            cond,
            then_region: then_r,
            else_region: else_r,
        },
        &[],
        loc,
    ));
    pre
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::text::{parse_module, print_module};

    const SRC: &str = "kernel @k(v0: array2<f32>, v1: array1<i32>) {
  v2: i32 = thread_id
  v3: f32 = load v0[v2, v2]
  v4: i32 = load v1[v2]
  v5: i32 = div v2, v4
  store v1[v5], v5
  return
}
";

    #[test]
    fn guards_every_axis_and_integer_division() {
        let mut m = parse_module(SRC).unwrap();
        assert!(insert_bounds_checks(&mut m));
        weft_ir::verify::verify_module(&m).unwrap();
        let text = print_module(&m);
        assert_eq!(text.matches("trap oob 0").count(), 3, "{text}");
        assert_eq!(text.matches("trap oob 1").count(), 1, "{text}");
        assert_eq!(text.matches("trap divzero").count(), 1, "{text}");
        // The text form round-trips.
        let back = parse_module(&text).unwrap();
        assert_eq!(print_module(&back), text);
    }

    #[test]
    fn the_interpreter_reports_the_trap_before_the_access() {
        use weft_ir::interp::{run_kernel, ArgValue, InterpError, InterpOptions};
        let mut m = parse_module(SRC).unwrap();
        insert_bounds_checks(&mut m);
        let k = m.func_by_name("k").unwrap();
        let mut a = vec![0u8; 16];
        let mut b = vec![0u8; 8];
        b[4] = 0; // v1[1] == 0: thread 1 divides by zero
        b[0] = 1;
        let mut args = vec![
            ArgValue::Array {
                data: &mut a,
                shape: [2, 2, 1, 1],
                strides: [8, 4, 0, 0],
            },
            ArgValue::Array {
                data: &mut b,
                shape: [2, 1, 1, 1],
                strides: [4, 0, 0, 0],
            },
        ];
        let e = run_kernel(&m, k, &[2], &mut args, &InterpOptions::default()).unwrap_err();
        assert!(matches!(e, InterpError::DivByZero { .. }), "{e}");
    }
}
