//! Cosine similarity, accumulated in f64 in a fixed order so results do not depend on threads:
//! of one pair, and of every row of one matrix with every row of another.
//!
//! The order, which every kernel here and in `cosine_tiles` follows bit for bit: component k
//! goes to partial sum `k % 8` (the tail past the last full eight goes to partial sum 0), each
//! partial sum is a chain of fused multiply-adds from +0.0 in increasing k, and the eight are
//! combined as `((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))`.

use super::halt::{Context, Run};

/// Element types the kernel reads (f32 and f64).
pub trait Float: Copy + Send + Sync + Sized {
    fn to_f64(self) -> f64;

    /// Load 8 consecutive values widened to f64, as lanes 0–3 and 4–7.
    ///
    /// # Safety
    /// The CPU must support AVX2 and `p` must point to 8 readable values.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load8(p: *const Self) -> (x86::__m256d, x86::__m256d);
}

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64 as x86;

impl Float for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const f32) -> (x86::__m256d, x86::__m256d) {
        let v = x86::_mm256_loadu_ps(p);
        (
            x86::_mm256_cvtps_pd(x86::_mm256_castps256_ps128(v)),
            x86::_mm256_cvtps_pd(x86::_mm256_extractf128_ps(v, 1)),
        )
    }
}

impl Float for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn load8(p: *const f64) -> (x86::__m256d, x86::__m256d) {
        (x86::_mm256_loadu_pd(p), x86::_mm256_loadu_pd(p.add(4)))
    }
}

/// How many partial sums a dot product keeps.
pub(crate) const LANES: usize = 8;

/// Panic unless the two vectors of a pair have the same length: the AVX2 loops read `b` as far
/// as `a` goes, so this check is what keeps them in bounds.
#[inline(always)]
fn same_length<T>(a: &[T], b: &[T]) {
    assert_eq!(
        a.len(),
        b.len(),
        "cosine kernels need vectors of one length"
    );
}

/// Dot product and both squared norms of two vectors of one length, in one pass (panics when
/// the lengths differ), in the order of the module documentation: the AVX2 loop and the
/// portable one (`f64::mul_add`, a correctly rounded fused multiply-add) give the same bits.
#[inline]
pub fn dot_and_norms<T: Float>(a: &[T], b: &[T]) -> (f64, f64, f64) {
    same_length(a, b);
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports AVX2 and FMA, checked just above; `b` is as long as `a`.
            return unsafe { dot_and_norms_avx2(a, b) };
        }
    }
    dot_and_norms_portable(a, b)
}

/// The same sums as [`dot_and_norms_portable`], lane for lane: lane l of the two 4-wide
/// accumulators is partial sum l, each step one fused multiply-add.
///
/// # Safety
/// The CPU must support AVX2 and FMA, and `b` must be at least as long as `a`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_and_norms_avx2<T: Float>(a: &[T], b: &[T]) -> (f64, f64, f64) {
    use x86::*;
    let chunks = a.len() / LANES;
    let (mut d0, mut d1) = (_mm256_setzero_pd(), _mm256_setzero_pd());
    let (mut a0, mut a1) = (_mm256_setzero_pd(), _mm256_setzero_pd());
    let (mut b0, mut b1) = (_mm256_setzero_pd(), _mm256_setzero_pd());
    for k in 0..chunks {
        let (x0, x1) = T::load8(a.as_ptr().add(k * LANES));
        let (y0, y1) = T::load8(b.as_ptr().add(k * LANES));
        d0 = _mm256_fmadd_pd(x0, y0, d0);
        d1 = _mm256_fmadd_pd(x1, y1, d1);
        a0 = _mm256_fmadd_pd(x0, x0, a0);
        a1 = _mm256_fmadd_pd(x1, x1, a1);
        b0 = _mm256_fmadd_pd(y0, y0, b0);
        b1 = _mm256_fmadd_pd(y1, y1, b1);
    }
    let lanes = |lo: __m256d, hi: __m256d| {
        let mut out = [0.0f64; LANES];
        _mm256_storeu_pd(out.as_mut_ptr(), lo);
        _mm256_storeu_pd(out.as_mut_ptr().add(4), hi);
        out
    };
    let (mut dot, mut na, mut nb) = (lanes(d0, d1), lanes(a0, a1), lanes(b0, b1));
    for i in chunks * LANES..a.len() {
        let (x, y) = (a[i].to_f64(), b[i].to_f64());
        dot[0] = x.mul_add(y, dot[0]);
        na[0] = x.mul_add(x, na[0]);
        nb[0] = y.mul_add(y, nb[0]);
    }
    (sum(&dot), sum(&na), sum(&nb))
}

