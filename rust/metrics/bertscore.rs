//! BERTScore's greedy matching (Zhang et al. 2020, the `bert_score` package's formula) over
//! token embeddings the caller provides.
//!
//! Each token embedding is scaled to unit length (a zero vector stays zero, so its similarities
//! are 0). Precision is the weighted mean, over the hypothesis tokens, of each one's best cosine
//! with a reference token; recall the same over the reference tokens; F1 their harmonic mean
//! (0 when both are 0). The weights are the tokens' idf (all 1 without idf).

/// Precision, recall and F1 of one pair.
pub type Prf = [f64; 3];

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

fn weighted_mean(best: &[f64], weights: &[f64]) -> f64 {
    let total: f64 = weights.iter().sum();
    let dot: f64 = best.iter().zip(weights).map(|(b, w)| b * w).sum();
    dot / total
}

/// BERTScore of hypothesis tokens `hyp` (rows of `dim` values) against reference tokens
/// `reference`, with their weights. Both sides need at least one token and a positive weight
/// sum (the caller checks).
pub fn bertscore(reference: &[f64], hyp: &[f64], dim: usize, w_ref: &[f64], w_hyp: &[f64]) -> Prf {
    let (r, h) = (unit_rows(reference, dim), unit_rows(hyp, dim));
    let (nr, nh) = (w_ref.len(), w_hyp.len());
    let mut best_h = vec![f64::NEG_INFINITY; nh];
    let mut best_r = vec![f64::NEG_INFINITY; nr];
    for (i, hv) in h.chunks(dim.max(1)).take(nh).enumerate() {
        for (j, rv) in r.chunks(dim.max(1)).take(nr).enumerate() {
            let sim: f64 = hv.iter().zip(rv).map(|(a, b)| a * b).sum();
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
