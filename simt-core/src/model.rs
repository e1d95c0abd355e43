//! Memory models: how accesses are split into phases, lines and banks.
//!
//! A model is data, chosen per launch, not constants in the interpreter.

use crate::cache::CacheGeometry;
use serde::Serialize;
use std::borrow::Cow;

/// The geometry the memory counters use.
///
/// A wave's memory instruction is counted in phases of `phase_lanes` lanes (a wave64
/// access under the default model is two 32-lane phases); a phase with no active lane
/// counts nothing.
///
/// - Global: a phase's transactions are the distinct `line_bytes`-aligned lines its
///   active lanes touch; its sectors are the distinct `sector_bytes`-aligned sectors.
/// - LDS: word `a / lds_bank_bytes` lives in bank `word % lds_banks`; a phase's
///   conflict cycles are the largest number of distinct words any one bank is asked
///   for, minus one (lanes asking for the same word share it: a broadcast).
/// - Caches, when `l1` is set: each of `compute_units` units has an L1 of that
///   geometry, and workgroup `g` (numbered x fastest) runs on unit
///   `g % compute_units`, so a unit's L1 stays warm across the workgroups it
///   runs, in order. Loads look their sectors up and allocate on a miss; stores
///   write through without allocating (as NVIDIA's L1 since Volta), atomics go
///   past it. Below the L1, the DRAM sectors are the distinct sectors the launch
///   touches (an unbounded L2: a lower bound that does not depend on which unit
///   ran first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemoryModel {
    /// A short name for reports.
    pub name: Cow<'static, str>,
    /// Lanes per memory phase: 8, 16, 32 or 64.
    pub phase_lanes: u32,
    /// Bytes per global transaction (a line); a power of two.
    pub line_bytes: u32,
    /// Bytes per global sector; a power of two no larger than `line_bytes`.
    pub sector_bytes: u32,
    /// Number of LDS banks; a power of two.
    pub lds_banks: u32,
    /// Bytes per LDS bank word; a power of two.
    pub lds_bank_bytes: u32,
    /// The L1 of each compute unit, if the model has caches.
    pub l1: Option<CacheGeometry>,
    /// Compute units (SMs, CUs) the workgroups are spread over; at least 1.
    pub compute_units: u32,
}

impl MemoryModel {
    /// The reference model: 32-lane phases, 64-byte lines (and sectors),
    /// 32 banks of 4-byte words.
    pub const fn reference() -> Self {
        MemoryModel {
            name: Cow::Borrowed("reference"),
            phase_lanes: 32,
            line_bytes: 64,
            sector_bytes: 64,
            lds_banks: 32,
            lds_bank_bytes: 4,
            l1: None,
            compute_units: 1,
        }
    }

    /// An NVIDIA-like model: whole-warp (32-lane) requests, 128-byte lines made of
    /// 32-byte sectors, 32 banks of 4-byte words, and an L1 per SM.
    ///
    /// The L1 is sized like an H100 SXM's: 132 SMs (NVIDIA H100 whitepaper), each
    /// with 256 KB of combined L1 and shared memory of which a kernel using little
    /// shared memory keeps most as L1; 128 KiB is taken here. NVIDIA does not
    /// publish the L1's associativity; 4 ways is this model's choice.
    ///
    /// The model is a memory geometry only: lanes still run in lockstep, and the
    /// sanitizers order them as [`LaunchConfig::lane_order`](crate::LaunchConfig)
    /// says (lockstep by default). NVIDIA GPUs since Volta schedule the threads
    /// of a warp independently, so checking a kernel meant for them faithfully
    /// takes [`LaneOrder::Independent`](crate::LaneOrder::Independent).
    pub const fn nvidia() -> Self {
        MemoryModel {
            name: Cow::Borrowed("nvidia"),
            phase_lanes: 32,
            line_bytes: 128,
            sector_bytes: 32,
            lds_banks: 32,
            lds_bank_bytes: 4,
            l1: Some(CacheGeometry {
                bytes: 128 * 1024,
                line_bytes: 128,
                sector_bytes: 32,
                ways: 4,
            }),
            compute_units: 132,
        }
    }

