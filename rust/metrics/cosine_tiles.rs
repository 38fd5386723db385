//! Dot products of every row of one matrix with every row of another, register-tiled and
//! cache-blocked like a matrix product, in exactly the summation order of [`super::cosine`]:
//! each cell is bit for bit `cosine::dot` of its two rows, whatever the kernel width or the
//! number of threads, because every cell is the same eight chains of fused multiply-adds
//! combined by the same tree.
//!
//! Rows are packed into panels in "lane order": the components of partial sum 0 first (k = 0,
//! 8, 16, ..., then the tail), then those of partial sum 1, and so on. A tile of `MR` x `NR`
//! cells runs one chain per partial sum over its stretch of the panels, keeps the eight partial
//! tiles and adds them up in the fixed tree.

use rayon::prelude::*;

use super::cosine::{Float, LANES};
use super::halt::{Context, OutOfMemory, Run, TryVec};

/// The order in which a row's components are visited: lane `l` is
/// `ks[bounds[l]..bounds[l + 1]]`.
pub struct Order {
    ks: Vec<usize>,
    bounds: [usize; LANES + 1],
}

impl Order {
    /// The lane order of rows of `dim` components.
    pub fn new(dim: usize) -> Result<Order, OutOfMemory> {
        let full = dim / LANES * LANES;
        let mut ks = Vec::new();
        ks.try_capacity(dim, "the component order")?;
        let mut bounds = [0; LANES + 1];
        for l in 0..LANES {
            ks.extend((l..full).step_by(LANES));
            if l == 0 {
                ks.extend(full..dim);
            }
            bounds[l + 1] = ks.len();
        }
        Ok(Order { ks, bounds })
    }

    fn dim(&self) -> usize {
        self.ks.len()
    }
}

/// From this many rows on, panels are packed on every thread of the current pool.
const PARALLEL_PACK_ROWS: usize = 512;

/// Rows `first..first + rows` of a matrix, packed `w` rows to a panel: panel p holds, for each
/// position t of the order, its rows' values at component `ks[t]` (zero past the last row).
pub struct Panels {
    data: Vec<f64>,
    w: usize,
    rows: usize,
}

impl Panels {
    /// Pack rows `first..first + rows` of `src` (rows of `order`'s dimension).
    pub fn pack<T: Float>(
        src: &[T],
        first: usize,
        rows: usize,
        w: usize,
        order: &Order,
    ) -> Result<Panels, OutOfMemory> {
        let dim = order.dim();
        let panels = rows.div_ceil(w);
        let cells = panels
            .checked_mul(w)
            .and_then(|n| n.checked_mul(dim))
            .ok_or(OutOfMemory {
                bytes: None,
                what: "the packed rows",
            })?;
        let mut data = Vec::new();
        data.try_resize(cells, 0.0, "the packed rows")?;
        let fill = |(p, panel): (usize, &mut [f64])| {
            let height = w.min(rows - p * w);
            let base = (first + p * w) * dim;
            for (t, &k) in order.ks.iter().enumerate() {
                let at = &mut panel[t * w..t * w + height];
                for (r, cell) in at.iter_mut().enumerate() {
                    *cell = src[base + r * dim + k].to_f64();
                }
            }
        };
        let chunks = w * dim.max(1);
        if rows >= PARALLEL_PACK_ROWS {
            data.par_chunks_exact_mut(chunks).enumerate().for_each(fill);
        } else {
            data.chunks_exact_mut(chunks).enumerate().for_each(fill);
        }
        Ok(Panels { data, w, rows })
    }

    fn panels(&self) -> usize {
        self.rows.div_ceil(self.w)
    }

    fn panel(&self, p: usize, dim: usize) -> &[f64] {
        &self.data[p * self.w * dim..(p + 1) * self.w * dim]
    }
}

/// One `MR` x `NR` tile of dot products: row r of the `a` panel with row c of the `b` panel
/// goes to `out[r * NR + c]`.
#[inline(always)]
fn tile<const MR: usize, const NR: usize>(
    a: &[f64],
    b: &[f64],
    bounds: &[usize; LANES + 1],
    out: &mut [f64],
) {
    let mut parts = [[[0.0f64; NR]; MR]; LANES];
    for (l, part) in parts.iter_mut().enumerate() {
        let (lo, hi) = (bounds[l], bounds[l + 1]);
        let mut acc = [[0.0f64; NR]; MR];
        for (av, bv) in a[lo * MR..hi * MR]
            .chunks_exact(MR)
            .zip(b[lo * NR..hi * NR].chunks_exact(NR))
        {
            for r in 0..MR {
                for c in 0..NR {
                    acc[r][c] = av[r].mul_add(bv[c], acc[r][c]);
                }
            }
        }
        *part = acc;
    }
    for r in 0..MR {
        for c in 0..NR {
            let s = |l: usize| parts[l][r][c];
            out[r * NR + c] = ((s(0) + s(4)) + (s(1) + s(5))) + ((s(2) + s(6)) + (s(3) + s(7)));
        }
    }
}

