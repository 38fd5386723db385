//! Running kernels: the `workers` knob, the order-preserving parallel fill of a result array,
//! and the watched run that keeps Ctrl-C working while the GIL is released.
//!
//! Every result depends only on its own row, so the output is the same for any thread count.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use pyo3::prelude::*;
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::errors::{EvalError, EvalResult};
use crate::metrics::halt::{Context, TryVec};

/// The most threads a call may ask for.
pub const MAX_WORKERS: isize = 1024;

/// The `workers` argument: -1 means every core (the global pool), n ≥ 1 means a pool of n
/// threads. Converted from Python by `options.rs` (also for `resolve_workers()`, which reads
/// `EVALMARK_WORKERS`): the one place a thread count is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workers(isize);

impl Workers {
    pub const ALL: Workers = Workers(-1);

    /// A valid thread count, or `None`.
    pub fn new(workers: isize) -> Option<Workers> {
        (workers == -1 || (1..=MAX_WORKERS).contains(&workers)).then_some(Workers(workers))
    }

    /// The count: -1 for every core.
    pub fn count(self) -> isize {
        self.0
    }

    /// Whether the work runs on one thread.
    pub fn serial(self) -> bool {
        self.0 == 1
    }

    /// The pool to run on; `None` for the global pool.
    fn pool(self) -> EvalResult<Option<Arc<ThreadPool>>> {
        if self.0 == -1 {
            return Ok(None);
        }
        pool(self.0 as usize).map(Some)
    }
}

/// The error for a thread count out of range, read from `source` (the `workers` argument or
/// the environment variable) and given as text (it may not fit any integer).
pub fn bad_workers(source: &str, value: &str) -> EvalError {
    EvalError::input(format!(
        "{source} must be -1 (all cores) or a thread count from 1 to {MAX_WORKERS}, got {value}"
    ))
}

fn pool(threads: usize) -> EvalResult<Arc<ThreadPool>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut guard = pools
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(p) = guard.get(&threads) {
        return Ok(p.clone());
    }
    let built = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("evalmark-{i}"))
        .build()
        .map_err(|e| EvalError::input(format!("could not start {threads} worker threads: {e}")))?;
    let p = Arc::new(built);
    guard.insert(threads, p.clone());
    Ok(p)
}

/// The work every call of this process has reported so far, for `work_done()`: each watched
/// call adds its [`Context`]'s count here while it runs (at every look for signals) and when it
/// ends. The kernels only ever see their call's context.
static REPORTED: AtomicU64 = AtomicU64::new(0);

/// The word operations the O(n·m/64) kernels of this process have done so far, every call
/// together: a count that only grows, behind the running calls by at most [`SIGNAL_POLL`].
pub fn work_done() -> u64 {
    REPORTED.load(Ordering::Relaxed)
}

/// Add to [`REPORTED`] the work `ctx` did since `seen`, and remember it as seen.
fn report(ctx: &Context, seen: &mut u64) {
    let now = ctx.work_done();
    REPORTED.fetch_add(now.wrapping_sub(*seen), Ordering::Relaxed);
    *seen = now;
}

/// How often a thread waiting for a kernel looks for a pending signal (Ctrl-C).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// A result slot one thread fills and another waits on.
struct Slot<T> {
    value: Mutex<Option<T>>,
    filled: Condvar,
}

impl<T> Slot<T> {
    fn new() -> Self {
        Slot {
            value: Mutex::new(None),
            filled: Condvar::new(),
        }
    }

    fn fill(&self, v: T) {
        let mut guard = self.value.lock().unwrap_or_else(|p| p.into_inner());
        *guard = Some(v);
        self.filled.notify_all();
    }

    /// Wait up to `timeout`; the value once it is there.
    fn take_within(&self, timeout: Duration) -> Option<T> {
        let guard = self.value.lock().unwrap_or_else(|p| p.into_inner());
        let (mut guard, _) = self
            .filled
            .wait_timeout_while(guard, timeout, |v| v.is_none())
            .unwrap_or_else(|p| p.into_inner());
        guard.take()
    }
}

/// The text of a panic's payload.
fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".into()
    }
}

/// Work of at most this size (about a byte of text, or a multiply-add, per unit) is done on the
/// calling thread with the GIL held: handing it to a pool would cost more than it takes, and
/// it ends long before a Ctrl-C needs noticing (the quadratic kernels take a few milliseconds).
pub const SMALL_WORK: usize = 1 << 16;

