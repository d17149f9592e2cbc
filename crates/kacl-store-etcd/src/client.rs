//! A small etcd v3 client over etcd's gRPC-JSON gateway (`/v3/...`, HTTP/1.1 + JSON, keys and
//! values base64): the calls kacl needs — range, txn, watch, leases, status, authenticate —
//! and nothing else. It needs neither `protoc` nor a gRPC stack, so etcd support is in every
//! build (docs/operations.md says why).
//!
//! Endpoints are tried in order, starting with the last one that answered; every call has one
//! deadline (`kacl.etcd.request.timeout.ms`) across all its attempts. A request is re-sent
//! only when it cannot have reached etcd (a refused connect, a kept-alive connection that
//! etcd had closed), so a transaction is never applied twice by a retry.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use parking_lot::{Mutex, RwLock};
use serde_json::{json, Value};

/// A JSON value, as the gateway speaks it.
pub use serde_json::Value as JsonValue;

use crate::http::Conn;
use crate::tls::EtcdTls;

/// The current auth token, shared with open watches (which drop it when etcd says it has
/// expired, so the next call authenticates again).
type TokenSlot = Arc<RwLock<Option<String>>>;

/// A failed etcd call.
#[derive(Debug, thiserror::Error)]
pub enum EtcdError {
    /// No endpoint answered within the deadline (or the answer was lost): retriable.
    #[error("etcd is unavailable ({endpoints}): {detail}")]
    Unavailable {
        /// The endpoints tried.
        endpoints: String,
        /// The last failure.
        detail: String,
    },
    /// etcd answered with an error.
    #[error("etcd refused the request: {message} (gRPC code {code})")]
    Status {
        /// The gRPC status code.
        code: i64,
        /// etcd's message.
        message: String,
    },
    /// etcd's answer did not parse as expected.
    #[error("unexpected answer from etcd: {0}")]
    Protocol(String),
    /// An open watch brought nothing within its idle timeout (not a failure: the caller
    /// re-opens it to check that the connection is still alive).
    #[error("the etcd watch was idle for its timeout")]
    WatchIdle,
    /// The TLS handshake with an endpoint failed (an untrusted or expired certificate, a
    /// refused client certificate, or an endpoint that does not speak TLS).
    #[error("TLS with etcd {endpoint} failed: {detail}")]
    Tls {
        /// The endpoint.
        endpoint: String,
        /// rustls' reason.
        detail: String,
    },
}

impl EtcdError {
    /// True for etcd's "required revision has been compacted".
    pub fn is_compacted(&self) -> bool {
        matches!(self, EtcdError::Status { message, .. } if message.contains("compacted"))
    }
}

/// One key-value pair as etcd returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kv {
    /// The key.
    pub key: Vec<u8>,
    /// The value.
    pub value: Vec<u8>,
    /// The revision that created the key.
    pub create_revision: i64,
    /// The revision of its last change.
    pub mod_revision: i64,
    /// The lease it is attached to (0: none).
    pub lease: i64,
}

/// The answer to a range.
#[derive(Debug)]
pub struct RangeResult {
    /// The pairs.
    pub kvs: Vec<Kv>,
    /// More pairs beyond the limit.
    pub more: bool,
    /// The store revision the range was read at.
    pub revision: i64,
}

/// The answer to a txn.
#[derive(Debug)]
pub struct TxnResult {
    /// True if every compare held (the success branch ran).
    pub succeeded: bool,
    /// The store revision after the txn.
    pub revision: i64,
    /// One response per operation of the branch that ran.
    pub responses: Vec<Value>,
}

/// How to reach etcd.
#[derive(Clone)]
pub struct ClientOptions {
    /// Host and port of each endpoint.
    pub endpoints: Vec<(String, u16)>,
    /// The deadline of every call.
    pub timeout: Duration,
    /// User name and password for etcd authentication.
    pub credentials: Option<(String, String)>,
    /// TLS for every endpoint (`https://`); `None`: plain `http://`.
    pub tls: Option<EtcdTls>,
}

/// Never shows the password.
impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("endpoints", &self.endpoints)
            .field("timeout", &self.timeout)
            .field("user", &self.credentials.as_ref().map(|(user, _)| user))
            .field("tls", &self.tls.is_some())
            .finish()
    }
}

/// A blocking etcd client, shared between threads.
pub struct EtcdClient {
    options: ClientOptions,
    preferred: AtomicUsize,
    pool: Mutex<Vec<(usize, Conn)>>,
    token: TokenSlot,
}

