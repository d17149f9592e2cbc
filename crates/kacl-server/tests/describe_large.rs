//! A DescribeAcls answer of thousands of patterns, which the server writes one resource at a
//! time (sized by a first walk over the index): every version must return exactly the stored
//! set, each pattern once, whatever the mix of one-ACL and many-ACL patterns.

mod common;

use std::collections::BTreeSet;

use common::*;
use kacl_protocol::messages::describe_acls::DescribeAclsResponse;

#[tokio::test]
async fn a_describe_of_thousands_of_patterns_returns_exactly_the_stored_set() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    // Patterns with 1, 2 or 5 ACLs; every seventh PREFIXED.
    let expected = store_set(&mut client, 1_500, |i| {
        let pattern_type = if i % 7 == 0 { PREFIXED } else { LITERAL };
        let principals = (0..[1, 2, 5][i % 3]).map(|j| format!("User:app-{j}"));
        (
            format!("orders.topic-{i:05}"),
            pattern_type,
            principals.collect(),
        )
    })
    .await;

    for version in 1..=3 {
        let all = client.describe(version, &describe_all()).await;
        assert_eq!(all.error_code, 0);
        assert_eq!(
            all.resources.len(),
            1_500,
            "one resource per pattern at v{version}"
        );
        assert_display_order(&all);
        let rows = acl_rows(&all);
        let got: BTreeSet<AclRow> = rows.iter().cloned().collect();
        assert_eq!(got.len(), rows.len(), "duplicate ACL at v{version}");
        assert_eq!(got, expected, "v{version}");
    }
    // v0 cannot express PREFIXED: only the LITERAL patterns come back.
    let v0_all = describe_filter(ANY, None, LITERAL, None, ANY, ANY);
    let literal = client.describe(0, &v0_all).await;
    let literal_expected = expected.iter().filter(|row| row.2 == LITERAL).count();
    assert_eq!(acl_count(&literal), literal_expected);
    assert!(literal.resources.iter().all(|r| r.pattern_type == LITERAL));
}

/// A describe of every ACL lists the resources by (type, name, pattern type) and each one's
/// ACLs by (principal, host, operation, permission), so that a client can show the first page
/// of a sorted listing as soon as it arrives.
fn assert_display_order(answer: &DescribeAclsResponse<'_>) {
    let key = |r: &kacl_protocol::messages::describe_acls::DescribeAclsResource<'_>| {
        (r.resource_type, r.resource_name.to_string(), r.pattern_type)
    };
    let out_of_order = answer
        .resources
        .windows(2)
        .position(|w| key(&w[0]) >= key(&w[1]));
    assert_eq!(out_of_order, None, "resources out of display order");
    for resource in &answer.resources {
        let sorted = resource.acls.windows(2).all(|w| {
            (
                &w[0].principal,
                &w[0].host,
                w[0].operation,
                w[0].permission_type,
            ) < (
                &w[1].principal,
                &w[1].host,
                w[1].operation,
                w[1].permission_type,
            )
        });
        assert!(
            sorted,
            "ACLs of {} out of display order",
            resource.resource_name
        );
    }
}

/// Stores `patterns` topic patterns, pattern `i` being `pattern(i)` = (name, pattern type,
/// principals each granted READ from any host), in CreateAcls batches of about 1,000; returns
/// every ACL as a row.
async fn store_set(
    client: &mut Client,
    patterns: usize,
    pattern: impl Fn(usize) -> (String, i8, Vec<String>),
) -> BTreeSet<AclRow> {
    let mut expected = BTreeSet::new();
    let mut batch = Vec::new();
    for i in 0..patterns {
        let (name, pattern_type, principals) = pattern(i);
        for principal in principals {
            batch.push(creation(
                TOPIC,
                &name,
                pattern_type,
                &principal,
                "*",
                READ,
                ALLOW,
            ));
            expected.insert((
                TOPIC,
                name.clone(),
                pattern_type,
                principal,
                "*".into(),
                READ,
                ALLOW,
            ));
        }
        if batch.len() >= 1_000 {
            let created = client.create(3, std::mem::take(&mut batch)).await;
            assert!(created.results.iter().all(|r| r.error_code == 0));
        }
    }
    let created = client.create(3, batch).await;
    assert!(created.results.iter().all(|r| r.error_code == 0));
    expected
}

/// An answer larger than the server's streaming threshold (256 KiB of resources) is written
/// while it is encoded: `patterns` patterns with two long-named ACLs each.
async fn store_streamable_set(client: &mut Client, patterns: usize) -> BTreeSet<AclRow> {
    store_set(client, patterns, |i| {
        let pattern_type = if i % 5 == 0 { PREFIXED } else { LITERAL };
        // Interned "-1" first: the index then keeps each pattern's entries in the reverse of
        // their display order, which the answer must still be in.
        let principals = (0..2)
            .rev()
            .map(|j| format!("User:streaming-application-service-account-{j}"));
        (
            format!("payments.settlement.topic-with-a-long-name-{i:06}"),
            pattern_type,
            principals.collect(),
        )
    })
    .await
}

