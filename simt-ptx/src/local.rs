//! Local memory (`.local`): each work-item's private arrays, in the scratch
//! buffer a launch allocates ([`Program::scratch_words`](simt_lang::Program)).
//!
//! A GPU interleaves local memory so that the work-items of a warp reading
//! one word of their arrays read one contiguous run. The scratch is laid out
//! the same way, in runs of 32 work-items (PTX's warp, at either wave width):
//! word `w` of work-item `i` (its linear id in the workgroup) of workgroup
//! `g` (its linear id in the grid) is element
//! `((g * runs + i / 32) * words + w) * 32 + i % 32`, where `runs` is the
//! workgroup's runs of 32 and `words` the kernel's local words per item.
//!
//! Each lane's byte address of its word 0 is computed once, at the kernel's
//! start. A local byte `b` of a word-aligned access is then at
//! `b * 32 + base`, and a 64-bit or vector access is one access per word
//! (its words are 128 bytes apart); a byte or 16-bit access also adds its
//! place in the word.

use crate::ast::{Entry, Inst, Space};
use crate::diagnostic::{Pos, PtxError};
use crate::lower::{Code, Kern};
use simt_lang::{
    Addressing, Axis, BinOp, ElemType, GlobalRef, Inst as S, Operand, ParamIdx, Special, TernOp,
    VReg,
};
use std::collections::HashMap;

/// Work-items per run of the interleaving.
const RUN: u32 = 32;

/// The kernel's scratch: its buffer parameter, the register holding each
/// lane's base address, and the words per work-item.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scratch {
    pub param: ParamIdx,
    pub base: VReg,
    pub words: u32,
}