#[inline(always)]
fn dot_and_norms_portable<T: Float>(a: &[T], b: &[T]) -> (f64, f64, f64) {
    let mut dot = [0.0f64; LANES];
    let mut na = [0.0f64; LANES];
    let mut nb = [0.0f64; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            let (p, q) = (x[l].to_f64(), y[l].to_f64());
            dot[l] = p.mul_add(q, dot[l]);
            na[l] = p.mul_add(p, na[l]);
            nb[l] = q.mul_add(q, nb[l]);
        }
    }
    for (x, y) in ra.iter().zip(rb) {
        let (p, q) = (x.to_f64(), y.to_f64());
        dot[0] = p.mul_add(q, dot[0]);
        na[0] = p.mul_add(p, na[0]);
        nb[0] = q.mul_add(q, nb[0]);
    }
    (sum(&dot), sum(&na), sum(&nb))
}

#[inline]
pub(crate) fn sum(v: &[f64; LANES]) -> f64 {
    ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]))
}

/// Squared norm of a vector, with the same lane structure as [`dot_and_norms`].
#[inline]
pub fn squared_norm<T: Float>(a: &[T]) -> f64 {
    dot_and_norms(a, a).1
}

/// Cosine from a dot product and two squared norms; 0.0 when either vector is zero.
#[inline]
pub fn from_parts(dot: f64, na: f64, nb: f64) -> f64 {
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

/// Cosine similarity of two vectors of one length (panics when the lengths differ).
#[inline]
pub fn cosine<T: Float>(a: &[T], b: &[T]) -> f64 {
    let (d, na, nb) = dot_and_norms(a, b);
    from_parts(d, na, nb)
}

/// Below this squared norm, products of float64 components near the bottom of the exponent
/// range have lost precision (or underflowed to zero): such pairs are rescaled first.
pub const TINY_SQUARED_NORM: f64 = 1e-200;

/// Which vector of a pair holds a NaN or an infinity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonFinite {
    First,
    Second,
}

/// Cosine of two vectors of one length (panics when the lengths differ), or which of them is
/// not finite. Finite inputs whose
/// squares overflow f64 are rescaled first, so they still get their cosine.
pub fn checked_cosine<T: Float>(a: &[T], b: &[T]) -> Result<f64, NonFinite> {
    let (d, na, nb) = dot_and_norms(a, b);
    if d.is_finite() && na.is_finite() && nb.is_finite() {
        if na >= TINY_SQUARED_NORM && nb >= TINY_SQUARED_NORM {
            return Ok(from_parts(d, na, nb));
        }
        // A zero vector, or squares so small they lose precision: rescale (zero stays zero).
        return Ok(rescaled_cosine(a, b));
    }
    if !all_finite(a) {
        return Err(NonFinite::First);
    }
    if !all_finite(b) {
        return Err(NonFinite::Second);
    }
    Ok(rescaled_cosine(a, b))
}

fn rescaled_cosine<T: Float>(a: &[T], b: &[T]) -> f64 {
    let scaled = |v: &[T]| -> Vec<f64> {
        let top = v.iter().fold(0.0f64, |m, x| m.max(x.to_f64().abs()));
        if top == 0.0 {
            return vec![0.0; v.len()];
        }
        v.iter().map(|x| x.to_f64() / top).collect()
    };
    cosine(&scaled(a), &scaled(b))
}

/// Whether every element is finite.
#[inline]
pub fn all_finite<T: Float>(a: &[T]) -> bool {
    a.iter().all(|x| x.to_f64().is_finite())
}

/// Dot product with the same lane structure as [`dot_and_norms`] (panics when the lengths
/// differ).
#[inline]
pub fn dot<T: Float>(a: &[T], b: &[T]) -> f64 {
    same_length(a, b);
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports AVX2 and FMA, checked just above; `b` is as long as `a`.
            return unsafe { dot_avx2(a, b) };
        }
    }
    dot_portable(a, b)
}

/// # Safety
/// The CPU must support AVX2 and FMA, and `b` must be at least as long as `a`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2<T: Float>(a: &[T], b: &[T]) -> f64 {
    use x86::*;
    let chunks = a.len() / LANES;
    let (mut d0, mut d1) = (_mm256_setzero_pd(), _mm256_setzero_pd());
    for k in 0..chunks {
        let (x0, x1) = T::load8(a.as_ptr().add(k * LANES));
        let (y0, y1) = T::load8(b.as_ptr().add(k * LANES));
        d0 = _mm256_fmadd_pd(x0, y0, d0);
        d1 = _mm256_fmadd_pd(x1, y1, d1);
    }
    let mut acc = [0.0f64; LANES];
    _mm256_storeu_pd(acc.as_mut_ptr(), d0);
    _mm256_storeu_pd(acc.as_mut_ptr().add(4), d1);
    for i in chunks * LANES..a.len() {
        acc[0] = a[i].to_f64().mul_add(b[i].to_f64(), acc[0]);
    }
    sum(&acc)
}

