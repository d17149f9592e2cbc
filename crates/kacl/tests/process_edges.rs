//! The `kacl` binary at its edges: an error says each cause once, and a closed stdout
//! (`kacl ... | head`) ends it quietly.

mod cli_support;

use std::process::{Command, Stdio};

use cli_support::{kacl, TestServer, KACL};

#[test]
fn an_error_says_its_cause_once() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = kacl(&[
        "serve",
        "--override",
        &format!("listeners=PLAINTEXT://{}", taken.local_addr().unwrap()),
        "--override",
        &format!("metadata.log.dir={}", dir.path().display()),
    ]);
    assert_eq!(run.code, 1, "{run:?}");
    let error = run
        .stderr
        .lines()
        .find(|l| l.starts_with("Error: "))
        .expect("an error line");
    assert!(error.contains("cannot bind listener"), "{error}");
    assert_eq!(
        error.matches("Address already in use").count(),
        1,
        "{error}"
    );
}

/// Runs `kacl ARGS` with a stdout whose reader is already gone; returns the exit code and
/// stderr.
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(KACL)
        .args(args)
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let server = TestServer::plaintext();
    let topics = ["topics", "--bootstrap-server", server.addr.as_str()];
    let created = kacl(&[&topics[..], &["--create", "--topic", "orders"]].concat());
    assert_eq!(created.code, 0, "{created:?}");

    // A println! in the CLI, and a writeln! to a locked stdout in `serve`.
    let (code, stderr) = with_closed_stdout(&[&topics[..], &["--list"]].concat());
    assert_eq!((code, stderr.as_str()), (Some(141), ""));
    let dir = tempfile::tempdir().unwrap();
    let data = format!("metadata.log.dir={}", dir.path().display());
    let serve = [
        "serve",
        "--override",
        "listeners=PLAINTEXT://127.0.0.1:0",
        "--override",
        &data,
    ];
    let (code, stderr) = with_closed_stdout(&serve);
    assert_eq!((code, stderr.as_str()), (Some(141), ""));
}

/// One SASL attempt over a fresh connection: SaslHandshake v1 for `mechanism`, then each token
/// in a SaslAuthenticate v2 until the server answers with an error or closes.
fn sasl_attempt(addr: &str, mechanism: &str, tokens: &[Vec<u8>]) {
    use std::borrow::Cow;
    use std::io::{Read, Write};

    use kacl_protocol::frame::encode_request_frame;
    use kacl_protocol::messages::sasl_authenticate::SaslAuthenticateRequest;
    use kacl_protocol::messages::sasl_handshake::SaslHandshakeRequest;
    use kacl_protocol::{Message, RequestHeader};

    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut call = |version: i16, body: &dyn Fn(&mut Vec<u8>, &RequestHeader<'_>)| {
        let mut out = Vec::new();
        body(&mut out, &RequestHeader::default());
        let _ = version;
        stream.write_all(&out).ok()?;
        let mut size = [0u8; 4];
        stream.read_exact(&mut size).ok()?;
        let mut payload = vec![0u8; i32::from_be_bytes(size) as usize];
        stream.read_exact(&mut payload).ok()?;
        Some(payload)
    };
    fn encode<'a, M: Message<'a>>(out: &mut Vec<u8>, header: &RequestHeader<'_>, v: i16, m: &M) {
        encode_request_frame(out, header, v, m).unwrap();
    }
    let handshake = SaslHandshakeRequest {
        mechanism: Cow::Borrowed(mechanism),
        ..Default::default()
    };
    call(1, &|out, h| encode(out, h, 1, &handshake)).expect("handshake answered");
    for token in tokens {
        let authenticate = SaslAuthenticateRequest {
            auth_bytes: Cow::Borrowed(token),
            ..Default::default()
        };
        if call(2, &|out, h| encode(out, h, 2, &authenticate)).is_none() {
            return;
        }
    }
}

/// True if `line` starts as the server's log lines do: an RFC 3339 UTC timestamp and a level.
fn starts_like_a_log_line(line: &str) -> bool {
    let Some((stamp, rest)) = line.split_once(' ') else {
        return false;
    };
    let shape = stamp.len() >= 20
        && stamp.as_bytes()[4] == b'-'
        && stamp.as_bytes()[10] == b'T'
        && stamp.ends_with('Z')
        && stamp.bytes().take(4).all(|b| b.is_ascii_digit());
    let level = rest.trim_start();
    shape
        && ["TRACE ", "DEBUG ", "INFO ", "WARN ", "ERROR "]
            .iter()
            .any(|l| level.starts_with(l))
}

#[test]
fn hostile_names_cannot_forge_log_lines_and_are_logged_once_bounded() {
    let server = TestServer::start(&[
        ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
        ("super.users", "User:admin"),
        ("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256"),
        ("connection.failed.authentication.delay.ms", "0"),
        (
            "sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required \
             user_admin=\"admin-secret\";",
        ),
    ]);
    let forged = "2026-12-01T09:00:00.000000Z  INFO kacl::authorizer: Principal = User:admin \
                  is Allowed operation = ALTER ... added ACL (principal=User:mallory, host=*, \
                  operation=ALL, permissionType=ALLOW)";
    let plain = |name: &str| [&b"\0"[..], name.as_bytes(), b"\0wrong"].concat();
    // PLAIN: a line break and a forged audit line; terminal escapes; 400 KB.
    sasl_attempt(
        &server.addr,
        "PLAIN",
        &[plain(&format!(
            "once-marker\nINFO kacl::authorizer: Principal = User:admin added ACL\n{forged}"
        ))],
    );
    sasl_attempt(
        &server.addr,
        "PLAIN",
        &[plain("\u{1b}[2J\u{1b}[31mred\r\u{1b}]0;title\u{7}")],
    );
    sasl_attempt(&server.addr, "PLAIN", &[plain(&"n".repeat(400_000))]);
    // SCRAM: the client-first name, =2C and =3D unescaped to `,` and `=`, then a final
    // message that fails (its nonce is wrong), which logs the name.
    let escaped = forged.replace('=', "=3D").replace(',', "=2C");
    let first = format!("n,,n=scram=2Cname=3D\n{escaped},r=abcdefgh");
    sasl_attempt(
        &server.addr,
        "SCRAM-SHA-256",
        &[
            first.into_bytes(),
            b"c=biws,r=wrong,p=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=".to_vec(),
        ],
    );
    // A well-formed login still works and is logged.
    sasl_attempt(&server.addr, "PLAIN", &[b"\0admin\0admin-secret".to_vec()]);

    std::thread::sleep(std::time::Duration::from_millis(300));
    let log = server.log();
    for line in log.lines() {
        assert!(
            starts_like_a_log_line(line),
            "a line the server did not begin: {line:?}\n{log}"
        );
    }
    // The forged lines copy the server's format: none may begin a line.
    assert!(
        !log.lines()
            .any(|l| l.starts_with("2026-12-01T09:00:00.000000Z")),
        "a forged line begins a line:\n{log}"
    );
    assert!(!log.contains('\u{1b}'), "a terminal escape reached the log");
    assert_eq!(log.matches("once-marker").count(), 1, "{log}");
    assert!(log.contains(r"once-marker\nINFO kacl::authorizer"), "{log}");
    assert!(log.contains(r"scram,name=\n2026-12-01T09:00:00"), "{log}");
    assert!(log.contains("authenticated"), "{log}");
    assert!(log.contains("more bytes]"), "the 400 KB name is cut");
    assert!(log.len() < 32 * 1024, "{} bytes of log", log.len());
}
