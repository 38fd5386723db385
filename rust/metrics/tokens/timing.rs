//! Stage timings of the token kernels over pairs from a file (`EVALMARK_TEXT_PAIRS`: texts
//! each ended by a NUL byte, expected then actual). Not a test of behaviour: run by hand with
//! `cargo test --release stage_timings -- --ignored --nocapture`.

use crate::metrics::halt::Context;
use crate::metrics::rouge_l::packed_tokens;
use crate::metrics::rouge_n::{self, rouge_n};
use crate::metrics::rouge_tokens::{Stemmer, Tokenizer};
use crate::metrics::token_f1::{self, token_f1, Normalizer};
use crate::metrics::tokens::masks::{Masks, Scheme};
use std::hint::black_box;

extern "C" {
    fn clock_gettime(clock: i32, out: *mut [i64; 2]) -> i32;
}

/// This thread's CPU seconds (CLOCK_THREAD_CPUTIME_ID), steadier than wall time on a busy machine.
fn cpu_seconds() -> f64 {
    let mut ts = [0i64; 2];
    // SAFETY: clock_gettime writes one timespec (two 64-bit fields on x86-64 Linux) to `ts`.
    unsafe { clock_gettime(3, &mut ts) };
    ts[0] as f64 + ts[1] as f64 * 1e-9
}

pub(crate) fn time(name: &str, pairs: &[(&[u8], &[u8])], mut f: impl FnMut(&[u8], &[u8]) -> u64) {
    let mut best = f64::MAX;
    let mut sink = 0u64;
    for _ in 0..7 {
        let t = cpu_seconds();
        for &(e, a) in pairs {
            sink = sink.wrapping_add(f(e, a));
        }
        best = best.min(cpu_seconds() - t);
    }
    black_box(sink);
    println!(
        "{name:<28} {:>8.1} ns/pair",
        best / pairs.len() as f64 * 1e9
    );
}

/// The file named by `EVALMARK_TEXT_PAIRS`, if set.
pub(crate) fn pairs_file() -> Option<Vec<u8>> {
    std::fs::read(std::env::var("EVALMARK_TEXT_PAIRS").ok()?).ok()
}

/// The (expected, actual) pairs of a [`pairs_file`].
pub(crate) fn pairs(data: &[u8]) -> Vec<(&[u8], &[u8])> {
    let texts: Vec<&[u8]> = data.split(|&b| b == 0).collect();
    texts.chunks_exact(2).map(|c| (c[0], c[1])).collect()
}

#[test]
#[ignore]
fn stage_timings() {
    let Some(data) = pairs_file() else {
        return;
    };
    let pairs = pairs(&data);
    let stop = Context::new();
    let mut masks = Masks::default();
    time("masks squad", &pairs, |e, a| {
        masks.fill(e, Scheme::Squad, &stop).unwrap();
        masks.fill(a, Scheme::Squad, &stop).unwrap();
        masks.words as u64
    });
    time("masks + runs squad", &pairs, |e, a| {
        let mut n = 0u64;
        for t in [e, a] {
            masks.fill(t, Scheme::Squad, &stop).unwrap();
            masks
                .for_each_run(&stop, |s, e| n += (s ^ e) as u64)
                .unwrap();
        }
        n
    });
    let mut fs = token_f1::Scratch::default();
    time("token f1 squad", &pairs, |e, a| {
        token_f1(e, a, Normalizer::Squad, &mut fs, &stop)
            .unwrap()
            .to_bits()
    });
    time("token f1 none", &pairs, |e, a| {
        token_f1(e, a, Normalizer::None, &mut fs, &stop)
            .unwrap()
            .to_bits()
    });
    let (mut ke, mut ka) = (Vec::new(), Vec::new());
    time("rouge packed tokens", &pairs, |e, a| {
        packed_tokens(e, &mut masks, &mut ke, &stop).unwrap();
        packed_tokens(a, &mut masks, &mut ka, &stop).unwrap();
        (ke.len() + ka.len()) as u64
    });
    let mut rs = rouge_n::Scratch::default();
    for n in [1, 2] {
        time(&format!("rouge-{n}"), &pairs, |e, a| {
            let r = rouge_n(
                e,
                a,
                rouge_n::order(n),
                Tokenizer::Rouge,
                Stemmer::None,
                &mut rs,
                &stop,
            )
            .unwrap();
            r.fmeasure.to_bits()
        });
    }
}
