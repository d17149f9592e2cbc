//! `kacl console` over plain HTTP against a real `kacl serve` (SASL PLAIN): cookie flags,
//! session fixation, CSRF, HTML injection through ACL names, the refusal and error pages,
//! and the add/search/remove round trip. No browser needed (see console_browser.rs).

mod cli_support;
mod console_support;

use cli_support::TestServer;
use console_support::{enc, Console};

const INJECTED: &str = "User:<script>alert(1)</script>";

fn sasl_console() -> (TestServer, Console) {
    let server = TestServer::sasl_plain();
    let config = server.file("console.properties", "security.protocol=SASL_PLAINTEXT\n");
    let console = Console::start(&server.addr, &["--command-config", &config]);
    (server, console)
}

fn add_form(principal: &str, topic: &str, csrf: Option<&str>) -> String {
    let mut form = format!(
        "resource_type=Topic&name={}&pattern_type=literal&principal={}&host=*&operation=Read&permission=Allow",
        enc(topic),
        enc(principal)
    );
    if let Some(t) = csrf {
        form.push_str(&format!("&csrf={t}"));
    }
    form
}

#[test]
fn login_sets_a_fresh_http_only_strict_cookie_and_logout_ends_it() {
    let (_server, console) = sasl_console();
    // A session id planted before login (fixation) is never adopted.
    let planted = "kacl_session=attacker-chosen";
    let form = "mechanism=PLAIN&username=admin&password=admin-secret";
    let response = console_support::login_post(&console.addr, form, Some(planted));
    assert_eq!(response.status, 303, "{}", response.body);
    let set = response.header("set-cookie").expect("Set-Cookie");
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    assert!(!set.contains("Secure"), "plain HTTP: no Secure flag: {set}");
    let cookie = response.session_cookie().unwrap();
    assert_ne!(cookie, planted);
    assert_eq!(cookie.len(), "kacl_session=".len() + 64);
    let planted_page = console.request("GET", "/acls", Some(planted), None);
    assert_eq!(planted_page.status, 303);
    assert_eq!(planted_page.header("location"), Some("/login"));
    // A second login makes another id.
    let again = console.login("PLAIN", "admin", "admin-secret").unwrap();
    assert_ne!(again, cookie);

    let page = console.request("GET", "/acls", Some(&cookie), None);
    assert_eq!(page.status, 200);
    assert!(page
        .body
        .contains("Logged in as <strong>User:admin</strong>"));
    assert!(page
        .header("content-security-policy")
        .unwrap()
        .contains("frame-ancestors 'none'"));
    // Logout needs the token too, then the cookie is worthless.
    let refused = console.request("POST", "/logout", Some(&cookie), Some(""));
    assert_eq!(refused.status, 403);
    let out = console.request(
        "POST",
        "/logout",
        Some(&cookie),
        Some(&format!("csrf={}", page.csrf())),
    );
    assert_eq!(out.status, 303);
    assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
    assert_eq!(
        console.request("GET", "/acls", Some(&cookie), None).status,
        303
    );
}

#[test]
fn secure_cookies_when_asked() {
    let server = TestServer::plaintext();
    let console = Console::start(&server.addr, &["--secure-cookies"]);
    let page = console.request("GET", "/login", None, None);
    assert!(page.header("set-cookie").unwrap().ends_with("; Secure"));
    let response =
        console_support::login_post(&console.addr, "mechanism=none&username=&password=", None);
    assert_eq!(response.status, 303, "{}", response.body);
    assert!(response.header("set-cookie").unwrap().ends_with("; Secure"));
}

