//! SaslAuthenticate (API key 36): one SASL token exchange carried in a Kafka frame.
//! v1 adds the session lifetime, v2 is the first flexible version.

use std::borrow::Cow;

kafka_message! {
    /// A SASL token from the client.
    pub struct SaslAuthenticateRequest<'a> {
        api_key: SaslAuthenticate, versions: 0-2, flexible: 2+;
        /// The SASL authentication bytes, as defined by the mechanism.
        auth_bytes: Cow<'a, [u8]> [versions 0+],
    }
}

kafka_message! {
    /// The server's SASL token or the authentication failure.
    pub struct SaslAuthenticateResponse<'a> {
        api_key: SaslAuthenticate, versions: 0-2, flexible: 2+;
        /// The error code, or 0.
        error_code: i16 [versions 0+],
        /// The error message, or null.
        error_message: Option<Cow<'a, str>> [versions 0+, nullable 0+],
        /// The SASL authentication bytes from the server, as defined by the mechanism.
        auth_bytes: Cow<'a, [u8]> [versions 0+],
        /// How long the authenticated session may last, in ms (0 = unbounded).
        session_lifetime_ms: i64 [versions 1+],
    }
}
