//! Memory handlers: global and LDS loads and stores, with their counters.
//!
//! An access first computes and checks every active lane's byte offset; a lane out
//! of bounds or misaligned faults the instruction before any lane moves data, so a
//! faulting instruction has no effect. Then the counters are taken per phase of
//! the memory model, and finally the data moves between the lanes and the host
//! slices (global) or the workgroup's LDS bytes.
//!
//! Counting does no heap work: distinct lines are counted on the fly when the
//! phase's addresses are monotone (the common case) and by sorting a fixed array
//! otherwise; LDS words are deduplicated with a generation-stamped table.

use super::bind::{Geometry, LdsArea, Slot};
use crate::error::FaultKind;
use crate::ir::{Addressing, ElemType};
use crate::stats::Counters;

/// A fault raised by a handler, before the interpreter adds where it happened.
#[derive(Debug)]
pub(super) struct Trap {
    /// What went wrong.
    pub(super) kind: FaultKind,
    /// The faulting lane, if one is at fault.
    pub(super) lane: Option<u32>,
    /// The faulting address, if there is one.
    pub(super) address: Option<u64>,
}

/// The exec bits that can belong to a wave of `W` lanes.
#[inline(always)]
pub(super) const fn full<const W: usize>() -> u64 {
    if W >= 64 {
        u64::MAX
    } else {
        (1u64 << W) - 1
    }
}

/// The first active lane whose access is out of bounds or misaligned.
struct BadLane {
    lane: u32,
    offset: u64,
    misaligned: bool,
}

/// Computes each lane's byte offset plus `origin` and checks the active ones (`lm`
/// holds the per-lane exec words) against a buffer or array of `len` bytes.
///
/// Global buffers live in a 32-bit address space and LDS arrays are smaller, so
/// offsets fit in 32 bits; the check is made on the index (before scaling, so it
/// cannot wrap): an index is valid below `limit` and when aligned.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn offsets<const W: usize>(
    idx: &[u32; W],
    lm: &[u32; W],
    exec: u64,
    addressing: Addressing,
    size: u32,
    len: u64,
    origin: u32,
    offs: &mut [u32; W],
) -> Result<(), BadLane> {
    let len = len.min(u32::MAX as u64) as u32;
    let (shift, limit, align) = match addressing {
        Addressing::Element => (size.trailing_zeros(), len >> size.trailing_zeros(), 0),
        Addressing::Byte => (0, len.saturating_sub(size - 1), size - 1),
    };
    let wrong = |i: u32| (i >= limit) | (i & align != 0);
    let mut any = 0u32;
    for l in 0..W {
        offs[l] = idx[l].wrapping_shl(shift).wrapping_add(origin);
        any |= wrong(idx[l]) as u32 & lm[l];
    }
    if any == 0 {
        return Ok(());
    }
    match lanes(exec).find(|&l| wrong(idx[l])) {
        Some(l) => Err(BadLane {
            lane: l as u32,
            offset: (idx[l] as u64) << shift,
            misaligned: idx[l] & align != 0,
        }),
        None => Ok(()),
    }
}

/// Whether lane `l` accesses `offs[0] + l * size`: one contiguous block.
#[inline(always)]
fn contiguous<const W: usize>(offs: &[u32; W], size: u32) -> bool {
    // Fixed-length loops over all lanes vectorize without a scalar tail.
    // An OR of differences reduces well in vector registers; the opaque read keeps
    // the optimizer from turning `diff == 0` back into a chain of per-lane
    // comparisons, which it lowers poorly.
    let first = offs[0];
    let shift = size.trailing_zeros();
    let mut diff = 0u32;
    for (l, &o) in offs.iter().enumerate() {
        diff |= o.wrapping_sub(first) ^ ((l as u32) << shift);
    }
    std::hint::black_box(diff) == 0
}

