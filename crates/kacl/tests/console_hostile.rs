//! `kacl console` against hostile visitors (issue 27), over plain HTTP against a real `kacl
//! serve`: cross-site requests, hostile names from the cluster, password guessing, clients
//! that never finish a request head, expensive pastes, path escapes, sessions after logout
//! and expiry, the password's absence from pages, cookies and log lines. The browser's side
//! (each page under its Content-Security-Policy) is in console_browser.rs.

mod cli_support;
mod console_support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cli_support::{kacl, TestServer};
use console_support::{enc, http_with, Console};

fn sasl_console() -> (TestServer, Console) {
    let server = TestServer::sasl_plain();
    let config = server.file("console.properties", "security.protocol=SASL_PLAINTEXT\n");
    let console = Console::start(&server.addr, &["--command-config", &config]);
    (server, console)
}

/// A login post with its form's token and cookie, and exactly `headers` (no Origin unless
/// given).
fn login_with(
    console: &Console,
    user: &str,
    password: &str,
    headers: &[(&str, &str)],
) -> console_support::Response {
    let page = console.request("GET", "/login", None, None);
    let cookie = page.login_cookie().expect("login cookie");
    let form = format!(
        "mechanism=PLAIN&username={}&password={}&csrf={}",
        enc(user),
        enc(password),
        page.csrf()
    );
    http_with(
        &console.addr,
        "POST",
        "/login",
        Some(&cookie),
        Some(&form),
        headers,
    )
}

/// A "cluster" that counts the connections made to it and closes each at once.
fn counting_cluster() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            seen.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    (addr, count)
}

#[test]
fn cross_site_requests_are_refused_and_send_nothing_to_the_cluster() {
    let (cluster, connections) = counting_cluster();
    let console = Console::start(&cluster, &[]);
    let evil = [
        &[("Origin", "http://evil.example")][..],
        &[("Origin", "null")],
        &[("Sec-Fetch-Site", "cross-site")],
        &[
            ("Sec-Fetch-Site", "same-site"),
            ("Origin", "http://evil.example"),
        ],
        &[],
    ];
    for headers in evil {
        let refused = login_with(&console, "admin", "admin-secret", headers);
        assert_eq!(refused.status, 403, "{headers:?}: {}", refused.body);
        assert!(refused.session_cookie().is_none());
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "a refused login reached the cluster"
    );
    // The same login from the console's own page does reach it (the counter counts).
    let own = format!("http://{}", console.addr);
    for headers in [
        &[("Origin", own.as_str())][..],
        &[("Sec-Fetch-Site", "same-origin")],
    ] {
        let tried = login_with(&console, "admin", "admin-secret", headers);
        assert_ne!(tried.status, 403, "{}", tried.body);
    }
    assert!(connections.load(Ordering::SeqCst) > 0);

    // A logged-in session: a change with its valid token but from another site is refused.
    let (_server, console) = sasl_console();
    let cookie = console.login("PLAIN", "admin", "admin-secret").unwrap();
    let token = console.request("GET", "/acls", Some(&cookie), None).csrf();
    let form = format!(
        "resource_type=Topic&name=orders&pattern_type=literal&principal=User%3Amallory&host=*&operation=Read&permission=Allow&csrf={token}"
    );
    for headers in [
        &[("Origin", "http://evil.example")][..],
        &[("Sec-Fetch-Site", "cross-site")],
        &[],
    ] {
        let refused = http_with(
            &console.addr,
            "POST",
            "/acls/add",
            Some(&cookie),
            Some(&form),
            headers,
        );
        assert_eq!(refused.status, 403, "{headers:?}");
        let refused = http_with(
            &console.addr,
            "POST",
            "/logout",
            Some(&cookie),
            Some(&format!("csrf={token}")),
            headers,
        );
        assert_eq!(refused.status, 403, "{headers:?}");
    }
    let page = console.request("GET", "/acls?principal=User%3Amallory", Some(&cookie), None);
    assert!(
        page.body.contains("No ACL matches this search."),
        "{}",
        page.body
    );
    let own = format!("http://{}", console.addr);
    let added = http_with(
        &console.addr,
        "POST",
        "/acls/add",
        Some(&cookie),
        Some(&form),
        &[("Origin", &own)],
    );
    assert_eq!(added.status, 200, "{}", added.body);
}

const HOSTILE: [&str; 4] = [
    "User:<script>window.__pwned=1</script>",
    "User:\"><img src=x onerror=window.__pwned=2>",
    "User:javascript:window.__pwned=3",
    "User:alice\u{202e}nimda\u{7}",
];

