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

pub(super) mod atomic;
pub(super) mod block;
mod caches;
mod lds;
#[cfg(target_arch = "x86_64")]
mod simd;
mod space;
pub(super) mod span;
#[cfg(test)]
mod tests;
pub(super) mod wide;

pub(super) use caches::{Caches, CuCaches, DramEvent, Through};
pub(super) use lds::Lds;
pub(super) use space::{Array, Buffer, Target};

use super::bind::Geometry;
use crate::error::FaultKind;
use crate::findings::Space;
use crate::ir::{Addressing, ElemType};
use crate::limits::MAX_LDS_BYTES;
use crate::stats::{Counters, WorstPhase};

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
pub(super) struct BadLane {
    lane: u32,
    /// The index as written (an index of 2^31 and above reads as negative), in
    /// elements or bytes as the operand addresses.
    index: i64,
    /// The byte offset it gives within the buffer or array.
    offset: i64,
    misaligned: bool,
}

/// Computes each lane's byte offset plus `origin` and checks the active ones (`lm`
/// holds the per-lane exec words) against a buffer or array of `len` bytes.
///
/// Global buffers live in a 32-bit address space and LDS arrays are smaller, so
/// offsets fit in 32 bits; the check is made on the index (before scaling, so it
/// cannot wrap): an index is valid below `limit` and when aligned.
///
/// Returns the offsets' [`Shape`] over every lane, computed in the same pass:
/// reading the offsets back in a second loop, at lane positions shifted from
/// the vector stores that wrote them, stalls on store forwarding.
#[inline(always)]
pub(super) fn offsets<const W: usize>(
    idx: &[u32; W],
    lm: &[u32; W],
    exec: u64,
    area: Area,
    offs: &mut [u32; W],
    stepped: bool,
) -> Result<Shape, BadLane> {
    let Area {
        addressing,
        size,
        len,
        origin,
    } = area;
    let len = len.min(u32::MAX as u64) as u32;
    let (shift, limit, align) = match addressing {
        Addressing::Element => (size.trailing_zeros(), len >> size.trailing_zeros(), 0),
        Addressing::Byte => (0, len.saturating_sub(size - 1), size - 1),
    };
    // An index known to step by one from lane to lane, every lane active and
    // elements addressed: the first and last lanes' indices bound the others
    // and the offsets form one block. Anything else (a faulting lane
    // included) takes the general pass.
    if stepped && exec == full::<W>() && align == 0 {
        let last = idx[0].wrapping_add(W as u32 - 1);
        if last >= idx[0] && last < limit {
            debug_assert!((0..W).all(|l| idx[l] == idx[0] + l as u32));
            let first = idx[0].wrapping_shl(shift).wrapping_add(origin);
            for l in 0..W {
                offs[l] = first.wrapping_add((l as u32) << shift);
            }
            return Ok(Shape::Contiguous);
        }
    }
    let wrong = |i: u32| (i >= limit) | (i & align != 0);
    let first = idx[0].wrapping_shl(shift).wrapping_add(origin);
    let step = size.trailing_zeros();
    let mut any = 0u32;
    let mut diff = 0u32;
    let mut same = 0u32;
    for l in 0..W {
        let o = idx[l].wrapping_shl(shift).wrapping_add(origin);
        offs[l] = o;
        any |= wrong(idx[l]) as u32 & lm[l];
        diff |= o.wrapping_sub(first) ^ ((l as u32) << step);
        same |= o ^ first;
    }
    // The opaque reads keep the optimizer from turning `diff == 0` back into a
    // chain of per-lane comparisons, which it lowers poorly.
    let shape = if std::hint::black_box(diff) == 0 {
        Shape::Contiguous
    } else if std::hint::black_box(same) == 0 {
        Shape::Uniform
    } else {
        Shape::Scattered
    };
    if any == 0 {
        return Ok(shape);
    }
    match lanes(exec).find(|&l| wrong(idx[l])) {
        Some(l) => {
            let index = if (idx[l] as i32) < 0 {
                i64::from(idx[l] as i32)
            } else {
                i64::from(idx[l])
            };
            Err(BadLane {
                lane: l as u32,
                index,
                offset: index << shift,
                misaligned: idx[l] & align != 0,
            })
        }
        None => Ok(shape),
    }
}

