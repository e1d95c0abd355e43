//! Global and LDS loads, stores, wide accesses and atomics.
//!
//! Every handler follows one sequence: the lanes' indices (with the
//! wave-uniform offset added), the target (a bound buffer or an LDS array),
//! the access itself in `exec::memory` (offsets and bounds, counting, caches,
//! data movement), the instruments, and the loaded values blended into the
//! destination registers.

use super::super::alu;
use super::super::bind::Slot;
use super::super::decode::{Access, Atomic, Atomic64, Mem, Src, Wide};
use super::super::instrument::{self, Instrument};
use super::super::memory::atomic::{self, Operands};
use super::super::memory::span::Spans;
use super::super::memory::{self as mem, block, full, wide};
use super::super::wave::Exit;
use super::{lanes, lanes_mut, Exec, Flow, Parts, Reads, Step};
use crate::facts::AccessKind;
use crate::ir::Addressing;
use crate::stats::Counters;

/// What the instruments are told about an access, besides its lanes.
struct Seen {
    kind: AccessKind,
    buffer: Option<usize>,
    base: u64,
    size: u32,
    count: u32,
}

/// Where an access of instruction `$pc` counts: into `$tally` when the
/// instrument reads each access's cost (then added to the instruction's
/// counters by [`Exec::counted`]), else straight into the instruction's.
macro_rules! counters_for {
    ($x:ident, $pc:expr, $tally:ident) => {
        if I::COSTS {
            &mut $tally
        } else {
            &mut $x.counters[$pc]
        }
    };
}

/// The kind of a load (or, `store`, a store).
fn moving(store: bool) -> AccessKind {
    if store {
        AccessKind::Store
    } else {
        AccessKind::Load
    }
}

/// `$body` with `$t` bound to memory operand `$at` resolved in its space:
/// an LDS [`mem::Array`] when `$lds`, else a bound [`mem::Buffer`] (the
/// caches told which instruction reaches them). The body is written once
/// and compiled for each space; the target borrows only the fields it
/// needs, so the scratch and the counters stay free. `None` when the
/// operand names nothing bound or declared (validation rules it out).
macro_rules! with_target {
    ($x:ident, $at:expr, $lds:expr, $t:ident => $body:expr) => {{
        let at: Mem = $at;
        let i = at.target as usize;
        if $lds {
            match ($x.prepared.lds.get(i), $x.program.lds.get(i)) {
                (Some(&area), Some(decl)) => {
                    let $t = mem::Array {
                        area,
                        name: &decl.name,
                        addressing: at.addressing,
                        words: &mut *$x.lds,
                        table: &mut $x.table,
                    };
                    Some($body)
                }
                _ => None,
            }
        } else {
            match ($x.slots.get_mut(i), $x.program.params.get(i)) {
                (Some(slot), Some(param)) => {
                    if let Some(c) = $x.caches.as_mut() {
                        c.at($x.pc);
                    }
                    let $t = mem::Buffer::new(
                        slot,
                        &param.name,
                        at.addressing,
                        param.kind.elem_size(),
                        $x.caches.as_mut(),
                    );
                    Some($body)
                }
                _ => None,
            }
        }
    }};
}

impl<const W: usize, I: Instrument> Exec<'_, '_, W, I> {
    /// Puts the lanes' indices of `at`, its offset added, in the index scratch.
    #[inline(always)]
    fn index(&mut self, at: Mem) {
        let Parts { vr, rd, s, .. } = self.parts();
        let idx = rd.fetch(at.index, vr, &mut s.a);
        match at.offset.and_then(|o| rd.uniform(o)) {
            None => s.idx = *idx,
            Some(k) => {
                for l in 0..W {
                    s.idx[l] = idx[l].wrapping_add(k);
                }
            }
        }
    }

    /// Reads `src` into the scratch array `out` (the value a store writes).
    #[inline(always)]
    fn value(&mut self, src: Src) {
        let Parts { vr, rd, s, .. } = self.parts();
        s.out = *rd.fetch(src, vr, &mut s.b);
    }

    /// Reads `src` and `cmp` into the scratch arrays `b` and `c` (an atomic's
    /// operands).
    #[inline(always)]
    fn atomic_operands(&mut self, src: Src, cmp: Src) {
        let Parts { vr, rd, s, .. } = self.parts();
        s.b = *rd.fetch(src, vr, &mut s.b);
        s.c = *rd.fetch(cmp, vr, &mut s.c);
    }