fn add_acl(server: &TestServer, principal: &str, host: &str, topic: &str) {
    let config = server.plain_config("admin", "admin-secret");
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--command-config",
        &config,
        "--add",
        "--allow-principal",
        principal,
        "--allow-host",
        host,
        "--operation",
        "Read",
        "--topic",
        topic,
    ]);
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn every_answer_has_the_headers_and_every_cluster_string_is_escaped() {
    let (server, console) = sasl_console();
    for (i, p) in HOSTILE.iter().enumerate() {
        add_acl(&server, p, "*", &format!("t{i}-\"><b>x"));
    }
    add_acl(&server, "User:bob", "10.0.0.1\u{2066}", "bidi\u{202e}topic");
    let cookie = console.login("PLAIN", "admin", "admin-secret").unwrap();
    let q = |p: &str| enc(p);
    let mut paths = vec![
        "/acls".to_owned(),
        "/acls?refresh=1".to_owned(),
        "/acls?sort=principal".to_owned(),
        format!(
            "/who-can?operation=Read&resource_type=Topic&name={}",
            q("bidi\u{202e}topic")
        ),
        "/topics".to_owned(),
        "/plan".to_owned(),
        "/cluster".to_owned(),
    ];
    for p in HOSTILE {
        paths.push(format!("/acls?principal={}", q(p)));
        paths.push(format!("/effective?principal={}", q(p)));
        paths.push(format!(
            "/explain?principal={}&operation=Read&resource_type=Topic&name=t0&host=*",
            q(p)
        ));
        paths.push(format!(
            "/acls/remove?resource_type=Topic&name=t0&pattern_type=literal&principal={}&host=*&operation=Read&permission=Allow",
            q(p)
        ));
    }
    for path in &paths {
        let page = console.request("GET", path, Some(&cookie), None);
        assert_eq!(page.status, 200, "{path}: {}", page.body);
        check_headers(path, &page);
        let body = &page.body;
        assert!(!body.contains("<script>window"), "{path}: raw script");
        assert!(!body.contains("<img src=x"), "{path}: raw img");
        assert!(!body.contains("\"><b>"), "{path}: raw attribute break");
        assert!(!body.contains("href=\"javascript:"), "{path}");
        // Bidi and control characters are shown, not obeyed, wherever they are text.
        let text: String = strip_tags(body);
        for c in ['\u{202e}', '\u{2066}', '\u{7}'] {
            assert!(
                !text.contains(c),
                "{path}: a raw {:?} in the page's text",
                c
            );
        }
    }
    let all = console.request("GET", "/acls?sort=principal", Some(&cookie), None);
    assert!(
        all.body.contains("User:alice\\u{202e}nimda\\u{7}"),
        "{}",
        all.body
    );
    assert!(all.body.contains("10.0.0.1\\u{2066}"), "{}", all.body);
    // The remove form posts the exact name back: removing it works.
    let remove = format!(
        "resource_type=Topic&name={}&pattern_type=literal&principal={}&host=*&operation=Read&permission=Allow&csrf={}",
        q("t3-\"><b>x"),
        q(HOSTILE[3]),
        all.csrf()
    );
    let removed = console.request("POST", "/acls/remove", Some(&cookie), Some(&remove));
    assert!(removed.body.contains("Removed 1 ACL"), "{}", removed.body);

    // Every other kind of answer carries the headers too.
    for (method, path, cookie, form) in [
        ("GET", "/login", None, None),
        ("GET", "/", None, None),
        ("GET", "/acls", None, None),
        ("GET", "/no/such/page", None, None),
        ("GET", "/static/console.css", None, None),
        ("GET", "/static/console.js", None, None),
        ("GET", "/cluster/chart.svg", Some(cookie.as_str()), None),
        ("GET", "/acls/export", Some(cookie.as_str()), None),
        (
            "POST",
            "/acls/add",
            Some(cookie.as_str()),
            Some("csrf=wrong"),
        ),
    ] {
        let answer = console.request(method, path, cookie, form);
        check_headers(path, &answer);
    }
    let cross = http_with(
        &console.addr,
        "POST",
        "/logout",
        Some(&cookie),
        Some(""),
        &[],
    );
    check_headers("cross-site logout", &cross);
}

fn check_headers(path: &str, r: &console_support::Response) {
    let csp = r
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{path}: no CSP"));
    assert!(
        csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"),
        "{path}: {csp}"
    );
    assert!(!csp.contains("unsafe-inline"), "{path}: {csp}");
    assert_eq!(
        r.header("x-content-type-options"),
        Some("nosniff"),
        "{path}"
    );
    assert_eq!(r.header("referrer-policy"), Some("same-origin"), "{path}");
    assert_eq!(r.header("x-frame-options"), Some("DENY"), "{path}");
}

