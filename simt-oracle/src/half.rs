//! Half precision (`f16` and `bf16`) from the language reference: each
//! result is the exact result rounded once, to nearest with ties to even,
//! subnormals kept, NaN results the format's one quiet NaN.
//!
//! Values are taken apart into integers (`mantissa * 2^exponent`) and the
//! exact results computed on integers; rounding is one integer shift with
//! its remainder. No floating-point arithmetic decides a rounding here.
//! Narrowing an `f64` also rounds toward zero, down or up.

use crate::alu::Toward;

/// A binary floating-point format: exponent and fraction widths.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Format {
    exp_bits: u32,
    frac_bits: u32,
}

pub(crate) const F16: Format = Format {
    exp_bits: 5,
    frac_bits: 10,
};
pub(crate) const BF16: Format = Format {
    exp_bits: 8,
    frac_bits: 7,
};
const F32: Format = Format {
    exp_bits: 8,
    frac_bits: 23,
};
const F64: Format = Format {
    exp_bits: 11,
    frac_bits: 52,
};

/// A value taken apart.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    NaN,
    Inf { neg: bool },
    Finite(Exact),
}

/// `(-1)^neg * mant * 2^exp` (zero when `mant` is 0, signed).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Exact {
    neg: bool,
    mant: u128,
    exp: i32,
}

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    fn max_field(self) -> u64 {
        (1 << self.exp_bits) - 1
    }

    fn nan(self) -> u32 {
        // The quiet bit set, nothing else: 0x7e00, 0x7fc0, 0x7fc0_0000.
        ((self.max_field() << self.frac_bits) | (1 << (self.frac_bits - 1))) as u32
    }

    fn sign_bit(self) -> u64 {
        1 << (self.exp_bits + self.frac_bits)
    }

    fn decode(self, bits: u64) -> Num {
        let neg = bits & self.sign_bit() != 0;
        let field = (bits >> self.frac_bits) & self.max_field();
        let frac = bits & ((1 << self.frac_bits) - 1);
        let min_exp = 1 - self.bias() - self.frac_bits as i32;
        if field == self.max_field() {
            return if frac == 0 {
                Num::Inf { neg }
            } else {
                Num::NaN
            };
        }
        if field == 0 {
            return Num::Finite(Exact {
                neg,
                mant: u128::from(frac),
                exp: min_exp,
            });
        }
        Num::Finite(Exact {
            neg,
            mant: u128::from(frac | (1 << self.frac_bits)),
            exp: field as i32 + min_exp - 1,
        })
    }

    /// `num` rounded to this format, to nearest with ties to even.
    fn encode(self, num: Num) -> u32 {
        self.encode_toward(num, None)
    }

    /// `num` rounded to this (at most 32-bit) format, to nearest with ties
    /// to even (`None`) or toward `dir`. A value beyond the largest finite
    /// one is an infinity, but toward zero and toward the other infinity
    /// it is the largest finite value.
    fn encode_toward(self, num: Num, dir: Option<Toward>) -> u32 {
        let (neg, mant, exp) = match num {
            Num::NaN => return self.nan(),
            Num::Inf { neg } => return self.inf(neg),
            Num::Finite(Exact { neg, mant, exp }) => (neg, mant, exp),
        };
        let sign = if neg { self.sign_bit() as u32 } else { 0 };
        if mant == 0 {
            return sign;
        }
        // Whether a dropped nonzero remainder moves the magnitude up.
        let away = match dir {
            None => None,
            Some(Toward::Zero) => Some(false),
            Some(Toward::Down) => Some(neg),
            Some(Toward::Up) => Some(!neg),
        };
        let top = 127 - mant.leading_zeros() as i32; // mant's highest bit
        let binade = exp + top;
        let f = self.frac_bits as i32;
        let quantum = binade.max(1 - self.bias()) - f;
        let mut units = if quantum <= exp {
            mant << (exp - quantum)
        } else {
            let shift = (quantum - exp) as u32;
            if shift > top as u32 + 1 {
                // Below half a quantum: zero, or one quantum away from it.
                u128::from(away == Some(true))
            } else {
                let kept = mant >> shift;
                let rest = mant - (kept << shift);
                let half = 1u128 << (shift - 1);
                let up = match away {
                    None => rest > half || (rest == half && kept & 1 == 1),
                    Some(away) => away && rest != 0,
                };
                kept + u128::from(up)
            }
        };
        let mut quantum = quantum;
        if units == 1 << (f + 1) {
            units >>= 1;
            quantum += 1;
        }
        if units < 1 << f {
            return sign | units as u32;
        }
        let field = quantum + f + self.bias();
        if field >= self.max_field() as i32 {
            return if away == Some(false) {
                self.inf(neg) - 1
            } else {
                self.inf(neg)
            };
        }
        sign | ((field as u32) << self.frac_bits) | (units as u32 - (1 << self.frac_bits))
    }

    fn inf(self, neg: bool) -> u32 {
        ((if neg { self.sign_bit() } else { 0 }) | (self.max_field() << self.frac_bits)) as u32
    }

    /// The low 16 bits of `bits` as this (16-bit) format's value.
    fn read(self, bits: u32) -> Num {
        self.decode(u64::from(bits & 0xffff))
    }

    pub(crate) fn add(self, a: u32, b: u32) -> u32 {
        self.encode(add(self.read(a), self.read(b)))
    }

    pub(crate) fn sub(self, a: u32, b: u32) -> u32 {
        self.encode(add(self.read(a), negate(self.read(b))))
    }

    pub(crate) fn mul(self, a: u32, b: u32) -> u32 {
        self.encode(mul(self.read(a), self.read(b)))
    }

    pub(crate) fn fma(self, a: u32, b: u32, c: u32) -> u32 {
        self.encode(add(mul(self.read(a), self.read(b)), self.read(c)))
    }

    /// An `f32`'s bits rounded to this format.
    pub(crate) fn round_f32(self, bits: u32) -> u32 {
        self.encode(F32.decode(u64::from(bits)))
    }

    /// An `f64`'s bits rounded once to this format, to nearest even
    /// (`None`) or toward `dir`.
    pub(crate) fn round_f64(self, bits: u64, dir: Option<Toward>) -> u32 {
        self.encode_toward(F64.decode(bits), dir)
    }

    /// This format's value (low 16 bits) as `f32` bits.
    pub(crate) fn to_f32(self, bits: u32) -> u32 {
        F32.encode(self.read(bits))
    }

    /// How `a` compares with `b` (`None` when either is NaN).
    pub(crate) fn order(self, a: u32, b: u32) -> Option<std::cmp::Ordering> {
        self.value(a)?.partial_cmp(&self.value(b)?)
    }

    /// The value (`None` for NaN).
    fn value(self, bits: u32) -> Option<f64> {
        match self.read(bits) {
            Num::NaN => None,
            Num::Inf { neg } => Some(if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }),
            Num::Finite(Exact { neg, mant, exp }) => {
                // Exact: a mantissa of at most 11 bits times a power of two
                // in f64's normal range.
                let v = mant as f64 * 2f64.powi(exp);
                Some(if neg { -v } else { v })
            }
        }
    }
}

