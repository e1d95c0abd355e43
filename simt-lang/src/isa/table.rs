//! The instruction table: every instruction of the machine, its fields with
//! their roles, its unit, how uniform its result is and its snake-case name.
//! The [`Inst`] enum, its [`Opcode`]s, the field views of
//! [`field`](super::field), the [`InstVisitor`] trait and the decoder's
//! dispatch ([`inst_dispatch!`](crate::inst_dispatch)) are generated from it;
//! the mnemonics that spell each instruction are in
//! [`mnemonics`](super::mnemonics).
//!
//! Adding an instruction: an entry here, its spellings in the mnemonic table,
//! its decoding and semantics in the interpreter, its methods in the oracle's
//! and the facts walk's visitors, its tests (the book's "Adding an
//! instruction" lists the files).

use super::field::{role, Field, Fields, FromField, IntoField, Role};
use super::ops::{
    Atomic64Op, AtomicOp, Bin64Op, BinOp, Cmp64Type, CmpOp, CmpType, MaskOp, NarrowOp, ShuffleOp,
    Tern64Op, TernOp, Un64Op, UnOp, WaveOp, WidenOp, Width,
};
use crate::ir::{ElemType, GlobalRef, InstIdx, LdsRef, MReg, Operand, PrintFormat, SReg, VReg};
use serde::Serialize;

/// The unit an instruction runs on, which decides what it counts as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Unit {
    /// Vector ALU, compare, select, lane exchange: counted in `vector_instructions`.
    Vector,
    /// Vector memory (global or LDS): counted in `vector_instructions` and by the
    /// memory counters.
    Memory,
    /// Scalar ALU: once per wave, whatever the exec mask.
    Scalar,
    /// Mask operations: once per wave, on all 64 bits.
    Mask,
    /// Control flow, barriers and `end`.
    Control,
    /// `print`: counted in no counter.
    Debug,
}

/// How uniform an instruction's result is, given its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Result {
    /// The join of the levels of the values and masks it reads.
    Join,
    /// Per lane whatever it reads (memory may differ per address and over time).
    Lane,
    /// The same in every lane of a wave, but waves differ (it reads the exec mask
    /// or picks one lane).
    Wave,
    /// It writes no register.
    None,
}