/// The byte offsets of `entry`'s local variables in each work-item's local
/// memory, and its size in bytes.
pub(crate) fn layout(entry: &Entry) -> Result<(HashMap<String, u32>, u32), Vec<PtxError>> {
    let mut offsets = HashMap::new();
    let mut end = 0u32;
    let mut errors = Vec::new();
    for v in entry.vars.iter().filter(|v| v.space == Space::Local) {
        let Some(count) = v.count else {
            errors.push(PtxError::new(
                v.at,
                v.name.len() as u32,
                format!("`{}`: a local array needs a size", v.name),
            ));
            continue;
        };
        let align = v.align.max(1);
        let at = end.div_ceil(align).saturating_mul(align);
        offsets.insert(v.name.clone(), at);
        end = at.saturating_add(count.saturating_mul(v.elem_size));
    }
    // CUDA's limit on local memory per thread.
    const MOST: u32 = 512 * 1024;
    if end > MOST {
        if let Some(v) = entry.vars.iter().find(|v| v.space == Space::Local) {
            errors.push(PtxError::new(
                v.at,
                v.name.len() as u32,
                format!("{end} bytes of local memory per thread: more than the {MOST} a thread may have"),
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok((offsets, end))
}

impl Kern<'_> {
    /// Each lane's byte address of its local word 0, into the scratch's
    /// base register (the kernel's first instructions).
    pub(crate) fn scratch_prologue(&mut self, scratch: Scratch, at: Pos) -> Vec<Code> {
        let mut out = Vec::new();
        let sp = Operand::Special;
        let tern = |k: &mut Self, out: &mut Vec<Code>, op, a, b, c| {
            let dst = k.new_v(1);
            k.emit(out, at, S::VTernary { op, dst, a, b, c });
            Operand::V(dst)
        };
        // The linear ids: x + X * (y + Y * z).
        let linear =
            |k: &mut Self, out: &mut Vec<Code>, id: fn(Axis) -> Special, n: fn(Axis) -> Special| {
                let yz = tern(
                    k,
                    out,
                    TernOp::MadU32,
                    sp(n(Axis::Y)),
                    sp(id(Axis::Z)),
                    sp(id(Axis::Y)),
                );
                tern(k, out, TernOp::MadU32, sp(n(Axis::X)), yz, sp(id(Axis::X)))
            };
        let item = linear(self, &mut out, Special::LocalId, Special::GroupSize);
        let group = linear(self, &mut out, Special::GroupId, Special::NumGroups);
        let bin = |k: &mut Self, out: &mut Vec<Code>, op, a, b| {
            let dst = k.new_v(1);
            k.emit(out, at, S::VBinary { op, dst, a, b });
            Operand::V(dst)
        };
        // Runs of 32 per workgroup: (X * Y * Z + 31) / 32.
        let xy = bin(
            self,
            &mut out,
            BinOp::MulU32,
            sp(Special::GroupSize(Axis::X)),
            sp(Special::GroupSize(Axis::Y)),
        );
        let size = tern(
            self,
            &mut out,
            TernOp::MadU32,
            xy,
            sp(Special::GroupSize(Axis::Z)),
            Operand::Imm(RUN - 1),
        );
        let runs = bin(
            self,
            &mut out,
            BinOp::ShrU32,
            size,
            Operand::Imm(RUN.trailing_zeros()),
        );
        let run_in_group = bin(
            self,
            &mut out,
            BinOp::ShrU32,
            item,
            Operand::Imm(RUN.trailing_zeros()),
        );
        let run = tern(self, &mut out, TernOp::MadU32, group, runs, run_in_group);
        let lane = bin(self, &mut out, BinOp::And, item, Operand::Imm(RUN - 1));
        let lane_bytes = bin(self, &mut out, BinOp::Shl, lane, Operand::Imm(2));
        let run_bytes = scratch.words.saturating_mul(RUN * 4);
        self.emit(
            &mut out,
            at,
            S::VTernary {
                op: TernOp::MadU32,
                dst: scratch.base,
                a: run,
                b: Operand::Imm(run_bytes),
                c: lane_bytes,
            },
        );
        out
    }

    /// The scratch address (bytes) of local byte `index + offset` for an
    /// access of `size` bytes: its first word's when `size` is 4 or more,
    /// with the rest at [`Kern::local_word`] offsets.
    fn local_address(
        &mut self,
        scratch: Scratch,
        (index, offset): (Operand, i64),
        size: u32,
        at: Pos,
        out: &mut Vec<Code>,
    ) -> Operand {
        let base = Operand::V(scratch.base);
        let spread = |k: &mut Self, out: &mut Vec<Code>, b: Operand| {
            let dst = k.new_v(1);
            k.emit(
                out,
                at,
                S::VTernary {
                    op: TernOp::MadU32,
                    dst,
                    a: b,
                    b: Operand::Imm(RUN),
                    c: base,
                },
            );
            dst
        };
        if size >= 4 {
            // Aligned: the offset moves whole words, added per access.
            return match index {
                Operand::Imm(n) => {
                    let dst = self.new_v(1);
                    self.emit(
                        out,
                        at,
                        S::VTernary {
                            op: TernOp::MadU32,
                            dst,
                            a: Operand::Imm(n),
                            b: Operand::Imm(RUN),
                            c: base,
                        },
                    );
                    Operand::V(dst)
                }
                b => Operand::V(spread(self, out, b)),
            };
        }
        // A byte or 16-bit access: `(b & !3) * 32 + (b & 3)`, which is
        // `b * 32 - 31 * (b & 3)`.
        let byte = self.new_v(1);
        self.emit(
            out,
            at,
            S::VBinary {
                op: BinOp::AddU32,
                dst: byte,
                a: index,
                b: Operand::Imm(offset as u32),
            },
        );
        let spread_byte = spread(self, out, Operand::V(byte));
        let within = self.new_v(1);
        self.emit(
            out,
            at,
            S::VBinary {
                op: BinOp::And,
                dst: within,
                a: Operand::V(byte),
                b: Operand::Imm(3),
            },
        );
        let dst = self.new_v(1);
        self.emit(
            out,
            at,
            S::VTernary {
                op: TernOp::MadU32,
                dst,
                a: Operand::V(within),
                b: Operand::Imm((RUN - 1).wrapping_neg()),
                c: Operand::V(spread_byte),
            },
        );
        Operand::V(dst)
    }

    /// The scratch reference of word `w` of an access at `address` (from
    /// [`Kern::local_address`]) with immediate offset `offset`.
    fn local_word(scratch: Scratch, address: Operand, offset: i64, w: u32, size: u32) -> GlobalRef {
        let moved = if size >= 4 { offset } else { 0 };
        GlobalRef {
            buffer: scratch.param,
            index: address,
            offset: Operand::Imm((moved.wrapping_add(i64::from(w) * 4) as u32).wrapping_mul(RUN)),
            addressing: Addressing::Byte,
        }
    }

    /// A load of `dests` (one register a word, or one of a byte or 16-bit
    /// value of type `ty`) from local memory.
    pub(crate) fn load_local(
        &mut self,
        i: &Inst,
        (index, offset): (Operand, i64),
        ty: ElemType,
        dests: &[VReg],
        out: &mut Vec<Code>,
    ) -> Result<(), PtxError> {
        let scratch = self.scratch_or_refuse(i)?;
        let size = ty.size();
        let address = self.local_address(scratch, (index, offset), size, i.at, out);
        for (w, &dst) in dests.iter().enumerate() {
            let src = Self::local_word(scratch, address, offset, w as u32, size);
            let ty = if size >= 4 { ElemType::U32 } else { ty };
            self.emit(out, i.at, S::GlobalLoad { ty, dst, src });
        }
        Ok(())
    }

    /// A store of `srcs` (one operand a word, or one byte or 16-bit value
    /// of type `ty`) to local memory.
    pub(crate) fn store_local(
        &mut self,
        i: &Inst,
        (index, offset): (Operand, i64),
        ty: ElemType,
        srcs: &[Operand],
        out: &mut Vec<Code>,
    ) -> Result<(), PtxError> {
        let scratch = self.scratch_or_refuse(i)?;
        let size = ty.size();
        let address = self.local_address(scratch, (index, offset), size, i.at, out);
        for (w, &src) in srcs.iter().enumerate() {
            let dst = Self::local_word(scratch, address, offset, w as u32, size);
            let ty = if size >= 4 { ElemType::U32 } else { ty };
            self.emit(out, i.at, S::GlobalStore { ty, dst, src });
        }
        Ok(())
    }

    fn scratch_or_refuse(&self, i: &Inst) -> Result<Scratch, PtxError> {
        self.scratch.ok_or_else(|| {
            PtxError::new(
                i.at,
                i.len,
                "this kernel declares no local memory to access",
            )
        })
    }
}
