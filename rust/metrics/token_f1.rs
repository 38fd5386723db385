//! Token F1: the SQuAD v2.0 `compute_f1` over normalized tokens, or over whitespace tokens.

use super::text::{
    decode_into, for_each_py_token, is_ascii_py_space, is_py_word, py_lower_into, TokenKey,
};

/// How answers are turned into tokens before F1 is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalizer {
    /// SQuAD: lowercase, drop ASCII punctuation, drop the words a/an/the, split on whitespace.
    Squad,
    /// Split on whitespace only.
    None,
}

/// Reusable buffers so a batch allocates once per thread, not once per pair.
#[derive(Default)]
pub struct Scratch {
    raw: Vec<u32>,
    lowered: Vec<u32>,
    norm: Vec<u32>,
    keys_e: Vec<TokenKey>,
    keys_a: Vec<TokenKey>,
    bytes: Vec<u8>,
}

/// `string.punctuation`, as a lookup table over ASCII.
const IS_PUNCT: [bool; 128] = {
    let mut t = [false; 128];
    let p = b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    let mut i = 0;
    while i < p.len() {
        t[p[i] as usize] = true;
        i += 1;
    }
    t
};

fn is_article(word: &[u32]) -> bool {
    matches!(
        word,
        [0x61] | [0x61, 0x6E] | [0x74, 0x68, 0x65] // "a" | "an" | "the"
    )
}

/// Replace every whole word "a", "an" or "the" by a space, as SQuAD's `\b(a|an|the)\b` does.
fn replace_articles(text: &[u32], out: &mut Vec<u32>) {
    out.clear();
    let n = text.len();
    let mut i = 0;
    while i < n {
        if !is_py_word(text[i]) {
            out.push(text[i]);
            i += 1;
            continue;
        }
        let start = i;
        while i < n && is_py_word(text[i]) {
            i += 1;
        }
        let word = &text[start..i];
        if is_article(word) {
            out.push(0x20);
        } else {
            out.extend_from_slice(word);
        }
    }
}

/// Sorted token keys of `text` under `normalizer`, into `keys`.
fn tokens_into(text: &[u8], normalizer: Normalizer, s: &mut Scratch, keys: &mut Vec<TokenKey>) {
    keys.clear();
    if text.is_ascii() {
        ascii_tokens(text, normalizer, &mut s.bytes, keys);
    } else {
        s.raw.clear();
        decode_into(text, &mut s.raw);
        let cps = match normalizer {
            Normalizer::None => &s.raw,
            Normalizer::Squad => {
                s.lowered.clear();
                py_lower_into(&s.raw, &mut s.lowered);
                s.lowered.retain(|&c| c >= 0x80 || !IS_PUNCT[c as usize]);
                replace_articles(&s.lowered, &mut s.norm);
                &s.norm
            }
        };
        for_each_py_token(cps, |t| keys.push(TokenKey::of(t)));
    }
    keys.sort_unstable();
}

/// The same normalization for ASCII text, on bytes, in two passes.
fn ascii_tokens(text: &[u8], normalizer: Normalizer, buf: &mut Vec<u8>, keys: &mut Vec<TokenKey>) {
    let squad = normalizer == Normalizer::Squad;
    let src: &[u8] = if squad {
        buf.clear();
        buf.extend(
            text.iter()
                .map(|&b| SQUAD_ASCII[b as usize])
                .filter(|&b| b != DROP),
        );
        buf
    } else {
        text
    };
    for token in src
        .split(|&b| is_ascii_py_space(b))
        .filter(|t| !t.is_empty())
    {
        if !squad {
            keys.push(TokenKey::of_ascii(token));
        } else if token.iter().all(u8::is_ascii_alphanumeric) {
            // With punctuation gone, a token of word characters is one word.
            if !is_article_ascii(token) {
                keys.push(TokenKey::of_ascii(token));
            }
        } else {
            // Word runs separated by other non-space characters: each article run becomes a
            // space, which splits the token.
            let mut piece_start = 0;
            let mut i = 0;
            while i < token.len() {
                if token[i].is_ascii_alphanumeric() {
                    let start = i;
                    while i < token.len() && token[i].is_ascii_alphanumeric() {
                        i += 1;
                    }
                    if is_article_ascii(&token[start..i]) {
                        if start > piece_start {
                            keys.push(TokenKey::of_ascii(&token[piece_start..start]));
                        }
                        piece_start = i;
                    }
                } else {
                    i += 1;
                }
            }
            if token.len() > piece_start {
                keys.push(TokenKey::of_ascii(&token[piece_start..]));
            }
        }
    }
}

