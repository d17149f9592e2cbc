//! DescribeAcls, CreateAcls and DeleteAcls over TCP, every version 0-3, with Kafka's codes and
//! texts and kacl's deliberate differences.

mod common;

use common::*;
use kacl_protocol::messages::describe_acls::DescribeAclsResponse;

const SEED_REQUEST: [u8; 23] = [
    0, 0, 0, 19, 0, 29, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0,
];

#[tokio::test]
async fn seed_all_zero_describe_gets_a_v3_invalid_request() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    client.send_raw(&SEED_REQUEST).await;
    let payload = client
        .read_frame()
        .await
        .expect("a response, not a closed connection");
    // Response header v1: correlation id 0, empty tag section.
    assert_eq!(&payload[..5], &[0, 0, 0, 0, 0]);
    let resp: DescribeAclsResponse = decode(&payload, 3);
    assert_eq!(resp.error_code, 42);
    assert_eq!(
        resp.error_message.as_deref(),
        Some("Invalid resourceTypeFilter 0: UNKNOWN is not a valid resource type filter")
    );
    assert!(resp.resources.is_empty());
    // The connection stays usable.
    let ok = client.describe(3, &describe_all()).await;
    assert_eq!(ok.error_code, 0);
}

#[tokio::test]
async fn create_describe_delete_round_trip_at_every_version() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    for version in 0..=3i16 {
        let topic = format!("orders-v{version}");
        let created = client
            .create(
                version,
                vec![
                    allow_read(&topic, "User:alice"),
                    creation(TOPIC, &topic, LITERAL, "User:bob", "10.0.0.1", WRITE, DENY),
                ],
            )
            .await;
        assert_eq!(created.results.len(), 2);
        for r in &created.results {
            assert_eq!(r.error_code, 0);
            assert_eq!(
                r.error_message.as_deref(),
                Some(""),
                "success message is \"\" (v{version})"
            );
        }
        let described = client
            .describe(
                version,
                &describe_filter(TOPIC, Some(&topic), LITERAL, None, ANY, ANY),
            )
            .await;
        assert_eq!(described.error_code, 0);
        assert_eq!(described.error_message.as_deref(), Some(""));
        assert_eq!(described.resources.len(), 1);
        let resource = &described.resources[0];
        assert_eq!(resource.resource_name, topic);
        assert_eq!(resource.pattern_type, LITERAL);
        assert_eq!(resource.acls.len(), 2);

        let deleted = client
            .delete(
                version,
                vec![delete_filter(
                    TOPIC,
                    Some(&topic),
                    LITERAL,
                    Some("User:alice"),
                    ANY,
                    ANY,
                )],
            )
            .await;
        assert_eq!(deleted.filter_results.len(), 1);
        let result = &deleted.filter_results[0];
        assert_eq!(result.error_code, 0);
        assert_eq!(
            result.error_message, None,
            "DeleteAcls success message is null"
        );
        assert_eq!(result.matching_acls.len(), 1);
        let acl = &result.matching_acls[0];
        assert_eq!((acl.error_code, acl.error_message.as_deref()), (0, None));
        assert_eq!(acl.principal, "User:alice");
        assert_eq!(
            (acl.operation, acl.permission_type, acl.resource_type),
            (READ, ALLOW, TOPIC)
        );
        let after = client
            .describe(
                version,
                &describe_filter(TOPIC, Some(&topic), LITERAL, None, ANY, ANY),
            )
            .await;
        assert_eq!(acl_count(&after), 1);
    }
}

#[tokio::test]
async fn v0_sees_only_literal_patterns() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let created = client
        .create(
            1,
            vec![
                allow_read("pay", "User:a"),
                creation(TOPIC, "pay", PREFIXED, "User:a", "*", READ, ALLOW),
            ],
        )
        .await;
    assert!(created.results.iter().all(|r| r.error_code == 0));
    let v0 = client
        .describe(0, &describe_filter(TOPIC, None, LITERAL, None, ANY, ANY))
        .await;
    assert_eq!(v0.resources.len(), 1);
    assert_eq!(v0.resources[0].resource_name, "pay");
    let v1 = client
        .describe(1, &describe_filter(TOPIC, None, ANY, None, ANY, ANY))
        .await;
    assert_eq!(v1.resources.len(), 2);
    // A v0 delete is LITERAL too: the PREFIXED ACL survives.
    let deleted = client
        .delete(
            0,
            vec![delete_filter(TOPIC, Some("pay"), LITERAL, None, ANY, ANY)],
        )
        .await;
    assert_eq!(deleted.filter_results[0].matching_acls.len(), 1);
    let left = client.describe(1, &describe_all()).await;
    assert_eq!(left.resources.len(), 1);
    assert_eq!(left.resources[0].pattern_type, PREFIXED);
}

