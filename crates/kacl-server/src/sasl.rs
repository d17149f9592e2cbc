//! SASL for the server's connections. The mechanisms themselves live in the `kacl-sasl`
//! crate, shared with the admin client; they are re-exported here so that server code and its
//! tests keep naming them `kacl_server::sasl::...`. The server's own part, the
//! [`CredentialLookup`] over its state, is in `handlers::sasl_authenticate`.

pub use kacl_sasl::*;
