//! SQuAD exact match: the v2.0 script's `compute_exact`, whether the two answers are equal
//! after `normalize_answer` (lowercase, drop ASCII punctuation, drop the words a/an/the,
//! collapse whitespace). With [`Normalizer::None`], whether their whitespace tokens are equal.
//!
//! Under the SQuAD normalizer the two answers are normalized one token of each at a time and
//! compared token by token, so that unequal answers stop at their first differing token. An
//! answer with a capital sigma, and any answer under [`Normalizer::None`], is normalized whole
//! to its token sequence joined by single spaces, as `normalize_answer` joins them, and the two
//! are compared.

use super::general::{is_article, is_punct};
use super::Normalizer;
use crate::metrics::halt::{Context, Run};
use crate::metrics::text::{
    decode_into, for_each_py_token, is_py_space, is_py_word, next_code_point, push_utf8,
    py_lower_char, py_lower_into,
};

/// Reusable buffers: decoded text, its lowered form and the two normalized answers (as code
/// points), and one token of each answer for the token-by-token path.
#[derive(Default)]
pub struct ExactScratch {
    decoded: Vec<u32>,
    lowered: Vec<u32>,
    words: Vec<u32>,
    left: Vec<u32>,
    right: Vec<u32>,
    token_left: Vec<u8>,
    token_right: Vec<u8>,
}

/// How the ASCII path treats a byte: dropped (punctuation), a separator (Python's `str.split()`
/// whitespace), a word character (letter or digit; `_` is punctuation), or any other byte
/// (control characters: kept, neither word nor space).
const PUNCT: u8 = 0;
const SPACE: u8 = 1;
const WORD: u8 = 2;
const OTHER: u8 = 3;

static ASCII_CLASS: [u8; 128] = {
    let mut t = [OTHER; 128];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = if matches!(b, 0x09..=0x0D | 0x1C..=0x20) {
            SPACE
        } else if b.is_ascii_alphanumeric() {
            WORD
        } else if b.is_ascii_punctuation() {
            PUNCT
        } else {
            OTHER
        };
        c += 1;
    }
    t
};

/// The normalized tokens of an answer under the SQuAD normalizer, one at a time, in one pass
/// and with no buffer of the whole answer, as UTF-8: lowered, punctuation dropped (so a word
/// runs on across it: "t.he" is "the"), each whole word that is an article a separator, split
/// on whitespace. Joined by single spaces they are [`normalize`]'s answer. Each character is
/// lowered on its own, so an answer with a capital sigma (whose lowercase depends on its
/// neighbours) must take [`normalize`] instead.
struct Tokens<'a> {
    text: &'a [u8],
    pos: usize,
    /// Lowered code points read but not yet used: the second of a character whose lowercase
    /// is two, and the one that follows an article that ended a token.
    queue: [u32; 2],
    queued: usize,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a [u8]) -> Self {
        Tokens {
            text,
            pos: 0,
            queue: [0; 2],
            queued: 0,
        }
    }

    /// The next code point of the lowered text.
    #[inline]
    fn next_code_point(&mut self) -> Option<u32> {
        if self.queued > 0 {
            self.queued -= 1;
            let cp = self.queue[0];
            self.queue[0] = self.queue[1];
            return Some(cp);
        }
        let &c = self.text.get(self.pos)?;
        if c < 0x80 {
            self.pos += 1;
            return Some(u32::from(c.to_ascii_lowercase()));
        }
        let (cp, len) = next_code_point(self.text, self.pos);
        self.pos += len;
        let (first, second) = py_lower_char(cp);
        if second != 0 {
            (self.queue[0], self.queued) = (second, 1);
        }
        Some(first)
    }

    /// Read `cp` again next.
    fn unread(&mut self, cp: u32) {
        self.queue[1] = self.queue[0];
        self.queue[0] = cp;
        self.queued += 1;
    }

    /// The next token into `buf`; `false` once there is none.
    #[inline]
    fn next_into(&mut self, buf: &mut Vec<u8>) -> bool {
        buf.clear();
        // where the current run of word characters starts in `buf`
        let mut word: Option<usize> = None;
        while let Some(cp) = self.next_code_point() {
            let class = if cp < 0x80 {
                ASCII_CLASS[cp as usize]
            } else if is_py_space(cp) {
                SPACE
            } else if is_py_word(cp) {
                WORD
            } else {
                OTHER
            };
            if class == WORD {
                word.get_or_insert(buf.len());
                push_utf8(cp, buf);
            } else if class != PUNCT {
                if let Some(start) = word.take() {
                    if is_article(&buf[start..]) {
                        buf.truncate(start);
                        if !buf.is_empty() {
                            self.unread(cp); // the article ended the token
                            return true;
                        }
                    }
                }
                if class == OTHER {
                    push_utf8(cp, buf);
                } else if !buf.is_empty() {
                    return true;
                }
            }
        }
        if let Some(start) = word {
            if is_article(&buf[start..]) {
                buf.truncate(start);
            }
        }
        !buf.is_empty()
    }
}

