//! The flags of `kacl perf acls` (beside the connection flags and `--output`, which the CLI
//! owns), and the duration syntax they take (`30s`, `500ms`, `2m`).

use std::time::Duration;

/// The long help of `kacl perf acls`: the data set, the workloads, examples.
pub const ACLS_EXAMPLES: &str = "\
Data set: the first N ACLs of an endless stream in the shape of Kafka's AuthorizerBenchmark
(resources foo-bar35_resource-<i>, every 10th a GROUP, every 5th PREFIXED, ALLOW READ for
User:test-user and User:test-user1..9 on each, DENYs at --deny-percent, a PREFIXED
foo-bar35_resource- on 10 hosts, a LITERAL * on resources/10 hosts), plus 10 ACLs for one
User:auditor-<k> per 1,000 resources. A larger set extends a smaller one: --start skips what is
already loaded.

Workloads:
  load                creates the N ACLs in CreateAcls requests of --batch-size, spread over
                      --connections; reports ACLs/s
  describe-all        DescribeAcls for every ACL (the ANY filter), received and decoded into
                      bindings (--grouped: into kacl-client's AclGroups); --phases splits
                      wire time, decode and flattening
  describe-principal  DescribeAcls by principal: a random User:auditor-<k> (10 ACLs each), or
                      --principal
  describe-resource   DescribeAcls for one random resource foo-bar35_resource-<i> (its type,
                      any pattern type)
  create-delete       CreateAcls of --batch-size ACLs on a fresh topic name, then DeleteAcls of
                      them; both reported
  metadata            Metadata for all topics
  propagation         cluster mode: CreateAcls of one ACL on the first bootstrap server, then
                      DescribeAcls on --observer back to back until it shows; --samples
                      times; reports the delay from the create's answer
Each of --connections runs its own client and TCP connection, one request at a time; with
--in-flight N (describe-principal, describe-resource) each runs a raw pipelined connection
instead, N requests outstanding, pre-encoded, answers checked by correlation id and error code.

Examples:
  kacl serve --override listeners=PLAINTEXT://127.0.0.1:9092 &
  kacl perf acls --bootstrap-server 127.0.0.1:9092 --workload load --acls 2000000 \\
      --batch-size 1000 --connections 4
  kacl perf acls --bootstrap-server 127.0.0.1:9092 --workload describe-principal \\
      --acls 2000000 --connections 64 --duration 30s
  kacl perf acls --bootstrap-server 127.0.0.1:9092 --workload describe-all \\
      --acls 2000000 --connections 1 --duration 20s --output json";

/// The workload to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Workload {
    /// Create the data set.
    Load,
    /// Describe every ACL.
    DescribeAll,
    /// Describe by principal.
    DescribePrincipal,
    /// Describe by resource.
    DescribeResource,
    /// Create then delete batches of ACLs.
    CreateDelete,
    /// Metadata for all topics.
    Metadata,
    /// Cluster mode: one CreateAcls on the bootstrap server until --observer shows it
    Propagation,
}

impl Workload {
    /// The name as given on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Load => "load",
            Workload::DescribeAll => "describe-all",
            Workload::DescribePrincipal => "describe-principal",
            Workload::DescribeResource => "describe-resource",
            Workload::CreateDelete => "create-delete",
            Workload::Metadata => "metadata",
            Workload::Propagation => "propagation",
        }
    }

    /// Whether the workload writes (and so talks to the controller).
    pub fn writes(self) -> bool {
        matches!(
            self,
            Workload::Load | Workload::CreateDelete | Workload::Propagation
        )
    }
}

