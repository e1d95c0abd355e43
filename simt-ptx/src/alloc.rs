//! Register allocation: virtual registers (one per PTX register, and the
//! temporaries and masks lowering adds) to simt's vector and mask registers,
//! by linear scan over the laid-out code.
//!
//! A register's interval runs from the first to the last instruction that
//! names it, widened to a whole loop where its value must survive from one
//! iteration to the next (the PTX register is live at the loop's head), so
//! two registers share a number only where no lane needs both. A write by
//! some lanes only leaves the other lanes' values, and each lane follows
//! one path of the PTX graph through the laid-out code, so the intervals
//! of that graph's liveness are what sharing must respect.

use crate::ast::{Inst, Operand as Arg};
use crate::cfg::{Cfg, Term};
use crate::lower::{Code, Kern, Loc};
use simt_lang::isa::{Field, MemRef};
use simt_lang::limits::{MAX_MREGS, MAX_SREGS, MAX_VREGS};
use simt_lang::{GlobalRef, LdsRef, MReg, Operand, Reg, SReg, VReg};
use std::collections::HashMap;

/// Renames the registers of `code` in place; returns the vector, scalar and
/// mask register counts, or why they do not fit.
pub(crate) fn allocate(
    code: &mut [Code],
    k: &Kern,
    cfg: &Cfg,
    insts: &[&Inst],
    loop_span: &[(usize, usize)],
) -> Result<(u16, u16, u16), String> {
    // Intervals over positions in `code`, per virtual register: vector
    // registers keyed by their first number with their width (pairs move
    // together), masks and scalars by number.
    let mut width: HashMap<u16, u16> = HashMap::new();
    let mut vspan: HashMap<u16, (usize, usize)> = HashMap::new();
    let mut mspan: HashMap<u16, (usize, usize)> = HashMap::new();
    let mut sspan: HashMap<u16, (usize, usize)> = HashMap::new();
    // Each virtual vector register's run start (pairs and wide runs).
    let mut run_of: HashMap<u16, u16> = HashMap::new();
    for c in code.iter() {
        let f = c.inst.fields();
        let run = f.run_length();
        for field in f.as_slice() {
            if let Field::VDstRun(r) | Field::VSrcRun(r) = *field {
                let w = width.entry(r.0).or_insert(1);
                *w = (*w).max(run);
            }
        }
    }
    // PTX pairs are runs of two.
    for loc in k.locs_iter() {
        if let Loc::Pair(v) = loc {
            let w = width.entry(v.0).or_insert(2);
            *w = (*w).max(2);
        }
    }
    // Runs that overlap merge into one run (a load of four words into a
    // pair and two words).
    let mut starts: Vec<u16> = width.keys().copied().collect();
    starts.sort_unstable();
    let mut merged: Vec<(u16, u16)> = Vec::new();
    for s in starts {
        let w = width[&s];
        match merged.last_mut() {
            Some((ms, mw)) if s < *ms + *mw => *mw = (*mw).max(s + w - *ms),
            _ => merged.push((s, w)),
        }
    }
    for &(s, w) in &merged {
        for i in 0..w {
            run_of.insert(s + i, s);
        }
    }
    let runs: HashMap<u16, u16> = merged.into_iter().collect();
    let note = |span: &mut HashMap<u16, (usize, usize)>, r: u16, p: usize| {
        let e = span.entry(r).or_insert((p, p));
        e.0 = e.0.min(p);
        e.1 = e.1.max(p);
    };
    for (p, c) in code.iter().enumerate() {
        let f = c.inst.fields();
        for r in f.written().chain(f.read()) {
            match r {
                Reg::V(v) => {
                    let key = run_of.get(&v.0).copied().unwrap_or(v.0);
                    note(&mut vspan, key, p);
                }
                Reg::M(m) => note(&mut mspan, m.0, p),
                Reg::S(s) => note(&mut sspan, s.0, p),
            }
        }
    }
    // Loop-carried PTX registers hold the whole loop.
    let live_in = liveness(k, cfg, insts);
    for (l, lp) in cfg.loops.iter().enumerate() {
        let (a, b) = loop_span[l];
        if a == usize::MAX {
            continue;
        }
        for name in live_in[lp.head].iter() {
            let (key, span) = match k.loc(name, Default::default()) {
                Ok(Loc::V(v)) | Ok(Loc::Pair(v)) => {
                    (run_of.get(&v.0).copied().unwrap_or(v.0), &mut vspan)
                }
                Ok(Loc::M(m)) => (m.0, &mut mspan),
                Err(_) => continue,
            };
            note(span, key, a);
            note(span, key, b.saturating_sub(1));
        }
    }
    let vmap = scan(
        &vspan,
        |r| runs.get(&r).copied().unwrap_or(1),
        MAX_VREGS,
        "vector",
    )?;
    let mmap = scan(&mspan, |_| 1, MAX_MREGS, "mask")?;
    let smap = scan(&sspan, |_| 1, MAX_SREGS, "scalar")?;
    let vreg = |v: VReg| -> VReg {
        let key = run_of.get(&v.0).copied().unwrap_or(v.0);
        VReg(vmap.get(&key).copied().unwrap_or(0) + (v.0 - key))
    };
    let mreg = |m: MReg| MReg(mmap.get(&m.0).copied().unwrap_or(0));
    let sreg = |s: SReg| SReg(smap.get(&s.0).copied().unwrap_or(0));
    let operand = |o: Operand| match o {
        Operand::V(v) => Operand::V(vreg(v)),
        Operand::S(s) => Operand::S(sreg(s)),
        o => o,
    };
    for c in code.iter_mut() {
        let mut f = c.inst.fields();
        for field in f.as_mut_slice() {
            *field = match *field {
                Field::VDst(r) => Field::VDst(vreg(r)),
                Field::SDst(r) => Field::SDst(sreg(r)),
                Field::MDst(r) => Field::MDst(mreg(r)),
                Field::VDstOpt(r) => Field::VDstOpt(r.map(vreg)),
                Field::VDstRun(r) => Field::VDstRun(vreg(r)),
                Field::Src(o) => Field::Src(operand(o)),
                Field::Uniform(o) => Field::Uniform(operand(o)),
                Field::Index(o) => Field::Index(operand(o)),
                Field::UIndex(o) => Field::UIndex(operand(o)),
                Field::VSrcRun(r) => Field::VSrcRun(vreg(r)),
                Field::Mask(m) => Field::Mask(mreg(m)),
                Field::Mem(role, m) => Field::Mem(role, map_mem(m, operand)),
                other => other,
            };
        }
        c.inst = simt_lang::Inst::from_fields(c.inst.opcode(), f.as_slice()).unwrap_or(c.inst);
    }
    let count = |m: &HashMap<u16, u16>, w: &dyn Fn(u16) -> u16| {
        m.iter().map(|(&k, &p)| p + w(k)).max().unwrap_or(0)
    };
    Ok((
        count(&vmap, &|r| runs.get(&r).copied().unwrap_or(1)),
        count(&smap, &|_| 1),
        count(&mmap, &|_| 1),
    ))
}

