//! What each PTX register holds, decided before any instruction is lowered.
//!
//! - Its class: a predicate (a mask register), a value of up to 32 bits (a
//!   vector register) or a 64-bit value.
//! - For a 64-bit register, its provenance: a pointer into one kernel
//!   parameter's buffer (or into shared memory), or an integer. simt knows
//!   memory as buffers, so a pointer is lowered to its byte offset in its
//!   buffer, a 32-bit register, and every access through it names the
//!   buffer. A register that may point into two buffers is refused.
//! - For a 64-bit integer, whether anything reads its high word. Address
//!   arithmetic (`mul.wide`, `cvt.s64.s32`, `shl.b64`, `add.s64`) whose result
//!   only ever offsets a pointer needs only the low word, since a buffer is
//!   smaller than 4 GiB: it is lowered to 32-bit arithmetic, one instruction
//!   per PTX instruction. Any other 64-bit integer is a register pair.
//!
//! Both analyses are flow-insensitive: a register's verdict holds for all of
//! its definitions, as nvcc writes one register per variable.

use crate::ast::{Entry, Inst, Operand};
use crate::diagnostic::{Pos, PtxError};
use std::collections::HashMap;

/// What a register holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `.pred`.
    Pred,
    /// 8 to 32 bits: one vector register.
    Word,
    /// 64 bits.
    Wide,
}

/// Where a 64-bit value points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prov {
    /// Nothing known yet.
    Unknown,
    /// Into the buffer of parameter `k` (its PTX index).
    Param(usize),
    /// Into shared memory.
    Shared,
    /// Into the work-item's local memory (`.local`).
    Local,
    /// An integer, no pointer.
    Int,
    /// Two different pointers, or a pointer and an integer, at `Pos`.
    Mixed(Pos),
}

impl Prov {
    fn join(self, other: Prov, at: Pos) -> Prov {
        match (self, other) {
            (Prov::Unknown, x) | (x, Prov::Unknown) => x,
            (Prov::Mixed(p), _) | (_, Prov::Mixed(p)) => Prov::Mixed(p),
            (a, b) if a == b => a,
            _ => Prov::Mixed(at),
        }
    }

    /// Whether it is a pointer.
    pub fn is_pointer(self) -> bool {
        matches!(self, Prov::Param(_) | Prov::Shared | Prov::Local)
    }
}

/// The verdicts for one kernel's registers.
#[derive(Debug)]
pub struct Values {
    /// Each register's class, by name (`r1`, `rd4`, `p2`).
    pub class: HashMap<String, Class>,
    /// Each 64-bit register's provenance.
    pub prov: HashMap<String, Prov>,
    /// The 64-bit integers whose high word something reads.
    pub wide: HashMap<String, bool>,
    /// The parameters used as buffers (by PTX index).
    pub buffers: Vec<bool>,
    /// Registers read by some instruction (a predicate output nothing reads
    /// need not be computed).
    pub read: HashMap<String, bool>,
    /// Registers every definition of which moves the same integer into them
    /// (`mov.u32 %r19, 31;`): nvcc passes a shuffle's segment mask and a bit
    /// field's position this way, where simt needs to know them.
    pub consts: HashMap<String, u64>,
}

impl Values {
    /// Whether 64-bit register `r` is lowered as a pair (else as one word: a
    /// pointer's offset or an address-only integer's low word).
    pub fn is_pair(&self, r: &str) -> bool {
        self.class.get(r) == Some(&Class::Wide)
            && !self.prov.get(r).is_some_and(|p| p.is_pointer())
            && self.wide.get(r).copied().unwrap_or(false)
    }

    /// Whether `r` is read anywhere.
    pub fn is_read(&self, r: &str) -> bool {
        self.read.get(r).copied().unwrap_or(false)
    }

    /// The integer operand `op` always is: an immediate, `WARP_SZ`, or a
    /// register only ever set to one integer.
    pub fn constant(&self, op: &Operand) -> Option<u64> {
        match op {
            Operand::Int(n, _) => Some(*n),
            Operand::Sym(s, _) if s == WARP_SZ => Some(32),
            Operand::Reg {
                name, not: false, ..
            } => self.consts.get(name).copied(),
            _ => None,
        }
    }
}

