//! Atomics: read-modify-write of 32-bit words and 64-bit elements in global
//! buffers and LDS arrays.
//!
//! Active lanes apply their updates in lane order, each seeing what the lanes
//! below it left, and each gets the value before its own update. An atomic
//! phase counts as a memory access of its space (lines and sectors, or bank
//! conflicts) and as an atomic access; its contention is the most active
//! lanes aiming at one element, minus one: the updates that serialize.

use super::super::bind::Geometry;
use super::{
    each_lane, full, offsets, phases, Count, MemScratch, Request, Shape, Target, Through, Trap,
};
use crate::isa::{Atomic64Op, AtomicOp};
use crate::stats::Counters;

/// What an atomic instruction does to each element.
#[derive(Clone, Copy, Debug)]
pub enum Update<O> {
    /// `element = op(element, v)`.
    Rmw(O),
    /// `element = v` if `element == cmp`.
    CmpSwap,
}

/// What an atomic updates: a 32-bit word (`u32`) or a 64-bit element
/// (`u64`, a register pair per lane), with the operations on it.
pub(crate) trait Element: Copy + PartialEq {
    /// Its size in bytes.
    const BYTES: u32;
    /// Its read-modify-write operations.
    type Op: Copy;
    /// `op(old, v)`.
    fn rmw(op: Self::Op, old: Self, v: Self) -> Self;
    /// The element in `bytes` (`BYTES` of them, native order).
    fn read(bytes: &[u8]) -> Self;
    /// Writes the element into `bytes`.
    fn write(self, bytes: &mut [u8]);
    /// The element at LDS word `w` (and the next).
    fn read_lds(words: &[u32], w: usize) -> Self;
    /// Writes the element at LDS word `w` (and the next).
    fn write_lds(self, words: &mut [u32], w: usize);
}

impl Element for u32 {
    const BYTES: u32 = 4;
    type Op = AtomicOp;

    #[inline(always)]
    fn rmw(op: AtomicOp, old: u32, v: u32) -> u32 {
        let f = f32::from_bits;
        match op {
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
        }
    }

    #[inline(always)]
    fn read(bytes: &[u8]) -> u32 {
        let mut word = [0u8; 4];
        word.copy_from_slice(&bytes[..4]);
        u32::from_ne_bytes(word)
    }

    #[inline(always)]
    fn write(self, bytes: &mut [u8]) {
        bytes[..4].copy_from_slice(&self.to_ne_bytes());
    }

    #[inline(always)]
    fn read_lds(words: &[u32], w: usize) -> u32 {
        words[w]
    }

    #[inline(always)]
    fn write_lds(self, words: &mut [u32], w: usize) {
        words[w] = self;
    }
}

impl Element for u64 {
    const BYTES: u32 = 8;
    type Op = Atomic64Op;

    #[inline(always)]
    fn rmw(op: Atomic64Op, old: u64, v: u64) -> u64 {
        let f = f64::from_bits;
        match op {
            Atomic64Op::AddU64 => old.wrapping_add(v),
            Atomic64Op::AddF64 => crate::exec::alu64::bits(f(old) + f(v)),
            Atomic64Op::MinU64 => old.min(v),
            Atomic64Op::MinI64 => (old as i64).min(v as i64) as u64,
            Atomic64Op::MaxU64 => old.max(v),
            Atomic64Op::MaxI64 => (old as i64).max(v as i64) as u64,
            Atomic64Op::And => old & v,
            Atomic64Op::Or => old | v,
            Atomic64Op::Xor => old ^ v,
            Atomic64Op::Exchange => v,
        }
    }

    #[inline(always)]
    fn read(bytes: &[u8]) -> u64 {
        let mut element = [0u8; 8];
        element.copy_from_slice(&bytes[..8]);
        u64::from_ne_bytes(element)
    }

    #[inline(always)]
    fn write(self, bytes: &mut [u8]) {
        bytes[..8].copy_from_slice(&self.to_ne_bytes());
    }

    /// Low word first, as a register pair holds it.
    #[inline(always)]
    fn read_lds(words: &[u32], w: usize) -> u64 {
        let hi = words.get(w + 1).copied().unwrap_or(0);
        u64::from(words[w]) | (u64::from(hi) << 32)
    }

    #[inline(always)]
    fn write_lds(self, words: &mut [u32], w: usize) {
        words[w] = self as u32;
        if let Some(hi) = words.get_mut(w + 1) {
            *hi = (self >> 32) as u32;
        }
    }
}

/// The element after one lane's update.
#[inline(always)]
pub(super) fn apply<E: Element>(update: Update<E::Op>, old: E, v: E, cmp: E) -> E {
    match update {
        Update::CmpSwap => {
            if old == cmp {
                v
            } else {
                old
            }
        }
        Update::Rmw(op) => E::rmw(op, old, v),
    }
}

/// Counts the atomic phases and their contention.
pub(super) fn count_contention<const W: usize>(
    exec: u64,
    offs: &[u32; W],
    geo: &Geometry,
    c: &mut Counters,
) {
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
pub(crate) struct Operands<'a, const W: usize, E> {
    /// The lanes and their element indices.
    pub(crate) lanes: Request<'a, W>,
    /// The update's value.
    pub(crate) src: &'a [E; W],
    /// The compared value (compare-and-swap only).
    pub(crate) cmp: &'a [E; W],
}

/// An atomic of either space; `old` gets each active lane's value before
/// its update.
#[inline(always)]
pub(crate) fn access<const W: usize, E: Element, T: Target>(
    update: Update<E::Op>,
    mut target: T,
    ops: Operands<'_, W, E>,
    old: &mut [E; W],
    count: Count<'_>,
    s: &mut MemScratch<W>,
) -> Result<(), Box<Trap>> {
    let Request { exec, lm, .. } = ops.lanes;
    let Count { geo, c, worst } = count;
    let exec = exec & full::<W>();
    let size = E::BYTES;
    let area = target.area(size);
    offsets(ops.lanes.idx, lm, exec, area, &mut s.offs, false)
        .map_err(|bad| target.fault(bad, "atomic", size))?;
    // A scattered access through to the memory below (or the LDS's
    // banks), then its contention.
    let counted = Count {
        geo,
        c: &mut *c,
        worst,
    };
    target.count(exec, Shape::Scattered, size, counted, Through::Atomic, s);
    count_contention(exec, &s.offs, geo, c);
    target.update(exec, &s.offs, update, (ops.src, ops.cmp), old);
    Ok(())
}
