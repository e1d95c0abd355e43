//! The memory hierarchy's state during a launch: an L1 per compute unit and the
//! sectors the launch has touched, owned by the machine and lent to the waves of
//! the workgroup running on each unit.
//!
//! Per phase, the distinct sectors of the active lanes are grouped by line. A
//! load looks each line's sectors up in the L1 of the workgroup's compute unit
//! (hits and misses counted; misses allocate); a store writes through without
//! allocating, and an atomic goes past the L1. Every sector a phase touches that
//! the launch had not touched before counts as a DRAM sector.

use crate::cache::{CacheGeometry, DramSectors, SectoredCache};
use crate::stats::Counters;

/// The caches of a launch, kept by the machine between launches.
#[derive(Clone, Debug, Default)]
pub(crate) struct Caches {
    /// One L1 per compute unit that runs a workgroup.
    l1: Vec<SectoredCache>,
    /// The sectors touched so far.
    dram: Option<DramSectors>,
    /// When set, first touches are logged here instead of counted: a worker
    /// of a parallel launch cannot know whether another worker's earlier
    /// workgroup touched the sector first.
    log: Option<DramLog>,
}

/// A worker's first touches, to be counted in workgroup order after the launch.
#[derive(Clone, Debug, Default)]
pub(crate) struct DramLog {
    /// The workgroup running now (numbered x fastest).
    group: u64,
    /// The instruction issuing now.
    pc: u32,
    /// Every phase that touched a sector this worker had not touched, in order.
    pub(crate) events: Vec<DramEvent>,
}

/// Sectors of one line that a phase read or wrote first (as far as its
/// worker knows).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DramEvent {
    /// The workgroup.
    pub(crate) group: u64,
    /// The instruction.
    pub(crate) pc: u32,
    /// The line's address.
    pub(crate) line: u64,
    /// The sectors of the line read first.
    pub(crate) sectors: u32,
    /// The sectors of the line written first.
    pub(crate) written: u32,
}

impl DramEvent {
    /// The DRAM sectors the event moves, counted against `dram` (the
    /// launch's touches in workgroup order), which it updates.
    pub(crate) fn count(&self, dram: &mut DramSectors) -> u32 {
        dram.touch(self.line, self.sectors) + dram.write(self.line, self.written)
    }
}

impl Caches {
    /// Makes the caches cold for a launch of `units` compute units with L1s of
    /// `geometry` (`None`: the model has none), reusing what it can.
    pub(crate) fn reset(
        &mut self,
        geometry: Option<&CacheGeometry>,
        units: usize,
    ) -> Result<(), String> {
        self.log = None;
        let Some(g) = geometry else {
            self.l1.clear();
            self.dram = None;
            return Ok(());
        };
        if self.l1.first().is_some_and(|c| c.geometry() != g) {
            self.l1.clear();
        }
        self.l1.truncate(units);
        for c in &mut self.l1 {
            c.clear();
        }
        while self.l1.len() < units {
            self.l1.push(SectoredCache::new(g)?);
        }
        match &mut self.dram {
            Some(d) => d.clear(),
            None => self.dram = Some(DramSectors::new(g.line_bytes, g.sector_bytes)?),
        }
        Ok(())
    }

    /// The caches seen by a workgroup on compute unit `unit`, if the model has any.
    pub(crate) fn unit(&mut self, unit: usize) -> Option<CuCaches<'_>> {
        let count = self.l1.len();
        let l1 = self.l1.get_mut(unit.checked_rem(count)?)?;
        Some(CuCaches {
            l1,
            dram: self.dram.as_mut()?,
            log: self.log.as_mut(),
        })
    }

    /// Whether the model has caches.
    pub(crate) fn enabled(&self) -> bool {
        self.dram.is_some()
    }

    /// The sectors touched so far, if the model has caches.
    pub(crate) fn dram(&self) -> Option<&DramSectors> {
        self.dram.as_ref()
    }

    /// From now on, starts from `touched` and logs first touches instead of
    /// counting them (see [`DramLog`]).
    pub(crate) fn start_log(&mut self, touched: Option<&DramSectors>) {
        if let Some(t) = touched {
            self.dram = Some(t.clone());
        }
        self.log = Some(DramLog::default());
    }

    /// The first touches logged since [`start_log`](Self::start_log).
    pub(crate) fn take_log(&mut self) -> Vec<DramEvent> {
        self.log.take().map(|l| l.events).unwrap_or_default()
    }

    /// Workgroup `group` starts.
    pub(crate) fn set_group(&mut self, group: u64) {
        if let Some(log) = &mut self.log {
            log.group = group;
        }
    }
}

