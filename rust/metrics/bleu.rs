//! BLEU (Papineni et al. 2002) as sacrebleu computes it: clipped n-gram precisions for
//! n = 1..max_ngram_order (4 by default, up to [`MAX_ORDER`]) against one or more references (each n-gram's count clipped by its largest count in
//! any one reference), the brevity penalty against the reference length closest to the
//! hypothesis length (the shorter on a tie), and smoothing.
//!
//! sacrebleu reports BLEU on a 0–100 scale; [`score`] returns that number divided by 100.

use super::bleu_tokenize::{self, BleuTokenizer};
use super::halt::{Context, Run};
use super::ngrams::{NgramIds, TokenIds, ABSENT};
use super::text::TokenKey;

/// The default n-gram order (sacrebleu's `MAX_NGRAM_ORDER`).
pub const DEFAULT_ORDER: usize = 4;
/// The highest n-gram order accepted (sacrebleu's `max_ngram_order` has no bound; statistics
/// keep a fixed width so they stay `Copy`).
pub const MAX_ORDER: usize = 10;

/// The sufficient statistics of one segment (or, summed, of a corpus).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BleuStats {
    pub hyp_len: u64,
    pub ref_len: u64,
    /// Clipped matches of each order (0 past the order the statistics were counted to).
    pub correct: [u64; MAX_ORDER],
    /// Hypothesis n-grams of each order (0 past the order the statistics were counted to).
    pub total: [u64; MAX_ORDER],
}

impl BleuStats {
    /// Add another segment's statistics (integers, so the order of addition does not matter).
    pub fn add(&mut self, other: &BleuStats) {
        self.hyp_len += other.hyp_len;
        self.ref_len += other.ref_len;
        for k in 0..MAX_ORDER {
            self.correct[k] += other.correct[k];
            self.total[k] += other.total[k];
        }
    }
}

/// sacrebleu's smoothing methods (Chen and Cherry 2014).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Smooth {
    /// No smoothing: any order without a match makes BLEU 0.
    None,
    /// Method 1: an order without matches gets precision `value / total`.
    Floor(f64),
    /// Method 2: add `value` to the matches and totals of every order above 1.
    AddK(f64),
    /// Method 3 (mteval-v13a's, the default): the k-th order without matches gets precision
    /// 1 / (2^k · total).
    Exp,
}

/// The name of a smoothing method, before its value is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmoothMethod {
    Exp,
    Floor,
    AddK,
    None,
}

impl Smooth {
    /// The method with its value: `value` (finite, 0 or more) applies to `Floor` (default 0.1)
    /// and `AddK` (default 1) only, as in sacrebleu.
    pub fn new(method: SmoothMethod, value: Option<f64>) -> Result<Smooth, String> {
        if let Some(v) = value {
            if matches!(method, SmoothMethod::Exp | SmoothMethod::None) {
                return Err(
                    "smooth_value applies to smooth='floor' and 'add-k' only; leave it None".into(),
                );
            }
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!(
                    "smooth_value must be a finite number of 0 or more, got {v}"
                ));
            }
        }
        Ok(match method {
            SmoothMethod::Exp => Smooth::Exp,
            SmoothMethod::Floor => Smooth::Floor(value.unwrap_or(0.1)),
            SmoothMethod::AddK => Smooth::AddK(value.unwrap_or(1.0)),
            SmoothMethod::None => Smooth::None,
        })
    }
}

/// How segments are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BleuOptions {
    pub tokenizer: BleuTokenizer,
    pub lowercase: bool,
    /// The n-gram orders counted, 1 to this (at most [`MAX_ORDER`]).
    pub max_order: usize,
}

/// Reusable buffers so a batch allocates once per thread, not once per segment.
#[derive(Default)]
pub struct Scratch {
    tok: bleu_tokenize::Scratch,
    keys: Vec<TokenKey>,
    units: TokenIds,
    ngrams: NgramIds,
    ids: Vec<u32>,
    grams: [Vec<u32>; MAX_ORDER],
    tmp: Vec<u32>,
    ref_max: [Vec<u32>; MAX_ORDER],
    counts: Vec<u32>,
    ref_lens: Vec<u64>,
}

