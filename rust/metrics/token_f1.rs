//! Token F1: the SQuAD v2.0 `compute_f1` over normalized tokens, or over whitespace tokens.
//!
//! A text is first classified 64 bytes at a time (with SSE2 on x86-64) into two bit masks
//! (ASCII whitespace, and bytes that need a closer look), and lowercased in the same pass.
//! Tokens are then read off the whitespace mask; a token with no byte that needs a closer look
//! (for SQuAD, a run of ASCII letters and digits; for "none", any ASCII run) becomes its key
//! straight from two 8-byte loads. The others (punctuation, control characters, anything not
//! ASCII) take the general path, which follows Python's `str.lower`, `str.split` and `re`'s
//! `\b` exactly.
//!
//! Every token is keyed by its UTF-8 bytes, so the two paths give equal keys for equal tokens.

use super::text::{
    decode_into, for_each_py_token, is_ascii_py_space, is_py_space, is_py_word, next_code_point,
    push_utf8, py_lower_into,
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
    masks: Masks,
    general: General,
    bag_e: TokenBag,
    bag_a: TokenBag,
    table: Vec<(u128, u32)>,
}

/// Buffers of the general path.
#[derive(Default)]
struct General {
    cps: Vec<u32>,
    lowered: Vec<u32>,
    token: Vec<u8>,
    utf8: Vec<u8>,
}

/// A multiset of tokens keyed by their UTF-8 bytes: up to 15 bytes packed into an integer (the
/// bytes little-endian, the length in the top byte, so no two tokens share a key and no key
/// is 0), longer ones boxed.
#[derive(Default)]
struct TokenBag {
    packed: Vec<u128>,
    long: Vec<Box<[u8]>>,
}

/// The packed key of a token of at most 15 bytes.
#[inline]
fn packed_key(bytes: &[u8]) -> u128 {
    let mut raw = [0u8; 16];
    raw[..bytes.len()].copy_from_slice(bytes);
    raw[15] = bytes.len() as u8;
    u128::from_le_bytes(raw)
}

impl TokenBag {
    fn clear(&mut self) {
        self.packed.clear();
        self.long.clear();
    }

    fn len(&self) -> usize {
        self.packed.len() + self.long.len()
    }

    #[inline]
    fn push(&mut self, bytes: &[u8]) {
        if bytes.len() <= 15 {
            self.packed.push(packed_key(bytes));
        } else {
            self.long.push(bytes.into());
        }
    }

    /// Push a token given as code points.
    fn push_code_points(&mut self, cps: &[u32], utf8: &mut Vec<u8>) {
        utf8.clear();
        for &c in cps {
            push_utf8(c, utf8);
        }
        self.push(utf8);
    }

    /// Size of the multiset intersection with `other`: packed keys through a small hash table
    /// of counts (0 marks an empty slot), long keys by merging sorted lists.
    fn common(&mut self, other: &mut TokenBag, table: &mut Vec<(u128, u32)>) -> usize {
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
        if !self.long.is_empty() && !other.long.is_empty() {
            self.long.sort_unstable();
            other.long.sort_unstable();
            same += common_count(&self.long, &other.long);
        }
        same
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

#[inline]
fn is_punct(c: u32) -> bool {
    c < 0x80 && IS_PUNCT[c as usize]
}

/// Whether a word is "a", "an" or "the".
fn is_article<T: Copy + Into<u32>>(word: &[T]) -> bool {
    let c = |i: usize| word[i].into();
    match word.len() {
        1 => c(0) == 0x61,
        2 => c(0) == 0x61 && c(1) == 0x6E,
        3 => c(0) == 0x74 && c(1) == 0x68 && c(2) == 0x65,
        _ => false,
    }
}

/// One text, classified 64 bytes at a time. `text` holds the text (ASCII letters lowercased
/// when asked) with room to spare, so that a 16-byte load at any token start stays inside it.
/// Bit i of `space` is set when byte i is ASCII whitespace, and for every position past the
/// end; bit i of `closer` is set when byte i needs the general path. Only the first `words`
/// words of the masks belong to the current text.
#[derive(Default)]
struct Masks {
    text: Vec<u8>,
    space: Vec<u64>,
    closer: Vec<u64>,
    words: usize,
}

/// Which bytes need the general path: for SQuAD, all but ASCII letters, digits and
/// whitespace; for "none", the bytes of non-ASCII characters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Closer {
    NotAlnum,
    NotAscii,
}

impl Masks {
    /// Classify `text`; with `lower`, lowercase its ASCII letters.
    fn fill(&mut self, text: &[u8], lower: bool, closer: Closer) {
        self.fill_with(text, lower, closer, cfg!(target_arch = "x86_64"));
    }

