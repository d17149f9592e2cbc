//! The CLI over TLS against `kacl serve`: `SSL` with a PEM trust store, `SASL_SSL` with PLAIN,
//! client certificates, and refusals (unknown CA, wrong host name).

mod cli_support;

use std::path::Path;

use cli_support::{kacl, TestServer};

/// A throwaway CA and the PEM files signed by it.
struct Pki {
    ca: rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
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
        Pki { ca }
    }

    fn ca_pem(&self) -> String {
        self.ca.pem()
    }

    /// Key and chain in one PEM (Kafka's PEM key store), for these DNS names and 127.0.0.1.
    fn leaf_pem(&self, dns: &[&str], common_name: &str, ip: bool) -> String {
        let mut params =
            rcgen::CertificateParams::new(dns.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .unwrap();
        if ip {
            params
                .subject_alt_names
                .push(rcgen::SanType::IpAddress("127.0.0.1".parse().unwrap()));
        }
        params.distinguished_name = rcgen::DistinguishedName::new();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, common_name);
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.ca).unwrap();
        format!("{}{}", key.serialize_pem(), cert.pem())
    }
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A TLS `kacl serve`; its certificate names `localhost`, and 127.0.0.1 when `ip`.
fn tls_server(pki: &Pki, dir: &Path, ip: bool, extra: &[(&str, &str)]) -> TestServer {
    let keystore = write(
        dir,
        "server.pem",
        &pki.leaf_pem(&["localhost"], "kacl server", ip),
    );
    let truststore = write(dir, "ca.pem", &pki.ca_pem());
    let mut settings = vec![
        ("ssl.keystore.type", "PEM"),
        ("ssl.keystore.location", keystore.as_str()),
        ("ssl.truststore.location", truststore.as_str()),
    ];
    settings.extend_from_slice(extra);
    TestServer::start(&settings)
}

#[test]
fn ssl_with_a_pem_truststore_and_hostname_checks() {
    let pki = Pki::new("kacl test CA");
    let files = tempfile::tempdir().unwrap();
    let server = tls_server(
        &pki,
        files.path(),
        true,
        &[
            ("listeners", "SSL://127.0.0.1:0"),
            ("super.users", "User:ANONYMOUS"),
        ],
    );
    let ca = write(files.path(), "client-ca.pem", &pki.ca_pem());
    let config = write(
        files.path(),
        "ssl.properties",
        &format!("security.protocol=SSL\nssl.truststore.location={ca}\n"),
    );
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--command-config",
        &config,
        "--add",
        "--allow-principal",
        "User:alice",
        "--topic",
        "orders",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--command-config",
        &config,
        "--list",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("principal=User:alice"), "{run:?}");

    // A CA the server's certificate does not chain to.
    let other = Pki::new("another CA");
    let other_ca = write(files.path(), "other-ca.pem", &other.ca_pem());
    let untrusting = write(
        files.path(),
        "untrusting.properties",
        &format!("security.protocol=SSL\nssl.truststore.location={other_ca}\n"),
    );
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--command-config",
        &untrusting,
        "--list",
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.starts_with("Error: NETWORK_EXCEPTION: ")
            && run.stderr.contains("TLS handshake failed"),
        "{run:?}"
    );

    // A certificate for `localhost` only: dialling 127.0.0.1 fails the host name check,
    // unless the check is disabled as Kafka's empty endpoint identification algorithm does.
    let dns_only = tls_server(
        &pki,
        &files.path().join("dns-only").tap_mkdir(),
        false,
        &[
            ("listeners", "SSL://127.0.0.1:0"),
            ("super.users", "User:ANONYMOUS"),
        ],
    );
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &dns_only.addr,
        "--command-config",
        &config,
        "--list",
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("TLS handshake failed"), "{run:?}");
    let no_check = write(
        files.path(),
        "no-check.properties",
        &format!(
            "security.protocol=SSL\nssl.truststore.location={ca}\n\
             ssl.endpoint.identification.algorithm=\n"
        ),
    );
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &dns_only.addr,
        "--command-config",
        &no_check,
        "--list",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn sasl_ssl_plain_and_client_certificates() {
    let pki = Pki::new("kacl test CA");
    let files = tempfile::tempdir().unwrap();
    let server = tls_server(
        &pki,
        files.path(),
        true,
        &[
            ("listeners", "SASL_SSL://127.0.0.1:0"),
            ("super.users", "User:admin"),
            ("sasl.enabled.mechanisms", "PLAIN"),
            (
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required \
                 user_admin=\"admin-secret\";",
            ),
        ],
    );
    let ca = write(files.path(), "client-ca.pem", &pki.ca_pem());
    let config = write(
        files.path(),
        "sasl-ssl.properties",
        &format!(
            "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nssl.truststore.location={ca}\n\
             sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \
             username=\"admin\" password=\"admin-secret\";\n"
        ),
    );
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--command-config",
        &config,
        "--list",
    ]);
    assert_eq!(run.code, 0, "{run:?}");

    // mTLS: the principal comes from the client certificate.
    let mtls = tls_server(
        &pki,
        &files.path().join("mtls-dir").tap_mkdir(),
        true,
        &[
            ("listeners", "SSL://127.0.0.1:0"),
            ("ssl.client.auth", "required"),
            ("super.users", "User:CN=ops"),
        ],
    );
    let keystore = write(files.path(), "ops.pem", &pki.leaf_pem(&[], "ops", false));
    let with_cert = write(
        files.path(),
        "mtls.properties",
        &format!(
            "security.protocol=SSL\nssl.truststore.location={ca}\nssl.keystore.type=PEM\n\
             ssl.keystore.location={keystore}\n"
        ),
    );
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &mtls.addr,
        "--command-config",
        &with_cert,
        "--list",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let without_cert = write(
        files.path(),
        "no-cert.properties",
        &format!("security.protocol=SSL\nssl.truststore.location={ca}\n"),
    );
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &mtls.addr,
        "--command-config",
        &without_cert,
        "--list",
    ]);
    assert_eq!(run.code, 1, "{run:?}");
}

