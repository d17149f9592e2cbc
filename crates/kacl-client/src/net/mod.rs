//! The network layer: opening a ready-to-use connection to one broker (TCP, TLS, handshake,
//! authentication) and the pieces it is made of.

pub mod connection;
pub mod handshake;
pub mod tls;
pub mod versions;

use std::sync::Arc;

use tokio::net::TcpStream;

use crate::config::AdminConfig;
use crate::error::AdminError;
pub use connection::{encode_request, Connection, Response};
pub use versions::ApiVersionsTable;

/// A connection that has negotiated versions and, where required, authenticated.
#[derive(Debug)]
pub struct BrokerConnection {
    /// The pipelined connection.
    pub conn: Connection,
    /// What this broker speaks.
    pub versions: ApiVersionsTable,
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
        Connection::start(stream, addr, &config.client_id, config.request_timeout)
    };
    let versions = handshake::negotiate_versions(&conn).await?;
    if config.security_protocol.uses_sasl() {
        let sasl = config.sasl.as_ref().ok_or_else(|| {
            AdminError::Config(format!(
                "security.protocol={} needs SASL credentials",
                config.security_protocol
            ))
        })?;
        handshake::authenticate(&conn, &versions, sasl).await?;
    }
    Ok(Arc::new(BrokerConnection { conn, versions }))
}
