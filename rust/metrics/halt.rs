//! How a kernel stops early: because its caller asked it to (the flag of the [`Context`] the
//! call passes down, raised when the user presses Ctrl-C), or because memory sized by the input
//! could not be had. The same context counts the work done, for progress displays: no kernel
//! state is process-wide.
//!
//! Kernels that can run for long (the O(n·m/64) ones) poll their [`Context`] between chunks;
//! every buffer whose size depends on the input is grown through [`TryVec`], so that an
//! impossible size becomes an [`OutOfMemory`] value instead of aborting the process.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Units of linear work (bytes, code points, tokens or n-grams of one text) a kernel does
/// between two polls of its [`Context`]: about a millisecond of work, so a poll costs nothing.
pub const CHECK_EVERY: usize = 1 << 20;

/// Counters of one [`Context`]: threads add to the one their pool index picks, so that two
/// threads scoring many short pairs do not contend for one cache line at every pair.
const SHARDS: usize = 8;

#[derive(Debug, Default)]
#[repr(align(64))]
struct Shard(AtomicU64);

/// What one call shares with the kernels it runs: a stop flag the caller raises (when the user
/// presses Ctrl-C) and the kernels poll, and the work the O(n·m/64) kernels have done, which
/// the caller reads for progress. Polling costs one relaxed load.
#[derive(Debug, Default)]
pub struct Context {
    raised: AtomicBool,
    work: [Shard; SHARDS],
}

impl Context {
    pub fn new() -> Context {
        Context::default()
    }

    /// Ask every kernel polling this context to stop.
    pub fn raise(&self) {
        self.raised.store(true, Ordering::Relaxed);
    }

    #[inline]
    pub fn is_raised(&self) -> bool {
        self.raised.load(Ordering::Relaxed)
    }

    /// The word operations the kernels of this context have started so far, every thread
    /// together (a count that only grows).
    pub fn work_done(&self) -> u64 {
        self.work
            .iter()
            .map(|s| s.0.load(Ordering::Relaxed))
            .fold(0, u64::wrapping_add)
    }

    /// [`Context::check`], before a chunk of `words` word operations that
    /// [`Context::work_done`] counts.
    #[inline]
    pub fn check_before(&self, words: usize) -> Result<(), Halt> {
        let shard = rayon::current_thread_index().unwrap_or(0) % SHARDS;
        self.work[shard]
            .0
            .fetch_add(words as u64, Ordering::Relaxed);
        self.check()
    }

    /// `Err(Halt::Stopped)` once the flag is raised.
    #[inline]
    pub fn check(&self) -> Result<(), Halt> {
        if self.is_raised() {
            Err(Halt::Stopped)
        } else {
            Ok(())
        }
    }
}

/// Bytes that could not be allocated, and for what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfMemory {
    /// The size asked for; `None` when it does not even fit in a `usize`.
    pub bytes: Option<usize>,
    pub what: &'static str,
}

impl std::fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.bytes {
            Some(b) => write!(f, "cannot allocate {} for {}", human_bytes(b), self.what),
            None => write!(
                f,
                "cannot allocate {}: its size overflows the address space",
                self.what
            ),
        }
    }
}

/// `n` bytes as an exact count and, when large, in GiB or TiB.
pub fn human_bytes(n: usize) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    let x = n as f64;
    if x >= 1024.0 * GIB {
        format!("{n} bytes ({:.1} TiB)", x / (1024.0 * GIB))
    } else if x >= GIB / 8.0 {
        format!("{n} bytes ({:.1} GiB)", x / GIB)
    } else {
        format!("{n} bytes")
    }
}

/// Why a kernel returned early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// Its [`Context`] was raised.
    Stopped,
    OutOfMemory(OutOfMemory),
}

impl From<OutOfMemory> for Halt {
    fn from(e: OutOfMemory) -> Halt {
        Halt::OutOfMemory(e)
    }
}

/// The result of a kernel that may stop early.
pub type Run<T> = Result<T, Halt>;

/// The size in bytes of `count` values of `T`, if it fits in a `usize` (and so could be asked
/// of the allocator at all).
pub fn bytes_of<T>(count: usize, what: &'static str) -> Result<usize, OutOfMemory> {
    count
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or(OutOfMemory { bytes: None, what })
}

