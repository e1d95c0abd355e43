//! The mnemonic table: how each instruction is spelled in the kernel language.
//!
//! A mnemonic names an [`Opcode`] and the values of its [`Role::Op`] fields; the
//! other fields are its operands, written in table order. The `simt_kernel!`
//! macro parses with this table, the disassembler prints with it, and
//! `docs/src/language/instructions.md` is tested against it.

use super::field::{Field, Op, Role};
use super::ops::{
    Atomic64Op, AtomicOp, Bin64Op, BinOp, Cmp64Type, CmpOp, CmpType, MaskOp, NarrowOp, ShuffleOp,
    Tern64Op, TernOp, Un64Op, UnOp, WaveOp, WidenOp, Width,
};
use super::table::{Inst, Opcode};
use crate::ir::ElemType;

/// How an immediate in a value position is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmType {
    /// An integer: a float literal is an error.
    Int,
    /// An `f32`: an integer literal is converted to its float value.
    F32,
    /// An `f16` in the low 16 bits: a literal is rounded to the nearest
    /// `f16` (to even on a tie); one that rounds to infinity is an error.
    F16,
    /// A `bf16` in the low 16 bits, read as `F16` is.
    Bf16,
    /// Raw bits: an integer is taken as is, a float as its `f32` bits.
    Bits,
    /// The type the load, store or atomic moves: `F32` for `f32` elements, else `Int`.
    Access,
}

/// One spelling of an instruction.
#[derive(Clone, Copy, Debug)]
pub struct Mnemonic {
    /// How it is written.
    pub name: &'static str,
    /// The instruction it spells.
    pub opcode: Opcode,
    /// The values of the opcode's `Op` fields, in table order. An access type
    /// left out is the element type of the memory operand (the untyped forms).
    pub ops: &'static [Op],
}

impl Mnemonic {
    /// The instruction with these operations and placeholder operands; an
    /// inferred access type is `u32` until the memory operand is known.
    pub fn template(&self) -> Option<Inst> {
        let mut ops = self.ops.iter().copied();
        let fields: Vec<Field> = self
            .opcode
            .fields()
            .iter()
            .map(|&(_, role)| match role {
                Role::Op => ops.next().map_or(Field::placeholder(Role::Op), Field::Op),
                role => Field::placeholder(role),
            })
            .collect();
        Inst::from_fields(self.opcode, &fields)
    }

    /// Whether the access type comes from the memory operand's element type:
    /// the mnemonic leaves the opcode's access type out (the untyped forms).
    pub fn infers_access(&self) -> bool {
        let fixed = self
            .opcode
            .fields()
            .iter()
            .filter(|&&(_, r)| r == Role::Op)
            .count();
        fixed > self.ops.len()
    }

    /// The operand roles, in the order they are written.
    pub fn operands(&self) -> impl Iterator<Item = (&'static str, Role)> {
        self.opcode
            .fields()
            .iter()
            .copied()
            .filter(|&(_, role)| role.is_operand())
    }

    /// How immediates in `Src` and `Uniform` positions are read.
    pub fn imm_type(&self) -> ImmType {
        let op = |pick: fn(&Op) -> Option<ImmType>| self.ops.iter().find_map(pick);
        match self.opcode {
            Opcode::VSelect | Opcode::VShuffle | Opcode::VReadFirstLane | Opcode::VReadLane => {
                ImmType::Bits
            }
            Opcode::GlobalStore
            | Opcode::LdsStore
            | Opcode::GlobalCmpSwap
            | Opcode::LdsCmpSwap
            | Opcode::GlobalStoreWide
            | Opcode::LdsStoreWide => ImmType::Access,
            _ => op(|o| match *o {
                Op::Bin(b) => Some(bin_imm(b)),
                Op::Un(u) => Some(un_imm(u)),
                Op::Tern(
                    TernOp::FmaF32
                    | TernOp::FmaRmF32
                    | TernOp::FmaRzF32
                    | TernOp::FmaRpF32
                    | TernOp::FmsF32,
                )
                | Op::CmpType(CmpType::F32) => Some(ImmType::F32),
                Op::Tern(TernOp::FmaF16) | Op::CmpType(CmpType::F16) => Some(ImmType::F16),
                Op::Tern(TernOp::FmaBf16) | Op::CmpType(CmpType::Bf16) => Some(ImmType::Bf16),
                Op::Atomic(AtomicOp::AddF32) => Some(ImmType::F32),
                Op::Widen(WidenOp::CvtF64F32) => Some(ImmType::F32),
                Op::Widen(_) => Some(ImmType::Int),
                Op::Atomic(AtomicOp::Exchange) => Some(ImmType::Access),
                _ => None,
            })
            .unwrap_or(ImmType::Int),
        }
    }

    /// The operands as the reference names them (`dst, a, b`).
    pub fn operand_names(&self) -> String {
        if self.opcode == Opcode::Print {
            return "\"format\", values...".to_owned();
        }
        let width = self.ops.iter().find_map(|o| o.run()).unwrap_or(1);
        let names: Vec<String> = self
            .operands()
            .map(|(name, role)| match role {
                Role::MDst => "mdst".to_owned(),
                Role::VDstOpt => format!("[{name}]"),
                Role::VDstRun | Role::VSrcRun => {
                    let regs: Vec<String> = (0..width).map(|k| format!("{name}{k}")).collect();
                    format!("[{}]", regs.join(", "))
                }
                Role::GlobalLoad | Role::GlobalStore | Role::GlobalAtomic => {
                    "buf[index]".to_owned()
                }
                Role::LdsLoad | Role::LdsStore | Role::LdsAtomic => "lds[index]".to_owned(),
                _ => name.to_owned(),
            })
            .collect();
        names.join(", ")
    }
}

