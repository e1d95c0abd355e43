//! The timing model beside the hardware: every row of the H200's
//! measurements (`calibration/h200/timings.csv`, medians of 15 launches of
//! `calibration/seeds.cu`), estimated by the timing model from the same
//! CUDA kernels (nvcc's PTX, `calibration/seeds.ptx`), with the error.
//!
//! Each row runs on the part the measurement was taken on, cut to the load
//! one SM carried: `h200-sxm/1` with 1/132 of the launch's workgroups (and
//! of its problem, where the kernel's addresses depend on the size), the
//! estimate scaled by the workgroups the cut left out. The atomics rows
//! run whole on `h200-sxm`: their cost is one address's serial updates,
//! which a cut would divide.
//!
//! Loops whose trip count is a parameter (the divergence and ILP kernels,
//! 4,096 to 16,384 iterations) are estimated from two shorter runs: the
//! model's time is affine in the trip count once the waves are in their
//! steady state, which [`affine_in_trip_count`] checks on a third point.

use simt::core::{Arg, Bound, LaunchConfig, Part};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// The H200's measurements: `study,kernel,param,median_us,bytes,extra`.
pub const TIMINGS: &str = include_str!("../../calibration/h200/timings.csv");

/// Nsight Compute's counters for one launch of each shape, in launch order.
pub const NCU: &str = include_str!("../../calibration/h200/ncu.csv");

/// nvcc's PTX of `calibration/seeds.cu` (`-arch=sm_90 -lineinfo`).
pub const SEEDS_PTX: &str = include_str!("../../calibration/seeds.ptx");

/// Where the rows come from: the H200's, committed, or those
/// `calibration/run.sh` wrote on another GPU ([`measure_from`]).
struct Source {
    timings: String,
    ncu: String,
    /// The part the rows were measured on.
    part: Part,
    /// Its SMs: the launches of `seeds.cu` size their grids by them.
    sms: u32,
}

static SOURCE: OnceLock<Source> = OnceLock::new();

fn source() -> &'static Source {
    SOURCE.get_or_init(|| Source {
        timings: TIMINGS.to_owned(),
        ncu: NCU.to_owned(),
        part: Part::h200_sxm(),
        sms: 132,
    })
}

/// The part and SMs of the device line of `timings` (a `timings.csv`):
/// `# device,NVIDIA H100 80GB HBM3,sms=132,...` is `h100-sxm`; a GPU simt
/// has no part for, or one whose SMs are not the part's, is an error.
pub fn device_part(timings: &str) -> Result<(Part, u32), String> {
    let device = timings
        .lines()
        .find_map(|l| l.strip_prefix("# device,"))
        .ok_or("timings.csv has no `# device,` line")?;
    let mut fields = device.split(',');
    let name = fields.next().unwrap_or_default();
    let sms: u32 = fields
        .find_map(|f| f.strip_prefix("sms="))
        .and_then(|v| v.parse().ok())
        .ok_or("the device line gives no `sms=`")?;
    let part = match name {
        n if n.contains("H200") => Part::h200_sxm(),
        n if n.contains("H100") => Part::h100_sxm(),
        n => return Err(format!("no part of simt_core::Part is the {n}")),
    };
    if part.memory.compute_units != sms {
        return Err(format!(
            "the {name} has {sms} SMs, simt's {} {}",
            part.name, part.memory.compute_units
        ));
    }
    Ok((part, sms))
}

/// Takes the rows from `dir` (`timings.csv` and `ncu.csv`, as
/// `calibration/run.sh` writes them) instead of the H200's, on the part
/// their device line names (`# device,NVIDIA H100 80GB HBM3,sms=132,...`):
/// so that a run on another GPU checks the fit in one step. Before any
/// other call of this module; an error names what is missing.
pub fn measure_from(dir: &std::path::Path) -> Result<(), String> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let timings = read("timings.csv")?;
    let ncu = read("ncu.csv").unwrap_or_default();
    let (part, sms) = device_part(&timings)?;
    SOURCE
        .set(Source {
            timings,
            ncu,
            part,
            sms,
        })
        .map_err(|_| "the rows were already taken".to_owned())
}

