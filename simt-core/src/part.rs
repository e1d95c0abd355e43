//! Parts: one GPU's memory geometry, occupancy resources and timing figures.
//!
//! A [`Part`] is what a timed launch names ([`LaunchConfig::timing`]): its
//! [`MemoryModel`] decides the counters, its [`Hardware`] how many workgroups a
//! unit holds, and its [`Clocks`] how long each issue, access and barrier
//! takes in the timing model. Every figure is a published vendor figure or a
//! published measurement; the comments say which. The figures no source gives
//! are this model's choices and say so.
//!
//! [`LaunchConfig::timing`]: crate::LaunchConfig::timing

use crate::model::MemoryModel;
use crate::occupancy::Hardware;
use serde::Serialize;
use std::borrow::Cow;

/// The timing figures of a part: clock, issue, latencies and bandwidths.
///
/// Latencies are load-to-use, in core cycles. Bandwidths are bytes per core
/// cycle: per unit for the L1, for the whole chip for the L2, and GB/s for
/// DRAM. The LDS serves one phase per cycle (32 banks of 4 bytes: 128 bytes
/// per cycle on every preset), plus one cycle per conflict cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Clocks {
    /// Core clock, MHz (the boost clock).
    pub clock_mhz: u32,
    /// 32-bit ALU lanes one scheduler (SIMD) executes per cycle: a wave
    /// instruction takes `wave_width / simd_lanes` issue cycles.
    pub simd_lanes: u32,
    /// Cycles from a dependent vector ALU instruction's issue to its result.
    pub alu_latency: u32,
    /// LDS load latency, cycles.
    pub lds_latency: u32,
    /// L1 hit latency, cycles.
    pub l1_latency: u32,
    /// L1 bytes per cycle per unit.
    pub l1_bytes_per_cycle: u32,
    /// L2 hit latency, cycles.
    pub l2_latency: u32,
    /// L2 bytes per cycle, whole chip.
    pub l2_bytes_per_cycle: u32,
    /// DRAM load latency, cycles.
    pub dram_latency: u32,
    /// DRAM bandwidth, GB/s (10^9 bytes per second), whole chip.
    pub dram_gbps: u32,
    /// Cycles from the last wave's arrival at a barrier to the workgroup's
    /// release.
    pub barrier_latency: u32,
    /// The share of `dram_gbps` a stream of reads sustains, percent (refresh
    /// and page misses take the rest).
    pub dram_read_pct: u32,
    /// The share of `dram_gbps` written-back sectors would sustain alone,
    /// percent: a written byte takes `dram_read_pct / dram_write_pct` times a
    /// read byte's time on the bus (the read/write turnaround).
    pub dram_write_pct: u32,
    /// Distinct vector registers one scheduler reads per issue cycle; an
    /// instruction reading more issues over more cycles (register-file
    /// bank conflicts). 0: no limit.
    pub operand_reads_per_cycle: u32,
    /// A launch's fixed cost, cycles: from the launch to its first
    /// workgroup, and from its last wave's end to the launch's.
    pub launch_cycles: u32,
}

impl Clocks {
    /// DRAM bytes read per core cycle, whole chip: the sustained read
    /// bandwidth.
    pub fn dram_bytes_per_cycle(&self) -> f64 {
        f64::from(self.dram_gbps) * f64::from(self.dram_read_pct) * 10.0
            / f64::from(self.clock_mhz.max(1))
    }

    /// A written byte's time on the DRAM bus, in read bytes' time.
    pub fn dram_write_cost(&self) -> f64 {
        f64::from(self.dram_read_pct) / f64::from(self.dram_write_pct.max(1))
    }
}

/// One GPU: what a timed launch runs on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Part {
    /// A short name for reports and for [`Part::preset`].
    pub name: Cow<'static, str>,
    /// The memory geometry; its `compute_units` is the part's unit count.
    pub memory: MemoryModel,
    /// The occupancy resources of one unit.
    pub hardware: Hardware,
    /// The timing figures.
    pub clocks: Clocks,
}

