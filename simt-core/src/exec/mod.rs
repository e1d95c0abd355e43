//! The interpreter.

use crate::error::Error;
use crate::ir::Program;
use crate::launch::{Arg, LaunchConfig};
use crate::stats::Stats;

/// Runs `program` over the grid `config` describes, with `args` bound to its
/// parameters in order, and returns the launch's statistics.
pub fn launch(
    program: &Program,
    config: &LaunchConfig,
    args: &mut [Arg<'_>],
) -> Result<Stats, Error> {
    let _ = (program, config, args);
    unimplemented!("interpreter")
}