fn negate(x: Num) -> Num {
    match x {
        Num::NaN => Num::NaN,
        Num::Inf { neg } => Num::Inf { neg: !neg },
        Num::Finite(e) => Num::Finite(Exact { neg: !e.neg, ..e }),
    }
}

fn mul(x: Num, y: Num) -> Num {
    match (x, y) {
        (Num::NaN, _) | (_, Num::NaN) => Num::NaN,
        (Num::Inf { neg: a }, Num::Inf { neg: b }) => Num::Inf { neg: a != b },
        (Num::Inf { neg }, Num::Finite(e)) | (Num::Finite(e), Num::Inf { neg }) => {
            if e.mant == 0 {
                Num::NaN
            } else {
                Num::Inf { neg: neg != e.neg }
            }
        }
        (Num::Finite(a), Num::Finite(b)) => Num::Finite(Exact {
            neg: a.neg != b.neg,
            mant: a.mant * b.mant,
            exp: a.exp + b.exp,
        }),
    }
}

fn add(x: Num, y: Num) -> Num {
    let (Num::Finite(a), Num::Finite(b)) = (x, y) else {
        return match (x, y) {
            (Num::NaN, _) | (_, Num::NaN) => Num::NaN,
            (Num::Inf { neg: a }, Num::Inf { neg: b }) if a != b => Num::NaN,
            (Num::Inf { neg }, _) | (_, Num::Inf { neg }) => Num::Inf { neg },
            _ => Num::NaN,
        };
    };
    let zero = |neg| {
        Num::Finite(Exact {
            neg,
            mant: 0,
            exp: 0,
        })
    };
    match (a.mant, b.mant) {
        // -0 only when both are -0.
        (0, 0) => return zero(a.neg && b.neg),
        (0, _) => return y,
        (_, 0) => return x,
        _ => {}
    }
    // Order by exponent: (big, small).
    let (big, mut small) = if a.exp >= b.exp { (a, b) } else { (b, a) };
    // A small term more than 80 binades below the big one's lowest bit
    // only decides the direction past the big one: any value that small
    // rounds alike. Keep it as one unit 60 binades below.
    if big.exp - small.exp > 80 {
        small.mant = 1;
        small.exp = big.exp - 60;
    }
    let aligned = big.mant << (big.exp - small.exp) as u32;
    let (neg, mant) = if big.neg == small.neg {
        (big.neg, aligned + small.mant)
    } else if aligned >= small.mant {
        (big.neg, aligned - small.mant)
    } else {
        (small.neg, small.mant - aligned)
    };
    if mant == 0 {
        // x + (-x) is +0 under rounding to nearest.
        return zero(false);
    }
    Num::Finite(Exact {
        neg,
        mant,
        exp: small.exp,
    })
}

