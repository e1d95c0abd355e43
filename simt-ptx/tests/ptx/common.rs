//! What the PTX tests share: reading a module, launching a kernel.

use simt_core::{Arg, Kernel, LaunchConfig, Stats};
use std::path::Path;

/// The PTX file at `path` (from the workspace root), lowered.
pub fn module(path: &str) -> simt_ptx::PtxModule {
    module_with(path, &simt_ptx::Options::default())
}

/// [`module`] with `options`.
pub fn module_with(path: &str, options: &simt_ptx::Options) -> simt_ptx::PtxModule {
    let text = std::fs::read_to_string(workspace(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    simt_ptx::compile_ptx_with(path, &text, options)
        .unwrap_or_else(|d| panic!("{}", d.render(false)))
}

/// `path` (from the workspace root) on this machine.
pub fn workspace(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// Launches `kernel`, panicking with the fault.
pub fn launch(kernel: &Kernel, config: &LaunchConfig, args: &mut [Arg<'_>]) -> Stats {
    simt_core::launch(kernel, config, args)
        .unwrap_or_else(|e| panic!("{}: {e}", kernel.program().name))
}
