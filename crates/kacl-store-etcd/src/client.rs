//! A small blocking etcd v3 client over etcd's gRPC API (HTTP/2, protobuf messages declared
//! by hand in `proto`): the calls kacl needs — range, txn, watch, leases, status, authenticate
//! — and nothing else. No `protoc` and no gRPC stack, so etcd support is in every build
//! (docs/operations.md says why).
//!
//! Endpoints are tried in order, starting with the last one that answered; every call has one
//! deadline (`kacl.etcd.request.timeout.ms`) across all its attempts. A request is re-sent
//! only when it cannot have reached etcd (a refused connect, a connection that etcd had
//! closed, a refused stream), so a transaction is never applied twice by a retry. Each
//! endpoint has one HTTP/2 connection that every thread's calls share.
//!
//! A member that stops answering without closing anything (SIGSTOP, a hung disk, a network
//! that drops packets) must not hold every call for the whole deadline: each attempt has a
//! shorter one, the probe ([`probe_interval`], a quarter of the request timeout, at most 2 s).
//! A new connection must answer an HTTP/2 PING within it before a request goes out (else the
//! next endpoint is tried: nothing was sent); a call without an answer after a probe is
//! PINGed, and a member that does not answer that within another probe is given up: a read, a
//! lease call or an authentication is sent to the next endpoint, a transaction ends as
//! outcome-unknown (REQUEST_TIMED_OUT; never re-sent, it may have been proposed), and the
//! next calls start at the next endpoint. A slow member answers PINGs and keeps its calls.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use parking_lot::Mutex;
use prost::Message;

use crate::error::{stale_token, TokenSlot};
use crate::grpc::{self, GrpcError};
use crate::http::{self, CallError, Conn};
use crate::proto;
use crate::tls::EtcdTls;

pub use crate::error::{EtcdError, Kv, RangeResult, TxnResult};
pub use crate::ops::{
    cmp_absent, cmp_mod, cmp_range_absent, cmp_value, op_delete, op_get, op_put, prefix_end, Cmp,
    Op,
};
pub use crate::proto::{ResponseOp, WatchResponse};
pub use crate::watch::WatchStream;

const RANGE: &str = "/etcdserverpb.KV/Range";
const TXN: &str = "/etcdserverpb.KV/Txn";
const WATCH: &str = "/etcdserverpb.Watch/Watch";
const LEASE_GRANT: &str = "/etcdserverpb.Lease/LeaseGrant";
const LEASE_REVOKE: &str = "/etcdserverpb.Lease/LeaseRevoke";
const LEASE_KEEPALIVE: &str = "/etcdserverpb.Lease/LeaseKeepAlive";
const AUTHENTICATE: &str = "/etcdserverpb.Auth/Authenticate";

/// The per-attempt deadline for a request timeout of `timeout`: a quarter of it, between
/// 50 ms and 2 s (see the module documentation). A member that stops answering is given up
/// within two of these, well inside the request timeout, so the call can still be served by
/// another member.
pub fn probe_interval(timeout: Duration) -> Duration {
    (timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(2))
}

/// Calls that may be sent again after an attempt whose outcome is unknown: reads, lease
/// renewals and revocations, authentication. (A lease granted twice leaves one unused lease,
/// which expires.) Never a transaction.
fn resendable(path: &str) -> bool {
    path != TXN
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
    /// One HTTP/2 connection per endpoint, opened on first use.
    conns: Mutex<Vec<Option<Conn>>>,
    token: TokenSlot,
}

impl std::fmt::Debug for EtcdClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdClient")
            .field("endpoints", &self.endpoints_text())
            .finish_non_exhaustive()
    }
}

enum Attempt {
    Done(Bytes),
    /// etcd answered with a status other than OK.
    Status(i64, String),
    /// The request cannot have reached etcd: try again.
    Retry(String),
    /// It may have reached etcd: give up.
    Lost(String),
    /// Trying again cannot help (a refused TLS handshake or password, a broken answer).
    Fatal(EtcdError),
}

