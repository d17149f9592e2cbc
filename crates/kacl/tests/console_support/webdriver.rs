//! A tiny WebDriver client (W3C JSON over HTTP) for chromedriver driving headless chromium:
//! just the commands the browser tests use.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The W3C key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// `KACL_<NAME>` if set, else the first of `candidates` on disk or on PATH.
fn find_binary(env: &str, candidates: &[&str]) -> Option<String> {
    if let Ok(path) = std::env::var(env) {
        return std::path::Path::new(&path).exists().then_some(path);
    }
    let path = std::env::var("PATH").unwrap_or_default();
    for c in candidates {
        if c.starts_with('/') && std::path::Path::new(c).exists() {
            return Some((*c).to_owned());
        }
        for dir in path.split(':') {
            let full = std::path::Path::new(dir).join(c);
            if full.exists() {
                return Some(full.display().to_string());
            }
        }
    }
    None
}

/// chromium and chromedriver, or `None` after printing the skip line (a failure instead
/// when `KACL_REQUIRE_EXTERNAL=1`, as `.ci/run` sets).
pub(crate) fn browser_binaries() -> Option<(String, String)> {
    let chromium = find_binary(
        "KACL_CHROMIUM",
        &["/usr/bin/chromium", "chromium", "chromium-browser"],
    );
    let driver = find_binary(
        "KACL_CHROMEDRIVER",
        &["/usr/bin/chromedriver", "chromedriver"],
    );
    match (chromium, driver) {
        (Some(c), Some(d)) => Some((c, d)),
        (c, _) => {
            let missing = if c.is_none() {
                "chromium"
            } else {
                "chromedriver"
            };
            if std::env::var("KACL_REQUIRE_EXTERNAL").as_deref() == Ok("1") {
                panic!("{missing} not installed (see .ci/run) and KACL_REQUIRE_EXTERNAL=1");
            }
            println!("skipped: {missing} not installed (see .ci/run)");
            None
        }
    }
}

/// A chromedriver process and one browser session, both ended on drop.
pub(crate) struct Browser {
    driver: Child,
    addr: String,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts chromedriver on a free port and a headless chromium at 1280x800.
    pub(crate) fn start(chromium: &str, chromedriver: &str) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn chromedriver");
        let addr = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().unwrap();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {"binary": chromium, "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1280,800", "--hide-scrollbars",
                format!("--user-data-dir={}", profile.path().display()),
            ]}
        }}});
        let mut browser = Browser {
            driver,
            addr,
            session: String::new(),
            _profile: profile,
        };
        let created = browser.call("POST", "/session", Some(caps));
        browser.session = created["value"]["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        browser
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.try_call(method, path, body)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn try_call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let body = body.map(|b| b.to_string()).unwrap_or_else(|| {
            if method == "POST" {
                "{}".into()
            } else {
                String::new()
            }
        });
        let mut stream = TcpStream::connect(&self.addr).expect("connect to chromedriver");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let body = read_response(&mut stream);
        let value: Value =
            serde_json::from_str(&body).map_err(|e| format!("{path}: {e}: {body}"))?;
        if value["value"]["error"].is_string() {
            return Err(format!(
                "webdriver {method} {path}: {}",
                value["value"]["message"]
            ));
        }
        Ok(value)
    }

    fn path(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    /// Opens `url`.
    pub(crate) fn goto(&self, url: &str) {
        self.call("POST", &self.path("/url"), Some(json!({"url": url})));
    }

    /// The element for a CSS selector.
    pub(crate) fn find(&self, css: &str) -> String {
        let v = self.call(
            "POST",
            &self.path("/element"),
            Some(json!({"using": "css selector", "value": css})),
        );
        v["value"][ELEMENT].as_str().expect("element id").to_owned()
    }

    /// Clicks the element for `css`.
    pub(crate) fn click(&self, css: &str) {
        let id = self.find(css);
        self.call("POST", &self.path(&format!("/element/{id}/click")), None);
    }

    /// Types `text` into the element for `css` (after clearing it).
    pub(crate) fn fill(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.call("POST", &self.path(&format!("/element/{id}/clear")), None);
        self.call(
            "POST",
            &self.path(&format!("/element/{id}/value")),
            Some(json!({"text": text})),
        );
    }

    /// Chooses the option `value` of the select `name`.
    pub(crate) fn choose(&self, name: &str, value: &str) {
        self.click(&format!("select[name={name}] option[value=\"{value}\"]"));
    }

    /// The visible text of the page (empty while a page is loading).
    pub(crate) fn text(&self) -> String {
        let script =
            json!({"script": "return document.body ? document.body.innerText : ''", "args": []});
        match self.try_call("POST", &self.path("/execute/sync"), Some(script)) {
            Ok(v) => v["value"].as_str().unwrap_or_default().to_owned(),
            Err(_) => String::new(),
        }
    }

    /// Runs a script in the page.
    pub(crate) fn script(&self, script: &str) {
        self.call(
            "POST",
            &self.path("/execute/sync"),
            Some(json!({"script": script, "args": []})),
        );
    }

    /// The value a script (`return ...`) gives.
    pub(crate) fn eval(&self, script: &str) -> Value {
        self.call(
            "POST",
            &self.path("/execute/sync"),
            Some(json!({"script": script, "args": []})),
        )["value"]
            .take()
    }

    /// The browser console's messages since the last call (chromedriver's log; CSP
    /// violations are reported there).
    pub(crate) fn console_log(&self) -> Vec<String> {
        let v = self.call(
            "POST",
            &self.path("/se/log"),
            Some(json!({"type": "browser"})),
        );
        v["value"]
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .map(|e| {
                        format!(
                            "{}: {}",
                            e["level"].as_str().unwrap_or_default(),
                            e["message"].as_str().unwrap_or_default()
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A PNG of the viewport.
    pub(crate) fn screenshot(&self) -> Vec<u8> {
        use base64::Engine as _;
        let v = self.call("GET", &self.path("/screenshot"), None);
        base64::engine::general_purpose::STANDARD
            .decode(v["value"].as_str().unwrap_or_default())
            .expect("base64 png")
    }
}

/// Reads one response by its Content-Length (chromedriver may keep the connection open).
fn read_response(stream: &mut TcpStream) -> String {
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let n = stream.read(&mut buf).expect("read from chromedriver");
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&raw);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let lower = head.to_ascii_lowercase();
            if lower.contains("transfer-encoding: chunked") {
                if body.ends_with("0\r\n\r\n") {
                    return dechunk(body);
                }
                continue;
            }
            let length = lower
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            match length {
                Some(len) if body.len() >= len => return body[..len].to_owned(),
                _ => {}
            }
        }
    }
    let text = String::from_utf8_lossy(&raw).into_owned();
    text.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default()
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let path = self.path("");
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.call("DELETE", &path, None)
            }));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
