//! Unstructured branches to simt's structured control flow.
//!
//! A region (the kernel, or one loop's body) is a graph without cycles once
//! each loop inside it counts as one unit. Its units are laid out in
//! reverse postorder, which is a topological order of that graph, and each
//! runs under a mask of the lanes that reach it:
//!
//! - a unit every path of the region passes through (it post-dominates the
//!   region's head) runs with the region's lanes, with no mask and no `if`;
//! - any other unit runs inside `if reach`, where `reach` gathers, from
//!   each edge into the unit, the lanes that took it (a branch's predicate,
//!   and the mask of the unit it leaves);
//! - a loop is `loop` ... `endloop next`, where `next` gathers the lanes
//!   that took a back edge in this iteration; lanes that leave are those
//!   whose bit is clear, and each exit target that is not the only one
//!   gathers its own mask over the iterations.
//!
//! So every block runs once per visit with exactly the lanes that reach it,
//! and lanes reconverge where their paths meet, as at each branch's
//! immediate post-dominator on the hardware. For the if-then, if-else and
//! loop shapes compilers write, no mask work is added beyond a complement
//! for a branch that skips ahead (`@p bra` over the then-block runs it under
//! `!p`). A branch whose paths meet only inside a later block still runs
//! each block once with all its lanes, where a SIMT stack might run the
//! shared block once per path: the counters then show fewer, fuller issues.

use crate::cfg::{Cfg, Term};
use crate::diagnostic::Pos;
use crate::lower::{Code, Kern};
use simt_lang::{CmpOp, CmpType, Inst as S, InstIdx, MReg, MaskOp, Operand};
use std::collections::HashMap;

/// What a region's units are: blocks, or whole loops inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Block(usize),
    Loop(usize),
}

/// Where an edge goes, from a region's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dest {
    /// A unit of the region.
    Unit(usize),
    /// Back to the region's head (a loop's next iteration).
    Back,
    /// A block outside the region.
    Exit(usize),
    /// The kernel's end (`ret`).
    Done,
}

/// How a target's mask is being gathered.
#[derive(Clone, Copy, Debug)]
struct Gather {
    reg: MReg,
    /// Whether a contribution was written yet (the first is a copy).
    written: bool,
    /// Whether it accumulates over iterations (an exit mask, cleared before
    /// its loop and only ever or-ed, from masks cut to the iteration's lanes).
    accumulates: bool,
}

/// An edge leaving a unit as the graph has it: the block it enters (none
/// for `ret`), its condition, where its branch is.
type OutEdge = (Option<usize>, Option<(MReg, bool)>, Pos);

/// An edge leaving a unit: where to, the block it enters (none for `ret`),
/// its condition, where its branch is.
#[derive(Clone, Copy, Debug)]
struct Edge {
    dest: Dest,
    target: Option<usize>,
    cond: Option<(MReg, bool)>,
    at: Pos,
}

pub(crate) struct Structurer<'k, 'a> {
    pub k: &'k mut Kern<'a>,
    pub cfg: &'k Cfg,
    /// Each block's selected code.
    pub blocks: Vec<Vec<Code>>,
    /// Each block's branch predicate register.
    pub preds: HashMap<usize, MReg>,
    /// Where each loop's code spans in the output (for the register
    /// allocator's liveness).
    pub loop_span: Vec<(usize, usize)>,
    /// PTX predicate registers with one definition (their mask may stand
    /// for a reach mask without a copy).
    pub single_def: HashMap<MReg, bool>,
}

impl<'k, 'a> Structurer<'k, 'a> {
    /// The kernel's code, structured.
    /// The kernel's code, structured, and where each loop's code spans.
    pub fn run(mut self, entry_at: Pos) -> (Vec<Code>, Vec<(usize, usize)>) {
        let mut out = Vec::new();
        let n = self.cfg.blocks.len();
        self.loop_span = vec![(usize::MAX, 0); self.cfg.loops.len()];
        let members: Vec<bool> = (0..n).map(|b| self.cfg.order[b] != usize::MAX).collect();
        self.region(None, 0, &members, &HashMap::new(), &mut out, entry_at);
        (out, self.loop_span)
    }

