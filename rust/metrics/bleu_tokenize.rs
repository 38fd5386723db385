//! The tokenizers of sacrebleu's BLEU, each applied (as sacrebleu does) to `text.rstrip()`,
//! after an optional `str.lower()`; tokens are then the pieces of `str.split()`.
//!
//! * `13a` (the default; mteval-v13a as WMT uses it): remove `<skipped>`, join `-\n`, turn
//!   `\n` into a space, unescape `&quot;` `&amp;` `&lt;` `&gt;` (in that order, each a plain
//!   `str.replace`), then four regular-expression passes over ` text `: every ASCII symbol but
//!   `'` `,` `-` `.` is cut out; `.` and `,` are cut off unless preceded by a digit, and unless
//!   followed by one; `-` is cut off after a digit.
//! * `intl` (mteval-v14's international tokenizer): cut punctuation (`\p{P}`) off a preceding
//!   non-number, then off a following non-number, then cut out every symbol (`\p{S}`); the
//!   classes are those of the `regex` module sacrebleu uses (see `intl_tables.rs`).
//! * `none`: no tokenization beyond the whitespace split.
//!
//! Each regular-expression pass is `re.sub` semantics: matches are found left to right and do
//! not overlap. The `13a` passes run on UTF-8 bytes, which gives the same result as on code
//! points because every pattern byte is ASCII and no byte of a multi-byte character is.

use super::halt::{Context, Run, CHECK_EVERY};
use super::intl_tables::CLASS_RANGES;
use super::polled_text::{decode_polling, pieces, py_lower_polling};
use super::text::{
    decode_into, is_ascii_py_space, is_py_space, next_code_point, push_utf8, TokenKey,
};

/// How BLEU cuts text into tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BleuTokenizer {
    Tok13a,
    Intl,
    None,
}

const NUMBER: u8 = 1;
const PUNCT: u8 = 2;
const SYMBOL: u8 = 3;

const ASCII_CLASS: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut k = 0;
    while k < CLASS_RANGES.len() {
        let (lo, hi, class) = CLASS_RANGES[k];
        let mut cp = lo;
        while cp <= hi && cp < 128 {
            table[cp as usize] = class;
            cp += 1;
        }
        k += 1;
    }
    table
};

/// The `regex` module's class of a code point: number, punctuation, symbol or none (0).
#[inline]
fn class(cp: u32) -> u8 {
    if cp < 128 {
        return ASCII_CLASS[cp as usize];
    }
    match CLASS_RANGES.binary_search_by(|&(lo, hi, _)| {
        if hi < cp {
            std::cmp::Ordering::Less
        } else if lo > cp {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }) {
        Ok(i) => CLASS_RANGES[i].2,
        Err(_) => 0,
    }
}

/// Reusable buffers.
#[derive(Default)]
pub struct Scratch {
    cps: Vec<u32>,
    lower: Vec<u32>,
    text: Vec<u8>,
    a: Vec<u8>,
    b: Vec<u8>,
    ca: Vec<u32>,
    cb: Vec<u32>,
}

/// The length of `text` once trailing Python whitespace is removed (`str.rstrip()`).
fn rstrip_len(text: &[u8]) -> usize {
    let mut end = text.len();
    while end > 0 {
        let last = text[end - 1];
        if last < 0x80 {
            if !is_ascii_py_space(last) {
                break;
            }
            end -= 1;
            continue;
        }
        let mut start = end - 1;
        while start > 0 && end - start < 4 && (text[start] & 0xC0) == 0x80 {
            start -= 1;
        }
        let (cp, len) = next_code_point(text, start);
        if start + len != end || !is_py_space(cp) {
            break;
        }
        end = start;
    }
    end
}

/// Python's `src.replace(pat, with)` for an ASCII `pat`, into `dst`.
fn replace(src: &[u8], pat: &[u8], with: &[u8], dst: &mut Vec<u8>) {
    dst.clear();
    let mut i = 0;
    while i < src.len() {
        if src[i] == pat[0] && src[i..].starts_with(pat) {
            dst.extend_from_slice(with);
            i += pat.len();
        } else {
            dst.push(src[i]);
            i += 1;
        }
    }
}

/// Apply `replace` in place through the spare buffer when `pat` occurs at all.
fn replace_in(buf: &mut Vec<u8>, spare: &mut Vec<u8>, pat: &[u8], with: &[u8]) {
    if buf.windows(pat.len()).any(|w| w == pat) {
        replace(buf, pat, with, spare);
        std::mem::swap(buf, spare);
    }
}

/// The ASCII symbols 13a's first pass surrounds with spaces: `{|}~ [\]^_` ` space!"#$%& ()*+
/// :;<=>?@ /` (every ASCII symbol but `'` `,` `-` `.`).
const CUT_13A: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] =
            matches!(b, 0x7B..=0x7E | 0x5B..=0x60 | 0x20..=0x26 | 0x28..=0x2B | 0x3A..=0x40 | 0x2F);
        b += 1;
    }
    t
};

