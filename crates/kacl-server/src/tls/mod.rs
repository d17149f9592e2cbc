//! TLS for SSL and SASL_SSL listeners, with rustls (ring provider) and Kafka's PEM options.
//!
//! - The server's identity: `ssl.keystore.location` (one PEM file holding the certificate
//!   chain and the private key, as Kafka's `ssl.keystore.type=PEM`), or the PEM text itself in
//!   `ssl.keystore.certificate.chain` and `ssl.keystore.key`.
//! - Client certificates: `ssl.client.auth=none|requested|required`, verified against the CAs
//!   of `ssl.truststore.location` (or `ssl.truststore.certificates`).
//! - Each TLS listener has its own acceptor, from its `listener.name.<name>.ssl.*` overrides
//!   over the global keys.
//! - What is offered: `ssl.enabled.protocols` (TLSv1.2, TLSv1.3) and `ssl.cipher.suites` (IANA
//!   names, mapped onto the ring provider's suites; empty offers them all).
//! - On an SSL listener the principal is `User:<subject DN>` (the DN as Java prints it, see
//!   [`distinguished_name`]) transformed by `ssl.principal.mapping.rules`; without a client
//!   certificate it is `User:ANONYMOUS`, as in Kafka. On SASL_SSL the principal comes from SASL,
//!   run inside the TLS session.
//!
//! A handshake that fails or takes longer than [`HANDSHAKE_TIMEOUT`] closes the connection
//! with a log line; a certificate DN that no mapping rule matches closes it too (Kafka fails the
//! login the same way).

pub mod distinguished_name;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use kacl_config::pem;
use kacl_logsafe::safe;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::RootCertStore;
use thiserror::Error;
use tokio::net::TcpStream;

use kacl_server_config::{ClientAuth, KeyStore, SecurityProtocol, TlsConfig, TrustStore};
use kacl_service::context::{AuthState, Session, ANONYMOUS};
use kacl_service::{BoundListener, ServerState};

/// Longest a client may take to finish the TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the TLS settings cannot be used; the server does not start.
#[derive(Debug, Error)]
pub enum TlsError {
    /// A PEM file cannot be read.
    #[error("cannot read {key} file {path}: {reason}")]
    Read {
        /// The config key naming the file.
        key: &'static str,
        /// The file.
        path: String,
        /// The I/O error.
        reason: String,
    },
    /// The PEM text holds no certificate, no key, or something unreadable.
    #[error("{key}: {reason}")]
    Pem {
        /// The config key.
        key: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// rustls refused the certificate, key or trust store.
    #[error("invalid TLS settings: {0}")]
    Rustls(String),
}

/// Accepts TLS connections with the configured identity and client-certificate policy.
/// Cheap to clone; clones share the settings, so a [`TlsAcceptor::reload`] reaches them all.
#[derive(Clone)]
pub struct TlsAcceptor {
    settings: Arc<TlsConfig>,
    current: Arc<parking_lot::RwLock<Arc<rustls::ServerConfig>>>,
}

impl std::fmt::Debug for TlsAcceptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsAcceptor").finish_non_exhaustive()
    }
}

impl TlsAcceptor {
    /// Loads the PEM files and builds the rustls configuration.
    pub fn from_config(config: &TlsConfig) -> Result<TlsAcceptor, TlsError> {
        Ok(TlsAcceptor {
            current: Arc::new(parking_lot::RwLock::new(rustls_config(config)?)),
            settings: Arc::new(config.clone()),
        })
    }

    /// Reads the key store and trust store files again (certificate rotation) and uses them
    /// for the handshakes that start from now on; connections already open keep their
    /// session. If the files do not load, nothing changes and the error says why.
    pub fn reload(&self) -> Result<(), TlsError> {
        let fresh = rustls_config(&self.settings)?;
        *self.current.write() = fresh;
        Ok(())
    }

    /// Runs the TLS handshake with the settings in use now.
    async fn accept(
        &self,
        stream: TcpStream,
    ) -> std::io::Result<tokio_rustls::server::TlsStream<TcpStream>> {
        let config = Arc::clone(&self.current.read());
        tokio_rustls::TlsAcceptor::from(config).accept(stream).await
    }
}

