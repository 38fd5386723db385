//! ROUGE-L: precision, recall and F-measure from the longest common subsequence of tokens.
//!
//! Under the default tokenizer a pair is read off the 64-byte masks of [`super::tokens`]: its
//! tokens become packed keys, numbered through a small open-addressing table. A text that may
//! hold U+0130 or U+212A, or a token longer than 15 bytes, takes the general path instead;
//! both give the same ids for the same tokens, so the same scores.

use super::halt::{Context, Run, TryVec, CHECK_EVERY};
use super::key_table::KeyTable;
use super::key_table::ABSENT;
use super::lcs::{lcs_len, LcsScratch};
use super::ngrams::TokenIds;
use super::rouge_pieces::each_piece;
use super::rouge_tokens::{
    keys_into, token_keys_polling, RougeScore, Stemmer, TokenScratch, Tokenizer,
};
use super::text::TokenKey;
use super::tokens::masks::{Masks, Scheme};
use super::tokens::packed::packed_at;

/// Reusable buffers so a batch allocates once per thread, not once per pair.
#[derive(Default)]
pub struct Scratch {
    tokens: TokenScratch,
    keys_e: Vec<TokenKey>,
    keys_a: Vec<TokenKey>,
    piece: Vec<TokenKey>,
    ids_e: Vec<u32>,
    ids_a: Vec<u32>,
    ids: TokenIds,
    lcs: LcsScratch,
    masks: Masks,
    packed_e: Vec<u128>,
    packed_a: Vec<u128>,
    table: KeyTable<u128, u32>,
}

/// rouge-score's tokens of `text`, in order, as packed keys read off the masks; `false` when
/// the text needs the general path instead (it may hold U+0130 or U+212A, or a token is
/// longer than 15 bytes). ROUGE-L's and ROUGE-N's fast path.
pub(crate) fn packed_tokens(
    text: &[u8],
    masks: &mut Masks,
    out: &mut Vec<u128>,
    stop: &Context,
) -> Run<bool> {
    out.clear();
    masks.fill(text, Scheme::Rouge, stop)?;
    if masks.closer[..masks.words].iter().any(|&w| w != 0) {
        return Ok(false);
    }
    out.try_capacity(text.len() / 2 + 1, "ROUGE-L tokens")?;
    let mut short = true;
    masks.for_each_run(stop, |start, end| {
        if end - start > 15 {
            short = false;
        } else {
            out.push(packed_at(&masks.text, start, end));
        }
    })?;
    Ok(short)
}

/// ROUGE-L of `actual` (the prediction) against `expected` (the target). The LCS work,
/// O(n·⌈m/64⌉) for token counts n ≥ m, polls `stop`.
pub fn rouge_l(
    expected: &[u8],
    actual: &[u8],
    tokenizer: Tokenizer,
    s: &mut Scratch,
    stop: &Context,
) -> Run<RougeScore> {
    if tokenizer == Tokenizer::Rouge
        && packed_tokens(expected, &mut s.masks, &mut s.packed_e, stop)?
        && packed_tokens(actual, &mut s.masks, &mut s.packed_a, stop)?
    {
        return score_packed(s, stop);
    }
    // Each piece's keys become ids at once (4 bytes a token, nothing to free one by one), the
    // ids of [`score_keys`]: expected's numbered in order of first appearance, an actual token
    // absent from expected one id that never matches.
    let Scratch {
        tokens,
        piece,
        ids,
        ids_e,
        ids_a,
        ..
    } = s;
    ids.clear();
    ids_e.clear();
    ids_a.clear();
    let mut tokenize =
        |t: &[u8], keys: &mut Vec<TokenKey>| keys_into(t, tokenizer, &mut tokens.keys, keys);
    each_piece(expected, piece, stop, &mut tokenize, |keys| {
        room(ids_e, keys.len())?;
        ids_e.extend(keys.drain(..).map(|k| ids.intern(k)));
        Ok(())
    })?;
    let absent = ids.len() as u32;
    each_piece(actual, piece, stop, &mut tokenize, |keys| {
        room(ids_a, keys.len())?;
        ids_a.extend(keys.iter().map(|k| match ids.get(k) {
            ABSENT => absent,
            id => id,
        }));
        Ok(())
    })?;
    if ids_e.is_empty() || ids_a.is_empty() {
        return Ok(ZERO);
    }
    score_ids(absent as usize + 1, s, stop)
}

