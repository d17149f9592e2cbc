//! The admin CLI subcommands: `acls` (kafka-acls.sh), `topics` (kafka-topics.sh) and `users`
//! (the SCRAM part of kafka-configs.sh), over [`kacl_client`].

pub mod acls;
pub mod common;
pub mod topics;
pub mod users;