#[tokio::test]
async fn describe_groups_by_pattern_and_ands_the_filter() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let acls = vec![
        allow_read("t1", "User:alice"),
        creation(TOPIC, "t1", LITERAL, "User:alice", "*", WRITE, ALLOW),
        allow_read("t1", "User:bob"),
        allow_read("*", "User:carol"),
        creation(TOPIC, "t", PREFIXED, "User:dave", "*", ALL, DENY),
        creation(GROUP, "g", LITERAL, "User:alice", "*", READ, ALLOW),
        creation(
            CLUSTER,
            "kafka-cluster",
            LITERAL,
            "User:*",
            "*",
            DESCRIBE,
            ALLOW,
        ),
        creation(USER, "User:x", LITERAL, "User:alice", "*", 13, ALLOW),
    ];
    let created = client.create(3, acls).await;
    assert!(
        created.results.iter().all(|r| r.error_code == 0),
        "{created:?}"
    );
    let all = client.describe(3, &describe_all()).await;
    assert_eq!(acl_count(&all), 8);
    assert_eq!(all.resources.len(), 6, "one resource per pattern");
    // MATCH t1: the literal t1, the wildcard and the prefix t.
    let matched = client
        .describe(
            3,
            &describe_filter(TOPIC, Some("t1"), MATCH, None, ANY, ANY),
        )
        .await;
    assert_eq!(acl_count(&matched), 5);
    // null principal vs "User:*": the latter only matches the literal wildcard principal.
    let star = client
        .describe(
            3,
            &describe_filter(ANY, None, ANY, Some("User:*"), ANY, ANY),
        )
        .await;
    assert_eq!(acl_count(&star), 1);
    // ANDed fields.
    let alice_reads = client
        .describe(
            3,
            &describe_filter(ANY, None, ANY, Some("User:alice"), READ, ALLOW),
        )
        .await;
    assert_eq!(acl_count(&alice_reads), 2);
    // LITERAL "*" returns only the wildcard ACLs.
    let wildcard = client
        .describe(
            3,
            &describe_filter(TOPIC, Some("*"), LITERAL, None, ANY, ANY),
        )
        .await;
    assert_eq!(acl_count(&wildcard), 1);
    // Out-of-range codes: kacl names the field (Kafka would answer an empty success).
    let bad = client
        .describe(3, &describe_filter(ANY, None, ANY, None, 99, ANY))
        .await;
    assert_eq!(bad.error_code, 42);
    assert_eq!(
        bad.error_message.as_deref(),
        Some("Invalid operation 99: no operation has this code")
    );
    let bad = client
        .describe(2, &describe_filter(ANY, None, 0, None, ANY, ANY))
        .await;
    assert_eq!(bad.error_code, 42);
    assert!(bad.error_message.unwrap().contains("patternTypeFilter"));
}

#[tokio::test]
async fn create_validates_each_entry_with_kafkas_texts() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let entries = vec![
        creation(CLUSTER, "my-cluster", LITERAL, "User:a", "*", ALTER, ALLOW),
        creation(TOPIC, "", LITERAL, "User:a", "*", READ, ALLOW),
        creation(ANY, "t", LITERAL, "User:a", "*", READ, ALLOW),
        creation(TOPIC, "t", MATCH, "User:a", "*", READ, ALLOW),
        creation(TOPIC, "t", ANY, "User:a", "*", READ, ALLOW),
        creation(TOPIC, "t", LITERAL, "User:a", "*", ANY, ALLOW),
        creation(TOPIC, "t", LITERAL, "User:a", "*", READ, ANY),
        creation(TOPIC, "t", LITERAL, "alice", "*", READ, ALLOW),
        creation(0, "t", LITERAL, "User:a", "*", READ, ALLOW),
        creation(TOPIC, "t", LITERAL, "User:a", "*", 0, ALLOW),
        allow_read("good", "User:a"),
    ];
    let created = client.create(3, entries).await;
    let got: Vec<(i16, Option<&str>)> = created
        .results
        .iter()
        .map(|r| (r.error_code, r.error_message.as_deref()))
        .collect();
    assert_eq!(
        got,
        vec![
            (42, Some("The only valid name for the CLUSTER resource is kafka-cluster")),
            (42, Some("Invalid empty resource name")),
            (42, Some("Invalid resourceType ANY")),
            (42, Some("Invalid patternType MATCH")),
            (42, Some("Invalid patternType ANY")),
            (42, Some("Invalid operation ANY")),
            (42, Some("Invalid permissionType ANY")),
            (42, Some("Could not parse principal from `alice` (no colon is present separating the principal type from the principal name)")),
            (42, Some("Invalid resourceType UNKNOWN")),
            (42, Some("Invalid operation UNKNOWN")),
            (0, Some("")),
        ]
    );
    let all = client.describe(3, &describe_all()).await;
    assert_eq!(acl_count(&all), 1, "only the valid entry was stored");
}

