//! Validation errors, located by instruction index so the macro can map them to spans.

use crate::ir::{LdsIdx, MReg, Reg, Uniformity};
use std::fmt;
use thiserror::Error;

/// A related instruction an error points at (the unclosed `if`, a mask's definition).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The related instruction.
    pub inst: u32,
    /// What it is to the error.
    pub kind: NoteKind,
}

/// What a related instruction is to an error. Registers are values, so that the
/// macro can name them as the kernel does ([`NoteKind::render`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoteKind {
    /// The first `else` of an `if` that has two.
    FirstElse,
    /// The innermost open construct, which a closer does not match.
    InnermostOpen {
        /// `if` or `loop`.
        opener: &'static str,
    },
    /// A use of a register past the machine's limit.
    RegisterUsed {
        /// The register.
        reg: Reg,
    },
    /// An `if` whose condition is not workgroup-uniform.
    NonUniformIf {
        /// How uniform the condition is.
        level: Uniformity,
    },
    /// A loop whose exit is not workgroup-uniform.
    NonUniformLoop {
        /// How uniform its exits are.
        level: Uniformity,
    },
    /// The `endloop` whose condition makes a loop non-uniform.
    LoopCondition {
        /// The condition.
        mask: MReg,
    },
    /// The `break` whose mask makes a loop non-uniform.
    LeavesLoop {
        /// The mask.
        mask: MReg,
    },
    /// The `continue` whose mask makes a loop non-uniform.
    SkipsIteration {
        /// The mask.
        mask: MReg,
    },
    /// Where a non-uniform mask gets its value.
    MaskValue {
        /// The mask.
        mask: MReg,
        /// How uniform the value is.
        level: Uniformity,
    },
}

impl NoteKind {
    /// The note's text, with registers named by `name` (`m3` by default).
    pub fn render(&self, name: &dyn Fn(Reg) -> String) -> String {
        let mask = |m: MReg| name(Reg::M(m));
        let values = |level: Uniformity| match level {
            Uniformity::Lane => "per-lane",
            _ => "wave-dependent",
        };
        match *self {
            NoteKind::FirstElse => "first `else` here".to_owned(),
            NoteKind::InnermostOpen { opener } => format!("innermost open `{opener}` is here"),
            NoteKind::RegisterUsed { reg } => format!("`{}` used here", name(reg)),
            NoteKind::NonUniformIf { level } => {
                let adjective = match level {
                    Uniformity::Lane => "divergent",
                    _ => "wave-dependent",
                };
                format!("{adjective} `if` here")
            }
            NoteKind::NonUniformLoop { level } => {
                format!("loop exit depends on {} values", values(level))
            }
            NoteKind::LoopCondition { mask: m } => format!("loop condition `{}` here", mask(m)),
            NoteKind::LeavesLoop { mask: m } => {
                format!("lanes in `{}` leave the loop here", mask(m))
            }
            NoteKind::SkipsIteration { mask: m } => {
                format!("lanes in `{}` skip to the next iteration here", mask(m))
            }
            NoteKind::MaskValue { mask: m, level } => {
                format!("`{}` gets a {} value here", mask(m), values(level))
            }
        }
    }
}

impl fmt::Display for NoteKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&|r| {
            let (class, n) = r.parts();
            format!("{class}{n}")
        }))
    }
}

/// Which part of a field's operand an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// The whole operand.
    Whole,
    /// A memory operand's buffer or LDS array.
    Base,
    /// A memory operand's index.
    Index,
    /// A memory operand's added offset.
    Offset,
}

/// The operand an error is about: a field of the instruction's row of the
/// instruction table (its index in [`Fields`](crate::isa::Fields)), and
/// which part of it. A front end maps it to where that operand is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OperandAt {
    /// The field's index in the instruction's fields.
    pub field: u8,
    /// The part of the field's operand.
    pub part: Part,
}

/// One problem found in a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// The offending instruction; `None` for problems of the program as a whole.
    pub inst: Option<u32>,
    /// The operand of `inst` at fault, when the problem is one operand's.
    pub operand: Option<OperandAt>,
    /// What is wrong.
    pub kind: ValidationErrorKind,
    /// Related instructions.
    pub notes: Vec<Note>,
}

impl ValidationError {
    /// An error at instruction `inst` without notes.
    pub fn at(inst: usize, kind: ValidationErrorKind) -> Self {
        ValidationError {
            inst: Some(inst as u32),
            operand: None,
            kind,
            notes: Vec::new(),
        }
    }

