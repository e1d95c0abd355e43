// The module's documentation is the book's chapter `docs/src/guide/cuda.md` (see `lib.rs`).

pub use simt_ptx::{
    compile_ptx, compile_ptx_with, demangle, Diagnostics, Options, Pos, PtxError, PtxKernel,
    PtxModule,
};

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What installs nvcc where [`find_nvcc`] looks for it, without a GPU or a
/// CUDA toolkit: NVIDIA's packages on PyPI.
pub const INSTALL_NVCC: &str =
    "pip install nvidia-cuda-nvcc nvidia-cuda-crt nvidia-nvvm nvidia-cuda-runtime";

/// nvcc's options for [`compile_cuda`]: PTX for sm_90 (the Hopper target
/// simt's NVIDIA model and parts describe), with `.loc` lines so that the
/// listing counts CUDA lines.
pub const NVCC_OPTIONS: [&str; 3] = ["-arch=sm_90", "-ptx", "-lineinfo"];

/// Why a CUDA file gave no kernels.
#[derive(Debug)]
pub enum CudaError {
    /// No nvcc was found; the message says where it was looked for.
    NoNvcc(String),
    /// nvcc ran and failed: the command and what it printed.
    Nvcc {
        /// The command line, as a shell would take it.
        command: String,
        /// Its standard error, then its standard output.
        output: String,
    },
    /// A file could not be read or written, or nvcc could not be started.
    Io {
        /// What was being done (`cannot run /usr/bin/nvcc`).
        what: String,
        /// Why not.
        error: std::io::Error,
    },
    /// nvcc's PTX did not lower: the diagnostics, against the PTX text,
    /// with the file named `CU.ptx` (the name `nvcc -ptx CU -o CU.ptx`
    /// writes, to read it).
    Ptx(Diagnostics),
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CudaError::NoNvcc(message) => f.write_str(message),
            CudaError::Nvcc { command, output } => {
                write!(f, "`{command}` failed:\n{}", output.trim_end())
            }
            CudaError::Io { what, error } => write!(f, "{what}: {error}"),
            CudaError::Ptx(d) => f.write_str(d.render(false).trim_end()),
        }
    }
}

impl std::error::Error for CudaError {}

/// The nvcc that [`compile_cuda`] runs: the file `SIMT_NVCC` names when it
/// is set; else `nvcc` on `PATH`; else the newest `nvidia/cu*/bin/nvcc` of
/// the Python packages `python3` imports (where [`INSTALL_NVCC`] puts it).
pub fn find_nvcc() -> Result<PathBuf, CudaError> {
    if let Some(named) = std::env::var_os("SIMT_NVCC").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(named);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(CudaError::NoNvcc(format!(
                "SIMT_NVCC is `{}`, which is not a file: set it to nvcc's path, or unset it to look on PATH and in Python's packages",
                path.display()
            )))
        };
    }
    let exe = format!("nvcc{}", std::env::consts::EXE_SUFFIX);
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join(&exe))
        .find(|p| p.is_file());
    if let Some(path) = on_path {
        return Ok(path);
    }
    pip_nvcc(&exe).ok_or_else(|| {
        CudaError::NoNvcc(format!(
            "nvcc was not found (not in SIMT_NVCC, not on PATH, not in python3's nvidia/cu*/bin); install it with\n    {INSTALL_NVCC}\nor set SIMT_NVCC to its path"
        ))
    })
}

/// The nvcc of NVIDIA's PyPI packages that `python3` imports, the newest
/// CUDA first (`cu13` before `cu12`).
fn pip_nvcc(exe: &str) -> Option<PathBuf> {
    // `nvidia` is a namespace package: its path lists every folder that
    // holds a part of it (site-packages, the user's site, a virtualenv).
    let out = Command::new("python3")
        .args([
            "-c",
            "import nvidia, sys; sys.stdout.write('\\n'.join(nvidia.__path__))",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let mut found = Vec::new();
    for dir in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let version = name.strip_prefix("cu").and_then(|v| v.parse::<u32>().ok());
            let nvcc = entry.path().join("bin").join(exe);
            if let Some(version) = version.filter(|_| nvcc.is_file()) {
                found.push((version, nvcc));
            }
        }
    }
    found.into_iter().max().map(|(_, nvcc)| nvcc)
}

