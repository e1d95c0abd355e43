//! Wide loads and stores: 2 or 4 consecutive 32-bit elements per lane, moved
//! between the memory and as many consecutive registers.
//!
//! A wide access is one access per phase. Global: the phase's transactions and
//! sectors are the distinct lines and sectors its lanes' whole byte spans touch
//! (32 lanes loading 16 contiguous bytes each touch 512 bytes). LDS: the phase
//! is served in `width` sub-phases of `phase_lanes / width` lanes each, as
//! NVIDIA serves 64- and 128-bit shared accesses by half- and quarter-warps;
//! each sub-phase's conflict cycles are its worst bank's distinct words minus one.

use super::super::bind::Geometry;
use super::{
    each_lane, full, offsets, phases, Area, Count, MemScratch, Request, Shape, Target, Trap,
};
use crate::ir::ElemType;
use crate::stats::Counters;

/// The most lanes of a phase times the most elements per lane.
const KEYS: usize = 64 * 4;

/// Distinct values of `keys` (sorted in place).
fn distinct(keys: &mut [u32]) -> u64 {
    keys.sort_unstable();
    keys.windows(2).filter(|w| w[0] != w[1]).count() as u64 + u64::from(!keys.is_empty())
}

/// What a wide access's index counts: elements of the buffer or array
/// (words, or 64-bit elements whose two words it moves), or bytes, aligned to
/// a word.
#[inline(always)]
fn step(addressing: super::Addressing, scale: u32) -> u32 {
    match addressing {
        super::Addressing::Element => scale,
        super::Addressing::Byte => 4,
    }
}

/// Checks every active lane's span of `n` 4-byte elements; the byte offsets of
/// the first elements go to `s.offs`.
#[inline(always)]
fn spans<const W: usize>(
    idx: &[u32; W],
    lm: &[u32; W],
    exec: u64,
    area: Area,
    n: usize,
    s: &mut MemScratch<W>,
) -> Result<(), super::BadLane> {
    // The span fits when its first element (`area.size` bytes: a word, or a
    // 64-bit element) does in the buffer shortened by the words after it.
    let tail = (4 * n as u64).saturating_sub(u64::from(area.size));
    let first = Area {
        len: area.len.saturating_sub(tail),
        ..area
    };
    offsets(idx, lm, exec, first, &mut s.offs, false)?;
    Ok(())
}

/// A wide load (`vals[k]` gets element `k` of each active lane) or store
/// (from `vals`) of `n` words per lane, in either space.
#[inline(always)]
pub(crate) fn access<const W: usize, T: Target>(
    req: Request<'_, W>,
    n: usize,
    mut target: T,
    vals: &mut [[u32; W]; 4],
    count: Count<'_>,
    s: &mut MemScratch<W>,
) -> Result<(), Box<Trap>> {
    let Request {
        store,
        exec,
        lm,
        idx,
        ..
    } = req;
    let Count { geo, c, .. } = count;
    let exec = exec & full::<W>();
    let n = n.clamp(1, 4);
    let size = 4 * n as u32;
    let access = if store { "store" } else { "load" };
    let (addressing, scale) = target.addressing();
    let area = target.area(step(addressing, scale));
    spans(idx, lm, exec, area, n, s).map_err(|bad| target.fault(bad, access, size))?;
    target.count_wide(exec, n, store, geo, c, s);
    let mut offs = s.offs;
    for (k, v) in vals.iter_mut().enumerate().take(n) {
        for (o, &first) in offs.iter_mut().zip(s.offs.iter()) {
            *o = first.wrapping_add(4 * k as u32);
        }
        if store {
            target.store(exec, &offs, ElemType::U32, v, Shape::Scattered);
        } else {
            target.load(&offs, ElemType::U32, v, Shape::Scattered, s.avx2);
        }
    }
    Ok(())
}

/// Counts a wide global access of `n` words per lane at `s.offs` (of the
/// buffer at `base`): per phase, the distinct lines and sectors of its
/// lanes' whole spans.
#[inline(always)]
pub(super) fn count_global<const W: usize>(
    exec: u64,
    n: usize,
    base: u32,
    geo: &Geometry,
    c: &mut Counters,
    s: &MemScratch<W>,
) {
    let size = 4 * n as u32;
    let mut keys = [0u32; KEYS];
    for (_, _, bits) in phases::<W>(exec, geo.phase_lanes) {
        if bits == 0 {
            continue;
        }
        let mut count = 0;
        each_lane(bits, |l| {
            for k in 0..n {
                if let Some(key) = keys.get_mut(count) {
                    *key = base.wrapping_add(s.offs[l]).wrapping_add(4 * k as u32);
                    count += 1;
                }
            }
        });
        let words = &mut keys[..count];
        for w in words.iter_mut() {
            *w >>= geo.sector_shift;
        }
        let sectors = distinct(words);
        let per_line = geo.line_shift - geo.sector_shift;
        for w in words.iter_mut() {
            *w >>= per_line;
        }
        let lines = distinct(words);
        c.global_accesses += 1;
        c.global_transactions += lines;
        c.global_sectors += sectors;
        c.global_bytes_requested += u64::from(bits.count_ones()) * u64::from(size);
        c.global_bytes_moved += lines * geo.line_bytes;
    }
}

/// Counts a wide LDS access of `n` words per lane at `s.offs`: per phase,
/// `n` sub-phases, each its worst bank's distinct words minus one.
#[inline(always)]
pub(super) fn count_lds<const W: usize>(
    exec: u64,
    n: usize,
    geo: &Geometry,
    c: &mut Counters,
    s: &MemScratch<W>,
) {
    let size = 4 * n as u32;
    let sub = (geo.phase_lanes as usize / n).max(1);
    let banks = geo.bank_mask as usize + 1;
    for (start, lanes, bits) in phases::<W>(exec, geo.phase_lanes) {
        if bits == 0 {
            continue;
        }
        c.lds_accesses += 1;
        c.lds_bytes_requested += u64::from(bits.count_ones()) * u64::from(size);
        let mut first = start;
        while first < start + lanes {
            let part = bits & lane_range(first, sub);
            let mut words = [0u32; KEYS];
            let mut count = 0;
            each_lane(part, |l| {
                for k in 0..n {
                    if let Some(w) = words.get_mut(count) {
                        *w = (s.offs[l] + 4 * k as u32) >> geo.bank_shift;
                        count += 1;
                    }
                }
            });
            let words = &mut words[..count];
            words.sort_unstable();
            let mut per_bank = [0u32; 64];
            let mut prev = None;
            for &w in words.iter() {
                if prev != Some(w) {
                    per_bank[w as usize & (banks - 1) & 63] += 1;
                    prev = Some(w);
                }
            }
            let worst = per_bank.iter().copied().max().unwrap_or(0);
            c.lds_conflict_cycles += u64::from(worst.saturating_sub(1));
            first += sub;
        }
    }
}

/// The bits of lanes `first..first + n`.
fn lane_range(first: usize, n: usize) -> u64 {
    let ones = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    ones.checked_shl(first as u32).unwrap_or(0)
}
