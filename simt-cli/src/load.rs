//! The kernels of a file: `.simt` through the front end, `.ptx` through the
//! PTX lowering, `.cu` through nvcc and then the PTX lowering; each with the
//! names it answers to and the text its lines number.

use crate::{failure, usage};
use simt::core::Kernel;
use simt::ptx::{CudaError, PtxModule};
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

/// One kernel of a file.
pub struct Loaded {
    /// The kernel.
    pub kernel: Kernel,
    /// For a kernel of PTX, its full demangled name and its name in the PTX
    /// (`saxpy(int, float, float const*, float*)`, `_Z5saxpyifPKfPf`), which
    /// `--kernel` takes as well as its CUDA name.
    pub ptx_names: Option<(String, String)>,
    /// The file its lines number, as shown, and its text: what a fault is
    /// shown in. `None` when it cannot be read.
    pub source: Option<(String, String)>,
    /// What the listing says when the CUDA file is not found.
    pub note: Option<String>,
    /// For a kernel of PTX, its 64-bit scalars that are doubles
    /// ([`simt::ptx::PtxKernel::doubles`]).
    pub doubles: Vec<String>,
}

impl Loaded {
    /// Whether the listing shows its source lines: a kernel lowered from
    /// PTX, whose instructions are not what its author wrote.
    pub fn shows_source(&self) -> bool {
        self.ptx_names.is_some() && self.source.is_some()
    }

    /// The kernel's name in lists: `saxpy (_Z5saxpyifPKfPf)` for PTX.
    fn listed(&self) -> String {
        let name = &self.kernel.program().name;
        match &self.ptx_names {
            Some((_, mangled)) if mangled != name => format!("{name} ({mangled})"),
            _ => name.to_string(),
        }
    }
}

/// What a file is, by its extension.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Language {
    Simt,
    Ptx,
    Cuda,
}

fn language(file: &Path) -> Language {
    match file.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("ptx") => Language::Ptx,
        Some(e) if e.eq_ignore_ascii_case("cu") => Language::Cuda,
        _ => Language::Simt,
    }
}

/// Whether diagnostics go out in colour: on a terminal, unless `NO_COLOR`.
fn colour() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Every kernel of `file`, or the exit status after saying why not: the
/// diagnostics (in colour on a terminal), why it cannot be read, or an
/// option that does not apply to its kind of file. `consts` are constants
/// of `.simt` templates; `shared_bytes` the dynamic shared memory of PTX
/// and CUDA kernels; `wanted`, the one kernel that will run, where only it
/// needs compiling (a `.simt` template of another name with no instance is
/// then left out).
pub fn load(
    file: &Path,
    consts: &[(String, String)],
    shared_bytes: Option<u32>,
    wanted: Option<&str>,
) -> Result<Vec<Loaded>, ExitCode> {
    let lang = language(file);
    if lang == Language::Simt {
        if shared_bytes.is_some() {
            return Err(usage(&format!(
                "--shared-bytes sizes the `extern __shared__` memory of .ptx and .cu kernels; {} is a .simt file, whose LDS arrays have their sizes",
                file.display()
            )));
        }
        return simt_file(file, consts, wanted);
    }
    if let Some((name, _)) = consts.first() {
        return Err(usage(&format!(
            "--const {name}: constants are given to .simt templates; a CUDA template's instances are kernels of their own in the PTX (--kernel 'name<1, 16>')"
        )));
    }
    let options = simt::ptx::Options {
        dynamic_shared_bytes: shared_bytes.unwrap_or(0),
        ..Default::default()
    };
    let shown = file.display().to_string();
    let (module, ptx) = if lang == Language::Ptx {
        let text = simt_front::read_source(file)
            .map_err(|e| failure(&format!("cannot read {shown}: {e}")))?;
        match simt::compile_ptx_with(&shown, &text, &options) {
            Ok(module) => (module, Some(text)),
            Err(d) => {
                eprint!("{}", d.render(colour()));
                return Err(ExitCode::FAILURE);
            }
        }
    } else {
        if let Err(e) = std::fs::metadata(file) {
            return Err(failure(&format!("cannot read {shown}: {e}")));
        }
        match simt::compile_cuda(file, &options) {
            Ok(module) => (module, None),
            Err(CudaError::Ptx(d)) => {
                eprint!("{}", d.render(colour()));
                eprintln!(
                    "note: {0} is the PTX nvcc wrote for {shown}: `nvcc {1} {shown} -o {0}` writes it to read",
                    d.file,
                    simt::ptx::NVCC_OPTIONS.join(" ")
                );
                return Err(ExitCode::FAILURE);
            }
            Err(e) => return Err(failure(&e.to_string())),
        }
    };
    Ok(ptx_kernels(module, file, ptx.as_deref()))
}

