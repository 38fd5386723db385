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
use super::text::{decode_into, for_each_py_token, py_lower_into, TokenKey};
use crate::errors::EvalResult;

/// METEOR's parameters (NLTK's defaults: 0.9, 3.0, 0.5).
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

/// One text's words: each lowercased word's code points (a span of `lower`), its id, and the
/// id of its Porter stem once needed.
#[derive(Default)]
struct Words {
    lower: Vec<u32>,
    spans: Vec<(usize, usize)>,
    word: Vec<u32>,
    stem: Vec<u32>,
}

const NO_STEM: u32 = u32::MAX;

/// Reusable buffers.
#[derive(Default)]
pub struct Scratch {
    ids: FxHashMap<TokenKey, u32>,
    cps: Vec<u32>,
    stem: Vec<u32>,
    hyp: Words,
    reference: Words,
    free_h: Vec<usize>,
    free_r: Vec<usize>,
    used: Vec<bool>,
    head: Vec<usize>,
    prev: Vec<usize>,
    matches: Vec<(usize, usize)>,
    /// The stem id of each word id seen since `ids` was last cleared ([`NO_STEM`]: not yet
    /// stemmed): words recur from row to row, and stemming is the costly part.
    stem_of: Vec<u32>,
}

/// `ids` (and the stems known) are kept from row to row until they hold this many tokens.
const IDS_KEPT: usize = 1 << 16;

fn intern(ids: &mut FxHashMap<TokenKey, u32>, cps: &[u32]) -> u32 {
    let next = ids.len() as u32;
    *ids.entry(TokenKey::of(cps)).or_insert(next)
}

fn words(text: &[u8], ids: &mut FxHashMap<TokenKey, u32>, cps: &mut Vec<u32>, out: &mut Words) {
    out.lower.clear();
    out.spans.clear();
    out.word.clear();
    out.stem.clear();
    cps.clear();
    decode_into(text, cps);
    for_each_py_token(cps, |tok| {
        let from = out.lower.len();
        py_lower_into(tok, &mut out.lower);
        out.spans.push((from, out.lower.len()));
        out.word.push(intern(ids, &out.lower[from..]));
        out.stem.push(NO_STEM);
    });
}

/// The stem ids of the still unmatched words of `w` (NLTK stems them all; only these count),
/// each stemmed once while `ids` lasts (`stem_of`, by word id).
fn stem_free(
    w: &mut Words,
    free: &[usize],
    ids: &mut FxHashMap<TokenKey, u32>,
    stem_of: &mut Vec<u32>,
    buf: &mut Vec<u32>,
) {
    for &k in free {
        let word = w.word[k] as usize;
        if word >= stem_of.len() {
            stem_of.resize(ids.len().max(word + 1), NO_STEM);
        }
        if stem_of[word] == NO_STEM {
            let (a, b) = w.spans[k];
            buf.clear();
            buf.extend_from_slice(&w.lower[a..b]);
            porter::stem(buf);
            stem_of[word] = intern(ids, buf);
        }
        w.stem[k] = stem_of[word];
    }
}

const NONE: usize = usize::MAX;

/// NLTK's `_match_enums` on the still unmatched words (`free_*` hold their positions),
/// comparing `key_*` (ids below `n_ids`): hypothesis words from the last to the first each
/// take the last free reference position of an equal key. Matched pairs go to `matches` and
/// leave the free lists.
#[allow(clippy::too_many_arguments)]
fn match_stage(
    key_h: &[u32],
    key_r: &[u32],
    n_ids: usize,
    free_h: &mut Vec<usize>,
    free_r: &mut Vec<usize>,
    head: &mut Vec<usize>,
    prev: &mut Vec<usize>,
    used: &mut Vec<bool>,
    matches: &mut Vec<(usize, usize)>,
) {
    // `head` is all NONE between calls (every key set below is reset at the end), so only
    // the ids new since the last call are written here, not all `n_ids`.
    if head.len() < n_ids {
        head.resize(n_ids, NONE);
    }
    prev.clear();
    prev.resize(free_r.len(), NONE);
    for (j, &r) in free_r.iter().enumerate() {
        let key = key_r[r] as usize;
        prev[j] = head[key];
        head[key] = j;
    }
    used.clear();
    used.resize(free_r.len(), false);
    let before = matches.len();
    free_h.retain(|&h| {
        let key = key_h[h] as usize;
        let j = head[key];
        if j == NONE {
            return true;
        }
        head[key] = prev[j];
        used[j] = true;
        matches.push((h, free_r[j]));
        false
    });
    for &r in free_r.iter() {
        head[key_r[r] as usize] = NONE;
    }
    if matches.len() > before {
        let mut k = 0;
        free_r.retain(|_| {
            k += 1;
            !used[k - 1]
        });
    }
}

fn chunks(matches: &[(usize, usize)]) -> usize {
    1 + matches
        .windows(2)
        .filter(|w| !(w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1))
        .count()
}

fn single(s: &mut Scratch, p: Params) -> f64 {
    let Scratch {
        ids,
        stem,
        hyp: h,
        reference: r,
        free_h,
        free_r,
        used,
        head,
        prev,
        matches: m,
        stem_of,
        ..
    } = s;
    let (nh, nr) = (h.word.len(), r.word.len());
    // `retain` walks the hypothesis from the first word; NLTK walks from the last, so the
    // free hypothesis list is kept in reverse order.
    free_h.clear();
    free_h.extend((0..nh).rev());
    free_r.clear();
    free_r.extend(0..nr);
    m.clear();
    match_stage(
        &h.word,
        &r.word,
        ids.len(),
        free_h,
        free_r,
        head,
        prev,
        used,
        m,
    );
    if !free_h.is_empty() && !free_r.is_empty() {
        stem_free(h, free_h, ids, stem_of, stem);
        stem_free(r, free_r, ids, stem_of, stem);
        match_stage(
            &h.stem,
            &r.stem,
            ids.len(),
            free_h,
            free_r,
            head,
            prev,
            used,
            m,
        );
    }
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
    if s.ids.len() > IDS_KEPT {
        s.ids.clear();
        s.stem_of.clear();
        s.head.clear();
    }
    words(hyp, &mut s.ids, &mut s.cps, &mut s.hyp);
    let mut best = f64::NEG_INFINITY;
    for reference in refs {
        stop.check()?;
        words(reference, &mut s.ids, &mut s.cps, &mut s.reference);
        s.hyp.stem.iter_mut().for_each(|x| *x = NO_STEM);
        let score = single(s, params);
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
