//! BERTScore's greedy matching (Zhang et al. 2020, the `bert_score` package's formula) over
//! token embeddings the caller provides.
//!
//! Each token embedding is scaled to unit length (a zero vector stays zero, so its similarities
//! are 0). Precision is the weighted mean, over the hypothesis tokens, of each one's best cosine
//! with a reference token; recall the same over the reference tokens; F1 their harmonic mean
//! (0 when both are 0). The weights are the tokens' idf (all 1 without idf).

/// Precision, recall and F1 of one pair.
pub type Prf = [f64; 3];

/// Hypothesis tokens per tile of the cosine matrix; a tile's reference tokens are a const
/// parameter of the kernel: two vectors of doubles (8 with AVX2, 16 with AVX-512).
const MR: usize = 4;

/// Buffers one thread reuses from pair to pair: the unit rows of the hypothesis (padded with
/// zero rows to a multiple of [`MR`]), the unit reference rows, the same transposed (dim × a
/// multiple of the tile width, zero padded), and the best cosine of each token.
#[derive(Default)]
pub struct Scratch {
    h: Vec<f64>,
    row: Vec<f64>,
    rt: Vec<f64>,
    best_h: Vec<f64>,
    best_r: Vec<f64>,
}

/// Divide each of the `n` rows of `src` by its norm (the square root of its squares summed in
/// order) into `out`; a zero row stays zero. Four rows at a time, so that their four sums (each
/// still in order) overlap in the pipeline. False when a row holds NaN or infinity.
#[inline(always)]
fn unit_rows(src: &[f64], d: usize, n: usize, out: &mut [f64]) -> bool {
    let mut finite = true;
    let mut i = 0;
    while i < n {
        let m = (n - i).min(4);
        let mut totals = [0.0f64; 4];
        if m == 4 {
            let rows: [&[f64]; 4] = std::array::from_fn(|r| &src[(i + r) * d..(i + r + 1) * d]);
            for k in 0..d {
                for (total, row) in totals.iter_mut().zip(&rows) {
                    let v = row[k];
                    finite &= v.is_finite();
                    *total += v * v;
                }
            }
        } else {
            for (r, total) in totals.iter_mut().enumerate().take(m) {
                for &v in &src[(i + r) * d..(i + r + 1) * d] {
                    finite &= v.is_finite();
                    *total += v * v;
                }
            }
        }
        for (r, total) in totals.iter().enumerate().take(m) {
            let norm = total.sqrt();
            let (from, to) = (
                &src[(i + r) * d..(i + r + 1) * d],
                &mut out[(i + r) * d..(i + r + 1) * d],
            );
            if norm > 0.0 {
                for (o, &v) in to.iter_mut().zip(from) {
                    *o = v / norm;
                }
            } else {
                to.copy_from_slice(from);
            }
        }
        i += m;
    }
    finite
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
/// (no fused multiply-add: each cosine is summed over the dimensions in order, starting from
/// 0), so the result does not depend on the machine's features, the tiling or the threads.
pub fn bertscore(reference: &[f64], hyp: &[f64], dim: usize, w_ref: &[f64], w_hyp: &[f64]) -> Prf {
    bertscore_with(&mut Scratch::default(), reference, hyp, dim, w_ref, w_hyp)
        .unwrap_or([f64::NAN; 3])
}

/// [`bertscore`] with buffers reused across calls; `None` when a token embedding holds NaN or
/// infinity.
pub fn bertscore_with(
    scratch: &mut Scratch,
    reference: &[f64],
    hyp: &[f64],
    dim: usize,
    w_ref: &[f64],
    w_hyp: &[f64],
) -> Option<Prf> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { bertscore_avx512(scratch, reference, hyp, dim, w_ref, w_hyp) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { bertscore_avx2(scratch, reference, hyp, dim, w_ref, w_hyp) };
        }
    }
    bertscore_portable::<8>(scratch, reference, hyp, dim, w_ref, w_hyp)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn bertscore_avx512(
    scratch: &mut Scratch,
    reference: &[f64],
    hyp: &[f64],
    dim: usize,
    w_ref: &[f64],
    w_hyp: &[f64],
) -> Option<Prf> {
    bertscore_portable::<16>(scratch, reference, hyp, dim, w_ref, w_hyp)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn bertscore_avx2(
    scratch: &mut Scratch,
    reference: &[f64],
    hyp: &[f64],
    dim: usize,
    w_ref: &[f64],
    w_hyp: &[f64],
) -> Option<Prf> {
    bertscore_portable::<8>(scratch, reference, hyp, dim, w_ref, w_hyp)
}

#[inline(always)]
fn bertscore_portable<const NR: usize>(
    scratch: &mut Scratch,
    reference: &[f64],
    hyp: &[f64],
    dim: usize,
    w_ref: &[f64],
    w_hyp: &[f64],
) -> Option<Prf> {
    let (nr, nh) = (w_ref.len(), w_hyp.len());
    let d = dim;
    let Scratch {
        h,
        row,
        rt,
        best_h,
        best_r,
    } = scratch;
    best_h.clear();
    best_h.resize(nh, f64::NEG_INFINITY);
    best_r.clear();
    best_r.resize(nr, f64::NEG_INFINITY);
    if d > 0 && !cosines::<NR>(reference, hyp, d, h, row, rt, best_h, best_r) {
        return None;
    }
    let precision = weighted_mean(best_h, w_hyp);
    let recall = weighted_mean(best_r, w_ref);
    let sum = precision + recall;
    let f1 = if sum == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / sum
    };
    Some([precision, recall, f1])
}

