//! Binary float formats as bit layouts (sign, exponent, mantissa, bias, and how infinities
//! and NaNs are written): IEEE 754's binary16/32/64 and the zarr-extensions registry's small
//! floats (bfloat16, the float8, float6 and float4 families). One generic conversion each way,
//! so a float data type is one entry of the numeric registry, never a `match` on its width.

/// How a format writes infinities and NaNs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Specials {
    /// IEEE 754: the all-ones exponent is ±infinity (mantissa 0) or NaN (any other).
    Ieee,
    /// `fn`: finite only; neither infinity nor NaN (float6, float4).
    Finite,
    /// `fnuz`: finite, one NaN (the sign bit alone, `0x80`), no negative zero.
    NegativeZeroNan,
    /// `fnu`: unsigned exponent only (float8_e8m0fnu): no zero, the all-ones byte is NaN.
    ExponentOnly,
}

/// A binary float format's bit layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatFormat {
    /// Bits of the exponent.
    pub exponent_bits: u32,
    /// Bits of the mantissa, the implicit leading bit not counted.
    pub mantissa_bits: u32,
    /// The exponent bias.
    pub bias: i32,
    /// Whether the top bit is a sign.
    pub signed: bool,
    /// How infinities and NaNs are written.
    pub specials: Specials,
    /// The bits of the NaN this format writes for `"NaN"`, if it has one.
    pub nan: Option<u64>,
}

impl FloatFormat {
    /// IEEE 754 binary16 (`float16`).
    pub const BINARY16: FloatFormat = FloatFormat::ieee(5, 10, 15, 0x7e00);
    /// IEEE 754 binary32 (`float32`).
    pub const BINARY32: FloatFormat = FloatFormat::ieee(8, 23, 127, 0x7fc0_0000);
    /// IEEE 754 binary64 (`float64`).
    pub const BINARY64: FloatFormat = FloatFormat::ieee(11, 52, 1023, 0x7ff8_0000_0000_0000);
    /// `bfloat16`: binary32's top half.
    pub const BFLOAT16: FloatFormat = FloatFormat::ieee(8, 7, 127, 0x7fc0);
    /// `float8_e3m4`.
    pub const E3M4: FloatFormat = FloatFormat::ieee(3, 4, 3, 0x78);
    /// `float8_e4m3`.
    pub const E4M3: FloatFormat = FloatFormat::ieee(4, 3, 7, 0x7c);
    /// `float8_e5m2`.
    pub const E5M2: FloatFormat = FloatFormat::ieee(5, 2, 15, 0x7e);
    /// `float8_e4m3b11fnuz`.
    pub const E4M3B11FNUZ: FloatFormat = FloatFormat::fnuz(4, 3, 11);
    /// `float8_e4m3fnuz`.
    pub const E4M3FNUZ: FloatFormat = FloatFormat::fnuz(4, 3, 8);
    /// `float8_e5m2fnuz`.
    pub const E5M2FNUZ: FloatFormat = FloatFormat::fnuz(5, 2, 16);
    /// `float8_e8m0fnu`: an unsigned exponent alone.
    pub const E8M0FNU: FloatFormat = FloatFormat {
        exponent_bits: 8,
        mantissa_bits: 0,
        bias: 127,
        signed: false,
        specials: Specials::ExponentOnly,
        nan: Some(0xff),
    };
    /// `float6_e2m3fn`.
    pub const E2M3FN: FloatFormat = FloatFormat::finite(2, 3, 1);
    /// `float6_e3m2fn`.
    pub const E3M2FN: FloatFormat = FloatFormat::finite(3, 2, 3);
    /// `float4_e2m1fn`.
    pub const E2M1FN: FloatFormat = FloatFormat::finite(2, 1, 1);

    /// An IEEE 754-style format with infinities and NaNs.
    pub const fn ieee(exponent_bits: u32, mantissa_bits: u32, bias: i32, nan: u64) -> Self {
        FloatFormat {
            exponent_bits,
            mantissa_bits,
            bias,
            signed: true,
            specials: Specials::Ieee,
            nan: Some(nan),
        }
    }

    /// A finite-only format (no infinity, no NaN).
    pub const fn finite(exponent_bits: u32, mantissa_bits: u32, bias: i32) -> Self {
        FloatFormat {
            exponent_bits,
            mantissa_bits,
            bias,
            signed: true,
            specials: Specials::Finite,
            nan: None,
        }
    }

