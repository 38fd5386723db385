//! Classifying a text 64 bytes at a time into whitespace and closer-look bit masks.

use crate::metrics::halt::{Run, Stop};
use crate::metrics::text::is_ascii_py_space;

/// Mask words (64 bytes of text each) between two polls of the stop flag: 1 MiB of text.
const WORDS_PER_CHECK: usize = 1 << 14;

/// One text, classified 64 bytes at a time. `text` holds the text (ASCII letters lowercased
/// when asked) with room to spare, so that a 16-byte load at any token start stays inside it.
/// Bit i of `space` is set when byte i is ASCII whitespace, and for every position past the
/// end; bit i of `closer` is set when byte i needs the general path. Only the first `words`
/// words of the masks belong to the current text.
#[derive(Default)]
pub(super) struct Masks {
    pub(super) text: Vec<u8>,
    pub(super) space: Vec<u64>,
    pub(super) closer: Vec<u64>,
    pub(super) words: usize,
}

/// Which bytes need the general path: for SQuAD, all but ASCII letters, digits and
/// whitespace; for "none", the bytes of non-ASCII characters.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Closer {
    NotAlnum,
    NotAscii,
}

impl Masks {
    /// Classify `text`; with `lower`, lowercase its ASCII letters. `stop` is polled every
    /// 1 MiB of text.
    pub(super) fn fill(
        &mut self,
        text: &[u8],
        lower: bool,
        closer: Closer,
        stop: &Stop,
    ) -> Run<()> {
        self.fill_with(text, lower, closer, cfg!(target_arch = "x86_64"), stop)
    }

    /// [`Masks::fill`], byte by byte when `simd` is false (the way on other CPUs).
    pub(super) fn fill_with(
        &mut self,
        text: &[u8],
        lower: bool,
        closer: Closer,
        simd: bool,
        stop: &Stop,
    ) -> Run<()> {
        let n = text.len();
        let full = n / 64;
        self.words = full + 1;
        if self.text.len() < 64 * self.words + 16 {
            self.text.resize(64 * self.words + 16, 0);
        }
        if self.space.len() < self.words {
            self.space.resize(self.words, 0);
            self.closer.resize(self.words, 0);
        }
        for first in (0..full).step_by(WORDS_PER_CHECK) {
            stop.check()?;
            for w in first..full.min(first + WORDS_PER_CHECK) {
                let block = text[64 * w..64 * w + 64].try_into().unwrap();
                self.block(w, block, lower, closer, simd);
            }
        }
        let mut last = [0u8; 64];
        last[..n - 64 * full].copy_from_slice(&text[64 * full..]);
        self.block(full, &last, lower, closer, simd);
        // Past the end: whitespace, and nothing that needs a closer look.
        let tail = n % 64;
        self.space[full] |= !0u64 << tail;
        self.closer[full] &= !(!0u64 << tail);
        Ok(())
    }

    /// Classify the 64 bytes of word `w`.
    fn block(&mut self, w: usize, bytes: &[u8; 64], lower: bool, closer: Closer, simd: bool) {
        let out: &mut [u8; 64] = (&mut self.text[64 * w..64 * w + 64]).try_into().unwrap();
        let (space, needs) = if simd {
            classify_simd(bytes, lower, closer, out)
        } else {
            classify_bytes(bytes, lower, closer, out)
        };
        self.space[w] = space;
        self.closer[w] = needs;
    }

    /// The first position at or after `from` whose bit is set in `closer`, or the end of the
    /// masks.
    #[inline]
    pub(super) fn next_closer(&self, from: usize) -> usize {
        let bits = &self.closer[..self.words];
        let mut w = from / 64;
        let mut word = bits[w] & (!0u64 << (from % 64));
        loop {
            if word != 0 {
                return w * 64 + word.trailing_zeros() as usize;
            }
            w += 1;
            if w == bits.len() {
                return bits.len() * 64;
            }
            word = bits[w];
        }
    }

