//! The table of kernels: how to build each one's inputs from a seed, launch it, and
//! check it against its oracle. The tests and the report iterate over [`KERNELS`].

use crate::kernels::{branch, elementwise, lds, matmul, reduce};
use crate::output::{Mismatch, Values};
use simt::core::{Error, LaunchConfig, MemoryModel, Program, Stats};

/// A kernel's inputs and output buffers for one seed, ready to launch any number of times.
pub trait Workload {
    /// Restores the output buffer to its contents before the first launch (kernels
    /// that update in place, such as saxpy, would otherwise compound).
    fn reset(&mut self);
    /// Launches the kernel once on the current buffers.
    fn launch(&mut self, config: &LaunchConfig) -> Result<Stats, Error>;
    /// The output buffer as it is now.
    fn output(&self) -> Values;
    /// What the scalar oracle computed from the same inputs.
    fn expected(&self) -> Values;
}

/// One entry of the registry.
#[derive(Clone, Copy)]
pub struct KernelSpec {
    /// The kernel's name (also the name of its generated module).
    pub name: &'static str,
    /// What it computes, in one line.
    pub summary: &'static str,
    /// Its IR.
    pub program: &'static Program,
    /// Workgroups in the grid (1-D).
    pub grid: u32,
    /// Work-items per workgroup (1-D).
    pub workgroup: u32,
    /// Builds the inputs from a seed and runs the oracle on them.
    pub prepare: fn(seed: u64) -> Box<dyn Workload>,
}

impl std::fmt::Debug for KernelSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelSpec")
            .field("name", &self.name)
            .field("grid", &self.grid)
            .field("workgroup", &self.workgroup)
            .finish_non_exhaustive()
    }
}

/// Two entries are the same kernel when their names are equal (names are unique).
impl PartialEq for KernelSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// The outcome of one launch: its statistics, its output and the oracle's.
#[derive(Clone, Debug)]
pub struct Run {
    /// The launch's statistics.
    pub stats: Stats,
    /// The output buffer after the launch.
    pub output: Values,
    /// The oracle's output.
    pub expected: Values,
}

impl Run {
    /// Whether the output equals the oracle's bit for bit.
    pub fn passed(&self) -> bool {
        self.output == self.expected
    }

    /// The first element where the output differs from the oracle's.
    pub fn mismatch(&self) -> Option<Mismatch> {
        self.output.first_mismatch(&self.expected)
    }
}

impl KernelSpec {
    /// The launch configuration of this kernel's standard size at `wave_width`
    /// under `model`.
    pub fn config(&self, wave_width: u32, model: MemoryModel) -> LaunchConfig {
        LaunchConfig::new(self.grid, self.workgroup)
            .wave_width(wave_width)
            .model(model)
    }

    /// Builds the inputs for `seed`, launches once with `config`, and returns the
    /// statistics with both outputs.
    pub fn run(&self, seed: u64, config: &LaunchConfig) -> Result<Run, Error> {
        let mut workload = (self.prepare)(seed);
        let stats = workload.launch(config)?;
        Ok(Run {
            stats,
            output: workload.output(),
            expected: workload.expected(),
        })
    }
}

/// Every kernel, in the order of the reference simulator's table.
pub static KERNELS: &[KernelSpec] = &[
    elementwise::VECADD_I32,
    elementwise::VECADD_F32,
    elementwise::SAXPY_F32,
    branch::DIVERGENT_COLLATZ_I32,
    reduce::REDUCE_I32,
    reduce::REDUCE_F32,
    matmul::MATMUL_NAIVE_F32,
    matmul::MATMUL_TILED_F32,
    elementwise::COPY_COALESCED_F32,
    elementwise::COPY_STRIDED_F32,
    lds::LDS_CONFLICT_HEAVY_I32,
];

/// The kernel called `name`.
pub fn find(name: &str) -> Option<&'static KernelSpec> {
    KERNELS.iter().find(|k| k.name == name)
}

/// The names of all kernels, in table order.
pub fn names() -> impl Iterator<Item = &'static str> {
    KERNELS.iter().map(|k| k.name)
}

/// A workload with one output buffer of `T`: the common shape of every kernel here.
pub(crate) struct Case<I, T> {
    inputs: I,
    initial: Vec<T>,
    out: Vec<T>,
    expected: Vec<T>,
    launch: fn(&LaunchConfig, &I, &mut [T]) -> Result<Stats, Error>,
}

impl<I: 'static, T: Copy + 'static> Case<I, T>
where
    Vec<T>: Into<Values>,
{
    /// A boxed workload whose output starts as `initial`.
    pub(crate) fn boxed(
        inputs: I,
        initial: Vec<T>,
        expected: Vec<T>,
        launch: fn(&LaunchConfig, &I, &mut [T]) -> Result<Stats, Error>,
    ) -> Box<dyn Workload> {
        Box::new(Case {
            inputs,
            out: initial.clone(),
            initial,
            expected,
            launch,
        })
    }
}

impl<I, T: Copy> Workload for Case<I, T>
where
    Vec<T>: Into<Values>,
{
    fn reset(&mut self) {
        self.out.copy_from_slice(&self.initial);
    }

    fn launch(&mut self, config: &LaunchConfig) -> Result<Stats, Error> {
        (self.launch)(config, &self.inputs, &mut self.out)
    }

    fn output(&self) -> Values {
        self.out.clone().into()
    }

    fn expected(&self) -> Values {
        self.expected.clone().into()
    }
}