/// A row of the part table: a part, the memory model and occupancy
/// hardware it is built on, and its timing figures.
#[derive(Clone, Copy, Debug)]
pub struct PartRow {
    /// The part's name ([`Part::preset`]); also a name of its memory model
    /// ([`MemoryModel::preset`]) and of its hardware ([`Hardware::by_name`]).
    pub name: &'static str,
    /// Its memory geometry.
    pub memory: fn() -> MemoryModel,
    /// Its occupancy resources.
    pub hardware: &'static Hardware,
    /// Its timing figures.
    pub clocks: fn() -> Clocks,
}

impl PartRow {
    /// The row of the part, memory model or hardware called `name`
    /// (ignoring case): the part's own row, else the first built on that
    /// memory model, else the first built on that hardware.
    pub fn named(name: &str) -> Option<&'static PartRow> {
        let is = |n: &str| n.eq_ignore_ascii_case(name);
        PARTS
            .iter()
            .find(|r| is(r.name))
            .or_else(|| PARTS.iter().find(|r| is(&(r.memory)().name)))
            .or_else(|| PARTS.iter().find(|r| is(r.hardware.name)))
    }

    /// The part this row describes.
    pub fn part(&self) -> Part {
        Part {
            name: Cow::Borrowed(self.name),
            memory: (self.memory)(),
            hardware: self.hardware.clone(),
            clocks: (self.clocks)(),
        }
    }
}

/// Every part preset, with the memory model and occupancy hardware it is
/// built on: the one table that [`Part::preset`], [`MemoryModel::preset`]
/// and [`Hardware::by_name`] read, so that a part's name names its memory
/// model and its hardware too, and a memory model's name its hardware.
pub const PARTS: &[PartRow] = &[
    PartRow {
        name: "h100-sxm",
        memory: MemoryModel::nvidia,
        hardware: &Hardware::HOPPER,
        clocks: Clocks::h100_sxm,
    },
    PartRow {
        name: "h200-sxm",
        memory: MemoryModel::nvidia,
        hardware: &Hardware::HOPPER,
        clocks: Clocks::h200_sxm,
    },
    PartRow {
        name: "mi300x",
        memory: MemoryModel::cdna3,
        hardware: &Hardware::CDNA3,
        clocks: Clocks::mi300x,
    },
    PartRow {
        name: "rx7900xtx",
        memory: MemoryModel::rdna3,
        hardware: &Hardware::RDNA3,
        clocks: Clocks::rx7900xtx,
    },
];

impl Clocks {
    /// NVIDIA H100 SXM5: 132 SMs, HBM3.
    ///
    /// Latencies and on-chip bandwidths are the measurements of the
    /// microbenchmark suite of Luo et al. ("Benchmarking and Dissecting the
    /// Nvidia Hopper GPU Architecture", IPDPS 2024) run on an H100 SXM5 at
    /// 1,980 MHz (github.com/Johnsonms/NVIDIA-Hopper-Benchmark,
    /// `reproduction/H100-dapperdingo/summary.md`); the paper's own H800
    /// figures agree for the SM (shared memory 29 cycles, L1 125.8 bytes per
    /// cycle).
    pub fn h100_sxm() -> Clocks {
        Clocks {
            // The driver's maximum SM clock on an H100 SXM5 (the suite's
            // device dump: clockRate 1,980,000 kHz); NVIDIA's 67 TFLOPS
            // FP32 over 132 SMs of 128 lanes gives the same.
            clock_mhz: 1980,
            // Hopper whitepaper: 32 FP32 lanes per SM sub-partition.
            simd_lanes: 32,
            // Measured: dependent FP32, 4.07 cycles.
            alu_latency: 4,
            // Measured: shared memory, 29.0 cycles.
            lds_latency: 29,
            // Measured: L1 hit, 41.1 cycles; 125.7 bytes per cycle per SM.
            l1_latency: 41,
            l1_bytes_per_cycle: 126,
            // Measured: L2 hit, 272.3 cycles; 4,207 bytes per cycle
            // (32-bit loads).
            l2_latency: 272,
            l2_bytes_per_cycle: 4207,
            // Measured: DRAM, 484 cycles (arrays of 64 MB and more).
            dram_latency: 484,
            // H100 SXM datasheet: 3.35 TB/s.
            dram_gbps: 3350,
            // Not published: the model's choice.
            barrier_latency: 20,
            // The H200's shares (below): the same GH100 memory system.
            dram_read_pct: 91,
            dram_write_pct: 44,
            // Fitted on the H200's `divergence/diverge/k=1` row
            // (calibration/h200): a dependent FFMA reading three
            // registers issues at half rate at every occupancy (0.53
            // instructions per cycle per scheduler, ncu's count over the
            // time), one reading two and an immediate (`ilp_fma`, `split`)
            // at full rate.
            operand_reads_per_cycle: 2,
            // Fitted on the H200's `atomics/per_block/n=4096` row: 16
            // workgroups, 6.1 µs measured beside 0.8 µs of work.
            launch_cycles: 10_500,
        }
    }

