//! The front end's tests, through its public API: what each kernel lowers to,
//! the errors and the tokens they point at (`cases`), round trips through the
//! disassembler over generated and mutated kernels (`roundtrip`), and the
//! differential property against the independent evaluator (`differential`,
//! with its program generator in `generate`).

mod agreement;
mod cases;
mod corpus;
mod differential;
mod generate;
mod located;
mod narrowing;
mod races;
mod rounding;
mod roundtrip;
mod text;
