//! What Kafka's client and server configuration share, so that `kacl serve` and the kacl
//! client read them identically: the `.properties` text format of `server.properties` and of
//! `--command-config` files ([`properties`]), the four `security.protocol` names
//! ([`SecurityProtocol`]), what a TLS endpoint offers ([`tls`]), and how PEM certificates and
//! keys are read ([`pem`]).
#![forbid(unsafe_code)]

pub mod pem;
pub mod properties;
mod security_protocol;
pub mod tls;

pub use properties::{parse_properties, Properties, PropertiesError};
pub use security_protocol::{SecurityProtocol, UnknownSecurityProtocol};
pub use tls::{TlsOffer, TlsOfferError, TlsProtocol};
