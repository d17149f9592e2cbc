//! A DescribeAcls answer of thousands of patterns, which the server writes one resource at a
//! time (sized by a first walk over the index): every version must return exactly the stored
//! set, each pattern once, whatever the mix of one-ACL and many-ACL patterns.

mod common;

use std::collections::BTreeSet;

use common::*;

#[tokio::test]
async fn a_describe_of_thousands_of_patterns_returns_exactly_the_stored_set() {
    let server = start(&[]).await;
    let mut client = server.client().await;
    let mut expected = BTreeSet::<AclRow>::new();
    let mut batch = Vec::new();
    for i in 0..1_500 {
        // Patterns with 1, 2 or 5 ACLs; every seventh PREFIXED.
        let pattern_type = if i % 7 == 0 { PREFIXED } else { LITERAL };
        let name = format!("orders.topic-{i:05}");
        for j in 0..[1, 2, 5][i % 3] {
            let principal = format!("User:app-{j}");
            batch.push(creation(
                TOPIC,
                &name,
                pattern_type,
                &principal,
                "*",
                READ,
                ALLOW,
            ));
            expected.insert((
                TOPIC,
                name.clone(),
                pattern_type,
                principal,
                "*".into(),
                READ,
                ALLOW,
            ));
        }
        if batch.len() >= 1_000 {
            let created = client.create(3, std::mem::take(&mut batch)).await;
            assert!(created.results.iter().all(|r| r.error_code == 0));
        }
    }
    let created = client.create(3, batch).await;
    assert!(created.results.iter().all(|r| r.error_code == 0));

    for version in 1..=3 {
        let all = client.describe(version, &describe_all()).await;
        assert_eq!(all.error_code, 0);
        assert_eq!(
            all.resources.len(),
            1_500,
            "one resource per pattern at v{version}"
        );
        let rows = acl_rows(&all);
        let got: BTreeSet<AclRow> = rows.iter().cloned().collect();
        assert_eq!(got.len(), rows.len(), "duplicate ACL at v{version}");
        assert_eq!(got, expected, "v{version}");
    }
    // v0 cannot express PREFIXED: only the LITERAL patterns come back.
    let v0_all = describe_filter(ANY, None, LITERAL, None, ANY, ANY);
    let literal = client.describe(0, &v0_all).await;
    let literal_expected = expected.iter().filter(|row| row.2 == LITERAL).count();
    assert_eq!(acl_count(&literal), literal_expected);
    assert!(literal.resources.iter().all(|r| r.pattern_type == LITERAL));
}
