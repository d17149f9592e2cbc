//! `--in-flight N`: describe by principal or by resource on raw connections, up to N requests
//! in flight on each, as Kafka's clients pipeline (`max.in.flight.requests.per.connection`,
//! 5 by default in the Java clients).
//!
//! Built to cost the server's host as little as it can, since both share the machine: every
//! request frame is encoded once before the run (only its correlation id is patched in), the
//! requests that fit are written in one syscall, all responses that arrived are taken from one
//! read, and a response is checked only for its correlation id (in order, as Kafka answers)
//! and error code. No allocation per request. The first response on each connection and every
//! [`SAMPLE_EVERY`]th after it are decoded in full and must hold at least one ACL, so a server
//! answering empty is still caught.
//!
//! PLAINTEXT without SASL only: the loop speaks to the socket itself.

use std::collections::VecDeque;
use std::sync::Arc;

use anyhow::Context;
use kacl_acl::{AccessControlEntryFilter, AclBindingFilter, PatternType, ResourcePatternFilter};
use kacl_client::{acl_wire, net, AdminConfig, SecurityProtocol};
use kacl_protocol::frame::{decode_response_frame, encode_request_frame};
use kacl_protocol::header::RequestHeader;
use kacl_protocol::messages::describe_acls::{DescribeAclsRequest, DescribeAclsResponse};
use kacl_protocol::{ApiKey, Message};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::dataset;
use super::report::{OpStats, Progress};
use super::workload::Op;

/// Most distinct requests encoded ahead (a random sample when the data set has more
/// resources): ~70 bytes each, a few MB, and far more than the server's caches tell apart.
const MAX_REQUESTS: u64 = 65_536;

/// One response in this many is decoded in full.
pub const SAMPLE_EVERY: u64 = 256;

/// Where the correlation id sits in a request frame: after the size (4), API key and version.
const CORRELATION_AT: usize = 8;

/// Pre-encoded request frames (size prefix included) and the version they were encoded at.
#[derive(Debug)]
pub struct Requests {
    frames: Vec<Vec<u8>>,
    version: i16,
}

impl Requests {
    /// Negotiates the DescribeAcls version with the first bootstrap server and encodes the
    /// requests `op` sends.
    pub async fn prepare(op: &Op, config: &AdminConfig) -> anyhow::Result<Requests> {
        if config.security_protocol != SecurityProtocol::Plaintext || config.sasl.is_some() {
            anyhow::bail!("--in-flight needs a PLAINTEXT listener without SASL");
        }
        let addr = config
            .bootstrap_servers
            .first()
            .context("no bootstrap servers")?;
        let broker = net::open(addr, config).await?;
        let version = broker
            .versions
            .pick(ApiKey::DescribeAcls, DescribeAclsRequest::VERSIONS)?;
        let filters = filters(op)?;
        let mut frames = Vec::with_capacity(filters.len());
        for filter in &filters {
            let body = acl_wire::describe_request(filter, version)?;
            let header = RequestHeader {
                client_id: Some(config.client_id.as_str().into()),
                ..RequestHeader::default()
            };
            let mut frame = Vec::with_capacity(96);
            encode_request_frame(&mut frame, &header, version, &body)?;
            frames.push(frame);
        }
        Ok(Requests { frames, version })
    }
}

/// The filters `op` draws from.
fn filters(op: &Op) -> anyhow::Result<Vec<AclBindingFilter>> {
    let by_principal = |principal: String| {
        AclBindingFilter::new(
            ResourcePatternFilter::ANY,
            AccessControlEntryFilter {
                principal: Some(principal),
                ..AccessControlEntryFilter::ANY
            },
        )
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    Ok(match op {
        Op::DescribePrincipal {
            fixed: Some(principal),
            ..
        } => vec![by_principal(principal.clone())],
        Op::DescribePrincipal { auditors, .. } => (0..(*auditors).min(MAX_REQUESTS))
            .map(|k| by_principal(dataset::auditor(k)))
            .collect(),
        Op::DescribeResource { resources } => {
            let pick = |i: u64, rng: &mut Rng| {
                if *resources <= MAX_REQUESTS {
                    i
                } else {
                    rng.below(*resources)
                }
            };
            (0..(*resources).min(MAX_REQUESTS))
                .map(|i| {
                    let resource = pick(i, &mut rng);
                    AclBindingFilter::new(
                        ResourcePatternFilter::new(
                            dataset::resource_type(resource),
                            Some(dataset::resource_name(resource)),
                            PatternType::Any,
                        ),
                        AccessControlEntryFilter::ANY,
                    )
                })
                .collect()
        }
        _ => anyhow::bail!("--in-flight applies to describe-principal and describe-resource"),
    })
}

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % bound.max(1)
    }
}

/// One pipelined connection.
pub struct Pipeliner {
    stream: TcpStream,
    requests: Arc<Requests>,
    in_flight: usize,
    rng: Rng,
    /// Figures of the run (one operation: describeAcls).
    pub stats: OpStats,
}

impl Pipeliner {
    /// Opens connection `id` to the first bootstrap server.
    pub async fn connect(
        id: usize,
        config: &AdminConfig,
        requests: Arc<Requests>,
        in_flight: usize,
    ) -> anyhow::Result<Pipeliner> {
        let addr = config
            .bootstrap_servers
            .first()
            .context("no bootstrap servers")?;
        let stream = TcpStream::connect(addr.as_str())
            .await
            .with_context(|| format!("cannot connect to {addr}"))?;
        stream.set_nodelay(true)?;
        Ok(Pipeliner {
            stream,
            requests,
            in_flight: in_flight.max(1),
            rng: Rng(0x2545_f491_4f6c_dd1d ^ ((id as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15))),
            stats: OpStats::new("describeAcls")?,
        })
    }