    fn emit(&self, out: &mut Vec<Code>, at: Pos, inst: S) {
        out.push(Code {
            inst,
            at,
            loc: self.k.loc_of(at),
        });
    }

    /// The unit of `region` (`None` for the kernel) that block `b` belongs to.
    fn unit_of(&self, region: Option<usize>, b: usize) -> Unit {
        let mut l = self.cfg.loop_of[b];
        let mut unit = Unit::Block(b);
        while let Some(x) = l {
            if Some(x) == region {
                break;
            }
            unit = Unit::Loop(x);
            l = self.cfg.loops[x].parent;
        }
        unit
    }

    fn head_of(&self, u: Unit) -> usize {
        match u {
            Unit::Block(b) => b,
            Unit::Loop(l) => self.cfg.loops[l].head,
        }
    }

    /// The edges leaving unit `u`: (destination block, condition, where).
    fn out_edges(&self, u: Unit) -> Vec<OutEdge> {
        match u {
            Unit::Block(b) => {
                let at = self.blocks[b].last().map_or(Pos::default(), |c| c.at);
                match &self.cfg.blocks[b].term {
                    Term::Jump(t) => vec![(Some(*t), None, at)],
                    Term::Return => vec![(None, None, at)],
                    Term::Branch {
                        not,
                        at,
                        taken,
                        fall,
                        ..
                    } => {
                        let p = self.preds[&b];
                        if taken == fall {
                            vec![(Some(*taken), None, *at)]
                        } else {
                            vec![
                                (Some(*taken), Some((p, *not)), *at),
                                (Some(*fall), Some((p, !*not)), *at),
                            ]
                        }
                    }
                }
            }
            Unit::Loop(l) => {
                // Every edge leaving the loop; the caller gives it the loop's mask.
                let lp = &self.cfg.loops[l];
                let mut outs = Vec::new();
                for (b, &inside) in lp.blocks.iter().enumerate() {
                    if !inside {
                        continue;
                    }
                    for s in self.cfg.blocks[b].succs() {
                        if !lp.blocks[s]
                            && !outs.iter().any(|o: &(Option<usize>, _, _)| o.0 == Some(s))
                        {
                            outs.push((Some(s), None, Pos::default()));
                        }
                    }
                    if self.cfg.blocks[b].term == Term::Return
                        && !outs.iter().any(|o| o.0.is_none())
                    {
                        outs.push((None, None, Pos::default()));
                    }
                }
                outs
            }
        }
    }

