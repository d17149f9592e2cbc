//! A gateway node's ports for the upstream brokers: one per broker, bound at start for the
//! brokers the upstream names then, and later for each broker that joins the upstream cluster
//! (first seen in a passing Metadata answer), so a grown upstream needs no gateway restart.

use std::sync::Arc;

use kacl_gateway::{Endpoint, Gateway};
use kacl_server_config::ServerConfig;
use kacl_service::{BoundListener, ServerState};
use tokio::net::TcpListener;
use tokio::sync::watch;

use super::accept::{accept_loop, Shell};
use super::StartError;
use crate::shutdown::wait_for_shutdown;

/// Gateway mode: one port per upstream broker on the gateway listener's host (`base + node id`,
/// the base being `kacl.gateway.broker.port.base` or the listener's port + 1; a listener on
/// port 0 gets an OS-chosen port per broker), each routing to that broker. Returns the
/// gateway listener (as configured and as bound), for the ports of brokers that join later.
pub(super) async fn bind_broker_ports(
    config: &ServerConfig,
    gateway: &Gateway,
    sockets: &mut Vec<TcpListener>,
    bound: &mut Vec<BoundListener>,
) -> Result<BrokerPorts, StartError> {
    let settings = config.gateway.as_ref().expect("gateway mode");
    let (listener, front) = match &settings.listener {
        Some(name) => config
            .listeners
            .iter()
            .zip(bound.iter())
            .find(|(l, _)| l.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                StartError::Task(format!("kacl.gateway.listener={name} is not a listener"))
            })?,
        None => config
            .listeners
            .first()
            .zip(bound.first())
            .ok_or_else(|| StartError::Task("gateway mode needs a listener".into()))?,
    };
    let ports = BrokerPorts {
        listener: listener.clone(),
        front: front.clone(),
        base: settings.broker_port_base,
    };
    for node in gateway.upstream_node_ids() {
        let (socket, listener) = ports.bind(gateway, node).await?;
        bound.push(listener);
        sockets.push(socket);
    }
    Ok(ports)
}

/// How a gateway node binds the port of one upstream broker.
#[derive(Debug, Clone)]
pub(super) struct BrokerPorts {
    /// The gateway listener as configured.
    listener: kacl_server_config::Listener,
    /// The gateway listener as bound and advertised.
    front: BoundListener,
    /// `kacl.gateway.broker.port.base`.
    base: Option<u16>,
}

impl BrokerPorts {
    /// Binds upstream broker `node`'s port and exposes it in the gateway's answers.
    async fn bind(
        &self,
        gateway: &Gateway,
        node: i32,
    ) -> Result<(TcpListener, BoundListener), StartError> {
        let (listener, front) = (&self.listener, &self.front);
        let base = match self.base {
            Some(base) => Some(base),
            None if listener.port == 0 => None,
            None => listener.port.checked_add(1),
        };
        let port = match base {
            None => 0,
            Some(base) => u16::try_from(i64::from(base) + i64::from(node))
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| {
                    StartError::Task(format!(
                        "upstream broker {node} has no port: {base} + {node} is not a port"
                    ))
                })?,
        };
        let address = format!("{}:{port}", listener.host);
        let name = format!("{} (upstream broker {node})", listener.name);
        let socket = TcpListener::bind(&address)
            .await
            .map_err(|source| StartError::Bind {
                listener: name.clone(),
                address: address.clone(),
                source,
            })?;
        let local_addr = socket.local_addr().map_err(|source| StartError::Bind {
            listener: name,
            address,
            source,
        })?;
        let advertised_port = if base.is_some() && front.advertised_port != listener.port {
            // An advertised port differing from the bound one (a port mapping) shifts the
            // broker ports the same way.
            front
                .advertised_port
                .wrapping_add(local_addr.port().wrapping_sub(listener.port))
        } else {
            local_addr.port()
        };
        gateway.expose(
            node,
            Endpoint {
                host: front.advertised_host.clone(),
                port: advertised_port,
            },
        );
        tracing::info!(node, upstream = %gateway.upstream_address(node).unwrap_or_default(),
            gateway = %local_addr, "gateway port for an upstream broker");
        Ok((
            socket,
            BoundListener {
                local_addr,
                advertised_port,
                upstream_node: Some(node),
                ..front.clone()
            },
        ))
    }
}

/// Binds a port for each upstream broker the gateway first sees after start, and serves it
/// like the others, until shutdown (then waits for its accept loops). A port that cannot be
/// bound is logged and the broker stays hidden from clients, as before it joined.
pub(super) async fn serve_joined_brokers(
    mut joined: tokio::sync::mpsc::UnboundedReceiver<i32>,
    ports: BrokerPorts,
    gateway: Gateway,
    state: Arc<ServerState>,
    shell: Arc<Shell>,
    shutdown: Arc<watch::Sender<bool>>,
) {
    let mut stop = shutdown.subscribe();
    let mut loops = tokio::task::JoinSet::new();
    loop {
        let node = tokio::select! {
            _ = wait_for_shutdown(&mut stop) => break,
            node = joined.recv() => match node {
                Some(node) => node,
                None => break,
            },
        };
        if gateway.exposes(node) {
            continue;
        }
        match ports.bind(&gateway, node).await {
            Ok((socket, listener)) => {
                tracing::info!(listener = %listener.name, address = %listener.local_addr,
                    "listening");
                loops.spawn(accept_loop(
                    socket,
                    listener,
                    state.clone(),
                    shell.clone(),
                    shutdown.subscribe(),
                ));
            }
            Err(err) => tracing::warn!(node, err = %err,
                "no gateway port for a broker that joined the upstream; clients do not see it"),
        }
    }
    while loops.join_next().await.is_some() {}
}
