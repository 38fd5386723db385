//! Dot products of every row of one matrix with every row of another, register-tiled and
//! cache-blocked like a matrix product, in exactly the summation order of [`super::cosine`]:
//! each cell is bit for bit `cosine::dot` of its two rows, whatever the kernel width or the
//! number of threads, because every cell is the same eight chains of fused multiply-adds
//! combined by the same tree.
//!
//! Rows are packed into panels in "lane order": the components of partial sum 0 first (k = 0,
//! 8, 16, ..., then the tail), then those of partial sum 1, and so on. Within a lane the chain
//! visits positions in increasing order, so a lane is an ordinary matrix product over its
//! positions: a tile of `MR` x `NR` cells runs it in registers a stretch at a time (a long lane
//! is cut into slices, the accumulators stored between them), keeps the partial tiles of the
//! lanes done so far in a small buffer, and adds the eight up in the fixed tree at the end.

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

/// The most positions of a lane one kernel call runs: with 24 columns of `b` that is 24 KiB of
/// its panel, which stays in the L1 cache while every panel of `a` passes by.
const SLICE: usize = 128;

/// A stretch of one lane that a kernel call runs: positions `from..to` of the order. The chain
/// starts from +0.0 on the lane's `first` stretch and otherwise continues from the partial sum
/// stored by the stretch before (a value stored and reloaded keeps its bits); the `last`
/// stretch of all (the end of lane 7) adds the eight partial sums up into the result.
#[derive(Clone, Copy, Debug)]
struct Slice {
    lane: usize,
    from: usize,
    to: usize,
    first: bool,
    last: bool,
}

/// The stretches of every lane, lane by lane, each at most [`SLICE`] long (an empty lane is one
/// empty stretch: its partial sum is +0.0).
fn slices(bounds: &[usize; LANES + 1]) -> Vec<Slice> {
    let mut out = Vec::new();
    for lane in 0..LANES {
        let (lo, hi) = (bounds[lane], bounds[lane + 1]);
        let mut from = lo;
        loop {
            let to = (from + SLICE).min(hi);
            out.push(Slice {
                lane,
                from,
                to,
                first: from == lo,
                last: lane == LANES - 1 && to == hi,
            });
            if to == hi {
                break;
            }
            from = to;
        }
    }
    out
}

/// One stretch of an `MR` x `NR` tile, scalar: row r of the `a` panel with row c of the `b`
/// panel. Partial sums go to `parts` (lane l at `l * MR * NR`, row-major); the last stretch
/// writes row r of the tile's dot products to `out[r * ldo..][..NR]`.
#[inline(always)]
fn tile<const MR: usize, const NR: usize>(
    a: &[f64],
    b: &[f64],
    s: Slice,
    parts: &mut [f64],
    out: &mut [f64],
    ldo: usize,
) {
    let own = s.lane * MR * NR;
    let mut acc = [[0.0f64; NR]; MR];
    if !s.first {
        for (r, row) in acc.iter_mut().enumerate() {
            row.copy_from_slice(&parts[own + r * NR..own + (r + 1) * NR]);
        }
    }
    for (av, bv) in a[s.from * MR..s.to * MR]
        .chunks_exact(MR)
        .zip(b[s.from * NR..s.to * NR].chunks_exact(NR))
    {
        for r in 0..MR {
            for c in 0..NR {
                acc[r][c] = av[r].mul_add(bv[c], acc[r][c]);
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        for (c, &v) in row.iter().enumerate() {
            if s.last {
                let p = |l: usize| parts[l * MR * NR + r * NR + c];
                out[r * ldo + c] = ((p(0) + p(4)) + (p(1) + p(5))) + ((p(2) + p(6)) + (p(3) + v));
            } else {
                parts[own + r * NR + c] = v;
            }
        }
    }
}

/// How many panels of `a` meet a stretch of a panel of `b` in turn: their stretches, the
/// stretch of `b` and their partial sums together stay in the L1 cache.
const GROUP: usize = 4;

/// How many panels of `b` one block holds: the dot products of a block are handed out together.
const BLOCK_COLS: usize = 16;

/// The tile kernel this CPU runs: its tile shape decides how rows are packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// 8 x 24 tiles in 512-bit registers (24 accumulators of the 32).
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
            Kernel::Avx512 => 24,
            Kernel::Avx2 => 8,
            Kernel::Portable => 4,
        }
    }

    /// Run stretch `s` of one tile: `a` and `b` are whole panels, `parts` the tile's
    /// `LANES * rows * cols` partial sums, `out` its first result cell (rows `ldo` apart).
    fn run(self, a: &[f64], b: &[f64], s: Slice, parts: &mut [f64], out: &mut [f64], ldo: usize) {
        let (mr, nr) = (self.rows(), self.cols());
        assert!(
            a.len() >= s.to * mr
                && b.len() >= s.to * nr
                && parts.len() >= LANES * mr * nr
                && (!s.last || out.len() >= (mr - 1) * ldo + nr),
            "tile buffers too short"
        );
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `detect` chose this kernel only on a CPU with AVX-512F and FMA; the
            // buffers are long enough (checked above).
            Kernel::Avx512 => unsafe {
                tile_avx512(
                    a.as_ptr(),
                    b.as_ptr(),
                    s,
                    parts.as_mut_ptr(),
                    out.as_mut_ptr(),
                    ldo,
                )
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `detect` chose this kernel only on a CPU with AVX2 and FMA; the buffers
            // are long enough (checked above).
            Kernel::Avx2 => unsafe {
                tile_avx2(
                    a.as_ptr(),
                    b.as_ptr(),
                    s,
                    parts.as_mut_ptr(),
                    out.as_mut_ptr(),
                    ldo,
                )
            },
            _ => tile::<4, 4>(a, b, s, parts, out, ldo),
        }
    }
}

