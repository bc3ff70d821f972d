//! The call graph of a module: which funcs call which.
//!
//! Node `i` of the graph is `FuncId` number `i` (every function of the
//! module is a node, in order); an edge `a → b` means `a` contains at least
//! one `call b` (parallel calls give one edge). The inliner walks it
//! bottom-up (callees before callers); a cycle is recursion, which Weft
//! rejects.

use crate::{walk, PassError};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::{BTreeSet, HashSet, VecDeque};
use weft_ir::{FuncId, InstKind, Module};

/// Builds the call graph (see the module docs for its shape).
pub fn call_graph(m: &Module) -> DiGraph<FuncId, ()> {
    let mut g = DiGraph::with_capacity(m.funcs.len(), 0);
    for id in m.funcs.keys() {
        g.add_node(id);
    }
    for (caller, f) in m.funcs.iter() {
        let mut callees = BTreeSet::new();
        walk::for_each_inst(f, f.body, &mut |inst| {
            if let InstKind::Call(callee, _) = f.insts[inst].kind {
                callees.insert(callee);
            }
        });
        for callee in callees {
            if m.funcs.get(callee).is_some() {
                g.add_edge(node(caller), node(callee), ());
            }
        }
    }
    g
}

fn node(f: FuncId) -> NodeIndex {
    NodeIndex::new(f.as_u32() as usize)
}

/// All functions ordered callees first, or [`PassError::Recursion`] naming
/// the functions of a call cycle.
pub fn bottom_up_order(m: &Module) -> Result<Vec<FuncId>, PassError> {
    let g = call_graph(m);
    if let Some(cycle) = find_cycle(&g) {
        return Err(PassError::Recursion {
            cycle: cycle.into_iter().map(|f| m.funcs[f].name.clone()).collect(),
        });
    }
    // Tarjan's SCCs come out in reverse topological order: for edges
    // caller → callee, callees first.
    Ok(petgraph::algo::tarjan_scc(&g)
        .into_iter()
        .flatten()
        .map(|n| g[n])
        .collect())
}

/// A call cycle if there is one: the funcs along it in call order, starting
/// from the lowest-numbered func of the cycle (`[f]` for a func that calls
/// itself).
pub fn find_cycle(g: &DiGraph<FuncId, ()>) -> Option<Vec<FuncId>> {
    let mut sccs = petgraph::algo::tarjan_scc(g);
    sccs.iter_mut().for_each(|s| s.sort());
    sccs.sort();
    for scc in sccs {
        let start = scc[0];
        if scc.len() == 1 {
            if g.contains_edge(start, start) {
                return Some(vec![g[start]]);
            }
            continue;
        }
        // BFS inside the SCC from `start` to a node with an edge back to it.
        let members: HashSet<NodeIndex> = scc.iter().copied().collect();
        let mut parent = vec![None; g.node_count()];
        let mut seen = HashSet::from([start]);
        let mut queue = VecDeque::from([start]);
        while let Some(n) = queue.pop_front() {
            let mut succs: Vec<NodeIndex> = g.edges(n).map(|e| e.target()).collect();
            succs.sort();
            if n != start && succs.contains(&start) {
                let mut path = vec![n];
                let mut cur = n;
                while let Some(p) = parent[cur.index()] {
                    path.push(p);
                    cur = p;
                }
                path.reverse();
                return Some(path.into_iter().map(|n| g[n]).collect());
            }
            for s in succs {
                if members.contains(&s) && seen.insert(s) {
                    parent[s.index()] = Some(n);
                    queue.push_back(s);
                }
            }
        }
    }
    None
}
