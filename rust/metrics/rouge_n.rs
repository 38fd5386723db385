//! ROUGE-N: precision, recall and F-measure of the clipped n-gram overlap, as rouge-score's
//! `_score_ngrams` computes it.
//!
//! ROUGE-1 and ROUGE-2 under the default tokenizer, unstemmed, read packed tokens off the
//! 64-byte masks and count them (or their bigrams) in one table; other orders, tokenizers and
//! stemming, and texts the masks cannot take, go through token keys and n-gram ids.

use std::num::NonZeroUsize;

use super::halt::{Context, Run, TryVec, CHECK_EVERY};
use super::key_table::{KeyIds, KeyTable};
use super::ngrams::{clipped_matches, count_into, NgramIds, TokenIds};
use super::rouge_l::packed_tokens;
use super::rouge_tokens::{
    fmeasure, token_keys_polling, RougeScore, Stemmer, TokenScratch, Tokenizer,
};
use super::text::TokenKey;
use super::tokens::masks::Masks;

/// Reusable buffers so a batch allocates once per thread, not once per pair.
#[derive(Default)]
pub struct Scratch {
    tokens: TokenScratch,
    keys_e: Vec<TokenKey>,
    keys_a: Vec<TokenKey>,
    tmp_keys: Vec<TokenKey>,
    units: TokenIds,
    ngrams: NgramIds,
    ids_e: Vec<u32>,
    ids_a: Vec<u32>,
    grams_e: Vec<u32>,
    grams_a: Vec<u32>,
    tmp_e: Vec<u32>,
    tmp_a: Vec<u32>,
    counts_e: Vec<u32>,
    counts_a: Vec<u32>,
    packed: Packed,
}

/// The fast path's buffers: the texts' masks and packed tokens, the expected text's token ids
/// and the counts of its unigrams or bigrams.
#[derive(Default)]
struct Packed {
    masks: Masks,
    keys_e: Vec<u128>,
    keys_a: Vec<u128>,
    ids: KeyIds<u128>,
    ids_e: Vec<u32>,
    ids_a: Vec<u32>,
    unigrams: KeyTable<u128, u32>,
    bigrams: KeyTable<u64, u32>,
    /// Bigram counts by cell `first id · distinct + second id`; all zero between calls.
    grid: Vec<u32>,
    /// Whether `grid` may hold counts (a call stopped before clearing it).
    grid_dirty: bool,
}

/// The clipped overlap of ROUGE-1 or ROUGE-2 under the default tokenizer, unstemmed, read
/// straight off the packed tokens of the two texts: expected's n-grams are counted into a
/// table (unigrams by their key; bigrams by the pair of their tokens' ids, expected's tokens
/// numbered in order of first appearance) and actual's taken out of it, each match once.
/// `None` when a text needs the general path (see [`packed_tokens`]).
fn packed_hits(
    expected: &[u8],
    actual: &[u8],
    n: usize,
    p: &mut Packed,
    stop: &Context,
) -> Run<Option<(usize, usize, usize)>> {
    if !packed_tokens(expected, &mut p.masks, &mut p.keys_e, stop)?
        || !packed_tokens(actual, &mut p.masks, &mut p.keys_a, stop)?
    {
        return Ok(None);
    }
    let (e, a) = (&p.keys_e, &p.keys_a);
    let mut hits = 0usize;
    if n == 1 {
        let table = &mut p.unigrams;
        table.reset(e.len(), stop)?;
        for chunk in e.chunks(CHECK_EVERY) {
            stop.check()?;
            table.try_add_all(chunk)?;
        }
        for chunk in a.chunks(CHECK_EVERY) {
            stop.check()?;
            hits += table.take_all(chunk);
        }
    } else {
        let (e, a) = (std::mem::take(&mut p.keys_e), std::mem::take(&mut p.keys_a));
        let got = packed_bigram_hits(&e, &a, p, stop);
        (p.keys_e, p.keys_a) = (e, a);
        hits = got?;
        return Ok(Some((hits, p.keys_e.len(), p.keys_a.len())));
    }
    Ok(Some((hits, e.len(), a.len())))
}

