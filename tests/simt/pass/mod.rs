//! Kernels the macro accepts, each run: the trybuild suite's passing cases,
//! as tests of this binary (trybuild then only checks, never builds).

mod barrier_under_uniform_load_if;
mod coalesced_contiguous_and_broadcast;
mod conflict_free_with_a_33_word_stride;
mod constants_and_templates;
mod every_operand_form;
mod inline_functions;
mod lds_exchange_after_barrier;
mod nested_divergence;
mod saxpy;
mod several_kernels;
mod uniform_if_and_loop;
mod uniform_loop_barrier;
