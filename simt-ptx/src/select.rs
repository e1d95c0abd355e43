//! Instruction selection: each PTX instruction (its terminator aside) to the
//! simt instructions with the same effect on the lanes that run it, over
//! virtual registers that `alloc` later numbers.
//!
//! Most instructions become one simt instruction. The exceptions, each
//! documented where it is lowered: 64-bit values (a register pair, two
//! instructions where simt has no pair form), guarded instructions other
//! than branches (`@p st` runs inside an `if`), vector loads and stores into
//! registers that are not consecutive (a copy per element), shift amounts
//! that are registers (clamped as PTX clamps them), vectors of 8- and
//! 16-bit elements (one access, the elements shifted in or out of its
//! words), 8- and 16-bit comparisons (the operands' low bits extended
//! first), `.ftz` on `ex2` (a flush of subnormal results), and the
//! operations simt computes from others: `rsqrt`, `vote.all`,
//! `%lanemask_lt`, bit fields (`bfe`, `bfi`), byte permutes (`prmt`),
//! rounding to integers (`cvt.rni`, `.rzi`, `.rmi`, `.rpi`), `min.NaN` and
//! `max.NaN`, and 64-bit `popc`, `clz` and `brev`.

use crate::ast::{Inst, Operand as Arg};
use crate::diagnostic::{Pos, PtxError};
use crate::lower::{Code, Kern, Loc};
use crate::values::{addr_reg, space, types, Prov};
use simt_lang::{
    Addressing, Atomic64Op, AtomicOp, Axis, Bin64Op, BinOp, Cmp64Type, CmpOp, CmpType, ElemType,
    GlobalRef, Inst as S, LdsIdx, LdsRef, MReg, MaskOp, NarrowOp, Operand, SReg, ShuffleOp,
    Special, Tern64Op, TernOp, Un64Op, UnOp, VReg, WaveOp, WidenOp, Width,
};

type R<T> = Result<T, PtxError>;

fn unsupported(i: &Inst, what: impl std::fmt::Display) -> PtxError {
    PtxError::new(
        i.at,
        i.len,
        format!("`{}` is not supported: {what}", spelled(i)),
    )
}

/// The opcode with its modifiers, as written.
pub fn spelled(i: &Inst) -> String {
    let mut s = i.op.clone();
    for m in &i.mods {
        s.push('.');
        s.push_str(m);
    }
    s
}

const F32_ONE: u32 = 0x3f80_0000;

/// What the low words of a memory access name: a buffer or the LDS.
enum Place {
    Global(simt_lang::ParamIdx),
    Lds,
    /// The work-item's local memory (see `local.rs`).
    Local,
}

impl<'a> Kern<'a> {
    /// Lowers instruction `i` into `out`.
    pub(crate) fn select(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        if let Some((not, p, at)) = &i.guard {
            // A guarded instruction runs inside an `if` of its predicate.
            let m = self.pred_named(p, *at)?;
            let m = if *not { self.not_mask(m, i.at, out) } else { m };
            self.emit(
                out,
                i.at,
                S::If {
                    mask: m,
                    next: simt_lang::InstIdx::UNLINKED,
                },
            );
            self.select_plain(i, out)?;
            self.emit(out, i.at, S::EndIf);
            return Ok(());
        }
        self.select_plain(i, out)
    }

    pub(crate) fn emit(&self, out: &mut Vec<Code>, at: Pos, inst: S) {
        out.push(Code {
            inst,
            at,
            loc: self.loc_of(at),
        });
    }

    fn select_plain(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let ty = types(i);
        let t = ty.last().copied().unwrap_or("");
        if i.has("ftz") && !matches!(i.op.as_str(), "ex2" | "cvt") {
            return self.flushing(i, t, out);
        }
        self.select_as_written(i, t, out)
    }

    /// An instruction with `.ftz` (`ex2` and `cvt` apart, which flush in
    /// their own lowering): on `f32`, each operand read flushed and, for a
    /// float result, the result flushed, as PTX says ("subnormal inputs
    /// and results to sign-preserving zero"); two to four instructions
    /// more per operand. On other types, refused but for approximations.
    fn flushing(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        if t != "f32" {
            if i.has("approx") {
                // An approximation of halves or doubles: taken as the
                // exact operation, subnormals kept (documented).
                return self.select_as_written(i, t, out);
            }
            return Err(unsupported(i, "`.ftz` but on f32 (or an approximation)"));
        }
        self.ftz = true;
        let done = self.select_as_written(i, t, out);
        self.ftz = false;
        done?;
        if i.op != "setp" {
            let d = self.dst_word(i, 0)?;
            self.flush_f32(Operand::V(d), Some(d), i.at, out);
        }
        Ok(())
    }

    fn select_as_written(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        match i.op.as_str() {
            "mov" => self.mov(i, t, out),
            "ld" | "ldu" => self.load(i, out),
            "st" => self.store(i, out),
            "atom" | "red" => self.atomic(i, out),
            "cvta" => {
                let d = self.dst_word(i, 0)?;
                let a = self.word(i, 1, out)?;
                self.emit(out, at, S::VUnary { op: UnOp::Mov, dst: d, a });
                Ok(())
            }
            "add" | "sub" | "mul" | "mad" | "div" | "rem" | "min" | "max" | "and" | "or"
            | "xor" | "shl" | "shr" | "neg" | "not" | "abs" | "fma" | "sqrt" | "rcp" | "rsqrt"
            | "ex2" | "lg2" | "sin" | "cos" | "popc" | "clz" | "brev" | "copysign" => {
                self.arith(i, t, out)
            }
            "setp" => self.setp(i, out),
            "bfi" => self.bfi(i, out),
            "bfe" => self.bfe(i, out),
            "prmt" => self.prmt(i, out),
            "selp" => self.selp(i, t, out),
            "cvt" => self.cvt(i, out),
            "bar" | "barrier" => {
                if i.has("warp") {
                    self.emit(out, at, S::WaveBarrier);
                    return Ok(());
                }
                if i.has("arrive") || i.has("red") || i.args.len() > 1 {
                    return Err(unsupported(i, "simt's barrier waits for the whole workgroup (`bar.sync 0`)"));
                }
                match i.args.first() {
                    Some(Arg::Int(0, _)) | None => {
                        self.emit(out, at, S::Barrier);
                        Ok(())
                    }
                    _ => Err(unsupported(i, "only barrier 0 exists in simt")),
                }
            }
            "membar" | "fence" => Ok(()),
            "shfl" => self.shfl(i, out),
            "vote" => self.vote(i, out),
            "activemask" => {
                let d = self.dst_word(i, 0)?;
                let all = self.new_m();
                let s = self.new_s();
                self.emit(out, at, S::SCmp { op: CmpOp::Eq, ty: CmpType::U32, dst: all, a: Operand::Imm(0), b: Operand::Imm(0) });
                self.emit(out, at, S::SWave { op: WaveOp::BallotLo, dst: s, mask: all });
                self.emit(out, at, S::VUnary { op: UnOp::Mov, dst: d, a: Operand::S(s) });
                Ok(())
            }
            "call" => Err(PtxError::new(at, i.len, "calls are not supported: simt runs one kernel body")
                .help("inline the device function (`__forceinline__`), or compile with optimisation so nvcc inlines it")),
            "trap" | "brkpt" => Err(unsupported(i, "simt has no trap")),
            "prefetch" | "prefetchu" | "discard" | "applypriority" | "createpolicy" => Ok(()),
            "nanosleep" | "pmevent" => Ok(()),
            op => Err(PtxError::new(at, i.len, format!("`{}` is not an instruction simt runs", spelled(i)))
                .help(format!("simt lowers the PTX instructions nvcc writes for kernels; `{op}` is not among them yet"))),
        }
    }

    // ---------------------------------------------------------- operands

