//! The two memory spaces behind one interface: a [`Target`] is where an
//! access's indices resolve (a bound [`Buffer`], or an LDS [`Array`]), how
//! its lanes are counted (lines and sectors through the caches, or bank
//! conflicts) and how values move. The one-element, wide and atomic paths
//! are each written once over it, and monomorphised per space.

use super::super::bind::{Geometry, LdsArea, Slot};
use super::atomic::{self, Element};
use super::caches::{self, Addresses};
use super::{
    count_global, count_lds, each_lane, gather, lds_gather, lds_scatter, scatter, wide, word_index,
    Area, BadLane, BankTable, Count, CuCaches, Lds, MemScratch, Shape, Space, Through, Trap,
};
use crate::ir::{Addressing, ElemType};
use crate::stats::Counters;

/// A memory operand resolved in its space: what the access paths need of it.
pub(in super::super) trait Target {
    /// What an index addresses: steps of `size` bytes (of the operand's
    /// addressing) within the buffer or array.
    fn area(&self, size: u32) -> Area;

    /// How the operand's index is addressed, and what an element index
    /// counts (the buffer's or array's element size).
    fn addressing(&self) -> (Addressing, u32);

    /// The fault of `bad`'s access (`access`, of `size` bytes). Inlined,
    /// so that no call takes the target's address and the target stays in
    /// registers; the trap itself is built out of line.
    #[inline(always)]
    fn fault(&self, bad: BadLane, access: &'static str, size: u32) -> Box<Trap> {
        let (space, name, len, base) = self.place();
        bad.trap(space, access, name, size, len, base)
    }

    /// The space, the operand's name, its length in bytes and its address
    /// (for a fault).
    fn place(&self) -> (Space, &str, u64, u64);

    /// Counts an access of one `size`-byte element per lane at `s.offs`:
    /// lines and sectors, then the caches (`through` them); or the LDS's
    /// bank conflicts.
    fn count<const W: usize>(
        &mut self,
        exec: u64,
        shape: Shape,
        size: u32,
        count: Count<'_>,
        through: Through,
        s: &mut MemScratch<W>,
    );

    /// Counts a wide access of `n` words per lane from `s.offs`.
    fn count_wide<const W: usize>(
        &mut self,
        exec: u64,
        n: usize,
        store: bool,
        geo: &Geometry,
        c: &mut Counters,
        s: &MemScratch<W>,
    );

    /// Loads each lane's `ty` at `offs` into `out` (inactive lanes get
    /// whatever their offsets point at: the caller blends).
    fn load<const W: usize>(
        &self,
        offs: &[u32; W],
        ty: ElemType,
        out: &mut [u32; W],
        shape: Shape,
        avx2: bool,
    );

    /// Stores the active lanes' `ty` values at `offs`, in lane order.
    fn store<const W: usize>(
        &mut self,
        exec: u64,
        offs: &[u32; W],
        ty: ElemType,
        val: &[u32; W],
        shape: Shape,
    );

    /// Each active lane's update of its `E` at `offs`, in lane order, with
    /// `src` (and `cmp`); the values before it into `old`.
    fn update<const W: usize, E: Element>(
        &mut self,
        exec: u64,
        offs: &[u32; W],
        update: atomic::Update<E::Op>,
        operands: (&[E; W], &[E; W]),
        old: &mut [E; W],
    );
}

/// A bound buffer as an access reaches it, with the compute unit's caches
/// when the model has them.
pub(in super::super) struct Buffer<'s, 'b, 'x> {
    slot: &'s mut Slot<'b>,
    /// The parameter's name, for faults.
    name: &'s str,
    addressing: Addressing,
    /// The buffer's element size: what an element index counts.
    scale: u32,
    /// The buffer's address and length, read once.
    base: u64,
    len: u64,
    caches: Option<&'s mut CuCaches<'x>>,
}

impl<'s, 'b, 'x> Buffer<'s, 'b, 'x> {
    #[inline(always)]
    pub(in super::super) fn new(
        slot: &'s mut Slot<'b>,
        name: &'s str,
        addressing: Addressing,
        scale: u32,
        caches: Option<&'s mut CuCaches<'x>>,
    ) -> Self {
        let (base, len) = (slot.base(), slot.bytes().len() as u64);
        Buffer {
            slot,
            name,
            addressing,
            scale,
            base,
            len,
            caches,
        }
    }
}

/// An LDS array of the workgroup's LDS as an access reaches it, with the
/// conflict counter's word table.
pub(in super::super) struct Array<'s, 'x> {
    pub(in super::super) area: LdsArea,
    /// The array's name, for faults.
    pub(in super::super) name: &'s str,
    pub(in super::super) addressing: Addressing,
    pub(in super::super) words: &'s mut Lds,
    pub(in super::super) table: &'s mut BankTable<'x>,
}