/// One measured row.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// The study (`divergence`, `l1_trio`, ...).
    pub study: String,
    /// The kernel or variant (`diverge`, `conflicted`, ...).
    pub kernel: String,
    /// The launch's parameter (`k=2`, `n=2^28`, ...).
    pub param: String,
    /// The median time, microseconds.
    pub micros: f64,
}

impl Measured {
    /// `study/kernel/param`.
    pub fn name(&self) -> String {
        format!("{}/{}/{}", self.study, self.kernel, self.param)
    }
}

/// The measured rows, in the file's order.
pub fn measured() -> Vec<Measured> {
    source()
        .timings
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("study,"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f.len() == 6).then(|| Measured {
                study: f[0].to_owned(),
                kernel: f[1].to_owned(),
                param: f[2].to_owned(),
                micros: f[3].parse().unwrap_or(f64::NAN),
            })
        })
        .collect()
}

/// An argument of a planned launch.
#[derive(Clone, Debug)]
enum ArgPlan {
    U32(u32),
    F32(f32),
    /// A read-only buffer of this many floats.
    In(usize),
    /// A writable buffer of this many floats.
    Out(usize),
}

/// How one row is run.
#[derive(Clone, Debug)]
struct Plan {
    /// The kernel's CUDA name.
    kernel: &'static str,
    grid: [u32; 3],
    block: [u32; 3],
    args: Vec<ArgPlan>,
    /// Dynamic shared memory per workgroup, bytes.
    shared: u32,
    part: Part,
    /// The factor from the cut's time to the whole launch's (the
    /// workgroups of one SM's share that the cut rounded away).
    scale: f64,
    /// The trip-count argument's index and its value, for the loops
    /// estimated from shorter runs.
    trips: Option<(usize, u32)>,
}

/// Counters of one launch, as Nsight Compute names them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counted {
    /// Warp-level global load requests (`l1tex__t_requests_pipe_lsu_mem_global_op_ld`).
    pub load_requests: f64,
    /// Their sectors (`l1tex__t_sectors_pipe_lsu_mem_global_op_ld`).
    pub load_sectors: f64,
    /// Shared-memory bank conflicts (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared`).
    pub bank_conflicts: f64,
    /// Active threads per warp instruction
    /// (`smsp__thread_inst_executed_per_inst_executed.ratio`).
    pub threads_per_instruction: f64,
    /// DRAM bytes read and written (`dram__bytes_read` + `dram__bytes_write`).
    pub dram_bytes: f64,
    /// Warp instructions executed (`smsp__inst_executed`).
    pub instructions: f64,
}

/// Nsight Compute's counters of launch `id` (its `ID` column).
pub fn ncu(id: usize) -> Option<Counted> {
    let mut c = Counted::default();
    let mut found = false;
    for line in source().ncu.lines().filter(|l| l.starts_with('"')) {
        let f: Vec<&str> = line.trim_matches('"').split("\",\"").collect();
        if f.len() != 15 || f[0].parse::<usize>().ok() != Some(id) {
            continue;
        }
        found = true;
        let v: f64 = f[14].replace(',', "").parse().unwrap_or(f64::NAN);
        match f[12] {
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum" => c.load_requests = v,
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" => c.load_sectors = v,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum" => c.bank_conflicts = v,
            "smsp__thread_inst_executed_per_inst_executed.ratio" => c.threads_per_instruction = v,
            "dram__bytes_read.sum" | "dram__bytes_write.sum" => c.dram_bytes += v,
            "smsp__inst_executed.sum" => c.instructions = v,
            _ => {}
        }
    }
    found.then_some(c)
}

/// The Nsight Compute launch of the row at `index` in [`measured`]: the
/// divergence-against-occupancy rows time two launches each (1 and 32
/// paths) and are the second; every later row comes six launches on.
pub fn ncu_launch(index: usize) -> usize {
    match index {
        0..=6 => index,
        7..=12 => 8 + 2 * (index - 7),
        _ => index + 6,
    }
}

