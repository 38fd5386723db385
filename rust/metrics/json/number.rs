//! Number literals as values: exact decimals (value mode), or Python's int and float (strict
//! mode), with the digit-string arithmetic that keeps any exponent exact.

use super::Numbers;

/// A power of ten: small ones as `i64`, any other as sign and decimal digits (canonical: `Big`
/// only when the value does not fit in an `i64`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Exp {
    Small(i64),
    Big { neg: bool, digits: Box<[u8]> },
}

impl Exp {
    /// Exponent from its literal digits (no sign) and sign, plus a small adjustment.
    fn from_literal(neg: bool, digits: &[u8], delta: i64) -> Exp {
        if digits.len() <= 18 {
            let v = digits
                .iter()
                .fold(0i64, |acc, &d| acc * 10 + (d - b'0') as i64);
            let v = if neg { -v } else { v };
            if let Some(e) = v.checked_add(delta) {
                return Exp::Small(e);
            }
        }
        let digits: Vec<u8> = digits.iter().copied().skip_while(|&d| d == b'0').collect();
        let mut mag: Vec<u8> = digits;
        let mut neg = neg && !mag.is_empty();
        // value = (neg ? -mag : mag) + delta, computed on digit strings.
        let (dneg, dmag) = (delta < 0, delta.unsigned_abs().to_string().into_bytes());
        if mag.is_empty() {
            mag = dmag;
            neg = dneg;
        } else if neg == dneg {
            mag = add_digits(&mag, &dmag);
        } else if cmp_digits(&mag, &dmag) != std::cmp::Ordering::Less {
            mag = sub_digits(&mag, &dmag);
        } else {
            mag = sub_digits(&dmag, &mag);
            neg = dneg;
        }
        let mag: Vec<u8> = mag.into_iter().skip_while(|&d| d == b'0').collect();
        if mag.is_empty() {
            return Exp::Small(0);
        }
        // Small exactly when the value fits in an i64, so that each exponent has one form.
        if mag.len() <= 19 {
            let v: i128 = mag.iter().fold(0, |acc, &d| acc * 10 + (d - b'0') as i128);
            if let Ok(e) = i64::try_from(if neg { -v } else { v }) {
                return Exp::Small(e);
            }
        }
        Exp::Big {
            neg,
            digits: mag.into_boxed_slice(),
        }
    }

    /// This exponent plus `delta`, as text.
    pub(super) fn text_plus(&self, delta: i64) -> (bool, String) {
        let e = match self {
            Exp::Small(v) => {
                let s = v.unsigned_abs().to_string();
                Exp::from_literal(*v < 0, s.as_bytes(), delta)
            }
            Exp::Big { neg, digits } => Exp::from_literal(*neg, digits, delta),
        };
        match e {
            Exp::Small(v) => (v < 0, v.unsigned_abs().to_string()),
            Exp::Big { neg, digits } => (neg, String::from_utf8_lossy(&digits).into_owned()),
        }
    }
}

fn cmp_digits(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn add_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut i, mut j, mut carry) = (a.len(), b.len(), 0u8);
    while i > 0 || j > 0 || carry > 0 {
        let x = if i > 0 { a[i - 1] - b'0' } else { 0 };
        let y = if j > 0 { b[j - 1] - b'0' } else { 0 };
        let s = x + y + carry;
        out.push(b'0' + s % 10);
        carry = s / 10;
        i = i.saturating_sub(1);
        j = j.saturating_sub(1);
    }
    out.reverse();
    out
}

/// a − b for a ≥ b.
fn sub_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let (mut i, mut j, mut borrow) = (a.len(), b.len(), 0i8);
    while i > 0 {
        let x = (a[i - 1] - b'0') as i8;
        let y = if j > 0 { (b[j - 1] - b'0') as i8 } else { 0 };
        let mut d = x - y - borrow;
        borrow = 0;
        if d < 0 {
            d += 10;
            borrow = 1;
        }
        out.push(b'0' + d as u8);
        i -= 1;
        j = j.saturating_sub(1);
    }
    out.reverse();
    out
}