    /// [`Masks::fill`], byte by byte when `simd` is false (the way on other CPUs).
    fn fill_with(&mut self, text: &[u8], lower: bool, closer: Closer, simd: bool) {
        let n = text.len();
        let full = n / 64;
        self.words = full + 1;
        if self.text.len() < 64 * self.words + 16 {
            self.text.resize(64 * self.words + 16, 0);
        }
        if self.space.len() < self.words {
            self.space.resize(self.words, 0);
            self.closer.resize(self.words, 0);
        }
        for w in 0..full {
            let block = text[64 * w..64 * w + 64].try_into().unwrap();
            self.block(w, block, lower, closer, simd);
        }
        let mut last = [0u8; 64];
        last[..n - 64 * full].copy_from_slice(&text[64 * full..]);
        self.block(full, &last, lower, closer, simd);
        // Past the end: whitespace, and nothing that needs a closer look.
        let tail = n % 64;
        self.space[full] |= !0u64 << tail;
        self.closer[full] &= !(!0u64 << tail);
    }

    /// Classify the 64 bytes of word `w`.
    fn block(&mut self, w: usize, bytes: &[u8; 64], lower: bool, closer: Closer, simd: bool) {
        let out: &mut [u8; 64] = (&mut self.text[64 * w..64 * w + 64]).try_into().unwrap();
        let (space, needs) = if simd {
            classify_simd(bytes, lower, closer, out)
        } else {
            classify_bytes(bytes, lower, closer, out)
        };
        self.space[w] = space;
        self.closer[w] = needs;
    }

    /// The first position at or after `from` whose bit is set in `closer`, or the end of the
    /// masks.
    #[inline]
    fn next_closer(&self, from: usize) -> usize {
        let bits = &self.closer[..self.words];
        let mut w = from / 64;
        let mut word = bits[w] & (!0u64 << (from % 64));
        loop {
            if word != 0 {
                return w * 64 + word.trailing_zeros() as usize;
            }
            w += 1;
            if w == bits.len() {
                return bits.len() * 64;
            }
            word = bits[w];
        }
    }

    /// Call `f(start, end)` for each maximal run of non-whitespace bytes, in order.
    #[inline]
    fn for_each_run(&self, mut f: impl FnMut(usize, usize)) {
        // A run starts where a non-space byte follows a space (or the start of the text) and
        // ends at the space that follows it; the padding past the end ends the last run.
        let (mut prev_space, mut start) = (1u64, 0);
        for (w, &sp) in self.space[..self.words].iter().enumerate() {
            let starts = !sp & (sp << 1 | prev_space);
            let ends = sp & (!sp << 1 | (prev_space ^ 1));
            prev_space = sp >> 63;
            let mut events = starts | ends;
            while events != 0 {
                let bit = events.trailing_zeros() as usize;
                events &= events - 1;
                if starts >> bit & 1 == 1 {
                    start = 64 * w + bit;
                } else {
                    f(start, 64 * w + bit);
                }
            }
        }
    }
}

/// Per ASCII byte: bit 0 whitespace, bit 1 letter or digit.
static ASCII_CLASS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        t[i] = if is_ascii_py_space(b) {
            1
        } else if b.is_ascii_alphanumeric() {
            2
        } else {
            0
        };
        i += 1;
    }
    t
};

/// (whitespace bits, closer-look bits) of 64 bytes, writing them (lowercased when asked) to
/// `out`, one byte at a time.
fn classify_bytes(bytes: &[u8; 64], lower: bool, closer: Closer, out: &mut [u8; 64]) -> (u64, u64) {
    let (mut space, mut needs) = (0u64, 0u64);
    for (i, &b) in bytes.iter().enumerate() {
        let class = if b < 0x80 { ASCII_CLASS[b as usize] } else { 0 };
        space |= ((class == 1) as u64) << i;
        let closer_look = match closer {
            Closer::NotAlnum => class == 0,
            Closer::NotAscii => b >= 0x80,
        };
        needs |= (closer_look as u64) << i;
        out[i] = if lower { b.to_ascii_lowercase() } else { b };
    }
    (space, needs)
}

