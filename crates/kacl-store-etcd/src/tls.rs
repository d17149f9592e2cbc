//! TLS to etcd (`https://` endpoints): rustls over the blocking `std` socket, the CA of
//! `kacl.etcd.tls.ca.location` to verify etcd (with its host name or IP address), and an
//! optional client certificate and key for etcd's `--client-cert-auth`. PEM files are read
//! once, at start, and every error names the file.

use std::io;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

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

fn read_certs(
    key: &'static str,
    path: &Path,
) -> Result<Vec<CertificateDer<'static>>, TlsFileError> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|iter| iter.collect::<Result<Vec<_>, _>>())
        .map_err(|e| file_error(key, path, e))?;
    if certs.is_empty() {
        return Err(file_error(key, path, "holds no PEM certificate"));
    }
    Ok(certs)
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
                let private = PrivateKeyDer::from_pem_file(key).map_err(|e| match e {
                    rustls::pki_types::pem::Error::NoItemsFound => {
                        file_error(KEY, key, "holds no PEM private key")
                    }
                    other => file_error(KEY, key, other),
                })?;
                builder.with_client_auth_cert(chain, private).map_err(|e| {
                    file_error(KEY, key, format!("does not fit the certificate: {e}"))
                })?
            }
        };
        Ok(EtcdTls(Arc::new(config)))
    }

    /// Runs the handshake over `tcp` for `host`. A failure is `InvalidData` (certificate or
    /// protocol: trying again will not help) or the socket's own error.
    pub(crate) fn connect(
        &self,
        host: &str,
        mut tcp: TcpStream,
    ) -> io::Result<StreamOwned<ClientConnection, TcpStream>> {
        let name = ServerName::try_from(host.to_owned()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{host}` is not a valid TLS server name"),
            )
        })?;
        let mut conn = ClientConnection::new(self.0.clone(), name)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        while conn.is_handshaking() {
            conn.complete_io(&mut tcp)?;
        }
        Ok(StreamOwned::new(conn, tcp))
    }
}
