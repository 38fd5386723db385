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

/// A dot product over four running sums (so the compiler can use vector lanes).
#[inline(always)]
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (xc, yc) = (x.chunks_exact(4), y.chunks_exact(4));
    let tail: f64 = xc
        .remainder()
        .iter()
        .zip(yc.remainder())
        .map(|(a, b)| a * b)
        .sum();
    for (a, b) in xc.zip(yc) {
        for k in 0..4 {
            acc[k] += a[k] * b[k];
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// Four dot products with one vector `y`, each summed as [`dot`] sums.
#[inline(always)]
fn dot4(x: [&[f64]; 4], y: &[f64]) -> [f64; 4] {
    let n = y.len() / 4 * 4;
    let mut acc = [[0.0f64; 4]; 4];
    for c in (0..n).step_by(4) {
        let b = &y[c..c + 4];
        for (row, a) in x.iter().enumerate() {
            let a = &a[c..c + 4];
            for k in 0..4 {
                acc[row][k] += a[k] * b[k];
            }
        }
    }
    let mut out = [0.0f64; 4];
    for (row, a) in x.iter().enumerate() {
        let tail: f64 = a[n..].iter().zip(&y[n..]).map(|(p, q)| p * q).sum();
        out[row] = (acc[row][0] + acc[row][1]) + (acc[row][2] + acc[row][3]) + tail;
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
/// (no fused multiply-add), so the result does not depend on the machine's features.
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
    let mut best_h = vec![f64::NEG_INFINITY; nh];
    let mut best_r = vec![f64::NEG_INFINITY; nr];
    let d = dim.max(1);
    let mut i = 0;
    // Four hypothesis tokens at a time against each reference token: each reference value
    // loaded once serves four running products.
    while i + 4 <= nh {
        let rows = [
            &h[i * d..(i + 1) * d],
            &h[(i + 1) * d..(i + 2) * d],
            &h[(i + 2) * d..(i + 3) * d],
            &h[(i + 3) * d..(i + 4) * d],
        ];
        for (j, rv) in r.chunks(d).take(nr).enumerate() {
            let sims = dot4(rows, rv);
            for (k, &sim) in sims.iter().enumerate() {
                if sim > best_h[i + k] {
                    best_h[i + k] = sim;
                }
                if sim > best_r[j] {
                    best_r[j] = sim;
                }
            }
        }
        i += 4;
    }
    for (ii, hv) in h.chunks(d).take(nh).enumerate().skip(i) {
        for (j, rv) in r.chunks(d).take(nr).enumerate() {
            let sim = dot(hv, rv);
            if sim > best_h[ii] {
                best_h[ii] = sim;
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
