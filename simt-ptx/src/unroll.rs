//! Counted loops unrolled four times over, as ptxas unrolls them.
//!
//! nvcc unrolls a counted loop four times and counts the rest down in one
//! register:
//!
//! ```text
//! $L__BB0_5:
//!     fma.rn.f32  %f50, %f34, %f2, %f36;   // four iterations' work
//!     ...
//!     add.s32     %r18, %r18, -4;
//!     setp.ne.s32 %p6, %r18, 0;
//!     @%p6 bra    $L__BB0_5;
//! ```
//!
//! and ptxas unrolls that loop four times again, so the GPU runs one
//! counter update, compare and branch per sixteen iterations where the
//! PTX runs four. Left as written, the `diverge` loop of
//! `calibration/seeds.cu` would issue a quarter more instructions than the
//! H200 ran (ncu's `smsp__inst_executed`), and its time would be a quarter
//! too long. A loop nvcc marks `.pragma "nounroll"` (its remainder loops)
//! is left alone, as ptxas leaves it.
//!
//! The loop taken is the one nvcc writes: one block without barriers,
//! ending in `add c, c, d` (`d` a power of two, either sign),
//! `setp.ne p, c, 0` and `@p bra head`, where the body reads neither `c`
//! nor `p` and nothing else reads `p`. It becomes
//!
//! ```text
//!     m = d < 0 ? c : -c            // |d| times the iterations left
//!     if m is a multiple of |d| and m >= 4|d|:
//!         do { body; body; body; body; c += 4d } while m >= 4|d|
//!         if c == 0: goto exit
//!     head: body; c += d; if c != 0 goto head   // the loop as written
//!     exit:
//! ```
//!
//! which runs the body exactly as often as the loop as written for every
//! count: the four-times loop only while four or more iterations remain
//! (a count that wraps around 2^32 as well, four at a time), the last one
//! to three, and every count that is no multiple of |d|, in the loop as
//! written, whose labels other branches may still reach. A body with an
//! instruction whose result depends on which lanes run it together
//! (`shfl`, `vote`, ...) is left alone: lanes leaving at different counts
//! would run one iteration in different copies.

use crate::ast::{Entry, Inst, Operand, RegDecl, Stmt};

/// Copies of the body in the unrolled loop.
const FACTOR: i64 = 4;

/// The longest body unrolled, in PTX instructions. ptxas's own limit is
/// not published; at sm_90 it unrolls `matmul_naive`'s loop of 20 (and
/// `diverge`'s of 12) and leaves `ilp_fma`'s of 32 as written (the SASS
/// of `calibration/seeds.cu`, `cuobjdump -sass`).
const MAX_BODY: usize = 24;

/// `entry` with its counted loops unrolled.
pub(crate) fn unrolled(entry: &Entry) -> Entry {
    let mut out = entry.clone();
    let mut fresh = 0;
    let mut j = 0;
    while j < out.body.len() {
        if let Some(found) = counted(&out, j) {
            j = rewrite(&mut out, &found, fresh);
            fresh += 1;
        }
        j += 1;
    }
    out
}

/// A loop [`unrolled`] takes: statements `start..=bra` of the body.
struct Counted {
    /// Its first label.
    start: usize,
    /// Its first instruction.
    first: usize,
    /// The `bra` closing it.
    bra: usize,
    /// The counter register.
    counter: String,
    /// What each iteration adds to it.
    step: i64,
}

fn reg_name(a: Option<&Operand>) -> Option<&str> {
    match a {
        Some(Operand::Reg {
            name, not: false, ..
        }) => Some(name),
        _ => None,
    }
}

/// Whether `inst` mentions register `name` anywhere: guard or operand.
fn mentions(inst: &Inst, name: &str) -> bool {
    if inst.guard.as_ref().is_some_and(|g| g.1 == name) {
        return true;
    }
    let mut stack: Vec<&Operand> = inst.args.iter().collect();
    while let Some(a) = stack.pop() {
        match a {
            Operand::Reg { name: n, .. } if n == name => return true,
            Operand::Addr { base, .. } => stack.push(base),
            Operand::Vector(items, _) => stack.extend(items.iter()),
            Operand::Pair(a, b) => stack.extend([&**a, &**b]),
            _ => {}
        }
    }
    false
}