    /// Lays out the region of loop `region` (the kernel when `None`) whose
    /// head is block `head` and whose blocks are `members`. `exits` gives,
    /// for each block outside the region that edges lead to, the mask that
    /// gathers the lanes leaving for it (none when a loop has one way out).
    /// Returns a loop's next-iteration mask.
    fn region(
        &mut self,
        region: Option<usize>,
        head: usize,
        members: &[bool],
        exits: &HashMap<usize, MReg>,
        out: &mut Vec<Code>,
        entry_at: Pos,
    ) -> Option<MReg> {
        let (units, edges) = self.units(region, head, members);
        let n = units.len();
        let (mut gathers, next_direct) = self.gathers(region.is_some(), &units, &edges, exits);
        // The iteration's lanes as a mask, to cut exit masks to them.
        let iter_mask = if region.is_some() && !exits.is_empty() {
            let m = self.cleared(out, entry_at);
            self.emit(
                out,
                entry_at,
                S::VCmp {
                    op: CmpOp::Eq,
                    ty: CmpType::U32,
                    dst: m,
                    a: Operand::Imm(0),
                    b: Operand::Imm(0),
                },
            );
            Some(m)
        } else {
            None
        };
        // The last unit's `if`: where it opened, where its `endif` is, its mask.
        let mut last_if: Option<(usize, usize, MReg)> = None;
        for u in 0..n {
            let source = gathers.get(&Dest::Unit(u)).map(|g| g.reg);
            let at = self.first_at(units[u]).unwrap_or(entry_at);
            // A loop with more than one way out (returns count) gathers a
            // mask per target; its exits' masks are cleared before it.
            let mut unit_exits: HashMap<usize, MReg> = HashMap::new();
            if let Unit::Loop(_) = units[u] {
                let targets: Vec<usize> = edges[u].iter().filter_map(|e| e.target).collect();
                let returns = edges[u].iter().any(|e| e.dest == Dest::Done);
                if targets.len() + usize::from(returns) > 1 {
                    for &t in &targets {
                        let m = self.cleared(out, at);
                        unit_exits.insert(t, m);
                    }
                }
            }
            // Where this unit's `if` opened.
            let mut opened = out.len();
            if let Some(r) = source {
                // Consecutive units under one mask share its `if` (the mask
                // is read once, and nothing between writes it): a loop's
                // preheader and the loop then set the loop's registers in
                // one construct. Across an `endif`, a register the
                // allocator also gave a per-lane value reads as per-lane to
                // the validator, and a barrier in the loop as divergent.
                let reopen = matches!(last_if, Some((i, e, m))
                    if m == r && e + 1 == out.len() && !writes_mask(&out[i + 1..e], r));
                if let (true, Some((i, _, _))) = (reopen, last_if) {
                    out.pop();
                    opened = i;
                } else {
                    self.emit(
                        out,
                        at,
                        S::If {
                            mask: r,
                            next: InstIdx::UNLINKED,
                        },
                    );
                }
            }
            match units[u] {
                Unit::Block(b) => out.extend(self.blocks[b].iter().copied()),
                Unit::Loop(l) => self.lay_loop(l, &unit_exits, out, at),
            }
            if let Some(r) = source {
                self.emit(out, at, S::EndIf);
                last_if = Some((opened, out.len() - 1, r));
            }
            // Each edge's lanes into its target's mask.
            for e in edges[u].clone() {
                if e.dest == Dest::Done || (e.dest == Dest::Back && next_direct.is_some()) {
                    continue;
                }
                let Some(g) = gathers.get(&e.dest).copied() else {
                    continue;
                };
                let mut src = match (units[u], e.target) {
                    (Unit::Loop(_), Some(t)) if !unit_exits.is_empty() => Some(unit_exits[&t]),
                    _ => source,
                };
                if g.accumulates {
                    let it = iter_mask.expect("a loop gathering exit masks has its iteration mask");
                    src = Some(match src {
                        None => it,
                        Some(s) => {
                            let m = self.k.new_m();
                            self.emit(
                                out,
                                e.at,
                                S::MaskBinary {
                                    op: MaskOp::And,
                                    dst: m,
                                    a: s,
                                    b: it,
                                },
                            );
                            m
                        }
                    });
                }
                let g = self.gather(out, g, src, e.cond, e.at);
                gathers.insert(e.dest, g);
            }
        }
        region?;
        if let Some((p, not, at)) = next_direct {
            return Some(if not { self.k.not_mask(p, at, out) } else { p });
        }
        gathers
            .get(&Dest::Back)
            .filter(|g| g.written)
            .map(|g| g.reg)
    }

