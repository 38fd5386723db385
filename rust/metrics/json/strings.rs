//! Reading a JSON string: escapes decoded, lone surrogates kept, the plain runs between them
//! found eight bytes at a time, and the stop flag polled through a long string.

use std::borrow::Cow;

use super::lex::{PResult, Parser, STOPPED};
use crate::metrics::halt::CHECK_EVERY;
use crate::metrics::text::push_utf8;

impl<'a> Parser<'a, '_> {
    fn hex4(&mut self) -> PResult<u32> {
        let s = self
            .src
            .get(self.pos..self.pos + 4)
            .ok_or((self.pos, "invalid \\u escape: four hex digits needed"))?;
        let mut v = 0u32;
        for &b in s {
            let d = (b as char)
                .to_digit(16)
                .ok_or((self.pos, "invalid \\u escape: four hex digits needed"))?;
            v = v * 16 + d;
        }
        self.pos += 4;
        Ok(v)
    }

    pub(super) fn string(&mut self) -> PResult<Cow<'a, [u8]>> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        // Fast path: no escapes, borrow the bytes. Plain bytes are skipped eight at a time.
        self.pos = self.plain_end(self.pos)?;
        while let Some(&b) = self.src.get(self.pos) {
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(Cow::Borrowed(&self.src[start..self.pos - 1]));
                }
                b'\\' => break,
                0x00..=0x1F => return Err((self.pos, "unescaped control character in a string")),
                _ => self.pos += 1,
            }
        }
        let mut buf = self.src[start..self.pos].to_vec();
        loop {
            let Some(&b) = self.src.get(self.pos) else {
                return Err((open, "unterminated string"));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(Cow::Owned(buf));
                }
                0x00..=0x1F => return Err((self.pos, "unescaped control character in a string")),
                b'\\' => {
                    self.poll()?;
                    let esc_pos = self.pos;
                    self.pos += 1;
                    let Some(&e) = self.src.get(self.pos) else {
                        return Err((open, "unterminated string"));
                    };
                    self.pos += 1;
                    let ch = match e {
                        b'"' => b'"',
                        b'\\' => b'\\',
                        b'/' => b'/',
                        b'b' => 0x08,
                        b'f' => 0x0C,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..=0xDBFF).contains(&cp)
                                && self.src[self.pos..].starts_with(b"\\u")
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let low = self.hex4()?;
                                if (0xDC00..=0xDFFF).contains(&low) {
                                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                                } else {
                                    self.pos = save;
                                }
                            }
                            push_utf8(cp, &mut buf);
                            continue;
                        }
                        _ => return Err((esc_pos, "invalid escape in a string")),
                    };
                    buf.push(ch);
                }
                _ => {
                    let end = self.plain_end(self.pos + 1)?;
                    buf.extend_from_slice(&self.src[self.pos..end]);
                    self.pos = end;
                }
            }
        }
    }

    /// [`skip_plain_string_bytes`] from `i`, [`CHECK_EVERY`] bytes at a time, polling the stop
    /// flag in between.
    #[inline]
    fn plain_end(&mut self, mut i: usize) -> PResult<usize> {
        while self.src.len() - i > CHECK_EVERY {
            let end = i + CHECK_EVERY;
            let j = skip_plain_string_bytes(&self.src[..end], i);
            if j + 8 <= end {
                return Ok(j); // stopped at a byte that may end the run
            }
            i = j;
            if self.stop.is_raised() {
                return Err(STOPPED);
            }
        }
        Ok(skip_plain_string_bytes(self.src, i))
    }
}

/// The first position at or after `i` that may end a string's plain run (a quote, a backslash
/// or a control character), found eight bytes at a time; the last few bytes are left to the
/// caller's byte loop.
#[inline]
fn skip_plain_string_bytes(src: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = src.get(i..i + 8) {
        let v = u64::from_le_bytes(chunk.try_into().unwrap());
        // A byte's high bit is set where it is zero after the xor (quote, backslash) or below
        // 0x20; the lowest flagged byte is always a true one.
        let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
        let quote = has_zero(v ^ (ONES * b'"' as u64));
        let backslash = has_zero(v ^ (ONES * b'\\' as u64));
        let control = v.wrapping_sub(ONES * 0x20) & !v & HIGHS;
        let found = quote | backslash | control;
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

#[cfg(test)]
mod tests {
    use crate::metrics::json::testing::*;
    use crate::metrics::json::Numbers;

    #[test]
    fn strings_scan_every_offset() {
        // The eight-byte scan must stop at a quote, backslash or control byte wherever it falls.
        for len in 0..40 {
            for at in 0..=len {
                let plain = "é".repeat(len / 2) + &"x".repeat(len % 2);
                let (head, tail) = plain.split_at(
                    plain
                        .char_indices()
                        .nth(at / 2)
                        .map_or(plain.len(), |(i, _)| i),
                );
                let escaped = format!("\"{head}\\n{tail}\"");
                assert_eq!(
                    canon(&escaped, Numbers::Value),
                    format!("\"{head}\\n{tail}\""),
                    "{escaped:?}"
                );
                let raw_control = format!("\"{head}\u{1}{tail}\"");
                let e = parse(raw_control.as_bytes(), Numbers::Value).unwrap_err();
                assert_eq!(e.column, head.chars().count() + 2, "{raw_control:?}");
                let early_quote = format!("\"{head}\"{tail}\"");
                assert!(parse(early_quote.as_bytes(), Numbers::Value).is_err());
            }
        }
    }
}