#[tokio::test]
async fn create_is_idempotent() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let acl = allow_read("orders", "User:alice");
    let first = client.create(2, vec![acl.clone(), acl.clone()]).await;
    assert!(first.results.iter().all(|r| r.error_code == 0));
    let again = client.create(2, vec![acl.clone()]).await;
    assert_eq!(again.results[0].error_code, 0);
    let all = client.describe(2, &describe_all()).await;
    assert_eq!(acl_count(&all), 1);
}

#[tokio::test]
async fn delete_reports_per_filter_and_removes_once() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    client
        .create(
            3,
            vec![
                allow_read("a", "User:x"),
                allow_read("b", "User:x"),
                allow_read("c", "User:y"),
            ],
        )
        .await;
    let deleted = client
        .delete(
            3,
            vec![
                delete_filter(TOPIC, Some("a"), LITERAL, None, ANY, ANY),
                delete_filter(ANY, None, ANY, Some("User:x"), ANY, ANY),
                delete_filter(TOPIC, Some("zzz"), LITERAL, None, ANY, ANY),
                delete_filter(0, None, ANY, None, ANY, ANY),
                delete_filter(TOPIC, None, ANY, None, ANY, 0),
                delete_filter(TOPIC, None, 42, None, ANY, ANY),
            ],
        )
        .await;
    let results = &deleted.filter_results;
    assert_eq!(results.len(), 6);
    assert_eq!(results[0].matching_acls.len(), 1);
    assert_eq!(
        results[1].matching_acls.len(),
        2,
        "a matched again under the second filter"
    );
    assert_eq!(
        (results[2].error_code, results[2].matching_acls.len()),
        (0, 0)
    );
    assert_eq!(
        (results[3].error_code, results[3].error_message.as_deref()),
        (42, Some("Unknown patternFilter."))
    );
    assert_eq!(
        (results[4].error_code, results[4].error_message.as_deref()),
        (42, Some("Unknown entryFilter."))
    );
    assert_eq!(
        (results[5].error_code, results[5].error_message.as_deref()),
        (42, Some("Unknown patternFilter."))
    );
    let left = client.describe(3, &describe_all()).await;
    assert_eq!(acl_count(&left), 1);
    assert_eq!(left.resources[0].acls[0].principal, "User:y");
}

#[tokio::test]
async fn batch_limit_gives_policy_violation() {
    let server = start(&[("kacl.acl.max.batch", "3")]).await;
    let mut client = server.client().await;
    let four: Vec<_> = (0..4)
        .map(|i| allow_read(&format!("t{i}"), "User:a"))
        .collect();
    let refused = client.create(3, four.clone()).await;
    for r in &refused.results {
        assert_eq!(r.error_code, 44);
        assert_eq!(
            r.error_message.as_deref(),
            Some("Unable to perform excessively large batch operation.")
        );
    }
    assert_eq!(
        acl_count(&client.describe(3, &describe_all()).await),
        0,
        "nothing written"
    );
    // Three new plus a repeat of an existing one is within the limit (existing ACLs are not
    // written again).
    let ok = client.create(3, four[..3].to_vec()).await;
    assert!(ok.results.iter().all(|r| r.error_code == 0));
    let ok = client.create(3, four[..4].to_vec()).await;
    assert!(ok.results.iter().all(|r| r.error_code == 0), "{ok:?}");
    let more: Vec<_> = (4..6)
        .map(|i| allow_read(&format!("t{i}"), "User:a"))
        .collect();
    client.create(3, more).await;
    // Six ACLs; delete in filters: the first takes 2, the second would take 4 more (> 3).
    let deleted = client
        .delete(
            3,
            vec![
                delete_filter(TOPIC, Some("t0"), LITERAL, None, ANY, ANY),
                delete_filter(TOPIC, Some("t1"), LITERAL, None, ANY, ANY),
                delete_filter(TOPIC, None, ANY, None, ANY, ANY),
                delete_filter(TOPIC, Some("t5"), LITERAL, None, ANY, ANY),
            ],
        )
        .await;
    let codes: Vec<i16> = deleted
        .filter_results
        .iter()
        .map(|r| r.error_code)
        .collect();
    assert_eq!(codes, vec![0, 0, 44, 0]);
    assert_eq!(
        deleted.filter_results[2].error_message.as_deref(),
        Some("Unable to perform excessively large batch operation.")
    );
    assert_eq!(acl_count(&client.describe(3, &describe_all()).await), 3);
}