/// A digit string without leading or trailing zeros, and a power of ten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Digits {
    Small(u128),
    Big(Box<[u8]>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Number {
    /// Exact decimal: (-1)^neg × digits × 10^exp; zero is `Small(0)`, exp 0, not negative.
    Decimal { neg: bool, digits: Digits, exp: Exp },
    /// An integer literal read exactly (strict mode); zero is never negative.
    Int { neg: bool, digits: Digits },
    /// A non-integer literal read as binary64 (strict mode), compared by bits.
    Float(u64),
}

/// The value of a number literal that [`Parser::number`] accepted, in the form `numbers`
/// compares.
pub(super) fn number_value(literal: &[u8], numbers: Numbers) -> Number {
    let neg = literal[0] == b'-';
    let body = &literal[neg as usize..];
    let int_len = body.iter().take_while(|d| d.is_ascii_digit()).count();
    let int_part = &body[..int_len];
    let mut rest = &body[int_len..];
    let mut frac: &[u8] = &[];
    if rest.first() == Some(&b'.') {
        let n = rest[1..].iter().take_while(|d| d.is_ascii_digit()).count();
        frac = &rest[1..1 + n];
        rest = &rest[1 + n..];
    }
    let has_exp = !rest.is_empty();
    let (exp_neg, exp_digits) = match rest.get(1) {
        Some(b'-') => (true, &rest[2..]),
        Some(b'+') => (false, &rest[2..]),
        _ => (false, rest.get(1..).unwrap_or(&[])),
    };
    match numbers {
        Numbers::Strict if frac.is_empty() && !has_exp => Number::Int {
            neg: neg && int_part.iter().any(|&d| d != b'0'),
            digits: make_digits(int_part.iter().copied()),
        },
        Numbers::Strict => {
            // Rust's parse rounds correctly, like Python's float(); a literal is ASCII.
            let f: f64 = std::str::from_utf8(literal)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(f64::NAN);
            Number::Float(f.to_bits())
        }
        Numbers::Value => decimal(neg, int_part, frac, exp_neg, exp_digits),
    }
}

fn make_digits(it: impl Iterator<Item = u8> + Clone) -> Digits {
    let mut it = it.skip_while(|&d| d == b'0');
    let mut v = 0u128;
    let mut count = 0usize;
    for d in it.by_ref() {
        v = v * 10 + (d - b'0') as u128;
        count += 1;
        if count == 38 {
            break;
        }
    }
    match it.next() {
        None => Digits::Small(v),
        Some(next) => {
            // More than 38 digits: keep them all as text.
            let mut digits = v.to_string().into_bytes();
            digits.push(next);
            digits.extend(it);
            Digits::Big(digits.into_boxed_slice())
        }
    }
}

/// The one representation of zero, whatever its sign or exponent.
fn decimal_zero() -> Number {
    Number::Decimal {
        neg: false,
        digits: Digits::Small(0),
        exp: Exp::Small(0),
    }
}

/// `v` without its trailing decimal zeros, and how many there were.
fn strip_trailing_zeros(v: u128) -> (u128, i64) {
    // In u64 arithmetic when the value fits: u128 division is a library call.
    if let Ok(mut x) = u64::try_from(v) {
        let mut trail = 0;
        while x % 10 == 0 {
            x /= 10;
            trail += 1;
        }
        return (x as u128, trail);
    }
    let (mut x, mut trail) = (v, 0);
    while x % 10 == 0 {
        x /= 10;
        trail += 1;
    }
    (x, trail)
}

fn decimal(neg: bool, int_part: &[u8], frac: &[u8], exp_neg: bool, exp_digits: &[u8]) -> Number {
    if int_part.len() + frac.len() <= 38 {
        // Common case: every digit fits in a u128; strip the trailing zeros arithmetically.
        let v = int_part
            .iter()
            .chain(frac)
            .fold(0u128, |acc, &d| acc * 10 + (d - b'0') as u128);
        if v == 0 {
            return decimal_zero();
        }
        let (v, trail) = strip_trailing_zeros(v);
        return Number::Decimal {
            neg,
            digits: Digits::Small(v),
            exp: Exp::from_literal(exp_neg, exp_digits, trail - frac.len() as i64),
        };
    }
    let all = int_part.iter().chain(frac.iter()).copied();
    let lead = all.clone().take_while(|&d| d == b'0').count();
    let total = int_part.len() + frac.len();
    if lead == total {
        return decimal_zero();
    }
    let trail = all.clone().rev().take_while(|&d| d == b'0').count();
    let sig = all.skip(lead).take(total - lead - trail);
    Number::Decimal {
        neg,
        digits: make_digits(sig),
        exp: Exp::from_literal(exp_neg, exp_digits, trail as i64 - frac.len() as i64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::json::testing::*;

    #[test]
    fn value_mode_numbers() {
        let v = Numbers::Value;
        assert!(eq("1", "1.0", v));
        assert!(eq("1", "1e0", v));
        assert!(eq("1", "0.1e1", v));
        assert!(eq("100", "1E2", v));
        assert!(eq("-0", "0.0", v));
        assert!(eq("0", "0e99999999999999999999", v));
        assert!(eq(
            "1e9999999999999999999999999",
            "10e9999999999999999999999998",
            v
        ));
        assert!(!eq(
            "1e9999999999999999999999999",
            "1e9999999999999999999999998",
            v
        ));
        assert!(eq(
            "1e-99999999999999999999",
            "0.1e-99999999999999999998",
            v
        ));
        assert_eq!(
            canon("12e99999999999999999999", v),
            "1.2e+100000000000000000000"
        );
        assert!(!eq("9007199254740993", "9007199254740992", v));
        assert!(!eq("true", "1", v));
        assert_eq!(
            canon("[1.50, 0.001, 1e30, -2.5e-9, 0]", v),
            "[1.5,0.001,1e+30,-2.5e-9,0]"
        );
        let big = "123456789012345678901234567890123456789012345";
        assert_eq!(
            canon(big, v),
            "1.23456789012345678901234567890123456789012345e+44"
        );
    }

    #[test]
    fn exponents_near_the_i64_limits_have_one_form() {
        let v = Numbers::Value;
        assert!(eq("10e999999999999999999", "1e1000000000000000000", v));
        assert!(eq("-10e999999999999999999", "-1e1000000000000000000", v));
        assert!(eq("1e-1000000000000000000", "0.1e-999999999999999999", v));
        assert!(eq("1e9223372036854775807", "10e9223372036854775806", v));
        assert!(eq("1e9223372036854775808", "10e9223372036854775807", v));
        assert!(eq("1e-9223372036854775808", "0.1e-9223372036854775807", v));
        assert!(eq("1e-9223372036854775809", "0.1e-9223372036854775808", v));
        assert!(!eq("1e9223372036854775808", "1e9223372036854775807", v));
        for (e, want) in [
            ("9223372036854775807", Exp::Small(i64::MAX)),
            ("0009223372036854775807", Exp::Small(i64::MAX)),
        ] {
            assert_eq!(Exp::from_literal(false, e.as_bytes(), 0), want);
        }
        assert_eq!(
            Exp::from_literal(true, b"9223372036854775808", 0),
            Exp::Small(i64::MIN)
        );
        assert!(matches!(
            Exp::from_literal(false, b"9223372036854775808", 0),
            Exp::Big { .. }
        ));
        for (text, want) in [
            ("1e9223372036854775807", "1e+9223372036854775807"),
            ("-1e9223372036854775807", "-1e+9223372036854775807"),
            ("12e9223372036854775807", "1.2e+9223372036854775808"),
            ("1e-9223372036854775808", "1e-9223372036854775808"),
            ("123e-9223372036854775808", "1.23e-9223372036854775806"),
            ("[10e999999999999999999]", "[1e+1000000000000000000]"),
        ] {
            assert_eq!(canon(text, v), want, "{text}");
        }
    }

    #[test]
    fn strict_mode_follows_python_json() {
        let s = Numbers::Strict;
        assert!(!eq("1", "1.0", s));
        assert!(eq("1.0", "1e0", s));
        assert_eq!(
            canon("[1.0, 1e16, 1e15, 0.0001, 0.00001, -0.0, 1e400, -0]", s),
            "[1.0,1e+16,1000000000000000.0,0.0001,1e-05,-0.0,Infinity,0]"
        );
    }
}