/// Each token's best cosine with a token of the other side, into `best_h` and `best_r`
/// (which start at minus infinity); false when a row holds NaN or infinity.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn cosines<const NR: usize>(
    reference: &[f64],
    hyp: &[f64],
    d: usize,
    h: &mut Vec<f64>,
    row: &mut Vec<f64>,
    rt: &mut Vec<f64>,
    best_h: &mut [f64],
    best_r: &mut [f64],
) -> bool {
    let (nr, nh) = (best_r.len(), best_h.len());
    let (nrp, nhp) = (nr.div_ceil(NR) * NR, nh.div_ceil(MR) * MR);
    h.clear();
    h.resize(nhp * d, 0.0);
    rt.clear();
    rt.resize(d * nrp, 0.0);
    row.clear();
    row.resize(nr * d, 0.0);
    let finite = unit_rows(hyp, d, nh, h) & unit_rows(reference, d, nr, row);
    // The reference tokens transposed: the cosines of a tile of hypothesis tokens with a tile
    // of reference tokens then add up along contiguous rows.
    for (j, src) in row.chunks(d).enumerate() {
        for (k, &v) in src.iter().enumerate() {
            rt[k * nrp + j] = v;
        }
    }
    if !finite {
        return false;
    }
    for ib in (0..nhp).step_by(MR) {
        let tile_h = &h[ib * d..(ib + MR) * d];
        for jb in (0..nrp).step_by(NR) {
            let mut acc = [[0.0f64; NR]; MR];
            for k in 0..d {
                let b: &[f64; NR] = rt[k * nrp + jb..k * nrp + jb + NR].try_into().unwrap();
                for (ii, lane) in acc.iter_mut().enumerate() {
                    let a = tile_h[ii * d + k];
                    for (x, &bv) in lane.iter_mut().zip(b) {
                        *x += a * bv;
                    }
                }
            }
            for (ii, lane) in acc.iter().enumerate().take(nh.saturating_sub(ib)) {
                let i = ib + ii;
                for (jj, &sim) in lane.iter().enumerate().take(nr.saturating_sub(jb)) {
                    let j = jb + jj;
                    if sim > best_h[i] {
                        best_h[i] = sim;
                    }
                    if sim > best_r[j] {
                        best_r[j] = sim;
                    }
                }
            }
        }
    }
    true
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