    /// Reads registers `first..first + n` into the wide scratch arrays.
    #[inline(always)]
    fn gather_run(&mut self, first: u16, n: usize) {
        let vregs = self.prepared.vregs;
        let Parts { vr, s, .. } = self.parts();
        for k in 0..n {
            let r = first as usize + k;
            s.wide[k] = if r < vregs {
                *lanes::<W>(&vr[r])
            } else {
                [0; W]
            };
        }
    }

    /// Blends the scratch array `out` into register `dst`.
    #[inline(always)]
    fn write_back(&mut self, dst: u16) {
        self.unstep(dst);
        let Parts { vr, s, lm, .. } = self.parts();
        if let Some(d) = vr.get_mut(dst as usize) {
            alu::blend(lanes_mut::<W>(d), &s.out, lm);
        }
    }

    /// Blends the wide scratch arrays into registers `first..first + n`.
    #[inline(always)]
    fn write_run(&mut self, first: u16, n: usize) {
        for k in 0..n {
            self.unstep(first.wrapping_add(k as u16));
        }
        let vregs = self.prepared.vregs;
        let Parts { vr, s, lm, .. } = self.parts();
        for k in 0..n {
            let r = first as usize + k;
            if r < vregs {
                alu::blend(lanes_mut::<W>(&mut vr[r]), &s.wide[k], lm);
            }
        }
    }

    /// Adds an access's `tally` to instruction `pc`'s counters, when the
    /// access counted apart (see `counters_for!`).
    #[inline(always)]
    fn counted(&mut self, pc: usize, tally: &Counters) {
        if I::COSTS {
            self.counters[pc].add(tally);
        }
    }

    /// Tells the instruments about the access whose lane offsets are in the
    /// memory scratch, and what it counted (`cost`).
    #[inline(always)]
    fn observe(&mut self, seen: Seen, cost: &Counters) {
        let s = &*self.s;
        let w = &s.wide;
        let wide: [&[u32]; 4] = [&w[0][..], &w[1][..], &w[2][..], &w[3][..]];
        let out: [&[u32]; 1] = [&s.out[..]];
        // The values stored: one register's (in `out`) or a wide store's.
        let values: &[&[u32]] = match (seen.kind, seen.count) {
            (AccessKind::Store, 1) => &out,
            (AccessKind::Store, n) => &wide[..(n as usize).min(4)],
            _ => &[],
        };
        let access = instrument::Access {
            kind: seen.kind,
            buffer: seen.buffer,
            base: seen.base,
            exec: self.exec & full::<W>(),
            offs: &s.mem.offs,
            size: seen.size,
            count: seen.count,
            values,
            cost,
        };
        self.instr.memory(self.program, self.pc, self.wave, &access);
    }

    /// The global address of buffer parameter `p`.
    #[inline(always)]
    fn base_of(&self, p: u16) -> u64 {
        self.slots.get(p as usize).map_or(0, |s| s.base())
    }

    /// What the instruments are told of an access to `at` (of the LDS when
    /// `lds`): the buffer and its address, or neither.
    #[inline(always)]
    fn seen(&self, at: Mem, lds: bool, kind: AccessKind, size: u32, count: u32) -> Seen {
        let (buffer, base) = if lds {
            (None, 0)
        } else {
            (Some(at.target as usize), self.base_of(at.target))
        };
        Seen {
            kind,
            buffer,
            base,
            size,
            count,
        }
    }

    /// A load or store of one element per lane, global or (`lds`) LDS.
    #[inline(always)]
    pub(super) fn access(&mut self, x: Access, store: bool, lds: bool) -> Flow {
        self.vector_issue();
        let stepped = self.is_stepped(x.at.index);
        if stepped && self.block(x, store, lds) {
            return self.next();
        }
        self.access_general(x, store, lds, stepped)
    }

    /// [`Exec::access`] past its issue count, by the general path: every
    /// lane's offset. `stepped`: the index steps by one from lane to lane
    /// ([`Exec::is_stepped`], which the caller asked).
    #[inline(always)]
    pub(in crate::exec) fn access_general(
        &mut self,
        x: Access,
        store: bool,
        lds: bool,
        stepped: bool,
    ) -> Flow {
        if store {
            self.value(x.src);
        }
        self.index(x.at);
        if self.span(x, store, lds) {
            return self.next();
        }
        let kind = moving(store);
        let pc = self.pc;
        let mut tally = Counters::default();
        let done = with_target!(self, x.at, lds, target => {
            let s = &mut *self.s;
            mem::access::<W, _>(
                mem::Request {
                    store,
                    exec: self.exec,
                    lm: &self.lm,
                    idx: &s.idx,
                    stepped,
                },
                x.ty,
                target,
                &mut s.out,
                mem::Count {
                    geo: &self.geo,
                    c: counters_for!(self, pc, tally),
                    worst: self.instr.worst(pc),
                },
                &mut s.mem,
            )
        });
        let Some(done) = done else {
            return Ok(Step::Leave(Exit::Done(pc)));
        };
        done?;
        self.counted(pc, &tally);
        self.observe(self.seen(x.at, lds, kind, x.ty.size(), 1), &tally);
        if !store {
            self.write_back(x.reg);
        }
        self.next()
    }