/// Linear scan: each interval, by start, takes the lowest free run of its
/// width.
fn scan(
    spans: &HashMap<u16, (usize, usize)>,
    width: impl Fn(u16) -> u16,
    max: u16,
    class: &str,
) -> Result<HashMap<u16, u16>, String> {
    let mut order: Vec<(usize, usize, u16)> = spans.iter().map(|(&r, &(a, b))| (a, b, r)).collect();
    order.sort_unstable();
    // Per physical register, the position after which it is free.
    let mut busy_until: Vec<Option<usize>> = Vec::new();
    let mut map = HashMap::new();
    for (a, b, r) in order {
        let w = usize::from(width(r));
        let free = |p: usize, busy: &Vec<Option<usize>>| {
            busy.get(p).copied().flatten().is_none_or(|e| e < a)
        };
        let mut p = 0;
        while !(p..p + w).all(|q| free(q, &busy_until)) {
            p += 1;
        }
        if busy_until.len() < p + w {
            busy_until.resize(p + w, None);
        }
        for slot in &mut busy_until[p..p + w] {
            *slot = Some(b);
        }
        map.insert(r, p as u16);
    }
    let need = busy_until.len();
    if need > usize::from(max) {
        return Err(format!(
            "this kernel needs {need} {class} registers at once; simt has {max}"
        ));
    }
    Ok(map)
}