/// Take one of the copies `count` holds, if any: 1 when one was left, 0 otherwise, with no
/// branch on which.
#[inline(always)]
fn take_one(count: &mut u32) -> usize {
    let left = u32::from(*count > 0);
    *count -= left;
    left as usize
}

/// `f(x, y)` for each two neighbours of `ids`, in order, polling `stop` between chunks.
#[inline(always)]
fn each_pair(ids: &[u32], stop: &Context, mut f: impl FnMut(u32, u32)) -> Run<()> {
    let pairs = ids.len().saturating_sub(1);
    for first in (0..pairs).step_by(CHECK_EVERY) {
        stop.check()?;
        for i in first..pairs.min(first + CHECK_EVERY) {
            f(ids[i], ids[i + 1]);
        }
    }
    Ok(())
}

/// The most cells of [`Packed::grid`]: bigram counts by the ids of their two tokens, used when
/// expected has at most 255 distinct tokens.
const GRID_CELLS: usize = 1 << 16;

/// The clipped bigram overlap of two texts' packed tokens. Expected's tokens are numbered in
/// order of first appearance; a bigram is the pair of its tokens' ids, counted in a dense grid
/// when expected has few tokens (no second table probe per token) or else in a table keyed by
/// the two ids in one u64. An actual token that expected does not have gets an id that no
/// expected token has, and no expected bigram holds it.
fn packed_bigram_hits(e: &[u128], a: &[u128], p: &mut Packed, stop: &Context) -> Run<usize> {
    let Packed {
        ids,
        ids_e,
        ids_a,
        bigrams,
        grid,
        grid_dirty,
        ..
    } = p;
    // A short text gets room for twice its tokens: the table stays at most a quarter full, so
    // a probe seldom walks past a taken slot (most of actual's tokens probe for a key that is
    // absent). A long one gets the usual room, not twice the memory.
    let side = e.len() + 1;
    let small = side
        .checked_mul(side)
        .is_some_and(|cells| cells <= GRID_CELLS);
    ids.reset(if small { 2 * e.len() } else { e.len() }, stop)?;
    ids_e.clear();
    ids_e.try_capacity(e.len(), "ROUGE-N token ids")?;
    for chunk in e.chunks(CHECK_EVERY) {
        stop.check()?;
        ids.intern_all(chunk, ids_e);
    }
    if small {
        // Expected has fewer than `side` distinct tokens, so id `side - 1` stands for every
        // token it does not have, and actual's ids are used as they come, never stored.
        let absent = e.len() as u32;
        let grid = start_grid(grid, grid_dirty, side * side)?;
        let cell = |x: u32, y: u32| x as usize * side + y as usize;
        for w in ids_e.windows(2) {
            grid[cell(w[0], w[1])] += 1;
        }
        let mut hits = 0usize;
        let mut before = absent;
        for chunk in a.chunks(CHECK_EVERY) {
            stop.check()?;
            ids.ids_or_each(chunk, absent, |id| {
                hits += take_one(&mut grid[cell(before, id)]);
                before = id;
            });
        }
        for w in ids_e.windows(2) {
            grid[cell(w[0], w[1])] = 0;
        }
        *grid_dirty = false;
        return Ok(hits);
    }
    let distinct = ids.len();
    // Id `distinct` stands for every token expected does not have.
    let absent = distinct as u32;
    ids_a.clear();
    ids_a.try_capacity(a.len(), "ROUGE-N token ids")?;
    for chunk in a.chunks(CHECK_EVERY) {
        stop.check()?;
        ids.ids_or_into(chunk, absent, ids_a);
    }
    let mut hits = 0usize;
    if (distinct + 1) * (distinct + 1) <= GRID_CELLS {
        // The absent id's row and column stay empty, so a bigram that holds it takes
        // nothing, with no branch.
        let side = distinct + 1;
        let grid = start_grid(grid, grid_dirty, side * side)?;
        let cell = |x: u32, y: u32| x as usize * side + y as usize;
        each_pair(ids_e, stop, |x, y| grid[cell(x, y)] += 1)?;
        let mut before = absent;
        for chunk in ids_a.chunks(CHECK_EVERY) {
            stop.check()?;
            for &id in chunk {
                hits += take_one(&mut grid[cell(before, id)]);
                before = id;
            }
        }
        each_pair(ids_e, stop, |x, y| grid[cell(x, y)] = 0)?;
        *grid_dirty = false;
        return Ok(hits);
    }
    let table = bigrams;
    table.reset(e.len(), stop)?;
    let pair = |x: u32, y: u32| u64::from(x) << 32 | u64::from(y);
    each_pair(ids_e, stop, |x, y| table.add_one(pair(x, y)))?;
    let mut before = absent;
    for chunk in ids_a.chunks(CHECK_EVERY) {
        stop.check()?;
        for &id in chunk {
            if before != absent && id != absent {
                hits += table.take_one(pair(before, id)) as usize;
            }
            before = id;
        }
    }
    Ok(hits)
}

