//! Token F1: the SQuAD v2.0 `compute_f1` over normalized tokens, or over whitespace tokens.

use super::text::{
    decode_into, for_each_py_token, is_ascii_py_space, is_py_space, is_py_word, py_lower_char,
    py_lower_into, TokenKey, CAPITAL_SIGMA,
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
    bag_e: TokenBag,
    bag_a: TokenBag,
    bytes: Vec<u8>,
    table: Vec<(u128, u32)>,
}

/// A multiset of tokens: short ones as packed integers (cheap to sort and compare), long ones
/// boxed.
#[derive(Default)]
struct TokenBag {
    packed: Vec<u128>,
    long: Vec<Box<[u32]>>,
}

impl TokenBag {
    fn clear(&mut self) {
        self.packed.clear();
        self.long.clear();
    }

    fn len(&self) -> usize {
        self.packed.len() + self.long.len()
    }

    fn push(&mut self, key: TokenKey) {
        match key {
            TokenKey::Packed(k) => self.packed.push(k),
            TokenKey::Long(b) => self.long.push(b),
        }
    }

    fn sort_long(&mut self) {
        self.long.sort_unstable();
    }

    /// Size of the multiset intersection with `other`: packed keys through a small hash table
    /// of counts (no key is 0, so 0 marks an empty slot), long keys by merging sorted lists.
    fn common(&self, other: &TokenBag, table: &mut Vec<(u128, u32)>) -> usize {
        let bits = (2 * self.packed.len())
            .max(16)
            .next_power_of_two()
            .trailing_zeros();
        table.clear();
        table.resize(1 << bits, (0, 0));
        let mask = (1usize << bits) - 1;
        let slot_of = |k: u128| {
            let h = (k as u64 ^ (k >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            (h >> (64 - bits)) as usize
        };
        for &k in &self.packed {
            let mut i = slot_of(k);
            loop {
                let slot = &mut table[i];
                if slot.0 == k || slot.0 == 0 {
                    *slot = (k, slot.1 + 1);
                    break;
                }
                i = (i + 1) & mask;
            }
        }
        let mut same = 0;
        for &k in &other.packed {
            let mut i = slot_of(k);
            loop {
                let slot = &mut table[i];
                if slot.0 == k {
                    if slot.1 > 0 {
                        slot.1 -= 1;
                        same += 1;
                    }
                    break;
                }
                if slot.0 == 0 {
                    break;
                }
                i = (i + 1) & mask;
            }
        }
        same + common_count(&self.long, &other.long)
    }
}

/// `string.punctuation`, as a lookup table over ASCII.
static IS_PUNCT: [bool; 128] = {
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

/// The tokens of `text` under `normalizer` into `bag` (long ones sorted).
fn tokens_into(text: &[u8], normalizer: Normalizer, s: &mut Scratch, bag: &mut TokenBag) {
    bag.clear();
    if text.is_ascii() {
        match normalizer {
            Normalizer::Squad => ascii_squad_tokens(text, &mut s.bytes, bag),
            Normalizer::None => {
                for token in text.split(|&b| is_ascii_py_space(b)) {
                    if !token.is_empty() {
                        bag.push(TokenKey::of_ascii(token));
                    }
                }
            }
        }
    } else {
        s.raw.clear();
        decode_into(text, &mut s.raw);
        if normalizer == Normalizer::Squad && !s.raw.contains(&CAPITAL_SIGMA) {
            // Without a capital sigma lowercasing is per character: one fused pass.
            squad_tokens_fused(&s.raw, &mut s.norm, bag);
            bag.sort_long();
            return;
        }
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
        for_each_py_token(cps, |t| bag.push(TokenKey::of(t)));
    }
    bag.sort_long();
}

/// SQuAD normalization of code points in one pass (for text without a capital sigma, whose
/// lowercase depends on its neighbours): each whitespace-separated token is gathered lowercased
/// and without punctuation into `token`, then split at its article words.
fn squad_tokens_fused(cps: &[u32], token: &mut Vec<u32>, bag: &mut TokenBag) {
    token.clear();
    for &c in cps {
        let (first, second) = py_lower_char(c);
        feed_squad(first, token, bag);
        if second != 0 {
            feed_squad(second, token, bag);
        }
    }
    if !token.is_empty() {
        split_at_articles(token, bag);
    }
}

/// One lowercased code point: dropped (punctuation), ending the token (whitespace) or added.
#[inline]
fn feed_squad(c: u32, token: &mut Vec<u32>, bag: &mut TokenBag) {
    if c < 0x80 && IS_PUNCT[c as usize] {
        return;
    }
    if is_py_space(c) {
        if !token.is_empty() {
            split_at_articles(token, bag);
            token.clear();
        }
    } else {
        token.push(c);
    }
}

/// The pieces of one token between its article words (each maximal run of word characters
/// that is "a", "an" or "the" acts as a separator).
fn split_at_articles(token: &[u32], bag: &mut TokenBag) {
    let (mut piece_start, mut i) = (0, 0);
    while i < token.len() {
        if !is_py_word(token[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < token.len() && is_py_word(token[i]) {
            i += 1;
        }
        if is_article(&token[start..i]) {
            if start > piece_start {
                bag.push(TokenKey::of(&token[piece_start..start]));
            }
            piece_start = i;
        }
    }
    if token.len() > piece_start {
        bag.push(TokenKey::of(&token[piece_start..]));
    }
}

/// SQuAD normalization of ASCII text in one pass. A token made only of word characters (the
/// common case) is packed into its key as it is read; any other token is gathered into `buf`
/// and handled by [`finish_ascii_token`].
fn ascii_squad_tokens(text: &[u8], buf: &mut Vec<u8>, bag: &mut TokenBag) {
    buf.clear();
    let (mut lo, mut hi, mut len) = (0u64, 0u64, 0usize);
    let mut all_word = true;
    let flush = |lo: u64, hi: u64, len: usize, all_word: bool, buf: &[u8], bag: &mut TokenBag| {
        if all_word && len <= 15 {
            let word = (hi as u128) << 64 | lo as u128;
            // "a", "an", "the" packed as in `TokenKey::of_ascii`.
            const A: u128 = 1 << 120 | 0x61;
            const AN: u128 = 2 << 120 | 0x6E61;
            const THE: u128 = 3 << 120 | 0x65_6874;
            let key = word | (len as u128) << 120;
            if key != A && key != AN && key != THE {
                bag.packed.push(key);
            }
        } else {
            finish_ascii_token(buf, all_word, bag);
        }
    };
    for &b in text {
        let class = SQUAD_CLASS[b as usize];
        if class & (DROPPED | SPACE) != 0 {
            if class & SPACE != 0 && len > 0 {
                flush(lo, hi, len, all_word, buf, bag);
                buf.clear();
                (lo, hi, len, all_word) = (0, 0, 0, true);
            }
            continue;
        }
        let m = SQUAD_ASCII[b as usize];
        all_word &= class & WORD != 0;
        if len < 8 {
            lo |= (m as u64) << (8 * len);
        } else if len < 15 {
            hi |= (m as u64) << (8 * (len - 8));
        }
        if len >= 15 || !all_word {
            if buf.len() < len {
                // Switching to the slow path mid-token: recover the bytes packed so far.
                let packed = ((hi as u128) << 64 | lo as u128).to_le_bytes();
                buf.extend_from_slice(&packed[..len.min(15)]);
            }
            buf.push(m);
        }
        len += 1;
    }
    if len > 0 {
        flush(lo, hi, len, all_word, buf, bag);
    }
}

fn finish_ascii_token(token: &[u8], all_word: bool, bag: &mut TokenBag) {
    if all_word {
        // With punctuation gone, a token of word characters is one word.
        if !is_article_ascii(token) {
            bag.push(TokenKey::of_ascii(token));
        }
        return;
    }
    // Word runs separated by other non-space characters: each article run becomes a space,
    // which splits the token.
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
                    bag.push(TokenKey::of_ascii(&token[piece_start..start]));
                }
                piece_start = i;
            }
        } else {
            i += 1;
        }
    }
    if token.len() > piece_start {
        bag.push(TokenKey::of_ascii(&token[piece_start..]));
    }
}

const DROP: u8 = 0xFF;

/// ASCII byte → its lowercase, or `DROP` for punctuation.
static SQUAD_ASCII: [u8; 128] = {
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

const DROPPED: u8 = 1;
const SPACE: u8 = 2;
const WORD: u8 = 4;

/// ASCII byte → its class for SQuAD normalization: punctuation (dropped), whitespace, a word
/// character (letter or digit), or another character (0).
static SQUAD_CLASS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        t[i] = if IS_PUNCT[i] {
            DROPPED
        } else if matches!(b, 0x09..=0x0D | 0x1C..=0x20) {
            SPACE
        } else if b.is_ascii_alphanumeric() {
            WORD
        } else {
            0
        };
        i += 1;
    }
    t
};

