//! What a kernel compiled for deterministic launches
//! ([`Function::deterministic`]) needs from the host devices so that its
//! results do not depend on the number of threads or on their schedule:
//! [`Determinism`], part of the [`crate::KernelInfo`].
//!
//! Everything a kernel computes is already independent of the schedule
//! except what threads do to one address: a plain store racing another is
//! the kernel's own race (as in Warp), integer atomics of one kind whose
//! old value is unused commute with each other (but not with a load of
//! their array), and float atomics do not (float addition is not
//! associative). So:
//!
//! * integer atomics whose old value is unused commute when the array they
//!   update is a kernel parameter that nothing else reads, writes or passes
//!   on and every atomic into it is of one kind (`add`/`sub`, `min`, `max`,
//!   `and`, `or` or `xor`); otherwise the launch is serial (a load of a
//!   counter sees how many atomics came first);
//! * float `add`/`sub`/`min`/`max` atomics whose old value is unused, into a
//!   kernel parameter that nothing else reads, writes or passes on, are
//!   *accumulations*: each fixed chunk of threads accumulates into its own
//!   copy of the array, and the copies are combined into it in chunk order
//!   ([`Determinism::Accumulate`]);
//! * an atomic whose old value is used (a counter handing out slots), an
//!   `atomic_cas` or `atomic_exch`, a float atomic into an array that is
//!   also used otherwise, or a call to a func with atomics make the launch
//!   run its threads in order on one thread ([`Determinism::Serial`]).
//!
//! The runtime's side (chunk size, copies, the combining order) is in
//! `docs/runtime.md`, "Deterministic launches".

use crate::info::{atomic_only_arrays, for_each_inst, used_values};
use crate::{AtomicOp, FuncId, Inst, InstKind, Loc, Module, Scalar, ValueDef};

/// How a launch of a kernel keeps its results independent of the schedule
/// (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Determinism {
    /// Nothing to do: the kernel was not compiled deterministic, or nothing
    /// in it depends on the order threads run in.
    Free,
    /// Float atomics accumulate into these array parameters (one entry per
    /// array, in parameter order).
    Accumulate(Vec<Accumulation>),
    /// The threads must run in order, on one thread; `why` says what
    /// needs it, `loc` where.
    Serial { why: &'static str, loc: Loc },
}

/// An array parameter that float atomics accumulate into.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Accumulation {
    /// Index into the kernel's parameters.
    pub param: u32,
    /// How the chunks' copies combine: [`AtomicOp::Add`] (for `add` and
    /// `sub`), [`AtomicOp::Min`] or [`AtomicOp::Max`].
    pub op: AtomicOp,
    /// The float type the atomics update.
    pub scalar: Scalar,
    /// Where the first of them is.
    pub loc: Loc,
}

impl Determinism {
    /// What needs the host's ordering, and where: `None` for
    /// [`Determinism::Free`].
    pub fn needs(&self) -> Option<(&'static str, Loc)> {
        match self {
            Determinism::Free => None,
            Determinism::Accumulate(a) => a.first().map(|a| ("a float atomic", a.loc)),
            Determinism::Serial { why, loc } => Some((why, *loc)),
        }
    }
    /// What kernel `func` of `m` needs ([`Determinism::Free`] unless it is
    /// [`Function::deterministic`]).
    pub fn of(m: &Module, func: FuncId) -> Determinism {
        let Some(f) = m.funcs.get(func) else {
            return Determinism::Free;
        };
        if !f.deterministic {
            return Determinism::Free;
        }
        let mut insts = Vec::new();
        for_each_inst(f, &mut |i| insts.push(i));
        let serial = |why, i: Inst| Determinism::Serial {
            why,
            loc: f.insts[i].loc,
        };
        let used = used_values(f, &insts);
        let mut floats = Vec::new();
        for &i in &insts {
            let old_used = f.insts[i].results.iter().any(|r| used.contains(r));
            match &f.insts[i].kind {
                InstKind::AtomicCas(..) => return serial("an `atomic_cas`", i),
                InstKind::Atomic(AtomicOp::Exchange, ..) => return serial("an `atomic_exch`", i),
                InstKind::Atomic(..) if old_used => {
                    return serial("an atomic whose old value is used", i)
                }
                InstKind::Atomic(_, _, v)
                    if f.value_type(*v).scalar_of().is_some_and(|s| s.is_float()) =>
                {
                    floats.push(i)
                }
                InstKind::Call(g, _) if calls_atomics(m, *g) => {
                    return serial("a call to a func with atomics", i)
                }
                _ => {}
            }
        }
        let body = f.body;
        let param_of = |v| match f.values.get(v).map(|d| d.def) {
            Some(ValueDef::Param(r, k)) if r == body => Some(k),
            _ => None,
        };
        let arrays = atomic_only_arrays(f, &insts, |_, op, mem, v| {
            let s = f.value_type(v).scalar_of()?;
            let op = match op {
                AtomicOp::Add | AtomicOp::Sub if s.is_float() => AtomicOp::Add,
                AtomicOp::Min | AtomicOp::Max if s.is_float() => op,
                _ => return None,
            };
            param_of(mem.array).map(|_| (op, s))
        });
        // Integer atomics whose old value is unused commute only with
        // atomics of the same kind (`add`/`sub`, or one of `min`, `max`,
        // `and`, `or`, `xor`) into an array that nothing else reads,
        // writes or passes on: a load of it sees how many of the other
        // threads' atomics came first, and `add` then `max` is not `max`
        // then `add`.
        let ints = atomic_only_arrays(f, &insts, |_, op, mem, v| {
            let s = f.value_type(v).scalar_of()?;
            if s.is_float() {
                return None;
            }
            let op = match op {
                AtomicOp::Sub => AtomicOp::Add,
                AtomicOp::Exchange => return None,
                op => op,
            };
            param_of(mem.array).map(|_| op)
        });
        for &i in &insts {
            let InstKind::Atomic(_, mem, v) = &f.insts[i].kind else {
                continue;
            };
            if f.value_type(*v).scalar_of().is_some_and(|s| s.is_float()) {
                continue;
            }
            if !matches!(ints.get(&mem.array), Some(Some(_))) {
                return serial(
                    "an integer atomic into an array that is also read, written, passed on or updated by another kind of atomic",
                    i,
                );
            }
        }
        let mut out: Vec<Accumulation> = Vec::new();
        for i in floats {
            let InstKind::Atomic(_, mem, _) = &f.insts[i].kind else {
                continue;
            };
            let (Some(Some(((op, scalar), _))), Some(param)) =
                (arrays.get(&mem.array), param_of(mem.array))
            else {
                return serial(
                    "a float atomic into an array that is also read, written or passed on",
                    i,
                );
            };
            if !out.iter().any(|a| a.param == param) {
                out.push(Accumulation {
                    param,
                    op: *op,
                    scalar: *scalar,
                    loc: f.insts[i].loc,
                });
            }
        }
        if out.is_empty() {
            return Determinism::Free;
        }
        out.sort_by_key(|a| a.param);
        Determinism::Accumulate(out)
    }
}