    /// An error of the whole program.
    pub fn program(kind: ValidationErrorKind) -> Self {
        ValidationError {
            inst: None,
            operand: None,
            kind,
            notes: Vec::new(),
        }
    }

    /// Locates the error at `part` of the instruction's field `field`.
    pub fn operand(mut self, field: usize, part: Part) -> Self {
        self.operand = u8::try_from(field)
            .ok()
            .map(|field| OperandAt { field, part });
        self
    }

    /// Adds a note at instruction `inst`.
    pub fn note(mut self, inst: usize, kind: NoteKind) -> Self {
        self.notes.push(Note {
            inst: inst as u32,
            kind,
        });
        self
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inst {
            Some(i) => write!(f, "instruction {i}: {}", self.kind)?,
            None => write!(f, "{}", self.kind)?,
        }
        for n in &self.notes {
            write!(f, " (instruction {}: {})", n.inst, n.kind)?;
        }
        Ok(())
    }
}

/// Every problem found in a program, in instruction order.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct ValidationErrors {
    /// The kernel's name.
    pub kernel: String,
    /// The problems; never empty.
    pub errors: Vec<ValidationError>,
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}` is invalid:", self.kernel)?;
        for e in &self.errors {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

/// What is wrong with a program.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ValidationErrorKind {
    /// A `print` whose format is not one of the program's, or reads another
    /// number of values than the instruction says.
    #[error("`print` format {index}: {reason}")]
    BadFormat {
        /// The format's index.
        index: u16,
        /// What is wrong.
        reason: String,
    },
    /// An `if` without its `endif`.
    #[error("unclosed `if`: no matching `endif`")]
    UnclosedIf,
    /// A `loop` without its `endloop`.
    #[error("unclosed `loop`: no matching `endloop`")]
    UnclosedLoop,
    /// An `else` with no open `if`.
    #[error("`else` without an `if`")]
    ElseWithoutIf,
    /// An `endif` with no open `if`.
    #[error("`endif` without an `if`")]
    EndIfWithoutIf,
    /// An `endloop` with no open `loop`.
    #[error("`endloop` without a `loop`")]
    EndLoopWithoutLoop,
    /// A closer that does not match the innermost open construct.
    #[error("`{closer}` closes a `{opener}`: constructs must nest")]
    CrossedNesting {
        /// The innermost open construct (`if` or `loop`).
        opener: &'static str,
        /// The mismatched closer (`else`, `endif` or `endloop`).
        closer: &'static str,
    },
    /// A second `else` in one `if`.
    #[error("second `else` in one `if`")]
    SecondElse,
    /// A `break` with no enclosing loop.
    #[error("`break` outside a loop")]
    BreakOutsideLoop,
    /// A `continue` with no enclosing loop.
    #[error("`continue` outside a loop")]
    ContinueOutsideLoop,
    /// `if`/`loop` nesting deeper than the machine's limit.
    #[error("nesting deeper than {limit} constructs")]
    NestingTooDeep {
        /// The limit.
        limit: u32,
    },
    /// `end` somewhere other than the last instruction, or missing there.
    #[error("`end` must be the last instruction, and only there")]
    MisplacedEnd,
    /// A control-flow instruction whose jump target is not the one its nesting gives.
    #[error("jump target {found} should be {expected}")]
    WrongTarget {
        /// The target nesting gives.
        expected: u32,
        /// The target stored.
        found: u32,
    },
    /// `locs` and `insts` differ in length.
    #[error("{locs} source locations for {insts} instructions")]
    LocsLength {
        /// Number of locations.
        locs: usize,
        /// Number of instructions.
        insts: usize,
    },
    /// A register at or above the program's declared count.
    #[error(
        "register {class}{index} is out of range: the program declares {count} {class} registers"
    )]
    RegisterOutOfRange {
        /// `v`, `s` or `m`.
        class: char,
        /// The register number.
        index: u16,
        /// The declared count.
        count: u16,
    },
    /// A register numbered at or past the machine's limit for its class:
    /// at each instruction using it, or, for a named register, once for the
    /// whole program.
    #[error(
        "register {}{} is out of range: the machine has {limit} {} registers",
        .reg.parts().0,
        .reg.parts().1,
        .reg.parts().0
    )]
    RegisterPastLimit {
        /// The register.
        reg: Reg,
        /// The machine's number of registers of its class.
        limit: u16,
    },
    /// A declared register count over the machine's limit, with no register
    /// past the limit named or used (a count set by hand).
    #[error("{count} {class} registers exceed the machine's limit of {limit}")]
    TooManyRegisters {
        /// `v`, `s` or `m`.
        class: char,
        /// The declared count.
        count: u16,
        /// The limit.
        limit: u16,
    },
    /// A 64-bit compare-and-swap whose pairs are not pairs.
    #[error("a 64-bit compare-and-swap moves pairs of registers (`x2`), not runs of {width}")]
    CmpSwapWidth {
        /// The run the instruction names.
        width: u16,
    },
    /// Scratch memory declared without its buffer as the last parameter.
    #[error("the kernel declares scratch memory, but its last parameter is not the `&mut [u32]` that holds it")]
    ScratchParam,
    /// More parameters than the machine allows.
    #[error("too many parameters: the machine takes at most {limit}, and this kernel has {count}")]
    TooManyParams {
        /// The number of parameters.
        count: usize,
        /// The limit.
        limit: u16,
    },
    /// LDS over the machine's size: an array ending past it, or a declared
    /// `lds_bytes` over it.
    #[error("LDS of {bytes} bytes exceeds the machine's {limit} bytes")]
    LdsTooLarge {
        /// The bytes needed: up to the end of `array`, or `lds_bytes`.
        bytes: u64,
        /// The limit.
        limit: u32,
        /// The first array, in declaration order, ending past the limit.
        array: Option<LdsIdx>,
    },
    /// LDS declarations that overlap, are misaligned, or disagree with `lds_bytes`.
    #[error("LDS array `{name}`: {reason}")]
    LdsLayout {
        /// The array's name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// An operand naming a parameter that does not exist.
    #[error("parameter {index} does not exist")]
    NoSuchParam {
        /// The index.
        index: u16,
    },
    /// An operand naming an LDS array that does not exist.
    #[error("LDS array {index} does not exist")]
    NoSuchLds {
        /// The index.
        index: u16,
    },
    /// A buffer parameter used as a value, or a scalar parameter used as a buffer.
    #[error("parameter `{name}` is {is}, not {expected}")]
    ParamKind {
        /// The parameter's name.
        name: String,
        /// What it is (`a buffer`, `a scalar`).
        is: &'static str,
        /// What the position needs.
        expected: &'static str,
    },
    /// A store to a read-only buffer.
    #[error("store to read-only buffer `{name}` (declare it `&mut [{elem}]`)")]
    StoreToReadOnly {
        /// The buffer's name.
        name: String,
        /// Its element type.
        elem: &'static str,
    },
    /// An element-addressed access whose type differs from the element type.
    #[error("{access} of `{name}` moves {ty} but its elements are {elem}")]
    AccessType {
        /// `load` or `store`.
        access: &'static str,
        /// The buffer or array's name.
        name: String,
        /// The access type.
        ty: &'static str,
        /// The element type.
        elem: &'static str,
    },
    /// A one-register access of a 64-bit type, which is two words.
    #[error("{access} of `{name}` moves one {ty}, which is two words: use the `_x2` form, into or from a register pair")]
    PairAccess {
        /// `load` or `store`.
        access: &'static str,
        /// The buffer or array's name.
        name: String,
        /// The access type.
        ty: &'static str,
    },
    /// An operand that must be wave-uniform (a lane index, a memory offset) that
    /// may differ between lanes.
    #[error("{what} must be wave-uniform: use a scalar register, a kernel scalar or an immediate")]
    NonUniformOperand {
        /// What the operand is.
        what: &'static str,
    },
    /// A constant index outside an LDS array, whose size is known.
    #[error("index {index}{} is outside `{name}`, which has {len} {}",
        if *.count > 1 { format!(" (and the {} elements from it)", .count) } else { String::new() },
        if *.bytes { "bytes" } else { "elements" })]
    ConstantIndexOutOfBounds {
        /// The array's name.
        name: String,
        /// The index (with its offset), in elements or bytes.
        index: i64,
        /// The array's length in the same unit.
        len: u64,
        /// Whether the index counts bytes.
        bytes: bool,
        /// Elements accessed per lane (wide accesses move several).
        count: u32,
    },
    /// A scalar instruction reading a value that may differ between lanes.
    #[error("a scalar instruction cannot read a per-lane value")]
    ScalarReadsVector,
    /// A barrier under control flow that may differ between the waves of a workgroup.
    #[error("barrier under {} control flow: every wave of the workgroup must reach it",
        if *.level == Uniformity::Lane { "divergent" } else { "wave-dependent" })]
    BarrierUnderDivergentControl {
        /// How uniform the enclosing control flow is (never `Workgroup`).
        level: Uniformity,
    },
}
