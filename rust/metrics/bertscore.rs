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

/// Buffers one thread reuses from pair to pair: the unit rows of the hypothesis packed in
/// panels of [`MR`] tokens, the unit reference rows (then the cosines), the reference packed
/// in panels of the tile width (both zero padded), and the best cosine of each token.
#[derive(Default)]
pub struct Scratch {
    h: Vec<f64>,
    row: Vec<f64>,
    rt: Vec<f64>,
    best_h: Vec<f64>,
    best_r: Vec<f64>,
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

/// How many dimensions one pass of the tiles covers: a panel of reference tokens for that
/// stretch (16 tokens x 256 x 8 bytes = 32 KiB) stays in the L1 cache while every tile of
/// hypothesis tokens meets it. A cosine's running sum is stored between passes and reloaded,
/// which keeps its bits: each is still one sum in order over the dimensions.
const KC: usize = 256;

/// The `n` rows of `src` (rows of `d` values) divided by their norms, packed in panels of `W`
/// rows: panel p holds, for each dimension k, its rows' values at k side by side (zero past the
/// last row). A norm is the square root of the row's squares summed in order from 0 (a zero row
/// stays zero); the `W` sums of a panel advance together, one vector of rows per dimension.
/// False when a row holds NaN or infinity.
#[inline(always)]
fn pack_unit<const W: usize>(src: &[f64], d: usize, n: usize, out: &mut Vec<f64>) -> bool {
    let panels = n.div_ceil(W);
    out.clear();
    out.resize(panels * W * d, 0.0);
    let mut finite = true;
    for (p, panel) in out.chunks_exact_mut(W * d).enumerate() {
        let height = W.min(n - p * W);
        let rows = &src[p * W * d..(p * W + height) * d];
        for (k, at) in panel.chunks_exact_mut(W).enumerate() {
            for (r, cell) in at.iter_mut().enumerate().take(height) {
                *cell = rows[r * d + k];
            }
        }
        let mut totals = [0.0f64; W];
        let mut bad = [false; W];
        for at in panel.chunks_exact(W) {
            let at: &[f64; W] = at.try_into().unwrap();
            for r in 0..W {
                totals[r] += at[r] * at[r];
                bad[r] |= !at[r].is_finite();
            }
        }
        finite &= !bad.iter().any(|&b| b);
        let norms = totals.map(f64::sqrt);
        for at in panel.chunks_exact_mut(W) {
            for r in 0..W {
                let v = at[r];
                at[r] = if norms[r] > 0.0 { v / norms[r] } else { v };
            }
        }
    }
    finite
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
    // Unit rows, then packed: hypothesis tokens MR to a panel, reference tokens NR to a panel,
    // so that a tile reads both sides in order of the dimensions.
    let finite_h = pack_unit::<MR>(hyp, d, nh, h);
    let finite_r = pack_unit::<NR>(reference, d, nr, rt);
    if !(finite_h & finite_r) {
        return false;
    }
    // The cosines, tile by tile (row-major, `nrp` wide), summed a stretch of dimensions at a
    // time; `row` holds them between stretches.
    row.clear();
    row.resize(nhp * nrp, 0.0);
    let sims = row;
    for k0 in (0..d).step_by(KC) {
        let k1 = (k0 + KC).min(d);
        for jb in (0..nrp).step_by(NR) {
            let pr = &rt[jb * d + k0 * NR..jb * d + k1 * NR];
            for ib in (0..nhp).step_by(MR) {
                let ph = &h[ib * d + k0 * MR..ib * d + k1 * MR];
                let mut acc = [[0.0f64; NR]; MR];
                if k0 > 0 {
                    for (ii, lane) in acc.iter_mut().enumerate() {
                        let at = (ib + ii) * nrp + jb;
                        lane.copy_from_slice(&sims[at..at + NR]);
                    }
                }
                for (a, b) in ph.chunks_exact(MR).zip(pr.chunks_exact(NR)) {
                    let (a, b): (&[f64; MR], &[f64; NR]) =
                        (a.try_into().unwrap(), b.try_into().unwrap());
                    for (lane, &av) in acc.iter_mut().zip(a) {
                        for (x, &bv) in lane.iter_mut().zip(b) {
                            *x += av * bv;
                        }
                    }
                }
                for (ii, lane) in acc.iter().enumerate() {
                    let at = (ib + ii) * nrp + jb;
                    sims[at..at + NR].copy_from_slice(lane);
                }
            }
        }
    }
    // Selects rather than branches (they vectorise): a value is replaced only by a greater
    // one, so among equal values (+0.0 and -0.0) the first in order stays.
    for (i, best) in best_h.iter_mut().enumerate() {
        let row = &sims[i * nrp..i * nrp + nr];
        let mut top = *best;
        for (&sim, b) in row.iter().zip(best_r.iter_mut()) {
            top = if sim > top { sim } else { top };
            *b = if sim > *b { sim } else { *b };
        }
        *best = top;
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
