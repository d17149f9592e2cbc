//! Shared by the `security_*` integration tests: a server on 127.0.0.1:0 with a temporary data
//! directory, a framed Kafka client over any byte stream (TCP or TLS), SASL logins, a test PKI
//! made with rcgen, and a capture of the `kacl::authorizer` log.
#![allow(dead_code)]

use std::borrow::Cow;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use kacl_protocol::messages::alter_user_scram_credentials::{
    AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, ScramCredentialDeletion,
    ScramCredentialUpsertion,
};
use kacl_protocol::messages::describe_acls::{DescribeAclsRequest, DescribeAclsResponse};
use kacl_protocol::messages::describe_user_scram_credentials::{
    DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, UserName,
};
use kacl_protocol::messages::sasl_authenticate::{
    SaslAuthenticateRequest, SaslAuthenticateResponse,
};
use kacl_protocol::messages::sasl_handshake::{SaslHandshakeRequest, SaslHandshakeResponse};
use kacl_sasl::plain::client_token;
use kacl_sasl::{ScramClient, ScramMechanism};
use tempfile::TempDir;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// PLAIN users of the test SASL listeners: `admin` (a super user) and `alice`.
pub(crate) const JAAS: &str = "org.apache.kafka.common.security.plain.PlainLoginModule required \
    user_admin=\"admin-secret\" user_alice=\"alice-secret\";";

pub(crate) use crate::common::{TestServer, Wire};

/// A server with only the test defaults (data dir, short failed-authentication delay) under
/// `properties`: the security tests name their own listeners and super users.
pub(crate) async fn start(properties: &[(&str, &str)]) -> TestServer {
    let dir = tempfile::tempdir().expect("tempdir");
    crate::common::start_bare_in(dir, properties).await
}

/// A SASL_PLAINTEXT listener with the PLAIN users of [`JAAS`], `admin` a super user.
pub(crate) async fn sasl_server(extra: &[(&str, &str)]) -> TestServer {
    let mut props = vec![
        ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
        ("super.users", "User:admin"),
        ("sasl.jaas.config", JAAS),
    ];
    props.extend_from_slice(extra);
    start(&props).await
}

/// Sends `$req` at `$version` on `$wire` and decodes the answer as `$resp` (owned).
#[macro_export]
macro_rules! call_as {
    ($wire:expr, $version:expr, $req:expr, $resp:ident) => {{
        let version = $version;
        let correlation_id = $wire.send(version, $req).await;
        let payload = $wire.read_frame().await.expect("a response");
        let (header, response) =
            kacl_protocol::frame::decode_response_frame::<$resp>(&payload, version)
                .expect("well-formed response");
        assert_eq!(header.correlation_id, correlation_id, "correlation id");
        kacl_protocol::IntoStatic::into_static(response)
    }};
}