trait TapMkdir {
    fn tap_mkdir(self) -> Self;
}

impl TapMkdir for std::path::PathBuf {
    fn tap_mkdir(self) -> Self {
        std::fs::create_dir_all(&self).unwrap();
        self
    }
}

#[test]
fn enabled_protocols_in_the_command_config_are_what_the_cli_offers() {
    // A TLS 1.3-only server: a command config that allows only TLS 1.2 cannot connect, one
    // that lists TLSv1.1 too connects over 1.3 and is told TLSv1.1 was ignored.
    let pki = Pki::new("kacl test CA");
    let files = tempfile::tempdir().unwrap();
    let server = tls_server(
        &pki,
        files.path(),
        true,
        &[
            ("listeners", "SSL://127.0.0.1:0"),
            ("super.users", "User:ANONYMOUS"),
            ("ssl.enabled.protocols", "TLSv1.3"),
        ],
    );
    let ca = write(files.path(), "client-ca.pem", &pki.ca_pem());
    let list = |name: &str, protocols: &str| {
        let config = write(
            files.path(),
            name,
            &format!(
                "security.protocol=SSL\nssl.truststore.location={ca}\n\
                 ssl.enabled.protocols={protocols}\n"
            ),
        );
        kacl(&[
            "acls",
            "--bootstrap-server",
            &server.addr,
            "--command-config",
            &config,
            "--list",
        ])
    };
    let run = list("tls12.properties", "TLSv1.2");
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("TLS handshake failed"), "{run:?}");
    let run = list("tls13.properties", "TLSv1.1,TLSv1.3");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("warning: ssl.enabled.protocols: TLSv1.1 is not supported"),
        "{run:?}"
    );
}

#[test]
fn sighup_reloads_rotated_certificates() {
    // The server starts with a certificate that names only `localhost`, so a client dialling
    // 127.0.0.1 with host name checks refuses it; the certificate is rotated to one that
    // names 127.0.0.1 too, and SIGHUP makes the running server use it.
    let pki = Pki::new("kacl test CA");
    let files = tempfile::tempdir().unwrap();
    let server = tls_server(
        &pki,
        files.path(),
        false,
        &[
            ("listeners", "SSL://127.0.0.1:0"),
            ("super.users", "User:ANONYMOUS"),
        ],
    );
    let ca = write(files.path(), "client-ca.pem", &pki.ca_pem());
    let config = write(
        files.path(),
        "ssl.properties",
        &format!("security.protocol=SSL\nssl.truststore.location={ca}\n"),
    );
    let list = || {
        kacl(&[
            "acls",
            "--bootstrap-server",
            &server.addr,
            "--command-config",
            &config,
            "--list",
        ])
    };
    let run = list();
    assert_eq!(
        run.code, 1,
        "the first certificate does not name 127.0.0.1: {run:?}"
    );

    write(
        files.path(),
        "server.pem",
        &pki.leaf_pem(&["localhost"], "kacl server", true),
    );
    let hup = std::process::Command::new("kill")
        .args(["-HUP", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(hup.success());
    let reloaded = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(25));
        server
            .log()
            .contains("reloaded the TLS key and trust stores")
    });
    assert!(reloaded, "no reload logged:\n{}", server.log());
    let run = list();
    assert_eq!(run.code, 0, "the rotated certificate is served: {run:?}");

    // A broken key store on the next SIGHUP is refused; the server keeps serving.
    write(files.path(), "server.pem", "not a PEM file");
    std::process::Command::new("kill")
        .args(["-HUP", &server.pid().to_string()])
        .status()
        .unwrap();
    let refused = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(25));
        server
            .log()
            .contains("cannot reload the TLS key and trust stores")
    });
    assert!(refused, "no refusal logged:\n{}", server.log());
    assert_eq!(list().code, 0, "still serving the last good certificate");
}