/// The n-gram ids of orders 1 to `max_order` of `ids`, into `grams` (order k + 1 in
/// `grams[k]`).
fn all_orders(
    ngrams: &mut NgramIds,
    ids: &[u32],
    insert: bool,
    max_order: usize,
    grams: &mut [Vec<u32>; MAX_ORDER],
    tmp: &mut Vec<u32>,
    stop: &Context,
) -> Run<()> {
    grams[0].clear();
    grams[0].extend_from_slice(ids);
    for order in 2..=max_order {
        ngrams.next_order(order, &grams[order - 2], ids, insert, tmp, stop)?;
        std::mem::swap(&mut grams[order - 1], tmp);
    }
    Ok(())
}

/// The statistics of hypothesis `hyp` against references `refs`. With no reference every
/// count is 0 (callers refuse that case: sacrebleu has no score for it). `stop` is polled
/// between the phases (tokenizing, each n-gram order), so a huge text can be interrupted.
pub fn segment_stats(
    refs: &[&[u8]],
    hyp: &[u8],
    opts: BleuOptions,
    s: &mut Scratch,
    stop: &Context,
) -> Run<BleuStats> {
    let Scratch {
        tok,
        keys,
        units,
        ngrams,
        ids,
        grams,
        tmp,
        ref_max,
        counts,
        ref_lens,
    } = s;
    units.clear();
    ngrams.clear();
    for m in ref_max.iter_mut() {
        m.clear();
    }
    ref_lens.clear();
    let max_order = opts.max_order.clamp(1, MAX_ORDER);
    for r in refs {
        bleu_tokenize::tokens(r, opts.tokenizer, opts.lowercase, tok, keys, stop)?;
        ref_lens.push(keys.len() as u64);
        ids.clear();
        units.ids_polling(keys, true, ids, stop)?;
        all_orders(ngrams, ids, true, max_order, grams, tmp, stop)?;
        for (g, best) in grams.iter().zip(ref_max.iter_mut()).take(max_order) {
            // ids are numbered in order of first appearance, so this reference's largest id
            // bounds the vocabulary seen so far.
            let vocab = g.iter().max().map_or(0, |&m| m as usize + 1);
            if best.len() < vocab {
                best.resize(vocab, 0);
            }
            if refs.len() == 1 {
                for &id in g {
                    best[id as usize] += 1;
                }
                continue;
            }
            // This reference's counts, then the running maximum over references.
            if counts.len() < vocab {
                counts.resize(vocab, 0);
            }
            for &id in g {
                counts[id as usize] += 1;
            }
            for &id in g {
                let c = &mut counts[id as usize];
                if *c > 0 {
                    best[id as usize] = best[id as usize].max(*c);
                    *c = 0;
                }
            }
        }
    }

    bleu_tokenize::tokens(hyp, opts.tokenizer, opts.lowercase, tok, keys, stop)?;
    let hyp_len = keys.len() as u64;
    ids.clear();
    units.ids_polling(keys, false, ids, stop)?;
    all_orders(ngrams, ids, false, max_order, grams, tmp, stop)?;

    let mut stats = BleuStats {
        hyp_len,
        ref_len: closest_ref_len(hyp_len, ref_lens),
        ..Default::default()
    };
    for (order, (g, best)) in grams
        .iter()
        .zip(ref_max.iter_mut())
        .enumerate()
        .take(max_order)
    {
        stats.total[order] = g.len() as u64;
        // Each hypothesis n-gram takes one unused copy from the clipping counts: the sum of
        // min(count in hyp, clip count).
        let mut correct = 0u64;
        for &id in g {
            if id != ABSENT {
                let c = &mut best[id as usize];
                if *c > 0 {
                    *c -= 1;
                    correct += 1;
                }
            }
        }
        stats.correct[order] = correct;
    }
    Ok(stats)
}

