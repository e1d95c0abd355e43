//! The validator: nesting, operand kinds, limits and uniformity, shared by the
//! `simt_kernel!` macro (at compile time) and [`launch`](crate::launch) (at run time).

mod error;
mod link;

pub use error::{Note, ValidationError, ValidationErrorKind, ValidationErrors};
pub use link::link;

use crate::ir::Program;

/// Checks `program`, returning every problem found.
pub fn validate(program: &Program) -> Result<(), ValidationErrors> {
    let mut linked = program.insts.to_vec();
    let errors = match link(&mut linked) {
        Ok(()) => Vec::new(),
        Err(errors) => errors,
    };
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ValidationErrors {
            kernel: program.name.to_string(),
            errors,
        })
    }
}