/// Lane indices of the set bits of `bits`, lowest first.
///
/// A contiguous run of set bits (a full wave or phase) is walked as a plain range,
/// which is cheaper than finding each bit.
#[inline(always)]
fn lanes(bits: u64) -> impl Iterator<Item = usize> {
    let start = bits.trailing_zeros();
    let run = (bits >> start.min(63)).trailing_ones();
    let dense = bits != 0 && (bits >> start.min(63)).count_ones() == run;
    let (range, mut sparse) = if dense {
        (start as usize..(start + run) as usize, 0)
    } else {
        (0..0, bits)
    };
    range.chain(std::iter::from_fn(move || {
        if sparse == 0 {
            None
        } else {
            let l = sparse.trailing_zeros() as usize;
            sparse &= sparse - 1;
            Some(l)
        }
    }))
}

/// The memory phases of a wave of `W` lanes: each phase's first lane, lane count
/// and active-lane mask.
#[inline(always)]
fn phases<const W: usize>(
    exec: u64,
    phase_lanes: u32,
) -> impl Iterator<Item = (usize, usize, u64)> {
    // Phase widths are powers of two: shift rather than divide.
    let p = (phase_lanes as usize).min(W);
    let shift = p.trailing_zeros();
    let one = if p >= 64 { u64::MAX } else { (1u64 << p) - 1 };
    (0..(W + p - 1) >> shift).map(move |k| (k * p, p, exec & (one << (k * p))))
}

/// The number of distinct keys (`key(x) = (base + x) >> shift`) of a phase's
/// active lanes.
///
/// When the whole wave reads one contiguous block (`contiguous`), the keys of a
/// phase are the range from its first lane's to its last lane's. Otherwise the
/// active lanes are visited in order, counting changes while the keys are
/// monotone; keys that are not are sorted in `buf`.
#[inline(always)]
fn distinct<const W: usize>(
    phase: (usize, usize, u64),
    contiguous: bool,
    offs: &[u32; W],
    base: u32,
    shift: u32,
    buf: &mut [u32; W],
) -> u64 {
    let (start, n, bits) = phase;
    // Addresses fit in 32 bits: the launch lays buffers out below 4 GiB.
    let key = |l: usize| base.wrapping_add(offs[l]) >> shift;
    if contiguous {
        return (key((start + n - 1) % W) - key(start % W)) as u64 + 1;
    }
    let mut iter = lanes(bits);
    let Some(first) = iter.next() else {
        return 0;
    };
    let mut prev = key(first);
    let mut count = 1;
    let mut monotone = true;
    for l in iter {
        let k = key(l);
        count += (k != prev) as u64;
        monotone &= k >= prev;
        prev = k;
    }
    if monotone {
        return count;
    }
    let mut n = 0;
    for (slot, l) in buf.iter_mut().zip(lanes(bits)) {
        *slot = key(l);
        n += 1;
    }
    let keys = &mut buf[..n];
    keys.sort_unstable();
    1 + keys.windows(2).filter(|w| w[0] != w[1]).count() as u64
}

/// Counts a global access: per phase, distinct lines and sectors.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn count_global<const W: usize>(
    exec: u64,
    contiguous: bool,
    offs: &[u32; W],
    base: u32,
    size: u32,
    geo: &Geometry,
    c: &mut Counters,
    buf: &mut [u32; W],
) {
    for phase in phases::<W>(exec, geo.phase_lanes) {
        let bits = phase.2;
        if bits == 0 {
            continue;
        }
        let lines = distinct(phase, contiguous, offs, base, geo.line_shift, buf);
        let sectors = if geo.sector_shift == geo.line_shift {
            lines
        } else {
            distinct(phase, contiguous, offs, base, geo.sector_shift, buf)
        };
        c.global_accesses += 1;
        c.global_transactions += lines;
        c.global_sectors += sectors;
        c.global_bytes_requested += bits.count_ones() as u64 * size as u64;
        c.global_bytes_moved += lines * geo.line_bytes;
    }
}