    /// NVIDIA H200 SXM: the H100's GH100 with HBM3e.
    ///
    /// Its SM, L1 and L2 are the H100's, so their figures are the H100's
    /// measurements; no measurement of the H200's own latencies was found, and
    /// its DRAM latency is taken to be the H100's.
    pub fn h200_sxm() -> Clocks {
        let h100 = Self::h100_sxm();
        Clocks {
            // nvidia-smi on the H200 of `calibration/h200/device.txt`:
            // clocks.max.sm 1,980 MHz.
            clock_mhz: 1980,
            // H200 datasheet: 4.8 TB/s.
            dram_gbps: 4800,
            // Fitted on the H200's `occupancy_memory/copy_stride/
            // occupancy=0.125` row (calibration/h200): one block of 8 warps
            // per SM, each thread a chain of dependent loads, 839 cycles
            // per load at 1,980 MHz. The H100's 484 cycles are an idle
            // pointer chase's; the H200's HBM3e under a stream waits longer.
            dram_latency: 800,
            // Fitted on the H200's rows (calibration/h200): reads on
            // `l1_trio/strided/c` (2,147 MB read, 35 MB written in 505 µs:
            // 4.39 TB/s), writes on `reference/vecadd/n=2^26` (537 MB read
            // and 256 MB written in 243 µs: 2.12 TB/s for the writes).
            dram_read_pct: 91,
            dram_write_pct: 44,
            ..h100
        }
    }

    /// AMD Instinct MI300X: 304 CDNA3 CUs, HBM3.
    ///
    /// AMD publishes its units, clock and bandwidths; no measured latency of
    /// it could be found, so its latencies are this model's choices, marked
    /// as such, until they are measured.
    pub fn mi300x() -> Clocks {
        Clocks {
            // CDNA3 whitepaper, table 2: peak engine clock 2,100 MHz.
            clock_mhz: 2100,
            // CDNA3 ISA guide: a wave64 vector instruction takes four
            // passes of a 16-lane SIMD (packed FP32, which simt's
            // instructions do not use, doubles the rate).
            simd_lanes: 16,
            // The model's choice: a SIMD issues a wave's dependent vector
            // instructions back to back, one per four-cycle pass.
            alu_latency: 4,
            // Not measured: the model's choices.
            lds_latency: 64,
            l1_latency: 120,
            // CDNA3 whitepaper: the L1's fill path and request bus carry a
            // 128-byte line, "doubling the bandwidth to the core"; 64 bytes
            // per cycle is the model's reading of it.
            l1_bytes_per_cycle: 64,
            l2_latency: 250,
            // CDNA3 whitepaper: each XCD's L2 reads 2 KB per clock; 8 XCDs.
            l2_bytes_per_cycle: 8 * 2048,
            dram_latency: 700,
            // CDNA3 whitepaper, MI300-13: 5.3 TB/s peak.
            dram_gbps: 5300,
            barrier_latency: 20,
            // Not measured: the datasheet's bandwidth, no operand limit
            // and no launch cost, until they are.
            dram_read_pct: 100,
            dram_write_pct: 100,
            operand_reads_per_cycle: 0,
            launch_cycles: 0,
        }
    }

