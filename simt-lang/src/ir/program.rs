//! A whole kernel: instructions, source locations, parameters and LDS.

use super::operand::{ElemType, Reg, ScalarType};
use crate::isa::Inst;
use serde::Serialize;
use std::borrow::Cow;

/// Where an instruction was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct SourceLoc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// What a kernel parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ParamKind {
    /// A global buffer of elements: `&[T]` (read-only) or `&mut [T]` (writable).
    Buffer {
        /// The element type.
        elem: ElemType,
        /// Whether stores are allowed.
        writable: bool,
    },
    /// A scalar, the same for the whole launch.
    Scalar(ScalarType),
}

impl ParamKind {
    /// The Rust type a launch passes for it (`&[f32]`, `&mut [u32]`, `u32`, ...).
    pub fn rust_type(self) -> String {
        match self {
            ParamKind::Buffer {
                elem,
                writable: false,
            } => format!("&[{}]", elem.name()),
            ParamKind::Buffer {
                elem,
                writable: true,
            } => format!("&mut [{}]", elem.name()),
            ParamKind::Scalar(t) => t.name().to_owned(),
        }
    }

    /// The bytes an element index of a buffer counts (4 for a scalar, which
    /// no access names: validation refuses it).
    pub const fn elem_size(self) -> u32 {
        match self {
            ParamKind::Buffer { elem, .. } => elem.size(),
            ParamKind::Scalar(_) => 4,
        }
    }
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Param {
    /// The name written in the kernel's signature.
    pub name: Cow<'static, str>,
    /// What it is.
    pub kind: ParamKind,
}

/// An LDS array, shared by the waves of a workgroup.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct LdsDecl {
    /// The declared name.
    pub name: Cow<'static, str>,
    /// The element type.
    pub elem: ElemType,
    /// The number of elements.
    pub len: u32,
    /// The byte offset of element 0 within the workgroup's LDS; 4-byte aligned.
    pub offset: u32,
}

impl LdsDecl {
    /// The array's size in bytes.
    pub const fn bytes(&self) -> u32 {
        self.len.saturating_mul(self.elem.size())
    }
}

/// The name a kernel gave a register.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct RegName {
    /// The register.
    pub reg: Reg,
    /// Its declared name.
    pub name: Cow<'static, str>,
}

/// A kernel: the unit the interpreter runs and the validator checks.
///
/// Every field is plain data that can be built in a `static` (the `simt_kernel!`
/// macro does so) or at run time (see [`ProgramBuilder`](crate::ProgramBuilder)).
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The kernel's name, used in errors and reports.
    pub name: Cow<'static, str>,
    /// The source file the kernel was written in (empty when built at run time).
    pub file: Cow<'static, str>,
    /// The parameters, in signature order.
    pub params: Cow<'static, [Param]>,
    /// The LDS arrays.
    pub lds: Cow<'static, [LdsDecl]>,
    /// The instructions, linked; the last one is [`Inst::End`].
    pub insts: Cow<'static, [Inst]>,
    /// The source location of each instruction (same length as `insts`).
    pub locs: Cow<'static, [SourceLoc]>,
    /// Number of vector registers used (`v0..vregs`).
    pub vregs: u16,
    /// Number of scalar registers used (`s0..sregs`).
    pub sregs: u16,
    /// Number of mask registers used (`m0..mregs`).
    pub mregs: u16,
    /// Bytes of LDS per workgroup (the end of the last LDS array).
    pub lds_bytes: u32,
    /// The names the kernel gave its registers (for messages and the
    /// disassembler), in register order when built from source.
    pub reg_names: Cow<'static, [RegName]>,
    /// The workgroup shape the kernel declared (`#[workgroup_size(x, y, z)]`):
    /// its facts are decided under it and a launch of another shape is refused.
    pub workgroup_size: Option<[u32; 3]>,
    /// What the kernel's `#[race_free]` states, when it states one: the build
    /// proved every pair of its accesses free, some under assumptions about
    /// the launch (a one-dimensional grid, lanes in lockstep for
    /// `#[race_free(lockstep)]`), and a launch that breaks them is refused.
    pub race_free: Option<RaceFree>,
    /// The format strings of the kernel's `print` instructions, which name
    /// them by index ([`PrintFormat`](crate::PrintFormat)).
    pub formats: Cow<'static, [Cow<'static, str>]>,
    /// Words of private (scratch) memory per work-item; 0 when the kernel has
    /// none. The scratch is the last parameter, a `&mut [u32]` the launch
    /// allocates and zeroes itself (the host passes [`Program::host_params`]
    /// only), of `scratch_words` words for every lane of every wave, partial
    /// waves whole. How work-items share it out is the kernel's code: the
    /// PTX front end interleaves it in runs of 32 work-items, as a GPU
    /// interleaves its local memory.
    pub scratch_words: u32,
}

/// What a kernel's `#[race_free]` claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum RaceFree {
    /// `#[race_free]`: free whatever the order of the lanes of a wave.
    AnyLaneOrder,
    /// `#[race_free(lockstep)]`: free when the lanes of a wave run in
    /// lockstep, as on AMD hardware; a launch with independent lanes is
    /// refused.
    Lockstep,
}

impl Program {
    /// The parameters the host passes: every one but the scratch buffer,
    /// which the launch allocates ([`Program::scratch_words`]).
    pub fn host_params(&self) -> &[Param] {
        let n = self.params.len() - usize::from(self.scratch_words > 0 && !self.params.is_empty());
        &self.params[..n]
    }

    /// The source location of instruction `inst`, or the default when out of range.
    pub fn loc(&self, inst: usize) -> SourceLoc {
        self.locs.get(inst).copied().unwrap_or_default()
    }
}
