//! Global and LDS loads, stores, wide accesses and atomics.
//!
//! Every handler follows one sequence: the lanes' indices (with the
//! wave-uniform offset added), the target (a bound buffer or an LDS array),
//! the access itself in `exec::memory` (offsets and bounds, counting, caches,
//! data movement), the instruments, and the loaded values blended into the
//! destination registers.

use super::super::alu;
use super::super::decode::{Access, Atomic, Atomic64, Mem, Src, Wide};
use super::super::instrument::{self, Instrument};
use super::super::memory::atomic::{self, Operands};
use super::super::memory::{self as mem, full, wide, GlobalTarget, LdsTarget};
use super::super::wave::Exit;
use super::{lanes, lanes_mut, Exec, Flow, Parts, Step};
use crate::facts::AccessKind;

/// What the instruments are told about an access, besides its lanes.
struct Seen {
    kind: AccessKind,
    buffer: Option<usize>,
    base: u64,
    size: u32,
    count: u32,
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

    /// Tells the instruments about the access whose lane offsets are in the
    /// memory scratch.
    #[inline(always)]
    fn observe(&mut self, seen: Seen) {
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
            counters: self.counters,
        };
        self.instr.memory(self.program, self.pc, self.wave, &access);
    }

    /// The global address of buffer parameter `p`.
    #[inline(always)]
    fn base_of(&self, p: u16) -> u64 {
        self.slots.get(p as usize).map_or(0, |s| s.base())
    }

    /// A global load or store of one element per lane.
    #[inline(always)]
    fn global_access(&mut self, x: Access, store: bool) -> Flow {
        self.vector_issue();
        if store {
            self.value(x.src);
        }
        self.index(x.at);
        let stepped = self.is_stepped(x.at.index);
        let (pc, p) = (self.pc, x.at.target as usize);
        let (Some(slot), Some(param)) = (self.slots.get_mut(p), self.program.params.get(p)) else {
            return Ok(Step::Leave(Exit::Done(pc)));
        };
        if let Some(c) = self.caches.as_mut() {
            c.at(pc);
        }
        let base = slot.base();
        let target = GlobalTarget {
            slot,
            name: &param.name,
            addressing: x.at.addressing,
            scale: param.kind.elem_size(),
        };
        let s = &mut *self.s;
        mem::global::<W>(
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
                c: &mut self.counters[pc],
                worst: self.instr.worst(pc),
            },
            self.caches.as_mut(),
            &mut s.mem,
        )?;
        self.observe(Seen {
            kind: if store {
                AccessKind::Store
            } else {
                AccessKind::Load
            },
            buffer: Some(p),
            base,
            size: x.ty.size(),
            count: 1,
        });
        if !store {
            self.write_back(x.reg);
        }
        self.next()
    }

    #[inline(always)]
    pub(super) fn global_load(&mut self, x: Access) -> Flow {
        self.global_access(x, false)
    }

    #[inline(always)]
    pub(super) fn global_store(&mut self, x: Access) -> Flow {
        self.global_access(x, true)
    }

    /// An LDS load or store of one element per lane.
    #[inline(always)]
    fn lds_access(&mut self, x: Access, store: bool) -> Flow {
        self.vector_issue();
        if store {
            self.value(x.src);
        }
        self.index(x.at);
        let stepped = self.is_stepped(x.at.index);
        let (pc, i) = (self.pc, x.at.target as usize);
        let (Some(&area), Some(decl)) = (self.prepared.lds.get(i), self.program.lds.get(i)) else {
            return Ok(Step::Leave(Exit::Done(pc)));
        };
        let target = LdsTarget {
            area,
            name: &decl.name,
            addressing: x.at.addressing,
        };
        let s = &mut *self.s;
        mem::lds::<W>(
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
            mem::LdsMemory {
                words: &mut *self.lds,
                table: &mut self.table,
            },
            mem::Count {
                geo: &self.geo,
                c: &mut self.counters[pc],
                worst: self.instr.worst(pc),
            },
            &mut s.mem,
        )?;
        self.observe(Seen {
            kind: if store {
                AccessKind::Store
            } else {
                AccessKind::Load
            },
            buffer: None,
            base: 0,
            size: x.ty.size(),
            count: 1,
        });
        if !store {
            self.write_back(x.reg);
        }
        self.next()
    }

    #[inline(always)]
    pub(super) fn lds_load(&mut self, x: Access) -> Flow {
        self.lds_access(x, false)
    }

    #[inline(always)]
    pub(super) fn lds_store(&mut self, x: Access) -> Flow {
        self.lds_access(x, true)
    }

    /// A wide global load or store.
    #[inline(always)]
    pub(super) fn global_wide(&mut self, x: Wide, store: bool) -> Flow {
        self.vector_issue();
        let n = x.n as usize;
        if store {
            self.gather_run(x.reg, n);
        }
        self.index(x.at);
        let (pc, p) = (self.pc, x.at.target as usize);
        let (Some(slot), Some(param)) = (self.slots.get_mut(p), self.program.params.get(p)) else {
            return Ok(Step::Leave(Exit::Done(pc)));
        };
        if let Some(c) = self.caches.as_mut() {
            c.at(pc);
        }
        let base = slot.base();
        let target = GlobalTarget {
            slot,
            name: &param.name,
            addressing: x.at.addressing,
            scale: param.kind.elem_size(),
        };
        let s = &mut *self.s;
        wide::global::<W>(
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
                c: &mut self.counters[pc],
                worst: None,
            },
            self.caches.as_mut(),
            &mut s.mem,
        )?;
        self.observe_wide(store, Some(p), base, n);
        if !store {
            self.write_run(x.reg, n);
        }
        self.next()
    }

    /// A wide LDS load or store.
    #[inline(always)]
    pub(super) fn lds_wide(&mut self, x: Wide, store: bool) -> Flow {
        self.vector_issue();
        let n = x.n as usize;
        if store {
            self.gather_run(x.reg, n);
        }
        self.index(x.at);
        let (pc, i) = (self.pc, x.at.target as usize);
        let (Some(&area), Some(decl)) = (self.prepared.lds.get(i), self.program.lds.get(i)) else {
            return Ok(Step::Leave(Exit::Done(pc)));
        };
        let target = LdsTarget {
            area,
            name: &decl.name,
            addressing: x.at.addressing,
        };
        let s = &mut *self.s;
        wide::lds::<W>(
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
            &mut *self.lds,
            mem::Count {
                geo: &self.geo,
                c: &mut self.counters[pc],
                worst: None,
            },
            &mut s.mem,
        )?;
        self.observe_wide(store, None, 0, n);
        if !store {
            self.write_run(x.reg, n);
        }
        self.next()
    }

    /// Tells the instruments about a wide access of `n` elements per lane.
    #[inline(always)]
    fn observe_wide(&mut self, store: bool, buffer: Option<usize>, base: u64, n: usize) {
        self.observe(Seen {
            kind: if store {
                AccessKind::Store
            } else {
                AccessKind::Load
            },
            buffer,
            base,
            size: 4,
            count: n as u32,
        });
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

    /// An atomic on elements `E` in the LDS or a buffer.
    #[inline(always)]
    fn atomic_in<E: atomic::Element>(
        &mut self,
        lds: bool,
        update: atomic::Update<E::Op>,
        at: Mem,
        ops: (&[E; W], &[E; W]),
        old: &mut [E; W],
    ) -> Result<bool, Box<mem::Trap>> {
        if lds {
            self.lds_atomic_of(update, at, ops, old)
        } else {
            self.global_atomic_of(update, at, ops, old)
        }
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

    /// A global atomic on elements `E` at `at`: each active lane's update
    /// with its `src` (and `cmp`), the values before it into `old`. `false`
    /// when the buffer is not bound (validation rules it out).
    #[inline(always)]
    fn global_atomic_of<E: atomic::Element>(
        &mut self,
        update: atomic::Update<E::Op>,
        at: Mem,
        (src, cmp): (&[E; W], &[E; W]),
        old: &mut [E; W],
    ) -> Result<bool, Box<mem::Trap>> {
        self.index(at);
        let (pc, p) = (self.pc, at.target as usize);
        let base = self.base_of(at.target);
        let (Some(slot), Some(param)) = (self.slots.get_mut(p), self.program.params.get(p)) else {
            return Ok(false);
        };
        if let Some(c) = self.caches.as_mut() {
            c.at(pc);
        }
        let target = GlobalTarget {
            slot,
            name: &param.name,
            addressing: at.addressing,
            scale: param.kind.elem_size(),
        };
        let s = &mut *self.s;
        atomic::global::<W, E>(
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
                c: &mut self.counters[pc],
                worst: self.instr.worst(pc),
            },
            self.caches.as_mut(),
            &mut s.mem,
        )?;
        self.observe(Seen {
            kind: AccessKind::Atomic,
            buffer: Some(p),
            base,
            size: E::BYTES,
            count: 1,
        });
        Ok(true)
    }

    /// An LDS atomic on elements `E`, as [`Self::global_atomic_of`].
    #[inline(always)]
    fn lds_atomic_of<E: atomic::Element>(
        &mut self,
        update: atomic::Update<E::Op>,
        at: Mem,
        (src, cmp): (&[E; W], &[E; W]),
        old: &mut [E; W],
    ) -> Result<bool, Box<mem::Trap>> {
        self.index(at);
        let (pc, i) = (self.pc, at.target as usize);
        let (Some(&area), Some(decl)) = (self.prepared.lds.get(i), self.program.lds.get(i)) else {
            return Ok(false);
        };
        let target = LdsTarget {
            area,
            name: &decl.name,
            addressing: at.addressing,
        };
        let s = &mut *self.s;
        atomic::lds::<W, E>(
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
            mem::LdsMemory {
                words: &mut *self.lds,
                table: &mut self.table,
            },
            mem::Count {
                geo: &self.geo,
                c: &mut self.counters[pc],
                worst: self.instr.worst(pc),
            },
            &mut s.mem,
        )?;
        self.observe(Seen {
            kind: AccessKind::Atomic,
            buffer: None,
            base: 0,
            size: E::BYTES,
            count: 1,
        });
        Ok(true)
    }
}
