//! The interpreter's tests through `simt-core`'s public API: execution per
//! instruction family, counters, faults, grids, the validator, the facts and
//! race proofs against launches, the timing model. One binary: each file is a
//! module, `exec_util` the shorthands they share.

mod args;
mod block_path;
mod builder;
mod counters;
mod exec_alu;
mod exec_control;
mod exec_pairs;
mod exec_random;
mod exec_util;
mod facts_props;
mod faults;
mod grid_memory;
mod grids;
mod race_soundness;
mod span_path;
mod stepped_index;
mod timing;
mod validate;
mod validate_props;