/// Define an x86 tile kernel of `MR` rows by `V` vectors of `W` lanes (`NR = V W` columns), with
/// its vector type and intrinsics: the same chains, stores and tree as [`tile`], one vector of
/// columns at a time, the accumulators in registers.
macro_rules! simd_tile {
    ($name:ident, $features:literal, $mr:literal, $v:literal, $w:literal, $vec:ty,
     $first:ident, $load:ident, $splat:ident, $fma:ident, $add:ident, $store:ident) => {
        /// # Safety
        #[doc = concat!("The CPU must support ", $features, "; `a` and `b` must point to ")]
        #[doc = "packed panels of this kernel's shape reaching position `s.to`, `parts` to the "]
        #[doc = "tile's partial sums and, for the last stretch, `out` to a whole tile."]
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name(
            a: *const f64,
            b: *const f64,
            s: Slice,
            parts: *mut f64,
            out: *mut f64,
            ldo: usize,
        ) {
            use std::arch::x86_64::*;
            const MR: usize = $mr;
            const V: usize = $v;
            const NR: usize = $v * $w;
            let own = parts.add(s.lane * MR * NR);
            // +0.0 on a lane's first stretch (a zeroing load), else the stored partial sums:
            // no branch, so the accumulators live in registers from the start.
            let mut acc: [$vec; MR * V] = [$first(own, s.first); MR * V];
            for i in 0..MR * V {
                acc[i] = $first(own.add(i * $w), s.first);
            }
            let mut pa = a.add(s.from * MR);
            let mut pb = b.add(s.from * NR);
            for _ in s.from..s.to {
                let mut bv: [$vec; V] = [$load(pb); V];
                for v in 1..V {
                    bv[v] = $load(pb.add(v * $w));
                }
                for r in 0..MR {
                    let ar = $splat(*pa.add(r));
                    for v in 0..V {
                        acc[r * V + v] = $fma(ar, bv[v], acc[r * V + v]);
                    }
                }
                pa = pa.add(MR);
                pb = pb.add(NR);
            }
            for i in 0..MR * V {
                $store(own.add(i * $w), acc[i]);
            }
            if !s.last {
                return;
            }
            // The tree, from the stored partial sums (lane 7's just above): reading `acc` by a
            // run-time index here would keep it in memory through the loop.
            for r in 0..MR {
                for v in 0..V {
                    let i = r * V + v;
                    let p = |l: usize| $load(parts.add(l * MR * NR + i * $w));
                    let low = $add($add(p(0), p(4)), $add(p(1), p(5)));
                    let high = $add($add(p(2), p(6)), $add(p(3), p(7)));
                    $store(out.add(r * ldo + v * $w), $add(low, high));
                }
            }
        }
    };
}

/// Eight doubles from `p`, or +0.0 in every lane when `zero` (nothing is read then).
///
/// # Safety
/// The CPU must support AVX-512F; unless `zero`, `p` must point to 8 readable doubles.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn first512(p: *const f64, zero: bool) -> std::arch::x86_64::__m512d {
    let mask: u8 = if zero { 0 } else { 0xff };
    std::arch::x86_64::_mm512_maskz_loadu_pd(mask, p)
}

/// Four doubles from `p`, or +0.0 in every lane when `zero` (nothing is read then).
///
/// # Safety
/// The CPU must support AVX2; unless `zero`, `p` must point to 4 readable doubles.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn first256(p: *const f64, zero: bool) -> std::arch::x86_64::__m256d {
    use std::arch::x86_64::*;
    let mask = _mm256_set1_epi64x(if zero { 0 } else { -1 });
    _mm256_maskload_pd(p, mask)
}

simd_tile!(
    tile_avx512,
    "avx512f,fma",
    8,
    3,
    8,
    __m512d,
    first512,
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
    2,
    4,
    __m256d,
    first256,
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
///
/// Blocked like a matrix product: for each panel of `b`, stretch by stretch of the order (a
/// lane, or a slice of a long one), the stretch of that panel stays in L1 while it meets the
/// same stretch of a group of [`GROUP`] panels of `a` (all of `a` stays in L2); partial sums
/// wait in a small buffer between stretches, and the last stretch writes each tile's dot
/// products into the block.
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
    let stretches = slices(&order.bounds);
    let width = BLOCK_COLS * nr;
    let mut block = Vec::new();
    block.try_resize(a.panels() * mr * width, 0.0, "a block of dot products")?;
    let per_tile = LANES * mr * nr;
    let mut parts = Vec::new();
    parts.try_resize(a.panels() * per_tile, 0.0, "the partial sums")?;
    for jb in (0..b.panels()).step_by(BLOCK_COLS) {
        stop.check()?;
        let jend = (jb + BLOCK_COLS).min(b.panels());
        for ag in (0..a.panels()).step_by(GROUP) {
            let agend = (ag + GROUP).min(a.panels());
            for bp in jb..jend {
                let pb = b.panel(bp, dim);
                for &s in &stretches {
                    for ap in ag..agend {
                        let at = ap * mr * width + (bp - jb) * nr;
                        kernel.run(
                            a.panel(ap, dim),
                            pb,
                            s,
                            &mut parts[ap * per_tile..(ap + 1) * per_tile],
                            &mut block[at..],
                            width,
                        );
                    }
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
                (17, 50, 1100),
            ] {
                check(kernel, na, nb, dim);
            }
            check(kernel, 2, 3, 0);
        }
    }
}
