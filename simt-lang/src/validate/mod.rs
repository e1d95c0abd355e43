//! The validator: nesting, operand kinds, limits and uniformity, shared by the
//! `simt_kernel!` macro (at compile time) and `simt_core::launch` (at run time).
//!
//! Every check is a linear pass (the uniformity analysis walks a loop body a few
//! times until its levels settle), so validating at each launch stays cheap.
//! Errors carry the index of the instruction at fault and notes at related
//! instructions, so that the macro can turn them into spans; all of them are
//! collected, in instruction order, program-wide problems first.

mod error;
mod link;
mod operands;
mod uniformity;

mod kernel;

pub use error::{
    Note, NoteKind, OperandAt, Part, ValidationError, ValidationErrorKind, ValidationErrors,
};
pub use kernel::Kernel;
pub use link::link;
pub use operands::wave_uniform;
pub use uniformity::{uniformity, UniformityInfo};

use crate::ir::Program;
use crate::isa::Inst;
use error::ValidationErrorKind as Kind;

/// Checks `program`, returning every problem found.
///
/// A program that passes can be interpreted without further checks: its
/// constructs nest and its jump targets are the ones [`link`] computes, `End` is
/// its last instruction and only there, every register is below the declared
/// counts and those are within [`limits`](crate::limits), every parameter and LDS
/// operand names something of the right kind, element accesses move the element
/// type, the LDS layout fits, and every barrier is under workgroup-uniform control.
///
/// The program's jump targets are checked against those [`link`] computes, on a
/// copy; [`Kernel::new`] links the program itself instead.
pub fn validate(program: &Program) -> Result<(), ValidationErrors> {
    let mut linked = program.insts.to_vec();
    let link_errors = link(&mut linked).err().unwrap_or_default();
    check(program, &linked, link_errors, true)
}

/// The checks, given the program's instructions as [`link`] left them and the
/// errors it found.
fn check(
    program: &Program,
    linked: &[Inst],
    link_errors: Vec<ValidationError>,
    barriers: bool,
) -> Result<(), ValidationErrors> {
    let mut errors = Vec::new();
    operands::check_program(program, &mut errors);

    let nested = link_errors
        .iter()
        .all(|e| matches!(e.kind, Kind::MisplacedEnd | Kind::NestingTooDeep { .. }));
    let shallow = !link_errors
        .iter()
        .any(|e| matches!(e.kind, Kind::NestingTooDeep { .. }));
    errors.extend(link_errors);
    // Targets are only meaningful once the nesting is: after a nesting error the
    // linker's targets are partial and comparing them would only add noise.
    if nested {
        for (i, (stored, expected)) in program.insts.iter().zip(linked).enumerate() {
            if let (Some(found), Some(expected)) = (stored.target(), expected.target()) {
                if found != expected {
                    errors.push(ValidationError::at(
                        i,
                        Kind::WrongTarget {
                            expected: expected.0,
                            found: found.0,
                        },
                    ));
                }
            }
        }
    }

    operands::check_operands(program, &mut errors);

    // The analysis follows the nesting; past the nesting limit it is skipped so
    // that its cost stays bounded for any input.
    if barriers && nested && shallow {
        uniformity::Analysis::run(program, linked).barrier_errors(&mut errors);
    }

    if errors.is_empty() {
        Ok(())
    } else {
        // Stable: errors of one instruction keep the order the checks found them in.
        errors.sort_by_key(|e| e.inst);
        Err(ValidationErrors {
            kernel: program.name.to_string(),
            errors,
        })
    }
}
