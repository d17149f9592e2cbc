//! The group and transaction admin APIs of a standalone node, which has neither, over TCP: the
//! empty-but-valid answers Kafka gives on a cluster without groups or transactions, at every
//! served version, and the refusals Kafka gives without DESCRIBE (DELETE, for DeleteGroups) on
//! the group or id.

mod common;
mod topics_support;

use std::borrow::Cow;

use common::*;
use kacl_acl::{AclOperation, PatternType, ResourceType};
use kacl_protocol::messages::consumer_group_describe::{
    ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse,
};
use kacl_protocol::messages::delete_groups::{DeleteGroupsRequest, DeleteGroupsResponse};
use kacl_protocol::messages::describe_groups::{DescribeGroupsRequest, DescribeGroupsResponse};
use kacl_protocol::messages::describe_transactions::{
    DescribeTransactionsRequest, DescribeTransactionsResponse,
};
use kacl_protocol::messages::find_coordinator::{FindCoordinatorRequest, FindCoordinatorResponse};
use kacl_protocol::messages::list_groups::{ListGroupsRequest, ListGroupsResponse};
use kacl_protocol::messages::list_transactions::{
    ListTransactionsRequest, ListTransactionsResponse,
};
use topics_support::{grant, ANONYMOUS, NOT_SUPER};

fn owned(names: &[&str]) -> Vec<Cow<'static, str>> {
    names.iter().map(|n| Cow::Owned((*n).to_owned())).collect()
}

#[tokio::test]
async fn listings_are_empty_and_lookups_find_nothing_at_every_version() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    for version in 0..=5i16 {
        let request = ListGroupsRequest {
            states_filter: if version >= 4 {
                owned(&["Stable"])
            } else {
                vec![]
            },
            types_filter: if version >= 5 {
                owned(&["consumer"])
            } else {
                vec![]
            },
            ..Default::default()
        };
        let payload = client.call(version, &request).await;
        let listed = decode::<ListGroupsResponse>(&payload, version);
        assert_eq!(
            (listed.error_code, listed.groups.len()),
            (0, 0),
            "v{version}"
        );
    }
    for version in 0..=6i16 {
        let request = DescribeGroupsRequest {
            groups: owned(&["g1", "g2"]),
            include_authorized_operations: version >= 3,
            ..Default::default()
        };
        let payload = client.call(version, &request).await;
        let described = decode::<DescribeGroupsResponse>(&payload, version);
        let expected = if version >= 6 { 69 } else { 0 };
        for (group, id) in described.groups.iter().zip(["g1", "g2"]) {
            assert_eq!(group.group_id, id);
            assert_eq!((group.error_code, &*group.group_state), (expected, "Dead"));
            assert!(group.members.is_empty());
            // Kafka sets the operations (asked from v3) on groups answered without error.
            let asked_and_found = (3..6).contains(&version);
            assert_eq!(
                group.authorized_operations != i32::MIN,
                asked_and_found,
                "v{version}"
            );
        }
        if version >= 6 {
            assert_eq!(
                described.groups[0].error_message.as_deref(),
                Some("Group g1 not found.")
            );
        }
    }
    for version in 0..=1i16 {
        let request = ConsumerGroupDescribeRequest {
            group_ids: owned(&["g1"]),
            ..Default::default()
        };
        let payload = client.call(version, &request).await;
        let described = decode::<ConsumerGroupDescribeResponse>(&payload, version);
        assert_eq!(described.groups[0].error_code, 69, "v{version}");
    }
    let addr = server.addr();
    for version in 0..=6i16 {
        let request = FindCoordinatorRequest {
            key: Cow::Borrowed(if version < 4 { "g1" } else { "" }),
            key_type: if version >= 1 { 1 } else { 0 },
            coordinator_keys: if version >= 4 {
                owned(&["g1", "g2"])
            } else {
                vec![]
            },
            ..Default::default()
        };
        let payload = client.call(version, &request).await;
        let found = decode::<FindCoordinatorResponse>(&payload, version);
        if version < 4 {
            assert_eq!(found.error_code, 0);
            assert_eq!((found.node_id, found.port), (1, i32::from(addr.port())));
            assert_eq!(&*found.host, "127.0.0.1");
        } else {
            assert_eq!(found.coordinators.len(), 2);
            assert!(found
                .coordinators
                .iter()
                .all(|c| c.error_code == 0 && c.node_id == 1));
        }
    }
    for version in 0..=2i16 {
        let request = ListTransactionsRequest {
            state_filters: owned(&["Ongoing", "Sleeping"]),
            ..Default::default()
        };
        let payload = client.call(version, &request).await;
        let listed = decode::<ListTransactionsResponse>(&payload, version);
        assert_eq!(listed.error_code, 0);
        assert!(listed.transaction_states.is_empty());
        assert_eq!(listed.unknown_state_filters, owned(&["Sleeping"]));
    }
    let request = DescribeTransactionsRequest {
        transactional_ids: owned(&["t1"]),
        ..Default::default()
    };
    let payload = client.call(0, &request).await;
    let described = decode::<DescribeTransactionsResponse>(&payload, 0);
    assert_eq!(described.transaction_states[0].error_code, 105);
    assert_eq!(described.transaction_states[0].transactional_id, "t1");
}

