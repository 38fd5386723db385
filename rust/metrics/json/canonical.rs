//! Writing a canonical tree out: compact, keys sorted, numbers in the mode's canonical form.

use super::number::{number_value, Digits, Exp, Number};
use super::{Document, Node};
use crate::metrics::halt::{Context, Run, CHECK_EVERY};

impl Document<'_> {
    /// The canonical text: compact, keys sorted, numbers in the mode's canonical form. Two
    /// documents are equal exactly when their canonical texts are equal. `stop` is polled every
    /// [`CHECK_EVERY`] bytes written.
    pub fn canonical(&self, stop: &Context) -> Run<String> {
        let mut w = Writer {
            out: Vec::new(),
            stop,
            next_check: 0,
        };
        self.write_node(&self.root, &mut w)?;
        // Every byte written is ASCII or copied from generalized UTF-8 with surrogates escaped.
        Ok(String::from_utf8(w.out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    fn write_node(&self, node: &Node<'_>, w: &mut Writer<'_>) -> Run<()> {
        let out = &mut w.out;
        match node {
            Node::Null => out.extend_from_slice(b"null"),
            Node::Bool(true) => out.extend_from_slice(b"true"),
            Node::Bool(false) => out.extend_from_slice(b"false"),
            Node::Num(literal) => write_number(&number_value(literal, self.numbers), out),
            Node::Str(s) => write_string(s, w)?,
            Node::Arr(span) => {
                out.push(b'[');
                for (i, item) in span.of(&self.items).iter().enumerate() {
                    w.poll()?;
                    if i > 0 {
                        w.out.push(b',');
                    }
                    self.write_node(item, w)?;
                }
                w.out.push(b']');
            }
            Node::Obj(span) => {
                out.push(b'{');
                for (i, (k, v)) in span.of(&self.members).iter().enumerate() {
                    w.poll()?;
                    if i > 0 {
                        w.out.push(b',');
                    }
                    write_string(k, w)?;
                    w.out.push(b':');
                    self.write_node(v, w)?;
                }
                w.out.push(b'}');
            }
        }
        Ok(())
    }
}

/// The canonical text being written, and when next to poll the stop flag.
struct Writer<'s> {
    out: Vec<u8>,
    stop: &'s Context,
    next_check: usize,
}

impl Writer<'_> {
    /// `Err` once the stop flag is raised, looked at every [`CHECK_EVERY`] bytes written.
    #[inline]
    fn poll(&mut self) -> Run<()> {
        if self.out.len() >= self.next_check {
            self.next_check = self.out.len() + CHECK_EVERY;
            self.stop.check()?;
        }
        Ok(())
    }
}

fn write_string(s: &[u8], w: &mut Writer<'_>) -> Run<()> {
    w.poll()?;
    let out = &mut w.out;
    out.push(b'"');
    let mut i = 0;
    let mut next_check = CHECK_EVERY;
    while i < s.len() {
        if i >= next_check {
            next_check = i + CHECK_EVERY;
            w.stop.check()?;
        }
        let b = s[i];
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            0x00..=0x1F => out.extend_from_slice(format!("\\u{:04x}", b).as_bytes()),
            // A lone surrogate (ED A0..BF xx) cannot stand in UTF-8 text: escape it.
            0xED if s.get(i + 1).is_some_and(|&n| n >= 0xA0) && i + 2 < s.len() => {
                let cp = ((b as u32 & 0x0F) << 12)
                    | ((s[i + 1] as u32 & 0x3F) << 6)
                    | (s[i + 2] as u32 & 0x3F);
                out.extend_from_slice(format!("\\u{:04x}", cp).as_bytes());
                i += 3;
                continue;
            }
            _ => out.push(b),
        }
        i += 1;
    }
    out.push(b'"');
    Ok(())
}

fn digits_string(d: &Digits) -> String {
    match d {
        Digits::Small(v) => v.to_string(),
        Digits::Big(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

fn write_number(n: &Number, out: &mut Vec<u8>) {
    match n {
        Number::Int { neg, digits } => {
            if *neg {
                out.push(b'-');
            }
            out.extend_from_slice(digits_string(digits).as_bytes());
        }
        Number::Float(bits) => {
            out.extend_from_slice(python_float_repr(f64::from_bits(*bits)).as_bytes())
        }
        Number::Decimal { neg, digits, exp } => {
            if *neg {
                out.push(b'-');
            }
            let d = digits_string(digits);
            out.extend_from_slice(decimal_text(&d, exp).as_bytes());
        }
    }
}

/// Text of digits × 10^exp (digits without leading or trailing zeros, or "0").
fn decimal_text(d: &str, exp: &Exp) -> String {
    if d == "0" {
        return "0".to_string();
    }
    let n = d.len() as i64;
    if let Exp::Small(exp) = *exp {
        // Where the decimal point falls; i128, as an exponent may be any i64.
        let point = n as i128 + exp as i128;
        if exp >= 0 && point <= 21 {
            return format!("{d}{}", "0".repeat(exp as usize));
        }
        if exp < 0 && point > -6 && point <= 21 {
            return if point > 0 {
                format!("{}.{}", &d[..point as usize], &d[point as usize..])
            } else {
                format!("0.{}{d}", "0".repeat((-point) as usize))
            };
        }
    }
    let mantissa = if n > 1 {
        format!("{}.{}", &d[..1], &d[1..])
    } else {
        d.to_string()
    };
    let (neg, e) = exp.text_plus(n - 1);
    format!("{mantissa}e{}{e}", if neg { '-' } else { '+' })
}

/// Python's `repr(float)` as `json.dumps` writes it (`Infinity` for infinities).
pub fn python_float_repr(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if x.is_nan() {
        return "NaN".to_string();
    }
    // `{:e}` gives the shortest digits that round-trip; when two such digit strings are equally
    // close, Python keeps the even last digit, which the correctly rounded `{:.N$e}` gives.
    let shortest = format!("{:e}", x.abs());
    let n_digits = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.chars().filter(char::is_ascii_digit).count());
    let exact = format!("{:.*e}", n_digits.saturating_sub(1), x.abs());
    let sci = if exact.parse::<f64>() == Ok(x.abs()) {
        exact
    } else {
        shortest
    };
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let n = digits.len() as i64;
    let point = exp + 1;
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let body = if !(-4 < point && point <= 16) {
        let m = if n > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        let e = point - 1;
        format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
    } else if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point >= n {
        format!("{digits}{}.0", "0".repeat((point - n) as usize))
    } else {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::json::testing::*;
    use crate::metrics::json::Numbers;

    #[test]
    fn float_repr_breaks_ties_to_even() {
        assert_eq!(python_float_repr(1e15 + 0.25), "1000000000000000.2");
        assert_eq!(python_float_repr(0.1), "0.1");
        assert_eq!(python_float_repr(5e-324), "5e-324");
    }

    #[test]
    fn strings_unescape_and_escape() {
        let v = Numbers::Value;
        assert!(eq(r#""caf\u00e9""#, "\"café\"", v));
        assert!(eq(r#""\ud83d\ude00""#, "\"😀\"", v));
        assert_eq!(
            canon(r#""a\"\\\n\u0001\ud800/""#, v),
            r#""a\"\\\n\u0001\ud800/""#
        );
    }
}