impl Target for Buffer<'_, '_, '_> {
    #[inline(always)]
    fn area(&self, size: u32) -> Area {
        Area {
            addressing: self.addressing,
            size,
            len: self.len,
            origin: 0,
        }
    }

    #[inline(always)]
    fn addressing(&self) -> (Addressing, u32) {
        (self.addressing, self.scale)
    }

    #[inline(always)]
    fn place(&self) -> (Space, &str, u64, u64) {
        (Space::Global, self.name, self.len, self.base)
    }

    #[inline(always)]
    fn count<const W: usize>(
        &mut self,
        exec: u64,
        shape: Shape,
        size: u32,
        count: Count<'_>,
        through: Through,
        s: &mut MemScratch<W>,
    ) {
        let base = self.base as u32;
        let Count { geo, c, worst } = count;
        let counted = Count {
            geo,
            c: &mut *c,
            worst,
        };
        count_global(exec, shape, &s.offs, base, size, counted, &mut s.keys);
        let at = Addresses {
            offs: &s.offs,
            base,
            words: size.div_ceil(4),
        };
        caches::phases(
            self.caches.as_deref_mut(),
            through,
            exec,
            at,
            geo.phase_lanes,
            c,
        );
    }

    #[inline(always)]
    fn count_wide<const W: usize>(
        &mut self,
        exec: u64,
        n: usize,
        store: bool,
        geo: &Geometry,
        c: &mut Counters,
        s: &MemScratch<W>,
    ) {
        let base = self.base as u32;
        wide::count_global(exec, n, base, geo, c, s);
        let through = if store { Through::Store } else { Through::Load };
        let at = Addresses {
            offs: &s.offs,
            base,
            words: n as u32,
        };
        caches::phases(
            self.caches.as_deref_mut(),
            through,
            exec,
            at,
            geo.phase_lanes,
            c,
        );
    }

    #[inline(always)]
    fn load<const W: usize>(
        &self,
        offs: &[u32; W],
        ty: ElemType,
        out: &mut [u32; W],
        shape: Shape,
        avx2: bool,
    ) {
        gather(self.slot.bytes(), offs, ty, out, shape, avx2);
    }

    #[inline(always)]
    fn store<const W: usize>(
        &mut self,
        exec: u64,
        offs: &[u32; W],
        ty: ElemType,
        val: &[u32; W],
        shape: Shape,
    ) {
        // A store to a read-only buffer is rejected before the launch starts.
        if let Slot::BufferMut { data, .. } = &mut *self.slot {
            scatter(data, exec, offs, ty, val, shape);
        }
    }

    #[inline(always)]
    fn update<const W: usize, E: Element>(
        &mut self,
        exec: u64,
        offs: &[u32; W],
        update: atomic::Update<E::Op>,
        (src, cmp): (&[E; W], &[E; W]),
        old: &mut [E; W],
    ) {
        // Validation lets atomics at writable buffers only.
        if let Slot::BufferMut { data, .. } = &mut *self.slot {
            each_lane(exec, |l| {
                let o = offs[l] as usize;
                if let Some(bytes) = data.get_mut(o..o + E::BYTES as usize) {
                    let before = E::read(bytes);
                    old[l] = before;
                    atomic::apply(update, before, src[l], cmp[l]).write(bytes);
                }
            });
        }
    }
}

impl Target for Array<'_, '_> {
    #[inline(always)]
    fn area(&self, size: u32) -> Area {
        Area {
            addressing: self.addressing,
            size,
            len: u64::from(self.area.bytes),
            origin: self.area.offset,
        }
    }

    #[inline(always)]
    fn addressing(&self) -> (Addressing, u32) {
        (self.addressing, self.area.scale)
    }

    #[inline(always)]
    fn place(&self) -> (Space, &str, u64, u64) {
        (
            Space::Lds,
            self.name,
            u64::from(self.area.bytes),
            u64::from(self.area.offset),
        )
    }

    #[inline(always)]
    fn count<const W: usize>(
        &mut self,
        exec: u64,
        shape: Shape,
        size: u32,
        count: Count<'_>,
        _through: Through,
        s: &mut MemScratch<W>,
    ) {
        count_lds(exec, shape, &s.offs, size, count, self.table, &mut s.banks);
    }

    #[inline(always)]
    fn count_wide<const W: usize>(
        &mut self,
        exec: u64,
        n: usize,
        _store: bool,
        geo: &Geometry,
        c: &mut Counters,
        s: &MemScratch<W>,
    ) {
        wide::count_lds(exec, n, geo, c, s);
    }

    #[inline(always)]
    fn load<const W: usize>(
        &self,
        offs: &[u32; W],
        ty: ElemType,
        out: &mut [u32; W],
        shape: Shape,
        _avx2: bool,
    ) {
        lds_gather(self.words, offs, ty, out, shape);
    }

    #[inline(always)]
    fn store<const W: usize>(
        &mut self,
        exec: u64,
        offs: &[u32; W],
        ty: ElemType,
        val: &[u32; W],
        shape: Shape,
    ) {
        lds_scatter(self.words, exec, offs, ty, val, shape);
    }

    #[inline(always)]
    fn update<const W: usize, E: Element>(
        &mut self,
        exec: u64,
        offs: &[u32; W],
        update: atomic::Update<E::Op>,
        (src, cmp): (&[E; W], &[E; W]),
        old: &mut [E; W],
    ) {
        let mem = &mut *self.words;
        mem.written(exec, offs, Shape::Scattered);
        if E::BYTES > 4 {
            // An array starts on a word, so an element's second word may be
            // in the next block.
            let second = offs.map(|o| o.wrapping_add(4));
            mem.written(exec, &second, Shape::Scattered);
        }
        each_lane(exec, |l| {
            let w = word_index(offs[l]);
            let before = E::read_lds(&mem.words, w);
            old[l] = before;
            atomic::apply(update, before, src[l], cmp[l]).write_lds(&mut mem.words, w);
        });
    }
}
