//! SQuAD exact match: the v2.0 script's `compute_exact`, whether the two answers are equal
//! after `normalize_answer` (lowercase, drop ASCII punctuation, drop the words a/an/the,
//! collapse whitespace). With [`Normalizer::None`], whether their whitespace tokens are equal.
//!
//! Both answers are normalized to their token sequences, one buffer each with the tokens joined
//! by one space, as `normalize_answer` joins them; the two buffers are compared. ASCII answers
//! (nearly all) are normalized as bytes, one token of each at a time, and compared token by
//! token, so that unequal answers stop at their first differing token; others as code points.

use super::general::{is_article, is_punct};
use super::Normalizer;
use crate::metrics::halt::{Context, Run};
use crate::metrics::text::{decode_into, for_each_py_token, is_py_word, py_lower_into};

/// Reusable buffers: decoded text, its lowered form and the two normalized answers (as code
/// points), and one token of each answer for the ASCII path.
#[derive(Default)]
pub struct ExactScratch {
    decoded: Vec<u32>,
    lowered: Vec<u32>,
    words: Vec<u32>,
    left: Vec<u32>,
    right: Vec<u32>,
    ascii_left: Vec<u8>,
    ascii_right: Vec<u8>,
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

/// The normalized tokens of an ASCII answer under the SQuAD normalizer, one at a time, in one
/// pass and with no buffer of the whole answer: lowered, punctuation dropped (so a word runs on
/// across it: "t.he" is "the"), each whole word that is an article a separator, split on
/// whitespace. Joined by single spaces they are `normalize`'s answer.
struct AsciiTokens<'a> {
    text: &'a [u8],
    pos: usize,
}

impl AsciiTokens<'_> {
    /// The next token into `buf`; `false` once there is none.
    #[inline]
    fn next_into(&mut self, buf: &mut Vec<u8>) -> bool {
        buf.clear();
        // where the current run of word characters starts in `buf`
        let mut word: Option<usize> = None;
        while let Some(&c) = self.text.get(self.pos) {
            let class = ASCII_CLASS[usize::from(c & 0x7F)];
            if class == WORD {
                word.get_or_insert(buf.len());
                buf.push(c.to_ascii_lowercase());
            } else if class != PUNCT {
                if let Some(start) = word.take() {
                    if is_article(&buf[start..]) {
                        buf.truncate(start);
                        if !buf.is_empty() {
                            return true; // the article ends the token; this byte is read next
                        }
                    }
                }
                if class == SPACE {
                    if !buf.is_empty() {
                        self.pos += 1;
                        return true;
                    }
                } else {
                    buf.push(c);
                }
            }
            self.pos += 1;
        }
        if let Some(start) = word {
            if is_article(&buf[start..]) {
                buf.truncate(start);
            }
        }
        !buf.is_empty()
    }
}

/// Whether two ASCII answers have the same normalized tokens under the SQuAD normalizer,
/// compared token by token so that a difference ends the work where it is found.
fn same_ascii(expected: &[u8], actual: &[u8], s: &mut ExactScratch) -> bool {
    let (mut left, mut right) = (
        AsciiTokens {
            text: expected,
            pos: 0,
        },
        AsciiTokens {
            text: actual,
            pos: 0,
        },
    );
    loop {
        let (more_left, more_right) = (
            left.next_into(&mut s.ascii_left),
            right.next_into(&mut s.ascii_right),
        );
        if more_left != more_right || s.ascii_left != s.ascii_right {
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
    if normalizer == Normalizer::Squad && expected.is_ascii() && actual.is_ascii() {
        return Ok(same_ascii(expected, actual, s));
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

    #[test]
    fn the_ascii_path_normalizes_as_the_code_point_path() {
        // articles, case, punctuation (with `_`), every kind of ASCII whitespace, control
        // characters that are neither words nor space, digits
        let alphabet = b"aAnNtThHeExy1 _.,!-'\t\n\x0b\x0c\r\x1c\x1f\x00\x07\x7f";
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut s = ExactScratch::default();
        let (mut bytes, mut points) = (Vec::new(), Vec::new());
        for _ in 0..50_000 {
            let len = (next() % 12) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let mut tokens = AsciiTokens {
                text: &text,
                pos: 0,
            };
            let mut token = Vec::new();
            bytes.clear();
            while tokens.next_into(&mut token) {
                if !bytes.is_empty() {
                    bytes.push(b' ');
                }
                bytes.extend_from_slice(&token);
            }
            normalize(&text, Normalizer::Squad, &mut s, &mut points);
            let widened: Vec<u32> = bytes.iter().map(|&b| u32::from(b)).collect();
            assert_eq!(widened, points, "{:?}", String::from_utf8_lossy(&text));
        }
    }

    #[test]
    fn the_ascii_classes_follow_the_punctuation_table() {
        for c in 0..128usize {
            assert_eq!(ASCII_CLASS[c] == PUNCT, super::super::general::IS_PUNCT[c], "{c}");
        }
    }

    #[test]
    fn token_by_token_comparison_equals_comparing_normalized_answers() {
        // a small alphabet, so that many generated pairs normalize to the same answer
        let alphabet = b"aAnNtThHex .,_\t\x00";
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut text = |len: usize| -> Vec<u8> {
            (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect()
        };
        let mut s = ExactScratch::default();
        let (mut left, mut right) = (Vec::new(), Vec::new());
        let mut equal = 0;
        for round in 0..50_000 {
            let (a, b) = (text(round % 9), text((round / 9) % 9));
            normalize(&a, Normalizer::Squad, &mut s, &mut left);
            normalize(&b, Normalizer::Squad, &mut s, &mut right);
            let want = left == right;
            equal += usize::from(want);
            assert_eq!(same_ascii(&a, &b, &mut s), want, "{a:?} {b:?}");
        }
        assert!(equal > 1_000, "{equal}");
    }
}
