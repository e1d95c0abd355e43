//! [`Kernel`]: a program that passed validation, the only thing the interpreter runs.

use super::{check, link, ValidationErrors};
use crate::facts::{Facts, LaneOrder, LaunchRace};
use crate::ir::Program;
use std::any::Any;
use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

/// A launch's grid, workgroup shape and wave width.
type LaunchKey = ([u32; 3], [u32; 3], u32, LaneOrder);

/// A [`Program`] that passed validation: what `simt_core::launch` takes.
///
/// It can only be made by validating ([`Kernel::new`], [`Kernel::from_static`],
/// [`ProgramBuilder::build`](crate::ProgramBuilder::build)), or by the
/// `simt_kernel!` macro, which validated the program when it expanded: so a
/// launch never validates again.
#[derive(Debug)]
pub struct Kernel {
    program: Cow<'static, Program>,
    /// The program's facts under its declared shape, once asked for.
    facts: OnceLock<Facts>,
    /// The races certain for each launch shape asked about: a kernel is
    /// launched many times with few shapes, and the search is the costly part.
    races: Mutex<Vec<(LaunchKey, Arc<[LaunchRace]>)>>,
    /// The native runners `simt_kernel!` wrote for it, which `simt_core`
    /// knows the type of.
    native: Option<&'static (dyn Any + Send + Sync)>,
}

impl Clone for Kernel {
    fn clone(&self) -> Self {
        Kernel {
            native: self.native,
            ..Kernel::of(self.program.clone())
        }
    }
}

impl Kernel {
    const fn of(program: Cow<'static, Program>) -> Kernel {
        Kernel {
            program,
            facts: OnceLock::new(),
            races: Mutex::new(Vec::new()),
            native: None,
        }
    }

    /// The same kernel with the native runners `simt_kernel!` wrote for it.
    ///
    /// # Safety
    ///
    /// `native` holds the runners written for this kernel's program: a
    /// launch runs them in place of its instructions.
    #[doc(hidden)]
    pub const unsafe fn with_native(mut self, native: &'static (dyn Any + Send + Sync)) -> Kernel {
        self.native = Some(native);
        self
    }

    /// The native runners, if the kernel has them.
    #[doc(hidden)]
    pub fn native(&self) -> Option<&'static (dyn Any + Send + Sync)> {
        self.native
    }
    /// Links `program` (filling in its jump targets) and validates it.
    pub fn new(mut program: Program) -> Result<Kernel, ValidationErrors> {
        let link_errors = link(program.insts.to_mut()).err().unwrap_or_default();
        check(&program, &program.insts, link_errors, true)?;
        Ok(Kernel::of(Cow::Owned(program)))
    }

    /// Validates a program held in `'static` tables, as it is (its jump targets
    /// must be the linked ones), without copying it.
    pub fn from_static(program: &'static Program) -> Result<Kernel, ValidationErrors> {
        super::validate(program)?;
        Ok(Kernel::of(Cow::Borrowed(program)))
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
        Kernel::of(Cow::Borrowed(program))
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
        Ok(Kernel::of(Cow::Owned(program)))
    }

    /// The same kernel, its program naming `file` as its source (for a kernel
    /// compiled from a file at run time).
    pub fn in_file(self, file: &str) -> Kernel {
        let mut program = self.program.into_owned();
        program.file = Cow::Owned(file.to_owned());
        Kernel::of(Cow::Owned(program))
    }

    /// The validated program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The program's [facts](crate::facts::facts) under its declared
    /// workgroup shape (any shape when it declares none), computed once.
    pub fn facts(&self) -> &Facts {
        self.facts
            .get_or_init(|| crate::facts::facts(&self.program, self.program.workgroup_size))
    }

    /// [`Facts::races_at`] for a launch of `grid` workgroups of `shape` at
    /// wave width `width` with lanes ordered as `lanes` says, searched once
    /// per launch shape.
    pub fn races_at(
        &self,
        grid: [u32; 3],
        shape: [u32; 3],
        width: u32,
        lanes: LaneOrder,
    ) -> Arc<[LaunchRace]> {
        // Only whether the grid has one workgroup or more along each axis
        // decides a race: launches of other sizes share one search.
        let grid = grid.map(|g| g.min(2));
        let key = (grid, shape, width, lanes);
        // A poisoned lock only means another launch panicked mid-search: the
        // memo is still a list of finished results.
        let mut memo = self.races.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, races)) = memo.iter().find(|(k, _)| *k == key) {
            return races.clone();
        }
        let races: Arc<[LaunchRace]> = self.facts().races_at(grid, shape, width, lanes).into();
        memo.push((key, races.clone()));
        races
    }
}

impl std::ops::Deref for Kernel {
    type Target = Program;

    fn deref(&self) -> &Program {
        &self.program
    }
}
