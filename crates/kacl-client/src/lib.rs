//! Async Kafka admin client: KIP-140 ACL administration, topics, SCRAM users, version negotiation.
#![forbid(unsafe_code)]
