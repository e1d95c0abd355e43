//! The checker: a kernel's syntax tree to a validated program, or
//! diagnostics. One file per stage, all methods of one [`Checker`]:
//! `resolve` declares and resolves names, `operands` checks each operand
//! against its mnemonic's row of the instruction table, `literal` evaluates
//! number literals and constant expressions, and `lower` builds the program
//! through [`ProgramBuilder`](simt_lang::ProgramBuilder) and renders the
//! validator's errors at the operands they are about. Rules the validator
//! enforces (wave-uniform operands, read-only buffers, access types,
//! parameter kinds, the parameter count, the register and LDS limits) are
//! not repeated here: lowering leaves them to it, and places its errors at
//! the operand or declaration they name.

use crate::ast::{Kernel, Operand, ParamType};
use crate::diagnostic::{Diagnostic, Kind, Location};
use proc_macro2::Span;
use simt_lang::{ElemType, Kernel as ValidKernel, LdsIdx, ParamIdx, ProgramBuilder, Reg, Special};
use std::collections::HashMap;
use syn::ext::IdentExt;

/// The special values, by the name written without an axis.
pub(crate) const SPECIALS: &[&str] = &[
    "lane_id",
    "local_id",
    "global_id",
    "group_id",
    "group_size",
    "num_groups",
    "wave_id",
    "wave_width",
];

/// The name of the generated `launch` function's first parameter.
pub(super) const CONFIG: &str = "config";

/// Checks `kernel` and lowers it to a linked, validated program, or returns
/// every error found.
pub fn check(kernel: &Kernel) -> Result<ValidKernel, Vec<Diagnostic>> {
    let mut cx = Checker {
        kernel,
        errors: Vec::new(),
        names: HashMap::new(),
        builder: ProgramBuilder::new(&kernel.name.unraw().to_string()),
        lds: Vec::new(),
        reg_names: HashMap::new(),
    };
    if let Some((shape, _)) = kernel.workgroup_size {
        cx.builder.workgroup_size(shape);
    }
    if let Some((_, claim)) = kernel.race_free {
        cx.builder.race_free(claim);
    }
    cx.check_name();
    cx.declare_params();
    cx.declare_body();
    let declared = cx.errors.is_empty();
    let program = cx.lower(declared);
    if cx.errors.is_empty() {
        if let Some(program) = program {
            return Ok(program);
        }
    }
    // In source order: the validator's errors come after the checker's.
    cx.errors.sort_by_key(|d| {
        let start = d.at.first.start();
        (start.line, start.column)
    });
    Err(cx.errors)
}

/// What a name stands for.
#[derive(Clone, Copy, Debug)]
pub(super) enum Entity {
    Reg(Reg),
    Param(ParamIdx, ParamType),
    Lds(LdsIdx, ElemType),
}

/// A declared name and where it was declared.
pub(super) struct Named {
    pub(super) entity: Entity,
    pub(super) span: Span,
}

/// An LDS array's length as written (before the builder saturates it to
/// `u32`), and where.
pub(super) struct LdsLength {
    pub(super) span: Span,
    pub(super) len: u64,
}

/// What an operand written as a name or `base.axis` resolves to.
#[derive(Clone, Copy, Debug)]
pub(super) enum Thing {
    Entity(Entity),
    Special(Special),
}

/// The checker's state, shared by its stages.
pub(super) struct Checker<'a> {
    pub(super) kernel: &'a Kernel,
    pub(super) errors: Vec<Diagnostic>,
    /// The kernel's one namespace.
    pub(super) names: HashMap<String, Named>,
    /// The program: declarations as they are checked, then the instructions.
    pub(super) builder: ProgramBuilder,
    /// The LDS arrays declared so far, by index: each one's length as
    /// written, to word the validator's size error.
    pub(super) lds: Vec<LdsLength>,
    /// The declared name of each named register, to word the validator's notes.
    pub(super) reg_names: HashMap<Reg, String>,
}

impl Checker<'_> {
    /// An error at one token.
    pub(super) fn error(&mut self, kind: Kind, span: Span, message: impl Into<String>) {
        self.push(Diagnostic::new(kind, Location::token(span), message));
    }

    /// An error underlining the whole operand, from its first token to its last.
    pub(super) fn error_at(&mut self, kind: Kind, op: &Operand, message: impl Into<String>) {
        let (first, last) = op.spans();
        self.push(Diagnostic::new(
            kind,
            Location::tokens(first, last),
            message,
        ));
    }

    pub(super) fn push(&mut self, diagnostic: Diagnostic) {
        self.errors.push(diagnostic);
    }
}