impl std::fmt::Debug for EtcdClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdClient")
            .field("endpoints", &self.endpoints_text())
            .finish_non_exhaustive()
    }
}

/// Base64 of bytes, as the gateway wants keys and values.
pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn unb64(value: Option<&Value>) -> Result<Vec<u8>, EtcdError> {
    match value.and_then(Value::as_str) {
        None => Ok(Vec::new()),
        Some(text) => base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| EtcdError::Protocol(format!("bad base64: {e}"))),
    }
}

/// An int64 field, which the gateway writes as a string (absent when 0).
pub fn int(value: &Value, field: &str) -> i64 {
    match value.get(field) {
        Some(Value::String(text)) => text.parse().unwrap_or(0),
        Some(Value::Number(n)) => n.as_i64().unwrap_or(0),
        _ => 0,
    }
}

/// Parses one `kv` object.
pub fn parse_kv(value: &Value) -> Result<Kv, EtcdError> {
    Ok(Kv {
        key: unb64(value.get("key"))?,
        value: unb64(value.get("value"))?,
        create_revision: int(value, "create_revision"),
        mod_revision: int(value, "mod_revision"),
        lease: int(value, "lease"),
    })
}

/// The end of the range of every key starting with `prefix`.
pub fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0]
}

/// A put operation for a txn.
pub fn op_put(key: &[u8], value: &[u8], lease: i64, prev_kv: bool) -> Value {
    let mut put = json!({"key": b64(key), "value": b64(value), "prev_kv": prev_kv});
    if lease != 0 {
        put["lease"] = json!(lease.to_string());
    }
    json!({ "request_put": put })
}

/// A delete operation for a txn.
pub fn op_delete(key: &[u8], prev_kv: bool) -> Value {
    json!({"request_delete_range": {"key": b64(key), "prev_kv": prev_kv}})
}

/// A get operation for a txn.
pub fn op_get(key: &[u8]) -> Value {
    json!({"request_range": {"key": b64(key)}})
}

/// Compare: the key does not exist.
pub fn cmp_absent(key: &[u8]) -> Value {
    json!({"target": "CREATE", "key": b64(key), "result": "EQUAL", "create_revision": "0"})
}

/// Compare: the key was last changed at `revision`.
pub fn cmp_mod(key: &[u8], revision: i64) -> Value {
    json!({"target": "MOD", "key": b64(key), "result": "EQUAL", "mod_revision": revision.to_string()})
}

enum Attempt {
    Done(Value),
    /// The request cannot have reached etcd: try again.
    Retry(String),
    /// It may have reached etcd: give up.
    Lost(String),
    /// Trying again cannot help (a refused TLS handshake or password).
    Fatal(EtcdError),
}

impl EtcdClient {
    /// A client; nothing is connected until the first call.
    pub fn new(options: ClientOptions) -> EtcdClient {
        EtcdClient {
            options,
            preferred: AtomicUsize::new(0),
            pool: Mutex::new(Vec::new()),
            token: TokenSlot::default(),
        }
    }

    /// The call deadline.
    pub fn timeout(&self) -> Duration {
        self.options.timeout
    }

    /// The endpoints, for messages.
    pub fn endpoints_text(&self) -> String {
        self.options
            .endpoints
            .iter()
            .map(|(h, p)| self.endpoint_text(h, *p))
            .collect::<Vec<_>>()
            .join(",")
    }

    fn endpoint_text(&self, host: &str, port: u16) -> String {
        let scheme = if self.options.tls.is_some() {
            "https"
        } else {
            "http"
        };
        if host.contains(':') {
            format!("{scheme}://[{host}]:{port}")
        } else {
            format!("{scheme}://{host}:{port}")
        }
    }

    /// Connects to endpoint `index`; a failed TLS handshake is final for this call.
    fn connect(&self, index: usize, timeout: Duration) -> Result<Conn, Attempt> {
        let (host, port) = &self.options.endpoints[index];
        Conn::connect(host, *port, timeout, self.options.tls.as_ref()).map_err(|err| {
            if err.handshake {
                Attempt::Fatal(EtcdError::Tls {
                    endpoint: self.endpoint_text(host, *port),
                    detail: err.error.to_string(),
                })
            } else {
                Attempt::Retry(format!(
                    "connect {}: {err}",
                    self.endpoint_text(host, *port)
                ))
            }
        })
    }

    /// `POST path body` with failover across endpoints until the deadline; the JSON answer.
    pub fn call(&self, path: &str, body: &Value) -> Result<Value, EtcdError> {
        let body = serde_json::to_vec(body).map_err(|e| EtcdError::Protocol(e.to_string()))?;
        self.call_bytes(path, &body, true)
    }

