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
}

impl Clocks {
    /// DRAM bytes per core cycle, whole chip.
    pub fn dram_bytes_per_cycle(&self) -> f64 {
        f64::from(self.dram_gbps) * 1e3 / f64::from(self.clock_mhz.max(1))
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

impl Part {
    /// NVIDIA H100 SXM5: 132 SMs, HBM3.
    pub fn h100_sxm() -> Self {
        Part {
            name: Cow::Borrowed("h100-sxm"),
            memory: MemoryModel::nvidia(),
            hardware: Hardware::HOPPER,
            clocks: Clocks {
                // H100 datasheet: 67 TFLOPS FP32 over 132 SMs of 128 FP32
                // lanes (Hopper whitepaper) at 2 flops per fma: 1,980 MHz.
                clock_mhz: 1980,
                // Hopper whitepaper: 32 FP32 lanes per SM sub-partition.
                simd_lanes: 32,
                alu_latency: 4,
                lds_latency: 29,
                l1_latency: 33,
                l1_bytes_per_cycle: 128,
                l2_latency: 262,
                l2_bytes_per_cycle: 2 * 1024,
                dram_latency: 479,
                // H100 SXM datasheet: 3.35 TB/s.
                dram_gbps: 3350,
                barrier_latency: 20,
            },
        }
    }

    /// NVIDIA H200 SXM: the H100's 132 SMs with HBM3e.
    pub fn h200_sxm() -> Self {
        let h100 = Self::h100_sxm();
        Part {
            name: Cow::Borrowed("h200-sxm"),
            clocks: Clocks {
                // H200 datasheet: 4.8 TB/s; its 67 TFLOPS FP32 are the H100's.
                dram_gbps: 4800,
                ..h100.clocks
            },
            ..h100
        }
    }

    /// AMD Instinct MI300X: 304 CDNA3 CUs, HBM3.
    pub fn mi300x() -> Self {
        Part {
            name: Cow::Borrowed("mi300x"),
            memory: MemoryModel::cdna3(),
            hardware: Hardware::CDNA3,
            clocks: Clocks {
                // MI300X data sheet: peak engine clock 2,100 MHz.
                clock_mhz: 2100,
                // CDNA3 ISA guide: a SIMD executes a wave64 over four cycles.
                simd_lanes: 16,
                alu_latency: 8,
                lds_latency: 64,
                l1_latency: 120,
                l1_bytes_per_cycle: 64,
                l2_latency: 240,
                l2_bytes_per_cycle: 128 * 16,
                dram_latency: 700,
                // MI300X data sheet: 5.3 TB/s.
                dram_gbps: 5300,
                barrier_latency: 20,
            },
        }
    }

    /// AMD Radeon RX 7900 XTX: 48 RDNA3 WGPs, GDDR6.
    pub fn rdna3() -> Self {
        Part {
            name: Cow::Borrowed("rx7900xtx"),
            memory: MemoryModel {
                name: Cow::Borrowed("rdna3"),
                compute_units: 48,
                ..MemoryModel::nvidia()
            },
            hardware: Hardware::RDNA3,
            clocks: Clocks {
                // AMD product page: boost clock 2,500 MHz.
                clock_mhz: 2500,
                // RDNA3 ISA guide: SIMD32.
                simd_lanes: 32,
                alu_latency: 5,
                lds_latency: 32,
                l1_latency: 40,
                l1_bytes_per_cycle: 128,
                l2_latency: 200,
                l2_bytes_per_cycle: 2 * 1024,
                dram_latency: 600,
                // AMD product page: 960 GB/s.
                dram_gbps: 960,
                barrier_latency: 20,
            },
        }
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

    /// The preset called `name`, optionally cut down as `name/units`.
    pub fn preset(name: &str) -> Option<Self> {
        let (base, units) = match name.split_once('/') {
            Some((b, u)) => (b, Some(u.parse::<u32>().ok().filter(|&u| u > 0)?)),
            None => (name, None),
        };
        let part = match base {
            "h100-sxm" => Self::h100_sxm(),
            "h200-sxm" => Self::h200_sxm(),
            "mi300x" => Self::mi300x(),
            "rx7900xtx" => Self::rdna3(),
            _ => return None,
        };
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
        // 3,350 GB/s at 1,980 MHz is 1,691.9 bytes per cycle.
        let bpc = Part::h100_sxm().clocks.dram_bytes_per_cycle();
        assert!((bpc - 3350e9 / 1980e6).abs() < 1e-9);
    }
}