/// Room in `ids` for `more` values, doubling like `push`, fallibly.
fn room(ids: &mut Vec<u32>, more: usize) -> Run<()> {
    let need = ids.len().saturating_add(more);
    if need > ids.capacity()
        && ids
            .try_capacity(need.max(2 * ids.len()), "ROUGE-L token ids")
            .is_err()
    {
        ids.try_capacity(need, "ROUGE-L token ids")?;
    }
    Ok(())
}

/// ROUGE-L with an optional stemmer: with `Stemmer::None` exactly [`rouge_l`].
pub fn rouge_l_stemmed(
    expected: &[u8],
    actual: &[u8],
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    s: &mut Scratch,
    stop: &Context,
) -> Run<RougeScore> {
    if stemmer == Stemmer::None {
        return rouge_l(expected, actual, tokenizer, s, stop);
    }
    let (mut ke, mut ka) = (std::mem::take(&mut s.keys_e), std::mem::take(&mut s.keys_a));
    let mut piece = std::mem::take(&mut s.piece);
    let t = &mut s.tokens;
    let score = token_keys_polling(expected, tokenizer, stemmer, t, &mut ke, &mut piece, stop)
        .and_then(|()| token_keys_polling(actual, tokenizer, stemmer, t, &mut ka, &mut piece, stop))
        .and_then(|()| score_keys(&ke, &ka, s, stop));
    s.keys_e = ke;
    s.keys_a = ka;
    s.piece = piece;
    score
}

const ZERO: RougeScore = RougeScore {
    precision: 0.0,
    recall: 0.0,
    fmeasure: 0.0,
};

/// [`score_keys`] over the packed keys in `s.packed_e` and `s.packed_a`.
fn score_packed(s: &mut Scratch, stop: &Context) -> Run<RougeScore> {
    let (n_e, n_a) = (s.packed_e.len(), s.packed_a.len());
    if n_e == 0 || n_a == 0 {
        return Ok(ZERO);
    }
    s.table.reset(n_e, stop)?;
    s.ids_e.clear();
    s.ids_e.try_capacity(n_e, "ROUGE-L token ids")?;
    let mut distinct = 0;
    for chunk in s.packed_e.chunks(CHECK_EVERY) {
        stop.check()?;
        for &key in chunk {
            let (id, new) = s.table.entry(key);
            if new {
                *id = distinct;
                distinct += 1;
            }
            s.ids_e.push(*id);
        }
    }
    s.ids_a.clear();
    s.ids_a.try_capacity(n_a, "ROUGE-L token ids")?;
    for chunk in s.packed_a.chunks(CHECK_EVERY) {
        stop.check()?;
        for &key in chunk {
            s.ids_a
                .push(s.table.get_mut(key).map_or(distinct, |id| *id));
        }
    }
    // A huge text's keys are not needed any more: free them now, as part of the work, so that a
    // stop during the LCS does not wait for it.
    for keys in [&mut s.packed_e, &mut s.packed_a] {
        if keys.capacity() > CHECK_EVERY {
            *keys = Vec::new();
        }
    }
    score_ids(distinct as usize + 1, s, stop)
}

pub(crate) fn score_keys(
    keys_e: &[TokenKey],
    keys_a: &[TokenKey],
    s: &mut Scratch,
    stop: &Context,
) -> Run<RougeScore> {
    let (n_e, n_a) = (keys_e.len(), keys_a.len());
    if n_e == 0 || n_a == 0 {
        return Ok(ZERO);
    }
    // Ids for the expected tokens; an actual token absent from expected gets the one id
    // `alphabet - 1`, which can never match.
    s.ids.clear();
    s.ids_e.clear();
    s.ids_e.try_capacity(n_e, "ROUGE-L token ids")?;
    for chunk in keys_e.chunks(CHECK_EVERY) {
        stop.check()?;
        for key in chunk {
            s.ids_e.push(s.ids.intern_ref(key));
        }
    }
    let absent = s.ids.len() as u32;
    let alphabet = s.ids.len() + 1;
    s.ids_a.clear();
    s.ids_a.try_capacity(n_a, "ROUGE-L token ids")?;
    for chunk in keys_a.chunks(CHECK_EVERY) {
        stop.check()?;
        for key in chunk {
            let id = s.ids.get(key);
            s.ids_a.push(if id == ABSENT { absent } else { id });
        }
    }
    score_ids(alphabet, s, stop)
}

