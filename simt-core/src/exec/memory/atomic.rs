//! Atomics: read-modify-write of 32-bit words in global buffers and LDS arrays.
//!
//! Active lanes apply their updates in lane order, each seeing what the lanes
//! below it left, and each gets the word's value before its own update. An
//! atomic phase counts as a memory access of its space (lines and sectors, or
//! bank conflicts) and as an atomic access; its contention is the most active
//! lanes aiming at one word, minus one: the updates that serialize.

use super::super::bind::{Geometry, Slot};
use super::{
    count_global, count_lds, each_lane, full, offsets, phases, word_index, Area, Count, CuCaches,
    GlobalTarget, LdsMemory, LdsTarget, MemScratch, Request, Shape, Space, Through, Trap,
};
use crate::isa::AtomicOp;
use crate::stats::Counters;

/// What an atomic instruction does to each word.
#[derive(Clone, Copy, Debug)]
pub enum Update {
    /// `word = op(word, v)`.
    Rmw(AtomicOp),
    /// `word = v` if `word == cmp`.
    CmpSwap,
}

/// The word after one lane's update.
#[inline(always)]
fn apply(update: Update, old: u32, v: u32, cmp: u32) -> u32 {
    let f = f32::from_bits;
    match update {
        Update::CmpSwap => {
            if old == cmp {
                v
            } else {
                old
            }
        }
        Update::Rmw(op) => match op {
            AtomicOp::AddU32 => old.wrapping_add(v),
            AtomicOp::SubU32 => old.wrapping_sub(v),
            AtomicOp::MinU32 => old.min(v),
            AtomicOp::MinI32 => (old as i32).min(v as i32) as u32,
            AtomicOp::MaxU32 => old.max(v),
            AtomicOp::MaxI32 => (old as i32).max(v as i32) as u32,
            AtomicOp::And => old & v,
            AtomicOp::Or => old | v,
            AtomicOp::Xor => old ^ v,
            AtomicOp::Exchange => v,
            AtomicOp::IncU32 => {
                if old >= v {
                    0
                } else {
                    old + 1
                }
            }
            AtomicOp::AddF32 => crate::exec::alu::bits(f(old) + f(v)),
        },
    }
}

/// Counts the atomic phases and their contention.
fn count_atomic<const W: usize>(exec: u64, offs: &[u32; W], geo: &Geometry, c: &mut Counters) {
    for (_, _, bits) in phases::<W>(exec, geo.phase_lanes) {
        if bits == 0 {
            continue;
        }
        let mut words = [0u32; 64];
        let mut n = 0;
        each_lane(bits, |l| {
            if let Some(w) = words.get_mut(n) {
                *w = offs[l];
                n += 1;
            }
        });
        let words = &mut words[..n];
        words.sort_unstable();
        let (mut worst, mut run) = (0u64, 0u64);
        for (i, w) in words.iter().enumerate() {
            run = if i > 0 && words[i - 1] == *w {
                run + 1
            } else {
                1
            };
            worst = worst.max(run);
        }
        c.atomic_accesses += 1;
        c.atomic_contention += worst.saturating_sub(1);
    }
}

/// The operands of one atomic instruction, per lane.
pub(crate) struct Operands<'a, const W: usize> {
    /// The lanes and their word indices.
    pub(crate) lanes: Request<'a, W>,
    /// The update's value.
    pub(crate) src: &'a [u32; W],
    /// The compared value (compare-and-swap only).
    pub(crate) cmp: &'a [u32; W],
}

/// A global atomic; `old` gets each active lane's value before its update.
#[inline(always)]
pub(crate) fn global<const W: usize>(
    update: Update,
    target: GlobalTarget<'_, '_>,
    ops: Operands<'_, W>,
    old: &mut [u32; W],
    count: Count<'_>,
    caches: Option<&mut CuCaches<'_>>,
    s: &mut MemScratch<W>,
) -> Result<(), Box<Trap>> {
    let Request { exec, lm, .. } = ops.lanes;
    let Count { geo, c, worst } = count;
    let exec = exec & full::<W>();
    let base = target.slot.base() as u32;
    let len = target.slot.bytes().len() as u64;
    let area = Area {
        addressing: target.addressing,
        size: 4,
        len,
        origin: 0,
    };
    offsets(ops.lanes.idx, lm, exec, area, &mut s.offs, false)
        .map_err(|bad| bad.trap(Space::Global, "atomic", target.name, 4, len, base as u64))?;
    let counted = Count {
        geo,
        c: &mut *c,
        worst,
    };
    count_global(
        exec,
        Shape::Scattered,
        &s.offs,
        base,
        4,
        counted,
        &mut s.keys,
    );
    count_atomic(exec, &s.offs, geo, c);
    let at = super::caches::Addresses {
        offs: &s.offs,
        base,
        words: 1,
    };
    super::caches::phases(caches, Through::Atomic, exec, at, geo.phase_lanes, c);
    // Validation lets atomics at writable buffers only.
    if let Slot::BufferMut { data, .. } = target.slot {
        each_lane(exec, |l| {
            let o = s.offs[l] as usize;
            if let Some(bytes) = data.get_mut(o..o + 4) {
                let mut word = [0u8; 4];
                word.copy_from_slice(bytes);
                let before = u32::from_ne_bytes(word);
                old[l] = before;
                let after = apply(update, before, ops.src[l], ops.cmp[l]);
                bytes.copy_from_slice(&after.to_ne_bytes());
            }
        });
    }
    Ok(())
}

/// An LDS atomic; `old` gets each active lane's value before its update.
#[inline(always)]
pub(crate) fn lds<const W: usize>(
    update: Update,
    target: LdsTarget<'_>,
    ops: Operands<'_, W>,
    old: &mut [u32; W],
    lds: LdsMemory<'_, '_>,
    count: Count<'_>,
    s: &mut MemScratch<W>,
) -> Result<(), Box<Trap>> {
    let LdsMemory { words: mem, table } = lds;
    let Request { exec, lm, .. } = ops.lanes;
    let Count { geo, c, worst } = count;
    let exec = exec & full::<W>();
    let area = target.area;
    let len = u64::from(area.bytes);
    let span = Area {
        addressing: target.addressing,
        size: 4,
        len,
        origin: area.offset,
    };
    offsets(ops.lanes.idx, lm, exec, span, &mut s.offs, false).map_err(|bad| {
        bad.trap(
            Space::Lds,
            "atomic",
            target.name,
            4,
            len,
            u64::from(area.offset),
        )
    })?;
    let counted = Count {
        geo,
        c: &mut *c,
        worst,
    };
    count_lds(
        exec,
        Shape::Scattered,
        &s.offs,
        4,
        counted,
        table,
        &mut s.banks,
    );
    count_atomic(exec, &s.offs, geo, c);
    mem.written(exec, &s.offs, Shape::Scattered);
    each_lane(exec, |l| {
        let w = &mut mem.words[word_index(s.offs[l])];
        old[l] = *w;
        *w = apply(update, *w, ops.src[l], ops.cmp[l]);
    });
    Ok(())
}
