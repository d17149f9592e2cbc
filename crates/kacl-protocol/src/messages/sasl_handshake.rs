//! SaslHandshake (API key 17): pick a SASL mechanism. v0 is followed by raw SASL tokens on the
//! socket; v1 by SaslAuthenticate requests (KIP-152). Never flexible: Kafka cannot bump it
//! because of old clients' version negotiation (KAFKA-9577).

use std::borrow::Cow;

kafka_message! {
    /// The mechanism the client wants.
    pub struct SaslHandshakeRequest<'a> {
        api_key: SaslHandshake, versions: 0-1, flexible: none;
        /// The SASL mechanism chosen by the client, e.g. `SCRAM-SHA-256`.
        mechanism: Cow<'a, str> [versions 0+],
    }
}

kafka_message! {
    /// Whether the mechanism is enabled, and which ones are.
    pub struct SaslHandshakeResponse<'a> {
        api_key: SaslHandshake, versions: 0-1, flexible: none;
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The mechanisms enabled in the server.
        mechanisms: Vec<Cow<'a, str>> [versions 0+],
    }
}