/// The reference length closest to `hyp_len`, the shorter of two equally close (0 when there
/// is none).
fn closest_ref_len(hyp_len: u64, ref_lens: &[u64]) -> u64 {
    let mut best: Option<(u64, u64)> = None;
    for &r in ref_lens {
        let diff = hyp_len.abs_diff(r);
        best = match best {
            None => Some((diff, r)),
            Some((d, _)) if diff < d => Some((diff, r)),
            Some((d, l)) if diff == d && r < l => Some((diff, r)),
            keep => keep,
        };
    }
    best.map_or(0, |(_, r)| r)
}

/// sacrebleu's `my_log`: log, with log 0 taken as −9999999999.
#[inline]
fn floored_log(x: f64) -> f64 {
    if x == 0.0 {
        -9_999_999_999.0
    } else {
        x.ln()
    }
}

/// BLEU from statistics, in [0, 1]: sacrebleu's `BLEU.compute_bleu` divided by 100 (and capped
/// at 1, which float rounding of a perfect score can exceed by an ulp).
/// `effective_order`: average only over the orders the hypothesis has n-grams of (sacrebleu's
/// `use_effective_order`, its default for sentence BLEU).
pub fn score(stats: &BleuStats, smooth: Smooth, effective_order: bool) -> f64 {
    score_orders(stats, DEFAULT_ORDER, smooth, effective_order)
}

