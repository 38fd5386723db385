//! Code-point level text helpers that reproduce CPython's own string semantics: `str.lower`
//! (with the Final_Sigma rule), `str.isspace` and the `re` module's word characters. The tables
//! are generated from Python itself (see `tools/gen_unicode_tables.py`).

use super::unicode_tables::{PY_LOWER, PY_SPACE, PY_WORD, SIGMA_CASED, SIGMA_IGNORABLE};

/// The code point that starts at `bytes[i]` and the number of bytes it takes, in generalized
/// UTF-8 (UTF-8 that may encode lone surrogates). Bytes come from Python strings, so they are
/// well formed; a stray byte decodes as itself rather than panicking.
#[inline]
pub fn next_code_point(bytes: &[u8], i: usize) -> (u32, usize) {
    let b0 = bytes[i] as u32;
    if b0 < 0x80 {
        return (b0, 1);
    }
    let (len, init) = if b0 >= 0xF0 {
        (4, b0 & 0x07)
    } else if b0 >= 0xE0 {
        (3, b0 & 0x0F)
    } else if b0 >= 0xC0 {
        (2, b0 & 0x1F)
    } else {
        (1, b0)
    };
    if i + len > bytes.len() {
        return (b0, 1);
    }
    let mut cp = init;
    for k in 1..len {
        cp = (cp << 6) | (bytes[i + k] as u32 & 0x3F);
    }
    (cp, len)
}

/// Decode generalized UTF-8 into code points, appending to `out`.
pub fn decode_into(bytes: &[u8], out: &mut Vec<u32>) {
    out.reserve(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let (cp, len) = next_code_point(bytes, i);
        out.push(cp);
        i += len;
    }
}

/// Append the generalized UTF-8 form of `cp` (a lone surrogate takes the three bytes Python's
/// `surrogatepass` writes).
pub fn push_utf8(cp: u32, buf: &mut Vec<u8>) {
    if cp < 0x80 {
        buf.push(cp as u8);
    } else if cp < 0x800 {
        buf.extend_from_slice(&[0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]);
    } else if cp < 0x10000 {
        buf.extend_from_slice(&[
            0xE0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]);
    } else {
        buf.extend_from_slice(&[
            0xF0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3F) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]);
    }
}

/// The number of code points of generalized UTF-8 text (Python's `len` of the string): the
/// bytes that are not continuation bytes (0b10xx_xxxx).
pub fn count_code_points(bytes: &[u8]) -> usize {
    let (done, continuations) = continuations_by_16(bytes);
    let rest = &bytes[done..];
    done - continuations + rest.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// The continuation bytes among the first 16·⌊len/16⌋ bytes, 16 at a time: (bytes looked at,
/// continuation bytes among them). Byte-wide counters (one per lane) are summed every 255
/// rows, before any can overflow.
#[cfg(target_arch = "x86_64")]
fn continuations_by_16(bytes: &[u8]) -> (usize, usize) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpgt_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_sad_epu8, _mm_set1_epi8,
        _mm_setzero_si128, _mm_srli_si128, _mm_sub_epi8,
    };
    let whole = bytes.len() / 16 * 16;
    let mut total = 0usize;
    for block in bytes[..whole].chunks(16 * 255) {
        // SAFETY: SSE2 is part of every x86_64 target; each load reads one 16-byte chunk.
        unsafe {
            let mut counts = _mm_setzero_si128();
            for row in block.chunks_exact(16) {
                let v = _mm_loadu_si128(row.as_ptr().cast::<__m128i>());
                // A continuation byte is -128 ..= -65 as a signed byte: -64 > v.
                counts = _mm_sub_epi8(counts, _mm_cmpgt_epi8(_mm_set1_epi8(-64), v));
            }
            let sums = _mm_sad_epu8(counts, _mm_setzero_si128());
            total += _mm_cvtsi128_si64(sums) as usize;
            total += _mm_cvtsi128_si64(_mm_srli_si128::<8>(sums)) as usize;
        }
    }
    (whole, total)
}

/// Elsewhere the bytes are all counted one at a time by [`count_code_points`].
#[cfg(not(target_arch = "x86_64"))]
fn continuations_by_16(_: &[u8]) -> (usize, usize) {
    (0, 0)
}

/// Decode generalized UTF-8 into a fresh vector of code points.
pub fn decode(bytes: &[u8]) -> Vec<u32> {
    let mut v = Vec::new();
    decode_into(bytes, &mut v);
    v
}

