//! Differential test of the SSA construction: random structured programs
//! (assignments, `if`/`elif`/`else`, `for` loops with constant and run-time
//! bounds, `while`, `break`, `continue`, early `return`) are printed as a
//! `@wp.func`, compiled, run on the reference interpreter, and compared with
//! a direct evaluation of the same program. `WEFT_RANDOM_CASES` sets the
//! number of programs (default 200).

use weft_ir::interp::{run_kernel, ArgValue, InterpOptions};

const VARS: usize = 4;

#[derive(Debug, Clone)]
enum E {
    Var(usize),
    /// `p[k]` of the local `p: wp.vec3i`.
    Comp(usize),
    Const(i32),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    Mul(Box<E>, Box<E>),
}

#[derive(Debug, Clone)]
enum C {
    Lt(E, E),
    Eq(E, E),
    And(Box<C>, Box<C>),
    Or(Box<C>, Box<C>),
    Not(Box<C>),
}

#[derive(Debug, Clone)]
enum S {
    Assign(usize, E),
    /// `p[k] = e`
    SetComp(usize, E),
    AddAssign(usize, E),
    /// `vN = a if c else b`
    Ternary(usize, C, E, E),
    If(C, Vec<S>, Vec<(C, Vec<S>)>, Option<Vec<S>>),
    /// `for jK in range(bound)`: the loop variable is `j<depth>`, readable
    /// through `Var(VARS + depth)`; `bound` is a constant or the run-time `n`.
    For(usize, Option<i32>, Vec<S>),
    /// `while wK < limit:` with `wK += 1` first in the body.
    While(i32, Vec<S>),
    Break,
    Continue,
    Return(E),
}

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as u32
    }
}

struct Gen {
    rng: Rng,
    /// Number of readable variables (VARS plus enclosing loop variables).
    loop_depth: usize,
    in_loop: bool,
    budget: i32,
}

impl Gen {
    fn expr(&mut self, d: u32) -> E {
        let nvars = VARS + self.loop_depth;
        match self.rng.next(if d == 0 { 3 } else { 6 }) {
            0 => E::Var(self.rng.next(nvars as u32) as usize),
            5 | 2 if d == 0 => E::Comp(self.rng.next(3) as usize),
            5 => E::Comp(self.rng.next(3) as usize),
            1 => E::Const(self.rng.next(7) as i32 - 3),
            2 => E::Add(Box::new(self.expr(d - 1)), Box::new(self.expr(d - 1))),
            3 => E::Sub(Box::new(self.expr(d - 1)), Box::new(self.expr(d - 1))),
            _ => E::Mul(Box::new(self.expr(d - 1)), Box::new(self.expr(d - 1))),
        }
    }
    fn cond(&mut self, d: u32) -> C {
        match self.rng.next(if d == 0 { 2 } else { 5 }) {
            0 => C::Lt(self.expr(1), self.expr(1)),
            1 => C::Eq(self.expr(1), self.expr(0)),
            2 => C::And(Box::new(self.cond(d - 1)), Box::new(self.cond(d - 1))),
            3 => C::Or(Box::new(self.cond(d - 1)), Box::new(self.cond(d - 1))),
            _ => C::Not(Box::new(self.cond(d - 1))),
        }
    }
    fn block(&mut self, depth: u32) -> Vec<S> {
        let n = 1 + self.rng.next(3);
        (0..n).map(|_| self.stmt(depth)).collect()
    }
    fn stmt(&mut self, depth: u32) -> S {
        self.budget -= 1;
        let structured = depth < 3 && self.budget > 0;
        let k = self.rng.next(if structured { 10 } else { 5 });
        match k {
            0 => S::Assign(self.rng.next(VARS as u32) as usize, self.expr(2)),
            1 => S::SetComp(self.rng.next(3) as usize, self.expr(2)),
            2 => S::AddAssign(self.rng.next(VARS as u32) as usize, self.expr(1)),
            3 => S::Ternary(
                self.rng.next(VARS as u32) as usize,
                self.cond(1),
                self.expr(1),
                self.expr(1),
            ),
            4 => match (self.in_loop, self.rng.next(4)) {
                (true, 0) => S::Break,
                (true, 1) => S::Continue,
                (_, 2) => S::Return(self.expr(1)),
                _ => S::Assign(self.rng.next(VARS as u32) as usize, self.expr(1)),
            },
            5 | 6 => {
                let c = self.cond(1);
                let then = self.block(depth + 1);
                let elifs = (0..self.rng.next(2))
                    .map(|_| (self.cond(1), self.block(depth + 1)))
                    .collect();
                let els = (self.rng.next(2) == 0).then(|| self.block(depth + 1));
                S::If(c, then, elifs, els)
            }
            7 | 8 => {
                let bound = if self.rng.next(2) == 0 {
                    Some(self.rng.next(5) as i32)
                } else {
                    None
                };
                let (d0, l0) = (self.loop_depth, self.in_loop);
                self.loop_depth += 1;
                self.in_loop = true;
                let body = self.block(depth + 1);
                self.loop_depth = d0;
                self.in_loop = l0;
                S::For(d0, bound, body)
            }
            _ => {
                let l0 = self.in_loop;
                self.in_loop = true;
                let body = self.block(depth + 1);
                self.in_loop = l0;
                S::While(1 + self.rng.next(4) as i32, body)
            }
        }
    }
}

