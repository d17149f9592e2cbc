//! Durable metadata store for kacl: ACLs, topics, SCRAM credentials, on redb.
#![forbid(unsafe_code)]
