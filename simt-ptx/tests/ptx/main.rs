//! The PTX front end's tests: CUDA kernels from the PTX nvcc writes, run
//! and checked against the host, and what it refuses, located.

mod arith;
mod atomics;
mod common;
mod corpus;
mod doubles;
mod instructions;
mod local;
mod loops;
mod mutants;
mod reference;
mod seeds;
