//! A kernel's control-flow graph: basic blocks split at labels and after
//! branches, their edges, dominators and natural loops. A graph that is not
//! reducible (a loop entered other than at its head) is refused here: the
//! divergence stack reconverges structured regions only.

use crate::ast::{Inst, Operand, Stmt};
use crate::diagnostic::{Pos, PtxError};
use std::collections::HashMap;

/// How a block ends.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// Falls through or jumps to one block.
    Jump(usize),
    /// `@[!]p bra target`: to `taken` where the predicate (negated when
    /// `not`) holds, else to `fall`.
    Branch {
        /// The predicate register.
        pred: String,
        /// Whether the guard is `@!p`.
        not: bool,
        /// Where the branch is.
        at: Pos,
        /// The target block.
        taken: usize,
        /// The next block.
        fall: usize,
    },
    /// `ret` or `exit`: the lanes are done.
    Return,
}

/// A basic block: statements `insts` (indices into the kernel's
/// instructions), then its terminator.
#[derive(Clone, Debug)]
pub struct Block {
    /// The instructions, without the terminator.
    pub insts: Vec<usize>,
    /// How it ends.
    pub term: Term,
}

impl Term {
    /// The predicate register a branch reads.
    pub fn pred(&self) -> Option<&str> {
        match self {
            Term::Branch { pred, .. } => Some(pred),
            _ => None,
        }
    }
}

impl Block {
    /// The blocks it may go to.
    pub fn succs(&self) -> Vec<usize> {
        match self.term {
            Term::Jump(t) => vec![t],
            Term::Branch { taken, fall, .. } if taken == fall => vec![taken],
            Term::Branch { taken, fall, .. } => vec![taken, fall],
            Term::Return => vec![],
        }
    }
}

/// A kernel's graph.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// The blocks; block 0 is the entry.
    pub blocks: Vec<Block>,
    /// Each block's predecessors.
    pub preds: Vec<Vec<usize>>,
    /// The blocks reachable from the entry, in reverse postorder.
    pub rpo: Vec<usize>,
    /// Each block's position in `rpo` (`usize::MAX` when unreachable).
    pub order: Vec<usize>,
    /// Each block's immediate dominator (the entry's is itself).
    pub idom: Vec<usize>,
    /// The natural loops, outermost first.
    pub loops: Vec<Loop>,
    /// Each block's innermost loop (index into `loops`), if any.
    pub loop_of: Vec<Option<usize>>,
}

/// A natural loop: a head and the blocks that reach a back edge to it
/// without passing the head.
#[derive(Clone, Debug)]
pub struct Loop {
    /// The head, which dominates every block of the loop.
    pub head: usize,
    /// Its blocks (the head included), as a membership vector.
    pub blocks: Vec<bool>,
    /// The loop around it.
    pub parent: Option<usize>,
}

impl Cfg {
    /// Whether `a` dominates `b`.
    pub fn dominates(&self, a: usize, mut b: usize) -> bool {
        loop {
            if a == b {
                return true;
            }
            let up = self.idom[b];
            if up == b {
                return false;
            }
            b = up;
        }
    }
}

