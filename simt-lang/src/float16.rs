//! Half precision: `f16` (IEEE-754 binary16) and `bf16` (bfloat16) values in
//! the low 16 bits of a 32-bit register.
//!
//! An operation reads the low 16 bits of its operands (the upper ones are
//! ignored) and writes its result zero-extended. Each result is the exact
//! result rounded once to the format, to nearest with ties to even, with
//! subnormals kept and overflow to infinity; every NaN result is the format's
//! one quiet NaN (`0x7e00` for `f16`, `0x7fc0` for `bf16`), as every `f32`
//! NaN result is `0x7fc0_0000`.
//!
//! How the single rounding is reached: the operands are exact in `f64`, a
//! product of two of them is exact there too, and a sum rounded to `f64`
//! then to the format is the sum rounded once (53 bits are more than twice
//! the format's precision plus two). A fused multiply-add rounds its `f64`
//! sum to odd before the final rounding, which makes that one rounding too.

/// A half-precision format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Half {
    /// IEEE-754 binary16: 5 exponent bits, 10 fraction bits.
    F16,
    /// bfloat16: 8 exponent bits, 7 fraction bits (the top half of an `f32`).
    Bf16,
}

impl Half {
    /// The format's quiet NaN, which every NaN result is.
    pub const fn nan(self) -> u32 {
        match self {
            Half::F16 => 0x7e00,
            Half::Bf16 => 0x7fc0,
        }
    }

    /// The value of the low 16 bits of `bits`.
    pub fn to_f64(self, bits: u32) -> f64 {
        let h = bits as u16;
        match self {
            Half::F16 => half::f16::from_bits(h).to_f64(),
            Half::Bf16 => half::bf16::from_bits(h).to_f64(),
        }
    }

    /// Exponent and fraction bits.
    const fn layout(self) -> (i32, i32) {
        match self {
            Half::F16 => (5, 10),
            Half::Bf16 => (8, 7),
        }
    }

    /// `x` rounded to the format, as register bits.
    ///
    /// Written here rather than taken from the `half` crate, whose
    /// conversions from `f64` drop the low 32 bits of the fraction first
    /// and so round some values just past a tie down.
    pub fn round(self, x: f64) -> u32 {
        let (exp_bits, frac_bits) = self.layout();
        let sign = u32::from(x.is_sign_negative()) << 15;
        let inf = sign | (((1 << exp_bits) - 1) << frac_bits);
        let bias = (1 << (exp_bits - 1)) - 1;
        let a = x.abs();
        if x.is_nan() {
            return self.nan();
        }
        // Below 2^-1000 a value is far under half the smallest subnormal of
        // either format (and may be an f64 subnormal, whose exponent field
        // does not give its binade).
        if a < pow2(-1000) {
            return sign;
        }
        if a.is_infinite() {
            return inf;
        }
        let binade = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        if binade > bias {
            return inf;
        }
        // The spacing of the format's values at `a`: its binade's, or the
        // subnormals' below the smallest normal binade.
        let quantum = binade.max(1 - bias) - frac_bits;
        // `a / 2^quantum` is below 2^(frac_bits + 1): an integer after
        // rounding, which f64 does exactly.
        let mut units = (a * pow2(-quantum)).round_ties_even() as u32;
        let mut quantum = quantum;
        if units == 1 << (frac_bits + 1) {
            units >>= 1;
            quantum += 1;
        }
        if units < 1 << frac_bits {
            // A subnormal (or zero): the field is the count of quanta.
            return sign | units;
        }
        let field = quantum + frac_bits + bias;
        if field >= (1 << exp_bits) - 1 {
            return inf;
        }
        sign | ((field as u32) << frac_bits) | (units - (1 << frac_bits))
    }

    /// The `f32` whose bits are `bits` rounded to the format.
    pub fn round_f32(self, bits: u32) -> u32 {
        self.round(f64::from(f32::from_bits(bits)))
    }

    /// The value as `f32` bits (exact; a NaN is `f32`'s quiet NaN).
    pub fn to_f32(self, bits: u32) -> u32 {
        let x = self.to_f64(bits);
        if x.is_nan() {
            0x7fc0_0000
        } else {
            (x as f32).to_bits()
        }
    }

