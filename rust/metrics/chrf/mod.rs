//! chrF (Popović 2015) and chrF++ (Popović 2017) as sacrebleu computes them: character
//! n-gram (and, for chrF++, word n-gram) precision and recall, combined into an F-beta score.
//!
//! Per order the statistics are [hypothesis n-grams (0 when the reference has none of that
//! order), reference n-grams, clipped matches]. A sentence is scored against each reference and
//! the statistics of the best-scoring one kept (the first on a tie); a corpus score sums those
//! statistics over segments. sacrebleu reports chrF on a 0–100 scale; [`f_score`] returns that
//! number divided by 100.

mod read;

use read::{read_side, CharIds, Side};

use super::halt::{Context, Run, CHECK_EVERY};
use super::ngrams::{NgramIds, TokenIds, ABSENT};

/// sacrebleu's `CHRF` parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChrfOptions {
    /// Character n-gram orders 1..=char_order (6).
    pub char_order: usize,
    /// Word n-gram orders 1..=word_order (0; 2 is chrF++).
    pub word_order: usize,
    /// Recall weighs beta times as much as precision (2).
    pub beta: u32,
    /// Keep whitespace in character n-grams (sacrebleu's `whitespace`; its functions' default
    /// `remove_whitespace=True` is `whitespace = false`).
    pub whitespace: bool,
    /// chrF++.py's epsilon smoothing instead of sacrebleu's effective-order average.
    pub eps_smoothing: bool,
    /// `str.lower()` both sides first.
    pub lowercase: bool,
}

impl ChrfOptions {
    /// The number of statistics triples: one per character order, then one per word order.
    pub fn orders(&self) -> usize {
        self.char_order + self.word_order
    }
}

/// [hypothesis n-grams, reference n-grams, matches] of one order.
pub type OrderStats = [u64; 3];

/// Reusable buffers so a batch allocates once per thread, not once per segment.
#[derive(Default)]
pub struct Scratch {
    raw: Vec<u32>,
    cps: Vec<u32>,
    char_units: CharIds,
    char_ngrams: NgramIds,
    word_units: TokenIds,
    word_ngrams: NgramIds,
    ids: Vec<u32>,
    refs: Vec<Side>,
    hyp: Side,
    budget: Vec<u32>,
    stats: Vec<OrderStats>,
}

/// The statistics of hypothesis `hyp` against the best of `refs`, into `out` (one triple per
/// order). With no reference every count is 0 (callers refuse that case). `stop` is polled
/// every [`CHECK_EVERY`] code points, n-grams or words of work, so a huge text can be
/// interrupted within milliseconds.
pub fn segment_stats(
    refs: &[&[u8]],
    hyp: &[u8],
    opts: &ChrfOptions,
    s: &mut Scratch,
    out: &mut Vec<OrderStats>,
    stop: &Context,
) -> Run<()> {
    let orders = opts.orders();
    out.clear();
    out.resize(orders, [0; 3]);
    s.char_units.clear();
    s.char_ngrams.clear();
    s.word_units.clear();
    s.word_ngrams.clear();
    let mut sides = std::mem::take(&mut s.refs);
    sides.resize_with(refs.len().max(sides.len()), Side::default);
    let mut hyp_side = std::mem::take(&mut s.hyp);
    let read = refs
        .iter()
        .zip(sides.iter_mut())
        .try_for_each(|(r, side)| read_side(r, opts, true, s, side, stop))
        .and_then(|()| read_side(hyp, opts, false, s, &mut hyp_side, stop));
    if let Err(halt) = read {
        s.refs = sides;
        s.hyp = hyp_side;
        return Err(halt);
    }

    // `budget` holds a count per id of any order.
    let vocab = s.char_units.len().max(s.word_units.len()).max(
        (2..=opts.char_order.max(opts.word_order))
            .map(|k| s.char_ngrams.len(k).max(s.word_ngrams.len(k)))
            .max()
            .unwrap_or(0),
    );
    if s.budget.len() < vocab {
        s.budget.resize(vocab, 0);
    }
    let mut best = -1.0f64;
    let mut stats = std::mem::take(&mut s.stats);
    let counted = sides.iter().take(refs.len()).try_for_each(|side| {
        stats.clear();
        for (ref_grams, hyp_grams) in side.grams.iter().zip(&hyp_side.grams) {
            stats.push(order_stats(ref_grams, hyp_grams, &mut s.budget, stop)?);
        }
        let f = f_score(&stats, opts);
        if f > best {
            best = f;
            out.copy_from_slice(&stats);
        }
        Ok(())
    });
    if counted.is_err() {
        s.budget.clear(); // no longer all zero; the next call sizes it afresh
    }
    s.stats = stats;
    s.refs = sides;
    s.hyp = hyp_side;
    counted
}