/// The SASL exchanges and the admin calls the security tests make, on any byte stream.
impl<S: AsyncRead + AsyncWrite + Unpin> Wire<S> {
    pub(crate) async fn handshake(&mut self, mechanism: &str) -> SaslHandshakeResponse<'static> {
        let req = SaslHandshakeRequest {
            mechanism: Cow::Owned(mechanism.to_owned()),
            ..Default::default()
        };
        call_as!(self, 1, &req, SaslHandshakeResponse)
    }

    pub(crate) async fn authenticate(&mut self, token: &[u8]) -> SaslAuthenticateResponse<'static> {
        let req = SaslAuthenticateRequest {
            auth_bytes: Cow::Owned(token.to_vec()),
            ..Default::default()
        };
        call_as!(self, 2, &req, SaslAuthenticateResponse)
    }

    /// PLAIN login; panics unless it succeeds.
    pub(crate) async fn plain_login(&mut self, user: &str, password: &str) {
        assert_eq!(self.handshake("PLAIN").await.error_code, 0);
        let resp = self.authenticate(&client_token("", user, password)).await;
        assert_eq!(resp.error_code, 0, "PLAIN login of {user}: {resp:?}");
    }

    /// A whole SCRAM exchange; the last SaslAuthenticate response (error 0 on success, and
    /// then the server's signature has been verified).
    pub(crate) async fn scram_login(
        &mut self,
        mechanism: ScramMechanism,
        user: &str,
        password: &str,
    ) -> SaslAuthenticateResponse<'static> {
        assert_eq!(self.handshake(mechanism.name()).await.error_code, 0);
        let mut scram = ScramClient::new(mechanism, user, password);
        let first = self.authenticate(&scram.client_first().unwrap()).await;
        if first.error_code != 0 {
            return first;
        }
        let final_message = scram.handle_server_first(&first.auth_bytes).unwrap();
        let last = self.authenticate(&final_message).await;
        if last.error_code == 0 {
            scram
                .handle_server_final(&last.auth_bytes)
                .expect("the server proves it holds the credential");
        }
        last
    }

    pub(crate) async fn describe_acls(&mut self) -> DescribeAclsResponse<'static> {
        call_as!(self, 2, &describe_everything(), DescribeAclsResponse)
    }

    pub(crate) async fn alter_scram(
        &mut self,
        deletions: Vec<ScramCredentialDeletion<'static>>,
        upsertions: Vec<ScramCredentialUpsertion<'static>>,
    ) -> AlterUserScramCredentialsResponse<'static> {
        let req = AlterUserScramCredentialsRequest {
            deletions,
            upsertions,
            ..Default::default()
        };
        call_as!(self, 0, &req, AlterUserScramCredentialsResponse)
    }

    pub(crate) async fn describe_scram(
        &mut self,
        users: Option<&[&str]>,
    ) -> DescribeUserScramCredentialsResponse<'static> {
        let req = DescribeUserScramCredentialsRequest {
            users: users.map(|names| {
                names
                    .iter()
                    .map(|n| UserName {
                        name: Cow::Owned((*n).to_owned()),
                        ..Default::default()
                    })
                    .collect()
            }),
            ..Default::default()
        };
        call_as!(self, 0, &req, DescribeUserScramCredentialsResponse)
    }
}

/// An upsertion as a client builds it: the password salted and hashed on the client side.
/// DescribeAcls of every ACL (ANY on every filter field).
pub(crate) fn describe_everything() -> DescribeAclsRequest<'static> {
    DescribeAclsRequest {
        resource_type_filter: 1,
        pattern_type_filter: 1,
        operation: 1,
        permission_type: 1,
        ..Default::default()
    }
}

pub(crate) fn upsertion(
    user: &str,
    mechanism: ScramMechanism,
    password: &str,
    iterations: i32,
) -> ScramCredentialUpsertion<'static> {
    let salt: [u8; 16] = rand_salt();
    let salted = mechanism.salted_password(password.as_bytes(), &salt, iterations.max(1) as u32);
    ScramCredentialUpsertion {
        name: Cow::Owned(user.to_owned()),
        mechanism: mechanism.type_code(),
        iterations,
        salt: Cow::Owned(salt.to_vec()),
        salted_password: Cow::Owned(salted),
        ..Default::default()
    }
}

pub(crate) fn deletion(user: &str, mechanism_code: i8) -> ScramCredentialDeletion<'static> {
    ScramCredentialDeletion {
        name: Cow::Owned(user.to_owned()),
        mechanism: mechanism_code,
        ..Default::default()
    }
}

fn rand_salt() -> [u8; 16] {
    // Distinct per call without a rand dependency in the tests.
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut salt = [7u8; 16];
    salt[..8].copy_from_slice(&n.to_be_bytes());
    salt
}

/// A test certificate authority and the files a TLS listener needs.
pub(crate) struct TestPki {
    pub dir: TempDir,
    ca: rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
    /// PEM of the CA certificate.
    pub ca_pem: String,
}

/// A client identity: its certificate chain and key, ready for rustls.
pub(crate) struct ClientIdentity {
    pub chain: Vec<rustls::pki_types::CertificateDer<'static>>,
    pub key: rustls::pki_types::PrivateKeyDer<'static>,
}