/// The LDS word-deduplication table and its generation.
pub(super) struct BankTable<'a> {
    /// Per LDS word, the generation that last saw it.
    pub(super) stamps: &'a mut [u32],
    /// The current generation.
    pub(super) gen: &'a mut u32,
}

/// Counts an LDS access: per phase, the worst bank's distinct words minus one.
#[inline(always)]
fn count_lds<const W: usize>(
    exec: u64,
    contiguous: bool,
    addrs: &[u32; W],
    size: u32,
    geo: &Geometry,
    table: &mut BankTable<'_>,
    c: &mut Counters,
) {
    for (start, n, bits) in phases::<W>(exec, geo.phase_lanes) {
        if bits == 0 {
            continue;
        }
        c.lds_accesses += 1;
        c.lds_bytes_requested += bits.count_ones() as u64 * size as u64;
        if contiguous {
            // One block of bytes: `k` consecutive words, spread over the banks as
            // evenly as possible (an access never spans two words: it is aligned
            // and no wider than a bank word).
            let first = (addrs[start % W] >> geo.bank_shift) as u64;
            let last = (addrs[(start + n - 1) % W] >> geo.bank_shift) as u64;
            let banks = geo.bank_mask as u64 + 1;
            let k = last - first + 1;
            c.lds_conflict_cycles += ((k + banks - 1) >> banks.trailing_zeros()) - 1;
            continue;
        }
        if bits.count_ones() as usize == n {
            if let Some(cycles) = affine_conflicts(&addrs[start..start + n], geo) {
                c.lds_conflict_cycles += cycles;
                continue;
            }
        }
        // No bank asked for two different words (lanes sharing a word broadcast):
        // no conflict. This covers distinct banks and groups of broadcasts.
        let mut seen = 0u64;
        let mut bank_word = [0u32; 64];
        let mut clash = false;
        for l in lanes(bits) {
            let word = addrs[l] >> geo.bank_shift;
            let bank = (word & geo.bank_mask & 63) as usize;
            let bit = 1u64 << bank;
            if seen & bit == 0 {
                seen |= bit;
                bank_word[bank] = word;
            } else {
                clash |= bank_word[bank] != word;
            }
        }
        if !clash {
            continue;
        }
        if *table.gen == u32::MAX {
            table.stamps.fill(0);
            *table.gen = 0;
        }
        *table.gen += 1;
        let gen = *table.gen;
        let mut per_bank = [0u8; 64];
        let mut worst = 0u8;
        for l in lanes(bits) {
            let word = (addrs[l] >> geo.bank_shift) as usize;
            if let Some(stamp) = table.stamps.get_mut(word) {
                if *stamp != gen {
                    *stamp = gen;
                    let n = &mut per_bank[word & geo.bank_mask as usize & 63];
                    *n += 1;
                    worst = worst.max(*n);
                }
            }
        }
        c.lds_conflict_cycles += worst.saturating_sub(1) as u64;
    }
}

/// The conflict cycles of a fully active phase whose words are affine in the lane
/// (`word(l) = w0 + l * stride`), or `None` when they are not.
///
/// With stride 0 every lane reads one word (a broadcast). Otherwise the words are
/// distinct and cycle through `banks / g` banks, `g = gcd(stride mod banks, banks)`,
/// so the busiest bank serves `ceil(n * g / banks)` of the `n` lanes.
#[inline(always)]
fn affine_conflicts(addrs: &[u32], geo: &Geometry) -> Option<u64> {
    let word = |a: u32| a >> geo.bank_shift;
    let w0 = word(*addrs.first()?);
    let stride = addrs.get(1).map_or(0, |&a| word(a).wrapping_sub(w0));
    let mut diff = 0u32;
    for (l, &a) in addrs.iter().enumerate() {
        diff |= word(a) ^ w0.wrapping_add(stride.wrapping_mul(l as u32));
    }
    // As in `contiguous`: keep the reduction a vector OR.
    if std::hint::black_box(diff) != 0 {
        return None;
    }
    if stride == 0 {
        return Some(0);
    }
    let banks = geo.bank_mask as u64 + 1;
    let r = (stride & geo.bank_mask) as u64;
    let g = if r == 0 {
        banks
    } else {
        1 << r.trailing_zeros()
    };
    Some(((addrs.len() as u64 * g + banks - 1) >> banks.trailing_zeros()) - 1)
}