/// The PTX registers live at the start of each block.
fn liveness(k: &Kern, cfg: &Cfg, insts: &[&Inst]) -> Vec<Vec<String>> {
    let n = cfg.blocks.len();
    // Uses before definitions, and definitions, per block.
    let mut uses: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut defs: Vec<Vec<String>> = vec![Vec::new(); n];
    for (b, block) in cfg.blocks.iter().enumerate() {
        let mut defined: Vec<String> = Vec::new();
        for &i in &block.insts {
            let inst = insts[i];
            let written: Vec<&str> = crate::values::written(inst);
            let mut read = Vec::new();
            collect_reads(inst, &mut read);
            if let Some((_, p, _)) = &inst.guard {
                read.push(p.clone());
                // A guarded write keeps the other lanes' values: a use too.
                read.extend(written.iter().map(|s| (*s).to_owned()));
            }
            for r in read {
                if !defined.contains(&r) && !uses[b].contains(&r) {
                    uses[b].push(r);
                }
            }
            if inst.guard.is_none() {
                for w in written {
                    if !defined.iter().any(|d| d == w) {
                        defined.push(w.to_owned());
                    }
                }
            }
        }
        if let Term::Branch { pred, .. } = &cfg.blocks[b].term {
            if !defined.contains(pred) && !uses[b].contains(pred) {
                uses[b].push(pred.clone());
            }
        }
        defs[b] = defined;
    }
    let mut live_in: Vec<Vec<String>> = uses.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in cfg.rpo.iter().rev() {
            let mut out: Vec<String> = Vec::new();
            for s in cfg.blocks[b].succs() {
                for r in &live_in[s] {
                    if !out.contains(r) {
                        out.push(r.clone());
                    }
                }
            }
            for r in out {
                if !defs[b].contains(&r) && !live_in[b].contains(&r) {
                    live_in[b].push(r);
                    changed = true;
                }
            }
        }
    }
    let _ = k;
    live_in
}

fn collect_reads(inst: &Inst, out: &mut Vec<String>) {
    let writes = crate::values::writes_first(inst);
    for (n, a) in inst.args.iter().enumerate() {
        if n == 0 && writes {
            // A written operand; an address in it is read.
            if let Arg::Addr { base, .. } = a {
                reads_of(base, out);
            }
            continue;
        }
        reads_of(a, out);
    }
}

fn reads_of(a: &Arg, out: &mut Vec<String>) {
    match a {
        Arg::Reg { name, .. } => out.push(name.clone()),
        Arg::Addr { base, .. } => reads_of(base, out),
        Arg::Vector(items, _) => items.iter().for_each(|i| reads_of(i, out)),
        Arg::Pair(a, b) => {
            reads_of(a, out);
            reads_of(b, out);
        }
        _ => {}
    }
}

fn map_mem(m: MemRef, f: impl Fn(Operand) -> Operand) -> MemRef {
    match m {
        MemRef::Global(g) => MemRef::Global(GlobalRef {
            index: f(g.index),
            offset: f(g.offset),
            ..g
        }),
        MemRef::Lds(l) => MemRef::Lds(LdsRef {
            index: f(l.index),
            offset: f(l.offset),
            ..l
        }),
    }
}
