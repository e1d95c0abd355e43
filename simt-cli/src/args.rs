//! The command line, with clap's derive API as in the report.

use crate::inputs::Slice;
use clap::{Parser, Subcommand, ValueEnum};
use simt::core::{Dim3, MemoryModel, Schedule};
use simt_report::args::{parse_model, parse_part, parse_path, parse_schedule, DEFAULT_SEED};
use std::num::NonZeroU32;
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  simt check kernels.simt
      Prints every mistake as rustc does; exits 1 when there is one.
  simt run vecadd.simt --groups 4 --size 64
      Runs the file's one kernel on 4 workgroups of 64 work-items, its buffers
      of 256 elements filled from seed 42, and prints the counters table and
      the listing per source line with hints.
  simt run kernels.simt --kernel saxpy --groups 2 --size 128 --arg a=2.5 \\
      --arg n=256 --buffer x=x.npy --buffer y=y.raw --out-dir out
      Picks one of several kernels, gives its scalars, reads `x` from a .npy
      file and `y` from raw little-endian bytes, and writes every `&mut`
      buffer after the launch to out/NAME.npy.
  simt run histogram.simt --groups 16 --size 256 --buffer bins=zeros:256 \
      --print bins[0..16] --out-dir out
      Starts `bins` at zero, prints its first 16 counts after the launch, and
      writes the generated input beside the output (out/NAME.input.npy).
  simt run transpose.simt --kernel transpose --const PAD=1 --groups 4x4 --size 32x8 --arg n=128
      Runs the template `transpose<const PAD: u32>` with PAD = 1.
  generate-kernel > gen.simt && simt run gen.simt --groups 1 --size 64 --json gen.json
      Runs a kernel that a program printed, and writes the report's JSON.
  simt run saxpy.cu --kernel saxpy --groups 4 --size 64 --arg _Z5saxpyifPKfPf_param_0=256 \
      --arg _Z5saxpyifPKfPf_param_1=2 --buffer _Z5saxpyifPKfPf_param_3=zeros
      Runs a CUDA kernel through nvcc's PTX (nvcc -arch=sm_90 -ptx -lineinfo;
      `simt run saxpy.ptx` takes the PTX itself), its parameters by their PTX
      names, and lists the counters per CUDA line.

