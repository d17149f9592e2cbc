//! The credential a SCRAM server shows for a user that does not exist, made to be
//! indistinguishable from a real one: its salt is derived from the name under a server secret
//! (the same answer every time, across restarts when the secret is kept), shaped like the salts
//! of Kafka's tools (the base-36 text of a 130-bit number, what `kafka-configs.sh` and kacl's
//! CLI store), and its iteration count is the one most real credentials have, not a constant
//! that sets it apart.

use super::credential::{ScramCredential, ScramMechanism};
use super::salt::kafka_shaped_salt;

/// The stand-in credential of `username` for `mechanism`: salt and keys derived from
/// `secret` (which must stay secret: with it, anyone can tell stand-ins from real users), with
/// `iterations` (see [`typical_iterations`]). No password produces its keys.
pub fn stand_in_credential(
    secret: &[u8],
    mechanism: ScramMechanism,
    username: &str,
    iterations: u32,
) -> ScramCredential {
    let derive = |label: &[u8]| mechanism.hmac(secret, &[label, b"\0", username.as_bytes()]);
    let bits = derive(b"salt");
    let low = bits
        .get(..16)
        .and_then(|b| <[u8; 16]>::try_from(b).ok())
        .map_or(0, u128::from_be_bytes);
    let high = bits.get(16).copied().unwrap_or(0);
    ScramCredential {
        salt: kafka_shaped_salt(high, low),
        iterations,
        stored_key: derive(b"stored-key"),
        server_key: derive(b"server-key"),
    }
}

/// The iteration count a stand-in should show: the most common among the stored credentials of
/// the mechanism (the larger on a tie), else [`ScramCredential::DEFAULT_ITERATIONS`].
pub fn typical_iterations(stored: impl IntoIterator<Item = u32>) -> u32 {
    let mut counts = std::collections::BTreeMap::<u32, usize>::new();
    for iterations in stored {
        *counts.entry(iterations).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|(iterations, n)| (*n, *iterations))
        .map_or(ScramCredential::DEFAULT_ITERATIONS, |(iterations, _)| {
            iterations
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scram::random_salt;

    #[test]
    fn a_name_always_gets_the_same_kafka_shaped_salt_and_the_given_iterations() {
        let secret = [7u8; 32];
        for mechanism in ScramMechanism::ALL {
            let a = stand_in_credential(&secret, mechanism, "mallory", 8192);
            assert_eq!(a, stand_in_credential(&secret, mechanism, "mallory", 8192));
            assert_ne!(
                a.salt,
                stand_in_credential(&secret, mechanism, "trudy", 8192).salt
            );
            assert_ne!(
                a.salt,
                stand_in_credential(&[8u8; 32], mechanism, "mallory", 8192).salt,
                "another secret, another salt"
            );
            assert_eq!(a.iterations, 8192);
            assert_eq!(a.stored_key.len(), mechanism.hash_len());
            // The shape of the salts Kafka's tools make.
            let real = random_salt();
            assert!(a
                .salt
                .iter()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()));
            assert!(a.salt.len() <= 26 && a.salt.len() >= 20, "{}", a.salt.len());
            assert!(real.len() <= 26);
        }
    }

    #[test]
    fn iterations_follow_the_stored_credentials() {
        assert_eq!(typical_iterations([]), ScramCredential::DEFAULT_ITERATIONS);
        assert_eq!(typical_iterations([8192, 8192, 4096]), 8192);
        assert_eq!(typical_iterations([4096, 8192]), 8192);
    }
}