/// The PTX of the CUDA file `cu`, as `nvcc -arch=sm_90 -ptx -lineinfo`
/// writes it ([`NVCC_OPTIONS`]), by the nvcc [`find_nvcc`] finds.
pub fn cuda_to_ptx(cu: &Path) -> Result<String, CudaError> {
    nvcc_ptx(cu, None)
}

/// [`cuda_to_ptx`] with nvcc run in the folder `cwd` (`cu` relative to it),
/// so that its messages name `cu` as given.
fn nvcc_ptx(cu: &Path, cwd: Option<&Path>) -> Result<String, CudaError> {
    let nvcc = find_nvcc()?;
    let dir = temporary_folder()?;
    let ptx = dir.path().join("kernels.ptx");
    let mut command = Command::new(&nvcc);
    command.args(NVCC_OPTIONS).arg(cu).arg("-o").arg(&ptx);
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let shown = format!(
        "{} {} {} -o {}",
        nvcc.display(),
        NVCC_OPTIONS.join(" "),
        cu.display(),
        ptx.display()
    );
    let out = command.output().map_err(|error| CudaError::Io {
        what: format!("cannot run {}", nvcc.display()),
        error,
    })?;
    if !out.status.success() {
        let mut output = String::from_utf8_lossy(&out.stderr).into_owned();
        output.push_str(&String::from_utf8_lossy(&out.stdout));
        if output.trim().is_empty() {
            output = format!("nvcc exited with {}", out.status);
        }
        return Err(CudaError::Nvcc {
            command: shown,
            output,
        });
    }
    std::fs::read_to_string(&ptx).map_err(|error| CudaError::Io {
        what: format!("cannot read nvcc's output {}", ptx.display()),
        error,
    })
}

/// A folder of its own for nvcc's files, removed when dropped.
fn temporary_folder() -> Result<tempfile::TempDir, CudaError> {
    tempfile::Builder::new()
        .prefix("simt-nvcc-")
        .tempdir()
        .map_err(|error| CudaError::Io {
            what: "cannot make a temporary folder for nvcc".to_owned(),
            error,
        })
}

/// Every kernel of the CUDA file `cu`, through nvcc's PTX ([`cuda_to_ptx`],
/// then [`compile_ptx_with`]). Their lines are lines of `cu` (or of the
/// header a kernel is written in); the diagnostics of PTX that does not
/// lower name it `CU.ptx`.
pub fn compile_cuda(cu: &Path, options: &Options) -> Result<PtxModule, CudaError> {
    let ptx = cuda_to_ptx(cu)?;
    let name = format!("{}.ptx", cu.display());
    compile_ptx_with(&name, &ptx, options).map_err(CudaError::Ptx)
}

/// [`compile_cuda`] of CUDA source text, as the file `name` (`kernels.cu`)
/// would be: written to a temporary folder for nvcc, so its kernels'
/// [`cuda_file`](PtxKernel::cuda_file) names a file that no longer exists
/// when this returns (their lines are lines of `source`).
pub fn compile_cuda_source(
    name: &str,
    source: &str,
    options: &Options,
) -> Result<PtxModule, CudaError> {
    // Only the file name: `name` says how messages call the text, not
    // where to write it.
    let file = Path::new(name)
        .file_name()
        .map_or_else(|| PathBuf::from("kernels.cu"), PathBuf::from);
    let dir = temporary_folder()?;
    std::fs::write(dir.path().join(&file), source).map_err(|error| CudaError::Io {
        what: format!("cannot write {} for nvcc", dir.path().join(&file).display()),
        error,
    })?;
    let ptx = nvcc_ptx(&file, Some(dir.path()))?;
    compile_ptx_with(&format!("{}.ptx", file.display()), &ptx, options).map_err(CudaError::Ptx)
}

/// The text of the CUDA file a kernel's `.loc` lines name
/// ([`PtxKernel::cuda_file`], as nvcc wrote it in `.file`): the path as it
/// is (absolute, or relative to the current folder), else relative to
/// `beside` (the PTX file's folder), else its file name in `beside`; the
/// path read and its text, or `None` when none of them reads.
pub fn read_cuda_source(named: &str, beside: Option<&Path>) -> Option<(PathBuf, String)> {
    let named = Path::new(named);
    let mut candidates = vec![named.to_path_buf()];
    if let Some(dir) = beside {
        candidates.push(dir.join(named));
        if let Some(name) = named.file_name() {
            candidates.push(dir.join(name));
        }
    }
    candidates
        .into_iter()
        .find_map(|path| std::fs::read_to_string(&path).ok().map(|text| (path, text)))
}
