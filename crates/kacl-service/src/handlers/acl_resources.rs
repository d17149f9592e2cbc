//! The ACL index's groups as DescribeAcls resources, each with its ACLs in display order
//! (principal, host, operation, permission; a describe of every pattern also lists the
//! patterns in display order, see kacl-acl): sized by a first walk, then encoded by a second,
//! either straight into a frame built whole (small answers) or, for a large answer, on a
//! blocking thread into pieces the connection writes while the rest is encoded.
//!
//! Why stream: a full describe of 2M ACLs is ~60 MB and takes ~0.1 s to encode. Built whole,
//! the client sees nothing until all of it is encoded; streamed, it decodes the first
//! resources while the server encodes the last (issues 18 and 19 in BENCHMARKS.md), and the
//! connection task is never blocked for the encode either.
//!
//! The frame's size prefix must go first, so the size walk runs before the first byte under
//! the same read view as the encoding; if the index changed since the handler's own size walk
//! ([`AclIndex::changes`]), the encoder sizes again rather than trust it.

use std::borrow::Cow;
use std::sync::Arc;

use kacl_acl::{AclBindingFilter, AclGroup, AclIndex, SharedAclIndex};
use kacl_protocol::frame::StreamedArrayFrame;
use kacl_protocol::messages::describe_acls::{
    AclDescription, DescribeAclsResource, DescribeAclsResponse,
};
use kacl_protocol::wire::{array_field_len, Cx, Field};
use kacl_protocol::Message;
use tokio::sync::Semaphore;

use crate::outcome::{Outcome, PieceSender, ResponseStream};

/// Answers whose resources take more than this many bytes are streamed; smaller ones (most
/// requests: one principal's or one resource's ACLs) are built whole on the connection task,
/// where a thread hand-off would cost more than the encoding.
pub(super) const STREAM_AT: usize = 256 * 1024;

/// The first piece of a streamed answer is this small, so the first resources leave at once;
/// each later piece doubles, up to [`LARGEST_PIECE`].
const FIRST_PIECE: usize = 16 * 1024;

/// The largest piece: few enough writes for tens of megabytes, small enough to overlap.
const LARGEST_PIECE: usize = 256 * 1024;

/// The successful answer's fields around its resources.
pub(super) fn shell() -> DescribeAclsResponse<'static> {
    DescribeAclsResponse {
        throttle_time_ms: 0,
        error_code: 0,
        error_message: Some(Cow::Borrowed("")),
        resources: Vec::new(),
        unknown_tagged_fields: Default::default(),
    }
}

/// The context resources are encoded in at `version`.
pub(super) fn resource_cx(version: i16) -> Cx {
    Cx::top(version, DescribeAclsResponse::FLEXIBLE.contains(version))
}

/// Sets `resource` to `group`, reusing its ACL storage, with its ACLs in display order:
/// principal, host, operation, permission (the index keeps them by interned id). Deliberate
/// difference from Kafka, which lists them in hash order (see `DIFFERENCES_FROM_KAFKA`).
pub(super) fn fill_resource<'i>(resource: &mut DescribeAclsResource<'i>, group: &AclGroup<'i>) {
    resource.resource_type = group.pattern.resource_type.code();
    resource.resource_name = Cow::Borrowed(group.pattern.name);
    resource.pattern_type = group.pattern.pattern_type.code();
    resource.acls.clear();
    resource
        .acls
        .extend(group.entries.clone().map(|entry| AclDescription {
            principal: Cow::Borrowed(entry.principal),
            host: Cow::Borrowed(entry.host),
            operation: entry.operation.code(),
            permission_type: entry.permission_type.code(),
            unknown_tagged_fields: Default::default(),
        }));
    // Codes order as the enums do (`code == ordinal`).
    fn key<'a>(acl: &'a AclDescription<'_>) -> (&'a str, &'a str, i8, i8) {
        (
            &acl.principal,
            &acl.host,
            acl.operation,
            acl.permission_type,
        )
    }
    if !resource.acls.is_sorted_by(|a, b| key(a) <= key(b)) {
        resource.acls.sort_unstable_by(|a, b| key(a).cmp(&key(b)));
    }
}