/// The graph of `body`: `insts` are its instructions in order (`body`'s
/// instruction statements), labels name the block they start.
pub fn build(body: &[Stmt], insts: &[&Inst], entry_at: Pos) -> Result<Cfg, Vec<PtxError>> {
    // Split into blocks: a label starts one, a branch or return ends one.
    let mut starts: Vec<(usize, Option<String>)> = vec![(0, None)];
    let mut labels: HashMap<&str, usize> = HashMap::new();
    let mut k = 0;
    let mut errors = Vec::new();
    let mut pending_labels: Vec<(&str, Pos)> = Vec::new();
    for stmt in body {
        match stmt {
            Stmt::Label { name, at } => pending_labels.push((name, *at)),
            Stmt::Inst(_) => {
                if !pending_labels.is_empty() {
                    if starts.last().is_some_and(|s| s.0 != k) {
                        starts.push((k, None));
                    }
                    let block = starts.len() - 1;
                    for (name, at) in pending_labels.drain(..) {
                        if labels.insert(name, block).is_some() {
                            errors.push(PtxError::new(
                                at,
                                name.len() as u32,
                                format!("label `{name}` is defined twice"),
                            ));
                        }
                    }
                }
                let inst = insts[k];
                k += 1;
                if matches!(inst.op.as_str(), "bra" | "ret" | "exit") && k < insts.len() {
                    starts.push((k, None));
                }
            }
        }
    }
    // Labels at the very end start an empty block that returns.
    let trailing = !pending_labels.is_empty();
    if trailing {
        starts.push((k, None));
        let block = starts.len() - 1;
        for (name, _) in pending_labels.drain(..) {
            labels.insert(name, block);
        }
    }
    let n = starts.len();
    // A guarded `ret` branches to a block of its own that returns.
    let guarded_ret = insts
        .iter()
        .any(|i| matches!(i.op.as_str(), "ret" | "exit") && i.guard.is_some());
    let ret_block = n;
    let mut blocks = Vec::with_capacity(n + 1);
    for b in 0..n {
        let from = starts[b].0;
        let to = starts.get(b + 1).map_or(insts.len(), |s| s.0);
        let mut body: Vec<usize> = (from..to).collect();
        let next = if b + 1 < n { Some(b + 1) } else { None };
        let last = body.last().map(|&i| insts[i]);
        let target = |inst: &Inst| -> Result<usize, PtxError> {
            match inst.args.first() {
                Some(Operand::Sym(name, at)) => {
                    labels.get(name.as_str()).copied().ok_or_else(|| {
                        PtxError::new(
                            *at,
                            name.len() as u32,
                            format!("no label `{name}` in this kernel"),
                        )
                    })
                }
                _ => Err(PtxError::new(inst.at, inst.len, "`bra` takes one label")),
            }
        };
        let term = match last {
            Some(inst) if inst.op == "bra" => {
                body.pop();
                match target(inst) {
                    Ok(t) => {
                        match &inst.guard {
                            None => Term::Jump(t),
                            Some((not, pred, at)) => match next {
                                Some(f) => Term::Branch {
                                    pred: pred.clone(),
                                    not: *not,
                                    at: *at,
                                    taken: t,
                                    fall: f,
                                },
                                None => {
                                    errors.push(PtxError::new(inst.at, inst.len, "a conditional branch at the end of a kernel falls off its end"));
                                    Term::Return
                                }
                            },
                        }
                    }
                    Err(e) => {
                        errors.push(e);
                        Term::Return
                    }
                }
            }
            Some(inst) if inst.op == "ret" || inst.op == "exit" => {
                body.pop();
                match (&inst.guard, next) {
                    (Some((not, pred, at)), Some(f)) => Term::Branch {
                        pred: pred.clone(),
                        not: *not,
                        at: *at,
                        taken: ret_block,
                        fall: f,
                    },
                    _ => Term::Return,
                }
            }
            _ => match next {
                Some(f) => Term::Jump(f),
                None => Term::Return,
            },
        };
        blocks.push(Block { insts: body, term });
    }
    if guarded_ret {
        blocks.push(Block {
            insts: Vec::new(),
            term: Term::Return,
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    analyse(blocks, entry_at)
}

/// Predecessors, order, dominators and loops of `blocks`.
pub fn analyse(blocks: Vec<Block>, entry_at: Pos) -> Result<Cfg, Vec<PtxError>> {
    let n = blocks.len();
    let mut preds = vec![Vec::new(); n];
    for (b, block) in blocks.iter().enumerate() {
        for s in block.succs() {
            preds[s].push(b);
        }
    }
    // Reverse postorder, iteratively.
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    seen[0] = true;
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        let succs = blocks[b].succs();
        if *next < succs.len() {
            let s = succs[*next];
            *next += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    let rpo: Vec<usize> = post.into_iter().rev().collect();
    let mut order = vec![usize::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        order[b] = i;
    }
    // Dominators (Cooper, Harvey and Kennedy).
    let mut idom = vec![usize::MAX; n];
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new = usize::MAX;
            for &p in &preds[b] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    intersect(&idom, &order, p, new)
                };
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    // Loops: a back edge goes to a block that dominates its source; any
    // other edge to an earlier block in reverse postorder enters a cycle
    // other than at its head.
    let mut cfg = Cfg {
        blocks,
        preds,
        rpo,
        order,
        idom,
        loops: Vec::new(),
        loop_of: vec![None; n],
    };
    let mut heads: Vec<(usize, Vec<usize>)> = Vec::new();
    for &b in &cfg.rpo {
        for s in cfg.blocks[b].succs() {
            if cfg.order[s] <= cfg.order[b] {
                if !cfg.dominates(s, b) {
                    return Err(vec![PtxError::new(
                        entry_at,
                        1,
                        "this kernel's control flow is irreducible: a loop is entered other than at its head",
                    )
                    .help("simt reconverges structured control flow; compile without the construct that jumps into a loop (a `goto` into one)")]);
                }
                match heads.iter_mut().find(|h| h.0 == s) {
                    Some(h) => h.1.push(b),
                    None => heads.push((s, vec![b])),
                }
            }
        }
    }
    let mut loops: Vec<Loop> = heads
        .into_iter()
        .map(|(head, latches)| {
            let mut blocks = vec![false; n];
            blocks[head] = true;
            let mut work = latches;
            while let Some(b) = work.pop() {
                if !blocks[b] {
                    blocks[b] = true;
                    work.extend(
                        cfg.preds[b]
                            .iter()
                            .copied()
                            .filter(|&p| cfg.order[p] != usize::MAX),
                    );
                }
            }
            Loop {
                head,
                blocks,
                parent: None,
            }
        })
        .collect();
    // Outermost first: by size, larger first.
    loops.sort_by_key(|l| std::cmp::Reverse(l.blocks.iter().filter(|&&x| x).count()));
    for i in 0..loops.len() {
        let parent = (0..i).rev().find(|&j| loops[j].blocks[loops[i].head]);
        loops[i].parent = parent;
    }
    for (i, l) in loops.iter().enumerate() {
        for b in 0..n {
            if l.blocks[b] {
                cfg.loop_of[b] = Some(i);
            }
        }
    }
    cfg.loops = loops;
    Ok(cfg)
}

fn intersect(idom: &[usize], order: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while order[a] > order[b] {
            a = idom[a];
        }
        while order[b] > order[a] {
            b = idom[b];
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[&[usize]]) -> Result<Cfg, Vec<PtxError>> {
        let blocks = edges
            .iter()
            .map(|s| Block {
                insts: vec![],
                term: match s {
                    [] => Term::Return,
                    [t] => Term::Jump(*t),
                    [t, f] => Term::Branch {
                        pred: "p".into(),
                        not: false,
                        at: Pos::default(),
                        taken: *t,
                        fall: *f,
                    },
                    _ => unreachable!(),
                },
            })
            .collect();
        analyse(blocks, Pos::default())
    }

    #[test]
    fn nested_loops_are_found_outermost_first() {
        // 0 -> 1 -> 2 -> 2 (inner) -> 3 -> 1 (outer) -> 4
        let cfg = graph(&[&[1], &[2], &[2, 3], &[1, 4], &[]]).unwrap();
        assert_eq!(cfg.loops.len(), 2);
        assert_eq!(cfg.loops[0].head, 1);
        assert_eq!(cfg.loops[1].head, 2);
        assert_eq!(cfg.loops[1].parent, Some(0));
        assert_eq!(cfg.loop_of[3], Some(0));
        assert_eq!(cfg.loop_of[2], Some(1));
        assert!(cfg.dominates(1, 4));
    }

    #[test]
    fn a_jump_into_a_loop_is_irreducible() {
        // 0 branches to 1 or 2; 1 and 2 jump to each other.
        let e = graph(&[&[1, 2], &[2], &[1, 3], &[]]).unwrap_err();
        assert!(e[0].message.contains("irreducible"), "{}", e[0].message);
    }
}
