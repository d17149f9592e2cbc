//! The oracle of the `request_path` target: arbitrary bytes as one client connection through
//! the whole server (framing, SASL gate, routing, every handler, the ACL writer, the store),
//! on an in-memory store that starts with a few ACLs and a topic.
//!
//! Input: byte 0 picks the setup (bit 0: SASL_PLAINTEXT listener instead of PLAINTEXT; bit 1:
//! the client's principal is a super user; bit 2: `allow.everyone.if.no.acl.found`; bit 3:
//! `kacl.acl.max.batch=2`; bit 4: `kacl.describe.self.service.enable`); the rest is the byte
//! stream the client sends before half-closing.
//!
//! The server may answer or close as it likes. It must not panic or hang, what it writes must
//! be whole size-prefixed frames, and afterwards the ACLs in memory must equal the ACLs in the
//! store, and the topics in memory the topics in the store.

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

use kacl_acl::{
    AccessControlEntry, AclBinding, AclBindingFilter, AclOperation, AclPermissionType, PatternType,
    ResourcePattern, ResourceType,
};
use kacl_server::fuzzing;
use kacl_server_config::ServerConfig;
use kacl_store::{MemoryStore, MetadataStore, PartitionRecord, TopicRecord};

/// The PLAIN users of the SASL setups.
pub const JAAS: &str = "org.apache.kafka.common.security.plain.PlainLoginModule required \
    username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" \
    user_alice=\"alice-secret\";";

/// Runs one input; panics when the oracle is violated.
pub fn check_request_path(data: &[u8]) {
    let Some((&setup, stream)) = data.split_first() else {
        return;
    };
    let config = configs()[usize::from(setup & 0x1f)].clone();
    let listener = if setup & 1 == 1 {
        "SASL_PLAINTEXT"
    } else {
        "PLAINTEXT"
    };
    let store = Arc::new(MemoryStore::new());
    seed(store.as_ref());
    let state = fuzzing::state_for(config, store.clone()).expect("a state on a memory store");
    let out = runtime()
        .block_on(fuzzing::serve_bytes(&state, listener, stream))
        .expect("the listener exists");
    assert_whole_frames(&out);

    let in_memory: BTreeSet<AclBinding> = state
        .acls
        .read()
        .describe(&AclBindingFilter::ANY)
        .into_iter()
        .collect();
    let stored: BTreeSet<AclBinding> = store.load_acls().expect("loads").into_iter().collect();
    assert_eq!(in_memory, stored, "the ACL index equals the store");
    let topics_in_memory: BTreeSet<String> =
        state.topics.read().iter().map(|t| t.name.clone()).collect();
    let topics_stored: BTreeSet<String> = store
        .load_topics()
        .expect("loads")
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        topics_in_memory, topics_stored,
        "the topic registry equals the store"
    );
}

/// Everything the server wrote splits into whole `[size][payload]` frames.
pub(crate) fn assert_whole_frames(mut out: &[u8]) {
    while !out.is_empty() {
        let (size, rest) = out.split_at_checked(4).expect("a whole size prefix");
        let size = i32::from_be_bytes(size.try_into().expect("4 bytes"));
        let size = usize::try_from(size).expect("a non-negative size");
        assert!(rest.len() >= size, "a whole frame");
        out = &rest[size..];
    }
}

/// The 32 setups, parsed once.
fn configs() -> &'static [ServerConfig] {
    static CONFIGS: OnceLock<Vec<ServerConfig>> = OnceLock::new();
    CONFIGS.get_or_init(|| (0u8..32).map(config).collect())
}

fn config(setup: u8) -> ServerConfig {
    let bit = |n: u8| setup & (1 << n) != 0;
    let super_users = if bit(1) {
        "User:ANONYMOUS;User:admin;User:alice"
    } else {
        "User:admin"
    };
    let mut pairs = vec![
        (
            "listeners",
            "PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9093",
        ),
        ("super.users", super_users),
        ("sasl.jaas.config", JAAS),
        ("metadata.log.dir", "/nonexistent/kacl-fuzz"),
        ("connection.failed.authentication.delay.ms", "0"),
        ("socket.request.max.bytes", "1048576"),
    ];
    if bit(2) {
        pairs.push(("allow.everyone.if.no.acl.found", "true"));
    }
    if bit(3) {
        pairs.push(("kacl.acl.max.batch", "2"));
    }
    if bit(4) {
        pairs.push(("kacl.describe.self.service.enable", "true"));
    }
    if bit(0) {
        // SASL setups also renew sessions (a SaslHandshake after login re-authenticates) and
        // lease request bytes from the pool, so those paths see arbitrary input too.
        pairs.push(("connections.max.reauth.ms", "60000"));
        pairs.push(("queued.max.request.bytes", "1048576"));
    }
    let pairs: Vec<(String, String)> = pairs
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    ServerConfig::from_properties("", &pairs).expect("a valid fuzzing config")
}

/// The configuration a setup byte selects (parsed once).
pub(crate) fn config_for(setup: u8) -> ServerConfig {
    configs()[usize::from(setup & 0x1f)].clone()
}

/// [`seed`], for the gateway target.
pub(crate) fn seed_store(store: &dyn MetadataStore) {
    seed(store)
}

/// A few ACLs of different shapes and one topic with two partitions.
fn seed(store: &dyn MetadataStore) {
    let acl = |rt, name: &str, pt, principal: &str, op, perm| {
        AclBinding::new(
            ResourcePattern::new(rt, name.to_owned(), pt),
            AccessControlEntry::new(principal, "*", op, perm),
        )
    };
    let acls = [
        acl(
            ResourceType::Topic,
            "orders",
            PatternType::Literal,
            "User:alice",
            AclOperation::Read,
            AclPermissionType::Allow,
        ),
        acl(
            ResourceType::Topic,
            "logs-",
            PatternType::Prefixed,
            "User:ANONYMOUS",
            AclOperation::All,
            AclPermissionType::Allow,
        ),
        acl(
            ResourceType::Topic,
            "*",
            PatternType::Literal,
            "User:alice",
            AclOperation::Delete,
            AclPermissionType::Deny,
        ),
        acl(
            ResourceType::Cluster,
            "kafka-cluster",
            PatternType::Literal,
            "User:alice",
            AclOperation::Describe,
            AclPermissionType::Allow,
        ),
    ];
    store.commit_acl_changes(&acls, &[]).expect("seed ACLs");
    store
        .create_topics(&[TopicRecord {
            name: "orders".to_owned(),
            topic_id: kacl_store::random_kafka_uuid(),
            partitions: (0..2)
                .map(|i| PartitionRecord {
                    partition_index: i,
                    replicas: vec![1],
                })
                .collect(),
            configs: Default::default(),
            created_seq: 0,
        }])
        .expect("seed topic");
}

/// One single-threaded runtime for every input (ACL writes use its blocking pool).
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a Tokio runtime")
    })
}
