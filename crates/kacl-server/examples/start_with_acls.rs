//! Measures how long `Server::start` takes on a data directory holding many ACLs: open the
//! redb store, read every ACL, build the in-memory index, bind the listener.
//!
//! `cargo run --release -p kacl-server --example start_with_acls -- [COUNT]` (default 1,000,000)

use std::time::Instant;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclOperation, AclPermissionType, PatternType, ResourcePattern,
    ResourceType,
};
use kacl_server::Server;
use kacl_server_config::ServerConfig;
use kacl_store::{MetadataStore, RedbStore};

const BATCH: usize = 100_000;

/// A realistic spread: 4 ACLs per topic family, prefixed every 4th, 5,000 principals.
fn binding(i: usize) -> AclBinding {
    let pattern = if i % 4 == 0 {
        PatternType::Prefixed
    } else {
        PatternType::Literal
    };
    let operation = [
        AclOperation::Read,
        AclOperation::Write,
        AclOperation::Describe,
    ][i % 3];
    AclBinding::new(
        ResourcePattern::new(
            ResourceType::Topic,
            format!("team-{}.events.v{}", i / 3, i % 7),
            pattern,
        ),
        AccessControlEntry::new(
            format!("User:service-account-{}", i % 5000),
            "*",
            operation,
            AclPermissionType::Allow,
        ),
    )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 1_000_000,
    };
    let _ = tracing_subscriber::fmt().with_env_filter("info").try_init();
    let dir = tempfile::tempdir()?;
    {
        let store = RedbStore::open(dir.path())?;
        let mut start = 0;
        while start < count {
            let end = (start + BATCH).min(count);
            let batch: Vec<AclBinding> = (start..end).map(binding).collect();
            store.commit_acl_changes(&batch, &[])?;
            start = end;
        }
    }
    let config = ServerConfig::from_properties(
        "",
        &[
            ("listeners".into(), "PLAINTEXT://127.0.0.1:0".into()),
            ("metadata.log.dir".into(), dir.path().display().to_string()),
        ],
    )?;
    let started = Instant::now();
    let server = Server::start(config).await?;
    let elapsed = started.elapsed();
    let loaded = server.state().acls.len();
    assert_eq!(loaded, count);
    println!("Server::start with {count} ACLs: {elapsed:.2?} (open + load + index + bind)");
    server.shutdown().await;
    Ok(())
}