    /// The formula path of [`Exec::access`]: an access of every lane of the
    /// wave, 4-byte elements indexed by element, whose index the caller
    /// found to step by one from lane to lane (see [`Exec::is_stepped`]),
    /// so that its lanes form one block. It checks the block's range once,
    /// counts by formula (`memory::block`) and moves the values with one
    /// copy. Taken only when nothing reads the lanes' offsets (no
    /// instrument sees accesses) and, globally, the model has no caches;
    /// `false` when the access is not such a block or the block is not
    /// wholly in bounds: the general path takes it then, and faults as it
    /// does.
    #[inline(always)]
    pub(in crate::exec) fn block(&mut self, x: Access, store: bool, lds: bool) -> bool {
        if I::SEES_ACCESSES
            || I::COSTS
            || self.exec != full::<W>()
            || x.ty.size() != 4
            || x.at.addressing != Addressing::Element
            || (!lds && self.caches.is_some())
        {
            return false;
        }
        // The operand sources, borrowed field by field (not through
        // `parts`), so that the buffers and the LDS stay free to move the
        // values straight between them and the registers.
        let vr: &[[u32; 64]] = self.cur.v;
        let rd = Reads {
            sr: self.cur.s,
            scalars: self.scalars,
            u: &self.u,
            local: self.ids,
        };
        let mut first = rd.first_lane(x.at.index, vr);
        if let Some(k) = x.at.offset.and_then(|o| rd.uniform(o)) {
            first = first.wrapping_add(k);
        }
        debug_assert!({
            let idx = rd.fetch(x.at.index, vr, &mut self.s.a);
            let k = first.wrapping_sub(idx[0]);
            (0..W).all(|l| idx[l].wrapping_add(k) == first.wrapping_add(l as u32))
        });
        // Elements `first..first + W` lie within `len` bytes.
        let within =
            |len: usize| (u64::from(first) + W as u64) * 4 <= (len as u64).min(u64::from(u32::MAX));
        let i = x.at.target as usize;
        // The block's first byte (its LDS offset, or its buffer offset and
        // the buffer's address), once the block is known to be in bounds.
        let (start, base) = if lds {
            let Some(area) = self.prepared.lds.get(i) else {
                return false;
            };
            let at = (first << 2).wrapping_add(area.offset);
            if !within(area.bytes as usize) || mem::word_index(at) + W > mem::LDS_WORDS {
                return false;
            }
            (at, 0)
        } else {
            let (len, base) = match self.slots.get(i) {
                Some(Slot::Buffer { data, base }) => (data.len(), *base),
                Some(Slot::BufferMut { data, base }) => (data.len(), *base),
                _ => return false,
            };
            if !within(len) {
                return false;
            }
            (first << 2, base as u32)
        };
        let c = &mut self.counters[self.pc];
        let (w, bytes) = (
            mem::word_index(start),
            start as usize..start as usize + W * 4,
        );
        if lds {
            block::count_lds::<W>(start, 4, &self.geo, c);
        } else {
            block::count_global::<W>(base.wrapping_add(start), 4, &self.geo, c);
        }
        if store {
            let value = rd.fetch(x.src, vr, &mut self.s.b);
            if lds {
                self.lds.words[w..w + W].copy_from_slice(value);
                self.lds.written_block(w, w + W - 1);
            } else if let Some(Slot::BufferMut { data, .. }) = self.slots.get_mut(i) {
                // (A store to a read-only buffer is rejected before the launch.)
                data[bytes].copy_from_slice(bytemuck::cast_slice::<u32, u8>(&value[..]));
            }
            return true;
        }
        self.unstep(x.reg);
        // The loaded words go straight into every lane of the destination.
        let Some(d) = self.cur.v.get_mut(x.reg as usize).map(lanes_mut::<W>) else {
            return true;
        };
        if lds {
            d.copy_from_slice(&self.lds.words[w..w + W]);
        } else if let Some(slot) = self.slots.get(i) {
            bytemuck::cast_slice_mut::<u32, u8>(&mut d[..]).copy_from_slice(&slot.bytes()[bytes]);
        }
        true
    }