/// The row's estimate beside its measurement.
#[derive(Clone, Debug)]
pub struct Beside {
    /// The row.
    pub row: Measured,
    /// The model's time, microseconds.
    pub estimate: f64,
    /// What limits the launch in the model.
    pub bound: Bound,
    /// The part the row ran on (`h200-sxm/1`).
    pub part: String,
    /// simt's counters of the cut, scaled to the whole launch.
    pub counted: Counted,
    /// The timed launches the estimate took: warp instructions run and
    /// seconds of wall time (the launches alone, on one thread).
    pub simulated: (f64, f64),
}

impl Beside {
    /// The estimate's relative error: `estimate / measured - 1`.
    pub fn error(&self) -> f64 {
        self.estimate / self.row.micros - 1.0
    }
}

/// A row the harness cannot run, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct LeftOut {
    /// The row.
    pub row: String,
    /// Why.
    pub reason: String,
}

impl fmt::Display for LeftOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.row, self.reason)
    }
}

fn value(param: &str, key: &str) -> Option<f64> {
    let v = param.strip_prefix(key)?.strip_prefix('=')?;
    match v.strip_prefix("2^") {
        Some(e) => e.parse::<i32>().ok().map(|e| 2f64.powi(e)),
        None => v.parse().ok(),
    }
}

/// The per-SM share of `blocks` workgroups: whole workgroups, and the
/// factor from their time to the share's.
fn share(blocks: u64) -> (u32, f64) {
    let exact = blocks as f64 / f64::from(source().sms);
    let whole = exact.round().max(1.0);
    (whole as u32, exact / whole)
}

/// The H200's dynamic shared memory per block for the occupancy rows'
/// target of `want` blocks per SM (seeds.cu: `smem_sm / want - 2048`, at
/// most the opt-in maximum; none for 8).
fn occupancy_shared(want: u32) -> u32 {
    const SMEM_SM: u32 = 233_472;
    const OPTIN: u32 = 232_448;
    if want == 8 {
        0
    } else {
        (SMEM_SM / want - 2048).min(OPTIN)
    }
}

/// How measured row `row` runs in simt: its kernel, the cut of its launch
/// that runs, the arguments and the scale from the cut to the launch.
fn plan(row: &Measured) -> Result<Plan, String> {
    let sms = source().sms;
    let iters = 16384u32;
    let p = row.param.as_str();
    Ok(match (row.study.as_str(), row.kernel.as_str()) {
        ("divergence", "diverge") => {
            let k = value(p, "k").ok_or("no k")? as u32;
            let mut plan = cut(
                "diverge",
                4 * u64::from(sms),
                128,
                vec![ArgPlan::U32(k), ArgPlan::U32(iters), ArgPlan::Out(4 * 128)],
            );
            plan.trips = Some((1, iters));
            plan
        }
        ("divergence", "predicated") => {
            let mut plan = cut(
                "predicated",
                4 * u64::from(sms),
                128,
                vec![ArgPlan::U32(iters), ArgPlan::Out(4 * 128)],
            );
            plan.trips = Some((0, iters));
            plan
        }
        ("divergence_occupancy", "diverge") => {
            let warps = value(p, "warps_per_sm").ok_or("no warps_per_sm")? as u32;
            let n = warps / 4;
            let mut plan = cut(
                "diverge",
                u64::from(n) * u64::from(sms),
                128,
                vec![
                    ArgPlan::U32(32),
                    ArgPlan::U32(iters / 4),
                    ArgPlan::Out(n as usize * 128),
                ],
            );
            plan.trips = Some((1, iters / 4));
            plan
        }
        ("branch_split", "split") => {
            let by_warp = u32::from(p == "by_warps");
            let mut plan = cut(
                "split",
                16 * u64::from(sms),
                128,
                vec![
                    ArgPlan::U32(by_warp),
                    ArgPlan::U32(iters),
                    ArgPlan::Out(16 * 128),
                ],
            );
            plan.trips = Some((1, iters));
            plan
        }
        ("l1_trio", kernel) => {
            let threads: u64 = (256 << 20) / 4 / 8;
            let blocks = threads.div_ceil(256);
            let (grid, _) = share(blocks);
            // The cut's own problem: its threads index as the launch's do.
            let t = grid as usize * 256;
            let name = match kernel {
                "warp_strided" => "warp_strided",
                "thread_contiguous" => "thread_contiguous",
                _ => "strided",
            };
            cut(
                name,
                blocks,
                256,
                vec![ArgPlan::U32(t as u32), ArgPlan::In(t * 64), ArgPlan::Out(t)],
            )
        }
        ("saxpy", _) => {
            let n: u64 = 1 << 28;
            let (grid, _) = share(n.div_ceil(256));
            let m = grid as usize * 256;
            cut(
                "saxpy",
                n.div_ceil(256),
                256,
                vec![
                    ArgPlan::U32(m as u32),
                    ArgPlan::F32(2.0),
                    ArgPlan::In(m),
                    ArgPlan::Out(m),
                ],
            )
        }
        ("occupancy_memory" | "occupancy_compute", kernel) => {
            let occ = value(p, "occupancy").ok_or("no occupancy")?;
            let got = (occ * 8.0).round() as u32;
            let shared = occupancy_shared(got);
            if kernel == "copy_stride" {
                // 2^28 floats over the grid: one SM's share of them.
                let n = (1usize << 28) / source().sms as usize;
                let mut plan = cut(
                    "copy_stride",
                    u64::from(got) * u64::from(sms),
                    256,
                    vec![
                        ArgPlan::U32(n as u32),
                        ArgPlan::U32(0),
                        ArgPlan::In(n),
                        ArgPlan::Out(n),
                    ],
                );
                plan.shared = shared;
                plan
            } else {
                let mut plan = cut(
                    "ilp_fma",
                    32 * u64::from(sms),
                    256,
                    vec![ArgPlan::U32(2048), ArgPlan::Out(32 * 256)],
                );
                plan.shared = shared;
                plan.trips = Some((0, 2048));
                plan
            }
        }
        _ => return whole_plan(row),
    })
}

