//! The span path: a load or store of 4-byte elements indexed by element
//! whose counts follow from each phase's lowest and highest index. That
//! holds when a phase's active lanes reach at most two lines (or sectors)
//! or words within one sweep of the banks, whatever their order and repeats
//! (rows of a tile, broadcasts, a block in any order, a prefix of the
//! lanes), and when every lane is active and the indices step by a
//! constant (a strided access), whose lines are then either every line
//! between the ends or one per lane. Anything else, a lane out of bounds
//! included, is left to the general path, which counts lane by lane. The
//! formulas count what the general path counts, which the tests beside
//! this check against sets of lines and a bank-by-bank count.

use super::super::bind::Geometry;
use super::{affine_cycles, full};

/// The most phases a wave has: waves have at most 64 lanes and the span
/// path takes phases of 16 lanes or more.
const MAX_PHASES: usize = 4;

/// A wave's element indices in phases of `P` lanes, per phase the lowest
/// and highest of its active lanes'. `P` is a constant, so that the loops
/// over a wave's phases unroll.
pub(in super::super) struct Spans<const P: usize> {
    /// Phases in the wave.
    phases: usize,
    /// The active lanes.
    exec: u64,
    lo: [u32; MAX_PHASES],
    hi: [u32; MAX_PHASES],
}

impl<const P: usize> Spans<P> {
    /// The spans of the lanes of `exec` (`lm`: its per-lane all-ones or
    /// zero words) of `idx`, in phases of `P` lanes: 16, 32 or 64. A `P`
    /// past the wave's lanes has no phase, so no range.
    #[inline(always)]
    pub(in super::super) fn of<const W: usize>(
        idx: &[u32; W],
        lm: &[u32; W],
        exec: u64,
    ) -> Spans<P> {
        let (mut lo, mut hi) = ([u32::MAX; MAX_PHASES], [0; MAX_PHASES]);
        let phases = idx.chunks_exact(P).zip(lm.chunks_exact(P));
        for (k, (phase, mask)) in phases.enumerate().take(MAX_PHASES) {
            let (Ok(phase), Ok(mask)) = (<&[u32; P]>::try_from(phase), <&[u32; P]>::try_from(mask))
            else {
                continue;
            };
            // The lowest and highest over the active lanes (an inactive
            // lane reads as the highest index for the lowest, and as 0 for
            // the highest): min/max reductions with a constant trip count,
            // which vectorize.
            let (mut a, mut b) = (u32::MAX, 0);
            for (&i, &m) in phase.iter().zip(mask) {
                a = a.min(i | !m);
                b = b.max(i & m);
            }
            lo[k] = a;
            hi[k] = b;
        }
        Spans {
            phases: W / P,
            exec: exec & full::<W>(),
            lo,
            hi,
        }
    }

    /// Whether phase `k` has an active lane.
    #[inline(always)]
    fn active(&self, k: usize) -> bool {
        let one = if P >= 64 { u64::MAX } else { (1u64 << P) - 1 };
        (self.exec >> (k * P)) & one != 0
    }

    /// The phases with an active lane.
    #[inline(always)]
    pub(in super::super) fn phases(&self) -> u64 {
        let mut n = 0;
        for k in 0..self.phases {
            n += self.active(k) as u64;
        }
        n
    }

    /// The lowest and highest index of the active lanes, or `None` when no
    /// lane is active.
    #[inline(always)]
    pub(in super::super) fn range(&self) -> Option<(u32, u32)> {
        let (mut lo, mut hi) = (u32::MAX, 0);
        for k in 0..self.phases {
            if self.active(k) {
                lo = lo.min(self.lo[k]);
                hi = hi.max(self.hi[k]);
            }
        }
        (self.exec != 0).then_some((lo, hi))
    }