    /// The masks a region gathers lanes into (of `units`, with `edges`, a
    /// loop's when `looping`): one per unit some path skips, the loop's
    /// `exits`, and the next-iteration mask, unless the loop's one back
    /// edge's condition is read directly (returned apart).
    fn gathers(
        &mut self,
        looping: bool,
        units: &[Unit],
        edges: &[Vec<Edge>],
        exits: &HashMap<usize, MReg>,
    ) -> (HashMap<Dest, Gather>, Option<DirectNext>) {
        let unguarded = unguarded(edges);
        let mut gathers: HashMap<Dest, Gather> = HashMap::new();
        for (u, &g) in unguarded.iter().enumerate() {
            if !g {
                let reg = self.k.new_m();
                gathers.insert(
                    Dest::Unit(u),
                    Gather {
                        reg,
                        written: false,
                        accumulates: false,
                    },
                );
            }
        }
        for (&t, &reg) in exits {
            gathers.insert(
                Dest::Exit(t),
                Gather {
                    reg,
                    written: true,
                    accumulates: true,
                },
            );
        }
        // The next-iteration mask: the one back edge's condition when it
        // leaves a block every lane of the iteration runs.
        let backs: Vec<(usize, Edge)> = edges
            .iter()
            .enumerate()
            .flat_map(|(u, es)| {
                es.iter()
                    .filter(|e| e.dest == Dest::Back)
                    .map(move |e| (u, *e))
            })
            .collect();
        let mut next_direct: Option<DirectNext> = None;
        if looping {
            match backs.as_slice() {
                [(
                    u,
                    Edge {
                        cond: Some((p, not)),
                        at,
                        ..
                    },
                )] if unguarded[*u] && matches!(units[*u], Unit::Block(_)) => {
                    next_direct = Some((*p, *not, *at));
                }
                _ => {
                    let reg = self.k.new_m();
                    gathers.insert(
                        Dest::Back,
                        Gather {
                            reg,
                            written: false,
                            accumulates: false,
                        },
                    );
                }
            }
        }
        (gathers, next_direct)
    }

    /// The units of loop `region`'s region (the kernel's when `None`) with
    /// head `head` and blocks `members`, in reverse postorder of their
    /// heads, and each unit's edges.
    fn units(
        &self,
        region: Option<usize>,
        head: usize,
        members: &[bool],
    ) -> (Vec<Unit>, Vec<Vec<Edge>>) {
        let mut units: Vec<Unit> = Vec::new();
        for &b in &self.cfg.rpo {
            if members[b] {
                let u = self.unit_of(region, b);
                if self.head_of(u) == b {
                    units.push(u);
                }
            }
        }
        let index: HashMap<Unit, usize> = units.iter().enumerate().map(|(i, &u)| (u, i)).collect();
        let edges: Vec<Vec<Edge>> = units
            .iter()
            .map(|&u| {
                self.out_edges(u)
                    .into_iter()
                    .map(|(target, cond, at)| Edge {
                        dest: match target {
                            None => Dest::Done,
                            Some(t) if region.is_some() && t == head => Dest::Back,
                            Some(t) if members[t] => Dest::Unit(index[&self.unit_of(region, t)]),
                            Some(t) => Dest::Exit(t),
                        },
                        target,
                        cond,
                        at,
                    })
                    .collect()
            })
            .collect();
        (units, edges)
    }

    /// A new mask register cleared (no lane) at `at`.
    fn cleared(&mut self, out: &mut Vec<Code>, at: Pos) -> MReg {
        let m = self.k.new_m();
        self.emit(
            out,
            at,
            S::SCmp {
                op: CmpOp::Ne,
                ty: CmpType::U32,
                dst: m,
                a: Operand::Imm(0),
                b: Operand::Imm(0),
            },
        );
        m
    }

    /// Lays out loop `l` as a `loop` ... `endloop` construct at `at`, its
    /// exits gathered into `exits`.
    fn lay_loop(&mut self, l: usize, exits: &HashMap<usize, MReg>, out: &mut Vec<Code>, at: Pos) {
        let lp_head = self.cfg.loops[l].head;
        let lp_members = self.cfg.loops[l].blocks.clone();
        let start = out.len();
        self.emit(
            out,
            at,
            S::Loop {
                end: InstIdx::UNLINKED,
            },
        );
        let next = self.region(Some(l), lp_head, &lp_members, exits, out, at);
        let next = next.unwrap_or_else(|| {
            // No lane takes a back edge: one iteration.
            self.cleared(out, at)
        });
        self.emit(
            out,
            at,
            S::EndLoop {
                mask: next,
                start: InstIdx::UNLINKED,
            },
        );
        self.loop_span[l] = (start, out.len());
    }

