//! The instruction set as the macro sees it: one table from mnemonic to form.
//!
//! The parser asks it which mnemonics take no operands, the checker asks it for
//! each operand position's kind and for the IR constructor, and unknown
//! mnemonics are matched against it for a suggestion. `docs/language.md` is
//! tested against it so the reference cannot drift.

use simt_core::{
    BinOp, CmpOp, CmpType, ElemType, GlobalRef, Inst, InstIdx, LdsRef, MReg, MaskOp, Operand, SReg,
    TernOp, UnOp, VReg,
};

/// How an immediate in a value position is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// An integer: a float literal is an error.
    Int,
    /// An `f32`: an integer literal is converted to its float value.
    F32,
    /// Raw bits: an integer is taken as is, a float as its `f32` bits.
    Bits,
    /// The type the load or store moves (`F32` for `f32`, else `Int`).
    Access,
}

/// One operand position of a mnemonic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A vector register written.
    VDst,
    /// A scalar register written.
    SDst,
    /// A mask register written.
    MDst,
    /// A value read per lane: register, scalar parameter, immediate or special.
    Value(Ty),
    /// A value read once per wave: it must be wave-uniform.
    Scalar(Ty),
    /// A mask register read.
    Mask,
    /// A global memory operand `buf[i]`; `write` for stores.
    Global {
        /// Whether the instruction writes it.
        write: bool,
    },
    /// An LDS operand `tile[i]`.
    Lds,
}

/// What a mnemonic builds, with the operation it selects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    VBinary(BinOp),
    VUnary(UnOp),
    VTernary(TernOp),
    VCmp(CmpOp, CmpType),
    VSelect,
    SBinary(BinOp),
    SUnary(UnOp),
    SCmp(CmpOp, CmpType),
    MaskBinary(MaskOp),
    MaskNot,
    /// `None`: the untyped form, which moves the element type of the buffer.
    GlobalLoad(Option<ElemType>),
    GlobalStore(Option<ElemType>),
    LdsLoad(Option<ElemType>),
    LdsStore(Option<ElemType>),
    If,
    Else,
    EndIf,
    Loop,
    EndLoop,
    Break,
    Continue,
    Barrier,
}

/// A table entry.
#[derive(Clone, Copy, Debug)]
pub struct Mnemonic {
    /// How it is written.
    pub name: &'static str,
    /// What it builds.
    pub form: Form,
}

/// An operand resolved against its slot, ready for the IR constructor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    V(VReg),
    S(SReg),
    M(MReg),
    Value(Operand),
    /// A global operand and the buffer's element type.
    Global(GlobalRef, ElemType),
    /// An LDS operand and the array's element type.
    Lds(LdsRef, ElemType),
}

fn binop_ty(op: BinOp) -> Ty {
    use BinOp::*;
    match op {
        AddF32 | SubF32 | MulF32 | DivF32 | MinF32 | MaxF32 => Ty::F32,
        AddU32 | SubU32 | MulU32 | MulHiU32 | MulHiI32 | DivU32 | DivI32 | RemU32 | RemI32
        | MinU32 | MinI32 | MaxU32 | MaxI32 | And | Or | Xor | Shl | ShrU32 | ShrI32 => Ty::Int,
    }
}

fn unop_ty(op: UnOp) -> Ty {
    use UnOp::*;
    match op {
        Mov => Ty::Bits,
        Not | NegI32 | AbsI32 | CvtF32U32 | CvtF32I32 => Ty::Int,
        NegF32 | AbsF32 | SqrtF32 | CvtU32F32 | CvtI32F32 => Ty::F32,
    }
}

fn cmp_ty(ty: CmpType) -> Ty {
    match ty {
        CmpType::F32 => Ty::F32,
        CmpType::U32 | CmpType::I32 => Ty::Int,
    }
}

