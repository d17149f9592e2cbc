//! Every message kacl serves, one module per API, each declared once with
//! [`kafka_message!`](crate::kafka_message). Field names are Kafka's schema names in
//! snake_case; nested struct names are Kafka's.

pub mod alter_configs;
pub mod alter_user_scram_credentials;
pub mod api_versions;
pub mod create_acls;
pub mod create_partitions;
pub mod create_topics;
pub mod delete_acls;
pub mod delete_topics;
pub mod describe_acls;
pub mod describe_cluster;
pub mod describe_configs;
pub mod describe_user_scram_credentials;
pub mod incremental_alter_configs;
pub mod metadata;
pub mod sasl_authenticate;
pub mod sasl_handshake;