/// A one-SM cut of `blocks` blocks of `block` threads of `kernel` (on one
/// SM of the source part), scaled to the launch.
fn cut(kernel: &'static str, blocks: u64, block: u32, args: Vec<ArgPlan>) -> Plan {
    let (grid, scale) = share(blocks);
    Plan {
        kernel,
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        args,
        shared: 0,
        part: source().part.scaled(1),
        scale,
        trips: None,
    }
}

/// [`plan`] for the rows whose cut is a two-dimensional problem of its own
/// (transposes, matrix products) or the whole launch (atomics).
fn whole_plan(row: &Measured) -> Result<Plan, String> {
    let one = source().part.scaled(1);
    let p = row.param.as_str();
    Ok(match (row.study.as_str(), row.kernel.as_str()) {
        ("transpose", variant) => {
            let rep = value(p, "rep").ok_or("no rep")? as u32;
            let name = match (variant, rep) {
                ("conflicted", 1) => "transpose_conflicted",
                ("padded", 1) => "transpose_padded",
                ("conflicted", _) => "transpose_conflicted_lds",
                _ => "transpose_padded_lds",
            };
            // 8192² in 32x32 tiles: 65,536 tiles, 496.5 per SM; the cut is
            // the square of 22 x 22 tiles.
            let side = 22u32;
            let n = side * 32;
            let scale = 65_536.0 / f64::from(source().sms) / f64::from(side * side);
            Plan {
                kernel: name,
                grid: [side, side, 1],
                block: [32, 8, 1],
                args: vec![
                    ArgPlan::U32(n),
                    ArgPlan::In((n * n) as usize),
                    ArgPlan::Out((n * n) as usize),
                ],
                shared: 0,
                part: one.clone(),
                scale,
                trips: None,
            }
        }
        ("atomics", variant) => {
            let n = value(p, "n").ok_or("no n")?.round() as u32;
            let name = if variant == "one_counter" {
                "atomic_one_counter"
            } else {
                "atomic_per_block"
            };
            Plan {
                kernel: name,
                grid: [n.div_ceil(256), 1, 1],
                block: [256, 1, 1],
                args: vec![ArgPlan::U32(n), ArgPlan::In(n as usize), ArgPlan::Out(1)],
                shared: 0,
                part: source().part.clone(),
                scale: 1.0,
                trips: None,
            }
        }
        ("reference", "vecadd") => {
            let n: u64 = 1 << 26;
            let (grid, _) = share(n.div_ceil(256));
            let m = grid as usize * 256;
            cut(
                "vecadd",
                n.div_ceil(256),
                256,
                vec![
                    ArgPlan::U32(m as u32),
                    ArgPlan::In(m),
                    ArgPlan::In(m),
                    ArgPlan::Out(m),
                ],
            )
        }
        ("reference", kernel @ ("matmul_naive" | "matmul_tiled")) => {
            // 128 x 128 tiles of 16 x 16, 124.1 per SM. The cut is a whole
            // product of its own, 11 x 11 tiles (n = 176), so that its
            // blocks share rows and columns through the L2 as the launch's
            // do; the estimate scales by the tiles and by the k loop's
            // length (2048 / 176).
            let side = 11u32;
            let n = side * 16;
            let tiles = f64::from(side * side);
            let scale = 16_384.0 / f64::from(source().sms) / tiles * (2048.0 / f64::from(n));
            let name = if kernel == "matmul_naive" {
                "matmul_naive"
            } else {
                "matmul_tiled"
            };
            let m = (n * n) as usize;
            Plan {
                kernel: name,
                grid: [side, side, 1],
                block: [16, 16, 1],
                args: vec![
                    ArgPlan::U32(n),
                    ArgPlan::In(m),
                    ArgPlan::In(m),
                    ArgPlan::Out(m),
                ],
                shared: 0,
                part: one.clone(),
                scale,
                trips: None,
            }
        }
        _ => return Err("no plan for this row".into()),
    })
}