    fn arg<'i>(&self, i: &'i Inst, k: usize) -> R<&'i Arg> {
        i.args.get(k).ok_or_else(|| {
            PtxError::new(
                i.at,
                i.len,
                format!("`{}` needs at least {} operands", spelled(i), k + 1),
            )
        })
    }

    /// The 32-bit value of operand `k`.
    pub(crate) fn word(&mut self, i: &Inst, k: usize, out: &mut Vec<Code>) -> R<Operand> {
        let a = self.arg(i, k)?.clone();
        self.word_of(&a, i, out)
    }

    /// Operand `a` as a word, flushed where an `.ftz` instruction reads it
    /// (see [`Kern::ftz`]).
    fn word_of(&mut self, a: &Arg, i: &Inst, out: &mut Vec<Code>) -> R<Operand> {
        let w = self.word_as_written(a, i, out)?;
        Ok(if self.ftz {
            self.flush_f32(w, None, i.at, out)
        } else {
            w
        })
    }

    fn word_as_written(&mut self, a: &Arg, i: &Inst, out: &mut Vec<Code>) -> R<Operand> {
        match a {
            Arg::Reg { name, not: false, at } => {
                if let Some(&c) = self.consts.get(name) {
                    return Ok(Operand::Imm(c));
                }
                if let Some(s) = self.special(name, *at, out)? {
                    return Ok(s);
                }
                match self.loc(name, *at)? {
                    Loc::V(v) => Ok(Operand::V(v)),
                    Loc::Pair(v) => Ok(Operand::V(v)),
                    Loc::M(_) => Err(PtxError::new(*at, name.len() as u32 + 1, format!("`%{name}` is a predicate, not a value"))),
                }
            }
            Arg::Reg { at, .. } => Err(PtxError::new(*at, 1, "`!` negates only predicates")),
            Arg::Int(n, _) => Ok(Operand::Imm(*n as u32)),
            Arg::F32(b, _) => Ok(Operand::Imm(*b)),
            Arg::F64(b, _) => Ok(Operand::Imm((f64::from_bits(*b) as f32).to_bits())),
            Arg::Sym(s, _) if s == crate::values::WARP_SZ => Ok(Operand::Imm(32)),
            Arg::Sym(s, at) => match self.shared.get(s).or_else(|| self.locals.get(s)) {
                Some(&off) => Ok(Operand::Imm(off)),
                None => Err(PtxError::new(*at, s.len() as u32, format!("`{s}` is not a value simt knows here"))
                    .help("only shared variables' addresses are values; global and constant variables are not supported")),
            },
            _ => Err(PtxError::new(a.at(), 1, format!("`{}` takes a register or an immediate here", spelled(i)))),
        }
    }

    /// The register written by operand `k`, a 32-bit value (or a pointer's
    /// offset, or an address-only integer's low word).
    pub(crate) fn dst_word(&mut self, i: &Inst, k: usize) -> R<VReg> {
        match self.arg(i, k)? {
            Arg::Reg {
                name,
                not: false,
                at,
            } => match self.loc(name, *at)? {
                Loc::V(v) | Loc::Pair(v) => Ok(v),
                Loc::M(_) => Err(PtxError::new(
                    *at,
                    name.len() as u32 + 1,
                    format!("`%{name}` is a predicate"),
                )),
            },
            Arg::Sink(_) => Ok(self.new_v(1)),
            a => Err(PtxError::new(
                a.at(),
                1,
                format!("`{}` writes a register here", spelled(i)),
            )),
        }
    }

    /// Whether operand `k` is a 64-bit register lowered as a pair.
    fn is_pair(&self, i: &Inst, k: usize) -> bool {
        matches!(i.args.get(k), Some(Arg::Reg { name, .. }) if self.values.is_pair(name))
    }

    /// The pair holding operand `k`'s 64 bits (an immediate or a 32-bit
    /// value is copied into a new pair, zero- or sign-extended by `signed`).
    fn pair(&mut self, i: &Inst, k: usize, signed: bool, out: &mut Vec<Code>) -> R<VReg> {
        let a = self.arg(i, k)?.clone();
        match &a {
            Arg::Reg { name, at, .. } if self.values.is_pair(name) => match self.loc(name, *at)? {
                Loc::Pair(v) => Ok(v),
                _ => unreachable!("pairs are allocated as pairs"),
            },
            Arg::Int(n, _) | Arg::F64(n, _) => {
                let p = self.new_v(2);
                self.emit(
                    out,
                    i.at,
                    S::VUnary {
                        op: UnOp::Mov,
                        dst: p,
                        a: Operand::Imm(*n as u32),
                    },
                );
                self.emit(
                    out,
                    i.at,
                    S::VUnary {
                        op: UnOp::Mov,
                        dst: VReg(p.0 + 1),
                        a: Operand::Imm((*n >> 32) as u32),
                    },
                );
                Ok(p)
            }
            _ => {
                let w = self.word_of(&a, i, out)?;
                let p = self.new_v(2);
                let op = if signed {
                    WidenOp::CvtI64I32
                } else {
                    WidenOp::CvtU64U32
                };
                self.emit(out, i.at, S::VWiden { op, dst: p, a: w });
                Ok(p)
            }
        }
    }

    fn dst_pair(&mut self, i: &Inst, k: usize) -> R<VReg> {
        match self.arg(i, k)? {
            Arg::Reg { name, at, .. } => match self.loc(name, *at)? {
                Loc::Pair(v) => Ok(v),
                _ => Err(PtxError::new(
                    *at,
                    name.len() as u32 + 1,
                    format!("`%{name}` is not a 64-bit register"),
                )),
            },
            Arg::Sink(_) => Ok(self.new_v(2)),
            a => Err(PtxError::new(a.at(), 1, "expected a 64-bit register")),
        }
    }

    /// Where a 64-bit result goes: its pair, or, for a register kept as its
    /// low word (nothing reads its high word), a new pair and that word, to
    /// be given the pair's low word by [`Self::low_word_back`].
    fn dst_wide(&mut self, i: &Inst) -> R<(VReg, Option<VReg>)> {
        if self.is_pair(i, 0) || matches!(i.args.first(), Some(Arg::Sink(_))) {
            return Ok((self.dst_pair(i, 0)?, None));
        }
        Ok((self.new_v(2), Some(self.dst_word(i, 0)?)))
    }

    /// The low word of `pair` into `word`, where [`Self::dst_wide`] gave one.
    fn low_word_back(&mut self, pair: VReg, word: Option<VReg>, at: Pos, out: &mut Vec<Code>) {
        if let Some(w) = word {
            self.put(w, Operand::V(pair), at, out);
        }
    }

    fn pred_named(&mut self, name: &str, at: Pos) -> R<MReg> {
        match self.loc(name, at)? {
            Loc::M(m) => Ok(m),
            _ => Err(PtxError::new(
                at,
                name.len() as u32 + 1,
                format!("`%{name}` is not a predicate"),
            )),
        }
    }

    /// The mask of predicate operand `k` (`!p` is complemented into a new one).
    fn pred(&mut self, i: &Inst, k: usize, out: &mut Vec<Code>) -> R<MReg> {
        match self.arg(i, k)?.clone() {
            Arg::Reg { name, not, at } => {
                let m = self.pred_named(&name, at)?;
                Ok(if not { self.not_mask(m, at, out) } else { m })
            }
            Arg::Int(n, at) => {
                let m = self.new_m();
                let b = if n != 0 { 0 } else { 1 };
                self.emit(
                    out,
                    at,
                    S::SCmp {
                        op: CmpOp::Eq,
                        ty: CmpType::U32,
                        dst: m,
                        a: Operand::Imm(0),
                        b: Operand::Imm(b),
                    },
                );
                Ok(m)
            }
            a => Err(PtxError::new(a.at(), 1, "expected a predicate")),
        }
    }

    fn dst_pred(&mut self, a: &Arg) -> R<Option<MReg>> {
        match a {
            Arg::Reg { name, at, .. } => {
                if !self.values.is_read(name) {
                    return Ok(None);
                }
                self.pred_named(name, *at).map(Some)
            }
            Arg::Sink(_) => Ok(None),
            a => Err(PtxError::new(a.at(), 1, "expected a predicate register")),
        }
    }

    pub(crate) fn not_mask(&mut self, m: MReg, at: Pos, out: &mut Vec<Code>) -> MReg {
        let n = self.new_m();
        self.emit(out, at, S::MaskNot { dst: n, a: m });
        n
    }

    /// A special register's value, computed into a register where simt has
    /// no special value for it.
    fn special(&mut self, name: &str, at: Pos, out: &mut Vec<Code>) -> R<Option<Operand>> {
        let axis = |s: &str| match s {
            "x" => Some(Axis::X),
            "y" => Some(Axis::Y),
            "z" => Some(Axis::Z),
            _ => None,
        };
        let (base, comp) = name.split_once('.').unwrap_or((name, ""));
        let sp = match (base, axis(comp)) {
            ("tid", Some(a)) => Special::LocalId(a),
            ("ntid", Some(a)) => Special::GroupSize(a),
            ("ctaid", Some(a)) => Special::GroupId(a),
            ("nctaid", Some(a)) => Special::NumGroups(a),
            ("laneid", None) => Special::LaneId,
            ("warpid", None) => Special::WaveId,
            (
                "lanemask_eq" | "lanemask_lt" | "lanemask_le" | "lanemask_gt" | "lanemask_ge",
                None,
            ) => {
                // From the lane index: eq = 1 << lane, lt = eq - 1, le = (eq << 1) - 1.
                let lane = Operand::Special(Special::LaneId);
                let v = self.new_v(1);
                let one = if base == "lanemask_le" || base == "lanemask_gt" {
                    2
                } else {
                    1
                };
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::Shl,
                        dst: v,
                        a: Operand::Imm(one),
                        b: lane,
                    },
                );
                if base != "lanemask_eq" {
                    self.emit(
                        out,
                        at,
                        S::VBinary {
                            op: BinOp::SubU32,
                            dst: v,
                            a: Operand::V(v),
                            b: Operand::Imm(1),
                        },
                    );
                }
                if base == "lanemask_gt" || base == "lanemask_ge" {
                    self.emit(
                        out,
                        at,
                        S::VUnary {
                            op: UnOp::Not,
                            dst: v,
                            a: Operand::V(v),
                        },
                    );
                }
                return Ok(Some(Operand::V(v)));
            }
            ("tid" | "ntid" | "ctaid" | "nctaid", None) => {
                return Err(PtxError::new(
                    at,
                    name.len() as u32 + 1,
                    format!("`%{name}` needs a component (`.x`, `.y` or `.z`)"),
                ))
            }
            _ if self.values.class.contains_key(name) => return Ok(None),
            _ if matches!(
                base,
                "clock"
                    | "clock64"
                    | "globaltimer"
                    | "smid"
                    | "nsmid"
                    | "gridid"
                    | "nwarpid"
                    | "envreg"
                    | "dynamic_smem_size"
                    | "total_smem_size"
            ) =>
            {
                return Err(PtxError::new(
                    at,
                    name.len() as u32 + 1,
                    format!("`%{name}` is not supported: simt has no such register"),
                ))
            }
            _ => return Ok(None),
        };
        Ok(Some(Operand::Special(sp)))
    }

    // ------------------------------------------------------------- moves

    fn mov(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        if t == "pred" {
            let d = match self.dst_pred(self.arg(i, 0)?)? {
                Some(d) => d,
                None => return Ok(()),
            };
            let a = self.pred(i, 1, out)?;
            self.emit(
                out,
                at,
                S::MaskBinary {
                    op: MaskOp::And,
                    dst: d,
                    a,
                    b: a,
                },
            );
            return Ok(());
        }
        // Packing and unpacking: `mov.b64 %rd, {%r1, %r2}`, `mov.b64 {%r1, %r2}, %rd`.
        if let Some(Arg::Vector(items, _)) = i.args.get(1) {
            return self.pack(i, t, &items.clone(), out);
        }
        if let Some(Arg::Vector(items, _)) = i.args.first() {
            return self.unpack(i, t, &items.clone(), out);
        }
        if self.is_pair(i, 0) {
            let d = self.dst_pair(i, 0)?;
            let a = self.pair(i, 1, false, out)?;
            self.emit(
                out,
                at,
                S::VUnary64 {
                    op: Un64Op::Mov,
                    dst: d,
                    a,
                },
            );
            return Ok(());
        }
        // A register that only holds this constant is read as it.
        if matches!(i.args.first(), Some(Arg::Reg { name, .. }) if self.consts.contains_key(name)) {
            return Ok(());
        }
        let d = self.dst_word(i, 0)?;
        let a = self.word(i, 1, out)?;
        self.emit(
            out,
            at,
            S::VUnary {
                op: UnOp::Mov,
                dst: d,
                a,
            },
        );
        Ok(())
    }

    /// `mov` of a vector of two words `items` into one register: a pair
    /// (`b64`), or two halves into a word (`b32`).
    fn pack(&mut self, i: &Inst, t: &str, items: &[Arg], out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        if t == "b64" && items.len() == 2 {
            if self.is_pair(i, 0) {
                let d = self.dst_pair(i, 0)?;
                let lo = self.word_of(&items[0], i, out)?;
                let hi = self.word_of(&items[1], i, out)?;
                self.emit(
                    out,
                    at,
                    S::VUnary {
                        op: UnOp::Mov,
                        dst: d,
                        a: lo,
                    },
                );
                self.emit(
                    out,
                    at,
                    S::VUnary {
                        op: UnOp::Mov,
                        dst: VReg(d.0 + 1),
                        a: hi,
                    },
                );
            } else {
                let d = self.dst_word(i, 0)?;
                let lo = self.word_of(&items[0], i, out)?;
                self.emit(
                    out,
                    at,
                    S::VUnary {
                        op: UnOp::Mov,
                        dst: d,
                        a: lo,
                    },
                );
            }
            return Ok(());
        }
        if t == "b32" && items.len() == 2 {
            let d = self.dst_word(i, 0)?;
            let lo = self.word_of(&items[0], i, out)?;
            let hi = self.word_of(&items[1], i, out)?;
            let tmp = self.new_v(1);
            self.emit(
                out,
                at,
                S::VBinary {
                    op: BinOp::And,
                    dst: tmp,
                    a: lo,
                    b: Operand::Imm(0xffff),
                },
            );
            self.emit(
                out,
                at,
                S::VBinary {
                    op: BinOp::Shl,
                    dst: d,
                    a: hi,
                    b: Operand::Imm(16),
                },
            );
            self.emit(
                out,
                at,
                S::VBinary {
                    op: BinOp::Or,
                    dst: d,
                    a: Operand::V(d),
                    b: Operand::V(tmp),
                },
            );
            return Ok(());
        }
        Err(unsupported(i, "this packing"))
    }

    /// `mov` of one register into a vector of two words `items`: a pair's
    /// words (`b64`), or a word's halves (`b32`).
    fn unpack(&mut self, i: &Inst, t: &str, items: &[Arg], out: &mut Vec<Code>) -> R<()> {
        if t == "b64" && items.len() == 2 {
            let (lo, hi) = if self.is_pair(i, 1) {
                let p = self.pair(i, 1, false, out)?;
                (Operand::V(p), Operand::V(VReg(p.0 + 1)))
            } else {
                (self.word(i, 1, out)?, Operand::Imm(0))
            };
            for (item, v) in items.iter().zip([lo, hi]) {
                if let Arg::Reg { name, at, .. } = item {
                    if let Loc::V(d) = self.loc(name, *at)? {
                        self.emit(
                            out,
                            i.at,
                            S::VUnary {
                                op: UnOp::Mov,
                                dst: d,
                                a: v,
                            },
                        );
                    }
                }
            }
            return Ok(());
        }
        if t == "b32" && items.len() == 2 {
            let a = self.word(i, 1, out)?;
            for (k, item) in items.iter().enumerate() {
                if let Arg::Reg { name, at, .. } = item {
                    if let Loc::V(d) = self.loc(name, *at)? {
                        if k == 0 {
                            self.emit(
                                out,
                                i.at,
                                S::VBinary {
                                    op: BinOp::And,
                                    dst: d,
                                    a,
                                    b: Operand::Imm(0xffff),
                                },
                            );
                        } else {
                            self.emit(
                                out,
                                i.at,
                                S::VBinary {
                                    op: BinOp::ShrU32,
                                    dst: d,
                                    a,
                                    b: Operand::Imm(16),
                                },
                            );
                        }
                    }
                }
            }
            return Ok(());
        }
        Err(unsupported(i, "this unpacking"))
    }

    // -------------------------------------------------------- arithmetic

    fn arith(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        let op = i.op.as_str();
        if t == "pred" {
            return self.predicate_logic(i, out);
        }
        if matches!(op, "popc" | "clz" | "brev") {
            return self.bit_count(i, t, out);
        }
        if op == "ex2" {
            return self.ex2(i, t, out);
        }
        let float = t.starts_with('f') || t == "bf16";
        if i.has("sat") && !(float && t == "f32") {
            if t == "s32" && (matches!(op, "add" | "sub") || (op == "mad" && i.has("hi"))) {
                return self.saturating_s32(i, out);
            }
            return Err(unsupported(
                i,
                "saturating integer arithmetic but `add`, `sub` and `mad.hi` of s32",
            ));
        }
        let directed = ["rz", "rm", "rp"].into_iter().find(|m| i.has(m));
        if let (true, Some(mode)) = (float, directed) {
            if matches!(
                op,
                "add" | "sub" | "mul" | "fma" | "mad" | "div" | "sqrt" | "rcp"
            ) {
                return match t {
                    "f32" => self.directed_f32(i, op, mode, out),
                    "f64" => self.directed_f64(i, op, mode, out),
                    _ => Err(unsupported(
                        i,
                        "directed rounding but of f32 and f64 (simt rounds other types to nearest)",
                    )),
                };
            }
        }
        if matches!(t, "f64") {
            return self.arith64_float(i, out);
        }
        let wide_int = matches!(t, "s64" | "u64" | "b64");
        if wide_int && !(op == "mul" && i.has("wide")) && !(op == "mad" && i.has("wide")) {
            return self.arith64_int(i, t, out);
        }
        match (op, t) {
            ("mul" | "mad", _) if i.has("wide") => return self.mul_wide(i, t, out),
            _ => {}
        }
        // A negation its one reader takes in: nothing to issue (see
        // `Kern::negs`).
        if op == "neg" && t == "f32" && self.folded_dst(i) {
            return Ok(());
        }
        let signed = t.starts_with('s');
        let half = matches!(t, "f16");
        let bf = t == "bf16";
        let d = self.dst_word(i, 0)?;
        let bin = |k: BinOp| Some(k);
        let bop: Option<BinOp> = match (op, float) {
            ("add", false) => bin(BinOp::AddU32),
            ("sub", false) => bin(BinOp::SubU32),
            ("mul", false) if i.has("hi") => bin(if signed {
                BinOp::MulHiI32
            } else {
                BinOp::MulHiU32
            }),
            ("mul", false) => bin(BinOp::MulU32),
            ("div", false) => bin(if signed { BinOp::DivI32 } else { BinOp::DivU32 }),
            ("rem", false) => bin(if signed { BinOp::RemI32 } else { BinOp::RemU32 }),
            ("min", false) => bin(if signed { BinOp::MinI32 } else { BinOp::MinU32 }),
            ("max", false) => bin(if signed { BinOp::MaxI32 } else { BinOp::MaxU32 }),
            ("and", _) => bin(BinOp::And),
            ("or", _) => bin(BinOp::Or),
            ("xor", _) => bin(BinOp::Xor),
            ("add", true) if half => bin(BinOp::AddF16),
            ("sub", true) if half => bin(BinOp::SubF16),
            ("mul", true) if half => bin(BinOp::MulF16),
            ("add", true) if bf => bin(BinOp::AddBf16),
            ("sub", true) if bf => bin(BinOp::SubBf16),
            ("mul", true) if bf => bin(BinOp::MulBf16),
            ("add", true) if t == "f32" => bin(BinOp::AddF32),
            ("sub", true) if t == "f32" => bin(BinOp::SubF32),
            ("mul", true) if t == "f32" => bin(BinOp::MulF32),
            ("div", true) if t == "f32" => bin(BinOp::DivF32),
            ("min", true) if t == "f32" => bin(BinOp::MinF32),
            ("max", true) if t == "f32" => bin(BinOp::MaxF32),
            _ => None,
        };
        if let Some(bop) = bop {
            return self.binary32(i, t, bop, d, out);
        }
        match op {
            "shl" | "shr" => self.shift32(i, t, d, out),
            "mad" | "fma" => self.mad_fma(i, t, d, out),
            _ => self.unary32(i, t, d, out),
        }
    }

    /// `not`, `and`, `or` and `xor` of predicates.
    fn predicate_logic(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let (at, op) = (i.at, i.op.as_str());
        let Some(d) = self.dst_pred(self.arg(i, 0)?)? else {
            return Ok(());
        };
        let a = self.pred(i, 1, out)?;
        if op == "not" {
            self.emit(out, at, S::MaskNot { dst: d, a });
            return Ok(());
        }
        let b = self.pred(i, 2, out)?;
        let mop = match op {
            "and" => MaskOp::And,
            "or" => MaskOp::Or,
            "xor" => MaskOp::Xor,
            _ => return Err(unsupported(i, "on predicates")),
        };
        self.emit(
            out,
            at,
            S::MaskBinary {
                op: mop,
                dst: d,
                a,
                b,
            },
        );
        Ok(())
    }

    /// The one-operand 32-bit and half operations (`neg`, `abs`, `not`,
    /// `sqrt`, `rcp`, `rsqrt`) and `copysign`, into `d`.
    fn unary32(&mut self, i: &Inst, t: &str, d: VReg, out: &mut Vec<Code>) -> R<()> {
        let (at, op) = (i.at, i.op.as_str());
        let float = t.starts_with('f') || t == "bf16";
        match op {
            "neg" | "abs" | "not" | "sqrt" => {
                let a = self.word(i, 1, out)?;
                let u = match (op, t) {
                    ("not", _) => UnOp::Not,
                    ("neg", "f32") => UnOp::NegF32,
                    ("abs", "f32") => UnOp::AbsF32,
                    ("neg", "f16" | "bf16") => {
                        self.emit(
                            out,
                            at,
                            S::VBinary {
                                op: BinOp::Xor,
                                dst: d,
                                a,
                                b: Operand::Imm(0x8000),
                            },
                        );
                        return Ok(());
                    }
                    ("abs", "f16" | "bf16") => {
                        self.emit(
                            out,
                            at,
                            S::VBinary {
                                op: BinOp::And,
                                dst: d,
                                a,
                                b: Operand::Imm(0x7fff),
                            },
                        );
                        return Ok(());
                    }
                    ("neg", _) if !float => UnOp::NegI32,
                    ("abs", _) if !float => UnOp::AbsI32,
                    ("sqrt", "f32") => UnOp::SqrtF32,
                    _ => return Err(unsupported(i, "this type")),
                };
                self.emit(out, at, S::VUnary { op: u, dst: d, a });
                Ok(())
            }
            "rcp" if t == "f32" => {
                let a = self.word(i, 1, out)?;
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::DivF32,
                        dst: d,
                        a: Operand::Imm(F32_ONE),
                        b: a,
                    },
                );
                Ok(())
            }
            "rsqrt" if t == "f32" => {
                let a = self.word(i, 1, out)?;
                let s = self.new_v(1);
                self.emit(
                    out,
                    at,
                    S::VUnary {
                        op: UnOp::SqrtF32,
                        dst: s,
                        a,
                    },
                );
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::DivF32,
                        dst: d,
                        a: Operand::Imm(F32_ONE),
                        b: Operand::V(s),
                    },
                );
                Ok(())
            }
            "copysign" if t == "f32" => {
                // copysign.f32 d, a, b: b's magnitude with a's sign.
                let a = self.word(i, 1, out)?;
                let b = self.word(i, 2, out)?;
                let s = self.new_v(1);
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::And,
                        dst: s,
                        a,
                        b: Operand::Imm(0x8000_0000),
                    },
                );
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::And,
                        dst: d,
                        a: b,
                        b: Operand::Imm(0x7fff_ffff),
                    },
                );
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::Or,
                        dst: d,
                        a: Operand::V(d),
                        b: Operand::V(s),
                    },
                );
                Ok(())
            }
            _ => Err(unsupported(i, "this operation and type")),
        }
    }

    /// A two-operand 32-bit or half operation `bop` (`add`, `min`, `and`,
    /// ...): a negated operand folded in, `min.NaN`/`max.NaN`, `.sat`; the
    /// other `min`/`max` variants refused.
    fn binary32(&mut self, i: &Inst, t: &str, bop: BinOp, d: VReg, out: &mut Vec<Code>) -> R<()> {
        let (at, op) = (i.at, i.op.as_str());
        if (matches!(op, "min" | "max") && (i.has("xorsign") || i.has("abs")))
            || (i.has("NaN") && t != "f32")
            || (op == "min" && i.has("relu"))
            || (op == "max" && i.has("relu"))
        {
            return Err(unsupported(i, "this variant"));
        }
        // `a + (-x)` is `a - x`, `(-x) + b` is `b - x`, `a - (-x)` is
        // `a + x`, each exactly.
        let (bop, a, b) = match (bop, self.fold(i, 1), self.fold(i, 2)) {
            (BinOp::AddF32, _, Some(x)) => (
                BinOp::SubF32,
                self.word(i, 1, out)?,
                self.word_of(&x, i, out)?,
            ),
            (BinOp::AddF32, Some(x), _) => (
                BinOp::SubF32,
                self.word(i, 2, out)?,
                self.word_of(&x, i, out)?,
            ),
            (BinOp::SubF32, _, Some(x)) => (
                BinOp::AddF32,
                self.word(i, 1, out)?,
                self.word_of(&x, i, out)?,
            ),
            _ => (bop, self.word(i, 1, out)?, self.word(i, 2, out)?),
        };
        if i.has("NaN") {
            // `min.NaN` / `max.NaN`: the canonical NaN where either
            // operand is NaN (`x != x`), else the plain result.
            let r = self.tmp_bin(bop, a, b, at, out);
            let (na, nb, m) = (self.new_m(), self.new_m(), self.new_m());
            self.emit(
                out,
                at,
                S::VCmp {
                    op: CmpOp::Ne,
                    ty: CmpType::F32,
                    dst: na,
                    a,
                    b: a,
                },
            );
            self.emit(
                out,
                at,
                S::VCmp {
                    op: CmpOp::Ne,
                    ty: CmpType::F32,
                    dst: nb,
                    a: b,
                    b,
                },
            );
            self.emit(
                out,
                at,
                S::MaskBinary {
                    op: MaskOp::Or,
                    dst: m,
                    a: na,
                    b: nb,
                },
            );
            self.emit(
                out,
                at,
                S::VSelect {
                    dst: d,
                    mask: m,
                    on_true: Operand::Imm(0x7fff_ffff),
                    on_false: r,
                },
            );
            return Ok(());
        }
        self.emit(
            out,
            at,
            S::VBinary {
                op: bop,
                dst: d,
                a,
                b,
            },
        );
        if i.has("sat") {
            self.saturate(d, at, out);
        }
        Ok(())
    }

    /// `shl`/`shr` of 32- and 16-bit values, the amount clamped to the width as
    /// PTX clamps it.
    fn shift32(&mut self, i: &Inst, t: &str, d: VReg, out: &mut Vec<Code>) -> R<()> {
        let (at, op) = (i.at, i.op.as_str());
        let a = self.word(i, 1, out)?;
        let b = self.word(i, 2, out)?;
        let k = match t {
            "s32" if op == "shr" => BinOp::ShrI32,
            _ if op == "shr" => BinOp::ShrU32,
            _ => BinOp::Shl,
        };
        if matches!(t, "b16" | "u16" | "s16") {
            // The value extended to 32 bits (by its sign for
            // `shr.s16`), shifted by the amount clamped to 16: every
            // bit out at 16 and past, as PTX clamps it.
            let arith = t == "s16" && op == "shr";
            let x = self.extend(a, 16, arith, at, out);
            let n = match b {
                Operand::Imm(n) => Operand::Imm(n.min(16)),
                b => self.tmp_bin(BinOp::MinU32, b, Operand::Imm(16), at, out),
            };
            let k = match op {
                "shl" => BinOp::Shl,
                _ if arith => BinOp::ShrI32,
                _ => BinOp::ShrU32,
            };
            self.emit(
                out,
                at,
                S::VBinary {
                    op: k,
                    dst: d,
                    a: x,
                    b: n,
                },
            );
            return Ok(());
        }
        match b {
            Operand::Imm(n) if n >= 32 => {
                // PTX clamps the amount: all bits out (signs for `shr.s32`).
                let (kk, by) = if k == BinOp::ShrI32 {
                    (BinOp::ShrI32, 31)
                } else {
                    (BinOp::And, 0)
                };
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: kk,
                        dst: d,
                        a,
                        b: Operand::Imm(by),
                    },
                );
            }
            Operand::Imm(_) => self.emit(
                out,
                at,
                S::VBinary {
                    op: k,
                    dst: d,
                    a,
                    b,
                },
            ),
            _ if k == BinOp::ShrI32 => {
                // Amounts past 31 shift in signs only: clamp to 31.
                let c = self.new_v(1);
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::MinU32,
                        dst: c,
                        a: b,
                        b: Operand::Imm(31),
                    },
                );
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: k,
                        dst: d,
                        a,
                        b: Operand::V(c),
                    },
                );
            }
            _ => {
                // Amounts past 31 shift every bit out.
                let m = self.new_m();
                let r = self.new_v(1);
                self.emit(
                    out,
                    at,
                    S::VCmp {
                        op: CmpOp::Lt,
                        ty: CmpType::U32,
                        dst: m,
                        a: b,
                        b: Operand::Imm(32),
                    },
                );
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: k,
                        dst: r,
                        a,
                        b,
                    },
                );
                self.emit(
                    out,
                    at,
                    S::VSelect {
                        dst: d,
                        mask: m,
                        on_true: Operand::V(r),
                        on_false: Operand::Imm(0),
                    },
                );
            }
        }
        Ok(())
    }

    /// `mad` and `fma` of 32-bit and half values (the wide forms apart).
    fn mad_fma(&mut self, i: &Inst, t: &str, d: VReg, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let float = t.starts_with('f') || t == "bf16";
        let signed = t.starts_with('s');
        let mut a = self.word(i, 1, out)?;
        let mut b = self.word(i, 2, out)?;
        let mut c = self.word(i, 3, out)?;
        // A negated addend makes a fused multiply-subtract; a
        // negated multiplicand beside an immediate negates the
        // immediate instead. Both exact.
        let mut subtract = false;
        if t == "f32" {
            let flip = |o: Operand| match o {
                Operand::Imm(v) => Operand::Imm(v ^ 0x8000_0000),
                o => o,
            };
            match (self.fold(i, 1), self.fold(i, 2), self.fold(i, 3)) {
                (_, _, Some(x)) => {
                    c = self.word_of(&x, i, out)?;
                    subtract = true;
                }
                (Some(x), _, _) => {
                    a = self.word_of(&x, i, out)?;
                    b = flip(b);
                }
                (_, Some(x), _) => {
                    b = self.word_of(&x, i, out)?;
                    a = flip(a);
                }
                _ => {}
            }
        }
        if !float && i.has("hi") {
            let h = self.new_v(1);
            let k = if signed {
                BinOp::MulHiI32
            } else {
                BinOp::MulHiU32
            };
            self.emit(
                out,
                at,
                S::VBinary {
                    op: k,
                    dst: h,
                    a,
                    b,
                },
            );
            self.emit(
                out,
                at,
                S::VBinary {
                    op: BinOp::AddU32,
                    dst: d,
                    a: Operand::V(h),
                    b: c,
                },
            );
            return Ok(());
        }
        let top = match t {
            "f32" if subtract => TernOp::FmsF32,
            "f32" => TernOp::FmaF32,
            "f16" => TernOp::FmaF16,
            "bf16" => TernOp::FmaBf16,
            _ if !float => TernOp::MadU32,
            _ => return Err(unsupported(i, "this type")),
        };
        self.emit(
            out,
            at,
            S::VTernary {
                op: top,
                dst: d,
                a,
                b,
                c,
            },
        );
        if i.has("sat") {
            self.saturate(d, at, out);
        }
        Ok(())
    }

    /// `add`, `sub`, `mul`, `fma`, `div`, `rcp` or `sqrt` of `f32`s rounded
    /// toward `mode` (`rz`, `rm`, `rp`), exactly: the first four as one fused
    /// multiply-add rounded that way (`a * 1 + b`, `b * -1 + a`, and `a * b`
    /// plus a zero of the sign that keeps the product's zero), the others in
    /// `f64` then narrowed that way, since an `f64` quotient or square root
    /// of `f32`s falls on an `f32` only when it is exact.
    fn directed_f32(&mut self, i: &Inst, op: &str, mode: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let d = self.dst_word(i, 0)?;
        let fma = match mode {
            "rz" => TernOp::FmaRzF32,
            "rm" => TernOp::FmaRmF32,
            _ => TernOp::FmaRpF32,
        };
        let one = Operand::Imm(F32_ONE);
        let (a, b, c) = match op {
            "add" => (self.word(i, 1, out)?, one, self.word(i, 2, out)?),
            "sub" => (
                self.word(i, 2, out)?,
                Operand::Imm((-1.0f32).to_bits()),
                self.word(i, 1, out)?,
            ),
            // An exact zero product plus `-0.0` keeps its sign except
            // rounding down, where `+0.0` does.
            "mul" => {
                let zero = if mode == "rm" { 0.0f32 } else { -0.0 };
                (
                    self.word(i, 1, out)?,
                    self.word(i, 2, out)?,
                    Operand::Imm(zero.to_bits()),
                )
            }
            "fma" | "mad" => (
                self.word(i, 1, out)?,
                self.word(i, 2, out)?,
                self.word(i, 3, out)?,
            ),
            _ => {
                let wide = |s: &mut Self, a: Operand, out: &mut Vec<Code>| {
                    let p = s.new_v(2);
                    s.emit(
                        out,
                        at,
                        S::VWiden {
                            op: WidenOp::CvtF64F32,
                            dst: p,
                            a,
                        },
                    );
                    p
                };
                let x = self.word(i, 1, out)?;
                let q = self.new_v(2);
                if op == "sqrt" {
                    let a = wide(self, x, out);
                    self.emit(
                        out,
                        at,
                        S::VUnary64 {
                            op: Un64Op::SqrtF64,
                            dst: q,
                            a,
                        },
                    );
                } else {
                    let (a, b) = if op == "rcp" {
                        (self.pair_imm(1f64.to_bits(), at, out), wide(self, x, out))
                    } else {
                        let y = self.word(i, 2, out)?;
                        (wide(self, x, out), wide(self, y, out))
                    };
                    self.emit(
                        out,
                        at,
                        S::VBinary64 {
                            op: Bin64Op::DivF64,
                            dst: q,
                            a,
                            b,
                        },
                    );
                }
                self.emit(
                    out,
                    at,
                    S::VNarrow {
                        op: narrow_toward(mode),
                        dst: d,
                        a: q,
                    },
                );
                if i.has("sat") {
                    self.saturate(d, at, out);
                }
                return Ok(());
            }
        };
        self.emit(
            out,
            at,
            S::VTernary {
                op: fma,
                dst: d,
                a,
                b,
                c,
            },
        );
        if i.has("sat") {
            self.saturate(d, at, out);
        }
        Ok(())
    }

    /// `add`, `sub`, `mul`, `fma`, `div`, `rcp` or `sqrt` of `f64`s rounded
    /// toward `mode`: the first four as one fused multiply-add rounded that
    /// way, as [`Self::directed_f32`] does, the others as simt's directed
    /// quotient and square root (`rcp` the quotient of 1).
    fn directed_f64(&mut self, i: &Inst, op: &str, mode: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let d = self.dst_pair(i, 0)?;
        let (fma, div, sqrt) = match mode {
            "rz" => (Tern64Op::FmaRzF64, Bin64Op::DivRzF64, Un64Op::SqrtRzF64),
            "rm" => (Tern64Op::FmaRmF64, Bin64Op::DivRmF64, Un64Op::SqrtRmF64),
            _ => (Tern64Op::FmaRpF64, Bin64Op::DivRpF64, Un64Op::SqrtRpF64),
        };
        let inst = match op {
            "sqrt" => S::VUnary64 {
                op: sqrt,
                dst: d,
                a: self.pair(i, 1, false, out)?,
            },
            "div" | "rcp" => {
                let (a, b) = if op == "rcp" {
                    (
                        self.pair_imm(1f64.to_bits(), at, out),
                        self.pair(i, 1, false, out)?,
                    )
                } else {
                    (self.pair(i, 1, false, out)?, self.pair(i, 2, false, out)?)
                };
                S::VBinary64 {
                    op: div,
                    dst: d,
                    a,
                    b,
                }
            }
            _ => {
                let (a, b, c) = match op {
                    "add" => (
                        self.pair(i, 1, false, out)?,
                        self.pair_imm(1f64.to_bits(), at, out),
                        self.pair(i, 2, false, out)?,
                    ),
                    "sub" => (
                        self.pair(i, 2, false, out)?,
                        self.pair_imm((-1f64).to_bits(), at, out),
                        self.pair(i, 1, false, out)?,
                    ),
                    // An exact zero product plus `-0.0` keeps its sign
                    // except rounding down, where `+0.0` does.
                    "mul" => {
                        let zero = if mode == "rm" { 0.0f64 } else { -0.0 };
                        (
                            self.pair(i, 1, false, out)?,
                            self.pair(i, 2, false, out)?,
                            self.pair_imm(zero.to_bits(), at, out),
                        )
                    }
                    _ => (
                        self.pair(i, 1, false, out)?,
                        self.pair(i, 2, false, out)?,
                        self.pair(i, 3, false, out)?,
                    ),
                };
                S::VTernary64 {
                    op: fma,
                    dst: d,
                    a,
                    b,
                    c,
                }
            }
        };
        self.emit(out, at, inst);
        Ok(())
    }

    /// `add.sat.s32` and `sub.sat.s32`: the wrapped result, unless it
    /// overflowed (operands of one sign giving the other, for `add`; of
    /// different signs with the result's not the first's, for `sub`), when
    /// it is the bound on the first operand's side. `mad.hi.sat.s32` is the
    /// high word of the product, then a saturating `add` of the addend.
    fn saturating_s32(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let d = self.dst_word(i, 0)?;
        let a = self.word(i, 1, out)?;
        let b = self.word(i, 2, out)?;
        let (a, b) = if i.op == "mad" {
            let high = self.tmp_bin(BinOp::MulHiI32, a, b, at, out);
            (high, self.word(i, 3, out)?)
        } else {
            (a, b)
        };
        let add = i.op != "sub";
        let op = if add { BinOp::AddU32 } else { BinOp::SubU32 };
        let r = self.tmp_bin(op, a, b, at, out);
        let ar = self.tmp_bin(BinOp::Xor, a, r, at, out);
        let other = if add {
            self.tmp_bin(BinOp::Xor, b, r, at, out)
        } else {
            self.tmp_bin(BinOp::Xor, a, b, at, out)
        };
        let over = self.tmp_bin(BinOp::And, ar, other, at, out);
        let sign = self.tmp_bin(BinOp::ShrI32, a, Operand::Imm(31), at, out);
        let bound = self.tmp_bin(BinOp::Xor, sign, Operand::Imm(i32::MAX as u32), at, out);
        let m = self.new_m();
        self.emit(
            out,
            at,
            S::VCmp {
                op: CmpOp::Lt,
                ty: CmpType::I32,
                dst: m,
                a: over,
                b: Operand::Imm(0),
            },
        );
        self.emit(
            out,
            at,
            S::VSelect {
                dst: d,
                mask: m,
                on_true: bound,
                on_false: r,
            },
        );
        Ok(())
    }

    /// Clamps the integer in `d` (read as `st`, 32 bits or fewer) to the
    /// range of `dt` (fewer bits, or another signedness): PTX's `.sat` on an
    /// integer conversion, and every float to integer conversion.
    fn clamp_int(&mut self, d: VReg, dt: &str, st: &str, at: Pos, out: &mut Vec<Code>) {
        let bits = crate::parse::type_size(dt).unwrap_or(4) * 8;
        let (lo, hi): (i64, i64) = if dt.starts_with('s') {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        let x = Operand::V(d);
        let mut ops: Vec<(BinOp, u32)> = Vec::new();
        if st.starts_with('s') {
            if lo > i64::from(i32::MIN) {
                ops.push((BinOp::MaxI32, lo as i32 as u32));
            }
            if hi < i64::from(i32::MAX) {
                ops.push((BinOp::MinI32, hi as u32));
            }
        } else if hi < i64::from(u32::MAX) {
            ops.push((BinOp::MinU32, hi as u32));
        }
        for (op, bound) in ops {
            self.emit(
                out,
                at,
                S::VBinary {
                    op,
                    dst: d,
                    a: x,
                    b: Operand::Imm(bound),
                },
            );
        }
    }

    /// `d = min(max(d, 0), 1) + 0`: `.sat` on an `f32` result. NaN becomes
    /// 0, and so does a zero of either sign (adding +0 makes -0 +0): a
    /// negative value rounded to -0 clamps to +0, as clamping the exact
    /// value would.
    fn saturate(&mut self, d: VReg, at: Pos, out: &mut Vec<Code>) {
        self.emit(
            out,
            at,
            S::VBinary {
                op: BinOp::MaxF32,
                dst: d,
                a: Operand::V(d),
                b: Operand::Imm(0),
            },
        );
        self.emit(
            out,
            at,
            S::VBinary {
                op: BinOp::MinF32,
                dst: d,
                a: Operand::V(d),
                b: Operand::Imm(F32_ONE),
            },
        );
        self.emit(
            out,
            at,
            S::VBinary {
                op: BinOp::AddF32,
                dst: d,
                a: Operand::V(d),
                b: Operand::Imm(0),
            },
        );
    }

    /// `mul.wide` and `mad.wide` of 32-bit operands: a 64-bit result (its
    /// low word alone where only addresses read it).
    fn mul_wide(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let signed = t.starts_with('s');
        let a = self.word(i, 1, out)?;
        let b = self.word(i, 2, out)?;
        let mad = i.op == "mad";
        if !self.is_pair(i, 0) {
            let d = self.dst_word(i, 0)?;
            if mad {
                let c = self.word(i, 3, out)?;
                self.emit(
                    out,
                    at,
                    S::VTernary {
                        op: TernOp::MadU32,
                        dst: d,
                        a,
                        b,
                        c,
                    },
                );
            } else {
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::MulU32,
                        dst: d,
                        a,
                        b,
                    },
                );
            }
            return Ok(());
        }
        let d = self.dst_pair(i, 0)?;
        let hi = if signed {
            BinOp::MulHiI32
        } else {
            BinOp::MulHiU32
        };
        if mad {
            let c = self.pair(i, 3, signed, out)?;
            let p = self.new_v(2);
            self.emit(
                out,
                at,
                S::VBinary {
                    op: BinOp::MulU32,
                    dst: p,
                    a,
                    b,
                },
            );
            self.emit(
                out,
                at,
                S::VBinary {
                    op: hi,
                    dst: VReg(p.0 + 1),
                    a,
                    b,
                },
            );
            self.emit(
                out,
                at,
                S::VBinary64 {
                    op: Bin64Op::AddU64,
                    dst: d,
                    a: p,
                    b: c,
                },
            );
        } else {
            // The high word first: `d`'s low word may be an operand.
            let h = self.new_v(1);
            self.emit(
                out,
                at,
                S::VBinary {
                    op: hi,
                    dst: h,
                    a,
                    b,
                },
            );
            self.emit(
                out,
                at,
                S::VBinary {
                    op: BinOp::MulU32,
                    dst: d,
                    a,
                    b,
                },
            );
            self.emit(
                out,
                at,
                S::VUnary {
                    op: UnOp::Mov,
                    dst: VReg(d.0 + 1),
                    a: Operand::V(h),
                },
            );
        }
        Ok(())
    }

    /// 64-bit integer arithmetic: on the low words where only addresses read
    /// the result (and pointer arithmetic, on offsets), else on pairs.
    fn arith64_int(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let op = i.op.as_str();
        let low_only = matches!(
            op,
            "add" | "sub" | "and" | "or" | "xor" | "shl" | "neg" | "not"
        ) || (matches!(op, "mul" | "mad") && !i.has("hi"));
        if !self.is_pair(i, 0) && low_only {
            // Low words: the operations whose low result word depends only on
            // the operands' low words (the analysis kept the rest as pairs).
            let d = self.dst_word(i, 0)?;
            let a = self.word(i, 1, out)?;
            let k = match op {
                "add" => BinOp::AddU32,
                "sub" => BinOp::SubU32,
                "mul" if !i.has("hi") => BinOp::MulU32,
                "and" => BinOp::And,
                "or" => BinOp::Or,
                "xor" => BinOp::Xor,
                "shl" => BinOp::Shl,
                "neg" => {
                    self.emit(
                        out,
                        at,
                        S::VUnary {
                            op: UnOp::NegI32,
                            dst: d,
                            a,
                        },
                    );
                    return Ok(());
                }
                "not" => {
                    self.emit(
                        out,
                        at,
                        S::VUnary {
                            op: UnOp::Not,
                            dst: d,
                            a,
                        },
                    );
                    return Ok(());
                }
                "mad" if !i.has("hi") => {
                    let b = self.word(i, 2, out)?;
                    let c = self.word(i, 3, out)?;
                    self.emit(
                        out,
                        at,
                        S::VTernary {
                            op: TernOp::MadU32,
                            dst: d,
                            a,
                            b,
                            c,
                        },
                    );
                    return Ok(());
                }
                _ => return Err(unsupported(i, "on a 64-bit address")),
            };
            let b = self.word(i, 2, out)?;
            if k == BinOp::Shl {
                if let Operand::Imm(n) = b {
                    if n >= 32 {
                        self.emit(
                            out,
                            at,
                            S::VUnary {
                                op: UnOp::Mov,
                                dst: d,
                                a: Operand::Imm(0),
                            },
                        );
                        return Ok(());
                    }
                } else {
                    // The low word of a shift by a register amount: shifted
                    // below 32 (simt's shifts take the amount modulo 32),
                    // all out at 32 or more.
                    let small = self.new_m();
                    self.emit(
                        out,
                        at,
                        S::VCmp {
                            op: CmpOp::Lt,
                            ty: CmpType::U32,
                            dst: small,
                            a: b,
                            b: Operand::Imm(32),
                        },
                    );
                    let shifted = self.tmp_bin(BinOp::Shl, a, b, at, out);
                    self.emit(
                        out,
                        at,
                        S::VSelect {
                            dst: d,
                            mask: small,
                            on_true: shifted,
                            on_false: Operand::Imm(0),
                        },
                    );
                    return Ok(());
                }
            }
            self.emit(
                out,
                at,
                S::VBinary {
                    op: k,
                    dst: d,
                    a,
                    b,
                },
            );
            return Ok(());
        }
        // On pairs; a result kept as its low word (a shift's or a
        // quotient's, whose low word depends on the high words) takes the
        // pair's low word.
        let (d, low) = self.dst_wide(i)?;
        self.arith64_pair(i, t, d, out)?;
        self.low_word_back(d, low, at, out);
        Ok(())
    }

    /// 64-bit integer arithmetic on pairs, into the pair `d`.
    fn arith64_pair(&mut self, i: &Inst, t: &str, d: VReg, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let op = i.op.as_str();
        let signed = t.starts_with('s');
        let a = self.pair(i, 1, signed, out)?;
        let k = match op {
            "add" => Bin64Op::AddU64,
            "sub" => Bin64Op::SubU64,
            "mul" if !i.has("hi") => Bin64Op::MulU64,
            "min" => {
                if signed {
                    Bin64Op::MinI64
                } else {
                    Bin64Op::MinU64
                }
            }
            "max" => {
                if signed {
                    Bin64Op::MaxI64
                } else {
                    Bin64Op::MaxU64
                }
            }
            "and" => Bin64Op::And,
            "or" => Bin64Op::Or,
            "xor" => Bin64Op::Xor,
            "neg" => {
                self.emit(
                    out,
                    at,
                    S::VUnary64 {
                        op: Un64Op::NegI64,
                        dst: d,
                        a,
                    },
                );
                return Ok(());
            }
            "not" => {
                let ones = self.pair_imm(u64::MAX, at, out);
                self.emit(
                    out,
                    at,
                    S::VBinary64 {
                        op: Bin64Op::Xor,
                        dst: d,
                        a,
                        b: ones,
                    },
                );
                return Ok(());
            }
            "mad" if !i.has("hi") => {
                let b = self.pair(i, 2, signed, out)?;
                let c = self.pair(i, 3, signed, out)?;
                self.emit(
                    out,
                    at,
                    S::VTernary64 {
                        op: Tern64Op::MadU64,
                        dst: d,
                        a,
                        b,
                        c,
                    },
                );
                return Ok(());
            }
            "shl" | "shr" => return self.shift64(i, d, a, out),
            _ => return Err(unsupported(i, "on 64-bit integers")),
        };
        let b = self.pair(i, 2, signed, out)?;
        self.emit(
            out,
            at,
            S::VBinary64 {
                op: k,
                dst: d,
                a,
                b,
            },
        );
        Ok(())
    }

    /// A 64-bit shift by a register amount, on the pair's words: PTX clamps
    /// the amount `m` to 64 (to 63 for `shr.s64`, which then fills with the
    /// sign). Each word is worked out for `m` below 32 and for `m` of 32 or
    /// more, and compares pick. simt's shifts take their amount modulo 32,
    /// so the bits crossing between words shift by one and then by `31 - m`,
    /// and a word shifted out whole (`m` of 64) is a zero picked.
    fn shift64_by(&mut self, i: &Inst, d: VReg, a: VReg, out: &mut Vec<Code>) -> R<()> {
        let n = self.word(i, 2, out)?;
        let signed = types(i).last() == Some(&"s64");
        let shift = Shift {
            at: i.at,
            left: i.op == "shl",
            signed,
        };
        self.shift64_reg(shift, n, d, a, out);
        Ok(())
    }

    /// The pair `a` shifted left (or right, by its sign when `signed`) by
    /// the amount `n` into the pair `d`, as [`Self::shift64_by`] says.
    fn shift64_reg(&mut self, shift: Shift, n: Operand, d: VReg, a: VReg, out: &mut Vec<Code>) {
        let Shift { at, left, signed } = shift;
        let (lo, hi) = (Operand::V(a), Operand::V(VReg(a.0 + 1)));
        let limit = if signed { 63 } else { 64 };
        let m = self.tmp_bin(BinOp::MinU32, n, Operand::Imm(limit), at, out);
        let mask = |s: &mut Self, bound: u32, out: &mut Vec<Code>| {
            let k = s.new_m();
            s.emit(
                out,
                at,
                S::VCmp {
                    op: CmpOp::Lt,
                    ty: CmpType::U32,
                    dst: k,
                    a: m,
                    b: Operand::Imm(bound),
                },
            );
            k
        };
        let (small, inside) = (mask(self, 32, out), mask(self, 64, out));
        let back = self.tmp_bin(BinOp::SubU32, Operand::Imm(31), m, at, out);
        let past = self.tmp_bin(BinOp::SubU32, m, Operand::Imm(32), at, out);
        let (from, into) = if left { (lo, hi) } else { (hi, lo) };
        let (cross, along) = if left {
            (BinOp::ShrU32, BinOp::Shl)
        } else {
            (BinOp::Shl, BinOp::ShrU32)
        };
        // `m` below 32: the word bits enter gets `from`'s crossing bits.
        let once = self.tmp_bin(cross, from, Operand::Imm(1), at, out);
        let crossing = self.tmp_bin(cross, once, back, at, out);
        let into_shifted = self.tmp_bin(along, into, m, at, out);
        let into_small = self.tmp_bin(BinOp::Or, into_shifted, crossing, at, out);
        let far = if signed { BinOp::ShrI32 } else { along };
        let from_small = self.tmp_bin(far, from, m, at, out);
        // `m` of 32 or more: `from` moved whole into the other word, and
        // zeros or signs left behind.
        let into_big = self.tmp_bin(far, from, past, at, out);
        let from_big = if signed {
            self.tmp_bin(BinOp::ShrI32, from, Operand::Imm(31), at, out)
        } else {
            Operand::Imm(0)
        };
        let into_far = self.new_v(1);
        self.emit(
            out,
            at,
            S::VSelect {
                dst: into_far,
                mask: inside,
                on_true: into_big,
                on_false: from_big,
            },
        );
        let (d_from, d_into) = if left {
            (d, VReg(d.0 + 1))
        } else {
            (VReg(d.0 + 1), d)
        };
        self.emit(
            out,
            at,
            S::VSelect {
                dst: d_from,
                mask: small,
                on_true: from_small,
                on_false: from_big,
            },
        );
        self.emit(
            out,
            at,
            S::VSelect {
                dst: d_into,
                mask: small,
                on_true: into_small,
                on_false: Operand::V(into_far),
            },
        );
    }

    /// A 64-bit shift by a constant, on the pair's words.
    fn shift64(&mut self, i: &Inst, d: VReg, a: VReg, out: &mut Vec<Code>) -> R<()> {
        let Some(Arg::Int(n, _)) = i.args.get(2) else {
            return self.shift64_by(i, d, a, out);
        };
        let signed = types(i).last() == Some(&"s64");
        let n = (*n).min(64) as u32;
        let shift = Shift {
            at: i.at,
            left: i.op == "shl",
            signed,
        };
        self.shift64_imm(shift, n, d, a, out);
        Ok(())
    }

    /// The pair `a` shifted left (or right, by its sign when `signed`) by
    /// `n` (at most 64) into the pair `d`.
    fn shift64_imm(&mut self, shift: Shift, n: u32, d: VReg, a: VReg, out: &mut Vec<Code>) {
        let Shift { at, left, signed } = shift;
        let (lo, hi) = (Operand::V(a), Operand::V(VReg(a.0 + 1)));
        let (dl, dh) = (d, VReg(d.0 + 1));
        let t1 = self.new_v(1);
        let t2 = self.new_v(1);
        let bin = |op, dst, a, b| S::VBinary { op, dst, a, b };
        let mov = |dst, a| S::VUnary {
            op: UnOp::Mov,
            dst,
            a,
        };
        // A shift by 32 or more: the other word shifted by the rest.
        let rest = Operand::Imm(n.saturating_sub(32).min(31));
        match (if left { "shl" } else { "shr" }, n) {
            (_, 0) => {
                self.emit(
                    out,
                    at,
                    S::VUnary64 {
                        op: Un64Op::Mov,
                        dst: d,
                        a,
                    },
                );
            }
            ("shl", n) if n < 32 => {
                self.emit(out, at, bin(BinOp::ShrU32, t1, lo, Operand::Imm(32 - n)));
                self.emit(out, at, bin(BinOp::Shl, t2, hi, Operand::Imm(n)));
                self.emit(out, at, bin(BinOp::Shl, dl, lo, Operand::Imm(n)));
                self.emit(out, at, bin(BinOp::Or, dh, Operand::V(t1), Operand::V(t2)));
            }
            ("shl", n) => {
                let s = if n >= 64 { Operand::Imm(0) } else { lo };
                self.emit(out, at, bin(BinOp::Shl, dh, s, rest));
                self.emit(out, at, mov(dl, Operand::Imm(0)));
            }
            (_, n) if n < 32 => {
                let k = if signed { BinOp::ShrI32 } else { BinOp::ShrU32 };
                self.emit(out, at, bin(BinOp::Shl, t1, hi, Operand::Imm(32 - n)));
                self.emit(out, at, bin(BinOp::ShrU32, t2, lo, Operand::Imm(n)));
                self.emit(out, at, bin(k, dh, hi, Operand::Imm(n)));
                self.emit(out, at, bin(BinOp::Or, dl, Operand::V(t1), Operand::V(t2)));
            }
            (_, n) => {
                if signed {
                    self.emit(out, at, bin(BinOp::ShrI32, dl, hi, rest));
                    self.emit(out, at, bin(BinOp::ShrI32, dh, hi, Operand::Imm(31)));
                } else {
                    let s = if n >= 64 { Operand::Imm(0) } else { hi };
                    self.emit(out, at, bin(BinOp::ShrU32, dl, s, rest));
                    self.emit(out, at, mov(dh, Operand::Imm(0)));
                }
            }
        }
    }

    fn pair_imm(&mut self, n: u64, at: Pos, out: &mut Vec<Code>) -> VReg {
        let p = self.new_v(2);
        self.emit(
            out,
            at,
            S::VUnary {
                op: UnOp::Mov,
                dst: p,
                a: Operand::Imm(n as u32),
            },
        );
        self.emit(
            out,
            at,
            S::VUnary {
                op: UnOp::Mov,
                dst: VReg(p.0 + 1),
                a: Operand::Imm((n >> 32) as u32),
            },
        );
        p
    }

    fn arith64_float(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let d = self.dst_pair(i, 0)?;
        let a = self.pair(i, 1, false, out)?;
        let k = match i.op.as_str() {
            "add" => Bin64Op::AddF64,
            "sub" => Bin64Op::SubF64,
            "mul" => Bin64Op::MulF64,
            "div" => Bin64Op::DivF64,
            "min" => Bin64Op::MinF64,
            "max" => Bin64Op::MaxF64,
            "neg" | "abs" | "sqrt" => {
                let u = match i.op.as_str() {
                    "neg" => Un64Op::NegF64,
                    "abs" => Un64Op::AbsF64,
                    _ => Un64Op::SqrtF64,
                };
                self.emit(out, at, S::VUnary64 { op: u, dst: d, a });
                return Ok(());
            }
            "rcp" => {
                let one = self.pair_imm(1f64.to_bits(), at, out);
                self.emit(
                    out,
                    at,
                    S::VBinary64 {
                        op: Bin64Op::DivF64,
                        dst: d,
                        a: one,
                        b: a,
                    },
                );
                return Ok(());
            }
            "fma" | "mad" => {
                let b = self.pair(i, 2, false, out)?;
                let c = self.pair(i, 3, false, out)?;
                self.emit(
                    out,
                    at,
                    S::VTernary64 {
                        op: Tern64Op::FmaF64,
                        dst: d,
                        a,
                        b,
                        c,
                    },
                );
                return Ok(());
            }
            _ => return Err(unsupported(i, "on doubles")),
        };
        let b = self.pair(i, 2, false, out)?;
        self.emit(
            out,
            at,
            S::VBinary64 {
                op: k,
                dst: d,
                a,
                b,
            },
        );
        Ok(())
    }

    // ------------------------------------------------------ comparisons

    fn setp(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let ty = types(i);
        let t = ty.first().copied().unwrap_or("");
        let cmp = i.mods.first().map(String::as_str).unwrap_or("");
        let bool_op = i.mods.iter().find_map(|m| match m.as_str() {
            "and" => Some(MaskOp::And),
            "or" => Some(MaskOp::Or),
            "xor" => Some(MaskOp::Xor),
            _ => None,
        });
        let (p, q) = match self.arg(i, 0)?.clone() {
            Arg::Pair(p, q) => (self.dst_pred(&p)?, self.dst_pred(&q)?),
            a => (self.dst_pred(&a)?, None),
        };
        if p.is_none() && q.is_none() {
            return Ok(());
        }
        let float = t.starts_with('f') || t == "bf16";
        let signed = t.starts_with('s');
        // The comparison, and whether its result is complemented (the
        // unordered forms are the complements of the ordered ones).
        let (op, flip) = match (cmp, float) {
            ("eq", _) => (CmpOp::Eq, false),
            ("ne", false) => (CmpOp::Ne, false),
            ("lt" | "lo", _) => (CmpOp::Lt, false),
            ("le" | "ls", _) => (CmpOp::Le, false),
            ("gt" | "hi", _) => (CmpOp::Gt, false),
            ("ge" | "hs", _) => (CmpOp::Ge, false),
            ("neu", true) => (CmpOp::Ne, false),
            ("equ", true) => (CmpOp::Ne, true),
            ("ltu", true) => (CmpOp::Ge, true),
            ("leu", true) => (CmpOp::Gt, true),
            ("gtu", true) => (CmpOp::Le, true),
            ("geu", true) => (CmpOp::Lt, true),
            // Ordered `ne`: neither NaN and not equal, `!(a == b || a != a || b != b)`.
            ("ne", true) | ("num", true) | ("nan", true) => {
                return Err(unsupported(i, "this float comparison"))
            }
            _ => return Err(unsupported(i, "this comparison")),
        };
        let unsigned_name = matches!(cmp, "lo" | "ls" | "hi" | "hs");
        // The compare writes `p` itself when nothing is combined with it.
        let direct = bool_op.is_none() && !flip && q.is_none();
        let m = match p {
            Some(p) if direct => p,
            _ => self.new_m(),
        };
        let is64 = matches!(t, "s64" | "u64" | "b64" | "f64");
        if is64 && (self.is_pair(i, 1) || self.is_pair(i, 2) || t == "f64") {
            let a = self.pair(i, 1, signed, out)?;
            let b = self.pair(i, 2, signed, out)?;
            let ct = match t {
                "f64" => Cmp64Type::F64,
                "s64" if !unsigned_name => Cmp64Type::I64,
                _ => Cmp64Type::U64,
            };
            self.emit(
                out,
                at,
                S::VCmp64 {
                    op,
                    ty: ct,
                    dst: m,
                    a,
                    b,
                },
            );
        } else {
            self.compare32(i, t, (op, unsigned_name), m, out)?;
        }
        let m = if flip { self.not_mask(m, at, out) } else { m };
        let combined = |this: &mut Self, r: MReg, out: &mut Vec<Code>| -> R<MReg> {
            match bool_op {
                None => Ok(r),
                Some(k) => {
                    let c = this.pred(i, 3, out)?;
                    let n = this.new_m();
                    this.emit(
                        out,
                        at,
                        S::MaskBinary {
                            op: k,
                            dst: n,
                            a: r,
                            b: c,
                        },
                    );
                    Ok(n)
                }
            }
        };
        if let Some(q) = q {
            let nm = self.not_mask(m, at, out);
            let r = combined(self, nm, out)?;
            self.emit(
                out,
                at,
                S::MaskBinary {
                    op: MaskOp::And,
                    dst: q,
                    a: r,
                    b: r,
                },
            );
        }
        if let Some(p) = p.filter(|_| !direct) {
            let r = combined(self, m, out)?;
            self.emit(
                out,
                at,
                S::MaskBinary {
                    op: MaskOp::And,
                    dst: p,
                    a: r,
                    b: r,
                },
            );
        }
        Ok(())
    }

    /// `setp` of 32-bit (or narrower) values, or of 64-bit pointers into
    /// one buffer by their offsets: comparison `op` (of unsigned values
    /// when `unsigned_name`, `lo`/`hi`/...) into mask `m`.
    fn compare32(
        &mut self,
        i: &Inst,
        t: &str,
        (op, unsigned_name): (CmpOp, bool),
        m: MReg,
        out: &mut Vec<Code>,
    ) -> R<()> {
        let at = i.at;
        let is64 = matches!(t, "s64" | "u64" | "b64" | "f64");
        if is64 {
            // Two pointers into one buffer, or address words: their offsets
            // compare as the addresses do.
            let pa = self.prov_of(i, 1);
            let pb = self.prov_of(i, 2);
            if !(pa.is_pointer() && pa == pb) {
                return Err(unsupported(i, "a comparison of 64-bit values kept as address words").help(
                    "simt compares two pointers into one buffer by their offsets; compare integers that are not addresses",
                ));
            }
        }
        let a = self.word(i, 1, out)?;
        let b = self.word(i, 2, out)?;
        let ct = match t {
            "f32" => CmpType::F32,
            "f16" => CmpType::F16,
            "bf16" => CmpType::Bf16,
            "s32" | "s16" | "s8" if !unsigned_name => CmpType::I32,
            _ if is64 => CmpType::U32,
            "s32" | "s16" | "s8" => CmpType::U32,
            _ => CmpType::U32,
        };
        // 8- and 16-bit values compare as their low bits extended by
        // the type (a register's upper bits are whatever the arithmetic
        // that wrote it left there).
        let (a, b) = match t {
            "s16" | "u16" | "b16" | "s8" | "u8" | "b8" => {
                let bits = if t.ends_with("16") { 16 } else { 8 };
                let signed = ct == CmpType::I32;
                (
                    self.extend(a, bits, signed, at, out),
                    self.extend(b, bits, signed, at, out),
                )
            }
            _ => (a, b),
        };
        self.emit(
            out,
            at,
            S::VCmp {
                op,
                ty: ct,
                dst: m,
                a,
                b,
            },
        );
        Ok(())
    }

    fn prov_of(&self, i: &Inst, k: usize) -> Prov {
        match i.args.get(k) {
            Some(Arg::Reg { name, .. }) => self.values.prov.get(name).copied().unwrap_or(Prov::Int),
            _ => Prov::Int,
        }
    }

    fn selp(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let mask = self.pred(i, 3, out)?;
        if self.is_pair(i, 0) {
            let d = self.dst_pair(i, 0)?;
            let a = self.pair(i, 1, t == "s64", out)?;
            let b = self.pair(i, 2, t == "s64", out)?;
            for w in 0..2 {
                self.emit(
                    out,
                    at,
                    S::VSelect {
                        dst: VReg(d.0 + w),
                        mask,
                        on_true: Operand::V(VReg(a.0 + w)),
                        on_false: Operand::V(VReg(b.0 + w)),
                    },
                );
            }
            return Ok(());
        }
        let d = self.dst_word(i, 0)?;
        let a = self.word(i, 1, out)?;
        let b = self.word(i, 2, out)?;
        self.emit(
            out,
            at,
            S::VSelect {
                dst: d,
                mask,
                on_true: a,
                on_false: b,
            },
        );
        Ok(())
    }

    // ------------------------------------------------------- conversions

    fn cvt(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let ty = types(i);
        let (Some(&dt), Some(&st)) = (ty.first(), ty.get(1)) else {
            return Err(unsupported(i, "a conversion names two types"));
        };
        let rnd = i.mods.iter().map(String::as_str).find(|m| {
            matches!(
                *m,
                "rn" | "rz" | "rm" | "rp" | "rni" | "rzi" | "rmi" | "rpi"
            )
        });
        let dfloat = dt.starts_with('f') || dt == "bf16";
        let sfloat = st.starts_with('f') || st == "bf16";
        // `.ftz`: an `f32` source read flushed, an `f32` result flushed.
        self.ftz = i.has("ftz") && st == "f32";
        let done = match (dfloat, sfloat) {
            _ if matches!(dt, "f16" | "bf16") => self.cvt_to_half(i, dt, st, rnd, out),
            (false, false) => self.cvt_between_integers(i, dt, st, out),
            (true, false) => self.cvt_to_float(i, dt, st, rnd, out),
            (false, true) => self.cvt_to_integer(i, dt, st, rnd, out),
            (true, true) => self.cvt_between_floats(i, dt, st, rnd, out),
        };
        self.ftz = false;
        done?;
        if i.has("ftz") && dt == "f32" {
            let d = self.dst_word(i, 0)?;
            self.flush_f32(Operand::V(d), Some(d), i.at, out);
        }
        Ok(())
    }

    /// Integer to integer: 64-bit ones apart; otherwise the low bits, extended
    /// by the narrower side's signedness, or clamped under `.sat`.
    fn cvt_between_integers(&mut self, i: &Inst, dt: &str, st: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let size = |t: &str| crate::parse::type_size(t).unwrap_or(4);
        let signed = |t: &str| t.starts_with('s');
        let (ds, ss) = (size(dt), size(st));
        if ds == 8 || ss == 8 {
            return self.cvt_int64(i, dt, st, out);
        }
        let d = self.dst_word(i, 0)?;
        if i.has("sat") {
            // The source as its type says, clamped to the
            // destination's range.
            let a = self.int_word(i, st, out)?;
            self.put(d, a, at, out);
            self.clamp_int(d, dt, st, at, out);
            return Ok(());
        }
        let a = self.word(i, 1, out)?;
        // To or from fewer bits: the low `n` bits, extended by the
        // source's signedness (from) or kept (to).
        let n = ds.min(ss) * 8;
        if n >= 32 {
            self.emit(
                out,
                at,
                S::VUnary {
                    op: UnOp::Mov,
                    dst: d,
                    a,
                },
            );
        } else if (ss < ds && signed(st)) || (ds < ss && signed(dt)) {
            self.emit(
                out,
                at,
                S::VBinary {
                    op: BinOp::Shl,
                    dst: d,
                    a,
                    b: Operand::Imm(32 - n),
                },
            );
            self.emit(
                out,
                at,
                S::VBinary {
                    op: BinOp::ShrI32,
                    dst: d,
                    a: Operand::V(d),
                    b: Operand::Imm(32 - n),
                },
            );
        } else {
            self.emit(
                out,
                at,
                S::VBinary {
                    op: BinOp::And,
                    dst: d,
                    a,
                    b: Operand::Imm((1u32 << n) - 1),
                },
            );
        }
        Ok(())
    }

    /// An integer to `f32` or `f64`, rounded as `rnd` says.
    fn cvt_to_float(
        &mut self,
        i: &Inst,
        dt: &str,
        st: &str,
        rnd: Option<&str>,
        out: &mut Vec<Code>,
    ) -> R<()> {
        let at = i.at;
        let size = |t: &str| crate::parse::type_size(t).unwrap_or(4);
        let signed = |t: &str| t.starts_with('s');
        if i.has("sat") && dt != "f32" {
            return Err(unsupported(i, "saturation but to f32 or half precision"));
        }
        if dt == "f32" && size(st) == 8 {
            self.cvt_f32_int64(i, signed(st), rnd.unwrap_or("rn"), out)?;
            if i.has("sat") {
                let d = self.dst_word(i, 0)?;
                self.saturate(d, at, out);
            }
            return Ok(());
        }
        if let Some(mode @ ("rz" | "rm" | "rp")) = rnd {
            // A 32-bit integer is exact in `f64`: rounding it to
            // `f32` rounds the integer.
            if dt == "f32" && size(st) <= 4 {
                let d = self.dst_word(i, 0)?;
                let a = self.int_word(i, st, out)?;
                let w = self.new_v(2);
                let op = if signed(st) {
                    WidenOp::CvtF64I32
                } else {
                    WidenOp::CvtF64U32
                };
                self.emit(out, at, S::VWiden { op, dst: w, a });
                let op = narrow_toward(mode);
                self.emit(out, at, S::VNarrow { op, dst: d, a: w });
                if i.has("sat") {
                    self.saturate(d, at, out);
                }
                return Ok(());
            }
            if dt == "f64" && size(st) == 8 {
                let d = self.dst_pair(i, 0)?;
                let a = self.pair(i, 1, signed(st), out)?;
                let op = match (mode, signed(st)) {
                    ("rz", true) => Un64Op::CvtRzF64I64,
                    ("rm", true) => Un64Op::CvtRmF64I64,
                    (_, true) => Un64Op::CvtRpF64I64,
                    ("rz", false) => Un64Op::CvtRzF64U64,
                    ("rm", false) => Un64Op::CvtRmF64U64,
                    (_, false) => Un64Op::CvtRpF64U64,
                };
                self.emit(out, at, S::VUnary64 { op, dst: d, a });
                return Ok(());
            }
        }
        if dt == "f64" {
            let d = self.dst_pair(i, 0)?;
            if size(st) == 8 {
                let a = self.pair(i, 1, signed(st), out)?;
                let op = if signed(st) {
                    Un64Op::CvtF64I64
                } else {
                    Un64Op::CvtF64U64
                };
                self.emit(out, at, S::VUnary64 { op, dst: d, a });
            } else {
                let a = self.int_word(i, st, out)?;
                let op = if signed(st) {
                    WidenOp::CvtF64I32
                } else {
                    WidenOp::CvtF64U32
                };
                self.emit(out, at, S::VWiden { op, dst: d, a });
            }
            return Ok(());
        }
        if dt != "f32" {
            return Err(unsupported(i, "this type"));
        }
        let d = self.dst_word(i, 0)?;
        let a = self.int_word(i, st, out)?;
        let op = if signed(st) {
            UnOp::CvtF32I32
        } else {
            UnOp::CvtF32U32
        };
        self.emit(out, at, S::VUnary { op, dst: d, a });
        if i.has("sat") {
            self.saturate(d, at, out);
        }
        Ok(())
    }

    /// A float to an integer: truncated, or rounded to an integral value
    /// first (`.rni`, `.rmi`, `.rpi`), then saturated to the destination.
    fn cvt_to_integer(
        &mut self,
        i: &Inst,
        dt: &str,
        st: &str,
        rnd: Option<&str>,
        out: &mut Vec<Code>,
    ) -> R<()> {
        let at = i.at;
        let size = |t: &str| crate::parse::type_size(t).unwrap_or(4);
        let signed = |t: &str| t.starts_with('s');
        let integral = matches!(rnd, Some("rni" | "rmi" | "rpi"));
        if !(matches!(rnd, Some("rzi") | None) || integral) {
            return Err(unsupported(
                i,
                "rounding to an integer other than `.rni`, `.rzi`, `.rmi` or `.rpi`",
            ));
        }
        if st == "f64" {
            let mut a = self.pair(i, 1, false, out)?;
            if let Some(mode) = rnd.filter(|_| integral) {
                // Rounded to an integral double first, the
                // conversion (which truncates) is exact.
                let r = self.new_v(2);
                let op = integral_f64(mode);
                self.emit(out, at, S::VUnary64 { op, dst: r, a });
                a = r;
            }
            if size(dt) == 8 {
                let d = self.dst_pair(i, 0)?;
                let op = if signed(dt) {
                    Un64Op::CvtI64F64
                } else {
                    Un64Op::CvtU64F64
                };
                self.emit(out, at, S::VUnary64 { op, dst: d, a });
            } else {
                let d = self.dst_word(i, 0)?;
                let op = if signed(dt) {
                    NarrowOp::CvtI32F64
                } else {
                    NarrowOp::CvtU32F64
                };
                self.emit(out, at, S::VNarrow { op, dst: d, a });
                let wide = if signed(dt) { "s32" } else { "u32" };
                self.clamp_int(d, dt, wide, at, out);
            }
            return Ok(());
        }
        let mut a = self.word(i, 1, out)?;
        if st != "f32" {
            let f = self.new_v(1);
            let from = if st == "f16" {
                UnOp::CvtF32F16
            } else {
                UnOp::CvtF32Bf16
            };
            self.emit(
                out,
                at,
                S::VUnary {
                    op: from,
                    dst: f,
                    a,
                },
            );
            a = Operand::V(f);
        }
        if let Some(mode) = rnd.filter(|_| integral) {
            // Rounded to an integral float first, the conversion
            // (which truncates and saturates) is exact.
            a = self.round_f32(mode, a, at, out);
        }
        if size(dt) == 8 {
            // Through `f64`, exactly: the conversion truncates and
            // saturates to 64 bits as PTX's does.
            let (d, low) = self.dst_wide(i)?;
            let w = self.new_v(2);
            self.emit(
                out,
                at,
                S::VWiden {
                    op: WidenOp::CvtF64F32,
                    dst: w,
                    a,
                },
            );
            let op = if signed(dt) {
                Un64Op::CvtI64F64
            } else {
                Un64Op::CvtU64F64
            };
            self.emit(out, at, S::VUnary64 { op, dst: d, a: w });
            self.low_word_back(d, low, at, out);
            return Ok(());
        }
        let d = self.dst_word(i, 0)?;
        let op = if signed(dt) {
            UnOp::CvtI32F32
        } else {
            UnOp::CvtU32F32
        };
        self.emit(out, at, S::VUnary { op, dst: d, a });
        // To 8 or 16 bits: saturated to 32 bits, then to those.
        let wide = if signed(dt) { "s32" } else { "u32" };
        self.clamp_int(d, dt, wide, at, out);
        Ok(())
    }

    /// A float to `f32` or `f64`: widened exactly, narrowed as `rnd` says, or
    /// rounded to an integral value of its own type.
    fn cvt_between_floats(
        &mut self,
        i: &Inst,
        dt: &str,
        st: &str,
        rnd: Option<&str>,
        out: &mut Vec<Code>,
    ) -> R<()> {
        let at = i.at;
        if let Some(mode) = rnd.filter(|r| matches!(*r, "rni" | "rzi" | "rmi" | "rpi")) {
            if (dt, st) == ("f64", "f64") {
                let d = self.dst_pair(i, 0)?;
                let a = self.pair(i, 1, false, out)?;
                let op = integral_f64(mode);
                self.emit(out, at, S::VUnary64 { op, dst: d, a });
                if i.has("sat") {
                    return Err(unsupported(i, "saturation but to f32 or half precision"));
                }
                return Ok(());
            }
            if (dt, st) != ("f32", "f32") {
                return Err(unsupported(
                    i,
                    "rounding to an integral float between two types",
                ));
            }
            let d = self.dst_word(i, 0)?;
            let a = self.word(i, 1, out)?;
            let r = self.round_f32(mode, a, at, out);
            self.put(d, r, at, out);
            if i.has("sat") {
                self.saturate(d, at, out);
            }
            return Ok(());
        }
        if let Some(mode @ ("rz" | "rm" | "rp")) = rnd {
            match (dt, st) {
                ("f32", "f64") => {
                    let d = self.dst_word(i, 0)?;
                    let a = self.pair(i, 1, false, out)?;
                    let op = narrow_toward(mode);
                    self.emit(out, at, S::VNarrow { op, dst: d, a });
                    if i.has("sat") {
                        self.saturate(d, at, out);
                    }
                    return Ok(());
                }
                // Exact either way: halves widen exactly.
                ("f64" | "f32", _) => {}
                _ => return Err(unsupported(i, "this conversion")),
            }
        }
        match (dt, st) {
            ("f64", "f16" | "bf16") => {
                let d = self.dst_pair(i, 0)?;
                let a = self.word(i, 1, out)?;
                let f = self.half_to_f32(st, a, at, out);
                self.emit(
                    out,
                    at,
                    S::VWiden {
                        op: WidenOp::CvtF64F32,
                        dst: d,
                        a: f,
                    },
                );
            }
            ("f64", "f32") => {
                let d = self.dst_pair(i, 0)?;
                let a = self.word(i, 1, out)?;
                self.emit(
                    out,
                    at,
                    S::VWiden {
                        op: WidenOp::CvtF64F32,
                        dst: d,
                        a,
                    },
                );
            }
            ("f32", "f64") => {
                let d = self.dst_word(i, 0)?;
                let a = self.pair(i, 1, false, out)?;
                self.emit(
                    out,
                    at,
                    S::VNarrow {
                        op: NarrowOp::CvtF32F64,
                        dst: d,
                        a,
                    },
                );
            }
            ("f64", "f64") => {
                let d = self.dst_pair(i, 0)?;
                let a = self.pair(i, 1, false, out)?;
                self.emit(
                    out,
                    at,
                    S::VUnary64 {
                        op: Un64Op::Mov,
                        dst: d,
                        a,
                    },
                );
            }
            (dt, st) => {
                let d = self.dst_word(i, 0)?;
                let a = self.word(i, 1, out)?;
                let op = match (dt, st) {
                    ("f32", "f32") => UnOp::Mov,
                    ("f32", "f16") => UnOp::CvtF32F16,
                    ("f32", "bf16") => UnOp::CvtF32Bf16,
                    _ => return Err(unsupported(i, "this conversion")),
                };
                self.emit(out, at, S::VUnary { op, dst: d, a });
            }
        }
        if i.has("sat") {
            if dt != "f32" {
                return Err(unsupported(i, "saturation but to f32 or half precision"));
            }
            let d = self.dst_word(i, 0)?;
            self.saturate(d, at, out);
        }
        Ok(())
    }

    /// `cvt` to `f16` or `bf16` from any type: one rounding, to nearest
    /// even or as `rnd` directs. From `f32` (or a half, widened exactly)
    /// to nearest it is one conversion; otherwise the source becomes an
    /// `f64` that holds it exactly (32-bit integers, floats) or, for 64-bit
    /// integers, rounded the same direction (two roundings one way are
    /// one) or, to nearest, rounded to odd (toward zero with the last bit
    /// set when inexact, which 53 bits leave no second rounding to spoil),
    /// then narrows once (an `f32` source is read flushed under `.ftz`, as
    /// every `cvt` reads it); `.relu` and `.satfinite` are refused.
    /// Rounding to an integral value goes through `f32`, where halves and
    /// their integral values are exact. `.sat` clamps the
    /// result to `[0, 1]` in `f32` and narrows back, exactly; it commutes
    /// with rounding, which is monotone and keeps 0 and 1 (and `saturate`
    /// makes a zero +0, as clamping a negative source would).
    fn cvt_to_half(
        &mut self,
        i: &Inst,
        dt: &str,
        st: &str,
        rnd: Option<&str>,
        out: &mut Vec<Code>,
    ) -> R<()> {
        let at = i.at;
        if i.has("relu") || i.has("satfinite") {
            return Err(unsupported(i, "`.relu` and `.satfinite`"));
        }
        let d = self.dst_word(i, 0)?;
        let to_half = if dt == "f16" {
            UnOp::CvtF16F32
        } else {
            UnOp::CvtBf16F32
        };
        let half = matches!(st, "f16" | "bf16");
        let integral = rnd.filter(|r| matches!(*r, "rni" | "rzi" | "rmi" | "rpi"));
        if let Some(mode) = integral {
            if st != dt {
                return Err(unsupported(
                    i,
                    "rounding to an integral float between two types",
                ));
            }
            let a = self.word(i, 1, out)?;
            let f = self.half_to_f32(st, a, at, out);
            let r = self.round_f32(mode, f, at, out);
            self.emit(
                out,
                at,
                S::VUnary {
                    op: to_half,
                    dst: d,
                    a: r,
                },
            );
        } else if st == dt {
            let a = self.word(i, 1, out)?;
            self.put(d, a, at, out);
        } else if (half || st == "f32") && matches!(rnd, None | Some("rn")) {
            let a = self.word(i, 1, out)?;
            let f = self.half_to_f32(st, a, at, out);
            self.emit(
                out,
                at,
                S::VUnary {
                    op: to_half,
                    dst: d,
                    a: f,
                },
            );
        } else {
            let w = self.half_source(i, st, rnd, out)?;
            let f16 = dt == "f16";
            let op = match rnd {
                Some("rz") if f16 => NarrowOp::CvtRzF16F64,
                Some("rm") if f16 => NarrowOp::CvtRmF16F64,
                Some("rp") if f16 => NarrowOp::CvtRpF16F64,
                _ if f16 => NarrowOp::CvtF16F64,
                Some("rz") => NarrowOp::CvtRzBf16F64,
                Some("rm") => NarrowOp::CvtRmBf16F64,
                Some("rp") => NarrowOp::CvtRpBf16F64,
                _ => NarrowOp::CvtBf16F64,
            };
            self.emit(out, at, S::VNarrow { op, dst: d, a: w });
        }
        if i.has("sat") {
            let f = self.half_to_f32(dt, Operand::V(d), at, out);
            let Operand::V(f) = f else {
                unreachable!("a half widens into a new register")
            };
            self.saturate(f, at, out);
            self.emit(
                out,
                at,
                S::VUnary {
                    op: to_half,
                    dst: d,
                    a: Operand::V(f),
                },
            );
        }
        Ok(())
    }

    /// The `f32` `a` with a subnormal flushed to the zero of its sign (its
    /// sign bit where `|a|` is below the least normal), into `dst` or a new
    /// register; an immediate is flushed here.
    fn flush_f32(
        &mut self,
        a: Operand,
        dst: Option<VReg>,
        at: Pos,
        out: &mut Vec<Code>,
    ) -> Operand {
        if let Operand::Imm(b) = a {
            let flushed = if b & 0x7fff_ffff < 0x0080_0000 {
                b & 0x8000_0000
            } else {
                b
            };
            return match dst {
                Some(d) => {
                    self.put(d, Operand::Imm(flushed), at, out);
                    Operand::V(d)
                }
                None => Operand::Imm(flushed),
            };
        }
        let mag = self.tmp_bin(BinOp::And, a, Operand::Imm(0x7fff_ffff), at, out);
        let sign = self.tmp_bin(BinOp::And, a, Operand::Imm(0x8000_0000), at, out);
        let tiny = self.new_m();
        self.emit(
            out,
            at,
            S::VCmp {
                op: CmpOp::Lt,
                ty: CmpType::U32,
                dst: tiny,
                a: mag,
                b: Operand::Imm(0x0080_0000),
            },
        );
        let dst = dst.unwrap_or_else(|| self.new_v(1));
        self.emit(
            out,
            at,
            S::VSelect {
                dst,
                mask: tiny,
                on_true: sign,
                on_false: a,
            },
        );
        Operand::V(dst)
    }

    /// `a`, of type `t`, as `f32`: a half widened (exactly), else `a`.
    fn half_to_f32(&mut self, t: &str, a: Operand, at: Pos, out: &mut Vec<Code>) -> Operand {
        let op = match t {
            "f16" => UnOp::CvtF32F16,
            "bf16" => UnOp::CvtF32Bf16,
            _ => return a,
        };
        let f = self.new_v(1);
        self.emit(out, at, S::VUnary { op, dst: f, a });
        Operand::V(f)
    }

    /// A conversion's source (operand 1, of type `st`) as an `f64` pair a
    /// conversion to half precision rounds once: exact but for 64-bit
    /// integers, which are rounded as `rnd` directs or, to nearest, to odd.
    fn half_source(
        &mut self,
        i: &Inst,
        st: &str,
        rnd: Option<&str>,
        out: &mut Vec<Code>,
    ) -> R<VReg> {
        let at = i.at;
        let signed = st.starts_with('s');
        let w = self.new_v(2);
        if crate::parse::type_size(st) == Some(8) && st != "f64" {
            let a = self.pair(i, 1, signed, out)?;
            let (rz, rm, rp) = if signed {
                (
                    Un64Op::CvtRzF64I64,
                    Un64Op::CvtRmF64I64,
                    Un64Op::CvtRpF64I64,
                )
            } else {
                (
                    Un64Op::CvtRzF64U64,
                    Un64Op::CvtRmF64U64,
                    Un64Op::CvtRpF64U64,
                )
            };
            let op = match rnd {
                Some("rm") => rm,
                Some("rp") => rp,
                _ => rz,
            };
            self.emit(out, at, S::VUnary64 { op, dst: w, a });
            if !matches!(rnd, Some("rz" | "rm" | "rp")) {
                // Inexact exactly when rounding down and up differ, and
                // then their low words differ (one ulp apart).
                let (lo, hi) = (self.new_v(2), self.new_v(2));
                self.emit(out, at, S::VUnary64 { op: rm, dst: lo, a });
                self.emit(out, at, S::VUnary64 { op: rp, dst: hi, a });
                let gap = self.tmp_bin(BinOp::Xor, Operand::V(lo), Operand::V(hi), at, out);
                let odd = self.tmp_bin(BinOp::MinU32, gap, Operand::Imm(1), at, out);
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::Or,
                        dst: w,
                        a: Operand::V(w),
                        b: odd,
                    },
                );
            }
            return Ok(w);
        }
        match st {
            "f64" => return self.pair(i, 1, false, out),
            "f32" | "f16" | "bf16" => {
                let a = self.word(i, 1, out)?;
                let f = self.half_to_f32(st, a, at, out);
                self.emit(
                    out,
                    at,
                    S::VWiden {
                        op: WidenOp::CvtF64F32,
                        dst: w,
                        a: f,
                    },
                );
            }
            _ => {
                let a = self.int_word(i, st, out)?;
                let op = if signed {
                    WidenOp::CvtF64I32
                } else {
                    WidenOp::CvtF64U32
                };
                self.emit(out, at, S::VWiden { op, dst: w, a });
            }
        }
        Ok(w)
    }

    /// A 64-bit integer to `f32`, rounded as `mode` says (`rn`, `rz`, `rm`,
    /// `rp`), exactly: the magnitude shifted left until its top bit is bit
    /// 63, its high word with a bit set where the low word is not zero (so
    /// that it rounds to 24 bits as the whole does), converted, and scaled
    /// back by a power of two; the sign put back last (a negative value
    /// rounded down is its magnitude rounded up).
    fn cvt_f32_int64(&mut self, i: &Inst, signed: bool, mode: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let d = self.dst_word(i, 0)?;
        let a = self.pair(i, 1, signed, out)?;
        let mask = |s: &mut Self, op, ty, x: Operand, y: Operand, out: &mut Vec<Code>| {
            let m = s.new_m();
            s.emit(
                out,
                at,
                S::VCmp {
                    op,
                    ty,
                    dst: m,
                    a: x,
                    b: y,
                },
            );
            m
        };
        let select = |s: &mut Self, m, t: Operand, f: Operand, out: &mut Vec<Code>| {
            let r = s.new_v(1);
            s.emit(
                out,
                at,
                S::VSelect {
                    dst: r,
                    mask: m,
                    on_true: t,
                    on_false: f,
                },
            );
            Operand::V(r)
        };
        // The magnitude, and whether the value is negative.
        let (mag, negative) = if signed {
            let hi = Operand::V(VReg(a.0 + 1));
            let neg = mask(self, CmpOp::Lt, CmpType::I32, hi, Operand::Imm(0), out);
            let flipped = self.new_v(2);
            self.emit(
                out,
                at,
                S::VUnary64 {
                    op: Un64Op::NegI64,
                    dst: flipped,
                    a,
                },
            );
            let m = self.new_v(2);
            for w in 0..2u16 {
                let word = select(
                    self,
                    neg,
                    Operand::V(VReg(flipped.0 + w)),
                    Operand::V(VReg(a.0 + w)),
                    out,
                );
                self.put(VReg(m.0 + w), word, at, out);
            }
            (m, Some(neg))
        } else {
            (a, None)
        };
        let (lo, hi) = (Operand::V(mag), Operand::V(VReg(mag.0 + 1)));
        // Leading zeros of the 64 bits (64 for zero).
        let zhi = self.tmp_un(UnOp::Clz, hi, at, out);
        let zlo = self.tmp_un(UnOp::Clz, lo, at, out);
        let zlo = self.tmp_bin(BinOp::AddU32, zlo, Operand::Imm(32), at, out);
        let high_zero = mask(self, CmpOp::Eq, CmpType::U32, hi, Operand::Imm(0), out);
        let n = select(self, high_zero, zlo, zhi, out);
        let top = self.new_v(2);
        self.shift64_reg(Shift::left(at), n, top, mag, out);
        let sticky = mask(
            self,
            CmpOp::Ne,
            CmpType::U32,
            Operand::V(top),
            Operand::Imm(0),
            out,
        );
        let bit = select(self, sticky, Operand::Imm(1), Operand::Imm(0), out);
        let word = self.tmp_bin(BinOp::Or, Operand::V(VReg(top.0 + 1)), bit, at, out);
        // 2^(32 - n) as an f32: exponent field 127 + 32 - n.
        let field = self.tmp_bin(BinOp::SubU32, Operand::Imm(159), n, at, out);
        let scale = self.tmp_bin(BinOp::Shl, field, Operand::Imm(23), at, out);
        // The 32-bit word rounded to 24 bits toward `toward`, times the scale.
        let rounded = |s: &mut Self, toward: &str, out: &mut Vec<Code>| {
            let f = if toward == "rn" {
                s.tmp_un(UnOp::CvtF32U32, word, at, out)
            } else {
                let w = s.new_v(2);
                s.emit(
                    out,
                    at,
                    S::VWiden {
                        op: WidenOp::CvtF64U32,
                        dst: w,
                        a: word,
                    },
                );
                let r = s.new_v(1);
                s.emit(
                    out,
                    at,
                    S::VNarrow {
                        op: narrow_toward(toward),
                        dst: r,
                        a: w,
                    },
                );
                Operand::V(r)
            };
            s.tmp_bin(BinOp::MulF32, f, scale, at, out)
        };
        let Some(neg) = negative else {
            let r = rounded(self, mode, out);
            self.put(d, r, at, out);
            return Ok(());
        };
        // Rounding down or up, a negative value's magnitude rounds the
        // other way.
        let magnitude = match mode {
            "rm" | "rp" => {
                let (when_neg, when_pos) = if mode == "rm" {
                    ("rp", "rm")
                } else {
                    ("rm", "rp")
                };
                let n = rounded(self, when_neg, out);
                let p = rounded(self, when_pos, out);
                select(self, neg, n, p, out)
            }
            _ => rounded(self, mode, out),
        };
        let flipped = self.tmp_bin(BinOp::Xor, magnitude, Operand::Imm(0x8000_0000), at, out);
        let r = select(self, neg, flipped, magnitude, out);
        self.put(d, r, at, out);
        Ok(())
    }

    /// A conversion's integer source, extended from 8 or 16 bits by its type.
    fn int_word(&mut self, i: &Inst, st: &str, out: &mut Vec<Code>) -> R<Operand> {
        let a = self.word(i, 1, out)?;
        let n = crate::parse::type_size(st).unwrap_or(4) * 8;
        if n >= 32 {
            return Ok(a);
        }
        let v = self.new_v(1);
        if st.starts_with('s') {
            self.emit(
                out,
                i.at,
                S::VBinary {
                    op: BinOp::Shl,
                    dst: v,
                    a,
                    b: Operand::Imm(32 - n),
                },
            );
            self.emit(
                out,
                i.at,
                S::VBinary {
                    op: BinOp::ShrI32,
                    dst: v,
                    a: Operand::V(v),
                    b: Operand::Imm(32 - n),
                },
            );
        } else {
            self.emit(
                out,
                i.at,
                S::VBinary {
                    op: BinOp::And,
                    dst: v,
                    a,
                    b: Operand::Imm((1u32 << n) - 1),
                },
            );
        }
        Ok(Operand::V(v))
    }

    fn cvt_int64(&mut self, i: &Inst, dt: &str, st: &str, out: &mut Vec<Code>) -> R<()> {
        if i.has("sat") {
            return Err(unsupported(i, "saturating conversion of 64-bit integers"));
        }
        let at = i.at;
        let size = |t: &str| crate::parse::type_size(t).unwrap_or(4);
        match (size(dt), size(st)) {
            (8, 8) => {
                if self.is_pair(i, 0) {
                    let d = self.dst_pair(i, 0)?;
                    let a = self.pair(i, 1, false, out)?;
                    self.emit(
                        out,
                        at,
                        S::VUnary64 {
                            op: Un64Op::Mov,
                            dst: d,
                            a,
                        },
                    );
                } else {
                    let d = self.dst_word(i, 0)?;
                    let a = self.word(i, 1, out)?;
                    self.emit(
                        out,
                        at,
                        S::VUnary {
                            op: UnOp::Mov,
                            dst: d,
                            a,
                        },
                    );
                }
            }
            (8, _) => {
                let a = self.int_word(i, st, out)?;
                if self.is_pair(i, 0) {
                    let d = self.dst_pair(i, 0)?;
                    let op = if st.starts_with('s') {
                        WidenOp::CvtI64I32
                    } else {
                        WidenOp::CvtU64U32
                    };
                    self.emit(out, at, S::VWiden { op, dst: d, a });
                } else {
                    let d = self.dst_word(i, 0)?;
                    self.emit(
                        out,
                        at,
                        S::VUnary {
                            op: UnOp::Mov,
                            dst: d,
                            a,
                        },
                    );
                }
            }
            (n, _) => {
                // The low word (then its low bits).
                let d = self.dst_word(i, 0)?;
                let a = self.word(i, 1, out)?;
                if n >= 4 {
                    self.emit(
                        out,
                        at,
                        S::VUnary {
                            op: UnOp::Mov,
                            dst: d,
                            a,
                        },
                    );
                } else if dt.starts_with('s') {
                    self.emit(
                        out,
                        at,
                        S::VBinary {
                            op: BinOp::Shl,
                            dst: d,
                            a,
                            b: Operand::Imm(32 - n * 8),
                        },
                    );
                    self.emit(
                        out,
                        at,
                        S::VBinary {
                            op: BinOp::ShrI32,
                            dst: d,
                            a: Operand::V(d),
                            b: Operand::Imm(32 - n * 8),
                        },
                    );
                } else {
                    self.emit(
                        out,
                        at,
                        S::VBinary {
                            op: BinOp::And,
                            dst: d,
                            a,
                            b: Operand::Imm((1u32 << (n * 8)) - 1),
                        },
                    );
                }
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------ memory

    /// Where operand `k` (an address) points: the buffer or LDS, the offset
    /// register or value, and the immediate offset.
    fn address(&mut self, i: &Inst, k: usize, out: &mut Vec<Code>) -> R<(Place, Operand, i64)> {
        let Arg::Addr { base, offset, at } = self.arg(i, k)?.clone() else {
            return Err(PtxError::new(
                self.arg(i, k)?.at(),
                1,
                "expected an address `[...]`",
            ));
        };
        let space = space(i);
        match (&*base, space) {
            (Arg::Sym(s, _), Some("local") | None) if self.locals.contains_key(s) => {
                let at = self.locals.get(s).copied().unwrap_or(0);
                Ok((Place::Local, Operand::Imm(0), i64::from(at) + offset))
            }
            (Arg::Sym(s, sat), Some("shared") | None) => match self.shared.get(s) {
                Some(&off) => Ok((Place::Lds, Operand::Imm(0), i64::from(off) + offset)),
                None => Err(PtxError::new(
                    *sat,
                    s.len() as u32,
                    format!("`{s}` is not a shared variable of this kernel"),
                )),
            },
            (Arg::Sym(s, sat), _) => Err(PtxError::new(
                *sat,
                s.len() as u32,
                format!("`{s}`: global and constant variables are not supported"),
            )
            .help("pass the data as a kernel parameter")),
            (Arg::Reg { name, at: rat, .. }, _) => {
                let prov = self.values.prov.get(name).copied();
                let v = self.word_of(&base, i, out)?;
                match (space, prov) {
                    (Some("shared"), _) | (None, Some(Prov::Shared)) => Ok((Place::Lds, v, offset)),
                    (Some("global") | None, Some(Prov::Param(k))) => {
                        let p = self.buffer_param(k);
                        Ok((Place::Global(p), v, offset))
                    }
                    (Some("local"), _) | (None, Some(Prov::Local)) => Ok((Place::Local, v, offset)),
                    (Some("const"), _) => Err(PtxError::new(i.at, i.len, "constant memory is not supported")
                        .help("pass the data as a kernel parameter")),
                    (_, Some(Prov::Mixed(p))) => Err(PtxError::new(*rat, name.len() as u32 + 1, format!("`%{name}` may point into different buffers (line {})", p.line))
                        .help("simt resolves each access to one buffer when the kernel is lowered")),
                    _ => Err(PtxError::new(*rat, name.len() as u32 + 1, format!("`%{name}` points nowhere simt can tell"))
                        .help("an address must come from a pointer parameter (or a shared variable) by arithmetic; pointers loaded from memory are not supported")),
                }
            }
            _ => Err(PtxError::new(at, 1, "this address is not supported")),
        }
    }

    fn access_type(i: &Inst, t: &str) -> R<ElemType> {
        Ok(match t {
            "u8" | "b8" => ElemType::U8,
            "s8" => ElemType::I8,
            "u16" | "b16" => ElemType::U16,
            "s16" => ElemType::I16,
            "f16" => ElemType::F16,
            "bf16" => ElemType::BF16,
            "u32" | "b32" => ElemType::U32,
            "s32" => ElemType::I32,
            "f32" => ElemType::F32,
            _ => return Err(unsupported(i, "this access type")),
        })
    }

    /// The type a local access of one value moves: its own below 4 bytes,
    /// else whole words.
    fn local_type(i: &Inst, t: &str) -> R<ElemType> {
        match crate::parse::type_size(t).unwrap_or(4) {
            4.. => Ok(ElemType::U32),
            _ => Self::access_type(i, t),
        }
    }

    fn load(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let t = types(i).last().copied().unwrap_or("");
        if space(i) == Some("param") {
            return self.load_param(i, t, out);
        }
        let (place, index, offset) = self.address(i, 1, out)?;
        let vec_n = if i.has("v4") {
            4
        } else if i.has("v2") {
            2
        } else {
            1
        };
        let size = crate::parse::type_size(t).unwrap_or(4);
        let words = vec_n * size.div_ceil(4);
        let off = Operand::Imm(offset as u32);
        // The destinations, as words in order.
        let dests: Vec<VReg> = if vec_n > 1 {
            let Some(Arg::Vector(items, _)) = i.args.first() else {
                return Err(unsupported(i, "a vector load names a vector of registers"));
            };
            let items = items.clone();
            let mut ds = Vec::new();
            for it in &items {
                match it {
                    Arg::Reg { name, at, .. } => match self.loc(name, *at)? {
                        Loc::V(v) => ds.push(v),
                        Loc::Pair(v) => {
                            ds.push(v);
                            ds.push(VReg(v.0 + 1));
                        }
                        Loc::M(_) => return Err(unsupported(i, "predicates")),
                    },
                    Arg::Sink(_) => {
                        let v = self.new_v(size.div_ceil(4) as u16);
                        ds.extend((0..size.div_ceil(4) as u16).map(|w| VReg(v.0 + w)));
                    }
                    _ => return Err(unsupported(i, "this destination")),
                }
            }
            ds
        } else if size == 8 {
            let d = self.dst_pair(i, 0)?;
            vec![d, VReg(d.0 + 1)]
        } else {
            vec![self.dst_word(i, 0)?]
        };
        if matches!(place, Place::Local) && (size >= 4 || vec_n == 1) {
            let ty = Self::local_type(i, t)?;
            return self.load_local(i, (index, offset), ty, &dests, out);
        }
        if words == 1 {
            let ty = Self::access_type(i, t)?;
            let inst = match place {
                Place::Local => return Err(unsupported(i, "this access to local memory")),
                Place::Global(p) => S::GlobalLoad {
                    ty,
                    dst: dests[0],
                    src: byte_ref(p, index, off),
                },
                Place::Lds => S::LdsLoad {
                    ty,
                    dst: dests[0],
                    src: lds_ref(index, off),
                },
            };
            self.emit(out, at, inst);
            return Ok(());
        }
        if size < 4 {
            return self.load_packed(i, (place, index, offset), &dests, size, out);
        }
        // Wide: consecutive registers; copied out where the destinations
        // are not.
        let consecutive = dests.windows(2).all(|w| w[1].0 == w[0].0 + 1);
        let run = if consecutive {
            dests[0]
        } else {
            self.new_v(words as u16)
        };
        for chunk in 0..words.div_ceil(4) {
            let n = (words - chunk * 4).min(4);
            let width = if n == 4 { Width::X4 } else { Width::X2 };
            let first = VReg(run.0 + (chunk * 4) as u16);
            let o = Operand::Imm((offset + i64::from(chunk * 16)) as u32);
            let inst = match place {
                Place::Local => return Err(unsupported(i, "this access to local memory")),
                Place::Global(p) => S::GlobalLoadWide {
                    width,
                    dst: first,
                    src: byte_ref(p, index, o),
                },
                Place::Lds => S::LdsLoadWide {
                    width,
                    dst: first,
                    src: lds_ref(index, o),
                },
            };
            self.emit(out, at, inst);
        }
        if !consecutive {
            for (w, &d) in dests.iter().enumerate() {
                self.emit(
                    out,
                    at,
                    S::VUnary {
                        op: UnOp::Mov,
                        dst: d,
                        a: Operand::V(VReg(run.0 + w as u16)),
                    },
                );
            }
        }
        Ok(())
    }

    fn load_param(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let Some(Arg::Addr { base, offset, .. }) = i.args.get(1) else {
            return Err(unsupported(i, "a parameter is read by its name"));
        };
        let Arg::Sym(name, sat) = &**base else {
            return Err(unsupported(i, "parameters are read by name"));
        };
        let Some(k) = self.entry.params.iter().position(|p| &p.name == name) else {
            return Err(PtxError::new(
                *sat,
                name.len() as u32,
                format!("`{name}` is not a parameter of this kernel"),
            ));
        };
        if *offset != 0 {
            return Err(unsupported(i, "parameters passed as structs or arrays"));
        }
        use crate::lower::ParamPlan;
        match self.params[k] {
            ParamPlan::Buffer(_) => {
                // A pointer's offset into its own buffer starts at 0.
                let d = self.dst_word(i, 0)?;
                self.emit(
                    out,
                    at,
                    S::VUnary {
                        op: UnOp::Mov,
                        dst: d,
                        a: Operand::Imm(0),
                    },
                );
            }
            ParamPlan::Word(p) => {
                if crate::parse::type_size(t) == Some(8) {
                    return Err(unsupported(i, "this parameter read"));
                }
                let d = self.dst_word(i, 0)?;
                self.emit(
                    out,
                    at,
                    S::VUnary {
                        op: UnOp::Mov,
                        dst: d,
                        a: Operand::Arg(p),
                    },
                );
            }
            ParamPlan::Pair(lo, hi) => {
                if self.is_pair(i, 0) {
                    let d = self.dst_pair(i, 0)?;
                    self.emit(
                        out,
                        at,
                        S::VUnary {
                            op: UnOp::Mov,
                            dst: d,
                            a: Operand::Arg(lo),
                        },
                    );
                    self.emit(
                        out,
                        at,
                        S::VUnary {
                            op: UnOp::Mov,
                            dst: VReg(d.0 + 1),
                            a: Operand::Arg(hi),
                        },
                    );
                } else {
                    let d = self.dst_word(i, 0)?;
                    self.emit(
                        out,
                        at,
                        S::VUnary {
                            op: UnOp::Mov,
                            dst: d,
                            a: Operand::Arg(lo),
                        },
                    );
                }
            }
        }
        Ok(())
    }

    fn store(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let t = types(i).last().copied().unwrap_or("");
        if space(i) == Some("param") {
            return Err(unsupported(i, "kernels have no parameters to write"));
        }
        let (place, index, offset) = self.address(i, 0, out)?;
        let vec_n = if i.has("v4") {
            4
        } else if i.has("v2") {
            2
        } else {
            1
        };
        let size = crate::parse::type_size(t).unwrap_or(4);
        let words = vec_n * size.div_ceil(4);
        let off = Operand::Imm(offset as u32);
        if matches!(place, Place::Local) && words == 1 {
            let ty = Self::local_type(i, t)?;
            let src = self.word(i, 1, out)?;
            return self.store_local(i, (index, offset), ty, &[src], out);
        }
        if words == 1 {
            let ty = Self::access_type(i, t)?;
            let src = self.word(i, 1, out)?;
            let inst = match place {
                Place::Local => return Err(unsupported(i, "this access to local memory")),
                Place::Global(p) => S::GlobalStore {
                    ty,
                    dst: byte_ref(p, index, off),
                    src,
                },
                Place::Lds => S::LdsStore {
                    ty,
                    dst: lds_ref(index, off),
                    src,
                },
            };
            self.emit(out, at, inst);
            return Ok(());
        }
        if size < 4 {
            return self.store_packed(i, (place, index, offset), vec_n, size, out);
        }
        // The source words, in order, gathered into consecutive registers
        // unless they already are.
        let mut srcs: Vec<Operand> = Vec::new();
        match i.args.get(1).cloned() {
            Some(Arg::Vector(items, _)) => {
                for it in &items {
                    if size == 8 {
                        let tmp = Inst {
                            args: vec![Arg::Sink(it.at()), it.clone()],
                            ..i.clone()
                        };
                        let p = self.pair(&tmp, 1, false, out)?;
                        srcs.push(Operand::V(p));
                        srcs.push(Operand::V(VReg(p.0 + 1)));
                    } else {
                        srcs.push(self.word_of(it, i, out)?);
                    }
                }
            }
            Some(_) if size == 8 => {
                let p = self.pair(i, 1, false, out)?;
                srcs.push(Operand::V(p));
                srcs.push(Operand::V(VReg(p.0 + 1)));
            }
            _ => return Err(unsupported(i, "this source")),
        }
        if matches!(place, Place::Local) {
            return self.store_local(i, (index, offset), ElemType::U32, &srcs, out);
        }
        let consecutive = srcs
            .windows(2)
            .all(|w| matches!((w[0], w[1]), (Operand::V(a), Operand::V(b)) if b.0 == a.0 + 1))
            && matches!(srcs[0], Operand::V(_));
        let run = if consecutive {
            let Operand::V(v) = srcs[0] else {
                unreachable!()
            };
            v
        } else {
            let run = self.new_v(words as u16);
            for (w, s) in srcs.iter().enumerate() {
                self.emit(
                    out,
                    at,
                    S::VUnary {
                        op: UnOp::Mov,
                        dst: VReg(run.0 + w as u16),
                        a: *s,
                    },
                );
            }
            run
        };
        for chunk in 0..words.div_ceil(4) {
            let n = (words - chunk * 4).min(4);
            let width = if n == 4 { Width::X4 } else { Width::X2 };
            let first = VReg(run.0 + (chunk * 4) as u16);
            let o = Operand::Imm((offset + i64::from(chunk * 16)) as u32);
            let inst = match place {
                Place::Local => return Err(unsupported(i, "this access to local memory")),
                Place::Global(p) => S::GlobalStoreWide {
                    width,
                    dst: byte_ref(p, index, o),
                    src: first,
                },
                Place::Lds => S::LdsStoreWide {
                    width,
                    dst: lds_ref(index, o),
                    src: first,
                },
            };
            self.emit(out, at, inst);
        }
        Ok(())
    }

    fn atomic(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let t = types(i).last().copied().unwrap_or("");
        match crate::parse::type_size(t) {
            Some(4) => {}
            Some(8) => return self.atomic64(i, t, out),
            _ => {
                return Err(unsupported(
                    i,
                    "atomics on other than 32- and 64-bit values",
                ))
            }
        }
        let red = i.op == "red";
        let (dst, addr_k) = if red {
            (None, 0)
        } else {
            (Some(self.dst_word(i, 0)?), 1)
        };
        let (place, index, offset) = self.address(i, addr_k, out)?;
        let off = Operand::Imm(offset as u32);
        let op_name = i
            .mods
            .iter()
            .map(String::as_str)
            .find(|m| {
                matches!(
                    *m,
                    "add" | "min" | "max" | "exch" | "cas" | "and" | "or" | "xor" | "inc" | "dec"
                )
            })
            .unwrap_or("");
        let signed = t == "s32";
        if op_name == "cas" {
            let cmp = self.word(i, addr_k + 1, out)?;
            let src = self.word(i, addr_k + 2, out)?;
            let inst = match place {
                Place::Local => return Err(unsupported(i, "this access to local memory")),
                Place::Global(p) => S::GlobalCmpSwap {
                    dst,
                    mem: byte_ref(p, index, off),
                    cmp,
                    src,
                },
                Place::Lds => S::LdsCmpSwap {
                    dst,
                    mem: lds_ref(index, off),
                    cmp,
                    src,
                },
            };
            self.emit(out, at, inst);
            return Ok(());
        }
        let op = match (op_name, t) {
            ("add", "f32") => AtomicOp::AddF32,
            ("add", _) => AtomicOp::AddU32,
            ("min", _) if signed => AtomicOp::MinI32,
            ("min", _) => AtomicOp::MinU32,
            ("max", _) if signed => AtomicOp::MaxI32,
            ("max", _) => AtomicOp::MaxU32,
            ("exch", _) => AtomicOp::Exchange,
            ("inc", "u32") => AtomicOp::IncU32,
            ("and", _) => AtomicOp::And,
            ("or", _) => AtomicOp::Or,
            ("xor", _) => AtomicOp::Xor,
            _ => return Err(unsupported(i, "this atomic operation")),
        };
        let src = self.word(i, addr_k + 1, out)?;
        let inst = match place {
            Place::Local => return Err(unsupported(i, "this access to local memory")),
            Place::Global(p) => S::GlobalAtomic {
                op,
                dst,
                mem: byte_ref(p, index, off),
                src,
            },
            Place::Lds => S::LdsAtomic {
                op,
                dst,
                mem: lds_ref(index, off),
                src,
            },
        };
        self.emit(out, at, inst);
        Ok(())
    }

    /// `atom`/`red` on 64-bit values: the operands are pairs, and so is
    /// the old value (kept as its low word where nothing reads the rest).
    fn atomic64(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let red = i.op == "red";
        let (dst, low, addr_k) = if red {
            (self.new_v(2), None, 0)
        } else {
            let (d, low) = self.dst_wide(i)?;
            (d, low, 1)
        };
        let (place, index, offset) = self.address(i, addr_k, out)?;
        let off = Operand::Imm(offset as u32);
        let has = |m: &str| i.has(m);
        let signed = t == "s64";
        if has("cas") {
            let cmp = self.pair(i, addr_k + 1, false, out)?;
            let src = self.pair(i, addr_k + 2, false, out)?;
            let width = Width::X2;
            let inst = match place {
                Place::Local => return Err(unsupported(i, "this access to local memory")),
                Place::Global(p) => S::GlobalCmpSwap64 {
                    width,
                    dst,
                    mem: byte_ref(p, index, off),
                    cmp,
                    src,
                },
                Place::Lds => S::LdsCmpSwap64 {
                    width,
                    dst,
                    mem: lds_ref(index, off),
                    cmp,
                    src,
                },
            };
            self.emit(out, at, inst);
            self.low_word_back(dst, low, at, out);
            return Ok(());
        }
        let op = match t {
            _ if has("add") && t == "f64" => Atomic64Op::AddF64,
            _ if has("add") => Atomic64Op::AddU64,
            _ if has("min") && signed => Atomic64Op::MinI64,
            _ if has("min") => Atomic64Op::MinU64,
            _ if has("max") && signed => Atomic64Op::MaxI64,
            _ if has("max") => Atomic64Op::MaxU64,
            _ if has("exch") => Atomic64Op::Exchange,
            _ if has("and") => Atomic64Op::And,
            _ if has("or") => Atomic64Op::Or,
            _ if has("xor") => Atomic64Op::Xor,
            _ => return Err(unsupported(i, "this 64-bit atomic operation")),
        };
        let src = self.pair(i, addr_k + 1, signed, out)?;
        let inst = match place {
            Place::Local => return Err(unsupported(i, "this access to local memory")),
            Place::Global(p) => S::GlobalAtomic64 {
                op,
                dst,
                mem: byte_ref(p, index, off),
                src,
            },
            Place::Lds => S::LdsAtomic64 {
                op,
                dst,
                mem: lds_ref(index, off),
                src,
            },
        };
        self.emit(out, at, inst);
        self.low_word_back(dst, low, at, out);
        Ok(())
    }

    // -------------------------------------------------------- warp level

    fn shfl(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let mode = i
            .mods
            .iter()
            .map(String::as_str)
            .find(|m| matches!(*m, "idx" | "bfly" | "up" | "down"))
            .unwrap_or("");
        let (d, p) = match self.arg(i, 0)?.clone() {
            Arg::Pair(d, p) => (*d, Some(*p)),
            d => (d, None),
        };
        let tmp = Inst {
            args: vec![d.clone()],
            ..i.clone()
        };
        let dst = self.dst_word(&tmp, 0)?;
        let src = self.word(i, 1, out)?;
        let lane = self.word(i, 2, out)?;
        // The segment width and clamp, `c = ((32 - width) << 8) | clamp`:
        // the whole warp is `c = 0` for `up` and `31` for the others.
        let clamp = self.values.constant(self.arg(i, 3)?);
        let full = match mode {
            "up" => clamp == Some(0),
            _ => clamp == Some(31),
        };
        if !full {
            return Err(unsupported(
                i,
                "shuffles within segments narrower than the warp",
            ));
        }
        let op = match mode {
            "idx" => ShuffleOp::Index,
            "bfly" => ShuffleOp::Xor,
            "up" => ShuffleOp::Up,
            "down" => ShuffleOp::Down,
            _ => return Err(unsupported(i, "this shuffle mode")),
        };
        // The predicate: whether the source lane is in the warp.
        if let Some(p) = p {
            if let Some(m) = self.dst_pred(&p)? {
                let lane_id = Operand::Special(Special::LaneId);
                match mode {
                    "up" => {
                        self.emit(
                            out,
                            at,
                            S::VCmp {
                                op: CmpOp::Ge,
                                ty: CmpType::U32,
                                dst: m,
                                a: lane_id,
                                b: lane,
                            },
                        );
                    }
                    "down" => {
                        let v = self.new_v(1);
                        self.emit(
                            out,
                            at,
                            S::VBinary {
                                op: BinOp::AddU32,
                                dst: v,
                                a: lane_id,
                                b: lane,
                            },
                        );
                        self.emit(
                            out,
                            at,
                            S::VCmp {
                                op: CmpOp::Lt,
                                ty: CmpType::U32,
                                dst: m,
                                a: Operand::V(v),
                                b: Operand::Imm(32),
                            },
                        );
                    }
                    _ => self.emit(
                        out,
                        at,
                        S::VCmp {
                            op: CmpOp::Eq,
                            ty: CmpType::U32,
                            dst: m,
                            a: Operand::Imm(0),
                            b: Operand::Imm(0),
                        },
                    ),
                }
            }
        }
        self.emit(out, at, S::VShuffle { op, dst, src, lane });
        Ok(())
    }

    fn vote(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let mode = i
            .mods
            .iter()
            .map(String::as_str)
            .find(|m| matches!(*m, "ballot" | "any" | "all" | "uni"))
            .unwrap_or("");
        let src = self.pred(i, 1, out)?;
        let s = self.new_s();
        if mode == "ballot" {
            let d = self.dst_word(i, 0)?;
            self.emit(
                out,
                at,
                S::SWave {
                    op: WaveOp::BallotLo,
                    dst: s,
                    mask: src,
                },
            );
            self.emit(
                out,
                at,
                S::VUnary {
                    op: UnOp::Mov,
                    dst: d,
                    a: Operand::S(s),
                },
            );
            return Ok(());
        }
        let Some(d) = self.dst_pred(self.arg(i, 0)?)? else {
            return Ok(());
        };
        self.emit(
            out,
            at,
            S::SWave {
                op: WaveOp::Count,
                dst: s,
                mask: src,
            },
        );
        match mode {
            "any" => self.emit(
                out,
                at,
                S::SCmp {
                    op: CmpOp::Ne,
                    ty: CmpType::U32,
                    dst: d,
                    a: Operand::S(s),
                    b: Operand::Imm(0),
                },
            ),
            "all" | "uni" => {
                let n = self.new_s();
                self.emit(out, at, S::SActiveLanes { dst: n });
                if mode == "all" {
                    self.emit(
                        out,
                        at,
                        S::SCmp {
                            op: CmpOp::Eq,
                            ty: CmpType::U32,
                            dst: d,
                            a: Operand::S(s),
                            b: Operand::S(n),
                        },
                    );
                } else {
                    let e = self.new_m();
                    let z = self.new_m();
                    self.emit(
                        out,
                        at,
                        S::SCmp {
                            op: CmpOp::Eq,
                            ty: CmpType::U32,
                            dst: e,
                            a: Operand::S(s),
                            b: Operand::S(n),
                        },
                    );
                    self.emit(
                        out,
                        at,
                        S::SCmp {
                            op: CmpOp::Eq,
                            ty: CmpType::U32,
                            dst: z,
                            a: Operand::S(s),
                            b: Operand::Imm(0),
                        },
                    );
                    self.emit(
                        out,
                        at,
                        S::MaskBinary {
                            op: MaskOp::Or,
                            dst: d,
                            a: e,
                            b: z,
                        },
                    );
                }
            }
            _ => return Err(unsupported(i, "this vote")),
        }
        Ok(())
    }

    /// The register a folded negation read, when operand `k` of `i` is one
    /// (see `Kern::negs`), as an operand.
    fn fold(&self, i: &Inst, k: usize) -> Option<Arg> {
        match i.args.get(k) {
            Some(Arg::Reg {
                name,
                not: false,
                at,
            }) => self.negs.get(name).map(|x| Arg::Reg {
                name: x.clone(),
                not: false,
                at: *at,
            }),
            _ => None,
        }
    }

    /// Whether `i` writes a negation its reader folds in.
    fn folded_dst(&self, i: &Inst) -> bool {
        matches!(i.args.first(), Some(Arg::Reg { name, .. }) if self.negs.contains_key(name))
    }

    pub(crate) fn new_s(&mut self) -> SReg {
        let s = SReg(self.next_s);
        self.exhausted |= self.next_s == u16::MAX;
        self.next_s = self.next_s.saturating_add(1);
        s
    }
}

fn byte_ref(buffer: simt_lang::ParamIdx, index: Operand, offset: Operand) -> GlobalRef {
    GlobalRef {
        buffer,
        index,
        offset,
        addressing: Addressing::Byte,
    }
}

fn lds_ref(index: Operand, offset: Operand) -> LdsRef {
    LdsRef {
        lds: LdsIdx(0),
        index,
        offset,
        addressing: Addressing::Byte,
    }
}

/// Whether `a` addresses memory through register `r`.
#[allow(dead_code)]
pub fn addresses_through(a: &Arg, r: &str) -> bool {
    addr_reg(a) == Some(r)
}

// ------------------------------------------------------------ bit fields

impl Kern<'_> {
    /// `op a` into a new register.
    fn tmp_un(&mut self, op: UnOp, a: Operand, at: Pos, out: &mut Vec<Code>) -> Operand {
        let dst = self.new_v(1);
        self.emit(out, at, S::VUnary { op, dst, a });
        Operand::V(dst)
    }

    /// `a op b` into a new register.
    fn tmp_bin(
        &mut self,
        op: BinOp,
        a: Operand,
        b: Operand,
        at: Pos,
        out: &mut Vec<Code>,
    ) -> Operand {
        let dst = self.new_v(1);
        self.emit(out, at, S::VBinary { op, dst, a, b });
        Operand::V(dst)
    }

    /// `bits >= 32 ? t : e` into a new register: what a bit count or
    /// position past a word's 32 bits selects.
    fn tmp_select_past_word(
        &mut self,
        bits: Operand,
        t: Operand,
        e: Operand,
        at: Pos,
        out: &mut Vec<Code>,
    ) -> Operand {
        let mask = self.new_m();
        self.emit(
            out,
            at,
            S::VCmp {
                op: CmpOp::Ge,
                ty: CmpType::U32,
                dst: mask,
                a: bits,
                b: Operand::Imm(32),
            },
        );
        let dst = self.new_v(1);
        self.emit(
            out,
            at,
            S::VSelect {
                dst,
                mask,
                on_true: t,
                on_false: e,
            },
        );
        Operand::V(dst)
    }

    /// `d = op a` into `d`.
    fn put(&mut self, d: VReg, a: Operand, at: Pos, out: &mut Vec<Code>) {
        self.emit(
            out,
            at,
            S::VUnary {
                op: UnOp::Mov,
                dst: d,
                a,
            },
        );
    }

    /// `(1 << len) - 1`, all ones from 32 on (`len` below 256).
    fn ones(&mut self, len: Operand, at: Pos, out: &mut Vec<Code>) -> Operand {
        let shifted = self.tmp_bin(BinOp::Shl, Operand::Imm(1), len, at, out);
        let low = self.tmp_bin(BinOp::SubU32, shifted, Operand::Imm(1), at, out);
        self.tmp_select_past_word(len, Operand::Imm(u32::MAX), low, at, out)
    }

    /// A 64-bit field's position and length (operands `k` and `k + 1`):
    /// constants as numbers, or else as operands read as PTX reads them,
    /// their low 8 bits.
    fn field64(&mut self, i: &Inst, k: usize, out: &mut Vec<Code>) -> R<Field64> {
        if let (Some(pos), Some(len)) = (
            self.values.constant(self.arg(i, k)?),
            self.values.constant(self.arg(i, k + 1)?),
        ) {
            return Ok(Field64::Fixed((pos & 0xff) as u32, (len & 0xff) as u32));
        }
        let pos = self.word(i, k, out)?;
        let len = self.word(i, k + 1, out)?;
        let pos = self.tmp_bin(BinOp::And, pos, Operand::Imm(0xff), i.at, out);
        let len = self.tmp_bin(BinOp::And, len, Operand::Imm(0xff), i.at, out);
        Ok(Field64::Held(pos, len))
    }

    /// The 64 bits `ones >> (64 - min(len, 64))`: `len` ones from bit 0
    /// (none for 0, all from 64 on).
    fn ones64(&mut self, len: Operand, at: Pos, out: &mut Vec<Code>) -> VReg {
        let l = self.tmp_bin(BinOp::MinU32, len, Operand::Imm(64), at, out);
        let s = self.tmp_bin(BinOp::SubU32, Operand::Imm(64), l, at, out);
        let all = self.pair_imm(u64::MAX, at, out);
        let mask = self.new_v(2);
        let right = Shift {
            left: false,
            ..Shift::left(at)
        };
        self.shift64_reg(right, s, mask, all, out);
        mask
    }

    fn bin64(&mut self, op: Bin64Op, a: VReg, b: VReg, at: Pos, out: &mut Vec<Code>) -> VReg {
        let d = self.new_v(2);
        self.emit(out, at, S::VBinary64 { op, dst: d, a, b });
        d
    }

    /// `bfi.b64` with the position or length in a register: the field's
    /// mask is `len` ones shifted to `pos` (a shift past 63 leaves none),
    /// then `(a << pos) & mask | b & !mask`.
    fn bfi64_held(&mut self, i: &Inst, pos: Operand, len: Operand, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let (d, low) = self.dst_wide(i)?;
        let a = self.pair(i, 1, false, out)?;
        let b = self.pair(i, 2, false, out)?;
        let ones = self.ones64(len, at, out);
        let (mask, shifted) = (self.new_v(2), self.new_v(2));
        self.shift64_reg(Shift::left(at), pos, mask, ones, out);
        self.shift64_reg(Shift::left(at), pos, shifted, a, out);
        let field = self.bin64(Bin64Op::And, shifted, mask, at, out);
        let all = self.pair_imm(u64::MAX, at, out);
        let keep = self.bin64(Bin64Op::Xor, mask, all, at, out);
        let rest = self.bin64(Bin64Op::And, b, keep, at, out);
        self.emit(
            out,
            at,
            S::VBinary64 {
                op: Bin64Op::Or,
                dst: d,
                a: field,
                b: rest,
            },
        );
        self.low_word_back(d, low, at, out);
        Ok(())
    }

    /// `bfe.u64`/`bfe.s64` with the position or length in a register.
    /// Unsigned: `(a >> pos) & ones(len)`. Signed: with `p = min(pos, 63)`
    /// and the field's end `e = min(p + len, 64)`, `a << (64 - e)` puts the
    /// field's top bit (PTX's sign bit, `a[min(pos + len - 1, 63)]`) at bit
    /// 63 and an arithmetic shift right by `64 - (e - p)` brings it down;
    /// a length of 0 gives 0.
    fn bfe64_held(
        &mut self,
        i: &Inst,
        signed: bool,
        pos: Operand,
        len: Operand,
        out: &mut Vec<Code>,
    ) -> R<()> {
        let at = i.at;
        let (d, low) = self.dst_wide(i)?;
        let a = self.pair(i, 1, signed, out)?;
        let right = Shift {
            left: false,
            signed,
            ..Shift::left(at)
        };
        if !signed {
            let down = self.new_v(2);
            self.shift64_reg(right, pos, down, a, out);
            let ones = self.ones64(len, at, out);
            self.emit(
                out,
                at,
                S::VBinary64 {
                    op: Bin64Op::And,
                    dst: d,
                    a: down,
                    b: ones,
                },
            );
            self.low_word_back(d, low, at, out);
            return Ok(());
        }
        let p = self.tmp_bin(BinOp::MinU32, pos, Operand::Imm(63), at, out);
        let end = self.tmp_bin(BinOp::AddU32, p, len, at, out);
        let end = self.tmp_bin(BinOp::MinU32, end, Operand::Imm(64), at, out);
        let bits = self.tmp_bin(BinOp::SubU32, end, p, at, out);
        let lift = self.tmp_bin(BinOp::SubU32, Operand::Imm(64), end, at, out);
        let drop = self.tmp_bin(BinOp::SubU32, Operand::Imm(64), bits, at, out);
        let (up, field) = (self.new_v(2), self.new_v(2));
        self.shift64_reg(Shift::left(at), lift, up, a, out);
        self.shift64_reg(right, drop, field, up, out);
        // All ones but for a length of 0.
        let some = self.tmp_bin(BinOp::MinU32, len, Operand::Imm(1), at, out);
        let keep = self.tmp_bin(BinOp::SubU32, Operand::Imm(0), some, at, out);
        for w in 0..2 {
            self.emit(
                out,
                at,
                S::VBinary {
                    op: BinOp::And,
                    dst: VReg(d.0 + w),
                    a: Operand::V(VReg(field.0 + w)),
                    b: keep,
                },
            );
        }
        self.low_word_back(d, low, at, out);
        Ok(())
    }

    /// `bfi.b64` at a constant position and length: `a` shifted to the
    /// field, and the rest of `b`, word by word.
    fn bfi64(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let (d, low) = self.dst_wide(i)?;
        let (pos, len) = match self.field64(i, 3, out)? {
            Field64::Fixed(pos, len) => (pos, len),
            Field64::Held(pos, len) => return self.bfi64_held(i, pos, len, out),
        };
        let a = self.pair(i, 1, false, out)?;
        let b = self.pair(i, 2, false, out)?;
        let bits = len.min(64u32.saturating_sub(pos));
        if bits == 0 {
            self.emit(
                out,
                at,
                S::VUnary64 {
                    op: Un64Op::Mov,
                    dst: d,
                    a: b,
                },
            );
            self.low_word_back(d, low, at, out);
            return Ok(());
        }
        let mask = ((u64::MAX >> (64 - bits)) << pos).to_le_bytes();
        let shifted = self.new_v(2);
        self.shift64_imm(Shift::left(at), pos, shifted, a, out);
        let mut words = [Operand::Imm(0); 2];
        for (w, word) in words.iter_mut().enumerate() {
            let m = u32::from_le_bytes([
                mask[4 * w],
                mask[4 * w + 1],
                mask[4 * w + 2],
                mask[4 * w + 3],
            ]);
            let (field, rest) = (
                Operand::V(VReg(shifted.0 + w as u16)),
                Operand::V(VReg(b.0 + w as u16)),
            );
            *word = match m {
                0 => rest,
                u32::MAX => field,
                m => {
                    let f = self.tmp_bin(BinOp::And, field, Operand::Imm(m), at, out);
                    let r = self.tmp_bin(BinOp::And, rest, Operand::Imm(!m), at, out);
                    self.tmp_bin(BinOp::Or, f, r, at, out)
                }
            };
        }
        for (w, word) in words.into_iter().enumerate() {
            self.put(VReg(d.0 + w as u16), word, at, out);
        }
        self.low_word_back(d, low, at, out);
        Ok(())
    }

    /// `bfe.u64` and `bfe.s64` at a constant position and length: the field
    /// shifted down, then masked, or moved to the top and shifted back down
    /// with its sign (bits past bit 63 are the top bit's, as PTX says).
    fn bfe64(&mut self, i: &Inst, signed: bool, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let (pos, len) = match self.field64(i, 2, out)? {
            Field64::Fixed(pos, len) => (pos, len),
            Field64::Held(pos, len) => return self.bfe64_held(i, signed, pos, len, out),
        };
        let (d, low) = self.dst_wide(i)?;
        let a = self.pair(i, 1, signed, out)?;
        if len == 0 || (pos >= 64 && !signed) {
            let zero = self.pair_imm(0, at, out);
            self.emit(
                out,
                at,
                S::VUnary64 {
                    op: Un64Op::Mov,
                    dst: d,
                    a: zero,
                },
            );
            self.low_word_back(d, low, at, out);
            return Ok(());
        }
        let pos = pos.min(63);
        let bits = len.min(64 - pos);
        if signed {
            let up = self.new_v(2);
            self.shift64_imm(Shift::left(at), 64 - pos - bits, up, a, out);
            let down = Shift {
                left: false,
                signed: true,
                ..Shift::left(at)
            };
            self.shift64_imm(down, 64 - bits, d, up, out);
        } else {
            let down = self.new_v(2);
            let right = Shift {
                left: false,
                ..Shift::left(at)
            };
            self.shift64_imm(right, pos, down, a, out);
            let mask = self.pair_imm(u64::MAX >> (64 - bits), at, out);
            self.emit(
                out,
                at,
                S::VBinary64 {
                    op: Bin64Op::And,
                    dst: d,
                    a: down,
                    b: mask,
                },
            );
        }
        self.low_word_back(d, low, at, out);
        Ok(())
    }

    /// `bfi.b32 f, a, b, pos, len`: `b` with bits `pos..pos + len` (cut at
    /// 32) replaced by the low bits of `a`. With a constant position and
    /// length: `f = (a << pos) & mask | b & !mask`, four instructions; else
    /// the mask is computed first (PTX reads both as their low 8 bits, and
    /// simt's shifts take their amount modulo 32, so the ends are selected).
    pub(crate) fn bfi(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        if types(i).last().copied() == Some("b64") {
            return self.bfi64(i, out);
        }
        let d = self.dst_word(i, 0)?;
        let a = self.word(i, 1, out)?;
        let b = self.word(i, 2, out)?;
        let consts = (
            self.values.constant(self.arg(i, 3)?),
            self.values.constant(self.arg(i, 4)?),
        );
        let (mask, pos) = if let (Some(pos), Some(len)) = consts {
            let (pos, len) = ((pos & 0xff) as u32, (len & 0xff) as u32);
            if len == 0 || pos >= 32 {
                self.put(d, b, at, out);
                return Ok(());
            }
            let bits = len.min(32 - pos);
            let mask = (((1u64 << bits) - 1) << pos) as u32;
            (Operand::Imm(mask), Operand::Imm(pos))
        } else {
            let c = self.word(i, 3, out)?;
            let l = self.word(i, 4, out)?;
            let pos = self.tmp_bin(BinOp::And, c, Operand::Imm(0xff), at, out);
            let len = self.tmp_bin(BinOp::And, l, Operand::Imm(0xff), at, out);
            let ones = self.ones(len, at, out);
            let shifted = self.tmp_bin(BinOp::Shl, ones, pos, at, out);
            let mask = self.tmp_select_past_word(pos, Operand::Imm(0), shifted, at, out);
            (mask, pos)
        };
        let field = self.tmp_bin(BinOp::Shl, a, pos, at, out);
        let field = self.tmp_bin(BinOp::And, field, mask, at, out);
        let keep = match mask {
            Operand::Imm(m) => Operand::Imm(!m),
            m => {
                let n = self.new_v(1);
                self.emit(
                    out,
                    at,
                    S::VUnary {
                        op: UnOp::Not,
                        dst: n,
                        a: m,
                    },
                );
                Operand::V(n)
            }
        };
        let rest = self.tmp_bin(BinOp::And, b, keep, at, out);
        self.emit(
            out,
            at,
            S::VBinary {
                op: BinOp::Or,
                dst: d,
                a: field,
                b: rest,
            },
        );
        Ok(())
    }

    /// `bfe.{u32,s32} d, a, pos, len`: bits `pos..pos + len` of `a` (cut at
    /// 32), zero- or sign-extended from the field's top bit (from bit 31
    /// where the field reaches past it); 0 when `len` is 0. With a constant
    /// position and length: a shift and a mask (unsigned) or two shifts
    /// (signed); else the same from the computed amounts, the ends selected.
    pub(crate) fn bfe(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let t = types(i).last().copied().unwrap_or("");
        let signed = match t {
            "u32" => false,
            "s32" => true,
            "u64" | "s64" => return self.bfe64(i, t == "s64", out),
            _ => return Err(unsupported(i, "this type")),
        };
        let d = self.dst_word(i, 0)?;
        let a = self.word(i, 1, out)?;
        let consts = (
            self.values.constant(self.arg(i, 2)?),
            self.values.constant(self.arg(i, 3)?),
        );
        if let (Some(pos), Some(len)) = consts {
            let (pos, len) = ((pos & 0xff) as u32, (len & 0xff) as u32);
            let bin = |this: &mut Self, op, a, b, out: &mut Vec<Code>| {
                this.emit(out, at, S::VBinary { op, dst: d, a, b });
            };
            match (len, pos) {
                (0, _) | (_, 32..) if !signed || len == 0 => self.put(d, Operand::Imm(0), at, out),
                (_, 32..) => bin(self, BinOp::ShrI32, a, Operand::Imm(31), out),
                (len, pos) if pos + len >= 32 => {
                    let op = if signed { BinOp::ShrI32 } else { BinOp::ShrU32 };
                    bin(self, op, a, Operand::Imm(pos), out);
                }
                (len, pos) if signed => {
                    let up = self.tmp_bin(BinOp::Shl, a, Operand::Imm(32 - pos - len), at, out);
                    bin(self, BinOp::ShrI32, up, Operand::Imm(32 - len), out);
                }
                (len, pos) => {
                    let down = self.tmp_bin(BinOp::ShrU32, a, Operand::Imm(pos), at, out);
                    bin(self, BinOp::And, down, Operand::Imm((1u32 << len) - 1), out);
                }
            }
            return Ok(());
        }
        let p = self.word(i, 2, out)?;
        let l = self.word(i, 3, out)?;
        let pos = self.tmp_bin(BinOp::And, p, Operand::Imm(0xff), at, out);
        let len = self.tmp_bin(BinOp::And, l, Operand::Imm(0xff), at, out);
        let field = if signed {
            // The field's width inside the word, `min(len, 32 - pos)` (at
            // least 1 where it matters: len > 0 and pos < 32), moved to the
            // top and shifted back down with its sign.
            let room = self.tmp_bin(BinOp::SubU32, Operand::Imm(32), pos, at, out);
            let width = self.tmp_bin(BinOp::MinU32, len, room, at, out);
            let up_by = self.tmp_bin(BinOp::SubU32, room, width, at, out);
            let up = self.tmp_bin(BinOp::Shl, a, up_by, at, out);
            let down_by = self.tmp_bin(BinOp::SubU32, Operand::Imm(32), width, at, out);
            let field = self.tmp_bin(BinOp::ShrI32, up, down_by, at, out);
            let sign = self.tmp_bin(BinOp::ShrI32, a, Operand::Imm(31), at, out);
            self.tmp_select_past_word(pos, sign, field, at, out)
        } else {
            let down = self.tmp_bin(BinOp::ShrU32, a, pos, at, out);
            let ones = self.ones(len, at, out);
            let field = self.tmp_bin(BinOp::And, down, ones, at, out);
            self.tmp_select_past_word(pos, Operand::Imm(0), field, at, out)
        };
        let mask = self.new_m();
        self.emit(
            out,
            at,
            S::VCmp {
                op: CmpOp::Eq,
                ty: CmpType::U32,
                dst: mask,
                a: len,
                b: Operand::Imm(0),
            },
        );
        self.emit(
            out,
            at,
            S::VSelect {
                dst: d,
                mask,
                on_true: Operand::Imm(0),
                on_false: field,
            },
        );
        Ok(())
    }

    /// `prmt.b32 d, a, b, c` (the default mode) with a constant selector:
    /// byte `k` of `d` is byte `c[4k..4k + 3]` of the eight bytes `b:a`,
    /// or that byte's top bit copied through it where `c[4k + 3]` is set.
    /// The bytes that come from one source by one shift are moved together
    /// (a shift and an `and`), and the groups or-ed: `prmt` of two halves,
    /// say, is four instructions.
    pub(crate) fn prmt(&mut self, i: &Inst, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        if i.mods
            .iter()
            .any(|m| matches!(m.as_str(), "f4e" | "b4e" | "rc8" | "ecl" | "ecr" | "rc16"))
        {
            return Err(unsupported(
                i,
                "the byte-permute modes other than the default",
            ));
        }
        let Some(sel) = self.values.constant(self.arg(i, 3)?) else {
            return Err(unsupported(
                i,
                "a selector held in a register that is not a constant",
            ));
        };
        let d = self.dst_word(i, 0)?;
        let srcs = [self.word(i, 1, out)?, self.word(i, 2, out)?];
        // (source, left shift in bits (negative: right), mask of d's bits).
        let mut groups: Vec<(usize, i32, u32)> = Vec::new();
        let mut parts: Vec<Operand> = Vec::new();
        for k in 0..4u32 {
            let nib = ((sel >> (4 * k)) & 0xf) as u32;
            let (src, byte) = ((nib >> 2) as usize & 1, nib & 3);
            if nib & 8 != 0 {
                // The byte's sign: its top bit moved to bit 31, spread down,
                // and kept in byte `k`.
                let up = self.tmp_bin(BinOp::Shl, srcs[src], Operand::Imm(24 - 8 * byte), at, out);
                let spread = self.tmp_bin(BinOp::ShrI32, up, Operand::Imm(31), at, out);
                parts.push(self.tmp_bin(
                    BinOp::And,
                    spread,
                    Operand::Imm(0xff << (8 * k)),
                    at,
                    out,
                ));
                continue;
            }
            let shift = 8 * k as i32 - 8 * byte as i32;
            match groups.iter_mut().find(|g| g.0 == src && g.1 == shift) {
                Some(g) => g.2 |= 0xff << (8 * k),
                None => groups.push((src, shift, 0xff << (8 * k))),
            }
        }
        for (src, shift, mask) in groups {
            let moved = match shift {
                0 => srcs[src],
                s if s > 0 => self.tmp_bin(BinOp::Shl, srcs[src], Operand::Imm(s as u32), at, out),
                s => self.tmp_bin(BinOp::ShrU32, srcs[src], Operand::Imm((-s) as u32), at, out),
            };
            parts.push(if mask == u32::MAX {
                moved
            } else {
                self.tmp_bin(BinOp::And, moved, Operand::Imm(mask), at, out)
            });
        }
        let Some((&last, rest)) = parts.split_last() else {
            return Err(unsupported(i, "this selector"));
        };
        match rest.split_first() {
            None => self.put(d, last, at, out),
            Some((&first, middle)) => {
                let mut acc = first;
                for &p in middle {
                    acc = self.tmp_bin(BinOp::Or, acc, p, at, out);
                }
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::Or,
                        dst: d,
                        a: acc,
                        b: last,
                    },
                );
            }
        }
        Ok(())
    }
}