impl EtcdClient {
    /// A client; nothing is connected until the first call.
    pub fn new(options: ClientOptions) -> EtcdClient {
        let count = options.endpoints.len();
        EtcdClient {
            options,
            preferred: AtomicUsize::new(0),
            conns: Mutex::new(vec![None; count]),
            token: TokenSlot::default(),
        }
    }

    /// The call deadline.
    pub fn timeout(&self) -> Duration {
        self.options.timeout
    }

    /// The per-attempt deadline ([`probe_interval`] of the call deadline).
    pub fn probe(&self) -> Duration {
        probe_interval(self.options.timeout)
    }

    /// After endpoint `index` stopped answering: the next calls start at the next one
    /// (unless another call moved on already).
    fn avoid(&self, index: usize) {
        let count = self.options.endpoints.len().max(1);
        let _ = self.preferred.compare_exchange(
            index,
            (index + 1) % count,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
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

    /// A new connection to endpoint `index`; a failed TLS handshake is final for this call.
    fn connect(&self, index: usize, timeout: Duration) -> Result<Conn, Attempt> {
        let (host, port) = self.options.endpoints[index].clone();
        let endpoint = self.endpoint_text(&host, port);
        // A member that stopped answering can also stop completing TCP handshakes (its
        // listen backlog full): the connect, TLS included, gets one probe, the PING another.
        let probe = self.probe();
        match http::block(
            Conn::connect(host, port, self.options.tls.clone(), probe),
            timeout.min(probe * 2),
        ) {
            Ok(Ok(conn)) => Ok(conn),
            Ok(Err(err)) if err.handshake => Err(Attempt::Fatal(EtcdError::Tls {
                endpoint,
                detail: err.error.to_string(),
            })),
            Ok(Err(err)) => Err(Attempt::Retry(format!("connect {endpoint}: {err}"))),
            Err(detail) => Err(Attempt::Retry(format!("connect {endpoint}: {detail}"))),
        }
    }

    /// The shared connection to endpoint `index` (opened now if there is none), and whether
    /// it was open already.
    fn conn(&self, index: usize, timeout: Duration) -> Result<(Conn, bool), Attempt> {
        if let Some(conn) = self.conns.lock()[index].clone() {
            return Ok((conn, true));
        }
        let conn = self.connect(index, timeout)?;
        self.conns.lock()[index] = Some(conn.clone());
        Ok((conn, false))
    }

    /// Forgets a connection that failed (unless another thread replaced it already).
    fn forget(&self, index: usize, conn: &Conn) {
        let mut conns = self.conns.lock();
        if conns[index].as_ref().is_some_and(|c| c.same(conn)) {
            conns[index] = None;
        }
    }

    /// One call with failover across endpoints until the deadline; the decoded answer.
    fn call<R: Message + Default>(
        &self,
        path: &'static str,
        request: &impl Message,
    ) -> Result<R, EtcdError> {
        let answer = self.call_bytes(path, grpc::frame_message(request), true)?;
        R::decode(answer).map_err(|e| EtcdError::Protocol(format!("{path}: {e}")))
    }

    fn call_bytes(
        &self,
        path: &'static str,
        body: Bytes,
        may_reauthenticate: bool,
    ) -> Result<Bytes, EtcdError> {
        let deadline = Instant::now() + self.options.timeout;
        let count = self.options.endpoints.len();
        let mut last = String::from("no attempt");
        let mut round = 0usize;
        while Instant::now() < deadline {
            let start = self.preferred.load(Ordering::Relaxed);
            for step in 0..count {
                let index = (start + step) % count;
                match self.attempt(index, path, &body, deadline) {
                    Attempt::Done(answer) => {
                        self.preferred.store(index, Ordering::Relaxed);
                        return Ok(answer);
                    }
                    Attempt::Status(code, message) => {
                        self.preferred.store(index, Ordering::Relaxed);
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
                        // 14 UNAVAILABLE: "request timed out" or "leader changed" after a
                        // write was proposed means it may still be applied, so a txn is not
                        // sent again (the caller answers REQUEST_TIMED_OUT, as Kafka does
                        // when its controller does not answer in time).
                        if code == 14 && path == TXN && may_have_applied(&message) {
                            return Err(self.unavailable(message));
                        }
                        // Otherwise (no leader, member stopping, unhealthy cluster) it was
                        // refused before any proposal: another member may serve.
                        if code == 14 {
                            last = message;
                            continue;
                        }
                        // 4 DEADLINE_EXCEEDED: etcd's own request timeout.
                        if code == 4 {
                            return Err(self.unavailable(message));
                        }
                        return Err(EtcdError::Status { code, message });
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
    /// password is final (`Attempt::Fatal`); etcd's answer is never logged, and the
    /// password is in no message.
    fn token(&self, index: usize, deadline: Instant) -> Result<Option<String>, Attempt> {
        let Some((user, password)) = &self.options.credentials else {
            return Ok(None);
        };
        if let Some(token) = self.token.read().clone() {
            return Ok(Some(token));
        }
        let request = proto::NamePassword {
            name: user.clone(),
            password: password.clone(),
        };
        let timeout = deadline.saturating_duration_since(Instant::now());
        let (conn, _) = self.conn(index, timeout)?;
        let probe = self.probe();
        let watched = conn.clone();
        let call = async move {
            let call = watched
                .clone()
                .unary(AUTHENTICATE, None, grpc::frame_message(&request));
            watched.watched(call, probe).await
        };
        let answer = match http::block(call, timeout) {
            Ok(Ok(answer)) => answer,
            Ok(Err(
                CallError::NotSent(detail)
                | CallError::Lost(detail)
                | CallError::Unresponsive(detail),
            ))
            | Err(detail) => {
                self.forget(index, &conn);
                self.avoid(index);
                return Err(Attempt::Retry(format!("authenticate: {detail}")));
            }
            // 14 UNAVAILABLE (no leader yet) may pass; anything else (3: a wrong user name
            // or password, 9: auth not enabled) will not.
            Ok(Err(CallError::Grpc(GrpcError::Status { code: 14, message }))) => {
                return Err(Attempt::Retry(format!("authenticate: {message}")))
            }
            Ok(Err(CallError::Grpc(GrpcError::Status { code, message }))) => {
                return Err(Attempt::Fatal(EtcdError::Status {
                    code,
                    message: format!("authentication of etcd user `{user}` failed: {message}"),
                }))
            }
            Ok(Err(CallError::Grpc(GrpcError::Protocol(detail)))) => {
                return Err(Attempt::Fatal(EtcdError::Protocol(format!(
                    "authenticate: {detail}"
                ))))
            }
        };
        let token = proto::AuthenticateResponse::decode(answer)
            .map(|answer| answer.token)
            .unwrap_or_default();
        if token.is_empty() {
            return Err(Attempt::Fatal(EtcdError::Protocol(format!(
                "authentication of etcd user `{user}`: no token in the answer"
            ))));
        }
        *self.token.write() = Some(token.clone());
        Ok(Some(token))
    }

    fn attempt(
        &self,
        index: usize,
        path: &'static str,
        body: &Bytes,
        deadline: Instant,
    ) -> Attempt {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Attempt::Retry("deadline passed".to_owned());
        }
        let token = match self.token(index, deadline) {
            Ok(token) => token,
            Err(attempt) => return attempt,
        };
        let (conn, reused) = match self.conn(index, remaining) {
            Ok(conn) => conn,
            Err(attempt) => return attempt,
        };
        let probe = self.probe();
        let (watched, request) = (conn.clone(), body.clone());
        let call = async move {
            let call = watched.clone().unary(path, token, request);
            watched.watched(call, probe).await
        };
        match http::block(call, remaining) {
            Ok(Ok(answer)) => Attempt::Done(answer),
            Ok(Err(CallError::Unresponsive(detail))) => {
                self.forget(index, &conn);
                self.avoid(index);
                if resendable(path) {
                    Attempt::Retry(detail)
                } else {
                    Attempt::Lost(detail)
                }
            }
            Ok(Err(CallError::Grpc(GrpcError::Status { code, message }))) => {
                Attempt::Status(code, message)
            }
            Ok(Err(CallError::Grpc(GrpcError::Protocol(detail)))) => {
                self.forget(index, &conn);
                Attempt::Fatal(EtcdError::Protocol(detail))
            }
            // A kept connection etcd had closed: once more on a new one.
            Ok(Err(CallError::NotSent(detail))) => {
                self.forget(index, &conn);
                if reused {
                    self.attempt(index, path, body, deadline)
                } else {
                    Attempt::Retry(detail)
                }
            }
            Ok(Err(CallError::Lost(detail))) => {
                self.forget(index, &conn);
                self.avoid(index);
                Attempt::Lost(detail)
            }
            Err(detail) => {
                self.forget(index, &conn);
                self.avoid(index);
                Attempt::Lost(format!("{detail} (the outcome is unknown)"))
            }
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
        let request = proto::RangeRequest {
            key: key.to_vec(),
            range_end: end.map(<[u8]>::to_vec).unwrap_or_default(),
            limit: limit.max(0),
            revision: revision.max(0),
        };
        let answer: proto::RangeResponse = self.call(RANGE, &request)?;
        Ok(RangeResult {
            revision: answer.header.as_ref().map_or(0, |h| h.revision),
            more: answer.more,
            kvs: answer.kvs.into_iter().map(Kv::from).collect(),
        })
    }

    /// One transaction.
    pub fn txn(
        &self,
        compare: Vec<Cmp>,
        success: Vec<Op>,
        failure: Vec<Op>,
    ) -> Result<TxnResult, EtcdError> {
        let request = proto::TxnRequest {
            compare,
            success,
            failure,
        };
        let answer: proto::TxnResponse = self.call(TXN, &request)?;
        Ok(TxnResult {
            succeeded: answer.succeeded,
            revision: answer.header.as_ref().map_or(0, |h| h.revision),
            responses: answer.responses,
        })
    }

    /// Grants a lease of `ttl_secs`; its id.
    pub fn lease_grant(&self, ttl_secs: i64) -> Result<i64, EtcdError> {
        let request = proto::LeaseGrantRequest {
            ttl: ttl_secs,
            id: 0,
        };
        let answer: proto::LeaseGrantResponse = self.call(LEASE_GRANT, &request)?;
        match answer.id {
            0 => Err(EtcdError::Protocol(format!(
                "lease grant answered no id: {:.200}",
                answer.error
            ))),
            id => Ok(id),
        }
    }

    /// Renews a lease (one request on a `LeaseKeepAlive` stream); its remaining TTL (0 or
    /// less: it is gone).
    pub fn lease_keepalive(&self, id: i64) -> Result<i64, EtcdError> {
        let answer: proto::LeaseKeepAliveResponse =
            self.call(LEASE_KEEPALIVE, &proto::LeaseId { id })?;
        Ok(answer.ttl)
    }

    /// Revokes a lease (its keys are deleted).
    pub fn lease_revoke(&self, id: i64) -> Result<(), EtcdError> {
        self.call::<proto::HeaderOnly>(LEASE_REVOKE, &proto::LeaseId { id })
            .map(|_| ())
    }

    /// Opens a watch on `[key, end)` from `start_revision`, on its own connection.
    pub fn watch(
        &self,
        key: &[u8],
        end: &[u8],
        start_revision: i64,
    ) -> Result<WatchStream, EtcdError> {
        let create = proto::WatchRequest {
            request_union: Some(proto::WatchRequestUnion::Create(
                proto::WatchCreateRequest {
                    key: key.to_vec(),
                    range_end: end.to_vec(),
                    start_revision,
                    progress_notify: false,
                    // No previous values: a delete's key is all the feed needs, and etcd would
                    // send every deleted pair a second time (a DeleteAcls of 1,000 ACLs).
                    prev_kv: false,
                },
            )),
        };
        let first = grpc::frame_message(&create);
        let deadline = Instant::now() + self.options.timeout;
        let count = self.options.endpoints.len();
        let start = self.preferred.load(Ordering::Relaxed);
        let mut last = String::new();
        for step in 0..count {
            let index = (start + step) % count;
            let remaining = deadline.saturating_duration_since(Instant::now());
            let token = match self.token(index, deadline) {
                Ok(token) => token,
                Err(Attempt::Fatal(err)) => return Err(err),
                Err(Attempt::Retry(detail) | Attempt::Lost(detail)) => {
                    last = detail;
                    continue;
                }
                Err(Attempt::Done(_) | Attempt::Status(..)) => continue,
            };
            let conn = match self.connect(index, remaining) {
                Ok(conn) => conn,
                Err(Attempt::Fatal(err)) => return Err(err),
                Err(_) => {
                    last = format!("cannot connect to {}", self.endpoint_text_at(index));
                    continue;
                }
            };
            let probe = self.probe();
            let (watched, request) = (conn.clone(), first.clone());
            let open = async move {
                let open = watched.clone().stream(WATCH, token, request);
                watched.watched(open, probe).await
            };
            match http::block(open, remaining) {
                Ok(Ok((send, body))) => {
                    return WatchStream::start(send, body, self.token.clone(), conn, probe)
                }
                Ok(Err(CallError::Grpc(GrpcError::Status { code, message }))) => {
                    if stale_token(code, &message) {
                        *self.token.write() = None;
                    }
                    last = format!("{message} (gRPC code {code})");
                }
                Ok(Err(CallError::Grpc(GrpcError::Protocol(detail)))) => {
                    return Err(EtcdError::Protocol(detail))
                }
                Ok(Err(
                    CallError::NotSent(detail)
                    | CallError::Lost(detail)
                    | CallError::Unresponsive(detail),
                ))
                | Err(detail) => {
                    self.avoid(index);
                    last = detail
                }
            }
        }
        Err(self.unavailable(format!("cannot open a watch: {last}")))
    }

    fn endpoint_text_at(&self, index: usize) -> String {
        let (host, port) = &self.options.endpoints[index];
        self.endpoint_text(host, *port)
    }

    /// A unary call for the admin helpers (`admin.rs`).
    pub(crate) fn admin_call<R: Message + Default>(
        &self,
        path: &'static str,
        request: &impl Message,
    ) -> Result<R, EtcdError> {
        self.call(path, request)
    }
}

/// etcd's UNAVAILABLE messages for a request that was proposed to raft and whose outcome is
/// unknown: it may have been applied (etcd 3.4's ErrTimeout, ErrTimeoutDueToLeaderFail,
/// ErrTimeoutDueToConnectionLost, ErrLeaderChanged).
fn may_have_applied(message: &str) -> bool {
    message.contains("request timed out") || message.contains("leader changed")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_outcome_unknown_unavailables_stop_a_txn_retry() {
        assert!(may_have_applied("etcdserver: request timed out"));
        assert!(may_have_applied(
            "etcdserver: request timed out, possibly due to previous leader failure"
        ));
        assert!(may_have_applied("etcdserver: leader changed"));
        assert!(!may_have_applied("etcdserver: no leader"));
        assert!(!may_have_applied("etcdserver: server stopped"));
        assert!(!may_have_applied("etcdserver: unhealthy cluster"));
    }

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