#[inline(always)]
fn dot_portable<T: Float>(a: &[T], b: &[T]) -> f64 {
    let mut acc = [0.0f64; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            acc[l] = x[l].to_f64().mul_add(y[l].to_f64(), acc[l]);
        }
    }
    for (x, y) in ra.iter().zip(rb) {
        acc[0] = x.to_f64().mul_add(y.to_f64(), acc[0]);
    }
    sum(&acc)
}

/// The first row (rows of `dim` values) that holds a NaN or an infinity.
pub fn first_non_finite_row<T: Float>(data: &[T], dim: usize) -> Option<usize> {
    if dim == 0 {
        return None;
    }
    data.chunks(dim).position(|row| !all_finite(row))
}

/// How many cells of an all-pairs row are computed between two looks at the stop flag.
const CELLS_PER_CHECK: usize = 1024;

/// Row `i` of the all-pairs matrix: the cosine of `qi` with each row of `m` (rows of `dim`
/// values, all finite), whose squared norms are `m_norms`.
pub fn all_pairs_row<T: Float>(
    qi: &[T],
    m: &[T],
    m_norms: &[f64],
    row: &mut [f64],
    stop: &Context,
) -> Run<()> {
    let dim = qi.len();
    let nqi = squared_norm(qi);
    for (k, cells) in row.chunks_mut(CELLS_PER_CHECK).enumerate() {
        stop.check()?;
        for (c, cell) in cells.iter_mut().enumerate() {
            let j = k * CELLS_PER_CHECK + c;
            let mj = &m[j * dim..(j + 1) * dim];
            let v = from_parts(dot(qi, mj), nqi, m_norms[j]);
            // Squares of huge or tiny finite f64 values overflow or lose precision: those
            // pairs are recomputed rescaled.
            let ordinary =
                v.is_finite() && nqi >= TINY_SQUARED_NORM && m_norms[j] >= TINY_SQUARED_NORM;
            *cell = if ordinary {
                v
            } else {
                checked_cosine(qi, mj).unwrap_or(f64::NAN)
            };
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_values() {
        assert_eq!(cosine(&[1.0f64, 0.0], &[0.0, 1.0]), 0.0);
        assert!((cosine(&[1.0f32, 2.0, 3.0], &[1.0, 2.0, 3.0]) - 1.0).abs() < 1e-15);
        assert!((cosine(&[1.0f64, 1.0], &[-1.0, -1.0]) + 1.0).abs() < 1e-15);
        assert_eq!(cosine(&[0.0f32; 3], &[1.0, 2.0, 3.0]), 0.0);
        let tiny = checked_cosine(&[1e150f64], &[5e-174]).unwrap();
        assert!((tiny - 1.0).abs() < 1e-15);
        let small = checked_cosine(&[3.0f64, 4.0], &[3e-160, 4e-160]).unwrap();
        assert!((small - 1.0).abs() < 1e-15);
        assert_eq!(checked_cosine(&[0.0f64, 0.0], &[1.0, 1.0]), Ok(0.0));
        let big = checked_cosine(&[1e200f64, 1e200], &[1e200, 1e200]).unwrap();
        assert!((big - 1.0).abs() < 1e-15);
        assert_eq!(
            checked_cosine(&[1.0f64, f64::NAN], &[1.0, 1.0]),
            Err(NonFinite::First)
        );
        assert_eq!(
            checked_cosine(&[1.0f32, 1.0], &[f32::INFINITY, 1.0]),
            Err(NonFinite::Second)
        );
        let a: Vec<f64> = (0..37).map(|i| i as f64 * 0.5 - 3.0).collect();
        let b: Vec<f64> = (0..37).map(|i| (i * i) as f64 * 0.1).collect();
        assert_eq!(
            cosine(&a, &b),
            from_parts(dot(&a, &b), squared_norm(&a), squared_norm(&b))
        );
    }

    #[test]
    fn unequal_lengths_are_refused_not_read_past() {
        // `b` shorter than `a` by more than a chunk of eight: the vector loops would read
        // past its end if the lengths were not checked first.
        let (a, b) = (vec![1.0f32; 64], vec![1.0f32; 3]);
        let calls: [&dyn Fn() -> f64; 5] = [
            &|| dot(&a, &b),
            &|| dot_and_norms(&a, &b).0,
            &|| cosine(&a, &b),
            &|| checked_cosine(&a, &b).unwrap_or(0.0),
            &|| cosine(&b, &a),
        ];
        for f in calls {
            let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            assert!(got.is_err(), "unequal lengths must panic");
        }
        assert_eq!(cosine(&[2.0f64; 9], &[3.0f64; 9]), 1.0);
    }
}
