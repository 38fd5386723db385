//! METEOR as NLTK's `nltk.translate.meteor_score.meteor_score` computes it with its default
//! parameters, on exact and Porter-stem matches (no WordNet synonyms), over tokens split on
//! Python whitespace (`str.split()`) and lowercased as `str.lower` does.
//!
//! The alignment is NLTK's, step for step: exact matches first, then matches of the Porter
//! stems (NLTK's default mode, `porter.rs`) of the words left; in each stage hypothesis words
//! are taken from the last to the first, each matched to the last unmatched reference position
//! of an equal word. The matches, in hypothesis order, are cut into chunks of adjacent words;
//! the score is `(1 - gamma * (chunks / matches) ^ beta) * P * R / (alpha * P + (1 - alpha) * R)`,
//! and the best over references.

use rustc_hash::FxHashMap;

use super::halt::Context;
use super::porter;
use super::text::{decode, for_each_py_token, py_lower_into, TokenKey};
use crate::errors::EvalResult;

/// METEOR's parameters (NLTK's defaults: 0.9, 3.0, 0.5).
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

/// One text's words: the id of each lowercased word and of its stem.
#[derive(Default)]
struct Words {
    word: Vec<u32>,
    stem: Vec<u32>,
}

/// Reusable buffers.
#[derive(Default)]
pub struct Scratch {
    ids: FxHashMap<TokenKey, u32>,
    lower: Vec<u32>,
    hyp: Words,
    reference: Words,
    positions: FxHashMap<u32, Vec<usize>>,
    matches: Vec<(usize, usize)>,
}

fn intern(ids: &mut FxHashMap<TokenKey, u32>, cps: &[u32]) -> u32 {
    let next = ids.len() as u32;
    *ids.entry(TokenKey::of(cps)).or_insert(next)
}

fn words(text: &[u8], ids: &mut FxHashMap<TokenKey, u32>, lower: &mut Vec<u32>, out: &mut Words) {
    out.word.clear();
    out.stem.clear();
    let cps = decode(text);
    for_each_py_token(&cps, |tok| {
        lower.clear();
        py_lower_into(tok, lower);
        out.word.push(intern(ids, lower));
        porter::stem(lower);
        out.stem.push(intern(ids, lower));
    });
}

/// NLTK's `_match_enums` on the still unmatched words (`free_*` hold their positions),
/// comparing `key_*`: matched pairs go to `matches` and leave the free lists.
fn match_stage(
    key_h: &[u32],
    key_r: &[u32],
    free_h: &mut Vec<usize>,
    free_r: &mut Vec<usize>,
    positions: &mut FxHashMap<u32, Vec<usize>>,
    matches: &mut Vec<(usize, usize)>,
) {
    positions.clear();
    for (j, &r) in free_r.iter().enumerate() {
        positions.entry(key_r[r]).or_default().push(j);
    }
    let mut used_h = vec![false; free_h.len()];
    let mut used_r = vec![false; free_r.len()];
    for i in (0..free_h.len()).rev() {
        if let Some(js) = positions.get_mut(&key_h[free_h[i]]) {
            if let Some(j) = js.pop() {
                used_h[i] = true;
                used_r[j] = true;
                matches.push((free_h[i], free_r[j]));
            }
        }
    }
    let mut k = 0;
    free_h.retain(|_| {
        k += 1;
        !used_h[k - 1]
    });
    k = 0;
    free_r.retain(|_| {
        k += 1;
        !used_r[k - 1]
    });
}

fn chunks(matches: &[(usize, usize)]) -> usize {
    1 + matches
        .windows(2)
        .filter(|w| !(w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1))
        .count()
}

fn single(
    h: &Words,
    r: &Words,
    p: Params,
    s_pos: &mut FxHashMap<u32, Vec<usize>>,
    m: &mut Vec<(usize, usize)>,
) -> f64 {
    let (nh, nr) = (h.word.len(), r.word.len());
    let mut free_h: Vec<usize> = (0..nh).collect();
    let mut free_r: Vec<usize> = (0..nr).collect();
    m.clear();
    match_stage(&h.word, &r.word, &mut free_h, &mut free_r, s_pos, m);
    match_stage(&h.stem, &r.stem, &mut free_h, &mut free_r, s_pos, m);
    let count = m.len();
    if nh == 0 || nr == 0 || count == 0 {
        return 0.0;
    }
    m.sort_unstable_by_key(|pair| pair.0);
    let precision = count as f64 / nh as f64;
    let recall = count as f64 / nr as f64;
    let fmean = (precision * recall) / (p.alpha * precision + (1.0 - p.alpha) * recall);
    let frag = chunks(m) as f64 / count as f64;
    let penalty = p.gamma * frag.powf(p.beta);
    (1.0 - penalty) * fmean
}

/// The METEOR score of `hyp` against the best of `refs`.
pub fn meteor(
    refs: &[&[u8]],
    hyp: &[u8],
    params: Params,
    s: &mut Scratch,
    stop: &Context,
) -> EvalResult<f64> {
    s.ids.clear();
    words(hyp, &mut s.ids, &mut s.lower, &mut s.hyp);
    let mut best = f64::NEG_INFINITY;
    for reference in refs {
        stop.check()?;
        words(reference, &mut s.ids, &mut s.lower, &mut s.reference);
        let score = single(
            &s.hyp,
            &s.reference,
            params,
            &mut s.positions,
            &mut s.matches,
        );
        if score > best || best == f64::NEG_INFINITY {
            best = score;
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT: Params = Params {
        alpha: 0.9,
        beta: 3.0,
        gamma: 0.5,
    };

    fn score(refs: &[&str], hyp: &str) -> f64 {
        let refs: Vec<&[u8]> = refs.iter().map(|r| r.as_bytes()).collect();
        meteor(
            &refs,
            hyp.as_bytes(),
            DEFAULT,
            &mut Scratch::default(),
            &Context::new(),
        )
        .unwrap()
    }

    #[test]
    fn no_match_is_zero() {
        assert_eq!(score(&["this is a cat"], "non matching hypothesis"), 0.0);
        assert_eq!(score(&[""], "a"), 0.0);
    }

    #[test]
    fn nltk_doctest() {
        let h = "It is a guide to action which ensures that the military always obeys the commands of the party";
        let r = "It is a guide to action that ensures that the military will forever heed Party commands";
        assert_eq!((score(&[r], h) * 1e4).round() / 1e4, 0.6944);
    }

    #[test]
    fn stems_match() {
        // "cats" and "cat" share the stem "cat": one match, one chunk.
        let s = score(&["cat"], "cats");
        assert!((s - 0.5).abs() < 1e-12, "{s}");
    }
}
