//! The vector metrics' shapes: row i with row i ([`cosine_rows`]) and every row with every row
//! ([`cosine_all_pairs`]), over C-contiguous float32 or float64 matrices, with the GIL released.

use std::mem::MaybeUninit;

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;

use crate::batch::{fill_rows, result_array, run_watched, Workers};
use crate::errors::EvalError;
use crate::inputs::{Matrix, MatrixPair};
use crate::metrics::cosine::{self, Float, NonFinite, TINY_SQUARED_NORM};
use crate::metrics::cosine_tiles::{self, Kernel, Order, Panels};
use crate::metrics::halt::{bytes_of, human_bytes, Context, Run, TryVec};

fn non_finite_row(row: usize, side: &str) -> EvalError {
    EvalError::input(format!(
        "row {row} of {side} contains NaN or infinity; cosine needs finite values"
    ))
}

/// The cosine of two 1-D float64 vectors.
pub fn cosine_pair(expected: &Bound<'_, PyAny>, actual: &Bound<'_, PyAny>) -> PyResult<f64> {
    let e: numpy::PyReadonlyArray1<'_, f64> = expected.extract()?;
    let a: numpy::PyReadonlyArray1<'_, f64> = actual.extract()?;
    let (e, a) = (e.as_slice()?, a.as_slice()?);
    if e.len() != a.len() {
        return Err(EvalError::input(format!(
            "vectors of different dimensions: {} and {}",
            e.len(),
            a.len()
        ))
        .into());
    }
    cosine::checked_cosine(e, a).map_err(|side| {
        let name = match side {
            NonFinite::First => "expected",
            NonFinite::Second => "actual",
        };
        EvalError::input(format!(
            "{name} contains NaN or infinity; cosine needs finite values"
        ))
        .into()
    })
}

/// The cosine of row i of `expected` with row i of `actual` (matrices of one shape).
pub fn cosine_rows<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: Workers,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (e, a) = (
        Matrix::hold(expected, "expected")?,
        Matrix::hold(actual, "actual")?,
    );
    let ((re, de), (ra, da)) = (e.shape(), a.shape());
    if (re, de) != (ra, da) {
        return Err(EvalError::input(format!(
            "expected and actual must have the same shape, got ({re}, {de}) and ({ra}, {da})"
        ))
        .into());
    }
    let size = re.saturating_mul(de);
    let out = match e.pair(&a, ("expected", "actual"))? {
        MatrixPair::F32(x, y) => run_watched(py, workers, size, |s, w| rows(x, y, re, de, w, s))?,
        MatrixPair::F64(x, y) => run_watched(py, workers, size, |s, w| rows(x, y, re, de, w, s))?,
    };
    Ok(PyArray1::from_vec(py, out))
}

fn rows<T: Float>(
    e: &[T],
    a: &[T],
    n: usize,
    dim: usize,
    workers: Workers,
    stop: &Context,
) -> Result<Vec<f64>, EvalError> {
    let mut out = result_array(n, "the result array")?;
    fill_rows(&mut out, 1, workers, stop, |_: &mut (), i, cell| {
        let span = i * dim..(i + 1) * dim;
        cell[0] =
            cosine::checked_cosine(&e[span.clone()], &a[span]).map_err(|side| match side {
                NonFinite::First => non_finite_row(i, "expected"),
                NonFinite::Second => non_finite_row(i, "actual"),
            })?;
        Ok(())
    })?;
    Ok(out)
}

/// The cosine of every row of `expected` with every row of `actual`: shape (len e, len a).
pub fn cosine_all_pairs<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: Workers,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (e, a) = (
        Matrix::hold(expected, "expected")?,
        Matrix::hold(actual, "actual")?,
    );
    let ((ne, de), (na, da)) = (e.shape(), a.shape());
    if de != da {
        return Err(EvalError::input(format!(
            "expected and actual must have the same number of columns, got {de} and {da}"
        ))
        .into());
    }
    let shape = (ne, na, de);
    let size = ne.saturating_mul(na).saturating_mul(de.max(1));
    let out = match e.pair(&a, ("expected", "actual"))? {
        MatrixPair::F32(x, y) => {
            run_watched(py, workers, size, |s, w| all_pairs(x, y, shape, w, s))?
        }
        MatrixPair::F64(x, y) => {
            run_watched(py, workers, size, |s, w| all_pairs(x, y, shape, w, s))?
        }
    };
    PyArray1::from_vec(py, out).reshape([ne, na])
}