#[tokio::test]
async fn lookups_need_describe_on_the_group_or_transactional_id() {
    let server = start(NOT_SUPER).await;
    let mut client = server.client().await;
    grant(
        &server,
        ANONYMOUS,
        ResourceType::Group,
        "mine",
        PatternType::Literal,
        AclOperation::Describe,
    );
    grant(
        &server,
        ANONYMOUS,
        ResourceType::TransactionalId,
        "my-txn",
        PatternType::Literal,
        AclOperation::Describe,
    );
    let request = DescribeGroupsRequest {
        groups: owned(&["mine", "theirs"]),
        ..Default::default()
    };
    let payload = client.call(6, &request).await;
    let described = decode::<DescribeGroupsResponse>(&payload, 6);
    let codes: Vec<(&str, i16)> = described
        .groups
        .iter()
        .map(|g| (&*g.group_id, g.error_code))
        .collect();
    assert_eq!(
        codes,
        [("theirs", 30), ("mine", 69)],
        "refusals first, as Kafka"
    );

    let request = FindCoordinatorRequest {
        key_type: 0,
        coordinator_keys: owned(&["mine", "theirs"]),
        ..Default::default()
    };
    let payload = client.call(4, &request).await;
    let found = decode::<FindCoordinatorResponse>(&payload, 4);
    let answers: Vec<(i16, i32)> = found
        .coordinators
        .iter()
        .map(|c| (c.error_code, c.node_id))
        .collect();
    assert_eq!(answers, [(0, 1), (30, -1)]);
    let request = FindCoordinatorRequest {
        key: Cow::Borrowed("their-txn"),
        key_type: 1,
        ..Default::default()
    };
    let payload = client.call(3, &request).await;
    let found = decode::<FindCoordinatorResponse>(&payload, 3);
    assert_eq!((found.error_code, found.node_id), (53, -1));

    let request = DescribeTransactionsRequest {
        transactional_ids: owned(&["their-txn", "my-txn"]),
        ..Default::default()
    };
    let payload = client.call(0, &request).await;
    let described = decode::<DescribeTransactionsResponse>(&payload, 0);
    let codes: Vec<i16> = described
        .transaction_states
        .iter()
        .map(|t| t.error_code)
        .collect();
    assert_eq!(codes, [53, 105], "in request order");
    // Nothing to list either way; no error without Cluster:Describe.
    let payload = client.call(5, &ListGroupsRequest::default()).await;
    assert_eq!(decode::<ListGroupsResponse>(&payload, 5).error_code, 0);
}

#[tokio::test]
async fn delete_groups_finds_no_group_and_needs_delete_on_it() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    for version in 0..=2i16 {
        let request = DeleteGroupsRequest {
            groups_names: owned(&["g1", "", "g1"]),
            ..Default::default()
        };
        let payload = client.call(version, &request).await;
        let deleted = decode::<DeleteGroupsResponse>(&payload, version);
        let codes: Vec<(&str, i16)> = deleted
            .results
            .iter()
            .map(|r| (&*r.group_id, r.error_code))
            .collect();
        // GROUP_ID_NOT_FOUND for each id once, the empty one included, as Kafka 4.4.
        assert_eq!(codes, [("g1", 69), ("", 69)], "v{version}");
    }

    let server = start(NOT_SUPER).await;
    let mut client = server.client().await;
    for (group, operation) in [
        ("mine", AclOperation::Delete),
        ("seen", AclOperation::Describe),
    ] {
        grant(
            &server,
            ANONYMOUS,
            ResourceType::Group,
            group,
            PatternType::Literal,
            operation,
        );
    }
    let request = DeleteGroupsRequest {
        groups_names: owned(&["theirs", "seen", "mine"]),
        ..Default::default()
    };
    let payload = client.call(2, &request).await;
    let deleted = decode::<DeleteGroupsResponse>(&payload, 2);
    let codes: Vec<(&str, i16)> = deleted
        .results
        .iter()
        .map(|r| (&*r.group_id, r.error_code))
        .collect();
    assert_eq!(
        codes,
        [("mine", 69), ("theirs", 30), ("seen", 30)],
        "allowed first, then the refusals (DESCRIBE does not imply DELETE)"
    );
}