/// [`Tokens::next_into`] for an ASCII answer, byte by byte with no decoding: the next token
/// of `text` from `*pos` on into `buf`; `false` once there is none. A character that ends a
/// token after an article is read again next (ASCII non-letters lower to themselves).
#[inline]
fn next_ascii_into(text: &[u8], pos: &mut usize, buf: &mut Vec<u8>) -> bool {
    buf.clear();
    // where the current run of word characters starts in `buf`
    let mut word: Option<usize> = None;
    while let Some(&b) = text.get(*pos) {
        *pos += 1;
        let class = ASCII_CLASS[usize::from(b & 0x7F)];
        if class == WORD {
            word.get_or_insert(buf.len());
            buf.push(b.to_ascii_lowercase());
        } else if class != PUNCT {
            if let Some(start) = word.take() {
                if is_article(&buf[start..]) {
                    buf.truncate(start);
                    if !buf.is_empty() {
                        *pos -= 1; // the article ended the token
                        return true;
                    }
                }
            }
            if class == OTHER {
                buf.push(b);
            } else if !buf.is_empty() {
                return true;
            }
        }
    }
    if let Some(start) = word {
        if is_article(&buf[start..]) {
            buf.truncate(start);
        }
    }
    !buf.is_empty()
}

/// [`same_tokens`] for two ASCII answers.
fn same_ascii_tokens(expected: &[u8], actual: &[u8], s: &mut ExactScratch) -> bool {
    let (mut left, mut right) = (0, 0);
    loop {
        let (more_left, more_right) = (
            next_ascii_into(expected, &mut left, &mut s.token_left),
            next_ascii_into(actual, &mut right, &mut s.token_right),
        );
        if more_left != more_right || s.token_left != s.token_right {
            return false;
        }
        if !more_left {
            return true;
        }
    }
}

/// Whether a text holds GREEK CAPITAL LETTER SIGMA (UTF-8 CE A3).
fn has_capital_sigma(text: &[u8]) -> bool {
    !text.is_ascii() && text.windows(2).any(|w| w == [0xCE, 0xA3])
}

/// Whether two answers without a capital sigma have the same normalized tokens under the
/// SQuAD normalizer, compared token by token so that a difference ends the work where it is
/// found.
fn same_tokens(expected: &[u8], actual: &[u8], s: &mut ExactScratch) -> bool {
    if expected.is_ascii() && actual.is_ascii() {
        return same_ascii_tokens(expected, actual, s);
    }
    let (mut left, mut right) = (Tokens::new(expected), Tokens::new(actual));
    loop {
        let (more_left, more_right) = (
            left.next_into(&mut s.token_left),
            right.next_into(&mut s.token_right),
        );
        if more_left != more_right || s.token_left != s.token_right {
            return false;
        }
        if !more_left {
            return true;
        }
    }
}

/// `out` = the normalized answer of `text`, its tokens joined by single spaces.
fn normalize(text: &[u8], normalizer: Normalizer, s: &mut ExactScratch, out: &mut Vec<u32>) {
    s.decoded.clear();
    decode_into(text, &mut s.decoded);
    let spaced: &[u32] = match normalizer {
        Normalizer::None => &s.decoded,
        Normalizer::Squad => {
            s.lowered.clear();
            py_lower_into(&s.decoded, &mut s.lowered);
            s.lowered.retain(|&c| !is_punct(c));
            // `\b(a|an|the)\b` → " ": a whole run of word characters that is an article.
            s.words.clear();
            let lowered = &s.lowered;
            let mut i = 0;
            while i < lowered.len() {
                if !is_py_word(lowered[i]) {
                    s.words.push(lowered[i]);
                    i += 1;
                    continue;
                }
                let start = i;
                while i < lowered.len() && is_py_word(lowered[i]) {
                    i += 1;
                }
                if is_article(&lowered[start..i]) {
                    s.words.push(0x20);
                } else {
                    s.words.extend_from_slice(&lowered[start..i]);
                }
            }
            &s.words
        }
    };
    out.clear();
    for_each_py_token(spaced, |token| {
        if !out.is_empty() {
            out.push(0x20);
        }
        out.extend_from_slice(token);
    });
}

