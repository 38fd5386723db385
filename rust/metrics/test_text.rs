//! Generators shared by the edit-distance kernels' tests: one pseudo-random sequence, and a
//! text edited from another, so every test draws the same inputs from the same seed.

/// The next value of a 64-bit linear congruential sequence (its high bits).
pub fn lcg(seed: &mut u64) -> usize {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*seed >> 33) as usize
}

/// `a` with about `edits` random substitutions, insertions and deletions over `sigma` letters.
pub fn edited(seed: &mut u64, a: &[u8], edits: usize, sigma: usize) -> Vec<u8> {
    let mut b = a.to_vec();
    for _ in 0..edits {
        let k = lcg(seed) % (b.len() + 1);
        let sym = b'a' + (lcg(seed) % sigma) as u8;
        match lcg(seed) % 3 {
            0 if k < b.len() => b[k] = sym,
            1 => b.insert(k, sym),
            _ if k < b.len() => {
                b.remove(k);
            }
            _ => b.insert(k, sym),
        }
    }
    b
}