/// What an access addresses: a buffer or LDS array of `len` bytes whose
/// element 0 is at byte `origin`, indexed by elements or bytes, with `size`
/// bytes per element.
#[derive(Clone, Copy, Debug)]
pub(super) struct Area {
    pub(super) addressing: Addressing,
    pub(super) size: u32,
    pub(super) len: u64,
    pub(super) origin: u32,
}

/// How a memory instruction's lane offsets lie, over every lane of the wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// Lane `l` at `offs[0] + l * size`: one block. The access paths take it
    /// only when every lane is active (see [`Shape::of`]).
    Contiguous,
    /// Every lane at one offset: a broadcast, counted and moved once.
    Uniform,
    /// Anything else.
    Scattered,
}

impl Shape {
    /// The shape an access of the lanes of `exec` takes: a block only when
    /// every lane of the wave reads its part of it.
    #[inline(always)]
    pub(super) fn of<const W: usize>(self, exec: u64) -> Shape {
        match self {
            Shape::Contiguous if exec != full::<W>() => Shape::Scattered,
            shape => shape,
        }
    }
}

/// Lane indices of the set bits of `bits`, lowest first.
///
/// A contiguous run of set bits (a full wave or phase) is walked as a plain range,
/// which is cheaper than finding each bit.
#[inline(always)]
pub(super) fn lanes(bits: u64) -> impl Iterator<Item = usize> {
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

/// Calls `f` with the lane index of each set bit of `bits`, lowest first.
///
/// Like [`lanes`], but as a plain loop: a contiguous run of set bits (a full wave
/// or phase) becomes a counted loop the optimizer unrolls.
#[inline(always)]
pub(super) fn each_lane(bits: u64, mut f: impl FnMut(usize)) {
    if bits == 0 {
        return;
    }
    let start = bits.trailing_zeros();
    let shifted = bits >> start;
    if shifted & shifted.wrapping_add(1) == 0 {
        let end = start + shifted.trailing_ones();
        for l in start as usize..end as usize {
            f(l);
        }
    } else {
        let mut rest = bits;
        while rest != 0 {
            f(rest.trailing_zeros() as usize);
            rest &= rest - 1;
        }
    }
}

/// The memory phases of a wave of `W` lanes: each phase's first lane, lane count
/// and active-lane mask.
#[inline(always)]
pub(super) fn phases<const W: usize>(
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
    shape: Shape,
    offs: &[u32; W],
    base: u32,
    shift: u32,
    buf: &mut [u32; W],
) -> u64 {
    let (start, n, bits) = phase;
    // Addresses fit in 32 bits: the launch lays buffers out below 4 GiB.
    let key = |l: usize| base.wrapping_add(offs[l]) >> shift;
    match shape {
        Shape::Contiguous => return (key((start + n - 1) % W) - key(start % W)) as u64 + 1,
        Shape::Uniform => return (bits != 0) as u64,
        Shape::Scattered => {}
    }
    let one = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    if n <= W && bits == one << start {
        // A fully active phase: compare neighbours in a straight loop, with
        // a constant trip count when the phase is the whole wave (as in
        // `lds_phase_cycles`).
        let neighbours = |lanes: std::ops::Range<usize>| {
            let (mut changes, mut down) = (0u64, 0u32);
            for l in lanes {
                let (a, b) = (key(l - 1), key(l));
                changes += (a != b) as u64;
                down |= (b < a) as u32;
            }
            (changes, down)
        };
        let (changes, down) = if n == W {
            neighbours(1..W)
        } else {
            neighbours(start + 1..start + n)
        };
        if down == 0 {
            return changes + 1;
        }
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
#[inline(always)]
pub(super) fn count_global<const W: usize>(
    exec: u64,
    shape: Shape,
    offs: &[u32; W],
    base: u32,
    size: u32,
    count: Count<'_>,
    buf: &mut [u32; W],
) {
    let Count { geo, c, mut worst } = count;
    if shape != Shape::Scattered && worst.is_none() {
        count_global_regular::<W>(exec, shape, offs, base, size, geo, c);
        return;
    }
    for phase in phases::<W>(exec, geo.phase_lanes) {
        let bits = phase.2;
        if bits == 0 {
            continue;
        }
        let lines = distinct(phase, shape, offs, base, geo.line_shift, buf);
        let sectors = if geo.sector_shift == geo.line_shift {
            lines
        } else {
            distinct(phase, shape, offs, base, geo.sector_shift, buf)
        };
        c.global_accesses += 1;
        c.global_transactions += lines;
        c.global_sectors += sectors;
        c.global_bytes_requested += bits.count_ones() as u64 * size as u64;
        c.global_bytes_moved += lines * geo.line_bytes;
        if let Some(w) = worst.as_deref_mut() {
            let (start, n, _) = phase;
            w.offer(lines, sectors, start, n, bits >> start, offs, size);
        }
    }
}

/// [`count_global`] for a block or a broadcast, by formula: per phase, a
/// block's lines are the range from its first lane's to its last lane's (as
/// [`distinct`] counts them), and a broadcast's phases with an active lane
/// touch one line and one sector each.
#[inline(always)]
fn count_global_regular<const W: usize>(
    exec: u64,
    shape: Shape,
    offs: &[u32; W],
    base: u32,
    size: u32,
    geo: &Geometry,
    c: &mut Counters,
) {
    if shape == Shape::Contiguous {
        // A block is taken only when every lane is active (`Shape::of`).
        block::count_global::<W>(base.wrapping_add(offs[0]), size, geo, c);
        return;
    }
    let p = (geo.phase_lanes as usize).min(W);
    let one = if p >= 64 { u64::MAX } else { (1u64 << p) - 1 };
    let mut accesses = 0u64;
    let mut start = 0;
    while start < W {
        accesses += (exec & (one << start) != 0) as u64;
        start += p;
    }
    c.global_accesses += accesses;
    c.global_transactions += accesses;
    c.global_sectors += accesses;
    c.global_bytes_requested += exec.count_ones() as u64 * size as u64;
    c.global_bytes_moved += accesses * geo.line_bytes;
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
pub(super) fn count_lds<const W: usize>(
    exec: u64,
    shape: Shape,
    addrs: &[u32; W],
    size: u32,
    count: Count<'_>,
    table: &mut BankTable<'_>,
    banks: &mut [u32; 64],
) {
    let Count { geo, c, mut worst } = count;
    for (start, n, bits) in phases::<W>(exec, geo.phase_lanes) {
        if bits == 0 {
            continue;
        }
        c.lds_accesses += 1;
        c.lds_bytes_requested += bits.count_ones() as u64 * size as u64;
        let cycles = lds_phase_cycles::<W>((start, n, bits), shape, addrs, geo, table, banks);
        c.lds_conflict_cycles += cycles;
        if let Some(w) = worst.as_deref_mut() {
            w.offer(cycles, 0, start, n, bits >> start, addrs, size);
        }
    }
}

/// The conflict cycles of one LDS phase: its worst bank's distinct words minus one.
#[inline(always)]
fn lds_phase_cycles<const W: usize>(
    (start, n, bits): (usize, usize, u64),
    shape: Shape,
    addrs: &[u32; W],
    geo: &Geometry,
    table: &mut BankTable<'_>,
    banks: &mut [u32; 64],
) -> u64 {
    {
        if shape == Shape::Uniform {
            // Every lane reads one word: a broadcast.
            return 0;
        }
        if shape == Shape::Contiguous {
            return block_cycles(addrs[start % W], addrs[(start + n - 1) % W], geo);
        }
        if bits.count_ones() as usize == n {
            // Words spanning fewer than `banks` consecutive words sit in distinct
            // banks, whatever lanes share them: no conflict (the broadcast tiles
            // of a matrix product). A min/max reduction, which vectorizes.
            // A phase of the whole wave (wave32 on the presets) is reduced
            // with a constant trip count: a loop over a phase of unknown
            // length needs a vector prologue longer than itself.
            let span = |lanes: &[u32]| {
                let (mut lo, mut hi) = (u32::MAX, 0u32);
                for &a in lanes {
                    lo = lo.min(a >> geo.bank_shift);
                    hi = hi.max(a >> geo.bank_shift);
                }
                (lo, hi)
            };
            let (lo, hi) = if n == W {
                span(&addrs[..])
            } else {
                span(&addrs[start..start + n])
            };
            if hi - lo <= geo.bank_mask {
                return 0;
            }
            if let Some(cycles) = affine_conflicts(&addrs[start..start + n], geo) {
                return cycles;
            }
        }
        // No bank asked for two different words (lanes sharing a word broadcast):
        // no conflict. This covers distinct banks and groups of broadcasts. Each
        // active lane writes its word to its bank's slot, then every lane checks
        // that its bank's slot holds its word: two straight passes, no branches.
        // Every slot read below was written first: the table needs no clearing.
        let bank_word = &mut *banks;
        let bank_of = |l: usize| ((addrs[l] >> geo.bank_shift) & geo.bank_mask & 63) as usize;
        each_lane(bits, |l| bank_word[bank_of(l)] = addrs[l] >> geo.bank_shift);
        let mut mismatch = 0u32;
        each_lane(bits, |l| {
            mismatch |= bank_word[bank_of(l)] ^ (addrs[l] >> geo.bank_shift);
        });
        let clash = mismatch != 0;
        if !clash {
            return 0;
        }
        if *table.gen == u32::MAX {
            table.stamps.fill(0);
            *table.gen = 0;
        }
        *table.gen += 1;
        let gen = *table.gen;
        let mut per_bank = [0u8; 64];
        let mut worst = 0u8;
        each_lane(bits, |l| {
            let word = (addrs[l] >> geo.bank_shift) as usize;
            if let Some(stamp) = table.stamps.get_mut(word) {
                if *stamp != gen {
                    *stamp = gen;
                    let n = &mut per_bank[word & geo.bank_mask as usize & 63];
                    *n += 1;
                    worst = worst.max(*n);
                }
            }
        });
        worst.saturating_sub(1) as u64
    }
}

/// The conflict cycles of a phase that reads one block of bytes, from byte
/// offset `first` to `last`: its consecutive words spread over the banks as
/// evenly as possible (an access never spans two words: it is aligned and
/// no wider than a bank word).
#[inline(always)]
pub(super) fn block_cycles(first: u32, last: u32, geo: &Geometry) -> u64 {
    let (first, last) = (
        (first >> geo.bank_shift) as u64,
        (last >> geo.bank_shift) as u64,
    );
    let banks = geo.bank_mask as u64 + 1;
    let k = last - first + 1;
    ((k + banks - 1) >> banks.trailing_zeros()) - 1
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
    // As in `offsets`: keep the reduction a vector OR.
    if std::hint::black_box(diff) != 0 {
        return None;
    }
    Some(affine_cycles(stride, addrs.len() as u64, geo))
}

/// The conflict cycles of `n` lanes reading words `w0 + l * stride` (any
/// `w0`; the stride wrapping as a `u32`, so a negative one is its two's
/// complement): see [`affine_conflicts`].
#[inline(always)]
pub(super) fn affine_cycles(stride: u32, n: u64, geo: &Geometry) -> u64 {
    if stride == 0 {
        return 0;
    }
    let banks = geo.bank_mask as u64 + 1;
    let r = (stride & geo.bank_mask) as u64;
    let g = if r == 0 {
        banks
    } else {
        1 << r.trailing_zeros()
    };
    ((n * g + banks - 1) >> banks.trailing_zeros()) - 1
}

/// `out[l]` = the native-endian 4-byte element `idx[l]` of `data`, for
/// every lane; an index past the end reads the last element (the caller
/// checked the indices: clamping only keeps the reads inside `data`).
#[inline(always)]
pub(super) fn gather_elements<const W: usize>(
    data: &[u8],
    idx: &[u32; W],
    out: &mut [u32; W],
    avx2: bool,
) {
    let elements = data.len() / 4;
    if elements == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if avx2 && data.len() <= i32::MAX as usize {
        // SAFETY: `avx2` is set only when the CPU reported AVX2, and the
        // length is in the range `gather_elements` asks for.
        unsafe { simd::gather_elements(data, idx, out) };
        return;
    }
    let _ = avx2;
    for (o, &i) in out.iter_mut().zip(idx) {
        let at = (i as usize).min(elements - 1) * 4;
        *o = <[u8; 4]>::try_from(&data[at..at + 4]).map_or(0, u32::from_ne_bytes);
    }
}

/// Loads the active lanes' values of type `ty` at `offs[l]` (relative to `data`)
/// into `out`; the other lanes get unspecified values (the caller blends by exec).
///
/// A fully active wave reading one contiguous block is copied with a straight
/// loop. Otherwise every lane reads at its offset clamped into `data`: the active
/// lanes' offsets were checked, so clamping changes only inactive lanes, and the
/// loop needs no per-lane branch on exec.
#[inline(always)]
pub(super) fn gather<const W: usize>(
    data: &[u8],
    offs: &[u32; W],
    ty: ElemType,
    out: &mut [u32; W],
    shape: Shape,
    avx2: bool,
) {
    let block = if shape == Shape::Contiguous {
        let start = offs[0] as usize;
        data.get(start..start + W * ty.size() as usize)
    } else {
        None
    };
    if let (4, Some(block)) = (ty.size(), block) {
        // Native-endian words, as `u32::from_ne_bytes` reads them: one copy.
        bytemuck::cast_slice_mut::<u32, u8>(&mut out[..]).copy_from_slice(block);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if avx2
        && ty.size() == 4
        && shape == Shape::Scattered
        && (4..=i32::MAX as usize).contains(&data.len())
    {
        // SAFETY: `avx2` is set only when the CPU reported AVX2, and the
        // length is in the range `gather_bytes` asks for.
        unsafe { simd::gather_bytes(data, offs, out) };
        return;
    }
    let _ = avx2;
    macro_rules! go {
        ($n:literal, $conv:expr) => {{
            if let Some(block) = block {
                for (o, ch) in out.iter_mut().zip(block.chunks_exact($n)) {
                    *o = <[u8; $n]>::try_from(ch).map_or(0, $conv);
                }
                return;
            }
            let Some(top) = data.len().checked_sub($n) else {
                return;
            };
            if shape == Shape::Uniform {
                let o = (offs[0] as usize).min(top);
                let v = data
                    .get(o..o + $n)
                    .map_or(0, |b| <[u8; $n]>::try_from(b).map_or(0, $conv));
                *out = [v; W];
                return;
            }
            for l in 0..W {
                let o = (offs[l] as usize).min(top);
                out[l] = data
                    .get(o..o + $n)
                    .map_or(0, |b| <[u8; $n]>::try_from(b).map_or(0, $conv));
            }
        }};
    }
    match ty {
        ElemType::U8 => go!(1, |b: [u8; 1]| b[0] as u32),
        ElemType::I8 => go!(1, |b: [u8; 1]| b[0] as i8 as i32 as u32),
        ElemType::U16 | ElemType::F16 | ElemType::BF16 => {
            go!(2, |b: [u8; 2]| u16::from_ne_bytes(b) as u32)
        }
        ElemType::I16 => go!(2, |b: [u8; 2]| u16::from_ne_bytes(b) as i16 as i32 as u32),
        // A 64-bit element is moved by the wide accesses alone (validated):
        // here it would be its low word.
        ElemType::U32
        | ElemType::I32
        | ElemType::F32
        | ElemType::U64
        | ElemType::I64
        | ElemType::F64 => go!(4, u32::from_ne_bytes),
    }
}

/// Stores the low `ty.size()` bytes of the active lanes' values at `offs[l]`.
#[inline(always)]
pub(super) fn scatter<const W: usize>(
    data: &mut [u8],
    exec: u64,
    offs: &[u32; W],
    ty: ElemType,
    val: &[u32; W],
    shape: Shape,
) {
    let start = offs[0] as usize;
    let contiguous = shape == Shape::Contiguous;
    // Every lane at one offset: lanes store in order, so the last one's value
    // stays.
    let exec = match (shape, exec) {
        (_, 0) => return,
        (Shape::Uniform, e) => 1u64 << (63 - e.leading_zeros()),
        (_, e) => e,
    };
    if let (4, true) = (ty.size(), contiguous) {
        if let Some(block) = data.get_mut(start..start + W * 4) {
            // Native-endian words, as `u32::to_ne_bytes` writes them: one copy.
            block.copy_from_slice(bytemuck::cast_slice::<u32, u8>(&val[..]));
            return;
        }
    }
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
            each_lane(exec, |l| {
                let o = offs[l] as usize;
                if let Some(d) = data.get_mut(o..o + $n) {
                    d.copy_from_slice(&$conv(val[l]));
                }
            });
        }};
    }
    match ty.size() {
        1 => go!(1, |v: u32| [v as u8]),
        2 => go!(2, |v: u32| (v as u16).to_ne_bytes()),
        _ => go!(4, u32::to_ne_bytes),
    }
}

/// 32-bit words of LDS a workgroup can address: [`MAX_LDS_BYTES`] bytes,
/// rounded up to a power of two.
///
/// The LDS is a fixed-size word array, so a word index masked with
/// `LDS_WORDS - 1` is in bounds by construction and lane loops index it without
/// checks. Byte `b` is bits `8 * (b % 4)..` of word `b / 4`.
pub(super) const LDS_WORDS: usize = (MAX_LDS_BYTES as usize / 4).next_power_of_two();

/// The word index of LDS byte offset `o`.
#[inline(always)]
pub(super) fn word_index(o: u32) -> usize {
    (o >> 2) as usize & (LDS_WORDS - 1)
}

/// Loads every lane's value of type `ty` at LDS byte offset `offs[l]` into `out`
/// (inactive lanes read wherever their offset points: the caller blends by exec).
/// A fully active wave reading one contiguous block of words copies it.
#[inline(always)]
pub(super) fn lds_gather<const W: usize>(
    lds: &Lds,
    offs: &[u32; W],
    ty: ElemType,
    out: &mut [u32; W],
    shape: Shape,
) {
    let mem = &lds.words;
    let contiguous = shape == Shape::Contiguous;
    // Accesses are aligned (checked with the bounds), so a value never spans words.
    let part = |l: usize| mem[word_index(offs[l])] >> ((offs[l] & 3) * 8);
    if shape == Shape::Uniform {
        let v = part(0);
        *out = [match ty {
            ElemType::U32
            | ElemType::I32
            | ElemType::F32
            | ElemType::U64
            | ElemType::I64
            | ElemType::F64 => v,
            ElemType::U16 | ElemType::F16 | ElemType::BF16 => v & 0xffff,
            ElemType::I16 => v as u16 as i16 as i32 as u32,
            ElemType::U8 => v & 0xff,
            ElemType::I8 => v as u8 as i8 as i32 as u32,
        }; W];
        return;
    }
    match ty {
        ElemType::U32
        | ElemType::I32
        | ElemType::F32
        | ElemType::U64
        | ElemType::I64
        | ElemType::F64 => {
            let first = word_index(offs[0]);
            if let (true, Some(block)) = (contiguous, mem.get(first..first + W)) {
                out.copy_from_slice(block);
                return;
            }
            lds.gather_words(offs, out);
        }
        ElemType::U16 | ElemType::F16 | ElemType::BF16 => {
            (0..W).for_each(|l| out[l] = part(l) & 0xffff)
        }
        ElemType::I16 => (0..W).for_each(|l| out[l] = part(l) as u16 as i16 as i32 as u32),
        ElemType::U8 => (0..W).for_each(|l| out[l] = part(l) & 0xff),
        ElemType::I8 => (0..W).for_each(|l| out[l] = part(l) as u8 as i8 as i32 as u32),
    }
}

/// Stores the low `ty.size()` bytes of the active lanes' values at LDS byte offset
/// `offs[l]`, in lane order.
#[inline(always)]
pub(super) fn lds_scatter<const W: usize>(
    lds: &mut Lds,
    exec: u64,
    offs: &[u32; W],
    ty: ElemType,
    val: &[u32; W],
    shape: Shape,
) {
    lds.written(exec, offs, shape);
    let mem = &mut lds.words;
    let contiguous = shape == Shape::Contiguous;
    // As in `scatter`: one offset keeps the last lane's value.
    let exec = match (shape, exec) {
        (_, 0) => return,
        (Shape::Uniform, e) => 1u64 << (63 - e.leading_zeros()),
        (_, e) => e,
    };
    match ty.size() {
        4 => {
            if contiguous {
                let first = word_index(offs[0]);
                if let Some(block) = mem.get_mut(first..first + W) {
                    block.copy_from_slice(val);
                    return;
                }
            }
            each_lane(exec, |l| mem[word_index(offs[l])] = val[l]);
        }
        size => {
            let low = (1u32 << (size * 8)) - 1;
            each_lane(exec, |l| {
                let shift = (offs[l] & 3) * 8;
                let w = &mut mem[word_index(offs[l])];
                *w = (*w & !(low << shift)) | ((val[l] & low) << shift);
            });
        }
    }
}

impl BadLane {
    /// The fault of this lane's access of `size` bytes to `name` (`len` bytes,
    /// at address `base`).
    pub(super) fn trap(
        self,
        space: Space,
        access: &'static str,
        name: &str,
        size: u32,
        len: u64,
        base: u64,
    ) -> Box<Trap> {
        let (index, offset, name) = (self.index, self.offset, name.to_owned());
        let kind = match (space, self.misaligned) {
            (Space::Global, true) => FaultKind::GlobalMisaligned {
                access,
                buffer: name,
                offset,
                size,
            },
            (Space::Global, false) => FaultKind::GlobalOutOfBounds {
                access,
                buffer: name,
                index,
                offset,
                size,
                len,
            },
            (Space::Lds, true) => FaultKind::LdsMisaligned {
                access,
                array: name,
                offset,
                size,
            },
            (Space::Lds, false) => FaultKind::LdsOutOfBounds {
                access,
                array: name,
                index,
                offset,
                size,
                len,
            },
        };
        Box::new(Trap {
            kind,
            lane: Some(self.lane),
            // A negative offset has no address.
            address: u64::try_from(offset).ok().map(|o| base.saturating_add(o)),
        })
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
    /// The word each LDS bank was last asked for, in the conflict test.
    pub(super) banks: [u32; 64],
    /// Whether scattered loads may use AVX2 gathers: set only in the AVX2
    /// build, which runs only on a CPU that has them.
    pub(super) avx2: bool,
}

impl<const W: usize> MemScratch<W> {
    pub(super) fn new() -> Self {
        MemScratch {
            offs: [0; W],
            keys: [0; W],
            banks: [0; 64],
            avx2: false,
        }
    }
}

/// The lanes of a memory instruction: whether it stores, its exec mask (as a
/// mask and as per-lane words) and its indices.
pub(super) struct Request<'a, const W: usize> {
    pub(super) store: bool,
    pub(super) exec: u64,
    pub(super) lm: &'a [u32; W],
    pub(super) idx: &'a [u32; W],
    /// Whether lane `l`'s index is known to be lane 0's plus `l` (modulo
    /// 2^32), a fact of the index operand and the launch (see
    /// `Exec::stepped`).
    pub(super) stepped: bool,
}

/// Where an access is counted: the model's geometry, the instruction's
/// counters and, when recorded, its costliest phase.
pub(super) struct Count<'a> {
    pub(super) geo: &'a Geometry,
    pub(super) c: &'a mut Counters,
    pub(super) worst: Option<&'a mut WorstPhase>,
}

/// A load (`out` gets the active lanes' values) or store (from `val`) of
/// one `ty` element per lane, in either space: the lanes' offsets checked
/// (a fault moves nothing), the access counted, the values moved.
#[inline(always)]
pub(super) fn access<const W: usize, T: Target>(
    req: Request<'_, W>,
    ty: ElemType,
    mut target: T,
    val_out: &mut [u32; W],
    count: Count<'_>,
    s: &mut MemScratch<W>,
) -> Result<(), Box<Trap>> {
    let Request {
        store,
        exec,
        lm,
        idx,
        stepped,
    } = req;
    let exec = exec & full::<W>();
    let size = ty.size();
    let area = target.area(size);
    let shape = match offsets(idx, lm, exec, area, &mut s.offs, stepped) {
        Ok(shape) => shape.of::<W>(exec),
        Err(bad) => return Err(target.fault(bad, access_name(store), size)),
    };
    let through = if store { Through::Store } else { Through::Load };
    target.count(exec, shape, size, count, through, s);
    if store {
        target.store(exec, &s.offs, ty, val_out, shape);
    } else {
        target.load(&s.offs, ty, val_out, shape, s.avx2);
    }
    Ok(())
}