/// PTX's warp size, a constant of the language: 32 (a simt wave of 64 lanes
/// still runs a kernel written for 32-lane warps as nvcc compiled it).
pub const WARP_SZ: &str = "WARP_SZ";

/// The registers every definition of which moves one integer into them.
fn constants(insts: &[&Inst]) -> HashMap<String, u64> {
    let mut seen: HashMap<&str, Option<u64>> = HashMap::new();
    for inst in insts {
        let value = match (inst.op.as_str(), inst.args.get(1)) {
            // A guarded move leaves the register as it was where it is off.
            _ if inst.guard.is_some() => None,
            ("mov", Some(Operand::Int(n, _))) => Some(*n),
            ("mov", Some(Operand::Sym(s, _))) if s == WARP_SZ => Some(32),
            _ => None,
        };
        for d in written(inst) {
            let v = match (inst.args.first(), value) {
                (Some(Operand::Reg { .. }), Some(v)) => Some(v),
                _ => None,
            };
            seen.entry(d)
                .and_modify(|old| {
                    if *old != v {
                        *old = None;
                    }
                })
                .or_insert(v);
        }
    }
    seen.into_iter()
        .filter_map(|(r, v)| Some((r.to_owned(), v?)))
        .collect()
}

/// The type modifiers of an instruction (`s32`, `f64`, ...), in order.
pub fn types(inst: &Inst) -> Vec<&str> {
    inst.mods
        .iter()
        .map(String::as_str)
        .filter(|m| crate::parse::type_size(m).is_some())
        .collect()
}

/// The register an operand names, if it is a plain register.
pub fn reg(op: &Operand) -> Option<&str> {
    match op {
        Operand::Reg { name, .. } => Some(name),
        _ => None,
    }
}

/// The register a memory operand's address is based on.
pub fn addr_reg(op: &Operand) -> Option<&str> {
    match op {
        Operand::Addr { base, .. } => reg(base),
        _ => None,
    }
}

/// The state space of a memory instruction, `None` for generic.
pub fn space(inst: &Inst) -> Option<&str> {
    inst.mods
        .iter()
        .map(String::as_str)
        .find(|m| matches!(*m, "global" | "shared" | "local" | "param" | "const"))
}

/// Whether the instruction reads or writes memory through an address operand.
pub fn is_memory(inst: &Inst) -> bool {
    matches!(
        inst.op.as_str(),
        "ld" | "st" | "atom" | "red" | "ldu" | "prefetch"
    )
}

/// The most registers a kernel may declare.
const MAX_DECLARED: u64 = 1 << 16;

