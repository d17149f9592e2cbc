//! Records for the store tests, and the behaviour every `MetadataStore` must show.

use std::collections::BTreeMap;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_sasl::scram::{ScramCredential, ScramMechanism};
use kacl_store::{MetadataStore, PartitionRecord, StoreError, TopicRecord};

/// A topic READ ACL for `principal` on `topic`.
pub fn acl(topic: &str, principal: &str) -> AclBinding {
    AclBinding::new(
        ResourcePattern::new(ResourceType::Topic, topic, PatternType::Literal),
        AccessControlEntry::new(principal, "*", AclOperation::Read, AclPermissionType::Allow),
    )
}

/// `n` distinct bindings spread over every resource type, pattern, operation and
/// permission, with varied string lengths.
pub fn many_acls(n: usize) -> Vec<AclBinding> {
    let types = [
        ResourceType::Topic,
        ResourceType::Group,
        ResourceType::Cluster,
        ResourceType::TransactionalId,
        ResourceType::DelegationToken,
        ResourceType::User,
    ];
    let ops = [
        AclOperation::All,
        AclOperation::Read,
        AclOperation::Write,
        AclOperation::Describe,
        AclOperation::IdempotentWrite,
    ];
    (0..n)
        .map(|i| {
            let pattern = if i % 3 == 0 {
                PatternType::Prefixed
            } else {
                PatternType::Literal
            };
            let permission = if i % 7 == 0 {
                AclPermissionType::Deny
            } else {
                AclPermissionType::Allow
            };
            AclBinding::new(
                ResourcePattern::new(types[i % types.len()], format!("res-{}", i / 3), pattern),
                AccessControlEntry::new(
                    format!("User:svc-{}", i % 1000),
                    if i % 2 == 0 { "*" } else { "10.0.0.1" },
                    ops[i % ops.len()],
                    permission,
                ),
            )
        })
        .collect()
}

/// `acls` in a canonical order, to compare sets regardless of the order a store returns.
pub fn sorted(mut acls: Vec<AclBinding>) -> Vec<AclBinding> {
    acls.sort();
    acls
}

/// A topic record of `partitions` partitions (a fresh id, one replica on node 1, one config).
pub fn topic(name: &str, partitions: i32) -> TopicRecord {
    TopicRecord {
        name: name.to_string(),
        topic_id: kacl_store::random_kafka_uuid(),
        partitions: (0..partitions)
            .map(|p| PartitionRecord {
                partition_index: p,
                replicas: vec![1],
            })
            .collect(),
        configs: BTreeMap::from([("retention.ms".to_string(), "1000".to_string())]),
        created_seq: 999,
    }
}

/// A credential of `mechanism`'s key length.
pub fn credential(mechanism: ScramMechanism, iterations: u32) -> ScramCredential {
    ScramCredential {
        salt: vec![9; 16],
        iterations,
        stored_key: vec![1; mechanism.hash_len()],
        server_key: vec![2; mechanism.hash_len()],
    }
}

/// ACL commits: idempotent adds, absent removes, dedupe, atomic refusal.
pub fn check_acls(store: &dyn MetadataStore) {
    let a = acl("orders", "User:alice");
    let b = acl("orders", "User:bob");
    let c = acl("payments", "User:alice");

    let first = store
        .commit_acl_changes(&[a.clone(), b.clone(), a.clone()], &[])
        .unwrap();
    assert_eq!(first.added, vec![a.clone(), b.clone()]);
    assert!(first.removed.is_empty());

    let again = store
        .commit_acl_changes(&[a.clone(), c.clone()], &[])
        .unwrap();
    assert_eq!(
        again.added,
        vec![c.clone()],
        "an existing binding is a no-op"
    );
    assert_eq!(
        sorted(store.load_acls().unwrap()),
        sorted(vec![a.clone(), b.clone(), c.clone()])
    );

    let removed = store
        .commit_acl_changes(&[], &[b.clone(), b.clone(), acl("nope", "User:x")])
        .unwrap();
    assert_eq!(
        removed.removed,
        vec![b.clone()],
        "each removal counted once"
    );
    assert!(removed.added.is_empty());

    // A batch with one binding that cannot be stored changes nothing at all.
    let mut bad = acl("x", "User:x");
    bad.pattern.pattern_type = PatternType::Match;
    let err = store
        .commit_acl_changes(&[acl("fresh", "User:y"), bad], std::slice::from_ref(&a))
        .unwrap_err();
    assert!(matches!(err, StoreError::InvalidAcl { .. }), "{err}");
    assert!(!err.is_storage_failure());
    assert_eq!(
        sorted(store.load_acls().unwrap()),
        sorted(vec![a.clone(), c.clone()])
    );

    // Removes apply before adds.
    let both = store
        .commit_acl_changes(std::slice::from_ref(&a), std::slice::from_ref(&a))
        .unwrap();
    assert_eq!(both.removed, vec![a.clone()]);
    assert_eq!(both.added, vec![a.clone()]);
    assert_eq!(store.load_acls().unwrap().len(), 2);
}

