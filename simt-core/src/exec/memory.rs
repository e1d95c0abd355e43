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

/// Computes each lane's byte offset and checks the active ones against `len`.
#[inline(always)]
fn offsets<const W: usize>(
    idx: &[u32; W],
    exec: u64,
    addressing: Addressing,
    size: u32,
    len: u64,
    offs: &mut [u64; W],
) -> Result<(), BadLane> {
    let scale = match addressing {
        Addressing::Element => size as u64,
        Addressing::Byte => 1,
    };
    let size = size as u64;
    let mut bad = 0u64;
    for l in 0..W {
        let off = idx[l] as u64 * scale;
        offs[l] = off;
        let wrong = (off + size > len) | (off & (size - 1) != 0);
        bad |= (wrong as u64) << l;
    }
    bad &= exec;
    if bad == 0 {
        return Ok(());
    }
    let lane = bad.trailing_zeros();
    let offset = offs[lane as usize % W];
    Err(BadLane {
        lane,
        offset,
        misaligned: offset & (size - 1) != 0,
    })
}

/// Lane indices of the set bits of `bits`, lowest first.
#[inline(always)]
fn lanes(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if bits == 0 {
            None
        } else {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(l)
        }
    })
}

/// The masks of the memory phases of a wave of `W` lanes.
#[inline(always)]
fn phases<const W: usize>(exec: u64, phase_lanes: u32) -> impl Iterator<Item = u64> {
    let p = (phase_lanes as usize).min(W);
    let one = if p >= 64 { u64::MAX } else { (1u64 << p) - 1 };
    (0..W.div_ceil(p)).map(move |k| exec & (one << (k * p)))
}

/// The number of distinct `key(lane)` over the lanes of `bits`.
#[inline(always)]
fn distinct<const W: usize>(bits: u64, key: impl Fn(usize) -> u64, buf: &mut [u64; W]) -> u64 {
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
fn count_global<const W: usize>(
    exec: u64,
    offs: &[u64; W],
    base: u64,
    size: u32,
    geo: &Geometry,
    c: &mut Counters,
    buf: &mut [u64; W],
) {
    for bits in phases::<W>(exec, geo.phase_lanes) {
        if bits == 0 {
            continue;
        }
        let line = |l: usize| (base + offs[l]) >> geo.line_shift;
        let lines = distinct(bits, line, buf);
        let sectors = if geo.sector_shift == geo.line_shift {
            lines
        } else {
            distinct(bits, |l| (base + offs[l]) >> geo.sector_shift, buf)
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
    addrs: &[u64; W],
    size: u32,
    geo: &Geometry,
    table: &mut BankTable<'_>,
    c: &mut Counters,
) {
    for bits in phases::<W>(exec, geo.phase_lanes) {
        if bits == 0 {
            continue;
        }
        c.lds_accesses += 1;
        c.lds_bytes_requested += bits.count_ones() as u64 * size as u64;
        // Fast path: every lane in a different bank.
        let mut seen = 0u64;
        let mut clash = false;
        for l in lanes(bits) {
            let bank = ((addrs[l] >> geo.bank_shift) as u32 & geo.bank_mask) as u64;
            clash |= seen & (1 << bank) != 0;
            seen |= 1 << bank;
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

/// Loads the active lanes' values of type `ty` at `offs[l]` (relative to `data`)
/// into `out`.
#[inline(always)]
fn gather<const W: usize>(
    data: &[u8],
    exec: u64,
    offs: &[u64; W],
    ty: ElemType,
    out: &mut [u32; W],
) {
    macro_rules! go {
        ($n:literal, $conv:expr) => {
            for l in lanes(exec) {
                let o = offs[l] as usize;
                let v = data
                    .get(o..o + $n)
                    .and_then(|s| <[u8; $n]>::try_from(s).ok())
                    .map_or(0, $conv);
                out[l] = v;
            }
        };
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
    offs: &[u64; W],
    ty: ElemType,
    val: &[u32; W],
) {
    macro_rules! go {
        ($n:literal, $conv:expr) => {
            for l in lanes(exec) {
                let o = offs[l] as usize;
                if let Some(d) = data.get_mut(o..o + $n) {
                    d.copy_from_slice(&$conv(val[l]));
                }
            }
        };
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
    pub(super) offs: [u64; W],
    /// Sort buffer for distinct-line counting.
    pub(super) keys: [u64; W],
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
    exec: u64,
    val_out: &mut [u32; W],
    geo: &Geometry,
    c: &mut Counters,
    s: &mut MemScratch<W>,
) -> Result<(), Box<Trap>> {
    let exec = exec & full::<W>();
    let size = ty.size();
    let base = target.slot.base();
    let len = target.slot.bytes().len() as u64;
    if let Err(bad) = offsets(idx, exec, target.addressing, size, len, &mut s.offs) {
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
            address: Some(base.saturating_add(bad.offset)),
        }));
    }
    count_global(exec, &s.offs, base, size, geo, c, &mut s.keys);
    match (store, target.slot) {
        (false, slot) => gather(slot.bytes(), exec, &s.offs, ty, val_out),
        (true, Slot::BufferMut { data, .. }) => scatter(data, exec, &s.offs, ty, val_out),
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
        exec,
        target.addressing,
        size,
        area.bytes as u64,
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
    for o in s.offs.iter_mut() {
        *o += area.offset as u64;
    }
    count_lds(exec, &s.offs, size, geo, table, c);
    if store {
        scatter(mem, exec, &s.offs, ty, val_out);
    } else {
        gather(mem, exec, &s.offs, ty, val_out);
    }
    Ok(())
}
