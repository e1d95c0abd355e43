//! Registers, special values and source operands.

use serde::Serialize;

/// A vector register: one 32-bit value per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct VReg(pub u16);

/// A scalar register: one 32-bit value per wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SReg(pub u16);

/// A mask register: one bit per lane (bit `l` belongs to lane `l`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct MReg(pub u16);

/// A register of any class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Reg {
    /// A vector register.
    V(VReg),
    /// A scalar register.
    S(SReg),
    /// A mask register.
    M(MReg),
}

/// Index of a kernel parameter in [`Program::params`](crate::Program::params).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ParamIdx(pub u16);

/// Index of an LDS declaration in [`Program::lds`](crate::Program::lds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct LdsIdx(pub u16);

/// Index of an instruction in [`Program::insts`](crate::Program::insts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct InstIdx(pub u32);

impl InstIdx {
    /// The index as a `usize`, for slicing.
    pub const fn get(self) -> usize {
        self.0 as usize
    }
}

/// A dimension of a 3-D id or size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Axis {
    /// The fastest-varying dimension.
    X,
    /// The middle dimension.
    Y,
    /// The slowest-varying dimension.
    Z,
}

impl Axis {
    /// The axis as an index into a `[u32; 3]`.
    pub const fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }
}

/// A read-only value the machine provides; kernels cannot write these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Special {
    /// The lane's index within its wave, `0..width`. Per lane.
    LaneId,
    /// The work-item's id within its workgroup along an axis. Per lane.
    LocalId(Axis),
    /// The work-item's id within the grid along an axis
    /// (`group_id * group_size + local_id`). Per lane.
    GlobalId(Axis),
    /// The workgroup's id within the grid along an axis. Workgroup-uniform.
    GroupId(Axis),
    /// The workgroup size along an axis. Workgroup-uniform.
    GroupSize(Axis),
    /// The number of workgroups in the grid along an axis. Workgroup-uniform.
    NumGroups(Axis),
    /// The wave's index within its workgroup. Wave-uniform.
    WaveId,
    /// The wave width of the launch, 32 or 64. Workgroup-uniform.
    WaveWidth,
}

/// How far a value is guaranteed to be the same across lanes.
///
/// Ordered from most to least uniform, so `max` joins two levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Uniformity {
    /// The same for every lane of every wave of a workgroup.
    Workgroup,
    /// The same for every lane of a wave, but waves may differ.
    Wave,
    /// May differ between lanes of one wave.
    Lane,
}

impl Special {
    /// How uniform this value is.
    pub const fn uniformity(self) -> Uniformity {
        match self {
            Special::LaneId | Special::LocalId(_) | Special::GlobalId(_) => Uniformity::Lane,
            Special::WaveId => Uniformity::Wave,
            Special::GroupId(_)
            | Special::GroupSize(_)
            | Special::NumGroups(_)
            | Special::WaveWidth => Uniformity::Workgroup,
        }
    }
}

/// A source operand of an ALU, compare, select or memory-index position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Operand {
    /// A vector register.
    V(VReg),
    /// A scalar register, broadcast to every lane.
    S(SReg),
    /// A scalar kernel parameter (`u32`, `i32` or `f32`), broadcast to every lane.
    Arg(ParamIdx),
    /// An immediate, as raw 32 bits (an `f32` immediate is stored as its bits).
    Imm(u32),
    /// A value the machine provides.
    Special(Special),
}

/// Which memory an access is in: the one spelling of the two spaces, for
/// findings, facts, faults and the timing model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Space {
    /// The workgroup's LDS.
    Lds,
    /// A global buffer.
    Global,
}

/// Whether a memory operand's index counts elements or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Addressing {
    /// `x[i]`: the byte offset is `i * size_of(element)`; always aligned.
    Element,
    /// `x.bytes[i]`: the byte offset is `i`; it must be aligned to the access
    /// size, except that the wide `_x2` and `_x4` forms need only 4 bytes.
    Byte,
}