/// The text of an HTML page (tags and `<textarea>`s removed; entities left as they are).
fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    let mut in_textarea = false;
    let mut rest = html;
    while let Some(c) = rest.chars().next() {
        if c == '<' {
            in_tag = true;
            if rest.starts_with("<textarea") {
                in_textarea = true;
            } else if rest.starts_with("</textarea") {
                in_textarea = false;
            }
        } else if c == '>' {
            in_tag = false;
        } else if !in_tag && !in_textarea {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[test]
fn password_guessing_waits_longer_and_longer_per_user_and_per_source() {
    let (_server, console) = sasl_console();
    for _ in 0..3 {
        let wrong = console.login("PLAIN", "admin", "guess").unwrap_err();
        assert_eq!(wrong.status, 401, "{}", wrong.body);
    }
    // The fourth attempt within a second is refused before the cluster is asked, the right
    // password included.
    let waiting = console.login("PLAIN", "admin", "admin-secret").unwrap_err();
    assert_eq!(waiting.status, 429, "{}", waiting.body);
    let retry: u64 = waiting.header("retry-after").unwrap().parse().unwrap();
    assert_eq!(retry, 1);
    // Another user is not held up by admin's failures.
    assert_eq!(
        console.login("PLAIN", "alice", "guess").unwrap_err().status,
        401
    );
    std::thread::sleep(Duration::from_millis(1_100));
    // One more failure doubles the wait.
    assert_eq!(
        console.login("PLAIN", "admin", "guess").unwrap_err().status,
        401
    );
    let waiting = console.login("PLAIN", "admin", "admin-secret").unwrap_err();
    assert_eq!(waiting.status, 429);
    assert_eq!(waiting.header("retry-after"), Some("2"));
    std::thread::sleep(Duration::from_millis(2_100));
    console
        .login("PLAIN", "admin", "admin-secret")
        .expect("the right password after the wait");

    // Per source: ten failures under ten names make the eleventh name wait too.
    let (_server, console) = sasl_console();
    for i in 0..10 {
        assert_eq!(
            console
                .login("PLAIN", &format!("nobody{i}"), "x")
                .unwrap_err()
                .status,
            401
        );
    }
    let waiting = console.login("PLAIN", "admin", "admin-secret").unwrap_err();
    assert_eq!(waiting.status, 429, "{}", waiting.body);
}

/// Open file descriptors of a process that are sockets.
fn sockets(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .filter(|l| l.to_string_lossy().starts_with("socket:"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn slow_clients_are_cut_off_and_a_fresh_visitor_is_served_meanwhile() {
    let server = TestServer::plaintext();
    // 300 descriptors: hundreds of slow clients would exhaust them.
    let console = Console::start_as(
        &["prlimit", "--nofile=300:300", "--"],
        &server.addr,
        &[],
        Stdio::null(),
    );
    let started = Instant::now();
    let mut slow = Vec::new();
    for _ in 0..400 {
        let mut s = TcpStream::connect(&console.addr).expect("connect");
        s.write_all(b"GET /login HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            .unwrap();
        slow.push(s);
    }
    // A fresh visitor is served while they hang on.
    let asked = Instant::now();
    let page = console.request("GET", "/login", None, None);
    assert_eq!(page.status, 200);
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "{:?}",
        asked.elapsed()
    );
    assert!(sockets(console.pid()) < 300);
    // Every slow one is closed, within the head timeout (10 s) and some slack.
    for mut s in slow {
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut buf = [0u8; 1024];
        loop {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
                Err(e) => panic!("a slow client was not closed: {e}"),
            }
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(16),
        "{:?}",
        started.elapsed()
    );
}

/// A desired-state file of `n` ACLs (about 60 bytes each).
fn big_file(n: usize) -> String {
    let mut doc = String::from("version: 1\nscope:\n  principals: [\"User:paste\"]\nacls:\n  - principal: User:paste\n    allow:\n");
    for i in 0..n {
        doc.push_str(&format!(
            "      - topic: paste-topic-{i:07}\n        operations: [Read]\n"
        ));
    }
    doc
}

fn peak_rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn pastes_are_parsed_off_the_runtime_and_bounded() {
    let (_server, console) = sasl_console();
    let cookie = console.login("PLAIN", "admin", "admin-secret").unwrap();
    let token = console.request("GET", "/plan", Some(&cookie), None).csrf();
    let before = peak_rss_kb(console.pid());
    // An alias bomb and a deep nest: refused quickly, with the reason, the process unchanged.
    let bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n";
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    for (paste, says) in [(bomb.to_owned(), "aliases"), (deep, "nested deeper")] {
        let form = format!("document={}&csrf={token}", enc(&paste));
        let t = Instant::now();
        let refused = console.request("POST", "/plan", Some(&cookie), Some(&form));
        assert_eq!(refused.status, 400, "{}", refused.body);
        assert!(refused.body.contains(says), "{}", refused.body);
        assert!(t.elapsed() < Duration::from_secs(5));
    }
    // Too large a form: refused before it is read whole.
    let huge = format!("document={}&csrf={token}", "x".repeat(3 << 20));
    let refused = console.request("POST", "/plan", Some(&cookie), Some(&huge));
    assert_eq!(refused.status, 413);

    // Four large pastes at once, while another visitor loads the login page again and again.
    let file = big_file(15_000);
    let form = Arc::new(format!("document={}&csrf={token}", enc(&file)));
    let pastes: Vec<_> = (0..4)
        .map(|_| {
            let (addr, cookie, form) = (console.addr.clone(), cookie.clone(), form.clone());
            std::thread::spawn(move || {
                let t = Instant::now();
                let r = console_support::http(&addr, "POST", "/plan", Some(&cookie), Some(&form));
                assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(2000)]);
                assert!(r.body.contains("Plan: 15,000 to add"));
                t.elapsed()
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let mut slowest_visit = Duration::ZERO;
    while !pastes.iter().all(|p| p.is_finished()) {
        let t = Instant::now();
        assert_eq!(console.request("GET", "/login", None, None).status, 200);
        slowest_visit = slowest_visit.max(t.elapsed());
        std::thread::sleep(Duration::from_millis(50));
    }
    let slowest_paste = pastes.into_iter().map(|p| p.join().unwrap()).max().unwrap();
    println!("slowest paste {slowest_paste:?}, slowest other visit {slowest_visit:?}");
    assert!(
        slowest_visit * 4 < slowest_paste,
        "another visitor waited {slowest_visit:?} while pastes took {slowest_paste:?}"
    );
    let grown = peak_rss_kb(console.pid()).saturating_sub(before);
    assert!(grown < 300 * 1024, "the console grew by {grown} kB");
}

#[test]
fn static_paths_stay_in_their_folder() {
    let server = TestServer::plaintext();
    let console = Console::start(&server.addr, &[]);
    for path in [
        "/static/../Cargo.toml",
        "/static/%2e%2e/%2e%2e/Cargo.toml",
        "/static/..%2f..%2fCargo.toml",
        "/static/console.css/../../../../etc/passwd",
        "/static//etc/passwd",
        "/static/%2fetc%2fpasswd",
        "/static/console.css%00.js",
        "/../../etc/passwd",
    ] {
        let r = console.request("GET", path, None, None);
        assert!(
            r.status == 404 || r.status == 400 || r.status == 303,
            "{path}: {}",
            r.status
        );
        assert!(
            !r.body.contains("[package]") && !r.body.contains("root:"),
            "{path}"
        );
    }
    assert_eq!(
        console
            .request("GET", "/static/console.css", None, None)
            .status,
        200
    );
}

#[test]
fn sessions_end_server_side_at_logout_and_idle_expiry() {
    let (server, console) = {
        let server = TestServer::sasl_plain();
        let config = server.file("console.properties", "security.protocol=SASL_PLAINTEXT\n");
        let console = Console::start(
            &server.addr,
            &["--command-config", &config, "--idle-timeout", "2"],
        );
        (server, console)
    };
    let _ = &server;
    let idle = sockets(console.pid());
    let cookie = console.login("PLAIN", "admin", "admin-secret").unwrap();
    let page = console.request("GET", "/acls", Some(&cookie), None);
    assert_eq!(page.status, 200);
    assert!(
        sockets(console.pid()) > idle,
        "the session holds its admin connection"
    );
    console.request(
        "POST",
        "/logout",
        Some(&cookie),
        Some(&format!("csrf={}", page.csrf())),
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while sockets(console.pid()) > idle {
        assert!(
            Instant::now() < deadline,
            "the admin connection outlived the logout"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        console.request("GET", "/acls", Some(&cookie), None).status,
        303
    );

    // Idle expiry: untouched for longer than --idle-timeout, the session and its connection go
    // by themselves (the background sweep), and the cookie is worthless.
    let cookie = console.login("PLAIN", "admin", "admin-secret").unwrap();
    assert!(sockets(console.pid()) > idle);
    let deadline = Instant::now() + Duration::from_secs(15);
    while sockets(console.pid()) > idle {
        assert!(
            Instant::now() < deadline,
            "the idle session kept its admin connection"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        console.request("GET", "/acls", Some(&cookie), None).status,
        303
    );
}

#[test]
fn the_password_is_in_no_page_cookie_or_log_line() {
    let server = TestServer::sasl_plain();
    let config = server.file("console.properties", "security.protocol=SASL_PLAINTEXT\n");
    let log = tempfile::NamedTempFile::new().unwrap();
    let console = Console::start_as(
        &["env", "RUST_LOG=debug"],
        &server.addr,
        &["--command-config", &config],
        Stdio::from(log.reopen().unwrap()),
    );
    let wrong = "Wr0ng-Pa55word-zz";
    let refused = console.login("PLAIN", "admin", wrong).unwrap_err();
    assert_eq!(refused.status, 401);
    assert!(!refused.body.contains(wrong));
    assert!(refused.headers.iter().all(|(_, v)| !v.contains(wrong)));
    let unreachable = Console::start("127.0.0.1:1", &[]);
    let failed = unreachable.login("PLAIN", "admin", wrong).unwrap_err();
    assert!(!failed.body.contains(wrong), "{}", failed.body);
    let ok = console_support::login_post(
        &console.addr,
        "mechanism=PLAIN&username=admin&password=admin-secret",
        None,
    );
    assert_eq!(ok.status, 303);
    assert!(ok.headers.iter().all(|(_, v)| !v.contains("admin-secret")));
    let cookie = ok.session_cookie().unwrap();
    for path in [
        "/acls",
        "/plan",
        "/cluster",
        "/topics",
        "/explain?principal=User%3Aadmin&operation=Read&resource_type=Topic&name=x",
    ] {
        let page = console.request("GET", path, Some(&cookie), None);
        assert!(
            !page.body.contains("admin-secret") && !page.body.contains(wrong),
            "{path}"
        );
    }
    drop(console);
    let logged = std::fs::read_to_string(log.path()).unwrap();
    assert!(logged.contains("console login failed"), "{logged}");
    assert!(
        !logged.contains(wrong) && !logged.contains("admin-secret"),
        "{logged}"
    );
}

/// The pastes: one 100 KB string named 8,000 times (132 KB that would be 800 MB of
/// strings), and 100,000 nested brackets. A user without any permission is refused before
/// the paste is read (her missing permission named); a user who may plan gets the bound that
/// the paste crossed, with its line. Neither grows the console by more than a few MB, and
/// each answer comes at once.
#[test]
fn hostile_pastes_cost_nothing_and_a_user_without_permission_is_refused_first() {
    let (_server, console) = sasl_console();
    let big = "x".repeat(100 << 10);
    let bomb = format!(
        "version: 1\nscope:\n  all: true\nacls:\n  - principal: User:a\n    hosts: [&big {big}]\n  - principal: User:b\n    hosts: [{}]\n",
        ["*big"; 8_000].join(",")
    );
    assert!(bomb.len() < 150 << 10, "{}", bomb.len());
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let before = peak_rss_kb(console.pid());
    for (user, password, status, says) in [
        (
            "alice",
            "alice-secret",
            403,
            "User:alice lacks Describe on the cluster",
        ),
        ("admin", "admin-secret", 400, ""),
    ] {
        let cookie = console.login("PLAIN", user, password).unwrap();
        let token = console.request("GET", "/plan", Some(&cookie), None).csrf();
        for (paste, bound) in [
            (&bomb, "aliases expand the file beyond its own size"),
            (&deep, "nested deeper than"),
        ] {
            for path in ["/plan", "/apply"] {
                let form = format!(
                    "document={}&csrf={token}&fingerprint=x&max_removals=100&confirm=yes",
                    enc(paste)
                );
                let t = Instant::now();
                let refused = console.request("POST", path, Some(&cookie), Some(&form));
                let took = t.elapsed();
                let expected = if path == "/apply" && status == 400 {
                    409
                } else {
                    status
                };
                assert_eq!(refused.status, expected, "{user} {path}: {}", refused.body);
                let says = if says.is_empty() { bound } else { says };
                assert!(
                    refused.body.contains(says),
                    "{user} {path}: {}",
                    refused.body
                );
                if status == 400 {
                    assert!(
                        refused.body.contains("pasted:"),
                        "the line is named: {}",
                        refused.body
                    );
                }
                assert!(took < Duration::from_secs(2), "{user} {path}: {took:?}");
            }
        }
    }
    let grown = peak_rss_kb(console.pid()).saturating_sub(before);
    assert!(grown < 64 * 1024, "the console grew by {grown} kB");
}
