//! TLS to etcd (`https://` endpoints): rustls (through tokio-rustls, ALPN `h2`), the CA of
//! `kacl.etcd.tls.ca.location` to verify etcd (with its host name or IP address), and an
//! optional client certificate and key for etcd's `--client-cert-auth`. PEM files are read
//! once, at start, and every error names the file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use kacl_config::pem;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};

/// Where the TLS material is (`kacl.etcd.tls.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// PEM CA certificates that sign etcd's server certificate.
    pub ca: PathBuf,
    /// PEM client certificate chain and key, for etcd's `--client-cert-auth`.
    pub client: Option<(PathBuf, PathBuf)>,
}

/// A loaded client configuration, cheap to clone.
#[derive(Clone)]
pub struct EtcdTls(Arc<ClientConfig>);

impl std::fmt::Debug for EtcdTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EtcdTls")
    }
}

/// TLS material that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{key} {path}: {detail}")]
pub struct TlsFileError {
    /// The configuration key.
    pub key: &'static str,
    /// The file.
    pub path: String,
    /// What is wrong.
    pub detail: String,
}

fn file_error(key: &'static str, path: &Path, detail: impl std::fmt::Display) -> TlsFileError {
    TlsFileError {
        key,
        path: path.display().to_string(),
        detail: detail.to_string(),
    }
}

/// The bytes of the PEM file `path`, the value of `key`.
fn read_pem(key: &'static str, path: &Path) -> Result<Vec<u8>, TlsFileError> {
    std::fs::read(path).map_err(|e| file_error(key, path, e))
}

fn read_certs(
    key: &'static str,
    path: &Path,
) -> Result<Vec<CertificateDer<'static>>, TlsFileError> {
    pem::certificates(&read_pem(key, path)?).map_err(|e| file_error(key, path, e))
}

impl EtcdTls {
    /// Reads the files and builds the client configuration (ring, TLS 1.2 and 1.3, as the
    /// server's own listeners).
    pub fn load(files: &TlsFiles) -> Result<EtcdTls, TlsFileError> {
        const CA: &str = "kacl.etcd.tls.ca.location";
        const CERT: &str = "kacl.etcd.tls.certificate.location";
        const KEY: &str = "kacl.etcd.tls.key.location";
        let mut roots = RootCertStore::empty();
        for cert in read_certs(CA, &files.ca)? {
            roots
                .add(cert)
                .map_err(|e| file_error(CA, &files.ca, format!("bad CA certificate: {e}")))?;
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| file_error(CA, &files.ca, e))?
            .with_root_certificates(roots);
        let config = match &files.client {
            None => builder.with_no_client_auth(),
            Some((cert, key)) => {
                let chain = read_certs(CERT, cert)?;
                let private =
                    pem::private_key(&read_pem(KEY, key)?).map_err(|e| file_error(KEY, key, e))?;
                builder.with_client_auth_cert(chain, private).map_err(|e| {
                    file_error(KEY, key, format!("does not fit the certificate: {e}"))
                })?
            }
        };
        // etcd serves gRPC over HTTP/2 only: ALPN says so, or Go's TLS server speaks HTTP/1.1.
        let mut config = config;
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(EtcdTls(Arc::new(config)))
    }

    /// The rustls configuration, for a tokio-rustls connector.
    pub(crate) fn config(&self) -> Arc<ClientConfig> {
        self.0.clone()
    }
}