    /// An AMD CDNA3-like model (Instinct MI300X): 64-lane wave requests, 128-byte
    /// lines of 64-byte sectors, 32 LDS banks of 4-byte words, and a 32 KiB L1
    /// (the vector L1 cache) per CU over 304 CUs (AMD CDNA3 instruction set
    /// architecture guide and MI300X data sheet: 32 KB L1 per CU, 128-byte cache
    /// line, 304 CUs). The associativity (8 ways) and the 64-byte sector are this
    /// model's choices: AMD documents a 64-byte request granularity below the L1.
    pub const fn cdna3() -> Self {
        MemoryModel {
            name: Cow::Borrowed("cdna3"),
            phase_lanes: 64,
            line_bytes: 128,
            sector_bytes: 64,
            lds_banks: 32,
            lds_bank_bytes: 4,
            l1: Some(CacheGeometry {
                bytes: 32 * 1024,
                line_bytes: 128,
                sector_bytes: 64,
                ways: 8,
            }),
            compute_units: 304,
        }
    }

    /// An AMD RDNA3-like model (Radeon RX 7900 XTX, Navi 31): 32-lane
    /// phases, 128-byte lines of 32-byte sectors, 32 LDS banks of 4-byte
    /// words (the RDNA3 ISA guide: a WGP's 64 banks, 32 for each pair of its
    /// SIMD32s), and a 64 KiB L1 per WGP over 48 WGPs: the two 32 KiB vector
    /// L0 caches of its CUs (ROCm GPU specifications: 96 CUs, 32 KiB L0
    /// each), taken as one. The sector size and the 4 ways are this model's
    /// choices.
    pub const fn rdna3() -> Self {
        MemoryModel {
            name: Cow::Borrowed("rdna3"),
            phase_lanes: 32,
            line_bytes: 128,
            sector_bytes: 32,
            lds_banks: 32,
            lds_bank_bytes: 4,
            l1: Some(CacheGeometry {
                bytes: 64 * 1024,
                line_bytes: 128,
                sector_bytes: 32,
                ways: 4,
            }),
            compute_units: 48,
        }
    }

    /// The preset called `name`: `reference`, or the memory model of a row
    /// of the part table ([`PARTS`](crate::PARTS)) named by its model
    /// (`nvidia`), its part (`h100-sxm`) or its hardware (`hopper`).
    pub fn preset(name: &str) -> Option<Self> {
        if name.eq_ignore_ascii_case("reference") {
            return Some(Self::reference());
        }
        crate::PartRow::named(name).map(|row| (row.memory)())
    }

    /// The memory models [`preset`](Self::preset) gives: `reference` and
    /// those of the part table, in its order (each also by the names of its
    /// parts and hardware).
    pub const PRESETS: &'static [&'static str] = &["reference", "nvidia", "cdna3", "rdna3"];

    /// Checks the geometry; the error says which field is wrong.
    pub fn check(&self) -> Result<(), String> {
        let pow2 = |v: u32| v != 0 && v.is_power_of_two();
        if !matches!(self.phase_lanes, 8 | 16 | 32 | 64) {
            return Err(format!(
                "phase_lanes must be 8, 16, 32 or 64, not {}",
                self.phase_lanes
            ));
        }
        if !pow2(self.line_bytes) {
            return Err(format!(
                "line_bytes must be a power of two, not {}",
                self.line_bytes
            ));
        }
        if !pow2(self.sector_bytes) || self.sector_bytes > self.line_bytes {
            return Err(format!(
                "sector_bytes must be a power of two no larger than line_bytes, not {}",
                self.sector_bytes
            ));
        }
        if !pow2(self.lds_banks) || self.lds_banks > 64 {
            return Err(format!(
                "lds_banks must be a power of two up to 64, not {}",
                self.lds_banks
            ));
        }
        if !pow2(self.lds_bank_bytes) {
            return Err(format!(
                "lds_bank_bytes must be a power of two, not {}",
                self.lds_bank_bytes
            ));
        }
        if self.compute_units == 0 {
            return Err("compute_units must be at least 1".to_owned());
        }
        if let Some(l1) = &self.l1 {
            l1.check().map_err(|e| format!("l1: {e}"))?;
            if l1.line_bytes != self.line_bytes || l1.sector_bytes != self.sector_bytes {
                return Err(format!(
                    "l1 lines and sectors ({} and {} bytes) must be the model's ({} and {})",
                    l1.line_bytes, l1.sector_bytes, self.line_bytes, self.sector_bytes
                ));
            }
        }
        Ok(())
    }
}

impl MemoryModel {
    /// The fields that decide one phase's counters, for the static facts
    /// ([`Facts`](crate::Facts)) to be evaluated under this model.
    pub fn geometry(&self) -> crate::facts::Geometry {
        crate::facts::Geometry {
            phase_lanes: self.phase_lanes,
            line_bytes: self.line_bytes,
            sector_bytes: self.sector_bytes,
            lds_banks: self.lds_banks,
            lds_bank_bytes: self.lds_bank_bytes,
        }
    }
}

impl Default for MemoryModel {
    fn default() -> Self {
        Self::reference()
    }
}