#[inline(always)]
fn is_dot(c: u8) -> bool {
    c == b'.' || c == b','
}

/// `dst` cleared and sized to `len` bytes, to be written by index (and truncated after).
#[inline]
fn presized(dst: &mut Vec<u8>, len: usize) -> &mut [u8] {
    dst.clear();
    dst.resize(len, b' ');
    dst
}

/// 13a's `([^0-9])([\.,])` → `\1 \2 ` from `src` into `dst`. Matches do not overlap: the
/// second character of one cannot start the next.
fn cut_dots_after_non_digits(src: &[u8], dst: &mut Vec<u8>) {
    let out = presized(dst, src.len() * 2 + 1);
    let (mut k, mut free) = (0, 0);
    for (j, &c) in src.iter().enumerate() {
        if j >= 1 && is_dot(c) && j > free && !src[j - 1].is_ascii_digit() {
            out[k] = b' ';
            out[k + 1] = c;
            out[k + 2] = b' ';
            k += 3;
            free = j + 1;
        } else {
            out[k] = c;
            k += 1;
        }
    }
    dst.truncate(k);
}

/// 13a's `([\.,])([^0-9])` → ` \1 \2`.
fn cut_dots_before_non_digits(src: &[u8], dst: &mut Vec<u8>) {
    let out = presized(dst, src.len() * 2 + 1);
    let (mut k, mut j) = (0, 0);
    while j < src.len() {
        let c = src[j];
        if is_dot(c) && j + 1 < src.len() && !src[j + 1].is_ascii_digit() {
            out[k] = b' ';
            out[k + 1] = c;
            out[k + 2] = b' ';
            out[k + 3] = src[j + 1];
            k += 4;
            j += 2;
        } else {
            out[k] = c;
            k += 1;
            j += 1;
        }
    }
    dst.truncate(k);
}

/// 13a's `([0-9])(-)` → `\1 \2 `.
fn cut_dashes_after_digits(src: &[u8], dst: &mut Vec<u8>) {
    let out = presized(dst, src.len() * 2 + 1);
    let (mut k, mut free) = (0, 0);
    for (j, &c) in src.iter().enumerate() {
        if j >= 1 && c == b'-' && j > free && src[j - 1].is_ascii_digit() {
            out[k] = b' ';
            out[k + 1] = b'-';
            out[k + 2] = b' ';
            k += 3;
            free = j + 1;
        } else {
            out[k] = c;
            k += 1;
        }
    }
    dst.truncate(k);
}

/// Spaces after the text, so that a token key can be read as one 16-byte load.
const KEY_PAD: usize = 16;

