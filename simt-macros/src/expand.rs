//! Expansion: one module per kernel with its static IR tables and a typed `launch`.
//!
//! Generated code names the runtime only through `::simt::__private`. When a
//! kernel has errors, its module is still emitted, with a stub program (just
//! `end`) and the same `launch` signature, so code calling it reports only the
//! kernel's own errors. A kernel named like an earlier one of the invocation
//! gets no module, so that rustc reports no second definition.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use simt_front::{self as front, ast::Kernel, ast::ParamType, Diagnostic, CRATE};
use simt_lang::isa::{Field, MemRef, Op};
use simt_lang::{
    Addressing, Axis, GlobalRef, Inst, LdsRef, Operand, Program, RaceFree, Reg, ScalarType,
    SourceLoc, Special,
};
use std::fmt::Debug;
use syn::ext::IdentExt;

/// Expands a whole `simt_kernel!` invocation. Never panics: every problem
/// becomes a `compile_error!` at the offending token.
pub fn expand(input: TokenStream) -> TokenStream {
    let checks = front::check_tokens(input);
    let mut out: TokenStream = checks.errors.iter().flat_map(compile_errors).collect();
    for checked in &checks.kernels {
        if checked.defines {
            out.extend(module(
                &checked.kernel,
                checked.program.as_ref().map(|k| k.program()),
            ));
        }
    }
    out
}

/// A diagnostic as `compile_error!`s at its tokens ([`Diagnostic::as_errors`]).
fn compile_errors(d: &Diagnostic) -> TokenStream {
    d.as_errors()
        .into_iter()
        .map(|(at, message)| syn::Error::new_spanned(at.to_tokens(), message).to_compile_error())
        .collect()
}

