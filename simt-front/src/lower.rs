//! Lowering: the checked instructions through [`ProgramBuilder`] to a linked,
//! validated program, and the validator's errors as diagnostics at the
//! tokens they are about (an operand when the error names one, else the
//! instruction's mnemonic, else the kernel's name), its notes as labels.

use super::{parse, words};
use crate::ast::{self, Operand, Stmt};
use crate::check::Checker;
use crate::diagnostic::{Diagnostic, Kind, Location};
use crate::functions;
use crate::resolve::reg_class;
use proc_macro2::Span;
use simt_lang::isa::Fields;
use simt_lang::{
    Inst, Kernel as ValidKernel, Reg, SourceLoc, ValidationError, ValidationErrorKind,
};
use simt_lang::{OperandAt, Part};

fn loc(span: Span) -> SourceLoc {
    let start = span.start();
    if start.line == 0 {
        // Compilers before 1.88 do not tell proc macros where tokens are.
        return SourceLoc::default();
    }
    SourceLoc {
        line: u32::try_from(start.line).unwrap_or(u32::MAX),
        column: u32::try_from(start.column + 1).unwrap_or(u32::MAX),
    }
}

/// One instruction as pushed to the builder: where it is written, and the
/// operand written for each of its fields.
pub(super) struct Written<'a> {
    pub(super) inst: Option<&'a ast::Instruction>,
    /// The instruction lowered (its template after an error).
    pub(super) lowered: Inst,
    pub(super) operands: [Option<&'a Operand>; Fields::MAX],
    /// Whether it lowered as written (or is its mnemonic's template, standing
    /// in after an error so that the nesting checks still see it).
    complete: bool,
}

impl<'a> Checker<'a> {
    /// Lowers the instructions, appends `end`, links and validates. With
    /// errors already found, the validator still runs, without its barrier
    /// analysis (a template's operands are placeholders), and only its errors
    /// about instructions that lowered as written are kept, and those about
    /// the whole program when the declarations (`declared`) had none.
    pub(super) fn lower(&mut self, declared: bool) -> Option<ValidKernel> {
        let mut written = Vec::new();
        let mut previous = None;
        let mut count = 0usize;
        let kernel = self.kernel;
        for stmt in &kernel.body {
            let Stmt::Inst(inst) = stmt else { continue };
            count += 1;
            let before = self.errors.len();
            let mut operands = [None; Fields::MAX];
            let lowered = self.instruction(inst, previous, &mut operands);
            for d in &mut self.errors[before..] {
                functions::label_calls(d, &inst.inlined);
            }
            if let Some(lowered) = lowered {
                // An instruction of an included file is counted on the line
                // of the call that brought it in: a kernel's lines are one
                // file's.
                let span = match inst.inlined.first() {
                    Some(call) if crate::include::is_included(inst.mnemonic.span()) => {
                        call.at.first
                    }
                    _ => inst.mnemonic.span(),
                };
                self.builder.push_at(lowered, loc(span));
                written.push(Written {
                    inst: Some(inst),
                    lowered,
                    operands,
                    complete: self.errors.len() == before,
                });
            }
            previous = words::lookup(&inst.mnemonic.to_string());
        }
        // Every instruction written becomes one instruction, or there is an
        // error: a kernel never compiles to something other than what was written.
        if written.len() != count && self.errors.is_empty() {
            self.error(
                Kind::Internal,
                kernel.name.span(),
                format!(
                    "internal error: {count} instructions written but {} lowered",
                    written.len()
                ),
            );
        }
        self.builder.push_at(Inst::End, loc(kernel.close));
        written.push(Written {
            inst: None,
            lowered: Inst::End,
            operands: [None; Fields::MAX],
            complete: true,
        });
        if self.errors.is_empty() {
            match self.builder.build() {
                Ok(kernel) => {
                    self.contracts(&kernel, &written);
                    return Some(kernel);
                }
                Err(errors) => {
                    for e in &errors.errors {
                        self.validation_error(e, &written);
                    }
                }
            }
        } else if let Err(errors) = ValidKernel::new_without_barrier_checks(self.builder.program())
        {
            for e in &errors.errors {
                // A template nests as its mnemonic does, so nesting errors
                // hold whatever its operands.
                let lowered = match e.inst {
                    _ if kind(&e.kind) == Kind::Nesting => true,
                    Some(i) => written.get(i as usize).is_some_and(|w| w.complete),
                    None => declared || kind(&e.kind) == Kind::Limit,
                };
                if lowered {
                    self.validation_error(e, &written);
                }
            }
        }
        None
    }