fn inst_at(entry: &Entry, k: usize) -> Option<&Inst> {
    match entry.body.get(k)? {
        Stmt::Inst(i) => Some(i),
        Stmt::Label { .. } => None,
    }
}

/// The counted loop whose `bra` is statement `j`, if it is one.
fn counted(entry: &Entry, j: usize) -> Option<Counted> {
    let bra = inst_at(entry, j)?;
    let (false, pred, _) = bra.guard.as_ref()? else {
        return None;
    };
    let Some(Operand::Sym(head, _)) = bra.args.first() else {
        return None;
    };
    if bra.op != "bra" || j < 3 {
        return None;
    }
    let setp = inst_at(entry, j - 1)?;
    let add = inst_at(entry, j - 2)?;
    let counter = reg_name(add.args.first())?;
    let setp_ok = setp.op == "setp"
        && setp.guard.is_none()
        && matches!(
            setp.mods.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ["ne", "s32" | "u32" | "b32"]
        )
        && reg_name(setp.args.first()) == Some(pred.as_str())
        && reg_name(setp.args.get(1)) == Some(counter)
        && matches!(setp.args.get(2), Some(Operand::Int(0, _)))
        && setp.args.len() == 3;
    let step = match add.args.get(2) {
        Some(Operand::Int(v, _)) => *v as i64,
        _ => return None,
    };
    let add_ok = add.op == "add"
        && add.guard.is_none()
        && matches!(
            add.mods.iter().map(String::as_str).collect::<Vec<_>>()[..],
            ["s32" | "u32"]
        )
        && reg_name(add.args.get(1)) == Some(counter)
        && add.args.len() == 3
        && step != 0
        && step.unsigned_abs().is_power_of_two()
        && step.unsigned_abs() <= 1 << 20;
    if !setp_ok || !add_ok {
        return None;
    }
    // The body: instructions back to the labels, one of them the head.
    let mut first = j - 2;
    while first > 0 && inst_at(entry, first - 1).is_some() {
        first -= 1;
    }
    let mut start = first;
    let mut is_head = false;
    while start > 0 {
        match &entry.body[start - 1] {
            Stmt::Label { name, .. } => {
                is_head |= name == head;
                start -= 1;
            }
            Stmt::Inst(_) => break,
        }
    }
    let body = &entry.body[first..j - 2];
    let plain = body.iter().all(|s| match s {
        Stmt::Inst(i) => {
            !mentions(i, counter)
                && !mentions(i, pred)
                && !matches!(
                    i.op.as_str(),
                    // Control, and the instructions whose result depends on
                    // which lanes run them together: lanes leaving at
                    // different counts run an iteration in different copies.
                    "bra"
                        | "ret"
                        | "exit"
                        | "call"
                        | "bar"
                        | "barrier"
                        | "shfl"
                        | "vote"
                        | "activemask"
                        | "match"
                        | "redux"
                        | "elect"
                )
        }
        Stmt::Label { .. } => false,
    });
    let pred_private = entry
        .body
        .iter()
        .enumerate()
        .all(|(k, s)| k == j || k == j - 1 || !matches!(s, Stmt::Inst(i) if mentions(i, pred)));
    let marked = entry.nounroll.iter().any(|&m| (start..=j).contains(&m));
    (is_head
        && start < first
        && !body.is_empty()
        && body.len() <= MAX_BODY
        && plain
        && pred_private
        && !marked)
        .then(|| Counted {
            start,
            first,
            bra: j,
            counter: counter.to_owned(),
            step,
        })
}