Buffers: each buffer parameter gets groups x size elements unless --buffer
gives a length, a fill or a file. Generated elements come from SplitMix64
seeded with the seed plus the parameter's position (0 for the first
parameter): integers uniform in 0..=99, floats uniform in [-1, 1). Writable
(`&mut`) buffers are filled the same way, since a kernel may read them before
writing; give `zeros` for a buffer the kernel accumulates into. `zeros`,
`fill:VALUE` and `iota` (element k is k, wrapping at the type's width) take an
optional `:LEN`; VALUE is read as the element type (decimal, or 0x hex for an
integer's bits). A FILE ending in .npy must hold the buffer's element type (u1
i1 u2 i2 u4 i4 f4, either byte order, C order); any other file is read as raw
little-endian elements (`./zeros` for a file of that name).

Races: below 65,536 work-items `simt run` runs the sanitizers (races,
uninitialised reads) unless --no-sanitize; above, only with --sanitize, and it
says so in one line. Without them, the races the static facts prove for the
launch's shape are still reported, as warnings. `simt check --size M` reports
the proved races of every kernel for workgroups of M work-items.

Exit status: 0 on success; 1 when the file has errors, a launch faults, the
sanitizers find a race or an uninitialised read, there is a warning under
--deny warnings, `simt check --size` proves a race, or an output cannot be
written; 2 when the command line is wrong (an unknown or repeated
--arg or --buffer, a bad value, a missing scalar).

CUDA: a .cu file needs nvcc, from SIMT_NVCC, PATH or Python's packages
(pip install nvidia-cuda-nvcc nvidia-cuda-crt nvidia-nvvm nvidia-cuda-runtime).
Pointers are buffers, of the element type the kernel loads and stores;
--shared-bytes gives `extern __shared__` memory its size.";

/// `simt`: checks and runs kernels written in files.
#[derive(Debug, Parser)]
#[command(
    name = "simt",
    about = "Checks and runs kernels written in files (.simt), each exactly as inside \
             `simt_kernel!`, and CUDA kernels as nvcc's PTX (.ptx, or .cu through nvcc), on \
             the simt interpreter, printing its counters per launch and per source line.",
    after_help = EXAMPLES
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Checks every kernel of FILE: prints its errors as rustc does, or one
    /// line per kernel when there is none.
    #[command(after_help = EXAMPLES)]
    Check {
        /// The kernel file: .simt, .ptx (nvcc's PTX) or .cu (through nvcc).
        file: PathBuf,
        /// A constant of the templates the file leaves without instances:
        /// each template whose constants are all given is checked as one
        /// kernel of its own name.
        #[arg(long = "const", value_name = "NAME=VALUE", value_parser = parse_assignment)]
        consts: Vec<(String, String)>,
        /// Bytes of dynamic shared memory (`extern __shared__`, CUDA's third
        /// launch parameter) for the kernels of a .ptx or .cu file.
        #[arg(long, value_name = "N")]
        shared_bytes: Option<u32>,
        /// Also report, as errors, the races the static facts prove for
        /// workgroups of this shape (`M`, `XxY` or `XxYxZ`).
        #[arg(long, value_name = "M", value_parser = parse_shape)]
        size: Option<Dim3>,
        /// With --size: the workgroups of the grid the races are searched in
        /// (two or more along an axis let workgroups race with each other).
        #[arg(long, value_name = "N", default_value = "2", value_parser = parse_shape, requires = "size")]
        groups: Dim3,
        /// With --size: lanes per wave.
        #[arg(long, value_name = "32|64", default_value = "32", value_parser = parse_width, requires = "size")]
        width: u32,
    },
    /// Runs one kernel of FILE and prints its counters table and its listing
    /// per source line with hints.
    #[command(after_help = EXAMPLES)]
    Run(Box<Run>),
    /// Runs one kernel of FILE at every point of a grid of shapes, wave
    /// widths, models or parts and scalar values, and prints one JSON line
    /// per point: the point, then the launch's counters.
    #[command(after_help = SWEEP_EXAMPLES)]
    Sweep(Box<Sweep>),
}

const SWEEP_EXAMPLES: &str = "\
Examples:
  simt sweep strided.simt --groups 1 --size 64 --width 32,64 --model reference,nvidia \\
      --arg stride=0,1,2,16,32
      Launches the file's one kernel 20 times, the last axis (--arg) varying
      fastest, and prints 20 JSON lines.
  simt sweep saxpy.simt --groups 16,64,256 --size 256 --part h100-sxm/4 --arg a=2 \\
      --arg n=4096,16384,65536 --out saxpy.jsonl
      Adds the timing model's estimate to each line, written to saxpy.jsonl.

Axes, slowest first: --groups, --size, --width, --model or --part, then each
--arg in the order given. Buffers are made per point as `simt run` makes
them (--buffer specs, else groups x size elements from the seed). Every
point's --arg values are checked before the first launch. Launches run
without the sanitizers. A line is the record `simt.sweep` gives too: the
kernel, groups, size, wave_width, model (and part), each --arg as a number
under its name (as `point.NAME` where the name is one of the record's own
fields), `workgroups`, `waves`, the counters and, with a part,
`estimate_cycles`, `estimate_us` and `limited_by`. A point whose launch fails prints a line with its `error`, and
the command exits with 1 when the sweep is over.";

/// What `simt sweep` is given: `simt run`'s options, each axis a
/// comma-separated list.
#[derive(Debug, clap::Args)]
pub struct Sweep {
    /// The kernel file: .simt, .ptx (nvcc's PTX) or .cu (through nvcc).
    pub file: PathBuf,
    /// The kernel to run; needed when the file holds several. A PTX kernel
    /// answers to its CUDA name (`saxpy`), its full demangled name and its
    /// mangled name.
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// A constant of the file's templates, as for `simt run`.
    #[arg(long = "const", value_name = "NAME=VALUE", value_parser = parse_assignment)]
    pub consts: Vec<(String, String)>,
    /// Bytes of dynamic shared memory (`extern __shared__`, CUDA's third
    /// launch parameter) for a .ptx or .cu kernel.
    #[arg(long, value_name = "N")]
    pub shared_bytes: Option<u32>,
    /// Workgroups in the grid, each `N`, `XxY` or `XxYxZ`.
    #[arg(long, value_name = "N,...", value_parser = parse_shape, value_delimiter = ',', required = true)]
    pub groups: Vec<Dim3>,
    /// Work-items per workgroup, each `M`, `XxY` or `XxYxZ`.
    #[arg(long, value_name = "M,...", value_parser = parse_shape, value_delimiter = ',', required = true)]
    pub size: Vec<Dim3>,
    /// Lanes per wave.
    #[arg(long, value_name = "32|64,...", default_value = "32", value_parser = parse_width, value_delimiter = ',')]
    pub width: Vec<u32>,
    /// Memory models.
    #[arg(long, value_name = "NAME,...", default_value = "reference", value_parser = parse_model, value_delimiter = ',')]
    pub model: Vec<MemoryModel>,
    /// Parts to time each launch on (their memory models replace --model's).
    #[arg(long, value_name = "PART,...", value_parser = parse_part, value_delimiter = ',', conflicts_with = "model")]
    pub part: Vec<simt::core::Part>,
    /// Seed of the generated buffers.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// A scalar parameter's values, `NAME=V1,V2,...`: one axis each.
    #[arg(long = "arg", value_name = "NAME=V,...", value_parser = parse_assignment)]
    pub args: Vec<(String, String)>,
    /// A buffer's contents, as for `simt run`.
    #[arg(long = "buffer", value_name = "NAME=SPEC", value_parser = parse_assignment)]
    pub buffers: Vec<(String, String)>,
    /// Write the JSON lines to this file instead of standard output.
    #[arg(long, value_name = "PATH", value_parser = parse_path)]
    pub out: Option<PathBuf>,
}

/// What `simt run` is given.
#[derive(Debug, clap::Args)]
#[command(args_override_self = true)]
pub struct Run {
    /// The kernel file: .simt, .ptx (nvcc's PTX) or .cu (through nvcc).
    pub file: PathBuf,
    /// The kernel to run; needed when the file holds several. A PTX kernel
    /// answers to its CUDA name (`saxpy`), its full demangled name and its
    /// mangled name.
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// A constant of the templates the file leaves without instances (a
    /// constant expression): each template whose constants are all given
    /// runs as one kernel of its own name.
    #[arg(long = "const", value_name = "NAME=VALUE", value_parser = parse_assignment)]
    pub consts: Vec<(String, String)>,
    /// Bytes of dynamic shared memory (`extern __shared__`, CUDA's third
    /// launch parameter) for a .ptx or .cu kernel.
    #[arg(long, value_name = "N")]
    pub shared_bytes: Option<u32>,
    /// Workgroups in the grid: `N`, or `XxY` or `XxYxZ` for more dimensions.
    #[arg(long, value_name = "N", value_parser = parse_shape)]
    pub groups: Dim3,
    /// Work-items per workgroup: `M`, or `XxY` or `XxYxZ` (`16x16` for a
    /// kernel declaring `#[workgroup_size(16, 16)]`).
    #[arg(long, value_name = "M", value_parser = parse_shape)]
    pub size: Dim3,
    /// Lanes per wave.
    #[arg(long, value_name = "32|64", default_value = "32", value_parser = parse_width)]
    pub width: u32,
    /// Memory model: one of the presets of `simt::core::MemoryModel`.
    #[arg(long, value_name = "NAME", default_value = "reference", value_parser = parse_model)]
    pub model: MemoryModel,
    /// Estimate the launch's time on this part with the timing model: the
    /// cycles, what limits it, and where the waves wait per line (its memory
    /// model replaces --model's): h100-sxm, h200-sxm, mi300x or rx7900xtx,
    /// each also as NAME/N for N units.
    #[arg(long, value_name = "PART", value_parser = parse_part, conflicts_with = "model")]
    pub part: Option<simt::core::Part>,
    /// How the waves of a workgroup take turns.
    #[arg(long, value_name = "ORDER", default_value = "until-barrier", value_parser = parse_schedule)]
    pub schedule: Schedule,
    /// Run the sanitizers (races, uninitialised reads) and list what they
    /// find: the default for launches below 65,536 work-items.
    #[arg(long, conflicts_with = "no_sanitize")]
    pub sanitize: bool,
    /// Do not run the sanitizers; the races the static facts prove for the
    /// launch are still reported, as warnings.
    #[arg(long)]
    pub no_sanitize: bool,
    /// `--deny warnings`: exit with 1 when there is a warning (a race the
    /// facts prove, reported without the sanitizers).
    #[arg(long, value_name = "warnings")]
    pub deny: Option<Deny>,
    /// Seed of the generated buffers.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// A scalar parameter's value, typed by the kernel (u32 and i32 in decimal
    /// or 0x hex, f32 as Rust writes it); every scalar needs one. A PTX
    /// kernel's 64-bit scalar NAME, taken as the words NAME and NAME.hi,
    /// takes one 64-bit value.
    #[arg(long = "arg", value_name = "NAME=VALUE", value_parser = parse_assignment)]
    pub args: Vec<(String, String)>,
    /// A buffer's contents: LEN elements from the seed, `zeros[:LEN]`,
    /// `fill:VALUE[:LEN]`, `iota[:LEN]` (0, 1, 2, ...), or a file to read
    /// (.npy, or raw little-endian elements).
    #[arg(long = "buffer", value_name = "NAME=SPEC", value_parser = parse_assignment)]
    pub buffers: Vec<(String, String)>,
    /// Print a buffer's elements after the launch: NAME (its first 64),
    /// NAME[a..b], NAME[a..], NAME[..b] or NAME[k].
    #[arg(long = "print", value_name = "NAME[a..b]", value_parser = Slice::parse)]
    pub print: Vec<Slice>,
    /// Also write the report's HTML page (table, listing, pictures).
    #[arg(long, value_name = "PATH", value_parser = parse_path)]
    pub html: Option<PathBuf>,
    /// Also write the report's JSON.
    #[arg(long, value_name = "PATH", value_parser = parse_path)]
    pub json: Option<PathBuf>,
    /// Write each writable (`&mut`) buffer after the launch to DIR/NAME.npy
    /// (or DIR/NAME.bin with --out-format raw), and each buffer not read
    /// from a file as it was before the launch to DIR/NAME.input.npy (or
    /// .input.bin).
    #[arg(long, value_name = "DIR", value_parser = parse_path)]
    pub out_dir: Option<PathBuf>,
    /// The format of --out-dir's files: NumPy's .npy (1-D, little-endian), or
    /// raw little-endian elements (.bin).
    #[arg(long, value_name = "FORMAT", default_value = "npy")]
    pub out_format: OutFormat,
}

/// What `--deny` turns into errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Deny {
    /// Every warning.
    Warnings,
}