    /// The span path of a load or store whose lanes' indices, with the
    /// offset added, are in the index scratch (a store's values in `out`):
    /// 4-byte elements indexed by element, whose counts follow from each
    /// phase's lowest and highest active index (`memory::span`). It checks
    /// the highest index once, counts by formula and moves the values lane
    /// by lane, a load's gathered straight into the destination. Taken
    /// where the formula path is (no instrument sees accesses or costs;
    /// globally, no caches); `false` when the counts do not follow from the
    /// spans or a lane is out of bounds: the general path takes it then,
    /// and faults as it does.
    #[inline(always)]
    fn span(&mut self, x: Access, store: bool, lds: bool) -> bool {
        // The phase width as a constant, so that the loops over phases
        // unroll: the models' widths, 32 lanes and, for wave64, 64 (any
        // other takes the general path).
        match (self.geo.phase_lanes as usize).min(W) {
            32 => self.span_in::<32>(x, store, lds),
            64 if W == 64 => self.span_in::<64>(x, store, lds),
            _ => false,
        }
    }

    /// [`Exec::span`] with phases of `P` lanes.
    #[inline(always)]
    fn span_in<const P: usize>(&mut self, x: Access, store: bool, lds: bool) -> bool {
        let exec = self.exec & full::<W>();
        if I::SEES_ACCESSES
            || I::COSTS
            || exec == 0
            || x.ty.size() != 4
            || x.at.addressing != Addressing::Element
            || (!lds && self.caches.is_some())
        {
            return false;
        }
        let idx = &self.s.idx;
        let spans = Spans::<P>::of::<W>(idx, &self.lm, exec);
        let Some((lowest, highest)) = spans.range() else {
            return false;
        };
        let i = x.at.target as usize;
        let c = &mut self.counters[self.pc];
        let requested = u64::from(exec.count_ones()) * 4;
        // Where the elements are, once every active lane is known to be in
        // bounds and the counts to follow from the spans: the array's first
        // word, or the buffer.
        let first = if lds {
            let Some(&area) = self.prepared.lds.get(i) else {
                return false;
            };
            let first = (area.offset >> 2) as usize;
            if highest >= area.bytes >> 2 || first + highest as usize >= mem::LDS_WORDS {
                return false;
            }
            let Some(cycles) = spans.lds_cycles(idx, area.offset, &self.geo) else {
                return false;
            };
            c.lds_accesses += spans.phases();
            c.lds_bytes_requested += requested;
            c.lds_conflict_cycles += cycles;
            first
        } else {
            let Some(slot) = self.slots.get(i) else {
                return false;
            };
            let (len, base) = (slot.bytes().len() as u64, slot.base() as u32);
            if u64::from(highest) >= len.min(u64::from(u32::MAX)) >> 2 {
                return false;
            }
            let Some((lines, sectors)) = spans.global(idx, base, 4, &self.geo) else {
                return false;
            };
            c.global_accesses += spans.phases();
            c.global_transactions += lines;
            c.global_sectors += sectors;
            c.global_bytes_requested += requested;
            c.global_bytes_moved += lines * self.geo.line_bytes;
            0
        };
        if store {
            // In lane order: where lanes share an element, the last one's
            // value stays.
            let value = &self.s.out;
            if lds {
                let words = &mut self.lds.words[first..];
                mem::each_lane(exec, |l| words[idx[l] as usize] = value[l]);
                self.lds.written_at(first, exec, idx, (lowest, highest));
            } else if let Some(Slot::BufferMut { data, .. }) = self.slots.get_mut(i) {
                // (A store to a read-only buffer is rejected before the launch.)
                mem::each_lane(exec, |l| {
                    let at = idx[l] as usize * 4;
                    data[at..at + 4].copy_from_slice(&value[l].to_ne_bytes());
                });
            }
            return true;
        }
        let data: &[u8] = if lds {
            bytemuck::cast_slice::<u32, u8>(&self.lds.words[first..])
        } else {
            self.slots.get(i).map_or(&[], |slot| slot.bytes())
        };
        self.stepped &= !(1u64 << (x.reg & 63));
        let avx2 = self.s.mem.avx2;
        let Some(d) = self.cur.v.get_mut(x.reg as usize).map(lanes_mut::<W>) else {
            return true;
        };
        if exec == full::<W>() {
            mem::gather_elements(data, idx, d, avx2);
        } else {
            let loaded = &mut self.s.out;
            mem::gather_elements(data, idx, loaded, avx2);
            alu::blend(d, loaded, &self.lm);
        }
        true
    }