    /// Keeps `in_flight` requests outstanding until `end` (recording those sent from
    /// `measure_from`), then waits for the last answers.
    pub async fn run(
        mut self,
        measure_from: Instant,
        end: Instant,
        progress: Arc<Progress>,
    ) -> anyhow::Result<Pipeliner> {
        let flexible = ApiKey::DescribeAcls.response_header_version(self.requests.version) >= 1;
        let mut out: Vec<u8> = Vec::with_capacity(self.in_flight * 128);
        let mut input: Vec<u8> = Vec::with_capacity(64 * 1024);
        let mut sent: VecDeque<(i32, Instant)> = VecDeque::with_capacity(self.in_flight);
        let mut correlation: i32 = 0;
        let mut answered: u64 = 0;
        let mut now = Instant::now();
        loop {
            if now < end {
                while sent.len() < self.in_flight {
                    self.push(&mut out, correlation);
                    sent.push_back((correlation, now));
                    correlation = correlation.wrapping_add(1);
                }
            }
            if !out.is_empty() {
                self.stream.write_all(&out).await?;
                out.clear();
            }
            if sent.is_empty() {
                return Ok(self);
            }
            if self.stream.read_buf(&mut input).await? == 0 {
                anyhow::bail!("the server closed the connection");
            }
            now = Instant::now();
            let mut at = 0;
            while let Some(prefix) = input.get(at..at + 4) {
                let len = i32::from_be_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
                let len = usize::try_from(len).context("negative response size")?;
                let Some(payload) = input.get(at + 4..at + 4 + len) else {
                    if input.capacity() < at + 4 + len {
                        input.reserve(at + 4 + len - input.len());
                    }
                    break;
                };
                let (expected, sent_at) = sent.pop_front().context("a response nobody asked")?;
                let (id, code) = header_and_error(payload, flexible)?;
                if id != expected {
                    anyhow::bail!("correlation id {id} where {expected} was next");
                }
                let record = sent_at >= measure_from;
                answered += 1;
                if code != 0 {
                    if record {
                        self.stats.error(format!("error code {code}"));
                    }
                } else if answered % SAMPLE_EVERY == 0
                    && !holds_acls(payload, self.requests.version)?
                {
                    self.stats.error("a sampled response holds no ACL");
                } else if record {
                    self.stats.record(now - sent_at, 0);
                }
                progress.add(0);
                at += 4 + len;
            }
            input.drain(..at);
        }
    }

    /// Appends a random pre-encoded request with `correlation` patched in.
    fn push(&mut self, out: &mut Vec<u8>, correlation: i32) {
        let count = self.requests.frames.len() as u64;
        let pick = usize::try_from(self.rng.below(count)).unwrap_or(0);
        let Some(frame) = self.requests.frames.get(pick) else {
            return;
        };
        let start = out.len();
        out.extend_from_slice(frame);
        if let Some(slot) = out
            .get_mut(start + CORRELATION_AT..)
            .and_then(<[u8]>::first_chunk_mut::<4>)
        {
            *slot = correlation.to_be_bytes();
        }
    }
}

/// The correlation id and the error code of a DescribeAcls response payload (after the
/// header: throttle time, then error code).
fn header_and_error(payload: &[u8], flexible: bool) -> anyhow::Result<(i32, i16)> {
    let short = || anyhow::anyhow!("response of {} bytes is too short", payload.len());
    let id = payload.first_chunk::<4>().ok_or_else(short)?;
    let mut at = 4;
    if flexible {
        let (fields, used) = uvarint(payload.get(at..).ok_or_else(short)?)?;
        at += used;
        for _ in 0..fields {
            let (_tag, used) = uvarint(payload.get(at..).ok_or_else(short)?)?;
            at += used;
            let (size, used) = uvarint(payload.get(at..).ok_or_else(short)?)?;
            at += used + size as usize;
        }
    }
    let code = payload
        .get(at + 4..)
        .and_then(<[u8]>::first_chunk::<2>)
        .ok_or_else(short)?;
    Ok((i32::from_be_bytes(*id), i16::from_be_bytes(*code)))
}

/// An unsigned varint and the bytes it took.
fn uvarint(bytes: &[u8]) -> anyhow::Result<(u32, usize)> {
    let mut value = 0u32;
    for (i, byte) in bytes.iter().take(5).enumerate() {
        value |= u32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    anyhow::bail!("bad varint in a response header")
}

/// Decodes a whole response: whether it holds an ACL.
fn holds_acls(payload: &[u8], version: i16) -> anyhow::Result<bool> {
    let (_, body) = decode_response_frame::<DescribeAclsResponse<'_>>(payload, version)?;
    Ok(body.resources.iter().any(|r| !r.acls.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_with_and_without_tagged_fields() {
        // correlation 7, throttle 0, error 41
        let classic = [0, 0, 0, 7, 0, 0, 0, 0, 0, 41];
        assert_eq!(header_and_error(&classic, false).unwrap(), (7, 41));
        // flexible: one tagged field (tag 3, 2 bytes) before the body
        let flexible = [0, 0, 0, 9, 1, 3, 2, 0xaa, 0xbb, 0, 0, 0, 0, 0, 0];
        assert_eq!(header_and_error(&flexible, true).unwrap(), (9, 0));
        assert!(header_and_error(&[0, 0, 0, 9, 0, 0], true).is_err());
        assert!(header_and_error(&[0, 0, 0, 9, 0xff, 0xff, 0xff, 0xff, 0xff], true).is_err());
    }
}
