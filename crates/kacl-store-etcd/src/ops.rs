//! Builders of a txn's operations and compares, and readers of its answers (the typed
//! `RequestOp`, `Compare` and `ResponseOp` of `proto`), under the names the store uses.

use crate::error::Kv;
use crate::proto::{self, Request, Response, ResponseOp, TargetUnion, WatchResponse};

/// One operation of a txn.
pub type Op = proto::RequestOp;
/// One compare of a txn.
pub type Cmp = proto::Compare;

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
pub fn op_put(key: &[u8], value: &[u8], lease: i64, prev_kv: bool) -> Op {
    Op {
        request: Some(Request::Put(proto::PutRequest {
            key: key.to_vec(),
            value: value.to_vec(),
            lease,
            prev_kv,
        })),
    }
}

/// A delete operation for a txn.
pub fn op_delete(key: &[u8], prev_kv: bool) -> Op {
    Op {
        request: Some(Request::DeleteRange(proto::DeleteRangeRequest {
            key: key.to_vec(),
            range_end: Vec::new(),
            prev_kv,
        })),
    }
}

/// A get operation for a txn.
pub fn op_get(key: &[u8]) -> Op {
    Op {
        request: Some(Request::Range(proto::RangeRequest {
            key: key.to_vec(),
            ..Default::default()
        })),
    }
}

fn compare(target: i32, key: &[u8], union: TargetUnion) -> Cmp {
    Cmp {
        result: proto::CMP_EQUAL,
        target,
        key: key.to_vec(),
        target_union: Some(union),
        range_end: Vec::new(),
    }
}

/// Compare: the key does not exist.
pub fn cmp_absent(key: &[u8]) -> Cmp {
    compare(proto::TARGET_CREATE, key, TargetUnion::CreateRevision(0))
}

/// Compare: no key of `[key, end)` exists.
pub fn cmp_range_absent(key: &[u8], end: &[u8]) -> Cmp {
    Cmp {
        range_end: end.to_vec(),
        ..cmp_absent(key)
    }
}

/// Compare: the key was last changed at `revision`.
pub fn cmp_mod(key: &[u8], revision: i64) -> Cmp {
    compare(proto::TARGET_MOD, key, TargetUnion::ModRevision(revision))
}

/// Compare: the key holds `value`.
pub fn cmp_value(key: &[u8], value: &[u8]) -> Cmp {
    compare(proto::TARGET_VALUE, key, TargetUnion::Value(value.to_vec()))
}

impl ResponseOp {
    /// The pairs of a get's answer (none for a put or a delete).
    pub fn range_kvs(&self) -> &[proto::KeyValue] {
        match &self.response {
            Some(Response::Range(range)) => &range.kvs,
            _ => &[],
        }
    }

    /// A put that replaced a value (asked with `prev_kv`).
    pub fn put_replaced(&self) -> bool {
        matches!(&self.response, Some(Response::Put(put)) if put.prev_kv.is_some())
    }

    /// The keys a delete removed.
    pub fn deleted(&self) -> i64 {
        match &self.response {
            Some(Response::DeleteRange(delete)) => delete.deleted,
            _ => 0,
        }
    }
}

impl WatchResponse {
    /// The revision in the header.
    pub fn revision(&self) -> i64 {
        self.header.as_ref().map_or(0, |h| h.revision)
    }
}

/// The first pair of the first range response of a txn.
pub(crate) fn first_kv(responses: &[ResponseOp]) -> Option<Kv> {
    responses
        .iter()
        .flat_map(|r| r.range_kvs())
        .next()
        .cloned()
        .map(Kv::from)
}