    /// A wide load or store, global or (`lds`) LDS.
    #[inline(always)]
    pub(super) fn wide(&mut self, x: Wide, store: bool, lds: bool) -> Flow {
        self.vector_issue();
        let n = x.n as usize;
        if store {
            self.gather_run(x.reg, n);
        }
        self.index(x.at);
        let kind = moving(store);
        let pc = self.pc;
        let mut tally = Counters::default();
        let done = with_target!(self, x.at, lds, target => {
            let s = &mut *self.s;
            wide::access::<W, _>(
                mem::Request {
                    store,
                    exec: self.exec,
                    lm: &self.lm,
                    idx: &s.idx,
                    stepped: false,
                },
                n,
                target,
                &mut s.wide,
                mem::Count {
                    geo: &self.geo,
                    c: counters_for!(self, pc, tally),
                    worst: None,
                },
                &mut s.mem,
            )
        });
        let Some(done) = done else {
            return Ok(Step::Leave(Exit::Done(pc)));
        };
        done?;
        self.counted(pc, &tally);
        self.observe(self.seen(x.at, lds, kind, 4, n as u32), &tally);
        if !store {
            self.write_run(x.reg, n);
        }
        self.next()
    }

    /// A 32-bit atomic of either space.
    #[inline(always)]
    pub(super) fn atomic(&mut self, x: Atomic, lds: bool) -> Flow {
        self.vector_issue();
        self.atomic_operands(x.src, x.cmp);
        let (src, cmp) = (self.s.b, self.s.c);
        let mut old = [0u32; W];
        if !self.atomic_in(lds, x.update, x.at, (&src, &cmp), &mut old)? {
            return Ok(Step::Leave(Exit::Done(self.pc)));
        }
        if let Some(d) = x.dst {
            self.s.out = old;
            self.write_back(d);
        }
        self.next()
    }

    /// A 64-bit atomic of either space: the pairs `src` and `cmp` read, the
    /// pair `dst` written.
    #[inline(never)]
    pub(super) fn atomic64(&mut self, x: Atomic64, lds: bool) -> Flow {
        self.vector_issue();
        let (src, cmp) = (self.pair_of(x.src), self.pair_of(x.cmp));
        let mut old = [0u64; W];
        if !self.atomic_in(lds, x.update, x.at, (&src, &cmp), &mut old)? {
            return Ok(Step::Leave(Exit::Done(self.pc)));
        }
        for (k, word) in [0u32, 32].into_iter().enumerate() {
            self.s.out = std::array::from_fn(|l| (old[l] >> word) as u32);
            self.write_back(x.dst.wrapping_add(k as u16));
        }
        self.next()
    }

    /// An atomic on elements `E` at `at`, global or (`lds`) LDS: each
    /// active lane's update with its `src` (and `cmp`), the values before it
    /// into `old`. `false` when the operand names nothing bound (validation
    /// rules it out).
    #[inline(always)]
    fn atomic_in<E: atomic::Element>(
        &mut self,
        lds: bool,
        update: atomic::Update<E::Op>,
        at: Mem,
        (src, cmp): (&[E; W], &[E; W]),
        old: &mut [E; W],
    ) -> Result<bool, Box<mem::Trap>> {
        self.index(at);
        let pc = self.pc;
        let mut tally = Counters::default();
        let done = with_target!(self, at, lds, target => {
            let s = &mut *self.s;
            atomic::access::<W, E, _>(
                update,
                target,
                Operands {
                    lanes: mem::Request {
                        store: true,
                        exec: self.exec,
                        lm: &self.lm,
                        idx: &s.idx,
                        stepped: false,
                    },
                    src,
                    cmp,
                },
                old,
                mem::Count {
                    geo: &self.geo,
                    c: counters_for!(self, pc, tally),
                    worst: self.instr.worst(pc),
                },
                &mut s.mem,
            )
        });
        let Some(done) = done else {
            return Ok(false);
        };
        done?;
        self.counted(pc, &tally);
        self.observe(self.seen(at, lds, AccessKind::Atomic, E::BYTES, 1), &tally);
        Ok(true)
    }

    /// Each lane's pair of registers `first` and `first + 1`, low word first
    /// (a register past the counts reads as 0).
    fn pair_of(&mut self, first: u16) -> [u64; W] {
        let vregs = self.prepared.vregs;
        let Parts { vr, .. } = self.parts();
        let word = |r: u16| -> [u32; W] {
            match vr.get(usize::from(r)) {
                Some(reg) if usize::from(r) < vregs => *lanes::<W>(reg),
                _ => [0; W],
            }
        };
        let (lo, hi) = (word(first), word(first.wrapping_add(1)));
        std::array::from_fn(|l| u64::from(lo[l]) | (u64::from(hi[l]) << 32))
    }
}