fn is_article_ascii(word: &[u8]) -> bool {
    matches!(word, b"a" | b"an" | b"the")
}

/// Size of the multiset intersection of two sorted lists.
fn common_count<T: Ord>(a: &[T], b: &[T]) -> usize {
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
    let (mut bag_e, mut bag_a) = (std::mem::take(&mut s.bag_e), std::mem::take(&mut s.bag_a));
    tokens_into(expected, normalizer, s, &mut bag_e);
    tokens_into(actual, normalizer, s, &mut bag_a);
    let score = f1_of(&bag_e, &bag_a, &mut s.table);
    s.bag_e = bag_e;
    s.bag_a = bag_a;
    score
}

fn f1_of(gold: &TokenBag, pred: &TokenBag, table: &mut Vec<(u128, u32)>) -> f64 {
    let (n_gold, n_pred) = (gold.len(), pred.len());
    if n_gold == 0 || n_pred == 0 {
        return if n_gold == n_pred { 1.0 } else { 0.0 };
    }
    let same = gold.common(pred, table);
    if same == 0 {
        return 0.0;
    }
    let precision = 1.0 * same as f64 / n_pred as f64;
    let recall = 1.0 * same as f64 / n_gold as f64;
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
                let (mut k1, mut k2) = (TokenBag::default(), TokenBag::default());
                tokens_into(a.as_bytes(), n, s, &mut k1);
                // Force the code-point path with an extra non-ASCII token, then drop its key.
                let wide = format!("{a} é");
                tokens_into(wide.as_bytes(), n, s, &mut k2);
                let TokenKey::Packed(e) = TokenKey::of(&['é' as u32]) else {
                    unreachable!()
                };
                let pos = k2.packed.iter().position(|k| *k == e).unwrap();
                k2.packed.remove(pos);
                k1.packed.sort_unstable();
                k2.packed.sort_unstable();
                assert_eq!((k1.packed, k1.long), (k2.packed, k2.long), "{a:?} {n:?}");
            }
        }
    }

    #[test]
    fn fused_pass_equals_the_pipeline() {
        let cases = [
            "Zürich the café, a İstanbul \u{212A}elvin!",
            "l'été\u{301}the\u{301}x \u{3000}an\u{85}a b",
            "東京 the 東京 The\u{2028}AN",
            "ÀN ÂN the_thé €the€",
        ];
        for text in cases {
            let cps: Vec<u32> = text.chars().map(|c| c as u32).collect();
            let (mut fused, mut piped) = (TokenBag::default(), TokenBag::default());
            squad_tokens_fused(&cps, &mut Vec::new(), &mut fused);
            let (mut lowered, mut norm) = (Vec::new(), Vec::new());
            py_lower_into(&cps, &mut lowered);
            lowered.retain(|&c| c >= 0x80 || !IS_PUNCT[c as usize]);
            replace_articles(&lowered, &mut norm);
            for_each_py_token(&norm, |t| piped.push(TokenKey::of(t)));
            fused.packed.sort_unstable();
            piped.packed.sort_unstable();
            fused.sort_long();
            piped.sort_long();
            assert_eq!(
                (fused.packed, fused.long),
                (piped.packed, piped.long),
                "{text:?}"
            );
        }
    }

    #[test]
    fn none_normalizer_keeps_case() {
        let s = &mut Scratch::default();
        assert_eq!(token_f1(b"The cat", b"the cat", Normalizer::None, s), 0.5);
    }
}