/// The statistics of one order: each hypothesis n-gram takes one unused copy of it from the
/// reference's counts in `budget` (all zero before, and again after), which gives
/// Σ min(count in hyp, count in ref). `stop` is polled every [`CHECK_EVERY`] n-grams.
fn order_stats(
    ref_grams: &[u32],
    hyp_grams: &[u32],
    budget: &mut [u32],
    stop: &Context,
) -> Run<OrderStats> {
    for part in ref_grams.chunks(CHECK_EVERY) {
        stop.check()?;
        part.iter().for_each(|&id| budget[id as usize] += 1);
    }
    let mut matches = 0u64;
    for part in hyp_grams.chunks(CHECK_EVERY) {
        stop.check()?;
        for &id in part {
            if id != ABSENT && budget[id as usize] > 0 {
                budget[id as usize] -= 1;
                matches += 1;
            }
        }
    }
    for part in ref_grams.chunks(CHECK_EVERY) {
        stop.check()?;
        part.iter().for_each(|&id| budget[id as usize] = 0);
    }
    let n_ref = ref_grams.len() as u64;
    let n_hyp = if n_ref > 0 { hyp_grams.len() as u64 } else { 0 };
    Ok([n_hyp, n_ref, matches])
}

/// chrF from statistics, in [0, 1]: sacrebleu's `CHRF._compute_f_score` divided by 100.
pub fn f_score(stats: &[OrderStats], opts: &ChrfOptions) -> f64 {
    const EPS: f64 = 1e-16;
    let factor = (opts.beta as f64) * (opts.beta as f64);
    let mut score = 0.0f64;
    let (mut avg_prec, mut avg_rec) = (0.0f64, 0.0f64);
    let mut effective = 0usize;
    for &[n_hyp, n_ref, n_match] in stats {
        let prec = if n_hyp > 0 {
            n_match as f64 / n_hyp as f64
        } else {
            EPS
        };
        let rec = if n_ref > 0 {
            n_match as f64 / n_ref as f64
        } else {
            EPS
        };
        let denom = factor * prec + rec;
        score += if denom > 0.0 {
            (1.0 + factor) * prec * rec / denom
        } else {
            EPS
        };
        if n_hyp > 0 && n_ref > 0 {
            avg_prec += prec;
            avg_rec += rec;
            effective += 1;
        }
    }
    if opts.eps_smoothing {
        return score / stats.len() as f64;
    }
    if effective == 0 {
        avg_prec = 0.0;
        avg_rec = 0.0;
    } else {
        avg_prec /= effective as f64;
        avg_rec /= effective as f64;
    }
    if avg_prec + avg_rec != 0.0 {
        let mut f = (1.0 + factor) * avg_prec * avg_rec;
        f /= factor * avg_prec + avg_rec;
        f
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::halt::Halt;

    const CHRF: ChrfOptions = ChrfOptions {
        char_order: 6,
        word_order: 0,
        beta: 2,
        whitespace: false,
        eps_smoothing: false,
        lowercase: false,
    };

    fn stats(refs: &[&str], hyp: &str, opts: &ChrfOptions) -> Vec<OrderStats> {
        let refs: Vec<&[u8]> = refs.iter().map(|r| r.as_bytes()).collect();
        let mut out = Vec::new();
        segment_stats(
            &refs,
            hyp.as_bytes(),
            opts,
            &mut Scratch::default(),
            &mut out,
            &Context::new(),
        )
        .unwrap();
        out
    }

    #[test]
    fn a_raised_stop_halts_the_work() {
        let stop = Context::new();
        stop.raise();
        let (mut s, mut out) = (Scratch::default(), Vec::new());
        let got = segment_stats(&[b"a b c"], b"a b d", &CHRF, &mut s, &mut out, &stop);
        assert_eq!(got, Err(crate::metrics::halt::Halt::Stopped));
        // The scratch is whole again: the next call scores normally.
        let again = segment_stats(
            &[b"a b c"],
            b"a b c",
            &CHRF,
            &mut s,
            &mut out,
            &Context::new(),
        );
        assert_eq!(again, Ok(()));
        assert_eq!(f_score(&out, &CHRF), 1.0);
    }

    #[test]
    fn a_raised_stop_halts_a_long_segment_in_each_phase() {
        // Text longer than one piece of work, with every option that adds a pass.
        let text = "Ab, cD! ".repeat(CHECK_EVERY / 4);
        let opts = ChrfOptions {
            word_order: 2,
            lowercase: true,
            ..CHRF
        };
        let stop = Context::new();
        stop.raise();
        let (mut s, mut out) = (Scratch::default(), Vec::new());
        let mut side = read::Side::default();
        let got = read_side(text.as_bytes(), &opts, true, &mut s, &mut side, &stop);
        assert_eq!(got, Err(Halt::Stopped));
        let grams: Vec<u32> = (0..3 * CHECK_EVERY as u32).map(|i| i % 7).collect();
        let mut budget = vec![0; 7];
        let got = order_stats(&grams, &grams, &mut budget, &stop);
        assert_eq!(got, Err(Halt::Stopped));
        let got = segment_stats(&[text.as_bytes()], b"x", &opts, &mut s, &mut out, &stop);
        assert_eq!(got, Err(Halt::Stopped));
        let go = Context::new();
        assert_eq!(
            order_stats(&grams, &grams, &mut budget, &go),
            Ok([3 << 20, 3 << 20, 3 << 20])
        );
        assert_eq!(budget, [0; 7], "the counts are zero again");
        segment_stats(
            &[text.as_bytes()],
            text.as_bytes(),
            &opts,
            &mut s,
            &mut out,
            &go,
        )
        .unwrap();
        assert_eq!(f_score(&out, &opts), 1.0);
    }

    #[test]
    fn character_statistics() {
        // "ab c" without whitespace is "abc"; the hypothesis "abd".
        let st = stats(&["ab c"], "abd", &CHRF);
        assert_eq!(st[0], [3, 3, 2]);
        assert_eq!(st[1], [2, 2, 1]);
        assert_eq!(st[2], [1, 1, 0]);
        // No 4-grams in the reference: the hypothesis count is 0 too.
        assert_eq!(st[3], [0, 0, 0]);
        assert_eq!(f_score(&stats(&["abc"], "abc", &CHRF), &CHRF), 1.0);
        assert_eq!(f_score(&stats(&["abc"], "", &CHRF), &CHRF), 0.0);
    }

    #[test]
    fn word_orders_split_punctuation() {
        let plus = ChrfOptions {
            word_order: 2,
            ..CHRF
        };
        let st = stats(&["Hello, world!"], "hello world", &plus);
        // Words: Hello , world ! against hello world.
        assert_eq!(st[6], [2, 4, 1]);
        assert_eq!(st[7], [1, 3, 0]);
    }

    #[test]
    fn best_reference_wins() {
        let st = stats(&["xyz", "abc"], "abc", &CHRF);
        assert_eq!(st[0], [3, 3, 3]);
        let lower = ChrfOptions {
            lowercase: true,
            ..CHRF
        };
        assert_eq!(f_score(&stats(&["ABC"], "abc", &lower), &lower), 1.0);
    }
}