/// The classes of `entry`'s registers and the verdicts on its 64-bit ones.
pub fn analyse(
    entry: &Entry,
    insts: &[&Inst],
    shared: &HashMap<String, u32>,
    local: &HashMap<String, u32>,
) -> Result<Values, Vec<PtxError>> {
    let mut class = HashMap::new();
    let mut declared = 0u64;
    for d in &entry.regs {
        // More registers than simt numbers (its register indices are 16
        // bits) cannot be lowered; nvcc declares as many as it uses.
        declared += u64::from(d.count.unwrap_or(1));
        if declared > MAX_DECLARED {
            return Err(vec![PtxError::new(
                d.at,
                d.name.len() as u32 + 1,
                format!("more than {MAX_DECLARED} registers are declared"),
            )]);
        }
        let c = match d.ty.as_str() {
            "pred" => Class::Pred,
            t => match crate::parse::type_size(t) {
                Some(8) => Class::Wide,
                Some(1..=4) => Class::Word,
                _ => {
                    return Err(vec![PtxError::new(
                        d.at,
                        d.name.len() as u32 + 1,
                        format!("registers of type `.{t}` are not supported"),
                    )])
                }
            },
        };
        match d.count {
            Some(n) => {
                for i in 0..n {
                    class.insert(format!("{}{i}", d.name), c);
                }
            }
            None => {
                class.insert(d.name.clone(), c);
            }
        }
    }
    let params: HashMap<&str, usize> = entry
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| (p.name.as_str(), k))
        .collect();
    let mut read = HashMap::new();
    for inst in insts {
        if let Some((_, p, _)) = &inst.guard {
            read.insert(p.clone(), true);
        }
        for (k, a) in inst.args.iter().enumerate() {
            if k == 0 && writes_first(inst) {
                if let Operand::Addr { base, .. } = a {
                    if let Some(r) = reg(base) {
                        read.insert(r.to_owned(), true);
                    }
                }
                continue;
            }
            note_reads(a, &mut read);
        }
    }
    let is_wide = |r: &str| class.get(r) == Some(&Class::Wide);
    // Provenance, to a fixed point, twice: first with every 64-bit
    // parameter a candidate pointer, then with only those some access
    // addresses through.
    let mut buffers = vec![true; entry.params.len()];
    let mut prov;
    loop {
        prov = provenance(insts, &is_wide, &params, &buffers, shared, local);
        let mut used = vec![false; entry.params.len()];
        for inst in insts.iter().filter(|i| is_memory(i)) {
            let space = space(inst);
            if space == Some("param") {
                continue;
            }
            for a in &inst.args {
                if let Some(r) = addr_reg(a) {
                    if let Some(Prov::Param(k)) = prov.get(r) {
                        used[*k] = true;
                    }
                }
            }
        }
        if used == buffers {
            break;
        }
        buffers = used;
    }
    // The high words read: every bit of a double.
    let mut wide: HashMap<String, bool> = HashMap::new();
    for d in entry.regs.iter().filter(|d| d.ty == "f64") {
        match d.count {
            Some(n) => (0..n).for_each(|i| {
                wide.insert(format!("{}{i}", d.name), true);
            }),
            None => {
                wide.insert(d.name.clone(), true);
            }
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for inst in insts {
            for r in high_reads(inst, &is_wide, &prov, &wide) {
                if !wide.get(&r).copied().unwrap_or(false) {
                    wide.insert(r, true);
                    changed = true;
                }
            }
        }
    }
    Ok(Values {
        class,
        prov,
        wide,
        buffers,
        read,
        consts: constants(insts),
    })
}

fn note_reads(a: &Operand, read: &mut HashMap<String, bool>) {
    match a {
        Operand::Reg { name, .. } => {
            read.insert(name.clone(), true);
        }
        Operand::Addr { base, .. } => note_reads(base, read),
        Operand::Vector(items, _) => items.iter().for_each(|i| note_reads(i, read)),
        Operand::Pair(a, b) => {
            note_reads(a, read);
            note_reads(b, read);
        }
        _ => {}
    }
}

/// Whether the instruction's first operand is what it writes (every
/// instruction but stores and reductions, whose first operand is an address).
pub fn writes_first(inst: &Inst) -> bool {
    !matches!(
        inst.op.as_str(),
        "st" | "red" | "bra" | "bar" | "barrier" | "membar" | "fence" | "prefetch" | "ret" | "exit"
    )
}

/// The registers an instruction writes.
pub fn written(inst: &Inst) -> Vec<&str> {
    if !writes_first(inst) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some(first) = inst.args.first() {
        collect_regs(first, &mut out);
    }
    // `setp ... p|q`: both.
    out
}

fn collect_regs<'a>(a: &'a Operand, out: &mut Vec<&'a str>) {
    match a {
        Operand::Reg { name, .. } => out.push(name),
        Operand::Vector(items, _) => items.iter().for_each(|i| collect_regs(i, out)),
        Operand::Pair(a, b) => {
            collect_regs(a, out);
            collect_regs(b, out);
        }
        _ => {}
    }
}