/// Run `work(stop, workers)` with the GIL released, on `workers`' pool, while this thread
/// checks for signals every [`SIGNAL_POLL`]. When a signal handler raises (Ctrl-C gives
/// `KeyboardInterrupt`), `stop` is raised, and once `work` has returned that exception is
/// returned. Work of `size` up to [`SMALL_WORK`] runs here instead, on one thread. A panic
/// inside `work` becomes an `EvalError::Internal`, never a `BaseException`.
pub fn run_watched<T, W>(py: Python<'_>, workers: Workers, size: usize, work: W) -> PyResult<T>
where
    T: Send,
    W: FnOnce(&Context, Workers) -> EvalResult<T> + Send,
{
    if size <= SMALL_WORK {
        let stop = Context::new();
        let out = catch_unwind(AssertUnwindSafe(|| work(&stop, Workers(1))))
            .unwrap_or_else(|p| Err(EvalError::Internal(panic_text(p))));
        report(&stop, &mut 0);
        return out.map_err(PyErr::from);
    }
    let pool = workers.pool()?;
    let (stop, slot) = (Context::new(), Slot::new());
    let (mut signal, mut seen): (Option<PyErr>, u64) = (None, 0);
    let work = |stop: &Context| work(stop, workers);
    let (sig, seen) = (&mut signal, &mut seen);
    let out = match pool {
        Some(p) => p.in_place_scope(|scope| watch(py, scope, work, &stop, &slot, sig, seen)),
        None => rayon::in_place_scope(|scope| watch(py, scope, work, &stop, &slot, sig, seen)),
    };
    report(&stop, seen);
    match signal {
        Some(e) => Err(e),
        None => out.map_err(PyErr::from),
    }
}

/// Spawn `work` into `scope`, and wait for its result looking for signals meanwhile.
fn watch<'scope, T, W>(
    py: Python<'_>,
    scope: &rayon::Scope<'scope>,
    work: W,
    stop: &'scope Context,
    slot: &'scope Slot<EvalResult<T>>,
    signal: &mut Option<PyErr>,
    seen: &mut u64,
) -> EvalResult<T>
where
    T: Send + 'scope,
    W: FnOnce(&Context) -> EvalResult<T> + Send + 'scope,
{
    scope.spawn(move |_| {
        let out = catch_unwind(AssertUnwindSafe(|| work(stop)))
            .unwrap_or_else(|p| Err(EvalError::Internal(panic_text(p))));
        slot.fill(out);
    });
    loop {
        if let Some(out) = py.detach(|| slot.take_within(SIGNAL_POLL)) {
            return out;
        }
        report(stop, seen);
        if signal.is_none() {
            if let Err(e) = py.check_signals() {
                stop.raise();
                *signal = Some(e);
            }
        }
    }
}

/// A result array of `n` values, allocated fallibly.
pub fn result_array<T: Clone + Default>(n: usize, what: &'static str) -> EvalResult<Vec<T>> {
    let mut out = Vec::new();
    out.try_resize(n, T::default(), what)?;
    Ok(out)
}

/// Fill `out`, seen as rows of `width` values, by `f(scratch, i, row i)` on the threads of the
/// pool this runs in (one thread when `workers` is 1). Rows are dealt out in equal numbers:
/// [`fill_rows_weighted`] with every row weighing the same.
pub fn fill_rows<S, T, F>(
    out: &mut [T],
    width: usize,
    workers: Workers,
    stop: &Context,
    f: F,
) -> EvalResult<()>
where
    S: Default,
    T: Send,
    F: Fn(&mut S, usize, &mut [T]) -> EvalResult<()> + Sync + Send,
{
    fill_rows_weighted(out, width, workers, stop, |_| 1, f)
}

/// How many blocks of rows each thread gets, so that a thread slowed by the rest of the machine
/// hands its last blocks to the others.
const BLOCKS_PER_THREAD: usize = 8;

