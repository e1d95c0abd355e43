//! The report's page: [`simt_report::html`]'s, with each row's program found
//! in the [`registry`].

use crate::cli::Options;
use crate::registry;
use crate::report::{self, Results};
use simt::core::Program;
pub use simt_report::html::*;
use std::io;
use std::path::Path;

fn registry_program(name: &str) -> Option<&'static Program> {
    registry::find(name).map(|spec| spec.program)
}

/// Writes the page for `results` to `path`, creating its folder; the file is
/// replaced whole, never left half-written.
pub fn write(results: &Results, options: &Options, path: &Path) -> io::Result<()> {
    write_page(&render(results, options), path)
}

/// The whole page.
pub fn render(results: &Results, options: &Options) -> String {
    render_with(results, options.launches, &registry_program)
}

/// Runs the report for `options` and renders its page: for tests and tools that
/// want the page without the JSON.
pub fn report_page(options: &Options) -> String {
    render(&report::run(options), options)
}
