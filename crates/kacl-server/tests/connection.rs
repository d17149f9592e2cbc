//! Framing, version negotiation and connection isolation over TCP.

mod common;

use std::borrow::Cow;

use common::*;
use kacl_protocol::messages::api_versions::{ApiVersionsRequest, ApiVersionsResponse};
use kacl_protocol::messages::describe_acls::{DescribeAclsRequest, DescribeAclsResponse};

fn api_versions_request(name: &str, version: &str) -> ApiVersionsRequest<'static> {
    ApiVersionsRequest {
        client_software_name: Cow::Owned(name.to_owned()),
        client_software_version: Cow::Owned(version.to_owned()),
        ..Default::default()
    }
}

/// An ApiVersions request frame of any version (body empty before v3, names after).
fn raw_api_versions(version: i16, correlation_id: i32) -> Vec<u8> {
    let mut payload = Vec::new();
    payload.extend_from_slice(&18i16.to_be_bytes());
    payload.extend_from_slice(&version.to_be_bytes());
    payload.extend_from_slice(&correlation_id.to_be_bytes());
    payload.extend_from_slice(&[0, 1, b'x']); // client id "x"
    if version >= 3 {
        payload.extend_from_slice(&[0, 2, b'x', 2, b'1', 0]); // tags, name, version, tags
    }
    let mut frame = (payload.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&payload);
    frame
}

#[tokio::test]
async fn api_versions_every_version_lists_the_acl_apis() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    for version in 0..=4i16 {
        let payload = client
            .call(version, &api_versions_request("kacl-test", "1.0"))
            .await;
        let resp: ApiVersionsResponse = decode(&payload, version);
        assert_eq!(resp.error_code, 0, "v{version}");
        for (key, min, max) in [
            (29, 0, 3),
            (30, 0, 3),
            (31, 0, 3),
            (18, 0, 4),
            (17, 0, 1),
            (36, 0, 2),
            (3, 0, 13),
            (60, 0, 1),
        ] {
            let api = resp
                .api_keys
                .iter()
                .find(|a| a.api_key == key)
                .expect("listed");
            assert_eq!((api.min_version, api.max_version), (min, max), "key {key}");
        }
    }
}

#[tokio::test]
async fn api_versions_of_an_unknown_version_answers_35_in_v0() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    client.send_raw(&raw_api_versions(9, 77)).await;
    let payload = client.read_frame().await.expect("answered");
    let resp: ApiVersionsResponse = decode(&payload, 0);
    assert_eq!(i32::from_be_bytes(payload[..4].try_into().unwrap()), 77);
    assert_eq!(resp.error_code, 35);
    let own = resp
        .api_keys
        .iter()
        .find(|a| a.api_key == 18)
        .expect("ApiVersions range");
    assert_eq!((own.min_version, own.max_version), (0, 4));
    // The client retries with a version in range on the same connection.
    client.send_raw(&raw_api_versions(3, 78)).await;
    let payload = client.read_frame().await.expect("answered");
    let resp: ApiVersionsResponse = decode(&payload, 3);
    assert_eq!(resp.error_code, 0);
}

#[tokio::test]
async fn api_versions_v3_with_invalid_software_name_is_invalid_request() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let payload = client
        .call(3, &api_versions_request("bad name!", "1"))
        .await;
    let resp: ApiVersionsResponse = decode(&payload, 3);
    assert_eq!(resp.error_code, 42);
    assert!(resp.api_keys.is_empty());
}

#[tokio::test]
async fn oversize_or_negative_frames_close_only_that_connection() {
    let server = start(&[("socket.request.max.bytes", "1000")]).await;
    let mut good = server.client().await;
    let mut bad = server.client().await;
    // Declares 2000 bytes; the server closes before reading them.
    bad.send_raw(&2000i32.to_be_bytes()).await;
    assert!(bad.is_closed().await);
    let mut negative = server.client().await;
    negative.send_raw(&(-5i32).to_be_bytes()).await;
    assert!(negative.is_closed().await);
    assert_eq!(good.describe(3, &describe_all()).await.error_code, 0);
}

#[tokio::test]
async fn unknown_api_keys_and_unsupported_versions_close_the_connection() {
    let server = start(&[]).await;
    // API key 0 (Produce) is not served.
    let mut client = server.client().await;
    client
        .send_raw(&[0, 0, 0, 10, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0])
        .await;
    assert!(client.is_closed().await);
    // DescribeAcls v4 does not exist.
    let mut client = server.client().await;
    let mut frame = Vec::new();
    kacl_protocol::frame::encode_request_frame(&mut frame, &Default::default(), 3, &describe_all())
        .unwrap();
    frame[7] = 4; // version low byte
    client.send_raw(&frame).await;
    assert!(client.is_closed().await);
    // A truncated header.
    let mut client = server.client().await;
    client.send_raw(&[0, 0, 0, 3, 0, 29, 0]).await;
    assert!(client.is_closed().await);
}

