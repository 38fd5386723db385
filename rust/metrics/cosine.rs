//! Cosine similarity, accumulated in f64 in a fixed order so results do not depend on threads.

/// Element types the kernel reads (f32 and f64).
pub trait Float: Copy + Send + Sync {
    fn to_f64(self) -> f64;
}

impl Float for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Float for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
}

const LANES: usize = 8;

/// Dot product and both squared norms of two equal-length vectors, in one pass. Eight partial
/// sums per quantity let the compiler vectorize; their order of combination is fixed, and no
/// fused multiply-add is used, so the AVX2 build of this loop gives the same bits as the
/// baseline one.
#[inline]
pub fn dot_and_norms<T: Float>(a: &[T], b: &[T]) -> (f64, f64, f64) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { dot_and_norms_avx2(a, b) };
        }
    }
    dot_and_norms_portable(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_and_norms_avx2<T: Float>(a: &[T], b: &[T]) -> (f64, f64, f64) {
    dot_and_norms_portable(a, b)
}

#[inline(always)]
fn dot_and_norms_portable<T: Float>(a: &[T], b: &[T]) -> (f64, f64, f64) {
    let mut dot = [0.0f64; LANES];
    let mut na = [0.0f64; LANES];
    let mut nb = [0.0f64; LANES];
    let chunks = a.len() / LANES;
    for k in 0..chunks {
        let (ca, cb) = (
            &a[k * LANES..(k + 1) * LANES],
            &b[k * LANES..(k + 1) * LANES],
        );
        for l in 0..LANES {
            let (x, y) = (ca[l].to_f64(), cb[l].to_f64());
            dot[l] += x * y;
            na[l] += x * x;
            nb[l] += y * y;
        }
    }
    for i in chunks * LANES..a.len() {
        let (x, y) = (a[i].to_f64(), b[i].to_f64());
        dot[0] += x * y;
        na[0] += x * x;
        nb[0] += y * y;
    }
    (sum(&dot), sum(&na), sum(&nb))
}

#[inline]
fn sum(v: &[f64; LANES]) -> f64 {
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

/// Cosine similarity of two equal-length vectors.
#[inline]
pub fn cosine<T: Float>(a: &[T], b: &[T]) -> f64 {
    let (d, na, nb) = dot_and_norms(a, b);
    from_parts(d, na, nb)
}

/// Whether every element is finite.
#[inline]
pub fn all_finite<T: Float>(a: &[T]) -> bool {
    a.iter().all(|x| x.to_f64().is_finite())
}

/// Dot product with the same lane structure as [`dot_and_norms`].
#[inline]
pub fn dot<T: Float>(a: &[T], b: &[T]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { dot_avx2(a, b) };
        }
    }
    dot_portable(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_avx2<T: Float>(a: &[T], b: &[T]) -> f64 {
    dot_portable(a, b)
}

#[inline(always)]
fn dot_portable<T: Float>(a: &[T], b: &[T]) -> f64 {
    let mut acc = [0.0f64; LANES];
    let chunks = a.len() / LANES;
    for k in 0..chunks {
        let (ca, cb) = (
            &a[k * LANES..(k + 1) * LANES],
            &b[k * LANES..(k + 1) * LANES],
        );
        for l in 0..LANES {
            acc[l] += ca[l].to_f64() * cb[l].to_f64();
        }
    }
    for i in chunks * LANES..a.len() {
        acc[0] += a[i].to_f64() * b[i].to_f64();
    }
    sum(&acc)
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
        let a: Vec<f64> = (0..37).map(|i| i as f64 * 0.5 - 3.0).collect();
        let b: Vec<f64> = (0..37).map(|i| (i * i) as f64 * 0.1).collect();
        assert_eq!(
            cosine(&a, &b),
            from_parts(dot(&a, &b), squared_norm(&a), squared_norm(&b))
        );
    }
}