/// Topics: creation order, atomic refusal, deletion, partitions.
/// The chunked load hands over exactly `load_acls`' bindings, in the same order, in chunks of
/// at most the asked length, and stops at the sink's first error.
pub fn check_chunked_acl_load(store: &dyn MetadataStore) {
    store.commit_acl_changes(&many_acls(1000), &[]).unwrap();
    let whole = store.load_acls().unwrap();
    for chunk_len in [1, 7, 1000, 5000] {
        let mut chunks = Vec::new();
        store
            .load_acls_chunked(chunk_len, &mut |chunk| {
                chunks.push(chunk);
                Ok(())
            })
            .unwrap();
        assert!(chunks.iter().all(|c| !c.is_empty() && c.len() <= chunk_len));
        assert_eq!(chunks.concat(), whole, "chunks of {chunk_len}");
    }
    let mut calls = 0;
    let stopped = store.load_acls_chunked(10, &mut |_| {
        calls += 1;
        Err(kacl_store::StoreError::ReadOnly {
            path: "sink".into(),
            source: std::io::Error::other("the sink refused"),
        })
    });
    assert!(stopped.is_err());
    assert_eq!(calls, 1, "the load stops at the sink's first error");
}

/// Topics: create, read, replace, delete, and their partitions, as every store must.
pub fn check_topics(store: &dyn MetadataStore) {
    let created = store
        .create_topics(&[topic("zeta", 1), topic("alpha", 3)])
        .unwrap();
    assert_eq!(created[0].created_seq + 1, created[1].created_seq);
    assert_ne!(
        created[0].created_seq, 999,
        "the store assigns the sequence"
    );
    store.create_topics(&[topic("mid", 2)]).unwrap();

    let names: Vec<String> = store
        .load_topics()
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        names,
        ["zeta", "alpha", "mid"],
        "creation order, not name order"
    );

    // One existing name refuses the whole batch.
    let err = store
        .create_topics(&[topic("new", 1), topic("alpha", 1)])
        .unwrap_err();
    assert!(matches!(err, StoreError::TopicAlreadyExists { ref name } if name == "alpha"));
    let err = store
        .create_topics(&[topic("twice", 1), topic("twice", 1)])
        .unwrap_err();
    assert!(matches!(err, StoreError::TopicAlreadyExists { .. }));
    let mut gap = topic("gap", 2);
    gap.partitions[1].partition_index = 5;
    assert!(matches!(
        store.create_topics(&[gap]).unwrap_err(),
        StoreError::InvalidPartitions { .. }
    ));
    assert_eq!(store.load_topics().unwrap().len(), 3);

    let grown = store
        .add_partitions(
            "alpha",
            &[
                PartitionRecord {
                    partition_index: 3,
                    replicas: vec![1, 2],
                },
                PartitionRecord {
                    partition_index: 4,
                    replicas: vec![2, 1],
                },
            ],
        )
        .unwrap();
    assert_eq!(grown.partitions.len(), 5);
    assert!(matches!(
        store
            .add_partitions(
                "alpha",
                &[PartitionRecord {
                    partition_index: 9,
                    replicas: vec![1]
                }]
            )
            .unwrap_err(),
        StoreError::InvalidPartitions { .. }
    ));
    assert!(matches!(
        store.add_partitions("ghost", &[]).unwrap_err(),
        StoreError::UnknownTopic { .. }
    ));

    let deleted = store
        .delete_topics(&["zeta".into(), "ghost".into(), "zeta".into()])
        .unwrap();
    assert_eq!(deleted, ["zeta"]);

    // A topic created after a deletion still sorts last.
    store.create_topics(&[topic("zeta", 1)]).unwrap();
    let topics = store.load_topics().unwrap();
    let names: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["alpha", "mid", "zeta"]);
    assert_eq!(topics[0].partitions.len(), 5);
    assert_eq!(topics[0].partitions[4].replicas, vec![2, 1]);
    assert_eq!(topics[0].configs["retention.ms"], "1000");
}