/// Loads the active lanes' values of type `ty` at `offs[l]` (relative to `data`)
/// into `out`. A fully active wave reading one contiguous block is copied with a
/// straight loop.
#[inline(always)]
fn gather<const W: usize>(
    data: &[u8],
    exec: u64,
    offs: &[u32; W],
    ty: ElemType,
    out: &mut [u32; W],
    contiguous: bool,
) {
    let block = if contiguous {
        let start = offs[0] as usize;
        data.get(start..start + W * ty.size() as usize)
    } else {
        None
    };
    macro_rules! go {
        ($n:literal, $conv:expr) => {{
            if let Some(block) = block {
                for (o, ch) in out.iter_mut().zip(block.chunks_exact($n)) {
                    *o = <[u8; $n]>::try_from(ch).map_or(0, $conv);
                }
                return;
            }
            for l in lanes(exec) {
                let o = offs[l] as usize;
                out[l] = match data.get(o..).and_then(|s| s.first_chunk::<$n>()) {
                    Some(b) => $conv(*b),
                    None => 0,
                };
            }
        }};
    }
    match ty {
        ElemType::U8 => go!(1, |b: [u8; 1]| b[0] as u32),
        ElemType::I8 => go!(1, |b: [u8; 1]| b[0] as i8 as i32 as u32),
        ElemType::U16 => go!(2, |b: [u8; 2]| u16::from_ne_bytes(b) as u32),
        ElemType::I16 => go!(2, |b: [u8; 2]| u16::from_ne_bytes(b) as i16 as i32 as u32),
        ElemType::U32 | ElemType::I32 | ElemType::F32 => go!(4, u32::from_ne_bytes),
    }
}

/// Stores the low `ty.size()` bytes of the active lanes' values at `offs[l]`.
#[inline(always)]
fn scatter<const W: usize>(
    data: &mut [u8],
    exec: u64,
    offs: &[u32; W],
    ty: ElemType,
    val: &[u32; W],
    contiguous: bool,
) {
    let start = offs[0] as usize;
    macro_rules! go {
        ($n:literal, $conv:expr) => {{
            if contiguous {
                if let Some(block) = data.get_mut(start..start + W * $n) {
                    for (ch, &v) in block.chunks_exact_mut($n).zip(val.iter()) {
                        ch.copy_from_slice(&$conv(v));
                    }
                    return;
                }
            }
            for l in lanes(exec) {
                let o = offs[l] as usize;
                if let Some(d) = data.get_mut(o..o + $n) {
                    d.copy_from_slice(&$conv(val[l]));
                }
            }
        }};
    }
    match ty.size() {
        1 => go!(1, |v: u32| [v as u8]),
        2 => go!(2, |v: u32| (v as u16).to_ne_bytes()),
        _ => go!(4, u32::to_ne_bytes),
    }
}

fn access_name(store: bool) -> &'static str {
    if store {
        "store"
    } else {
        "load"
    }
}

/// Scratch arrays of the memory handlers.
pub(super) struct MemScratch<const W: usize> {
    /// Byte offsets per lane.
    pub(super) offs: [u32; W],
    /// Sort buffer for distinct-line counting.
    pub(super) keys: [u32; W],
}

impl<const W: usize> MemScratch<W> {
    pub(super) fn new() -> Self {
        MemScratch {
            offs: [0; W],
            keys: [0; W],
        }
    }
}

/// A global buffer operand resolved to its slot.
pub(super) struct GlobalTarget<'s, 'b> {
    /// The buffer's slot.
    pub(super) slot: &'s mut Slot<'b>,
    /// The parameter's name, for faults.
    pub(super) name: &'s str,
    /// How the index is scaled.
    pub(super) addressing: Addressing,
}

