//! The control-flow graph of a program and each branch's reconvergence PC: its immediate
//! post-dominator (IPDOM), computed on the instruction-level CFG with one virtual exit node
//! that every `exit` leads to. Nodes that cannot reach the exit (an endless loop) get an edge
//! to the virtual exit, so every node has an IPDOM. A branch whose IPDOM is the virtual exit
//! gets the program length as its reconvergence PC: no instruction has that PC, so its paths
//! end by `exit`.

use warpforge_contract::isa::{Instr, Op};

/// Successors of every instruction; node `code.len()` is the virtual exit. A fall-through
/// past the last instruction also leads to the virtual exit (the assembler rejects programs
/// where that can happen, see [`falls_off_end`]).
pub fn successors(code: &[Instr]) -> Vec<Vec<usize>> {
    let n = code.len();
    let mut succ = Vec::with_capacity(n + 1);
    for (pc, ins) in code.iter().enumerate() {
        let next = (pc + 1).min(n);
        let guarded = ins.guard.is_some();
        let s = match ins.op {
            Op::Bra if guarded => vec![ins.target() as usize, next],
            Op::Bra => vec![ins.target() as usize],
            Op::Exit if guarded => vec![n, next],
            Op::Exit => vec![n],
            _ => vec![next],
        };
        let mut s: Vec<usize> = s.into_iter().map(|t| t.min(n)).collect();
        s.dedup();
        succ.push(s);
    }
    succ.push(Vec::new());
    succ
}

/// The first instruction after which execution can run past the end of the program.
pub fn falls_off_end(code: &[Instr]) -> Option<usize> {
    let last = code.len().checked_sub(1)?;
    let ins = &code[last];
    let ends = matches!(ins.op, Op::Bra | Op::Exit) && ins.guard.is_none();
    if ends {
        None
    } else {
        Some(last)
    }
}

