//! PEM certificates and private keys, read one way for every TLS user of kacl: the server's
//! key and trust stores (`ssl.keystore.*`, `ssl.truststore.*`), the admin client's, the
//! console's listener and the etcd client (`kacl.etcd.tls.*`). Each caller reads its bytes
//! (a file or an inline value) and names the key or file in its own error; what is wrong with
//! the PEM itself is said here, the same way everywhere.

use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// Why PEM text yields no usable certificate chain or key.
#[derive(Debug, thiserror::Error)]
pub enum PemError {
    /// A certificate section that does not decode.
    #[error("unreadable PEM certificate: {0}")]
    BadCertificate(pem::Error),
    /// No `-----BEGIN CERTIFICATE-----` section at all.
    #[error("holds no PEM certificate (-----BEGIN CERTIFICATE-----)")]
    NoCertificate,
    /// No private key section at all.
    #[error("holds no PEM private key")]
    NoKey,
    /// A key section that does not decode, or is encrypted.
    #[error("no usable unencrypted private key (PKCS#8, PKCS#1 or SEC1 PEM): {0}")]
    BadKey(pem::Error),
}

/// Every certificate in `pem`, in order (a chain: the leaf first); at least one.
pub fn certificates(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, PemError> {
    let chain = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(PemError::BadCertificate)?;
    if chain.is_empty() {
        return Err(PemError::NoCertificate);
    }
    Ok(chain)
}

/// The first private key in `pem` (PKCS#8, PKCS#1 or SEC1, unencrypted).
pub fn private_key(pem: &[u8]) -> Result<PrivateKeyDer<'static>, PemError> {
    PrivateKeyDer::from_pem_slice(pem).map_err(|e| match e {
        pem::Error::NoItemsFound => PemError::NoKey,
        other => PemError::BadKey(other),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_without_pem_sections_is_refused_by_name() {
        assert!(matches!(
            certificates(b"hello"),
            Err(PemError::NoCertificate)
        ));
        assert!(matches!(private_key(b"hello"), Err(PemError::NoKey)));
        let bad = b"-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n";
        assert!(matches!(
            certificates(bad),
            Err(PemError::BadCertificate(_))
        ));
    }
}