const DROP: u8 = 0xFF;

/// ASCII byte → its lowercase, or `DROP` for punctuation.
const SQUAD_ASCII: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = if IS_PUNCT[i] {
            DROP
        } else {
            (i as u8).to_ascii_lowercase()
        };
        i += 1;
    }
    t
};

fn is_article_ascii(word: &[u8]) -> bool {
    matches!(word, b"a" | b"an" | b"the")
}

/// Size of the multiset intersection of two sorted key lists.
fn common_count(a: &[TokenKey], b: &[TokenKey]) -> usize {
    let (mut i, mut j, mut same) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                same += 1;
                i += 1;
                j += 1;
            }
        }
    }
    same
}

/// Token F1 of `actual` against `expected`, computed exactly as SQuAD's `compute_f1`.
pub fn token_f1(expected: &[u8], actual: &[u8], normalizer: Normalizer, s: &mut Scratch) -> f64 {
    let (mut keys_e, mut keys_a) = (std::mem::take(&mut s.keys_e), std::mem::take(&mut s.keys_a));
    tokens_into(expected, normalizer, s, &mut keys_e);
    tokens_into(actual, normalizer, s, &mut keys_a);
    let score = f1_of(&keys_e, &keys_a);
    s.keys_e = keys_e;
    s.keys_a = keys_a;
    score
}

fn f1_of(keys_e: &[TokenKey], keys_a: &[TokenKey]) -> f64 {
    let (gold, pred) = (keys_e.len(), keys_a.len());
    if gold == 0 || pred == 0 {
        return if gold == pred { 1.0 } else { 0.0 };
    }
    let same = common_count(keys_e, keys_a);
    if same == 0 {
        return 0.0;
    }
    let precision = 1.0 * same as f64 / pred as f64;
    let recall = 1.0 * same as f64 / gold as f64;
    (2.0 * precision * recall) / (precision + recall)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f1(e: &str, a: &str) -> f64 {
        token_f1(
            e.as_bytes(),
            a.as_bytes(),
            Normalizer::Squad,
            &mut Scratch::default(),
        )
    }

    #[test]
    fn squad_examples() {
        assert_eq!(f1("The cat sat.", "a cat sat"), 1.0);
        assert_eq!(f1("", ""), 1.0);
        assert_eq!(f1("the", "an"), 1.0);
        assert_eq!(f1("cat", ""), 0.0);
        assert_eq!(f1("cat dog", "dog"), 2.0 * 1.0 * 0.5 / 1.5);
        assert_eq!(f1("cat cat", "cat"), 2.0 * 1.0 * 0.5 / 1.5);
    }

    #[test]
    fn articles_are_whole_words_only() {
        assert_eq!(f1("another theme", "another theme"), 1.0);
        assert_eq!(f1("a-b", "ab"), 1.0);
        // the article inside a run of non-word characters becomes a separator
        assert_eq!(f1("€the€", "€ €"), 1.0);
    }

    #[test]
    fn ascii_and_unicode_paths_agree() {
        let s = &mut Scratch::default();
        let cases = [
            "The cat, the hat!",
            "x\x01the\x01y a\x02an",
            "an-the a_b",
            "  ",
            "A",
            "the\x7fend",
            "Zürich the ",
            "a\tb\x1cc\x0bd",
        ];
        for a in cases {
            for n in [Normalizer::Squad, Normalizer::None] {
                let (mut k1, mut k2) = (Vec::new(), Vec::new());
                tokens_into(a.as_bytes(), n, s, &mut k1);
                // Force the code-point path with an extra non-ASCII token, then drop its key.
                let wide = format!("{a} é");
                tokens_into(wide.as_bytes(), n, s, &mut k2);
                let e = TokenKey::of(&['é' as u32]);
                let pos = k2.iter().position(|k| *k == e).unwrap();
                k2.remove(pos);
                assert_eq!(k1, k2, "{a:?} {n:?}");
            }
        }
    }

    #[test]
    fn none_normalizer_keeps_case() {
        let s = &mut Scratch::default();
        assert_eq!(token_f1(b"The cat", b"the cat", Normalizer::None, s), 0.5);
    }
}
