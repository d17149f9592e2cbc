//! DeleteAcls answers are bounded: each filter lists every ACL it matched, so many broad
//! filters could ask for an enormous answer; above `socket.request.max.bytes` the request is
//! refused before anything is deleted.

mod common;

use common::*;

#[tokio::test]
async fn a_delete_whose_answer_would_be_too_large_is_refused_before_deleting() {
    let server = start(&[("socket.request.max.bytes", "4194304")]).await;
    let mut client = server.client().await;
    for batch in 0..2 {
        let creations = (0..1_000)
            .map(|i| allow_read(&format!("t-{batch}-{i:04}"), "User:p"))
            .collect();
        let created = client.create(3, creations).await;
        assert!(created.results.iter().all(|r| r.error_code == 0));
    }
    // 1,000 ANY filters over 2,000 ACLs: 2,000,000 listed matches, ~70 MB.
    let any = || delete_filter(ANY, None, ANY, None, ANY, ANY);
    let deleted = client.delete(3, (0..1_000).map(|_| any()).collect()).await;
    assert_eq!(deleted.filter_results.len(), 1_000);
    for result in &deleted.filter_results {
        assert_eq!(result.error_code, 44, "POLICY_VIOLATION");
        assert!(result.matching_acls.is_empty());
        let message = result.error_message.as_deref().unwrap_or("");
        assert!(
            message.contains("socket.request.max.bytes") && message.contains("nothing was deleted"),
            "{message}"
        );
    }
    assert_eq!(
        acl_count(&client.describe(3, &describe_all()).await),
        2_000,
        "nothing deleted"
    );

    // Within the limit the same filters delete as before.
    let deleted = client.delete(3, vec![any(), any()]).await;
    assert!(deleted.filter_results.iter().all(|r| r.error_code == 0));
    assert_eq!(deleted.filter_results[0].matching_acls.len(), 2_000);
    assert_eq!(deleted.filter_results[1].matching_acls.len(), 2_000);
    assert_eq!(acl_count(&client.describe(3, &describe_all()).await), 0);
}