/// What a size walk found: how many resources, and their encoded length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct AnswerSize {
    /// Resources (patterns with at least one matching ACL).
    pub(super) count: usize,
    /// Their encoded length at the answer's version.
    pub(super) len: usize,
    /// The index's [`AclIndex::changes`] when they were counted.
    pub(super) changes: u64,
}

/// Sizes the answer to `filter` under `index`, handing each group to `keep` on the way.
pub(super) fn size<'i>(
    index: &'i AclIndex,
    filter: &AclBindingFilter,
    cx: Cx,
    mut keep: impl FnMut(AclGroup<'i>),
) -> AnswerSize {
    let (mut count, mut len) = (0, 0);
    index.for_each_group(filter, |group| {
        count += 1;
        len += resource_len(&group, cx);
        keep(group);
    });
    AnswerSize {
        count,
        len,
        changes: index.changes(),
    }
}

/// Exactly the `field_len` of the resource [`fill_resource`] makes of `group`, without making
/// it: the declared structs' own `field_len`, the ACLs one at a time on the stack instead of
/// collected into the resource (building and dropping them was most of the size walk's time,
/// and the size walk is what a streamed answer's first byte waits for). Tested against the
/// built resource.
fn resource_len(group: &AclGroup<'_>, cx: Cx) -> usize {
    let head = DescribeAclsResource {
        resource_type: group.pattern.resource_type.code(),
        resource_name: Cow::Borrowed(group.pattern.name),
        pattern_type: group.pattern.pattern_type.code(),
        ..Default::default()
    };
    let entry_cx = cx.with_nullable(false);
    let (mut acls, mut acls_len) = (0, 0);
    for entry in group.entries.clone() {
        acls += 1;
        acls_len += AclDescription {
            principal: Cow::Borrowed(entry.principal),
            host: Cow::Borrowed(entry.host),
            operation: entry.operation.code(),
            permission_type: entry.permission_type.code(),
            unknown_tagged_fields: Default::default(),
        }
        .field_len(entry_cx);
    }
    // The head's empty ACL array, replaced by the real one.
    head.field_len(cx) - array_field_len(0, 0, cx) + array_field_len(acls, acls_len, cx)
}

/// Starts streaming the answer to `filter` (sized as `sized` by the handler) and returns the
/// stream the connection writes from. The encoding waits for one of `encoders`' permits.
pub(super) fn stream(
    acls: SharedAclIndex,
    encoders: Arc<Semaphore>,
    filter: AclBindingFilter,
    version: i16,
    correlation_id: i32,
    sized: AnswerSize,
) -> Outcome {
    let (sender, stream) = ResponseStream::channel();
    tokio::spawn(async move {
        let Ok(permit) = encoders.acquire_owned().await else {
            return sender.fail("the server is shutting down");
        };
        let encoded = tokio::task::spawn_blocking(move || {
            encode_in_pieces(&acls, &filter, version, correlation_id, sized, sender);
            drop(permit);
        })
        .await;
        if let Err(err) = encoded {
            // The sender went with the panicked closure: the connection sees the stream end
            // short and closes.
            tracing::error!(%err, "DescribeAcls encoder failed");
        }
    });
    Outcome::Stream(stream)
}

