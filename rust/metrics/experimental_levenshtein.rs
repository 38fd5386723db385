//! EXPERIMENTAL, not wired in (no `mod` line names this file): a drop-in for the multi-word
//! branch of `levenshtein::bytes_distance`, for the owner of `levenshtein.rs` to adopt.
//!
//! `levenshtein::blocks` keeps the vertical deltas `vp`/`vn` in two heap slices of a length
//! known only at run time, so every text byte reloads and stores every block through memory
//! and the block loop cannot be unrolled. For the lengths that dominate real answers (a
//! shorter side of 65..=256 bytes after the common affixes are stripped: 2 to 4 blocks) the
//! block count can be a const generic instead: the deltas then live in registers, the loop over
//! the blocks unrolls, and the match-mask row is one fixed-size load. The recurrence, and so
//! every distance, is unchanged (the test below checks it against the plain table).
//!
//! To adopt: in `bytes_distance`, replace the `else` branch of `if words == 1` by
//! `experimental_levenshtein::blocks_dispatch(&s.pm, words, m, t)
//!     .unwrap_or_else(|| { /* the current vp/vn set-up and `blocks` call */ })`.
//! Ctrl-C checks can stay where they are (per pair); the loop here is per pair as well.

/// The distance for a shorter side of `m` bytes in `words` 64-row blocks (2..=4), from the
/// match masks `pm` (256 rows of `words` words, as `bytes_distance` fills them) over the text
/// `t`; None for other block counts (the caller keeps its general loop).
pub fn blocks_dispatch(pm: &[u64], words: usize, m: usize, t: &[u8]) -> Option<usize> {
    match words {
        2 => Some(blocks_fixed::<2>(pm, m, t)),
        3 => Some(blocks_fixed::<3>(pm, m, t)),
        4 => Some(blocks_fixed::<4>(pm, m, t)),
        _ => None,
    }
}

/// Hyyrö's bit-parallel recurrence over `N` blocks, the deltas held in registers.
#[inline]
pub fn blocks_fixed<const N: usize>(pm: &[u64], m: usize, t: &[u8]) -> usize {
    let last_bit = (m - 1) % 64;
    let mut vp = [!0u64; N];
    let mut vn = [0u64; N];
    let mut score = m;
    for &c in t {
        let start = c as usize * N;
        let row: &[u64; N] = pm[start..start + N].try_into().unwrap();
        // The top row of the edit table grows by one per column: a +1 enters the first block.
        let (mut hp_carry, mut hn_carry, mut add_carry) = (1u64, 0u64, false);
        let (mut hp, mut hn) = (0u64, 0u64);
        for w in 0..N {
            let x = row[w] | hn_carry;
            let (sum, c1) = (x & vp[w]).overflowing_add(vp[w]);
            let (sum, c2) = sum.overflowing_add(add_carry as u64);
            add_carry = c1 | c2;
            let d0 = (sum ^ vp[w]) | x | vn[w];
            hp = vn[w] | !(d0 | vp[w]);
            hn = d0 & vp[w];
            let (hp_shift, hn_shift) = ((hp << 1) | hp_carry, (hn << 1) | hn_carry);
            hp_carry = hp >> 63;
            hn_carry = hn >> 63;
            vp[w] = hn_shift | !(d0 | hp_shift);
            vn[w] = hp_shift & d0;
        }
        score += ((hp >> last_bit) & 1) as usize;
        score -= ((hn >> last_bit) & 1) as usize;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(a: &[u8], b: &[u8]) -> usize {
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, &x) in a.iter().enumerate() {
            let mut diag = row[0];
            row[0] = i + 1;
            for (j, &y) in b.iter().enumerate() {
                let next = (diag + (x != y) as usize)
                    .min(row[j] + 1)
                    .min(row[j + 1] + 1);
                diag = row[j + 1];
                row[j + 1] = next;
            }
        }
        row[b.len()]
    }

    #[test]
    fn fixed_blocks_match_the_table() {
        let mut seed = 7u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..400 {
            let m = 65 + (next() % 192) as usize;
            let n = m + (next() % 40) as usize;
            let p: Vec<u8> = (0..m).map(|_| b"abcde "[(next() % 6) as usize]).collect();
            let t: Vec<u8> = (0..n).map(|_| b"abcde "[(next() % 6) as usize]).collect();
            let words = m.div_ceil(64);
            let mut pm = vec![0u64; 256 * words];
            for (i, &c) in p.iter().enumerate() {
                pm[c as usize * words + i / 64] |= 1u64 << (i % 64);
            }
            let got = blocks_dispatch(&pm, words, m, &t).unwrap();
            assert_eq!(got, table(&p, &t), "m={m} n={n}");
        }
    }
}
