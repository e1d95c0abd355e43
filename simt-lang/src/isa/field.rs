//! An instruction's fields as uniform values: what each field is to the
//! instruction (its [`Role`]) and its value ([`Field`]).
//!
//! The instruction table pairs every field of every instruction with a role; the
//! validator, the uniformity analysis, the register counts, the macro's parser
//! and token printer and the disassembler all read instructions through these
//! views instead of naming each instruction. The pairing is checked when the
//! table compiles: a field's type must implement [`IntoField`] and [`FromField`]
//! for its role's marker type in [`role`].

use super::ops::{
    Atomic64Op, AtomicOp, Bin64Op, BinOp, Cmp64Type, CmpOp, CmpType, MaskOp, NarrowOp, ShuffleOp,
    Tern64Op, TernOp, Un64Op, UnOp, WaveOp, WidenOp, Width,
};
use crate::ir::{
    ElemType, GlobalRef, InstIdx, LdsRef, MReg, Operand, PrintFormat, Reg, SReg, VReg,
};
use serde::Serialize;

/// What a field is to its instruction.
///
/// Roles after [`Role::Op`] are written in the kernel text as operands, in table
/// order; `Op` is spelled by the mnemonic and `Target` is computed by linking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Role {
    /// An operation, comparison type, access type or width: fixed by the mnemonic.
    Op,
    /// A vector register written.
    VDst,
    /// A scalar register written.
    SDst,
    /// A mask register written.
    MDst,
    /// A vector register written if one is given (an atomic's old value).
    VDstOpt,
    /// Consecutive vector registers written, as many as the instruction's [`Width`].
    VDstRun,
    /// A value read per lane; immediates take the mnemonic's type.
    Src,
    /// A value read once per wave: it must be wave-uniform; immediates take the
    /// mnemonic's type.
    Uniform,
    /// An integer read per lane (a lane index).
    Index,
    /// An integer read once per wave (a lane index): it must be wave-uniform.
    UIndex,
    /// Consecutive vector registers read, as many as the instruction's [`Width`].
    VSrcRun,
    /// A mask register read.
    Mask,
    /// A global memory operand read.
    GlobalLoad,
    /// A global memory operand written.
    GlobalStore,
    /// A global memory operand read and written atomically.
    GlobalAtomic,
    /// An LDS operand read.
    LdsLoad,
    /// An LDS operand written.
    LdsStore,
    /// An LDS operand read and written atomically.
    LdsAtomic,
    /// A jump target, resolved by [`link`](crate::link).
    Target,
    /// A `print`'s format, written as a string literal.
    Format,
}

impl Role {
    /// Whether the field is written as an operand in the kernel text.
    pub const fn is_operand(self) -> bool {
        !matches!(self, Role::Op | Role::Target)
    }

    /// Whether the operand may be left out (only as the first operand).
    pub const fn is_optional(self) -> bool {
        matches!(self, Role::VDstOpt)
    }
}

/// An operation fixed by the mnemonic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Op {
    /// A two-operand ALU operation.
    Bin(BinOp),
    /// A one-operand ALU operation.
    Un(UnOp),
    /// A three-operand ALU operation.
    Tern(TernOp),
    /// A comparison.
    Cmp(CmpOp),
    /// The type a comparison reads.
    CmpType(CmpType),
    /// A mask operation.
    Mask(MaskOp),
    /// An atomic read-modify-write.
    Atomic(AtomicOp),
    /// An atomic read-modify-write of a 64-bit element.
    Atomic64(Atomic64Op),
    /// A lane shuffle.
    Shuffle(ShuffleOp),
    /// A wave-wide mask reduction.
    Wave(WaveOp),
    /// The element count of a wide access.
    Width(Width),
    /// The type a load or store moves.
    Access(ElemType),
    /// A two-operand operation on register pairs.
    Bin64(Bin64Op),
    /// A one-operand operation on register pairs.
    Un64(Un64Op),
    /// A three-operand operation on register pairs.
    Tern64(Tern64Op),
    /// The type a comparison of register pairs reads.
    Cmp64Type(Cmp64Type),
    /// A conversion from a 32-bit value to a register pair.
    Widen(WidenOp),
    /// A conversion from a register pair to a 32-bit value.
    Narrow(NarrowOp),
}

