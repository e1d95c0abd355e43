//! How simt shows what it measured: the rows of a report run and the results
//! of its studies ([`results`]), the text table and notes the report and the
//! `simt` command print and the JSON they write ([`table`]), the HTML page
//! with its pictures and charts ([`html`]), what each counter is called in
//! vendors' profilers ([`metrics`]), the command-line values the two
//! commands share ([`args`]), and the sweep record and NumPy dtypes the
//! `simt` command and the Python package share ([`sweep`]).
//!
//! It knows no kernel: the report (`simt-kernels`) and the `simt` command
//! (`simt-cli`) run kernels and hand their statistics here.
#![deny(missing_docs)]

pub mod args;
pub mod html;
pub mod metrics;
pub mod results;
pub mod rng;
pub mod sweep;
pub mod table;

pub use results::{Results, Row, StudyResult};
pub use rng::SplitMix64;
