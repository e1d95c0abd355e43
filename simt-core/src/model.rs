//! Memory models: how accesses are split into phases, lines and banks.
//!
//! A model is data, chosen per launch, not constants in the interpreter.

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
        }
    }

    /// An NVIDIA-like model: whole-warp (32-lane) requests, 128-byte lines made of
    /// 32-byte sectors, 32 banks of 4-byte words.
    pub const fn nvidia() -> Self {
        MemoryModel {
            name: Cow::Borrowed("nvidia"),
            phase_lanes: 32,
            line_bytes: 128,
            sector_bytes: 32,
            lds_banks: 32,
            lds_bank_bytes: 4,
        }
    }

    /// The presets, by name.
    pub fn preset(name: &str) -> Option<Self> {
        match name {
            "reference" => Some(Self::reference()),
            "nvidia" => Some(Self::nvidia()),
            _ => None,
        }
    }

    /// The names [`preset`](Self::preset) accepts.
    pub const PRESETS: &'static [&'static str] = &["reference", "nvidia"];

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
        Ok(())
    }
}

impl Default for MemoryModel {
    fn default() -> Self {
        Self::reference()
    }
}
