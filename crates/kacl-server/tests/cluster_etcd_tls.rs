//! Cluster mode against a real etcd that speaks TLS and requires client certificates
//! (`--client-cert-auth`), with certificates made by rcgen: a node serves through it, and a
//! wrong CA, a missing client certificate or a missing file stop the node at start with a
//! clear error. Skipped (one line) when etcd is not installed, unless KACL_REQUIRE_EXTERNAL=1.

mod common;

use std::path::{Path, PathBuf};

use common::{acl_rows, ServerBuilder, TestServer};
use kacl_store_etcd::{EtcdTls, TlsFiles};
use kacl_test_support::etcd::Etcd;

/// A CA and the PEM files signed by it.
struct Pki {
    ca: rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
    dir: tempfile::TempDir,
}

impl Pki {
    fn new(name: &str) -> Pki {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::DigitalSignature,
        ];
        let ca = rcgen::CertifiedIssuer::self_signed(params, rcgen::KeyPair::generate().unwrap())
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.pem"), ca.pem()).unwrap();
        Pki { ca, dir }
    }

    fn ca(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// A certificate and key for 127.0.0.1 (server and client use: etcd's own gateway
    /// presents the server certificate to etcd), written as `<name>.pem` / `<name>.key`.
    fn issue(&self, name: &str) -> (PathBuf, PathBuf) {
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params
            .subject_alt_names
            .push(rcgen::SanType::IpAddress("127.0.0.1".parse().unwrap()));
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        params.extended_key_usages = vec![
            rcgen::ExtendedKeyUsagePurpose::ServerAuth,
            rcgen::ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.ca).unwrap();
        let (cert_path, key_path) = (
            self.dir.path().join(format!("{name}.pem")),
            self.dir.path().join(format!("{name}.key")),
        );
        std::fs::write(&cert_path, cert.pem()).unwrap();
        std::fs::write(&key_path, key.serialize_pem()).unwrap();
        (cert_path, key_path)
    }
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// etcd with TLS on its client URL and client certificates required; the PKI that signed it.
fn tls_etcd() -> Option<(Etcd, Pki)> {
    let pki = Pki::new("kacl etcd test CA");
    let (cert, key) = pki.issue("etcd");
    let (client_cert, client_key) = pki.issue("kacl");
    let tls = EtcdTls::load(&TlsFiles {
        ca: pki.ca(),
        client: Some((client_cert, client_key)),
    })
    .expect("test TLS files load");
    let etcd = Etcd::start_with(
        vec![
            format!("--cert-file={}", path(&cert)),
            format!("--key-file={}", path(&key)),
            format!("--trusted-ca-file={}", path(&pki.ca())),
            "--client-cert-auth".to_owned(),
        ],
        Some(tls),
    )?;
    Some((etcd, pki))
}

async fn start(endpoint: &str, extra: &[(&str, &str)]) -> Result<TestServer, String> {
    ServerBuilder::plaintext()
        .etcd(endpoint, 1)
        .properties(extra)
        .try_start()
        .await
        .map(TestServer::from)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_serves_through_etcd_over_tls_with_a_client_certificate() {
    let Some((etcd, pki)) = tls_etcd() else {
        return;
    };
    let (cert, key) = pki.issue("kacl-node");
    let (ca, cert, key) = (path(&pki.ca()), path(&cert), path(&key));
    let endpoint = etcd.endpoint();
    assert!(endpoint.starts_with("https://"), "{endpoint}");
    let node = start(
        &endpoint,
        &[
            ("kacl.etcd.tls.ca.location", &ca),
            ("kacl.etcd.tls.certificate.location", &cert),
            ("kacl.etcd.tls.key.location", &key),
        ],
    )
    .await
    .expect("a node starts on TLS etcd");
    let mut client = node.client().await;
    let created = client
        .create(3, vec![common::allow_read("orders", "User:alice")])
        .await;
    assert_eq!(created.results[0].error_code, 0, "{created:?}");
    assert_eq!(
        acl_rows(&client.describe(3, &common::describe_all()).await).len(),
        1
    );
    // The write is in etcd, read back over TLS by another client.
    let direct = etcd.client(std::time::Duration::from_secs(5));
    let listed = direct
        .range(b"/kacl/", Some(b"/kacl0"), 0, 0)
        .expect("range over TLS");
    assert!(!listed.kvs.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_ca_a_missing_client_certificate_and_missing_files_are_refused_at_start() {
    let Some((etcd, pki)) = tls_etcd() else {
        return;
    };
    let endpoint = etcd.endpoint();
    let (cert, key) = pki.issue("kacl-node");
    let (cert, key) = (path(&cert), path(&key));

    // A CA that did not sign etcd's certificate: refused at once, naming the endpoint.
    let other = Pki::new("another CA");
    let other_ca = path(&other.ca());
    let started = std::time::Instant::now();
    let err = start(
        &endpoint,
        &[
            ("kacl.etcd.tls.ca.location", &other_ca),
            ("kacl.etcd.tls.certificate.location", &cert),
            ("kacl.etcd.tls.key.location", &key),
        ],
    )
    .await
    .err()
    .expect("a wrong CA is refused");
    assert!(
        err.contains("TLS with etcd") && err.contains(&endpoint) && err.contains("UnknownIssuer"),
        "{err}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "refused without waiting for the timeout"
    );

    // No client certificate: etcd refuses the handshake.
    let ca = path(&pki.ca());
    let err = start(&endpoint, &[("kacl.etcd.tls.ca.location", &ca)])
        .await
        .err()
        .expect("no client certificate is refused");
    assert!(err.contains(&endpoint), "{err}");

    // A missing CA file, a key file that is not a key: the key and the file are named.
    let err = start(
        &endpoint,
        &[("kacl.etcd.tls.ca.location", "/nonexistent/kacl-etcd-ca.pem")],
    )
    .await
    .err()
    .expect("a missing CA file is refused");
    assert!(
        err.contains("kacl.etcd.tls.ca.location /nonexistent/kacl-etcd-ca.pem"),
        "{err}"
    );
    let err = start(
        &endpoint,
        &[
            ("kacl.etcd.tls.ca.location", &ca),
            ("kacl.etcd.tls.certificate.location", &cert),
            ("kacl.etcd.tls.key.location", &cert),
        ],
    )
    .await
    .err()
    .expect("a certificate given as the key is refused");
    assert!(err.contains("kacl.etcd.tls.key.location"), "{err}");
}