fn bin_imm(op: BinOp) -> ImmType {
    use BinOp::*;
    match op {
        AddF32 | SubF32 | MulF32 | DivF32 | MinF32 | MaxF32 => ImmType::F32,
        AddF16 | SubF16 | MulF16 => ImmType::F16,
        AddBf16 | SubBf16 | MulBf16 => ImmType::Bf16,
        AddU32 | SubU32 | MulU32 | MulHiU32 | MulHiI32 | DivU32 | DivI32 | RemU32 | RemI32
        | MinU32 | MinI32 | MaxU32 | MaxI32 | And | Or | Xor | Shl | ShrU32 | ShrI32 => {
            ImmType::Int
        }
    }
}

fn un_imm(op: UnOp) -> ImmType {
    use UnOp::*;
    match op {
        Mov => ImmType::Bits,
        Not | NegI32 | AbsI32 | CvtF32U32 | CvtF32I32 | Popc | Clz | Brev => ImmType::Int,
        NegF32 | AbsF32 | SqrtF32 | CvtU32F32 | CvtI32F32 | CvtF16F32 | CvtBf16F32 | Exp2F32 => {
            ImmType::F32
        }
        CvtF32F16 => ImmType::F16,
        CvtF32Bf16 => ImmType::Bf16,
    }
}

/// Finds a mnemonic by name.
pub fn lookup(name: &str) -> Option<&'static Mnemonic> {
    MNEMONICS.iter().find(|m| m.name == name)
}

/// The first mnemonic that spells `inst`: its opcode and `Op` fields match. For
/// a load or store whose access type is the element type, the caller may prefer
/// the untyped spelling ([`Mnemonic::infers_access`]).
pub fn spelling(inst: &Inst) -> Option<&'static Mnemonic> {
    let fields = inst.fields();
    let ops: Vec<Op> = fields
        .as_slice()
        .iter()
        .filter_map(|f| match f {
            Field::Op(o) => Some(*o),
            _ => None,
        })
        .collect();
    MNEMONICS
        .iter()
        .find(|m| m.opcode == inst.opcode() && m.ops == ops.as_slice())
}

/// The untyped spelling of a load or store (`global_load` for `global_load_u8`).
pub fn untyped(m: &Mnemonic) -> Option<&'static Mnemonic> {
    MNEMONICS
        .iter()
        .find(|u| u.opcode == m.opcode && u.infers_access())
}

macro_rules! mnemonics {
    ($($name:literal => $opcode:ident $( ( $($op:expr),* ) )?,)*) => {
        /// Every mnemonic, grouped as `docs/src/language/instructions.md` lists them.
        pub static MNEMONICS: &[Mnemonic] = &[$(Mnemonic {
            name: $name,
            opcode: Opcode::$opcode,
            ops: &[$($($op),*)?],
        },)*];
    };
}

use AtomicOp as A;
use BinOp as B;
use CmpOp as C;
use CmpType as T;
use ElemType as E;
use Op::{Access, Atomic, Bin, Cmp, Shuffle, Tern, Un, Wave};
use ShuffleOp as Sh;
use UnOp as U;

