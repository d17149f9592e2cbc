//! Client-side SASL: the PLAIN token and the SCRAM exchange, free of I/O; the connection
//! handshake carries their bytes in SaslAuthenticate requests.

pub mod scram;

/// The PLAIN token (RFC 4616): `authzid NUL username NUL password`, with an empty authzid as
/// Kafka's Java client and librdkafka send it.
pub fn plain_token(username: &str, password: &str) -> Vec<u8> {
    let mut token = Vec::with_capacity(2 + username.len() + password.len());
    token.push(0);
    token.extend_from_slice(username.as_bytes());
    token.push(0);
    token.extend_from_slice(password.as_bytes());
    token
}

#[cfg(test)]
mod tests {
    #[test]
    fn plain_token_has_an_empty_authzid() {
        assert_eq!(super::plain_token("alice", "s3"), b"\0alice\0s3");
    }
}
