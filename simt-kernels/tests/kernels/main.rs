//! The reference kernels' tests: outputs against scalar oracles, the
//! statistics and study snapshots (`tests/snapshots`), the relations the
//! seeds claim, the report's command line and HTML page. One binary: each file
//! is a module.

mod calibration;
mod conformance;
mod engines;
mod facts;
mod html;
mod library;
mod mandelbrot;
mod oracles;
mod relations;
mod report_cli;
mod snapshots;
mod studies;
mod study_counts;
mod text;
mod totals;
