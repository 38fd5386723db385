//! The `workers` knob and the order-preserving parallel map.
//!
//! Every result depends only on its own row, so the output is the same for any thread count.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::errors::{EvalError, EvalResult};

/// The most threads a call may ask for.
pub const MAX_WORKERS: isize = 1024;

/// Validate `workers`: -1 means every core, n ≥ 1 means n threads.
pub fn check_workers(workers: isize) -> EvalResult<()> {
    if workers == -1 || (1..=MAX_WORKERS).contains(&workers) {
        Ok(())
    } else {
        Err(EvalError::input(format!(
            "workers must be -1 (all cores) or between 1 and {MAX_WORKERS}, got {workers}"
        )))
    }
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

/// `f(scratch, i)` for every i in 0..n, in order, on `workers` threads. Each thread gets its own
/// scratch value, built with `S::default()`.
pub fn map_rows<S, T, F>(n: usize, workers: isize, f: F) -> EvalResult<Vec<T>>
where
    S: Default,
    T: Send,
    F: Fn(&mut S, usize) -> T + Sync + Send,
{
    if workers == 1 || n < 2 {
        let mut scratch = S::default();
        return Ok((0..n).map(|i| f(&mut scratch, i)).collect());
    }
    let run = || {
        (0..n)
            .into_par_iter()
            .map_init(S::default, |s, i| f(s, i))
            .collect()
    };
    if workers == -1 {
        Ok(run())
    } else {
        Ok(pool(workers as usize)?.install(run))
    }
}

/// Fill `out`, seen as rows of `width` values, by calling `f(row index, row)` on `workers`
/// threads.
pub fn fill_rows<F>(out: &mut [f64], width: usize, workers: isize, f: F) -> EvalResult<()>
where
    F: Fn(usize, &mut [f64]) + Sync + Send,
{
    if width == 0 {
        return Ok(());
    }
    if workers == 1 {
        out.chunks_mut(width).enumerate().for_each(|(i, r)| f(i, r));
        return Ok(());
    }
    let mut run = || {
        out.par_chunks_mut(width)
            .enumerate()
            .for_each(|(i, r)| f(i, r))
    };
    if workers == -1 {
        run();
    } else {
        pool(workers as usize)?.install(run);
    }
    Ok(())
}

/// Like [`map_rows`], for fallible rows: the error of the lowest failing row wins, so the
/// reported error does not depend on scheduling either.
pub fn try_map_rows<S, T, F>(n: usize, workers: isize, f: F) -> EvalResult<Vec<T>>
where
    S: Default,
    T: Send,
    F: Fn(&mut S, usize) -> EvalResult<T> + Sync + Send,
{
    map_rows(n, workers, f)?.into_iter().collect()
}