// ------------------------------------------------- vectors of small elements

/// A memory access's place, index and byte offset.
type Address = (Place, Operand, i64);

impl Kern<'_> {
    /// The one access that moves `bytes` (2, 4, 8 or 16) of a vector of
    /// 8- or 16-bit elements: a 16- or 32-bit access, or a wide one of 2 or 4
    /// words, as the hardware moves it.
    fn packed_access(i: &Inst, bytes: u32) -> R<(Option<ElemType>, u16)> {
        Ok(match bytes {
            2 => (Some(ElemType::U16), 1),
            4 => (Some(ElemType::U32), 1),
            8 => (None, 2),
            16 => (None, 4),
            _ => return Err(unsupported(i, "this vector size")),
        })
    }

    /// `ld.v2.u8`, `ld.v4.u8`, `ld.v2.u16`, `ld.v4.u16` and their signed
    /// forms: the bytes in one access into consecutive words, then each
    /// element shifted out of its word (`and` with its mask, or two shifts
    /// to extend its sign): three to five instructions per element.
    fn load_packed(
        &mut self,
        i: &Inst,
        (place, index, offset): Address,
        dests: &[VReg],
        size: u32,
        out: &mut Vec<Code>,
    ) -> R<()> {
        let at = i.at;
        let signed = types(i).last().is_some_and(|t| t.starts_with('s'));
        let bytes = size * dests.len() as u32;
        let (ty, words) = Self::packed_access(i, bytes)?;
        let run = self.new_v(words);
        let off = Operand::Imm(offset as u32);
        let inst = match (ty, &place) {
            (ty, Place::Local) => {
                let regs: Vec<VReg> = (0..words).map(|w| VReg(run.0 + w)).collect();
                self.load_local(i, (index, offset), ty.unwrap_or(ElemType::U32), &regs, out)?;
                None
            }
            (Some(ty), Place::Global(p)) => Some(S::GlobalLoad {
                ty,
                dst: run,
                src: byte_ref(*p, index, off),
            }),
            (Some(ty), Place::Lds) => Some(S::LdsLoad {
                ty,
                dst: run,
                src: lds_ref(index, off),
            }),
            (None, Place::Global(p)) => Some(S::GlobalLoadWide {
                width: if words == 2 { Width::X2 } else { Width::X4 },
                dst: run,
                src: byte_ref(*p, index, off),
            }),
            (None, Place::Lds) => Some(S::LdsLoadWide {
                width: if words == 2 { Width::X2 } else { Width::X4 },
                dst: run,
                src: lds_ref(index, off),
            }),
        };
        if let Some(inst) = inst {
            self.emit(out, at, inst);
        }
        let bits = 8 * size;
        for (e, &d) in dests.iter().enumerate() {
            let byte = e as u32 * size;
            let word = Operand::V(VReg(run.0 + (byte / 4) as u16));
            let shift = 8 * (byte % 4);
            if signed {
                let up = self.tmp_bin(BinOp::Shl, word, Operand::Imm(32 - bits - shift), at, out);
                self.emit(
                    out,
                    at,
                    S::VBinary {
                        op: BinOp::ShrI32,
                        dst: d,
                        a: up,
                        b: Operand::Imm(32 - bits),
                    },
                );
            } else {
                let down = if shift == 0 {
                    word
                } else {
                    self.tmp_bin(BinOp::ShrU32, word, Operand::Imm(shift), at, out)
                };
                if shift + bits == 32 {
                    self.put(d, down, at, out);
                } else {
                    self.emit(
                        out,
                        at,
                        S::VBinary {
                            op: BinOp::And,
                            dst: d,
                            a: down,
                            b: Operand::Imm((1 << bits) - 1),
                        },
                    );
                }
            }
        }
        Ok(())
    }

    /// `st.v2.u8`, `st.v4.u8`, `st.v2.u16`, `st.v4.u16`: the elements' low
    /// bits packed into words (an `and`, a shift and an `or` per element),
    /// then one access.
    fn store_packed(
        &mut self,
        i: &Inst,
        (place, index, offset): Address,
        vec_n: u32,
        size: u32,
        out: &mut Vec<Code>,
    ) -> R<()> {
        let at = i.at;
        let Some(Arg::Vector(items, _)) = i.args.get(1).cloned() else {
            return Err(unsupported(i, "this source"));
        };
        if items.len() as u32 != vec_n {
            return Err(unsupported(i, "a vector of another length than its type"));
        }
        let (ty, words) = Self::packed_access(i, size * vec_n)?;
        let run = self.new_v(words);
        let bits = 8 * size;
        let per_word = 4 / size;
        for w in 0..u32::from(words) {
            let mut acc: Option<Operand> = None;
            for e in 0..per_word.min(vec_n) {
                let Some(item) = items.get((w * per_word + e) as usize) else {
                    break;
                };
                let v = self.word_of(item, i, out)?;
                let low = match v {
                    Operand::Imm(n) => Operand::Imm(n & ((1u64 << bits) - 1) as u32),
                    v => self.tmp_bin(
                        BinOp::And,
                        v,
                        Operand::Imm(((1u64 << bits) - 1) as u32),
                        at,
                        out,
                    ),
                };
                let placed = match (low, e * bits) {
                    (l, 0) => l,
                    (Operand::Imm(n), s) => Operand::Imm(n << s),
                    (l, s) => self.tmp_bin(BinOp::Shl, l, Operand::Imm(s), at, out),
                };
                acc = Some(match acc {
                    None => placed,
                    Some(a) => self.tmp_bin(BinOp::Or, a, placed, at, out),
                });
            }
            let acc = acc.unwrap_or(Operand::Imm(0));
            self.put(VReg(run.0 + w as u16), acc, at, out);
        }
        let off = Operand::Imm(offset as u32);
        let src = Operand::V(run);
        let inst = match (ty, &place) {
            (ty, Place::Local) => {
                let srcs: Vec<Operand> = (0..words).map(|w| Operand::V(VReg(run.0 + w))).collect();
                self.store_local(i, (index, offset), ty.unwrap_or(ElemType::U32), &srcs, out)?;
                None
            }
            (Some(ty), Place::Global(p)) => Some(S::GlobalStore {
                ty,
                dst: byte_ref(*p, index, off),
                src,
            }),
            (Some(ty), Place::Lds) => Some(S::LdsStore {
                ty,
                dst: lds_ref(index, off),
                src,
            }),
            (None, Place::Global(p)) => Some(S::GlobalStoreWide {
                width: if words == 2 { Width::X2 } else { Width::X4 },
                dst: byte_ref(*p, index, off),
                src: run,
            }),
            (None, Place::Lds) => Some(S::LdsStoreWide {
                width: if words == 2 { Width::X2 } else { Width::X4 },
                dst: lds_ref(index, off),
                src: run,
            }),
        };
        if let Some(inst) = inst {
            self.emit(out, at, inst);
        }
        Ok(())
    }
}