fn provenance(
    insts: &[&Inst],
    is_wide: &dyn Fn(&str) -> bool,
    params: &HashMap<&str, usize>,
    buffers: &[bool],
    shared: &HashMap<String, u32>,
    local: &HashMap<String, u32>,
) -> HashMap<String, Prov> {
    let mut prov: HashMap<String, Prov> = HashMap::new();
    let mut changed = true;
    while changed {
        changed = false;
        for inst in insts {
            let Some(d) = inst.args.first().and_then(reg) else {
                continue;
            };
            if !is_wide(d) || !writes_first(inst) {
                continue;
            }
            let get = |k: usize| -> Prov {
                match inst.args.get(k) {
                    Some(Operand::Reg { name, .. }) => {
                        if is_wide(name) {
                            prov.get(name.as_str()).copied().unwrap_or(Prov::Unknown)
                        } else {
                            Prov::Int
                        }
                    }
                    Some(Operand::Sym(s, _)) if shared.contains_key(s) => Prov::Shared,
                    Some(Operand::Sym(s, _)) if local.contains_key(s) => Prov::Local,
                    _ => Prov::Int,
                }
            };
            let op = inst.op.as_str();
            let new = match op {
                "ld" if space(inst) == Some("param") => match inst.args.get(1) {
                    Some(Operand::Addr { base, .. }) => match &**base {
                        Operand::Sym(s, _) => match params.get(s.as_str()) {
                            Some(&k) if buffers[k] => Prov::Param(k),
                            _ => Prov::Int,
                        },
                        _ => Prov::Int,
                    },
                    _ => Prov::Int,
                },
                "mov" | "cvta" => {
                    let p = get(1);
                    if op == "cvta" && inst.has("shared") {
                        Prov::Shared
                    } else if op == "cvta" && inst.has("local") {
                        Prov::Local
                    } else {
                        p
                    }
                }
                "add" => match (get(1), get(2)) {
                    (Prov::Int, p) | (p, Prov::Int) => p,
                    (a, b) if a.is_pointer() && b.is_pointer() => Prov::Mixed(inst.at),
                    (a, b) => a.join(b, inst.at),
                },
                "sub" => match (get(1), get(2)) {
                    (p, Prov::Int) => p,
                    (a, b) if a == b && a.is_pointer() => Prov::Int,
                    (Prov::Unknown, _) | (_, Prov::Unknown) => Prov::Unknown,
                    _ => Prov::Mixed(inst.at),
                },
                "selp" => get(1).join(get(2), inst.at),
                _ => Prov::Int,
            };
            let old = prov.get(d).copied().unwrap_or(Prov::Unknown);
            let joined = old.join(new, inst.at);
            if joined != old {
                prov.insert(d.to_owned(), joined);
                changed = true;
            }
        }
    }
    prov
}

/// The 64-bit integer registers whose high word `inst` needs: its 64-bit
/// integer operands, unless the instruction's low result word depends only
/// on its operands' low words and that result's high word is not needed.
fn high_reads(
    inst: &Inst,
    is_wide: &dyn Fn(&str) -> bool,
    prov: &HashMap<String, Prov>,
    wide: &HashMap<String, bool>,
) -> Vec<String> {
    let int = |r: &str| is_wide(r) && !prov.get(r).is_some_and(|p| p.is_pointer());
    let op = inst.op.as_str();
    let ty = types(inst);
    let result_wide = inst
        .args
        .first()
        .and_then(reg)
        .is_some_and(|d| writes_first(inst) && wide.get(d).copied().unwrap_or(false));
    let sources: Vec<&str> = inst
        .args
        .iter()
        .enumerate()
        .filter(|(k, _)| *k > 0 || !writes_first(inst))
        .filter_map(|(_, a)| match a {
            Operand::Reg { name, .. } => Some(name.as_str()),
            Operand::Vector(..) => None,
            _ => None,
        })
        .filter(|r| int(r))
        .collect();
    let dest_is_pointer = inst
        .args
        .first()
        .and_then(reg)
        .is_some_and(|d| writes_first(inst) && prov.get(d).is_some_and(|p| p.is_pointer()));
    let low_only = match op {
        // The low word of the result depends on the low words only.
        "add" | "sub" | "mul" | "mad" | "shl" | "and" | "or" | "xor" | "not" | "neg" | "mov"
        | "cvt" | "selp" | "cvta" => {
            // `mul.hi` needs high words, float arithmetic and conversions
            // read all bits, and so does unpacking a value into words.
            !(inst.has("hi")
                || ty.iter().any(|t| t.starts_with('f'))
                || matches!(inst.args.first(), Some(Operand::Vector(..))))
        }
        _ => false,
    };
    if dest_is_pointer || (low_only && !result_wide) {
        return Vec::new();
    }
    // Stores of a 64-bit register and 64-bit float values need every bit;
    // addresses need only the low word.
    let mut out: Vec<String> = sources.iter().map(|s| (*s).to_owned()).collect();
    if op == "st" || op == "red" || op == "atom" {
        out.retain(|r| inst.args.iter().all(|a| addr_reg(a) != Some(r.as_str())));
    }
    out
}