/// The `ne` x `na` result, allocated fallibly: its size comes straight from the caller.
/// Its cells are left unwritten (the kernel writes every one): zeroing 8 bytes a cell on one
/// thread first would cost about as much as the whole product of short rows.
fn all_pairs_result(ne: usize, na: usize) -> Result<Vec<MaybeUninit<f64>>, EvalError> {
    let size = ne
        .checked_mul(na)
        .map(|cells| (cells, bytes_of::<f64>(cells, "the result")));
    let mut out = Vec::new();
    let need = match size {
        Some((cells, Ok(bytes))) => match out.try_capacity(cells, "the result") {
            Ok(()) => {
                // SAFETY: the capacity is there, and `MaybeUninit` needs no initial value.
                unsafe { out.set_len(cells) };
                huge_pages(&mut out);
                return Ok(out);
            }
            Err(_) => human_bytes(bytes),
        },
        _ => "more bytes than a 64-bit address space holds".to_string(),
    };
    Err(EvalError::Memory(format!(
        "cannot allocate the {ne} x {na} result of cosine_matrix: it needs {need} of float64; \
         pass fewer rows per call"
    )))
}

/// Ask the kernel to back a large result with 2 MiB pages (as NumPy does for its arrays):
/// first writes to a fresh result otherwise take one page fault per 4 KiB, about a tenth of
/// the time of a product of short rows. Only a hint; nothing changes when it is refused.
fn huge_pages(out: &mut [MaybeUninit<f64>]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        const MADV_HUGEPAGE: std::ffi::c_int = 14;
        extern "C" {
            fn madvise(
                addr: *mut std::ffi::c_void,
                len: usize,
                advice: std::ffi::c_int,
            ) -> std::ffi::c_int;
        }
        let bytes = std::mem::size_of_val(out);
        if bytes < (4 << 20) {
            return;
        }
        let start = out.as_mut_ptr() as usize;
        let first = start.next_multiple_of(PAGE);
        let end = (start + bytes) / PAGE * PAGE;
        if end > first {
            // SAFETY: the range lies inside this allocation, page-aligned; MADV_HUGEPAGE only
            // changes how the kernel backs the pages, never their contents.
            unsafe { madvise(first as *mut std::ffi::c_void, end - first, MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = out;
}

/// How many rows of `expected` one work item takes: enough items for every thread to get
/// several (so the last ones balance), each a whole number of tiles, at most 96 rows.
fn rows_per_item(ne: usize, kernel: Kernel, workers: Workers) -> usize {
    let mr = kernel.rows();
    let threads = if workers.serial() {
        1
    } else {
        rayon::current_num_threads()
    };
    let want = ne.div_ceil(4 * threads.max(1));
    want.div_ceil(mr).clamp(1, 96 / mr) * mr
}

/// Squared norms of every row (rows of `dim` values), in parallel.
fn row_norms<T: Float>(
    m: &[T],
    rows: usize,
    dim: usize,
    workers: Workers,
    stop: &Context,
) -> Result<Vec<f64>, EvalError> {
    let mut norms = result_array::<f64>(rows, "the row norms")?;
    fill_rows(&mut norms, 1, workers, stop, |_: &mut (), j, cell| {
        cell[0] = cosine::squared_norm(&m[j * dim..(j + 1) * dim]);
        Ok(())
    })?;
    Ok(norms)
}

/// Both matrices checked finite, with their row norms, `a` packed for the tile kernel.
struct Prepared<'m, T> {
    e: &'m [T],
    a: &'m [T],
    dim: usize,
    kernel: Kernel,
    order: Order,
    e_norms: Vec<f64>,
    a_norms: Vec<f64>,
    a_roots: Vec<f64>,
    packed: Panels,
}

impl<'m, T: Float> Prepared<'m, T> {
    fn new(
        e: &'m [T],
        a: &'m [T],
        (ne, na, dim): (usize, usize, usize),
        (workers, sides): (Workers, (&str, &str)),
        stop: &Context,
    ) -> Result<Self, EvalError> {
        if let Some(row) = cosine::first_non_finite_row(e, dim) {
            return Err(non_finite_row(row, sides.0));
        }
        if let Some(row) = cosine::first_non_finite_row(a, dim) {
            return Err(non_finite_row(row, sides.1));
        }
        let kernel = Kernel::detect();
        let order = Order::new(dim)?;
        let e_norms = row_norms(e, ne, dim, workers, stop)?;
        let a_norms = row_norms(a, na, dim, workers, stop)?;
        let mut a_roots = result_array::<f64>(na, "the row norms")?;
        for (root, n) in a_roots.iter_mut().zip(&a_norms) {
            *root = n.sqrt();
        }
        let packed = Panels::pack(a, 0, na, kernel.cols(), &order)?;
        Ok(Prepared {
            e,
            a,
            dim,
            kernel,
            order,
            e_norms,
            a_norms,
            a_roots,
            packed,
        })
    }

    /// The cosines of rows `first..first + rows` of `e` with every row of `a`, a block at a
    /// time: `emit(r, j0, dots, cosines)` gets row `first + r`'s dot products with rows
    /// `j0..j0 + dots.len()` of `a`, and `cosines` turns them into cosines written to a
    /// destination of the same length.
    fn cosines<F>(&self, first: usize, rows: usize, stop: &Context, mut emit: F) -> Run<()>
    where
        F: FnMut(usize, usize, &[f64], &dyn Fn(usize, &[f64], &mut [MaybeUninit<f64>])) -> Run<()>,
    {
        let pe = Panels::pack(self.e, first, rows, self.kernel.rows(), &self.order)?;
        let finish = |r: usize, j0: usize, dots: &[f64], dst: &mut [MaybeUninit<f64>]| {
            self.finish(first + r, j0, dots, dst)
        };
        cosine_tiles::dots(
            self.kernel,
            &self.order,
            &pe,
            &self.packed,
            stop,
            |r, j0, dots| emit(r, j0, dots, &|j0, dots, dst| finish(r, j0, dots, dst)),
        )
    }

    /// Row `i`'s cosines with rows `j0..j0 + dots.len()` of `a`, from their dot products, into
    /// `dst`: `from_parts` with the square roots taken once per row (the same bits); pairs with
    /// squares that overflow or lose precision, or a zero vector, are recomputed as the one-pair
    /// cosine does (rescaled, or 0.0).
    fn finish(&self, i: usize, j0: usize, dots: &[f64], dst: &mut [MaybeUninit<f64>]) {
        let dim = self.dim;
        let ni = self.e_norms[i];
        let root = ni.sqrt();
        let n = dots.len();
        let (norms, roots) = (&self.a_norms[j0..j0 + n], &self.a_roots[j0..j0 + n]);
        let dst = &mut dst[..n];
        // One pass without branches (it vectorises), then a second only when a cell needs it.
        let mut odd = ni.is_nan() || ni < TINY_SQUARED_NORM;
        for ((cell, &d), (&rj, &nj)) in dst.iter_mut().zip(dots).zip(roots.iter().zip(norms)) {
            let v = d / (root * rj);
            odd |= !(v.is_finite() & (nj >= TINY_SQUARED_NORM));
            cell.write(v);
        }
        if !odd {
            return;
        }
        let ei = &self.e[i * dim..(i + 1) * dim];
        for (c, cell) in dst.iter_mut().enumerate() {
            let v = dots[c] / (root * roots[c]);
            let ordinary =
                v.is_finite() && ni >= TINY_SQUARED_NORM && norms[c] >= TINY_SQUARED_NORM;
            if !ordinary {
                let aj = &self.a[(j0 + c) * dim..(j0 + c + 1) * dim];
                cell.write(cosine::checked_cosine(ei, aj).unwrap_or(f64::NAN));
            }
        }
    }
}

fn all_pairs<T: Float>(
    e: &[T],
    a: &[T],
    (ne, na, dim): (usize, usize, usize),
    workers: Workers,
    stop: &Context,
) -> Result<Vec<f64>, EvalError> {
    let sides = ("expected", "actual");
    let prepared = Prepared::new(e, a, (ne, na, dim), (workers, sides), stop)?;
    let mut out = all_pairs_result(ne, na)?;
    let per_item = rows_per_item(ne, prepared.kernel, workers);
    fill_rows(
        &mut out,
        per_item * na,
        workers,
        stop,
        |_: &mut (), item, rows| {
            let first = item * per_item;
            prepared.cosines(
                first,
                rows.len() / na.max(1),
                stop,
                |r, j0, dots, cosines| {
                    let at = r * na + j0;
                    cosines(j0, dots, &mut rows[at..at + dots.len()]);
                    Ok(())
                },
            )?;
            Ok(())
        },
    )?;
    // Every cell is written: `cosines` hands out every column of every row it was given, and
    // the items cover every row (an error or a stop returned above instead).
    let mut out = std::mem::ManuallyDrop::new(out);
    let (ptr, len, cap) = (out.as_mut_ptr(), out.len(), out.capacity());
    // SAFETY: `MaybeUninit<f64>` has the layout of `f64`, every cell is initialised (above),
    // and the allocation is handed over whole with its length and capacity.
    Ok(unsafe { Vec::from_raw_parts(ptr.cast::<f64>(), len, cap) })
}

/// A row's best candidates so far, as (score, index): higher score first, then lower index.
fn ranks_before(x: &(f64, usize), y: &(f64, usize)) -> std::cmp::Ordering {
    y.0.total_cmp(&x.0).then(x.1.cmp(&y.1))
}

/// The best `k` of one row's cosines, kept in at most `2 k` candidates.
struct Best {
    k: usize,
    kept: Vec<(f64, usize)>,
    floor: Option<(f64, usize)>,
}

impl Best {
    fn offer(&mut self, j0: usize, cells: &[f64]) -> Run<()> {
        for (c, &v) in cells.iter().enumerate() {
            let cand = (v, j0 + c);
            if let Some(f) = &self.floor {
                if ranks_before(f, &cand).is_lt() {
                    continue;
                }
            }
            self.kept.try_push(cand, "the top-k candidates")?;
            if self.kept.len() >= 2 * self.k.max(16) {
                self.prune();
            }
        }
        Ok(())
    }

    fn prune(&mut self) {
        if self.kept.len() > self.k {
            self.kept.select_nth_unstable_by(self.k - 1, ranks_before);
            self.kept.truncate(self.k);
            self.floor = self.kept.iter().copied().max_by(ranks_before);
        }
    }

    fn finish(mut self) -> Vec<(f64, usize)> {
        self.kept.sort_unstable_by(ranks_before);
        self.kept.truncate(self.k);
        self.kept
    }
}

/// Each query row's best choices: their indices and their scores.
pub type TopK<'py> = (Bound<'py, PyArray2<i64>>, Bound<'py, PyArray2<f64>>);

/// The `k` highest cosines of each row of `queries` with the rows of `choices` (fewer when
/// there are fewer choices), without the whole matrix: choice indices and scores, each row in
/// decreasing score, ties to the lower index. Scores are the bits `cosine_matrix` gives.
pub fn cosine_top_k<'py>(
    py: Python<'py>,
    queries: &Bound<'py, PyAny>,
    choices: &Bound<'py, PyAny>,
    k: usize,
    workers: Workers,
) -> PyResult<TopK<'py>> {
    let (e, a) = (
        Matrix::hold(queries, "queries")?,
        Matrix::hold(choices, "choices")?,
    );
    let ((ne, de), (na, da)) = (e.shape(), a.shape());
    if de != da {
        return Err(EvalError::input(format!(
            "queries and choices must have the same number of columns, got {de} and {da}"
        ))
        .into());
    }
    let shape = (ne, na, de);
    let size = ne.saturating_mul(na).saturating_mul(de.max(1));
    let k = k.min(na);
    let best = match e.pair(&a, ("queries", "choices"))? {
        MatrixPair::F32(x, y) => {
            run_watched(py, workers, size, |s, w| top_k(x, y, shape, k, w, s))?
        }
        MatrixPair::F64(x, y) => {
            run_watched(py, workers, size, |s, w| top_k(x, y, shape, k, w, s))?
        }
    };
    let index: Vec<i64> = best.iter().map(|&(_, j)| j as i64).collect();
    let score: Vec<f64> = best.iter().map(|&(v, _)| v).collect();
    Ok((
        PyArray1::from_vec(py, index).reshape([ne, k])?,
        PyArray1::from_vec(py, score).reshape([ne, k])?,
    ))
}

