//! Uniformity of a kernel's values under SPMD execution: which values are
//! the same for every thread of a chunk run together in one vector
//! (*uniform*: kernel params, constants, and what is computed from them
//! only) and which differ per thread (*varying*: the thread id, atomics'
//! old values, and what depends on them), and which loops the threads of
//! a chunk may leave at different iterations (*divergent*).
//!
//! Control matters as well as data: a value chosen by an `if` on a varying
//! condition is varying, and so is a loop param when some thread may
//! `continue` from under a varying `if`. A loop is divergent when one of
//! its own `break`s or `continue`s, or a `return` anywhere in its body, is
//! under an `if` on a varying condition (between the loop and the
//! terminator); its results are then varying. A load from a uniform
//! address is uniform: the threads of a chunk read it at one moment, and a
//! kernel whose threads write what another reads in the same launch has a
//! race, which Warp leaves undefined. Read by the vectorizing CPU tier
//! (`docs/vector.md`).

use crate::ir::{Function, Inst, InstKind, Region, Value};
use std::collections::HashSet;

/// The result of [`uniformity`].
#[derive(Clone, Debug, Default)]
pub struct Uniformity {
    varying: Vec<bool>,
    divergent: HashSet<Inst>,
}

impl Uniformity {
    /// True if `v` may differ between the threads of a chunk.
    pub fn is_varying(&self, v: Value) -> bool {
        self.varying
            .get(v.as_u32() as usize)
            .copied()
            .unwrap_or(true)
    }
    /// True if threads of a chunk may leave the loop `inst` at different
    /// iterations (or by different exits).
    pub fn is_divergent(&self, inst: Inst) -> bool {
        self.divergent.contains(&inst)
    }
}

/// An enclosing construct while walking regions.
#[derive(Copy, Clone)]
enum Frame {
    /// An `if`; true when its condition is varying.
    If(bool),
    Loop(Inst),
}

struct Walk<'f> {
    f: &'f Function,
    u: Uniformity,
    changed: bool,
}

impl Walk<'_> {
    fn vary(&mut self, v: Value) {
        if let Some(b) = self.u.varying.get_mut(v.as_u32() as usize) {
            if !*b {
                *b = true;
                self.changed = true;
            }
        }
    }
    fn any_varying(&self, vs: &[Value]) -> bool {
        vs.iter().any(|&v| self.u.is_varying(v))
    }
    fn diverge(&mut self, l: Inst) {
        if self.u.divergent.insert(l) {
            self.changed = true;
        }
    }
    /// True when some `if` inside the innermost frame `upto` (exclusive)
    /// has a varying condition.
    fn under_varying(stack: &[Frame], upto: usize) -> bool {
        stack[upto + 1..]
            .iter()
            .any(|fr| matches!(fr, Frame::If(true)))
    }

    fn region(&mut self, r: Region, stack: &mut Vec<Frame>) {
        let Some(rd) = self.f.regions.get(r) else {
            return;
        };
        for &i in &rd.insts {
            self.inst(i, stack);
        }
    }

    /// The operands of the terminator ending region `r`, if it is `yield`.
    fn yielded(&self, r: Region) -> Option<&[Value]> {
        let last = *self.f.regions.get(r)?.insts.last()?;
        match &self.f.insts[last].kind {
            InstKind::Yield(vs) => Some(vs),
            _ => None,
        }
    }

    fn inst(&mut self, i: Inst, stack: &mut Vec<Frame>) {
        let f = self.f;
        let data = &f.insts[i];
        match &data.kind {
            InstKind::ThreadId
            | InstKind::Atomic(..)
            | InstKind::AtomicCas(..)
            | InstKind::Call(..) => {
                for &r in &data.results {
                    self.vary(r);
                }
            }
            InstKind::If {
                cond,
                then_region,
                else_region,
            } => {
                let vc = self.u.is_varying(*cond);
                stack.push(Frame::If(vc));
                self.region(*then_region, stack);
                self.region(*else_region, stack);
                stack.pop();
                for (k, &r) in data.results.iter().enumerate() {
                    let from = |reg| {
                        self.yielded(reg)
                            .and_then(|vs| vs.get(k))
                            .is_some_and(|&v| self.u.is_varying(v))
                    };
                    if vc || from(*then_region) || from(*else_region) {
                        self.vary(r);
                    }
                }
            }
            InstKind::Loop { init, body } => {
                let params = f
                    .regions
                    .get(*body)
                    .map(|r| r.params.clone())
                    .unwrap_or_default();
                for (k, &p) in params.iter().enumerate() {
                    if init.get(k).is_some_and(|&v| self.u.is_varying(v)) {
                        self.vary(p);
                    }
                }
                stack.push(Frame::Loop(i));
                self.region(*body, stack);
                stack.pop();
                if self.u.is_divergent(i) {
                    for &v in params.iter().chain(&data.results) {
                        self.vary(v);
                    }
                }
            }
            InstKind::Continue(vs) | InstKind::Break(vs) => {
                let Some(at) = stack.iter().rposition(|fr| matches!(fr, Frame::Loop(_))) else {
                    return;
                };
                let Frame::Loop(l) = stack[at] else { return };
                if Self::under_varying(stack, at) {
                    self.diverge(l);
                }
                let targets: Vec<Value> = match data.kind {
                    InstKind::Continue(_) => f
                        .regions
                        .get(match &f.insts[l].kind {
                            InstKind::Loop { body, .. } => *body,
                            _ => return,
                        })
                        .map(|r| r.params.clone())
                        .unwrap_or_default(),
                    _ => f.insts[l].results.to_vec(),
                };
                for (&t, &v) in targets.iter().zip(vs) {
                    if self.u.is_varying(v) {
                        self.vary(t);
                    }
                }
            }
            InstKind::Return(_) | InstKind::Trap(..) => {
                for at in 0..stack.len() {
                    if let Frame::Loop(l) = stack[at] {
                        if Self::under_varying(stack, at) {
                            self.diverge(l);
                        }
                    }
                }
            }
            InstKind::Yield(_) => {}
            k => {
                if self.any_varying(&k.args()) {
                    for &r in &data.results {
                        self.vary(r);
                    }
                }
            }
        }
    }
}