/// [`score`] over the n-gram orders 1 to `order` (at most [`MAX_ORDER`]; the statistics must
/// have been counted to that order at least): sacrebleu's `max_ngram_order`.
pub fn score_orders(stats: &BleuStats, order: usize, smooth: Smooth, effective_order: bool) -> f64 {
    let order = order.clamp(1, MAX_ORDER);
    let (sys_len, ref_len) = (stats.hyp_len as f64, stats.ref_len as f64);
    let bp = if stats.hyp_len < stats.ref_len {
        if stats.hyp_len > 0 {
            (1.0 - ref_len / sys_len).exp()
        } else {
            0.0
        }
    } else {
        1.0
    };
    if stats.correct[..order].iter().all(|&c| c == 0) {
        return 0.0;
    }
    let mut correct = stats.correct.map(|c| c as f64);
    let mut total = stats.total.map(|t| t as f64);
    let mut precisions = [0.0f64; MAX_ORDER];
    let mut smooth_mteval = 1.0f64;
    let mut eff_order = order;
    for n in 1..=order {
        if let Smooth::AddK(k) = smooth {
            if n > 1 {
                correct[n - 1] += k;
                total[n - 1] += k;
            }
        }
        if total[n - 1] == 0.0 {
            break;
        }
        if effective_order {
            eff_order = n;
        }
        precisions[n - 1] = if correct[n - 1] == 0.0 {
            match smooth {
                Smooth::Exp => {
                    smooth_mteval *= 2.0;
                    100.0 / (smooth_mteval * total[n - 1])
                }
                Smooth::Floor(v) => 100.0 * v / total[n - 1],
                Smooth::None | Smooth::AddK(_) => 0.0,
            }
        } else {
            100.0 * correct[n - 1] / total[n - 1]
        };
    }
    let log_sum = precisions[..eff_order]
        .iter()
        .fold(0.0f64, |acc, &p| acc + floored_log(p));
    // exp(ln 100) rounds to 100.00000000000004: a perfect score would exceed 1 by an ulp.
    (bp * (log_sum / eff_order as f64).exp() / 100.0).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTS: BleuOptions = BleuOptions {
        tokenizer: BleuTokenizer::Tok13a,
        lowercase: false,
        max_order: DEFAULT_ORDER,
    };

    fn stats(refs: &[&str], hyp: &str) -> BleuStats {
        let refs: Vec<&[u8]> = refs.iter().map(|r| r.as_bytes()).collect();
        segment_stats(
            &refs,
            hyp.as_bytes(),
            OPTS,
            &mut Scratch::default(),
            &Context::new(),
        )
        .unwrap()
    }

    #[test]
    fn a_raised_stop_halts_the_work() {
        let stop = Context::new();
        stop.raise();
        let got = segment_stats(&[b"a b c"], b"a b", OPTS, &mut Scratch::default(), &stop);
        assert_eq!(got.err(), Some(crate::metrics::halt::Halt::Stopped));
        // Lowercasing a long text polls too, before any token is cut.
        let long = "Ab cD ".repeat(1 << 19);
        let lower = BleuOptions {
            lowercase: true,
            ..OPTS
        };
        let (mut tok, mut keys) = (bleu_tokenize::Scratch::default(), Vec::new());
        let got = bleu_tokenize::tokens(
            long.as_bytes(),
            OPTS.tokenizer,
            true,
            &mut tok,
            &mut keys,
            &stop,
        );
        assert_eq!(got, Err(crate::metrics::halt::Halt::Stopped));
        assert!(keys.is_empty());
        let go = Context::new();
        let st = segment_stats(
            &[long.as_bytes()],
            long.as_bytes(),
            lower,
            &mut Scratch::default(),
            &go,
        );
        assert_eq!(st.map(|s| s.correct[0]), Ok(2 << 19));
    }

    #[test]
    fn counts_clip_by_the_best_reference() {
        let st = stats(&["the the cat", "the cat the the"], "the the the the");
        assert_eq!(st.hyp_len, 4);
        assert_eq!(st.ref_len, 4);
        // "the" is clipped at 3 (its count in the second reference), "the the" at 1.
        assert_eq!(st.correct[..4], [3, 1, 0, 0]);
        assert_eq!(st.total[..4], [4, 3, 2, 1]);
        // Orders past the one asked for are not counted.
        assert!(st.total[4..].iter().all(|&t| t == 0));
    }

    #[test]
    fn orders_above_four_are_counted_when_asked() {
        let opts = BleuOptions {
            max_order: 6,
            ..OPTS
        };
        let st = segment_stats(
            &[b"a b c d e f g"],
            b"a b c d e f x",
            opts,
            &mut Scratch::default(),
            &Context::new(),
        )
        .unwrap();
        assert_eq!(st.total[..7], [7, 6, 5, 4, 3, 2, 0]);
        assert_eq!(st.correct[..7], [6, 5, 4, 3, 2, 1, 0]);
        // Every order has a match: the geometric mean of the six precisions.
        let want = (6.0f64 / 7.0 * 5.0 / 6.0 * 4.0 / 5.0 * 3.0 / 4.0 * 2.0 / 3.0 * 1.0 / 2.0)
            .powf(1.0 / 6.0);
        assert!((score_orders(&st, 6, Smooth::Exp, false) - want).abs() < 1e-12);
    }

    #[test]
    fn closest_reference_length_prefers_the_shorter() {
        assert_eq!(closest_ref_len(5, &[3, 7]), 3);
        assert_eq!(closest_ref_len(5, &[7, 3]), 3);
        assert_eq!(closest_ref_len(5, &[9, 6, 4]), 4);
        assert_eq!(closest_ref_len(5, &[]), 0);
    }

    #[test]
    fn perfect_and_empty() {
        let st = stats(&["a b c d e"], "a b c d e");
        assert_eq!(score(&st, Smooth::Exp, true), 1.0);
        assert_eq!(score(&stats(&["a b"], ""), Smooth::Exp, true), 0.0);
        assert_eq!(score(&stats(&[""], "a"), Smooth::Exp, true), 0.0);
    }

    #[test]
    fn smoothing_and_effective_order() {
        // Two tokens: only orders 1 and 2 exist; effective order averages over those two.
        let st = stats(&["a b"], "a b");
        assert_eq!(score(&st, Smooth::Exp, true), 1.0);
        assert_eq!(score(&st, Smooth::None, false), 0.0);
        // Unigrams 1 of 2; no bigram match: exp smoothing gives it 1 / (2 · 1). BLEU = √(½ · ½).
        let st = stats(&["a c"], "a b");
        assert!((score(&st, Smooth::Exp, true) - 0.5).abs() < 1e-15);
        let floor = score(&st, Smooth::Floor(0.1), true);
        assert!((floor - (0.5f64 * 0.1).sqrt()).abs() < 1e-15);
    }
}