// ------------------------------------------------- rounding to integers

/// 2^23 as `f32` bits: from it on every `f32` is an integer.
const F32_TWO_23: u32 = 0x4b00_0000;

impl Kern<'_> {
    /// `a` rounded to an integral `f32` as `cvt.{rni,rzi,rmi,rpi}` round:
    /// to nearest even, toward zero, down or up. Exact, from simt's own
    /// operations, on `|a| < 2^23` (every larger `f32`, infinities and NaN
    /// are their own rounding, selected at the end):
    ///
    /// - nearest even: `(|a| + 2^23) - 2^23` (the addition rounds at the
    ///   units, ties to even), seven instructions;
    /// - toward zero, down, up: `t = f32(i32(a))` (truncation; `|a|` fits),
    ///   then `t - 1` where `t > a` (down) or `t + 1` where `t < a` (up),
    ///   seven to ten instructions.
    ///
    /// Each takes `a`'s sign bit back, since every rounding keeps the sign
    /// (`rint(-0.3)` is `-0.0`).
    fn round_f32(&mut self, mode: &str, a: Operand, at: Pos, out: &mut Vec<Code>) -> Operand {
        let two23 = Operand::Imm(F32_TWO_23);
        let mag = self.new_v(1);
        self.emit(
            out,
            at,
            S::VUnary {
                op: UnOp::AbsF32,
                dst: mag,
                a,
            },
        );
        let mag = Operand::V(mag);
        let rounded = if mode == "rni" {
            let up = self.tmp_bin(BinOp::AddF32, mag, two23, at, out);
            self.tmp_bin(BinOp::SubF32, up, two23, at, out)
        } else {
            let int = self.new_v(1);
            self.emit(
                out,
                at,
                S::VUnary {
                    op: UnOp::CvtI32F32,
                    dst: int,
                    a,
                },
            );
            let t = self.new_v(1);
            self.emit(
                out,
                at,
                S::VUnary {
                    op: UnOp::CvtF32I32,
                    dst: t,
                    a: Operand::V(int),
                },
            );
            let t = Operand::V(t);
            let (op, step) = match mode {
                "rmi" => (CmpOp::Gt, BinOp::SubF32),
                "rpi" => (CmpOp::Lt, BinOp::AddF32),
                _ => (CmpOp::Eq, BinOp::AddF32),
            };
            if mode == "rzi" {
                t
            } else {
                let mask = self.new_m();
                self.emit(
                    out,
                    at,
                    S::VCmp {
                        op,
                        ty: CmpType::F32,
                        dst: mask,
                        a: t,
                        b: a,
                    },
                );
                let stepped = self.tmp_bin(step, t, Operand::Imm(F32_ONE), at, out);
                let dst = self.new_v(1);
                self.emit(
                    out,
                    at,
                    S::VSelect {
                        dst,
                        mask,
                        on_true: stepped,
                        on_false: t,
                    },
                );
                Operand::V(dst)
            }
        };
        let sign = self.tmp_bin(BinOp::And, a, Operand::Imm(0x8000_0000), at, out);
        let signed = self.tmp_bin(BinOp::Or, rounded, sign, at, out);
        let mask = self.new_m();
        self.emit(
            out,
            at,
            S::VCmp {
                op: CmpOp::Lt,
                ty: CmpType::F32,
                dst: mask,
                a: mag,
                b: two23,
            },
        );
        let dst = self.new_v(1);
        self.emit(
            out,
            at,
            S::VSelect {
                dst,
                mask,
                on_true: signed,
                on_false: a,
            },
        );
        Operand::V(dst)
    }
}