/// The caches a workgroup's memory instructions go through.
#[derive(Debug)]
pub(crate) struct CuCaches<'c> {
    l1: &'c mut SectoredCache,
    dram: &'c mut DramSectors,
    log: Option<&'c mut DramLog>,
}

/// How an access treats the L1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Through {
    /// Looked up, allocating on a miss.
    Load,
    /// Written through, not allocated.
    Store,
    /// Past the L1 to the memory below.
    Atomic,
}

impl CuCaches<'_> {
    /// Instruction `pc` issues next (for the log of a parallel launch).
    #[inline(always)]
    pub(crate) fn at(&mut self, pc: usize) {
        if let Some(log) = self.log.as_deref_mut() {
            log.pc = pc as u32;
        }
    }

    /// Counts one phase whose active lanes touch the byte addresses `addrs`
    /// (at most 256 of them: 64 lanes of 4 words).
    pub(crate) fn phase(
        &mut self,
        through: Through,
        addrs: impl Iterator<Item = u32>,
        c: &mut Counters,
    ) {
        let g = self.l1.geometry();
        let sector_shift = g.sector_bytes.trailing_zeros();
        let per_line = g.line_bytes.trailing_zeros() - sector_shift;
        let mut keys = [0u32; 256];
        let mut n = 0;
        for a in addrs {
            if let Some(k) = keys.get_mut(n) {
                *k = a >> sector_shift;
                n += 1;
            }
        }
        let keys = &mut keys[..n];
        keys.sort_unstable();
        let mut i = 0;
        while let Some(&first) = keys.get(i) {
            // The sectors of one line, as a mask of its sectors.
            let line = first >> per_line;
            let mut mask = 0u32;
            while let Some(&k) = keys.get(i) {
                if k >> per_line != line {
                    break;
                }
                mask |= 1 << (k & ((1 << per_line) - 1));
                i += 1;
            }
            let addr = u64::from(line) << (per_line + sector_shift);
            // The sectors read and written for the first time.
            let (fresh, written) = match through {
                Through::Load => {
                    let lookup = self.l1.load_line(addr, mask);
                    c.l1_hit_sectors += u64::from(lookup.hit_sectors);
                    c.l1_miss_sectors += u64::from(lookup.miss_sectors);
                    // A sector the L1 holds was touched before: only misses can
                    // be first touches.
                    if lookup.miss_sectors == 0 {
                        continue;
                    }
                    (self.dram.touch_sectors(addr, mask), 0)
                }
                Through::Store => {
                    self.l1.store_line(addr, mask);
                    (0, self.dram.write_sectors(addr, mask))
                }
                Through::Atomic => {
                    let read = self.dram.touch_sectors(addr, mask);
                    (read, self.dram.write_sectors(addr, mask))
                }
            };
            match self.log.as_deref_mut() {
                None => c.dram_sectors += u64::from(fresh.count_ones() + written.count_ones()),
                Some(log) if fresh | written != 0 => log.events.push(DramEvent {
                    group: log.group,
                    pc: log.pc,
                    line: addr,
                    sectors: fresh,
                    written,
                }),
                Some(_) => {}
            }
        }
    }
}

/// The bytes an access touches: `words` 4-byte words per lane from byte
/// offset `offs[l]` of a buffer at `base`.
pub(crate) struct Addresses<'a, const W: usize> {
    pub(crate) offs: &'a [u32; W],
    pub(crate) base: u32,
    pub(crate) words: u32,
}

/// Counts each phase of an access of the lanes of `exec` through the caches,
/// if the model has them.
#[inline(always)]
pub(crate) fn phases<const W: usize>(
    caches: Option<&mut CuCaches<'_>>,
    through: Through,
    exec: u64,
    at: Addresses<'_, W>,
    phase_lanes: u32,
    c: &mut Counters,
) {
    let Some(caches) = caches else { return };
    let Addresses { offs, base, words } = at;
    for (_, _, bits) in super::phases::<W>(exec, phase_lanes) {
        if bits == 0 {
            continue;
        }
        let addrs = super::lanes(bits)
            .flat_map(|l| (0..words).map(move |k| base.wrapping_add(offs[l]).wrapping_add(4 * k)));
        caches.phase(through, addrs, c);
    }
}
