//! docs/differences-from-kafka.md is rendered from `DIFFERENCES_FROM_KAFKA`, so the list is
//! declared once: this test fails when the page and the constant disagree, and
//! `KACL_BLESS=1` rewrites the page from the constant.

use std::path::PathBuf;

use kacl_server::DIFFERENCES_FROM_KAFKA;

const HEADER: &str = "# Where kacl deliberately differs from Kafka

Rendered from `kacl_server::DIFFERENCES_FROM_KAFKA` (crates/kacl-server/src/lib.rs); each \
difference is also commented in the code where it is made, and the differential suites name \
the ones they allow. Rewrite this page after changing the list with
`KACL_BLESS=1 cargo test -p kacl-server --test differences_doc`.

";

fn rendered() -> String {
    let mut page = String::from(HEADER);
    for difference in DIFFERENCES_FROM_KAFKA {
        page.push_str("- ");
        page.push_str(difference);
        page.push('\n');
    }
    page
}

#[test]
fn the_differences_page_is_rendered_from_the_constant() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/differences-from-kafka.md");
    let want = rendered();
    if std::env::var_os("KACL_BLESS").is_some() {
        std::fs::write(&path, &want).expect("write docs/differences-from-kafka.md");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/differences-from-kafka.md is not DIFFERENCES_FROM_KAFKA rendered; run \
         KACL_BLESS=1 cargo test -p kacl-server --test differences_doc"
    );
}

#[test]
fn every_difference_is_one_line() {
    for difference in DIFFERENCES_FROM_KAFKA {
        assert!(!difference.contains('\n'), "one line each: {difference}");
    }
}