/// Flags of `kacl perf acls` (the connection flags and `--output` are the CLI's).
#[derive(Debug, clap::Args)]
pub struct AclsPerfArgs {
    /// What to run.
    #[arg(long, value_enum)]
    pub workload: Workload,
    /// Size of the data set: loaded by `load`, assumed present by the others (they query only
    /// resources and principals within it).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub acls: u64,
    /// Concurrent connections, each with its own client.
    #[arg(long, value_name = "C", default_value_t = 1)]
    pub connections: usize,
    /// How long to drive the workload (all but `load`): 30s, 500ms, 2m.
    #[arg(long, value_name = "D", default_value = "10s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Run this long before measuring (counted in neither figures nor duration).
    #[arg(long, value_name = "D", default_value = "0s", value_parser = parse_duration)]
    pub warmup: Duration,
    /// ACLs per CreateAcls request (`load`, `create-delete`).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub batch_size: usize,
    /// Share of ALLOW ACLs that get a DENY twin, in percent (Kafka's denyPercentage).
    #[arg(long, value_name = "PERCENT", default_value_t = 0.0)]
    pub deny_percent: f64,
    /// `load`: skip the first K ACLs of the data set (already loaded by an earlier run).
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub start: u64,
    /// `describe-principal`: always describe this principal (e.g. User:test-user3, which owns a
    /// tenth of the data set) instead of a random auditor.
    #[arg(long, value_name = "PRINCIPAL")]
    pub principal: Option<String>,
    /// Load the data set (as `load` would) before running the workload.
    #[arg(long)]
    pub preload: bool,
    /// `describe-all`: also time the phases apart (request to last response byte, decode,
    /// flattening into bindings), on raw connections.
    #[arg(long)]
    pub phases: bool,
    /// `describe-all`: receive the answer grouped by resource with shared strings
    /// (`Admin::describe_acls_grouped`) instead of as one owned binding per ACL.
    #[arg(long)]
    pub grouped: bool,
    /// `describe-principal`, `describe-resource`: keep N requests in flight on each connection
    /// (as Kafka clients' `max.in.flight.requests.per.connection`, 5 by default), on raw
    /// PLAINTEXT connections with pre-encoded requests; only the correlation id and error
    /// code of each answer are checked (one in 256 is decoded in full). ACLs are not counted.
    #[arg(long, value_name = "N")]
    pub in_flight: Option<usize>,
    /// Runtime worker threads (default: one per CPU).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// `propagation`: the node (HOST:PORT) that must show the ACL created on the first
    /// bootstrap server
    #[arg(long, value_name = "HOST:PORT")]
    pub observer: Option<String>,
    /// `propagation`: how many ACLs to create and wait for, one at a time
    #[arg(long, value_name = "N", default_value_t = 500)]
    pub samples: u64,
}

/// The long help of `kacl perf records`: the workloads, examples.
pub const RECORDS_EXAMPLES: &str = "\
Workloads (any Kafka bootstrap server: Apache Kafka, Tansu, a kacl gateway):
  produce   Produce requests, each one RecordBatch v2 of --batch-records records of
            --record-size bytes (null key, no headers, no compression, producer id -1) for one
            partition, to the partition's leader (Metadata); --in-flight requests outstanding
            on each of --connections per leader; --rate paces them (latency then counted
            from each request's scheduled time). Creates --topic (--partitions) if missing.
            Reports records/s, MB/s (2^20 bytes), latency percentiles, error codes by name.
  consume   sessionless Fetch (session 0, epoch -1) of every partition of --topic from its
            leader, from --from (0, earliest, latest or an offset), one fetch at a time per
            connection; records counted from the batch headers (not decoded). Reports
            records/s, MB/s of record batches, fetch latency, error codes.
Both stop after --count records or --duration (10s), whichever comes first.

Examples:
  kacl perf records --bootstrap-server 127.0.0.1:9092 --workload produce --topic perf \\
      --partitions 6 --count 1000000 --duration 60s
  kacl perf records --bootstrap-server 127.0.0.1:9092 --workload consume --topic perf \\
      --count 1000000 --duration 60s --output json
  kacl perf records --bootstrap-server 127.0.0.1:9093 --command-config client.properties \\
      --workload produce --topic perf --rate 2000 --duration 30s";

/// A records workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RecordsWorkload {
    /// Produce record batches.
    Produce,
    /// Fetch them back.
    Consume,
}

impl RecordsWorkload {
    /// The name as given on the command line.
    pub fn name(self) -> &'static str {
        match self {
            RecordsWorkload::Produce => "produce",
            RecordsWorkload::Consume => "consume",
        }
    }
}