/// [`Packed::grid`] with at least `cells` cells, all zero, marked (`dirty`) as possibly
/// holding counts until the caller clears the cells it used.
fn start_grid<'g>(grid: &'g mut Vec<u32>, dirty: &mut bool, cells: usize) -> Run<&'g mut [u32]> {
    if *dirty {
        // Cleared after every use, but a stopped call may have left counts behind.
        grid.fill(0);
    }
    if grid.len() < cells {
        grid.try_resize(cells, 0, "ROUGE-N bigram counts")?;
    }
    *dirty = true;
    Ok(grid)
}

/// `n` as the kernel takes it (a count option is at least 1; 0 would mean 1).
pub fn order(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap_or(NonZeroUsize::MIN)
}

/// ROUGE-N of `actual` (the prediction) against `expected` (the target).
///
/// intersection = Σ over n-grams of min(count in expected, count in actual);
/// precision = intersection / max(n-grams of actual, 1), recall = intersection / max(n-grams of
/// expected, 1), fmeasure = 2pr/(p+r) (0 when p + r = 0).
pub fn rouge_n(
    expected: &[u8],
    actual: &[u8],
    n: NonZeroUsize,
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    s: &mut Scratch,
    stop: &Context,
) -> Run<RougeScore> {
    let n = n.get();
    if n <= 2 && tokenizer == Tokenizer::Rouge && stemmer == Stemmer::None {
        if let Some((hits, len_e, len_a)) = packed_hits(expected, actual, n, &mut s.packed, stop)? {
            return Ok(score(hits, len_e, len_a, n));
        }
    }
    general(expected, actual, n, tokenizer, stemmer, s, stop)
}

/// [`rouge_n`] through the token keys, for every tokenizer, stemmer and order.
fn general(
    expected: &[u8],
    actual: &[u8],
    n: usize,
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    s: &mut Scratch,
    stop: &Context,
) -> Run<RougeScore> {
    let Scratch {
        tokens,
        keys_e,
        keys_a,
        tmp_keys,
        units,
        ngrams,
        ids_e,
        ids_a,
        grams_e,
        grams_a,
        tmp_e,
        tmp_a,
        counts_e,
        counts_a,
        ..
    } = s;
    token_keys_polling(expected, tokenizer, stemmer, tokens, keys_e, tmp_keys, stop)?;
    token_keys_polling(actual, tokenizer, stemmer, tokens, keys_a, tmp_keys, stop)?;
    let (len_e, len_a) = (keys_e.len(), keys_a.len());

    units.clear();
    ngrams.clear();
    ids_e.clear();
    units.ids_polling(keys_e, true, ids_e, stop)?;
    ids_a.clear();
    units.ids_polling(keys_a, false, ids_a, stop)?;

    // grams_e / grams_a: the ids of the n-grams of each order in turn.
    grams_e.clone_from(ids_e);
    grams_a.clone_from(ids_a);
    let mut vocab = units.len();
    for order in 2..=n {
        ngrams.next_order(order, grams_e, ids_e, true, tmp_e, stop)?;
        ngrams.next_order(order, grams_a, ids_a, false, tmp_a, stop)?;
        std::mem::swap(grams_e, tmp_e);
        std::mem::swap(grams_a, tmp_a);
        vocab = ngrams.len(order);
    }
    counts_e.clear();
    counts_e.resize(vocab, 0);
    counts_a.clear();
    counts_a.resize(vocab, 0);
    count_into(grams_e, counts_e);
    count_into(grams_a, counts_a);
    let hits = clipped_matches(counts_e, counts_a) as usize;
    Ok(score(hits, len_e, len_a, n))
}