/// The path the generated code reaches the runtime by.
fn rt() -> TokenStream {
    let krate = Ident::new(CRATE, Span::call_site());
    quote!(::#krate::__private)
}

fn module(kernel: &Kernel, program: Option<&Program>) -> TokenStream {
    let rt = rt();
    let Kernel {
        attrs, vis, name, ..
    } = kernel;
    let name_str = name.unraw().to_string();
    let stub = [Inst::End];
    let stub_locs = [SourceLoc::default()];
    let (insts, locs, vregs, sregs, mregs, lds_bytes) = match program {
        Some(p) => (
            &p.insts[..],
            &p.locs[..],
            p.vregs,
            p.sregs,
            p.mregs,
            p.lds_bytes,
        ),
        None => (&stub[..], &stub_locs[..], 0, 0, 0, 0),
    };
    let runner = crate::native::runner(&rt, insts);
    let insts = insts.iter().map(inst);
    let locs = locs.iter().map(|l| {
        let (line, column) = (l.line, l.column);
        quote!(#rt::SourceLoc { line: #line, column: #column })
    });
    let params = kernel.params.iter().map(|p| {
        let pname = p.name.unraw().to_string();
        let kind = match p.ty {
            ParamType::Buffer { elem, writable } => {
                let elem = variant("ElemType", elem);
                quote!(#rt::ParamKind::Buffer { elem: #elem, writable: #writable })
            }
            ParamType::Scalar(t) => {
                let t = variant("ScalarType", t);
                quote!(#rt::ParamKind::Scalar(#t))
            }
        };
        quote!(#rt::Param { name: #rt::Cow::Borrowed(#pname), kind: #kind })
    });
    let lds = program.map(|p| &p.lds[..]).unwrap_or_default().iter().map(|d| {
        let dname = d.name.as_ref();
        let elem = variant("ElemType", d.elem);
        let (len, offset) = (d.len, d.offset);
        quote!(#rt::LdsDecl { name: #rt::Cow::Borrowed(#dname), elem: #elem, len: #len, offset: #offset })
    });
    let reg_names = program.map(|p| &p.reg_names[..]).unwrap_or_default().iter().map(|n| {
        let number = n.reg.parts().1;
        let (reg_ty, ctor) = match n.reg {
            Reg::V(_) => ("VReg", "V"),
            Reg::S(_) => ("SReg", "S"),
            Reg::M(_) => ("MReg", "M"),
        };
        let reg_ty = Ident::new(reg_ty, Span::call_site());
        let ctor = Ident::new(ctor, Span::call_site());
        let name = n.name.as_ref();
        quote!(#rt::RegName { reg: #rt::Reg::#ctor(#rt::#reg_ty(#number)), name: #rt::Cow::Borrowed(#name) })
    });
    let workgroup_size = match program.and_then(|p| p.workgroup_size) {
        Some([x, y, z]) => quote!(::core::option::Option::Some([#x, #y, #z])),
        None => quote!(::core::option::Option::None),
    };
    let formats = program
        .map(|p| &p.formats[..])
        .unwrap_or_default()
        .iter()
        .map(|f| {
            let f = f.as_ref();
            quote!(#rt::Cow::Borrowed(#f))
        });
    let race_free = match program.and_then(|p| p.race_free) {
        Some(RaceFree::AnyLaneOrder) => {
            quote!(::core::option::Option::Some(#rt::RaceFree::AnyLaneOrder))
        }
        Some(RaceFree::Lockstep) => quote!(::core::option::Option::Some(#rt::RaceFree::Lockstep)),
        None => quote!(::core::option::Option::None),
    };
    let lds_bytes_doc = format!(" Bytes of LDS per workgroup: {lds_bytes}.");
    let launch = launch_fn(&rt, kernel, program.is_some());
    quote! {
        #(#attrs)*
        #vis mod #name {
            /// The kernel's instructions, linked and validated.
            const INSTS: &[#rt::Inst] = &[#(#insts),*];
            #runner
            /// The kernel's IR: linked and validated when the macro expanded.
            #[allow(dead_code)]
            pub static PROGRAM: #rt::Program = #rt::Program {
                name: #rt::Cow::Borrowed(#name_str),
                file: #rt::Cow::Borrowed(::core::file!()),
                params: #rt::Cow::Borrowed(&[#(#params),*]),
                lds: #rt::Cow::Borrowed(&[#(#lds),*]),
                insts: #rt::Cow::Borrowed(INSTS),
                locs: #rt::Cow::Borrowed(&[#(#locs),*]),
                vregs: #vregs,
                sregs: #sregs,
                mregs: #mregs,
                lds_bytes: #lds_bytes,
                reg_names: #rt::Cow::Borrowed(&[#(#reg_names),*]),
                workgroup_size: #workgroup_size,
                race_free: #race_free,
                formats: #rt::Cow::Borrowed(&[#(#formats),*]),
                scratch_words: 0,
            };
            /// The kernel, ready to launch: the macro validated `PROGRAM`.
            #[allow(dead_code)]
            // SAFETY: `PROGRAM` holds the program the macro validated (or, for a
            // kernel with errors, only `end`, which is valid), unchanged.
            pub static KERNEL: #rt::Kernel = {
                let kernel = unsafe { #rt::Kernel::new_unchecked(&PROGRAM) };
                // SAFETY: `RUNNERS` are this program's.
                #[cfg(not(debug_assertions))]
                let kernel = unsafe { kernel.with_native(&RUNNERS) };
                kernel
            };
            /// Vector registers the kernel uses (`v0..VREGS`).
            #[allow(dead_code)]
            pub const VREGS: u16 = #vregs;
            /// Scalar registers the kernel uses (`s0..SREGS`).
            #[allow(dead_code)]
            pub const SREGS: u16 = #sregs;
            /// Mask registers the kernel uses (`m0..MREGS`).
            #[allow(dead_code)]
            pub const MREGS: u16 = #mregs;
            #[doc = #lds_bytes_doc]
            #[allow(dead_code)]
            pub const LDS_BYTES: u32 = #lds_bytes;
            #launch
        }
    }
}

/// The kernel module's `launch` function: the parameters typed as Rust
/// types, bound as arguments (named apart when the kernel was not
/// `accepted`).
fn launch_fn(rt: &TokenStream, kernel: &Kernel, accepted: bool) -> TokenStream {
    // A rejected kernel's parameter names may be what it was rejected for (an
    // uppercase name would be read as a pattern): its stub names them apart.
    let names: Vec<Ident> = kernel
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if accepted {
                p.name.clone()
            } else {
                Ident::new(&format!("arg{i}"), Span::mixed_site())
            }
        })
        .collect();
    let launch_params = kernel.params.iter().zip(&names).map(|(p, pname)| {
        let ty = match p.ty {
            ParamType::Buffer { elem, writable } => {
                // Primitive types by absolute path: a user type named `u32` cannot
                // shadow them; the half-precision ones are the `half` crate's.
                let name = Ident::new(elem.name(), p.ty_span);
                let elem = match elem {
                    simt_lang::ElemType::F16 | simt_lang::ElemType::BF16 => {
                        quote_spanned!(p.ty_span=> #rt::half::#name)
                    }
                    _ => quote_spanned!(p.ty_span=> ::core::primitive::#name),
                };
                if writable {
                    quote_spanned!(p.ty_span=> &mut [#elem])
                } else {
                    quote_spanned!(p.ty_span=> &[#elem])
                }
            }
            ParamType::Scalar(t) => {
                let t = Ident::new(t.name(), p.ty_span);
                quote_spanned!(p.ty_span=> ::core::primitive::#t)
            }
        };
        quote!(#pname: #ty)
    });
    let args = kernel
        .params
        .iter()
        .zip(&names)
        .map(|(p, pname)| match p.ty {
            ParamType::Buffer {
                writable: false, ..
            } => quote!(#rt::Arg::buffer(#pname)),
            ParamType::Buffer { writable: true, .. } => quote!(#rt::Arg::buffer_mut(#pname)),
            ParamType::Scalar(ScalarType::U32) => quote!(#rt::Arg::U32(#pname)),
            ParamType::Scalar(ScalarType::I32) => quote!(#rt::Arg::I32(#pname)),
            ParamType::Scalar(ScalarType::F32) => quote!(#rt::Arg::F32(#pname)),
        });
    // Mixed-site hygiene keeps `config` apart from any parameter of that name,
    // so a kernel rejected for such a parameter gets no follow-on errors.
    let config = Ident::new("config", Span::mixed_site());
    quote! {
        /// Launches the kernel over the grid `config` describes, with these
        /// arguments bound to its parameters, and returns its statistics.
        #[allow(clippy::too_many_arguments)]
        pub fn launch(
            #config: &#rt::LaunchConfig,
            #(#launch_params),*
        ) -> ::core::result::Result<#rt::Stats, #rt::Error> {
            #rt::launch(&KERNEL, #config, &mut [#(#args),*])
        }
    }
}

/// `::simt::__private::Enum::Variant` for a field-less IR enum. The variant's
/// name is its derived `Debug` form, so new variants need no change here.
fn variant(ty: &str, value: impl Debug) -> TokenStream {
    let rt = rt();
    let ty = Ident::new(ty, Span::call_site());
    let v = Ident::new(&format!("{value:?}"), Span::call_site());
    quote!(#rt::#ty::#v)
}

fn axis(a: Axis) -> TokenStream {
    variant("Axis", a)
}

fn operand(op: Operand) -> TokenStream {
    let rt = rt();
    match op {
        Operand::V(r) => {
            let n = r.0;
            quote!(#rt::Operand::V(#rt::VReg(#n)))
        }
        Operand::S(r) => {
            let n = r.0;
            quote!(#rt::Operand::S(#rt::SReg(#n)))
        }
        Operand::Arg(p) => {
            let n = p.0;
            quote!(#rt::Operand::Arg(#rt::ParamIdx(#n)))
        }
        Operand::Imm(bits) => quote!(#rt::Operand::Imm(#bits)),
        Operand::Special(s) => {
            let s = match s {
                Special::LaneId => quote!(#rt::Special::LaneId),
                Special::LocalId(a) => {
                    let a = axis(a);
                    quote!(#rt::Special::LocalId(#a))
                }
                Special::GlobalId(a) => {
                    let a = axis(a);
                    quote!(#rt::Special::GlobalId(#a))
                }
                Special::GroupId(a) => {
                    let a = axis(a);
                    quote!(#rt::Special::GroupId(#a))
                }
                Special::GroupSize(a) => {
                    let a = axis(a);
                    quote!(#rt::Special::GroupSize(#a))
                }
                Special::NumGroups(a) => {
                    let a = axis(a);
                    quote!(#rt::Special::NumGroups(#a))
                }
                Special::WaveId => quote!(#rt::Special::WaveId),
                Special::WaveWidth => quote!(#rt::Special::WaveWidth),
            };
            quote!(#rt::Operand::Special(#s))
        }
    }
}

fn addressing(a: Addressing) -> TokenStream {
    variant("Addressing", a)
}

fn global(g: GlobalRef) -> TokenStream {
    let rt = rt();
    let buffer = g.buffer.0;
    let index = operand(g.index);
    let offset = operand(g.offset);
    let addr = addressing(g.addressing);
    quote!(#rt::GlobalRef { buffer: #rt::ParamIdx(#buffer), index: #index, offset: #offset, addressing: #addr })
}

fn lds(l: LdsRef) -> TokenStream {
    let rt = rt();
    let n = l.lds.0;
    let index = operand(l.index);
    let offset = operand(l.offset);
    let addr = addressing(l.addressing);
    quote!(#rt::LdsRef { lds: #rt::LdsIdx(#n), index: #index, offset: #offset, addressing: #addr })
}

/// One instruction as a constant expression, field by field from the table.
fn inst(i: &Inst) -> TokenStream {
    let rt = rt();
    let opcode = i.opcode();
    let variant = Ident::new(opcode.name(), Span::call_site());
    if opcode.fields().is_empty() {
        return quote!(#rt::Inst::#variant);
    }
    let names = opcode
        .fields()
        .iter()
        .map(|&(name, _)| Ident::new(name, Span::call_site()));
    let values = i.fields().as_slice().iter().map(field).collect::<Vec<_>>();
    quote!(#rt::Inst::#variant { #(#names: #values),* })
}

/// One field's value as a constant expression.
fn field(f: &Field) -> TokenStream {
    let rt = rt();
    let reg = |ty: &str, n: u16| {
        let ty = Ident::new(ty, Span::call_site());
        quote!(#rt::#ty(#n))
    };
    match *f {
        Field::Op(op) => match op {
            Op::Bin(o) => variant("BinOp", o),
            Op::Un(o) => variant("UnOp", o),
            Op::Tern(o) => variant("TernOp", o),
            Op::Cmp(o) => variant("CmpOp", o),
            Op::CmpType(o) => variant("CmpType", o),
            Op::Mask(o) => variant("MaskOp", o),
            Op::Atomic(o) => variant("AtomicOp", o),
            Op::Atomic64(o) => variant("Atomic64Op", o),
            Op::Shuffle(o) => variant("ShuffleOp", o),
            Op::Wave(o) => variant("WaveOp", o),
            Op::Width(o) => variant("Width", o),
            Op::Access(o) => variant("ElemType", o),
            Op::Bin64(o) => variant("Bin64Op", o),
            Op::Un64(o) => variant("Un64Op", o),
            Op::Tern64(o) => variant("Tern64Op", o),
            Op::Cmp64Type(o) => variant("Cmp64Type", o),
            Op::Widen(o) => variant("WidenOp", o),
            Op::Narrow(o) => variant("NarrowOp", o),
        },
        Field::VDst(r) | Field::VDstRun(r) | Field::VSrcRun(r) => reg("VReg", r.0),
        Field::SDst(r) => reg("SReg", r.0),
        Field::MDst(r) | Field::Mask(r) => reg("MReg", r.0),
        Field::VDstOpt(None) => quote!(::core::option::Option::None),
        Field::VDstOpt(Some(r)) => {
            let r = reg("VReg", r.0);
            quote!(::core::option::Option::Some(#r))
        }
        Field::Src(o) | Field::Uniform(o) | Field::Index(o) | Field::UIndex(o) => operand(o),
        Field::Mem(_, MemRef::Global(g)) => global(g),
        Field::Mem(_, MemRef::Lds(l)) => lds(l),
        Field::Target(t) => {
            let n = t.0;
            quote!(#rt::InstIdx(#n))
        }
        Field::Format(p) => {
            let (index, values) = (p.index, p.values);
            quote!(#rt::PrintFormat { index: #index, values: #values })
        }
    }
}
