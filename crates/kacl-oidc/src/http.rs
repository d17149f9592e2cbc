//! A small HTTP/1.1 client for an identity provider's endpoints (JWKS, discovery, token):
//! one request per connection (`Connection: close`), bounded in bytes (the answer's head and
//! body together) and in time (connect to last byte), over TCP or TLS (rustls with ring, the
//! crypto the rest of kacl uses). Redirects are not followed: an identity provider's
//! endpoints are configured or discovered exactly.
//!
//! It runs on the async runtime and never blocks it; a slow or huge answer costs at most the
//! configured time and bytes.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use super::url::HttpUrl;
use super::OidcError;

/// Where the system's CA bundle is on Debian and its derivatives.
const SYSTEM_CA_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";
/// Room for the status line and headers, beyond the body bound.
const MAX_HEAD_BYTES: usize = 16 * 1024;
const MAX_HEADERS: usize = 64;

/// An answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The body (de-chunked).
    pub body: Vec<u8>,
}

/// The client: TLS trust, and the bounds of every exchange.
#[derive(Clone)]
pub struct HttpClient {
    tls: TlsConnector,
    max_body_bytes: usize,
    timeout: Duration,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClient")
            .field("max_body_bytes", &self.max_body_bytes)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn tls_connector(ca_file: Option<&Path>) -> Result<TlsConnector, OidcError> {
    let mut roots = RootCertStore::empty();
    let (path, required) = match ca_file {
        Some(path) => (path, true),
        None => (Path::new(SYSTEM_CA_BUNDLE), false),
    };
    match CertificateDer::pem_file_iter(path).and_then(|i| i.collect::<Result<Vec<_>, _>>()) {
        Ok(certs) => {
            let (_added, _ignored) = roots.add_parsable_certificates(certs);
        }
        Err(e) if required => {
            return Err(OidcError::Tls(format!("{}: {e}", path.display())));
        }
        // No system bundle: https endpoints fail at their handshake, saying so.
        Err(_) => {}
    }
    if required && roots.is_empty() {
        return Err(OidcError::Tls(format!(
            "{} holds no PEM certificate",
            path.display()
        )));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| OidcError::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}

impl HttpClient {
    /// A client trusting the PEM CAs of `ca_file` (the system bundle when `None`), reading
    /// bodies of at most `max_body_bytes`, each exchange within `timeout`.
    pub fn new(
        ca_file: Option<&Path>,
        max_body_bytes: usize,
        timeout: Duration,
    ) -> Result<HttpClient, OidcError> {
        Ok(HttpClient {
            tls: tls_connector(ca_file)?,
            max_body_bytes,
            timeout,
        })
    }

    /// `GET url`.
    pub async fn get(&self, url: &HttpUrl) -> Result<HttpResponse, OidcError> {
        let request = format!(
            "GET {} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nConnection: close\r\n\
             User-Agent: kacl\r\n\r\n",
            url.target,
            url.host_header()
        );
        self.exchange(url, request.into_bytes()).await
    }

    /// `POST url` with an `application/x-www-form-urlencoded` body and, optionally, HTTP
    /// Basic credentials (RFC 6749 2.3.1's `client_secret_basic`).
    pub async fn post_form(
        &self,
        url: &HttpUrl,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
    ) -> Result<HttpResponse, OidcError> {
        let body = form_encode(form);
        let mut request = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nConnection: close\r\n\
             User-Agent: kacl\r\nContent-Type: application/x-www-form-urlencoded\r\n\
             Content-Length: {}\r\n",
            url.target,
            url.host_header(),
            body.len()
        );
        if let Some((user, password)) = basic {
            use base64::Engine;
            let pair = format!("{}:{}", form_component(user), form_component(password));
            let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
            request.push_str(&format!("Authorization: Basic {encoded}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&body);
        self.exchange(url, request.into_bytes()).await
    }

    async fn exchange(&self, url: &HttpUrl, request: Vec<u8>) -> Result<HttpResponse, OidcError> {
        let limit = self.max_body_bytes + MAX_HEAD_BYTES;
        let work = async {
            let tcp = TcpStream::connect(url.address())
                .await
                .map_err(|e| OidcError::Http(format!("{url}: connect: {e}")))?;
            let raw = if url.tls {
                let name = ServerName::try_from(url.host.clone())
                    .map_err(|_| OidcError::Url(format!("`{}` is not a server name", url.host)))?;
                let stream = self
                    .tls
                    .connect(name, tcp)
                    .await
                    .map_err(|e| OidcError::Http(format!("{url}: TLS handshake: {e}")))?;
                send_and_read(stream, &request, limit).await
            } else {
                send_and_read(tcp, &request, limit).await
            }
            .map_err(|e| match e {
                ReadError::Io(e) => OidcError::Http(format!("{url}: {e}")),
                ReadError::TooLarge => OidcError::TooLarge {
                    url: url.to_string(),
                    limit: self.max_body_bytes,
                },
            })?;
            parse_response(&raw, self.max_body_bytes)
                .map_err(|why| OidcError::Http(format!("{url}: {why}")))
        };
        match tokio::time::timeout(self.timeout, work).await {
            Ok(result) => result,
            Err(_) => Err(OidcError::Http(format!(
                "{url}: no complete answer within {} ms",
                self.timeout.as_millis()
            ))),
        }
    }
}

enum ReadError {
    Io(std::io::Error),
    TooLarge,
}

async fn send_and_read<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    request: &[u8],
    limit: usize,
) -> Result<Vec<u8>, ReadError> {
    stream.write_all(request).await.map_err(ReadError::Io)?;
    stream.flush().await.map_err(ReadError::Io)?;
    let mut raw = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = match stream.read(&mut chunk).await {
            Ok(n) => n,
            // A TLS peer that closes without close_notify has still sent a whole answer
            // when its length says so; parse_response checks.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => 0,
            Err(e) => return Err(ReadError::Io(e)),
        };
        if n == 0 {
            return Ok(raw);
        }
        if raw.len() + n > limit {
            return Err(ReadError::TooLarge);
        }
        raw.extend_from_slice(&chunk[..n]);
    }
}

/// Splits a whole answer (read to the connection's end) into status and body.
fn parse_response(raw: &[u8], max_body: usize) -> Result<HttpResponse, String> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut headers);
    let head_len = match response.parse(raw) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Err("the answer ended inside its head".into()),
        Err(e) => return Err(format!("malformed answer: {e}")),
    };
    let status = response.code.unwrap_or(0);
    let header = |name: &str| {
        response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_ascii_lowercase())
    };
    let rest = &raw[head_len..];
    let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        dechunk(rest, max_body)?
    } else if let Some(length) = header("content-length") {
        let length: usize = length.parse().map_err(|_| "bad Content-Length")?;
        if length > max_body {
            return Err(format!("a body of {length} bytes, more than {max_body}"));
        }
        rest.get(..length)
            .ok_or("the answer ended inside its body")?
            .to_vec()
    } else {
        rest.to_vec()
    };
    if body.len() > max_body {
        return Err(format!("a body of more than {max_body} bytes"));
    }
    Ok(HttpResponse { status, body })
}

