//! Why the server did not start.

use kacl_service::scram_bootstrap;
use kacl_store::StoreError;
use thiserror::Error;

use crate::tls;

/// Why the server did not start.
#[derive(Debug, Error)]
pub enum StartError {
    /// The store could not be opened (locked by another server, unreadable, newer format).
    #[error("cannot open the data directory {dir}: {source}")]
    Store {
        /// The data directory.
        dir: String,
        /// The store's reason.
        source: StoreError,
    },
    /// The ACLs or topics could not be read back.
    #[error("cannot load the stored metadata: {0}")]
    Load(StoreError),
    /// A listener could not be bound.
    #[error("cannot bind listener {listener} to {address}: {source}")]
    Bind {
        /// The listener as configured.
        listener: String,
        /// The address tried.
        address: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The TLS key store or trust store cannot be used.
    #[error(transparent)]
    Tls(#[from] tls::TlsError),
    /// The bootstrap SCRAM credentials cannot be created.
    #[error(transparent)]
    Bootstrap(#[from] scram_bootstrap::BootstrapError),
    /// Gateway mode: the upstream cluster cannot be reached or refused the service identity.
    #[error(transparent)]
    Gateway(#[from] kacl_gateway::GatewayError),
    /// OAUTHBEARER is configured but its keys cannot be had.
    #[error("OAUTHBEARER: {key}: {reason}")]
    OAuthBearer {
        /// The config key at fault.
        key: String,
        /// Why.
        reason: String,
    },
    /// A start-up task panicked.
    #[error("start-up task failed: {0}")]
    Task(String),
}

impl StartError {
    /// True when the data directory itself was refused (missing, damaged, or another
    /// cluster's or node's): `kacl serve` exits with [`kacl_store::EXIT_DATA_DIR_REFUSED`].
    pub fn refuses_data_dir(&self) -> bool {
        match self {
            StartError::Store { source, .. } | StartError::Load(source) => {
                source.refuses_data_dir()
            }
            _ => false,
        }
    }
}
