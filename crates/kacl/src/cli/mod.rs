//! The admin CLI subcommands: `acls` (kafka-acls.sh), `topics` (kafka-topics.sh), `configs`
//! (kafka-configs.sh) and `users` (its SCRAM part), over [`kacl_client`].

pub(crate) mod acls;
pub(crate) mod common;
pub(crate) mod configs;
pub(crate) mod store_copy;
pub(crate) mod topics;
pub(crate) mod users;
