//! Classifying a text 64 bytes at a time into separator and closer-look bit masks: the first
//! pass of token F1's tokenizers and of ROUGE's default one.

use crate::metrics::halt::{Context, Run, TryVec};
use crate::metrics::text::is_ascii_py_space;

/// Mask words (64 bytes of text each) between two polls of the stop flag: 1 MiB of text.
pub(crate) const WORDS_PER_CHECK: usize = 1 << 14;

/// One text, classified 64 bytes at a time. `text` holds the text (ASCII letters lowercased
/// when the scheme asks) with room to spare, so that a 16-byte load at any token start stays
/// inside it. Bit i of `space` is set when byte i separates tokens, and for every position past
/// the end; bit i of `closer` is set when byte i needs the general path. Only the first `words`
/// words of the masks belong to the current text.
#[derive(Default)]
pub(crate) struct Masks {
    pub(crate) text: Vec<u8>,
    pub(crate) space: Vec<u64>,
    pub(crate) closer: Vec<u64>,
    pub(crate) words: usize,
}

/// Which bytes separate tokens, which need the general path, and whether ASCII letters are
/// lowercased.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// SQuAD: ASCII whitespace separates; all but ASCII letters and digits need a closer look;
    /// lowercased.
    Squad,
    /// Whitespace splitting: ASCII whitespace separates; the bytes of non-ASCII characters
    /// need a closer look; case kept.
    Whitespace,
    /// rouge-score: every byte but an ASCII letter or digit separates; the lead bytes 0xC4 and
    /// 0xE2 (of U+0130 and U+212A, whose lowercase holds ASCII letters) need a closer look;
    /// lowercased.
    Rouge,
}

impl Scheme {
    fn lower(self) -> bool {
        self != Scheme::Whitespace
    }
}

impl Masks {
    /// Classify `text` under `scheme`. `stop` is polled every 1 MiB of text.
    pub(crate) fn fill(&mut self, text: &[u8], scheme: Scheme, stop: &Context) -> Run<()> {
        self.fill_with(text, scheme, cfg!(target_arch = "x86_64"), stop)
    }

    /// [`Masks::fill`], byte by byte when `simd` is false (the way on other CPUs).
    pub(crate) fn fill_with(
        &mut self,
        text: &[u8],
        scheme: Scheme,
        simd: bool,
        stop: &Context,
    ) -> Run<()> {
        let n = text.len();
        let full = n / 64;
        self.words = full + 1;
        if self.text.len() < 64 * self.words + 16 {
            self.text
                .try_resize(64 * self.words + 16, 0, "the token masks")?;
        }
        if self.space.len() < self.words {
            self.space.try_resize(self.words, 0, "the token masks")?;
            self.closer.try_resize(self.words, 0, "the token masks")?;
        }
        // One loop per scheme, so that the scheme's tests are decided once, not per block.
        match (scheme, simd) {
            (Scheme::Squad, true) => self.blocks(text, Scheme::Squad, true, stop)?,
            (Scheme::Whitespace, true) => self.blocks(text, Scheme::Whitespace, true, stop)?,
            (Scheme::Rouge, true) => self.blocks(text, Scheme::Rouge, true, stop)?,
            (scheme, false) => self.blocks(text, scheme, false, stop)?,
        }
        // Past the end: whitespace, and nothing that needs a closer look.
        let tail = n % 64;
        self.space[full] |= !0u64 << tail;
        self.closer[full] &= !(!0u64 << tail);
        Ok(())
    }

    /// Classify every 64-byte word of `text`, the last one padded with zeros.
    #[inline(always)]
    fn blocks(&mut self, text: &[u8], scheme: Scheme, simd: bool, stop: &Context) -> Run<()> {
        let (n, full) = (text.len(), text.len() / 64);
        for first in (0..full).step_by(WORDS_PER_CHECK) {
            stop.check()?;
            for w in first..full.min(first + WORDS_PER_CHECK) {
                let block = text[64 * w..64 * w + 64].try_into().unwrap();
                self.block(w, block, scheme, simd);
            }
        }
        let tail = n - 64 * full;
        if full > 0 && tail > 0 {
            // The last 64 bytes of the text, classified in place: no copy of a variable
            // length. They overlap the word before, whose bytes come out the same; the masks
            // are shifted down to the part past it.
            let window: &[u8; 64] = text[n - 64..].try_into().unwrap();
            let out: &mut [u8; 64] = (&mut self.text[n - 64..n]).try_into().unwrap();
            let (space, needs) = if simd {
                classify_simd(window, scheme, out)
            } else {
                classify_bytes(window, scheme, out)
            };
            self.space[full] = space >> (64 - tail);
            self.closer[full] = needs >> (64 - tail);
            return Ok(());
        }
        let mut last = [0u8; 64];
        last[..tail].copy_from_slice(&text[64 * full..]);
        self.block(full, &last, scheme, simd);
        Ok(())
    }

    /// Classify the 64 bytes of word `w`.
    #[inline(always)]
    fn block(&mut self, w: usize, bytes: &[u8; 64], scheme: Scheme, simd: bool) {
        let out: &mut [u8; 64] = (&mut self.text[64 * w..64 * w + 64]).try_into().unwrap();
        let (space, needs) = if simd {
            classify_simd(bytes, scheme, out)
        } else {
            classify_bytes(bytes, scheme, out)
        };
        self.space[w] = space;
        self.closer[w] = needs;
    }

