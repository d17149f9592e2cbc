//! The cluster page's live chart: the console samples a kacl server's `/metrics` every few
//! seconds (one plain HTTP/1.1 GET, the endpoint closes after each answer) and keeps the
//! last few minutes of two counters, drawn as request and denial rates in an inline SVG; and
//! from the same answer, a kacl server in cluster mode's etcd state (the `kacl_etcd_*`
//! series), shown as last read.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How often `/metrics` is read.
pub(crate) const SAMPLE_EVERY: Duration = Duration::from_secs(5);

/// Samples kept: five minutes.
const KEEP: usize = 60;

/// A `/metrics` answer larger than this is not read further (the endpoint is trusted less
/// than nothing: it is just another network peer).
const MAX_BODY: usize = 4 << 20;

/// Two counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Sample {
    pub(crate) at: Instant,
    pub(crate) requests: f64,
    pub(crate) denied: f64,
}

/// A cluster-mode kacl server's view of etcd, from its `kacl_etcd_*` series.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct EtcdState {
    /// The etcd revision whose changes are all in memory.
    pub(crate) applied_revision: f64,
    /// Revisions etcd is known to be ahead of memory.
    pub(crate) lag_revisions: f64,
    /// Seconds memory has been behind.
    pub(crate) lag_seconds: f64,
    /// Times the watch was re-opened.
    pub(crate) watch_restarts: f64,
    /// Re-lists after a compaction.
    pub(crate) relists: f64,
    /// Requests to etcd, and those that failed.
    pub(crate) requests: f64,
    pub(crate) request_errors: f64,
}

/// What one `/metrics` answer says.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Reading {
    requests: f64,
    denied: f64,
    /// Absent when the server does not run in cluster mode.
    etcd: Option<EtcdState>,
}

/// The sampler and its history.
pub(crate) struct Sampler {
    url: Option<(String, String)>,
    history: Mutex<VecDeque<Sample>>,
    etcd: Mutex<Option<EtcdState>>,
    last_error: Mutex<Option<String>>,
}

