//! Hostile desired-state files: alias expansion, nesting, size and expansion into ACLs are
//! bounded, and each refusal names the file (and the line, where there is one) quickly.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use kacl_policy::{Document, FileError, Format, MAX_ACLS, MAX_DEPTH};

fn yaml(text: &str) -> Result<Document, FileError> {
    Document::parse(Path::new("acls.yaml"), text, Format::Yaml)
}

/// Parses `text`, which must fail within a few seconds; the error's text.
fn refused(text: &str) -> String {
    let started = Instant::now();
    let err = yaml(text).expect_err("should be refused").to_string();
    assert!(
        started.elapsed() < Duration::from_secs(10),
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

/// The file: one 512 KB string anchored once and named 4,000 times (540 KB that
/// would be 2 GB of strings). Refused by the bytes the aliases expand to, at the alias that
/// crosses the bound, before any of it is built.
#[test]
fn one_large_string_named_thousands_of_times_is_refused_by_its_bytes() {
    let big = "x".repeat(512 << 10);
    let text = format!(
        "{HEAD}  - principal: User:a\n    hosts: [&big {big}]\n  - principal: User:b\n    \
         hosts: [{}]\n",
        ["*big"; 4_000].join(", ")
    );
    assert!(text.len() < 540 << 10, "{}", text.len());
    let err = refused(&text);
    assert!(
        err.contains("aliases expand the file beyond its own size")
            && err.contains("bytes: 2 per byte of the file"),
        "{err}"
    );
    // The second alias crosses the bound (two strings of 512 KB are within twice the file):
    // named by its path, at the line of the value it repeats.
    assert!(err.starts_with("acls.yaml:6:"), "{err}");
    assert!(err.contains("acls[1].hosts[1]:"), "{err}");
}

/// The other file: 100,000 nested brackets (200 KB), refused by the byte scan before
/// the parser reads it, naming the line; the same nesting inside quotes or a comment is
/// a name, not nesting, once balanced.
#[test]
fn a_hundred_thousand_nested_brackets_are_refused_at_once() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let started = Instant::now();
    let err = refused(&format!("{HEAD}  - principal: User:a\n    hosts: {deep}\n"));
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    assert!(
        err.starts_with("acls.yaml:6:") && err.contains(&format!("nested deeper than {MAX_DEPTH}")),
        "{err}"
    );
    for flow in ["{", "[{", "{a: ["] {
        let deep = flow.repeat(100_000 / flow.len());
        let err = refused(&format!("{HEAD}  - principal: User:a\n    hosts: {deep}\n"));
        assert!(err.contains("nested deeper than"), "{flow}: {err}");
    }
    // Hidden in what a naive scan takes for a scalar, the brackets still count.
    for hidden in [
        format!("hosts: 'x' {deep}"),
        format!("hosts: [a, \"]\", {deep}]"),
        format!("hosts: # {deep}\n    allow: {deep}"),
    ] {
        let err = refused(&format!("{HEAD}  - principal: User:a\n    {hidden}\n"));
        assert!(err.contains("nested deeper than"), "{err}");
    }
    // Balanced brackets inside names and comments are names, not nesting.
    let names: String = (0..200)
        .map(|i| format!("      - {{group: \"g[{i}]{{x}}\", operations: [Read]}} # [{i}]\n"))
        .collect();
    let doc = yaml(&format!("{HEAD}  - principal: User:a\n    allow:\n{names}"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc.bindings().len(), 200);
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
fn a_file_over_the_callers_limit_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acls.yaml");
    let mut text = String::from(HEAD);
    let rule = "  - principal: User:a\n    allow:\n      - topic: t\n        operations: [Read]\n";
    while text.len() < 3 << 20 {
        text.push_str(rule);
    }
    std::fs::write(&path, &text).unwrap();
    let started = Instant::now();
    let err = Document::load_limited(&path, 1 << 20).expect_err("too large");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(err, FileError::TooLarge { bytes, limit, .. }
            if bytes == text.len() as u64 && limit == 1 << 20));
    assert!(
        err.to_string()
            .contains("more than the limit of 1,048,576 (--max-file-bytes)"),
        "{err}"
    );
}

/// `n` ACLs written out one rule each, as an estate's file would be: about 50 bytes each.
pub fn estate(n: usize) -> String {
    let mut text = String::from("version: 1\nscope:\n  all: true\nacls:\n");
    for p in 0..n.div_ceil(100) {
        let _ = writeln!(text, "  - principal: User:app-{p:05}\n    allow:");
        for t in 0..100.min(n - p * 100) {
            let _ = writeln!(
                text,
                "      - {{topic: svc-{p:05}-{t:03}, operations: [Read]}}"
            );
        }
    }
    text
}

#[test]
fn a_file_of_170_000_acls_over_8_mib_is_read() {
    let text = estate(170_000);
    assert!(text.len() > 8 << 20, "{}", text.len());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acls.yaml");
    std::fs::write(&path, &text).unwrap();
    let doc = Document::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc.bindings().len(), 170_000);
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
            "more than {} ACLs, the most a file of its size may",
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
    let err = yaml(&text).expect_err("a bad value").to_string();
    let expected = format!(
        "acls.yaml:{}:22: acls[{i}].allow[0].operations[0]: unknown operation `Raed`",
        lines + 4
    );
    assert!(err.starts_with(&expected), "{err}");
}