fn dechunk(mut rest: &[u8], max_body: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk size line without end")?;
        let size_text = std::str::from_utf8(&rest[..line_end]).map_err(|_| "bad chunk size")?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| "bad chunk size")?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        if body.len() + size > max_body {
            return Err(format!("a body of more than {max_body} bytes"));
        }
        let data = rest.get(..size).ok_or("the answer ended inside a chunk")?;
        body.extend_from_slice(data);
        rest = rest
            .get(size..)
            .and_then(|r| r.strip_prefix(b"\r\n"))
            .ok_or("a chunk without its line end")?;
    }
}

/// `application/x-www-form-urlencoded` of one value.
pub fn form_component(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A whole form (or query string) from its pairs.
pub fn form_encode(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", form_component(k), form_component(v)))
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    #[test]
    fn answers_are_read_as_framed() {
        let plain = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}trailing";
        assert_eq!(parse_response(plain, 100).unwrap().body, b"{}");
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n";
        assert_eq!(parse_response(chunked, 100).unwrap().body, b"abcde");
        assert!(parse_response(chunked, 4).is_err());
        let to_eof = b"HTTP/1.0 404 Not Found\r\n\r\nnope";
        let r = parse_response(to_eof, 100).unwrap();
        assert_eq!((r.status, r.body.as_slice()), (404, &b"nope"[..]));
        assert!(parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", 100).is_err());
        assert!(parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 999\r\n\r\n", 100).is_err());
        assert!(parse_response(b"garbage", 100).is_err());
        assert!(parse_response(b"HTTP/1.1 200 OK\r\nContent", 100).is_err());
    }

    #[test]
    fn forms_are_encoded() {
        assert_eq!(
            form_encode(&[("grant_type", "client_credentials"), ("scope", "a b/c&d")]),
            "grant_type=client_credentials&scope=a+b%2Fc%26d"
        );
    }

    /// A server that accepts one connection and runs `serve` on it.
    async fn one_shot<F, Fut>(serve: F) -> HttpUrl
    where
        F: FnOnce(TcpStream) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            if let Ok((stream, _)) = listener.accept().await {
                serve(stream).await;
            }
        });
        HttpUrl::parse(&format!("http://127.0.0.1:{port}/jwks")).unwrap()
    }

    #[tokio::test]
    async fn a_real_exchange_and_its_bounds() {
        let client = HttpClient::new(None, 1024, Duration::from_millis(500)).unwrap();
        let url = one_shot(|mut s| async move {
            let mut buf = [0u8; 1024];
            let n = s.read(&mut buf).await.unwrap();
            assert!(buf[..n].starts_with(b"GET /jwks HTTP/1.1\r\nHost: 127.0.0.1:"));
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"keys\":[]}")
                .await
                .unwrap();
        })
        .await;
        let r = client.get(&url).await.unwrap();
        assert_eq!((r.status, r.body.as_slice()), (200, &b"{\"keys\":[]}"[..]));

        // An endless answer stops at the byte bound.
        let url = one_shot(|mut s| async move {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await;
            let junk = vec![b'x'; 4096];
            for _ in 0..64 {
                if s.write_all(&junk).await.is_err() {
                    return;
                }
            }
        })
        .await;
        assert!(matches!(
            client.get(&url).await,
            Err(OidcError::TooLarge { .. })
        ));

        // A silent server stops at the time bound.
        let url = one_shot(|s| async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            drop(s);
        })
        .await;
        let started = std::time::Instant::now();
        let err = client.get(&url).await.unwrap_err();
        assert!(err.to_string().contains("within 500 ms"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(4));
    }
}
