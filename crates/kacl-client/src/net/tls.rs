//! TLS for `SSL` and `SASL_SSL` (rustls, PEM files as Kafka's `ssl.*.type=PEM` options): the
//! brokers' CA from `ssl.truststore.location`, an optional client certificate and key from
//! `ssl.keystore.location` (one PEM file holding both, as Kafka's PEM key store), and hostname
//! verification unless `ssl.endpoint.identification.algorithm` is empty; the versions and suites
//! of `ssl.enabled.protocols` and `ssl.cipher.suites`.

use std::path::Path;
use std::sync::Arc;

use kacl_config::pem;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use crate::config::TlsConfig;
use crate::error::AdminError;

fn tls_error(detail: impl std::fmt::Display) -> AdminError {
    AdminError::Config(format!("TLS: {detail}"))
}

/// The bytes of the PEM file `path`, the value of `what`.
fn read_pem(path: &Path, what: &str) -> Result<Vec<u8>, AdminError> {
    std::fs::read(path).map_err(|e| tls_error(format!("{what} {}: {e}", path.display())))
}

fn read_certs(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, AdminError> {
    pem::certificates(&read_pem(path, what)?)
        .map_err(|e| tls_error(format!("{what} {} {e}", path.display())))
}

/// A connector for the configuration; built once per connection attempt (cheap next to the
/// handshake itself).
pub fn connector(config: &TlsConfig) -> Result<TlsConnector, AdminError> {
    let truststore = config.truststore_pem.as_deref().ok_or_else(|| {
        tls_error("ssl.truststore.location (a PEM file of CA certificates) is required")
    })?;
    let mut roots = RootCertStore::empty();
    for cert in read_certs(truststore, "ssl.truststore.location")? {
        roots
            .add(cert)
            .map_err(|e| tls_error(format!("bad CA certificate: {e}")))?;
    }
    let provider = config.offer.crypto_provider();
    let webpki =
        WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider))
            .build()
            .map_err(tls_error)?;
    let builder = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&config.offer.protocol_versions())
        .map_err(tls_error)?;
    let builder = if config.verify_hostname {
        builder.with_webpki_verifier(webpki)
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyName(webpki)))
    };
    let client_config = match config.keystore_pem.as_deref() {
        None => builder.with_no_client_auth(),
        Some(path) => {
            let chain = read_certs(path, "ssl.keystore.location")?;
            let key = pem::private_key(&read_pem(path, "ssl.keystore.location")?)
                .map_err(|e| tls_error(format!("ssl.keystore.location {}: {e}", path.display())))?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(tls_error)?
        }
    };
    Ok(TlsConnector::from(Arc::new(client_config)))
}

/// Runs the TLS handshake over `tcp` for `host` (a DNS name or an IP address).
pub async fn handshake(
    connector: &TlsConnector,
    host: &str,
    addr: &str,
    tcp: TcpStream,
) -> Result<TlsStream<TcpStream>, AdminError> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let name = ServerName::try_from(host.to_owned())
        .map_err(|_| tls_error(format!("`{host}` is not a valid server name")))?;
    connector
        .connect(name, tcp)
        .await
        .map_err(|e| AdminError::network(addr, format!("TLS handshake failed: {e}")))
}

/// Checks the chain against the trusted CAs but accepts any host name: Kafka's
/// `ssl.endpoint.identification.algorithm=` (empty).
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}
