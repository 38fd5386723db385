//! ROUGE-Lsum: summary-level LCS over newline-separated sentences, as rouge-score's
//! `_summary_level_lcs` computes it (section 3.2 of the ROUGE paper, with ROUGE 1.5.5's guard
//! against counting a token twice).
//!
//! For each expected sentence r, the union over actual sentences c of the positions of r on one
//! longest common subsequence of (r, c) — the one rouge-score's backtrack picks — is taken; a
//! token of r at such a position is a hit while both summaries still have an unused copy of it.
//! precision = hits / tokens(actual), recall = hits / tokens(expected).
//!
//! Which LCS the backtrack finds depends on the table, so the table is rebuilt exactly: one
//! bit-parallel column per token of c (bit i of column j clear ⇔ LCS(r[..i+1], c[..j]) =
//! LCS(r[..i], c[..j]) + 1), so LCS(r[..i], c[..j]) is the number of clear bits below bit i.
//! Long sentences keep a checkpoint every √|c| columns and recompute one block at a time while
//! backtracking, so memory stays O(√|c| · |r| / 64) words.

use super::halt::{Context, Run, TryVec};
use super::ngrams::TokenIds;
use super::pattern::{symbols_per_check, PatternMasks};
use super::rouge_tokens::{
    fmeasure, token_keys_polling, RougeScore, Stemmer, TokenScratch, Tokenizer,
};
use super::text::TokenKey;

/// Columns stored whole when (|c| + 1) · words stays below this; else checkpoints.
const COLUMN_BUDGET: usize = 1 << 18;

/// LCS(r[..i], c[..j]) from column j: the clear bits below bit i.
#[inline]
fn prefix_lcs(col: &[u64], i: usize) -> u32 {
    let (full, rest) = (i / 64, i % 64);
    let mut n: u32 = col[..full].iter().map(|w| (!w).count_ones()).sum();
    if rest != 0 {
        n += (!col[full] & ((1u64 << rest) - 1)).count_ones();
    }
    n
}

/// Reusable buffers so a batch allocates once per thread, not once per pair.
#[derive(Default)]
pub struct Scratch {
    tokens: TokenScratch,
    keys: [Vec<TokenKey>; 2],
    units: TokenIds,
    ids_e: Vec<u32>,
    ids_a: Vec<u32>,
    sents_e: Vec<(u32, u32)>,
    sents_a: Vec<(u32, u32)>,
    counts_e: Vec<u32>,
    counts_a: Vec<u32>,
    masks: PatternMasks,
    marks: Vec<bool>,
    v: Vec<u64>,
    checkpoints: Vec<u64>,
    columns: Vec<u64>,
}

/// Tokenize each non-empty line of `text` into ids (interned when `insert`), recording each
/// sentence's span of `ids`; `stop` is polled every line and every 1 MiB of a long one.
#[allow(clippy::too_many_arguments)]
fn sentences(
    text: &[u8],
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    insert: bool,
    tokens: &mut TokenScratch,
    keys: &mut [Vec<TokenKey>; 2],
    units: &mut TokenIds,
    ids: &mut Vec<u32>,
    sents: &mut Vec<(u32, u32)>,
    stop: &Context,
) -> Run<()> {
    ids.clear();
    sents.clear();
    let [keys, piece] = keys;
    for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        token_keys_polling(line, tokenizer, stemmer, tokens, keys, piece, stop)?;
        let begin = ids.len() as u32;
        units.ids_polling(keys, insert, ids, stop)?;
        sents.push((begin, ids.len() as u32));
    }
    Ok(())
}