    /// Call `f(start, end)` for each maximal run of non-whitespace bytes, in order, polling
    /// `stop` every 1 MiB of text.
    #[inline]
    pub(super) fn for_each_run(&self, stop: &Stop, mut f: impl FnMut(usize, usize)) -> Run<()> {
        // A run starts where a non-space byte follows a space (or the start of the text) and
        // ends at the space that follows it; the padding past the end ends the last run.
        let (mut prev_space, mut start) = (1u64, 0);
        for (w, &sp) in self.space[..self.words].iter().enumerate() {
            if w % WORDS_PER_CHECK == 0 {
                stop.check()?;
            }
            let starts = !sp & (sp << 1 | prev_space);
            let ends = sp & (!sp << 1 | (prev_space ^ 1));
            prev_space = sp >> 63;
            let mut events = starts | ends;
            while events != 0 {
                let bit = events.trailing_zeros() as usize;
                events &= events - 1;
                if starts >> bit & 1 == 1 {
                    start = 64 * w + bit;
                } else {
                    f(start, 64 * w + bit);
                }
            }
        }
        Ok(())
    }
}

/// Per ASCII byte: bit 0 whitespace, bit 1 letter or digit.
static ASCII_CLASS: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        t[i] = if is_ascii_py_space(b) {
            1
        } else if b.is_ascii_alphanumeric() {
            2
        } else {
            0
        };
        i += 1;
    }
    t
};

/// (whitespace bits, closer-look bits) of 64 bytes, writing them (lowercased when asked) to
/// `out`, one byte at a time.
fn classify_bytes(bytes: &[u8; 64], lower: bool, closer: Closer, out: &mut [u8; 64]) -> (u64, u64) {
    let (mut space, mut needs) = (0u64, 0u64);
    for (i, &b) in bytes.iter().enumerate() {
        let class = if b < 0x80 { ASCII_CLASS[b as usize] } else { 0 };
        space |= ((class == 1) as u64) << i;
        let closer_look = match closer {
            Closer::NotAlnum => class == 0,
            Closer::NotAscii => b >= 0x80,
        };
        needs |= (closer_look as u64) << i;
        out[i] = if lower { b.to_ascii_lowercase() } else { b };
    }
    (space, needs)
}

/// [`classify_bytes`] with SSE2 (part of every x86-64 CPU), sixteen bytes at a time.
#[cfg(target_arch = "x86_64")]
fn classify_simd(bytes: &[u8; 64], lower: bool, closer: Closer, out: &mut [u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let (mut space_bits, mut needs_bits) = (0u64, 0u64);
    // SAFETY: SSE2 is part of the x86-64 baseline; chunk c reads bytes[16c..16c+16] and writes
    // out[16c..16c+16], inside both 64-byte arrays.
    unsafe {
        let within = |x: __m128i, lo: u8, hi: u8| {
            // Signed compares: bytes of 0x80 and above are negative and fall outside.
            _mm_and_si128(
                _mm_cmpgt_epi8(x, _mm_set1_epi8(lo as i8 - 1)),
                _mm_cmplt_epi8(x, _mm_set1_epi8(hi as i8 + 1)),
            )
        };
        for c in 0..4 {
            let x = _mm_loadu_si128(bytes.as_ptr().add(16 * c) as *const __m128i);
            let space = _mm_or_si128(within(x, 0x09, 0x0D), within(x, 0x1C, 0x20));
            let upper = within(x, b'A', b'Z');
            let lowered = if lower {
                _mm_add_epi8(x, _mm_and_si128(upper, _mm_set1_epi8(0x20)))
            } else {
                x
            };
            _mm_storeu_si128(out.as_mut_ptr().add(16 * c) as *mut __m128i, lowered);
            let needs = match closer {
                Closer::NotAlnum => {
                    let alnum = _mm_or_si128(
                        _mm_or_si128(upper, within(x, b'a', b'z')),
                        within(x, b'0', b'9'),
                    );
                    !_mm_movemask_epi8(_mm_or_si128(alnum, space)) as u64 & 0xFFFF
                }
                Closer::NotAscii => _mm_movemask_epi8(x) as u64,
            };
            space_bits |= (_mm_movemask_epi8(space) as u64) << (16 * c);
            needs_bits |= needs << (16 * c);
        }
    }
    (space_bits, needs_bits)
}

#[cfg(not(target_arch = "x86_64"))]
fn classify_simd(bytes: &[u8; 64], lower: bool, closer: Closer, out: &mut [u8; 64]) -> (u64, u64) {
    classify_bytes(bytes, lower, closer, out)
}