impl TestPki {
    pub(crate) fn new() -> TestPki {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "kacl test CA");
        params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::DigitalSignature,
        ];
        let ca = rcgen::CertifiedIssuer::self_signed(params, rcgen::KeyPair::generate().unwrap())
            .unwrap();
        let ca_pem = ca.pem();
        TestPki {
            dir: tempfile::tempdir().unwrap(),
            ca,
            ca_pem,
        }
    }

    /// Writes the server key store (chain + key in one PEM file, for `localhost` and
    /// 127.0.0.1) and the trust store; returns their paths.
    pub(crate) fn server_files(&self) -> (PathBuf, PathBuf) {
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params
            .subject_alt_names
            .push(rcgen::SanType::IpAddress("127.0.0.1".parse().unwrap()));
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "kacl server");
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.ca).unwrap();
        let keystore = self.dir.path().join("server.pem");
        let mut file = std::fs::File::create(&keystore).unwrap();
        write!(file, "{}{}", key.serialize_pem(), cert.pem()).unwrap();
        let truststore = self.dir.path().join("ca.pem");
        std::fs::write(&truststore, &self.ca_pem).unwrap();
        (keystore, truststore)
    }

    /// A client certificate whose subject has these RDNs in certificate order (least specific
    /// first: `[("OU","eng"),("CN","alice")]` prints as `CN=alice,OU=eng`).
    pub(crate) fn client(&self, rdns: &[(&str, &str)]) -> ClientIdentity {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name = rcgen::DistinguishedName::new();
        for (kind, value) in rdns {
            let kind = match *kind {
                "CN" => rcgen::DnType::CommonName,
                "OU" => rcgen::DnType::OrganizationalUnitName,
                "O" => rcgen::DnType::OrganizationName,
                "C" => rcgen::DnType::CountryName,
                other => panic!("unknown RDN type {other}"),
            };
            params.distinguished_name.push(kind, *value);
        }
        params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.ca).unwrap();
        ClientIdentity {
            chain: vec![cert.der().clone()],
            key: rustls::pki_types::PrivateKeyDer::try_from(key.serialize_der()).unwrap(),
        }
    }

    /// A TLS connection to `addr` trusting the test CA, with an optional client certificate.
    pub(crate) async fn connect(
        &self,
        addr: SocketAddr,
        identity: Option<ClientIdentity>,
    ) -> std::io::Result<Wire<tokio_rustls::client::TlsStream<TcpStream>>> {
        self.connect_offering(addr, identity, rustls::DEFAULT_VERSIONS, None)
            .await
    }

    /// As [`TestPki::connect`], offering only `versions` and, if given, only the cipher suites
    /// whose rustls names are listed (`TLS13_AES_128_GCM_SHA256`, ...).
    pub(crate) async fn connect_offering(
        &self,
        addr: SocketAddr,
        identity: Option<ClientIdentity>,
        versions: &[&'static rustls::SupportedProtocolVersion],
        suites: Option<&[&str]>,
    ) -> std::io::Result<Wire<tokio_rustls::client::TlsStream<TcpStream>>> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(self.ca.der().clone()).unwrap();
        let mut provider = rustls::crypto::ring::default_provider();
        if let Some(suites) = suites {
            provider
                .cipher_suites
                .retain(|s| suites.contains(&s.suite().as_str().unwrap_or_default()));
        }
        let builder = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(versions)
            .unwrap()
            .with_root_certificates(roots);
        let config = match identity {
            Some(identity) => builder
                .with_client_auth_cert(identity.chain, identity.key)
                .unwrap(),
            None => builder.with_no_client_auth(),
        };
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let tcp = TcpStream::connect(addr).await?;
        let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
        let stream = connector.connect(name, tcp).await?;
        Ok(Wire::new(stream))
    }
}

/// Everything logged while the guard lives (on this thread: the tests use the current-thread
/// runtime, where the server's tasks run too), as text.
#[derive(Clone, Default)]
pub(crate) struct LogCapture(Arc<Mutex<Vec<u8>>>);

impl LogCapture {
    /// Captures `filter` (an `EnvFilter` directive) until the guard is dropped.
    pub(crate) fn start(filter: &str) -> (LogCapture, tracing::subscriber::DefaultGuard) {
        let capture = LogCapture::default();
        let writer = capture.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_target(true)
            .finish();
        let guard = tracing::subscriber::set_default(subscriber);
        (capture, guard)
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }

    /// The captured lines that contain `needle`.
    pub(crate) fn lines_with(&self, needle: &str) -> Vec<String> {
        self.text()
            .lines()
            .filter(|l| l.contains(needle))
            .map(str::to_owned)
            .collect()
    }
}

impl Write for LogCapture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