/// [`classify_bytes`] with SSE2 (part of every x86-64 CPU), sixteen bytes at a time.
#[cfg(target_arch = "x86_64")]
fn classify_simd(bytes: &[u8; 64], lower: bool, closer: Closer, out: &mut [u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let (mut space_bits, mut needs_bits) = (0u64, 0u64);
    // SAFETY: SSE2 is part of the x86-64 baseline; chunk c reads bytes[16c..16c+16] and writes
    // out[16c..16c+16], inside both 64-byte arrays.
    unsafe {
        let within = |x: __m128i, lo: u8, hi: u8| {
            // Signed compares: bytes of 0x80 and above are negative and fall outside.
            _mm_and_si128(
                _mm_cmpgt_epi8(x, _mm_set1_epi8(lo as i8 - 1)),
                _mm_cmplt_epi8(x, _mm_set1_epi8(hi as i8 + 1)),
            )
        };
        for c in 0..4 {
            let x = _mm_loadu_si128(bytes.as_ptr().add(16 * c) as *const __m128i);
            let space = _mm_or_si128(within(x, 0x09, 0x0D), within(x, 0x1C, 0x20));
            let upper = within(x, b'A', b'Z');
            let lowered = if lower {
                _mm_add_epi8(x, _mm_and_si128(upper, _mm_set1_epi8(0x20)))
            } else {
                x
            };
            _mm_storeu_si128(out.as_mut_ptr().add(16 * c) as *mut __m128i, lowered);
            let needs = match closer {
                Closer::NotAlnum => {
                    let alnum = _mm_or_si128(
                        _mm_or_si128(upper, within(x, b'a', b'z')),
                        within(x, b'0', b'9'),
                    );
                    !_mm_movemask_epi8(_mm_or_si128(alnum, space)) as u64 & 0xFFFF
                }
                Closer::NotAscii => _mm_movemask_epi8(x) as u64,
            };
            space_bits |= (_mm_movemask_epi8(space) as u64) << (16 * c);
            needs_bits |= needs << (16 * c);
        }
    }
    (space_bits, needs_bits)
}

#[cfg(not(target_arch = "x86_64"))]
fn classify_simd(bytes: &[u8; 64], lower: bool, closer: Closer, out: &mut [u8; 64]) -> (u64, u64) {
    classify_bytes(bytes, lower, closer, out)
}

/// The tokens of `text` under `normalizer` into `bag`.
fn tokens_into(text: &[u8], normalizer: Normalizer, s: &mut Scratch, bag: &mut TokenBag) {
    bag.clear();
    let squad = normalizer == Normalizer::Squad;
    let closer = if squad {
        Closer::NotAlnum
    } else {
        Closer::NotAscii
    };
    let Scratch { masks, general, .. } = s;
    masks.fill(text, squad, closer);
    bag.packed.reserve(text.len() / 2 + 1);
    let mut next_closer = 0;
    masks.for_each_run(|start, end| {
        if next_closer < start {
            next_closer = masks.next_closer(start);
        }
        if next_closer < end {
            if squad {
                squad_general(&text[start..end], &masks.text[start..end], general, bag);
            } else {
                split_general(&text[start..end], bag);
            }
            return;
        }
        let len = end - start;
        if len > 15 {
            bag.long.push(masks.text[start..end].into());
            return;
        }
        // The token's bytes from two 8-byte loads, cut to its length.
        let at = |i: usize| u64::from_le_bytes(masks.text[i..i + 8].try_into().unwrap());
        let lo = at(start) & (u64::MAX >> (8 * (8 - len.min(8))));
        let hi = at(start + 8) & (u64::MAX >> 1 >> (63 - 8 * len.saturating_sub(8)));
        if squad && len <= 3 && matches!(lo, 0x61 | 0x6E61 | 0x65_6874) {
            return; // "a", "an", "the"
        }
        bag.packed
            .push(((hi | (len as u64) << 56) as u128) << 64 | lo as u128);
    });
}

/// SQuAD tokens of one run of non-whitespace ASCII that holds punctuation or control
/// characters, or of a run with non-ASCII characters. `raw` is the run as given, `lowered` the
/// same bytes with ASCII letters lowercased.
fn squad_general(raw: &[u8], lowered: &[u8], s: &mut General, bag: &mut TokenBag) {
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
fn split_general(raw: &[u8], bag: &mut TokenBag) {
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
fn split_at_articles<T: Copy + Into<u32>>(token: &[T], mut push: impl FnMut(&[T])) {
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
    let score = f1_of(&mut bag_e, &mut bag_a, &mut s.table);
    s.bag_e = bag_e;
    s.bag_a = bag_a;
    score
}

fn f1_of(gold: &mut TokenBag, pred: &mut TokenBag, table: &mut Vec<(u128, u32)>) -> f64 {
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

    /// SQuAD's normalization step by step over the whole text's code points: lowercase, drop
    /// punctuation, replace article words by a space, split on whitespace.
    fn reference_tokens(text: &str, normalizer: Normalizer) -> TokenBag {
        let cps: Vec<u32> = text.chars().map(|c| c as u32).collect();
        let mut bag = TokenBag::default();
        let mut utf8 = Vec::new();
        let norm = match normalizer {
            Normalizer::None => cps,
            Normalizer::Squad => {
                let mut lowered = Vec::new();
                py_lower_into(&cps, &mut lowered);
                lowered.retain(|&c| !is_punct(c));
                let mut out = Vec::new();
                let mut i = 0;
                while i < lowered.len() {
                    if !is_py_word(lowered[i]) {
                        out.push(lowered[i]);
                        i += 1;
                        continue;
                    }
                    let start = i;
                    while i < lowered.len() && is_py_word(lowered[i]) {
                        i += 1;
                    }
                    if is_article(&lowered[start..i]) {
                        out.push(0x20);
                    } else {
                        out.extend_from_slice(&lowered[start..i]);
                    }
                }
                out
            }
        };
        for_each_py_token(&norm, |t| bag.push_code_points(t, &mut utf8));
        bag
    }

    fn sorted(mut bag: TokenBag) -> (Vec<u128>, Vec<Box<[u8]>>) {
        bag.packed.sort_unstable();
        bag.long.sort_unstable();
        (bag.packed, bag.long)
    }

    /// Deterministic texts from a pool of tricky pieces, long enough to cross the 16- and
    /// 64-byte boundaries of the masks.
    fn generated_texts() -> Vec<String> {
        const POOL: [&str; 30] = [
            " ",
            "  ",
            "\t",
            "\n",
            "\x1c",
            "\u{85}",
            "\u{a0}",
            "\u{3000}",
            "a",
            "an",
            "the",
            "The",
            "THE",
            "cat",
            "Dogs",
            "x",
            "sixteen-letters!",
            "abcdefghijklmnopq",
            ",",
            ".",
            "'",
            "_",
            "\x01",
            "\x7f",
            "é",
            "Σ",
            "ΟΔΟΣ",
            "İ",
            "東京",
            "😀",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut out = Vec::new();
        for len in 0..400 {
            let mut text = String::new();
            for _ in 0..len % 90 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(POOL[(state % POOL.len() as u64) as usize]);
            }
            out.push(text);
        }
        out
    }

    #[test]
    fn tokens_equal_the_step_by_step_normalization() {
        let mut cases: Vec<String> = [
            "The cat, the hat!",
            "x\x01the\x01y a\x02an",
            "an-the a_b",
            "A",
            "the\x7fend",
            "Zürich the café, a İstanbul \u{212A}elvin!",
            "l'été\u{301}the\u{301}x \u{3000}an\u{85}a b",
            "東京 the 東京 The\u{2028}AN",
            "ÀN ÂN the_thé €the€",
            "AΣ.b A.Σ ΟΔΟΣ. word-longer-than-fifteen-bytes",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        cases.extend(generated_texts());
        let s = &mut Scratch::default();
        for text in &cases {
            for n in [Normalizer::Squad, Normalizer::None] {
                let mut got = TokenBag::default();
                tokens_into(text.as_bytes(), n, s, &mut got);
                assert_eq!(
                    sorted(got),
                    sorted(reference_tokens(text, n)),
                    "{text:?} {n:?}"
                );
            }
        }
    }

    #[test]
    fn simd_masks_equal_byte_by_byte() {
        let (mut fast, mut slow) = (Masks::default(), Masks::default());
        for text in generated_texts() {
            for (lower, closer) in [(true, Closer::NotAlnum), (false, Closer::NotAscii)] {
                fast.fill_with(text.as_bytes(), lower, closer, true);
                slow.fill_with(text.as_bytes(), lower, closer, false);
                let w = fast.words;
                assert_eq!(fast.space[..w], slow.space[..w], "{text:?}");
                assert_eq!(fast.closer[..w], slow.closer[..w], "{text:?}");
                let n = text.len();
                assert_eq!(fast.text[..n], slow.text[..n], "{text:?}");
            }
        }
        let all: Vec<u8> = (0..=255).collect();
        for (lower, closer) in [(true, Closer::NotAlnum), (false, Closer::NotAscii)] {
            fast.fill_with(&all, lower, closer, true);
            slow.fill_with(&all, lower, closer, false);
            let w = fast.words;
            assert_eq!(
                (&fast.space[..w], &fast.closer[..w], &fast.text[..256]),
                (&slow.space[..w], &slow.closer[..w], &slow.text[..256])
            );
        }
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
    fn long_tokens_compare_by_content() {
        let long = "abcdefghijklmnopqrstuvwxyz";
        assert_eq!(f1(long, &long.to_uppercase()), 1.0);
        assert_eq!(f1(long, "abcdefghijklmnopqrstuvwxy"), 0.0);
        assert_eq!(f1("café-au-lait-au-lait", "CAFÉ-AU-LAIT-AU-LAIT"), 1.0);
    }

    #[test]
    fn none_normalizer_keeps_case() {
        let s = &mut Scratch::default();
        assert_eq!(token_f1(b"The cat", b"the cat", Normalizer::None, s), 0.5);
        assert_eq!(
            token_f1("a\u{3000}b".as_bytes(), b"b a", Normalizer::None, s),
            1.0
        );
    }
}
