//! What the etcd client hands back: its error, a key-value pair, the answers to a range and a
//! txn; and the auth token slot that calls and open watches share.

use std::sync::Arc;

use parking_lot::RwLock;

use crate::proto::{self, ResponseOp};

/// The current auth token, shared with open watches (which drop it when etcd says it has
/// expired, so the next call authenticates again).
pub(crate) type TokenSlot = Arc<RwLock<Option<String>>>;

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

/// One key-value pair as etcd returns it (`mvccpb.KeyValue` less its version).
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
    pub responses: Vec<ResponseOp>,
}

impl From<proto::KeyValue> for Kv {
    fn from(kv: proto::KeyValue) -> Kv {
        Kv {
            key: kv.key,
            value: kv.value,
            create_revision: kv.create_revision,
            mod_revision: kv.mod_revision,
            lease: kv.lease,
        }
    }
}

/// etcd refused the token: expired (16 UNAUTHENTICATED), or older than the last change of
/// users and roles (3, "revision of auth store is old").
pub(crate) fn stale_token(code: i64, message: &str) -> bool {
    code == 16 || (code == 3 && message.contains("auth store is old"))
}