    fn call_bytes(
        &self,
        path: &str,
        body: &[u8],
        may_reauthenticate: bool,
    ) -> Result<Value, EtcdError> {
        let deadline = Instant::now() + self.options.timeout;
        let count = self.options.endpoints.len();
        let mut last = String::from("no attempt");
        let mut round = 0usize;
        while Instant::now() < deadline {
            let start = self.preferred.load(Ordering::Relaxed);
            for step in 0..count {
                let index = (start + step) % count;
                match self.attempt(index, path, body, deadline) {
                    Attempt::Done(answer) => {
                        self.preferred.store(index, Ordering::Relaxed);
                        if let Some(code) = answer.get("code").and_then(Value::as_i64) {
                            let message = answer
                                .get("message")
                                .or_else(|| answer.get("error"))
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_owned();
                            // 16 UNAUTHENTICATED: the token expired; or the token predates a
                            // change of etcd's users or roles (any `etcdctl user/role` command
                            // makes every token old). Get a new one, once.
                            if stale_token(code, &message)
                                && self.options.credentials.is_some()
                                && may_reauthenticate
                            {
                                *self.token.write() = None;
                                return self.call_bytes(path, body, false);
                            }
                            // 14 UNAVAILABLE (no leader, member stopping): another member
                            // may serve.
                            if code == 14 {
                                last = message;
                                continue;
                            }
                            if code == 4 {
                                return Err(self.unavailable(message));
                            }
                            return Err(EtcdError::Status { code, message });
                        }
                        return Ok(answer);
                    }
                    Attempt::Retry(detail) => last = detail,
                    Attempt::Lost(detail) => return Err(self.unavailable(detail)),
                    Attempt::Fatal(err) => return Err(err),
                }
            }
            round += 1;
            let pause = Duration::from_millis((50 * round as u64).min(500));
            std::thread::sleep(pause.min(deadline.saturating_duration_since(Instant::now())));
        }
        Err(self.unavailable(format!(
            "no answer within {} ms; last error: {last}",
            self.options.timeout.as_millis()
        )))
    }

    fn unavailable(&self, detail: String) -> EtcdError {
        EtcdError::Unavailable {
            endpoints: self.endpoints_text(),
            detail,
        }
    }

    /// The auth token (authenticating first when there is none). A refused user name or
    /// password is final (`Attempt::Fatal`); the answer is never logged, as it could echo
    /// what was sent.
    fn token(&self, index: usize, deadline: Instant) -> Result<Option<String>, Attempt> {
        let Some((user, password)) = &self.options.credentials else {
            return Ok(None);
        };
        if let Some(token) = self.token.read().clone() {
            return Ok(Some(token));
        }
        let body = serde_json::to_vec(&json!({"name": user, "password": password}))
            .map_err(|e| Attempt::Fatal(EtcdError::Protocol(e.to_string())))?;
        let timeout = deadline.saturating_duration_since(Instant::now());
        let mut conn = self.connect(index, timeout)?;
        let retry = |e: std::io::Error| Attempt::Retry(format!("authenticate: {e}"));
        conn.send("/v3/auth/authenticate", &body, None)
            .map_err(retry)?;
        let (status, answer, _) = conn.read_response().map_err(retry)?;
        let answer: Value = serde_json::from_slice(&answer)
            .map_err(|_| Attempt::Retry(format!("authenticate: HTTP {status}")))?;
        if let Some(token) = answer.get("token").and_then(Value::as_str) {
            *self.token.write() = Some(token.to_owned());
            return Ok(Some(token.to_owned()));
        }
        let code = answer.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = answer
            .get("message")
            .or_else(|| answer.get("error"))
            .and_then(Value::as_str)
            .unwrap_or("no token in the answer");
        // 14 UNAVAILABLE (no leader yet) may pass; anything else (3: a wrong user name or
        // password, 9: auth not enabled) will not.
        if code == 14 {
            return Err(Attempt::Retry(format!("authenticate: {message}")));
        }
        Err(Attempt::Fatal(EtcdError::Status {
            code,
            message: format!("authentication of etcd user `{user}` failed: {message}"),
        }))
    }

