//! Async Kafka admin client: KIP-140 ACL administration, topics, SCRAM users, version
//! negotiation. Speaks to kacl and to any Kafka cluster.
//!
//! ```no_run
//! # async fn demo() -> Result<(), kacl_client::AdminError> {
//! use kacl_acl::AclBindingFilter;
//! use kacl_client::{Admin, AdminConfig, DescribeAclsOptions};
//!
//! let admin = Admin::connect(AdminConfig::new(["127.0.0.1:9092"])).await?;
//! let bindings = admin
//!     .describe_acls(AclBindingFilter::ANY, DescribeAclsOptions::default())
//!     .await?;
//! for binding in bindings {
//!     println!("{binding}");
//! }
//! # Ok(()) }
//! ```
//!
//! - [`Admin`]: connect, then `describe_acls` / `create_acls` / `delete_acls`, topics
//!   (`create_topics`, `delete_topics`, `create_partitions`, `list_topics`,
//!   `describe_topics`), SCRAM users (`alter_user_scram_credentials`,
//!   `describe_user_scram_credentials`), configs (`describe_configs`,
//!   `incremental_alter_configs`, `alter_configs`) and `describe_cluster`.
//! - [`AdminConfig`]: bootstrap servers, security protocol, SASL, timeouts and retries;
//!   [`AdminConfig::from_properties`] reads Kafka client properties files.
//! - [`AdminError`]: every failure, with the Kafka error it corresponds to.
//! - [`net`]: connections (pipelined, correlation ids), ApiVersions negotiation, SASL (the
//!   mechanisms themselves are the `kacl-sasl` crate's, shared with the server).
#![forbid(unsafe_code)]

mod acl_groups;
pub mod acl_stream;
pub mod acl_wire;
mod admin;
pub mod config;
mod error;
pub mod net;

pub use acl_groups::{AclGroup, AclGroupRef, AclGroups, EntryRef, SharedEntry};
pub use admin::{
    Admin, AlterConfigOp, AlterConfigOpType, AlterConfigsOptions, BrokerNode, ClientQuotaEntry,
    ClusterDescription, ConfigEntry, ConfigResource, ConfigResourceType, ConfigSource,
    ConfigSynonym, ConfigType, CreateAclsOptions, DeleteAclsOptions, DescribeAclsOptions,
    DescribeAclsResult, DescribeAclsStream, DescribeClusterOptions, DescribeConfigsOptions,
    FilterResults, NewPartitions, NewTopic, PartitionInfo, QuotaAlteration, QuotaEntityPart,
    QuotaEntityParts, QuotaMatch, QuotaOptions, ScramCredentialInfo, TopicDescription,
    TopicListing, TopicOptions, UserScramCredentialAlteration, UserScramCredentialsDescription,
    UserScramOptions,
};
pub use config::{
    AdminConfig, ConfigNotes, Properties, SaslConfig, SecurityProtocol, TlsConfig, TlsOffer,
    TlsProtocol,
};
pub use error::AdminError;
/// The SASL mechanisms, shared with kacl-server through the `kacl-sasl` crate.
pub use kacl_sasl::{SaslMechanism, ScramMechanism};
