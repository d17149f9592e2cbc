//! [`AdminError`]: everything an admin call can fail with, each variant able to say which Kafka
//! error it corresponds to, so that the CLI can print `Error: CLUSTER_AUTHORIZATION_FAILED: ...`
//! whatever the failure was.

use std::time::Duration;

use kacl_protocol::{ApiKey, ErrorCode};

/// Why an admin call (or one binding, filter, topic or user within it) failed.
///
/// `Clone` because Kafka's AdminClient deduplicates its input and hands the same outcome back to
/// every position that named the same binding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdminError {
    /// The broker answered with a Kafka error code.
    #[error("{}: {message}", code.name())]
    Server {
        /// The error code on the wire.
        code: ErrorCode,
        /// The broker's message, or Kafka's default text for the code when it sent none.
        message: String,
    },
    /// The request was refused before it was sent, as Kafka's AdminClient refuses it
    /// (`InvalidRequestException`): UNKNOWN in a filter, an indefinite binding to create, ...
    #[error("INVALID_REQUEST: {0}")]
    InvalidRequest(String),
    /// The broker does not offer any version of an API this client can speak, or the request
    /// cannot be expressed at the version both sides share.
    #[error("UNSUPPORTED_VERSION: {detail}")]
    UnsupportedVersion {
        /// The API concerned.
        api: ApiKey,
        /// What exactly is missing.
        detail: String,
    },
    /// A call or a single request did not complete in time.
    #[error("TIMEOUT: {what} timed out after {} ms", after.as_millis())]
    Timeout {
        /// What timed out (`"DescribeAcls request to 127.0.0.1:9092"`, `"describeAcls call"`).
        what: String,
        /// The limit that was exceeded.
        after: Duration,
    },
    /// Connecting, reading or writing failed, or the broker closed the connection.
    #[error("NETWORK_EXCEPTION: {addr}: {message}")]
    Network {
        /// The broker address.
        addr: String,
        /// The I/O error's text.
        message: String,
    },
    /// A response could not be decoded, or did not fit its request.
    #[error("CORRUPT_MESSAGE: {0}")]
    Decode(String),
    /// The client configuration is unusable (bad bootstrap address, unknown mechanism, ...).
    #[error("INVALID_CONFIG: {0}")]
    Config(String),
    /// SASL authentication failed on the client side (a bad server signature, an unexpected
    /// message); a refusal by the server is a [`AdminError::Server`] error instead.
    #[error("SASL_AUTHENTICATION_FAILED: {0}")]
    Authentication(String),
}

impl AdminError {
    /// A server error from a code and an optional message (Kafka's default text if none or
    /// empty, as Kafka's `ApiError` does).
    pub fn server(code: ErrorCode, message: Option<&str>) -> Self {
        let message = match message {
            Some(m) if !m.is_empty() => m.to_owned(),
            _ => code.default_message().to_owned(),
        };
        AdminError::Server { code, message }
    }

    /// `Err` for a non-zero error code from the wire, `Ok` for 0.
    pub fn check(code: i16, message: Option<&str>) -> Result<(), AdminError> {
        let code = ErrorCode::from_code(code);
        if code.is_ok() {
            Ok(())
        } else {
            Err(Self::server(code, message))
        }
    }

    /// The Kafka error this failure corresponds to, where there is one.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            AdminError::Server { code, .. } => Some(*code),
            AdminError::InvalidRequest(_) => Some(ErrorCode::InvalidRequest),
            AdminError::UnsupportedVersion { .. } => Some(ErrorCode::UnsupportedVersion),
            AdminError::Timeout { .. } => Some(ErrorCode::RequestTimedOut),
            AdminError::Network { .. } => Some(ErrorCode::NetworkException),
            AdminError::Decode(_) => Some(ErrorCode::CorruptMessage),
            AdminError::Authentication(_) => Some(ErrorCode::SaslAuthenticationFailed),
            AdminError::Config(_) => None,
        }
    }

    /// Whether trying again (after a backoff, perhaps on a fresh connection) may succeed:
    /// network failures, per-request timeouts and the error codes Kafka marks retriable.
    pub fn is_retriable(&self) -> bool {
        match self {
            AdminError::Server { code, .. } => code.is_retriable(),
            AdminError::Network { .. } | AdminError::Timeout { .. } => true,
            _ => false,
        }
    }

    pub(crate) fn network(addr: &str, err: impl std::fmt::Display) -> Self {
        AdminError::Network {
            addr: addr.to_owned(),
            message: err.to_string(),
        }
    }

    pub(crate) fn decode(what: impl std::fmt::Display) -> Self {
        AdminError::Decode(what.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_errors_print_kafka_names_and_fall_back_to_default_messages() {
        let err = AdminError::server(ErrorCode::ClusterAuthorizationFailed, Some("nope"));
        assert_eq!(err.to_string(), "CLUSTER_AUTHORIZATION_FAILED: nope");
        let err = AdminError::server(ErrorCode::SecurityDisabled, None);
        assert_eq!(
            err.to_string(),
            format!(
                "SECURITY_DISABLED: {}",
                ErrorCode::SecurityDisabled.default_message()
            )
        );
        assert_eq!(err.code(), Some(ErrorCode::SecurityDisabled));
    }

    #[test]
    fn check_passes_zero_and_classifies_retriable_codes() {
        assert_eq!(AdminError::check(0, Some("ignored")), Ok(()));
        let err = AdminError::check(41, None).unwrap_err();
        assert!(err.is_retriable(), "NOT_CONTROLLER is retriable");
        let err = AdminError::check(31, None).unwrap_err();
        assert!(!err.is_retriable());
        assert!(AdminError::network("h:1", "reset").is_retriable());
        assert!(!AdminError::InvalidRequest("x".into()).is_retriable());
    }
}