/// Runs `plan` with the trip count `trips` (when it has one); the time in
/// microseconds for the whole row and the bound.
fn run(plan: &Plan, trips: Option<u32>) -> Result<(f64, Bound, Counted, (f64, f64)), String> {
    let options = simt_ptx::Options {
        dynamic_shared_bytes: plan.shared,
        ..Default::default()
    };
    let module = simt_ptx::compile_ptx_with("calibration/seeds.ptx", SEEDS_PTX, &options)
        .map_err(|d| d.render(false))?;
    let kernel = &module
        .get(plan.kernel)
        .ok_or_else(|| format!("no kernel {}", plan.kernel))?
        .kernel;
    let mut inputs: Vec<Vec<f32>> = Vec::new();
    let mut outputs: Vec<Vec<f32>> = Vec::new();
    for a in &plan.args {
        match a {
            ArgPlan::In(n) => inputs.push(vec![1.0; *n]),
            ArgPlan::Out(n) => outputs.push(vec![0.0; *n]),
            _ => {}
        }
    }
    let (mut ins, mut outs) = (inputs.iter(), outputs.iter_mut());
    let mut args: Vec<Arg> = Vec::new();
    for (k, a) in plan.args.iter().enumerate() {
        args.push(match a {
            ArgPlan::U32(v) => Arg::U32(match (plan.trips, trips) {
                (Some((at, _)), Some(t)) if at == k => t,
                _ => *v,
            }),
            ArgPlan::F32(v) => Arg::F32(*v),
            ArgPlan::In(_) => Arg::buffer(ins.next().expect("planned").as_slice()),
            ArgPlan::Out(_) => Arg::buffer_mut(outs.next().expect("planned").as_mut_slice()),
        });
    }
    let config = LaunchConfig::new(plan.grid, plan.block).timing(plan.part.clone());
    let clock = std::time::Instant::now();
    let stats = simt::core::launch(kernel, &config, &mut args).map_err(|e| e.to_string())?;
    let simulated = (
        stats.totals.instructions as f64,
        clock.elapsed().as_secs_f64(),
    );
    let t = stats.timing.as_ref().ok_or("no timing")?;
    // The cut's counters, scaled by the launch's work over the cut's: the
    // per-SM cut's blocks times the SMs.
    let times = if plan.part.memory.compute_units == 1 {
        plan.scale * f64::from(source().sms)
    } else {
        1.0
    };
    let program = kernel.program();
    let mut c = Counted::default();
    for (inst, n) in program.insts.iter().zip(&stats.per_instruction) {
        if matches!(
            inst,
            simt::core::Inst::GlobalLoad { .. } | simt::core::Inst::GlobalLoadWide { .. }
        ) {
            c.load_requests += n.global_accesses as f64 * times;
            c.load_sectors += n.global_sectors as f64 * times;
        }
    }
    let totals = &stats.totals;
    c.bank_conflicts = totals.lds_conflict_cycles as f64 * times;
    c.threads_per_instruction =
        totals.active_lanes as f64 / totals.vector_instructions.max(1) as f64;
    c.dram_bytes = totals.dram_sectors as f64 * f64::from(plan.part.memory.sector_bytes) * times;
    c.instructions = totals.instructions as f64 * times;
    Ok((t.microseconds * plan.scale, t.bound(), c, simulated))
}

