//! Batches are atomic for readers: while one thread adds and removes a batch over and
//! over, readers on other threads see all of it or none of it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use kacl_acl::{
    AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclChanges,
    AclOperation, AclPermissionType, AuthorizationResult, Authorizer, AuthorizerConfig,
    PatternType, ResourcePattern, ResourcePatternFilter, ResourceType, SharedAclIndex,
};

const BATCH: usize = 300;

fn batch() -> Vec<AclBinding> {
    (0..BATCH)
        .map(|i| {
            AclBinding::new(
                ResourcePattern::new(
                    ResourceType::Topic,
                    format!("t{}", i % 50),
                    PatternType::Literal,
                ),
                AccessControlEntry::new(
                    "User:batch",
                    format!("10.0.0.{}", i / 50),
                    AclOperation::Read,
                    AclPermissionType::Allow,
                ),
            )
        })
        .collect()
}

#[test]
fn readers_see_whole_batches_only() {
    let index = SharedAclIndex::new();
    let authorizer = Authorizer::new(AuthorizerConfig::default(), index.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let by_principal = AclBindingFilter::new(
        ResourcePatternFilter::ANY,
        AccessControlEntryFilter::new(
            Some("User:batch"),
            None::<&str>,
            AclOperation::Any,
            AclPermissionType::Any,
        ),
    );
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let index = index.clone();
            let authorizer = authorizer.clone();
            let stop = stop.clone();
            let filter = by_principal.clone();
            thread::spawn(move || {
                let mut seen_full = 0usize;
                let mut reads = 0usize;
                while !stop.load(Ordering::Relaxed) || reads < 100 {
                    let view = index.read();
                    let n = view.count_matching(&filter);
                    assert!(n == 0 || n == BATCH, "saw a partial batch: {n}");
                    if n == BATCH {
                        seen_full += 1;
                        // Deciding inside a held view: a session on that view.
                        let session = authorizer.session_in(&view, "User:batch", "10.0.0.5");
                        assert_eq!(
                            session.authorize(AclOperation::Read, ResourceType::Topic, "t49"),
                            AuthorizationResult::Allowed
                        );
                    }
                    drop(view);
                    let decision = authorizer.authorize(
                        "User:batch",
                        "10.0.0.1",
                        AclOperation::Describe,
                        ResourceType::Topic,
                        "t3",
                    );
                    assert!(matches!(
                        decision,
                        AuthorizationResult::Allowed | AuthorizationResult::Denied
                    ));
                    reads += 1;
                }
                seen_full
            })
        })
        .collect();
    let add = AclChanges {
        removes: vec![],
        adds: batch(),
    };
    let remove = AclChanges {
        removes: batch(),
        adds: vec![],
    };
    for _ in 0..200 {
        assert_eq!(index.apply(&add).map(|o| o.added), Ok(BATCH));
        assert_eq!(index.apply(&remove).map(|o| o.removed), Ok(BATCH));
    }
    index.apply(&add).map(|o| o.added).ok();
    stop.store(true, Ordering::Relaxed);
    for reader in readers {
        assert!(reader.join().is_ok(), "a reader saw a partial batch");
    }
    assert_eq!(index.len(), BATCH);
}