/// Mark in `marks` the positions of `r` on the LCS of (r, c) that rouge-score's backtrack
/// reads out. `masks` holds r's masks.
#[allow(clippy::too_many_arguments)]
fn mark_lcs(
    r: &[u32],
    c: &[u32],
    masks: &mut PatternMasks,
    v: &mut Vec<u64>,
    checkpoints: &mut Vec<u64>,
    columns: &mut Vec<u64>,
    marks: &mut [bool],
    stop: &Context,
) -> Run<()> {
    let words = masks.words();
    let n = c.len();
    let block = if (n + 1).saturating_mul(words) <= COLUMN_BUDGET {
        n
    } else {
        (n as f64).sqrt().ceil() as usize
    }
    .max(1);
    checkpoints.clear();
    columns.clear();
    checkpoints.try_capacity((n / block + 1) * words, "ROUGE-Lsum checkpoints")?;
    columns.try_capacity((block + 1) * words, "ROUGE-Lsum columns")?;
    if block < n {
        v.clear();
        v.try_resize(words, !0u64, "the ROUGE-Lsum column")?;
        checkpoints.extend_from_slice(v);
        let per_check = symbols_per_check(words);
        for (j, &sym) in c.iter().enumerate() {
            if j % per_check == 0 {
                stop.check_before(per_check * words)?;
            }
            masks.advance_lcs(v, sym as usize);
            if (j + 1) % block == 0 {
                checkpoints.extend_from_slice(v);
            }
        }
    }
    let (mut i, mut j) = (r.len(), n);
    while i > 0 && j > 0 {
        let begin = (j - 1) / block * block;
        stop.check_before((j - begin) * words)?;
        // Columns begin..=j of the table, from the checkpoint at `begin`.
        v.clear();
        if block < n {
            let k = begin / block;
            v.extend_from_slice(&checkpoints[k * words..(k + 1) * words]);
        } else {
            v.try_resize(words, !0u64, "the ROUGE-Lsum column")?;
        }
        columns.clear();
        columns.extend_from_slice(v);
        for &sym in &c[begin..j] {
            masks.advance_lcs(v, sym as usize);
            columns.extend_from_slice(v);
        }
        let col = |jj: usize| &columns[(jj - begin) * words..(jj - begin + 1) * words];
        while i > 0 && j > begin {
            if r[i - 1] == c[j - 1] {
                marks[i - 1] = true;
                i -= 1;
                j -= 1;
            } else if prefix_lcs(col(j - 1), i) > prefix_lcs(col(j), i - 1) {
                j -= 1;
            } else {
                i -= 1;
            }
        }
    }
    Ok(())
}