#[tokio::test]
async fn non_super_users_are_refused_with_31() {
    let server = start(&[("super.users", "User:admin")]).await;
    let mut client = server.client().await;
    let described = client.describe(3, &describe_all()).await;
    assert_eq!(described.error_code, 31);
    assert!(described.resources.is_empty());
    let created = client
        .create(
            1,
            vec![allow_read("a", "User:x"), allow_read("b", "User:x")],
        )
        .await;
    assert_eq!(
        created
            .results
            .iter()
            .map(|r| r.error_code)
            .collect::<Vec<_>>(),
        vec![31, 31]
    );
    let deleted = client
        .delete(2, vec![delete_filter(ANY, None, ANY, None, ANY, ANY); 3])
        .await;
    assert_eq!(
        deleted
            .filter_results
            .iter()
            .map(|r| r.error_code)
            .collect::<Vec<_>>(),
        vec![31, 31, 31]
    );
}

#[tokio::test]
async fn acls_survive_a_restart_and_cluster_alter_acl_grants_access() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let created = client
        .create(
            3,
            vec![
                allow_read("orders", "User:ANONYMOUS"),
                creation(TOPIC, "orders", LITERAL, "User:ANONYMOUS", "*", WRITE, DENY),
                allow_read("audit", "User:other"),
            ],
        )
        .await;
    assert!(created.results.iter().all(|r| r.error_code == 0));
    drop(client);
    // No longer a super user: describe is refused, unless self-service is on.
    let server = restart(server, &[("super.users", "User:admin")]).await;
    let mut client = server.client().await;
    assert_eq!(client.describe(3, &describe_all()).await.error_code, 31);
    let server = restart(
        server,
        &[
            ("super.users", "User:admin"),
            ("kacl.describe.self.service.enable", "true"),
        ],
    )
    .await;
    let mut client = server.client().await;
    let own = client.describe(3, &describe_all()).await;
    assert_eq!(own.error_code, 0);
    assert_eq!(acl_count(&own), 1, "only its own ALLOW ACLs: {own:?}");
    assert_eq!(own.resources[0].acls[0].operation, READ);
    let others = client
        .describe(
            3,
            &describe_filter(ANY, None, ANY, Some("User:other"), ANY, ANY),
        )
        .await;
    assert_eq!((others.error_code, acl_count(&others)), (0, 0));
    let denies = client
        .describe(3, &describe_filter(ANY, None, ANY, None, ANY, DENY))
        .await;
    assert_eq!(acl_count(&denies), 0);
    // Self-service never lets it write.
    let created = client
        .create(3, vec![allow_read("x", "User:ANONYMOUS")])
        .await;
    assert_eq!(created.results[0].error_code, 31);
    // Back as super user: everything is still there.
    let server = restart(server, &[]).await;
    let mut client = server.client().await;
    assert_eq!(acl_count(&client.describe(3, &describe_all()).await), 3);
    // An ACL granting ALTER on the cluster makes a non-super user an ACL admin.
    client
        .create(
            3,
            vec![creation(
                CLUSTER,
                "kafka-cluster",
                LITERAL,
                "User:ANONYMOUS",
                "127.0.0.1",
                ALTER,
                ALLOW,
            )],
        )
        .await;
    let server = restart(server, &[("super.users", "User:admin")]).await;
    let mut client = server.client().await;
    let created = client.create(3, vec![allow_read("new", "User:z")]).await;
    assert_eq!(
        created.results[0].error_code, 0,
        "ALTER on the cluster allows CreateAcls"
    );
    // ALTER implies DESCRIBE on an ALLOW ACL, as in Kafka.
    assert_eq!(client.describe(3, &describe_all()).await.error_code, 0);
}