/// The trip counts the loop rows are estimated from.
const SHORT_TRIPS: [u32; 2] = [256, 512];

/// The model's estimate of `row`, or why it is left out.
pub fn estimate(row: &Measured) -> Result<Beside, LeftOut> {
    let left = |reason: String| LeftOut {
        row: row.name(),
        reason,
    };
    let plan = plan(row).map_err(left)?;
    let (estimate, bound, mut counted, simulated) = match plan.trips {
        None => run(&plan, None).map_err(left)?,
        Some((_, full)) => {
            let (a, _, short, one) = run(&plan, Some(SHORT_TRIPS[0])).map_err(left)?;
            let (b, bound, long, two) = run(&plan, Some(SHORT_TRIPS[1])).map_err(left)?;
            let per_trip = (b - a) / f64::from(SHORT_TRIPS[1] - SHORT_TRIPS[0]);
            // Instructions, as the time, on the line through the two runs.
            let mut counted = long;
            let per = (long.instructions - short.instructions)
                / f64::from(SHORT_TRIPS[1] - SHORT_TRIPS[0]);
            counted.instructions = short.instructions + per * f64::from(full - SHORT_TRIPS[0]);
            (
                a + per_trip * f64::from(full - SHORT_TRIPS[0]),
                bound,
                counted,
                (one.0 + two.0, one.1 + two.1),
            )
        }
    };
    if !counted.instructions.is_finite() {
        counted.instructions = 0.0;
    }
    Ok(Beside {
        row: row.clone(),
        estimate,
        bound,
        part: plan.part.name.to_string(),
        counted,
        simulated,
    })
}

/// Whether the model's time for `row` (a loop row) at a third trip count is
/// on the line through the two short runs, within `tolerance` of it.
pub fn affine_in_trip_count(row: &Measured, third: u32, tolerance: f64) -> Result<bool, String> {
    let plan = plan(row)?;
    if plan.trips.is_none() {
        return Err("not a loop row".into());
    }
    let (a, ..) = run(&plan, Some(SHORT_TRIPS[0]))?;
    let (b, ..) = run(&plan, Some(SHORT_TRIPS[1]))?;
    let (c, ..) = run(&plan, Some(third))?;
    let line = a
        + (b - a) / f64::from(SHORT_TRIPS[1] - SHORT_TRIPS[0]) * f64::from(third - SHORT_TRIPS[0]);
    Ok((c / line - 1.0).abs() <= tolerance)
}

/// The rows the fitted figures of `h200-sxm` came from, each named beside
/// its figure in `simt-core/src/part.rs`: the sustained DRAM read and write
/// bandwidths, the operand reads per cycle, the launch's fixed cost and the
/// loaded DRAM latency. Every other row validates them.
pub const FITTED_ON: &[&str] = &[
    "l1_trio/strided/c",
    "reference/vecadd/n=2^26",
    "divergence/diverge/k=1",
    "atomics/per_block/n=4096",
    "occupancy_memory/copy_stride/occupancy=0.125",
];

/// Whether `row` is one the figures were fitted on.
pub fn fitted_on(row: &Measured) -> bool {
    FITTED_ON.contains(&row.name().as_str())
}