#[tokio::test]
async fn malformed_bodies_close_that_connection_only() {
    let server = start(&[]).await;
    let mut other = server.client().await;
    let mut client = server.client().await;
    let mut frame = Vec::new();
    kacl_protocol::frame::encode_request_frame(&mut frame, &Default::default(), 3, &describe_all())
        .unwrap();
    frame.truncate(frame.len() - 2); // the body ends inside its last field
    let len = (frame.len() - 4) as i32;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    client.send_raw(&frame).await;
    assert!(client.is_closed().await);
    // A half-sent frame then a hang-up does not disturb anyone either.
    let mut quitter = server.client().await;
    quitter.send_raw(&[0, 0, 0, 50, 0, 29]).await;
    drop(quitter);
    assert_eq!(other.describe(3, &describe_all()).await.error_code, 0);
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let mut ids = Vec::new();
    for i in 0..20 {
        if i % 2 == 0 {
            ids.push(client.send(3, &describe_all()).await);
        } else {
            ids.push(client.send(2, &api_versions_request("x", "1")).await);
        }
    }
    for id in ids {
        let payload = client.read_frame().await.expect("answer");
        assert_eq!(i32::from_be_bytes(payload[..4].try_into().unwrap()), id);
    }
}

/// Requests that arrive in one write are answered in order, their answers batched into one
/// write except a large one, which goes on its own; a request that closes the connection
/// still gets the answers before it out first.
#[tokio::test]
async fn requests_in_one_write_are_answered_in_order_then_closed() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    // 1,500 ACLs: the full describe's answer is larger than the server's 64 KiB batch.
    for chunk in 0..3 {
        let creations = (0..500)
            .map(|i| allow_read(&format!("pipelined-topic-{chunk}-{i:04}"), "User:someone"))
            .collect();
        let created = client.create(3, creations).await;
        assert!(created.results.iter().all(|r| r.error_code == 0));
    }
    let mut burst = Vec::new();
    let mut expected = Vec::new();
    for i in 0..30i32 {
        let correlation_id = 1_000 + i;
        let header = kacl_protocol::RequestHeader {
            correlation_id,
            client_id: Some(Cow::Borrowed("pipelined")),
            ..Default::default()
        };
        if i == 15 {
            kacl_protocol::frame::encode_request_frame(&mut burst, &header, 3, &describe_all())
        } else if i % 2 == 0 {
            let one = describe_filter(
                TOPIC,
                Some("pipelined-topic-1-0007"),
                LITERAL,
                None,
                ANY,
                ANY,
            );
            kacl_protocol::frame::encode_request_frame(&mut burst, &header, 1, &one)
        } else {
            kacl_protocol::frame::encode_request_frame(
                &mut burst,
                &header,
                2,
                &api_versions_request("x", "1"),
            )
        }
        .unwrap();
        expected.push((correlation_id, i));
    }
    // Last, API key 0 (Produce), which kacl does not serve: the connection closes after it.
    burst.extend_from_slice(&[0, 0, 0, 10, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0]);
    client.send_raw(&burst).await;
    for (correlation_id, i) in expected {
        let payload = client
            .read_frame()
            .await
            .expect("an answer before the close");
        assert_eq!(
            i32::from_be_bytes(payload[..4].try_into().unwrap()),
            correlation_id
        );
        if i == 15 {
            let body = decode::<DescribeAclsResponse>(&payload, 3);
            assert_eq!(acl_count(&body), 1_500);
        } else if i % 2 == 0 {
            let body = decode::<DescribeAclsResponse>(&payload, 1);
            assert_eq!(acl_count(&body), 1);
        }
    }
    assert!(client.is_closed().await);
}

#[tokio::test]
async fn many_concurrent_clients() {
    let server = start(&[]).await;
    let addr = server.addr();
    let tasks: Vec<_> = (0..32)
        .map(|i| {
            tokio::spawn(async move {
                let mut client = Client::connect(addr).await;
                let topic = format!("t{i}");
                let created = client.create(3, vec![allow_read(&topic, "User:a")]).await;
                assert_eq!(created.results[0].error_code, 0);
                let req: DescribeAclsRequest =
                    describe_filter(TOPIC, Some(&topic), LITERAL, None, ANY, ANY);
                assert_eq!(acl_count(&client.describe(3, &req).await), 1);
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let mut client = server.client().await;
    assert_eq!(acl_count(&client.describe(3, &describe_all()).await), 32);
}

#[tokio::test]
async fn shutdown_releases_the_data_directory() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    client.create(3, vec![allow_read("kept", "User:a")]).await;
    let server = restart(server, &[]).await;
    let mut client = server.client().await;
    assert_eq!(acl_count(&client.describe(3, &describe_all()).await), 1);
}