/// SCRAM credentials: upsert replaces, keyed by user and mechanism.
pub fn check_scram(store: &dyn MetadataStore) {
    use ScramMechanism::{Sha256, Sha512};
    store
        .upsert_scram_credential("bob", Sha512, &credential(Sha512, 4096))
        .unwrap();
    store
        .upsert_scram_credential("alice", Sha256, &credential(Sha256, 4096))
        .unwrap();
    store
        .upsert_scram_credential("alice", Sha256, &credential(Sha256, 8192))
        .unwrap();
    store
        .upsert_scram_credential("alice", Sha512, &credential(Sha512, 4096))
        .unwrap();

    assert_eq!(
        store.scram_credential("alice", Sha256).unwrap(),
        Some(credential(Sha256, 8192))
    );
    assert_eq!(store.scram_credential("bob", Sha256).unwrap(), None);
    let listed: Vec<(String, ScramMechanism, u32)> = store
        .list_scram_credentials()
        .unwrap()
        .into_iter()
        .map(|(user, mechanism, c)| (user, mechanism, c.iterations))
        .collect();
    assert_eq!(
        listed,
        [
            ("alice".to_string(), Sha256, 8192),
            ("alice".to_string(), Sha512, 4096),
            ("bob".to_string(), Sha512, 4096),
        ]
    );
    assert!(store.delete_scram_credential("alice", Sha256).unwrap());
    assert!(!store.delete_scram_credential("alice", Sha256).unwrap());
    assert_eq!(store.list_scram_credentials().unwrap().len(), 2);
}

/// The cluster id looks like Kafka's.
pub fn check_cluster_id(store: &dyn MetadataStore) {
    let id = store.cluster_id();
    assert_eq!(id.len(), 22, "{id}");
    assert!(kacl_store::parse_kafka_uuid(&id).is_some());
    assert_eq!(store.cluster_id(), id);
}

/// The SCRAM bootstrap happens once per store: after it, and on a store that already had
/// credentials, nothing is stored however often it is asked for.
pub fn check_scram_bootstrap(fresh: &dyn MetadataStore, with_credentials: &dyn MetadataStore) {
    use ScramMechanism::Sha512;
    let entry = ("admin".to_string(), Sha512, credential(Sha512, 4096));
    assert!(!fresh.scram_bootstrapped().unwrap());
    assert!(fresh
        .bootstrap_scram_credentials(std::slice::from_ref(&entry))
        .unwrap());
    assert!(fresh.scram_bootstrapped().unwrap());
    assert_eq!(fresh.list_scram_credentials().unwrap(), vec![entry.clone()]);
    // Deleted, and asked again: it does not come back.
    assert!(fresh.delete_scram_credential("admin", Sha512).unwrap());
    assert!(!fresh
        .bootstrap_scram_credentials(std::slice::from_ref(&entry))
        .unwrap());
    assert!(fresh.list_scram_credentials().unwrap().is_empty());

    // A store with credentials but no record (an older store): recorded, nothing stored.
    with_credentials
        .upsert_scram_credential("ops", Sha512, &credential(Sha512, 8192))
        .unwrap();
    assert!(!with_credentials.scram_bootstrapped().unwrap());
    assert!(!with_credentials
        .bootstrap_scram_credentials(std::slice::from_ref(&entry))
        .unwrap());
    assert!(with_credentials.scram_bootstrapped().unwrap());
    assert_eq!(
        with_credentials.scram_credential("admin", Sha512).unwrap(),
        None
    );
}