    /// The first position at or after `from` whose bit is set in `closer`, or the end of the
    /// masks.
    #[inline]
    pub(crate) fn next_closer(&self, from: usize) -> usize {
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

    /// An upper bound on the tokens of the text: one per run of non-whitespace bytes, and one
    /// more per byte that needs a closer look (a run splits only where such a byte is).
    pub(crate) fn token_bound(&self) -> usize {
        let mut prev_space = 1u64;
        let mut bound = 0;
        for (&sp, &closer) in self.space[..self.words].iter().zip(&self.closer) {
            let starts = !sp & (sp << 1 | prev_space);
            prev_space = sp >> 63;
            bound += (starts.count_ones() + closer.count_ones()) as usize;
        }
        bound
    }

    /// Call `f(start, end)` for each maximal run of non-whitespace bytes, in order, polling
    /// `stop` every 1 MiB of text.
    #[inline]
    pub(crate) fn for_each_run(&self, stop: &Context, mut f: impl FnMut(usize, usize)) -> Run<()> {
        // A run starts where a non-space byte follows a space (or the start of the text) and
        // ends at the first space after it; the padding past the end ends the last run. Only
        // the starts are visited, each end found from its start with no branch on which of
        // the two a bit is.
        let space = &self.space[..self.words];
        let mut prev_space = 1u64;
        for (w, &sp) in space.iter().enumerate() {
            if w % WORDS_PER_CHECK == 0 {
                stop.check()?;
            }
            let mut starts = !sp & (sp << 1 | prev_space);
            prev_space = sp >> 63;
            while starts != 0 {
                let bit = starts.trailing_zeros();
                starts &= starts - 1;
                let after = sp & (!0u64 << bit);
                let end = if after != 0 {
                    64 * w + after.trailing_zeros() as usize
                } else {
                    next_set(space, w + 1)
                };
                f(64 * w + bit as usize, end);
            }
        }
        Ok(())
    }
}

/// The first set bit of `bits` from word `w` on; the last word has a bit set (the padding).
#[cold]
pub(crate) fn next_set(bits: &[u64], mut w: usize) -> usize {
    while bits[w] == 0 {
        w += 1;
    }
    64 * w + bits[w].trailing_zeros() as usize
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

/// (separator bits, closer-look bits) of 64 bytes, writing them (lowercased when the scheme
/// asks) to `out`, one byte at a time.
#[inline(always)]
fn classify_bytes(bytes: &[u8; 64], scheme: Scheme, out: &mut [u8; 64]) -> (u64, u64) {
    let (mut space, mut needs) = (0u64, 0u64);
    for (i, &b) in bytes.iter().enumerate() {
        let class = if b < 0x80 { ASCII_CLASS[b as usize] } else { 0 };
        let (separates, closer_look) = match scheme {
            Scheme::Squad => (class == 1, class == 0),
            Scheme::Whitespace => (class == 1, b >= 0x80),
            Scheme::Rouge => (class != 2, b == 0xC4 || b == 0xE2),
        };
        space |= (separates as u64) << i;
        needs |= (closer_look as u64) << i;
        out[i] = if scheme.lower() {
            b.to_ascii_lowercase()
        } else {
            b
        };
    }
    (space, needs)
}

/// [`classify_bytes`] with SSE2 (part of every x86-64 CPU), sixteen bytes at a time.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn classify_simd(bytes: &[u8; 64], scheme: Scheme, out: &mut [u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let lower = scheme.lower();
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
            let white = _mm_or_si128(within(x, 0x09, 0x0D), within(x, 0x1C, 0x20));
            let upper = within(x, b'A', b'Z');
            let lowered = if lower {
                _mm_add_epi8(x, _mm_and_si128(upper, _mm_set1_epi8(0x20)))
            } else {
                x
            };
            _mm_storeu_si128(out.as_mut_ptr().add(16 * c) as *mut __m128i, lowered);
            let alnum = || {
                _mm_or_si128(
                    _mm_or_si128(upper, within(x, b'a', b'z')),
                    within(x, b'0', b'9'),
                )
            };
            let bits = |v: __m128i| _mm_movemask_epi8(v) as u32 as u64;
            let (space, needs) = match scheme {
                Scheme::Squad => (bits(white), !bits(_mm_or_si128(alnum(), white)) & 0xFFFF),
                Scheme::Whitespace => (bits(white), bits(x)),
                Scheme::Rouge => (
                    !bits(alnum()) & 0xFFFF,
                    bits(_mm_or_si128(
                        _mm_cmpeq_epi8(x, _mm_set1_epi8(0xC4u8 as i8)),
                        _mm_cmpeq_epi8(x, _mm_set1_epi8(0xE2u8 as i8)),
                    )),
                ),
            };
            space_bits |= space << (16 * c);
            needs_bits |= needs << (16 * c);
        }
    }
    (space_bits, needs_bits)
}

#[cfg(not(target_arch = "x86_64"))]
fn classify_simd(bytes: &[u8; 64], scheme: Scheme, out: &mut [u8; 64]) -> (u64, u64) {
    classify_bytes(bytes, scheme, out)
}