/// How output buffers are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    /// NumPy's .npy.
    Npy,
    /// Raw little-endian elements.
    Raw,
}

/// `N`, `XxY` or `XxYxZ`, each a positive integer.
fn parse_shape(value: &str) -> Result<Dim3, String> {
    let usage = || format!("expected N, XxY or XxYxZ with positive integers, got `{value}`");
    let dims = value
        .split('x')
        .map(|d| d.trim().parse::<NonZeroU32>().map(NonZeroU32::get))
        .collect::<Result<Vec<u32>, _>>()
        .map_err(|_| usage())?;
    match dims[..] {
        [x] => Ok(Dim3::new(x, 1, 1)),
        [x, y] => Ok(Dim3::new(x, y, 1)),
        [x, y, z] => Ok(Dim3::new(x, y, z)),
        _ => Err(usage()),
    }
}

pub use simt_report::sweep::shape_text;

fn parse_width(value: &str) -> Result<u32, String> {
    match value {
        "32" => Ok(32),
        "64" => Ok(64),
        _ => Err("expected 32 or 64".to_owned()),
    }
}

/// `NAME=VALUE`, split at the first `=`.
fn parse_assignment(value: &str) -> Result<(String, String), String> {
    match value.split_once('=') {
        Some((name, v)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), v.trim().to_owned()))
        }
        _ => Err(format!("expected NAME=VALUE, found `{value}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_derived_parser_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn assignments_split_at_the_first_equals_sign() {
        assert_eq!(
            parse_assignment("x=a=b.npy"),
            Ok(("x".to_owned(), "a=b.npy".to_owned()))
        );
        assert!(parse_assignment("x").is_err());
        assert!(parse_assignment("=3").is_err());
    }
}