    fn attempt(&self, index: usize, path: &str, body: &[u8], deadline: Instant) -> Attempt {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Attempt::Retry("deadline passed".to_owned());
        }
        let token = match self.token(index, deadline) {
            Ok(token) => token,
            Err(attempt) => return attempt,
        };
        let pooled = {
            let mut pool = self.pool.lock();
            pool.iter()
                .position(|(i, _)| *i == index)
                .map(|at| pool.swap_remove(at).1)
        };
        let (mut conn, reused) = match pooled {
            Some(conn) => (conn, true),
            None => match self.connect(index, remaining) {
                Ok(conn) => (conn, false),
                Err(attempt) => return attempt,
            },
        };
        let _ = conn.set_read_timeout(Some(remaining.max(Duration::from_millis(1))));
        if let Err(err) = conn.send(path, body, token.as_deref()) {
            return if reused {
                self.attempt(index, path, body, deadline)
            } else {
                Attempt::Retry(format!("send: {err}"))
            };
        }
        match conn.read_response() {
            Ok((status, answer, keep)) => {
                if keep {
                    self.pool.lock().push((index, conn));
                }
                match serde_json::from_slice::<Value>(&answer) {
                    Ok(value) => Attempt::Done(value),
                    Err(_) if status >= 500 => Attempt::Retry(format!("HTTP {status}")),
                    Err(err) => Attempt::Lost(format!("HTTP {status}, unparsable body: {err}")),
                }
            }
            // A kept-alive connection etcd closed while idle answers nothing at all.
            Err(err) if reused && err.kind() == std::io::ErrorKind::UnexpectedEof => {
                self.attempt(index, path, body, deadline)
            }
            Err(err) => Attempt::Lost(format!("no answer (the outcome is unknown): {err}")),
        }
    }

    /// A range `[key, end)` (just `key` when `end` is `None`) at `revision` (0: current),
    /// at most `limit` pairs (0: all).
    pub fn range(
        &self,
        key: &[u8],
        end: Option<&[u8]>,
        revision: i64,
        limit: i64,
    ) -> Result<RangeResult, EtcdError> {
        let mut request = json!({"key": b64(key)});
        if let Some(end) = end {
            request["range_end"] = json!(b64(end));
        }
        if revision > 0 {
            request["revision"] = json!(revision.to_string());
        }
        if limit > 0 {
            request["limit"] = json!(limit.to_string());
        }
        let answer = self.call("/v3/kv/range", &request)?;
        let kvs = answer
            .get("kvs")
            .and_then(Value::as_array)
            .map(|kvs| kvs.iter().map(parse_kv).collect::<Result<Vec<_>, _>>())
            .transpose()?
            .unwrap_or_default();
        Ok(RangeResult {
            kvs,
            more: answer.get("more").and_then(Value::as_bool).unwrap_or(false),
            revision: header_revision(&answer),
        })
    }

    /// One transaction.
    pub fn txn(
        &self,
        compare: Vec<Value>,
        success: Vec<Value>,
        failure: Vec<Value>,
    ) -> Result<TxnResult, EtcdError> {
        let answer = self.call(
            "/v3/kv/txn",
            &json!({"compare": compare, "success": success, "failure": failure}),
        )?;
        Ok(TxnResult {
            succeeded: answer
                .get("succeeded")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            revision: header_revision(&answer),
            responses: answer
                .get("responses")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        })
    }

    /// Grants a lease of `ttl_secs`; its id.
    pub fn lease_grant(&self, ttl_secs: i64) -> Result<i64, EtcdError> {
        let answer = self.call("/v3/lease/grant", &json!({"TTL": ttl_secs.to_string()}))?;
        match int(&answer, "ID") {
            0 => Err(EtcdError::Protocol(format!("lease grant: {answer}"))),
            id => Ok(id),
        }
    }

    /// Renews a lease; its remaining TTL (0 or less: it is gone).
    pub fn lease_keepalive(&self, id: i64) -> Result<i64, EtcdError> {
        let answer = self.call("/v3/lease/keepalive", &json!({"ID": id.to_string()}))?;
        let result = answer.get("result").unwrap_or(&answer);
        Ok(int(result, "TTL"))
    }

    /// Revokes a lease (its keys are deleted).
    pub fn lease_revoke(&self, id: i64) -> Result<(), EtcdError> {
        self.call("/v3/lease/revoke", &json!({"ID": id.to_string()}))
            .map(|_| ())
    }

    /// Opens a watch on `[key, end)` from `start_revision`, on its own connection.
    pub fn watch(
        &self,
        key: &[u8],
        end: &[u8],
        start_revision: i64,
    ) -> Result<WatchStream, EtcdError> {
        let body = serde_json::to_vec(&json!({"create_request": {
            "key": b64(key),
            "range_end": b64(end),
            "start_revision": start_revision.to_string(),
            // No previous values: a delete's key is all the feed needs, and etcd would
            // encode every deleted pair a second time (a DeleteAcls of 1,000 ACLs).
            "prev_kv": false,
        }}))
        .map_err(|e| EtcdError::Protocol(e.to_string()))?;
        let deadline = Instant::now() + self.options.timeout;
        let count = self.options.endpoints.len();
        let start = self.preferred.load(Ordering::Relaxed);
        let mut last = String::new();
        for step in 0..count {
            let index = (start + step) % count;
            let remaining = deadline.saturating_duration_since(Instant::now());
            let opened = self.token(index, deadline).and_then(|token| {
                let mut conn = self.connect(index, remaining)?;
                let io = |e: std::io::Error| Attempt::Retry(e.to_string());
                conn.send("/v3/watch", &body, token.as_deref())
                    .map_err(io)?;
                let head = conn.read_head().map_err(io)?;
                Ok((conn, head))
            });
            match opened {
                Ok((conn, head)) if head.status == 200 && head.chunked => {
                    return Ok(WatchStream {
                        conn,
                        buffer: Vec::new(),
                        token: self.token.clone(),
                    })
                }
                Ok((_, head)) => {
                    if head.status == 401 {
                        *self.token.write() = None;
                    }
                    last = format!("watch answered HTTP {}", head.status);
                }
                Err(Attempt::Fatal(err)) => return Err(err),
                Err(Attempt::Retry(detail) | Attempt::Lost(detail)) => last = detail,
                Err(Attempt::Done(_)) => {}
            }
        }
        Err(self.unavailable(format!("cannot open a watch: {last}")))
    }
}

