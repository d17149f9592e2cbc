//! Connection limits: `max.connections` (all listeners together) and `max.connections.per.ip`,
//! with `max.connections.per.ip.overrides` for chosen addresses (with a default of 0, an
//! allow-list of addresses).
//! A connection over either limit is closed as soon as it is accepted, before a byte is read;
//! the slot is freed when the connection's guard is dropped, however the connection ends.
//!
//! Deliberate difference from Kafka: when `max.connections` is reached Kafka stops accepting
//! (new connections wait in the listen backlog until a slot frees); kacl accepts and closes
//! them at once, so a client fails fast and retries instead of hanging. Kafka's per-IP
//! behaviour (accept and close) is kept. Per-listener `listener.name.<name>.max.connections` is
//! not supported.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use parking_lot::Mutex;

/// Why a new connection is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `max.connections` connections are open.
    Total {
        /// The limit.
        limit: u32,
    },
    /// `max.connections.per.ip` connections from this address are open.
    PerIp {
        /// The limit.
        limit: u32,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Total { limit } => {
                write!(f, "max.connections reached ({limit} open connections)")
            }
            // Kafka's `TooManyConnectionsException` wording.
            Refusal::PerIp { limit } => write!(
                f,
                "address already has the configured maximum of {limit} connections \
                 (max.connections.per.ip)"
            ),
        }
    }
}

#[derive(Debug, Default)]
struct Counts {
    total: u32,
    per_ip: HashMap<IpAddr, u32>,
}

/// Counts open connections against the two limits. Shared by every listener.
#[derive(Debug)]
pub struct ConnectionLimits {
    max_total: u32,
    max_per_ip: u32,
    per_ip_overrides: HashMap<IpAddr, u32>,
    counts: Arc<Mutex<Counts>>,
}

/// One admitted connection's slot; dropping it frees the slot.
#[derive(Debug)]
pub struct ConnectionSlot {
    ip: IpAddr,
    counts: Arc<Mutex<Counts>>,
}

impl ConnectionLimits {
    /// Limits of `max_total` connections, `max_per_ip` from any one address but those of
    /// `per_ip_overrides`, which have their own.
    pub fn new(
        max_total: u32,
        max_per_ip: u32,
        per_ip_overrides: HashMap<IpAddr, u32>,
    ) -> ConnectionLimits {
        ConnectionLimits {
            max_total,
            max_per_ip,
            per_ip_overrides: per_ip_overrides
                .into_iter()
                .map(|(ip, limit)| (ip.to_canonical(), limit))
                .collect(),
            counts: Arc::default(),
        }
    }

    /// Admits a connection from `ip`, or says which limit it is over. IPv4-mapped IPv6
    /// addresses count as their IPv4 address.
    pub fn admit(&self, ip: IpAddr) -> Result<ConnectionSlot, Refusal> {
        let ip = ip.to_canonical();
        let mut counts = self.counts.lock();
        if counts.total >= self.max_total {
            return Err(Refusal::Total {
                limit: self.max_total,
            });
        }
        let from_ip = counts.per_ip.get(&ip).copied().unwrap_or(0);
        let limit = self
            .per_ip_overrides
            .get(&ip)
            .copied()
            .unwrap_or(self.max_per_ip);
        if from_ip >= limit {
            return Err(Refusal::PerIp { limit });
        }
        counts.total += 1;
        counts.per_ip.insert(ip, from_ip + 1);
        Ok(ConnectionSlot {
            ip,
            counts: self.counts.clone(),
        })
    }

    /// Connections open now.
    pub fn open(&self) -> u32 {
        self.counts.lock().total
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.lock();
        counts.total = counts.total.saturating_sub(1);
        if let Some(n) = counts.per_ip.get_mut(&self.ip) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.per_ip.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_total_and_per_ip_and_frees_on_drop() {
        let limits = ConnectionLimits::new(3, 2, HashMap::new());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let a1 = limits.admit(a).unwrap();
        let _a2 = limits.admit(a).unwrap();
        assert_eq!(
            limits.admit(a).unwrap_err(),
            Refusal::PerIp { limit: 2 },
            "third from one address"
        );
        // A mapped IPv6 address is the same client.
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert!(limits.admit(mapped).is_err());
        let _b1 = limits.admit(b).unwrap();
        assert_eq!(limits.admit(b).unwrap_err(), Refusal::Total { limit: 3 });
        assert_eq!(limits.open(), 3);
        drop(a1);
        assert_eq!(limits.open(), 2);
        let _a3 = limits.admit(a).unwrap();
    }

    #[test]
    fn zero_refuses_everything() {
        let limits = ConnectionLimits::new(10, 0, HashMap::new());
        assert!(limits.admit("127.0.0.1".parse().unwrap()).is_err());
        assert_eq!(limits.open(), 0);
    }

    #[test]
    fn overrides_replace_the_per_ip_limit_for_their_addresses() {
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        // max.connections.per.ip=0 with an override: only that address may connect.
        let limits = ConnectionLimits::new(10, 0, HashMap::from([(a, 2)]));
        let _a1 = limits.admit(a).unwrap();
        let _a2 = limits.admit("::ffff:10.0.0.1".parse().unwrap()).unwrap();
        assert_eq!(limits.admit(a).unwrap_err(), Refusal::PerIp { limit: 2 });
        assert_eq!(limits.admit(b).unwrap_err(), Refusal::PerIp { limit: 0 });
    }
}
