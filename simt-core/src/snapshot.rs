//! A compact, stable form of a launch's statistics, for snapshot tests.
//!
//! [`Stats`] serializes every counter of every instruction and a full histogram:
//! exact, but long, and every new counter would change every stored snapshot.
//! [`Stats::snapshot`] keeps what a reviewer reads: the launch's shape, the
//! totals, the histogram's non-empty entries and one row per source line with
//! its disassembled instructions, each listing only its non-zero counters. It
//! holds no file path and no timing, so it is the same on every machine.

use crate::ir::Program;
use crate::stats::{Counters, Stats};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::collections::BTreeMap;

/// A launch's statistics in the form [`Stats::snapshot`] gives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    /// The kernel's name.
    pub kernel: String,
    /// The launch's wave width.
    pub wave_width: u32,
    /// The memory model's name.
    pub model: String,
    /// Workgroups run.
    pub workgroups: u64,
    /// Waves run.
    pub waves: u64,
    /// The launch's non-zero totals.
    pub totals: NonZero,
    /// Vector issues by active lanes, for the lane counts that occurred.
    pub active_lanes: BTreeMap<u32, u64>,
    /// One row per source line, in source order.
    pub lines: Vec<SnapshotLine>,
}

/// One source line of a [`Snapshot`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotLine {
    /// The 1-based source line.
    pub line: u32,
    /// The line's instructions, disassembled, `; `-separated.
    pub text: String,
    /// The line's non-zero counters.
    #[serde(flatten)]
    pub counters: NonZero,
}

/// Counters that serialize only their non-zero fields, so that a counter a
/// kernel never moves takes no room and a new counter changes no old snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NonZero(pub Counters);

impl Serialize for NonZero {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = self.0.fields();
        let mut map = serializer.serialize_map(Some(fields.iter().filter(|f| f.1 != 0).count()))?;
        for (name, value) in fields {
            if value != 0 {
                map.serialize_entry(name, &value)?;
            }
        }
        map.end()
    }
}

impl Stats {
    /// This launch's statistics in a compact form meant for
    /// `insta::assert_yaml_snapshot!`: totals and per-line counters, with the
    /// source lines and instruction text of `program`, and no paths or timings.
    pub fn snapshot(&self, program: &Program) -> Snapshot {
        let listing = self.listing(program);
        Snapshot {
            kernel: self.kernel.clone(),
            wave_width: self.wave_width,
            model: self.model.clone(),
            workgroups: self.workgroups,
            waves: self.waves,
            totals: NonZero(self.totals),
            active_lanes: self
                .active_lanes_histogram
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n != 0)
                .map(|(lanes, &n)| (lanes as u32, n))
                .collect(),
            lines: listing
                .lines
                .into_iter()
                .map(|l| SnapshotLine {
                    line: l.line,
                    text: l.text,
                    counters: NonZero(l.counters),
                })
                .collect(),
        }
    }
}
