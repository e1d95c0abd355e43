//! The span path: a load of every lane of the wave, 4-byte elements indexed
//! by element, whose counts follow from each phase's lowest and highest
//! index. That holds when a phase's lanes reach at most two lines (or
//! sectors) or words within one sweep of the banks, whatever their order
//! and repeats (rows of a tile, broadcasts, a block in any order), and when
//! the lanes' indices step by a constant (a strided access), whose lines
//! are either every line between the ends or one per lane. Anything else,
//! a lane out of bounds included, is left to the general path, which counts
//! lane by lane. The formulas count what the general path counts, which the
//! tests beside this check against it.

use super::super::bind::Geometry;
use super::affine_cycles;

/// The most phases a wave has: waves have at most 64 lanes and the span
/// path takes phases of 16 lanes or more.
const MAX_PHASES: usize = 4;

/// A fully active wave's element indices, per phase their lowest and
/// highest.
pub(in super::super) struct Spans {
    /// Lanes per phase.
    lanes: usize,
    /// Phases in the wave.
    phases: usize,
    lo: [u32; MAX_PHASES],
    hi: [u32; MAX_PHASES],
}

impl Spans {
    /// The spans of `idx` in phases of `phase_lanes` lanes (at most the
    /// wave's), or `None` for phases narrower than 16 lanes.
    #[inline(always)]
    pub(in super::super) fn of<const W: usize>(idx: &[u32; W], phase_lanes: u32) -> Option<Spans> {
        let lanes = (phase_lanes as usize).min(W);
        let (lo, hi) = match lanes {
            16 => ranges::<W, 16>(idx),
            32 => ranges::<W, 32>(idx),
            64 => ranges::<W, 64>(idx),
            _ => return None,
        };
        Some(Spans {
            lanes,
            phases: W / lanes,
            lo,
            hi,
        })
    }

    /// The phases.
    #[inline(always)]
    pub(in super::super) fn phases(&self) -> u64 {
        self.phases as u64
    }

    /// The highest index of the wave.
    #[inline(always)]
    pub(in super::super) fn highest(&self) -> u32 {
        self.hi.iter().take(self.phases).copied().max().unwrap_or(0)
    }

    /// The lines and sectors of a global load of `size`-byte elements
    /// from the buffer at address `base`, summed over the phases; `None`
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
        let mut step = Step::Unknown;
        let (mut lines, mut sectors) = (0, 0);
        for k in 0..self.phases {
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
            self.lanes as u64
        })
    }

    /// The conflict cycles of an LDS load of 4-byte elements from the
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
        let mut step = Step::Unknown;
        let mut cycles = 0;
        for k in 0..self.phases {
            if word(self.hi[k]) - word(self.lo[k]) <= geo.bank_mask {
                continue;
            }
            // Banks of four bytes: an element is a word, so words step as
            // the indices do.
            if geo.bank_shift != 2 {
                return None;
            }
            let stride = step.of(idx)? as u32;
            cycles += affine_cycles(stride, self.lanes as u64, geo);
        }
        Some(cycles)
    }
}

/// Per phase of `P` lanes, the lowest and highest of `idx`: a min/max
/// reduction with a constant trip count, which vectorizes.
#[inline(always)]
fn ranges<const W: usize, const P: usize>(
    idx: &[u32; W],
) -> ([u32; MAX_PHASES], [u32; MAX_PHASES]) {
    let (mut lo, mut hi) = ([u32::MAX; MAX_PHASES], [0; MAX_PHASES]);
    for (k, phase) in idx.chunks_exact(P).enumerate().take(MAX_PHASES) {
        let Ok(phase) = <&[u32; P]>::try_from(phase) else {
            continue;
        };
        let (mut a, mut b) = (u32::MAX, 0);
        for &i in phase {
            a = a.min(i);
            b = b.max(i);
        }
        lo[k] = a;
        hi[k] = b;
    }
    (lo, hi)
}

/// Whether the indices step by a constant from lane to lane, found once
/// and only when a phase's count needs it.
enum Step {
    Unknown,
    Known(Option<i64>),
}

impl Step {
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