    /// An `fnuz` format: no infinity, no negative zero, NaN `0x80`.
    pub const fn fnuz(exponent_bits: u32, mantissa_bits: u32, bias: i32) -> Self {
        FloatFormat {
            exponent_bits,
            mantissa_bits,
            bias,
            signed: true,
            specials: Specials::NegativeZeroNan,
            nan: Some(1 << (exponent_bits + mantissa_bits)),
        }
    }

    /// Bits of one value.
    pub const fn bits(&self) -> u32 {
        self.signed as u32 + self.exponent_bits + self.mantissa_bits
    }

    /// Whether the format has infinities.
    pub fn has_infinity(&self) -> bool {
        self.specials == Specials::Ieee
    }

    /// The value `bits` (the low [`FloatFormat::bits`] bits; the others are ignored) stand for.
    pub fn to_f64(&self, bits: u64) -> f64 {
        let (e, m) = (self.exponent_bits, self.mantissa_bits);
        let bits = bits & (u64::MAX >> (64 - self.bits().clamp(1, 64)));
        let top = (1u64 << e) - 1;
        let exponent = (bits >> m) & top;
        let mantissa = bits & ((1u64 << m) - 1);
        let negative = self.signed && (bits >> (e + m)) & 1 == 1;
        match self.specials {
            Specials::Ieee if exponent == top => {
                return match (mantissa, negative) {
                    (0, false) => f64::INFINITY,
                    (0, true) => f64::NEG_INFINITY,
                    _ => f64::NAN,
                };
            }
            Specials::NegativeZeroNan if negative && exponent == 0 && mantissa == 0 => {
                return f64::NAN;
            }
            Specials::ExponentOnly if exponent == top => return f64::NAN,
            _ => {}
        }
        let scale = |power: i64| 2f64.powi(power.clamp(-1100, 1100) as i32);
        let magnitude = if exponent == 0 && self.specials != Specials::ExponentOnly {
            // Subnormal: no implicit bit.
            mantissa as f64 * scale(1 - i64::from(self.bias) - i64::from(m))
        } else {
            let fraction = 1.0 + mantissa as f64 / (1u64 << m) as f64;
            fraction * scale(exponent as i64 - i64::from(self.bias))
        };
        if negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// The bits of the largest finite value.
    fn max_bits(&self) -> u64 {
        let (e, m) = (self.exponent_bits, self.mantissa_bits);
        let all = (1u64 << (e + m)) - 1;
        match self.specials {
            // The all-ones exponent is taken by infinity and NaN.
            Specials::Ieee => all - (1 << m),
            // The all-ones byte is NaN.
            Specials::ExponentOnly => all - 1,
            Specials::Finite | Specials::NegativeZeroNan => all,
        }
    }

    /// The bits of `x` rounded to the nearest value of the format (ties to an even mantissa),
    /// or `None` when the format cannot hold it: NaN or infinity it lacks, a magnitude half a
    /// step past its largest finite value without infinity to round to, a negative value of
    /// an unsigned format, or zero in a format without zero.
    pub fn from_f64(&self, x: f64) -> Option<u64> {
        if x.is_nan() {
            return self.nan;
        }
        let negative = x.is_sign_negative();
        if negative && !self.signed && x != 0.0 {
            return None;
        }
        let sign = match negative && self.signed {
            true => 1u64 << (self.exponent_bits + self.mantissa_bits),
            false => 0,
        };
        let magnitude = x.abs();
        let max_bits = self.max_bits();
        let max = self.to_f64(max_bits);
        if magnitude > max {
            let step = max - self.to_f64(max_bits - 1);
            let past = magnitude - max >= step / 2.0;
            let infinity = ((1u64 << self.exponent_bits) - 1) << self.mantissa_bits;
            return match (past, self.specials) {
                (false, _) => Some(sign | max_bits),
                (true, Specials::Ieee) => Some(sign | infinity),
                (true, _) => None,
            };
        }
        let least = self.to_f64(0);
        if magnitude <= least {
            return match self.specials {
                // No zero: the least value, or nothing below half of it.
                Specials::ExponentOnly => (magnitude >= least / 2.0).then_some(0),
                // No negative zero.
                Specials::NegativeZeroNan => Some(0),
                _ => Some(sign),
            };
        }
        // The non-negative patterns' values increase with their bits: bisect for the two
        // around `magnitude` (lo's value below it, hi's at or above).
        let (mut lo, mut hi) = (0u64, max_bits);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.to_f64(mid) < magnitude {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (below, above) = (magnitude - self.to_f64(lo), self.to_f64(hi) - magnitude);
        let pick = if below < above || (below == above && lo & 1 == 0) {
            lo
        } else {
            hi
        };
        Some(sign | pick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_formats_as_their_specs_define_them() {
        // bfloat16 is binary32's top half.
        for x in [1.5f32, -3.25e-20, 6.0e30, f32::MIN_POSITIVE] {
            let bits = u64::from(x.to_bits() >> 16);
            assert_eq!(
                FloatFormat::BFLOAT16.to_f64(bits),
                f64::from(f32::from_bits((bits as u32) << 16))
            );
        }
        assert_eq!(FloatFormat::E4M3.to_f64(0x77), 240.0);
        assert!(FloatFormat::E4M3.to_f64(0x7b).is_nan());
        assert_eq!(FloatFormat::E4M3.to_f64(0x78), f64::INFINITY);
        assert!(FloatFormat::E4M3.to_f64(0x7c).is_nan());
        assert_eq!(FloatFormat::E4M3.to_f64(0x01), 2f64.powi(-9));
        assert_eq!(FloatFormat::E4M3FNUZ.to_f64(0x7f), 240.0);
        assert!(FloatFormat::E4M3FNUZ.to_f64(0x80).is_nan());
        assert_eq!(FloatFormat::E2M1FN.to_f64(0b0111), 6.0);
        assert_eq!(FloatFormat::E2M1FN.to_f64(0b1001), -0.5);
        assert_eq!(
            FloatFormat::E2M1FN.to_f64(0b1111_0001),
            0.5,
            "upper bits are ignored"
        );
        assert_eq!(FloatFormat::E8M0FNU.to_f64(127), 1.0);
        assert_eq!(FloatFormat::E8M0FNU.to_f64(0), 2f64.powi(-127));
        assert!(FloatFormat::E8M0FNU.to_f64(255).is_nan());
        // The generic path agrees with half's binary16 everywhere.
        for bits in 0..=0xffffu64 {
            let want = half::f16::from_bits(bits as u16).to_f64();
            let got = FloatFormat::BINARY16.to_f64(bits);
            assert!(got == want || (got.is_nan() && want.is_nan()), "{bits:#x}");
        }
    }

    #[test]
    fn encodes_to_the_nearest_value_ties_to_even() {
        for bits in 0..=0xffffu64 {
            let x = half::f16::from_bits(bits as u16);
            if x.is_nan() {
                continue;
            }
            assert_eq!(
                FloatFormat::BINARY16.from_f64(x.to_f64()),
                Some(bits),
                "{bits:#x}"
            );
        }
        for x in [0.1f64, 1e-7, -65519.0, 65520.0, 3.0e-8, 1e6] {
            let want = half::f16::from_f64(x).to_bits();
            assert_eq!(
                FloatFormat::BINARY16.from_f64(x),
                Some(u64::from(want)),
                "{x}"
            );
        }
        assert_eq!(FloatFormat::E4M3.from_f64(f64::NAN), Some(0x7c));
        assert_eq!(FloatFormat::E4M3FNUZ.from_f64(f64::NAN), Some(0x80));
        assert_eq!(FloatFormat::E4M3FNUZ.from_f64(-0.0), Some(0));
        assert_eq!(FloatFormat::E4M3FNUZ.from_f64(f64::INFINITY), None);
        assert_eq!(FloatFormat::E2M1FN.from_f64(f64::NAN), None);
        assert_eq!(FloatFormat::E2M1FN.from_f64(-6.0), Some(0b1111));
        assert_eq!(FloatFormat::E2M1FN.from_f64(100.0), None);
        assert_eq!(
            FloatFormat::E2M1FN.from_f64(2.5),
            Some(0b0100),
            "2.5 ties to even 2"
        );
        assert_eq!(FloatFormat::E8M0FNU.from_f64(0.25), Some(125));
        assert_eq!(FloatFormat::E8M0FNU.from_f64(-1.0), None);
        assert_eq!(FloatFormat::E8M0FNU.from_f64(0.0), None);
    }
}
