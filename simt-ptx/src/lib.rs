//! PTX, as nvcc writes it, to validated simt kernels: the CUDA kernels users
//! already have, run by the simt interpreter with every counter, sanitizer,
//! static fact and the timing model.
//!
//! ```text
//! nvcc -arch=sm_90 -ptx -lineinfo kernels.cu -o kernels.ptx
//! ```
//!
//! then [`compile_ptx`] gives one [`PtxKernel`] per `.entry`, found by its
//! CUDA name (`saxpy`), its full demangled name or its mangled one.
//!
//! A crate of its own rather than a module of `simt-front`: PTX shares
//! nothing with kernel text but the IR, and keeping it apart keeps the
//! `simt_kernel!` macro's build free of it.
//!
//! One file per stage: `lex` and `parse` read the text into [`ast`]; `unroll`
//! unrolls counted loops as ptxas does; `cfg` splits each kernel into blocks and finds its loops; `values` decides what
//! each register holds (pointers become offsets into buffers); `select`
//! lowers instructions; `schedule` moves loads up as ptxas does; `structure`
//! turns branches into the structured
//! control flow of simt's divergence stack; `alloc` numbers registers;
//! `lower` runs them for one kernel and validates the result. Every problem
//! is a [`PtxError`] at a line and column; none panics.

mod alloc;
pub mod ast;
mod cfg;
mod diagnostic;
mod lex;
mod local;
mod lower;
mod parse;
mod schedule;
mod select;
mod structure;
mod unroll;
mod values;

pub use diagnostic::{Diagnostics, Pos, PtxError};

use simt_lang::Kernel;

/// How PTX is lowered.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes of shared memory sized at launch (`extern __shared__`
    /// arrays), the third launch parameter in CUDA.
    pub dynamic_shared_bytes: u32,
    /// Unroll nvcc's counted loops four times again, as ptxas does, so that
    /// the instructions counted and timed are those the GPU runs (default);
    /// `false` runs the loops as the PTX writes them.
    pub unroll: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            dynamic_shared_bytes: 0,
            unroll: true,
        }
    }
}

/// One kernel of a PTX module.
#[derive(Clone, Debug)]
pub struct PtxKernel {
    /// Its CUDA name without parameters (`saxpy`, `transpose_tile<0, 1>`).
    pub name: String,
    /// Its full demangled name (`saxpy(int, float, float const*, float*)`).
    pub demangled: String,
    /// The name in the PTX (`_Z5saxpyifPKfPf`).
    pub mangled: String,
    /// The validated kernel. Its parameters are named as in the PTX
    /// (`_Z5saxpyifPKfPf_param_0`); a 64-bit scalar is two `u32`
    /// parameters, `NAME` (low word) and `NAME.hi`.
    pub kernel: Kernel,
    /// The 64-bit scalars that are `.f64` (a `double`), by name: of the
    /// pairs `NAME`, `NAME.hi`, those whose value given whole is a float.
    /// The others are integers.
    pub doubles: Vec<String>,
    /// The CUDA source its lines are of, under `-lineinfo` (else they are
    /// PTX lines).
    pub cuda_file: Option<String>,
}

/// The kernels of one PTX file.
#[derive(Clone, Debug, Default)]
pub struct PtxModule {
    /// Every `.entry`, in order.
    pub kernels: Vec<PtxKernel>,
}

impl PtxModule {
    /// The kernel called `name`: its CUDA name, full demangled name or
    /// mangled name.
    pub fn get(&self, name: &str) -> Option<&PtxKernel> {
        self.kernels
            .iter()
            .find(|k| k.mangled == name || k.demangled == name)
            .or_else(|| self.kernels.iter().find(|k| k.name == name))
    }
}

/// `_Z5saxpyifPKfPf` as `saxpy` and `saxpy(int, float, float const*,
/// float*)`; a name that is not mangled as itself.
pub fn demangle(mangled: &str) -> (String, String) {
    let Ok(sym) = cpp_demangle::Symbol::new(mangled) else {
        return (mangled.to_owned(), mangled.to_owned());
    };
    let full = sym.demangle().unwrap_or_else(|_| mangled.to_owned());
    let opts = cpp_demangle::DemangleOptions::new()
        .no_params()
        .no_return_type();
    let short = sym
        .demangle_with_options(&opts)
        .unwrap_or_else(|_| full.clone());
    (short, full)
}

/// Lowers every kernel of the PTX text `source` (from the file `file`, for
/// messages and listings).
pub fn compile_ptx(file: &str, source: &str) -> Result<PtxModule, Diagnostics> {
    compile_ptx_with(file, source, &Options::default())
}

/// [`compile_ptx`] with [`Options`].
pub fn compile_ptx_with(
    file: &str,
    source: &str,
    options: &Options,
) -> Result<PtxModule, Diagnostics> {
    let fail = |errors: Vec<PtxError>| Diagnostics {
        file: file.to_owned(),
        source: source.to_owned(),
        errors,
    };
    let tokens = lex::lex(source).map_err(|e| fail(vec![e]))?;
    let module = parse::parse(&tokens).map_err(|e| fail(vec![e]))?;
    if module.address_size != 64 {
        return Err(fail(vec![PtxError::new(
            Pos { line: 1, column: 1 },
            1,
            "only `.address_size 64` is supported",
        )]));
    }
    let mut errors = Vec::new();
    let mut kernels = Vec::new();
    for entry in &module.entries {
        let (name, demangled) = demangle(&entry.name);
        let unrolled;
        let entry = if options.unroll {
            unrolled = unroll::unrolled(entry);
            &unrolled
        } else {
            entry
        };
        match lower::lower(&module, entry, &name, options, file) {
            Ok(l) => kernels.push(PtxKernel {
                name,
                demangled,
                mangled: entry.name.clone(),
                kernel: l.kernel,
                doubles: l.doubles,
                cuda_file: l.cuda_file,
            }),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(PtxModule { kernels })
    } else {
        errors.sort_by_key(|e| e.at);
        Err(fail(errors))
    }
}
