//! kacl's identity-provider I/O, kept apart from the pure SASL crate:
//!
//! - [`http`]: a small HTTP/1.1 client bounded in bytes and time, over TCP or rustls;
//! - [`jwks`]: the identity provider's JWKS, fetched at start and refreshed (on a schedule
//!   and when a token names an unknown key), behind the [`TokenValidator`] the server's
//!   OAUTHBEARER logins call;
//! - [`login`]: OpenID Connect sign-in (authorization code with PKCE S256) for the console's
//!   single sign-on;
//! - [`url`]: the http(s) URLs these fetch.
//!
//! [`TokenValidator`]: kacl_sasl::TokenValidator
#![forbid(unsafe_code)]

use thiserror::Error;

pub mod http;
pub mod jwks;
pub mod login;
pub mod url;

pub use http::{HttpClient, HttpResponse};
pub use jwks::{JwksOptions, JwksValidator, KeySource};
pub use url::HttpUrl;

/// What can go wrong talking to an identity provider.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OidcError {
    /// A URL kacl cannot use.
    #[error("bad URL {0}")]
    Url(String),
    /// The TLS trust could not be set up.
    #[error("TLS: {0}")]
    Tls(String),
    /// The exchange failed (connection, status, framing, time).
    #[error("HTTP: {0}")]
    Http(String),
    /// The answer was larger than allowed.
    #[error("HTTP: {url}: the answer is larger than {limit} bytes")]
    TooLarge {
        /// What was fetched.
        url: String,
        /// The bound.
        limit: usize,
    },
    /// The provider's configuration document is unusable.
    #[error("OpenID discovery: {0}")]
    Discovery(String),
    /// The token endpoint refused or answered nonsense.
    #[error("token endpoint: {0}")]
    Token(String),
    /// The JWKS document is unusable.
    #[error("JWKS: {0}")]
    Jwks(String),
}