/// Every row: its estimate, or why it is left out. The rows run on the
/// machine's threads (each timed launch runs on one).
pub fn beside_all() -> Vec<Result<Beside, LeftOut>> {
    let rows = measured();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(rows.len().max(1));
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Result<Beside, LeftOut>)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(row) = rows.get(i) else { break };
                let r = estimate(row);
                done.lock().unwrap_or_else(|e| e.into_inner()).push((i, r));
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The mean absolute relative error of `rows`.
pub fn mean_abs_error(rows: &[Beside]) -> f64 {
    rows.iter().map(|r| r.error().abs()).sum::<f64>() / rows.len().max(1) as f64
}

/// The largest absolute relative error of `rows`.
pub fn worst_error(rows: &[Beside]) -> f64 {
    rows.iter().map(|r| r.error().abs()).fold(0.0, f64::max)
}

/// The rows estimated, split into those fitted on and the validation rows.
pub fn split(rows: &[Result<Beside, LeftOut>]) -> (Vec<Beside>, Vec<Beside>) {
    rows.iter()
        .filter_map(|r| r.as_ref().ok().cloned())
        .partition(|b| fitted_on(&b.row))
}

/// The table of `rows` in Markdown: measured, estimate, error, limiter;
/// then the validation error.
pub fn table(rows: &[Result<Beside, LeftOut>]) -> String {
    let mut out = String::from(
        "| row | measured µs | model µs | error | limiter | part |\n|---|---:|---:|---:|---|---|\n",
    );
    for r in rows {
        match r {
            Ok(b) => out.push_str(&format!(
                "| {}{} | {:.1} | {:.1} | {:+.0}% | {:?} | {} |\n",
                b.row.name(),
                if fitted_on(&b.row) { " (fitted)" } else { "" },
                b.row.micros,
                b.estimate,
                100.0 * b.error(),
                b.bound,
                b.part
            )),
            Err(l) => out.push_str(&format!("| {} | | | left out: {} | | |\n", l.row, l.reason)),
        }
    }
    let (fitted, validation) = split(rows);
    out.push_str(&format!(
        "\nValidation, {} rows not fitted on: mean absolute error {:.1}%, worst {:.0}%. The {} rows fitted on: {:.1}%.\n",
        validation.len(),
        100.0 * mean_abs_error(&validation),
        100.0 * worst_error(&validation),
        fitted.len(),
        100.0 * mean_abs_error(&fitted),
    ));
    out
}

/// simt's counters beside Nsight Compute's, per row, in Markdown: the ones
/// simt counts exactly (global load requests and sectors, bank conflicts,
/// threads per instruction) and those its models decide (DRAM bytes below
/// an unbounded L2) or that PTX and SASS count apart (instructions).
pub fn counters_table(rows: &[Result<Beside, LeftOut>]) -> String {
    let mut out = String::from(
        "| row | load requests simt / ncu | load sectors simt / ncu | bank conflicts simt / ncu | threads per instruction simt / ncu | DRAM bytes simt / ncu | instructions PTX / SASS |\n|---|---|---|---|---|---|---|\n",
    );
    let cell = |a: f64, b: f64| {
        if b == 0.0 && a == 0.0 {
            "0 / 0".to_owned()
        } else {
            format!(
                "{} / {} ({:+.1}%)",
                short(a),
                short(b),
                100.0 * (a / b - 1.0)
            )
        }
    };
    for (i, r) in rows.iter().enumerate() {
        let (Ok(b), Some(n)) = (r, ncu(ncu_launch(i))) else {
            continue;
        };
        let c = &b.counted;
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.2} / {:.2} | {} | {} |\n",
            b.row.name(),
            cell(c.load_requests, n.load_requests),
            cell(c.load_sectors, n.load_sectors),
            cell(c.bank_conflicts, n.bank_conflicts),
            c.threads_per_instruction,
            n.threads_per_instruction,
            cell(c.dram_bytes, n.dram_bytes),
            cell(c.instructions, n.instructions),
        ));
    }
    out
}

/// A count in a few digits: `1.23 M`.
fn short(v: f64) -> String {
    match v.abs() {
        x if x >= 1e9 => format!("{:.3} G", v / 1e9),
        x if x >= 1e6 => format!("{:.3} M", v / 1e6),
        x if x >= 1e3 => format!("{:.3} k", v / 1e3),
        _ => format!("{v:.0}"),
    }
}