/// Generates [`Inst`], [`Opcode`], the field views and [`InstVisitor`] with
/// [`Inst::visit`] from the table below.
macro_rules! define_instructions {
    ([] $(
        $(#[doc = $doc:literal])*
        $name:ident $snake:ident [$unit:ident, $result:ident] $({
            $( $(#[doc = $fdoc:literal])* $field:ident : $ty:ty => $role:ident ),* $(,)?
        })?
    )*) => {
        /// One instruction of a [`Program`](crate::Program).
        ///
        /// Vector instructions write only the lanes active in the exec mask;
        /// masked-off lanes keep their values. Control-flow instructions carry
        /// their jump targets, resolved when the program is linked
        /// ([`link`](crate::link)), so the interpreter never searches for a
        /// matching `endif`. Before linking a target is [`InstIdx::UNLINKED`].
        #[derive(Clone, Copy, Debug, PartialEq, Serialize)]
        pub enum Inst {$(
            $(#[doc = $doc])*
            $name $({ $( $(#[doc = $fdoc])* $field: $ty ),* })?,
        )*}

        /// An instruction's kind, without its fields.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum Opcode {$(
            $(#[doc = $doc])*
            $name,
        )*}

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name),*];

            /// The variant's name (`VBinary`).
            pub const fn name(self) -> &'static str {
                match self { $(Opcode::$name => stringify!($name),)* }
            }

            /// The unit it runs on.
            pub const fn unit(self) -> Unit {
                match self { $(Opcode::$name => Unit::$unit,)* }
            }

            /// How uniform its result is.
            pub const fn result(self) -> Result {
                match self { $(Opcode::$name => Result::$result,)* }
            }

            /// Its fields' names and roles, in table order.
            pub const fn fields(self) -> &'static [(&'static str, Role)] {
                match self { $(Opcode::$name => &[$($((stringify!($field), Role::$role)),*)?],)* }
            }
        }

        impl Inst {
            /// The instruction's kind.
            pub const fn opcode(&self) -> Opcode {
                match self { $(Inst::$name $({ $($field: _),* })? => Opcode::$name,)* }
            }

            /// The instruction's fields, in table order.
            #[allow(unused_variables)]
            pub fn fields(&self) -> Fields {
                match *self {$(
                    Inst::$name $({ $($field),* })? => Fields::new(&[
                        $($(<$ty as IntoField<role::$role>>::into_field($field)),*)?
                    ]),
                )*}
            }

            /// The instruction of kind `opcode` with these fields, in table order;
            /// `None` when their number, roles or types do not match the table.
            #[allow(unused_mut)]
            pub fn from_fields(opcode: Opcode, fields: &[Field]) -> Option<Inst> {
                let mut it = fields.iter().copied();
                let inst = match opcode {$(
                    Opcode::$name => Inst::$name $({
                        $($field: <$ty as FromField<role::$role>>::from_field(it.next()?)?),*
                    })?,
                )*};
                it.next().is_none().then_some(inst)
            }
        }

        /// A visitor of instructions: one method per instruction of the
        /// table, named after it, taking its fields in table order.
        /// [`Inst::visit`] calls the one of an instruction's kind; an
        /// implementation that leaves one out is a compile error naming it.
        pub trait InstVisitor {
            /// What each method returns.
            type Output;
            $(
                $(#[doc = $doc])*
                fn $snake(&mut self $($(, $field: $ty)*)?) -> Self::Output;
            )*
        }

        impl Inst {
            /// Calls `visitor`'s method for this instruction's kind with its
            /// fields.
            pub fn visit<V: InstVisitor>(&self, visitor: &mut V) -> V::Output {
                crate::for_each_inst!(inst_dispatch visitor *self)
            }
        }
    };
}

/// The instruction table: calls `$then! { [$($pre)*] rows }` with one row
/// per instruction, in the shape of pulley's `for_each_op!`:
///
/// ```text
/// /// What it does.
/// Name snake_name [unit, result level] {
///     /// What the field is.
///     field: Type => Role,
/// }
/// ```
///
/// The [`Inst`] enum, its [`Opcode`]s, the field views, the
/// [`InstVisitor`] trait with [`Inst::visit`], and every
/// [`inst_dispatch!`](crate::inst_dispatch) (the interpreter's decoder)
/// are generated from it.
#[macro_export]
macro_rules! for_each_inst {
    ($then:ident $($pre:tt)*) => {
        $then! { [$($pre)*]
    /// Vector ALU: `dst = op(a, b)` in each active lane.
    VBinary v_binary [Vector, Join] {
        /// The operation.
        op: BinOp => Op,
        /// Destination register.
        dst: VReg => VDst,
        /// First source.
        a: Operand => Src,
        /// Second source.
        b: Operand => Src,
    }
    /// Vector ALU: `dst = op(a)` in each active lane.
    VUnary v_unary [Vector, Join] {
        /// The operation.
        op: UnOp => Op,
        /// Destination register.
        dst: VReg => VDst,
        /// Source.
        a: Operand => Src,
    }
    /// Vector ALU: `dst = op(a, b, c)` (`a * b + c`) in each active lane.
    VTernary v_ternary [Vector, Join] {
        /// The operation.
        op: TernOp => Op,
        /// Destination register.
        dst: VReg => VDst,
        /// Multiplicand.
        a: Operand => Src,
        /// Multiplier.
        b: Operand => Src,
        /// Addend.
        c: Operand => Src,
    }
    /// Vector compare: bit `l` of `dst` is set to `a op b` for each active lane
    /// `l`; the bits of inactive lanes are kept.
    VCmp v_cmp [Vector, Join] {
        /// The comparison.
        op: CmpOp => Op,
        /// How the operands are read.
        ty: CmpType => Op,
        /// Destination mask.
        dst: MReg => MDst,
        /// Left operand.
        a: Operand => Src,
        /// Right operand.
        b: Operand => Src,
    }
    /// Vector select (predication): `dst = mask ? on_true : on_false` in each
    /// active lane.
    VSelect v_select [Vector, Join] {
        /// Destination register.
        dst: VReg => VDst,
        /// The mask choosing per lane.
        mask: MReg => Mask,
        /// Value for lanes whose mask bit is set.
        on_true: Operand => Src,
        /// Value for lanes whose mask bit is clear.
        on_false: Operand => Src,
    }
    /// Lane shuffle: each active lane reads `src` from another lane of the wave,
    /// chosen by `op` and `lane` (see [`ShuffleOp`]).
    VShuffle v_shuffle [Vector, Join] {
        /// Which lane each lane reads.
        op: ShuffleOp => Op,
        /// Destination register.
        dst: VReg => VDst,
        /// The value exchanged.
        src: Operand => Src,
        /// The lane index, distance or xor mask.
        lane: Operand => Index,
    }
    /// `dst` = `src` in the lowest active lane: a per-lane value made wave-uniform.
    VReadFirstLane v_read_first_lane [Vector, Wave] {
        /// Destination scalar register.
        dst: SReg => SDst,
        /// The value read.
        src: Operand => Src,
    }
    /// `dst` = `src` in lane `lane mod width`, active or not: a per-lane value
    /// made wave-uniform.
    VReadLane v_read_lane [Vector, Wave] {
        /// Destination scalar register.
        dst: SReg => SDst,
        /// The value read.
        src: Operand => Src,
        /// The lane.
        lane: Operand => UIndex,
    }
    /// Vector ALU on 64-bit values: `dst = op(a, b)` in each active lane, each
    /// value a pair of consecutive vector registers (low word first).
    VBinary64 v_binary64 [Vector, Join] {
        /// The operation.
        op: Bin64Op => Op,
        /// Destination pair.
        dst: VReg => VDstRun,
        /// First source pair.
        a: VReg => VSrcRun,
        /// Second source pair.
        b: VReg => VSrcRun,
    }
    /// Vector ALU on 64-bit values: `dst = op(a)` in each active lane.
    VUnary64 v_unary64 [Vector, Join] {
        /// The operation.
        op: Un64Op => Op,
        /// Destination pair.
        dst: VReg => VDstRun,
        /// Source pair.
        a: VReg => VSrcRun,
    }
    /// Vector ALU on 64-bit values: `dst = op(a, b, c)` in each active lane.
    VTernary64 v_ternary64 [Vector, Join] {
        /// The operation.
        op: Tern64Op => Op,
        /// Destination pair.
        dst: VReg => VDstRun,
        /// First source pair.
        a: VReg => VSrcRun,
        /// Second source pair.
        b: VReg => VSrcRun,
        /// Third source pair.
        c: VReg => VSrcRun,
    }
    /// Vector compare of 64-bit values: bit `l` of `dst` is set to `a op b`
    /// for each active lane `l`; the bits of inactive lanes are kept.
    VCmp64 v_cmp64 [Vector, Join] {
        /// The comparison.
        op: CmpOp => Op,
        /// What the pairs are read as.
        ty: Cmp64Type => Op,
        /// Destination mask register.
        dst: MReg => MDst,
        /// First source pair.
        a: VReg => VSrcRun,
        /// Second source pair.
        b: VReg => VSrcRun,
    }
    /// A 32-bit value converted to a 64-bit one, into a register pair.
    VWiden v_widen [Vector, Join] {
        /// The conversion.
        op: WidenOp => Op,
        /// Destination pair.
        dst: VReg => VDstRun,
        /// The 32-bit source.
        a: Operand => Src,
    }
    /// A 64-bit value converted to a 32-bit one.
    VNarrow v_narrow [Vector, Join] {
        /// The conversion.
        op: NarrowOp => Op,
        /// Destination register.
        dst: VReg => VDst,
        /// Source pair.
        a: VReg => VSrcRun,
    }
    /// Scalar ALU: `dst = op(a, b)`, once per wave.
    SBinary s_binary [Scalar, Join] {
        /// The operation.
        op: BinOp => Op,
        /// Destination register.
        dst: SReg => SDst,
        /// First source.
        a: Operand => Uniform,
        /// Second source.
        b: Operand => Uniform,
    }
    /// Scalar ALU: `dst = op(a)`, once per wave.
    SUnary s_unary [Scalar, Join] {
        /// The operation.
        op: UnOp => Op,
        /// Destination register.
        dst: SReg => SDst,
        /// Source.
        a: Operand => Uniform,
    }
    /// Scalar ALU: `dst = op(a, b, c)` (`a * b + c`), once per wave.
    STernary s_ternary [Scalar, Join] {
        /// The operation.
        op: TernOp => Op,
        /// Destination register.
        dst: SReg => SDst,
        /// Multiplicand.
        a: Operand => Uniform,
        /// Multiplier.
        b: Operand => Uniform,
        /// Addend.
        c: Operand => Uniform,
    }
    /// Scalar compare: every bit of `dst` is set to `a op b`.
    SCmp s_cmp [Scalar, Join] {
        /// The comparison.
        op: CmpOp => Op,
        /// How the operands are read.
        ty: CmpType => Op,
        /// Destination mask.
        dst: MReg => MDst,
        /// Left operand.
        a: Operand => Uniform,
        /// Right operand.
        b: Operand => Uniform,
    }
    /// A mask across the wave reduced to one scalar (see [`WaveOp`]): a ballot or
    /// a count of active lanes.
    SWave s_wave [Scalar, Wave] {
        /// The reduction.
        op: WaveOp => Op,
        /// Destination scalar register.
        dst: SReg => SDst,
        /// The mask read (with the exec mask).
        mask: MReg => Mask,
    }
    /// The number of active lanes, as a wave-uniform value.
    SActiveLanes s_active_lanes [Scalar, Wave] {
        /// Destination scalar register.
        dst: SReg => SDst,
    }
    /// Mask operation: `dst = op(a, b)` on all 64 bits.
    MaskBinary mask_binary [Mask, Join] {
        /// The operation.
        op: MaskOp => Op,
        /// Destination mask.
        dst: MReg => MDst,
        /// First source.
        a: MReg => Mask,
        /// Second source.
        b: MReg => Mask,
    }
    /// Mask complement: `dst = !a` on all 64 bits.
    MaskNot mask_not [Mask, Join] {
        /// Destination mask.
        dst: MReg => MDst,
        /// Source.
        a: MReg => Mask,
    }
    /// Global load into each active lane; sub-word types are extended to 32 bits.
    GlobalLoad global_load [Memory, Lane] {
        /// The access type (its size is the access width).
        ty: ElemType => Op,
        /// Destination register.
        dst: VReg => VDst,
        /// Where to read.
        src: GlobalRef => GlobalLoad,
    }
    /// Global store from each active lane; sub-word types keep the low bits.
    GlobalStore global_store [Memory, None] {
        /// The access type (its size is the access width).
        ty: ElemType => Op,
        /// Where to write; the buffer must be writable.
        dst: GlobalRef => GlobalStore,
        /// The value to store.
        src: Operand => Src,
    }
    /// Wide global load: `width` consecutive 32-bit elements from the operand's
    /// element on, into as many consecutive registers from `dst`.
    GlobalLoadWide global_load_wide [Memory, Lane] {
        /// Elements per lane.
        width: Width => Op,
        /// The first destination register.
        dst: VReg => VDstRun,
        /// Where to read.
        src: GlobalRef => GlobalLoad,
    }
    /// Wide global store: `width` consecutive registers from `src` to as many
    /// consecutive 32-bit elements.
    GlobalStoreWide global_store_wide [Memory, None] {
        /// Elements per lane.
        width: Width => Op,
        /// Where to write; the buffer must be writable.
        dst: GlobalRef => GlobalStore,
        /// The first register stored.
        src: VReg => VSrcRun,
    }
    /// Global atomic: each active lane updates its 32-bit word with `op` and
    /// `src`, in lane order; `dst`, if given, receives the value before the update.
    GlobalAtomic global_atomic [Memory, Lane] {
        /// The update.
        op: AtomicOp => Op,
        /// Receives the old value.
        dst: Option<VReg> => VDstOpt,
        /// The word; the buffer must be writable.
        mem: GlobalRef => GlobalAtomic,
        /// The operand of the update.
        src: Operand => Src,
    }
    /// Global compare-and-swap: each active lane, in lane order, writes `src` to
    /// its word if the word equals `cmp`; `dst`, if given, receives the old value.
    GlobalCmpSwap global_cmp_swap [Memory, Lane] {
        /// Receives the old value.
        dst: Option<VReg> => VDstOpt,
        /// The word; the buffer must be writable.
        mem: GlobalRef => GlobalAtomic,
        /// The value compared with the word.
        cmp: Operand => Src,
        /// The value written when they are equal.
        src: Operand => Src,
    }
    /// LDS load into each active lane; sub-word types are extended to 32 bits.
    LdsLoad lds_load [Memory, Lane] {
        /// The access type (its size is the access width).
        ty: ElemType => Op,
        /// Destination register.
        dst: VReg => VDst,
        /// Where to read.
        src: LdsRef => LdsLoad,
    }
    /// LDS store from each active lane; sub-word types keep the low bits.
    LdsStore lds_store [Memory, None] {
        /// The access type (its size is the access width).
        ty: ElemType => Op,
        /// Where to write.
        dst: LdsRef => LdsStore,
        /// The value to store.
        src: Operand => Src,
    }
    /// Wide LDS load: `width` consecutive 32-bit elements into as many
    /// consecutive registers from `dst`.
    LdsLoadWide lds_load_wide [Memory, Lane] {
        /// Elements per lane.
        width: Width => Op,
        /// The first destination register.
        dst: VReg => VDstRun,
        /// Where to read.
        src: LdsRef => LdsLoad,
    }
    /// Wide LDS store: `width` consecutive registers from `src` to as many
    /// consecutive 32-bit elements.
    LdsStoreWide lds_store_wide [Memory, None] {
        /// Elements per lane.
        width: Width => Op,
        /// Where to write.
        dst: LdsRef => LdsStore,
        /// The first register stored.
        src: VReg => VSrcRun,
    }
    /// LDS atomic: as [`Inst::GlobalAtomic`], on a word of an LDS array.
    LdsAtomic lds_atomic [Memory, Lane] {
        /// The update.
        op: AtomicOp => Op,
        /// Receives the old value.
        dst: Option<VReg> => VDstOpt,
        /// The word.
        mem: LdsRef => LdsAtomic,
        /// The operand of the update.
        src: Operand => Src,
    }
    /// LDS compare-and-swap: as [`Inst::GlobalCmpSwap`], on a word of an LDS array.
    LdsCmpSwap lds_cmp_swap [Memory, Lane] {
        /// Receives the old value.
        dst: Option<VReg> => VDstOpt,
        /// The word.
        mem: LdsRef => LdsAtomic,
        /// The value compared with the word.
        cmp: Operand => Src,
        /// The value written when they are equal.
        src: Operand => Src,
    }
    /// Global 64-bit atomic: each active lane updates its 64-bit element
    /// (8 bytes) with `op` and its pair `src`, in lane order; the pair `dst`
    /// receives the value before the update.
    GlobalAtomic64 global_atomic64 [Memory, Lane] {
        /// The update.
        op: Atomic64Op => Op,
        /// Receives the old value.
        dst: VReg => VDstRun,
        /// The element; the buffer must be writable.
        mem: GlobalRef => GlobalAtomic,
        /// The operand of the update.
        src: VReg => VSrcRun,
    }
    /// Global 64-bit compare-and-swap: each active lane, in lane order, writes
    /// its pair `src` to its 8 bytes if they equal its pair `cmp`; the pair
    /// `dst` receives the old value. The width is always `x2`.
    GlobalCmpSwap64 global_cmp_swap64 [Memory, Lane] {
        /// The run of each pair: 2.
        width: Width => Op,
        /// Receives the old value.
        dst: VReg => VDstRun,
        /// The element; the buffer must be writable.
        mem: GlobalRef => GlobalAtomic,
        /// The value compared with the element.
        cmp: VReg => VSrcRun,
        /// The value written when they are equal.
        src: VReg => VSrcRun,
    }
    /// LDS 64-bit atomic: as [`Inst::GlobalAtomic64`], on 8 bytes of an LDS
    /// array.
    LdsAtomic64 lds_atomic64 [Memory, Lane] {
        /// The update.
        op: Atomic64Op => Op,
        /// Receives the old value.
        dst: VReg => VDstRun,
        /// The element.
        mem: LdsRef => LdsAtomic,
        /// The operand of the update.
        src: VReg => VSrcRun,
    }
    /// LDS 64-bit compare-and-swap: as [`Inst::GlobalCmpSwap64`], on 8 bytes
    /// of an LDS array.
    LdsCmpSwap64 lds_cmp_swap64 [Memory, Lane] {
        /// The run of each pair: 2.
        width: Width => Op,
        /// Receives the old value.
        dst: VReg => VDstRun,
        /// The element.
        mem: LdsRef => LdsAtomic,
        /// The value compared with the element.
        cmp: VReg => VSrcRun,
        /// The value written when they are equal.
        src: VReg => VSrcRun,
    }
    /// Opens a conditional: pushes exec and narrows it to `exec & mask`. When no
    /// lane remains, the then-body is skipped and execution continues at `next`.
    If if_then [Control, None] {
        /// The condition.
        mask: MReg => Mask,
        /// The matching `Else`, or the matching `EndIf` when there is no `Else`.
        next: InstIdx => Target,
    }
    /// Switches to the lanes of the enclosing `If` whose mask bit was clear. When
    /// no lane remains, the else-body is skipped and execution continues at `end`.
    Else if_else [Control, None] {
        /// The matching `EndIf`.
        end: InstIdx => Target,
    }
    /// Closes a conditional: restores the exec saved by its `If`.
    EndIf end_if [Control, None]
    /// Opens a loop: pushes exec as the loop's entry mask.
    Loop loop_begin [Control, None] {
        /// The matching `EndLoop`.
        end: InstIdx => Target,
    }
    /// Closes a loop body. Lanes active in this iteration (or sent here by
    /// `Continue`) whose bit in `mask` is set run another iteration, from
    /// `start + 1`; when none remain, the entry mask is restored and execution
    /// continues after this instruction.
    EndLoop end_loop [Control, None] {
        /// The loop condition.
        mask: MReg => Mask,
        /// The matching `Loop`.
        start: InstIdx => Target,
    }
    /// Active lanes whose bit in `mask` is set leave the innermost loop; they are
    /// restored when the loop exits.
    Break loop_break [Control, None] {
        /// The lanes that leave.
        mask: MReg => Mask,
        /// The `EndLoop` of the innermost loop.
        end: InstIdx => Target,
    }
    /// Active lanes whose bit in `mask` is set skip the rest of this iteration of
    /// the innermost loop and rejoin at its `EndLoop`.
    Continue loop_continue [Control, None] {
        /// The lanes that skip ahead.
        mask: MReg => Mask,
        /// The `EndLoop` of the innermost loop.
        end: InstIdx => Target,
    }
    /// Workgroup barrier: the wave waits until every wave of its workgroup
    /// arrives. It must be reached with the wave's full launch mask.
    Barrier barrier [Control, None]
    /// Wave barrier: orders the memory accesses of the wave's active lanes
    /// before it against theirs after it (CUDA's `__syncwarp`). Lanes run in
    /// lockstep, so it does nothing but issue; the sanitizers with independent
    /// lanes (`simt_core::LaneOrder::Independent`) take
    /// it as the only order between lanes of one wave. It may run with a
    /// partial exec mask, ordering only the lanes active at it.
    WaveBarrier wave_barrier [Control, None]
    /// Prints a line per active lane: the format with its placeholders
    /// filled from the lane's values (see [`PrintFormat`]). It changes no
    /// register or memory and counts in no counter.
    Print print [Debug, None] {
        /// The format and how many of the values it reads.
        format: PrintFormat => Format,
        /// The first value (`Imm(0)` where the format reads fewer).
        a: Operand => Src,
        /// The second value.
        b: Operand => Src,
        /// The third value.
        c: Operand => Src,
        /// The fourth value.
        d: Operand => Src,
    }
    /// Ends the wave.
    End end [Control, None]
        }
    };
}

/// A `match` on an instruction that calls, for each kind, the method named
/// after it in the table (`v_binary` for [`Inst::VBinary`]) on a receiver,
/// with the instruction's fields in table order:
/// `simt_lang::for_each_inst!(inst_dispatch receiver instruction)`.
///
/// For a `const fn` caller, which a trait's methods cannot serve: the
/// receiver's inherent methods are called, and a missing one is a compile
/// error naming it. Other callers implement [`InstVisitor`].
#[macro_export]
macro_rules! inst_dispatch {
    ([$recv:ident $inst:expr] $(
        $(#[doc = $doc:literal])*
        $name:ident $snake:ident [$unit:ident, $result:ident] $({
            $( $(#[doc = $fdoc:literal])* $field:ident : $ty:ty => $role:ident ),* $(,)?
        })?
    )*) => {
        match $inst {$(
            $crate::isa::Inst::$name $({ $($field),* })? => $recv.$snake($($($field),*)?),
        )*}
    };
}

crate::for_each_inst!(define_instructions);

impl Inst {
    /// Whether the instruction runs on the vector units (ALU, compare, select,
    /// lane exchange, memory): the instructions counted by `vector_instructions`.
    pub const fn is_vector(&self) -> bool {
        matches!(self.opcode().unit(), Unit::Vector | Unit::Memory)
    }

    /// The jump target a control-flow instruction stores.
    pub fn target(&self) -> Option<InstIdx> {
        self.fields().as_slice().iter().find_map(|f| match *f {
            Field::Target(t) => Some(t),
            _ => None,
        })
    }

    /// The instruction with its jump target (if it has one) set to `target`.
    pub fn with_target(&self, target: InstIdx) -> Inst {
        let mut fields = self.fields();
        for f in fields.as_mut_slice() {
            if let Field::Target(t) = f {
                *t = target;
            }
        }
        Inst::from_fields(self.opcode(), fields.as_slice()).unwrap_or(*self)
    }
}

impl InstIdx {
    /// The placeholder target of a control-flow instruction before linking.
    pub const UNLINKED: InstIdx = InstIdx(u32::MAX);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_round_trips_through_its_fields() {
        for &op in Opcode::ALL {
            assert!(op.fields().len() <= Fields::MAX, "{}", op.name());
            let fields: Vec<Field> = op
                .fields()
                .iter()
                .map(|&(_, role)| Field::placeholder(role))
                .collect();
            // `Op` placeholders are typed per instruction: try each operation kind.
            let inst = candidates(op, &fields).next();
            let Some(inst) = inst else {
                panic!("{} cannot be built from placeholders", op.name());
            };
            assert_eq!(inst.opcode(), op);
            assert_eq!(Inst::from_fields(op, inst.fields().as_slice()), Some(inst));
            let roles: Vec<Role> = inst.fields().as_slice().iter().map(Field::role).collect();
            let table: Vec<Role> = op.fields().iter().map(|&(_, r)| r).collect();
            assert_eq!(roles, table, "{}", op.name());
        }
    }

    /// Instructions of kind `op` whose `Op` fields take every combination of a
    /// few values.
    fn candidates<'a>(op: Opcode, fields: &'a [Field]) -> impl Iterator<Item = Inst> + 'a {
        use super::super::field::Op as O;
        let ops = [
            O::Bin(BinOp::AddU32),
            O::Un(UnOp::Mov),
            O::Tern(TernOp::MadU32),
            O::Cmp(CmpOp::Eq),
            O::CmpType(CmpType::U32),
            O::Mask(MaskOp::And),
            O::Atomic(AtomicOp::AddU32),
            O::Atomic64(Atomic64Op::AddU64),
            O::Shuffle(ShuffleOp::Xor),
            O::Wave(WaveOp::Count),
            O::Width(Width::X2),
            O::Access(ElemType::U32),
            O::Bin64(Bin64Op::AddU64),
            O::Un64(Un64Op::Mov),
            O::Tern64(Tern64Op::FmaF64),
            O::Cmp64Type(Cmp64Type::U64),
            O::Widen(WidenOp::CvtF64F32),
            O::Narrow(NarrowOp::CvtF32F64),
        ];
        let slots: Vec<usize> = fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.role() == Role::Op)
            .map(|(i, _)| i)
            .collect();
        let combos = ops.len().pow(slots.len() as u32);
        (0..combos).filter_map(move |mut k| {
            let mut f = fields.to_vec();
            for &s in &slots {
                f[s] = Field::Op(ops[k % ops.len()]);
                k /= ops.len();
            }
            Inst::from_fields(op, &f)
        })
    }
}
