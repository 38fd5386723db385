//! The checksum of the extension's type stub (`python/evalmark/_core.pyi`) as it was when the
//! extension was built. The Python side compares it with the stub it ships, so an extension
//! left over from an older build (a stale `maturin develop`) is refused with a message on how
//! to rebuild, instead of the package running with native functions missing.

/// The stub's bytes, read at compile time (editing the stub rebuilds the extension).
const STUB: &[u8] = include_bytes!("../python/evalmark/_core.pyi");

/// CRC-32 (the IEEE polynomial, as `zlib.crc32` computes it) of `bytes`.
const fn crc32(bytes: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    let mut crc = !0u32;
    let mut i = 0;
    while i < bytes.len() {
        crc = table[((crc ^ bytes[i] as u32) & 0xFF) as usize] ^ (crc >> 8);
        i += 1;
    }
    !crc
}

/// `zlib.crc32` of the stub the extension was built with.
pub const STUB_CRC32: u32 = crc32(STUB);

#[cfg(test)]
mod tests {
    use super::crc32;

    #[test]
    fn crc32_matches_zlib_on_known_values() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }
}