/// Growing a `Vec` without aborting when memory runs out.
pub trait TryVec<T> {
    /// Make room for at least `len` values in total.
    fn try_capacity(&mut self, len: usize, what: &'static str) -> Result<(), OutOfMemory>;
    /// `resize`, fallibly.
    fn try_resize(&mut self, len: usize, value: T, what: &'static str) -> Result<(), OutOfMemory>
    where
        T: Clone;
    /// `push`, fallibly; grows by doubling like `push`.
    fn try_push(&mut self, value: T, what: &'static str) -> Result<(), OutOfMemory>;
    /// `extend_from_slice`, fallibly.
    fn try_extend(&mut self, values: &[T], what: &'static str) -> Result<(), OutOfMemory>
    where
        T: Clone;
}

impl<T> TryVec<T> for Vec<T> {
    #[inline]
    fn try_capacity(&mut self, len: usize, what: &'static str) -> Result<(), OutOfMemory> {
        if len <= self.capacity() {
            return Ok(());
        }
        let bytes = bytes_of::<T>(len, what)?;
        self.try_reserve_exact(len - self.len())
            .map_err(|_| OutOfMemory {
                bytes: Some(bytes),
                what,
            })
    }

    #[inline]
    fn try_resize(&mut self, len: usize, value: T, what: &'static str) -> Result<(), OutOfMemory>
    where
        T: Clone,
    {
        self.try_capacity(len, what)?;
        self.resize(len, value);
        Ok(())
    }

    #[inline]
    fn try_push(&mut self, value: T, what: &'static str) -> Result<(), OutOfMemory> {
        if self.len() == self.capacity() {
            let want = self.len().saturating_mul(2).max(8);
            if self.try_capacity(want, what).is_err() {
                self.try_capacity(self.len() + 1, what)?;
            }
        }
        self.push(value);
        Ok(())
    }

    #[inline]
    fn try_extend(&mut self, values: &[T], what: &'static str) -> Result<(), OutOfMemory>
    where
        T: Clone,
    {
        let need = self
            .len()
            .checked_add(values.len())
            .ok_or(OutOfMemory { bytes: None, what })?;
        if need > self.capacity() {
            let want = need.max(self.len().saturating_mul(2));
            if self.try_capacity(want, what).is_err() {
                self.try_capacity(need, what)?;
            }
        }
        self.extend_from_slice(values);
        Ok(())
    }
}

/// A boxed copy of `values`, fallibly.
pub fn try_boxed<T: Clone>(values: &[T], what: &'static str) -> Result<Box<[T]>, OutOfMemory> {
    let mut v = Vec::new();
    v.try_capacity(values.len(), what)?;
    v.extend_from_slice(values);
    Ok(v.into_boxed_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_sizes_are_errors() {
        let mut v: Vec<u64> = Vec::new();
        let e = v.try_capacity(usize::MAX / 2, "a test").unwrap_err();
        assert_eq!(e.bytes, None);
        assert_eq!(v.try_capacity(1 << 60, "a test").unwrap_err().bytes, None);
        let e = v.try_capacity(1 << 59, "a test").unwrap_err();
        assert_eq!(e.bytes, Some(1 << 62));
        assert!(e.to_string().contains("4611686018427387904 bytes"), "{e}");
        assert!(v.try_resize(1 << 58, 0, "a test").is_err());
        assert!(v.is_empty());
    }

    #[test]
    fn growth_behaves_like_vec() {
        let mut v = Vec::new();
        for i in 0..100u32 {
            v.try_push(i, "t").unwrap();
        }
        v.try_extend(&[7, 8], "t").unwrap();
        assert_eq!(v.len(), 102);
        assert_eq!(v[..3], [0, 1, 2]);
        v.try_resize(3, 0, "t").unwrap();
        assert_eq!(v, [0, 1, 2]);
        assert_eq!(&*try_boxed(&[1u8, 2], "t").unwrap(), &[1, 2]);
    }

    #[test]
    fn stop_flag_and_work_count() {
        let (s, other) = (Context::new(), Context::new());
        assert_eq!(s.check(), Ok(()));
        assert_eq!(s.check_before(1000), Ok(()));
        assert_eq!(s.check_before(1 << 16), Ok(()));
        assert_eq!(s.work_done(), 1000 + (1 << 16));
        assert_eq!(other.work_done(), 0, "each call counts its own work");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        pool.scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|_| {
                    for _ in 0..1000 {
                        other.check_before(7).unwrap();
                    }
                });
            }
        });
        assert_eq!(other.work_done(), 21_000);
        s.raise();
        assert_eq!(s.check(), Err(Halt::Stopped));
        assert_eq!(s.check_before(1), Err(Halt::Stopped));
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_bytes(10), "10 bytes");
        assert_eq!(human_bytes(80_000_000_000), "80000000000 bytes (74.5 GiB)");
        assert!(human_bytes(1_000_000_000_000_000).ends_with("(909.5 TiB)"));
    }
}
