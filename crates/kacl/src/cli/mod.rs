//! The admin CLI subcommands: `acls` (kafka-acls.sh), `topics` (kafka-topics.sh), `configs`
//! (kafka-configs.sh) and `users` (its SCRAM part), over [`kacl_client`].

pub mod acls;
pub mod common;
pub mod configs;
pub mod topics;
pub mod users;