/// Rewrites `found` as the module's doc says, with registers and labels
/// numbered `n`; the index of the loop's `bra` afterwards.
fn rewrite(entry: &mut Entry, found: &Counted, n: usize) -> usize {
    let Stmt::Inst(add) = entry.body[found.bra - 2].clone() else {
        unreachable!("`counted` found an instruction here")
    };
    let at = add.at;
    let make = |op: &str, mods: &[&str], args: Vec<Operand>, guard: Option<(bool, &str)>| {
        Stmt::Inst(Inst {
            guard: guard.map(|(not, p)| (not, p.to_owned(), at)),
            op: op.to_owned(),
            mods: mods.iter().map(|m| (*m).to_owned()).collect(),
            args,
            at,
            len: add.len,
            loc: add.loc,
        })
    };
    let reg = |name: &str| Operand::Reg {
        name: name.to_owned(),
        not: false,
        at,
    };
    let int = |v: i64| Operand::Int(v as u64, at);
    let sym = |name: &str| Operand::Sym(name.to_owned(), at);
    // Names no PTX identifier may take (`#`), so none of the kernel's own
    // can clash: `__unroll#0_m`.
    let name = |what: &str| format!("__unroll#{n}_{what}");
    let (m, t, p, q) = (name("m"), name("t"), name("p"), name("q"));
    let (big, exit) = (name("big"), name("exit"));
    for (r, ty) in [(&m, "b32"), (&t, "b32"), (&p, "pred"), (&q, "pred")] {
        entry.regs.push(RegDecl {
            name: r.clone(),
            ty: ty.to_owned(),
            count: None,
            at,
        });
    }
    let c = found.counter.as_str();
    let d = found.step;
    let unit = d.abs();
    let head = match entry.body.get(found.bra) {
        Some(Stmt::Inst(bra)) => bra.args[0].clone(),
        _ => unreachable!("`counted` found the `bra` here"),
    };
    // m: the iterations left times |d|.
    let left = if d > 0 { m.clone() } else { c.to_owned() };
    let measure = |out: &mut Vec<Stmt>| {
        if d > 0 {
            out.push(make("neg", &["s32"], vec![reg(&m), reg(c)], None));
        }
    };
    let mut code = Vec::new();
    measure(&mut code);
    code.push(make(
        "setp",
        &["ge", "u32"],
        vec![reg(&q), reg(&left), int(FACTOR * unit)],
        None,
    ));
    if unit > 1 {
        code.push(make(
            "and",
            &["b32"],
            vec![reg(&t), reg(&left), int(unit - 1)],
            None,
        ));
        code.push(make(
            "setp",
            &["eq", "s32"],
            vec![reg(&p), reg(&t), int(0)],
            None,
        ));
        code.push(make(
            "and",
            &["pred"],
            vec![reg(&q), reg(&q), reg(&p)],
            None,
        ));
    }
    code.push(make("bra", &[], vec![head.clone()], Some((true, &q))));
    code.push(Stmt::Label {
        name: big.clone(),
        at,
    });
    let body = entry.body[found.first..found.bra - 2].to_vec();
    for _ in 0..FACTOR {
        code.extend(body.iter().cloned());
    }
    code.push(make(
        "add",
        &["s32"],
        vec![reg(c), reg(c), int(FACTOR * d)],
        None,
    ));
    measure(&mut code);
    code.push(make(
        "setp",
        &["ge", "u32"],
        vec![reg(&q), reg(&left), int(FACTOR * unit)],
        None,
    ));
    code.push(make("bra", &[], vec![sym(&big)], Some((false, &q))));
    code.push(make(
        "setp",
        &["eq", "s32"],
        vec![reg(&q), reg(c), int(0)],
        None,
    ));
    code.push(make("bra", &[], vec![sym(&exit)], Some((false, &q))));
    let added = code.len();
    entry.body.splice(found.start..found.start, code);
    let bra = found.bra + added;
    entry.body.insert(bra + 1, Stmt::Label { name: exit, at });
    // Markers after the loop move with the statements they stand before.
    for k in &mut entry.nounroll {
        if *k >= found.start {
            *k += added + usize::from(*k > found.bra);
        }
    }
    bra + 1
}
