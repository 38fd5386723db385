//! Word and character error rates, as `jiwer`'s `wer` and `cer` with their default
//! transforms: the errors are the edit distance between the reference (`expected`) and the
//! hypothesis (`actual`), over words or code points, divided by the reference's length.
//!
//! Words follow `jiwer.wer_default`: whitespace at both ends is stripped, every run of two or
//! more whitespace characters (Python's `\s`) becomes one space, and the text is split on
//! single spaces; so a lone tab between two words keeps them one word, as in jiwer.
//! Characters follow `jiwer.cer_default`: the stripped text's code points, spaces included.

use rustc_hash::FxHashMap;

use super::halt::{Context, Run};
use super::levenshtein;
use super::text::{decode_into, is_py_space, next_code_point};

/// The edits between a reference and a hypothesis, and their lengths (in words or chars).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub errors: usize,
    pub reference: usize,
    pub hypothesis: usize,
}

impl Counts {
    /// jiwer's rate: errors per reference unit; with an empty reference, the hypothesis length
    /// (every unit of it an insertion).
    pub fn rate(&self) -> f64 {
        if self.reference == 0 {
            self.hypothesis as f64
        } else {
            self.errors as f64 / self.reference as f64
        }
    }

    pub fn add(&mut self, other: &Counts) {
        self.errors += other.errors;
        self.reference += other.reference;
        self.hypothesis += other.hypothesis;
    }
}

/// Reusable buffers.
#[derive(Default)]
pub struct Scratch {
    unit: levenshtein::Scratch,
    e: Vec<u32>,
    a: Vec<u32>,
    ids_e: Vec<u32>,
    ids_a: Vec<u32>,
}

/// `text` without the Python whitespace at its two ends: read forward to the first code point
/// that is not whitespace and backward to the last, so the middle is never decoded.
fn stripped(text: &[u8]) -> &[u8] {
    let mut start = 0;
    while start < text.len() {
        let (cp, len) = next_code_point(text, start);
        if !is_py_space(cp) {
            break;
        }
        start += len;
    }
    let mut end = text.len();
    while end > start {
        let mut lead = end - 1;
        while lead > start && text[lead] & 0xC0 == 0x80 {
            lead -= 1;
        }
        let (cp, len) = next_code_point(text, lead);
        if lead + len != end {
            // not well-formed UTF-8 (a Python str never gives such bytes): scan it all forward
            return stripped_forward(text);
        }
        if !is_py_space(cp) {
            break;
        }
        end = lead;
    }
    &text[start..end]
}

/// [`stripped`] by decoding every code point from the start.
fn stripped_forward(text: &[u8]) -> &[u8] {
    let (mut start, mut end, mut i) = (None, 0, 0);
    while i < text.len() {
        let (cp, len) = next_code_point(text, i);
        if !is_py_space(cp) {
            start.get_or_insert(i);
            end = i + len;
        }
        i += len;
    }
    match start {
        Some(s) => &text[s..end],
        None => &text[..0],
    }
}

/// Call `f` with each word of `cps` (already stripped), split as `wer_default` splits.
fn for_each_word<'a>(cps: &'a [u32], mut f: impl FnMut(&'a [u32])) {
    let (mut start, mut i) = (0, 0);
    while i < cps.len() {
        if !is_py_space(cps[i]) {
            i += 1;
            continue;
        }
        let run = cps[i..].iter().take_while(|&&c| is_py_space(c)).count();
        if run >= 2 || cps[i] == 0x20 {
            if i > start {
                f(&cps[start..i]);
            }
            start = i + run;
        }
        i += run;
    }
    if cps.len() > start {
        f(&cps[start..]);
    }
}

/// The word-level counts of `expected` (reference) and `actual` (hypothesis).
pub fn word_counts(expected: &[u8], actual: &[u8], s: &mut Scratch, stop: &Context) -> Run<Counts> {
    s.e.clear();
    s.a.clear();
    decode_into(stripped(expected), &mut s.e);
    decode_into(stripped(actual), &mut s.a);
    let Scratch {
        unit,
        e,
        a,
        ids_e,
        ids_a,
    } = s;
    // at most one distinct word per two code points (a word and a space); sized once, so the
    // table never grows while it fills
    let bound = (e.len() / 2 + a.len() / 2 + 2).min(1 << 12);
    let mut names: FxHashMap<&[u32], u32> =
        FxHashMap::with_capacity_and_hasher(bound, Default::default());
    for (cps, ids) in [(&*e, &mut *ids_e), (&*a, &mut *ids_a)] {
        ids.clear();
        for_each_word(cps, |word| {
            let next = names.len() as u32;
            ids.push(*names.entry(word).or_insert(next));
        });
    }
    stop.check()?;
    let errors = levenshtein::distance_ids(ids_e, ids_a, names.len().max(1), unit, stop)?;
    Ok(Counts {
        errors,
        reference: ids_e.len(),
        hypothesis: ids_a.len(),
    })
}

/// The character-level counts of `expected` (reference) and `actual` (hypothesis).
pub fn char_counts(expected: &[u8], actual: &[u8], s: &mut Scratch, stop: &Context) -> Run<Counts> {
    let (e, a) = (stripped(expected), stripped(actual));
    Ok(Counts {
        errors: levenshtein::distance(e, a, &mut s.unit, stop)?,
        reference: super::text::count_code_points(e),
        hypothesis: super::text::count_code_points(a),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(e: &str, a: &str) -> Counts {
        word_counts(
            e.as_bytes(),
            a.as_bytes(),
            &mut Scratch::default(),
            &Context::new(),
        )
        .unwrap()
    }

    #[test]
    fn stripping_from_both_ends_matches_the_forward_scan() {
        let texts = [
            "",
            " ",
            "a",
            " a ",
            "\u{3000}a b\u{2028}",
            "\u{85}\u{a0}é\u{1680}",
            "\t\n\u{b}\u{c}\r",
            "ab\u{2003}",
            "\u{1f600} x \u{1f600}",
            "\u{1c}\u{1d}\u{1e}\u{1f}y",
        ];
        for t in texts {
            assert_eq!(
                stripped(t.as_bytes()),
                stripped_forward(t.as_bytes()),
                "{t:?}"
            );
        }
        // bytes a Python str never gives: the forward scan decides
        for t in [&b"a\x80"[..], b"\xe2\x80", b"\x80 ", b" \xc3"] {
            assert_eq!(stripped(t), stripped_forward(t), "{t:?}");
        }
    }

    #[test]
    fn words_split_as_jiwer_default() {
        assert_eq!(words("a b c", "a  x c").errors, 1);
        assert_eq!(words(" a\tb ", "a\tb").reference, 1);
        assert_eq!(words("a \tb", "a b").errors, 0);
        assert_eq!(words("", "a b").rate(), 2.0);
        assert_eq!(
            words("one two three four", "one three four five").rate(),
            0.5
        );
    }
}
