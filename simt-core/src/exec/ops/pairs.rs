//! The 64-bit operations on register pairs: arithmetic, compares and
//! conversions.

use super::super::alu;
use super::super::alu64;
use super::super::decode::{PairOp, Pairs};
use super::super::instrument::Instrument;
use super::{lanes, lanes_mut, Exec, Flow, Parts};

/// What a 64-bit operation writes.
enum Written<const W: usize> {
    /// A pair per lane.
    Pair([u64; W]),
    /// A 32-bit word per lane.
    Word([u32; W]),
    /// A mask bit per lane.
    Mask(u64),
}

impl<const W: usize, I: Instrument> Exec<'_, '_, W, I> {
    /// A vector operation on 64-bit values: computed in every lane, written
    /// in the active ones.
    ///
    /// Out of line: its per-lane loops are not worth inlining into the
    /// dispatch.
    #[inline(never)]
    pub(in crate::exec) fn v_pairs(&mut self, x: Pairs) -> Flow {
        self.vector_issue();
        let (exec, vregs) = (self.exec, self.prepared.vregs);
        let Parts { vr, rd, s, .. } = self.parts();
        // Registers past the counts (which validation rules out) read as 0.
        let word = |r: u16| -> [u32; W] {
            match vr.get(usize::from(r)) {
                Some(reg) if usize::from(r) < vregs => *lanes::<W>(reg),
                _ => [0; W],
            }
        };
        let pair = |r: u16| -> [u64; W] {
            let (lo, hi) = (word(r), word(r.wrapping_add(1)));
            std::array::from_fn(|l| u64::from(lo[l]) | (u64::from(hi[l]) << 32))
        };
        let written = match x.op {
            PairOp::Bin(op) => {
                let (a, b) = (pair(x.a), pair(x.b));
                Written::Pair(std::array::from_fn(|l| alu64::bin(op, a[l], b[l])))
            }
            PairOp::Un(op) => {
                let a = pair(x.a);
                Written::Pair(std::array::from_fn(|l| alu64::un(op, a[l])))
            }
            PairOp::Tern(op) => {
                let (a, b, c) = (pair(x.a), pair(x.b), pair(x.c));
                Written::Pair(std::array::from_fn(|l| alu64::tern(op, a[l], b[l], c[l])))
            }
            PairOp::Cmp(op, ty) => {
                let (a, b) = (pair(x.a), pair(x.b));
                let bits = (0..W).fold(0u64, |m, l| {
                    m | (u64::from(alu64::cmp(op, ty, a[l], b[l])) << l)
                });
                Written::Mask(bits)
            }
            PairOp::Narrow(op) => {
                let a = pair(x.a);
                Written::Word(std::array::from_fn(|l| alu64::narrow(op, a[l])))
            }
            PairOp::Widen(op) => {
                let a = *rd.fetch(x.src, vr, &mut s.a);
                Written::Pair(std::array::from_fn(|l| alu64::widen(op, a[l])))
            }
        };
        match written {
            Written::Pair(v) => {
                let lo: [u32; W] = std::array::from_fn(|l| v[l] as u32);
                let hi: [u32; W] = std::array::from_fn(|l| (v[l] >> 32) as u32);
                self.write_word(x.dst, &lo);
                self.write_word(x.dst.wrapping_add(1), &hi);
            }
            Written::Word(v) => self.write_word(x.dst, &v),
            Written::Mask(bits) => {
                if let Some(d) = self.mreg_mut(x.dst) {
                    *d = (*d & !exec) | (bits & exec);
                }
            }
        }
        self.next()
    }

    /// Blends `v` into vector register `d` in the active lanes (a register
    /// past the counts is not written).
    fn write_word(&mut self, d: u16, v: &[u32; W]) {
        self.unstep(d);
        let vregs = self.prepared.vregs;
        let Parts { vr, lm, .. } = self.parts();
        if usize::from(d) < vregs {
            if let Some(reg) = vr.get_mut(usize::from(d)) {
                alu::blend(lanes_mut::<W>(reg), v, lm);
            }
        }
    }
}
