//! Comparisons of secrets whose duration does not depend on where the inputs differ, so a
//! client cannot learn a password or a key byte by byte from response times.

use sha2::{Digest, Sha256};

/// Equal bytes, compared in time that depends only on the lengths.
pub(crate) fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// Equal secrets of any lengths: compares their SHA-256 digests, so even the length of the
/// stored secret does not show in the timing.
pub(crate) fn secrets_eq(a: &[u8], b: &[u8]) -> bool {
    bytes_eq(&Sha256::digest(a), &Sha256::digest(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_exactly() {
        assert!(bytes_eq(b"abc", b"abc"));
        assert!(!bytes_eq(b"abc", b"abd"));
        assert!(!bytes_eq(b"abc", b"ab"));
        assert!(bytes_eq(b"", b""));
        assert!(secrets_eq(b"pw", b"pw"));
        assert!(!secrets_eq(b"pw", b"pw "));
        assert!(!secrets_eq(b"", b"x"));
    }
}