impl Sampler {
    /// A sampler of `http://host:port/path` (none: nothing to chart).
    pub(crate) fn new(url: Option<String>) -> Sampler {
        let url = url.and_then(|u| {
            let rest = u.strip_prefix("http://")?;
            let (addr, path) = match rest.find('/') {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, "/metrics"),
            };
            Some((addr.to_owned(), path.to_owned()))
        });
        Sampler {
            url,
            history: Mutex::new(VecDeque::new()),
            etcd: Mutex::new(None),
            last_error: Mutex::new(None),
        }
    }

    /// Whether a `/metrics` address was configured.
    pub(crate) fn configured(&self) -> bool {
        self.url.is_some()
    }

    /// Reads `/metrics` once and records the sample (or the error).
    pub(crate) async fn sample(&self) {
        let Some((addr, path)) = &self.url else {
            return;
        };
        let result = tokio::time::timeout(Duration::from_secs(3), fetch(addr, path)).await;
        let outcome = match result {
            Ok(Ok(body)) => parse(&body).ok_or_else(|| "no kacl counters in /metrics".to_owned()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err("timed out".to_owned()),
        };
        match outcome {
            Ok(Reading {
                requests,
                denied,
                etcd,
            }) => {
                *lock(&self.etcd) = etcd;
                let mut history = lock(&self.history);
                history.push_back(Sample {
                    at: Instant::now(),
                    requests,
                    denied,
                });
                while history.len() > KEEP {
                    history.pop_front();
                }
                *lock(&self.last_error) = None;
            }
            Err(e) => *lock(&self.last_error) = Some(format!("http://{addr}{path}: {e}")),
        }
    }

    /// The etcd state of the last good sample (none: not in cluster mode, or not read yet).
    pub(crate) fn etcd(&self) -> Option<EtcdState> {
        *lock(&self.etcd)
    }

    /// The last sampling error, if the last attempt failed.
    pub(crate) fn last_error(&self) -> Option<String> {
        lock(&self.last_error).clone()
    }

    /// Rates per second between consecutive samples: (seconds ago, requests/s, denials/s).
    pub(crate) fn rates(&self) -> Vec<(f64, f64, f64)> {
        let history = lock(&self.history);
        let now = Instant::now();
        history
            .iter()
            .zip(history.iter().skip(1))
            .map(|(a, b)| {
                let dt = b.at.duration_since(a.at).as_secs_f64().max(1e-3);
                (
                    now.duration_since(b.at).as_secs_f64(),
                    ((b.requests - a.requests) / dt).max(0.0),
                    ((b.denied - a.denied) / dt).max(0.0),
                )
            })
            .collect()
    }

    /// The chart: two polylines over the last five minutes.
    pub(crate) fn svg(&self) -> String {
        chart(&self.rates())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// `GET path` over a fresh connection; the body.
async fn fetch(addr: &str, path: &str) -> std::io::Result<String> {
    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut buf = Vec::new();
    (&mut stream)
        .take(MAX_BODY as u64)
        .read_to_end(&mut buf)
        .await?;
    let text = String::from_utf8_lossy(&buf);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    Ok(body.to_owned())
}

/// The sum of `kacl_requests_total` over its labels, the denied decisions, and the etcd
/// series when present. Anything else (or unparsable) is skipped: the endpoint is a peer.
fn parse(text: &str) -> Option<Reading> {
    let (mut requests, mut denied, mut seen) = (0.0, 0.0, false);
    let mut etcd = EtcdState::default();
    let mut etcd_seen = false;
    for line in text.lines() {
        let Some((name, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let Ok(value) = value.parse::<f64>() else {
            continue;
        };
        if name.starts_with("kacl_requests_total") {
            requests += value;
            seen = true;
        } else if name == "kacl_authorizer_decisions_total{result=\"denied\"}" {
            denied = value;
        } else if let Some(series) = name.strip_prefix("kacl_etcd_") {
            let field = match series {
                "applied_revision" => &mut etcd.applied_revision,
                "lag_revisions" => &mut etcd.lag_revisions,
                "lag_seconds" => &mut etcd.lag_seconds,
                "watch_restarts_total" => &mut etcd.watch_restarts,
                "relists_total" => &mut etcd.relists,
                "requests_total" => &mut etcd.requests,
                "request_errors_total" => &mut etcd.request_errors,
                _ => continue,
            };
            *field = value;
            etcd_seen |= series == "applied_revision";
        }
    }
    seen.then_some(Reading {
        requests,
        denied,
        etcd: etcd_seen.then_some(etcd),
    })
}

/// An SVG line chart of (seconds ago, requests/s, denials/s), newest at the right.
fn chart(rates: &[(f64, f64, f64)]) -> String {
    let (w, h, pad) = (1000.0, 200.0, 30.0);
    let span = (KEEP as f64) * SAMPLE_EVERY.as_secs_f64();
    let top = rates.iter().map(|r| r.1.max(r.2)).fold(1.0_f64, f64::max);
    let point = |ago: f64, v: f64| {
        let x = pad + (w - 2.0 * pad) * (1.0 - (ago / span).min(1.0));
        let y = h - pad - (h - 2.0 * pad) * (v / top);
        format!("{x:.1},{y:.1}")
    };
    let line = |pick: fn(&(f64, f64, f64)) -> f64| {
        rates
            .iter()
            .map(|r| point(r.0, pick(r)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "<svg class=\"chart\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"Requests and \
         denials per second over the last five minutes\" xmlns=\"http://www.w3.org/2000/svg\">\
         <line x1=\"{pad}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#8a9099\"/>\
         <text x=\"{pad}\" y=\"18\" font-size=\"13\" fill=\"#1a1a1a\">max {top:.1}/s</text>\
         <text x=\"{r}\" y=\"18\" font-size=\"13\" text-anchor=\"end\" fill=\"#0b4fa8\">requests/s</text>\
         <text x=\"{r}\" y=\"34\" font-size=\"13\" text-anchor=\"end\" fill=\"#a1141c\">denials/s</text>\
         <polyline fill=\"none\" stroke=\"#0b4fa8\" stroke-width=\"2\" points=\"{req}\"/>\
         <polyline fill=\"none\" stroke=\"#a1141c\" stroke-width=\"2\" points=\"{den}\"/></svg>",
        b = h - pad,
        r = w - pad,
        req = line(|r| r.1),
        den = line(|r| r.2),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_read_from_the_exposition() {
        let text = "# TYPE kacl_requests_total counter\n\
                    kacl_requests_total{api=\"CreateAcls\",version=\"2\"} 3\n\
                    kacl_requests_total{api=\"Metadata\",version=\"12\"} 4\n\
                    kacl_authorizer_decisions_total{result=\"denied\"} 2\n\
                    kacl_authorizer_decisions_total{result=\"allowed\"} 9\n";
        let reading = parse(text).unwrap();
        assert_eq!(
            (reading.requests, reading.denied, reading.etcd),
            (7.0, 2.0, None)
        );
        assert_eq!(parse("garbage\n"), None);
        let cluster = format!(
            "{text}# TYPE kacl_etcd_applied_revision gauge\nkacl_etcd_applied_revision 42\n\
             kacl_etcd_lag_revisions 1\nkacl_etcd_lag_seconds 0.250\n\
             kacl_etcd_watch_restarts_total 3\nkacl_etcd_relists_total 0\n\
             kacl_etcd_requests_total 99\nkacl_etcd_request_errors_total 2\n\
             kacl_etcd_request_seconds_total 0.5\nkacl_etcd_applied_revision junk\n"
        );
        let etcd = parse(&cluster).unwrap().etcd.unwrap();
        assert_eq!(
            etcd,
            EtcdState {
                applied_revision: 42.0,
                lag_revisions: 1.0,
                lag_seconds: 0.25,
                watch_restarts: 3.0,
                relists: 0.0,
                requests: 99.0,
                request_errors: 2.0,
            }
        );
        let svg = chart(&[(10.0, 5.0, 1.0), (5.0, 7.0, 0.0)]);
        assert!(svg.starts_with("<svg") && svg.contains("polyline"));
    }
}