impl Form {
    /// The operand positions, destination first.
    pub fn slots(self) -> Vec<Slot> {
        use Slot::*;
        match self {
            Form::VBinary(op) => vec![VDst, Value(binop_ty(op)), Value(binop_ty(op))],
            Form::VUnary(op) => vec![VDst, Value(unop_ty(op))],
            Form::VTernary(TernOp::FmaF32) => {
                vec![VDst, Value(Ty::F32), Value(Ty::F32), Value(Ty::F32)]
            }
            Form::VTernary(TernOp::MadU32) => {
                vec![VDst, Value(Ty::Int), Value(Ty::Int), Value(Ty::Int)]
            }
            Form::VCmp(_, ty) => vec![MDst, Value(cmp_ty(ty)), Value(cmp_ty(ty))],
            Form::VSelect => vec![VDst, Mask, Value(Ty::Bits), Value(Ty::Bits)],
            Form::SBinary(op) => vec![SDst, Scalar(binop_ty(op)), Scalar(binop_ty(op))],
            Form::SUnary(op) => vec![SDst, Scalar(unop_ty(op))],
            Form::SCmp(_, ty) => vec![MDst, Scalar(cmp_ty(ty)), Scalar(cmp_ty(ty))],
            Form::MaskBinary(_) => vec![MDst, Mask, Mask],
            Form::MaskNot => vec![MDst, Mask],
            Form::GlobalLoad(_) => vec![VDst, Global { write: false }],
            Form::GlobalStore(_) => vec![Global { write: true }, Value(Ty::Access)],
            Form::LdsLoad(_) => vec![VDst, Lds],
            Form::LdsStore(_) => vec![Lds, Value(Ty::Access)],
            Form::If | Form::EndLoop | Form::Break | Form::Continue => vec![Mask],
            Form::Else | Form::EndIf | Form::Loop | Form::Barrier => vec![],
        }
    }

    /// The operands as the reference names them, for messages.
    pub fn operand_names(self) -> &'static str {
        match self {
            Form::VBinary(_) | Form::SBinary(_) => "dst, a, b",
            Form::VUnary(_) | Form::SUnary(_) => "dst, a",
            Form::VTernary(_) => "dst, a, b, c",
            Form::VCmp(..) | Form::SCmp(..) | Form::MaskBinary(_) => "mdst, a, b",
            Form::MaskNot => "mdst, a",
            Form::VSelect => "dst, mask, on_true, on_false",
            Form::GlobalLoad(_) => "dst, buf[index]",
            Form::GlobalStore(_) => "buf[index], src",
            Form::LdsLoad(_) => "dst, lds[index]",
            Form::LdsStore(_) => "lds[index], src",
            Form::If | Form::EndLoop | Form::Break | Form::Continue => "mask",
            Form::Else | Form::EndIf | Form::Loop | Form::Barrier => "",
        }
    }

    /// The instruction with placeholder operands; used for control flow whose
    /// operands failed to resolve.
    pub fn placeholder(self) -> Option<Inst> {
        let m = MReg(0);
        let t = InstIdx::UNLINKED;
        Some(match self {
            Form::If => Inst::If { mask: m, next: t },
            Form::Else => Inst::Else { end: t },
            Form::EndIf => Inst::EndIf,
            Form::Loop => Inst::Loop { end: t },
            Form::EndLoop => Inst::EndLoop { mask: m, start: t },
            Form::Break => Inst::Break { mask: m, end: t },
            Form::Continue => Inst::Continue { mask: m, end: t },
            _ => return None,
        })
    }

    /// Builds the instruction from operands resolved against [`slots`](Self::slots);
    /// `None` when they do not match (the checker never asks then).
    pub fn build(self, args: &[Arg]) -> Option<Inst> {
        use Arg::*;
        let t = InstIdx::UNLINKED;
        Some(match (self, args) {
            (Form::VBinary(op), &[V(dst), Value(a), Value(b)]) => Inst::VBinary { op, dst, a, b },
            (Form::VUnary(op), &[V(dst), Value(a)]) => Inst::VUnary { op, dst, a },
            (Form::VTernary(op), &[V(dst), Value(a), Value(b), Value(c)]) => {
                Inst::VTernary { op, dst, a, b, c }
            }
            (Form::VCmp(op, ty), &[M(dst), Value(a), Value(b)]) => Inst::VCmp { op, ty, dst, a, b },
            (Form::VSelect, &[V(dst), M(mask), Value(on_true), Value(on_false)]) => Inst::VSelect {
                dst,
                mask,
                on_true,
                on_false,
            },
            (Form::SBinary(op), &[S(dst), Value(a), Value(b)]) => Inst::SBinary { op, dst, a, b },
            (Form::SUnary(op), &[S(dst), Value(a)]) => Inst::SUnary { op, dst, a },
            (Form::SCmp(op, ty), &[M(dst), Value(a), Value(b)]) => Inst::SCmp { op, ty, dst, a, b },
            (Form::MaskBinary(op), &[M(dst), M(a), M(b)]) => Inst::MaskBinary { op, dst, a, b },
            (Form::MaskNot, &[M(dst), M(a)]) => Inst::MaskNot { dst, a },
            (Form::GlobalLoad(ty), &[V(dst), Global(src, elem)]) => Inst::GlobalLoad {
                ty: ty.unwrap_or(elem),
                dst,
                src,
            },
            (Form::GlobalStore(ty), &[Global(dst, elem), Value(src)]) => Inst::GlobalStore {
                ty: ty.unwrap_or(elem),
                dst,
                src,
            },
            (Form::LdsLoad(ty), &[V(dst), Lds(src, elem)]) => Inst::LdsLoad {
                ty: ty.unwrap_or(elem),
                dst,
                src,
            },
            (Form::LdsStore(ty), &[Lds(dst, elem), Value(src)]) => Inst::LdsStore {
                ty: ty.unwrap_or(elem),
                dst,
                src,
            },
            (Form::If, &[M(mask)]) => Inst::If { mask, next: t },
            (Form::EndLoop, &[M(mask)]) => Inst::EndLoop { mask, start: t },
            (Form::Break, &[M(mask)]) => Inst::Break { mask, end: t },
            (Form::Continue, &[M(mask)]) => Inst::Continue { mask, end: t },
            (Form::Else, []) => Inst::Else { end: t },
            (Form::EndIf, []) => Inst::EndIf,
            (Form::Loop, []) => Inst::Loop { end: t },
            (Form::Barrier, []) => Inst::Barrier,
            _ => return None,
        })
    }

    /// The access type a typed load or store names.
    pub fn access(self) -> Option<ElemType> {
        match self {
            Form::GlobalLoad(t) | Form::GlobalStore(t) | Form::LdsLoad(t) | Form::LdsStore(t) => t,
            _ => None,
        }
    }
}