    /// Writes the lanes of source mask `src` (all the region's when `None`)
    /// where `cond` holds into `g`: a copy the first time (the predicate
    /// itself, where nothing writes it again), an `or` after.
    fn gather(
        &mut self,
        out: &mut Vec<Code>,
        mut g: Gather,
        src: Option<MReg>,
        cond: Option<(MReg, bool)>,
        at: Pos,
    ) -> Gather {
        let first = !g.written && !g.accumulates;
        g.written = true;
        let into = |this: &mut Self| if first { g.reg } else { this.k.new_m() };
        let lanes: MReg = match (src, cond) {
            (None, None) => {
                let m = into(self);
                self.emit(
                    out,
                    at,
                    S::SCmp {
                        op: CmpOp::Eq,
                        ty: CmpType::U32,
                        dst: m,
                        a: Operand::Imm(0),
                        b: Operand::Imm(0),
                    },
                );
                m
            }
            (Some(s), None) => {
                // The source's mask is read by nothing after its unit's
                // edges: the target's mask may be it.
                if first {
                    g.reg = s;
                    return g;
                }
                s
            }
            (None, Some((p, false))) => {
                if first && self.single_def.get(&p).copied().unwrap_or(false) {
                    g.reg = p;
                    return g;
                }
                p
            }
            (None, Some((p, true))) => {
                let m = into(self);
                self.emit(out, at, S::MaskNot { dst: m, a: p });
                m
            }
            (Some(s), Some((p, not))) => {
                let m = into(self);
                // `andn` is `a & !b`.
                let op = if not { MaskOp::AndN } else { MaskOp::And };
                self.emit(
                    out,
                    at,
                    S::MaskBinary {
                        op,
                        dst: m,
                        a: s,
                        b: p,
                    },
                );
                m
            }
        };
        if lanes == g.reg {
            return g;
        }
        let (op, a) = if first {
            (MaskOp::And, lanes)
        } else {
            (MaskOp::Or, g.reg)
        };
        self.emit(
            out,
            at,
            S::MaskBinary {
                op,
                dst: g.reg,
                a,
                b: lanes,
            },
        );
        g
    }

    fn first_at(&self, u: Unit) -> Option<Pos> {
        match u {
            Unit::Block(b) => self.blocks[b].first().map(|c| c.at),
            Unit::Loop(l) => self.blocks[self.cfg.loops[l].head].first().map(|c| c.at),
        }
    }
}

/// Whether any of `code` writes mask `m`.
/// Per unit of a region (by their edges), the units every path from it
/// passes; of the first unit, those that run unguarded.
fn unguarded(edges: &[Vec<Edge>]) -> Vec<bool> {
    let n = edges.len();
    let mut must: Vec<Vec<bool>> = vec![vec![false; n]; n];
    for u in (0..n).rev() {
        let mut inter: Option<Vec<bool>> = None;
        for e in &edges[u] {
            let set = match e.dest {
                Dest::Unit(v) => must[v].clone(),
                _ => vec![false; n],
            };
            inter = Some(match inter {
                None => set,
                Some(x) => x.iter().zip(&set).map(|(a, b)| *a && *b).collect(),
            });
        }
        let mut m = inter.unwrap_or_else(|| vec![false; n]);
        m[u] = true;
        must[u] = m;
    }
    must.into_iter().next().unwrap_or_default()
}

/// A loop's next-iteration mask read straight from its one back edge's
/// condition: the predicate, whether negated, and where the edge is.
type DirectNext = (MReg, bool, Pos);

fn writes_mask(code: &[Code], m: MReg) -> bool {
    code.iter()
        .any(|c| c.inst.fields().written().any(|w| w == simt_lang::Reg::M(m)))
}

impl std::hash::Hash for Dest {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Dest::Unit(u) => (0u8, *u).hash(state),
            Dest::Back => 1u8.hash(state),
            Dest::Exit(t) => (2u8, *t).hash(state),
            Dest::Done => 3u8.hash(state),
        }
    }
}

impl std::hash::Hash for Unit {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Unit::Block(b) => (0u8, *b).hash(state),
            Unit::Loop(l) => (1u8, *l).hash(state),
        }
    }
}
