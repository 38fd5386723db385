//! GLEU (Wu et al. 2016) as NLTK's `nltk.translate.gleu_score` defines it, over tokens split on
//! Python whitespace (`str.split()`).
//!
//! For a hypothesis and one reference, count every n-gram of orders `min_len..=max_len` of
//! each; `tp` is the clipped overlap of the two counts and `n_all` the larger of the two totals.
//! Over several references NLTK keeps the reference of best `tp / n_all` (the first on ties,
//! references with `n_all == 0` left out); the sentence score is that ratio (0 when no reference
//! counts), and the corpus score sums `tp` and `n_all` over rows before dividing.
//!
//! N-grams of up to four tokens are packed into one integer each and counted in a table: with
//! one reference (the usual case) the reference's n-grams are counted and the hypothesis' taken
//! out, skipping those with a token the reference lacks; with several, the hypothesis' are
//! counted once and each reference's matched against them.

use rustc_hash::FxHashMap;

use super::halt::{Context, Run};
use super::key_table::KeyTable;
use super::ngrams::{TokenIds, ABSENT};
use super::text::{decode_into, for_each_py_token, TokenKey};
use super::tokens::masks::{Masks, Scheme};
use super::tokens::packed::packed_at;
use crate::errors::EvalResult;

/// Reusable buffers: the token table, the masks of a text, code points, token ids, packed
/// n-grams of a row and the hypothesis' n-gram counts.
#[derive(Default)]
pub struct Scratch {
    ids: TokenIds,
    masks: Masks,
    grams: KeyTable<u64, GramCount>,
    cps: Vec<u32>,
    hyp: Vec<u32>,
    reference: Vec<u32>,
    hyp_grams: Vec<u64>,
    ref_grams: Vec<u64>,
}

/// Call `each(key)` for every whitespace token of `text` when it is ASCII, read off the masks
/// of [`Masks`] (no branch per byte); `false`, with nothing called, when it is not.
#[inline(always)]
fn each_ascii_token(
    text: &[u8],
    masks: &mut Masks,
    stop: &Context,
    mut each: impl FnMut(TokenKey),
) -> Run<bool> {
    masks.fill(text, Scheme::Whitespace, stop)?;
    if masks.closer[..masks.words].iter().any(|&w| w != 0) {
        return Ok(false);
    }
    let Masks { text: padded, .. } = &*masks;
    masks.for_each_run(stop, |start, end| {
        each(if end - start <= 15 {
            TokenKey::Packed(packed_at(padded, start, end))
        } else {
            TokenKey::of_ascii(&padded[start..end])
        })
    })?;
    Ok(true)
}

/// What a token `ids` lacks gets: a new id, or [`ABSENT`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unseen {
    Intern,
    Absent,
}

/// Append the ids of `text`'s whitespace tokens to `out`; a token `ids` lacks is interned or
/// gets [`ABSENT`], as `unseen` says (a constant at every call: inlined, the choice costs no
/// branch per token).
#[inline(always)]
fn token_ids(
    text: &[u8],
    ids: &mut TokenIds,
    unseen: Unseen,
    masks: &mut Masks,
    cps: &mut Vec<u32>,
    out: &mut Vec<u32>,
    stop: &Context,
) -> Run<()> {
    out.clear();
    let ascii = each_ascii_token(text, masks, stop, |key| {
        out.push(match (key, unseen) {
            (TokenKey::Packed(k), Unseen::Intern) => ids.intern_packed(k),
            (TokenKey::Packed(k), Unseen::Absent) => ids.get_packed(k),
            (long, Unseen::Intern) => ids.intern(long),
            (long, Unseen::Absent) => ids.get(&long),
        })
    })?;
    if !ascii {
        cps.clear();
        decode_into(text, cps);
        for_each_py_token(cps, |tok| {
            let key = TokenKey::of(tok);
            out.push(match unseen {
                Unseen::Intern => ids.intern(key),
                Unseen::Absent => ids.get(&key),
            })
        });
    }
    Ok(())
}

/// N-grams of up to [`PACKED_ORDER`] tokens over fewer than 2^15 distinct tokens pack into one
/// `u64`: 15 bits per token holding its id + 1, so the order is the number of non-zero fields.
const PACKED_ORDER: usize = 4;
const PACKED_IDS: usize = (1 << 15) - 1;

/// Every n-gram of orders `min_len..=max_len` of `ids`, packed, in text order.
fn packed_grams(ids: &[u32], min_len: usize, max_len: usize, out: &mut Vec<u64>) {
    out.clear();
    for n in min_len..=max_len.min(ids.len()) {
        out.extend(ids.windows(n).map(|gram| {
            gram.iter()
                .fold(0u64, |key, &id| (key << 15) | (id as u64 + 1))
        }));
    }
}