// --------------------------------------------- bit counts, powers of two

impl Kern<'_> {
    /// `popc`, `clz` and `brev` on 32 bits: one simt instruction each. On
    /// 64 bits (a register pair): `popc` adds the halves' counts, `clz` is
    /// the high half's, or 32 plus the low half's where the high half is 0,
    /// and `brev` swaps the reversed halves.
    fn bit_count(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        let op = match i.op.as_str() {
            "popc" => UnOp::Popc,
            "clz" => UnOp::Clz,
            _ => UnOp::Brev,
        };
        match t {
            "b32" => {
                let d = self.dst_word(i, 0)?;
                let a = self.word(i, 1, out)?;
                self.emit(out, at, S::VUnary { op, dst: d, a });
                Ok(())
            }
            "b64" => {
                let a = self.pair(i, 1, false, out)?;
                let (lo, hi) = (Operand::V(a), Operand::V(VReg(a.0 + 1)));
                if op == UnOp::Brev {
                    let d = self.dst_pair(i, 0)?;
                    let t = self.new_v(1);
                    self.emit(out, at, S::VUnary { op, dst: t, a: hi });
                    self.emit(
                        out,
                        at,
                        S::VUnary {
                            op,
                            dst: VReg(d.0 + 1),
                            a: lo,
                        },
                    );
                    self.put(d, Operand::V(t), at, out);
                    return Ok(());
                }
                let d = self.dst_word(i, 0)?;
                let l = self.new_v(1);
                self.emit(out, at, S::VUnary { op, dst: l, a: lo });
                let h = self.new_v(1);
                self.emit(out, at, S::VUnary { op, dst: h, a: hi });
                if op == UnOp::Popc {
                    self.emit(
                        out,
                        at,
                        S::VBinary {
                            op: BinOp::AddU32,
                            dst: d,
                            a: Operand::V(l),
                            b: Operand::V(h),
                        },
                    );
                } else {
                    let low = self.tmp_bin(BinOp::AddU32, Operand::V(l), Operand::Imm(32), at, out);
                    let mask = self.new_m();
                    self.emit(
                        out,
                        at,
                        S::VCmp {
                            op: CmpOp::Eq,
                            ty: CmpType::U32,
                            dst: mask,
                            a: hi,
                            b: Operand::Imm(0),
                        },
                    );
                    self.emit(
                        out,
                        at,
                        S::VSelect {
                            dst: d,
                            mask,
                            on_true: low,
                            on_false: Operand::V(h),
                        },
                    );
                }
                Ok(())
            }
            _ => Err(unsupported(i, "this type")),
        }
    }

    /// `ex2.approx.f32`: simt's `v_exp2_f32`, `2^a` rounded to nearest (the
    /// hardware's approximation is within 2 ulp of it). `.ftz` flushes a
    /// subnormal result to `+0` (a select where the result is below the
    /// least normal, two instructions more; a subnormal operand gives 1
    /// either way, as `2^x` of so small an `x` rounds to 1).
    fn ex2(&mut self, i: &Inst, t: &str, out: &mut Vec<Code>) -> R<()> {
        let at = i.at;
        if t != "f32" {
            return Err(unsupported(i, "this type"));
        }
        let d = self.dst_word(i, 0)?;
        let a = self.word(i, 1, out)?;
        if !i.has("ftz") {
            self.emit(
                out,
                at,
                S::VUnary {
                    op: UnOp::Exp2F32,
                    dst: d,
                    a,
                },
            );
            return Ok(());
        }
        let r = self.new_v(1);
        self.emit(
            out,
            at,
            S::VUnary {
                op: UnOp::Exp2F32,
                dst: r,
                a,
            },
        );
        let mask = self.new_m();
        self.emit(
            out,
            at,
            S::VCmp {
                op: CmpOp::Lt,
                ty: CmpType::F32,
                dst: mask,
                a: Operand::V(r),
                b: Operand::Imm(0x0080_0000),
            },
        );
        self.emit(
            out,
            at,
            S::VSelect {
                dst: d,
                mask,
                on_true: Operand::Imm(0),
                on_false: Operand::V(r),
            },
        );
        Ok(())
    }
}