fn pe(e: &E) -> String {
    match e {
        E::Var(i) if *i < VARS => format!("v{i}"),
        E::Var(i) => format!("j{}", i - VARS),
        E::Const(c) => format!("({c})"),
        E::Comp(k) => format!("p[{k}]"),
        E::Add(a, b) => format!("({} + {})", pe(a), pe(b)),
        E::Sub(a, b) => format!("({} - {})", pe(a), pe(b)),
        E::Mul(a, b) => format!("({} * {})", pe(a), pe(b)),
    }
}

fn pc(c: &C) -> String {
    match c {
        C::Lt(a, b) => format!("{} < {}", pe(a), pe(b)),
        C::Eq(a, b) => format!("{} == {}", pe(a), pe(b)),
        C::And(a, b) => format!("({}) and ({})", pc(a), pc(b)),
        C::Or(a, b) => format!("({}) or ({})", pc(a), pc(b)),
        C::Not(a) => format!("not ({})", pc(a)),
    }
}

fn ps(s: &S, ind: usize, out: &mut String, wcount: &mut usize) {
    let pad = "    ".repeat(ind);
    match s {
        S::Assign(v, e) => out.push_str(&format!("{pad}v{v} = {}\n", pe(e))),
        S::SetComp(k, e) => out.push_str(&format!("{pad}p[{k}] = {}\n", pe(e))),
        S::AddAssign(v, e) => out.push_str(&format!("{pad}v{v} += {}\n", pe(e))),
        S::Ternary(v, c, a, b) => out.push_str(&format!(
            "{pad}v{v} = {} if {} else {}\n",
            pe(a),
            pc(c),
            pe(b)
        )),
        S::If(c, t, elifs, els) => {
            out.push_str(&format!("{pad}if {}:\n", pc(c)));
            t.iter().for_each(|s| ps(s, ind + 1, out, wcount));
            for (c, b) in elifs {
                out.push_str(&format!("{pad}elif {}:\n", pc(c)));
                b.iter().for_each(|s| ps(s, ind + 1, out, wcount));
            }
            if let Some(b) = els {
                out.push_str(&format!("{pad}else:\n"));
                b.iter().for_each(|s| ps(s, ind + 1, out, wcount));
            }
        }
        S::For(d, bound, body) => {
            let b = bound.map_or("n".to_string(), |k| k.to_string());
            out.push_str(&format!("{pad}for j{d} in range({b}):\n"));
            body.iter().for_each(|s| ps(s, ind + 1, out, wcount));
        }
        S::While(limit, body) => {
            let w = *wcount;
            *wcount += 1;
            out.push_str(&format!(
                "{pad}w{w} = int(0)\n{pad}while w{w} < {limit}:\n{pad}    w{w} += 1\n"
            ));
            body.iter().for_each(|s| ps(s, ind + 1, out, wcount));
        }
        S::Break => out.push_str(&format!("{pad}break\n")),
        S::Continue => out.push_str(&format!("{pad}continue\n")),
        S::Return(e) => out.push_str(&format!("{pad}return {}\n", pe(e))),
    }
}

enum Flow {
    Next,
    Break,
    Continue,
    Return(i32),
}

struct Eval {
    vars: Vec<i32>,
    p: [i32; 3],
    n: i32,
}