/// Fill `out`, seen as rows of `width` values, by `f(scratch, i, row i)` on the threads of the
/// pool this runs in (one thread when `workers` is 1). The rows are cut into a few contiguous
/// blocks of about equal `weight` (for text, its bytes: a batch of very unequal pairs is split
/// by work, not by count); each block is scored in order with one scratch value,
/// `S::default()`. Rows are skipped once `stop` is raised. The error of the lowest failing row
/// wins, so the error reported does not depend on scheduling either; a halt (stop, memory)
/// ends the work early.
pub fn fill_rows_weighted<S, T, W, F>(
    out: &mut [T],
    width: usize,
    workers: Workers,
    stop: &Context,
    weight: W,
    f: F,
) -> EvalResult<()>
where
    S: Default,
    T: Send,
    W: Fn(usize) -> usize,
    F: Fn(&mut S, usize, &mut [T]) -> EvalResult<()> + Sync + Send,
{
    if width == 0 {
        return Ok(());
    }
    let first_error: Mutex<Option<(usize, EvalError)>> = Mutex::new(None);
    // Rows `first..` of `rows`, in order, with one scratch value.
    let block = |first: usize, rows: &mut [T]| {
        let mut s = S::default();
        for (k, row) in rows.chunks_mut(width).enumerate() {
            if stop.is_raised() {
                return;
            }
            let i = first + k;
            if let Err(e) = f(&mut s, i, row) {
                if !matches!(e, EvalError::Input(_) | EvalError::Type(_)) {
                    stop.raise();
                }
                let mut slot = first_error.lock().unwrap_or_else(|p| p.into_inner());
                if slot.as_ref().is_none_or(|(j, _)| i < *j) {
                    *slot = Some((i, e));
                }
                // Later rows of this block cannot give a lower failing row.
                return;
            }
        }
    };
    // The last row may be shorter than `width` (a caller's last, partial item).
    let n = out.len().div_ceil(width);
    let threads = rayon::current_num_threads();
    if workers.serial() || n <= 1 || threads <= 1 {
        block(0, out);
    } else {
        let ends = block_ends(n, threads.saturating_mul(BLOCKS_PER_THREAD), weight);
        let mut pieces = Vec::with_capacity(ends.len());
        let (mut rest, mut first) = (out, 0);
        for &end in &ends {
            let (piece, tail) = rest.split_at_mut(((end - first) * width).min(rest.len()));
            pieces.push((first, piece));
            (rest, first) = (tail, end);
        }
        pieces
            .into_par_iter()
            .with_max_len(1)
            .for_each(|(first, rows)| block(first, rows));
    }
    if let Some((_, e)) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    if stop.is_raised() {
        return Err(EvalError::Stopped);
    }
    Ok(())
}

/// The ends of at most `blocks` contiguous blocks of rows `0..n`, increasing and last `n`, each
/// holding about an equal share of the total `weight` (at least one row each).
fn block_ends(n: usize, blocks: usize, weight: impl Fn(usize) -> usize) -> Vec<usize> {
    let blocks = blocks.clamp(1, n.max(1));
    // Every row weighs at least 1, so a run of empty texts is still shared out.
    let total: u128 = (0..n).map(|i| weight(i).max(1) as u128).sum();
    let mut ends = Vec::with_capacity(blocks);
    let (mut acc, mut next) = (0u128, 1u128);
    for i in 0..n {
        acc += weight(i).max(1) as u128;
        // Close a block when the rows so far reach its share of the total.
        if acc * blocks as u128 >= next * total && i + 1 < n {
            ends.push(i + 1);
            while next * total <= acc * blocks as u128 {
                next += 1;
            }
        }
    }
    ends.push(n);
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_the_rows_in_order() {
        for n in [1usize, 2, 3, 7, 100, 1000] {
            for blocks in [1usize, 2, 5, 16, 5000] {
                let ends = block_ends(n, blocks, |i| (i * 7919) % 13);
                assert_eq!(*ends.last().unwrap(), n);
                assert!(ends.len() <= blocks.max(1));
                assert!(ends.windows(2).all(|w| w[0] < w[1]), "{ends:?}");
                assert!(ends[0] > 0);
            }
        }
    }

    #[test]
    fn blocks_share_the_weight_not_the_count() {
        // One row as heavy as the 999 others together takes half of the work in a block to
        // itself; the others share the other half equally.
        let ends = block_ends(1000, 4, |i| if i == 0 { 999 } else { 1 });
        assert_eq!(ends, [1, 501, 1000]);
    }

    #[test]
    fn every_row_is_filled_once_a_partial_last_one_too() {
        let pool = super::pool(3).unwrap();
        for threads in [1isize, 2, 3] {
            for (len, width) in [(10usize, 3usize), (1, 4), (1001, 7), (64, 1)] {
                let mut out = vec![usize::MAX; len];
                pool.install(|| {
                    fill_rows(
                        &mut out,
                        width,
                        Workers::new(threads).unwrap(),
                        &Context::new(),
                        |_: &mut (), i, row| {
                            row.iter_mut().for_each(|c| *c = i);
                            Ok(())
                        },
                    )
                })
                .unwrap();
                let want: Vec<usize> = (0..len).map(|k| k / width).collect();
                assert_eq!(out, want, "{threads} {len} {width}");
            }
        }
    }

    #[test]
    fn the_lowest_failing_row_is_reported_for_any_thread_count() {
        let pool = super::pool(3).unwrap();
        for threads in [1isize, 2, 3] {
            let got = pool.install(|| {
                let mut out = vec![0u32; 5000];
                fill_rows(
                    &mut out,
                    1,
                    Workers::new(threads).unwrap(),
                    &Context::new(),
                    |_: &mut (), i, cell| {
                        if i % 1700 == 1699 {
                            return Err(EvalError::input(format!("row {i}")));
                        }
                        cell[0] = i as u32;
                        Ok(())
                    },
                )
            });
            assert!(
                matches!(&got, Err(EvalError::Input(m)) if m == "row 1699"),
                "{threads}: {got:?}"
            );
        }
    }
}