/// The rustls configuration of `config`, its PEM files read now.
fn rustls_config(config: &TlsConfig) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let (chain, key) = load_key_store(&config.key_store)?;
    let provider = config.offer.crypto_provider();
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&config.offer.protocol_versions())
        .map_err(|e| TlsError::Rustls(e.to_string()))?;
    let builder = match (config.client_auth, &config.trust_store) {
        (ClientAuth::None, _) | (_, None) => builder.with_no_client_auth(),
        (auth, Some(trust_store)) => {
            let roots = Arc::new(load_trust_store(trust_store)?);
            let verifier = WebPkiClientVerifier::builder_with_provider(roots, provider);
            let verifier = if auth == ClientAuth::Requested {
                verifier.allow_unauthenticated()
            } else {
                verifier
            };
            let verifier = verifier
                .build()
                .map_err(|e| TlsError::Rustls(e.to_string()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let server = builder
        .with_single_cert(chain, key)
        .map_err(|e| TlsError::Rustls(e.to_string()))?;
    Ok(Arc::new(server))
}

fn read_file(key: &'static str, path: &std::path::Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|e| TlsError::Read {
        key,
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

fn load_key_store(
    key_store: &KeyStore,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), TlsError> {
    let (chain_key, key_key, chain_pem, key_pem) = match key_store {
        KeyStore::File(path) => {
            let pem = read_file("ssl.keystore.location", path)?;
            (
                "ssl.keystore.location",
                "ssl.keystore.location",
                pem.clone(),
                pem,
            )
        }
        KeyStore::Inline {
            certificate_chain,
            private_key,
        } => (
            "ssl.keystore.certificate.chain",
            "ssl.keystore.key",
            certificate_chain.clone().into_bytes(),
            private_key.clone().into_bytes(),
        ),
    };
    let chain = certificates(chain_key, &chain_pem)?;
    let key = pem::private_key(&key_pem).map_err(|e| TlsError::Pem {
        key: key_key,
        reason: e.to_string(),
    })?;
    Ok((chain, key))
}

fn certificates(key: &'static str, text: &[u8]) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    pem::certificates(text).map_err(|e| TlsError::Pem {
        key,
        reason: e.to_string(),
    })
}

fn load_trust_store(trust_store: &TrustStore) -> Result<RootCertStore, TlsError> {
    let (key, pem) = match trust_store {
        TrustStore::File(path) => (
            "ssl.truststore.location",
            read_file("ssl.truststore.location", path)?,
        ),
        TrustStore::Inline(pem) => ("ssl.truststore.certificates", pem.clone().into_bytes()),
    };
    let mut roots = RootCertStore::empty();
    for certificate in certificates(key, &pem)? {
        roots.add(certificate).map_err(|e| TlsError::Pem {
            key,
            reason: format!("unusable CA certificate: {e}"),
        })?;
    }
    Ok(roots)
}

/// A TLS session and the connection's [`Session`], its principal already set on SSL listeners.
pub type Accepted = (tokio_rustls::server::TlsStream<TcpStream>, Session);

/// Runs the TLS handshake on an accepted connection and works out the principal; `None` (with a
/// log line) when the handshake fails or the certificate names no principal. The caller serves
/// the connection inside the returned TLS session.
pub async fn accept(
    acceptor: &TlsAcceptor,
    stream: TcpStream,
    peer: SocketAddr,
    listener: BoundListener,
    state: &ServerState,
) -> Option<Accepted> {
    let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await;
    let stream = match handshake {
        Ok(Ok(stream)) => stream,
        Ok(Err(err)) => {
            tracing::info!(%peer, listener = %listener.name, err = %safe(&err.to_string()),
                "TLS handshake failed");
            return None;
        }
        Err(_) => {
            tracing::info!(%peer, listener = %listener.name, "TLS handshake timed out");
            return None;
        }
    };
    let mut session = Session::new(listener, peer);
    if session.listener.protocol == SecurityProtocol::Ssl {
        let (_, connection) = stream.get_ref();
        let leaf = connection
            .peer_certificates()
            .and_then(|chain| chain.first())
            .map(|c| c.as_ref());
        match ssl_principal(state, leaf) {
            Ok(principal) => {
                tracing::debug!(%peer, listener = %session.listener.name,
                    principal = %safe(&principal), "TLS client principal");
                session.auth = AuthState::Authenticated {
                    principal,
                    mechanism: None,
                };
            }
            Err(reason) => {
                tracing::warn!(%peer, listener = %session.listener.name,
                    reason = %safe(&reason), "failed authentication");
                return None;
            }
        }
    }
    Some((stream, session))
}

/// The principal of an SSL client: `User:ANONYMOUS` without a certificate, else the mapped
/// subject DN.
fn ssl_principal(state: &ServerState, leaf: Option<&[u8]>) -> Result<String, String> {
    let Some(der) = leaf else {
        return Ok(ANONYMOUS.to_owned());
    };
    let dn = distinguished_name::subject_rfc2253(der)
        .ok_or_else(|| "the client certificate's subject does not parse".to_owned())?;
    state
        .config
        .ssl_principal_mapper
        .user_principal(&dn)
        .map_err(|e| e.to_string())
}
