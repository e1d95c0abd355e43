//! Lane exchange: shuffles read another lane's value.

use crate::isa::ShuffleOp;

/// `out[l]` = `src` of the lane `op` and `lane[l]` choose for lane `l`; a lane
/// whose source lane is outside the wave or inactive gets its own `src`.
#[inline(always)]
pub(super) fn shuffle<const W: usize>(
    op: ShuffleOp,
    src: &[u32; W],
    lane: &[u32; W],
    exec: u64,
    out: &mut [u32; W],
) {
    for l in 0..W {
        let n = lane[l] as usize;
        let from = match op {
            ShuffleOp::Index => Some(n & (W - 1)),
            ShuffleOp::Xor => Some(l ^ n).filter(|&f| f < W),
            ShuffleOp::Up => l.checked_sub(n),
            ShuffleOp::Down => l.checked_add(n).filter(|&f| f < W),
        };
        out[l] = match from {
            Some(f) if exec >> f & 1 == 1 => src[f],
            _ => src[l],
        };
    }
}
