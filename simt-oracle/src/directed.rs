//! `f64` arithmetic rounded toward zero, down or up, from exact values: a
//! fused multiply-add from the exact sum of big integers, a quotient and a
//! square root from integer division and integer square roots with enough
//! bits and the remainder kept as a sticky bit, each then rounded by
//! [`round`].

use crate::alu::Toward;
use num_bigint::{BigInt, BigUint, Sign};

const CANONICAL_NAN: u64 = 0x7ff8_0000_0000_0000;

fn canon(x: f64) -> u64 {
    if x.is_nan() {
        CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

/// `|x| = m 2^e` with `m` an integer (finite `x`), and its sign.
fn parts(x: f64) -> (bool, u64, i64) {
    let b = x.to_bits();
    let field = ((b >> 52) & 0x7ff) as i64;
    let frac = b & ((1 << 52) - 1);
    let neg = b >> 63 == 1;
    if field == 0 {
        (neg, frac, -1074)
    } else {
        (neg, frac | 1 << 52, field - 1075)
    }
}

/// `2^k` as an `f64`, for `-1074 <= k <= 1023`.
fn pow2(k: i64) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (k + 1074))
    }
}

/// The `f64` that `±(mag + sticky) 2^e0` rounds to toward `dir`, where
/// `mag > 0` and `sticky` says that something below `mag`'s last bit (less
/// than one of it) is not zero.
fn round(neg: bool, mag: &BigUint, sticky: bool, e0: i64, dir: Toward) -> u64 {
    let away = match dir {
        Toward::Zero => false,
        Toward::Down => neg,
        Toward::Up => !neg,
    };
    let sign = |r: f64| (if neg { -r } else { r }).to_bits();
    let top = mag.bits() as i64 - 1 + e0;
    if top > 1023 {
        return sign(if away { f64::INFINITY } else { f64::MAX });
    }
    // The quantum of doubles at this magnitude: drop the bits below it.
    let quantum = (top - 52).max(-1074);
    let shift = quantum - e0;
    let (mut kept, exact) = if shift <= 0 {
        (mag << (-shift) as u64, !sticky)
    } else {
        let kept = mag >> shift as u64;
        let dropped = &kept << shift as u64 != *mag;
        (kept, !dropped && !sticky)
    };
    if away && !exact {
        kept += 1u32;
    }
    // At most 2^53: exact in `f64`, as is its product with the quantum
    // (2^1024 becomes the infinity it should be).
    let kept: u64 = kept.try_into().unwrap_or(u64::MAX);
    sign(kept as f64 * pow2(quantum.max(-1074)))
}

/// `a * b + c` rounded once toward `dir`.
pub(crate) fn fma(a: f64, b: f64, c: f64, dir: Toward) -> u64 {
    if !(a.is_finite() && b.is_finite() && c.is_finite()) {
        // Infinities and NaN give an infinity or NaN, whatever the rounding.
        return canon(a.mul_add(b, c));
    }
    let (na, ma, ea) = parts(a);
    let (nb, mb, eb) = parts(b);
    let (nc, mc, ec) = parts(c);
    let np = na != nb;
    let product = BigInt::from(ma) * BigInt::from(mb);
    // An exact zero: rounding down, `-0.0` unless both terms are `+0.0`;
    // otherwise `+0.0` unless both are `-0.0`.
    let zero = |pn: bool, qn: bool| {
        let negative = if dir == Toward::Down {
            pn || qn
        } else {
            pn && qn
        };
        if negative {
            (-0.0f64).to_bits()
        } else {
            0
        }
    };
    if ma == 0 || mb == 0 {
        return if mc == 0 { zero(np, nc) } else { c.to_bits() };
    }
    let (ep, ec) = (ea + eb, if mc == 0 { ea + eb } else { ec });
    let e0 = ep.min(ec);
    let signed = |neg: bool, m: BigInt, e: i64| {
        let v = m << (e - e0) as u64;
        if neg {
            -v
        } else {
            v
        }
    };
    let v = signed(np, product, ep) + signed(nc, BigInt::from(mc), ec);
    match v.sign() {
        Sign::NoSign => zero(true, false),
        sign => round(sign == Sign::Minus, v.magnitude(), false, e0, dir),
    }
}

/// The integer `v` rounded toward `dir`.
pub(crate) fn from_int(v: i128, dir: Toward) -> u64 {
    if v == 0 {
        return 0;
    }
    round(v < 0, &BigUint::from(v.unsigned_abs()), false, 0, dir)
}

/// `|x|`'s integer and exponent with the integer's top bit at bit 52.
fn normal(x: f64) -> (u64, i64) {
    let (_, m, e) = parts(x);
    let up = m.leading_zeros() as i64 - 11;
    (m << up, e - up)
}

