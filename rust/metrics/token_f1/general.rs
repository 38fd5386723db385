//! The general path: tokens that hold punctuation, control characters or non-ASCII
//! characters, following Python's `str.lower`, `str.split` and `re`'s `\b` exactly.

use super::bag::TokenBag;
use crate::metrics::text::{
    decode_into, for_each_py_token, is_py_space, is_py_word, next_code_point, py_lower_into,
};

/// Buffers of the general path.
#[derive(Default)]
pub(super) struct General {
    cps: Vec<u32>,
    lowered: Vec<u32>,
    token: Vec<u8>,
    utf8: Vec<u8>,
}

/// `string.punctuation`, as a lookup table over ASCII.
pub(super) static IS_PUNCT: [bool; 128] = {
    let mut t = [false; 128];
    let p = b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    let mut i = 0;
    while i < p.len() {
        t[p[i] as usize] = true;
        i += 1;
    }
    t
};

#[inline]
pub(super) fn is_punct(c: u32) -> bool {
    c < 0x80 && IS_PUNCT[c as usize]
}

/// Whether a word is "a", "an" or "the".
pub(super) fn is_article<T: Copy + Into<u32>>(word: &[T]) -> bool {
    let c = |i: usize| word[i].into();
    match word.len() {
        1 => c(0) == 0x61,
        2 => c(0) == 0x61 && c(1) == 0x6E,
        3 => c(0) == 0x74 && c(1) == 0x68 && c(2) == 0x65,
        _ => false,
    }
}

/// SQuAD tokens of one run of non-whitespace ASCII that holds punctuation or control
/// characters, or of a run with non-ASCII characters. `raw` is the run as given, `lowered` the
/// same bytes with ASCII letters lowercased.
pub(super) fn squad_general(raw: &[u8], lowered: &[u8], s: &mut General, bag: &mut TokenBag) {
    if raw.is_ascii() {
        s.token.clear();
        s.token
            .extend(lowered.iter().filter(|&&b| !IS_PUNCT[b as usize]));
        split_at_articles(&s.token, |piece| bag.push(piece));
        return;
    }
    // Lowercase the whole run at once: a capital sigma's form depends on its neighbours, and
    // those never lie beyond the ASCII whitespace around the run.
    s.cps.clear();
    decode_into(raw, &mut s.cps);
    s.lowered.clear();
    py_lower_into(&s.cps, &mut s.lowered);
    s.lowered.retain(|&c| !is_punct(c));
    let (lowered, utf8) = (&s.lowered, &mut s.utf8);
    for_each_py_token(lowered, |token| {
        split_at_articles(token, |piece| bag.push_code_points(piece, utf8))
    });
}

/// The tokens of one run under the "none" normalizer when it holds non-ASCII characters, some
/// of which may be whitespace to Python.
pub(super) fn split_general(raw: &[u8], bag: &mut TokenBag) {
    let (mut start, mut i) = (0, 0);
    while i < raw.len() {
        let (cp, len) = next_code_point(raw, i);
        if is_py_space(cp) {
            if i > start {
                bag.push(&raw[start..i]);
            }
            start = i + len;
        }
        i += len;
    }
    if raw.len() > start {
        bag.push(&raw[start..]);
    }
}

/// The pieces of a token (punctuation already gone) between its article words: each maximal
/// run of word characters that is "a", "an" or "the" acts as a separator, as SQuAD's
/// `\b(a|an|the)\b` replaced by a space does. Works on bytes of ASCII text or on code points.
pub(super) fn split_at_articles<T: Copy + Into<u32>>(token: &[T], mut push: impl FnMut(&[T])) {
    let word = |i: usize| is_py_word(token[i].into());
    let (mut piece_start, mut i) = (0, 0);
    while i < token.len() {
        if !word(i) {
            i += 1;
            continue;
        }
        let start = i;
        while i < token.len() && word(i) {
            i += 1;
        }
        if is_article(&token[start..i]) {
            if start > piece_start {
                push(&token[piece_start..start]);
            }
            piece_start = i;
        }
    }
    if token.len() > piece_start {
        push(&token[piece_start..]);
    }
}
