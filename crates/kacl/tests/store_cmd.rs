//! `kacl store verify` and `kacl serve` on a damaged data directory: verify exits 0 on a sound
//! directory and 1 on a damaged one; serve refuses an emptied store with its own exit code.

use std::process::Command;

use kacl_store::{MetadataStore, RedbStore, StoreOptions, DB_FILE_NAME};

const KACL: &str = env!("CARGO_BIN_EXE_kacl");

fn verify(dir: &std::path::Path) -> (i32, String) {
    let out = Command::new(KACL)
        .args(["store", "verify", "--data-dir"])
        .arg(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn verify_then_serve_refuses_an_emptied_store_with_exit_code_3() {
    let dir = tempfile::tempdir().unwrap();
    {
        let options = StoreOptions {
            node_id: Some(1),
            ..StoreOptions::default()
        };
        let store = RedbStore::open_with_options(dir.path(), options).unwrap();
        let acl = kacl_acl::AclBinding::new(
            kacl_acl::ResourcePattern::new(
                kacl_acl::ResourceType::Topic,
                "orders",
                kacl_acl::PatternType::Literal,
            ),
            kacl_acl::AccessControlEntry::new(
                "User:alice",
                "*",
                kacl_acl::AclOperation::Read,
                kacl_acl::AclPermissionType::Allow,
            ),
        );
        store.commit_acl_changes(&[acl], &[]).unwrap();
    }
    let (code, out) = verify(dir.path());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("acls: 1 records") && out.ends_with("OK\n"),
        "{out}"
    );

    std::fs::File::create(dir.path().join(DB_FILE_NAME)).unwrap();
    let (code, out) = verify(dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("PROBLEM") && out.contains("0 bytes"), "{out}");

    let served = Command::new(KACL)
        .arg("serve")
        .arg("--override")
        .arg(format!("metadata.log.dir={}", dir.path().display()))
        .args(["--override", "listeners=PLAINTEXT://127.0.0.1:0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&served.stderr);
    assert_eq!(
        served.status.code(),
        Some(i32::from(kacl_store::EXIT_DATA_DIR_REFUSED)),
        "{stderr}"
    );
    assert!(stderr.contains("refusing to start"), "{stderr}");
    assert_eq!(
        std::fs::metadata(dir.path().join(DB_FILE_NAME))
            .unwrap()
            .len(),
        0,
        "nothing was written over it"
    );
}