#[test]
fn changes_without_the_csrf_token_are_refused_and_change_nothing() {
    let (_server, console) = sasl_console();
    let cookie = console.login("PLAIN", "admin", "admin-secret").unwrap();
    for token in [None, Some("0000")] {
        let response = console.request(
            "POST",
            "/acls/add",
            Some(&cookie),
            Some(&add_form("User:mallory", "orders", token)),
        );
        assert_eq!(response.status, 403, "{}", response.body);
        assert!(response.body.contains("CSRF token"), "{}", response.body);
    }
    let page = console.request("GET", "/acls?principal=User%3Amallory", Some(&cookie), None);
    assert!(
        page.body.contains("No ACL matches this search."),
        "{}",
        page.body
    );
    let plan = console.request(
        "POST",
        "/apply",
        Some(&cookie),
        Some("document=x&confirm=yes"),
    );
    assert_eq!(plan.status, 403);
    let topic = console.request("POST", "/topics/create", Some(&cookie), Some("name=t"));
    assert_eq!(topic.status, 403);
    // The login form has its own token (a pre-session cookie and a hidden field): a login
    // post without it, with a token its cookie does not carry, or with no cookie at all is
    // refused before any connection is made, and no session cookie is set.
    let form = "mechanism=PLAIN&username=admin&password=admin-secret";
    let login_page = console.request("GET", "/login", None, None);
    let login_cookie = login_page.login_cookie().expect("kacl_login cookie");
    assert!(
        login_page
            .header("set-cookie")
            .unwrap()
            .contains("HttpOnly; SameSite=Strict"),
        "{:?}",
        login_page.header("set-cookie")
    );
    let token = login_page.csrf();
    for (cookie, body) in [
        (Some(login_cookie.as_str()), form.to_owned()),
        (Some(login_cookie.as_str()), format!("{form}&csrf=0000")),
        (None, format!("{form}&csrf={token}")),
    ] {
        let refused = console.request("POST", "/login", cookie, Some(&body));
        assert_eq!(refused.status, 403, "{}", refused.body);
        assert!(refused.body.contains("CSRF token"), "{}", refused.body);
        assert!(refused.session_cookie().is_none());
    }
    let ok = console.request(
        "POST",
        "/login",
        Some(&login_cookie),
        Some(&format!("{form}&csrf={token}")),
    );
    assert_eq!(ok.status, 303, "{}", ok.body);
}