/// The uniformity of every value of `f` (a kernel; a func's params are
/// taken as uniform) and its divergent loops.
pub fn uniformity(f: &Function) -> Uniformity {
    let mut w = Walk {
        f,
        u: Uniformity {
            varying: vec![false; f.values.len()],
            divergent: HashSet::new(),
        },
        changed: true,
    };
    // Each round only turns values varying (and loops divergent), so this
    // ends after at most one round per value and loop.
    while w.changed {
        w.changed = false;
        w.region(f.body, &mut Vec::new());
    }
    w.u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    fn analyse(src: &str) -> (Function, Uniformity) {
        let m = parse_module(src).expect("parses");
        let f = m.funcs.values().next().expect("a kernel").clone();
        let u = uniformity(&f);
        (f, u)
    }

    fn named(f: &Function, name: &str) -> Value {
        f.values
            .keys()
            .find(|&v| f.value_name(v) == Some(name))
            .unwrap_or_else(|| panic!("no value {name}"))
    }

    #[test]
    fn nbody_inner_loop_is_uniform_and_its_accumulator_varying() {
        let (f, u) = analyse(
            r#"kernel @k(v0 "a": array1<f32>, v1 "n": i32) {
  v2 "i": i32 = thread_id
  v3 "x": f32 = load v0[v2]
  v4: i32 = const 0
  v5: f32 = const 0.0
  v6 "s": f32 = loop (v7 "j": i32 = v4, v8 "acc": f32 = v5) {
    v9: bool = ge v7, v1
    if v9 {
      break v8
    } else {
      yield
    }
    v10 "y": f32 = load v0[v7]
    v11: f32 = sub v10, v3
    v12: f32 = add v8, v11
    v13: i32 = const 1
    v14: i32 = add v7, v13
    continue v14, v12
  }
  store v0[v2], v6
  return
}"#,
        );
        assert!(!u.is_varying(named(&f, "j")));
        assert!(!u.is_varying(named(&f, "y")), "a load at a uniform index");
        assert!(u.is_varying(named(&f, "x")));
        assert!(u.is_varying(named(&f, "acc")));
        assert!(u.is_varying(named(&f, "s")));
        let l = f
            .insts
            .keys()
            .find(|&i| matches!(f.insts[i].kind, InstKind::Loop { .. }))
            .expect("a loop");
        assert!(!u.is_divergent(l));
    }

    #[test]
    fn a_break_under_a_varying_if_makes_the_loop_divergent() {
        let (f, u) = analyse(
            r#"kernel @k(v0 "a": array1<i32>) {
  v1 "i": i32 = thread_id
  v2: i32 = const 0
  v3 "r": i32 = loop (v4 "j": i32 = v2) {
    v5: bool = ge v4, v1
    if v5 {
      break v4
    } else {
      yield
    }
    v6: i32 = const 1
    v7: i32 = add v4, v6
    continue v7
  }
  store v0[v1], v3
  return
}"#,
        );
        let l = f
            .insts
            .keys()
            .find(|&i| matches!(f.insts[i].kind, InstKind::Loop { .. }))
            .expect("a loop");
        assert!(u.is_divergent(l));
        assert!(u.is_varying(named(&f, "j")), "threads leave at different j");
        assert!(u.is_varying(named(&f, "r")));
    }
}
