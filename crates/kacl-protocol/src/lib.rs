//! Kafka wire codec: primitives, headers, framing, error codes and every message kacl serves, declared once per message.
#![forbid(unsafe_code)]