    /// The name the kernel gave `reg`, or its number.
    fn reg_name(&self, reg: Reg) -> String {
        self.reg_names.get(&reg).cloned().unwrap_or_else(|| {
            let (class, n) = reg.parts();
            format!("{class}{n}")
        })
    }

    /// Where instruction `i` is written: its mnemonic, or for the `end` the
    /// lowering appends, the kernel's closing brace.
    fn mnemonic_at(&self, written: &[Written], i: u32) -> Location {
        let span = match written.get(i as usize) {
            Some(Written {
                inst: Some(inst), ..
            }) => inst.mnemonic.span(),
            Some(Written { inst: None, .. }) => self.kernel.close,
            None => self.kernel.name.span(),
        };
        Location::token(span)
    }

    fn validation_error(&mut self, e: &ValidationError, written: &[Written]) {
        let operand = e.inst.and_then(|i| {
            let at = e.operand?;
            let op = written
                .get(i as usize)?
                .operands
                .get(usize::from(at.field))?
                .as_ref()?;
            Some((*op, at))
        });
        let mut at = match (operand, e.inst, &e.kind) {
            (Some((op, OperandAt { part, .. })), _, _) => part_at(op, part),
            (None, Some(i), _) => self.mnemonic_at(written, i),
            // The first parameter past the limit is the one to remove.
            (None, None, ValidationErrorKind::TooManyParams { limit, .. }) => {
                let past = self.kernel.params.get(usize::from(*limit));
                Location::token(past.map_or(self.kernel.name.span(), |p| p.name.span()))
            }
            (None, None, _) => Location::token(self.kernel.name.span()),
        };
        let mut message = e.kind.to_string();
        match &e.kind {
            ValidationErrorKind::RegisterPastLimit { reg, limit } => {
                let class = reg_class(*reg);
                let declared = self.reg_names.get(reg).and_then(|n| self.names.get(n));
                match (declared, operand) {
                    (Some(named), _) => {
                        at = Location::token(named.span);
                        message = format!(
                            "too many {} registers: `{}` does not fit in the machine's {limit}",
                            class.word(),
                            self.reg_name(*reg)
                        );
                    }
                    (None, Some((op, at))) => {
                        let written = match sub_operand(op, at.part) {
                            Some(Operand::Name(id)) => id.to_string(),
                            _ => self.reg_name(*reg),
                        };
                        let l = class.letter();
                        message = format!(
                            "register `{written}` is out of range: the machine has {limit} {} registers ({l}0..{l}{})",
                            class.word(),
                            limit - 1
                        );
                    }
                    (None, None) => {}
                }
            }
            ValidationErrorKind::LdsTooLarge {
                bytes,
                limit,
                array: Some(k),
            } => {
                let decl = self.builder.lds_decl(*k);
                if let (Some(length), Some(decl)) = (self.lds.get(usize::from(k.0)), decl) {
                    at = Location::token(length.span);
                    let size = u64::from(decl.elem.size());
                    let own = length.len.saturating_mul(size);
                    let name = &decl.name;
                    message = if own > u64::from(*limit) {
                        format!(
                            "the length of `{name}`, {} elements of {size} byte{} ({own} bytes), exceeds the machine's {limit} bytes of LDS per workgroup",
                            length.len,
                            if size == 1 { "" } else { "s" }
                        )
                    } else {
                        format!(
                            "`{name}` does not fit: the LDS arrays need {bytes} bytes, and the machine has {limit} bytes per workgroup"
                        )
                    };
                }
            }
            _ => {}
        }
        let mut d = Diagnostic::new(kind(&e.kind), at, message);
        if let Some(Written {
            inst: Some(inst), ..
        }) = e.inst.and_then(|i| written.get(i as usize))
        {
            functions::label_calls(&mut d, &inst.inlined);
        }
        for n in &e.notes {
            let message = n.kind.render(&|r| self.reg_name(r));
            d = d.label(self.mnemonic_at(written, n.inst), message);
        }
        match &e.kind {
            ValidationErrorKind::StoreToReadOnly { name, .. } => {
                let declared = self.kernel.params.iter().find(|p| p.name == name);
                if let Some(p) = declared {
                    d = d.label(
                        Location::token(p.ty_span),
                        format!("`{name}` is declared read-only here"),
                    );
                }
            }
            ValidationErrorKind::ParamKind {
                name,
                expected: "a scalar",
                ..
            } => {
                d = d.help(
                    format!("load an element with `global_load dst, {name}[i]`"),
                    None,
                );
            }
            // A typed load or store names one type, which `.bytes` may
            // reinterpret; an atomic's operation fixes its type.
            ValidationErrorKind::AccessType {
                name, access, ty, ..
            } if *access != "atomic" && !ty.contains(' ') => {
                d = d.help(
                    format!("address bytes with `{name}.bytes[i]`, or use the untyped form"),
                    None,
                );
            }
            ValidationErrorKind::NonUniformOperand { .. }
            | ValidationErrorKind::ScalarReadsVector => {
                if let Some((op, at)) = operand {
                    let text = match (op, at.part) {
                        (
                            Operand::Mem {
                                offset: Some((_, k)),
                                ..
                            },
                            Part::Offset,
                        ) => parse::text(k),
                        _ => parse::text(op),
                    };
                    d.notes.push(format!("`{text}` may differ between lanes"));
                    let index = e
                        .inst
                        .and_then(|i| written.get(i as usize))
                        .and_then(|w| w.lowered.fields().memory())
                        .map(|(_, mem)| mem.index());
                    if at.part == Part::Offset {
                        let uniform = index.is_some_and(simt_lang::wave_uniform);
                        if let Some(help) = offset_help(op, uniform) {
                            d = d.help(help, None);
                        }
                    }
                }
            }
            _ => {}
        }
        self.push(d);
    }
}