/// Whether `expected` and `actual` are the same answer after normalization. `stop` is polled
/// once per answer.
pub fn exact_match(
    expected: &[u8],
    actual: &[u8],
    normalizer: Normalizer,
    s: &mut ExactScratch,
    stop: &Context,
) -> Run<bool> {
    if expected == actual {
        return Ok(true);
    }
    stop.check()?;
    if normalizer == Normalizer::Squad && !has_capital_sigma(expected) && !has_capital_sigma(actual)
    {
        return Ok(same_tokens(expected, actual, s));
    }
    let (mut left, mut right) = (std::mem::take(&mut s.left), std::mem::take(&mut s.right));
    normalize(expected, normalizer, s, &mut left);
    stop.check()?;
    normalize(actual, normalizer, s, &mut right);
    let same = left == right;
    (s.left, s.right) = (left, right);
    Ok(same)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn em(e: &str, a: &str) -> bool {
        let mut s = ExactScratch::default();
        exact_match(
            e.as_bytes(),
            a.as_bytes(),
            Normalizer::Squad,
            &mut s,
            &Context::new(),
        )
        .unwrap()
    }

    #[test]
    fn normalizes_as_squad() {
        assert!(em("The Eiffel Tower!", "eiffel   tower"));
        assert!(em("a", ""));
        assert!(em("Anne's", "annes"));
        assert!(!em("Paris, France", "Paris"));
        assert!(!em("theater", "ater"));
        assert!(em("ÉCOLE", "école"));
    }

    /// Generated answers: pieces drawn from `pool`, up to `most` of them.
    fn answers(pool: &[&str], most: u64, count: usize, mut state: u64) -> Vec<String> {
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count)
            .map(|_| {
                let len = next() % (most + 1);
                (0..len)
                    .map(|_| pool[(next() % pool.len() as u64) as usize])
                    .collect()
            })
            .collect()
    }

    /// Articles, case, punctuation (with `_`), every kind of ASCII whitespace, control
    /// characters that are neither words nor space, digits; letters whose lowercase is two
    /// code points (U+0130) or ASCII (U+212A), Unicode spaces, non-word marks, other scripts,
    /// a lone surrogate's generalized UTF-8, and the capital sigma.
    const PIECES: [&str; 44] = [
        "a", "A", "n", "N", "t", "T", "h", "H", "e", "E", "x", "y", "1", " ", "_", ".", ",", "!",
        "-", "'", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x00", "\x07", "\x7f", "é",
        "É", "\u{130}", "\u{212A}", "\u{85}", "\u{a0}", "\u{3000}", "\u{301}", "東", "😀", "ß",
        "Σ", "σ", "\u{2028}",
    ];

    #[test]
    fn the_token_path_normalizes_as_the_code_point_path() {
        let mut s = ExactScratch::default();
        let (mut bytes, mut points, mut token) = (Vec::new(), Vec::new(), Vec::new());
        for text in answers(&PIECES, 12, 50_000, 0x9E37_79B9_7F4A_7C15) {
            if has_capital_sigma(text.as_bytes()) {
                continue;
            }
            let mut tokens = Tokens::new(text.as_bytes());
            bytes.clear();
            while tokens.next_into(&mut token) {
                if !bytes.is_empty() {
                    bytes.push(b' ');
                }
                bytes.extend_from_slice(&token);
            }
            normalize(text.as_bytes(), Normalizer::Squad, &mut s, &mut points);
            let mut want = Vec::new();
            points.iter().for_each(|&cp| push_utf8(cp, &mut want));
            assert_eq!(bytes, want, "{text:?}");
        }
    }

    #[test]
    fn the_ascii_path_tokenizes_as_the_code_point_path() {
        let ascii: Vec<&str> = PIECES.iter().copied().filter(|p| p.is_ascii()).collect();
        let (mut want, mut got) = (Vec::new(), Vec::new());
        for text in answers(&ascii, 16, 50_000, 0x2545_F491_4F6C_DD1D) {
            let (mut tokens, mut pos) = (Tokens::new(text.as_bytes()), 0);
            loop {
                let more = tokens.next_into(&mut want);
                assert_eq!(next_ascii_into(text.as_bytes(), &mut pos, &mut got), more);
                assert_eq!(got, want, "{text:?}");
                if !more {
                    break;
                }
            }
        }
    }

    #[test]
    fn the_ascii_classes_follow_the_punctuation_table() {
        for (c, &class) in ASCII_CLASS.iter().enumerate() {
            assert_eq!(class == PUNCT, super::super::general::IS_PUNCT[c], "{c}");
        }
    }

    #[test]
    fn exact_match_equals_comparing_normalized_answers() {
        // few pieces, so that many generated pairs normalize to the same answer
        let pool = [
            "a", "A", "n", "t", "h", "e", "x", " ", ".", "_", "\t", "\x00", "é", "É", "Σ",
        ];
        let left = answers(&pool, 8, 50_000, 0x2545_F491_4F6C_DD1D);
        let right = answers(&pool, 8, 50_000, 0x9E37_79B9_7F4A_7C15);
        let mut s = ExactScratch::default();
        let (mut l, mut r) = (Vec::new(), Vec::new());
        let mut equal = 0;
        for (a, b) in left.iter().zip(&right) {
            normalize(a.as_bytes(), Normalizer::Squad, &mut s, &mut l);
            normalize(b.as_bytes(), Normalizer::Squad, &mut s, &mut r);
            let want = l == r;
            equal += usize::from(want);
            let got = exact_match(
                a.as_bytes(),
                b.as_bytes(),
                Normalizer::Squad,
                &mut s,
                &Context::new(),
            );
            assert_eq!(got, Ok(want), "{a:?} {b:?}");
        }
        assert!(equal > 500, "{equal}");
    }
}
