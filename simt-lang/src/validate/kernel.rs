//! [`Kernel`]: a program that passed validation, the only thing the interpreter runs.

use super::{check, link, ValidationErrors};
use crate::ir::Program;
use std::borrow::Cow;

/// A [`Program`] that passed validation: what `simt_core::launch` takes.
///
/// It can only be made by validating ([`Kernel::new`], [`Kernel::from_static`],
/// [`ProgramBuilder::build`](crate::ProgramBuilder::build)), or by the
/// `simt_kernel!` macro, which validated the program when it expanded: so a
/// launch never validates again.
#[derive(Clone, Debug)]
pub struct Kernel {
    program: Cow<'static, Program>,
}

impl Kernel {
    /// Links `program` (filling in its jump targets) and validates it.
    pub fn new(mut program: Program) -> Result<Kernel, ValidationErrors> {
        let link_errors = link(program.insts.to_mut()).err().unwrap_or_default();
        check(&program, &program.insts, link_errors, true)?;
        Ok(Kernel {
            program: Cow::Owned(program),
        })
    }

    /// Validates a program held in `'static` tables, as it is (its jump targets
    /// must be the linked ones), without copying it.
    pub fn from_static(program: &'static Program) -> Result<Kernel, ValidationErrors> {
        super::validate(program)?;
        Ok(Kernel {
            program: Cow::Borrowed(program),
        })
    }

    /// A kernel of a program the `simt_kernel!` macro validated when it expanded.
    ///
    /// # Safety
    ///
    /// `program` must pass [`validate`](crate::validate): the interpreter relies
    /// on the facts it checks (registers within the declared counts, jump
    /// targets, operand kinds). Only the macro's generated code calls this.
    #[doc(hidden)]
    pub const unsafe fn new_unchecked(program: &'static Program) -> Kernel {
        Kernel {
            program: Cow::Borrowed(program),
        }
    }

    /// Like [`Kernel::new`] but without the uniformity analysis, so that a
    /// barrier may sit under divergent control flow: how the interpreter's tests
    /// reach the run-time barrier faults. Public (and hidden) only because
    /// those tests live in `simt-core`; the interpreter faults on such a
    /// barrier rather than relying on the check, so this is safe to call.
    #[doc(hidden)]
    pub fn new_without_barrier_checks(mut program: Program) -> Result<Kernel, ValidationErrors> {
        let link_errors = link(program.insts.to_mut()).err().unwrap_or_default();
        check(&program, &program.insts, link_errors, false)?;
        Ok(Kernel {
            program: Cow::Owned(program),
        })
    }

    /// The same kernel, its program naming `file` as its source (for a kernel
    /// compiled from a file at run time).
    pub fn in_file(self, file: &str) -> Kernel {
        let mut program = self.program.into_owned();
        program.file = Cow::Owned(file.to_owned());
        Kernel {
            program: Cow::Owned(program),
        }
    }

    /// The validated program.
    pub fn program(&self) -> &Program {
        &self.program
    }
}

impl std::ops::Deref for Kernel {
    type Target = Program;

    fn deref(&self) -> &Program {
        &self.program
    }
}
