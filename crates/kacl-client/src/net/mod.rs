//! The network layer: opening a ready-to-use connection to one broker (TCP, TLS, handshake,
//! authentication) and the pieces it is made of.

pub mod connection;
pub mod handshake;
pub mod tls;
pub mod versions;

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::TcpStream;

use crate::config::AdminConfig;
use crate::error::AdminError;
pub use connection::{
    encode_request, Chunk, Connection, ForwardedAnswer, OutgoingFrame, PendingReply, Response,
    StreamedResponse, TrySendError, SPLICE_MIN_BODY,
};
pub use versions::ApiVersionsTable;

/// A connection that has negotiated versions and, where required, authenticated.
#[derive(Debug)]
pub struct BrokerConnection {
    /// The pipelined connection.
    pub conn: Connection,
    /// What this broker speaks.
    pub versions: ApiVersionsTable,
    /// When to stop using this connection for new requests because its SASL session nears
    /// the lifetime the broker granted (`connections.max.reauth.ms`, KIP-368). The client
    /// does not re-authenticate in place; it opens a fresh connection instead.
    pub retire_at: Option<Instant>,
}

/// The share of a session lifetime after which a connection is retired: the Java client
/// re-authenticates between 85% and 95% of it.
const RETIRE_AT_SHARE_OF_LIFETIME: f64 = 0.85;

impl BrokerConnection {
    /// True while the connection is open and its session is not about to expire.
    pub fn usable(&self) -> bool {
        !self.conn.is_closed() && self.retire_at.is_none_or(|at| Instant::now() < at)
    }
}

/// When a session granted `lifetime` at `authenticated` should stop taking new requests.
fn retire_at(authenticated: Instant, lifetime: Duration) -> Instant {
    authenticated + lifetime.mul_f64(RETIRE_AT_SHARE_OF_LIFETIME)
}

/// Dials `addr`, negotiates versions and authenticates, all within the connect timeout plus
/// the request timeout of each handshake step.
pub async fn open(addr: &str, config: &AdminConfig) -> Result<Arc<BrokerConnection>, AdminError> {
    let stream = tokio::time::timeout(config.connect_timeout, TcpStream::connect(addr))
        .await
        .map_err(|_| AdminError::Timeout {
            what: format!("connecting to {addr}"),
            after: config.connect_timeout,
        })?
        .map_err(|e| AdminError::network(addr, e))?;
    // Requests are small and latency matters more than packet count.
    let _ = stream.set_nodelay(true);
    let conn = if config.security_protocol.uses_tls() {
        let connector = tls::connector(&config.tls)?;
        let host = addr.rsplit_once(':').map_or(addr, |(host, _)| host);
        let handshake = tls::handshake(&connector, host, addr, stream);
        let stream = tokio::time::timeout(config.connect_timeout, handshake)
            .await
            .map_err(|_| AdminError::Timeout {
                what: format!("TLS handshake with {addr}"),
                after: config.connect_timeout,
            })??;
        Connection::start(stream, addr, &config.client_id, config.request_timeout)
    } else {
        Connection::start_tcp(stream, addr, &config.client_id, config.request_timeout)
            .map_err(|e| AdminError::network(addr, e))?
    };
    let versions = handshake::negotiate_versions(&conn).await?;
    let mut retire = None;
    if config.security_protocol.uses_sasl() {
        let sasl = config.sasl.as_ref().ok_or_else(|| {
            AdminError::Config(format!(
                "security.protocol={} needs SASL credentials",
                config.security_protocol
            ))
        })?;
        let authenticated = Instant::now();
        retire = handshake::authenticate(&conn, &versions, sasl)
            .await?
            .map(|lifetime| retire_at(authenticated, lifetime));
    }
    Ok(Arc::new(BrokerConnection {
        conn,
        versions,
        retire_at: retire,
    }))
}