/// The operand written for `part` of `op`: a memory operand's index or
/// offset, or the whole; `None` for a memory operand's base, a name.
fn sub_operand(op: &Operand, part: Part) -> Option<&Operand> {
    match (op, part) {
        (Operand::Mem { index, .. }, Part::Index) => Some(index),
        (
            Operand::Mem {
                offset: Some((_, k)),
                ..
            },
            Part::Offset,
        ) => Some(k),
        (Operand::Mem { .. }, Part::Base) => None,
        _ => Some(op),
    }
}

/// Where `part` of the operand `op` is written.
fn part_at(op: &Operand, part: Part) -> Location {
    match (op, sub_operand(op, part)) {
        (Operand::Mem { base, .. }, None) => Location::token(base.span()),
        (_, sub) => {
            let (first, last) = sub.unwrap_or(op).spans();
            Location::tokens(first, last)
        }
    }
}

/// How to index by a per-lane value written as a memory operand's offset:
/// write it first when the index is wave-uniform (`uniform`), else add the
/// two in a register first.
fn offset_help(op: &Operand, uniform: bool) -> Option<String> {
    let Operand::Mem {
        base,
        bytes,
        index,
        offset: Some((_, k)),
        ..
    } = op
    else {
        return None;
    };
    let base = if *bytes {
        format!("{base}.bytes")
    } else {
        base.to_string()
    };
    let (i, k) = (parse::text(index), parse::text(k));
    Some(if uniform {
        format!("write the per-lane value first: `{base}[{k} + {i}]`")
    } else {
        format!("add the two into a register first, `v_add_u32 j, {i}, {k}`, and write `{base}[j]`")
    })
}

/// The rule a validator error is about.
fn kind(e: &ValidationErrorKind) -> Kind {
    use ValidationErrorKind as V;
    match e {
        V::UnclosedIf
        | V::UnclosedLoop
        | V::ElseWithoutIf
        | V::EndIfWithoutIf
        | V::EndLoopWithoutLoop
        | V::CrossedNesting { .. }
        | V::SecondElse
        | V::BreakOutsideLoop
        | V::ContinueOutsideLoop
        | V::NestingTooDeep { .. } => Kind::Nesting,
        V::RegisterOutOfRange { .. }
        | V::RegisterPastLimit { .. }
        | V::TooManyRegisters { .. }
        | V::TooManyParams { .. }
        | V::LdsTooLarge { .. } => Kind::Limit,
        V::ParamKind { .. } => Kind::OperandKind,
        V::StoreToReadOnly { .. } => Kind::ReadOnly,
        V::AccessType { .. } | V::PairAccess { .. } => Kind::AccessType,
        V::NonUniformOperand { .. } | V::ScalarReadsVector => Kind::Uniformity,
        V::ConstantIndexOutOfBounds { .. } => Kind::OutOfBounds,
        V::BarrierUnderDivergentControl { .. } => Kind::Barrier,
        V::BadFormat { .. } => Kind::Format,
        V::MisplacedEnd
        | V::WrongTarget { .. }
        | V::LocsLength { .. }
        | V::LdsLayout { .. }
        | V::ScratchParam
        | V::CmpSwapWidth { .. }
        | V::NoSuchParam { .. }
        | V::NoSuchLds { .. } => Kind::Internal,
    }
}