impl Eval {
    fn e(&self, e: &E) -> i32 {
        match e {
            E::Var(i) => self.vars[*i],
            E::Const(c) => *c,
            E::Comp(k) => self.p[*k],
            E::Add(a, b) => self.e(a).wrapping_add(self.e(b)),
            E::Sub(a, b) => self.e(a).wrapping_sub(self.e(b)),
            E::Mul(a, b) => self.e(a).wrapping_mul(self.e(b)),
        }
    }
    fn c(&self, c: &C) -> bool {
        match c {
            C::Lt(a, b) => self.e(a) < self.e(b),
            C::Eq(a, b) => self.e(a) == self.e(b),
            C::And(a, b) => self.c(a) && self.c(b),
            C::Or(a, b) => self.c(a) || self.c(b),
            C::Not(a) => !self.c(a),
        }
    }
    fn block(&mut self, b: &[S]) -> Flow {
        for s in b {
            match self.s(s) {
                Flow::Next => {}
                f => return f,
            }
        }
        Flow::Next
    }
    fn s(&mut self, s: &S) -> Flow {
        match s {
            S::Assign(v, e) => self.vars[*v] = self.e(e),
            S::SetComp(k, e) => self.p[*k] = self.e(e),
            S::AddAssign(v, e) => self.vars[*v] = self.vars[*v].wrapping_add(self.e(e)),
            S::Ternary(v, c, a, b) => self.vars[*v] = if self.c(c) { self.e(a) } else { self.e(b) },
            S::If(c, t, elifs, els) => {
                if self.c(c) {
                    return self.block(t);
                }
                for (c, b) in elifs {
                    if self.c(c) {
                        return self.block(b);
                    }
                }
                if let Some(b) = els {
                    return self.block(b);
                }
            }
            S::For(d, bound, body) => {
                let b = bound.unwrap_or(self.n);
                let slot = VARS + d;
                for j in 0..b {
                    if self.vars.len() <= slot {
                        self.vars.resize(slot + 1, 0);
                    }
                    self.vars[slot] = j;
                    match self.block(body) {
                        Flow::Break => break,
                        Flow::Return(r) => return Flow::Return(r),
                        _ => {}
                    }
                }
            }
            S::While(limit, body) => {
                for _ in 0..*limit {
                    match self.block(body) {
                        Flow::Break => break,
                        Flow::Return(r) => return Flow::Return(r),
                        _ => {}
                    }
                }
            }
            S::Break => return Flow::Break,
            S::Continue => return Flow::Continue,
            S::Return(e) => return Flow::Return(self.e(e)),
        }
        Flow::Next
    }
}

fn result_expr() -> E {
    // v0 + 3*v1 + 7*v2 + 13*v3
    let mut e = E::Var(0);
    for (i, k) in [(1, 3), (2, 7), (3, 13)] {
        e = E::Add(
            Box::new(e),
            Box::new(E::Mul(Box::new(E::Var(i)), Box::new(E::Const(k)))),
        );
    }
    e
}

#[test]
fn random_programs_match_direct_evaluation() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let threads = 6;
    let cases: u32 = std::env::var("WEFT_RANDOM_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    for case in 0..cases {
        let mut g = Gen {
            rng: Rng(rng.next(u32::MAX) as u64 | 1),
            loop_depth: 0,
            in_loop: false,
            budget: 12,
        };
        let body = g.block(0);
        let mut text = String::from(
            "import warp as wp\n\n@wp.func\ndef f(t: int, n: int) -> int:\n    v0 = t\n    v1 = t * 2 - 3\n    v2 = int(1)\n    v3 = n - t\n    p = wp.vec3i(t, 1, 2)\n",
        );
        let mut wcount = 0;
        body.iter().for_each(|s| ps(s, 1, &mut text, &mut wcount));
        text.push_str(&format!("    return {}\n", pe(&result_expr())));
        text.push_str(
            "\n@wp.kernel\ndef k(n: int, out: wp.array(dtype=int)):\n    i = wp.tid()\n    out[i] = f(i, n)\n",
        );
        let m = match weft_frontend::compile("rand.py", &text) {
            Ok(m) => m,
            Err(d) => panic!(
                "case {case} failed to compile:\n{text}\n{}",
                d.render(false)
            ),
        };
        if let Err(e) = weft_ir::verify::verify_module(&m) {
            panic!("case {case} does not verify: {e}\n{text}");
        }
        let n: i32 = 3;
        let mut out = vec![0u8; threads * 4];
        let mut args = [
            ArgValue::Value(n.to_le_bytes().to_vec()),
            ArgValue::Array {
                data: &mut out,
                shape: [threads as i32, 1, 1, 1],
                strides: [4, 0, 0, 0],
            },
        ];
        let k = m.func_by_name("k").expect("kernel");
        run_kernel(
            &m,
            k,
            &[threads as i32],
            &mut args,
            &InterpOptions::default(),
        )
        .unwrap_or_else(|e| panic!("case {case} failed to run: {e}\n{text}"));
        for t in 0..threads as i32 {
            let mut ev = Eval {
                vars: vec![t, t.wrapping_mul(2).wrapping_sub(3), 1, n - t],
                p: [t, 1, 2],
                n,
            };
            let expect = match ev.block(&body) {
                Flow::Return(r) => r,
                _ => ev.e(&result_expr()),
            };
            let got = i32::from_le_bytes(
                out[t as usize * 4..t as usize * 4 + 4]
                    .try_into()
                    .expect("4 bytes"),
            );
            assert_eq!(got, expect, "case {case}, thread {t}\n{text}");
        }
    }
}