/// The 13a tokenization of `line` (already rstripped), its pieces left in `s.a` separated by
/// whitespace (and followed by [`KEY_PAD`] spaces).
fn tokenize_13a(line: &[u8], s: &mut Scratch, stop: &Context) -> Run<()> {
    let (a, b) = (&mut s.a, &mut s.b);
    let (mut dots, mut dashes, mut special) = (false, false, false);
    for &c in line {
        dots |= is_dot(c);
        dashes |= c == b'-';
        special |= matches!(c, b'<' | b'\n' | b'&');
    }
    let src: &[u8] = if special {
        a.clear();
        a.extend_from_slice(line);
        replace_in(a, b, b"<skipped>", b"");
        replace_in(a, b, b"-\n", b"");
        replace_in(a, b, b"\n", b" ");
        if a.contains(&b'&') {
            replace_in(a, b, b"&quot;", b"\"");
            replace_in(a, b, b"&amp;", b"&");
            replace_in(a, b, b"&lt;", b"<");
            replace_in(a, b, b"&gt;", b">");
        }
        std::mem::swap(a, b);
        stop.check()?;
        b
    } else {
        line
    };
    // ` line `, every cut symbol surrounded by spaces (a space stays one space: how many
    // spaces separate two characters changes no later match and no token).
    let out = presized(a, src.len() * 3 + 2);
    let mut k = 1;
    for (i, &c) in src.iter().enumerate() {
        if i % CHECK_EVERY == 0 {
            stop.check()?;
        }
        if CUT_13A[c as usize] && c != b' ' {
            out[k] = b' ';
            out[k + 1] = c;
            out[k + 2] = b' ';
            k += 3;
        } else {
            out[k] = c;
            k += 1;
        }
    }
    a.truncate(k + 1);
    if dots {
        stop.check()?;
        cut_dots_after_non_digits(a, b);
        stop.check()?;
        cut_dots_before_non_digits(b, a);
    }
    if dashes {
        stop.check()?;
        cut_dashes_after_digits(a, b);
        std::mem::swap(a, b);
    }
    a.extend_from_slice(&[b' '; KEY_PAD]);
    stop.check()
}

/// The intl tokenization of `cps` (already rstripped), into `s.ca`.
fn tokenize_intl(cps: &[u32], s: &mut Scratch, stop: &Context) -> Run<()> {
    let (a, b) = (&mut s.ca, &mut s.cb);
    const SP: u32 = 0x20;
    // (\P{N})(\p{P}) -> "\1 \2 "
    a.clear();
    let (mut i, mut next_check) = (0, 0);
    while i < cps.len() {
        if i >= next_check {
            stop.check()?;
            next_check = i + CHECK_EVERY;
        }
        if i + 1 < cps.len() && class(cps[i]) != NUMBER && class(cps[i + 1]) == PUNCT {
            a.extend_from_slice(&[cps[i], SP, cps[i + 1], SP]);
            i += 2;
        } else {
            a.push(cps[i]);
            i += 1;
        }
    }
    // (\p{P})(\P{N}) -> " \1 \2"
    b.clear();
    let (mut i, mut next_check) = (0, 0);
    while i < a.len() {
        if i >= next_check {
            stop.check()?;
            next_check = i + CHECK_EVERY;
        }
        if i + 1 < a.len() && class(a[i]) == PUNCT && class(a[i + 1]) != NUMBER {
            b.extend_from_slice(&[SP, a[i], SP, a[i + 1]]);
            i += 2;
        } else {
            b.push(a[i]);
            i += 1;
        }
    }
    // (\p{S}) -> " \1 "
    a.clear();
    for (i, &c) in b.iter().enumerate() {
        if i % CHECK_EVERY == 0 {
            stop.check()?;
        }
        if class(c) == SYMBOL {
            a.extend_from_slice(&[SP, c, SP]);
        } else {
            a.push(c);
        }
    }
    stop.check()
}

/// The key of a token given as generalized UTF-8.
#[inline]
pub fn key_of_bytes(token: &[u8], cps: &mut Vec<u32>) -> TokenKey {
    if token.is_ascii() {
        TokenKey::of_ascii(token)
    } else {
        cps.clear();
        decode_into(token, cps);
        TokenKey::of(cps)
    }
}

