//! Every message kacl serves, one module per API, each declared once with
//! [`kafka_message!`](crate::kafka_message). Field names are Kafka's schema names in
//! snake_case; nested struct names are Kafka's.

pub mod api_versions;
pub mod create_acls;
pub mod delete_acls;
pub mod describe_acls;
pub mod sasl_authenticate;
pub mod sasl_handshake;