/// etcd refused the token: expired (16 UNAUTHENTICATED), or older than the last change of
/// users and roles (3, "revision of auth store is old").
fn stale_token(code: i64, message: &str) -> bool {
    code == 16 || (code == 3 && message.contains("auth store is old"))
}

/// The revision in an answer's header.
pub fn header_revision(answer: &Value) -> i64 {
    answer.get("header").map_or(0, |h| int(h, "revision"))
}

/// An open watch: one JSON message per line of a chunked body.
pub struct WatchStream {
    conn: Conn,
    buffer: Vec<u8>,
    token: TokenSlot,
}

impl std::fmt::Debug for WatchStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WatchStream")
    }
}

impl WatchStream {
    /// Sets how long [`WatchStream::next_message`] waits for a message.
    pub fn set_idle_timeout(&self, timeout: Duration) -> std::io::Result<()> {
        self.conn.set_read_timeout(Some(timeout))
    }

    /// The next message (`result` unwrapped), waiting at most the idle timeout.
    pub fn next_message(&mut self) -> Result<Value, EtcdError> {
        loop {
            if let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                let line = &line[..line.len() - 1];
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let value: Value = serde_json::from_slice(line)
                    .map_err(|e| EtcdError::Protocol(format!("watch message: {e}")))?;
                if let Some(error) = value.get("error") {
                    // An expired token: the next watch (and call) authenticates again.
                    let code = error.get("grpc_code").and_then(Value::as_i64).unwrap_or(0);
                    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
                    if stale_token(code, message)
                        || error.get("http_code").and_then(Value::as_i64) == Some(401)
                    {
                        *self.token.write() = None;
                    }
                    return Err(EtcdError::Status {
                        code: error.get("http_code").and_then(Value::as_i64).unwrap_or(0),
                        message: error.to_string(),
                    });
                }
                return Ok(value.get("result").cloned().unwrap_or(value));
            }
            match self.conn.read_chunk() {
                Ok(Some(chunk)) => self.buffer.extend_from_slice(&chunk),
                Ok(None) => {
                    return Err(EtcdError::Unavailable {
                        endpoints: String::new(),
                        detail: "the watch stream ended".to_owned(),
                    })
                }
                Err(err)
                    if self.buffer.is_empty()
                        && matches!(
                            err.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) =>
                {
                    return Err(EtcdError::WatchIdle)
                }
                Err(err) => {
                    return Err(EtcdError::Unavailable {
                        endpoints: String::new(),
                        detail: format!("watch: {err}"),
                    })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_password() {
        let options = ClientOptions {
            endpoints: vec![("127.0.0.1".to_owned(), 2379)],
            timeout: Duration::from_secs(1),
            credentials: Some(("kacl".to_owned(), "s3cret-pw".to_owned())),
            tls: None,
        };
        let client = EtcdClient::new(options.clone());
        for text in [format!("{options:?}"), format!("{client:?}")] {
            assert!(!text.contains("s3cret-pw"), "{text}");
        }
        assert!(format!("{options:?}").contains("kacl"));
    }
}
