//! Hostile desired-state files: alias expansion, nesting, size and expansion into ACLs are
//! bounded, and each refusal names the file (and the line, where there is one) quickly.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use kacl_policy::{Document, FileError, Format, MAX_ACLS, MAX_DEPTH, MAX_FILE_BYTES};

fn yaml(text: &str) -> Result<Document, FileError> {
    Document::parse(Path::new("acls.yaml"), text, Format::Yaml)
}

/// Parses `text`, which must fail within a few seconds; the error's text.
fn refused(text: &str) -> String {
    let started = Instant::now();
    let err = yaml(text).expect_err("should be refused").to_string();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    err
}

const HEAD: &str = "version: 1\nscope:\n  all: true\nacls:\n";

#[test]
fn aliases_cannot_make_a_small_file_large() {
    // 1,000 hosts behind one anchor, named by 200 rules: 200,000 values from 30 KB.
    let hosts: Vec<String> = (0..1_000).map(|i| format!("h{i}")).collect();
    let mut text = format!(
        "{HEAD}  - principal: User:a\n    hosts: &h [{}]\n    allow:\n",
        hosts.join(", ")
    );
    for i in 0..200 {
        let _ = write!(
            text,
            "      - topic: t{i}\n        operations: [Read]\n        hosts: *h\n"
        );
    }
    let err = refused(&text);
    assert!(
        err.contains("aliases expand the file beyond its own size"),
        "{err}"
    );
    assert!(err.starts_with("acls.yaml:"), "{err}");
    assert!(!err.starts_with("acls.yaml:0:"), "a line is named: {err}");
}

#[test]
fn an_alias_bomb_is_refused_quickly() {
    let mut text =
        format!("{HEAD}  - principal: User:a\n    hosts: &l0 [a, a, a, a, a, a, a, a, a, a]\n");
    for level in 1..10 {
        let previous = format!("*l{}", level - 1);
        let _ = writeln!(
            text,
            "  - principal: User:a{level}\n    hosts: &l{level} [{}]",
            [previous.as_str(); 10].join(", ")
        );
    }
    let err = refused(&text);
    assert!(err.starts_with("acls.yaml:"), "{err}");
}

#[test]
fn nesting_is_bounded_with_the_line() {
    let deep = format!("{}x{}", "[".repeat(100), "]".repeat(100));
    let err = refused(&format!("{HEAD}  - principal: User:a\n    hosts: {deep}\n"));
    assert!(
        err.contains(&format!("nested deeper than {MAX_DEPTH} levels")),
        "{err}"
    );
    assert!(err.starts_with("acls.yaml:6:"), "{err}");
    let json = format!("{{\"version\": 1, \"scope\": {{\"all\": true}},\n\"acls\": {deep}}}");
    let err = Document::parse(Path::new("acls.json"), &json, Format::Json)
        .expect_err("deep")
        .to_string();
    assert!(err.starts_with("acls.json:2:"), "{err}");
    assert!(err.contains("nested deeper than"), "{err}");
}

#[test]
fn a_50_mb_file_is_refused_before_it_is_read() {
    let dir = std::env::temp_dir().join(format!("kacl-policy-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("acls.yaml");
    let mut text = String::from(HEAD);
    let rule = "  - principal: User:a\n    allow:\n      - topic: t\n        operations: [Read]\n";
    while text.len() < 50 << 20 {
        text.push_str(rule);
    }
    std::fs::write(&path, &text).unwrap();
    let started = Instant::now();
    let err = Document::load(&path).expect_err("too large");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(err, FileError::TooLarge { bytes, .. } if bytes == text.len() as u64));
    assert!(
        err.to_string().contains(&format!(
            "more than the {} an ACL file may have",
            kacl_policy::thousands(MAX_FILE_BYTES)
        )),
        "{err}"
    );
    // The same text handed over directly (a paste) is refused the same way.
    assert!(matches!(yaml(&text), Err(FileError::TooLarge { .. })));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn hosts_times_operations_is_bounded() {
    let hosts: Vec<String> = (0..100_000)
        .map(|i| format!("10.{}.{}.{}", i >> 16, (i >> 8) & 255, i & 255))
        .collect();
    let text = format!(
        "{HEAD}  - principal: User:a\n    hosts: [{}]\n    allow:\n      - topic: t\n        operations: [Read, Write, Create, Delete, Alter, Describe, DescribeConfigs, AlterConfigs, ClusterAction, IdempotentWrite, CreateTokens]\n",
        hosts.join(", ")
    );
    let err = refused(&text);
    assert!(
        err.contains(&format!(
            "more than {} ACLs",
            kacl_policy::thousands(MAX_ACLS)
        )),
        "{err}"
    );
}

#[test]
fn a_bad_value_deep_in_a_large_file_is_named_by_its_line() {
    let mut text = String::from(HEAD);
    let mut lines = 4;
    let mut i = 0;
    while text.len() < 2 << 20 {
        let _ = write!(
            text,
            "  - principal: User:u{i}\n    allow:\n      - topic: t\n        operations: [Read]\n"
        );
        lines += 4;
        i += 1;
    }
    text.push_str(
        "  - principal: User:last\n    allow:\n      - topic: t\n        operations: [Raed]\n",
    );
    let err = refused(&text);
    let expected = format!(
        "acls.yaml:{}:22: acls[{i}].allow[0].operations[0]: unknown operation `Raed`",
        lines + 4
    );
    assert!(err.starts_with(&expected), "{err}");
}
