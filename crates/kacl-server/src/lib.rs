//! The kacl network server: listeners, connections, SASL, routing by API key, one handler per API.
#![forbid(unsafe_code)]

pub mod config;
pub mod sasl;
pub mod tls_principal;
pub mod topics;