/// `a / b` rounded toward `dir`.
pub(crate) fn div(a: f64, b: f64, dir: Toward) -> u64 {
    if !(a.is_finite() && b.is_finite()) || a == 0.0 || b == 0.0 {
        // Infinities, NaN, zeros: the quotient is exact (or NaN).
        return canon(a / b);
    }
    let neg = (a < 0.0) != (b < 0.0);
    let ((ma, ea), (mb, eb)) = (normal(a), normal(b));
    // Both in [2^52, 2^53): the quotient of `ma 2^64` by `mb` has 64 or 65
    // bits, more than a double keeps; the remainder is the sticky bit.
    let n = u128::from(ma) << 64;
    let (q, r) = (n / u128::from(mb), n % u128::from(mb));
    round(neg, &BigUint::from(q), r != 0, ea - eb - 64, dir)
}

/// `sqrt(a)` rounded toward `dir`.
pub(crate) fn sqrt(a: f64, dir: Toward) -> u64 {
    if !a.is_finite() || a <= 0.0 {
        // NaN, a negative number (NaN), infinity, or a zero kept with its
        // sign: exact.
        return canon(a.sqrt());
    }
    let (m, mut e) = normal(a);
    let mut wide = u128::from(m);
    // An even exponent, so that it halves.
    if e % 2 != 0 {
        wide <<= 1;
        e -= 1;
    }
    // `wide 2^60` has 113 or 114 bits: its integer root has 57, more than a
    // double keeps; whether the root is exact is the sticky bit.
    let n = wide << 60;
    let root = n.isqrt();
    round(
        false,
        &BigUint::from(root),
        root * root != n,
        (e - 60) / 2,
        dir,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIRS: [Toward; 3] = [Toward::Zero, Toward::Down, Toward::Up];

    /// `op` in each direction: toward zero, down, up.
    fn each(op: impl Fn(Toward) -> u64) -> [u64; 3] {
        DIRS.map(op)
    }

    #[test]
    fn a_far_smaller_addend_moves_only_the_directed_results() {
        let tiny = f64::from_bits(1); // 2^-1074, 2^1074 below 1.
        let (down, up) = (1f64.next_down().to_bits(), 1f64.next_up().to_bits());
        let one = 1f64.to_bits();
        assert_eq!(each(|d| fma(1.0, 1.0, tiny, d)), [one, one, up]);
        assert_eq!(each(|d| fma(1.0, 1.0, -tiny, d)), [down, down, one]);
        // A product far below the addend.
        assert_eq!(
            each(|d| fma(tiny, tiny, -1.0, d)),
            [down | 1 << 63, (-1f64).to_bits(), down | 1 << 63]
        );
        // An exact zero: -0.0 rounding down only.
        assert_eq!(each(|d| fma(1.0, 1.0, -1.0, d)), [0, 1 << 63, 0]);
        // Past the largest double.
        let max = f64::MAX.to_bits();
        assert_eq!(
            each(|d| fma(f64::MAX, 2.0, 0.0, d)),
            [max, max, f64::INFINITY.to_bits()]
        );
    }

    #[test]
    fn quotients_and_roots_round_from_their_remainders() {
        let third = 0x3fd5_5555_5555_5555u64;
        assert_eq!(each(|d| div(1.0, 3.0, d)), [third, third, third + 1]);
        assert_eq!(
            each(|d| div(-1.0, 3.0, d)),
            [third | 1 << 63, (third + 1) | 1 << 63, third | 1 << 63]
        );
        // Half the smallest subnormal: zero or the subnormal itself.
        let tiny = f64::from_bits(1);
        assert_eq!(each(|d| div(tiny, 2.0, d)), [0, 0, 1]);
        let root = 0x3ff6_a09e_667f_3bcdu64;
        assert_eq!(each(|d| sqrt(2.0, d)), [root - 1, root - 1, root]);
        assert_eq!(each(|d| sqrt(9.0, d)), [3f64.to_bits(); 3]);
        // sqrt(2^-1074) = 2^-537: exact.
        assert_eq!(each(|d| sqrt(tiny, d)), [2f64.powi(-537).to_bits(); 3]);
        assert_eq!(each(|d| sqrt(-1.0, d)), [CANONICAL_NAN; 3]);
    }

    #[test]
    fn integers_past_two_to_the_53_round_to_their_neighbours() {
        // 2^53 + 1 lies between 2^53 and 2^53 + 2.
        let (lo, hi) = (2f64.powi(53).to_bits(), (2f64.powi(53) + 2.0).to_bits());
        let v = (1i128 << 53) + 1;
        assert_eq!(each(|d| from_int(v, d)), [lo, lo, hi]);
        assert_eq!(
            each(|d| from_int(-v, d)),
            [lo | 1 << 63, hi | 1 << 63, lo | 1 << 63]
        );
        // u64::MAX: just below 2^64, which is up.
        let top = 2f64.powi(64).to_bits();
        let below = 2f64.powi(64).next_down().to_bits();
        assert_eq!(
            each(|d| from_int(i128::from(u64::MAX), d)),
            [below, below, top]
        );
        assert_eq!(each(|d| from_int(0, d)), [0; 3]);
    }
}
