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

/// A store with `n` ACLs in `dir`, closed.
fn filled(dir: &std::path::Path, n: usize) {
    let options = StoreOptions {
        node_id: Some(1),
        ..StoreOptions::default()
    };
    let store = RedbStore::open_with_options(dir, options).unwrap();
    let acls: Vec<_> = (0..n)
        .map(|i| {
            kacl_acl::AclBinding::new(
                kacl_acl::ResourcePattern::new(
                    kacl_acl::ResourceType::Topic,
                    format!("t{i}"),
                    kacl_acl::PatternType::Literal,
                ),
                kacl_acl::AccessControlEntry::new(
                    format!("User:p{}", i % 97),
                    "*",
                    kacl_acl::AclOperation::Read,
                    kacl_acl::AclPermissionType::Allow,
                ),
            )
        })
        .collect();
    store.commit_acl_changes(&acls, &[]).unwrap();
}

/// `kacl serve` on `dir`: (exit code, stderr), or `None` if it started serving (killed).
fn serve(dir: &std::path::Path) -> Option<(i32, String)> {
    use std::io::Read as _;
    let mut child = Command::new(KACL)
        .arg("serve")
        .arg("--override")
        .arg(format!("metadata.log.dir={}", dir.display()))
        .args(["--override", "listeners=PLAINTEXT://127.0.0.1:0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            return Some((status.code().unwrap_or(-1), stderr));
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Damage in each class of byte (the header, the start of each tree page, record bodies):
/// `kacl store verify` and `kacl serve` each say one clear thing naming the file, and never
/// print a panic or its backtrace (redb panics on some damaged pages; the panic is caught).
#[test]
fn damage_anywhere_is_reported_without_panic_output() {
    let pristine = tempfile::tempdir().unwrap();
    filled(pristine.path(), 1_500);
    let file = std::fs::read(pristine.path().join(DB_FILE_NAME)).unwrap();
    let mut offsets: Vec<usize> = (0..192).step_by(16).collect();
    let pages: Vec<usize> = (4096..file.len())
        .step_by(4096)
        .filter(|&page| {
            file[page..(page + 4096).min(file.len())]
                .iter()
                .any(|&b| b != 0)
        })
        .collect();
    for &page in pages.iter().step_by(pages.len() / 16 + 1) {
        offsets.extend([page, page + 8]);
    }
    let records: Vec<usize> = file
        .windows(6)
        .enumerate()
        .filter(|(_, w)| w == b"User:p")
        .map(|(at, _)| at)
        .collect();
    offsets.extend(records.iter().step_by(records.len() / 8 + 1).map(|r| r + 3));
    offsets.retain(|&o| o < file.len());
    let mut refused = 0;
    for at in offsets {
        let dir = tempfile::tempdir().unwrap();
        for name in [kacl_store::IDENTITY_FILE_NAME, DB_FILE_NAME] {
            std::fs::copy(pristine.path().join(name), dir.path().join(name)).unwrap();
        }
        let mut damaged = file.clone();
        for b in &mut damaged[at..(at + 4).min(file.len())] {
            *b ^= 0xA5;
        }
        std::fs::write(dir.path().join(DB_FILE_NAME), &damaged).unwrap();
        let out = Command::new(KACL)
            .args(["store", "verify", "--data-dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            !stderr.contains("panicked") && !stderr.contains("backtrace"),
            "verify, damage at byte {at}: {stderr}"
        );
        let verified = out.status.code() == Some(0);
        if !verified {
            assert_eq!(
                out.status.code(),
                Some(1),
                "damage at {at}: {stdout}{stderr}"
            );
            assert!(
                stdout.contains("PROBLEM") || stderr.contains(DB_FILE_NAME),
                "verify, damage at byte {at}: {stdout}{stderr}"
            );
        }
        if verified {
            continue; // a start would serve it: nothing to refuse
        }
        match serve(dir.path()) {
            None => panic!("damage at {at}: serve started on what verify refused"),
            Some((code, stderr)) => {
                assert!(
                    !stderr.contains("panicked") && !stderr.contains("backtrace"),
                    "serve, damage at byte {at}: {stderr}"
                );
                assert_ne!(code, 0, "{stderr}");
                assert!(
                    stderr.contains(DB_FILE_NAME) || stderr.contains("table `"),
                    "serve, damage at byte {at}: {stderr}"
                );
                refused += 1;
            }
        }
    }
    assert!(refused > 0);
}