/// Encodes the answer under one read view, handing pieces to `sender` as they fill.
fn encode_in_pieces(
    acls: &SharedAclIndex,
    filter: &AclBindingFilter,
    version: i16,
    correlation_id: i32,
    sized: AnswerSize,
    sender: PieceSender,
) {
    let index = acls.read();
    let cx = resource_cx(version);
    let sized = if index.changes() == sized.changes {
        sized
    } else {
        size(&index, filter, cx, |_| {})
    };
    let mut piece = Vec::with_capacity(FIRST_PIECE);
    let mut frame = match StreamedArrayFrame::start(
        &mut piece,
        correlation_id,
        version,
        &shell(),
        sized.count,
        sized.len,
    ) {
        Ok(frame) => frame,
        Err(err) => return sender.fail(format!("cannot encode the DescribeAcls response: {err}")),
    };
    let mut room = FIRST_PIECE;
    let mut resource = DescribeAclsResource::default();
    let mut failed = None;
    let mut listening = true;
    index.for_each_group(filter, |group| {
        if failed.is_some() || !listening {
            return;
        }
        fill_resource(&mut resource, &group);
        if let Err(err) = frame.append(&mut piece, &resource) {
            failed = Some(err);
            return;
        }
        if piece.len() >= room {
            room = (room * 2).min(LARGEST_PIECE);
            let full = std::mem::replace(&mut piece, Vec::with_capacity(room + room / 8));
            listening = sender.send(full);
        }
    });
    drop(index);
    if !listening {
        return;
    }
    match failed.map_or_else(|| frame.finish(&mut piece), Err) {
        Ok(()) => {
            if sender.send(piece) {
                sender.finish();
            }
        }
        Err(err) => sender.fail(format!("cannot encode the DescribeAcls response: {err}")),
    }
}

#[cfg(test)]
mod tests {
    use kacl_acl::{
        AccessControlEntry, AclBinding, AclChanges, AclOperation, AclPermissionType, PatternType,
        ResourcePattern, ResourceType,
    };
    use kacl_protocol::frame::encode_response_frame;

    use super::*;

    fn topic_acls(from: usize, to: usize) -> Vec<AclBinding> {
        (from..to)
            .map(|i| {
                AclBinding::new(
                    ResourcePattern::new(
                        ResourceType::Topic,
                        format!("topic-{i:06}"),
                        PatternType::Literal,
                    ),
                    AccessControlEntry::new(
                        format!("User:app-{}", i % 7),
                        "*",
                        AclOperation::Read,
                        AclPermissionType::Allow,
                    ),
                )
            })
            .collect()
    }

    fn add(acls: &SharedAclIndex, adds: Vec<AclBinding>) {
        acls.apply(&AclChanges {
            removes: Vec::new(),
            adds,
        })
        .unwrap();
    }

    /// The frame the pieces must add up to: the whole answer built as one message.
    fn whole_frame(acls: &SharedAclIndex, version: i16) -> Vec<u8> {
        let index = acls.read();
        let mut response = shell();
        index.for_each_group(&AclBindingFilter::ANY, |group| {
            let mut resource = DescribeAclsResource::default();
            fill_resource(&mut resource, &group);
            response.resources.push(resource);
        });
        let mut out = Vec::new();
        encode_response_frame(&mut out, 42, version, &response).unwrap();
        out
    }

    async fn streamed_frame(
        acls: &SharedAclIndex,
        version: i16,
        sized: AnswerSize,
    ) -> Result<(Vec<u8>, usize), String> {
        let (sender, mut stream) = ResponseStream::channel();
        encode_in_pieces(acls, &AclBindingFilter::ANY, version, 42, sized, sender);
        let (mut frame, mut pieces) = (Vec::new(), 0);
        while let Some(piece) = stream.next().await? {
            frame.extend_from_slice(&piece);
            pieces += 1;
        }
        Ok((frame, pieces))
    }

    #[tokio::test]
    async fn pieces_add_up_to_the_whole_frame_at_every_version() {
        let acls = SharedAclIndex::new();
        add(&acls, topic_acls(0, 20_000));
        for version in 0..=3 {
            let sized = size(
                &acls.read(),
                &AclBindingFilter::ANY,
                resource_cx(version),
                |_| {},
            );
            let (frame, pieces) = streamed_frame(&acls, version, sized).await.unwrap();
            assert_eq!(frame, whole_frame(&acls, version), "v{version}");
            assert!(pieces > 3, "v{version}: {pieces} pieces");
        }
    }

