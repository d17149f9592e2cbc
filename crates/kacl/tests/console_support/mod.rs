//! Shared by the console tests: a `kacl console` child process in front of a test server,
//! and a minimal HTTP/1.1 client (one request per connection, cookies by hand) so that the
//! tests see exactly the bytes the console sends.
#![allow(dead_code)]

pub(crate) mod webdriver;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::cli_support::KACL;

/// A running `kacl console`, killed on drop.
pub(crate) struct Console {
    child: Child,
    /// `127.0.0.1:PORT` of its HTTP listener.
    pub addr: String,
}

impl Console {
    /// A console for `bootstrap`; `extra` are more `kacl console` flags.
    pub(crate) fn start(bootstrap: &str, extra: &[&str]) -> Console {
        Console::start_as(&[], bootstrap, extra, Stdio::null())
    }

    /// Like [`Console::start`], run through `wrapper` (e.g. `prlimit --nofile=300:300 --`),
    /// its log lines into `stderr`.
    pub(crate) fn start_as(
        wrapper: &[&str],
        bootstrap: &str,
        extra: &[&str],
        stderr: Stdio,
    ) -> Console {
        let mut command = match wrapper.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(KACL);
                c
            }
            None => Command::new(KACL),
        };
        let mut child = command
            .args([
                "console",
                "--bootstrap-server",
                bootstrap,
                "--listen",
                "127.0.0.1:0",
            ])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn kacl console");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(listening) = kacl_test_support::listening::parse(&line) {
                    let _ = tx.send(listening.addr);
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("kacl console did not report its listener");
        Console { child, addr }
    }

    /// The console's pid (for memory measurements).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `http://127.0.0.1:PORT`.
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// One request.
    pub(crate) fn request(
        &self,
        method: &str,
        path: &str,
        cookie: Option<&str>,
        form: Option<&str>,
    ) -> Response {
        http(&self.addr, method, path, cookie, form)
    }

    /// Logs in; the session cookie (`kacl_session=...`).
    pub(crate) fn login(
        &self,
        mechanism: &str,
        user: &str,
        password: &str,
    ) -> Result<String, Response> {
        let form = format!(
            "mechanism={mechanism}&username={}&password={}",
            enc(user),
            enc(password)
        );
        let response = login_post(&self.addr, &form, None);
        match response.session_cookie() {
            Some(cookie) if response.status == 303 => Ok(cookie),
            _ => Err(response),
        }
    }
}

impl Drop for Console {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What came back.
#[derive(Debug)]
pub(crate) struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The first header of that name (any case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// `kacl_session=ID` from Set-Cookie.
    pub(crate) fn session_cookie(&self) -> Option<String> {
        let value = self.header("set-cookie")?;
        let pair = value.split(';').next()?.trim();
        pair.starts_with("kacl_session=").then(|| pair.to_owned())
    }

    /// `kacl_login=TOKEN` from a Set-Cookie (the login form's own token).
    pub(crate) fn login_cookie(&self) -> Option<String> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("set-cookie"))
            .filter_map(|(_, v)| v.split(';').next())
            .map(str::trim)
            .find(|pair| pair.starts_with("kacl_login="))
            .map(str::to_owned)
    }

    /// The page's CSRF token (the first hidden `csrf` field).
    pub(crate) fn csrf(&self) -> String {
        let marker = "name=\"csrf\" value=\"";
        let start = self.body.find(marker).expect("a csrf field") + marker.len();
        let end = self.body[start..].find('"').expect("end of value");
        self.body[start..start + end].to_owned()
    }
}

/// Posts the login `form` as a browser does: the login page first, for its form token and
/// the cookie that carries it (`also`: more cookies to send, e.g. a planted session id).
pub(crate) fn login_post(addr: &str, form: &str, also: Option<&str>) -> Response {
    let page = http(addr, "GET", "/login", None, None);
    let cookie = page
        .login_cookie()
        .expect("the login page sets its form cookie");
    let cookie = match also {
        Some(more) => format!("{more}; {cookie}"),
        None => cookie,
    };
    let form = format!("{form}&csrf={}", page.csrf());
    http(addr, "POST", "/login", Some(&cookie), Some(&form))
}

/// Percent-encodes a form value.
pub(crate) fn enc(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One HTTP/1.1 request over a fresh connection (`Connection: close`), bounded by a
/// 30 s read timeout. A POST carries the console's own `Origin`, as a browser's form post
/// from one of its pages does.
pub(crate) fn http(
    addr: &str,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    form: Option<&str>,
) -> Response {
    let origin = format!("http://{addr}");
    let headers: &[(&str, &str)] = if method == "GET" || method == "HEAD" {
        &[]
    } else {
        &[("Origin", &origin)]
    };
    http_with(addr, method, path, cookie, form, headers)
}

/// [`http`] with exactly `headers` besides Host, Cookie and the form's.
pub(crate) fn http_with(
    addr: &str,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    form: Option<&str>,
    headers: &[(&str, &str)],
) -> Response {
    let mut stream = TcpStream::connect(addr).expect("connect to the console");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(c) = cookie {
        request.push_str(&format!("Cookie: {c}\r\n"));
    }
    let body = form.unwrap_or("");
    if form.is_some() {
        request.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the response");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked = headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    Response {
        status,
        headers,
        body: if chunked {
            dechunk(body)
        } else {
            body.to_owned()
        },
    }
}

/// The payload of a `Transfer-Encoding: chunked` body (a page sent while it is made).
pub(crate) fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].strip_prefix("\r\n").unwrap_or(&rest[size..]);
    }
    out
}
