//! Dependencies point one way: every crate's `Cargo.toml` `[dependencies]` (and build and
//! target-specific ones; dev-dependencies are test support and not checked) names only the
//! kacl crates its row of the table in `docs/architecture.md` allows, every crate has a row,
//! and each row allows only crates above it, so no two crates can import each other. The
//! crates whose tests use `kacl-test-support` are the ones the document names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The table's rows in order: crate → the kacl crates it may import (full names).
fn allowed_table(doc: &str) -> Vec<(String, BTreeSet<String>)> {
    let section = doc
        .split("## The crates, and what each may import")
        .nth(1)
        .expect("docs/architecture.md has the section of the crate table");
    section
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let name = cells.first()?.strip_prefix('`')?.strip_suffix('`')?;
            let allowed = cells
                .last()?
                .split(',')
                .map(str::trim)
                .filter(|short| !short.is_empty() && *short != "—")
                .map(|short| format!("kacl-{short}"))
                .collect();
            Some((name.to_owned(), allowed))
        })
        .collect()
}

/// The kacl crates a manifest depends on outside its dev-dependencies.
fn kacl_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut section = String::new();
    let mut found = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = header.trim().to_owned();
            // `[dependencies.kacl-acl]`
            if let Some(name) = section.strip_prefix("dependencies.") {
                if name.starts_with("kacl") {
                    found.insert(name.trim_matches('"').to_owned());
                }
            }
            continue;
        }
        let runtime = section.ends_with("dependencies") && !section.ends_with("dev-dependencies");
        if !runtime {
            continue;
        }
        let key = line.split(['=', '.', ' ']).next().unwrap_or_default();
        let key = key.trim_matches('"');
        if key == "kacl" || key.starts_with("kacl-") {
            found.insert(key.to_owned());
        }
    }
    found
}

#[test]
fn every_crate_imports_only_what_its_row_of_the_architecture_table_allows() {
    let root = workspace();
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).expect("architecture");
    let table = allowed_table(&doc);
    assert!(table.len() > 10, "the crate table was not found: {table:?}");

    let mut problems = Vec::new();
    let mut above = BTreeSet::new();
    for (name, allowed) in &table {
        let later: Vec<&String> = allowed.difference(&above).collect();
        if !later.is_empty() {
            problems.push(format!(
                "the row of {name} allows {later:?}, which are not above it"
            ));
        }
        above.insert(name.clone());
    }

    let rows: BTreeMap<&str, &BTreeSet<String>> =
        table.iter().map(|(n, a)| (n.as_str(), a)).collect();
    let mut crates = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let dir = entry.expect("entry").path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let Some(allowed) = rows.get(name.as_str()) else {
            problems.push(format!("crates/{name} has no row in docs/architecture.md"));
            continue;
        };
        for dependency in kacl_dependencies(&manifest) {
            if !allowed.contains(&dependency) {
                problems.push(format!(
                    "{name} imports {dependency}, which its row of docs/architecture.md does \
                     not allow"
                ));
            }
        }
        crates.push(name);
    }
    for name in rows.keys() {
        if !crates.iter().any(|c| c == name) {
            problems.push(format!("the table names {name}, which is not in crates/"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Whether a manifest lists `kacl-test-support` under `[dev-dependencies]`.
fn dev_depends_on_test_support(manifest: &str) -> bool {
    let mut dev = false;
    manifest.lines().map(str::trim).any(|line| {
        if line.starts_with('[') {
            dev = line == "[dev-dependencies]";
            return false;
        }
        dev && line.split(['=', '.', ' ']).next() == Some("kacl-test-support")
    })
}

#[test]
fn the_crates_using_the_test_support_crate_are_the_ones_the_architecture_names() {
    let root = workspace();
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).expect("architecture");
    let named: BTreeSet<String> = doc
        .split("`kacl-test-support`, a dev-dependency of ")
        .nth(1)
        .and_then(|rest| rest.split(" (their tests").next())
        .expect("docs/architecture.md names the users of kacl-test-support")
        .split([',', ' ', '\n'])
        .filter_map(|word| word.strip_prefix('`')?.strip_suffix('`'))
        .map(str::to_owned)
        .collect();
    let mut users = BTreeSet::new();
    for entry in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let dir = entry.expect("entry").path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        if dev_depends_on_test_support(&manifest) {
            users.insert(dir.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert!(!users.is_empty(), "no crate uses kacl-test-support");
    assert_eq!(
        users, named,
        "dev-dependencies on kacl-test-support against docs/architecture.md"
    );
}

#[test]
fn the_manifest_reader_sees_every_form_of_dependency() {
    let manifest = r#"
[package]
name = "x"

[dependencies]
kacl-acl.workspace = true
kacl-store = { workspace = true }
serde = "1"

[dependencies.kacl-sasl]
workspace = true

[target.'cfg(unix)'.dependencies]
"kacl-topics" = { path = "../kacl-topics" }

[dev-dependencies]
kacl-server.workspace = true
"#;
    let found: Vec<String> = kacl_dependencies(manifest).into_iter().collect();
    assert_eq!(
        found,
        ["kacl-acl", "kacl-sasl", "kacl-store", "kacl-topics"],
        "dev-dependencies are not checked"
    );
}
