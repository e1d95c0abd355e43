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
                Op::Bin(b) => Some(b.immediate()),
                Op::Un(u) => Some(u.immediate()),
                Op::Tern(t) => Some(t.immediate()),
                Op::Atomic(a) => Some(a.immediate()),
                Op::Widen(w) => Some(w.immediate()),
                Op::CmpType(CmpType::F32) => Some(ImmType::F32),
                Op::CmpType(CmpType::F16) => Some(ImmType::F16),
                Op::CmpType(CmpType::Bf16) => Some(ImmType::Bf16),
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

/// Generates a family's `immediate` from its first attribute.
macro_rules! immediates {
    (
        [$name:ident]
        $( $(#[doc = $doc:literal])* $v:ident [$imm:ident $(, $rest:ident)*] $($spell:literal)|+ ,)*
    ) => {
        impl $name {
            /// How a literal in a value operand of the operation is read.
            pub const fn immediate(self) -> ImmType {
                match self {$( $name::$v => ImmType::$imm, )*}
            }
        }
    };
}

crate::for_each_bin_op!(immediates BinOp);
crate::for_each_un_op!(immediates UnOp);
crate::for_each_tern_op!(immediates TernOp);
crate::for_each_atomic_op!(immediates AtomicOp);
crate::for_each_widen_op!(immediates WidenOp);

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

/// A family's mnemonics ([`families`](super::families)): the rows the
/// filter keeps, one per suffix, each the prefix and the suffix.
macro_rules! family_rows {
    (
        [$opcode:ident $prefix:literal $wrap:ident $filter:ident $name:ident]
        $( $(#[doc = $doc:literal])* $v:ident $attrs:tt $($spell:literal)|+ ,)*
    ) => {
        &[$($(
            $filter!($attrs Mnemonic {
                name: concat!($prefix, $spell),
                opcode: Opcode::$opcode,
                ops: &[Op::$wrap($name::$v)],
            }),
        )+)*]
    };
}

/// Every row of a family.
macro_rules! every {
    ([$($attr:ident),*] $m:expr) => {
        Some($m)
    };
}

/// The rows of a family's operations that have a scalar form.
macro_rules! scalar_form {
    ([$imm:ident, $lane:ident, Both] $m:expr) => {
        Some($m)
    };
    ([$imm:ident, $lane:ident, Vector] $m:expr) => {
        None
    };
}

/// Mnemonics written out, for the instructions no family spells.
macro_rules! rows {
    ({$($name:literal => $opcode:ident $( ( $($op:expr),* ) )?,)*}) => {
        &[$(Some(Mnemonic {
            name: $name,
            opcode: Opcode::$opcode,
            ops: &[$($($op),*)?],
        }),)*]
    };
}

use CmpOp as C;
use CmpType as T;
use ElemType as E;
use Op::{Access, Cmp, Shuffle, Wave};
use ShuffleOp as Sh;

/// The mnemonics in groups, grouped as `docs/src/language/instructions.md`
/// lists them; a family's rows where the family leaves a row out are `None`.
const GROUPS: &[&[Option<Mnemonic>]] = &[
    // Vector binary.
    crate::for_each_bin_op!(family_rows VBinary "v_" Bin every BinOp),
    // Vector unary.
    crate::for_each_un_op!(family_rows VUnary "v_" Un every UnOp),
    // Vector ternary.
    crate::for_each_tern_op!(family_rows VTernary "v_" Tern every TernOp),
    // Vector compare.
    rows!({
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
    }),
    // 64-bit, widen, narrow and select.
    crate::for_each_bin64_op!(family_rows VBinary64 "v_" Bin64 every Bin64Op),
    crate::for_each_un64_op!(family_rows VUnary64 "v_" Un64 every Un64Op),
    crate::for_each_tern64_op!(family_rows VTernary64 "v_" Tern64 every Tern64Op),
    rows!({
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
    }),
    crate::for_each_widen_op!(family_rows VWiden "v_" Widen every WidenOp),
    crate::for_each_narrow_op!(family_rows VNarrow "v_" Narrow every NarrowOp),
    rows!({
        "v_select" => VSelect,
    }),
    // Lane exchange.
    rows!({
        "v_shfl_idx" => VShuffle(Shuffle(Sh::Index)),
        "v_shfl_xor" => VShuffle(Shuffle(Sh::Xor)),
        "v_shfl_up" => VShuffle(Shuffle(Sh::Up)),
        "v_shfl_down" => VShuffle(Shuffle(Sh::Down)),
        "v_readfirstlane" => VReadFirstLane,
        "v_readlane" => VReadLane,
    }),
    // Scalar binary.
    crate::for_each_bin_op!(family_rows SBinary "s_" Bin scalar_form BinOp),
    // Scalar unary.
    crate::for_each_un_op!(family_rows SUnary "s_" Un scalar_form UnOp),
    // Scalar ternary.
    crate::for_each_tern_op!(family_rows STernary "s_" Tern scalar_form TernOp),
    // Scalar compare.
    rows!({
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
    }),
    // Wave reductions.
    rows!({
        "s_ballot" => SWave(Wave(WaveOp::BallotLo)),
        "s_ballot_hi" => SWave(Wave(WaveOp::BallotHi)),
        "s_bcnt" => SWave(Wave(WaveOp::Count)),
        "s_active_lanes" => SActiveLanes,
    }),
    // Mask.
    rows!({
        "m_and" => MaskBinary(Op::Mask(MaskOp::And)),
        "m_or" => MaskBinary(Op::Mask(MaskOp::Or)),
        "m_andn" => MaskBinary(Op::Mask(MaskOp::AndN)),
        "m_xor" => MaskBinary(Op::Mask(MaskOp::Xor)),
        "m_not" => MaskNot,
    }),
    // Global memory.
    rows!({
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
    }),
    crate::for_each_atomic_op!(family_rows GlobalAtomic "global_atomic_" Atomic every AtomicOp),
    rows!({
        "global_atomic_cmpswap" => GlobalCmpSwap,
    }),
    crate::for_each_atomic64_op!(family_rows GlobalAtomic64 "global_atomic_" Atomic64 every Atomic64Op),
    rows!({
        "global_atomic_cmpswap_b64" => GlobalCmpSwap64(Op::Width(Width::X2)),
    }),
    // LDS.
    rows!({
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
    }),
    crate::for_each_atomic_op!(family_rows LdsAtomic "lds_atomic_" Atomic every AtomicOp),
    rows!({
        "lds_atomic_cmpswap" => LdsCmpSwap,
    }),
    crate::for_each_atomic64_op!(family_rows LdsAtomic64 "lds_atomic_" Atomic64 every Atomic64Op),
    rows!({
        "lds_atomic_cmpswap_b64" => LdsCmpSwap64(Op::Width(Width::X2)),
    }),
    // Control flow.
    rows!({
        "if" => If,
        "else" => Else,
        "endif" => EndIf,
        "loop" => Loop,
        "endloop" => EndLoop,
        "break" => Break,
        "continue" => Continue,
        "barrier" => Barrier,
        "wave_barrier" => WaveBarrier,
    }),
    // Printing.
    rows!({
        "print" => Print,
    }),
];

/// The number of mnemonics in `groups`.
const fn count(groups: &[&[Option<Mnemonic>]]) -> usize {
    let mut n = 0;
    let mut g = 0;
    while g < groups.len() {
        let mut i = 0;
        while i < groups[g].len() {
            n += groups[g][i].is_some() as usize;
            i += 1;
        }
        g += 1;
    }
    n
}

/// The mnemonics of `groups`, in order.
const fn concat<const N: usize>(groups: &[&[Option<Mnemonic>]]) -> [Mnemonic; N] {
    let mut out = [Mnemonic {
        name: "",
        opcode: Opcode::End,
        ops: &[],
    }; N];
    let (mut n, mut g) = (0, 0);
    while g < groups.len() {
        let mut i = 0;
        while i < groups[g].len() {
            if let Some(m) = groups[g][i] {
                out[n] = m;
                n += 1;
            }
            i += 1;
        }
        g += 1;
    }
    assert!(n == N);
    out
}

const TABLE: [Mnemonic; count(GROUPS)] = concat(GROUPS);

/// Every mnemonic, grouped as `docs/src/language/instructions.md` lists them.
pub static MNEMONICS: &[Mnemonic] = &TABLE;

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