impl Kern<'_> {
    /// The low `bits` of `a`, sign- or zero-extended to 32: two shifts or an
    /// `and` (folded for an immediate).
    fn extend(
        &mut self,
        a: Operand,
        bits: u32,
        signed: bool,
        at: Pos,
        out: &mut Vec<Code>,
    ) -> Operand {
        let up = 32 - bits;
        match a {
            Operand::Imm(n) if signed => Operand::Imm((((n << up) as i32) >> up) as u32),
            Operand::Imm(n) => Operand::Imm(n & (u32::MAX >> up)),
            a if signed => {
                let high = self.tmp_bin(BinOp::Shl, a, Operand::Imm(up), at, out);
                self.tmp_bin(BinOp::ShrI32, high, Operand::Imm(up), at, out)
            }
            a => self.tmp_bin(BinOp::And, a, Operand::Imm(u32::MAX >> up), at, out),
        }
    }
}

/// PTX's rounding to an integral value (`.rni`, `.rzi`, `.rmi`, `.rpi`) of a
/// double.
fn integral_f64(mode: &str) -> Un64Op {
    match mode {
        "rni" => Un64Op::RndneF64,
        "rmi" => Un64Op::FloorF64,
        "rpi" => Un64Op::CeilF64,
        _ => Un64Op::TruncF64,
    }
}

/// The narrowing from `f64` to `f32` rounding toward `mode` (`rz`, `rm`,
/// `rp`).
fn narrow_toward(mode: &str) -> NarrowOp {
    match mode {
        "rz" => NarrowOp::CvtRzF32F64,
        "rm" => NarrowOp::CvtRmF32F64,
        _ => NarrowOp::CvtRpF32F64,
    }
}

/// A 64-bit bit field's position and length: constants, or registers'
/// low 8 bits.
enum Field64 {
    Fixed(u32, u32),
    Held(Operand, Operand),
}

/// A 64-bit shift's direction, whether a right shift fills with the sign,
/// and the PTX instruction it lowers.
#[derive(Clone, Copy)]
struct Shift {
    at: Pos,
    left: bool,
    signed: bool,
}

impl Shift {
    /// A left shift for the instruction at `at`.
    fn left(at: Pos) -> Shift {
        Shift {
            at,
            left: true,
            signed: false,
        }
    }
}