/// Where `consume` starts in each partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartAt {
    /// The log start offset (ListOffsets -2).
    Earliest,
    /// The log end offset (ListOffsets -1): only what is produced during the run.
    Latest,
    /// This offset in every partition.
    Offset(i64),
}

/// Parses `earliest`, `latest` or an offset.
pub fn parse_start(text: &str) -> Result<StartAt, String> {
    match text.trim() {
        "earliest" => Ok(StartAt::Earliest),
        "latest" => Ok(StartAt::Latest),
        other => other
            .parse::<i64>()
            .ok()
            .filter(|offset| *offset >= 0)
            .map(StartAt::Offset)
            .ok_or_else(|| format!("invalid --from {other:?}: earliest, latest or an offset")),
    }
}

/// Flags of `kacl perf records` (the connection flags and `--output` are the CLI's).
#[derive(Debug, Clone, clap::Args)]
pub struct RecordsPerfArgs {
    /// What to run.
    #[arg(long, value_enum)]
    pub workload: RecordsWorkload,
    /// The topic to produce to or consume from.
    #[arg(long, value_name = "TOPIC", default_value = "kacl-perf")]
    pub topic: String,
    /// `produce`: partitions of the topic when it has to be created.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub partitions: i32,
    /// `produce`: replication factor of the topic when it has to be created (default: the
    /// broker's).
    #[arg(long, value_name = "N")]
    pub replication_factor: Option<i16>,
    /// `produce`: bytes of each record's value.
    #[arg(long, value_name = "BYTES", default_value_t = 1024)]
    pub record_size: usize,
    /// `produce`: records per batch (one batch per request).
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub batch_records: u32,
    /// `produce`: acknowledgments: 1 the leader, -1 all in-sync replicas, 0 none (no
    /// response, no latency).
    #[arg(long, value_name = "ACKS", default_value_t = -1, allow_hyphen_values = true)]
    pub acks: i16,
    /// `produce`: requests outstanding on each connection.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub in_flight: usize,
    /// Connections to each partition leader.
    #[arg(long, value_name = "C", default_value_t = 1)]
    pub connections: usize,
    /// Stop after this long (requests in flight are still answered).
    #[arg(long, value_name = "D", default_value = "10s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Stop after this many records (produced, or consumed), if before --duration.
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// `produce`: send at most this many requests per second in all, evenly spaced.
    #[arg(long, value_name = "REQUESTS")]
    pub rate: Option<f64>,
    /// `produce`: the broker's time limit for the acknowledgments (Produce timeout_ms).
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    pub timeout_ms: i32,
    /// `consume`: where to start in each partition: earliest, latest or an offset.
    #[arg(long, value_name = "FROM", default_value = "0", value_parser = parse_start)]
    pub from: StartAt,
    /// `consume`: Fetch max_bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 52_428_800)]
    pub max_bytes: i32,
    /// `consume`: Fetch partition_max_bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1_048_576)]
    pub partition_max_bytes: i32,
    /// `consume`: Fetch max_wait_ms, the longest a broker holds a fetch with no new data.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub max_wait_ms: i32,
    /// Runtime worker threads (default: one per CPU).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// Parses `250ms`, `30s`, `2m`, `1h`, or a plain number of seconds (fractions allowed).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("invalid duration {text:?}: expected e.g. 30s, 500ms, 2m"))?;
    let seconds = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => {
            return Err(format!(
                "invalid duration unit {other:?}: use ms, s, m or h"
            ))
        }
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("invalid duration {text:?}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn start_positions() {
        assert_eq!(parse_start("earliest"), Ok(StartAt::Earliest));
        assert_eq!(parse_start("latest"), Ok(StartAt::Latest));
        assert_eq!(parse_start("0"), Ok(StartAt::Offset(0)));
        assert_eq!(parse_start("1234"), Ok(StartAt::Offset(1234)));
        assert!(parse_start("-2").is_err());
        assert!(parse_start("oldest").is_err());
    }
}
