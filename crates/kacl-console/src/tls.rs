//! TLS for the console's own listener: a PEM file holding the private key and the certificate
//! chain (what the server's `ssl.keystore.location` with `ssl.keystore.type=PEM` holds). Each
//! handshake runs in its connection's own task, bounded in time and counted among the
//! connections that have not sent a request yet (`server`), so that a client that never
//! finishes its handshake holds up nobody else's connection.

use std::path::Path;
use std::sync::Arc;

use crate::ConsoleError;

/// The rustls configuration for a PEM file of key and chain (ring, TLS 1.2 and 1.3, HTTP/1.1
/// by ALPN).
pub fn server_config(pem_path: &Path) -> Result<Arc<rustls::ServerConfig>, ConsoleError> {
    let pem = std::fs::read(pem_path)
        .map_err(|e| ConsoleError::Config(format!("cannot read {}: {e}", pem_path.display())))?;
    let bad = |what: &str| ConsoleError::Config(format!("{}: {what}", pem_path.display()));
    let chain = kacl_config::pem::certificates(&pem).map_err(|e| bad(&e.to_string()))?;
    let key = kacl_config::pem::private_key(&pem).map_err(|e| bad(&e.to_string()))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| bad(&e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| bad(&e.to_string()))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