#[tokio::test]
async fn a_streamed_describe_returns_exactly_the_stored_set_at_every_version() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let expected = store_streamable_set(&mut client, 4_000).await;
    for version in 0..=3 {
        let filter = if version == 0 {
            describe_filter(ANY, None, LITERAL, None, ANY, ANY)
        } else {
            describe_all()
        };
        let payload = client.call(version, &filter).await;
        assert!(
            payload.len() > 256 * 1024,
            "v{version}: {} bytes is not a streamed answer",
            payload.len()
        );
        let all = decode::<DescribeAclsResponse>(&payload, version);
        assert_eq!(all.error_code, 0);
        assert_display_order(&all);
        assert_eq!(all.error_message.as_deref(), Some(""));
        let rows = acl_rows(&all);
        let got: BTreeSet<AclRow> = rows.iter().cloned().collect();
        assert_eq!(got.len(), rows.len(), "duplicate ACL at v{version}");
        let wanted: BTreeSet<AclRow> = expected
            .iter()
            .filter(|row| version > 0 || row.2 == LITERAL)
            .cloned()
            .collect();
        assert_eq!(got, wanted, "v{version}");
    }
}

/// Small answers before and after a streamed one, sent in one write, come back in request
/// order, each whole; so does a small one the server holds back for a batch.
#[tokio::test]
async fn answers_around_a_streamed_one_keep_their_order() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let expected = store_streamable_set(&mut client, 4_000).await;
    let one = describe_filter(
        TOPIC,
        Some("payments.settlement.topic-with-a-long-name-000001"),
        LITERAL,
        None,
        ANY,
        ANY,
    );
    let mut burst = Vec::new();
    let mut order = Vec::new();
    for i in 0..9i32 {
        let header = kacl_protocol::RequestHeader {
            correlation_id: 500 + i,
            client_id: Some("streamed".into()),
            ..Default::default()
        };
        let large = i % 4 == 2;
        let body = if large { describe_all() } else { one.clone() };
        kacl_protocol::frame::encode_request_frame(&mut burst, &header, 2, &body).unwrap();
        order.push((500 + i, large));
    }
    client.send_raw(&burst).await;
    for (correlation_id, large) in order {
        let payload = client.read_frame().await.expect("an answer");
        assert_eq!(
            i32::from_be_bytes(payload[..4].try_into().unwrap()),
            correlation_id
        );
        let body = decode::<DescribeAclsResponse>(&payload, 2);
        assert_eq!(acl_count(&body), if large { expected.len() } else { 2 });
    }
    // The connection still serves afterwards.
    assert_eq!(client.describe(3, &one).await.resources.len(), 1);
}

/// ACLs created while large answers are streamed never tear an answer: each one is the set as
/// it stood between two CreateAcls batches (the encoder holds one read view throughout).
#[tokio::test]
async fn streamed_answers_are_one_view_while_acls_are_written() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let base = store_streamable_set(&mut client, 3_000).await.len();
    let mut writer = server.client().await;
    let writes = tokio::spawn(async move {
        for round in 0..8 {
            let batch = (0..500)
                .map(|i| allow_read(&format!("written-meanwhile-{round}-{i:04}"), "User:w"))
                .collect();
            let created = writer.create(3, batch).await;
            assert!(created.results.iter().all(|r| r.error_code == 0));
        }
    });
    let mut seen = BTreeSet::new();
    while !writes.is_finished() || seen.is_empty() {
        let all = client.describe(3, &describe_all()).await;
        let rows = acl_rows(&all);
        let distinct: BTreeSet<AclRow> = rows.iter().cloned().collect();
        assert_eq!(distinct.len(), rows.len(), "a duplicate ACL");
        let extra = rows.len() - base;
        assert_eq!(extra % 500, 0, "a torn answer: {} ACLs", rows.len());
        seen.insert(extra / 500);
    }
    writes.await.unwrap();
    let last = client.describe(3, &describe_all()).await;
    assert_eq!(acl_count(&last), base + 8 * 500);
}

/// The request latency of a streamed answer runs until its last byte is written: a client
/// that starts reading only after a pause holds up the server's writes, and the latency
/// recorded for the DescribeAcls covers that wait (it used to end when the stream began, so
/// the slowest describes were recorded as the fastest).
#[tokio::test]
async fn a_streamed_answer_is_timed_until_its_last_byte_is_written() {
    const PAUSE: std::time::Duration = std::time::Duration::from_millis(600);
    let server = start(&[("socket.send.buffer.bytes", "4096")]).await;
    let mut loader = server.client().await;
    store_streamable_set(&mut loader, 4_000).await;
    let mut reader = Client::with_small_window(server.addr()).await;
    reader.send(3, &describe_all()).await;
    tokio::time::sleep(PAUSE).await;
    let payload = reader.read_frame().await.expect("the answer");
    assert!(
        payload.len() > 256 * 1024,
        "{} bytes: not streamed",
        payload.len()
    );
    let latency = latency_after(&server, kacl_protocol::ApiKey::DescribeAcls, 1).await;
    assert_eq!(latency.count, 1);
    assert!(
        std::time::Duration::from_nanos(latency.sum_nanos) >= PAUSE,
        "recorded {} ms for an answer the client read after {PAUSE:?}",
        latency.sum_nanos / 1_000_000
    );
}
