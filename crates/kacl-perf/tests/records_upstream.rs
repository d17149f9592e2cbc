//! `kacl perf records` against a real upstream: produce 20,000 records to a fresh topic, then
//! consume them back, and check that every count matches. Needs a Kafka-compatible broker
//! with Produce and Fetch (Apache Kafka, Tansu, a kacl gateway in front of one), named by
//! `KACL_PERF_UPSTREAM=host:port`; `KACL_PERF_COMMAND_CONFIG=FILE` optionally gives client
//! properties (SASL, TLS); `KACL_PERF_UPSTREAM_IS_TANSU=1` tolerates Tansu's ListOffsets
//! LATEST answer (an offset inside the last batch, not the log end). Without
//! `KACL_PERF_UPSTREAM` the test is skipped: a standalone `kacl serve` has no Produce.
//!
//! ```text
//! tansu broker --listener-url tcp://127.0.0.1:19092 \
//!     --advertised-listener-url tcp://127.0.0.1:19092 --storage-engine memory://tansu/ &
//! KACL_PERF_UPSTREAM=127.0.0.1:19092 KACL_PERF_UPSTREAM_IS_TANSU=1 cargo test -p kacl-perf --test records_upstream -- --nocapture
//! ```

use clap::Parser;
use kacl_client::{AdminConfig, Properties};
use kacl_perf::args::RecordsPerfArgs;
use kacl_perf::records::report::Stopped;

const RECORDS: u64 = 20_000;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: RecordsPerfArgs,
}

fn args(line: &[&str]) -> RecordsPerfArgs {
    let mut argv = vec!["records"];
    argv.extend_from_slice(line);
    Cli::parse_from(argv).args
}

fn config(upstream: &str) -> AdminConfig {
    let props = match std::env::var("KACL_PERF_COMMAND_CONFIG") {
        Ok(path) => {
            Properties::parse(&std::fs::read_to_string(&path).expect("read the properties"))
                .expect("parse the properties")
        }
        Err(_) => Properties::default(),
    };
    AdminConfig::from_properties(upstream, &props)
        .expect("a client configuration")
        .0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn produce_then_consume_the_same_records() {
    let Ok(upstream) = std::env::var("KACL_PERF_UPSTREAM") else {
        eprintln!(
            "skipped: set KACL_PERF_UPSTREAM=host:port to a broker with Produce and Fetch \
             (Kafka, Tansu, a kacl gateway); a standalone kacl has no Produce"
        );
        return;
    };
    let config = config(&upstream);
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let topic = format!("kacl-perf-it-{}-{stamp}", std::process::id());
    let count = RECORDS.to_string();

    let produced = kacl_perf::records::run(
        &args(&[
            "--workload",
            "produce",
            "--topic",
            &topic,
            "--partitions",
            "3",
            "--count",
            &count,
            "--duration",
            "120s",
            "--record-size",
            "512",
            "--batch-records",
            "16",
        ]),
        config.clone(),
    )
    .await
    .expect("produce runs");
    eprint!("{}", produced.text());
    assert_eq!(produced.records, RECORDS, "{produced:?}");
    assert_eq!(produced.stopped_by, Stopped::Count);
    assert!(!produced.has_errors(), "{produced:?}");
    assert_eq!(produced.requests, RECORDS / 16);
    assert_eq!(produced.setting.partitions, 3);

    let consumed = kacl_perf::records::run(
        &args(&[
            "--workload",
            "consume",
            "--topic",
            &topic,
            "--count",
            &count,
            "--duration",
            "120s",
            "--from",
            "earliest",
            "--connections",
            "2",
        ]),
        config.clone(),
    )
    .await
    .expect("consume runs");
    eprint!("{}", consumed.text());
    assert_eq!(consumed.records, RECORDS, "{consumed:?}");
    assert_eq!(consumed.stopped_by, Stopped::Count);
    assert_eq!(consumed.high_watermarks, Some(RECORDS as i64));
    assert!(!consumed.has_errors(), "{consumed:?}");
    // Record batches cost at least the record bytes (512 each) plus a header per batch.
    assert!(consumed.bytes >= RECORDS * 512, "{consumed:?}");

    // From the end nothing is left to read. (Tansu 0.6.0 answers ListOffsets LATEST with an
    // offset inside each partition's last batch, the base offset + 1, where Kafka answers the
    // log end offset, so there the rest of that batch is read: at most 15 records per
    // partition.)
    let tail = kacl_perf::records::run(
        &args(&[
            "--workload",
            "consume",
            "--topic",
            &topic,
            "--from",
            "latest",
            "--duration",
            "1s",
            "--max-wait-ms",
            "200",
        ]),
        config,
    )
    .await
    .expect("consume from the end runs");
    eprint!("{}", tail.text());
    let tolerated = if std::env::var("KACL_PERF_UPSTREAM_IS_TANSU").is_ok() {
        3 * 15
    } else {
        0
    };
    assert!(tail.records <= tolerated, "{tail:?}");
    assert_eq!(tail.stopped_by, Stopped::Duration);
    assert_eq!(tail.high_watermarks, Some(RECORDS as i64));
    assert!(!tail.has_errors(), "{tail:?}");
}