    /// AMD Radeon RX 7900 XTX: 48 RDNA3 WGPs, GDDR6.
    ///
    /// Latencies and the L2's bandwidth were measured on an RX 7900 XT, the
    /// same Navi 31 die (github.com/chanzhennan/ChipBenchmarker).
    pub fn rx7900xtx() -> Clocks {
        Clocks {
            // AMD's specifications: boost clock up to 2,500 MHz.
            clock_mhz: 2500,
            // RDNA3 ISA guide: SIMD32 (dual issue, which the model leaves
            // out, doubles some instructions' rate).
            simd_lanes: 32,
            // Not published (the ISA guide asks for S_DELAY_ALU hints
            // instead): the model's choice.
            alu_latency: 5,
            // Measured on the 7900 XT: LDS 33 cycles, L0 35, L2 340, DRAM
            // 551; L2 3,253 GB/s, 1,301 bytes per cycle at 2,500 MHz.
            lds_latency: 33,
            l1_latency: 35,
            // The model's choice: one 128-byte line per cycle per WGP.
            l1_bytes_per_cycle: 128,
            l2_latency: 340,
            l2_bytes_per_cycle: 1301,
            dram_latency: 551,
            // AMD's specifications: 960 GB/s.
            dram_gbps: 960,
            barrier_latency: 20,
            // Not measured: the datasheet's bandwidth, no operand limit
            // and no launch cost, until they are.
            dram_read_pct: 100,
            dram_write_pct: 100,
            operand_reads_per_cycle: 0,
            launch_cycles: 0,
        }
    }
}

impl Part {
    /// The part table's `h100-sxm` (its figures are [`Clocks::h100_sxm`]'s).
    pub fn h100_sxm() -> Self {
        PARTS[0].part()
    }

    /// The part table's `h200-sxm` (its figures are [`Clocks::h200_sxm`]'s).
    pub fn h200_sxm() -> Self {
        PARTS[1].part()
    }

    /// The part table's `mi300x` (its figures are [`Clocks::mi300x`]'s).
    pub fn mi300x() -> Self {
        PARTS[2].part()
    }

    /// The part table's `rx7900xtx` (its figures are [`Clocks::rx7900xtx`]'s).
    pub fn rdna3() -> Self {
        PARTS[3].part()
    }

    /// The same part cut down to `units` units: the per-unit figures stay,
    /// the chip-wide bandwidths (L2, DRAM) shrink in proportion, so that a
    /// small grid loads the cut part as a full grid loads the whole one.
    /// Named `name/units`.
    pub fn scaled(&self, units: u32) -> Self {
        let units = units.max(1);
        let whole = self.memory.compute_units.max(1);
        let scale = |v: u32| (u64::from(v) * u64::from(units) / u64::from(whole)).max(1) as u32;
        let mut part = self.clone();
        part.name = Cow::Owned(format!("{}/{units}", self.name));
        part.memory.compute_units = units;
        part.clocks.l2_bytes_per_cycle = scale(self.clocks.l2_bytes_per_cycle);
        part.clocks.dram_gbps = scale(self.clocks.dram_gbps);
        part
    }