fn top_k<T: Float>(
    e: &[T],
    a: &[T],
    (ne, na, dim): (usize, usize, usize),
    k: usize,
    workers: Workers,
    stop: &Context,
) -> Result<Vec<(f64, usize)>, EvalError> {
    let sides = ("queries", "choices");
    let prepared = Prepared::new(e, a, (ne, na, dim), (workers, sides), stop)?;
    let mut out = result_array::<(f64, usize)>(ne.saturating_mul(k), "the top-k result")?;
    let per_item = rows_per_item(ne, prepared.kernel, workers);
    fill_rows(
        &mut out,
        per_item * k,
        workers,
        stop,
        |_: &mut (), item, rows| {
            let (first, count) = (item * per_item, rows.len() / k.max(1));
            let mut best: Vec<Best> = (0..count)
                .map(|_| Best {
                    k,
                    kept: Vec::new(),
                    floor: None,
                })
                .collect();
            let mut cells = Vec::new();
            prepared.cosines(first, count, stop, |r, j0, dots, cosines| {
                cells.clear();
                cells.try_resize(dots.len(), MaybeUninit::new(0.0), "a block of cosines")?;
                cosines(j0, dots, &mut cells);
                // SAFETY: `MaybeUninit<f64>` has the layout of `f64`, and every cell is set.
                let cells =
                    unsafe { &*(cells.as_slice() as *const [MaybeUninit<f64>] as *const [f64]) };
                best[r].offer(j0, cells)
            })?;
            for (r, b) in best.into_iter().enumerate() {
                rows[r * k..(r + 1) * k].copy_from_slice(&b.finish());
            }
            Ok(())
        },
    )?;
    Ok(out)
}