/// Finds a mnemonic by name.
pub fn lookup(name: &str) -> Option<&'static Mnemonic> {
    MNEMONICS.iter().find(|m| m.name == name)
}

/// Whether an instruction starting with `name` has operands to parse. A
/// misspelt mnemonic is taken to have the operands of what it most likely
/// means, so that a misspelt `endif` does not swallow the next instruction.
pub fn takes_operands(name: &str) -> bool {
    if let Some(m) = lookup(name) {
        return !m.form.slots().is_empty();
    }
    let suggestions = crate::suggest::mnemonics(name);
    suggestions.is_empty()
        || suggestions
            .iter()
            .any(|s| lookup(s).is_some_and(|m| !m.form.slots().is_empty()))
}

/// Words that start a declaration, not an instruction.
pub const DECLARATIONS: &[&str] = &["vreg", "sreg", "mreg", "lds"];

/// Whether `name` starts an instruction or declaration, so it can never be an operand.
pub fn is_reserved(name: &str) -> bool {
    DECLARATIONS.contains(&name) || lookup(name).is_some()
}

macro_rules! table {
    ($($name:literal => $form:expr,)*) => {
        /// Every mnemonic, grouped as `docs/language.md` lists them.
        pub static MNEMONICS: &[Mnemonic] = &[$(Mnemonic { name: $name, form: $form },)*];
    };
}

use BinOp as B;
use CmpOp as C;
use CmpType as T;
use ElemType as E;
use Form::*;
use UnOp as U;

