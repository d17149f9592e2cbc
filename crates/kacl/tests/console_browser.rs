//! `kacl console` in a real headless chromium (driven over WebDriver by chromedriver),
//! against a `kacl serve` with SASL PLAIN: log in, search, add an ACL, see it, remove it,
//! explain a denial, apply a small plan, log out; a user without Cluster:Describe sees the
//! refusal page; a form whose CSRF token was removed is refused. Skipped (one line) when
//! chromium or chromedriver is missing, unless KACL_REQUIRE_EXTERNAL=1.
//!
//! With `KACL_CONSOLE_SCREENSHOTS=DIR` each page is saved there at 1280x800
//! (docs/console/*.png come from `KACL_CONSOLE_SCREENSHOTS=docs/console`).

mod cli_support;
mod console_support;

use std::time::{Duration, Instant};

use cli_support::{kacl, TestServer};
use console_support::webdriver::{browser_binaries, Browser};
use console_support::Console;

struct Shots(Option<std::path::PathBuf>);

impl Shots {
    fn take(&self, browser: &Browser, name: &str) {
        if let Some(dir) = &self.0 {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join(format!("{name}.png")), browser.screenshot()).unwrap();
        }
    }
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

fn seed(server: &TestServer) {
    let config = server.plain_config("admin", "admin-secret");
    for (principal, op, topic, pattern) in [
        ("User:orders-app", "Write", "orders", "literal"),
        ("User:orders-app", "Describe", "orders", "literal"),
        ("User:billing", "Read", "orders", "literal"),
        ("User:analytics", "Read", "events-", "prefixed"),
        ("User:analytics", "Describe", "events-", "prefixed"),
    ] {
        let run = kacl(&[
            "acls",
            "--bootstrap-server",
            &server.addr,
            "--command-config",
            &config,
            "--add",
            "--allow-principal",
            principal,
            "--operation",
            op,
            "--topic",
            topic,
            "--resource-pattern-type",
            pattern,
        ]);
        assert_eq!(run.code, 0, "{run:?}");
    }
    let run = kacl(&[
        "topics",
        "--bootstrap-server",
        &server.addr,
        "--command-config",
        &config,
        "--create",
        "--topic",
        "orders",
        "--partitions",
        "3",
        "--replication-factor",
        "1",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn an_operator_session_in_a_real_browser() {
    let Some((chromium, chromedriver)) = browser_binaries() else {
        return;
    };
    let shots = Shots(std::env::var_os("KACL_CONSOLE_SCREENSHOTS").map(Into::into));
    let server = TestServer::start(&[
        ("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
        ("super.users", "User:admin"),
        ("sasl.enabled.mechanisms", "PLAIN"),
        (
            "sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required \
             user_admin=\"admin-secret\" user_alice=\"alice-secret\" user_bob=\"bob-secret\";",
        ),
        ("kacl.metrics.listen", "127.0.0.1:0"),
    ]);
    seed(&server);
    let metrics = server
        .log()
        .lines()
        .find(|l| l.contains("serving /metrics"))
        .and_then(|l| l.split("address=").nth(1))
        .map(|a| format!("http://{}/metrics", a.trim()))
        .expect("the metrics address in the server log");
    let config = server.file("console.properties", "security.protocol=SASL_PLAINTEXT\n");
    let console = Console::start(
        &server.addr,
        &["--command-config", &config, "--metrics-url", &metrics],
    );
    let url = console.url();
    let browser = Browser::start(&chromium, &chromedriver);

    // Log in.
    browser.goto(&format!("{url}/login"));
    wait_for(&browser, "Log in with your Kafka credentials");
    browser.choose("mechanism", "PLAIN");
    browser.fill("#username", "admin");
    browser.fill("#password", "admin-secret");
    shots.take(&browser, "login");
    browser.click("form.box button[type=submit]");
    let text = wait_for(&browser, "Logged in as User:admin");
    // Resources as a person reads them; the Kafka tool's text stays the CLI's.
    assert!(
        text.contains("Topic orders") && text.contains("Topics starting with events- (prefixed)"),
        "{text}"
    );
    assert!(!text.contains("ResourcePattern("), "{text}");

    // Search.
    browser.fill("#principal", "User:analytics");
    browser.click("form.search button[type=submit]");
    let text = wait_for(&browser, "2 ACLs");
    assert!(
        text.contains("events-") && !text.contains("User:billing"),
        "{text}"
    );
    browser.goto(&format!("{url}/acls"));
    wait_for(&browser, "5 ACLs");
    shots.take(&browser, "acls");

    // Add an ACL through the form and its confirmation.
    browser.goto(&format!("{url}/acls/add"));
    browser.fill("#principal", "User:carol");
    browser.choose("resource_type", "Topic");
    browser.fill("#name", "payments");
    browser.choose("operation", "Read");
    browser.click("form.box button[type=submit]");
    wait_for(&browser, "This creates exactly one ACL");
    shots.take(&browser, "acl-confirm");
    // The same form with its CSRF token removed is refused.
    browser
        .script("document.querySelector('form[action=\"/acls/add\"] input[name=csrf]').remove()");
    browser.click("form[action=\"/acls/add\"] button[type=submit]");
    wait_for(&browser, "did not carry the page's CSRF token");
    browser.goto(&format!("{url}/acls?principal=User%3Acarol"));
    wait_for(&browser, "No ACL matches this search.");
    browser.goto(&format!(
        "{url}/acls/add/confirm?principal=User%3Acarol&resource_type=Topic&name=payments&pattern_type=literal&operation=Read&permission=Allow&host=*"
    ));
    browser.click("form[action=\"/acls/add\"] button[type=submit]");
    wait_for(&browser, "ACL created");
    browser.click("main a[href^=\"/acls?\"]");
    let text = wait_for(&browser, "1 ACLs");
    assert!(
        text.contains("User:carol") && text.contains("payments"),
        "{text}"
    );

    // Remove it.
    browser.click("a[aria-label^=\"Remove\"]");
    wait_for(&browser, "This deletes exactly this one ACL");
    browser.click("button.danger");
    wait_for(&browser, "Removed 1 ACL");
    browser.goto(&format!("{url}/acls?principal=User%3Acarol"));
    wait_for(&browser, "No ACL matches this search.");

    // Explain a denial.
    browser.goto(&format!("{url}/explain"));
    browser.fill("#principal", "User:billing");
    browser.choose("operation", "Write");
    browser.choose("resource_type", "Topic");
    browser.fill("#name", "orders");
    browser.click("form.search button[type=submit]");
    let text = wait_for(&browser, "DENIED");
    assert!(
        text.contains("none matches this principal, host and operation"),
        "{text}"
    );
    assert!(text.contains("--allow-principal User:billing"), "{text}");
    shots.take(&browser, "explain");
    browser.goto(&format!(
        "{url}/who-can?operation=Read&resource_type=Topic&name=orders"
    ));
    wait_for(&browser, "User:billing");
    shots.take(&browser, "who-can");

    // Apply a small plan.
    browser.goto(&format!("{url}/plan"));
    let doc = "version: 1\nscope:\n  principals: [\"User:billing\"]\nacls:\n  - principal: User:billing\n    allow:\n      - topic: orders\n        operations: [Read, Describe]\n";
    browser.fill("#document", doc);
    browser.click("form[action=\"/plan\"] button[type=submit]");
    wait_for(&browser, "Plan: 1 to add, 0 to remove, 1 unchanged");
    shots.take(&browser, "plan");
    browser.fill("#confirm", "yes");
    browser.click("form[action=\"/apply\"] button[type=submit]");
    wait_for(&browser, "Apply complete: 1 added, 0 removed.");

    // Topics and the cluster.
    browser.goto(&format!("{url}/topics"));
    wait_for(&browser, "orders");
    shots.take(&browser, "topics");
    browser.goto(&format!("{url}/topic/orders"));
    wait_for(&browser, "Partitions (3)");
    shots.take(&browser, "topic");
    if shots.0.is_some() {
        std::thread::sleep(Duration::from_secs(16)); // three samples for the chart
    }
    browser.goto(&format!("{url}/cluster"));
    wait_for(&browser, "Controller");
    shots.take(&browser, "cluster");

    // Log out.
    browser.click("form.logout button");
    wait_for(&browser, "Log in with your Kafka credentials");
    browser.goto(&format!("{url}/acls"));
    wait_for(&browser, "Log in with your Kafka credentials");

    // A user without Cluster:Describe sees the refusal page.
    browser.choose("mechanism", "PLAIN");
    browser.fill("#username", "alice");
    browser.fill("#password", "alice-secret");
    browser.click("form.box button[type=submit]");
    let text = wait_for(&browser, "Not authorized on the cluster");
    assert!(
        text.contains("User:alice lacks Describe on the cluster"),
        "{text}"
    );
    shots.take(&browser, "refusal");

    // Bob may read ACLs (Describe on the cluster) and nothing else: each change he tries is
    // refused naming the permission that change needs and the grant that gives it.
    let run = kacl(&[
        "acls",
        "--bootstrap-server",
        &server.addr,
        "--command-config",
        &server.plain_config("admin", "admin-secret"),
        "--add",
        "--allow-principal",
        "User:bob",
        "--operation",
        "Describe",
        "--cluster",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    browser.click("form.logout button");
    wait_for(&browser, "Log in with your Kafka credentials");
    browser.choose("mechanism", "PLAIN");
    browser.fill("#username", "bob");
    browser.fill("#password", "bob-secret");
    browser.click("form.box button[type=submit]");
    wait_for(&browser, "Logged in as User:bob");
    let alter = "User:bob lacks Alter on the cluster";
    let grant = "--allow-principal User:bob --operation Alter --cluster";
    browser.goto(&format!(
        "{url}/acls/add/confirm?principal=User%3Acarol&resource_type=Topic&name=payments&pattern_type=literal&operation=Read&permission=Allow&host=*"
    ));
    browser.click("form[action=\"/acls/add\"] button[type=submit]");
    let text = wait_for(&browser, "Not authorized on the cluster");
    assert!(text.contains(alter) && text.contains(grant), "add: {text}");
    assert!(
        text.contains("creating and deleting ACLs needs Alter"),
        "{text}"
    );
    assert!(!text.contains("lacks Describe"), "add: {text}");
    browser.goto(&format!(
        "{url}/acls/remove?principal=User%3Abilling&resource_type=Topic&name=orders&pattern_type=literal&operation=Read&permission=Allow&host=*"
    ));
    browser.click("button.danger");
    let text = wait_for(&browser, "Not authorized on the cluster");
    assert!(
        text.contains(alter) && text.contains(grant),
        "remove: {text}"
    );
    browser.goto(&format!("{url}/plan"));
    browser.fill(
        "#document",
        &doc.replace("Read, Describe", "Read, Describe, Write"),
    );
    browser.click("form[action=\"/plan\"] button[type=submit]");
    wait_for(&browser, "Plan: 1 to add, 0 to remove, 2 unchanged");
    browser.fill("#confirm", "yes");
    browser.click("form[action=\"/apply\"] button[type=submit]");
    let text = wait_for(&browser, "Not authorized on the cluster");
    assert!(
        text.contains(alter) && text.contains(grant),
        "apply: {text}"
    );
    shots.take(&browser, "refusal-alter");
    browser.goto(&format!("{url}/topics"));
    wait_for(&browser, "Create topic");
    browser.fill(
        "form[action=\"/topics/create\"] input[name=name]",
        "bobs-topic",
    );
    browser.click("form[action=\"/topics/create\"] button[type=submit]");
    let text = wait_for(&browser, "Not authorized");
    assert!(
        text.contains("User:bob lacks Create on topic bobs-topic")
            && text.contains("--allow-principal User:bob --operation Create --topic bobs-topic"),
        "create topic: {text}"
    );
}

/// Every page under its own Content-Security-Policy, in a real browser: no violation is
/// reported on any page (the streamed ACL page's two closing style rules are allowed by hash:
/// its "reading" line is hidden once the page is complete), and hostile names from the cluster
/// stay text: no script of theirs runs, no element of theirs exists.
#[test]
fn every_page_works_under_its_csp_and_hostile_names_stay_text() {
    let Some((chromium, chromedriver)) = browser_binaries() else {
        return;
    };
    let server = TestServer::plaintext();
    for (principal, topic) in [
        ("User:<script>window.__pwned=1</script>", "orders"),
        ("User:\"><img src=x onerror=window.__pwned=2>", "orders"),
        (
            "User:alice\u{202e}nimda",
            "t\"><img src=x onerror=window.__pwned=3>",
        ),
    ] {
        let run = kacl(&[
            "acls",
            "--bootstrap-server",
            &server.addr,
            "--add",
            "--allow-principal",
            principal,
            "--operation",
            "Read",
            "--topic",
            topic,
        ]);
        assert_eq!(run.code, 0, "{run:?}");
    }
    let console = Console::start(&server.addr, &[]);
    let url = console.url();
    let browser = Browser::start(&chromium, &chromedriver);
    browser.goto(&format!("{url}/login"));
    wait_for(&browser, "Log in with your Kafka credentials");
    browser.choose("mechanism", "none");
    browser.click("form.box button[type=submit]");
    wait_for(&browser, "Logged in as User:ANONYMOUS");
    let streamed = wait_for(&browser, "First row after");
    assert!(streamed.contains("User:alice\\u{202e}nimda"), "{streamed}");
    assert!(
        streamed.contains("<script>window.__pwned=1</script>"),
        "{streamed}"
    );
    let loading = browser.eval(
        "var e = document.getElementById('acl-loading'); return e ? getComputedStyle(e).display : 'absent'",
    );
    assert_eq!(
        loading, "none",
        "the streamed page's closing style was blocked"
    );
    let mut seen = Vec::new();
    for path in [
        "/acls?sort=principal",
        "/explain?principal=User%3Abob&operation=Read&resource_type=Topic&name=orders",
        "/who-can?operation=Read&resource_type=Topic&name=orders",
        "/effective?principal=User%3Aalice%E2%80%AEnimda",
        "/topics",
        "/cluster",
        "/plan",
        "/acls/add",
        "/no/such/page",
    ] {
        browser.goto(&format!("{url}{path}"));
        wait_for(&browser, "kacl console");
        let pwned = browser.eval("return window.__pwned === undefined ? null : window.__pwned");
        assert!(
            pwned.is_null(),
            "{path}: a hostile name ran a script ({pwned})"
        );
        let imgs = browser.eval("return document.querySelectorAll('img').length");
        assert_eq!(imgs, 0, "{path}: a hostile name made an element");
        seen.extend(browser.console_log());
    }
    // The plan page's script ran (it shows the file picker): scripts from 'self' are allowed.
    browser.goto(&format!("{url}/plan"));
    wait_for(&browser, "Desired-state file");
    let picker = browser.eval("return document.getElementById('plan-file').hidden");
    assert_eq!(picker, false, "console.js did not run");
    seen.extend(browser.console_log());
    let violations: Vec<&String> = seen
        .iter()
        .filter(|m| m.contains("Content Security Policy") || m.contains("Refused to"))
        .collect();
    assert!(violations.is_empty(), "CSP violations: {violations:#?}");
    // No page logs a browser error (the missing /favicon.ico did on every one); only the
    // page that does not exist answers 404, and says so.
    let severe: Vec<&String> = seen
        .iter()
        .filter(|m| m.starts_with("SEVERE") && !m.contains("/no/such/page"))
        .collect();
    assert!(severe.is_empty(), "browser errors: {severe:#?}");
}
