//! Console single sign-on in a real headless chromium: a person signs in at an OpenID
//! provider (tests/interop/oidc_issuer.py: real keys, a login form, authorization code with
//! PKCE), comes back to `kacl console`, which then talks to `kacl serve` as that person with
//! SASL/OAUTHBEARER; the server validates the token against the provider's JWKS and its ACLs
//! decide what the person sees. No Kafka password is typed into the console.
//!
//! Also: a wrong password at the provider keeps the person there; a callback with a forged
//! `state` is refused; the person's ACLs, not an operator's, apply.
//!
//! Needs chromium, chromedriver and a python3 with the `cryptography` package (Debian's
//! python3-cryptography, or tests/interop/.venv); skipped (one line) without them, unless
//! KACL_REQUIRE_EXTERNAL=1.

mod cli_support;
mod console_support;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cli_support::{kacl, TestServer};
use console_support::webdriver::{browser_binaries, Browser};
use console_support::{http, Console};

/// The test provider, stopped (stdin closed, then killed) on drop.
struct Issuer {
    child: Child,
    url: String,
}

impl Drop for Issuer {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A python that can run the provider, or `None` after the skip line.
fn python() -> Option<String> {
    let venv = repo_root().join("tests/interop/.venv/bin/python");
    let candidates = [
        std::env::var("KACL_PYTHON").ok(),
        Some(venv.display().to_string()),
        Some("python3".to_owned()),
    ];
    for python in candidates.into_iter().flatten() {
        let ok = Command::new(&python)
            .args(["-c", "import cryptography"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Some(python);
        }
    }
    if std::env::var("KACL_REQUIRE_EXTERNAL").as_deref() == Ok("1") {
        panic!("no python3 with `cryptography` (see .ci/run) and KACL_REQUIRE_EXTERNAL=1");
    }
    println!("skipped: no python3 with the cryptography package (see .ci/run)");
    None
}

fn start_issuer(python: &str, args: &[&str]) -> Issuer {
    let script = repo_root().join("tests/interop/oidc_issuer.py");
    let mut child = Command::new(python)
        .arg(script)
        .arg("serve")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn oidc_issuer.py");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the issuer's first line");
    let doc: serde_json::Value = serde_json::from_str(&line).expect("the issuer's JSON line");
    let url = doc["issuer"].as_str().expect("issuer").to_owned();
    Issuer { child, url }
}

/// Waits (bounded) until the page's text contains `needle`.
fn wait_for(browser: &Browser, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = browser.text();
        if text.contains(needle) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "page never showed {needle:?}; it shows:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_person_signs_in_through_the_identity_provider() {
    let Some((chromium, chromedriver)) = browser_binaries() else {
        return;
    };
    let Some(python) = python() else {
        return;
    };
    let issuer = start_issuer(
        &python,
        &[
            "--user",
            "carol:carol-idp-password",
            "--client",
            "kacl-console:console-secret",
        ],
    );
    let jwks = format!("{}/jwks", issuer.url);
    let server = TestServer::start(&[
        ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
        ("super.users", "User:admin"),
        ("sasl.enabled.mechanisms", "PLAIN,OAUTHBEARER"),
        (
            "sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required \
             user_admin=\"admin-secret\";",
        ),
        ("sasl.oauthbearer.jwks.endpoint.url", &jwks),
        ("sasl.oauthbearer.expected.issuer", &issuer.url),
        ("sasl.oauthbearer.expected.audience", "kafka"),
    ]);
    // carol may describe the cluster's ACLs and read one topic; nothing else.
    let admin = server.plain_config("admin", "admin-secret");
    for args in [
        &["--cluster", "--operation", "Describe"][..],
        &["--topic", "payments", "--operation", "Read"][..],
    ] {
        let mut all = vec![
            "acls",
            "--bootstrap-server",
            &server.addr,
            "--command-config",
            &admin,
            "--add",
            "--allow-principal",
            "User:carol",
        ];
        all.extend_from_slice(args);
        let run = kacl(&all);
        assert_eq!(run.code, 0, "{run:?}");
    }
    let secret = server.file("console-secret", "console-secret\n");
    let config = server.file("console.properties", "security.protocol=SASL_PLAINTEXT\n");
    let console = Console::start(
        &server.addr,
        &[
            "--command-config",
            &config,
            "--oidc-issuer",
            &issuer.url,
            "--oidc-client-id",
            "kacl-console",
            "--oidc-client-secret-file",
            &secret,
            "--oidc-scope",
            "openid kafka",
        ],
    );
    let url = console.url();
    let browser = Browser::start(&chromium, &chromedriver);

    browser.goto(&format!("{url}/login"));
    wait_for(&browser, "Sign in with single sign-on");
    browser.click("#sso-login");
    // The provider's own page (only it serves this form).
    wait_for(&browser, "Sign in to the test identity provider");
    // A wrong password stays at the provider.
    browser.fill("#idp-username", "carol");
    browser.fill("#idp-password", "wrong");
    browser.click("#idp-submit");
    wait_for(&browser, "Wrong user name or password.");
    browser.fill("#idp-username", "carol");
    browser.fill("#idp-password", "carol-idp-password");
    browser.click("#idp-submit");
    let text = wait_for(&browser, "Logged in as User:carol");
    // carol's own ACLs: she may describe, and sees the two of them.
    assert!(text.contains("2 ACLs"), "{text}");
    assert!(text.contains("payments"), "{text}");
    let log = server.log();
    assert!(
        log.contains("mechanism=OAUTHBEARER principal=User:carol"),
        "the server authenticated carol with OAUTHBEARER:\n{log}"
    );
    // As carol she may not add ACLs: the cluster refuses (her principal, not an operator's).
    browser.goto(&format!(
        "{url}/acls/add/confirm?principal=User%3Amallory&resource_type=Topic&name=payments&pattern_type=literal&operation=Read&permission=Allow&host=*"
    ));
    browser.click("form[action=\"/acls/add\"] button[type=submit]");
    wait_for(&browser, "CLUSTER_AUTHORIZATION_FAILED");

    // A callback this browser did not start is refused, and no session is made.
    let forged = http(
        &console.addr,
        "GET",
        "/sso/callback?code=stolen&state=not-mine",
        Some("kacl_sso=someone-else"),
        None,
    );
    assert_eq!(forged.status, 400, "{}", forged.body);
    assert!(
        forged.body.contains("this sign-in is unknown"),
        "{}",
        forged.body
    );
    assert!(forged.session_cookie().is_none());
}