table! {
    // Vector binary.
    "v_add_u32" => VBinary(B::AddU32),
    "v_add_i32" => VBinary(B::AddU32),
    "v_sub_u32" => VBinary(B::SubU32),
    "v_sub_i32" => VBinary(B::SubU32),
    "v_mul_u32" => VBinary(B::MulU32),
    "v_mul_i32" => VBinary(B::MulU32),
    "v_mul_hi_u32" => VBinary(B::MulHiU32),
    "v_mul_hi_i32" => VBinary(B::MulHiI32),
    "v_div_u32" => VBinary(B::DivU32),
    "v_div_i32" => VBinary(B::DivI32),
    "v_rem_u32" => VBinary(B::RemU32),
    "v_rem_i32" => VBinary(B::RemI32),
    "v_min_u32" => VBinary(B::MinU32),
    "v_min_i32" => VBinary(B::MinI32),
    "v_max_u32" => VBinary(B::MaxU32),
    "v_max_i32" => VBinary(B::MaxI32),
    "v_and" => VBinary(B::And),
    "v_or" => VBinary(B::Or),
    "v_xor" => VBinary(B::Xor),
    "v_shl" => VBinary(B::Shl),
    "v_shr_u32" => VBinary(B::ShrU32),
    "v_shr_i32" => VBinary(B::ShrI32),
    "v_add_f32" => VBinary(B::AddF32),
    "v_sub_f32" => VBinary(B::SubF32),
    "v_mul_f32" => VBinary(B::MulF32),
    "v_div_f32" => VBinary(B::DivF32),
    "v_min_f32" => VBinary(B::MinF32),
    "v_max_f32" => VBinary(B::MaxF32),
    // Vector unary.
    "v_mov" => VUnary(U::Mov),
    "v_not" => VUnary(U::Not),
    "v_neg_i32" => VUnary(U::NegI32),
    "v_abs_i32" => VUnary(U::AbsI32),
    "v_neg_f32" => VUnary(U::NegF32),
    "v_abs_f32" => VUnary(U::AbsF32),
    "v_sqrt_f32" => VUnary(U::SqrtF32),
    "v_cvt_f32_u32" => VUnary(U::CvtF32U32),
    "v_cvt_f32_i32" => VUnary(U::CvtF32I32),
    "v_cvt_u32_f32" => VUnary(U::CvtU32F32),
    "v_cvt_i32_f32" => VUnary(U::CvtI32F32),
    // Vector ternary.
    "v_fma_f32" => VTernary(TernOp::FmaF32),
    "v_mad_u32" => VTernary(TernOp::MadU32),
    "v_mad_i32" => VTernary(TernOp::MadU32),
    // Vector compare.
    "v_cmp_eq_u32" => VCmp(C::Eq, T::U32),
    "v_cmp_ne_u32" => VCmp(C::Ne, T::U32),
    "v_cmp_lt_u32" => VCmp(C::Lt, T::U32),
    "v_cmp_le_u32" => VCmp(C::Le, T::U32),
    "v_cmp_gt_u32" => VCmp(C::Gt, T::U32),
    "v_cmp_ge_u32" => VCmp(C::Ge, T::U32),
    "v_cmp_eq_i32" => VCmp(C::Eq, T::I32),
    "v_cmp_ne_i32" => VCmp(C::Ne, T::I32),
    "v_cmp_lt_i32" => VCmp(C::Lt, T::I32),
    "v_cmp_le_i32" => VCmp(C::Le, T::I32),
    "v_cmp_gt_i32" => VCmp(C::Gt, T::I32),
    "v_cmp_ge_i32" => VCmp(C::Ge, T::I32),
    "v_cmp_eq_f32" => VCmp(C::Eq, T::F32),
    "v_cmp_ne_f32" => VCmp(C::Ne, T::F32),
    "v_cmp_lt_f32" => VCmp(C::Lt, T::F32),
    "v_cmp_le_f32" => VCmp(C::Le, T::F32),
    "v_cmp_gt_f32" => VCmp(C::Gt, T::F32),
    "v_cmp_ge_f32" => VCmp(C::Ge, T::F32),
    // Select.
    "v_select" => VSelect,
    // Scalar binary.
    "s_add_u32" => SBinary(B::AddU32),
    "s_add_i32" => SBinary(B::AddU32),
    "s_sub_u32" => SBinary(B::SubU32),
    "s_sub_i32" => SBinary(B::SubU32),
    "s_mul_u32" => SBinary(B::MulU32),
    "s_mul_i32" => SBinary(B::MulU32),
    "s_mul_hi_u32" => SBinary(B::MulHiU32),
    "s_mul_hi_i32" => SBinary(B::MulHiI32),
    "s_div_u32" => SBinary(B::DivU32),
    "s_div_i32" => SBinary(B::DivI32),
    "s_rem_u32" => SBinary(B::RemU32),
    "s_rem_i32" => SBinary(B::RemI32),
    "s_min_u32" => SBinary(B::MinU32),
    "s_min_i32" => SBinary(B::MinI32),
    "s_max_u32" => SBinary(B::MaxU32),
    "s_max_i32" => SBinary(B::MaxI32),
    "s_and" => SBinary(B::And),
    "s_or" => SBinary(B::Or),
    "s_xor" => SBinary(B::Xor),
    "s_shl" => SBinary(B::Shl),
    "s_shr_u32" => SBinary(B::ShrU32),
    "s_shr_i32" => SBinary(B::ShrI32),
    "s_add_f32" => SBinary(B::AddF32),
    "s_sub_f32" => SBinary(B::SubF32),
    "s_mul_f32" => SBinary(B::MulF32),
    "s_div_f32" => SBinary(B::DivF32),
    "s_min_f32" => SBinary(B::MinF32),
    "s_max_f32" => SBinary(B::MaxF32),
    // Scalar unary.
    "s_mov" => SUnary(U::Mov),
    "s_not" => SUnary(U::Not),
    "s_neg_i32" => SUnary(U::NegI32),
    "s_abs_i32" => SUnary(U::AbsI32),
    "s_neg_f32" => SUnary(U::NegF32),
    "s_abs_f32" => SUnary(U::AbsF32),
    "s_sqrt_f32" => SUnary(U::SqrtF32),
    "s_cvt_f32_u32" => SUnary(U::CvtF32U32),
    "s_cvt_f32_i32" => SUnary(U::CvtF32I32),
    "s_cvt_u32_f32" => SUnary(U::CvtU32F32),
    "s_cvt_i32_f32" => SUnary(U::CvtI32F32),
    // Scalar compare.
    "s_cmp_eq_u32" => SCmp(C::Eq, T::U32),
    "s_cmp_ne_u32" => SCmp(C::Ne, T::U32),
    "s_cmp_lt_u32" => SCmp(C::Lt, T::U32),
    "s_cmp_le_u32" => SCmp(C::Le, T::U32),
    "s_cmp_gt_u32" => SCmp(C::Gt, T::U32),
    "s_cmp_ge_u32" => SCmp(C::Ge, T::U32),
    "s_cmp_eq_i32" => SCmp(C::Eq, T::I32),
    "s_cmp_ne_i32" => SCmp(C::Ne, T::I32),
    "s_cmp_lt_i32" => SCmp(C::Lt, T::I32),
    "s_cmp_le_i32" => SCmp(C::Le, T::I32),
    "s_cmp_gt_i32" => SCmp(C::Gt, T::I32),
    "s_cmp_ge_i32" => SCmp(C::Ge, T::I32),
    "s_cmp_eq_f32" => SCmp(C::Eq, T::F32),
    "s_cmp_ne_f32" => SCmp(C::Ne, T::F32),
    "s_cmp_lt_f32" => SCmp(C::Lt, T::F32),
    "s_cmp_le_f32" => SCmp(C::Le, T::F32),
    "s_cmp_gt_f32" => SCmp(C::Gt, T::F32),
    "s_cmp_ge_f32" => SCmp(C::Ge, T::F32),
    // Mask.
    "m_and" => MaskBinary(MaskOp::And),
    "m_or" => MaskBinary(MaskOp::Or),
    "m_andn" => MaskBinary(MaskOp::AndN),
    "m_xor" => MaskBinary(MaskOp::Xor),
    "m_not" => MaskNot,
    // Global memory.
    "global_load" => GlobalLoad(None),
    "global_load_u8" => GlobalLoad(Some(E::U8)),
    "global_load_i8" => GlobalLoad(Some(E::I8)),
    "global_load_u16" => GlobalLoad(Some(E::U16)),
    "global_load_i16" => GlobalLoad(Some(E::I16)),
    "global_load_u32" => GlobalLoad(Some(E::U32)),
    "global_load_i32" => GlobalLoad(Some(E::I32)),
    "global_load_f32" => GlobalLoad(Some(E::F32)),
    "global_store" => GlobalStore(None),
    "global_store_u8" => GlobalStore(Some(E::U8)),
    "global_store_i8" => GlobalStore(Some(E::I8)),
    "global_store_u16" => GlobalStore(Some(E::U16)),
    "global_store_i16" => GlobalStore(Some(E::I16)),
    "global_store_u32" => GlobalStore(Some(E::U32)),
    "global_store_i32" => GlobalStore(Some(E::I32)),
    "global_store_f32" => GlobalStore(Some(E::F32)),
    // LDS.
    "lds_load" => LdsLoad(None),
    "lds_load_u8" => LdsLoad(Some(E::U8)),
    "lds_load_i8" => LdsLoad(Some(E::I8)),
    "lds_load_u16" => LdsLoad(Some(E::U16)),
    "lds_load_i16" => LdsLoad(Some(E::I16)),
    "lds_load_u32" => LdsLoad(Some(E::U32)),
    "lds_load_i32" => LdsLoad(Some(E::I32)),
    "lds_load_f32" => LdsLoad(Some(E::F32)),
    "lds_store" => LdsStore(None),
    "lds_store_u8" => LdsStore(Some(E::U8)),
    "lds_store_i8" => LdsStore(Some(E::I8)),
    "lds_store_u16" => LdsStore(Some(E::U16)),
    "lds_store_i16" => LdsStore(Some(E::I16)),
    "lds_store_u32" => LdsStore(Some(E::U32)),
    "lds_store_i32" => LdsStore(Some(E::I32)),
    "lds_store_f32" => LdsStore(Some(E::F32)),
    // Control flow.
    "if" => If,
    "else" => Else,
    "endif" => EndIf,
    "loop" => Loop,
    "endloop" => EndLoop,
    "break" => Break,
    "continue" => Continue,
    "barrier" => Barrier,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_lowercase() {
        for (i, m) in MNEMONICS.iter().enumerate() {
            assert!(
                MNEMONICS[..i].iter().all(|o| o.name != m.name),
                "{} twice",
                m.name
            );
            assert!(m
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
        }
    }

    #[test]
    fn every_form_builds_from_its_slots() {
        use simt_core::{Addressing, GlobalRef, LdsIdx, LdsRef, ParamIdx};
        for m in MNEMONICS {
            let args: Vec<Arg> = m
                .form
                .slots()
                .iter()
                .map(|s| match s {
                    Slot::VDst => Arg::V(VReg(1)),
                    Slot::SDst => Arg::S(SReg(1)),
                    Slot::MDst | Slot::Mask => Arg::M(MReg(1)),
                    Slot::Value(_) | Slot::Scalar(_) => Arg::Value(Operand::Imm(7)),
                    Slot::Global { .. } => Arg::Global(
                        GlobalRef {
                            buffer: ParamIdx(0),
                            index: Operand::Imm(0),
                            addressing: Addressing::Element,
                        },
                        ElemType::F32,
                    ),
                    Slot::Lds => Arg::Lds(
                        LdsRef {
                            lds: LdsIdx(0),
                            index: Operand::Imm(0),
                            addressing: Addressing::Element,
                        },
                        ElemType::I16,
                    ),
                })
                .collect();
            let inst = m.form.build(&args);
            assert!(inst.is_some(), "{} does not build from its slots", m.name);
            // The untyped memory forms move the element type.
            match (m.name, inst) {
                ("global_load", Some(Inst::GlobalLoad { ty, .. })) => assert_eq!(ty, ElemType::F32),
                ("lds_store", Some(Inst::LdsStore { ty, .. })) => assert_eq!(ty, ElemType::I16),
                ("global_load_u8", Some(Inst::GlobalLoad { ty, .. })) => {
                    assert_eq!(ty, ElemType::U8)
                }
                _ => {}
            }
        }
    }
}
