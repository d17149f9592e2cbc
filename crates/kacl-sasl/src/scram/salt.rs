//! Fresh salts shaped like Kafka's. A client that salts a password for
//! AlterUserScramCredentials (so the password never travels) needs a salt; Kafka's
//! `ScramFormatter.secureRandomBytes` makes one as the base-36 text of a random 130-bit
//! number. Any random bytes would do; matching the shape keeps credentials made by kacl
//! indistinguishable from those made by Kafka's tools.

/// A random salt: the lowercase base-36 digits of a random 130-bit number (at most 26 bytes).
pub fn random_salt() -> Vec<u8> {
    kafka_shaped_salt(rand::random(), rand::random())
}

/// The lowercase base-36 digits of the 130-bit number whose two high bits are the low bits
/// of `high` and whose 128 low bits are `low`.
pub(crate) fn kafka_shaped_salt(high: u8, low: u128) -> Vec<u8> {
    // Divide (high, low) by 36 repeatedly.
    let mut low = low;
    let mut high = u128::from(high & 0b11);
    let mut digits = Vec::new();
    loop {
        let carry = high % 36;
        high /= 36;
        let (quotient, remainder) = div_with_carry(low, carry);
        low = quotient;
        digits.push(base36_digit(remainder));
        if high == 0 && low == 0 {
            break;
        }
    }
    digits.reverse();
    digits
}

/// The ASCII digit for `value < 36`.
fn base36_digit(value: u128) -> u8 {
    let digit = u8::try_from(value % 36).unwrap_or(0);
    if digit < 10 {
        b'0' + digit
    } else {
        b'a' + digit - 10
    }
}

/// Divides `carry * 2^128 + value` by 36, where `carry < 36`: the quotient (which fits in 128
/// bits) and the remainder. Schoolbook division in base 2^64 keeps every step within u128.
fn div_with_carry(value: u128, carry: u128) -> (u128, u128) {
    let high = (carry << 64) | (value >> 64);
    let low = ((high % 36) << 64) | (value & u128::from(u64::MAX));
    (((high / 36) << 64) | (low / 36), low % 36)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salts_look_like_kafkas_base36_numbers() {
        for _ in 0..50 {
            let salt = random_salt();
            assert!(!salt.is_empty() && salt.len() <= 26, "{salt:?}");
            assert!(salt
                .iter()
                .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()));
        }
        assert_ne!(random_salt(), random_salt());
    }

    #[test]
    fn division_carries_across_the_halves() {
        assert_eq!(div_with_carry(36 * 5 + 7, 0), (5, 7));
        // 2^128 = 36q + 4 (2^128 is 0 mod 4 and 4 mod 9).
        let (q, r) = div_with_carry(0, 1);
        assert_eq!(r, 4);
        assert_eq!(q.wrapping_mul(36).wrapping_add(4), 0);
        assert_eq!(base36_digit(35), b'z');
        assert_eq!(base36_digit(9), b'9');
    }
}