    /// The lines and sectors of a global access of `size`-byte elements
    /// at the buffer of address `base`, summed over the phases; `None`
    /// where a phase's count does not follow from its span. The indices
    /// are in bounds, so no address wraps.
    #[inline(always)]
    pub(in super::super) fn global<const W: usize>(
        &self,
        idx: &[u32; W],
        base: u32,
        size: u32,
        geo: &Geometry,
    ) -> Option<(u64, u64)> {
        let mut step = Step::new(self.exec == full::<W>());
        let (mut lines, mut sectors) = (0, 0);
        for k in 0..self.phases {
            if !self.active(k) {
                continue;
            }
            let phase_lines = self.keys(k, idx, base, size, geo.line_shift, &mut step)?;
            lines += phase_lines;
            sectors += if geo.sector_shift == geo.line_shift {
                phase_lines
            } else {
                self.keys(k, idx, base, size, geo.sector_shift, &mut step)?
            };
        }
        Some((lines, sectors))
    }

    /// The distinct keys (`(base + index * size) >> shift`) of phase `k`:
    /// every key between its ends when they are at most one apart, or when
    /// the indices step by less than a key's width; one per lane when they
    /// step by a key's width or more.
    #[inline(always)]
    fn keys<const W: usize>(
        &self,
        k: usize,
        idx: &[u32; W],
        base: u32,
        size: u32,
        shift: u32,
        step: &mut Step,
    ) -> Option<u64> {
        let key = |i: u32| base.wrapping_add(i.wrapping_mul(size)) >> shift;
        let span = u64::from(key(self.hi[k]) - key(self.lo[k]));
        if span <= 1 {
            return Some(span + 1);
        }
        let gap = step.of(idx)?.unsigned_abs() * u64::from(size);
        Some(if gap <= 1 << shift {
            span + 1
        } else {
            P as u64
        })
    }

    /// The conflict cycles of an LDS access of 4-byte elements at the
    /// array at byte `origin`, summed over the phases; `None` where a
    /// phase's count does not follow from its span. Words spanning no more
    /// than the banks sit in distinct banks (lanes sharing a word
    /// broadcast); words stepping by a constant cycle through the banks.
    #[inline(always)]
    pub(in super::super) fn lds_cycles<const W: usize>(
        &self,
        idx: &[u32; W],
        origin: u32,
        geo: &Geometry,
    ) -> Option<u64> {
        let word = |i: u32| i.wrapping_mul(4).wrapping_add(origin) >> geo.bank_shift;
        let mut step = Step::new(self.exec == full::<W>());
        let mut cycles = 0;
        for k in 0..self.phases {
            if !self.active(k) {
                continue;
            }
            if word(self.hi[k]) - word(self.lo[k]) <= geo.bank_mask {
                continue;
            }
            // Banks of four bytes: an element is a word, so words step as
            // the indices do.
            if geo.bank_shift != 2 {
                return None;
            }
            let stride = step.of(idx)? as u32;
            cycles += affine_cycles(stride, P as u64, geo);
        }
        Some(cycles)
    }
}

/// Whether the indices step by a constant from lane to lane, found once
/// and only when a phase's count needs it; only of a fully active wave.
enum Step {
    Unknown,
    Known(Option<i64>),
}

impl Step {
    /// Not yet known, or (`whole` false: some lane is inactive) none.
    #[inline(always)]
    fn new(whole: bool) -> Step {
        if whole {
            Step::Unknown
        } else {
            Step::Known(None)
        }
    }

    /// `s` when lane `l`'s index is exactly `idx[0] + l * s` (no index
    /// wraps), else `None`.
    #[inline(always)]
    fn of<const W: usize>(&mut self, idx: &[u32; W]) -> Option<i64> {
        if let Step::Known(s) = *self {
            return s;
        }
        let d = idx[1 % W].wrapping_sub(idx[0]);
        let mut diff = 0u32;
        for (l, &i) in idx.iter().enumerate() {
            diff |= i ^ idx[0].wrapping_add(d.wrapping_mul(l as u32));
        }
        // Read as signed, the step reaches the last lane without leaving the
        // 32-bit range exactly when no lane's index wrapped; as in
        // `offsets`, the opaque read keeps the reduction a vector OR.
        let s = i64::from(d as i32);
        let last = i64::from(idx[0]) + s * (W as i64 - 1);
        let s = (std::hint::black_box(diff) == 0 && (0..=i64::from(u32::MAX)).contains(&last))
            .then_some(s);
        *self = Step::Known(s);
        s
    }
}