/// The scores from the token ids in `s.ids_e` and `s.ids_a` (both non-empty), all below
/// `alphabet`.
fn score_ids(alphabet: usize, s: &mut Scratch, stop: &Context) -> Run<RougeScore> {
    let (n_e, n_a) = (s.ids_e.len(), s.ids_a.len());
    let lcs = if n_e <= n_a {
        lcs_len(&s.ids_e, &s.ids_a, alphabet, &mut s.lcs, stop)?
    } else {
        lcs_len(&s.ids_a, &s.ids_e, alphabet, &mut s.lcs, stop)?
    };

    let precision = lcs as f64 / n_a as f64;
    let recall = lcs as f64 / n_e as f64;
    let fmeasure = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    Ok(RougeScore {
        precision,
        recall,
        fmeasure,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::rouge_tokens::token_keys;

    #[test]
    fn packed_tokens_equal_the_general_path() {
        let texts = [
            "",
            "The cat sat on the mat.",
            "the cat, on THE mat!! x2 y_3",
            "café Zürich 東京 data-set 42",
            "\u{130}stanbul K\u{212A}elvin \u{2014} dash",
            "abcdefghijklmnopqrstuvwxyz short",
            "  lots   of\tspace\n\x01ctrl\x7fdel ",
            "a very long text of words that repeat, words that repeat, words that repeat \
             and cross the sixty-four byte boundary of the masks more than once or twice",
        ];
        let (s, stop) = (&mut Scratch::default(), Context::new());
        for e in texts {
            for a in texts {
                let got = rouge_l(e.as_bytes(), a.as_bytes(), Tokenizer::Rouge, s, &stop).unwrap();
                let (mut ke, mut ka) = (Vec::new(), Vec::new());
                keys_into(e.as_bytes(), Tokenizer::Rouge, &mut s.tokens.keys, &mut ke);
                keys_into(a.as_bytes(), Tokenizer::Rouge, &mut s.tokens.keys, &mut ka);
                let want = score_keys(&ke, &ka, s, &stop).unwrap();
                assert_eq!(got, want, "{e:?} {a:?}");
            }
        }
    }

    #[test]
    fn scores() {
        let s = &mut Scratch::default();
        let r = rouge_l(
            b"the cat sat on the mat",
            b"the cat on the mat",
            Tokenizer::Rouge,
            s,
            &Context::new(),
        )
        .unwrap();
        assert_eq!(r.precision, 1.0);
        assert_eq!(r.recall, 5.0 / 6.0);
        let r = rouge_l(b"", b"x", Tokenizer::Rouge, s, &Context::new()).unwrap();
        assert_eq!(r.fmeasure, 0.0);
    }

    #[test]
    fn stemmed_rouge_l() {
        let s = &mut Scratch::default();
        let plain = rouge_l_stemmed(
            b"cats running",
            b"cat run",
            Tokenizer::Rouge,
            Stemmer::None,
            s,
            &Context::new(),
        )
        .unwrap();
        assert_eq!(plain.fmeasure, 0.0);
        let stemmed = rouge_l_stemmed(
            b"cats running",
            b"cat run",
            Tokenizer::Rouge,
            Stemmer::Porter,
            s,
            &Context::new(),
        )
        .unwrap();
        assert_eq!(stemmed.fmeasure, 1.0);
    }

    #[test]
    fn rouge_l_by_pieces_scores_as_one_pass() {
        let unit = "Running CATS ΟΔΟΣ x\u{3000}y Zürich-cafés ";
        let e = unit.repeat(CHECK_EVERY / unit.len() + 3);
        let a = e.replace("CATS", "dogs");
        let (mut s, go) = (Scratch::default(), Context::new());
        for tokenizer in [Tokenizer::Rouge, Tokenizer::Unicode] {
            let got = rouge_l(e.as_bytes(), a.as_bytes(), tokenizer, &mut s, &go).unwrap();
            let (mut ke, mut ka, mut t) = (Vec::new(), Vec::new(), TokenScratch::default());
            token_keys(e.as_bytes(), tokenizer, Stemmer::None, &mut t, &mut ke);
            token_keys(a.as_bytes(), tokenizer, Stemmer::None, &mut t, &mut ka);
            let want = score_keys(&ke, &ka, &mut s, &go).unwrap();
            assert_eq!(got, want, "{tokenizer:?}");
        }
    }
}