    /// `a + b`.
    pub fn add(self, a: u32, b: u32) -> u32 {
        self.round(self.to_f64(a) + self.to_f64(b))
    }

    /// `a - b`.
    pub fn sub(self, a: u32, b: u32) -> u32 {
        self.round(self.to_f64(a) - self.to_f64(b))
    }

    /// `a * b`.
    pub fn mul(self, a: u32, b: u32) -> u32 {
        self.round(self.to_f64(a) * self.to_f64(b))
    }

    /// `a * b + c` with one rounding.
    pub fn fma(self, a: u32, b: u32, c: u32) -> u32 {
        let p = self.to_f64(a) * self.to_f64(b);
        let c = self.to_f64(c);
        self.round(sum_rounded_to_odd(p, c))
    }
}

/// `2^k`, for `-1022 <= k <= 1023`.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `p + c` rounded to odd: exact when it fits in an `f64`, else the
/// neighbour of the exact sum whose last bit is 1. Rounding that to a format
/// of at most 51 bits of precision rounds the exact sum once.
fn sum_rounded_to_odd(p: f64, c: f64) -> f64 {
    let s = p + c;
    if !s.is_finite() {
        return s;
    }
    // The rounding error of `s` (Knuth's two-sum: exact).
    let v = s - p;
    let e = (p - (s - v)) + (c - v);
    let bits = s.to_bits();
    if e == 0.0 || bits & 1 == 1 {
        return s;
    }
    // `s` is even and inexact: the other neighbour lies toward `e`.
    let away_from_zero = (e > 0.0) == (s > 0.0);
    f64::from_bits(if away_from_zero { bits + 1 } else { bits - 1 })
}

#[cfg(test)]
mod tests {
    use super::Half::{Bf16, F16};
    use super::*;

    fn f16(x: f64) -> u32 {
        F16.round(x)
    }

