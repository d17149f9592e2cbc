//! What Kafka's client and server configuration share, so that `kacl serve` and the kacl
//! client read them identically: the `.properties` text format of `server.properties` and of
//! `--command-config` files ([`properties`]), and the four `security.protocol` names
//! ([`SecurityProtocol`]).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod properties;
mod security_protocol;

pub use properties::{parse_properties, Properties, PropertiesError};
pub use security_protocol::{SecurityProtocol, UnknownSecurityProtocol};