    /// The preset called `name` (ignoring case), optionally cut down as
    /// `name/units`.
    pub fn preset(name: &str) -> Option<Self> {
        let (base, units) = match name.split_once('/') {
            Some((b, u)) => (b, Some(u.parse::<u32>().ok().filter(|&u| u > 0)?)),
            None => (name, None),
        };
        let part = PARTS
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(base))?
            .part();
        Some(match units {
            Some(u) => part.scaled(u),
            None => part,
        })
    }

    /// The names [`preset`](Self::preset) accepts (each also as `name/units`).
    pub const PRESETS: &'static [&'static str] = &["h100-sxm", "h200-sxm", "mi300x", "rx7900xtx"];

    /// Checks the figures; the error says which is wrong.
    pub fn check(&self) -> Result<(), String> {
        self.memory.check()?;
        let c = &self.clocks;
        let positive = [
            ("clock_mhz", c.clock_mhz),
            ("simd_lanes", c.simd_lanes),
            ("l1_bytes_per_cycle", c.l1_bytes_per_cycle),
            ("l2_bytes_per_cycle", c.l2_bytes_per_cycle),
            ("dram_gbps", c.dram_gbps),
            ("dram_read_pct", c.dram_read_pct),
            ("dram_write_pct", c.dram_write_pct),
        ];
        for (field, v) in positive {
            if v == 0 {
                return Err(format!("{field} must be at least 1"));
            }
        }
        if self.memory.l1.is_none() {
            return Err(
                "a part's memory model needs an L1 (the timing model's first level)".into(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_presets_of_parts_memory_models_and_hardware_are_the_part_tables() {
        let names: Vec<&str> = PARTS.iter().map(|r| r.name).collect();
        assert_eq!(Part::PRESETS, names.as_slice());
        let mut models = vec!["reference".to_owned()];
        let mut hardware: Vec<&str> = Vec::new();
        for row in PARTS {
            let model = (row.memory)().name.into_owned();
            if !models.contains(&model) {
                models.push(model);
            }
            if !hardware.contains(&row.hardware.name) {
                hardware.push(row.hardware.name);
            }
        }
        assert_eq!(MemoryModel::PRESETS, models);
        let presets: Vec<&str> = Hardware::PRESETS.iter().map(|h| h.name).collect();
        assert_eq!(presets, hardware);
        // Every name of a row names its part's memory model and hardware.
        for row in PARTS {
            let part = row.part();
            for name in [row.name, &part.memory.name, row.hardware.name] {
                let model = MemoryModel::preset(name).unwrap();
                assert_eq!(model.name, part.memory.name, "{name}");
                assert_eq!(Hardware::by_name(name).unwrap().name, part.hardware.name);
            }
        }
        assert_eq!(
            MemoryModel::preset("H200-SXM").unwrap(),
            MemoryModel::nvidia()
        );
        assert_eq!(Hardware::by_name("nvidia").unwrap().name, "hopper");
        assert_eq!(
            MemoryModel::preset("Reference"),
            Some(MemoryModel::reference())
        );
        assert_eq!(Part::preset("H100-SXM/2").unwrap().name, "h100-sxm/2");
        for (k, row) in PARTS.iter().enumerate() {
            let by_constructor = [
                Part::h100_sxm(),
                Part::h200_sxm(),
                Part::mi300x(),
                Part::rdna3(),
            ];
            assert_eq!(by_constructor[k].name, row.name);
        }
        assert!(MemoryModel::preset("h300").is_none());
        assert!(Hardware::by_name("reference").is_none());
    }

    #[test]
    fn presets_are_valid_and_scale_their_chip_wide_bandwidths() {
        for name in Part::PRESETS {
            let part = Part::preset(name).unwrap();
            assert_eq!(part.name, *name);
            part.check().unwrap();
            let quarter = Part::preset(&format!("{name}/4")).unwrap();
            assert_eq!(quarter.memory.compute_units, 4);
            assert_eq!(
                quarter.clocks.l1_bytes_per_cycle,
                part.clocks.l1_bytes_per_cycle
            );
            let whole = f64::from(part.memory.compute_units);
            let ratio = f64::from(quarter.clocks.dram_gbps) / f64::from(part.clocks.dram_gbps);
            assert!((ratio - 4.0 / whole).abs() < 0.01, "{name}: {ratio}");
        }
        assert!(Part::preset("h100-sxm/0").is_none());
        assert!(Part::preset("h100").is_none());
        // 91% of 3,350 GB/s at 1,980 MHz is 1,539.6 bytes read per cycle.
        let bpc = Part::h100_sxm().clocks.dram_bytes_per_cycle();
        assert!((bpc - 0.91 * 3350e9 / 1980e6).abs() < 1e-6);
    }
}