impl Op {
    /// How many consecutive registers the instruction's register runs name,
    /// if this operation fixes it: a wide access's element count, or 2 for
    /// the 64-bit operations (their register pairs).
    pub const fn run(self) -> Option<u16> {
        match self {
            Op::Width(w) => Some(w.count()),
            Op::Bin64(_)
            | Op::Atomic64(_)
            | Op::Un64(_)
            | Op::Tern64(_)
            | Op::Cmp64Type(_)
            | Op::Widen(_)
            | Op::Narrow(_) => Some(2),
            _ => None,
        }
    }
}

/// A memory operand of either space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum MemRef {
    /// A buffer element.
    Global(GlobalRef),
    /// An LDS element.
    Lds(LdsRef),
}

impl MemRef {
    /// The index operand.
    pub const fn index(self) -> Operand {
        match self {
            MemRef::Global(g) => g.index,
            MemRef::Lds(l) => l.index,
        }
    }

    /// The offset operand.
    pub const fn offset(self) -> Operand {
        match self {
            MemRef::Global(g) => g.offset,
            MemRef::Lds(l) => l.offset,
        }
    }
}

/// One field of an instruction: its role and its value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Field {
    /// [`Role::Op`].
    Op(Op),
    /// [`Role::VDst`].
    VDst(VReg),
    /// [`Role::SDst`].
    SDst(SReg),
    /// [`Role::MDst`].
    MDst(MReg),
    /// [`Role::VDstOpt`].
    VDstOpt(Option<VReg>),
    /// [`Role::VDstRun`]: the first register.
    VDstRun(VReg),
    /// [`Role::Src`].
    Src(Operand),
    /// [`Role::Uniform`].
    Uniform(Operand),
    /// [`Role::Index`].
    Index(Operand),
    /// [`Role::UIndex`].
    UIndex(Operand),
    /// [`Role::VSrcRun`]: the first register.
    VSrcRun(VReg),
    /// [`Role::Mask`].
    Mask(MReg),
    /// A memory operand; the role says how it is accessed.
    Mem(Role, MemRef),
    /// [`Role::Target`].
    Target(InstIdx),
    /// [`Role::Format`].
    Format(PrintFormat),
}

impl Field {
    /// The field's role.
    pub const fn role(&self) -> Role {
        match *self {
            Field::Op(_) => Role::Op,
            Field::VDst(_) => Role::VDst,
            Field::SDst(_) => Role::SDst,
            Field::MDst(_) => Role::MDst,
            Field::VDstOpt(_) => Role::VDstOpt,
            Field::VDstRun(_) => Role::VDstRun,
            Field::Src(_) => Role::Src,
            Field::Uniform(_) => Role::Uniform,
            Field::Index(_) => Role::Index,
            Field::UIndex(_) => Role::UIndex,
            Field::VSrcRun(_) => Role::VSrcRun,
            Field::Mask(_) => Role::Mask,
            Field::Mem(role, _) => role,
            Field::Target(_) => Role::Target,
            Field::Format(_) => Role::Format,
        }
    }

    /// A field of `role` with placeholder operands: register 0, immediate 0, the
    /// first parameter or LDS array, an unlinked target.
    pub const fn placeholder(role: Role) -> Field {
        let imm = Operand::Imm(0);
        let global = GlobalRef::element(crate::ir::ParamIdx(0), imm);
        let lds = LdsRef::element(crate::ir::LdsIdx(0), imm);
        match role {
            Role::Op => Field::Op(Op::Access(ElemType::U32)),
            Role::VDst => Field::VDst(VReg(0)),
            Role::SDst => Field::SDst(SReg(0)),
            Role::MDst => Field::MDst(MReg(0)),
            Role::VDstOpt => Field::VDstOpt(None),
            Role::VDstRun => Field::VDstRun(VReg(0)),
            Role::Src => Field::Src(imm),
            Role::Uniform => Field::Uniform(imm),
            Role::Index => Field::Index(imm),
            Role::UIndex => Field::UIndex(imm),
            Role::VSrcRun => Field::VSrcRun(VReg(0)),
            Role::Mask => Field::Mask(MReg(0)),
            Role::GlobalLoad | Role::GlobalStore | Role::GlobalAtomic => {
                Field::Mem(role, MemRef::Global(global))
            }
            Role::LdsLoad | Role::LdsStore | Role::LdsAtomic => Field::Mem(role, MemRef::Lds(lds)),
            Role::Target => Field::Target(InstIdx::UNLINKED),
            Role::Format => Field::Format(PrintFormat {
                index: 0,
                values: 0,
            }),
        }
    }

    /// The value operand the field reads, if it is one.
    pub const fn operand(&self) -> Option<Operand> {
        match *self {
            Field::Src(o) | Field::Uniform(o) | Field::Index(o) | Field::UIndex(o) => Some(o),
            _ => None,
        }
    }
}

