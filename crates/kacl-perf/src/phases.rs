//! `describe-all --phases`: one DescribeAcls (ANY) on a raw kacl-client connection, timed in
//! the three steps the admin client runs back to back, to show where a slow full describe
//! spends its time on the client side:
//! - wire: request sent to the last response byte in memory (the server's grouping, encoding
//!   and socket writes, loopback transfer, the client's frame read);
//! - decode: the frame decoded into a borrowed `DescribeAclsResponse`;
//! - bindings: flattening into owned `AclBinding`s (what `describe_acls` hands to an
//!   application);
//! - drop: freeing the bindings, the message and the frame (not part of the total: the
//!   application owns the bindings once they are received).

use std::sync::Arc;
use std::time::Duration;

use kacl_acl::AclBindingFilter;
use kacl_client::net::{self, BrokerConnection};
use kacl_client::{acl_wire, AdminConfig, AdminError};
use kacl_protocol::messages::describe_acls::{DescribeAclsRequest, DescribeAclsResponse};
use kacl_protocol::{ApiKey, Message};
use tokio::time::Instant;

/// One raw connection.
pub struct RawDescriber {
    broker: Arc<BrokerConnection>,
}

/// The phases of one full describe.
#[derive(Debug, Clone, Copy)]
pub struct PhaseTiming {
    /// ACLs received.
    pub acls: u64,
    /// Request sent to response in memory.
    pub wire: Duration,
    /// Frame to borrowed message.
    pub decode: Duration,
    /// Message to owned bindings.
    pub bindings: Duration,
    /// Freeing bindings, message and frame.
    pub drop: Duration,
    /// Request sent to bindings built.
    pub total: Duration,
}

impl RawDescriber {
    /// Opens a connection to the first bootstrap server (versions negotiated, authenticated).
    pub async fn connect(config: &AdminConfig) -> Result<RawDescriber, AdminError> {
        let addr = config
            .bootstrap_servers
            .first()
            .ok_or_else(|| AdminError::Config("no bootstrap servers".into()))?;
        Ok(RawDescriber {
            broker: net::open(addr, config).await?,
        })
    }

    /// Describes every ACL, timing each phase.
    pub async fn describe_all(&self) -> Result<PhaseTiming, AdminError> {
        let version = self
            .broker
            .versions
            .pick(ApiKey::DescribeAcls, DescribeAclsRequest::VERSIONS)?;
        let request = acl_wire::describe_request(&AclBindingFilter::ANY, version)?;
        let start = Instant::now();
        let response = self.broker.conn.send(version, &request).await?;
        let wire = start.elapsed();

        let decode_start = Instant::now();
        let body: DescribeAclsResponse<'_> = response.decode()?;
        AdminError::check(body.error_code, body.error_message.as_deref())?;
        let decode = decode_start.elapsed();

        let bindings_start = Instant::now();
        let bindings = acl_wire::bindings_from_describe(&body);
        let total = start.elapsed();
        let flatten = bindings_start.elapsed();
        let acls = bindings.len() as u64;

        let drop_start = Instant::now();
        drop(bindings);
        drop(body);
        drop(response);
        Ok(PhaseTiming {
            acls,
            wire,
            decode,
            bindings: flatten,
            drop: drop_start.elapsed(),
            total,
        })
    }
}