/// A global load (`out` gets the active lanes' values) or store (from `val`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn global<const W: usize>(
    store: bool,
    ty: ElemType,
    target: GlobalTarget<'_, '_>,
    idx: &[u32; W],
    lm: &[u32; W],
    exec: u64,
    val_out: &mut [u32; W],
    geo: &Geometry,
    c: &mut Counters,
    s: &mut MemScratch<W>,
) -> Result<(), Box<Trap>> {
    let exec = exec & full::<W>();
    let size = ty.size();
    let base = target.slot.base() as u32;
    let len = target.slot.bytes().len() as u64;
    if let Err(bad) = offsets(idx, lm, exec, target.addressing, size, len, 0, &mut s.offs) {
        let kind = if bad.misaligned {
            FaultKind::GlobalMisaligned {
                access: access_name(store),
                buffer: target.name.to_owned(),
                offset: bad.offset,
                size,
            }
        } else {
            FaultKind::GlobalOutOfBounds {
                access: access_name(store),
                buffer: target.name.to_owned(),
                offset: bad.offset,
                size,
                len,
            }
        };
        return Err(Box::new(Trap {
            kind,
            lane: Some(bad.lane),
            address: Some(base as u64 + bad.offset),
        }));
    }
    let contiguous = exec == full::<W>() && contiguous(&s.offs, size);
    count_global(exec, contiguous, &s.offs, base, size, geo, c, &mut s.keys);
    match (store, target.slot) {
        (false, slot) => gather(slot.bytes(), exec, &s.offs, ty, val_out, contiguous),
        (true, Slot::BufferMut { data, .. }) => {
            scatter(data, exec, &s.offs, ty, val_out, contiguous)
        }
        // A store to a read-only buffer is rejected before the launch starts.
        (true, _) => {}
    }
    Ok(())
}

/// An LDS operand resolved to its array.
pub(super) struct LdsTarget<'s> {
    /// The array.
    pub(super) area: LdsArea,
    /// The array's name, for faults.
    pub(super) name: &'s str,
    /// How the index is scaled.
    pub(super) addressing: Addressing,
}

/// An LDS load (`out` gets the active lanes' values) or store (from `val`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn lds<const W: usize>(
    store: bool,
    ty: ElemType,
    target: LdsTarget<'_>,
    idx: &[u32; W],
    lm: &[u32; W],
    exec: u64,
    val_out: &mut [u32; W],
    mem: &mut [u8],
    table: &mut BankTable<'_>,
    geo: &Geometry,
    c: &mut Counters,
    s: &mut MemScratch<W>,
) -> Result<(), Box<Trap>> {
    let exec = exec & full::<W>();
    let size = ty.size();
    let area = target.area;
    if let Err(bad) = offsets(
        idx,
        lm,
        exec,
        target.addressing,
        size,
        area.bytes as u64,
        area.offset,
        &mut s.offs,
    ) {
        let kind = if bad.misaligned {
            FaultKind::LdsMisaligned {
                access: access_name(store),
                array: target.name.to_owned(),
                offset: bad.offset,
                size,
            }
        } else {
            FaultKind::LdsOutOfBounds {
                access: access_name(store),
                array: target.name.to_owned(),
                offset: bad.offset,
                size,
                len: area.bytes as u64,
            }
        };
        return Err(Box::new(Trap {
            kind,
            lane: Some(bad.lane),
            address: Some((area.offset as u64).saturating_add(bad.offset)),
        }));
    }
    let contiguous = exec == full::<W>() && contiguous(&s.offs, size);
    count_lds(exec, contiguous, &s.offs, size, geo, table, c);
    if store {
        scatter(mem, exec, &s.offs, ty, val_out, contiguous);
    } else {
        gather(mem, exec, &s.offs, ty, val_out, contiguous);
    }
    Ok(())
}
