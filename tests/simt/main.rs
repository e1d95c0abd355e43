//! The cross-crate tests of `simt`: kernels written with `simt_kernel!` run
//! through the whole stack, the compile-fail suite (`ui`), the sanitizers,
//! the typed faults and the listings. One binary: each file is a module.

mod atomics;
mod atomics64;
mod caches;
mod cdna3;
mod instructions;
mod launch;
mod lds_bounds;
mod line_counters;
mod listing;
mod memory_faults;
mod parallel;
mod pass;
mod print;
mod registers;
mod sanitize;
mod scalar;
mod static_races;
mod typed;
mod ui;
mod uninit;
mod wide64;
mod workgroup_shape;