/// Marker types, one per [`Role`], that the instruction table names so that
/// the compiler checks each field's type against its role.
pub mod role {
    macro_rules! markers {
        ($($name:ident),*) => {$(
            #[doc = concat!("Marks a field of role [`Role::", stringify!($name), "`](super::Role::", stringify!($name), ").")]
            #[derive(Debug)]
            pub enum $name {}
        )*};
    }
    markers!(
        Op,
        VDst,
        SDst,
        MDst,
        VDstOpt,
        VDstRun,
        Src,
        Uniform,
        Index,
        UIndex,
        VSrcRun,
        Mask,
        GlobalLoad,
        GlobalStore,
        GlobalAtomic,
        LdsLoad,
        LdsStore,
        LdsAtomic,
        Target,
        Format
    );
}

/// A field type viewed in role `R`.
pub trait IntoField<R> {
    /// The field as a [`Field`].
    fn into_field(self) -> Field;
}

/// A field type rebuilt from a [`Field`] of role `R`.
pub trait FromField<R>: Sized {
    /// The value, or `None` when `field` has another role or type.
    fn from_field(field: Field) -> Option<Self>;
}

/// Implements both directions for a (type, role marker, `Field` variant) triple.
macro_rules! field {
    ($ty:ty, $role:ident, $variant:ident) => {
        impl IntoField<role::$role> for $ty {
            fn into_field(self) -> Field {
                Field::$variant(self)
            }
        }
        impl FromField<role::$role> for $ty {
            fn from_field(field: Field) -> Option<Self> {
                match field {
                    Field::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

field!(VReg, VDst, VDst);
field!(SReg, SDst, SDst);
field!(MReg, MDst, MDst);
field!(Option<VReg>, VDstOpt, VDstOpt);
field!(VReg, VDstRun, VDstRun);
field!(Operand, Src, Src);
field!(Operand, Uniform, Uniform);
field!(Operand, Index, Index);
field!(Operand, UIndex, UIndex);
field!(VReg, VSrcRun, VSrcRun);
field!(MReg, Mask, Mask);
field!(InstIdx, Target, Target);
field!(PrintFormat, Format, Format);

/// Operations: one `Op` variant per operation type.
macro_rules! op {
    ($ty:ty, $variant:ident) => {
        impl IntoField<role::Op> for $ty {
            fn into_field(self) -> Field {
                Field::Op(Op::$variant(self))
            }
        }
        impl FromField<role::Op> for $ty {
            fn from_field(field: Field) -> Option<Self> {
                match field {
                    Field::Op(Op::$variant(v)) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

op!(BinOp, Bin);
op!(UnOp, Un);
op!(TernOp, Tern);
op!(CmpOp, Cmp);
op!(CmpType, CmpType);
op!(MaskOp, Mask);
op!(AtomicOp, Atomic);
op!(Atomic64Op, Atomic64);
op!(ShuffleOp, Shuffle);
op!(WaveOp, Wave);
op!(Bin64Op, Bin64);
op!(Un64Op, Un64);
op!(Tern64Op, Tern64);
op!(Cmp64Type, Cmp64Type);
op!(WidenOp, Widen);
op!(NarrowOp, Narrow);
op!(Width, Width);
op!(ElemType, Access);

/// Memory operands: the role is kept in the field.
macro_rules! mem {
    ($ty:ty, $space:ident, $($role:ident),*) => {$(
        impl IntoField<role::$role> for $ty {
            fn into_field(self) -> Field {
                Field::Mem(Role::$role, MemRef::$space(self))
            }
        }
        impl FromField<role::$role> for $ty {
            fn from_field(field: Field) -> Option<Self> {
                match field {
                    Field::Mem(Role::$role, MemRef::$space(r)) => Some(r),
                    _ => None,
                }
            }
        }
    )*};
}

mem!(GlobalRef, Global, GlobalLoad, GlobalStore, GlobalAtomic);
mem!(LdsRef, Lds, LdsLoad, LdsStore, LdsAtomic);

/// The fields of one instruction, in table order (at most [`Fields::MAX`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fields {
    items: [Field; Fields::MAX],
    len: u8,
}

impl Fields {
    /// The most fields an instruction has.
    pub const MAX: usize = 6;

    /// The fields in `items` (past [`Fields::MAX`] they are dropped: the table
    /// has no such instruction, which a test checks).
    pub fn new(items: &[Field]) -> Self {
        let mut out = Fields {
            items: [Field::Target(InstIdx::UNLINKED); Fields::MAX],
            len: 0,
        };
        for (slot, f) in out.items.iter_mut().zip(items) {
            *slot = *f;
            out.len += 1;
        }
        out
    }

    /// The fields as a slice.
    pub fn as_slice(&self) -> &[Field] {
        &self.items[..usize::from(self.len)]
    }

    /// The fields as a mutable slice, to replace values (roles must stay).
    pub fn as_mut_slice(&mut self) -> &mut [Field] {
        &mut self.items[..usize::from(self.len)]
    }

    /// The width of the instruction's register runs ([`Op::run`]), or 1.
    pub fn run_length(&self) -> u16 {
        self.as_slice()
            .iter()
            .find_map(|f| match f {
                Field::Op(o) => o.run(),
                _ => None,
            })
            .unwrap_or(1)
    }

    /// Every register the instruction writes.
    pub fn written(&self) -> impl Iterator<Item = Reg> + '_ {
        let run = self.run_length();
        self.as_slice().iter().flat_map(move |f| {
            let (first, n): (Option<Reg>, u16) = match *f {
                Field::VDst(r) => (Some(Reg::V(r)), 1),
                Field::SDst(r) => (Some(Reg::S(r)), 1),
                Field::MDst(r) => (Some(Reg::M(r)), 1),
                Field::VDstOpt(r) => (r.map(Reg::V), 1),
                Field::VDstRun(r) => (Some(Reg::V(r)), run),
                _ => (None, 0),
            };
            first.into_iter().flat_map(move |r| r.run(n))
        })
    }

    /// Every value operand read, memory indices and offsets included, with
    /// whether it must be wave-uniform.
    pub fn operands(&self) -> impl Iterator<Item = (Operand, bool)> + '_ {
        self.as_slice().iter().flat_map(|f| {
            let read: [Option<(Operand, bool)>; 2] = match *f {
                Field::Src(o) | Field::Index(o) => [Some((o, false)), None],
                Field::Uniform(o) | Field::UIndex(o) => [Some((o, true)), None],
                Field::Mem(_, m) => [Some((m.index(), false)), Some((m.offset(), true))],
                _ => [None, None],
            };
            read.into_iter().flatten()
        })
    }

    /// Every register read: value operands, register runs and masks.
    pub fn read(&self) -> impl Iterator<Item = Reg> + '_ {
        let values = self.operands().filter_map(|(o, _)| match o {
            Operand::V(r) => Some(Reg::V(r)),
            Operand::S(r) => Some(Reg::S(r)),
            _ => None,
        });
        let masks = self.as_slice().iter().filter_map(|f| match *f {
            Field::Mask(m) => Some(Reg::M(m)),
            _ => None,
        });
        values.chain(self.runs_read()).chain(masks)
    }

    /// The registers of the runs read (a wide store's, a 64-bit operation's
    /// pairs).
    pub fn runs_read(&self) -> impl Iterator<Item = Reg> + '_ {
        let run = self.run_length();
        self.as_slice().iter().flat_map(move |f| match *f {
            Field::VSrcRun(r) => Reg::V(r).run(run),
            _ => Reg::V(VReg(0)).run(0),
        })
    }

    /// The memory operand, if the instruction has one.
    pub fn memory(&self) -> Option<(Role, MemRef)> {
        self.as_slice().iter().find_map(|f| match *f {
            Field::Mem(role, m) => Some((role, m)),
            _ => None,
        })
    }

    /// The access type the instruction names, if it has one.
    pub fn access(&self) -> Option<ElemType> {
        self.as_slice().iter().find_map(|f| match *f {
            Field::Op(Op::Access(t)) => Some(t),
            _ => None,
        })
    }
}

impl Reg {
    /// `n` consecutive registers of this class from this one (saturating at the
    /// class's highest number: the validator reports such registers as out of range).
    pub fn run(self, n: u16) -> impl Iterator<Item = Reg> {
        let (first, make): (u16, fn(u16) -> Reg) = match self {
            Reg::V(r) => (r.0, |i| Reg::V(VReg(i))),
            Reg::S(r) => (r.0, |i| Reg::S(SReg(i))),
            Reg::M(r) => (r.0, |i| Reg::M(MReg(i))),
        };
        (0..n).map(move |k| make(first.saturating_add(k)))
    }

    /// The register's class letter (`v`, `s` or `m`) and number.
    pub const fn parts(self) -> (char, u16) {
        match self {
            Reg::V(r) => ('v', r.0),
            Reg::S(r) => ('s', r.0),
            Reg::M(r) => ('m', r.0),
        }
    }
}