/// Immediate post-dominators of a graph given by its successor lists, with `exit` the single
/// exit node. Result\[exit\] = exit. Nodes that cannot reach `exit` are treated as if they
/// had an extra edge to it.
pub fn ipdom(succ: &[Vec<usize>], exit: usize) -> Vec<usize> {
    let n = succ.len();
    // Predecessors: the successors of the reverse graph.
    let mut pred = vec![Vec::new(); n];
    for (v, ss) in succ.iter().enumerate() {
        for &s in ss {
            pred[s].push(v);
        }
    }
    let mut extra_exit_edge = vec![false; n];
    let mut order = reverse_postorder(&pred, exit);
    // Nodes that cannot reach the exit: link them (all of them) to the exit, then redo.
    let mut reached = vec![false; n];
    for &v in &order {
        reached[v] = true;
    }
    if reached.iter().any(|r| !r) {
        for v in 0..n {
            if !reached[v] {
                extra_exit_edge[v] = true;
                pred[exit].push(v);
            }
        }
        order = reverse_postorder(&pred, exit);
    }
    // Postorder number of each node (exit has the highest).
    let mut po = vec![0usize; n];
    for (i, &v) in order.iter().enumerate() {
        po[v] = n - 1 - i;
    }
    const UNDEF: usize = usize::MAX;
    let mut idom = vec![UNDEF; n];
    idom[exit] = exit;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while po[a] < po[b] {
                a = idom[a];
            }
            while po[b] < po[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().skip(1) {
            let mut new = UNDEF;
            let extra = if extra_exit_edge[v] { Some(exit) } else { None };
            for s in succ[v].iter().copied().chain(extra) {
                if idom[s] == UNDEF {
                    continue;
                }
                new = if new == UNDEF {
                    s
                } else {
                    intersect(&idom, s, new)
                };
            }
            if new != UNDEF && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Reverse postorder of a depth-first walk from `root` along `edges` (iterative).
fn reverse_postorder(edges: &[Vec<usize>], root: usize) -> Vec<usize> {
    let n = edges.len();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack = vec![(root, 0usize)];
    seen[root] = true;
    while let Some(&mut (v, ref mut i)) = stack.last_mut() {
        if let Some(&w) = edges[v].get(*i) {
            *i += 1;
            if !seen[w] {
                seen[w] = true;
                stack.push((w, 0));
            }
        } else {
            post.push(v);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// The reconvergence PC of every instruction: its IPDOM, with the virtual exit as
/// `code.len()`.
pub fn reconvergence_pcs(code: &[Instr]) -> Vec<u32> {
    let succ = successors(code);
    let d = ipdom(&succ, code.len());
    d[..code.len()].iter().map(|&x| x as u32).collect()
}

/// Fills in the reconvergence PC of every branch.
pub fn set_branch_rpcs(code: &mut [Instr]) {
    let rpcs = reconvergence_pcs(code);
    for (ins, rpc) in code.iter_mut().zip(rpcs) {
        if ins.op == Op::Bra {
            ins.imm = Instr::branch_imm(ins.target(), rpc);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(edges: &[&[usize]]) -> Vec<Vec<usize>> {
        edges.iter().map(|e| e.to_vec()).collect()
    }

    #[test]
    fn if_else_diamond() {
        // 0 → {1, 2}; 1 → 3; 2 → 3; 3 → 4 (exit)
        let s = g(&[&[1, 2], &[3], &[3], &[4], &[]]);
        let d = ipdom(&s, 4);
        assert_eq!(d, vec![3, 3, 3, 4, 4]);
    }

    #[test]
    fn nested_if_inside_then() {
        // 0 → {1, 5}; 1 → {2, 3}; 2 → 4; 3 → 4; 4 → 5; 5 → 6(exit)
        let s = g(&[&[1, 5], &[2, 3], &[4], &[4], &[5], &[6], &[]]);
        let d = ipdom(&s, 6);
        assert_eq!(d[0], 5, "outer branch reconverges after the outer if");
        assert_eq!(d[1], 4, "inner branch reconverges at the inner join");
        assert_eq!(d[4], 5);
    }

    #[test]
    fn loop_with_break() {
        // 0: loop head → 1; 1: @p break → {4, 2}; 2 → 3; 3: @q continue → {0, 4}; 4 → 5(exit)
        let s = g(&[&[1], &[4, 2], &[3], &[0, 4], &[5], &[]]);
        let d = ipdom(&s, 5);
        assert_eq!(d[1], 4, "the break reconverges at the loop exit");
        assert_eq!(d[3], 4, "the back edge reconverges at the loop exit");
        assert_eq!(d[0], 1);
    }

    #[test]
    fn multiple_exits_reconverge_at_virtual_exit() {
        // 0 → {1, 2}; 1: exit; 2: exit. The branch's IPDOM is the virtual exit 3.
        let s = g(&[&[1, 2], &[3], &[3], &[]]);
        assert_eq!(ipdom(&s, 3), vec![3, 3, 3, 3]);
        // Early exit: 0 → {3 (exit path), 1}; 1 → 2; 2 → 4(exit); 3 → 4.
        let s = g(&[&[3, 1], &[2], &[4], &[4], &[]]);
        assert_eq!(ipdom(&s, 4)[0], 4);
    }

    #[test]
    fn endless_loop_gets_the_virtual_exit() {
        // 0 → {1, 3}; 1 → 2; 2 → 1 (never exits); 3 → 4 (exit)
        let s = g(&[&[1, 3], &[2], &[1], &[4], &[]]);
        let d = ipdom(&s, 4);
        assert_eq!(d[0], 4);
        assert!(d.iter().all(|&x| x < 5));
    }

    #[test]
    fn program_level_rpcs() {
        use warpforge_contract::isa::Guard;
        // 0: @p0 bra 3; 1: nop; 2: bra 4; 3: nop; 4: exit
        let mut bra = Instr::new(Op::Bra);
        bra.guard = Some(Guard {
            pred: 0,
            negate: false,
        });
        bra.imm = 3;
        let mut jmp = Instr::new(Op::Bra);
        jmp.imm = 4;
        let mut code = vec![
            bra,
            Instr::new(Op::Nop),
            jmp,
            Instr::new(Op::Nop),
            Instr::new(Op::Exit),
        ];
        set_branch_rpcs(&mut code);
        assert_eq!((code[0].target(), code[0].rpc()), (3, 4));
        assert_eq!((code[2].target(), code[2].rpc()), (4, 4));
        assert_eq!(falls_off_end(&code), None);
        code.pop();
        assert_eq!(falls_off_end(&code), Some(3));
    }
}