/// ROUGE-Lsum of `actual` (the prediction) against `expected` (the target). Sentences are the
/// non-empty pieces between `\n`s; either side without tokens scores 0. The table work,
/// O(|r|·|c|/64) per pair of sentences, polls `stop`.
pub fn rouge_lsum(
    expected: &[u8],
    actual: &[u8],
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    s: &mut Scratch,
    stop: &Context,
) -> Run<RougeScore> {
    let zero = RougeScore {
        precision: 0.0,
        recall: 0.0,
        fmeasure: 0.0,
    };
    let Scratch {
        tokens,
        keys,
        units,
        ids_e,
        ids_a,
        sents_e,
        sents_a,
        counts_e,
        counts_a,
        masks,
        marks,
        v,
        checkpoints,
        columns,
    } = s;
    units.clear();
    sentences(
        expected, tokenizer, stemmer, true, tokens, keys, units, ids_e, sents_e, stop,
    )?;
    sentences(
        actual, tokenizer, stemmer, false, tokens, keys, units, ids_a, sents_a, stop,
    )?;
    let (m, n) = (ids_e.len(), ids_a.len());
    if m == 0 || n == 0 {
        return Ok(zero);
    }
    let vocab = units.len();
    counts_e.clear();
    counts_e.try_resize(vocab, 0, "ROUGE-Lsum token counts")?;
    counts_a.clear();
    counts_a.try_resize(vocab, 0, "ROUGE-Lsum token counts")?;
    super::ngrams::count_into(ids_e, counts_e);
    super::ngrams::count_into(ids_a, counts_a);

    let mut hits = 0u64;
    for &(rb, re) in sents_e.iter() {
        let r = &ids_e[rb as usize..re as usize];
        if r.is_empty() {
            continue;
        }
        masks.build(r, vocab)?;
        marks.clear();
        marks.try_resize(r.len(), false, "ROUGE-Lsum marks")?;
        for &(cb, ce) in sents_a.iter() {
            let c = &ids_a[cb as usize..ce as usize];
            if !c.is_empty() {
                mark_lcs(r, c, masks, v, checkpoints, columns, marks, stop)?;
            }
        }
        masks.reset(r);
        for (i, _) in marks.iter().enumerate().filter(|(_, &hit)| hit) {
            let t = r[i] as usize;
            if counts_a[t] > 0 && counts_e[t] > 0 {
                hits += 1;
                counts_a[t] -= 1;
                counts_e[t] -= 1;
            }
        }
    }
    let precision = hits as f64 / n as f64;
    let recall = hits as f64 / m as f64;
    Ok(RougeScore {
        precision,
        recall,
        fmeasure: fmeasure(precision, recall),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rouge-score's `lcs_ind`: the full table and its backtrack, written naively.
    fn naive_lcs_ind(r: &[u32], c: &[u32]) -> Vec<usize> {
        let (rows, cols) = (r.len(), c.len());
        let mut t = vec![vec![0u32; cols + 1]; rows + 1];
        for i in 1..=rows {
            for j in 1..=cols {
                t[i][j] = if r[i - 1] == c[j - 1] {
                    t[i - 1][j - 1] + 1
                } else {
                    t[i - 1][j].max(t[i][j - 1])
                };
            }
        }
        let (mut i, mut j, mut out) = (rows, cols, Vec::new());
        while i > 0 && j > 0 {
            if r[i - 1] == c[j - 1] {
                out.push(i - 1);
                i -= 1;
                j -= 1;
            } else if t[i][j - 1] > t[i - 1][j] {
                j -= 1;
            } else {
                i -= 1;
            }
        }
        out.reverse();
        out
    }

    fn lcg(seed: &mut u64) -> u32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 33) as u32
    }

    fn marks_of(r: &[u32], c: &[u32], vocab: usize) -> Vec<usize> {
        let mut masks = PatternMasks::default();
        masks.build(r, vocab).unwrap();
        let mut marks = vec![false; r.len()];
        let (mut v, mut ck, mut cols) = (Vec::new(), Vec::new(), Vec::new());
        mark_lcs(
            r,
            c,
            &mut masks,
            &mut v,
            &mut ck,
            &mut cols,
            &mut marks,
            &Context::new(),
        )
        .unwrap();
        masks.reset(r);
        (0..r.len()).filter(|&i| marks[i]).collect()
    }

    #[test]
    fn backtrack_picks_rouge_scores_lcs() {
        let mut seed = 11u64;
        for round in 0..600 {
            let alphabet = 1 + round % 7;
            let lr = (lcg(&mut seed) % 150) as usize;
            let lc = (lcg(&mut seed) % 150) as usize;
            let r: Vec<u32> = (0..lr).map(|_| lcg(&mut seed) % alphabet).collect();
            let c: Vec<u32> = (0..lc).map(|_| lcg(&mut seed) % alphabet).collect();
            assert_eq!(
                marks_of(&r, &c, alphabet as usize),
                naive_lcs_ind(&r, &c),
                "round {round}"
            );
        }
    }

    #[test]
    fn checkpointed_backtrack_on_long_sentences() {
        // Past COLUMN_BUDGET, so the table is rebuilt block by block.
        let mut seed = 5u64;
        for alphabet in [2u32, 40, 3000] {
            let r: Vec<u32> = (0..2500).map(|_| lcg(&mut seed) % alphabet).collect();
            let c: Vec<u32> = (0..7000).map(|_| lcg(&mut seed) % alphabet).collect();
            assert!((c.len() + 1) * r.len().div_ceil(64) > COLUMN_BUDGET);
            assert_eq!(marks_of(&r, &c, alphabet as usize), naive_lcs_ind(&r, &c));
        }
    }

    fn lsum(e: &str, a: &str) -> RougeScore {
        rouge_lsum(
            e.as_bytes(),
            a.as_bytes(),
            Tokenizer::Rouge,
            Stemmer::None,
            &mut Scratch::default(),
            &Context::new(),
        )
        .unwrap()
    }

    #[test]
    fn a_raised_stop_halts_the_table_work() {
        let stop = Context::new();
        stop.raise();
        let got = rouge_lsum(
            b"a b",
            b"a b",
            Tokenizer::Rouge,
            Stemmer::None,
            &mut Scratch::default(),
            &stop,
        );
        assert_eq!(got, Err(super::super::halt::Halt::Stopped));
    }

    #[test]
    fn summary_level_scores() {
        // The ROUGE paper's example: r = w1..w5, c1 = w1 w2 w6 w7 w8, c2 = w1 w3 w8 w9 w5;
        // union LCS = w1 w2 w3 w5: 4 hits of 5 expected and 10 actual tokens.
        let r = lsum("w1 w2 w3 w4 w5", "w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5");
        assert_eq!((r.precision, r.recall), (4.0 / 10.0, 4.0 / 5.0));
        // A token is counted at most as often as both sides hold it.
        let r = lsum("a a\na a", "a");
        assert_eq!((r.precision, r.recall), (1.0, 0.25));
        assert_eq!(lsum("", "a").fmeasure, 0.0);
        assert_eq!(lsum("\n\n", "a").fmeasure, 0.0);
        assert_eq!(lsum("a\n\nb", "b\na").fmeasure, 1.0);
        assert_eq!(lsum("A b.\nC d", "c d\na b").fmeasure, 1.0);
    }
}