#[cfg(test)]
mod tests {
    use super::{BF16, F16};

    /// The hand-computed cases of the language reference's rounding rules.
    #[test]
    fn hand_computed_roundings() {
        // 1 + 2^-11 is a tie: to the even 1; (1 + 2^-10) + 2^-11: to 1 + 2^-9.
        assert_eq!(F16.add(0x3c00, 0x1000), 0x3c00);
        assert_eq!(F16.add(0x3c01, 0x1000), 0x3c02);
        // 2^-24 * 0.5: a tie between 0 and the smallest subnormal.
        assert_eq!(F16.mul(0x0001, 0x3800), 0x0000);
        assert_eq!(F16.mul(0x7bff, 0x4000), 0x7c00);
        assert_eq!(F16.add(0x7c00, 0xfc00), 0x7e00);
        // (1 + 2^-10)^2 - (1 + 2^-9) = 2^-20, fused.
        assert_eq!(F16.fma(0x3c01, 0x3c01, 0xbc02), 0x0010);
        // (1 + 2^-4)^2 + 2^-133 in bf16: past the tie, up.
        assert_eq!(BF16.fma(0x3f88, 0x3f88, 0x0001), 0x3f91);
        assert_eq!(BF16.fma(0x3f88, 0x3f88, 0x8001), 0x3f90);
        assert_eq!(BF16.mul(0x3f88, 0x3f88), 0x3f90);
        // f32 conversions: 0.1f32 to f16 and back; a bf16 tie from f32.
        assert_eq!(F16.round_f32(0.1f32.to_bits()), 0x2e66);
        assert_eq!(F16.to_f32(0x2e66), (1638.0f32 / 16384.0).to_bits());
        assert_eq!(BF16.round_f32(0x3f81_8000), 0x3f82);
        assert_eq!(F16.round_f32(65520.0f32.to_bits()), 0x7c00);
        assert_eq!(F16.round_f32(65519.0f32.to_bits()), 0x7bff);
        // x + (-x) is +0; -0 + -0 is -0.
        assert_eq!(F16.sub(0x3c00, 0x3c00), 0x0000);
        assert_eq!(F16.add(0x8000, 0x8000), 0x8000);
        // Compares: NaN unordered, -0 equals 0.
        assert_eq!(F16.order(0x7e00, 0x3c00), None);
        assert_eq!(F16.order(0x8000, 0x0000), Some(std::cmp::Ordering::Equal));
    }
}
