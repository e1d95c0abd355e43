//! The `simt` command's tests, run against the built binary: `check`,
//! `run`, `sweep`, PTX and CUDA files, and the book's examples. One
//! binary: each file is a module, `common` the scratch folder and runner
//! they share.

mod check;
mod common;
mod ptx;
mod readme;
mod run;
mod sweep;