    /// The size walk's arithmetic equals the built resources' `field_len` at every version,
    /// for long strings (two-byte length prefixes) and large groups (two-byte array counts).
    #[test]
    fn the_size_walk_equals_the_built_resources() {
        let acls = SharedAclIndex::new();
        add(&acls, topic_acls(0, 3_000));
        let many: Vec<AclBinding> = (0..300)
            .map(|i| {
                AclBinding::new(
                    ResourcePattern::new(
                        ResourceType::Group,
                        "g".repeat(200),
                        PatternType::Prefixed,
                    ),
                    AccessControlEntry::new(
                        format!("User:{}-{i}", "p".repeat(150)),
                        if i % 2 == 0 {
                            "*".to_owned()
                        } else {
                            format!("10.0.{}.{}", i / 256, i % 256)
                        },
                        if i % 3 == 0 {
                            AclOperation::Write
                        } else {
                            AclOperation::Read
                        },
                        if i % 5 == 0 {
                            AclPermissionType::Deny
                        } else {
                            AclPermissionType::Allow
                        },
                    ),
                )
            })
            .collect();
        add(&acls, many);
        let index = acls.read();
        for version in 0..=3 {
            let cx = resource_cx(version);
            for filter in [
                AclBindingFilter::ANY,
                AclBindingFilter {
                    entry: kacl_acl::AccessControlEntryFilter {
                        principal: Some("User:app-3".into()),
                        ..AclBindingFilter::ANY.entry
                    },
                    ..AclBindingFilter::ANY
                },
            ] {
                let (mut count, mut built) = (0, 0);
                let mut resource = DescribeAclsResource::default();
                index.for_each_group(&filter, |group| {
                    fill_resource(&mut resource, &group);
                    count += 1;
                    built += resource.field_len(cx);
                });
                let sized = size(&index, &filter, cx, |_| {});
                assert!(count > 0);
                assert_eq!(
                    (sized.count, sized.len),
                    (count, built),
                    "v{version} {filter:?}"
                );
            }
        }
    }

    /// A size taken before a write is not trusted: the encoder sizes again under its own view.
    #[tokio::test]
    async fn a_size_from_before_a_write_is_taken_again() {
        let acls = SharedAclIndex::new();
        add(&acls, topic_acls(0, 10_000));
        let stale = size(&acls.read(), &AclBindingFilter::ANY, resource_cx(3), |_| {});
        add(&acls, topic_acls(10_000, 10_500));
        let (frame, _) = streamed_frame(&acls, 3, stale).await.unwrap();
        assert_eq!(frame, whole_frame(&acls, 3));
    }

    /// A size that is wrong for the view it claims fails the stream instead of sending a frame
    /// whose size prefix lies.
    #[tokio::test]
    async fn a_wrong_size_fails_the_stream() {
        let acls = SharedAclIndex::new();
        add(&acls, topic_acls(0, 10_000));
        let right = size(&acls.read(), &AclBindingFilter::ANY, resource_cx(3), |_| {});
        for wrong in [
            AnswerSize {
                len: right.len - 1,
                ..right
            },
            AnswerSize {
                count: right.count + 1,
                ..right
            },
        ] {
            let failed = streamed_frame(&acls, 3, wrong).await.unwrap_err();
            assert!(failed.contains("cannot encode"), "{failed}");
        }
    }

    /// A connection that has gone stops the encoder at its next piece.
    #[test]
    fn the_encoder_stops_when_nobody_listens() {
        let acls = SharedAclIndex::new();
        add(&acls, topic_acls(0, 20_000));
        let sized = size(&acls.read(), &AclBindingFilter::ANY, resource_cx(3), |_| {});
        let (sender, stream) = ResponseStream::channel();
        drop(stream);
        encode_in_pieces(&acls, &AclBindingFilter::ANY, 3, 42, sized, sender);
    }
}