/// A hypothesis n-gram's count, and how many of them the reference numbered `reference` has
/// matched so far (`used` belongs to an earlier reference when the stamp differs).
#[derive(Clone, Copy, Default)]
struct GramCount {
    count: u32,
    used: u32,
    reference: u32,
}

/// The clipped overlap of the counted hypothesis n-grams with `grams`, the n-grams of the
/// reference numbered `reference` (from 1; each reference once): the size of the multiset
/// intersection, one table probe per reference n-gram.
fn common(hyp: &mut KeyTable<u64, GramCount>, grams: &[u64], reference: u32) -> u64 {
    let mut n = 0u64;
    for &gram in grams {
        if let Some(c) = hyp.get_mut(gram) {
            if c.reference != reference {
                (c.reference, c.used) = (reference, 0);
            }
            if c.used < c.count {
                c.used += 1;
                n += 1;
            }
        }
    }
    n
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

/// Keep `(tp, n_all)` in `best` when its ratio beats the kept one (NLTK's `max` keeps the
/// first of equals; a reference with `n_all == 0` does not count).
fn keep(best: &mut Option<(u64, u64)>, tp: u64, n_all: u64) {
    if n_all == 0 {
        return;
    }
    let better = match *best {
        None => true,
        Some((btp, ball)) => (tp as f64 / n_all as f64) > (btp as f64 / ball as f64),
    };
    if better {
        *best = Some((tp, n_all));
    }
}

/// The bits of the last `n` (at most [`PACKED_ORDER`]) tokens of a packed key.
#[inline(always)]
const fn last_tokens(n: usize) -> u64 {
    (1u64 << (15 * n)) - 1
}

/// How many n-grams of orders `min_len..=max_len` a text of `tokens` tokens has.
fn gram_total(tokens: usize, min_len: usize, max_len: usize) -> usize {
    (min_len..=max_len.min(tokens))
        .map(|n| tokens + 1 - n)
        .sum()
}

/// `(tp, n_all)` against one reference: the reference's tokens are numbered and its n-grams
/// counted into the table in one pass (each end token extends a rolling packed key); then the
/// hypothesis' tokens are looked up and its n-grams taken out of the table, except those
/// holding a token the reference lacks, which cannot match. `None` when the reference has too
/// many distinct tokens to pack.
fn one_reference(
    reference: &[u8],
    hyp: &[u8],
    min_len: usize,
    max_len: usize,
    s: &mut Scratch,
    stop: &Context,
) -> EvalResult<Option<(u64, u64)>> {
    let Scratch {
        ids,
        grams,
        cps,
        hyp: hyp_ids,
        reference: ref_ids,
        masks,
        ..
    } = s;
    ids.clear();
    token_ids(reference, ids, Unseen::Intern, masks, cps, ref_ids, stop)?;
    if ids.len() > PACKED_IDS {
        return Ok(None);
    }
    token_ids(hyp, ids, Unseen::Absent, masks, cps, hyp_ids, stop)?;
    stop.check()?;
    let ref_total = gram_total(ref_ids.len(), min_len, max_len);
    grams.reset(ref_total, stop)?;
    let mut key = 0u64;
    for (end, &id) in ref_ids.iter().enumerate() {
        key = (key << 15) | (id as u64 + 1);
        for n in min_len..=max_len.min(end + 1) {
            grams.entry(key & last_tokens(n)).0.count += 1;
        }
    }
    // `run`: how many tokens up to this one the reference has, in a row; the key's older
    // fields are never read, as no order exceeds the run. An n-gram the reference lacks is
    // the suffix of every longer one ending on the same token and the prefix of the next
    // (n+1)-gram, so the orders stop at the first one missing (`found`: the last order found
    // on the previous token, `min_len - 1` for none) and reach at most one past it.
    let (mut tp, mut run, mut found) = (0u64, 0usize, min_len - 1);
    key = 0;
    for &id in hyp_ids.iter() {
        if id == ABSENT {
            (run, found) = (0, min_len - 1);
            continue;
        }
        run += 1;
        key = (key << 15) | (id as u64 + 1);
        let top = max_len.min(run).min(found + 1);
        found = min_len - 1;
        for n in min_len..=top {
            let Some(c) = grams.get_mut(key & last_tokens(n)) else {
                break;
            };
            found = n;
            if c.count > 0 {
                c.count -= 1;
                tp += 1;
            }
        }
    }
    let hyp_total = gram_total(hyp_ids.len(), min_len, max_len);
    let n_all = hyp_total.max(ref_total) as u64;
    Ok(Some(if n_all == 0 { (0, 0) } else { (tp, n_all) }))
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
    if let [reference] = refs {
        if max_len <= PACKED_ORDER {
            if let Some(counts) = one_reference(reference, hyp, min_len, max_len, s, stop)? {
                return Ok(counts);
            }
        }
    }
    let Scratch {
        ids,
        grams,
        cps,
        hyp: hyp_ids,
        reference,
        hyp_grams,
        ref_grams,
        masks,
    } = s;
    ids.clear();
    token_ids(hyp, ids, Unseen::Intern, masks, cps, hyp_ids, stop)?;
    let mut best: Option<(u64, u64)> = None;
    let mut hyp_packed = false;
    let mut hyp_counts: Option<(FxHashMap<&[u32], u64>, u64)> = None;
    for (number, text) in (1u32..).zip(refs) {
        stop.check()?;
        token_ids(text, ids, Unseen::Intern, masks, cps, reference, stop)?;
        if max_len <= PACKED_ORDER && ids.len() <= PACKED_IDS {
            if !hyp_packed {
                packed_grams(hyp_ids, min_len, max_len, hyp_grams);
                grams.reset(hyp_grams.len(), stop)?;
                for &gram in hyp_grams.iter() {
                    grams.entry(gram).0.count += 1;
                }
                hyp_packed = true;
            }
            packed_grams(reference, min_len, max_len, ref_grams);
            let tp = common(grams, ref_grams, number);
            keep(&mut best, tp, (hyp_grams.len().max(ref_grams.len())) as u64);
        } else {
            let (hyp_map, tpfp) =
                hyp_counts.get_or_insert_with(|| counts(hyp_ids, min_len, max_len));
            let (ref_map, tpfn) = counts(reference, min_len, max_len);
            let tp: u64 = ref_map
                .iter()
                .map(|(gram, &c)| c.min(hyp_map.get(gram).copied().unwrap_or(0)))
                .sum();
            keep(&mut best, tp, (*tpfp).max(tpfn));
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
    use crate::metrics::text::is_ascii_py_space;

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

    #[test]
    fn ascii_tokens_off_the_masks_are_python_split_tokens() {
        // Every ASCII separator of `str.split()`, bytes that are not ones (0x1B, 0x7F), tokens
        // of 15 and 16 bytes, and texts longer than one 64-byte mask word.
        const POOL: [&str; 12] = [
            "a",
            "bc",
            "\t",
            "\n\x0b\x0c\r",
            "\x1c\x1d\x1e\x1f",
            " ",
            "\x1b",
            "\x7f",
            "fifteen-letters",
            "sixteen-letters!",
            "x",
            "a-token-of-twenty-b",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let (mut ids, mut want_ids) = (TokenIds::default(), TokenIds::default());
        let (mut masks, mut cps, stop) = (Masks::default(), Vec::new(), Context::new());
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for _ in 0..5_000 {
            let mut text = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for k in 0..state % 60 {
                let pick = (state >> (k % 40)).wrapping_mul(k + 1) % POOL.len() as u64;
                text.push_str(POOL[pick as usize]);
            }
            ids.clear();
            want_ids.clear();
            token_ids(
                text.as_bytes(),
                &mut ids,
                Unseen::Intern,
                &mut masks,
                &mut cps,
                &mut got,
                &stop,
            )
            .unwrap();
            want.clear();
            for tok in text.split(|c: char| c.is_ascii() && is_ascii_py_space(c as u8)) {
                if !tok.is_empty() {
                    want.push(want_ids.intern(TokenKey::of_ascii(tok.as_bytes())));
                }
            }
            assert_eq!(got, want, "{text:?}");
            assert_eq!(ids.len(), want_ids.len());
        }
    }

    #[test]
    fn one_reference_scores_as_the_general_path() {
        // The general path runs for a reference given twice (the first of equals is kept).
        const POOL: [&str; 11] = [
            "a",
            "b",
            "c",
            "d",
            "the",
            "é",
            "東京",
            " ",
            "  ",
            "fifteen-letters",
            "a-token-of-twenty-b",
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut text = || {
            let mut t = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            for k in 0..state % 30 {
                t.push_str(POOL[((state >> (k % 50)) % POOL.len() as u64) as usize]);
                t.push(' ');
            }
            t
        };
        let (mut s, stop) = (Scratch::default(), Context::new());
        for round in 0..3_000 {
            let (r, h) = (text(), text());
            let (lo, hi) = (1 + round % 2, 2 + round % 3);
            let one = statistics(&[r.as_bytes()], h.as_bytes(), lo, hi, &mut s, &stop);
            let two = statistics(
                &[r.as_bytes(), r.as_bytes()],
                h.as_bytes(),
                lo,
                hi,
                &mut s,
                &stop,
            );
            assert_eq!(one.unwrap(), two.unwrap(), "{r:?} {h:?} {lo} {hi}");
        }
    }
}