/// Whether func `g`, or one it calls, has an atomic.
fn calls_atomics(m: &Module, g: FuncId) -> bool {
    crate::info::reachable(m, g).into_iter().any(|h| {
        m.funcs.get(h).is_some_and(|h| {
            let mut any = false;
            for_each_inst(h, &mut |i| {
                any |= matches!(
                    h.insts[i].kind,
                    InstKind::Atomic(..) | InstKind::AtomicCas(..)
                );
            });
            any
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    fn of(src: &str) -> Determinism {
        let m = parse_module(src).unwrap_or_else(|e| panic!("{e}"));
        let (id, _) = m.kernels().next().unwrap();
        Determinism::of(&m, id)
    }

    /// `t[0] += x[tid]` over `T` (`f32` unless replaced), deterministic.
    const SUM: &str = "kernel @k(v0 \"x\": array1<T>, v1 \"t\": array1<T>) deterministic {
  v2: i32 = thread_id
  v3: T = load v0[v2]
  v4: i32 = const 0
  v5: T = atomic add v1[v4], v3
  return
}
";

    fn sum(ty: &str) -> String {
        SUM.replace('T', ty)
    }

    #[test]
    fn float_accumulations_are_chunked() {
        assert_eq!(
            of(&sum("f32")),
            Determinism::Accumulate(vec![Accumulation {
                param: 1,
                op: AtomicOp::Add,
                scalar: Scalar::F32,
                loc: Loc::NONE,
            }])
        );
        // `sub` combines as `add`; `min` as itself.
        let sub = sum("f32").replace("atomic add", "atomic sub");
        assert!(matches!(of(&sub), Determinism::Accumulate(a) if a[0].op == AtomicOp::Add));
        let min = sum("f32").replace("atomic add", "atomic min");
        assert!(matches!(of(&min), Determinism::Accumulate(a) if a[0].op == AtomicOp::Min));
    }

    #[test]
    fn the_attribute_round_trips() {
        let m = parse_module(&sum("f32")).unwrap();
        let text = crate::text::print_module(&m);
        assert!(text.contains(") deterministic {"), "{text}");
        assert!(parse_module(&text)
            .unwrap()
            .funcs
            .values()
            .all(|f| f.deterministic));
    }

    #[test]
    fn only_deterministic_kernels_with_float_atomics_need_anything() {
        assert_eq!(
            of(&sum("f32").replace(" deterministic", "")),
            Determinism::Free
        );
        assert_eq!(of(&sum("i32")), Determinism::Free);
    }

    #[test]
    fn order_dependent_atomics_run_serially() {
        let used = sum("f32").replace("  return", "  store v0[v2], v5\n  return");
        assert!(
            matches!(of(&used), Determinism::Serial { why, .. } if why.contains("old value")),
            "{:?}",
            of(&used)
        );
        let read = sum("f32").replace(
            "  return",
            "  v6: f32 = load v1[v2]\n  store v0[v2], v6\n  return",
        );
        assert!(matches!(of(&read), Determinism::Serial { why, .. } if why.contains("also read")));
        let mixed = sum("f32").replace("  return", "  v6: f32 = atomic max v1[v4], v3\n  return");
        assert!(matches!(of(&mixed), Determinism::Serial { .. }));
        // Integer atomics commute, unless the array is also read or
        // updated by atomics of another kind.
        let int_read = sum("i32").replace(
            "  return",
            "  v6: i32 = load v1[v4]\n  store v0[v2], v6\n  return",
        );
        assert!(
            matches!(of(&int_read), Determinism::Serial { why, .. } if why.contains("integer atomic")),
            "{:?}",
            of(&int_read)
        );
        let int_mixed =
            sum("i32").replace("  return", "  v6: i32 = atomic max v1[v4], v3\n  return");
        assert!(matches!(of(&int_mixed), Determinism::Serial { .. }));
        let int_add_sub =
            sum("i32").replace("  return", "  v6: i32 = atomic sub v1[v4], v3\n  return");
        assert_eq!(of(&int_add_sub), Determinism::Free);
        let exch = sum("i32").replace("atomic add", "atomic exchange");
        assert!(matches!(of(&exch), Determinism::Serial { why, .. } if why.contains("exch")));
    }
}
