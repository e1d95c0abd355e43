//! The formula path: an access of every lane of the wave to one block of
//! consecutive elements (lane `l` at the first lane's offset plus `l`
//! elements), which needs no per-lane offsets. Its range is checked once,
//! its counts are formulas of its first byte, and its values move with one
//! copy (see `Exec::block`). The general path counts such an access with
//! the same formulas, so both paths agree by construction.

use super::super::bind::Geometry;
use super::block_cycles;
use crate::stats::Counters;

/// Counts a global access of every lane of the wave to one block of
/// `size`-byte elements whose first byte is at address `first` (lane `l`
/// at `first + l * size`, wrapping as 32-bit addresses do): per phase, the
/// lines and sectors from its first lane's to its last lane's.
#[inline(always)]
pub(in super::super) fn count_global<const W: usize>(
    first: u32,
    size: u32,
    geo: &Geometry,
    c: &mut Counters,
) {
    let p = (geo.phase_lanes as usize).min(W);
    let key = |l: usize, shift: u32| first.wrapping_add(l as u32 * size) >> shift;
    // Keys `start..=last` of one phase: a range, so their count.
    let span =
        |start: usize, last: usize, shift: u32| (key(last, shift) - key(start, shift)) as u64 + 1;
    let (mut accesses, mut lines, mut sectors) = (0u64, 0u64, 0u64);
    let mut start = 0;
    while start < W {
        let last = start + p - 1;
        let phase_lines = span(start, last, geo.line_shift);
        lines += phase_lines;
        sectors += match geo.sector_shift == geo.line_shift {
            true => phase_lines,
            false => span(start, last, geo.sector_shift),
        };
        accesses += 1;
        start += p;
    }
    c.global_accesses += accesses;
    c.global_transactions += lines;
    c.global_sectors += sectors;
    c.global_bytes_requested += W as u64 * size as u64;
    c.global_bytes_moved += lines * geo.line_bytes;
}

/// Counts an LDS access of every lane of the wave to one block of
/// `size`-byte elements whose first byte is at offset `first` of the LDS:
/// per phase, the conflict cycles of its words.
#[inline(always)]
pub(in super::super) fn count_lds<const W: usize>(
    first: u32,
    size: u32,
    geo: &Geometry,
    c: &mut Counters,
) {
    let p = (geo.phase_lanes as usize).min(W);
    let at = |l: usize| first.wrapping_add(l as u32 * size);
    let mut start = 0;
    while start < W {
        c.lds_accesses += 1;
        c.lds_bytes_requested += p as u64 * size as u64;
        c.lds_conflict_cycles += block_cycles(at(start), at(start + p - 1), geo);
        start += p;
    }
}