fn in_ranges(table: &[(u32, u32)], cp: u32) -> bool {
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `chr(cp).isspace()` in CPython.
#[inline]
pub fn is_py_space(cp: u32) -> bool {
    if cp < 0x80 {
        return matches!(cp, 0x09..=0x0D | 0x1C..=0x20);
    }
    in_ranges(PY_SPACE, cp)
}

/// A word character of Python's `re` module for `str` patterns: `isalnum()` or `_`.
#[inline]
pub fn is_py_word(cp: u32) -> bool {
    if cp < 0x80 {
        let c = cp as u8;
        return c.is_ascii_alphanumeric() || c == b'_';
    }
    in_ranges(PY_WORD, cp)
}

/// The lowercase of one code point, context-free (`str.lower` on that character alone): one
/// or two code points, the second 0 when there is none. Capital sigma gives small sigma here;
/// the final form needs the context that [`py_lower_into`] looks at.
#[inline]
pub fn py_lower_char(cp: u32) -> (u32, u32) {
    if cp < 0x80 {
        return (
            if (0x41..=0x5A).contains(&cp) {
                cp + 32
            } else {
                cp
            },
            0,
        );
    }
    match PY_LOWER.binary_search_by_key(&cp, |&(c, _, _)| c) {
        Ok(i) => (PY_LOWER[i].1, PY_LOWER[i].2),
        Err(_) => (cp, 0),
    }
}

#[inline]
fn push_lower(cp: u32, out: &mut Vec<u32>) {
    let (a, b) = py_lower_char(cp);
    out.push(a);
    if b != 0 {
        out.push(b);
    }
}

/// GREEK CAPITAL LETTER SIGMA, whose lowercase depends on its neighbours.
pub const CAPITAL_SIGMA: u32 = 0x03A3;
const SMALL_SIGMA: u32 = 0x03C3;
const FINAL_SIGMA: u32 = 0x03C2;

fn sigma_is_final(cps: &[u32], i: usize) -> bool {
    let ignorable = |c: u32| in_ranges(SIGMA_IGNORABLE, c);
    let cased = |c: u32| {
        if c < 0x80 {
            (c as u8).is_ascii_alphabetic()
        } else {
            in_ranges(SIGMA_CASED, c)
        }
    };
    let before = cps[..i].iter().rev().find(|&&c| !ignorable(c));
    if !before.is_some_and(|&c| cased(c)) {
        return false;
    }
    let after = cps[i + 1..].iter().find(|&&c| !ignorable(c));
    !after.is_some_and(|&c| cased(c))
}

/// CPython's `str.lower()` over code points, appending to `out`.
pub fn py_lower_into(cps: &[u32], out: &mut Vec<u32>) {
    out.reserve(cps.len());
    lower_part(cps, 0, cps.len(), out);
}

/// The lowercase of `cps[from..to]`, a capital sigma's form decided by its neighbours in all
/// of `cps`, appended to `out`.
#[inline]
pub(super) fn lower_part(cps: &[u32], from: usize, to: usize, out: &mut Vec<u32>) {
    for (i, &cp) in cps[from..to].iter().enumerate() {
        if cp == CAPITAL_SIGMA {
            out.push(if sigma_is_final(cps, from + i) {
                FINAL_SIGMA
            } else {
                SMALL_SIGMA
            });
        } else {
            push_lower(cp, out);
        }
    }
}

/// Split code points on CPython whitespace (`str.split()` with no argument), calling `f` with
/// each non-empty token.
#[inline]
pub fn for_each_py_token<'a>(cps: &'a [u32], mut f: impl FnMut(&'a [u32])) {
    let mut start = None;
    for (i, &c) in cps.iter().enumerate() {
        if is_py_space(c) {
            if let Some(s) = start.take() {
                f(&cps[s..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        f(&cps[s..]);
    }
}

/// A token as a compact, totally ordered key: a token of up to 15 bytes in (generalized) UTF-8
/// is packed into one integer, its bytes little-endian and its length in the top byte, so no
/// two tokens share a key; anything longer is boxed. Most words of most scripts pack, so a huge
/// text's keys are one vector of integers, freed at once, not millions of boxes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TokenKey {
    Packed(u128),
    Long(Box<[u32]>),
}

impl TokenKey {
    /// The key of a token given as code points.
    #[inline]
    pub fn of(cps: &[u32]) -> TokenKey {
        if cps.len() <= 15 {
            let (mut raw, mut n) = ([0u8; 16], 0usize);
            for &c in cps {
                // The bytes `push_utf8` writes, into the key's first 15 bytes while they last.
                let width = match c {
                    0..=0x7F => 1,
                    0x80..=0x7FF => 2,
                    0x800..=0xFFFF => 3,
                    _ => 4,
                };
                if n + width > 15 {
                    return TokenKey::Long(cps.into());
                }
                match width {
                    1 => raw[n] = c as u8,
                    2 => {
                        raw[n] = 0xC0 | (c >> 6) as u8;
                        raw[n + 1] = 0x80 | (c & 0x3F) as u8;
                    }
                    3 => {
                        raw[n] = 0xE0 | (c >> 12) as u8;
                        raw[n + 1] = 0x80 | ((c >> 6) & 0x3F) as u8;
                        raw[n + 2] = 0x80 | (c & 0x3F) as u8;
                    }
                    _ => {
                        raw[n] = 0xF0 | (c >> 18) as u8;
                        raw[n + 1] = 0x80 | ((c >> 12) & 0x3F) as u8;
                        raw[n + 2] = 0x80 | ((c >> 6) & 0x3F) as u8;
                        raw[n + 3] = 0x80 | (c & 0x3F) as u8;
                    }
                }
                n += width;
            }
            raw[15] = n as u8;
            return TokenKey::Packed(u128::from_le_bytes(raw));
        }
        TokenKey::Long(cps.into())
    }

    /// The UTF-8 bytes of a packed key's token.
    pub fn packed_bytes(k: &u128) -> ([u8; 16], usize) {
        (k.to_le_bytes(), (k >> 120) as usize)
    }

    /// The key of an ASCII token given as bytes; equal to `TokenKey::of` on its code points.
    #[inline]
    pub fn of_ascii(bytes: &[u8]) -> TokenKey {
        let n = bytes.len();
        if n <= 15 {
            // Bytes in little-endian order, the length in the top byte: the layout of `of`.
            let mut raw = [0u8; 16];
            raw[..n].copy_from_slice(bytes);
            raw[15] = n as u8;
            return TokenKey::Packed(u128::from_le_bytes(raw));
        }
        TokenKey::Long(bytes.iter().map(|&b| b as u32).collect())
    }
}

/// `chr(b).isspace()` for an ASCII byte.
#[inline(always)]
pub const fn is_ascii_py_space(b: u8) -> bool {
    matches!(b, 0x09..=0x0D | 0x1C..=0x20)
}

/// Whether `needle` occurs in `haystack` (both UTF-8): the places holding the needle's first
/// byte are compared whole; after `4 * haystack.len()` bytes compared so (a repetitive text)
/// the rest is searched by the standard library's linear two-way search.
pub fn occurs(haystack: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let Some(last_start) = haystack.len().checked_sub(needle.len()) else {
        return false;
    };
    let mut budget = 4 * haystack.len() + 64;
    let mut at = 0;
    while at <= last_start {
        match haystack[at..=last_start].iter().position(|&b| b == first) {
            Some(k) => at += k,
            None => return false,
        }
        if &haystack[at + 1..at + needle.len()] == rest {
            return true;
        }
        budget = budget.saturating_sub(needle.len());
        if budget == 0 {
            // `at` holds the needle's first byte, never a continuation: a character boundary
            return match (
                std::str::from_utf8(&haystack[at..]),
                std::str::from_utf8(needle),
            ) {
                (Ok(h), Ok(n)) => h.contains(n),
                _ => false,
            };
        }
        at += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::test_text::lcg;

    #[test]
    fn code_points_are_counted_as_one_byte_at_a_time_counts_them() {
        let mut seed = 3u64;
        for round in 0..400 {
            // Lengths around the rows (32) and the blocks (255 rows), every byte value.
            let len =
                [0usize, 1, 31, 32, 33, 8159, 8160, 8161, 16321][round % 9] + lcg(&mut seed) % 70;
            let bytes: Vec<u8> = (0..len).map(|_| lcg(&mut seed) as u8).collect();
            let want = bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
            assert_eq!(count_code_points(&bytes), want, "round {round} len {len}");
        }
        let text = "aé東😀".repeat(3000);
        assert_eq!(count_code_points(text.as_bytes()), text.chars().count());
    }

    fn lower(s: &str) -> String {
        let mut out = Vec::new();
        py_lower_into(&decode(s.as_bytes()), &mut out);
        out.iter().map(|&c| char::from_u32(c).unwrap()).collect()
    }

    #[test]
    fn decodes_utf8_and_lone_surrogates() {
        assert_eq!(
            decode("aé東😀".as_bytes()),
            vec![0x61, 0xE9, 0x6771, 0x1F600]
        );
        assert_eq!(decode(&[0xED, 0xA0, 0x80]), vec![0xD800]);
    }

    #[test]
    fn lowercases_like_python() {
        assert_eq!(lower("HeLLo ÉCOLE"), "hello école");
        assert_eq!(lower("\u{130}"), "i\u{307}");
        assert_eq!(lower("\u{212A}"), "k");
        assert_eq!(lower("ΟΔΟΣ"), "\u{3bf}\u{3b4}\u{3bf}\u{3c2}");
        assert_eq!(lower("ΟΔΟΣ."), "\u{3bf}\u{3b4}\u{3bf}\u{3c2}.");
        assert_eq!(lower("Σ"), "σ");
        assert_eq!(lower("ΑΣΑ"), "\u{3b1}\u{3c3}\u{3b1}");
        // ASCII case-ignorables ('.', ':', '\'', '^', '`') are skipped when looking for a
        // cased neighbour, as in CPython.
        assert_eq!(lower("AΣ.b"), "a\u{3c3}.b");
        assert_eq!(lower("AΣ'"), "a\u{3c2}'");
        assert_eq!(lower("A.Σ"), "a.\u{3c2}");
        assert_eq!(lower("A:Σ:B"), "a:\u{3c3}:b");
    }

    #[test]
    fn token_keys_are_distinct() {
        let words: [&[u32]; 8] = [
            &[0x61],
            &[0x61, 0],
            &[0, 0x61],
            &[],
            &[0x1F600],
            &[0x61; 15],
            &[0x61; 16],
            &[0x61, 0x1F600],
        ];
        for (i, a) in words.iter().enumerate() {
            for (j, b) in words.iter().enumerate() {
                assert_eq!(TokenKey::of(a) == TokenKey::of(b), i == j, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn ascii_keys_equal_code_point_keys() {
        for w in [
            "",
            "a",
            "hello",
            "exactly15chars!",
            "sixteen-chars-xx",
            "x\x00",
        ] {
            let cps: Vec<u32> = w.bytes().map(|b| b as u32).collect();
            assert_eq!(
                TokenKey::of_ascii(w.as_bytes()),
                TokenKey::of(&cps),
                "{w:?}"
            );
        }
    }

    #[test]
    fn tokens_of_up_to_15_utf8_bytes_pack() {
        let key = |w: &str| TokenKey::of(&w.chars().map(|c| c as u32).collect::<Vec<_>>());
        for w in ["zürich", "cafés", "東京東京東", "😀😀😀"] {
            let k = key(w);
            let TokenKey::Packed(p) = k else {
                panic!("{w:?} is not packed")
            };
            let (bytes, n) = TokenKey::packed_bytes(&p);
            let mut utf8 = Vec::new();
            w.chars().for_each(|c| push_utf8(c as u32, &mut utf8));
            assert_eq!(&bytes[..n], &utf8[..], "{w:?}");
        }
        for w in ["東京東京東京", "😀😀😀😀", "abcdefghijklmnopq"] {
            assert!(matches!(key(w), TokenKey::Long(_)), "{w:?}");
        }
        // Packing is injective: a token and its prefix, or two orders of one byte multiset.
        assert_ne!(key("é"), key("é\u{0}"));
        assert_ne!(key("éa"), key("aé"));
    }

    #[test]
    fn python_whitespace_includes_separators() {
        assert!(is_py_space(0x1F));
        assert!(is_py_space(0x3000));
        assert!(!is_py_space(0x200B));
        let mut toks = Vec::new();
        for_each_py_token(&decode(b"  a\x1cb  c "), |t| toks.push(t.len()));
        assert_eq!(toks, vec![1, 1, 1]);
    }

    #[test]
    fn word_characters_follow_python_re() {
        assert!(is_py_word('_' as u32));
        assert!(is_py_word('é' as u32));
        assert!(is_py_word('½' as u32));
        assert!(!is_py_word(0x301));
        assert!(!is_py_word('-' as u32));
    }

    #[test]
    fn occurs_agrees_with_str_contains() {
        let texts = [
            "",
            "a",
            "ab",
            "aaa",
            "abcabd",
            "the cat sat",
            "aaaaaaaaab",
            "xyz",
            "é",
            "aéb",
        ];
        for haystack in texts {
            for needle in texts
                .iter()
                .chain(&["t", "at", "cat s", "aab", "abd", "ba", "éb"])
            {
                let got = occurs(haystack.as_bytes(), needle.as_bytes());
                assert_eq!(got, haystack.contains(needle), "{haystack:?} {needle:?}");
            }
        }
        // a repetitive text runs out of budget and is finished by the two-way search
        let long = "a".repeat(5000) + "b";
        let needle = "a".repeat(300) + "b";
        assert!(occurs(long.as_bytes(), needle.as_bytes()));
        assert!(!occurs(long.as_bytes(), (needle + "c").as_bytes()));
    }
}