/// Call `f` with each piece of `text.split()` (Python whitespace), as bytes.
#[inline]
pub fn for_each_word<'a>(text: &'a [u8], mut f: impl FnMut(&'a [u8])) {
    if text.is_ascii() {
        let mut start = usize::MAX;
        for (i, &c) in text.iter().enumerate() {
            if is_ascii_py_space(c) {
                if start != usize::MAX {
                    f(&text[start..i]);
                    start = usize::MAX;
                }
            } else if start == usize::MAX {
                start = i;
            }
        }
        if start != usize::MAX {
            f(&text[start..]);
        }
        return;
    }
    let mut start = None;
    let mut i = 0;
    while i < text.len() {
        let (space, len) = if text[i] < 0x80 {
            (is_ascii_py_space(text[i]), 1)
        } else {
            let (cp, len) = next_code_point(text, i);
            (is_py_space(cp), len)
        };
        if space {
            if let Some(s) = start.take() {
                f(&text[s..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
        i += len;
    }
    if let Some(s) = start {
        f(&text[s..]);
    }
}

/// The keys of the pieces of `text.split()`, appended to `out`. ASCII text is split and packed
/// in one pass (the key of an ASCII token of up to 15 bytes is those bytes, little-endian,
/// under its length: [`TokenKey::of_ascii`]'s layout).
fn push_word_keys(
    text: &[u8],
    cps: &mut Vec<u32>,
    out: &mut Vec<TokenKey>,
    stop: &Context,
) -> Run<()> {
    if !text.is_ascii() {
        // Pieces of about CHECK_EVERY bytes, each cut at an ASCII whitespace byte: no word
        // spans two pieces, so the words are those of the whole text.
        for piece in pieces(text, |&c| is_ascii_py_space(c)) {
            stop.check()?;
            for_each_word(piece, |w| out.push(key_of_bytes(w, cps)));
        }
        return Ok(());
    }
    let n = text.len();
    let (mut i, mut next_check) = (0, 0);
    loop {
        if i >= next_check {
            stop.check()?;
            next_check = i + CHECK_EVERY;
        }
        while i < n && is_ascii_py_space(text[i]) {
            i += 1;
        }
        if i == n {
            return Ok(());
        }
        let start = i;
        while i < n && !is_ascii_py_space(text[i]) {
            i += 1;
        }
        out.push(ascii_key(text, start, i));
    }
}

/// The key of the ASCII token `text[start..end]` ([`TokenKey::of_ascii`]), read as one 16-byte
/// load when the text runs on far enough.
#[inline(always)]
fn ascii_key(text: &[u8], start: usize, end: usize) -> TokenKey {
    let len = end - start;
    match text.get(start..start + 16) {
        Some(chunk) if len <= 15 => {
            let mut raw = [0u8; 16];
            raw.copy_from_slice(chunk);
            let k = u128::from_le_bytes(raw);
            TokenKey::Packed(k & ((1u128 << (8 * len)) - 1) | (len as u128) << 120)
        }
        _ => TokenKey::of_ascii(&text[start..end]),
    }
}

/// 13a on ASCII text with nothing to replace, in one pass: the four substitutions only insert
/// spaces, so each character's fate can be read off its neighbours.
///
/// * a cut symbol is a token of its own;
/// * `-` after a digit is a token of its own;
/// * in a run of `.`/`,`, the first is matched by `([^0-9])([\.,])` when the character before
///   the run is not a digit, and matching alternates along the run (a match takes the next
///   character); a matched one is cut out. An unmatched one is cut out too by
///   `([\.,])([^0-9])` unless it ends the run and a digit follows; then it stays joined to
///   that digit, and to the character before it only if it is the whole run (`3.5`).
fn tokens_13a_plain(src: &[u8], out: &mut Vec<TokenKey>, stop: &Context) -> Run<()> {
    let n = src.len();
    let mut start = usize::MAX;
    let mut prev_matched = false;
    for i in 0..n {
        if i % CHECK_EVERY == 0 {
            stop.check()?;
        }
        let c = src[i];
        if is_ascii_py_space(c) {
            if start != usize::MAX {
                out.push(ascii_key(src, start, i));
                start = usize::MAX;
            }
            continue;
        }
        let (before, after) = if CUT_13A[c as usize] {
            (true, true)
        } else if is_dot(c) {
            let prev_dot = i > 0 && is_dot(src[i - 1]);
            let matched = if prev_dot {
                !prev_matched
            } else {
                !(i > 0 && src[i - 1].is_ascii_digit())
            };
            prev_matched = matched;
            let next_dot = i + 1 < n && is_dot(src[i + 1]);
            let next_digit = i + 1 < n && src[i + 1].is_ascii_digit();
            if matched || next_dot || !next_digit {
                (true, true)
            } else {
                (prev_dot, false)
            }
        } else if c == b'-' && i > 0 && src[i - 1].is_ascii_digit() {
            (true, true)
        } else {
            (false, false)
        };
        if before && start != usize::MAX {
            out.push(ascii_key(src, start, i));
            start = usize::MAX;
        }
        if start == usize::MAX {
            start = i;
        }
        if after {
            out.push(ascii_key(src, start, i + 1));
            start = usize::MAX;
        }
    }
    if start != usize::MAX {
        out.push(ascii_key(src, start, n));
    }
    Ok(())
}

/// The BLEU tokens of `text`, in order, into `out` (cleared first).
pub fn tokens(
    text: &[u8],
    tokenizer: BleuTokenizer,
    lowercase: bool,
    s: &mut Scratch,
    out: &mut Vec<TokenKey>,
    stop: &Context,
) -> Run<()> {
    out.clear();
    let mut owned = std::mem::take(&mut s.text);
    let line: &[u8] = if lowercase {
        s.cps.clear();
        decode_polling(text, &mut s.cps, stop)?;
        s.lower.clear();
        py_lower_polling(&s.cps, &mut s.lower, stop)?;
        owned.clear();
        for part in s.lower.chunks(CHECK_EVERY) {
            stop.check()?;
            part.iter().for_each(|&c| push_utf8(c, &mut owned));
        }
        &owned
    } else {
        text
    };
    let line = &line[..rstrip_len(line)];
    stop.check()?;
    let done = match tokenizer {
        BleuTokenizer::None => push_word_keys(line, &mut s.cps, out, stop),
        BleuTokenizer::Tok13a => {
            if line.is_ascii() && !line.iter().any(|&c| matches!(c, b'<' | b'\n' | b'&')) {
                tokens_13a_plain(line, out, stop)
            } else {
                tokenize_13a(line, s, stop)
                    .and_then(|()| push_word_keys(&s.a, &mut s.cps, out, stop))
            }
        }
        BleuTokenizer::Intl => (|| {
            s.cps.clear();
            decode_polling(line, &mut s.cps, stop)?;
            let cps = std::mem::take(&mut s.cps);
            let cut = tokenize_intl(&cps, s, stop);
            s.cps = cps;
            cut?;
            let mut begin = None;
            for (i, &c) in s.ca.iter().enumerate() {
                if i % CHECK_EVERY == 0 {
                    stop.check()?;
                }
                if is_py_space(c) {
                    if let Some(b) = begin.take() {
                        out.push(TokenKey::of(&s.ca[b..i]));
                    }
                } else if begin.is_none() {
                    begin = Some(i);
                }
            }
            if let Some(b) = begin {
                out.push(TokenKey::of(&s.ca[b..]));
            }
            Ok(())
        })(),
    };
    s.text = owned;
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str, tokenizer: BleuTokenizer) -> Vec<String> {
        let (mut s, mut out) = (Scratch::default(), Vec::new());
        tokens(
            text.as_bytes(),
            tokenizer,
            false,
            &mut s,
            &mut out,
            &Context::new(),
        )
        .unwrap();
        out.iter()
            .map(|k| match k {
                TokenKey::Packed(p) => {
                    let (bytes, n) = TokenKey::packed_bytes(p);
                    String::from_utf8(bytes[..n].to_vec()).unwrap()
                }
                TokenKey::Long(v) => v.iter().map(|&c| char::from_u32(c).unwrap()).collect(),
            })
            .collect()
    }

    #[test]
    fn thirteen_a_like_mteval() {
        use BleuTokenizer::Tok13a as T;
        assert_eq!(words("Hello, world!", T), ["Hello", ",", "world", "!"]);
        assert_eq!(
            words("It costs $3,000.50.", T),
            ["It", "costs", "$", "3,000.50", "."]
        );
        assert_eq!(
            words("don't re-use 1990-2000", T),
            ["don't", "re-use", "1990", "-", "2000"]
        );
        assert_eq!(words("a.b,c", T), ["a", ".", "b", ",", "c"]);
        assert_eq!(words("x &amp;lt; y<skipped>z", T), ["x", "<", "yz"]);
        assert_eq!(words("co-\nop\nnext", T), ["coop", "next"]);
        assert_eq!(words("   ", T), Vec::<String>::new());
        assert_eq!(words("café... «ok»", T), ["café", ".", ".", ".", "«ok»"]);
    }

    #[test]
    fn intl_cuts_unicode_punctuation() {
        use BleuTokenizer::Intl as I;
        assert_eq!(
            words("«ok», 3.5 €!", I),
            ["«", "ok", "»", ",", "3.5", "€", "!"]
        );
        assert_eq!(words("year 2000.", I), ["year", "2000."]);
    }

    #[test]
    fn none_splits_on_python_whitespace() {
        assert_eq!(
            words("a\u{3000}b\u{85}c, d ", BleuTokenizer::None),
            ["a", "b", "c,", "d"]
        );
    }

    #[test]
    fn one_pass_13a_equals_the_four_substitutions() {
        // Random ASCII over the characters the rules look at.
        let alphabet = b"..,,--0123456789ab x(\t'";
        let mut seed = 17u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let mut s = Scratch::default();
        for round in 0..50_000 {
            let len = next() % 24;
            let text: Vec<u8> = (0..len)
                .map(|_| alphabet[next() % alphabet.len()])
                .collect();
            let mut fused = Vec::new();
            tokens_13a_plain(&text, &mut fused, &Context::new()).unwrap();
            tokenize_13a(&text, &mut s, &Context::new()).unwrap();
            let mut slow = Vec::new();
            push_word_keys(&s.a, &mut Vec::new(), &mut slow, &Context::new()).unwrap();
            assert_eq!(
                fused,
                slow,
                "round {round}: {:?}",
                String::from_utf8_lossy(&text)
            );
        }
    }

    #[test]
    fn packed_keys_equal_token_keys() {
        for text in [
            "a bb  ccc\tfifteen-chars-xy sixteen-chars-xyz",
            " x ",
            "",
            "   ",
        ] {
            let (mut cps, mut out) = (Vec::new(), Vec::new());
            push_word_keys(text.as_bytes(), &mut cps, &mut out, &Context::new()).unwrap();
            let want: Vec<TokenKey> = text
                .split_ascii_whitespace()
                .map(|w| TokenKey::of_ascii(w.as_bytes()))
                .collect();
            assert_eq!(out, want, "{text:?}");
        }
    }

    #[test]
    fn rstrip_stops_at_the_last_non_space() {
        assert_eq!(rstrip_len(b"ab \t\n"), 2);
        assert_eq!(rstrip_len("ab\u{3000}".as_bytes()), 2);
        assert_eq!(rstrip_len("a\u{e9}".as_bytes()), 3);
        assert_eq!(rstrip_len(b""), 0);
    }
}