/// The type of a value moved by a load or store, and of buffer and LDS elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ElemType {
    /// Unsigned byte; loads zero-extend, stores keep the low 8 bits.
    U8,
    /// Signed byte; loads sign-extend, stores keep the low 8 bits.
    I8,
    /// Unsigned 16-bit; loads zero-extend, stores keep the low 16 bits.
    U16,
    /// Signed 16-bit; loads sign-extend, stores keep the low 16 bits.
    I16,
    /// Unsigned 32-bit.
    U32,
    /// Signed 32-bit.
    I32,
    /// IEEE-754 single precision.
    F32,
    /// IEEE-754 half precision (`half::f16`); loads put its bits in the low
    /// 16 bits of the register (the upper ones zero), stores keep the low 16
    /// bits.
    F16,
    /// bfloat16 (`half::bf16`), the top half of an `f32`; moved as `F16` is.
    BF16,
    /// Unsigned 64-bit: an element of two 32-bit words (the low one first),
    /// moved by the wide `_x2` and `_x4` accesses into register pairs.
    U64,
    /// Signed 64-bit; moved as `U64` is.
    I64,
    /// IEEE-754 double precision; moved as `U64` is.
    F64,
}

impl ElemType {
    /// Size in bytes.
    pub const fn size(self) -> u32 {
        match self {
            ElemType::U8 | ElemType::I8 => 1,
            ElemType::U16 | ElemType::I16 | ElemType::F16 | ElemType::BF16 => 2,
            ElemType::U32 | ElemType::I32 | ElemType::F32 => 4,
            ElemType::U64 | ElemType::I64 | ElemType::F64 => 8,
        }
    }

    /// The Rust spelling (`u8`, `f32`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            ElemType::U8 => "u8",
            ElemType::I8 => "i8",
            ElemType::U16 => "u16",
            ElemType::I16 => "i16",
            ElemType::U32 => "u32",
            ElemType::I32 => "i32",
            ElemType::F32 => "f32",
            ElemType::F16 => "f16",
            ElemType::BF16 => "bf16",
            ElemType::U64 => "u64",
            ElemType::I64 => "i64",
            ElemType::F64 => "f64",
        }
    }

    /// Whether an element is two 32-bit words (`u64`, `i64`, `f64`): only
    /// the wide accesses move it.
    pub const fn is_pair(self) -> bool {
        self.size() == 8
    }
}

/// The type of a scalar kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ScalarType {
    /// `u32`.
    U32,
    /// `i32`.
    I32,
    /// `f32`, passed as its bits.
    F32,
}

impl ScalarType {
    /// The Rust spelling (`u32`, `i32` or `f32`).
    pub const fn name(self) -> &'static str {
        match self {
            ScalarType::U32 => "u32",
            ScalarType::I32 => "i32",
            ScalarType::F32 => "f32",
        }
    }
}

/// A global-memory operand: a buffer parameter and an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct GlobalRef {
    /// The buffer parameter.
    pub buffer: ParamIdx,
    /// The index, in elements or bytes as `addressing` says.
    pub index: Operand,
    /// A wave-uniform offset added to `index` (`x[i + 4]`), in the same unit;
    /// `Imm(0)` when none is written.
    pub offset: Operand,
    /// How `index` and `offset` are scaled.
    pub addressing: Addressing,
}

/// An LDS operand: a declared LDS array and an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct LdsRef {
    /// The LDS array.
    pub lds: LdsIdx,
    /// The index, in elements or bytes as `addressing` says.
    pub index: Operand,
    /// A wave-uniform offset added to `index` (`x[i + 4]`), in the same unit;
    /// `Imm(0)` when none is written.
    pub offset: Operand,
    /// How `index` and `offset` are scaled.
    pub addressing: Addressing,
}

impl GlobalRef {
    /// `buffer[index]`: element addressing, no offset.
    pub const fn element(buffer: ParamIdx, index: Operand) -> Self {
        GlobalRef {
            buffer,
            index,
            offset: Operand::Imm(0),
            addressing: Addressing::Element,
        }
    }
}

impl LdsRef {
    /// `lds[index]`: element addressing, no offset.
    pub const fn element(lds: LdsIdx, index: Operand) -> Self {
        LdsRef {
            lds,
            index,
            offset: Operand::Imm(0),
            addressing: Addressing::Element,
        }
    }
}
