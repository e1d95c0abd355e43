//! The native runner of a kernel: straight-line code per basic block, each
//! instruction a call into the runtime with its decoded op as a constant.
//!
//! The semantics stay in `simt_core` (`Turn::step` issues an op exactly as
//! the interpreter does); this only sequences the calls. A block starts at
//! the first instruction, at every control instruction and after each one,
//! so that every jump target and every place a wave resumes (after a
//! barrier) starts one; a block runs whole or, when the turn's budget would
//! end inside it or the wave stands elsewhere, the interpreter takes over.
//!
//! Each block function counts its issue once, at its end (`Turn::ran`),
//! or instruction by instruction when it is left part way (`Turn::cut`).
//!
//! The runner is compiled only where debug assertions are off (release
//! builds, and this workspace's test profile): see [`runner`].

use proc_macro2::TokenStream;
use quote::quote;
use simt_lang::{straight_blocks, Inst};

/// The most instructions of a block inlined into the runner's loop.
const SMALL_BLOCK: usize = 2;

/// The runner `native::<W>` of a kernel whose instructions are the constant
/// `INSTS` and whose register counts are `VREGS`, `SREGS` and `MREGS`.
pub fn runner(rt: &TokenStream, insts: &[Inst]) -> TokenStream {
    let n = rt_native(rt);
    let blocks = straight_blocks(insts);
    let fns = blocks.iter().map(|&(start, len)| {
        let name = quote::format_ident!("block_{}_{}", start, len);
        let lanes = quote!({ #n::block_lanes(&INSTS, #start, #len, [VREGS, SREGS, MREGS]) });
        let steps = (start..start + len).map(|k| {
            // Left at its last instruction (a barrier, the end), the block
            // ran whole.
            let count = if k + 1 == start + len {
                quote!(turn.ran::<#lanes>(#start, mark);)
            } else {
                quote!(turn.cut(#start, #k, mark);)
            };
            quote! {
                if let ::core::option::Option::Some(end) = turn.step::<
                    { #n::decode_op(&INSTS[#k], [VREGS, SREGS, MREGS]).kind() },
                    { #n::decode_op(&INSTS[#k], [VREGS, SREGS, MREGS]).number() },
                >(
                    #k,
                    &const { #n::decode_op(&INSTS[#k], [VREGS, SREGS, MREGS]) },
                ) {
                    #count
                    return ::core::option::Option::Some(end);
                }
            }
        });
        // A block of one or two instructions is inlined into the runner's
        // dispatch loop: a call would cost as much as the block.
        let inline = if len <= SMALL_BLOCK {
            quote!(#[inline])
        } else {
            quote!(#[inline(never)])
        };
        quote! {
            #[cfg(not(debug_assertions))]
            #inline
            #[cfg_attr(
                target_arch = "x86_64",
                target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")
            )]
            unsafe fn #name<const W: usize>(
                turn: &mut #n::Turn<'_, '_, '_, W, ()>,
            ) -> ::core::option::Option<#n::TurnEnd> {
                let mark = turn.mark();
                #(#steps)*
                turn.ran::<#lanes>(#start, mark);
                ::core::option::Option::None
            }
        }
    });
    let arms = blocks.iter().map(|&(start, len)| {
        let name = quote::format_ident!("block_{}_{}", start, len);
        let len = len as u64;
        quote!(#start if turn.take(#len) => {
            if let ::core::option::Option::Some(end) = unsafe { #name::<W>(&mut turn) } {
                return end;
            }
        })
    });
    // Only in builds without debug assertions: the runner compiles in the
    // user's crate under the user's profile, and cargo's default dev and
    // test profiles (debug assertions on, opt-level 0) would make it slower
    // than the interpreter, which the advised profile optimises as a
    // dependency, and would cost their build time.
    quote! {
        #(#fns)*
        /// Runs one turn of a wave natively (see `simt_core`'s `native`).
        #[cfg(not(debug_assertions))]
        ///
        /// # Safety
        ///
        /// Built for AVX2, FMA, BMI1/2, LZCNT and POPCNT: the CPU has them.
        #[cfg_attr(
            target_arch = "x86_64",
            target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")
        )]
        #[allow(clippy::missing_safety_doc)]
        unsafe fn native<const W: usize>(
            mut turn: #n::Turn<'_, '_, '_, W, ()>,
        ) -> #n::TurnEnd {
            loop {
                match turn.pc() {
                    #(#arms)*
                    _ => return turn.interpret(),
                }
            }
        }
        /// The kernel's native runners.
        #[cfg(not(debug_assertions))]
        static RUNNERS: #n::Runners = #n::Runners {
            w32: native::<32>,
            w64: native::<64>,
        };
    }
}

fn rt_native(rt: &TokenStream) -> TokenStream {
    quote!(#rt::__native)
}
