//! What the PTX tests share: reading a module, launching a kernel.

use simt_core::{Arg, Kernel, LaunchConfig, Stats};
use std::path::Path;

/// The PTX file at `path` (from the workspace root), lowered.
pub fn module(path: &str) -> simt_ptx::PtxModule {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
    simt_ptx::compile_ptx(path, &text).unwrap_or_else(|d| panic!("{}", d.render(false)))
}

/// Launches `kernel`, panicking with the fault.
pub fn launch(kernel: &Kernel, config: &LaunchConfig, args: &mut [Arg<'_>]) -> Stats {
    simt_core::launch(kernel, config, args)
        .unwrap_or_else(|e| panic!("{}: {e}", kernel.program().name))
}
