//! Compile units: the kernels of a module split into parts that LLVM
//! compiles independently, each in its own context, in parallel (rayon).
//!
//! The split depends only on the module (never on the machine's thread
//! count), so the output is the same everywhere: a module whose kernels
//! weigh (IR instructions of the kernel and of the funcs it reaches) less
//! than [`PART_WEIGHT`] is one part, compiled exactly as a whole module;
//! a larger one gets one part per [`PART_WEIGHT`], at most [`MAX_PARTS`],
//! kernels dealt heaviest first to the lightest part. A func called from
//! kernels of several parts is compiled in each of them.

use rayon::prelude::*;
use std::collections::HashMap;
use weft_ir::{FuncId, Module};

/// The weight (IR instructions) a part is sized for.
pub const PART_WEIGHT: usize = 4000;

/// The most parts of a module.
pub const MAX_PARTS: usize = 16;

/// The kernels of `m` in parts, each in definition order; one part for a
/// module without kernels.
pub(crate) fn split(m: &Module) -> Vec<Vec<FuncId>> {
    let kernels: Vec<(FuncId, usize)> = m
        .kernels()
        .map(|(id, _)| {
            let w = m
                .reachable_from([id])
                .iter()
                .map(|&f| m.funcs[f].insts.len())
                .sum();
            (id, w)
        })
        .collect();
    let total: usize = kernels.iter().map(|k| k.1).sum();
    let n = total
        .div_ceil(PART_WEIGHT)
        .clamp(1, MAX_PARTS)
        .min(kernels.len().max(1));
    if n == 1 {
        return vec![kernels.iter().map(|k| k.0).collect()];
    }
    let mut order: Vec<usize> = (0..kernels.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(kernels[i].1), i));
    let mut load = vec![0usize; n];
    let mut part_of = vec![0usize; kernels.len()];
    for i in order {
        let p = (0..n).min_by_key(|&p| (load[p], p)).unwrap_or(0);
        load[p] += kernels[i].1;
        part_of[i] = p;
    }
    let mut parts = vec![Vec::new(); n];
    for (i, k) in kernels.iter().enumerate() {
        parts[part_of[i]].push(k.0);
    }
    parts
}

/// `f(index, kernels)` for every part, in parallel; the results in part
/// order, or the first part's error.
pub(crate) fn each<T: Send, E: Send>(
    parts: &[Vec<FuncId>],
    f: impl Fn(usize, &[FuncId]) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E> {
    parts.par_iter().enumerate().map(|(i, p)| f(i, p)).collect()
}

/// Joins the PTX of a module's parts into one module's: part 0 as it is
/// (header and all), then the body of each later part, whose local
/// symbols already carry a suffix of their own (`nvptx::build`). What
/// the parts share is written once: the header, the trap record
/// ([`crate::TRAP_GLOBAL`]; a later part's definition is dropped) and the
/// line-info file table (`.file`), renumbered across the parts (with
/// every `.loc` and `inlined_at` that refers to it) and written at the
/// end. One part is returned unchanged.
pub(crate) fn merge_ptx(mut texts: Vec<String>) -> String {
    if texts.len() == 1 {
        return texts.pop().unwrap_or_default();
    }
    let mut files: Vec<String> = Vec::new();
    let mut out = String::with_capacity(texts.iter().map(String::len).sum());
    for (p, text) in texts.iter().enumerate() {
        let mut map = HashMap::new();
        for (n, path) in text.lines().filter_map(file_directive) {
            let k = match files.iter().position(|f| f == path) {
                Some(k) => k,
                None => {
                    files.push(path.to_string());
                    files.len() - 1
                }
            };
            map.insert(n, k + 1);
        }
        let mut header = true;
        for line in text.lines() {
            if header {
                if p == 0 {
                    out.push_str(line);
                    out.push('\n');
                }
                header = !line.trim_start().starts_with(".address_size");
                continue;
            }
            if file_directive(line).is_some() || (p > 0 && is_trap_record(line)) {
                continue;
            }
            match renumber_loc(line, &map) {
                Some(l) => out.push_str(&l),
                None => out.push_str(line),
            }
            out.push('\n');
        }
    }
    for (i, f) in files.iter().enumerate() {
        out.push_str(&format!("\t.file\t{} {f}\n", i + 1));
    }
    out
}

/// `.file N "path"...`: `(N, "path"...)`.
fn file_directive(line: &str) -> Option<(u32, &str)> {
    let rest = line.trim_start().strip_prefix(".file")?;
    let rest = rest.trim_start();
    let (n, path) = rest.split_once(char::is_whitespace)?;
    Some((n.parse().ok()?, path.trim()))
}

/// The trap record's definition (`.visible .global ... __weft_trap[40];`).
fn is_trap_record(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with(".visible .global") && t.contains(&format!(" {}[", crate::TRAP_GLOBAL))
}

/// A `.loc F ...` line with its file numbers (`F` and `inlined_at F`)
/// mapped through `map`; `None` for any other line.
fn renumber_loc(line: &str, map: &HashMap<u32, usize>) -> Option<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let rest = line.trim_start().strip_prefix(".loc")?;
    let sep = &rest[..rest.len() - rest.trim_start().len()];
    let rest = rest.trim_start();
    let (n, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    let file = |n: &str| {
        n.parse::<u32>()
            .ok()
            .and_then(|n| map.get(&n))
            .map_or(n.to_string(), |k| k.to_string())
    };
    let tail = match tail.split_once("inlined_at ") {
        Some((a, b)) => {
            let (m, b) = b.split_once(' ').unwrap_or((b, ""));
            format!("{a}inlined_at {} {b}", file(m))
        }
        None => tail.to_string(),
    };
    Some(
        format!("{indent}.loc{sep}{} {tail}", file(n))
            .trim_end()
            .to_string(),
    )
}
