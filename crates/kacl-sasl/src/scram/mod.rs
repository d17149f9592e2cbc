//! SASL/SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677): the credential a store keeps,
//! the server exchange, the client exchange (for kacl's admin client and CLI, and so that
//! tests can run one against the other), and Kafka-shaped salts for clients that salt.
//!
//! Like Kafka (and unlike the RFC) no SASLprep is applied to names or passwords: both sides
//! use the UTF-8 bytes, which is what Kafka's tools and librdkafka do, so credentials made by
//! either work with kacl.

pub mod client;
pub mod credential;
pub mod messages;
pub mod salt;
pub mod server;
pub mod stand_in;

#[cfg(test)]
mod tests;

pub use client::{ScramClient, ScramClientError};
pub use credential::{ParseScramMechanismError, ScramCredential, ScramMechanism};
pub use salt::random_salt;
pub use server::ScramServer;
pub use stand_in::typical_iterations;