/// How many panels of `b` one block holds: each panel of `b` meets every panel of `a` (a few
/// dozen rows, which stay in the core's L2 cache) while it is in L1.
const BLOCK_COLS: usize = 16;

/// The tile kernel this CPU runs: its tile shape decides how rows are packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// 8 x 16 tiles in 512-bit registers.
    Avx512,
    /// 4 x 8 tiles in 256-bit registers.
    Avx2,
    /// 4 x 4 tiles, scalar (`f64::mul_add`).
    Portable,
}

impl Kernel {
    /// The widest kernel this CPU supports.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("fma") {
                return Kernel::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                return Kernel::Avx2;
            }
        }
        Kernel::Portable
    }

    /// Rows of the first matrix per tile.
    pub fn rows(self) -> usize {
        match self {
            Kernel::Avx512 => 8,
            Kernel::Avx2 | Kernel::Portable => 4,
        }
    }

    /// Rows of the second matrix per tile.
    pub fn cols(self) -> usize {
        match self {
            Kernel::Avx512 => 16,
            Kernel::Avx2 => 8,
            Kernel::Portable => 4,
        }
    }

    fn tile(self, a: &[f64], b: &[f64], bounds: &[usize; LANES + 1], out: &mut [f64]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `detect` chose this kernel only on a CPU with AVX-512F and FMA.
            Kernel::Avx512 => unsafe { tile_avx512(a, b, bounds, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `detect` chose this kernel only on a CPU with AVX2 and FMA.
            Kernel::Avx2 => unsafe { tile_avx2(a, b, bounds, out) },
            _ => tile::<4, 4>(a, b, bounds, out),
        }
    }
}

/// Define an x86 tile kernel of `MR` rows by two vectors of `W` lanes (`NR = 2 W` columns), with
/// its vector type and intrinsics: the same chains and tree as [`tile`], one vector of columns
/// at a time.
macro_rules! simd_tile {
    ($name:ident, $features:literal, $mr:literal, $w:literal, $vec:ty,
     $zero:ident, $load:ident, $splat:ident, $fma:ident, $add:ident, $store:ident) => {
        /// # Safety
        #[doc = concat!("The CPU must support ", $features, "; `a` and `b` must be packed ")]
        #[doc = "panels of this kernel's shape and `out` must hold a whole tile."]
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name(a: &[f64], b: &[f64], bounds: &[usize; LANES + 1], out: &mut [f64]) {
            use std::arch::x86_64::*;
            const MR: usize = $mr;
            const NR: usize = 2 * $w;
            debug_assert!(out.len() >= MR * NR);
            debug_assert!(a.len() >= bounds[LANES] * MR && b.len() >= bounds[LANES] * NR);
            let mut parts: [[$vec; 2 * MR]; LANES] = [[$zero(); 2 * MR]; LANES];
            for (l, part) in parts.iter_mut().enumerate() {
                let mut acc: [$vec; 2 * MR] = [$zero(); 2 * MR];
                let mut pa = a.as_ptr().add(bounds[l] * MR);
                let mut pb = b.as_ptr().add(bounds[l] * NR);
                for _ in bounds[l]..bounds[l + 1] {
                    let (b0, b1) = ($load(pb), $load(pb.add($w)));
                    for r in 0..MR {
                        let ar = $splat(*pa.add(r));
                        acc[2 * r] = $fma(ar, b0, acc[2 * r]);
                        acc[2 * r + 1] = $fma(ar, b1, acc[2 * r + 1]);
                    }
                    pa = pa.add(MR);
                    pb = pb.add(NR);
                }
                *part = acc;
            }
            for v in 0..2 * MR {
                let s = |l: usize| parts[l][v];
                let low = $add($add(s(0), s(4)), $add(s(1), s(5)));
                let high = $add($add(s(2), s(6)), $add(s(3), s(7)));
                $store(out.as_mut_ptr().add(v * $w), $add(low, high));
            }
        }
    };
}

