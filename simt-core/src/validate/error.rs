//! Validation errors, located by instruction index so the macro can map them to spans.

use crate::ir::Uniformity;
use std::fmt;
use thiserror::Error;

/// A related instruction an error points at (the unclosed `if`, a mask's definition).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The related instruction.
    pub inst: u32,
    /// What it is to the error.
    pub message: String,
}

/// One problem found in a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// The offending instruction; `None` for problems of the program as a whole.
    pub inst: Option<u32>,
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
            kind,
            notes: Vec::new(),
        }
    }

    /// An error of the whole program.
    pub fn program(kind: ValidationErrorKind) -> Self {
        ValidationError {
            inst: None,
            kind,
            notes: Vec::new(),
        }
    }

    /// Adds a note at instruction `inst`.
    pub fn note(mut self, inst: usize, message: impl Into<String>) -> Self {
        self.notes.push(Note {
            inst: inst as u32,
            message: message.into(),
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
            write!(f, " (instruction {}: {})", n.inst, n.message)?;
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
    /// A declared register count over the machine's limit.
    #[error("{count} {class} registers exceed the machine's limit of {limit}")]
    TooManyRegisters {
        /// `v`, `s` or `m`.
        class: char,
        /// The declared count.
        count: u16,
        /// The limit.
        limit: u16,
    },
    /// More parameters than the machine allows.
    #[error("{count} parameters exceed the limit of {limit}")]
    TooManyParams {
        /// The number of parameters.
        count: usize,
        /// The limit.
        limit: u16,
    },
    /// LDS over the machine's size, or `lds_bytes` not matching the declarations.
    #[error("LDS of {bytes} bytes exceeds the machine's {limit} bytes")]
    LdsTooLarge {
        /// Bytes declared.
        bytes: u64,
        /// The limit.
        limit: u32,
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
    #[error("store to read-only buffer `{name}` (declare it `&mut [T]`)")]
    StoreToReadOnly {
        /// The buffer's name.
        name: String,
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
    /// A scalar instruction reading a value that may differ between lanes.
    #[error("scalar instruction reads a per-lane value")]
    ScalarReadsVector,
    /// A barrier under control flow that may differ between the waves of a workgroup.
    #[error("barrier under {} control flow: every wave of the workgroup must reach it",
        if *.level == Uniformity::Lane { "divergent" } else { "wave-dependent" })]
    BarrierUnderDivergentControl {
        /// How uniform the enclosing control flow is (never `Workgroup`).
        level: Uniformity,
    },
}