#[test]
fn add_search_remove_and_names_are_escaped_everywhere() {
    let (_server, console) = sasl_console();
    let cookie = console.login("PLAIN", "admin", "admin-secret").unwrap();
    let csrf = console.request("GET", "/acls", Some(&cookie), None).csrf();
    let topic = "<img src=x onerror=alert(2)>";
    // The confirmation page shows exactly the change and escapes it.
    let confirm = console.request(
        "GET",
        &format!("/acls/add/confirm?{}", add_form(INJECTED, topic, None)),
        Some(&cookie),
        None,
    );
    assert_eq!(confirm.status, 200, "{}", confirm.body);
    assert!(
        confirm
            .body
            .contains("User:&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{}",
        confirm.body
    );
    assert!(!confirm.body.contains("<script>alert") && !confirm.body.contains("<img src=x"));
    let added = console.request(
        "POST",
        "/acls/add",
        Some(&cookie),
        Some(&add_form(INJECTED, topic, Some(&csrf))),
    );
    assert_eq!(added.status, 200, "{}", added.body);
    for path in [
        format!("/acls?principal={}", enc(INJECTED)),
        "/acls?sort=principal".to_owned(),
        format!(
            "/explain?principal={}&operation=Write&resource_type=Topic&name={}",
            enc(INJECTED),
            enc(topic)
        ),
        format!(
            "/who-can?operation=Read&resource_type=Topic&name={}",
            enc(topic)
        ),
        format!("/effective?principal={}", enc(INJECTED)),
    ] {
        let page = console.request("GET", &path, Some(&cookie), None);
        assert_eq!(page.status, 200, "{path}: {}", page.body);
        assert!(
            page.body
                .contains("User:&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{path}: {}",
            page.body
        );
        assert!(
            !page.body.contains("<script>alert") && !page.body.contains("<img src=x"),
            "{path}"
        );
    }
    let explain = console.request(
        "GET",
        &format!(
            "/explain?principal={}&operation=Write&resource_type=Topic&name={}",
            enc(INJECTED),
            enc(topic)
        ),
        Some(&cookie),
        None,
    );
    assert!(explain.body.contains("DENIED"), "{}", explain.body);
    let export = console.request(
        "GET",
        &format!("/acls/export?principal={}", enc(INJECTED)),
        Some(&cookie),
        None,
    );
    assert!(export
        .header("content-disposition")
        .unwrap()
        .contains("attachment"));
    assert!(
        export.body.contains("alert(1)") && export.body.contains("version: 1"),
        "{}",
        export.body
    );

    let remove = add_form(INJECTED, topic, Some(&csrf));
    let removed = console.request("POST", "/acls/remove", Some(&cookie), Some(&remove));
    assert_eq!(removed.status, 200, "{}", removed.body);
    assert!(removed.body.contains("Removed 1 ACL"), "{}", removed.body);
    let page = console.request(
        "GET",
        &format!("/acls?principal={}", enc(INJECTED)),
        Some(&cookie),
        None,
    );
    assert!(page.body.contains("No ACL matches this search."));
}

#[test]
fn a_principal_without_cluster_describe_sees_the_refusal_and_bad_logins_see_kafkas_message() {
    let (_server, console) = sasl_console();
    let wrong = console.login("PLAIN", "alice", "nope").unwrap_err();
    assert_eq!(wrong.status, 401);
    assert!(
        wrong.body.contains("SASL_AUTHENTICATION_FAILED"),
        "{}",
        wrong.body
    );
    assert!(!wrong.body.contains("nope"), "the password is never echoed");
    let cookie = console.login("PLAIN", "alice", "alice-secret").unwrap();
    let page = console.request("GET", "/acls", Some(&cookie), None);
    assert_eq!(page.status, 403, "{}", page.body);
    assert!(
        page.body
            .contains("User:alice lacks Describe on the cluster"),
        "{}",
        page.body
    );
    assert!(page.body.contains("CLUSTER_AUTHORIZATION_FAILED"));
}

#[test]
fn an_unreachable_cluster_has_its_own_page() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = closed.local_addr().unwrap().to_string();
    drop(closed);
    let console = Console::start(&addr, &[]);
    let response = console.login("none", "", "").unwrap_err();
    assert_eq!(response.status, 502, "{}", response.body);
    assert!(
        response.body.contains("Cluster unreachable"),
        "{}",
        response.body
    );
}

#[test]
fn topics_plan_and_apply_with_the_clis_guards() {
    let (_server, console) = sasl_console();
    let cookie = console.login("PLAIN", "admin", "admin-secret").unwrap();
    let csrf = console
        .request("GET", "/topics", Some(&cookie), None)
        .csrf();
    let bad = console.request(
        "POST",
        "/topics/create",
        Some(&cookie),
        Some(&format!("csrf={csrf}&name=orders&configs=nokey")),
    );
    assert!(
        bad.body
            .contains("Invalid topic config: all configs to be added must be in the format"),
        "{}",
        bad.body
    );
    let made = console.request(
        "POST",
        "/topics/create",
        Some(&cookie),
        Some(&format!(
            "csrf={csrf}&name=orders&partitions=3&replication_factor=1"
        )),
    );
    assert_eq!(made.status, 200, "{}", made.body);
    let topic = console.request("GET", "/topic/orders", Some(&cookie), None);
    assert!(topic.body.contains("Partitions (3)"), "{}", topic.body);
    let dup = console.request(
        "POST",
        "/topics/create",
        Some(&cookie),
        Some(&format!("csrf={csrf}&name=orders")),
    );
    assert!(dup.body.contains("TOPIC_ALREADY_EXISTS"), "{}", dup.body);

    let doc = "version: 1\nscope:\n  principals: [\"User:bob\"]\nacls:\n  - principal: User:bob\n    allow:\n      - topic: orders\n        operations: [Read]\n";
    let planned = console.request(
        "POST",
        "/plan",
        Some(&cookie),
        Some(&format!("csrf={csrf}&document={}", enc(doc))),
    );
    assert_eq!(planned.status, 200, "{}", planned.body);
    assert!(
        planned.body.contains("Plan: 1 to add, 0 to remove"),
        "{}",
        planned.body
    );
    let fp_marker = "name=\"fingerprint\" value=\"";
    let at = planned.body.find(fp_marker).unwrap() + fp_marker.len();
    let fingerprint = &planned.body[at..at + planned.body[at..].find('"').unwrap()];
    let apply = |confirm: &str, fp: &str| {
        console.request(
            "POST",
            "/apply",
            Some(&cookie),
            Some(&format!(
                "csrf={csrf}&document={}&fingerprint={fp}&max_removals=100&confirm={confirm}",
                enc(doc)
            )),
        )
    };
    assert!(apply("no", fingerprint)
        .body
        .contains("only 'yes' is accepted"));
    assert!(apply("yes", "stale")
        .body
        .contains("changed within the plan's scope"));
    let done = apply("yes", fingerprint);
    assert!(
        done.body.contains("Apply complete: 1 added, 0 removed."),
        "{}",
        done.body
    );
    let again = console.request(
        "POST",
        "/plan",
        Some(&cookie),
        Some(&format!("csrf={csrf}&document={}", enc(doc))),
    );
    assert!(again.body.contains("No changes"), "{}", again.body);
}

/// A self-signed certificate for 127.0.0.1: (key and chain PEM, certificate DER).
fn self_signed() -> (String, Vec<u8>) {
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params
        .subject_alt_names
        .push(rcgen::SanType::IpAddress("127.0.0.1".parse().unwrap()));
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    (
        format!("{}{}", key.serialize_pem(), cert.pem()),
        cert.der().to_vec(),
    )
}

#[test]
fn over_tls_the_console_serves_https_and_cookies_are_secure() {
    use std::io::{Read, Write};
    let server = TestServer::plaintext();
    let (pem, der) = self_signed();
    let pem_path = server.file("console.pem", &pem);
    let console = Console::start(&server.addr, &["--ssl-keystore-location", &pem_path]);
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(rustls::pki_types::CertificateDer::from(der))
        .unwrap();
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let config = std::sync::Arc::new(config);
    let tls_request = |request: String| -> String {
        let conn = rustls::ClientConnection::new(config.clone(), name.clone()).unwrap();
        let tcp = std::net::TcpStream::connect(&console.addr).unwrap();
        tcp.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let mut tls = rustls::StreamOwned::new(conn, tcp);
        tls.write_all(request.as_bytes()).unwrap();
        let mut raw = Vec::new();
        let _ = tls.read_to_end(&mut raw);
        String::from_utf8_lossy(&raw).into_owned()
    };
    // The login page first, for its form token and cookie, as a browser would.
    let form =
        tls_request("GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".into());
    let login_cookie = form
        .lines()
        .find(|l| {
            l.to_ascii_lowercase()
                .starts_with("set-cookie: kacl_login=")
        })
        .and_then(|l| l.split_once(": "))
        .map(|(_, v)| v.to_owned())
        .expect("login cookie");
    assert!(login_cookie.ends_with("; Secure"), "{login_cookie}");
    let login_cookie = login_cookie.split(';').next().unwrap().to_owned();
    let marker = "name=\"csrf\" value=\"";
    let start = form.find(marker).expect("csrf field") + marker.len();
    let token = &form[start..start + 64];
    let body = format!("mechanism=none&username=&password=&csrf={token}");
    let raw = tls_request(format!(
        "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://127.0.0.1\r\nConnection: close\r\nCookie: {login_cookie}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    let text = raw;
    assert!(text.starts_with("HTTP/1.1 303"), "{text}");
    let cookie = text
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.ends_with("; Secure"),
        "{cookie}"
    );
    // Plain HTTP on the TLS port gets nothing useful.
    let plain = console.request("GET", "/login", None, None);
    assert_ne!(plain.status, 200);
}

#[test]
fn kacl_serve_embeds_the_console_behind_kacl_console_listen() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let _server = TestServer::start(&[
        ("listeners", "PLAINTEXT://127.0.0.1:0"),
        ("super.users", "User:ANONYMOUS"),
        ("kacl.console.listen", &listen),
    ]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(&listen).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "no console on {listen}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let login = console_support::login_post(&listen, "mechanism=none&username=&password=", None);
    assert_eq!(login.status, 303, "{}", login.body);
    let cookie = login.session_cookie().unwrap();
    let page = console_support::http(&listen, "GET", "/acls", Some(&cookie), None);
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("User:ANONYMOUS"), "{}", page.body);
}
