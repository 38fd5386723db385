//! GLEU (Wu et al. 2016) as NLTK's `nltk.translate.gleu_score` defines it, over tokens split on
//! Python whitespace (`str.split()`).
//!
//! For a hypothesis and one reference, count every n-gram of orders `min_len..=max_len` of
//! each; `tp` is the clipped overlap of the two counts and `n_all` the larger of the two totals.
//! Over several references NLTK keeps the reference of best `tp / n_all` (the first on ties,
//! references with `n_all == 0` left out); the sentence score is that ratio (0 when no reference
//! counts), and the corpus score sums `tp` and `n_all` over rows before dividing.

use rustc_hash::FxHashMap;

use super::halt::Context;
use super::text::{decode, for_each_py_token, TokenKey};
use crate::errors::EvalResult;

/// Reusable buffers: the token table and the token ids of the texts of one row.
#[derive(Default)]
pub struct Scratch {
    ids: FxHashMap<TokenKey, u32>,
    hyp: Vec<u32>,
    reference: Vec<u32>,
}

/// Append the ids of `text`'s whitespace tokens to `out`, interning new tokens in `ids`.
pub(crate) fn token_ids(text: &[u8], ids: &mut FxHashMap<TokenKey, u32>, out: &mut Vec<u32>) {
    out.clear();
    let cps = decode(text);
    for_each_py_token(&cps, |tok| {
        let next = ids.len() as u32;
        out.push(*ids.entry(TokenKey::of(tok)).or_insert(next));
    });
}

fn counts(ids: &[u32], min_len: usize, max_len: usize) -> (FxHashMap<&[u32], u64>, u64) {
    let mut map: FxHashMap<&[u32], u64> = FxHashMap::default();
    let mut total = 0u64;
    for n in min_len..=max_len.min(ids.len()) {
        for gram in ids.windows(n) {
            *map.entry(gram).or_insert(0) += 1;
            total += 1;
        }
    }
    (map, total)
}

/// `(tp, n_all)` of the reference NLTK keeps for this row, `(0, 0)` when none counts.
pub fn statistics(
    refs: &[&[u8]],
    hyp: &[u8],
    min_len: usize,
    max_len: usize,
    s: &mut Scratch,
    stop: &Context,
) -> EvalResult<(u64, u64)> {
    s.ids.clear();
    token_ids(hyp, &mut s.ids, &mut s.hyp);
    let (hyp_counts, tpfp) = counts(&s.hyp, min_len, max_len);
    let mut best: Option<(u64, u64)> = None;
    for reference in refs {
        stop.check()?;
        token_ids(reference, &mut s.ids, &mut s.reference);
        let (ref_counts, tpfn) = counts(&s.reference, min_len, max_len);
        let tp: u64 = ref_counts
            .iter()
            .map(|(gram, &c)| c.min(hyp_counts.get(gram).copied().unwrap_or(0)))
            .sum();
        let n_all = tpfp.max(tpfn);
        if n_all == 0 {
            continue;
        }
        let better = match best {
            None => true,
            Some((btp, ball)) => (tp as f64 / n_all as f64) > (btp as f64 / ball as f64),
        };
        if better {
            best = Some((tp, n_all));
        }
    }
    Ok(best.unwrap_or((0, 0)))
}

/// The sentence GLEU of `hyp` against `refs`.
pub fn gleu(
    refs: &[&[u8]],
    hyp: &[u8],
    min_len: usize,
    max_len: usize,
    s: &mut Scratch,
    stop: &Context,
) -> EvalResult<f64> {
    let (tp, n_all) = statistics(refs, hyp, min_len, max_len, s, stop)?;
    Ok(if n_all == 0 {
        0.0
    } else {
        tp as f64 / n_all as f64
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(refs: &[&str], hyp: &str) -> f64 {
        let refs: Vec<&[u8]> = refs.iter().map(|r| r.as_bytes()).collect();
        gleu(
            &refs,
            hyp.as_bytes(),
            1,
            4,
            &mut Scratch::default(),
            &Context::new(),
        )
        .unwrap()
    }

    #[test]
    fn identical_is_one_and_disjoint_is_zero() {
        assert_eq!(score(&["a b c"], "a b c"), 1.0);
        assert_eq!(score(&["a b c"], "d e"), 0.0);
        assert_eq!(score(&[""], ""), 0.0);
    }

    #[test]
    fn counts_every_order() {
        // hyp "a b": a, b, ab (3); ref "a b c": a, b, c, ab, bc, abc (6); overlap 3.
        assert_eq!(score(&["a b c"], "a b"), 0.5);
    }
}