/// The scores from the clipped overlap and the token counts of the two texts.
fn score(hits: usize, len_e: usize, len_a: usize, n: usize) -> RougeScore {
    let total_e = (len_e + 1).saturating_sub(n);
    let total_a = (len_a + 1).saturating_sub(n);
    let precision = hits as f64 / total_a.max(1) as f64;
    let recall = hits as f64 / total_e.max(1) as f64;
    RougeScore {
        precision,
        recall,
        fmeasure: fmeasure(precision, recall),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nz(n: usize) -> NonZeroUsize {
        NonZeroUsize::new(n).unwrap()
    }

    /// rouge-score's algorithm on string tokens, written naively.
    fn naive(e: &[&str], a: &[&str], n: usize) -> (f64, f64) {
        use std::collections::HashMap;
        let grams = |t: &[&str]| {
            let mut m: HashMap<Vec<String>, usize> = HashMap::new();
            if t.len() >= n {
                for w in t.windows(n) {
                    *m.entry(w.iter().map(|x| x.to_string()).collect())
                        .or_default() += 1;
                }
            }
            m
        };
        let (ge, ga) = (grams(e), grams(a));
        let hits: usize = ge
            .iter()
            .map(|(g, &c)| c.min(*ga.get(g).unwrap_or(&0)))
            .sum();
        let te: usize = ge.values().sum();
        let ta: usize = ga.values().sum();
        (
            hits as f64 / ta.max(1) as f64,
            hits as f64 / te.max(1) as f64,
        )
    }

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn a_raised_stop_halts_the_work() {
        let stop = Context::new();
        stop.raise();
        let s = &mut Scratch::default();
        let got = rouge_n(
            b"a b",
            b"a",
            nz(2),
            Tokenizer::Rouge,
            Stemmer::None,
            s,
            &stop,
        );
        assert_eq!(got.err(), Some(crate::metrics::halt::Halt::Stopped));
    }

    #[test]
    fn matches_the_naive_count() {
        let vocab = ["a", "b", "c", "dd", "e1"];
        let mut seed = 3u64;
        let s = &mut Scratch::default();
        for round in 0..500 {
            let le = (lcg(&mut seed) % 12) as usize;
            let la = (lcg(&mut seed) % 12) as usize;
            let e: Vec<&str> = (0..le)
                .map(|_| vocab[(lcg(&mut seed) % 5) as usize])
                .collect();
            let a: Vec<&str> = (0..la)
                .map(|_| vocab[(lcg(&mut seed) % 5) as usize])
                .collect();
            let n = 1 + round % 4;
            let got = rouge_n(
                e.join(" ").as_bytes(),
                a.join(" ").as_bytes(),
                nz(n),
                Tokenizer::Rouge,
                Stemmer::None,
                s,
                &Context::new(),
            )
            .unwrap();
            let (p, r) = naive(&e, &a, n);
            assert_eq!((got.precision, got.recall), (p, r), "{e:?} {a:?} n={n}");
            assert_eq!(got.fmeasure, fmeasure(p, r));
        }
    }

    #[test]
    fn clipping_stemming_and_empty_sides() {
        let s = &mut Scratch::default();
        let r = rouge_n(
            b"the the the",
            b"the",
            nz(1),
            Tokenizer::Rouge,
            Stemmer::None,
            s,
            &Context::new(),
        )
        .unwrap();
        assert_eq!((r.precision, r.recall), (1.0, 1.0 / 3.0));
        let r = rouge_n(
            b"cats running",
            b"cat runs",
            nz(2),
            Tokenizer::Rouge,
            Stemmer::Porter,
            s,
            &Context::new(),
        )
        .unwrap();
        assert_eq!(r.fmeasure, 1.0);
        let r = rouge_n(
            b"",
            b"",
            nz(1),
            Tokenizer::Rouge,
            Stemmer::None,
            s,
            &Context::new(),
        )
        .unwrap();
        assert_eq!((r.precision, r.recall, r.fmeasure), (0.0, 0.0, 0.0));
        let r = rouge_n(
            b"a b",
            b"a",
            nz(3),
            Tokenizer::Rouge,
            Stemmer::None,
            s,
            &Context::new(),
        )
        .unwrap();
        assert_eq!(r.fmeasure, 0.0);
    }

    #[test]
    fn the_packed_path_scores_as_the_general_path() {
        // Pieces that keep the fast path (letters, digits, punctuation, spaces, other scripts)
        // and ones that send a text to the general path (a token over 15 bytes, U+0130, U+212A).
        const POOL: [&str; 24] = [
            " ",
            "  ",
            ", ",
            ".",
            "-",
            "\n",
            "a",
            "b",
            "The",
            "THE",
            "cat",
            "Cat",
            "x1",
            "42",
            "é",
            "東京",
            "😀",
            "naïve",
            "tokenoffifteen!",
            "sixteen-letters!",
            "abcdefghijklmnopq",
            "İ",
            "\u{212A}",
            "_",
        ];
        let mut seed = 0x5DEE_CE66_D1CE_4E5Bu64;
        let (mut s, stop) = (Scratch::default(), Context::new());
        let mut fast = 0;
        for round in 0..4_000 {
            let mut text = || {
                let len = (lcg(&mut seed) % 24) as usize;
                let mut t = String::new();
                for _ in 0..len {
                    t.push_str(POOL[(lcg(&mut seed) % POOL.len() as u64) as usize]);
                    t.push(' ');
                }
                t
            };
            let (e, a) = (text(), text());
            let n = 1 + round % 2;
            let want = general(
                e.as_bytes(),
                a.as_bytes(),
                n,
                Tokenizer::Rouge,
                Stemmer::None,
                &mut s,
                &stop,
            )
            .unwrap();
            let got = rouge_n(
                e.as_bytes(),
                a.as_bytes(),
                nz(n),
                Tokenizer::Rouge,
                Stemmer::None,
                &mut s,
                &stop,
            )
            .unwrap();
            let bits = |r: RougeScore| {
                (
                    r.precision.to_bits(),
                    r.recall.to_bits(),
                    r.fmeasure.to_bits(),
                )
            };
            assert_eq!(bits(got), bits(want), "{e:?} {a:?} {n}");
            let packed = packed_hits(e.as_bytes(), a.as_bytes(), n, &mut s.packed, &stop);
            fast += usize::from(packed.unwrap().is_some());
        }
        assert!(fast > 400 && fast < 3_900, "{fast}");
    }

    #[test]
    fn bigrams_of_long_texts_score_as_the_general_path() {
        // Expected texts around the grid's limit of 255 tokens, with few distinct tokens (the
        // grid by distinct ids past it) and with many (the table of id pairs).
        let mut seed = 17u64;
        let (mut s, stop) = (Scratch::default(), Context::new());
        for len in (250..=260).chain([300, 700]) {
            for vocab in [7u64, 400] {
                let mut text = |len: usize| {
                    (0..len)
                        .map(|_| format!("w{}", lcg(&mut seed) % vocab))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let (e, a) = (text(len), text(len * 3 / 4 + 5));
                let got = rouge_n(
                    e.as_bytes(),
                    a.as_bytes(),
                    nz(2),
                    Tokenizer::Rouge,
                    Stemmer::None,
                    &mut s,
                    &stop,
                )
                .unwrap();
                let want = general(
                    e.as_bytes(),
                    a.as_bytes(),
                    2,
                    Tokenizer::Rouge,
                    Stemmer::None,
                    &mut s,
                    &stop,
                )
                .unwrap();
                assert_eq!(got, want, "{len} tokens, {vocab} words");
                assert!(got.precision > 0.0 || vocab > 7, "{len} {vocab}");
            }
        }
    }
}