/// The kernels of a `.simt` file.
fn simt_file(
    file: &Path,
    consts: &[(String, String)],
    wanted: Option<&str>,
) -> Result<Vec<Loaded>, ExitCode> {
    let shown = file.display().to_string();
    let source =
        simt_front::read_source(file).map_err(|e| failure(&format!("cannot read {shown}: {e}")))?;
    let kernels = match wanted {
        Some(kernel) => simt_front::compile_file_for(&shown, &source, consts, kernel),
        None => simt_front::compile_file_including(&shown, &source, consts),
    }
    .map_err(|diagnostics| {
        eprint!("{}", diagnostics.render(colour()));
        ExitCode::FAILURE
    })?;
    Ok(kernels
        .into_iter()
        .map(|kernel| Loaded {
            kernel,
            ptx_names: None,
            source: Some((shown.clone(), source.clone())),
            note: None,
            doubles: Vec::new(),
        })
        .collect())
}

/// The kernels of `module`, lowered from `file` (the PTX file, whose text
/// is `ptx`, or the CUDA file nvcc read), each with the text its lines
/// number: the CUDA file its `.loc` lines name, looked for as it is
/// written, then beside `file`; else, without `.loc`, the PTX.
fn ptx_kernels(module: PtxModule, file: &Path, ptx: Option<&str>) -> Vec<Loaded> {
    let beside = file.parent();
    module
        .kernels
        .into_iter()
        .map(|k| {
            let (source, note) = match (&k.cuda_file, ptx) {
                (Some(cu), _) => match simt::ptx::read_cuda_source(cu, beside) {
                    Some((path, text)) => (Some((path.display().to_string(), text)), None),
                    None => (
                        None,
                        Some(format!(
                            "note: {cu}, whose lines the PTX's .loc gives, was found neither from here nor beside {}: the listing shows the instructions of each line",
                            file.display()
                        )),
                    ),
                },
                (None, Some(text)) => (Some((file.display().to_string(), text.to_owned())), None),
                (None, None) => (None, None),
            };
            Loaded {
                kernel: k.kernel,
                ptx_names: Some((k.demangled, k.mangled)),
                source,
                note,
                doubles: k.doubles,
            }
        })
        .collect()
}

/// The kernel `name` names among `kernels` of `file` (its only kernel when
/// no name is given): for PTX its CUDA name, full demangled name or mangled
/// name; or the exit status after saying why not.
pub fn choose(
    mut kernels: Vec<Loaded>,
    file: &Path,
    name: Option<&str>,
) -> Result<Loaded, ExitCode> {
    let names = |kernels: &[&Loaded]| {
        kernels
            .iter()
            .map(|k| k.listed())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let all: Vec<&Loaded> = kernels.iter().collect();
    let index = match (name, kernels.len()) {
        (Some(name), _) => {
            let exact = kernels.iter().position(|k| {
                k.ptx_names
                    .as_ref()
                    .is_some_and(|(demangled, mangled)| demangled == name || mangled == name)
            });
            let by_name: Vec<usize> = (0..kernels.len())
                .filter(|&k| kernels[k].kernel.program().name == name)
                .collect();
            match (exact, &by_name[..]) {
                (Some(k), _) | (None, &[k]) => Ok(k),
                (None, []) => Err(format!(
                    "--kernel {name}: {} has no kernel `{name}`; its kernels are: {}",
                    file.display(),
                    names(&all)
                )),
                (None, several) => {
                    let these: Vec<&Loaded> = several.iter().map(|&k| &kernels[k]).collect();
                    let full: Vec<String> = these
                        .iter()
                        .filter_map(|k| k.ptx_names.as_ref().map(|(d, m)| format!("`{d}` ({m})")))
                        .collect();
                    Err(format!(
                        "--kernel {name}: {} has {} kernels named `{name}`: {}; give the full or the mangled name",
                        file.display(),
                        several.len(),
                        full.join(", ")
                    ))
                }
            }
        }
        (None, 1) => Ok(0),
        (None, n) => Err(format!(
            "{} holds {n} kernels ({}): choose one with --kernel NAME",
            file.display(),
            names(&all)
        )),
    };
    match index {
        Ok(k) => Ok(kernels.swap_remove(k)),
        Err(message) => Err(usage(&message)),
    }
}