simd_tile!(
    tile_avx512,
    "avx512f,fma",
    8,
    8,
    __m512d,
    _mm512_setzero_pd,
    _mm512_loadu_pd,
    _mm512_set1_pd,
    _mm512_fmadd_pd,
    _mm512_add_pd,
    _mm512_storeu_pd
);

simd_tile!(
    tile_avx2,
    "avx2,fma",
    4,
    4,
    __m256d,
    _mm256_setzero_pd,
    _mm256_loadu_pd,
    _mm256_set1_pd,
    _mm256_fmadd_pd,
    _mm256_add_pd,
    _mm256_storeu_pd
);

/// The dot product of every packed row of `a` with every packed row of `b`, handed out a block
/// at a time: `emit(r, j0, dots)` gets row r of `a` (counted from its first packed row) with
/// rows `j0..j0 + dots.len()` of `b`. Blocks come in increasing `j0`; the stop flag is looked
/// at before each.
pub fn dots<F>(
    kernel: Kernel,
    order: &Order,
    a: &Panels,
    b: &Panels,
    stop: &Context,
    mut emit: F,
) -> Run<()>
where
    F: FnMut(usize, usize, &[f64]) -> Run<()>,
{
    let (mr, nr, dim) = (kernel.rows(), kernel.cols(), order.dim());
    debug_assert!(a.w == mr && b.w == nr);
    let width = BLOCK_COLS * nr;
    let mut block = Vec::new();
    block.try_resize(a.panels() * mr * width, 0.0, "a block of dot products")?;
    let mut cells = vec![0.0f64; mr * nr];
    for jb in (0..b.panels()).step_by(BLOCK_COLS) {
        stop.check()?;
        let jend = (jb + BLOCK_COLS).min(b.panels());
        for bp in jb..jend {
            let pb = b.panel(bp, dim);
            for ap in 0..a.panels() {
                kernel.tile(a.panel(ap, dim), pb, &order.bounds, &mut cells);
                for r in 0..mr {
                    let at = (ap * mr + r) * width + (bp - jb) * nr;
                    block[at..at + nr].copy_from_slice(&cells[r * nr..(r + 1) * nr]);
                }
            }
        }
        let (j0, cols) = (jb * nr, ((jend * nr).min(b.rows)) - jb * nr);
        for r in 0..a.rows {
            emit(r, j0, &block[r * width..r * width + cols])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::cosine::dot;

    fn check(kernel: Kernel, na: usize, nb: usize, dim: usize) {
        let a: Vec<f64> = (0..na * dim)
            .map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0)
            .collect();
        let b: Vec<f32> = (0..nb * dim)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 3.0)
            .collect();
        let bw: Vec<f64> = b.iter().map(|&x| x as f64).collect();
        let order = Order::new(dim).unwrap();
        let pa = Panels::pack(&a, 0, na, kernel.rows(), &order).unwrap();
        let pb = Panels::pack(&b, 0, nb, kernel.cols(), &order).unwrap();
        let mut got = vec![f64::NAN; na * nb];
        dots(kernel, &order, &pa, &pb, &Context::new(), |r, j0, d| {
            got[r * nb + j0..r * nb + j0 + d.len()].copy_from_slice(d);
            Ok(())
        })
        .unwrap();
        for i in 0..na {
            for j in 0..nb {
                let want = dot(&a[i * dim..(i + 1) * dim], &bw[j * dim..(j + 1) * dim]);
                assert_eq!(
                    got[i * nb + j].to_bits(),
                    want.to_bits(),
                    "{kernel:?} {i} {j}"
                );
            }
        }
    }

    #[test]
    fn every_kernel_gives_the_bits_of_dot() {
        let mut kernels = vec![Kernel::Portable];
        if Kernel::detect() != Kernel::Portable {
            kernels.push(Kernel::Avx2);
        }
        if Kernel::detect() == Kernel::Avx512 {
            kernels.push(Kernel::Avx512);
        }
        for kernel in kernels {
            for (na, nb, dim) in [
                (1, 1, 1),
                (3, 5, 7),
                (9, 17, 8),
                (13, 300, 37),
                (2, 4100, 3),
            ] {
                check(kernel, na, nb, dim);
            }
            check(kernel, 2, 3, 0);
        }
    }
}