mnemonics! {
    // Vector binary.
    "v_add_u32" => VBinary(Bin(B::AddU32)),
    "v_add_i32" => VBinary(Bin(B::AddU32)),
    "v_sub_u32" => VBinary(Bin(B::SubU32)),
    "v_sub_i32" => VBinary(Bin(B::SubU32)),
    "v_mul_u32" => VBinary(Bin(B::MulU32)),
    "v_mul_i32" => VBinary(Bin(B::MulU32)),
    "v_mul_hi_u32" => VBinary(Bin(B::MulHiU32)),
    "v_mul_hi_i32" => VBinary(Bin(B::MulHiI32)),
    "v_div_u32" => VBinary(Bin(B::DivU32)),
    "v_div_i32" => VBinary(Bin(B::DivI32)),
    "v_rem_u32" => VBinary(Bin(B::RemU32)),
    "v_rem_i32" => VBinary(Bin(B::RemI32)),
    "v_min_u32" => VBinary(Bin(B::MinU32)),
    "v_min_i32" => VBinary(Bin(B::MinI32)),
    "v_max_u32" => VBinary(Bin(B::MaxU32)),
    "v_max_i32" => VBinary(Bin(B::MaxI32)),
    "v_and" => VBinary(Bin(B::And)),
    "v_or" => VBinary(Bin(B::Or)),
    "v_xor" => VBinary(Bin(B::Xor)),
    "v_shl" => VBinary(Bin(B::Shl)),
    "v_shr_u32" => VBinary(Bin(B::ShrU32)),
    "v_shr_i32" => VBinary(Bin(B::ShrI32)),
    "v_add_f32" => VBinary(Bin(B::AddF32)),
    "v_sub_f32" => VBinary(Bin(B::SubF32)),
    "v_mul_f32" => VBinary(Bin(B::MulF32)),
    "v_div_f32" => VBinary(Bin(B::DivF32)),
    "v_min_f32" => VBinary(Bin(B::MinF32)),
    "v_max_f32" => VBinary(Bin(B::MaxF32)),
    "v_add_f16" => VBinary(Bin(B::AddF16)),
    "v_sub_f16" => VBinary(Bin(B::SubF16)),
    "v_mul_f16" => VBinary(Bin(B::MulF16)),
    "v_add_bf16" => VBinary(Bin(B::AddBf16)),
    "v_sub_bf16" => VBinary(Bin(B::SubBf16)),
    "v_mul_bf16" => VBinary(Bin(B::MulBf16)),
    // Vector unary.
    "v_mov" => VUnary(Un(U::Mov)),
    "v_not" => VUnary(Un(U::Not)),
    "v_neg_i32" => VUnary(Un(U::NegI32)),
    "v_abs_i32" => VUnary(Un(U::AbsI32)),
    "v_neg_f32" => VUnary(Un(U::NegF32)),
    "v_abs_f32" => VUnary(Un(U::AbsF32)),
    "v_sqrt_f32" => VUnary(Un(U::SqrtF32)),
    "v_cvt_f32_u32" => VUnary(Un(U::CvtF32U32)),
    "v_cvt_f32_i32" => VUnary(Un(U::CvtF32I32)),
    "v_cvt_u32_f32" => VUnary(Un(U::CvtU32F32)),
    "v_cvt_i32_f32" => VUnary(Un(U::CvtI32F32)),
    "v_cvt_f16_f32" => VUnary(Un(U::CvtF16F32)),
    "v_cvt_f32_f16" => VUnary(Un(U::CvtF32F16)),
    "v_cvt_bf16_f32" => VUnary(Un(U::CvtBf16F32)),
    "v_cvt_f32_bf16" => VUnary(Un(U::CvtF32Bf16)),
    "v_exp2_f32" => VUnary(Un(U::Exp2F32)),
    "v_popc" => VUnary(Un(U::Popc)),
    "v_clz" => VUnary(Un(U::Clz)),
    "v_brev" => VUnary(Un(U::Brev)),
    // Vector ternary.
    "v_fma_f32" => VTernary(Tern(TernOp::FmaF32)),
    "v_mad_u32" => VTernary(Tern(TernOp::MadU32)),
    "v_mad_i32" => VTernary(Tern(TernOp::MadU32)),
    "v_fma_f16" => VTernary(Tern(TernOp::FmaF16)),
    "v_fma_bf16" => VTernary(Tern(TernOp::FmaBf16)),
    "v_fma_rm_f32" => VTernary(Tern(TernOp::FmaRmF32)),
    "v_fma_rz_f32" => VTernary(Tern(TernOp::FmaRzF32)),
    "v_fma_rp_f32" => VTernary(Tern(TernOp::FmaRpF32)),
    "v_fms_f32" => VTernary(Tern(TernOp::FmsF32)),
    // Vector compare.
    "v_cmp_eq_u32" => VCmp(Cmp(C::Eq), Op::CmpType(T::U32)),
    "v_cmp_ne_u32" => VCmp(Cmp(C::Ne), Op::CmpType(T::U32)),
    "v_cmp_lt_u32" => VCmp(Cmp(C::Lt), Op::CmpType(T::U32)),
    "v_cmp_le_u32" => VCmp(Cmp(C::Le), Op::CmpType(T::U32)),
    "v_cmp_gt_u32" => VCmp(Cmp(C::Gt), Op::CmpType(T::U32)),
    "v_cmp_ge_u32" => VCmp(Cmp(C::Ge), Op::CmpType(T::U32)),
    "v_cmp_eq_i32" => VCmp(Cmp(C::Eq), Op::CmpType(T::I32)),
    "v_cmp_ne_i32" => VCmp(Cmp(C::Ne), Op::CmpType(T::I32)),
    "v_cmp_lt_i32" => VCmp(Cmp(C::Lt), Op::CmpType(T::I32)),
    "v_cmp_le_i32" => VCmp(Cmp(C::Le), Op::CmpType(T::I32)),
    "v_cmp_gt_i32" => VCmp(Cmp(C::Gt), Op::CmpType(T::I32)),
    "v_cmp_ge_i32" => VCmp(Cmp(C::Ge), Op::CmpType(T::I32)),
    "v_cmp_eq_f32" => VCmp(Cmp(C::Eq), Op::CmpType(T::F32)),
    "v_cmp_ne_f32" => VCmp(Cmp(C::Ne), Op::CmpType(T::F32)),
    "v_cmp_lt_f32" => VCmp(Cmp(C::Lt), Op::CmpType(T::F32)),
    "v_cmp_le_f32" => VCmp(Cmp(C::Le), Op::CmpType(T::F32)),
    "v_cmp_gt_f32" => VCmp(Cmp(C::Gt), Op::CmpType(T::F32)),
    "v_cmp_ge_f32" => VCmp(Cmp(C::Ge), Op::CmpType(T::F32)),
    "v_cmp_eq_f16" => VCmp(Cmp(C::Eq), Op::CmpType(T::F16)),
    "v_cmp_ne_f16" => VCmp(Cmp(C::Ne), Op::CmpType(T::F16)),
    "v_cmp_lt_f16" => VCmp(Cmp(C::Lt), Op::CmpType(T::F16)),
    "v_cmp_le_f16" => VCmp(Cmp(C::Le), Op::CmpType(T::F16)),
    "v_cmp_gt_f16" => VCmp(Cmp(C::Gt), Op::CmpType(T::F16)),
    "v_cmp_ge_f16" => VCmp(Cmp(C::Ge), Op::CmpType(T::F16)),
    "v_cmp_eq_bf16" => VCmp(Cmp(C::Eq), Op::CmpType(T::Bf16)),
    "v_cmp_ne_bf16" => VCmp(Cmp(C::Ne), Op::CmpType(T::Bf16)),
    "v_cmp_lt_bf16" => VCmp(Cmp(C::Lt), Op::CmpType(T::Bf16)),
    "v_cmp_le_bf16" => VCmp(Cmp(C::Le), Op::CmpType(T::Bf16)),
    "v_cmp_gt_bf16" => VCmp(Cmp(C::Gt), Op::CmpType(T::Bf16)),
    "v_cmp_ge_bf16" => VCmp(Cmp(C::Ge), Op::CmpType(T::Bf16)),
    // Select.
    "v_add_u64" => VBinary64(Op::Bin64(Bin64Op::AddU64)),
    "v_add_i64" => VBinary64(Op::Bin64(Bin64Op::AddU64)),
    "v_sub_u64" => VBinary64(Op::Bin64(Bin64Op::SubU64)),
    "v_sub_i64" => VBinary64(Op::Bin64(Bin64Op::SubU64)),
    "v_mul_u64" => VBinary64(Op::Bin64(Bin64Op::MulU64)),
    "v_mul_i64" => VBinary64(Op::Bin64(Bin64Op::MulU64)),
    "v_min_u64" => VBinary64(Op::Bin64(Bin64Op::MinU64)),
    "v_min_i64" => VBinary64(Op::Bin64(Bin64Op::MinI64)),
    "v_max_u64" => VBinary64(Op::Bin64(Bin64Op::MaxU64)),
    "v_max_i64" => VBinary64(Op::Bin64(Bin64Op::MaxI64)),
    "v_and_b64" => VBinary64(Op::Bin64(Bin64Op::And)),
    "v_or_b64" => VBinary64(Op::Bin64(Bin64Op::Or)),
    "v_xor_b64" => VBinary64(Op::Bin64(Bin64Op::Xor)),
    "v_add_f64" => VBinary64(Op::Bin64(Bin64Op::AddF64)),
    "v_sub_f64" => VBinary64(Op::Bin64(Bin64Op::SubF64)),
    "v_mul_f64" => VBinary64(Op::Bin64(Bin64Op::MulF64)),
    "v_div_f64" => VBinary64(Op::Bin64(Bin64Op::DivF64)),
    "v_div_rz_f64" => VBinary64(Op::Bin64(Bin64Op::DivRzF64)),
    "v_div_rm_f64" => VBinary64(Op::Bin64(Bin64Op::DivRmF64)),
    "v_div_rp_f64" => VBinary64(Op::Bin64(Bin64Op::DivRpF64)),
    "v_min_f64" => VBinary64(Op::Bin64(Bin64Op::MinF64)),
    "v_max_f64" => VBinary64(Op::Bin64(Bin64Op::MaxF64)),
    "v_mov_b64" => VUnary64(Op::Un64(Un64Op::Mov)),
    "v_neg_i64" => VUnary64(Op::Un64(Un64Op::NegI64)),
    "v_neg_f64" => VUnary64(Op::Un64(Un64Op::NegF64)),
    "v_abs_f64" => VUnary64(Op::Un64(Un64Op::AbsF64)),
    "v_sqrt_f64" => VUnary64(Op::Un64(Un64Op::SqrtF64)),
    "v_sqrt_rz_f64" => VUnary64(Op::Un64(Un64Op::SqrtRzF64)),
    "v_sqrt_rm_f64" => VUnary64(Op::Un64(Un64Op::SqrtRmF64)),
    "v_sqrt_rp_f64" => VUnary64(Op::Un64(Un64Op::SqrtRpF64)),
    "v_cvt_f64_u64" => VUnary64(Op::Un64(Un64Op::CvtF64U64)),
    "v_cvt_f64_i64" => VUnary64(Op::Un64(Un64Op::CvtF64I64)),
    "v_cvt_rz_f64_i64" => VUnary64(Op::Un64(Un64Op::CvtRzF64I64)),
    "v_cvt_rm_f64_i64" => VUnary64(Op::Un64(Un64Op::CvtRmF64I64)),
    "v_cvt_rp_f64_i64" => VUnary64(Op::Un64(Un64Op::CvtRpF64I64)),
    "v_cvt_rz_f64_u64" => VUnary64(Op::Un64(Un64Op::CvtRzF64U64)),
    "v_cvt_rm_f64_u64" => VUnary64(Op::Un64(Un64Op::CvtRmF64U64)),
    "v_cvt_rp_f64_u64" => VUnary64(Op::Un64(Un64Op::CvtRpF64U64)),
    "v_cvt_u64_f64" => VUnary64(Op::Un64(Un64Op::CvtU64F64)),
    "v_cvt_i64_f64" => VUnary64(Op::Un64(Un64Op::CvtI64F64)),
    "v_rndne_f64" => VUnary64(Op::Un64(Un64Op::RndneF64)),
    "v_trunc_f64" => VUnary64(Op::Un64(Un64Op::TruncF64)),
    "v_floor_f64" => VUnary64(Op::Un64(Un64Op::FloorF64)),
    "v_ceil_f64" => VUnary64(Op::Un64(Un64Op::CeilF64)),
    "v_fma_f64" => VTernary64(Op::Tern64(Tern64Op::FmaF64)),
    "v_fma_rz_f64" => VTernary64(Op::Tern64(Tern64Op::FmaRzF64)),
    "v_fma_rm_f64" => VTernary64(Op::Tern64(Tern64Op::FmaRmF64)),
    "v_fma_rp_f64" => VTernary64(Op::Tern64(Tern64Op::FmaRpF64)),
    "v_mad_u64" => VTernary64(Op::Tern64(Tern64Op::MadU64)),
    "v_mad_i64" => VTernary64(Op::Tern64(Tern64Op::MadU64)),
    "v_cmp_eq_u64" => VCmp64(Cmp(C::Eq), Op::Cmp64Type(Cmp64Type::U64)),
    "v_cmp_ne_u64" => VCmp64(Cmp(C::Ne), Op::Cmp64Type(Cmp64Type::U64)),
    "v_cmp_lt_u64" => VCmp64(Cmp(C::Lt), Op::Cmp64Type(Cmp64Type::U64)),
    "v_cmp_le_u64" => VCmp64(Cmp(C::Le), Op::Cmp64Type(Cmp64Type::U64)),
    "v_cmp_gt_u64" => VCmp64(Cmp(C::Gt), Op::Cmp64Type(Cmp64Type::U64)),
    "v_cmp_ge_u64" => VCmp64(Cmp(C::Ge), Op::Cmp64Type(Cmp64Type::U64)),
    "v_cmp_eq_i64" => VCmp64(Cmp(C::Eq), Op::Cmp64Type(Cmp64Type::I64)),
    "v_cmp_ne_i64" => VCmp64(Cmp(C::Ne), Op::Cmp64Type(Cmp64Type::I64)),
    "v_cmp_lt_i64" => VCmp64(Cmp(C::Lt), Op::Cmp64Type(Cmp64Type::I64)),
    "v_cmp_le_i64" => VCmp64(Cmp(C::Le), Op::Cmp64Type(Cmp64Type::I64)),
    "v_cmp_gt_i64" => VCmp64(Cmp(C::Gt), Op::Cmp64Type(Cmp64Type::I64)),
    "v_cmp_ge_i64" => VCmp64(Cmp(C::Ge), Op::Cmp64Type(Cmp64Type::I64)),
    "v_cmp_eq_f64" => VCmp64(Cmp(C::Eq), Op::Cmp64Type(Cmp64Type::F64)),
    "v_cmp_ne_f64" => VCmp64(Cmp(C::Ne), Op::Cmp64Type(Cmp64Type::F64)),
    "v_cmp_lt_f64" => VCmp64(Cmp(C::Lt), Op::Cmp64Type(Cmp64Type::F64)),
    "v_cmp_le_f64" => VCmp64(Cmp(C::Le), Op::Cmp64Type(Cmp64Type::F64)),
    "v_cmp_gt_f64" => VCmp64(Cmp(C::Gt), Op::Cmp64Type(Cmp64Type::F64)),
    "v_cmp_ge_f64" => VCmp64(Cmp(C::Ge), Op::Cmp64Type(Cmp64Type::F64)),
    "v_cvt_f64_f32" => VWiden(Op::Widen(WidenOp::CvtF64F32)),
    "v_cvt_f64_u32" => VWiden(Op::Widen(WidenOp::CvtF64U32)),
    "v_cvt_f64_i32" => VWiden(Op::Widen(WidenOp::CvtF64I32)),
    "v_cvt_u64_u32" => VWiden(Op::Widen(WidenOp::CvtU64U32)),
    "v_cvt_i64_i32" => VWiden(Op::Widen(WidenOp::CvtI64I32)),
    "v_cvt_f32_f64" => VNarrow(Op::Narrow(NarrowOp::CvtF32F64)),
    "v_cvt_rz_f32_f64" => VNarrow(Op::Narrow(NarrowOp::CvtRzF32F64)),
    "v_cvt_rm_f32_f64" => VNarrow(Op::Narrow(NarrowOp::CvtRmF32F64)),
    "v_cvt_rp_f32_f64" => VNarrow(Op::Narrow(NarrowOp::CvtRpF32F64)),
    "v_cvt_f16_f64" => VNarrow(Op::Narrow(NarrowOp::CvtF16F64)),
    "v_cvt_rz_f16_f64" => VNarrow(Op::Narrow(NarrowOp::CvtRzF16F64)),
    "v_cvt_rm_f16_f64" => VNarrow(Op::Narrow(NarrowOp::CvtRmF16F64)),
    "v_cvt_rp_f16_f64" => VNarrow(Op::Narrow(NarrowOp::CvtRpF16F64)),
    "v_cvt_bf16_f64" => VNarrow(Op::Narrow(NarrowOp::CvtBf16F64)),
    "v_cvt_rz_bf16_f64" => VNarrow(Op::Narrow(NarrowOp::CvtRzBf16F64)),
    "v_cvt_rm_bf16_f64" => VNarrow(Op::Narrow(NarrowOp::CvtRmBf16F64)),
    "v_cvt_rp_bf16_f64" => VNarrow(Op::Narrow(NarrowOp::CvtRpBf16F64)),
    "v_cvt_u32_f64" => VNarrow(Op::Narrow(NarrowOp::CvtU32F64)),
    "v_cvt_i32_f64" => VNarrow(Op::Narrow(NarrowOp::CvtI32F64)),
    "v_cvt_u32_u64" => VNarrow(Op::Narrow(NarrowOp::CvtU32U64)),
    "v_cvt_i32_i64" => VNarrow(Op::Narrow(NarrowOp::CvtU32U64)),
    "v_select" => VSelect,
    // Lane exchange.
    "v_shfl_idx" => VShuffle(Shuffle(Sh::Index)),
    "v_shfl_xor" => VShuffle(Shuffle(Sh::Xor)),
    "v_shfl_up" => VShuffle(Shuffle(Sh::Up)),
    "v_shfl_down" => VShuffle(Shuffle(Sh::Down)),
    "v_readfirstlane" => VReadFirstLane,
    "v_readlane" => VReadLane,
    // Scalar binary.
    "s_add_u32" => SBinary(Bin(B::AddU32)),
    "s_add_i32" => SBinary(Bin(B::AddU32)),
    "s_sub_u32" => SBinary(Bin(B::SubU32)),
    "s_sub_i32" => SBinary(Bin(B::SubU32)),
    "s_mul_u32" => SBinary(Bin(B::MulU32)),
    "s_mul_i32" => SBinary(Bin(B::MulU32)),
    "s_mul_hi_u32" => SBinary(Bin(B::MulHiU32)),
    "s_mul_hi_i32" => SBinary(Bin(B::MulHiI32)),
    "s_div_u32" => SBinary(Bin(B::DivU32)),
    "s_div_i32" => SBinary(Bin(B::DivI32)),
    "s_rem_u32" => SBinary(Bin(B::RemU32)),
    "s_rem_i32" => SBinary(Bin(B::RemI32)),
    "s_min_u32" => SBinary(Bin(B::MinU32)),
    "s_min_i32" => SBinary(Bin(B::MinI32)),
    "s_max_u32" => SBinary(Bin(B::MaxU32)),
    "s_max_i32" => SBinary(Bin(B::MaxI32)),
    "s_and" => SBinary(Bin(B::And)),
    "s_or" => SBinary(Bin(B::Or)),
    "s_xor" => SBinary(Bin(B::Xor)),
    "s_shl" => SBinary(Bin(B::Shl)),
    "s_shr_u32" => SBinary(Bin(B::ShrU32)),
    "s_shr_i32" => SBinary(Bin(B::ShrI32)),
    "s_add_f32" => SBinary(Bin(B::AddF32)),
    "s_sub_f32" => SBinary(Bin(B::SubF32)),
    "s_mul_f32" => SBinary(Bin(B::MulF32)),
    "s_div_f32" => SBinary(Bin(B::DivF32)),
    "s_min_f32" => SBinary(Bin(B::MinF32)),
    "s_max_f32" => SBinary(Bin(B::MaxF32)),
    // Scalar unary.
    "s_mov" => SUnary(Un(U::Mov)),
    "s_not" => SUnary(Un(U::Not)),
    "s_neg_i32" => SUnary(Un(U::NegI32)),
    "s_abs_i32" => SUnary(Un(U::AbsI32)),
    "s_neg_f32" => SUnary(Un(U::NegF32)),
    "s_abs_f32" => SUnary(Un(U::AbsF32)),
    "s_sqrt_f32" => SUnary(Un(U::SqrtF32)),
    "s_cvt_f32_u32" => SUnary(Un(U::CvtF32U32)),
    "s_cvt_f32_i32" => SUnary(Un(U::CvtF32I32)),
    "s_cvt_u32_f32" => SUnary(Un(U::CvtU32F32)),
    "s_cvt_i32_f32" => SUnary(Un(U::CvtI32F32)),
    // Scalar ternary.
    "s_fma_f32" => STernary(Tern(TernOp::FmaF32)),
    "s_mad_u32" => STernary(Tern(TernOp::MadU32)),
    "s_mad_i32" => STernary(Tern(TernOp::MadU32)),
    // Scalar compare.
    "s_cmp_eq_u32" => SCmp(Cmp(C::Eq), Op::CmpType(T::U32)),
    "s_cmp_ne_u32" => SCmp(Cmp(C::Ne), Op::CmpType(T::U32)),
    "s_cmp_lt_u32" => SCmp(Cmp(C::Lt), Op::CmpType(T::U32)),
    "s_cmp_le_u32" => SCmp(Cmp(C::Le), Op::CmpType(T::U32)),
    "s_cmp_gt_u32" => SCmp(Cmp(C::Gt), Op::CmpType(T::U32)),
    "s_cmp_ge_u32" => SCmp(Cmp(C::Ge), Op::CmpType(T::U32)),
    "s_cmp_eq_i32" => SCmp(Cmp(C::Eq), Op::CmpType(T::I32)),
    "s_cmp_ne_i32" => SCmp(Cmp(C::Ne), Op::CmpType(T::I32)),
    "s_cmp_lt_i32" => SCmp(Cmp(C::Lt), Op::CmpType(T::I32)),
    "s_cmp_le_i32" => SCmp(Cmp(C::Le), Op::CmpType(T::I32)),
    "s_cmp_gt_i32" => SCmp(Cmp(C::Gt), Op::CmpType(T::I32)),
    "s_cmp_ge_i32" => SCmp(Cmp(C::Ge), Op::CmpType(T::I32)),
    "s_cmp_eq_f32" => SCmp(Cmp(C::Eq), Op::CmpType(T::F32)),
    "s_cmp_ne_f32" => SCmp(Cmp(C::Ne), Op::CmpType(T::F32)),
    "s_cmp_lt_f32" => SCmp(Cmp(C::Lt), Op::CmpType(T::F32)),
    "s_cmp_le_f32" => SCmp(Cmp(C::Le), Op::CmpType(T::F32)),
    "s_cmp_gt_f32" => SCmp(Cmp(C::Gt), Op::CmpType(T::F32)),
    "s_cmp_ge_f32" => SCmp(Cmp(C::Ge), Op::CmpType(T::F32)),
    // Wave reductions.
    "s_ballot" => SWave(Wave(WaveOp::BallotLo)),
    "s_ballot_hi" => SWave(Wave(WaveOp::BallotHi)),
    "s_bcnt" => SWave(Wave(WaveOp::Count)),
    "s_active_lanes" => SActiveLanes,
    // Mask.
    "m_and" => MaskBinary(Op::Mask(MaskOp::And)),
    "m_or" => MaskBinary(Op::Mask(MaskOp::Or)),
    "m_andn" => MaskBinary(Op::Mask(MaskOp::AndN)),
    "m_xor" => MaskBinary(Op::Mask(MaskOp::Xor)),
    "m_not" => MaskNot,
    // Global memory.
    "global_load" => GlobalLoad,
    "global_load_u8" => GlobalLoad(Access(E::U8)),
    "global_load_i8" => GlobalLoad(Access(E::I8)),
    "global_load_u16" => GlobalLoad(Access(E::U16)),
    "global_load_i16" => GlobalLoad(Access(E::I16)),
    "global_load_u32" => GlobalLoad(Access(E::U32)),
    "global_load_i32" => GlobalLoad(Access(E::I32)),
    "global_load_f32" => GlobalLoad(Access(E::F32)),
    "global_load_f16" => GlobalLoad(Access(E::F16)),
    "global_load_bf16" => GlobalLoad(Access(E::BF16)),
    "global_store" => GlobalStore,
    "global_store_u8" => GlobalStore(Access(E::U8)),
    "global_store_i8" => GlobalStore(Access(E::I8)),
    "global_store_u16" => GlobalStore(Access(E::U16)),
    "global_store_i16" => GlobalStore(Access(E::I16)),
    "global_store_u32" => GlobalStore(Access(E::U32)),
    "global_store_i32" => GlobalStore(Access(E::I32)),
    "global_store_f32" => GlobalStore(Access(E::F32)),
    "global_store_f16" => GlobalStore(Access(E::F16)),
    "global_store_bf16" => GlobalStore(Access(E::BF16)),
    "global_load_x2" => GlobalLoadWide(Op::Width(Width::X2)),
    "global_load_x4" => GlobalLoadWide(Op::Width(Width::X4)),
    "global_store_x2" => GlobalStoreWide(Op::Width(Width::X2)),
    "global_store_x4" => GlobalStoreWide(Op::Width(Width::X4)),
    "global_atomic_add_u32" => GlobalAtomic(Atomic(A::AddU32)),
    "global_atomic_add_i32" => GlobalAtomic(Atomic(A::AddU32)),
    "global_atomic_sub_u32" => GlobalAtomic(Atomic(A::SubU32)),
    "global_atomic_sub_i32" => GlobalAtomic(Atomic(A::SubU32)),
    "global_atomic_min_u32" => GlobalAtomic(Atomic(A::MinU32)),
    "global_atomic_min_i32" => GlobalAtomic(Atomic(A::MinI32)),
    "global_atomic_max_u32" => GlobalAtomic(Atomic(A::MaxU32)),
    "global_atomic_max_i32" => GlobalAtomic(Atomic(A::MaxI32)),
    "global_atomic_and" => GlobalAtomic(Atomic(A::And)),
    "global_atomic_or" => GlobalAtomic(Atomic(A::Or)),
    "global_atomic_xor" => GlobalAtomic(Atomic(A::Xor)),
    "global_atomic_xchg" => GlobalAtomic(Atomic(A::Exchange)),
    "global_atomic_inc_u32" => GlobalAtomic(Atomic(A::IncU32)),
    "global_atomic_add_f32" => GlobalAtomic(Atomic(A::AddF32)),
    "global_atomic_cmpswap" => GlobalCmpSwap,
    "global_atomic_add_u64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::AddU64)),
    "global_atomic_add_i64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::AddU64)),
    "global_atomic_add_f64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::AddF64)),
    "global_atomic_min_u64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::MinU64)),
    "global_atomic_min_i64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::MinI64)),
    "global_atomic_max_u64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::MaxU64)),
    "global_atomic_max_i64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::MaxI64)),
    "global_atomic_and_b64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::And)),
    "global_atomic_or_b64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::Or)),
    "global_atomic_xor_b64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::Xor)),
    "global_atomic_xchg_b64" => GlobalAtomic64(Op::Atomic64(Atomic64Op::Exchange)),
    "global_atomic_cmpswap_b64" => GlobalCmpSwap64(Op::Width(Width::X2)),
    // LDS.
    "lds_load" => LdsLoad,
    "lds_load_u8" => LdsLoad(Access(E::U8)),
    "lds_load_i8" => LdsLoad(Access(E::I8)),
    "lds_load_u16" => LdsLoad(Access(E::U16)),
    "lds_load_i16" => LdsLoad(Access(E::I16)),
    "lds_load_u32" => LdsLoad(Access(E::U32)),
    "lds_load_i32" => LdsLoad(Access(E::I32)),
    "lds_load_f32" => LdsLoad(Access(E::F32)),
    "lds_load_f16" => LdsLoad(Access(E::F16)),
    "lds_load_bf16" => LdsLoad(Access(E::BF16)),
    "lds_store" => LdsStore,
    "lds_store_u8" => LdsStore(Access(E::U8)),
    "lds_store_i8" => LdsStore(Access(E::I8)),
    "lds_store_u16" => LdsStore(Access(E::U16)),
    "lds_store_i16" => LdsStore(Access(E::I16)),
    "lds_store_u32" => LdsStore(Access(E::U32)),
    "lds_store_i32" => LdsStore(Access(E::I32)),
    "lds_store_f32" => LdsStore(Access(E::F32)),
    "lds_store_f16" => LdsStore(Access(E::F16)),
    "lds_store_bf16" => LdsStore(Access(E::BF16)),
    "lds_load_x2" => LdsLoadWide(Op::Width(Width::X2)),
    "lds_load_x4" => LdsLoadWide(Op::Width(Width::X4)),
    "lds_store_x2" => LdsStoreWide(Op::Width(Width::X2)),
    "lds_store_x4" => LdsStoreWide(Op::Width(Width::X4)),
    "lds_atomic_add_u32" => LdsAtomic(Atomic(A::AddU32)),
    "lds_atomic_add_i32" => LdsAtomic(Atomic(A::AddU32)),
    "lds_atomic_sub_u32" => LdsAtomic(Atomic(A::SubU32)),
    "lds_atomic_sub_i32" => LdsAtomic(Atomic(A::SubU32)),
    "lds_atomic_min_u32" => LdsAtomic(Atomic(A::MinU32)),
    "lds_atomic_min_i32" => LdsAtomic(Atomic(A::MinI32)),
    "lds_atomic_max_u32" => LdsAtomic(Atomic(A::MaxU32)),
    "lds_atomic_max_i32" => LdsAtomic(Atomic(A::MaxI32)),
    "lds_atomic_and" => LdsAtomic(Atomic(A::And)),
    "lds_atomic_or" => LdsAtomic(Atomic(A::Or)),
    "lds_atomic_xor" => LdsAtomic(Atomic(A::Xor)),
    "lds_atomic_xchg" => LdsAtomic(Atomic(A::Exchange)),
    "lds_atomic_inc_u32" => LdsAtomic(Atomic(A::IncU32)),
    "lds_atomic_add_f32" => LdsAtomic(Atomic(A::AddF32)),
    "lds_atomic_cmpswap" => LdsCmpSwap,
    "lds_atomic_add_u64" => LdsAtomic64(Op::Atomic64(Atomic64Op::AddU64)),
    "lds_atomic_add_i64" => LdsAtomic64(Op::Atomic64(Atomic64Op::AddU64)),
    "lds_atomic_add_f64" => LdsAtomic64(Op::Atomic64(Atomic64Op::AddF64)),
    "lds_atomic_min_u64" => LdsAtomic64(Op::Atomic64(Atomic64Op::MinU64)),
    "lds_atomic_min_i64" => LdsAtomic64(Op::Atomic64(Atomic64Op::MinI64)),
    "lds_atomic_max_u64" => LdsAtomic64(Op::Atomic64(Atomic64Op::MaxU64)),
    "lds_atomic_max_i64" => LdsAtomic64(Op::Atomic64(Atomic64Op::MaxI64)),
    "lds_atomic_and_b64" => LdsAtomic64(Op::Atomic64(Atomic64Op::And)),
    "lds_atomic_or_b64" => LdsAtomic64(Op::Atomic64(Atomic64Op::Or)),
    "lds_atomic_xor_b64" => LdsAtomic64(Op::Atomic64(Atomic64Op::Xor)),
    "lds_atomic_xchg_b64" => LdsAtomic64(Op::Atomic64(Atomic64Op::Exchange)),
    "lds_atomic_cmpswap_b64" => LdsCmpSwap64(Op::Width(Width::X2)),
    // Control flow.
    "if" => If,
    "else" => Else,
    "endif" => EndIf,
    "loop" => Loop,
    "endloop" => EndLoop,
    "break" => Break,
    "continue" => Continue,
    "barrier" => Barrier,
    "wave_barrier" => WaveBarrier,
    // Printing.
    "print" => Print,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_lowercase_and_build() {
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
            let inst = m.template();
            assert!(inst.is_some(), "{} does not build", m.name);
            let inst = inst.unwrap_or(Inst::End);
            // The disassembler finds this mnemonic or an earlier synonym.
            if m.infers_access() {
                assert!(untyped(spelling(&inst).unwrap_or(m)).is_some_and(|u| u.name == m.name));
                continue;
            }
            let found = spelling(&inst);
            assert!(found.is_some(), "{} has no spelling", m.name);
            let found = found.map_or("", |f| f.name);
            let first = MNEMONICS
                .iter()
                .position(|o| o.name == found)
                .unwrap_or(usize::MAX);
            assert!(first <= i, "{} spelled {}", m.name, found);
        }
    }

    #[test]
    fn every_opcode_but_end_has_a_mnemonic() {
        for &op in Opcode::ALL {
            let spelled = MNEMONICS.iter().any(|m| m.opcode == op);
            assert_eq!(spelled, op != Opcode::End, "{}", op.name());
        }
    }
}
