//! BERTScore's greedy matching (Zhang et al. 2020, the `bert_score` package's formula) over
//! token embeddings the caller provides.
//!
//! Each token embedding is scaled to unit length (a zero vector stays zero, so its similarities
//! are 0). Precision is the weighted mean, over the hypothesis tokens, of each one's best cosine
//! with a reference token; recall the same over the reference tokens; F1 their harmonic mean
//! (0 when both are 0). The weights are the tokens' idf (all 1 without idf).

/// Precision, recall and F1 of one pair.
pub type Prf = [f64; 3];

#[inline(always)]
fn unit_rows(x: &[f64], dim: usize) -> Vec<f64> {
    let mut out = x.to_vec();
    for row in out.chunks_mut(dim.max(1)) {
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm > 0.0 {
            for v in row.iter_mut() {
                *v /= norm;
            }
        }
    }
    out
}

#[inline(always)]
fn weighted_mean(best: &[f64], weights: &[f64]) -> f64 {
    let total: f64 = weights.iter().sum();
    let dot: f64 = best.iter().zip(weights).map(|(b, w)| b * w).sum();
    dot / total
}

/// BERTScore of hypothesis tokens `hyp` (rows of `dim` values) against reference tokens
/// `reference`, with their weights. Both sides need at least one token and a positive weight
/// sum (the caller checks). The same operations in the same order run with or without AVX2
/// (no fused multiply-add: each cosine is summed over the dimensions in order), so the result does not depend on the machine's features.
pub fn bertscore(reference: &[f64], hyp: &[f64], dim: usize, w_ref: &[f64], w_hyp: &[f64]) -> Prf {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { bertscore_avx2(reference, hyp, dim, w_ref, w_hyp) };
        }
    }
    bertscore_portable(reference, hyp, dim, w_ref, w_hyp)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn bertscore_avx2(
    reference: &[f64],
    hyp: &[f64],
    dim: usize,
    w_ref: &[f64],
    w_hyp: &[f64],
) -> Prf {
    bertscore_portable(reference, hyp, dim, w_ref, w_hyp)
}

#[inline(always)]
fn bertscore_portable(
    reference: &[f64],
    hyp: &[f64],
    dim: usize,
    w_ref: &[f64],
    w_hyp: &[f64],
) -> Prf {
    let (r, h) = (unit_rows(reference, dim), unit_rows(hyp, dim));
    let (nr, nh) = (w_ref.len(), w_hyp.len());
    let d = dim.max(1);
    // The reference tokens transposed (dim × nr): each hypothesis token's cosines with every
    // reference token then add up along contiguous rows, one sum per reference token, each
    // summed over the dimensions in order.
    let mut rt = vec![0.0f64; d * nr];
    for (j, rv) in r.chunks(d).take(nr).enumerate() {
        for (k, &v) in rv.iter().enumerate() {
            rt[k * nr + j] = v;
        }
    }
    let mut best_h = vec![f64::NEG_INFINITY; nh];
    let mut best_r = vec![f64::NEG_INFINITY; nr];
    let mut sims = vec![0.0f64; nr];
    for (i, hv) in h.chunks(d).take(nh).enumerate() {
        sims.iter_mut().for_each(|x| *x = 0.0);
        for (k, &hk) in hv.iter().enumerate() {
            let row = &rt[k * nr..(k + 1) * nr];
            for (acc, &v) in sims.iter_mut().zip(row) {
                *acc += hk * v;
            }
        }
        for (j, &sim) in sims.iter().enumerate() {
            if sim > best_h[i] {
                best_h[i] = sim;
            }
            if sim > best_r[j] {
                best_r[j] = sim;
            }
        }
    }
    let precision = weighted_mean(&best_h, w_hyp);
    let recall = weighted_mean(&best_r, w_ref);
    let sum = precision + recall;
    let f1 = if sum == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / sum
    };
    [precision, recall, f1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_tokens_score_one() {
        let x = [1.0, 0.0, 0.0, 2.0];
        let prf = bertscore(&x, &x, 2, &[1.0, 1.0], &[1.0, 1.0]);
        assert_eq!(prf, [1.0, 1.0, 1.0]);
    }

    #[test]
    fn orthogonal_tokens_score_zero() {
        let prf = bertscore(&[1.0, 0.0], &[0.0, 3.0], 2, &[1.0], &[1.0]);
        assert_eq!(prf, [0.0, 0.0, 0.0]);
    }
}