    #[test]
    fn conversions_round_to_nearest_even_once() {
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to the even, 1.
        assert_eq!(f16(1.0 + 2f64.powi(-11)), 0x3c00);
        // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: to 1 + 2^-9.
        assert_eq!(f16(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        // Just above the halfway point rounds up: a conversion through `f32`
        // would have made it the halfway point first, then rounded down.
        assert_eq!(f16(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), 0x3c01);
        assert_eq!(Bf16.round(1.0 + 2f64.powi(-8) + 2f64.powi(-40)), 0x3f81);
        assert_eq!(Bf16.round(1.0 + 2f64.powi(-8)), 0x3f80);
        // The largest f16 is 65504; 65520 is halfway to 2^16 and rounds to
        // the even, infinity.
        assert_eq!(f16(65504.0), 0x7bff);
        assert_eq!(f16(65519.0), 0x7bff);
        assert_eq!(f16(65520.0), 0x7c00);
        assert_eq!(f16(-65520.0), 0xfc00);
        // Subnormals are kept: 2^-24 is the smallest, 2^-25 a tie to 0, a bit
        // more rounds up to it.
        assert_eq!(f16(2f64.powi(-24)), 0x0001);
        assert_eq!(f16(2f64.powi(-25)), 0x0000);
        assert_eq!(f16(2f64.powi(-25) + 2f64.powi(-30)), 0x0001);
        assert_eq!(F16.to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(F16.to_f64(0x03ff), 1023.0 * 2f64.powi(-24));
        assert_eq!(Bf16.to_f64(0x0001), 2f64.powi(-133));
        assert_eq!(f16(-0.0), 0x8000);
        assert_eq!(f16(f64::NAN), 0x7e00);
        assert_eq!(Bf16.round(-f64::NAN), 0x7fc0);
        // f32 <-> half: 0.1f32 rounds to 0x2e66 (0.0999755859375).
        assert_eq!(F16.round_f32(0.1f32.to_bits()), 0x2e66);
        assert_eq!(F16.to_f32(0x2e66), (1638.0f32 / 16384.0).to_bits());
        assert_eq!(Bf16.round_f32(0x3f80_8000), 0x3f80);
        assert_eq!(Bf16.round_f32(0x3f81_8000), 0x3f82);
        assert_eq!(Bf16.to_f32(0x3f81), 0x3f81_0000);
        assert_eq!(F16.to_f32(0x7c01), 0x7fc0_0000);
        // The upper 16 bits of a register are not read.
        assert_eq!(F16.to_f64(0xdead_3c00), 1.0);
    }

    #[test]
    fn arithmetic_rounds_once() {
        let one = 0x3c00;
        let half_ulp = 0x1000; // 2^-11, half the spacing of f16 values at 1
                               // 1 + 2^-11: a tie, to the even 1.
        assert_eq!(F16.add(one, half_ulp), one);
        // (1 + 2^-10) + 2^-11: a tie, to the even 1 + 2^-9.
        assert_eq!(F16.add(0x3c01, half_ulp), 0x3c02);
        assert_eq!(F16.sub(one, one), 0x0000);
        // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20: 1 + 2^-9.
        assert_eq!(F16.mul(0x3c01, 0x3c01), 0x3c02);
        // 65504 * 2 overflows.
        assert_eq!(F16.mul(0x7bff, 0x4000), 0x7c00);
        // 2^-24 * 0.5 = 2^-25: a tie between 0 and the smallest subnormal.
        assert_eq!(F16.mul(0x0001, 0x3800), 0x0000);
        // inf - inf: the quiet NaN.
        assert_eq!(F16.add(0x7c00, 0xfc00), 0x7e00);
        // (1 + 2^-10)^2 - (1 + 2^-9) = 2^-20 exactly, a subnormal (16 *
        // 2^-24); unfused, the product rounds to 1 + 2^-9 and nothing is left.
        assert_eq!(F16.fma(0x3c01, 0x3c01, 0xbc02), 0x0010);
        assert_eq!(F16.sub(F16.mul(0x3c01, 0x3c01), 0x3c02), 0x0000);
        // (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20: a tie at 2^-9, to the even 2^-9.
        assert_eq!(F16.fma(0x3c01, 0x3c01, 0xbc00), 0x1800);
        // bf16: 1 + 2^-8 is a tie, to the even 1.
        assert_eq!(Bf16.add(0x3f80, 0x3b80), 0x3f80);
        // (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14: 1 + 2^-6.
        assert_eq!(Bf16.mul(0x3f81, 0x3f81), 0x3f82);
        // Plus 2^-8: past the tie at 1 + 2^-6 + 2^-8, up to 1 + 3 * 2^-7.
        assert_eq!(Bf16.fma(0x3f81, 0x3f81, 0x3b80), 0x3f83);
        // (1 + 2^-4)^2 = 1.125 + 2^-8, a tie, to the even 1.125; plus the
        // smallest subnormal 2^-133 it is past the tie and rounds up, which
        // an f64 sum alone would lose (the sum is 134 bits wide).
        assert_eq!(Bf16.mul(0x3f88, 0x3f88), 0x3f90);
        assert_eq!(Bf16.fma(0x3f88, 0x3f88, 0x0001), 0x3f91);
        assert_eq!(Bf16.fma(0x3f88, 0x3f88, 0x8001), 0x3f90);
        // The f32 NaN of the formats' NaN.
        assert_eq!(Bf16.to_f32(Bf16.mul(0x7f80, 0x0000)), 0x7fc0_0000);
    }

    #[test]
    fn rounding_to_odd_breaks_false_ties() {
        // 1 + 2^-11 (a tie in f16) plus 2^-70: f64 rounds the sum to the
        // tie, to odd keeps it above.
        let s = sum_rounded_to_odd(1.0 + 2f64.powi(-11), 2f64.powi(-70));
        assert!(s > 1.0 + 2f64.powi(-11));
        assert_eq!(f16(s), 0x3c01);
        let s = sum_rounded_to_odd(1.0 + 2f64.powi(-11), -(2f64.powi(-70)));
        assert_eq!(f16(s), 0x3c00);
        assert_eq!(sum_rounded_to_odd(1.0, 2.0), 3.0);
    }
}
