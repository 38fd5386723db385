//! The text normalizer of the text strategies (`ExactMatch`, `Contains`, `ContainsFacts`),
//! applied to texts already in NFKC form, with character rules given by the caller.
//!
//! The rules are per character: each character maps to a replacement (its case folding, with
//! punctuation and whitespace already written as a space), and runs of spaces become one
//! space, trimmed at both ends. The caller derives the rules from Python's own `unicodedata`
//! and `str` methods, so the result is the Python normalizer's under whatever Unicode version
//! the running Python has; this module holds no Unicode data.

/// The rules of one normalizer: `ascii[c]` is the ASCII character `c` maps to (a space for
/// whitespace and dropped punctuation); other characters are looked up by the caller.
pub struct Rules<'a> {
    pub ascii: &'a [u8; 128],
}

/// Normalize `text` into `out` (cleared first). `lookup(c)` gives the replacement of a
/// non-ASCII character, or `None` when the caller has no rule for it yet: the first such
/// character is returned as `Err`, and `out` is then unspecified.
pub fn normalize_into<'t, F>(
    text: &str,
    rules: &Rules<'_>,
    mut lookup: F,
    out: &mut String,
) -> Result<(), char>
where
    F: FnMut(char) -> Option<&'t str>,
{
    out.clear();
    if text.is_ascii() {
        // Fast path, without branches: write each mapped byte, and advance past it unless it
        // is a space after a space (or at the start); a last space is then cut.
        let mut buf = std::mem::take(out).into_bytes();
        buf.resize(text.len(), 0);
        let mut kept = 0;
        let mut after_space = true;
        for &b in text.as_bytes() {
            let m = rules.ascii[(b & 0x7f) as usize];
            let space = m == b' ';
            buf[kept] = m;
            kept += usize::from(!(space && after_space));
            after_space = space;
        }
        if kept > 0 && buf[kept - 1] == b' ' {
            kept -= 1;
        }
        buf.truncate(kept);
        // the binding checks that the rules are ASCII, so this cannot fail
        *out = String::from_utf8(buf).unwrap_or_default();
        return Ok(());
    }
    let mut gap = false; // a space is owed before the next non-space character
    for c in text.chars() {
        if c.is_ascii() {
            push(out, rules.ascii[c as usize] as char, &mut gap);
        } else {
            let replacement = lookup(c).ok_or(c)?;
            for r in replacement.chars() {
                push(out, r, &mut gap);
            }
        }
    }
    Ok(())
}

#[inline]
fn push(out: &mut String, c: char, gap: &mut bool) {
    if c == ' ' {
        *gap = !out.is_empty();
    } else {
        if *gap {
            out.push(' ');
            *gap = false;
        }
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> [u8; 128] {
        let mut t = [0u8; 128];
        for (i, v) in t.iter_mut().enumerate() {
            let c = i as u8;
            *v = if c.is_ascii_whitespace() || c == 0x0b || c == b'!' || c == b',' {
                b' '
            } else {
                c.to_ascii_lowercase()
            };
        }
        t
    }

    fn run(text: &str) -> Result<String, char> {
        let table = rules();
        let mut out = String::new();
        let lookup = |c: char| match c {
            'Ä' => Some("ä"),
            'ß' => Some("ss"),
            '\u{3000}' => Some(" "),
            '¡' => Some(" "),
            _ => None,
        };
        normalize_into(text, &Rules { ascii: &table }, lookup, &mut out).map(|_| out)
    }

    #[test]
    fn collapses_and_trims_spaces() {
        assert_eq!(run("  Hello,\t World!  ").unwrap(), "hello world");
        assert_eq!(run("").unwrap(), "");
        assert_eq!(run(" ! , ").unwrap(), "");
    }

    #[test]
    fn maps_non_ascii_through_the_lookup() {
        assert_eq!(run("¡Straße\u{3000}ÄB!").unwrap(), "strasse äb");
        assert_eq!(run("x\u{3000}\u{3000}y").unwrap(), "x y");
    }

    #[test]
    fn reports_the_first_unknown_character() {
        assert_eq!(run("ok é ü"), Err('é'));
    }
}
